"""Cards and their notation (docs/rules.md, "The cards").

A card is one of 53 kinds: 13 ranks x 4 suits, plus the joker.  Each kind has
one interned `Card`, so cards compare and hash by identity-fast integer ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final

RANK_NAMES: Final = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUIT_NAMES: Final = ("C", "D", "H", "S")
SUIT_SYMBOLS: Final = ("♣", "♦", "♥", "♠")

#: Rank index of the joker; natural ranks are 0 (3) .. 12 (2).
JOKER_RANK: Final = 13
TWO: Final = 12
SIX: Final = 3
SEVEN: Final = 4
EIGHT: Final = 5
NINE: Final = 6
TEN: Final = 7
THREE: Final = 0
#: Number of card kinds: 52 naturals + the joker.
KINDS: Final = 53
JOKER_ID: Final = 52

_RANK_WORDS: Final = (
    ("3", "3s"),
    ("4", "4s"),
    ("5", "5s"),
    ("6", "6s"),
    ("7", "7s"),
    ("8", "8s"),
    ("9", "9s"),
    ("10", "10s"),
    ("J", "Js"),
    ("Q", "Qs"),
    ("K", "Ks"),
    ("A", "As"),
    ("2", "2s"),
    ("joker", "jokers"),
)


class Immutable:
    """What cards and actions share: each field set once, as the object is made
    (compiled, `__init__` sets its fields without this), never set again or deleted;
    interned objects are shared by every game and bot."""

    __slots__ = ()
    #: What the refusal calls these objects.
    _kind: ClassVar[str] = "cards"

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, name):
            raise AttributeError(f"{self._kind} are immutable")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self._kind} are immutable")


class Card(Immutable):
    """One card kind.  Use `Card.parse("10H")` or `CARDS[id]`; never construct directly."""

    __slots__ = ("id", "rank", "suit")

    id: int
    rank: int
    suit: int  # -1 for the joker

    def __init__(self, card_id: int) -> None:
        if not 0 <= card_id < KINDS:
            raise ValueError(f"no card has id {card_id}")
        self.id = card_id
        self.rank = card_id >> 2 if card_id != JOKER_ID else JOKER_RANK
        self.suit = card_id & 3 if card_id != JOKER_ID else -1

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (str(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @staticmethod
    def parse(text: str) -> Card:
        """Parse notation such as ``3C``, ``10h``, ``TD``, ``Q♠`` or ``JK``."""
        return CARDS[parse_id(text)]

    @property
    def is_joker(self) -> bool:
        return self.id == JOKER_ID

    def __str__(self) -> str:
        if self.id == JOKER_ID:
            return "JK"
        return RANK_NAMES[self.rank] + SUIT_NAMES[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __le__(self, other: Card) -> bool:
        return self.id <= other.id

    def __gt__(self, other: Card) -> bool:
        return self.id > other.id

    def __ge__(self, other: Card) -> bool:
        return self.id >= other.id

    def __hash__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.id == self.id


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(KINDS))
JOKER: Final = CARDS[JOKER_ID]

_RANK_LOOKUP: Final = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": 7}
_SUIT_LOOKUP: Final = {name: i for i, name in enumerate(SUIT_NAMES)} | {
    sym: i for i, sym in enumerate(SUIT_SYMBOLS)
}


def parse_id(text: str) -> int:
    """Card id for one card's notation; `ValueError` with a readable message if it is not one."""
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a card")
    word = text.strip().upper()
    if word == "JK":
        return JOKER_ID
    if len(word) < 2:
        raise ValueError(f"{text!r} is not a card (write cards like 3C, 10H, QS, JK)")
    rank = _RANK_LOOKUP.get(word[:-1])
    suit = _SUIT_LOOKUP.get(word[-1])
    if rank is None or suit is None:
        raise ValueError(f"{text!r} is not a card (write cards like 3C, 10H, QS, JK)")
    return rank * 4 + suit


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards; a single string may also hold them separated by spaces or commas."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return tuple(CARDS[parse_id(t)] for t in texts)


def counts_of(cards: Iterable[Card]) -> list[int]:
    """A hand as a count per card kind (`counts[card.id]`), the engine's own form."""
    counts = [0] * KINDS
    for card in cards:
        counts[card.id] += 1
    return counts


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def rank_word(rank: int, count: int = 1) -> str:
    """`rank_word(4) == "7"`, `rank_word(4, 2) == "7s"` — for sentences."""
    singular, plural = _RANK_WORDS[rank]
    return singular if count == 1 else plural


def describe_set(rank: int, count: int, jokers: int = 0) -> str:
    """A play in words: "a single K", "a pair of 6s", "three 7s (one a joker)"."""
    if rank == JOKER_RANK:
        return "a joker" if count == 1 else f"{_count_word(count)} jokers"
    if count == 1:
        text = f"a single {rank_word(rank)}"
    elif count == 2:
        text = f"a pair of {rank_word(rank, 2)}"
    else:
        text = f"{_count_word(count)} {rank_word(rank, 2)}"
    if jokers:
        text += " (with a joker)" if jokers == 1 else f" (with {jokers} jokers)"
    return text


def _count_word(count: int) -> str:
    words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")
    return words[count] if count < len(words) else str(count)


def deck(decks: int = 1, jokers: int = 0) -> list[Card]:
    """The full deck in a fixed order: naturals by id, then the jokers."""
    return [c for c in CARDS[:JOKER_ID] for _ in range(decks)] + [JOKER] * (jokers * decks)

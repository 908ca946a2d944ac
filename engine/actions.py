"""What a player can do: play a set, pass, or make the exchange return."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final, Literal, NamedTuple, TypeVar

from .cards import CARDS, JOKER_ID, JOKER_RANK, Card, parse_cards

_A = TypeVar("_A", bound="_Cards")


class _Cards:
    """What plays and returns share: immutable, parsed from notation, copied and pickled
    as themselves."""

    __slots__ = ()
    cards: tuple[Card, ...]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    @classmethod
    def parse(cls: type[_A], text: str | Iterable[str]) -> _A:
        return cls(parse_cards(text))  # type: ignore[call-arg]

    def __reduce__(self) -> tuple[type[_Cards], tuple[tuple[Card, ...]]]:
        return (type(self), (self.cards,))

    def __copy__(self: _A) -> _A:
        return self

    def __deepcopy__(self: _A, memo: object) -> _A:
        return self


class Play(_Cards):
    """Lead or follow with these cards.  Equal plays hold the same cards in any order.

    `rank` is the set's rank (a wild joker takes the rank of its naturals; a set
    of jokers alone has the joker rank), or -1 when the cards are not one set.
    """

    __slots__ = ("cards", "count", "ids", "jokers", "rank", "repeats", "step")

    cards: tuple[Card, ...]
    ids: tuple[int, ...]
    rank: int
    count: int
    jokers: int
    #: Whether a card kind appears more than once (jokers, or two decks).
    repeats: bool
    #: How much the play takes from its rank's suit pattern (see `moves.row_for`).
    step: int

    def __init__(self, cards: Iterable[Card]) -> None:
        ordered = tuple(sorted(cards, key=lambda c: c.id))
        ids = tuple(c.id for c in ordered)
        naturals = {c.rank for c in ordered if c.id != JOKER_ID}
        jokers = ids.count(JOKER_ID)
        if len(naturals) == 1:
            rank = next(iter(naturals))
        elif not naturals and jokers:
            rank = JOKER_RANK
        else:
            rank = -1
        set_ = object.__setattr__
        set_(self, "cards", ordered)
        set_(self, "ids", ids)
        set_(self, "rank", rank)
        set_(self, "count", len(ids))
        set_(self, "jokers", jokers)
        set_(self, "repeats", len(set(ids)) != len(ids))
        set_(
            self,
            "step",
            sum(
                3 ** (i & 3) if i != JOKER_ID else 1
                for i in ids
                if (i != JOKER_ID) == (rank != JOKER_RANK)
            ),
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is Play and other.ids == self.ids

    def __hash__(self) -> int:
        return hash(("play", self.ids))

    def __repr__(self) -> str:
        return f"Play.parse({' '.join(map(str, self.cards))!r})"

    def __str__(self) -> str:
        return " ".join(map(str, self.cards))


class _Handful(_Cards):
    """Cards handed on as they are (no shape to them): a return, a handover, a discard."""

    __slots__ = ("cards", "ids")

    cards: tuple[Card, ...]
    ids: tuple[int, ...]
    #: The action in words, before its cards ("return 3C 4D").
    word: ClassVar[str]

    def __init__(self, cards: Iterable[Card]) -> None:
        ordered = tuple(sorted(cards, key=lambda c: c.id))
        object.__setattr__(self, "cards", ordered)
        object.__setattr__(self, "ids", tuple(c.id for c in ordered))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.ids == self.ids

    def __hash__(self) -> int:
        return hash((self.word, self.ids))

    def __repr__(self) -> str:
        return f"{type(self).__name__}.parse({' '.join(map(str, self.cards))!r})"

    def __str__(self) -> str:
        return f"{self.word} " + " ".join(map(str, self.cards))


class Return(_Handful):
    """The President's or Vice-President's return in the exchange."""

    __slots__ = ()
    word = "return"


class Handover(_Handful):
    """Under seven_pass, after a play holding 7s: a card this seat hands to the next seat
    holding cards (one action per card owed: see `Due`)."""

    __slots__ = ()
    word = "hand over"


class Discard(_Handful):
    """Under ten_discard, after a play holding 10s: a card this seat discards, face up,
    out of the hand (one action per card owed: see `Due`)."""

    __slots__ = ()
    word = "discard"


class Take(_Handful):
    """A card of the cards played this hand (`Due.cards`) taken back into a hand: its
    taker's own under salvage and kings_march, the next seat's under zombie (one action
    per card owed: see `Due`)."""

    __slots__ = ()
    word = "take"


class Pass:
    """Decline to play on this turn.  All passes are equal; `PASS` is the usual one."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is Pass

    def __hash__(self) -> int:
        return hash("pass")

    def __repr__(self) -> str:
        return "PASS"

    def __str__(self) -> str:
        return "pass"

    def __reduce__(self) -> str:
        return "PASS"


PASS: Final = Pass()
Action = Play | Pass | Return | Handover | Discard | Take


DueKind = Literal["handover", "discard", "salvage", "march", "zombie"]


class Due(NamedTuple):
    """What the seat whose turn it is owes before play goes on: after a play holding 7s
    (seven_pass) a `Handover`, after one holding 10s (ten_discard) a `Discard`; after a
    trick that a 3 ended (salvage: "salvage"), a play holding Ks (kings_march: "march")
    or three 3s (zombie: "zombie") a `Take` of one of `cards`; `size` cards still owed,
    paid one card at a time (one card per action)."""

    kind: DueKind
    size: int
    #: What a `Take` may take (every kind but "handover" and "discard"): the cards played
    #: this hand that are out of play face up (finished tricks, discards), lowest first.
    cards: tuple[Card, ...] = ()


#: The dues a `Take` pays: the card goes to its taker's hand ("salvage", "march") or to
#: the next seat holding cards ("zombie").
TAKES: Final = frozenset({"salvage", "march", "zombie"})

#: The action that pays each kind of `Due`.
DUE_ACTIONS: Final[dict[str, type[Handover] | type[Discard] | type[Take]]] = {
    "handover": Handover,
    "discard": Discard,
    "salvage": Take,
    "march": Take,
    "zombie": Take,
}

_PLAYS: dict[tuple[int, ...], Play] = {}


def play_of(ids: tuple[int, ...]) -> Play:
    """The interned `Play` for sorted card ids (the engine's hot path makes many)."""
    play = _PLAYS.get(ids)
    if play is None:
        play = _PLAYS[ids] = Play(CARDS[i] for i in ids)
    return play

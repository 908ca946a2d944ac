"""What a player can do: play a set, pass, or make the exchange return."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Final, Literal, NamedTuple, TypeVar

from .cards import (
    _RANK_LOOKUP,
    CARDS,
    JOKER_ID,
    JOKER_RANK,
    RANK_NAMES,
    Card,
    Immutable,
    parse_cards,
)

_A = TypeVar("_A", bound="_Cards")


class _Cards(Immutable):
    """What plays and returns share: immutable, parsed from notation, copied and pickled
    as themselves."""

    __slots__ = ()
    _kind = "actions"
    cards: tuple[Card, ...]

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
        self.cards = ordered
        self.ids = ids
        self.rank = rank
        self.count = len(ids)
        self.jokers = jokers
        self.repeats = len(set(ids)) != len(ids)
        self.step = sum(
            3 ** (i & 3) if i != JOKER_ID else 1
            for i in ids
            if (i != JOKER_ID) == (rank != JOKER_RANK)
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
        self.cards = ordered
        self.ids = tuple(c.id for c in ordered)

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


class Bomb(Immutable):
    """Under queen_bomber, after a play holding Qs: a rank this seat names (0 for the 3s
    to 12 for the 2s; one action per Q owed: see `Due`).  Every seat still holding cards
    discards all its natural cards of that rank, face up."""

    __slots__ = ("rank",)
    _kind = "actions"

    rank: int
    #: (no cards of its own: the ones it makes everyone discard are its events')
    cards: ClassVar[tuple[Card, ...]] = ()

    def __init__(self, rank: int) -> None:
        if type(rank) is not int or not 0 <= rank < len(RANK_NAMES):
            raise ValueError(f"a bomb names a rank, 3 to 2, not {rank!r}")
        self.rank = rank

    @classmethod
    def parse(cls, text: str) -> Bomb:
        """A rank as written: "7", "10" (or "T"), "Q", "2"."""
        rank = _RANK_LOOKUP.get(text.strip().upper())
        if rank is None:
            raise ValueError(f"{text!r} is not a rank: 3 4 5 6 7 8 9 10 J Q K A 2")
        return cls(rank)

    def __eq__(self, other: object) -> bool:
        return type(other) is Bomb and other.rank == self.rank

    def __hash__(self) -> int:
        return hash(("bomb", self.rank))

    def __repr__(self) -> str:
        return f"Bomb.parse({RANK_NAMES[self.rank]!r})"

    def __str__(self) -> str:
        return f"bomb the {RANK_NAMES[self.rank]}s"

    def __reduce__(self) -> tuple[type[Bomb], tuple[int]]:
        return (Bomb, (self.rank,))

    def __copy__(self) -> Bomb:
        return self

    def __deepcopy__(self, memo: object) -> Bomb:
        return self


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
Action = Play | Pass | Return | Handover | Discard | Take | Bomb


DueKind = Literal["handover", "discard", "salvage", "march", "zombie", "bomb"]


class Due(NamedTuple):
    """What the seat whose turn it is owes before play goes on: after a play holding 7s
    (seven_pass) a `Handover`, after one holding 10s (ten_discard) a `Discard`; after a
    trick that a 3 ended (salvage: "salvage"), a play holding Ks (kings_march: "march")
    or three 3s (zombie: "zombie") a `Take` of one of `cards`; after a play holding Qs
    (queen_bomber: "bomb") a `Bomb` naming a rank; `size` cards (or ranks) still owed,
    paid one at a time (one per action)."""

    kind: DueKind
    size: int
    #: What a `Take` may take (every kind but "handover" and "discard"): the cards played
    #: this hand that are out of play face up (finished tricks, discards), lowest first.
    cards: tuple[Card, ...] = ()


#: The dues a `Take` pays: the card goes to its taker's hand ("salvage", "march") or to
#: the next seat holding cards ("zombie").
TAKES: Final = frozenset({"salvage", "march", "zombie"})

#: The action that pays each kind of `Due`.
DUE_ACTIONS: Final[dict[str, type[Handover] | type[Discard] | type[Take] | type[Bomb]]] = {
    "handover": Handover,
    "discard": Discard,
    "salvage": Take,
    "march": Take,
    "zombie": Take,
    "bomb": Bomb,
}

_PLAYS: dict[tuple[int, ...], Play] = {}


def play_of(ids: tuple[int, ...]) -> Play:
    """The interned `Play` for sorted card ids (the engine's hot path makes many)."""
    play = _PLAYS.get(ids)
    if play is None:
        play = _PLAYS[ids] = Play(CARDS[i] for i in ids)
    return play

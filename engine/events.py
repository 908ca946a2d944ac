"""What happened: `Game.apply` and `Game.start_hand` return these, in order.

Events that hold a seat's own cards (`Dealt`, `Gave`, `Returned`) are private to the
seats named in them; `public_event` is what everyone else may know of each event.
Events are immutable named tuples (cheap to make: a hand makes over a hundred); two
events are equal only if they are of the same type.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

from .cards import Card

_T = TypeVar("_T")


def _typed_equality(cls: type[_T]) -> type[_T]:
    def __eq__(self: tuple[Any, ...], other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self: tuple[Any, ...], other: object) -> bool:
        return not __eq__(self, other)

    def __hash__(self: tuple[Any, ...]) -> int:
        return hash((type(self).__name__, tuple(self)))

    cls.__eq__ = __eq__  # type: ignore[assignment,method-assign]
    cls.__ne__ = __ne__  # type: ignore[assignment,method-assign]
    cls.__hash__ = __hash__  # type: ignore[assignment,method-assign]
    return cls


@_typed_equality
class HandStarted(NamedTuple):
    hand: int  # 0-based
    seating: tuple[str, ...]
    dealer: int


@_typed_equality
class Dealt(NamedTuple):
    seat: int
    cards: tuple[Card, ...]


@_typed_equality
class Gave(NamedTuple):
    """A forced give of the exchange, made by the engine.  `cards` is () in its public
    face: only the giver and the receiver see them."""

    giver: int
    receiver: int
    size: int
    cards: tuple[Card, ...]


@_typed_equality
class Returned(NamedTuple):
    """A return of the exchange (`cards` is () in its public face, as for `Gave`)."""

    giver: int
    receiver: int
    size: int
    cards: tuple[Card, ...]
    automatic: bool


@_typed_equality
class ExchangeDone(NamedTuple):
    """The exchange is over; the leader's turn comes next."""


@_typed_equality
class Played(NamedTuple):
    seat: int
    cards: tuple[Card, ...]
    clears: bool
    revolution: bool


@_typed_equality
class Passed(NamedTuple):
    seat: int
    automatic: bool


@_typed_equality
class Skipped(NamedTuple):
    seat: int


@_typed_equality
class TrickEnded(NamedTuple):
    winner: int
    leader: int


@_typed_equality
class WentOut(NamedTuple):
    seat: int
    place: int


@_typed_equality
class HandedOver(NamedTuple):
    """Under seven_pass: cards handed to the next seat after a play of 7s (`cards` is ()
    in its public face: only the two seats see them)."""

    giver: int
    receiver: int
    size: int
    cards: tuple[Card, ...]


@_typed_equality
class Discarded(NamedTuple):
    """Under ten_discard: cards discarded face up after a play of 10s."""

    seat: int
    cards: tuple[Card, ...]


@_typed_equality
class Took(NamedTuple):
    """Under salvage, kings_march and zombie: `seat` took a card of the cards played
    this hand (face up: everyone sees which) into `receiver`'s hand, its own or, under
    zombie, the next seat's."""

    seat: int
    receiver: int
    cards: tuple[Card, ...]


@_typed_equality
class Bombed(NamedTuple):
    """Under queen_bomber: `seat` named `rank` (0 for the 3s ... 12 for the 2s); every
    seat still holding cards discards all its cards of it (the `Discarded` that follow)."""

    seat: int
    rank: int


@_typed_equality
class Fell(NamedTuple):
    """Under capital_fall: the President did not go out first and takes `place` (the
    lowest free one) at once, its cards out of play."""

    seat: int
    place: int


@_typed_equality
class HandOver(NamedTuple):
    hand: int
    finish: tuple[str, ...]
    points: tuple[tuple[str, int], ...]


@_typed_equality
class GameOver(NamedTuple):
    winners: tuple[str, ...]


Event = (
    HandStarted
    | Dealt
    | Gave
    | Returned
    | ExchangeDone
    | Played
    | Passed
    | Skipped
    | TrickEnded
    | WentOut
    | HandedOver
    | Discarded
    | Took
    | Bombed
    | Fell
    | HandOver
    | GameOver
)


def public_event(event: Event) -> Event | None:
    """What everyone at the table may know of `event`: nothing of a deal (each seat sees
    only its own cards), a give or a return without its cards, the rest as it is."""
    if isinstance(event, Dealt):
        return None
    if isinstance(event, Gave):
        return Gave(event.giver, event.receiver, event.size, ())
    if isinstance(event, Returned):
        return Returned(event.giver, event.receiver, event.size, (), event.automatic)
    if isinstance(event, HandedOver):
        return HandedOver(event.giver, event.receiver, event.size, ())
    return event

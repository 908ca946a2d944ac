"""The seats and the pile as the screens show them, from the engine's public view: one
`SeatRow` a seat and one builder for the live table and the replay viewer (the replay
adds each seat's cards face up; the table, who is away and the ladder's ratings).  No
prompt_toolkit here: `fit` lays the rows out as text, the apps style them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from president.engine import (
    Card,
    Event,
    HandStarted,
    Passed,
    Phase,
    Played,
    PublicView,
    Skipped,
    TrickEnded,
    strength,
)

from .pile import pile as pile  # (the pile's presenter: client/tui/pile.py)


@dataclass(frozen=True)
class SeatRow:
    """One seat as a screen shows it."""

    #: The player's name as shown ("ann (you)" for this client's own seat).
    name: str
    #: The title this hand is played under ("" in a first hand); once the hand is over,
    #: the one its finish gave.
    title: str = ""
    points: int = 0
    #: How many cards it holds.
    count: int = 0
    #: Its cards face up, in the order of play (a revolution or a jack back reverses
    #: it): a replay's; () at a live table, where every hand but one's own is private.
    cards: tuple[Card, ...] = ()
    #: Of those, the cards it got in this hand's exchange and still holds.
    received: tuple[Card, ...] = ()
    #: Its turn to play, or it owes a return in the exchange.
    turn: bool = False
    #: It passed, or is out of this trick.
    passed: bool = False
    #: Of those, it did not pass but was skipped (five_skip, equal_plays = skip...): its
    #: last move in the trick in progress is a skip.
    skipped: bool = False
    #: The place it took this hand (0 = first), None while it holds cards.
    place: int | None = None
    #: Cards it owes back in the exchange.
    owes: int = 0
    #: It made the action just shown (a replay's step).
    acted: bool = False
    #: Under capital_fall: placed during the play, its cards out of play.
    fell: bool = False
    #: Its player is not connected.
    away: bool = False
    #: The player's rating on the server's ladder, as shown ("rating 412"; "" for none).
    rating: str = ""

    @property
    def flags(self) -> str:
        """Its state in a word or two: "passed", "skipped", "fell", "away", "passed ·
        away" (a pass read "passed away" as something else)."""
        flags = (
            "fell"
            if self.fell
            else ("skipped" if self.skipped else "passed")
            if self.passed
            else ""
        )
        return flags + (" · away" if flags and self.away else "away" if self.away else "")


def rating_text(rating: str | None) -> str:
    """A seat's rating as its row shows it ("" when not rated or not heard)."""
    return "" if rating is None else rating if rating == "unrated" else f"rating {rating}"


def skipped_seats(events: Sequence[Event], start: int = 0) -> frozenset[int]:
    """The seats whose last move in the trick in progress (since the last `TrickEnded`
    or deal of `events[start:]`) is a skip: the view's `passed` counts them as having
    answered the pile, but they did not pass."""
    last: dict[int, bool] = {}
    for at in range(len(events) - 1, start - 1, -1):
        match events[at]:
            case TrickEnded() | HandStarted():
                break
            case Skipped(seat=seat):
                last.setdefault(seat, True)
            case Played(seat=seat) | Passed(seat=seat):
                last.setdefault(seat, False)
    return frozenset(seat for seat, skipped in last.items() if skipped)


def seat_rows(
    view: PublicView,
    *,
    me: str = "",
    hands: Sequence[Sequence[Card]] | None = None,
    received: Sequence[Sequence[Card]] | None = None,
    scores: Mapping[str, int] | None = None,
    actor: int | None = None,
    connected: Mapping[str, bool] | None = None,
    rating: Callable[[str], str] | None = None,
    skipped: Collection[int] = (),
) -> list[SeatRow]:
    """Each seat of `view` as a row: `hands` and `received` (per seat) for cards shown
    face up; `scores` when every player's are kept apart from the view (a replay counts
    leavers too); `actor`, the seat that just acted; `connected` by name (None: everyone
    is); `rating`, what a seat's rating column shows, by name (`rating_text`);
    `skipped`, the seats skipped in the trick (`skipped_seats`)."""
    titles = view.titles_won()  # after a hand, the titles it gave
    points = dict(view.scores) if scores is None else scores
    owing = dict(view.owed)
    reverse = view.reversed
    rows = []
    for seat, name in enumerate(view.seating):
        place = view.places[seat] if view.places else None
        cards = tuple(
            sorted(hands[seat], key=lambda c: (strength(c.rank, reverse), c.suit))
            if hands is not None
            else ()
        )
        rows.append(
            SeatRow(
                name=name + (" (you)" if me and name == me else ""),
                title=titles.get(name) or "",
                points=points.get(name, 0),
                count=view.counts[seat],
                cards=cards,
                received=tuple(received[seat]) if received is not None else (),
                turn=view.turn == seat or seat in owing,
                passed=(passed := view.passed[seat] or view.locked[seat]),
                skipped=passed and seat in skipped,
                place=place,
                owes=owing.get(seat, 0),
                acted=actor == seat,
                fell=view.phase is Phase.PLAY and place is not None and view.counts[seat] > 0,
                away=connected is not None and not connected.get(name, False),
                rating=rating(name) if rating is not None else "",
            )
        )
    return rows

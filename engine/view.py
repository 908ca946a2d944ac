"""What one seat may see (RULES.md's hidden information): its own cards, and only the
counts of everyone else's.  Bots choose from this; the server sends only this."""

from __future__ import annotations

from typing import NamedTuple

from .actions import PASS, Action, Play
from .cards import KINDS, Card
from .events import Gave, Returned
from .moves import Row, Top, legal_plays, legal_returns, rows_of
from .rules import Rules
from .scoring import titles


class SeatView(NamedTuple):
    """Immutable; a named tuple because bots and the server make one per decision."""

    rules: Rules
    seat: int
    hand_number: int
    phase: str
    seating: tuple[str, ...]
    dealer: int | None
    #: This seat's own cards, lowest first.
    hand: tuple[Card, ...]
    #: How many cards each seat holds.
    counts: tuple[int, ...]
    turn: int | None
    #: The play to beat (None when the turn is a lead).
    top: Top | None
    #: The plays of the trick in progress, (seat, play), oldest first.
    trick: tuple[tuple[int, Play], ...]
    #: Every card played this hand, in order.
    played: tuple[Card, ...]
    revolution: bool
    #: The next play must contain the 3C (the first play of the game).
    opening: bool
    #: Seats that passed (or were skipped) since the last play.
    passed: tuple[bool, ...]
    #: Seats out of this trick under passing = "locked".
    locked: tuple[bool, ...]
    #: Seats that went out this hand, in finishing order.
    finish_order: tuple[int, ...]
    #: Names by place from the last hand (empty in hand 1).
    standing: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]
    #: The exchange gives and returns this seat made or received this hand.
    exchange: tuple[Gave | Returned, ...]
    #: Cards this seat must return in the exchange now (0 if none).
    return_size: int
    hands_played: int
    winners: tuple[str, ...]
    #: This seat's canonical plays by rank, derived from `hand` (see `moves.row_for`).
    rows: tuple[Row, ...] = ()
    #: Per seat, the place it took this hand (0 = first), None while it holds cards.
    places: tuple[int | None, ...] = ()

    @property
    def my_turn(self) -> bool:
        return self.phase == "play" and self.turn == self.seat

    def titles(self) -> dict[str, str]:
        if not self.standing:
            return {}
        return dict(zip(self.standing, titles(self.rules, len(self.standing))))

    def legal_actions(self) -> list[Action]:
        """The same list `Game.legal_actions(seat)` gives, from what this seat can see."""
        rows = self.rows
        if not rows:
            counts = [0] * KINDS
            for card in self.hand:
                counts[card.id] += 1
            rows = tuple(rows_of(counts))
        if self.phase == "exchange" and self.return_size:
            return list(legal_returns(rows, self.return_size))
        if not self.my_turn:
            return []
        plays: list[Action] = list(
            legal_plays(self.rules, rows, self.top, self.revolution, self.opening)
        )
        if self.top is not None and not (self.rules.must_beat and plays):
            plays.append(PASS)
        return plays




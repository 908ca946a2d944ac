"""The observations of every seat of one table kept up to date as the hand goes on
(`Tracker`): what `Observer` makes afresh from a seat's view, at a fraction of the cost.

Everything the seats observe lies once in one array, in the table's own seat order: the
public part (counts, turns, passes, places, the pile, the cards out, the state flags,
the rules) and each seat's own part (its cards, its part of the exchange, its return).
A seat's observation is one gather from it, with an index made once per seat: the seats
from that seat clockwise, and that seat's own part only (so nothing another seat holds
reaches it).  The cards move with the hand's events (dealt, given, returned, played,
handed over, discarded); the passes, locks and places from the game (`Game.seat_marks`,
shared tuples: compared by identity), the rest from the view of the seat to act, one a
step, which the environment makes anyway.  `tests/env` holds it equal to `Observer` at
every step of whole games under every preset."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from president.engine import (
    Dealt,
    Discarded,
    Game,
    Gave,
    HandedOver,
    HandStarted,
    Phase,
    Played,
    Returned,
    SeatView,
    Took,
    TrickEnded,
)
from president.engine.cards import KINDS

from .observe import RANKS, Observer

#: The state flags and the lock suits (see `layout_of`).
STATE, LOCK = 10, 4


class Tracker:
    """The observations of one table's seats, from its hand's events and one view a step."""

    def __init__(self, observer: Observer) -> None:
        self.observer = observer
        players = self.players = observer.players
        at = observer._at
        blocks: list[tuple[str, int]] = [
            ("seats", 5 * players),  # counts, turn, passed, locked, places
            ("state", STATE),
            ("lock", LOCK),
            ("pile", KINDS),
            ("pile_rank", RANKS),
            ("pile_size_run", 2),
            ("owner", players),
            ("played", KINDS),
            ("rules", at["rules"][1] - at["rules"][0]),
        ]
        for seat in range(players):
            blocks += [(f"hand{seat}", KINDS), (f"gave{seat}", KINDS), (f"got{seat}", KINDS)]
            blocks += [(f"return{seat}", 3)]
        self._at: dict[str, int] = {}
        size = 0
        for name, length in blocks:
            self._at[name] = size
            size += length
        self.values = np.zeros(size, dtype=np.float32)
        rules = self._at["rules"]
        self.values[rules : rules + at["rules"][1] - at["rules"][0]] = observer._blank[
            at["rules"][0] : at["rules"][1]
        ]
        self._gather = [self._index_for(seat) for seat in range(players)]
        self.game: Game | None = None
        #: The play on the pile as last written (`_last`) and its top.
        self._pile: tuple[Any, Any] = (None, None)
        #: Each seat's return as written (-1: not yet), and where it lies.
        self._returns = [-1] * players
        self._return_at = [self._at[f"return{seat}"] for seat in range(players)]
        #: Each set of passes or locks met, as numbers (`_marks`).
        self._flag_arrays: dict[tuple[bool, ...], NDArray[np.float32]] = {}
        #: Where each seat's cards lie, and the cards out.
        self._hand_at = [self._at[f"hand{seat}"] for seat in range(players)]
        self._played_at = self._at["played"]
        #: Where the public numbers lie: counts, turn, passed, locked, places by seat.
        seats = self._at["seats"]
        self._counts_at, self._turn_at = seats, seats + players
        self._passed_at, self._locked_at = seats + 2 * players, seats + 3 * players
        self._places_at = seats + 4 * players
        #: The play to beat, (owner, cards), as the events tell; None after a trick.
        self._last: tuple[int, Any] | None = None
        #: The public parts as last written (see `step`); nothing yet.
        self._seen: tuple[Any, ...] = (None,) * 7

    def _index_for(self, seat: int) -> NDArray[np.intp]:
        """Where each number of `seat`'s observation lies in `values`."""
        at, players = self._at, self.players
        order = [(seat + offset) % players for offset in range(players)]
        parts: dict[str, list[int]] = {
            "hand": list(range(at[f"hand{seat}"], at[f"hand{seat}"] + KINDS)),
            "pile": list(range(at["pile"], at["pile"] + KINDS)),
            "pile_shape": [
                *range(at["pile_rank"], at["pile_rank"] + RANKS),
                at["pile_size_run"],
                at["pile_size_run"] + 1,
                at["owner"] + seat,
            ],
            "played": list(range(at["played"], at["played"] + KINDS)),
            "gave": list(range(at[f"gave{seat}"], at[f"gave{seat}"] + KINDS)),
            "got": list(range(at[f"got{seat}"], at[f"got{seat}"] + KINDS)),
            "state": list(range(at["state"], at["state"] + STATE)),
            "lock": list(range(at["lock"], at["lock"] + LOCK)),
            "return": list(range(at[f"return{seat}"], at[f"return{seat}"] + 3)),
            "rules": list(range(at["rules"], at["rules"] + self._rules_size())),
        }
        for block, name in enumerate(("counts", "turn", "passed", "locked", "places")):
            parts[name] = [at["seats"] + block * players + s for s in order]
        index: list[int] = []
        for name, start, stop in self.observer.layout.parts:
            assert len(parts[name]) == stop - start, name
            index += parts[name]
        return np.array(index, dtype=np.intp)

    def _rules_size(self) -> int:
        start, stop = self.observer._at["rules"]
        return stop - start

    # --- keeping up -------------------------------------------------------------------

    def start(self, game: Game) -> None:
        """Take up `game` where it stands, from each seat's view (a new table, or a game
        this tracker has not followed)."""
        self.game = game
        values, at = self.values, self._at
        values[: at["rules"]] = 0.0
        values[at["rules"] + self._rules_size() :] = 0.0
        self._pile = (None, None)
        self._seen = (None,) * 7
        self._returns = [-1] * self.players
        trick = game.view_for(0).trick
        self._last = (trick[-1][0], trick[-1][1].cards) if trick else None
        for seat in range(self.players):
            view = game.view_for(seat)
            self._add(f"hand{seat}", view.hand)
            for event in view.exchange:
                if event.giver == seat:
                    self._add(f"gave{seat}", event.cards)
                else:
                    self._add(f"got{seat}", event.cards)
            if seat == 0:
                self._add("played", view.played)
            self.step(view)

    def follow(self, events: Iterable[object]) -> None:
        """The cards moved by these events (what `start_hand` or `apply` returned)."""
        for event in events:
            kind = type(event)
            if kind is Played:
                cards = event.cards  # type: ignore[attr-defined]
                seat = event.seat  # type: ignore[attr-defined]
                values, hand, played = self.values, self._hand_at[seat], self._played_at
                for card in cards:
                    values[hand + card.id] -= 1
                    values[played + card.id] += 1
                self._last = (seat, cards)
            elif kind is TrickEnded:
                self._last = None
            elif kind is Gave or kind is Returned:
                giver, receiver = event.giver, event.receiver  # type: ignore[attr-defined]
                cards = event.cards  # type: ignore[attr-defined]
                self._remove(f"hand{giver}", cards)
                self._add(f"hand{receiver}", cards)
                self._add(f"gave{giver}", cards)
                self._add(f"got{receiver}", cards)
            elif kind is HandedOver:
                self._remove(f"hand{event.giver}", event.cards)  # type: ignore[attr-defined]
                self._add(f"hand{event.receiver}", event.cards)  # type: ignore[attr-defined]
            elif kind is Discarded:
                self._remove(f"hand{event.seat}", event.cards)  # type: ignore[attr-defined]
                self._add("played", event.cards)  # type: ignore[attr-defined]
            elif kind is Took:  # (salvage...: from the cards played into a hand)
                self._remove("played", event.cards)  # type: ignore[attr-defined]
                self._add(f"hand{event.receiver}", event.cards)  # type: ignore[attr-defined]
            elif kind is Dealt:
                self._add(f"hand{event.seat}", event.cards)  # type: ignore[attr-defined]
            elif kind is HandStarted:
                self._new_hand()
                self._last = None

    def _new_hand(self) -> None:
        values, at = self.values, self._at
        values[at["pile"] : at["played"] + KINDS] = 0.0
        for seat in range(self.players):
            values[at[f"hand{seat}"] : at[f"return{seat}"]] = 0.0
        self._pile = (None, None)

    def _add(self, block: str, cards: Sequence[Any]) -> None:
        values, start = self.values, self._at[block]
        for card in cards:
            values[start + card.id] += 1

    def _remove(self, block: str, cards: Sequence[Any]) -> None:
        values, start = self.values, self._at[block]
        for card in cards:
            values[start + card.id] -= 1

    def step(self, view: SeatView) -> None:
        """The public numbers as `view` (any seat's view of this moment) shows them, and
        its seat's return: each part written only when it changed (most steps move a
        count, the turn and a pass)."""
        values, players = self.values, self.players
        seen = self._seen
        counts = view.counts
        was = seen[0]
        if counts != was:
            start = self._counts_at
            if was is None:
                values[start : start + players] = [count / 54 for count in counts]
            else:  # (mostly one seat's count moved)
                for seat in range(players):
                    if counts[seat] != was[seat]:
                        values[start + seat] = counts[seat] / 54
        turn = view.turn
        if turn != seen[1]:
            start = self._turn_at
            if seen[1] is not None:
                values[start + seen[1]] = 0.0
            if turn is not None:
                values[start + turn] = 1.0
        passed, locked, places = self.game.seat_marks()  # type: ignore[union-attr]
        if passed is not seen[2]:  # (shared tuples: the same object, the same marks)
            start = self._passed_at
            values[start : start + players] = self._marks(passed)
        if locked is not seen[3]:
            start = self._locked_at
            values[start : start + players] = self._marks(locked)
        if places is not seen[4] and places != seen[4]:
            start = self._places_at
            if places:
                values[start : start + players] = [
                    0.0 if p is None else (p + 1) / players for p in places
                ]
            else:
                values[start : start + players] = 0.0
        phase, revolution, jack_back, due = view.phase, view.revolution, view.jack_back, view.due
        flags = (phase, revolution, jack_back, view.backwards, view.opening, due)
        if flags != seen[5]:  # (the state's numbers, made only when one moved)
            at = self._at
            values[at["state"] : at["state"] + STATE] = (
                phase is Phase.EXCHANGE,
                phase is Phase.PLAY,
                revolution,
                jack_back,
                revolution != jack_back,
                flags[3],
                flags[4],
                due is not None and due.kind == "handover",
                due is not None and due.kind == "discard",
                due.size / 4 if due is not None else 0.0,
            )
        lock = view.lock
        if lock != seen[6]:
            at = self._at
            values[at["lock"] : at["lock"] + LOCK] = [suit in lock for suit in range(LOCK)]
        self._seen = (counts, turn, passed, locked, places, flags, lock)
        seat, size = view.seat, view.return_size
        if self._returns[seat] != size:
            self.set_return(seat, size)
        last, top = self._last, view.top
        if last is not self._pile[0] or top is not self._pile[1]:
            self._write_pile(last, top)

    def _marks(self, flags: tuple[bool, ...]) -> NDArray[np.float32]:
        """`flags` as numbers (kept: the engine's flags are few and shared)."""
        found = self._flag_arrays.get(flags)
        if found is None:
            found = self._flag_arrays[flags] = np.array(flags, dtype=np.float32)
        return found

    def set_return(self, seat: int, size: int) -> None:
        """`seat`'s return now (cards it owes back in the exchange, 0 if none)."""
        size = min(size, 2)
        if self._returns[seat] != size:
            start = self._return_at[seat]
            self.values[start : start + 3] = 0.0
            self.values[start + size] = 1.0
            self._returns[seat] = size

    def _write_pile(self, last: Any, top: Any) -> None:
        values, at = self.values, self._at
        values[at["pile"] : at["played"]] = 0.0
        self._pile = (last, top)
        if last is None:
            return
        owner, cards = last
        self._add("pile", cards)
        if top is not None:
            values[at["pile_rank"] + (top.rank if top.rank >= 0 else 0)] = 1
            values[at["pile_size_run"]] = top.size / 8
            values[at["pile_size_run"] + 1] = float(top.run)
            values[at["owner"] + owner] = 1

    def observe(self, seat: int) -> NDArray[np.float32]:
        """`seat`'s observation now (a new array)."""
        return self.values[self._gather[seat]]

"""The observations of every seat of one table kept up to date as the hand goes on
(`Tracker`): what `Observer` makes afresh from a seat's view, at a fraction of the cost.

Everything the seats observe lies once in one array, in the table's own seat order: the
public part (counts, turns, passes, places, the pile, the cards out, the state flags,
the rules) and each seat's own part (its cards, its part of the exchange, its return).
A seat's observation is one gather from it, with an index made once per seat: the seats
from that seat clockwise, and that seat's own part only (so nothing another seat holds
reaches it).  The cards and the counts move with the hand's events (dealt, given,
returned, played, handed over, discarded, taken); the rest is read from the game after
each step without a view (the turn, passes and locks as one number, `marks_key`; the
places, the state and the lock only when the game's `changes` grew) and written only
where it changed.  In a `Tables` the marks are written
for every table at once, not here.  `tests/env` holds it equal to `Observer` at every
step of whole games under every preset."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray
from president.engine import (
    Dealt,
    Discarded,
    Game,
    Gave,
    HandedOver,
    HandStarted,
    Passed,
    Phase,
    Played,
    Returned,
    Took,
    TrickEnded,
    deck,
)
from president.engine.cards import KINDS

from .observe import RANKS, Observer

#: The state flags and the lock suits (see `layout_of`).
STATE, LOCK = 10, 4

#: How many blocks of marks (and of piles) a tracker keeps before it starts again.
_KEPT = 1 << 12

Floats = NDArray[np.float32]
Cells: TypeAlias = "array[float]"


def marks_key(game: Game) -> int:
    """The marks of `game` (its turn, who passed, who is locked out) as one number: the
    turn + 1 in the lowest 4 bits (0: nobody's), then `Game.mark_bits`."""
    turn = game.turn
    return game.mark_bits() << 4 | (0 if turn is None else turn + 1)


def marks_row(players: int, key: int) -> list[float]:
    """The turn, passed and locked blocks of the marks of this key (`marks_key`), one
    after another, a number a seat each."""
    turn, bits = (key & 15) - 1, key >> 4
    return [
        *(float(seat == turn) for seat in range(players)),
        *(float(bits >> seat & 1) for seat in range(players)),
        *(float(bits >> 16 + seat & 1) for seat in range(players)),
    ]


class Tracker:
    """The observations of one table's seats, from its hand's events and its game."""

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
        #: The numbers, written through `_cells` (a Python array: a number written costs
        #: a tenth of numpy's) and read through `values`, numpy's view of the same memory.
        self._cells = array("f", bytes(4 * size))
        self.values: Floats = np.frombuffer(self._cells, dtype=np.float32)
        rules = self._at["rules"]
        self.values[rules : rules + at["rules"][1] - at["rules"][0]] = observer._blank[
            at["rules"][0] : at["rules"][1]
        ]
        self._gather = [self._index_for(seat) for seat in range(players)]
        self.game: Game | None = None
        #: The play on the pile as last written (`_last`) and its top.
        self._pile_last: Any = None
        self._pile_top: Any = None
        #: Each seat's return as written (-1: not yet), and where it lies.
        self._returns = [-1] * players
        self._return_at = [self._at[f"return{seat}"] for seat in range(players)]
        #: The turn, passed and locked blocks of each set of marks met, by `marks_key`.
        self._mark_arrays: dict[int, Cells] = {}
        self._marks_seen = -1
        #: Where the pile's block lies (`_keep_pile`): its cards, rank, size and
        #: sequence, owner; and the block empty.
        self._pile_at, self._shape_at = self._at["pile"], self._at["pile_rank"]
        self._owner_at = self._at["owner"]
        self._no_pile = array("f", bytes(4 * (self._at["played"] - self._pile_at)))
        #: Only passes since the last step (`follow`): only the marks moved.
        self._light = False
        #: The game's `changes` when the rest (places, state, lock) was last read.
        self._changes = -1
        #: The marks are written here (else by the owner of many tables' rows, `Tables`,
        #: for all of them at once).
        self._marks_here = True
        #: The pile's block of each play met, by the play's cards (the engine shares
        #: them: compared by identity) and owner, with the cards and the top it is for.
        self._piles: dict[tuple[int, int], tuple[Any, Any, Cells]] = {}
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
        self._seen: tuple[Any, ...] = (None,) * 3
        #: Each seat's cards in hand.
        self._counts = [0] * players
        #: The card kinds the deck holds one of (each number of such a kind is 0 or 1:
        #: written, not added to; a number written costs a fifth of one added to).
        copies = Counter(card.id for card in deck(observer.rules.decks, observer.rules.jokers))
        self._single = [copies[kind] == 1 for kind in range(KINDS)]

    def place_in(self, row: Floats, piles: dict[tuple[int, int], Any]) -> None:
        """Keep the numbers in `row` from now on (a row of many tables' array, `Tables`):
        what they are now is copied there, and every write goes there, but for the marks
        (the turn, passed and locked blocks), which the owner of the rows writes for all
        of them at once.  The piles' blocks are kept in `piles`, shared."""
        self._marks_here = False
        self._piles = piles
        row[:] = self.values
        # (a memoryview of the row is written as the array is, number by number or a
        # slice from an array)
        self._cells = memoryview(row)  # type: ignore[arg-type,assignment]
        self.values = row

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

    def marks_at(self) -> tuple[int, int]:
        """Where the marks lie: the turn's, passed and locked blocks, one after another
        (a number a seat each, in seat order)."""
        return self._turn_at, self._places_at

    def seat_blocks(self) -> tuple[int, int]:
        """Where the seats' own blocks begin (seat 0's cards) and how far apart they lie
        (each seat's cards, its part of the exchange and its return, in that order)."""
        base = self._at["hand0"]
        return base, (self._at["hand1"] - base) if self.players > 1 else len(self.values) - base

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
        self._pile_last = self._pile_top = None
        self._seen = (None,) * 3
        self._marks_seen = -1
        self._light = False
        self._changes = -1
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
                self._counts = list(view.counts)
                values[self._counts_at : self._counts_at + self.players] = [
                    count / 54 for count in view.counts
                ]
            self.step(game, seat)

    def follow(self, events: Iterable[object]) -> None:
        """The cards moved by these events (what `start_hand` or `apply` returned), and
        the counts with them."""
        light = True
        for event in events:
            kind = type(event)
            if kind is Passed:
                continue
            light = False
            if kind is Played:
                cards = event.cards  # type: ignore[attr-defined]
                seat = event.seat  # type: ignore[attr-defined]
                cells, hand, played = self._cells, self._hand_at[seat], self._played_at
                single = self._single
                for card in cards:
                    card_id = card.id
                    if single[card_id]:
                        cells[hand + card_id] = 0.0
                        cells[played + card_id] = 1.0
                    else:
                        cells[hand + card_id] -= 1
                        cells[played + card_id] += 1
                counts = self._counts
                held = counts[seat] = counts[seat] - len(cards)
                cells[self._counts_at + seat] = held / 54
                self._last = (seat, cards)
            elif kind is TrickEnded:
                self._last = None
            elif kind is Gave or kind is Returned:
                giver, receiver = event.giver, event.receiver  # type: ignore[attr-defined]
                cards = event.cards  # type: ignore[attr-defined]
                self._move(giver, receiver, cards)
                self._add(f"gave{giver}", cards)
                self._add(f"got{receiver}", cards)
            elif kind is HandedOver:
                self._move(event.giver, event.receiver, event.cards)  # type: ignore[attr-defined]
            elif kind is Discarded:
                self._remove(f"hand{event.seat}", event.cards)  # type: ignore[attr-defined]
                self._count(event.seat, -len(event.cards))  # type: ignore[attr-defined]
                self._add("played", event.cards)  # type: ignore[attr-defined]
            elif kind is Took:  # (salvage...: from the cards played into a hand)
                self._remove("played", event.cards)  # type: ignore[attr-defined]
                self._add(f"hand{event.receiver}", event.cards)  # type: ignore[attr-defined]
                self._count(event.receiver, len(event.cards))  # type: ignore[attr-defined]
            elif kind is Dealt:
                cells, start, single = self._cells, self._hand_at[event.seat], self._single  # type: ignore[attr-defined]
                for card in event.cards:  # type: ignore[attr-defined]
                    if single[card.id]:
                        cells[start + card.id] = 1.0
                    else:
                        cells[start + card.id] += 1
                self._count(event.seat, len(event.cards))  # type: ignore[attr-defined]
            elif kind is HandStarted:
                self._new_hand()
                self._last = None
        self._light = light

    def _move(self, giver: int, receiver: int, cards: Sequence[Any]) -> None:
        self._remove(f"hand{giver}", cards)
        self._add(f"hand{receiver}", cards)
        self._count(giver, -len(cards))
        self._count(receiver, len(cards))

    def _count(self, seat: int, change: int) -> None:
        """`seat` holds `change` cards more (or fewer)."""
        counts = self._counts
        counts[seat] += change
        self._cells[self._counts_at + seat] = counts[seat] / 54

    def _new_hand(self) -> None:
        values, at = self.values, self._at
        values[at["pile"] : at["played"] + KINDS] = 0.0
        for seat in range(self.players):
            values[at[f"hand{seat}"] : at[f"return{seat}"]] = 0.0
        self._counts = [0] * self.players
        values[self._counts_at : self._counts_at + self.players] = 0.0
        self._pile_last = self._pile_top = None

    def _add(self, block: str, cards: Sequence[Any]) -> None:
        cells, start = self._cells, self._at[block]
        for card in cards:
            cells[start + card.id] += 1

    def _remove(self, block: str, cards: Sequence[Any]) -> None:
        cells, start = self._cells, self._at[block]
        for card in cards:
            cells[start + card.id] -= 1

    def step(self, game: Game, seat: int) -> None:
        """The public numbers as `game` (the game followed) stands now, and `seat`'s
        return, each part written only when it changed.  Most steps move the turn and the
        passes (one block, written at once); after passes alone (`follow`) nothing else
        can have moved, and the places, the state and the lock only when the game's
        `changes` grew.  The counts move with the cards, in `follow`."""
        if self._marks_here:
            marks = marks_key(game)
            if marks != self._marks_seen:
                found = self._mark_arrays.get(marks)
                if found is None:
                    found = self._marks(marks)
                self._cells[self._turn_at : self._places_at] = found
                self._marks_seen = marks
        pending = game.pending_returns
        if pending or self._returns[seat]:  # (returns are owed only in the exchange)
            # (before the passes' shortcut: a seat's first turn after the exchange may
            # follow passes alone, and its return owed then is owed no more)
            self.set_return(seat, pending[seat][1] if seat in pending else 0)
        if self._light:
            return
        changes = game.changes
        if changes != self._changes:
            self._changes = changes
            self._read_rest(game)
        last, top = self._last, game.top
        if last is not self._pile_last or top is not self._pile_top:
            self._pile_last, self._pile_top = last, top
            if last is None:
                self._cells[self._pile_at : self._played_at] = self._no_pile
                return
            key = (id(last[1]), last[0])
            kept = self._piles.get(key)
            if kept is None or kept[0] is not last[1] or (kept[1] is not top and kept[1] != top):
                kept = self._keep_pile(key, last, top)
            self._cells[self._pile_at : self._played_at] = kept[2]

    def _read_rest(self, game: Game) -> None:
        """The places, the state's numbers and the lock, each written if it changed."""
        seen = self._seen
        places = game.seat_marks()[2]
        if places is not seen[0] and places != seen[0]:
            values, players = self.values, self.players
            start = self._places_at
            if places:
                values[start : start + players] = [
                    0.0 if p is None else (p + 1) / players for p in places
                ]
            else:
                values[start : start + players] = 0.0
        phase, revolution, jack_back, due = game.phase, game.revolution, game.jack_back, game.due
        flags = (phase, revolution, jack_back, game.backwards, game.opening, due)
        if flags != seen[1]:  # (the state's numbers, made only when one moved)
            at = self._at
            self.values[at["state"] : at["state"] + STATE] = (
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
        lock = game.lock
        if lock != seen[2]:
            at = self._at
            self.values[at["lock"] : at["lock"] + LOCK] = [suit in lock for suit in range(LOCK)]
        self._seen = (places, flags, lock)

    def _marks(self, marks: int) -> Cells:
        """The turn, passed and locked blocks of these marks (`marks_key`), kept."""
        if len(self._mark_arrays) >= _KEPT:
            self._mark_arrays.clear()
        found = self._mark_arrays[marks] = array("f", marks_row(self.players, marks))
        return found

    def set_return(self, seat: int, size: int) -> None:
        """`seat`'s return now (cards it owes back in the exchange, 0 if none)."""
        size = min(size, 2)
        if self._returns[seat] != size:
            start = self._return_at[seat]
            cells = self._cells
            cells[start] = cells[start + 1] = cells[start + 2] = 0.0
            cells[start + size] = 1.0
            self._returns[seat] = size

    def _keep_pile(
        self, key: tuple[int, int], last: tuple[int, Any], top: Any
    ) -> tuple[Any, Any, Cells]:
        """The pile's block of the play to beat (`last`: its owner and cards) under
        `top`, made and kept: its cards, its shape, its owner."""
        piles = self._piles
        if len(piles) >= _KEPT:
            piles.clear()
        block = array("f", self._no_pile)
        owner, cards = last
        start = self._pile_at
        for card in cards:
            block[card.id] += 1
        if top is not None:
            shape = self._shape_at - start
            block[shape + (top.rank if top.rank >= 0 else 0)] = 1
            block[shape + RANKS] = top.size / 8
            block[shape + RANKS + 1] = top.run
            block[self._owner_at - start + owner] = 1
        found = piles[key] = (cards, top, block)
        return found

    def observe(self, seat: int) -> NDArray[np.float32]:
        """`seat`'s observation now (a new array)."""
        return self.values[self._gather[seat]]

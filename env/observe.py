"""A seat's observation as fixed-size numbers, made from its `SeatView` alone (so nothing
it may not see can reach a policy).  Seats are counted from the observer: 0 is itself,
then clockwise.  `Layout` names every slice (docs/rl.md)."""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import NDArray
from president.engine import Gave, Phase, Returned, Rules, SeatView
from president.engine.cards import KINDS
from president.engine.rules import toggle_choices

#: Rank indices 0-12 (3 to 2) and 13 for the joker; card kinds 0-52 (the joker 52).
RANKS = 14


def _rules_vector(rules: Rules) -> list[float]:
    """Every toggle as numbers: a switch 0/1, a choice one-hot over its choices (in
    `toggle_choices` order), a number (a target, rounds) as itself."""
    values: list[float] = []
    for field in dataclasses.fields(rules):
        value = getattr(rules, field.name)
        choices = toggle_choices(field.name)
        if isinstance(value, bool):
            values.append(float(value))
        elif choices is not None:
            values.extend(float(value == choice) for choice in choices)
        else:
            values.append(float(value))
    return values


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where each part of the observation lies (start, stop), for `players` seats."""

    players: int
    parts: tuple[tuple[str, int, int], ...]

    @property
    def size(self) -> int:
        return self.parts[-1][2]

    def part(self, name: str) -> slice:
        for part, start, stop in self.parts:
            if part == name:
                return slice(start, stop)
        raise KeyError(name)


def layout_of(rules: Rules, players: int) -> Layout:
    sizes = [
        ("hand", KINDS),  # my cards, a count per card kind
        ("counts", players),  # cards held by each seat, from me clockwise, / 54
        ("turn", players),  # whose turn, one-hot, from me
        ("passed", players),  # passed (or skipped) since the last play
        ("locked", players),  # out of this trick (passing = "locked")
        ("places", players),  # place taken this hand (1 = first) / players; 0 holding
        ("pile", KINDS),  # the cards of the play to beat
        ("pile_shape", RANKS + 3),  # its rank one-hot, its size / 8, a sequence, owner is me
        ("played", KINDS),  # every card out this hand
        ("gave", KINDS),  # the cards I gave or returned in the exchange
        ("got", KINDS),  # the cards I was given or returned
        # exchange, play, revolution, jack back, reversed, play turning anticlockwise,
        # opening, due kinds x2, due size
        ("state", 10),
        ("lock", 4),  # the suits the trick is locked to
        ("return", 3),  # cards I must return now (0, 1, 2 one-hot)
        ("rules", len(_rules_vector(rules))),
    ]
    parts: list[tuple[str, int, int]] = []
    at = 0
    for name, size in sizes:
        parts.append((name, at, at + size))
        at += size
    return Layout(players, tuple(parts))


class Observer:
    """Makes observations for one table's rules and size."""

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.layout = layout_of(rules, players)
        self.players = players
        self._at = {name: (start, stop) for name, start, stop in self.layout.parts}
        #: Every observation starts as this: zeros, and the rules in force.
        self._blank = np.zeros(self.layout.size, dtype=np.float32)
        start, stop = self._at["rules"]
        self._blank[start:stop] = _rules_vector(rules)
        #: The largest number an observation holds: 64 (no count of a card kind, and
        #: no other slice, comes near it), or a larger target or number of rounds of the
        #: rules (a tinkerer's pass: a target of 200 lay outside the space's bounds, and
        #: PettingZoo's api_test failed).
        self.high = max(64.0, *_rules_vector(rules))

    def __call__(self, view: SeatView) -> NDArray[np.float32]:
        out = self._blank.copy()
        at = self._at
        players = self.players
        me = view.seat
        order = [(me + offset) % players for offset in range(players)]
        # the seats' part, from me clockwise: counts, turn, passed, locked, places
        counts, passed, locked, places = view.counts, view.passed, view.locked, view.places
        turn = view.turn
        seats = [counts[s] / 54 for s in order]
        seats += [float(s == turn) for s in order]
        seats += [float(passed[s]) for s in order]
        seats += [float(locked[s]) for s in order]
        if places:
            seats += [0.0 if places[s] is None else (places[s] + 1) / players for s in order]  # type: ignore[operator]
        else:
            seats += [0.0] * players
        start = at["counts"][0]
        out[start : start + len(seats)] = seats
        # every card counted, as slots of the observation, in one pass at the end
        slots: list[int] = []
        start = at["hand"][0]
        slots += [start + card.id for card in view.hand]
        start = at["played"][0]
        slots += [start + card.id for card in view.played]
        if view.trick:
            owner, play = view.trick[-1]
            start = at["pile"][0]
            slots += [start + card.id for card in play.cards]
            top = view.top
            start = at["pile_shape"][0]
            if top is not None:
                out[start + (top.rank if top.rank >= 0 else 0)] = 1
                out[start + RANKS] = top.size / 8
                out[start + RANKS + 1] = float(top.run)
                out[start + RANKS + 2] = float(owner == me)
        if view.exchange:
            gave, got = at["gave"][0], at["got"][0]
            for event in view.exchange:
                if isinstance(event, (Gave, Returned)):
                    start = gave if event.giver == me else got
                    slots += [start + card.id for card in event.cards]
        out += np.bincount(slots, minlength=out.size)
        start = at["state"][0]
        phase = view.phase
        due = view.due
        out[start : start + 10] = (
            float(phase is Phase.EXCHANGE),
            float(phase is Phase.PLAY),
            float(view.revolution),
            float(view.jack_back),
            float(view.reversed),
            float(view.backwards),
            float(view.opening),
            float(due is not None and due.kind == "handover"),
            float(due is not None and due.kind == "discard"),
            due.size / 4 if due is not None else 0.0,
        )
        for suit in view.lock:
            out[at["lock"][0] + suit] = 1
        out[at["return"][0] + min(view.return_size, 2)] = 1
        return out

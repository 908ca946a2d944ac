"""The replay viewer's model: a game record walked through the engine once, each step
kept as the table stood after it (every hand face up: a finished game's record is
public), and where the viewer is.  No prompt_toolkit here, so it is tested without a
terminal; `replay_app` draws it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from president.engine import (
    Card,
    Event,
    Game,
    Phase,
    Play,
    PublicView,
    Returned,
)
from president.engine.record import Fault, by_the_table, replay
from president.protocol.schema import shown

from .fit import HelpPages
from .fit import wrap as fit_wrap
from .narrator import Narrator, Payment
from .seats import SeatRow, pile, seat_rows, skipped_seats


@dataclass(frozen=True)
class Swap:
    """One move of a hand's exchange, its cards shown: a give or a return."""

    giver: str
    receiver: str
    cards: tuple[Card, ...]
    returned: bool


@dataclass(frozen=True)
class Step:
    """The table just after one step of the record: a hand's deal (with the exchange
    gives the engine makes) or one recorded action (with the forced passes it caused)."""

    #: 0-based indexes into the record: the hand, and the action (None for the deal).
    hand: int
    action: int | None
    view: PublicView
    #: Each seat's cards, lowest first.
    cards: tuple[tuple[Card, ...], ...]
    exchange: tuple[Swap, ...]
    #: Every player's score as it stood, in the order they joined (leavers included).
    scores: tuple[tuple[str, int], ...]
    #: What the step did, in words (its lines of the log).
    lines: tuple[str, ...]
    #: The seat whose action this is (None for the deal).
    actor: int | None
    #: The seats skipped in the trick in progress, not passed (`seats.skipped_seats`).
    skipped: frozenset[int] = frozenset()
    #: Its first line says again, whole, a due the step before paid part of (a card at a
    #: time: `Payment`): the log shows it in place of that step's line.
    retells: bool = False
    #: Why the table made this step's action for its seat (the record's `timeout`:
    #: "time", "away", "left"), or "" where its player made it.
    timeout: str = ""

    def seats(self) -> list[SeatRow]:
        """Each seat with its cards face up, and those it got in the exchange and kept."""
        names = self.view.seating
        received = []
        for seat, name in enumerate(names):
            # what came in and stays (two decks hold two of a card; a card may go back)
            came = Counter(c for s in self.exchange if s.receiver == name for c in s.cards)
            went = Counter(c for s in self.exchange if s.giver == name for c in s.cards)
            kept = Counter(self.cards[seat]) & (came - went)
            received.append(tuple(kept.elements()))
        return seat_rows(
            self.view,
            hands=self.cards,
            received=received,
            scores=dict(self.scores),
            actor=self.actor,
            skipped=self.skipped,
        )

    def pile(self) -> list[tuple[str, Play]]:
        """The trick in progress, oldest play first: (who, what)."""
        return pile(self.view)


def _deal_lines(
    game: Game, before: Sequence[str] | None, events: Sequence[Event], narrator: Narrator
) -> list[str]:
    """The log of a deal: who sat down or left, who deals, the exchange, who is to act."""
    seating = game.seating
    lines = []
    if before is not None:
        lines += [f"{name} has left the table" for name in before if name not in seating]
        lines += [f"{name} sits down" for name in seating if name not in before]
    lines += [line for e in events if (line := narrator.line(e))]
    if game.phase is Phase.EXCHANGE:
        lines += [
            f"{seating[seat]} owes {size} card{'s' if size > 1 else ''} back to {seating[giver]}"
            for seat, (giver, size) in game.pending_returns.items()
        ]
    elif game.turn is not None:
        lines.append(f"{seating[game.turn]} leads")
    return lines


def _swaps(game: Game) -> tuple[Swap, ...]:
    names = game.seating
    return tuple(
        Swap(names[e.giver], names[e.receiver], tuple(e.cards), isinstance(e, Returned))
        for e in game.exchanges
    )


def walk(document: Mapping[str, Any]) -> tuple[list[Step], Fault | None]:
    """Every legal step of a record, in order, and the first fault (None if there is
    none): the same checks as `president replay`, the engine's `replay`."""
    steps: list[Step] = []
    seatings: list[tuple[str, ...]] = []
    narrator = Narrator()
    heard: list[Event] = []  # the hand's events so far
    paying: Payment | None = None  # the due the last event paid part of

    def keep(game: Game, hand: int, action: int | None, events: list[Event]) -> None:
        nonlocal paying
        narrator.rules = game.rules
        retells, why = False, ""
        if action is None:
            heard.clear()
            before = seatings[-1] if seatings else None
            seatings.append(tuple(game.seating))
            lines = _deal_lines(game, before, events, narrator)
            actor, paying = None, None
        else:
            view = steps[-1].view if steps else None  # the table before this action
            lines = []
            step = document["hands"][hand]["actions"][action]
            why = step["timeout"] if by_the_table(step) else ""  # (the table's move)
            for event in events:
                more = paying.then(event) if paying is not None else None
                retells = retells or (more is not None and event is events[0])
                paying = more or Payment.of(event, view)
                said = more.paid if more is not None else event
                line = narrator.line(said, view, why if event is events[0] else "")
                lines += [line] if line else []
            actor = game.history[-1].actions[action][0]
        heard.extend(events)
        steps.append(
            Step(
                hand=hand,
                action=action,
                view=game.public_view(),
                cards=tuple(tuple(game.hand_of(s)) for s in range(len(game.seating))),
                exchange=_swaps(game),
                scores=tuple(game.scores.items()),
                lines=tuple(lines),
                actor=actor,
                skipped=skipped_seats(heard),
                retells=retells,
                timeout=why,
            )
        )

    result = replay(document, on_step=keep)
    return steps, result.fault


def rules_label(document: Mapping[str, Any]) -> str:
    """The preset a record names, with a + if it changes toggles on top of it."""
    rules = document.get("rules", "classic")
    if isinstance(rules, str):
        return rules
    if isinstance(rules, Mapping):
        preset = rules.get("preset", "classic")
        return f"{preset}{'+' if len(rules) > 1 else ''}"
    return "?"


def rules_text(document: Mapping[str, Any]) -> str:
    """The rules a record names, as it writes them: the preset and each toggle changed."""
    rules = document.get("rules", "classic")
    if not isinstance(rules, Mapping):
        return f"rules: {rules}"
    changed = ", ".join(
        f"{name}={json.dumps(value)}" for name, value in rules.items() if name != "preset"
    )
    return f"rules: {rules.get('preset', 'classic')}" + (f", changed: {changed}" if changed else "")


def wrap(text: str, width: int) -> list[str]:
    """A log line cut at spaces to `width` (never inside a name such as heuristic-0,
    nor between a place and its player where both fit a line), the lines after its first
    indented."""
    return fit_wrap(text, max(width, 8), hanging=2)  # (by columns: 山田 is four)


@dataclass
class ReplayScreen:
    """The viewer's state: the steps of a record, the one shown, the help box."""

    steps: list[Step]
    fault: Fault | None = None
    name: str = ""
    rules: str = "classic"
    #: The rules in full: the preset and every toggle the record changes.
    rules_in_full: str = "rules: classic"
    index: int = 0
    help: bool = False
    help_pages: HelpPages = field(default_factory=HelpPages, repr=False)
    #: Per hand of the record, the indexes of its steps.
    hands: list[range] = field(default_factory=list)
    #: The record as shown (names escaped), for the review to judge.
    document: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        starts = [i for i, step in enumerate(self.steps) if step.action is None]
        self.hands = [
            range(start, end) for start, end in zip(starts, [*starts[1:], len(self.steps)])
        ]

    @classmethod
    def of(cls, document: Mapping[str, Any], name: str = "") -> ReplayScreen:
        named = shown_names(document)
        steps, fault = walk(named)
        screen = cls(steps, fault, shown(name), rules_label(document), rules_text(document))
        screen.document = named
        return screen

    @property
    def step(self) -> Step:
        return self.steps[self.index]

    @property
    def over(self) -> bool:
        return bool(self.steps) and self.steps[-1].view.phase is Phase.GAME_OVER

    # --- moving ---------------------------------------------------------------------

    def go(self, index: int) -> None:
        if self.steps:
            self.index = max(0, min(index, len(self.steps) - 1))

    def forward(self) -> None:
        self.go(self.index + 1)

    def back(self) -> None:
        self.go(self.index - 1)

    def first(self) -> None:
        self.go(0)

    def last(self) -> None:
        self.go(len(self.steps) - 1)

    def next_hand(self) -> None:
        """The deal of the next hand (the last step, from the last hand)."""
        hand = self.step.hand
        if hand + 1 < len(self.hands):
            self.go(self.hands[hand + 1].start)
        else:
            self.last()

    def previous_hand(self) -> None:
        """Back to this hand's deal; from the deal, the deal of the hand before."""
        start = self.hands[self.step.hand].start
        if self.index != start or self.step.hand == 0:
            self.go(start)
        else:
            self.go(self.hands[self.step.hand - 1].start)

    def sheet(self) -> list[tuple[int, tuple[str, ...], dict[str, int]]]:
        """The score sheet up to this step: each finished hand's number (0-based), its
        finish (names, first to last) and every player's score after it."""
        rows = []
        for hand, steps in enumerate(self.hands):
            end = self.steps[steps[-1]]
            if steps[-1] > self.index:
                break
            if end.view.phase not in (Phase.BETWEEN_HANDS, Phase.GAME_OVER):
                continue
            rows.append((hand, end.view.last_finish(), dict(end.scores)))
        return rows

    # --- words ----------------------------------------------------------------------

    def position(self) -> str:
        """Where the viewer is: hand n/N, and the deal or action k/K."""
        step = self.step
        actions = len(self.hands[step.hand]) - 1
        where = "deal" if step.action is None else f"action {step.action + 1}/{actions}"
        return f"hand {step.hand + 1}/{len(self.hands)} · {where}"

    def verdict(self) -> str:
        """The checking result in one line (what `president replay` says, in words)."""
        fault = self.fault
        if fault is None:
            hands = len(self.hands)
            if not hands:
                return "every step legal: no hand was dealt"
            end = (
                f"game over: {' and '.join(self.steps[-1].view.winners)} won"
                if self.over
                else "the game is not over"
            )
            return f"every step legal: {hands} hand{'s' if hands != 1 else ''}, {end}"
        return shown(fault.told())

    def told(self, index: int) -> tuple[str, ...]:
        """What step `index` did, as the log shows it now: a card of a due that a later
        step up to this one paid more of is said in that step's line, not here."""
        lines = self.steps[index].lines
        later = index + 1
        if later <= self.index and later < len(self.steps) and self.steps[later].retells:
            return lines[1:]
        return lines

    def paid_from(self, index: int) -> int:
        """The step whose card began the due that step `index` tells whole (`retells`),
        or `index` itself."""
        first = index
        while first > 0 and self.steps[first].retells:
            first -= 1
        return first

    def log_lines(self, index: int, width: int, first: bool = False) -> list[str]:
        """What step `index` did as lines of the log cut to `width` (`told`): the
        action's number on its first line (`first`: that line's rows alone)."""
        step = self.steps[index]
        number = "" if step.action is None else f"{step.action + 1:>3} "
        start = self.steps[self.paid_from(index)].action
        if start is not None and step.action is not None and start != step.action:
            number = f"{start + 1}–{step.action + 1} "  # a due's actions, told as one
        indent = " " * len(number)
        lines: list[str] = []
        told = self.told(index)
        for n, line in enumerate(told[:1] if first else told):
            parts = wrap(line, width - len(number))
            lines += [(number if n == 0 and i == 0 else indent) + p for i, p in enumerate(parts)]
        return lines

    def log(self, width: int, height: int) -> list[tuple[str, bool]]:
        """The last `height` lines of the log up to this step, cut to `width`, each with
        whether it belongs to this step (the viewer highlights those); a step with more
        lines than that shows its first (the action) and, after a "…", its last (how the
        hand ended: at 60x16 a hand's finish was cut after its second place)."""
        out: list[tuple[str, bool]] = []
        index = self.index
        while index >= 0 and len(out) < height:
            out[:0] = [(line, index == self.index) for line in self.log_lines(index, width)]
            index -= 1
        if height <= 0:
            return []
        own = sum(now for _, now in out)
        if own > height:  # this step's lines alone overfill the log
            mine = out[len(out) - own :]
            head = len(self.log_lines(self.index, width, first=True))
            if height < head + 2:
                return mine[:height]
            return [*mine[:head], ("  …", True), *mine[own - (height - head - 1) :]]
        return out[-height:]


def shown_names(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """The record with every player's name as a terminal may show it (control characters
    escaped: a record is anyone's file); the same name the same way everywhere, so the
    record replays as it would."""

    def names(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [shown(item) if isinstance(item, str) else item for item in value]

    if not isinstance(document, Mapping):
        return document
    changed = dict(document)
    if "players" in document:
        changed["players"] = names(document["players"])
    hands = document.get("hands")
    if isinstance(hands, list):
        changed["hands"] = [
            {**hand, "seating": names(hand["seating"])}
            if isinstance(hand, Mapping) and "seating" in hand
            else hand
            for hand in hands
        ]
    return changed

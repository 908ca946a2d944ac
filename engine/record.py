"""Game records, `president-record/1` (docs/records.md): write them from a `Game`,
read them back, and replay them through the engine, step by step."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import PASS, Action, Bomb, Discard, Handover, Play, Return, Take
from .cards import CARDS, RANK_NAMES, Card, parse_cards
from .errors import IllegalAction, RulesError
from .events import Event, Gave, Returned
from .phase import Phase
from .rules import PRESETS, Rules, preset_name_of, rules_from
from .salvage import whole_part
from .state import Game

FORMAT = "president-record/1"
#: The fewest bytes a record spends on each JSON array and object (a compact record,
#: every action on a pile of singles, spends 12 or more): a document of empty brackets
#: would cost some 20 times its size in memory to parse, a record at most 5.
BYTES_PER_CONTAINER = 8


class NotARecord(ValueError):
    """The input is not JSON, or not a `president-record/1` document (exit status 2)."""


class CutShort(NotARecord):
    """A record that ends too early (a copy stopped, a disk full): not JSON, and `whole`
    the document of its whole hands and the whole actions of the last, which may be
    replayed as a record stopped there (docs/records.md, "A record cut short")."""

    def __init__(self, message: str, whole: dict[str, Any]) -> None:
        super().__init__(message)
        self.whole = whole


@dataclass(frozen=True)
class Fault:
    """The first illegal or malformed step: 0-based indexes into the record, and why."""

    hand: int | None
    action: int | None
    error: str
    #: Who made the action refused, "B (seat 1)" ("" for a fault of no seat's): the
    #: engine's sentence speaks to them, so it is told as said to them ('B (seat 1) was
    #: told "you do not hold 4C"').
    by: str = ""

    def told(self) -> str:
        """The fault in words, where and why (`president replay` and its viewer)."""
        if not self.by:
            return f"illegal in {self.place()}: {self.error}"
        return f'illegal in {self.place()}: {self.by} was told "{self.error}"'

    def to_json(self) -> dict[str, Any]:
        return {"ok": False, "hand": self.hand, "action": self.action, "error": self.error}

    def place(self) -> str:
        """Where the record goes wrong, counted from 1 as the screens count, then where
        that is in the record, counted from 0 as its lists are (the words of `president
        replay`, its viewer and `president analyze`)."""
        hand, action = self.hand, self.action
        if hand is None:
            return "the header"
        if action is None:
            return f"hand {hand + 1}'s deal (the record's hands[{hand}])"
        return (
            f"hand {hand + 1}, action {action + 1} (the record's hands[{hand}].actions[{action}])"
        )


@dataclass
class Replay:
    """The outcome of replaying a record: how every hand went, and the game's state."""

    game: Game | None = None
    hands: list[dict[str, Any]] = field(default_factory=list)
    fault: Fault | None = None

    @property
    def ok(self) -> bool:
        return self.fault is None

    def to_json(self) -> dict[str, Any]:
        if self.fault is not None:
            return self.fault.to_json()
        assert self.game is not None
        return {
            "ok": True,
            "hands": self.hands,
            "scores": dict(self.game.scores),
            "game_over": self.game.phase is Phase.GAME_OVER,
            "winners": list(self.game.winners),
        }


# --- writing ------------------------------------------------------------------------


def rules_to_json(rules: Rules, preset: str | None = None) -> dict[str, Any]:
    """`{"preset": NAME, toggle: value, ...}` with only the toggles that differ."""
    if preset is None:
        preset, changes = preset_name_of(rules)
    else:
        changes = rules.changes_from(PRESETS[preset])
    return {"preset": preset, **changes}


def action_to_json(seat: int, action: Action) -> dict[str, Any]:
    if isinstance(action, Play):
        return {"seat": seat, "play": [str(c) for c in action.cards]}
    if isinstance(action, Return):
        return {"seat": seat, "return": [str(c) for c in action.cards]}
    if isinstance(action, Handover):
        return {"seat": seat, "handover": [str(c) for c in action.cards]}
    if isinstance(action, Discard):
        return {"seat": seat, "discard": [str(c) for c in action.cards]}
    if isinstance(action, Take):
        return {"seat": seat, "take": [str(c) for c in action.cards]}
    if isinstance(action, Bomb):
        return {"seat": seat, "bomb": RANK_NAMES[action.rank]}
    return {"seat": seat, "pass": True}


#: Why the table made a decision for a seat (an action's `timeout`, docs/records.md).
TIMEOUTS = ("time", "away", "left")


def by_the_table(step: Any) -> bool:
    """A record's action the table made for its seat by the timeout rule (its
    `timeout`: its time ran out, it was away, it had left), not its player's."""
    return isinstance(step, Mapping) and step.get("timeout") in TIMEOUTS


def last_step(game: Game) -> tuple[int, int]:
    """Where the last decision made in `game` stands in its record: (hand, action), from
    0 (what `to_record`'s `timeouts` are keyed by)."""
    return len(game.history) - 1, len(game.history[-1].actions) - 1


def to_record(
    game: Game, preset: str | None = None, timeouts: Mapping[tuple[int, int], str] | None = None
) -> dict[str, Any]:
    """The record of everything `game` has dealt and every decision made in it;
    `timeouts` (by hand and action, from 0) says why the table made a decision for its
    seat (the timeout rule, docs/records.md: an action's `timeout`)."""
    why = timeouts or {}
    return {
        "format": FORMAT,
        "rules": rules_to_json(game.rules, preset),
        "players": list(game.players),
        "hands": [
            {
                "seating": list(hand.seating),
                "dealer": hand.dealer,
                "deal": [[str(CARDS[i]) for i in cards] for cards in hand.deal],
                "actions": [
                    {**action_to_json(seat, action), "timeout": why[(index, number)]}
                    if (index, number) in why
                    else action_to_json(seat, action)
                    for number, (seat, action) in enumerate(hand.actions)
                ],
            }
            for index, hand in enumerate(game.history)
        ],
    }


def dumps(record: Mapping[str, Any]) -> str:
    """A record as JSON that reads like a score sheet: each seat's deal and each action
    on a line of its own."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = ["{"]
    head = [f" {one(key)}: {one(value)}" for key, value in record.items() if key != "hands"]
    lines.append(",\n".join(head) + ",")
    lines.append(' "hands": [')
    hands = []
    for hand in record.get("hands", []):
        parts = [
            f"   {one(key)}: {one(value)}"
            for key, value in hand.items()
            if key not in ("deal", "actions")
        ]
        if "deal" in hand:
            deal = ",\n".join(f"    {one(cards)}" for cards in hand["deal"])
            parts.append(f'   "deal": [\n{deal}\n   ]')
        if "actions" in hand:
            actions = ",\n".join(f"    {one(step)}" for step in hand["actions"])
            parts.append(f'   "actions": [\n{actions}\n   ]' if actions else '   "actions": []')
        hands.append("  {\n" + ",\n".join(parts) + "\n  }")
    lines.append(",\n".join(hands))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(line for line in lines if line) + "\n"


# --- reading and replaying ----------------------------------------------------------


#: A JSON string, escapes and all (its brackets are a name's, not the document's).
#: A JSON string, or one with no end, which runs to the end of the text: tried again at
#: each of its escaped quotes, a string of many and no end took time in the square of its
#: length (a hostile pass: 19 s for 80 KB).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)', re.S)
_STRING_BYTES = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\\?\Z)', re.S)


def _brackets(text: str | bytes) -> int:
    """The opening brackets of `text`, `[` and `{`."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def _too_many_containers(text: str | bytes) -> bool:
    """Whether `text` opens more JSON arrays and objects than a record of its size can
    (`BYTES_PER_CONTAINER`): its brackets, and if they are too many, those outside its
    strings (a player may be called "[[[[")."""
    room = (len(text) + 4096) // BYTES_PER_CONTAINER
    if _brackets(text) <= room:
        return False
    bare = _STRING.sub("", text) if isinstance(text, str) else _STRING_BYTES.sub(b"", text)
    return _brackets(bare) > room


def loads(text: str | bytes) -> dict[str, Any]:
    """Parse a record's JSON; `NotARecord` if it is not JSON or not this format."""
    if _too_many_containers(text):
        # (before parsing: such a document is arrays and objects, not a record's words)
        raise NotARecord("not a president record: far more JSON arrays and objects than words")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        # (a file cut short, by a copy or a full disk: more opened than closed, and the
        # fault in its last few characters)
        bare = _STRING.sub("", exc.doc)
        opened = _brackets(bare) > bare.count("]") + bare.count("}")
        # (a string with no end runs to the document's: its start may be far back)
        ends = opened and (
            exc.pos >= len(exc.doc.rstrip()) - 8 or exc.msg.startswith("Unterminated string")
        )
        said = f"not JSON{' (it ends too early: cut short?)' if ends else ''}: {exc}"
        whole = whole_part(exc.doc) if ends else None
        if whole is not None and whole.get("format") == FORMAT:
            raise CutShort(said, whole) from None
        raise NotARecord(f"not a game record: {said}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise NotARecord(f"not a game record: not JSON: {exc}") from None
    except RecursionError:  # (the decoder recurses into nesting: a hostile file's, no record's)
        raise NotARecord("not a president record: JSON nested too deeply") from None
    if not isinstance(document, dict):
        raise NotARecord("not a president record: the document is not a JSON object")
    if document.get("format") != FORMAT:
        found = document.get("format")
        raise NotARecord(
            f"not a {FORMAT} record (format is {found!r})"
            if found is not None
            else f'not a president record: no "format": "{FORMAT}"'
        )
    return document


#: Told of each step of a replay as it is made: the game after it, the hand's index, the
#: action's index (None for the deal, with the exchange gives the engine made) and the
#: events the step caused.
StepObserver = Callable[[Game, int, int | None, list[Event]], None]


def replay(document: Mapping[str, Any], on_step: StepObserver | None = None) -> Replay:
    """Replay a parsed record through the engine; stops at the first fault.  `on_step`,
    if given, sees every legal step (a replay viewer keeps each one)."""
    result = Replay()
    try:
        rules = rules_from(document.get("rules", "classic"))
    except (RulesError, TypeError) as exc:
        result.fault = Fault(None, None, f"rules: {exc}")
        return result
    players = document.get("players")
    hands = document.get("hands", [])
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        result.fault = Fault(None, None, "players must be a list of names")
        return result
    if len(set(players)) != len(players):
        result.fault = Fault(None, None, "players' names must be unique")
        return result
    if not isinstance(hands, list):
        result.fault = Fault(None, None, "hands must be a list")
        return result
    game: Game | None = None
    for index, hand in enumerate(hands):
        try:
            game = _replay_hand(rules, players, game, index, hand, result, on_step)
        except _StepFault as fault:
            result.fault = Fault(index, fault.action, fault.error, fault.by)
            return result
    if game is None:
        try:
            game = Game(rules, players)
        except (RulesError, IllegalAction) as exc:
            result.fault = Fault(None, None, str(exc))
            return result
    result.game = game
    return result


class _StepFault(Exception):
    def __init__(self, action: int | None, error: str, by: str = "") -> None:
        super().__init__(error)
        self.action = action
        self.error = error
        self.by = by


def _replay_hand(
    rules: Rules,
    players: Sequence[str],
    game: Game | None,
    index: int,
    hand: Any,
    result: Replay,
    on_step: StepObserver | None = None,
) -> Game:
    if not isinstance(hand, dict):
        raise _StepFault(None, "a hand must be a JSON object")
    seating = hand.get("seating")
    if seating is None and game is None:  # (left out or null: `players` in order)
        seating = list(players)
    if seating is not None and (
        not isinstance(seating, list) or not all(isinstance(n, str) for n in seating)
    ):
        raise _StepFault(None, "seating must be a list of names")
    if seating is not None:
        unknown = [name for name in seating if name not in players]
        if unknown:
            raise _StepFault(None, f"{unknown[0]} sits down but is not among the players")
    try:
        if game is None:
            assert seating is not None
            game = Game(rules, seating)
            result.game = game
        elif seating is not None:
            if game.phase is Phase.GAME_OVER:
                raise IllegalAction("the game is over: no hand may follow")
            if game.phase is not Phase.BETWEEN_HANDS:
                raise IllegalAction("the hand before this one is not finished")
            here = game.next_seating()
            for name in here:
                if name not in seating:
                    game.leave(name)
            for name in players:  # newcomers join in the order `players` gives
                if name in seating and name not in here:
                    game.join(name)
        dealer = hand.get("dealer")
        deal = hand.get("deal")
        if type(dealer) is not int:
            raise IllegalAction("the hand has no dealer seat")
        if not isinstance(deal, list) or not all(
            isinstance(cards, list) and all(isinstance(c, str) for c in cards) for cards in deal
        ):
            raise IllegalAction("the deal must be a list of each seat's cards")
        events = game.start_hand(seating=seating, dealer=dealer, deal=deal)
    except (IllegalAction, RulesError) as exc:
        raise _StepFault(None, str(exc)) from None
    if on_step is not None:
        on_step(game, index, None, events)
    summary: dict[str, Any] = {
        "complete": False,
        "gives": [
            {
                "from": game.seating[e.giver],
                "to": game.seating[e.receiver],
                "cards": [str(c) for c in e.cards],
            }
            for e in game.exchanges
            if isinstance(e, Gave)
        ],
    }
    result.hands.append(summary)
    actions = hand.get("actions", [])
    if not isinstance(actions, list):
        raise _StepFault(None, "actions must be a list")
    returns = _returns(game, events)  # (what came back for each give, as made)
    for number, step in enumerate(actions):
        seat, action = _parse_action(number, step)
        if game.phase not in (Phase.PLAY, Phase.EXCHANGE):
            raise _StepFault(number, "the hand is over: no action may follow")
        try:
            events = game.apply(seat, action)
        except IllegalAction as exc:
            by = f"{game.seating[seat]} (seat {seat})" if 0 <= seat < len(game.seating) else ""
            raise _StepFault(number, str(exc), by) from None
        returns += _returns(game, events)
        if on_step is not None:
            on_step(game, index, number, events)
    if game.phase in (Phase.BETWEEN_HANDS, Phase.GAME_OVER):
        summary["complete"] = True
        summary["finish"] = list(game.finishes[-1])
        # The key order docs/records.md shows: complete, finish, gives, returns.
        summary["gives"] = summary.pop("gives")
    summary["returns"] = returns
    return game


def _returns(game: Game, events: list[Event]) -> list[dict[str, Any]]:
    """The exchange's returns among `events`, as a replay's summary tells them."""
    return [
        {
            "from": game.seating[e.giver],
            "to": game.seating[e.receiver],
            "cards": [str(c) for c in e.cards],
        }
        for e in events
        if isinstance(e, Returned)
    ]


def _parse_action(number: int, step: Any) -> tuple[int, Action]:
    try:
        return action_from_json(step)
    except ValueError as exc:
        raise _StepFault(number, str(exc)) from None


def action_from_json(step: Any) -> tuple[int, Action]:
    """(seat, action) from `{"seat": 1, "play": [...]}` (or "pass" / "return" /
    "handover" / "discard" / "take"), the form
    `action_to_json` writes; `ValueError` saying what is wrong with it."""
    if not isinstance(step, dict):
        raise ValueError("an action must be a JSON object")
    seat = step.get("seat")
    if type(seat) is not int:
        raise ValueError("an action needs the seat that makes it")
    kinds = [key for key in ("pass", "bomb", *_KINDS) if key in step]
    if len(kinds) != 1:
        raise ValueError("an action is one of play, pass, return, handover or discard (or take)")
    kind = kinds[0]
    if kind == "pass":
        if step["pass"] is not True:
            raise ValueError('a pass is written "pass": true')
        return seat, PASS
    if kind == "bomb":  # (a rank named: queen_bomber)
        if not isinstance(step["bomb"], str):
            raise ValueError('a bomb names a rank: "bomb": "7"')
        return seat, Bomb.parse(step["bomb"])
    cards = step[kind]
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise ValueError(f"{kind} must be a list of cards")
    key = (kind, *cards)
    action = _PARSED.get(key)
    if action is None:
        action = _KINDS[kind](parse_cards(cards))
        # (only as a game writes them, "10H" at most: a hostile pass padded each card
        # with 150k spaces, each padding a new key, and stats held 1.3 GB of them)
        if len(_PARSED) < PARSED_KEPT and len(cards) <= 54 and all(len(c) <= 3 for c in cards):
            _PARSED[key] = action
    return seat, action


#: Actions read before, by their key and cards as written: a game's record writes the
#: same few hundred actions again and again, and `president stats` reads every record
#: of a folder (actions are immutable, so one may stand for every step that writes it).
_PARSED: dict[tuple[str, ...], Action] = {}
#: At most this many kept (a discard may hold any cards: a hostile record could write
#: a new one each step; a game writes a few hundred).
PARSED_KEPT = 8192

#: Each kind of decision with cards by its key in a record (and "pass": `"pass": true`).
_KINDS: dict[str, Callable[[tuple[Card, ...]], Action]] = {
    "play": Play,
    "return": Return,
    "handover": Handover,
    "discard": Discard,
    "take": Take,
}


__all__ = [
    "FORMAT",
    "Fault",
    "NotARecord",
    "Replay",
    "StepObserver",
    "action_from_json",
    "action_to_json",
    "dumps",
    "loads",
    "replay",
    "rules_to_json",
    "to_record",
]

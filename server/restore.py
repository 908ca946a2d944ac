"""Rebuilding a table from its journal after a restart: its settings and seats, its game
replayed through the engine action by action (checked, so a damaged journal is refused
rather than believed), the event number, the deal's secret seeds and the turn timer.

Nobody is connected after a restart: people's seats are kept with their seat tokens and
counted as away from the moment of the restart; the table waits `resume_seconds` for the
seats owing a move before the timeout rule plays for them, and the turn timer, held at
what was left when the last entry was written, runs again when they are back."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import Any

from president.bots.strategies import make_strategy
from president.engine import (
    Game,
    IllegalAction,
    Phase,
    RulesError,
    find_preset,
)
from president.engine.record import action_from_json

from .config import ServerConfig
from .journal import Entry
from .table import DealSecret, Slot, Table, TableSettings


class RestoreError(Exception):
    """The journal of one table does not rebuild it; the message says where."""


def settings_from(body: dict[str, Any], config: ServerConfig) -> TableSettings:
    preset = body["preset"]
    return TableSettings.on(
        config, name=body["name"], preset=preset, rules=find_preset(preset).replace(**body["toggles"]),
        seats=body["seats"], password=body["password"], turn_seconds=body["turn_seconds"])


def slot_from(body: dict[str, Any], away_since: float) -> Slot:
    """A chair as the journal kept it: a bot gets a fresh strategy object, a person is away."""
    name, strategy = body["name"], body["strategy"]
    if not name:
        return Slot()
    if strategy:
        return Slot(name=name, bot=make_strategy(strategy, random.Random(secrets.randbits(64))),
                    strategy=strategy, ready=body["ready"])
    return Slot(name=name, token=bytes.fromhex(body["token"]), ready=body["ready"],
                leaving=body["leaving"], away_since=away_since)


def rebuild(entries: list[Entry], config: ServerConfig,
            on_record: Callable[[Table, dict[str, Any]], None], clock: Callable[[], float]) -> Table:
    """The table as its journal leaves it (not yet attached to the journal or driven)."""
    if not entries or entries[0].kind != "table":
        raise RestoreError("the journal does not begin with the table's settings")
    try:
        return _rebuild(entries, config, on_record, clock)
    except RestoreError:
        raise
    except (IllegalAction, RulesError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise RestoreError(f"{type(exc).__name__}: {exc}") from None


def _rebuild(entries: list[Entry], config: ServerConfig,
             on_record: Callable[[Table, dict[str, Any]], None], clock: Callable[[], float]) -> Table:
    now = clock()
    table = Table(settings_from(entries[0].body, config), on_record, clock=clock)
    game: Game | None = None
    remaining: float | None = None
    for index, entry in enumerate(entries[1:], start=1):
        kind, body = entry.kind, entry.body
        if kind == "seats":
            slots = [slot_from(s, now) for s in body["seats"]]
            if len(slots) != table.settings.seats:
                raise RestoreError(f"entry {index}: {len(slots)} seats at a table of {table.settings.seats}")
            table.slots = slots
        elif kind == "game":
            game = table.game = Game(table.settings.rules, body["players"])
            table.status, table.deal_secret = "playing", None
        elif kind in ("join", "leave", "deal", "act"):
            if game is None:
                raise RestoreError(f"entry {index}: {kind} before any game")
            if kind == "join":
                game.join(body["name"])
            elif kind == "leave":
                game.leave(body["name"])
            elif kind == "deal":
                if body["hand"] != game.hand + 1:
                    raise RestoreError(f"entry {index}: the deal of hand {body['hand']} after hand {game.hand}")
                game.start_hand(seating=body["seating"], dealer=body["dealer"], deal=body["deal"])
                table.deal_secret = DealSecret(
                    hand=body["hand"], server_seed=bytes.fromhex(body["server_seed"]),
                    seeds={name: bytes.fromhex(seed) for name, seed in body["seeds"].items()},
                    order_names=list(body["seating"]), dealer=body["dealer"], start=body["start"],
                    dealt=True)
            else:
                game.apply(*action_from_json(body["action"]))
            if kind in ("deal", "act"):
                remaining = body["remaining"]
                if game.phase not in (Phase.PLAY, Phase.EXCHANGE):
                    table.deal_secret = None  # revealed when the hand ended
        elif kind == "end":
            table.status = body["status"]
        elif kind != "snapshot":
            raise RestoreError(f"entry {index}: an entry of kind {kind!r}")
        if "number" in body:
            table.number = body["number"]
    table.resume_until = now + table.settings.resume_seconds
    if table.status == "playing":
        table.held = remaining
    return table


def compacted(table: Table) -> list[Entry]:
    """The entries that rebuild `table` as it is, when no game is in progress there."""
    return [Entry("table", table.settings.entry()),
            Entry("seats", {"seats": [s.entry() for s in table.slots]})]


def differences(live: Table, rebuilt: Table) -> list[str]:
    """What a restart would change at `live` (nothing, for a table whose journal is
    whole): the test suite and scripts/fuzz.py compare a table with its rebuild."""
    found = []

    def compare(what: str, a: object, b: object) -> None:
        if a != b:
            found.append(f"{what}: {a!r} is {b!r} after a rebuild")

    compare("status", live.status, rebuilt.status)
    compare("event number", live.number, rebuilt.number)
    compare("seats", [s.entry() for s in live.slots], [s.entry() for s in rebuilt.slots])
    compare("rules", live.settings.entry(), rebuilt.settings.entry())
    game, again = live.game, rebuilt.game
    if game is None or again is None:
        compare("game", game is None, again is None)
        return found
    for what in ("players", "scores", "hand", "phase", "finishes", "seating", "winners"):
        compare(what, getattr(game, what), getattr(again, what))
    if not found and game.hand >= 0:
        for seat in range(len(game.seating)):
            compare(f"seat {seat}'s view", game.view_for(seat), again.view_for(seat))
    secret, kept = live.deal_secret, rebuilt.deal_secret
    if secret is not None and secret.dealt and game.phase in (Phase.PLAY, Phase.EXCHANGE):
        compare("deal secret", secret, kept)
    return found

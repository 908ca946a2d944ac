"""Rebuilding a table from its journal after a restart: its settings and chairs, its game
replayed through the engine action by action (checked, so a damaged journal is refused
rather than believed), the event number, the deal's secret seeds and the turn timer.

Nobody is connected after a restart: people's chairs are kept with their seat tokens and
counted as away from the moment of the restart; the table waits `resume_seconds` for the
seats owing a move before the timeout rule plays for them, and the turn timer, held at
what was left when the last entry was written, runs again when they are back."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from president.engine import Game, IllegalAction, Phase, RulesError
from president.engine.record import action_from_json, last_step
from president.protocol import messages as m

from .config import ServerConfig, TableSettings, is_password_hash
from .dealing import DealSecret
from .history import HandLog
from .journal import Entry, Journal
from .ladder import Ratings
from .seats import Slot
from .table import OnRecord, Status, Table


class RestoreError(Exception):
    """The journal of one table does not rebuild it; the message says where."""


def rebuild(
    entries: list[Entry],
    config: ServerConfig,
    on_record: OnRecord,
    clock: Callable[[], float],
    journal: Journal | None = None,
    log_id: int | None = None,
    ratings: Ratings | None = None,
) -> Table:
    """The table as its journal leaves it, not yet driven (attached to `journal` as table
    `log_id` when given, its hands counted on `ratings` from here: the ones replayed are
    not counted again)."""
    for index, entry in enumerate(entries):
        if entry.kind == "damaged":
            raise RestoreError(f"entry {index}: {entry.body.get('why', 'damaged')}")
    if not entries or entries[0].kind != "table":
        raise RestoreError("the journal does not begin with the table's settings")
    try:
        return _rebuild(entries, config, on_record, clock, journal, log_id, [], ratings)
    except RestoreError:
        raise
    except (IllegalAction, RulesError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise RestoreError(f"{type(exc).__name__}: {exc}") from None


def _rebuild(
    entries: list[Entry],
    config: ServerConfig,
    on_record: OnRecord,
    clock: Callable[[], float],
    journal: Journal | None,
    log_id: int | None,
    games: list[Game],
    ratings: Ratings | None = None,
    marks: dict[tuple[int, int], m.TimeoutReason] | None = None,
) -> Table:
    """The table `entries` journal; `games` gets each game as it begins, and `marks` the
    moves the table made in the last (`Table.timeouts`), as far as the entries go."""
    now = clock()
    settings = TableSettings.from_entry(entries[0].body, config)
    slots = [Slot() for _ in range(settings.seats)]
    game: Game | None = None
    status: Status = "waiting"
    secret: DealSecret | None = None
    number = 0
    remaining: float | None = None
    game_id = ""
    hand_log = HandLog()  # the hand in play's events, numbered as they were sent
    timeouts = marks if marks is not None else {}
    dealt_keys: set[str] = set()  # (`Table.dealt_keys`: who may have the game's record)
    ended: tuple[str, frozenset[str]] | None = None  # (the last game's record, its keys)
    for index, entry in enumerate(entries[1:], start=1):
        kind, body = entry.kind, entry.body
        if kind == "seats":
            slots = [Slot.from_entry(s, now) for s in body["seats"]]
            if len(slots) != settings.seats:
                raise RestoreError(
                    f"entry {index}: {len(slots)} seats at a table of {settings.seats}"
                )
        elif kind == "game":
            game = Game(settings.rules, body["players"])
            games.append(game)
            timeouts.clear()
            dealt_keys.clear()
            # (a journal from before the ladder: an id of its own, from where it began)
            game_id = str(body.get("game_id") or f"journal-{log_id}-{body.get('number', 0)}")
            status, secret = "playing", None
        elif kind in ("join", "leave", "deal", "act"):
            if game is None:
                raise RestoreError(f"entry {index}: {kind} before any game")
            if kind == "join":
                game.join(body["name"])
            elif kind == "leave":
                game.leave(body["name"])
            elif kind == "deal":
                if body["hand"] != game.hand + 1:
                    raise RestoreError(
                        f"entry {index}: the deal of hand {body['hand']} after hand {game.hand}"
                    )
                events = game.start_hand(
                    seating=body["seating"], dealer=body["dealer"], deal=body["deal"]
                )
                hand_log.replay(settings.name, number, events)
                secret = DealSecret.from_entry(body)
                dealt_keys.update(str(key) for key in body.get("keys", ()))
            else:
                events = game.apply(*action_from_json(body["action"]))
                why = body.get("timeout", "")
                hand_log.replay(settings.name, number, events, why)
                if why:  # (the record says the table made it: `Table.timeouts`)
                    timeouts[last_step(game)] = why
            if kind in ("deal", "act"):
                remaining = body["remaining"]
                if game.phase not in (Phase.PLAY, Phase.EXCHANGE):
                    secret = None  # revealed when the hand ended
        elif kind == "end":
            if body["status"] not in ("waiting", "finished"):
                raise RestoreError(f"entry {index}: a game ended as {body['status']!r}")
            status = body["status"]
            record = body.get("record")
            ended = (str(record), frozenset(map(str, body.get("keys", ())))) if record else None
        elif kind == "password":  # (its creator's, after it was made: `table_password`)
            stored = body.get("password_scrypt")
            if stored is not None and not (isinstance(stored, str) and is_password_hash(stored)):
                raise RestoreError(f"entry {index}: a password that is no scrypt hash")
            settings.password = stored
        elif kind != "snapshot":
            raise RestoreError(f"entry {index}: an entry of kind {kind!r}")
        if "number" in body:
            number = body["number"]
    return Table.restored(
        settings,
        on_record,
        clock=clock,
        slots=slots,
        game=game,
        status=status,
        number=number,
        deal_secret=secret,
        remaining=remaining,
        journal=journal,
        log_id=log_id,
        ratings=ratings,
        game_id=game_id,
        hand_log=hand_log,
        timeouts=timeouts,
        dealt_keys=dealt_keys,
        ended=ended,
    )


def replay_what_can_be(
    entries: list[Entry], config: ServerConfig
) -> tuple[Game | None, dict[tuple[int, int], m.TimeoutReason]]:
    """A table set aside (its journal does not rebuild it): its last game as far as the
    entries replay, and the moves the table made in it, for a record of it."""
    whole = []
    for entry in entries:
        if entry.kind == "damaged":
            break
        whole.append(entry)
    games: list[Game] = []
    marks: dict[tuple[int, int], m.TimeoutReason] = {}
    with contextlib.suppress(Exception):  # the point: as far as it goes, whatever stops it
        _rebuild(whole, config, lambda _n, _r: None, lambda: 0.0, None, None, games, None, marks)
    return (games[-1] if games else None), marks


def compacted(table: Table) -> list[Entry]:
    """The entries that rebuild `table` as it is, when no game is in progress there."""
    return table.compacted_log()


def differences(live: Table, rebuilt: Table) -> list[str]:
    """What a restart would change at `live` (nothing, for a table whose journal is
    whole): the test suite and scripts/fuzz.py compare a table with its rebuild."""
    found = []

    def compare(what: str, a: object, b: object) -> None:
        if a != b:
            found.append(f"{what}: {a!r} is {b!r} after a rebuild")

    compare("status", live.status, rebuilt.status)
    compare("event number", live.number, rebuilt.number)
    compare("seats", live.chairs.entries(), rebuilt.chairs.entries())
    compare("rules", live.settings.entry(), rebuilt.settings.entry())
    compare(  # (`record_ask` after a restart)
        "the last game's record",
        (live.record_file, live.record_keys),
        (rebuilt.record_file, rebuilt.record_keys),
    )
    if live.game is not None and live.game.phase in (Phase.PLAY, Phase.EXCHANGE):
        compare("hand history", live.hand_log.events, rebuilt.hand_log.events)
    game, again = live.game, rebuilt.game
    if game is None or again is None:
        compare("game", game is None, again is None)
        return found
    for what in ("players", "scores", "hand", "phase", "finishes", "seating", "winners"):
        compare(what, getattr(game, what), getattr(again, what))
    if live.status == "playing":  # the id its hands are counted under on the ladder
        compare("game id", live.game_id, rebuilt.game_id)
        compare("the table's moves", live.timeouts, rebuilt.timeouts)  # (in its record)
        # (who may have its record: a leaver before a restart was refused it after)
        compare("the keys dealt a hand", live.dealt_keys, rebuilt.dealt_keys)
    if not found and game.hand >= 0:
        for seat in range(len(game.seating)):
            compare(f"seat {seat}'s view", game.view_for(seat), again.view_for(seat))
    secret, kept = live.deal_secret, rebuilt.deal_secret
    if secret is not None and secret.dealt and game.phase in (Phase.PLAY, Phase.EXCHANGE):
        compare("deal secret", secret, kept)
    return found

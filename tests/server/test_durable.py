"""Durable tables: the journal rebuilds every table exactly, a restarted server (graceful
or SIGKILLed, a real process) brings the games back, and players take their seats back
with their seat tokens and play on."""

from __future__ import annotations

import asyncio
import random
import signal
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.protocol import messages as m
from president.server.journal import Entry, Journal
from president.server.restore import RestoreError, differences, rebuild
from president.server.table import Table

from ..harness.processes import ServerProcess
from ..harness.records import replayed
from ..harness.servers import (
    FAST,
    bot_key,
    client,
    deals_check_out,
    dialer,
    in_play,
    round_trip,
    running_server,
    sit_among_server_bots,
    table_of_bots,
    tables_of_bots,
    watching,
)
from ..harness.waiting import wait_for


def same_table(live: Table, restored: Table) -> None:
    """Everything a restart must keep, compared between the live table and its rebuild."""
    assert differences(live, restored) == []


async def test_the_journal_rebuilds_the_table_exactly_at_every_step(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.0) as server:
        # (three hands: the deal, the exchange, and a hand after one)
        _clients, _bots, tasks = await table_of_bots(
            server, tmp_path, preset="house", seed=4, toggles={"rounds": 3}
        )
        table = server.lobby.tables["T"]
        journal = server.journal
        assert journal is not None
        checked = 0
        while table.status != "finished" and checked < 400:
            async with table.lock:  # between two actions: compare the live table and its rebuild
                ((_, _, entries),) = [t for t in journal.open_tables() if t[1] == "T"]
                same_table(
                    table, rebuild(entries, server.config, server.write_record, time.monotonic)
                )
                checked += 1
            await asyncio.sleep(random.Random(checked).random() * 0.01)
        assert checked > 20
        for t in tasks:
            t.cancel()


def test_a_damaged_journal_is_refused_with_where_it_went_wrong() -> None:
    base = [
        Entry(
            "table",
            {
                "name": "T",
                "preset": "classic",
                "toggles": {},
                "seats": 3,
                "password": None,
                "turn_seconds": 30,
            },
        )
    ]
    config = replace(FAST, data_dir=Path("."))
    cases = {
        "the journal does not begin": [],
        "before any game": [
            *base,
            Entry("act", {"action": {"seat": 0, "pass": True}, "number": 1}),
        ],
        "KeyError": [*base, Entry("seats", {})],
        "entry 1: row 9 is not JSON": [*base, Entry("damaged", {"why": "row 9 is not JSON"})],
        "2 seats at a table of 3": [
            *base,
            Entry("seats", {"seats": [{"name": "", "strategy": ""}] * 2}),
        ],
        "President needs": [*base, Entry("game", {"players": ["a", "b"]})],
    }
    for words, entries in cases.items():
        try:
            rebuild(entries, config, lambda t, r: None, time.monotonic)
        except RestoreError as exc:
            assert words in str(exc), (words, str(exc))
        else:
            raise AssertionError(f"{words}: rebuilt")


async def test_a_graceful_restart_keeps_the_game_and_players_resume_with_their_tokens(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, bot_delay=0.02) as server:
        # (5 points: no game ends before its third hand, so the restart, in the second,
        # is a whole hand before any end)
        clients, bots, tasks = await table_of_bots(server, tmp_path, seed=7, toggles={"target": 5})
        await wait_for(
            lambda: in_play(clients[0]) and clients[0].model.public.hands_played >= 1, 60
        )  # type: ignore[union-attr]
        seats = [(c.model.slot, c.model.token) for c in clients]
    for c in clients:  # the context manager closed the server mid-game
        await wait_for(lambda c=c: c.bye is not None, 20)  # type: ignore[misc]
    assert server.records == []  # nothing was ended: the game is kept
    table = server.lobby.tables["T"]
    async with running_server(tmp_path, bot_delay=0.0) as again:
        restored = again.lobby.tables["T"]
        same_table(table, restored)
        assert restored.status == "playing"
        back = []
        for i, (slot, token) in enumerate(seats):
            c = await client(again, f"bot{i}", tmp_path, identity=bot_key(f"bot{i}"))
            bots[i] = BotPlayer(c, RandomBot(random.Random(i)))
            tasks.append(asyncio.create_task(c.run()))
            assert slot is not None
            await c.send(m.Resume(table="T", seat=slot, token=token))
            back.append(c)
        await asyncio.wait_for(bots[0].game_over.wait(), 90)
        await wait_for(lambda: len(again.records) == 1)
    summary = replayed(again.records[0])
    assert summary["ok"] and summary["game_over"] is True, summary
    for t in tasks:
        t.cancel()


@pytest.mark.slow
async def test_a_journal_that_is_not_a_database_is_set_aside_with_one_line(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "tables.sqlite3").write_bytes(b"this is not a database" * 100)
    (data / "tables.sqlite3").chmod(0o600)
    server = await ServerProcess.started(data, 0)
    head = server.head
    server.stop(signal.SIGTERM)
    assert "Traceback" not in head + server.errors()
    (line,) = [x for x in head.splitlines() if "tables.sqlite3" in x]
    assert "is damaged (file is not a database)" in line and "0 row(s)" in line
    (kept,) = (data / "damaged").iterdir()
    assert (kept / "tables.sqlite3").read_bytes() == b"this is not a database" * 100


async def test_one_table_that_does_not_rebuild_leaves_the_others_alone(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.02) as server:
        await tables_of_bots(server, tmp_path, ("good", "bad"), hand=0)
    # a row that is authentic (written with the journal's key) but does not fit the game:
    # the replay through the engine refuses it
    journal = Journal(
        tmp_path / "data" / "tables.sqlite3", (tmp_path / "data" / "journal.key").read_bytes()
    )
    db = journal.db
    ((bad,),) = db.execute("SELECT id FROM tables WHERE name = 'bad'").fetchall()
    row, seq, body = db.execute(
        "SELECT id, seq, json_set(body, '$.seating', json_array('x', 'y', 'z')) FROM events "
        "WHERE id = (SELECT max(id) FROM events WHERE table_id = ? AND kind = 'deal')",
        (bad,),
    ).fetchone()
    db.execute(
        "UPDATE events SET body = ?, mac = ? WHERE id = ?",
        (body, journal.mac(bad, seq, "deal", body), row),
    )
    journal.close()
    async with running_server(tmp_path, bot_delay=0.0) as again:
        assert list(again.lobby.tables) == ["good"]
        assert len(again.restore_problems) == 1 and "'bad'" in again.restore_problems[0]
        assert "the seating must name everyone" in again.restore_problems[0]
        assert "set aside in" in again.restore_problems[0]
        await watching(again, tmp_path, "good")  # (a game nobody is at waits)
        await wait_for(lambda: again.lobby.tables["good"].status == "finished", 60)
    async with running_server(tmp_path) as third:  # closed: not tried again
        assert third.restore_problems == [] and "bad" not in third.lobby.tables


async def test_a_table_removed_from_the_lobby_is_not_called_damaged_at_the_next_start(
    tmp_path: Path,
) -> None:
    """A table the lobby removes (finished and empty, or empty too long) leaves the
    journal: the next start neither sets it aside as one that "could not be restored" nor
    writes its game's record a second time."""
    async with running_server(tmp_path, bot_delay=0.0) as server:
        host = await client(server, "host", tmp_path)
        await host.send(m.CreateTable(name="done", preset="classic", toggles={}, seats=3))
        watcher = await watching(server, tmp_path, "done")  # (a game nobody is at waits)
        for _ in range(3):
            await host.send(m.AddBot(table="done", strategy="random"))
        records_dir = tmp_path / "data" / "records"
        await wait_for(lambda: any(records_dir.iterdir()), 60)  # the game is over
        await watcher.send(m.Leave())
        await wait_for(lambda: not server.lobby.tables["done"].chairs.spectators)
        await server.lobby.sweep()  # finished, and nobody sits or watches: it goes
        assert "done" not in server.lobby.tables
        await host.link.close()
    records = sorted((tmp_path / "data" / "records").iterdir())
    assert len(records) == 1
    async with running_server(tmp_path) as again:
        assert again.restore_problems == [] and "done" not in again.lobby.tables
    assert sorted((tmp_path / "data" / "records").iterdir()) == records
    assert not (tmp_path / "data" / "damaged").exists() or not any(
        (tmp_path / "data" / "damaged").iterdir()
    )


# --- a real process, killed ---------------------------------------------------------------


class Pausable(BotPlayer):
    """A bot the test can hold: while `paused` it does not answer its turn."""

    paused = False

    async def on_message(self, message: m.Message) -> None:
        if self.paused and isinstance(message, (m.TableView, m.SealedHand)):
            return
        await super().on_message(message)


def public(view: m.TableView) -> tuple[object, ...]:
    """What a restart must not change in a table's public view: the whole game, the
    rules, who sits where (not who is connected, nor the timer: checked apart)."""
    return (view.status, view.rules, [(c.name, c.bot, c.ready) for c in view.chairs], view.game)


@pytest.mark.slow
async def test_sigkill_mid_hand_then_restart_restores_every_seat_hand_score_and_timer(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    clients: list[Client] = []
    players: list[Pausable] = []
    follows = []
    try:
        for i in range(3):
            dial = dialer(server.address, f"p{i}", tmp_path, pin=server.pin)
            c = Client(await dial())
            c.reconnect = dial
            c.keep = True
            clients.append(c)
            players.append(Pausable(c, RandomBot(random.Random(i))))
            follows.append(asyncio.create_task(c.follow(lambda what: None, retry_seconds=0.2)))
        await clients[0].send(
            m.CreateTable(
                name="T", preset="table", toggles={"target": 15}, seats=4, turn_seconds=600
            )
        )
        for c in clients:
            await c.send(m.Join(table="T"))
        await wait_for(lambda: all(c.model.slot is not None for c in clients))
        await clients[0].send(m.AddBot(table="T", strategy="greedy"))
        for c in clients:
            await c.send(m.Ready())

        # play into the second hand, then hold everyone: the table waits on a person
        def mid_second_hand() -> bool:
            game = clients[0].model.public
            return (
                in_play(clients[0])
                and game is not None
                and game.hands_played >= 1
                and len(game.trick) >= 2
            )

        await wait_for(mid_second_hand, 60)
        for p in players:
            p.paused = True
        for c in clients:  # whatever a player sent before pausing is in
            await round_trip(c)

        def settled() -> bool:
            """Every client has the same view, and its turn is a person's (paused): from
            here nothing happens at the table until someone acts."""
            views = [c.model.view for c in clients]
            game = clients[0].model.public
            return (
                all(v is not None for v in views)
                and len({v.number for v in views}) == 1  # type: ignore[union-attr]
                and game is not None
                and game.turn is not None
                and game.seating[game.turn] in {f"p{i}" for i in range(3)}
            )

        await wait_for(settled)
        before = [
            (public(c.model.view), sorted(map(str, c.model.hand)), c.model.view.turn_deadline_ms)  # type: ignore[union-attr]
            for c in clients
        ]
        game = before[0][0][3]
        assert isinstance(game, m.GameView) and game.phase == "play"
        assert all(b[0] == before[0][0] for b in before)
        marks = [len(c.received) for c in clients]

        loop = asyncio.get_running_loop()
        killed = loop.time()
        server.stop(signal.SIGKILL)
        assert "a new certificate, made now" in server.head  # (its first start)
        server = await server.again()
        assert server.pin == clients[0].link.fingerprint
        assert "restored 1 table, 1 with a game in progress" in server.head
        assert "a new certificate" not in server.head

        # each player's client reconnects by itself and takes its seat back with its token
        def resumed(c: Client, mark: int) -> bool:
            return any(
                isinstance(x, m.SealedHand) and x.reason == "snapshot" for x in c.received[mark:]
            )

        await wait_for(lambda: all(resumed(c, k) for c, k in zip(clients, marks, strict=True)), 60)

        def views_of(c: Client, mark: int) -> list[m.TableView]:
            return [x for x in c.received[mark:] if isinstance(x, m.TableView)]

        def held(left: int, timer: int) -> bool:
            """The time left kept through the restart: never more than it was, and less by
            at most the time the seats were away (the timer held until they came back)."""
            away_ms = (loop.time() - killed) * 1000
            return timer - away_ms - 1000 <= left <= timer + 1000

        for c, mark, (view, hand, timer) in zip(clients, marks, before, strict=True):
            views = views_of(c, mark)
            assert views and public(views[0]) == view
            assert sorted(map(str, c.model.hand)) == hand
            assert isinstance(timer, int)
            # while the seat owing the move was not back yet, a view counts down the
            # window for it (resume_seconds) instead: when the table would move for it
            window = 120_000  # (the server's resume_seconds: its default)
            for shown in views:
                left = shown.turn_deadline_ms
                assert held(left, timer) or 0 < left <= window, (left, timer)
            assert not [e for e in c.errors if e.about == "resume"], c.errors
        # everyone back: the time kept is what every view says, and runs from there
        for c, mark, (_, _, timer) in zip(clients, marks, before, strict=True):
            await wait_for(
                lambda c=c, mark=mark, timer=timer: held(
                    views_of(c, mark)[-1].turn_deadline_ms, timer
                ),
                30,
                lambda c=c, mark=mark: f"{[v.turn_deadline_ms for v in views_of(c, mark)]}",
            )
        for p in players:
            p.paused = False
            view = p.client.model.view
            assert view is not None
            await p.on_message(view)  # the held turn is answered
        await wait_for(players[0].game_over.is_set, 120)
        for c in clients:  # the deals before and after the restart all check out
            assert deals_check_out(c.model.deal_results), c.model.deal_results
        assert server.stop(signal.SIGTERM) == 0, server.errors()
        assert "1 game record written" in server.text(), server.text() + server.errors()
    finally:
        for task in follows:
            task.cancel()
        server.kill()
    (record,) = (data / "records").glob("*.json")
    summary = replayed(record)
    assert summary["ok"] and summary["game_over"] is True, summary


@pytest.mark.slow
async def test_a_server_killed_at_random_moments_finishes_every_game(tmp_path: Path) -> None:
    """Three SIGKILLs at moments nobody chose, four tables of bots: every game ends and
    every record replays."""
    data = tmp_path / "data"
    caps = ("--tables-per-address", "4")  # the four tables come from one address
    server = await ServerProcess.started(data, 0, *caps)
    follows = []
    players = []
    try:
        for t in range(4):
            for i in range(3):
                dial = dialer(server.address, f"t{t}p{i}", tmp_path, pin=server.pin)
                c = Client(await dial())
                c.reconnect = dial
                players.append(BotPlayer(c, RandomBot(random.Random(t * 10 + i))))
                follows.append(asyncio.create_task(c.follow(lambda what: None, retry_seconds=0.2)))
                if i == 0:
                    await c.send(
                        m.CreateTable(
                            name=f"T{t}",
                            preset="classic",
                            toggles={"target": 7},
                            seats=3,
                            turn_seconds=600,
                        )
                    )
                await c.send(m.Join(table=f"T{t}"))
        await wait_for(lambda: all(p.client.model.slot is not None for p in players), 20)
        for p in players:
            await p.client.send(m.Ready())
        rng = random.Random(5)
        for _ in range(3):
            await asyncio.sleep(rng.uniform(0.5, 1.5))
            server.stop(signal.SIGKILL)
            server = await server.again()
        await wait_for(lambda: all(p.game_over.is_set() for p in players), 180)
        server.stop(signal.SIGTERM)
    finally:
        for task in follows:
            task.cancel()
        server.kill()
    records = sorted((data / "records").glob("*.json"))
    assert len(records) == 4
    for record in records:
        summary = replayed(record)
        assert summary["ok"] and summary["game_over"] is True, summary


def test_the_journal_is_sqlite_in_wal_mode(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3", bytes(32))
    table = journal.open_table("T")
    journal.append(table, "seats", {"seats": []})
    journal.close()
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT kind, body FROM events").fetchall() == [("seats", '{"seats":[]}')]


async def test_at_a_table_with_no_game_on_a_seat_not_claimed_after_a_restart_is_freed(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path)
        task = asyncio.create_task(ann.run())
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await ann.send(m.Join(table="T"))
        await ann.send(m.AddBot(table="T", strategy="random"))
        await ann.send(m.Ready())
        await wait_for(
            lambda: "T" in server.lobby.tables and server.lobby.tables["T"].slots[0].ready
        )
        task.cancel()
    async with running_server(tmp_path, resume_seconds=0.5) as again:
        table = again.lobby.tables["T"]
        assert table.status == "waiting" and table.slots[0].name == "ann"
        assert not table.slots[0].ready  # not back: cannot start a game by being ready
        assert table.slots[1].strategy == "random" and table.slots[1].ready
        await wait_for(lambda: table.slots[0].empty, 20)  # the resume window passed
    async with running_server(tmp_path) as third:  # and the journal says so
        assert [s.name for s in third.lobby.tables["T"].slots] == ["", "random-bot-1", ""]


@pytest.mark.slow
async def test_the_hosts_terminal_closed_stops_the_server_as_ctrl_c_does(tmp_path: Path) -> None:
    """A host closed the terminal the server ran in (SIGHUP): the server ended at once,
    its players left to find out from a dropped connection.  It stops as at Ctrl-C: the
    players told, the game in progress kept, and back at the next start."""
    server = await ServerProcess.started(tmp_path / "data", 0)
    ann = Client(
        await dialer(server.address, "ann", tmp_path, pin=server.pin, identity=bot_key("ann"))()
    )
    reading = asyncio.create_task(ann.run())
    try:
        await sit_among_server_bots(ann, seats=3, strategy="greedy")
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        assert await asyncio.to_thread(server.stop, signal.SIGHUP) == 0, server.errors()
        assert "1 game in progress kept for the next start" in server.text()
        await wait_for(lambda: ann.bye is not None)  # (told, not dropped)
    finally:
        reading.cancel()
        server.kill()
    again = await server.again()
    try:
        assert "restored 1 table, 1 with a game in progress" in again.head
    finally:
        again.kill()


def test_a_server_started_under_nohup_outlives_the_terminal() -> None:
    """`nohup president server &`: the host asked for SIGHUP to be ignored; the server
    does not take it back (it stops on SIGINT and SIGTERM only)."""
    from president.cli.serve import stopping_signals

    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)  # (the runner's may be nohup's)
    try:
        assert signal.SIGHUP in stopping_signals()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        assert stopping_signals() == [signal.SIGINT, signal.SIGTERM]
    finally:
        signal.signal(signal.SIGHUP, before)

"""A game nobody is connected to (no person in a chair or watching; server bots and people
away do not count) makes no move: bots wait, the timeout rule plays for nobody, the turn
clock keeps its time, and the first person back sets it going.  A table nobody comes back
to is removed after the idle time, its game ending with its record (docs/reliability.md,
"Nobody there, no move")."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from pathlib import Path

import pytest
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.protocol import messages as m
from president.server.app import Server
from president.server.config import ServerConfig
from president.server.table import Table

from ..harness.processes import ServerProcess
from ..harness.servers import (
    FAST,
    bot_key,
    client,
    dialer,
    failing_journal,
    in_play,
    running_server,
    sit_among_server_bots,
)
from ..harness.waiting import wait_for
from .test_hostile_guests import Guest, create, lobby
from .test_table import Member, game_of, table


def moves_made(t: Table) -> int:
    """Actions taken in the game so far (every hand's)."""
    game = game_of(t)
    return sum(len(hand.actions) for hand in game.history)


async def ann_on_her_turn(t: Table) -> tuple[Member, int]:
    """ann sits at `t` beside two random server bots and says ready; back once the bots
    have played round to her turn: she and her seat."""
    ann = Member("ann")
    await t.join(ann, None, None)
    for strategy in ("random", "random"):
        await t.add_bot(strategy, None)
    await t.ready(ann, True)
    game = game_of(t)
    await wait_for(lambda: game.hand >= 0)
    seat = game.seating.index("ann")
    await wait_for(lambda: game.actors == [seat])
    return ann, seat


async def test_server_bots_make_no_move_for_nobody_and_play_on_for_a_watcher() -> None:
    t, records = table(seats=3)
    for strategy in ("random", "greedy", "heuristic"):
        await t.add_bot(strategy, None)
    assert t.status == "playing"  # bots are always ready: the game is on
    await wait_for(lambda: t.driver.unattended_since is not None)
    for _ in range(50):  # (the driver had every chance to move)
        await asyncio.sleep(0)
    assert moves_made(t) == 0 and game_of(t).hand < 0 and records == []
    watcher = Member("watcher")
    await t.spectate(watcher, None)  # someone is here: the game goes on, to its end
    await wait_for(lambda: t.status == "finished", 30)
    assert len(records) == 1 and t.driver.unattended_since is None
    await t.stop()


async def test_the_last_person_gone_stops_the_clock_and_the_first_back_starts_it() -> None:
    """ann alone among server bots drops on her turn: nothing is played for her seat while
    nobody is here, however long (the turn time is 3 s); a watcher comes and her turn
    time runs again from what it had: then the timeout rule plays for her, away."""
    t, _ = table(seats=3, turn_seconds=3)
    ann, seat = await ann_on_her_turn(t)
    game = game_of(t)
    await t.drop(ann)
    await wait_for(lambda: t.driver.unattended_since is not None)
    timer = t.driver.timer
    assert timer.deadline is None and timer.idle_left is not None  # stopped, its time kept
    made = moves_made(t)
    await asyncio.sleep(4.0)  # past her turn time: without the hold, played for her
    assert moves_made(t) == made and game.actors == [seat], "played for nobody"
    await t.spectate(Member("watcher"), None)
    await wait_for(lambda: moves_made(t) > made, 30)  # her time ran out: the timeout rule
    assert t.driver.unattended_since is None
    await t.stop()


async def test_a_table_nobody_comes_back_to_is_removed_with_its_record(tmp_path: Path) -> None:
    """ann drops from a game among server bots and does not come back: after the idle
    time the table is removed (a person away does not keep it), its game's record
    written; her client is told the seat is gone when it tries."""
    config: ServerConfig = replace(
        FAST, data_dir=tmp_path / "data", idle_table_seconds=1.0, grace_seconds=600.0
    )
    async with Server(config) as server:
        ann = await client(server, "ann", tmp_path)
        task = asyncio.create_task(ann.run())
        await sit_among_server_bots(ann, seats=3)
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann), 20)
        tables = server.lobby.tables
        driver = tables["T"].driver
        ann.link.writer.transport.abort()
        await wait_for(lambda: driver.unattended_since is not None, 20)
        assert server.records == []
        await wait_for(lambda: "T" not in tables, 60)  # the sweep: 1 s of nobody
        await wait_for(lambda: len(server.records) == 1)  # what was played is kept
        task.cancel()
        back = await client(server, "ann", tmp_path)
        back.keep = True
        again = asyncio.create_task(back.run())
        assert ann.model.slot is not None and ann.model.token is not None
        await back.send(m.Resume(table="T", seat=ann.model.slot, token=ann.model.token))
        refused = await wait_for(lambda: [x for x in back.received if isinstance(x, m.Error)])
        assert "there is no table called 'T'" in refused[0].message, refused
        again.cancel()


async def test_the_last_watcher_gone_stops_the_clock_of_a_seat_away() -> None:
    """ann drops on her turn while a watcher is there (her turn time runs, as for any
    drop); the watcher leaves: nobody is here, her clock stops at once (it ran on to the
    timeout rule: a spectator's leaving did not wake the table; the hostile pass)."""
    t, _ = table(seats=3, turn_seconds=30)
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    ann, seat = await ann_on_her_turn(t)
    game = game_of(t)
    await t.drop(ann)
    await wait_for(lambda: not t.driver._wake.is_set())  # waiting on her turn's time
    await asyncio.sleep(0.1)
    await t.leave(watcher)
    # the table stops as he goes, with most of her 30 s left (not woken, it stopped only
    # when her time had run out: 30 s on)
    await wait_for(lambda: t.driver.unattended_since is not None, 10)
    left = t.driver.timer.idle_left
    assert left is not None and left > 15.0, left
    assert game.actors == [seat]
    await t.stop()


async def test_no_bot_moves_once_the_last_person_is_gone_during_its_delay() -> None:
    """Bots wait `bot_delay` before a move: a watcher who leaves meanwhile gets no move
    made after going (one was, and a game could end so with nobody there to finish it;
    the hostile pass)."""
    t, _ = table(seats=3, bot_delay=1.0)
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    for strategy in ("random", "random", "random"):
        await t.add_bot(strategy, None)
    game = game_of(t)
    await wait_for(lambda: game.hand >= 0 and game.actors != [])
    await t.leave(watcher)  # (within the bots' delay: a second)
    made = moves_made(t)
    await wait_for(lambda: t.driver.unattended_since is not None)
    await asyncio.sleep(1.5)  # (the delay over: the bot would have moved by now)
    assert moves_made(t) == made, "a bot moved for nobody"
    await t.stop()


@pytest.mark.slow
async def test_the_grace_of_a_seat_away_is_not_spent_while_nobody_is_here() -> None:
    """No turn timer: a seat away is played for once its grace period (5 s here) from
    its drop is over.  ann drops on her turn, then bob; nobody is here for 11 s; bob is
    back: ann still has the grace she had left, not played for at once."""
    t, _ = table(seats=3, grace_seconds=10.0)
    ann, bob = Member("ann"), Member("bob")
    for person in (ann, bob):
        await t.join(person, None, None)
    await t.add_bot("random", None)
    for person in (ann, bob):
        await t.ready(person, True)
    game = game_of(t)
    await wait_for(lambda: game.hand >= 0)
    seat = game.seating.index("ann")
    await wait_for(lambda: game.actors == [seat] or game.actors == [game.seating.index("bob")])
    if game.actors != [seat]:  # bob's turn: bob plays by the timeout rule's move
        await t.act(bob, game.timeout_action(game.seating.index("bob")))
        await wait_for(lambda: game.actors == [seat])
    await t.drop(ann)
    await t.drop(bob)
    await wait_for(lambda: t.driver.unattended_since is not None)
    made = moves_made(t)
    await asyncio.sleep(11.0)  # longer than her grace: spent, she would be played for
    await t.resume(Member("bob"), game.seating.index("bob"), _token(bob))
    await wait_for(lambda: t.driver.unattended_since is None)  # the driver saw him back
    await asyncio.sleep(1.0)  # (spent, her grace would have had her played for at once)
    assert moves_made(t) == made, "ann was played for at once: her grace was spent on nobody"
    await t.stop()


def _token(member: Member) -> bytes:
    """The seat token the table gave `member`."""
    seated = [x for x in member.sent if isinstance(x, m.Seated)]
    return seated[-1].token


async def test_the_sweep_counts_from_the_last_person_gone() -> None:
    """A game that waits for nobody goes after the idle time from when the last person
    went (`Driver.unattended_since`): a visit between two sweeps counts (the sweep once
    counted from the first sweep that saw nobody; the hostile pass)."""
    hall = lobby(idle_table_seconds=60.0)
    ann = Guest("ann", address="10.0.9.1")
    hall.welcome(ann)
    await hall.handle(ann, create("T", seats=3))
    for _ in range(3):
        await hall.handle(ann, m.AddBot(table="T", strategy="random"))
    table = hall.tables["T"]
    driver = table.driver
    await wait_for(lambda: driver.unattended_since is not None)  # nobody at it
    await hall.sweep()
    assert "T" in hall.tables
    driver.unattended_since = driver.clock() - 30.0  # (half the idle time alone)
    await hall.sweep()
    assert "T" in hall.tables
    driver.unattended_since = driver.clock() - 61.0
    await hall.sweep()
    assert "T" not in hall.tables
    await hall.close()


@pytest.mark.slow
async def test_a_journal_pause_while_nobody_is_here_keeps_the_turns_time(
    tmp_path: Path,
) -> None:
    """ann drops on her turn (12 s): nobody is here, her clock stops.  She takes her chair
    back by key while the journal cannot be written (its seats row fails): the table
    pauses for 14 s; when the journal is written again her turn has the time it had (the
    hostile pass: the clock ran through the pause, and the timeout rule played for her
    at once when it ended)."""
    async with running_server(tmp_path, bot_delay=0.0) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        ann.keep = True
        tasks = [asyncio.create_task(ann.run())]
        await sit_among_server_bots(ann, seats=3, turn_seconds=12)
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann) and ann.model.my_turn, 30)
        table = server.lobby.tables["T"]
        table.settings.journal_retry_seconds = 0.05
        driver, game = table.driver, table.game
        assert game is not None
        seat = game.seating.index("ann")
        ann.link.writer.transport.abort()
        await wait_for(lambda: driver.unattended_since is not None)
        made = moves_made(table)
        full = failing_journal(server)
        full(True)
        back = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        tasks.append(asyncio.create_task(back.run()))
        await back.send(m.Join(table="T"))  # her chair back by key: a seats row, refused
        await wait_for(lambda: table.paused)
        await asyncio.sleep(14.0)  # past her turn: a clock running in the pause ran out
        full(False)
        await wait_for(lambda: not table.paused)
        await asyncio.sleep(0.5)  # (run out, her time would have had her played for)
        assert moves_made(table) == made and game.actors == [seat], "her turn's time ran out"
        left = driver.timer.remaining()
        assert left is not None and left > 5.0, left
        for task in tasks:
            task.cancel()


@pytest.mark.slow
async def test_a_restarts_window_waits_while_nobody_is_back(tmp_path: Path) -> None:
    """After a restart the seats have `resume_seconds` (10 s here) to come back; who is
    not is then played for.  Nobody back at all: the window waits too, so bob back
    after it would have run out does not have ann, still away, played for at once (the
    hostile pass: a host's restart at night, everyone back after 2 minutes)."""
    async with running_server(tmp_path, bot_delay=0.0) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        bob = await client(server, "bob", tmp_path, identity=bot_key("bob"))
        for person in (ann, bob):
            person.keep = True
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob)]
        await ann.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=3, turn_seconds=30)
        )
        await wait_for(lambda: "T" in server.lobby.tables)
        for person in (ann, bob):
            await person.send(m.Join(table="T"))
        await ann.send(m.AddBot(table="T", strategy="random"))
        await wait_for(lambda: ann.model.slot is not None and bob.model.slot is not None)
        for person in (ann, bob):
            await person.send(m.Ready())
        game = await wait_for(lambda: server.lobby.tables["T"].game)
        await wait_for(lambda: game.hand >= 0 and len(game.actors) == 1, 30)
        if game.actors != [game.seating.index("ann")]:  # (her turn, played round to)
            await wait_for(lambda: in_play(bob) and bob.model.my_turn, 30)
            await bob.act(RandomBot(random.Random(1)).choose(bob.model.seat_view()))
            await wait_for(lambda: game.actors == [game.seating.index("ann")], 30)
        for task in tasks:
            task.cancel()
    async with running_server(tmp_path, bot_delay=0.0, resume_seconds=10.0) as again:
        table = again.lobby.tables["T"]
        driver, game = table.driver, table.game
        assert game is not None
        seat = game.seating.index("ann")
        await wait_for(lambda: driver.unattended_since is not None)
        made = moves_made(table)
        await asyncio.sleep(11.0)  # nobody back: had the window run, it would be over
        bob = await client(again, "bob", tmp_path, identity=bot_key("bob"))
        task = asyncio.create_task(bob.run())
        await bob.send(m.Join(table="T"))  # his chair back by key
        await wait_for(lambda: driver.unattended_since is None)
        await asyncio.sleep(1.0)  # (over, the window would have had her played for at once)
        assert moves_made(table) == made and game.actors == [seat], "ann was played for at once"
        await wait_for(lambda: moves_made(table) > made, 30)  # the window over: she is
        task.cancel()


@pytest.mark.slow
async def test_a_real_server_process_plays_for_nobody_no_longer(tmp_path: Path) -> None:
    """`president server` as a host runs it: a table of server bots that nobody watches
    waits from its first deal (the log says so, no record is written); someone watching
    and its game is played to the end, its record written."""
    server = await ServerProcess.started(tmp_path / "data", 0, "-v")
    ann = Client(await dialer(server.address, "ann", tmp_path, pin=server.pin)())
    ann.keep = True
    task = asyncio.create_task(ann.run())
    try:
        await ann.send(m.CreateTable(name="B", preset="classic", toggles={"target": 3}, seats=3))
        for _ in range(3):
            await ann.send(m.AddBot(table="B", strategy="random"))
        await wait_for(lambda: "table B: nobody is here" in server.errors(), 30)
        assert "record written" not in server.errors()  # (held: nothing can be played)
        await ann.send(m.Spectate(table="B"))
        await wait_for(lambda: any(isinstance(x, m.GameOver) for x in ann.received), 60)
        await wait_for(lambda: "table B: record written" in server.errors(), 30)
        assert "table B: a person is here; the game goes on" in server.errors()
        assert ann.errors == []
    finally:
        task.cancel()
        server.kill()


async def test_a_table_only_people_away_hold_goes_after_the_idle_time() -> None:
    """A tinkerer's pass: bots killed at tables before their game (or after it) held
    their chairs away for good, and their address's three tables with them; every create
    after was refused.  A table nobody is at, connected or watching, goes after the idle
    time, whoever is away in its chairs; one a person is at stays."""
    hall = lobby(idle_table_seconds=60.0)
    ann, bob = Guest("ann", address="10.0.9.1"), Guest("bob", address="10.0.9.2")
    for guest in (ann, bob):
        hall.welcome(guest)
    await hall.handle(ann, create("T", seats=3))
    await hall.handle(ann, m.Join(table="T"))
    await hall.handle(bob, create("U", seats=3))
    await hall.handle(bob, m.Join(table="U"))
    await hall.disconnect(ann)  # (killed: away in her chair)
    await hall.sweep()
    assert {"T", "U"} <= set(hall.tables)  # (away for less than the idle time)
    for name in ("T", "U"):
        hall._empty_since[name] = hall._empty_since.get(name, 0.0) - 61.0
    await hall.sweep()
    assert "T" not in hall.tables and "U" in hall.tables  # (bob is at U)
    await hall.close()

"""A game nobody is connected to (no person in a chair or watching; server bots and people
away do not count) makes no move: bots wait, the timeout rule plays for nobody, the turn
clock keeps its time, and the first person back sets it going.  A table nobody comes back
to is removed after the idle time, its game ending with its record (docs/reliability.md,
"Nobody there, no move")."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from president.client.connection import Client
from president.protocol import messages as m
from president.server.app import Server
from president.server.config import ServerConfig

from ..harness.processes import ServerProcess
from ..harness.servers import FAST, client, dialer, in_play, sit_among_server_bots
from ..harness.waiting import wait_for
from .test_table import Member, game_of, table


def _moves(t: object) -> int:
    """Actions taken in the game so far (every hand's)."""
    game = game_of(t)  # type: ignore[arg-type]
    return sum(len(hand.actions) for hand in game.history)


async def test_server_bots_make_no_move_for_nobody_and_play_on_for_a_watcher() -> None:
    t, records = table(seats=3)
    for strategy in ("random", "greedy", "heuristic"):
        await t.add_bot(strategy, None)
    assert t.status == "playing"  # bots are always ready: the game is on
    await wait_for(lambda: t.driver.unattended)
    for _ in range(50):  # (the driver had every chance to move)
        await asyncio.sleep(0)
    assert _moves(t) == 0 and game_of(t).hand < 0 and records == []
    watcher = Member("watcher")
    await t.spectate(watcher, None)  # someone is here: the game goes on, to its end
    await wait_for(lambda: t.status == "finished", 30)
    assert len(records) == 1 and not t.driver.unattended
    await t.stop()


async def test_the_last_person_gone_stops_the_clock_and_the_first_back_starts_it() -> None:
    """ann alone among server bots drops on her turn: nothing is played for her seat while
    nobody is here, however long (the turn time is 1 s); a watcher comes and her turn
    time runs again from what it had: then the timeout rule plays for her, away."""
    t, _ = table(seats=3, turn_seconds=1)
    ann = Member("ann")
    await t.join(ann, None, None)
    for strategy in ("random", "random"):
        await t.add_bot(strategy, None)
    await t.ready(ann, True)
    game = game_of(t)
    await wait_for(lambda: game.hand >= 0)
    seat = game.seating.index("ann")
    await wait_for(lambda: game.actors == [seat])  # the bots play round to her
    await t.drop(ann)
    await wait_for(lambda: t.driver.unattended)
    assert t.driver.timer.deadline is None  # the clock stopped with the time it had
    made = _moves(t)
    await asyncio.sleep(2.0)  # twice her turn time: without the hold, played for her
    assert _moves(t) == made and game.actors == [seat], "played for nobody"
    await t.spectate(Member("watcher"), None)
    await wait_for(lambda: _moves(t) > made, 30)  # her time ran out: the timeout rule
    assert not t.driver.unattended
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
        await wait_for(lambda: driver.unattended, 20)
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

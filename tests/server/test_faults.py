"""Flaky networks through the fault proxy (tests/harness/faultproxy.py): delay, one-byte writes,
a stall, a connection cut in the middle of a frame, a reset.  The game goes on (or the
client reconnects and goes on), the server logs no error, and the table stays whole:
its journal rebuilds it exactly and its record replays."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.engine.record import replay, to_record
from president.protocol import messages as m
from president.server.app import Server
from president.server.restore import rebuild

from ..harness.faultproxy import FaultProxy
from ..harness.servers import dialer, in_play, running_server
from ..harness.waiting import wait_for
from .test_durable import same_table

Fault = Callable[[FaultProxy, list[BotPlayer]], Awaitable[None]]


async def through_the_proxy(
    server: Server,
    proxy: FaultProxy,
    tmp_path: Path,
    fault: Fault,
    target: int = 7,
    turn_seconds: int = 5,
) -> list[BotPlayer]:
    """Four bots at table "T", every connection through `proxy`; `fault` is applied once
    the first hand is under way; returns when the game is over."""
    players = []
    follows = []
    for i in range(4):
        # (a connection that hangs in the proxy is given up after 5 s and tried again)
        dial = dialer(f"127.0.0.1:{proxy.port}", f"p{i}", tmp_path, timeout=5)
        c = Client(await dial())
        c.reconnect = dial
        players.append(BotPlayer(c, RandomBot(random.Random(i))))
        follows.append(asyncio.create_task(c.follow(lambda what: None, retry_seconds=0.2)))
    first = players[0].client
    await first.send(
        m.CreateTable(
            name="T",
            preset="classic",
            toggles={"target": target},
            seats=4,
            turn_seconds=turn_seconds,
        )
    )
    for p in players:
        await p.client.send(m.Join(table="T"))
    await wait_for(lambda: all(p.client.model.slot is not None for p in players), 20)
    for p in players:
        await p.client.send(m.Ready())
    await wait_for(lambda: in_play(first), 20)
    await fault(proxy, players)
    await asyncio.wait_for(asyncio.gather(*(p.game_over.wait() for p in players)), 120)
    for task in follows:
        task.cancel()
    return players


async def whole(server: Server) -> None:
    """The table after the faults: its journal rebuilds it and its game replays."""
    table = server.lobby.tables["T"]
    # (the seats may see the game's last event before the table has ended it)
    await wait_for(lambda: table.status == "finished")
    assert table.game is not None
    assert server.journal is not None
    ((_, _, entries),) = [t for t in server.journal.open_tables() if t[1] == "T"]
    same_table(table, rebuild(entries, server.config, server.write_record, time.monotonic))
    result = replay(to_record(table.game))
    assert result.ok and result.to_json()["game_over"]


async def slow_and_bytewise(proxy: FaultProxy, players: list[BotPlayer]) -> None:
    proxy.faults.delay = 0.001
    proxy.faults.piece = 1


async def stall(proxy: FaultProxy, players: list[BotPlayer]) -> None:
    proxy.stall()  # longer than a turn (1 s here): the table's timer plays for the silent seats
    await asyncio.sleep(1.6)
    proxy.flow()


async def cut_mid_frame(proxy: FaultProxy, players: list[BotPlayer]) -> None:
    for _ in range(3):
        proxy.faults.cut = True
        await wait_for(lambda: not proxy.faults.cut, 20)
        await wait_for(lambda: proxy.connections == 4, 20)  # the client came back


async def reset(proxy: FaultProxy, players: list[BotPlayer]) -> None:
    for _ in range(3):
        await asyncio.sleep(0.3)
        proxy.reset()
        await wait_for(lambda: proxy.connections == 4, 20)


@pytest.mark.parametrize(
    "fault",
    [
        # (the byte-at-a-time game and the cut mid-frame, 7.7 s, are the longest: the
        # acceptance tier's, so that the developer's stays under 2 minutes on 2 cores)
        pytest.param(slow_and_bytewise, marks=pytest.mark.slow),
        stall,
        pytest.param(cut_mid_frame, marks=pytest.mark.slow),
        reset,
    ],
    ids=lambda f: f.__name__,
)
async def test_the_game_goes_on_through_a_flaky_network(
    fault: Fault, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="president.server")
    async with running_server(tmp_path, bot_delay=0.0) as server, FaultProxy(server.port) as proxy:
        # a longer game where the faults come again and again, so it is not over before them
        target = {slow_and_bytewise: 3, stall: 5}.get(fault, 10)
        players = await through_the_proxy(
            server, proxy, tmp_path, fault, target, turn_seconds=1 if fault is stall else 5
        )
        await whole(server)
        if fault is cut_mid_frame:
            assert proxy.cuts == 3
        assert all(p.games == 1 for p in players)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]

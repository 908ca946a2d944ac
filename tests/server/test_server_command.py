"""`president server` as a host runs it: a real process, a real signal, a written record."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path

import pytest
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.protocol import messages as m

from ..harness.processes import ServerProcess, president
from ..harness.records import replayed
from ..harness.servers import bot_key, deals_check_out, dialer, sit_among_server_bots
from ..harness.waiting import wait_for

pytestmark = pytest.mark.slow


async def a_game_among_two_bots(ann: Client, toggles: dict[str, object]) -> None:
    """ann makes table T (the preset `table`), sits there with two random server bots and
    plays (as a random bot) its game to the end."""
    bot = BotPlayer(ann, RandomBot(random.Random(5)))
    await sit_among_server_bots(ann, seats=3, toggles=toggles, preset="table")
    await ann.send(m.Ready())
    await wait_for(bot.game_over.is_set, 60)


async def test_the_server_command_plays_a_game_and_stops_on_sigterm(tmp_path: Path) -> None:
    server = await ServerProcess.started(tmp_path / "data", 0, "--name", "kitchen")
    try:
        assert (tmp_path / "data" / "cert.pem").exists()
        link = await dialer(server.address, "ann", tmp_path, pin=server.pin)()
        assert link.server == "kitchen" and link.fingerprint == server.pin
        ann = Client(link)
        task = asyncio.create_task(ann.run())
        await a_game_among_two_bots(ann, {})
        assert deals_check_out(ann.model.deal_results), ann.model.deal_results
        assert server.stop(signal.SIGTERM) == 0, server.errors()
        assert "1 game record written" in server.text()
        task.cancel()
    finally:
        server.kill()
    records = list((tmp_path / "data" / "records").glob("*.json"))
    assert len(records) == 1
    summary = replayed(records[0])
    assert summary["ok"] and summary["game_over"] is True


async def test_a_host_keeps_the_records_to_the_server_with_private_records(
    tmp_path: Path,
) -> None:
    """`president server --private-records`: said at the start, and a game's player who
    asks for its record once it has ended is told why not (protocol 17; without it the
    players have it: tests/test_restarts.py, `v` through `president connect`)."""
    server = await ServerProcess.started(tmp_path / "data", 0, "--private-records")
    try:
        assert "game records kept to this machine (--private-records)" in server.head
        link = await dialer(
            server.address, "ann", tmp_path, pin=server.pin, identity=bot_key("ann")
        )()
        ann = Client(link)
        task = asyncio.create_task(ann.run())
        await a_game_among_two_bots(ann, {"target": 1})
        heard = ann.errors_heard
        await ann.send(m.RecordAsk(table="T"))
        await wait_for(lambda: ann.errors_heard > heard)
        assert "keeps its game records to itself (--private-records)" in ann.errors[-1].message
        assert ann.game_record is None
        task.cancel()
    finally:
        server.kill()


async def test_the_server_command_refuses_a_busy_port(tmp_path: Path) -> None:
    blocker = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = blocker.sockets[0].getsockname()[1]
    try:
        args = ("server", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path))
        out = await asyncio.to_thread(president, *args, timeout=30)
        assert out.returncode == 2 and "cannot listen" in out.stderr, out
        assert "Traceback" not in out.stderr
    finally:
        blocker.close()


async def test_ctrl_c_keeps_the_game_when_the_output_pipe_is_gone(tmp_path: Path) -> None:
    """`president server | tee log` and Ctrl-C: the terminal's SIGINT ends `tee` too, so
    the server's "shutting down" line meets a closed pipe.  That used to end the game in
    progress (a record of one hand, an `end` row) instead of keeping it for the next start."""
    data = tmp_path / "data"
    server = ServerProcess(data, 0, "--grace-seconds", "90", stdout_apart=True)
    ann = Client(await dialer(server.address, "ann", tmp_path, pin=server.pin)())
    reader = asyncio.create_task(ann.run())
    try:
        await sit_among_server_bots(ann, seats=3)
        await ann.send(m.Ready())
        await wait_for(lambda: ann.model.view is not None and ann.model.view.status == "playing")
    finally:
        reader.cancel()
        await ann.link.close()
    assert server.proc.stdout is not None
    server.proc.stdout.close()  # the reading end of the pipe is gone, as `tee` is
    assert server.stop(signal.SIGINT) == 0
    assert not list((data / "records").iterdir())  # no game was ended
    again = await server.again()
    try:
        assert "1 with a game in progress" in again.head, again.head
        # the wait after a restart and the host's own grace, each said as what it is (a
        # host who set 90 read "players have 120 s to reconnect" as the grace)
        assert "the game waits 120 s for its players to reconnect" in again.head, again.head
        assert "after the grace (90 s)" in again.head, again.head
    finally:
        again.stop()


@pytest.mark.slow
async def test_a_restart_with_no_game_on_asks_nobody_to_reconnect(tmp_path: Path) -> None:
    """A host pass: a server whose only table had no game on, started again, said
    "restored 1 table, none with a game in progress: players have 120 s to reconnect",
    where nothing waits for anyone."""
    from ..harness.servers import make_table

    server = await ServerProcess.started(tmp_path / "data")
    try:
        await make_table(server.address, server.pin, tmp_path)
    finally:
        assert server.stop(signal.SIGINT) == 0
    again = await server.again()
    try:
        assert "restored 1 table, none with a game in progress\n" in again.head, again.head
        assert "to reconnect" not in again.head
    finally:
        again.stop()

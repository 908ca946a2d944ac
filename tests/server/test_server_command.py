"""`president server` as a host runs it: a real process, a real signal, a written record."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

from president.bots.strategies import RandomBot
from president.client.connection import Client, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m

from .helpers import server_process, sit_among_server_bots, wait_for


async def test_the_server_command_plays_a_game_and_stops_on_sigterm(tmp_path: Path) -> None:
    proc, port, printed, _ = await asyncio.to_thread(
        server_process, tmp_path / "data", 0, "--name", "kitchen"
    )
    try:
        assert (tmp_path / "data" / "cert.pem").exists()
        link = await connect(
            f"127.0.0.1:{port}", "ann", pin=printed, known=KnownServers(tmp_path / "k")
        )
        assert link.server == "kitchen" and link.fingerprint == printed
        ann = Client(link)
        task = asyncio.create_task(ann.run())
        bot = BotPlayer(ann, RandomBot(__import__("random").Random(5)))
        await ann.send(m.CreateTable(name="Friday", preset="table", toggles={}, seats=3))
        await ann.send(m.Join(table="Friday"))
        await wait_for(lambda: ann.model.slot is not None)
        for _ in range(2):
            await ann.send(m.AddBot(table="Friday", strategy="random"))
        await ann.send(m.Ready())
        await asyncio.wait_for(bot.game_over.wait(), 60)
        assert all(result is None for result in ann.model.deal_results.values())
        proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.to_thread(proc.communicate, timeout=15)
        assert proc.returncode == 0, err
        assert "1 game record(s) written" in out
        task.cancel()
    finally:
        if proc.poll() is None:
            proc.kill()
    records = list((tmp_path / "data" / "records").glob("*.json"))
    assert len(records) == 1
    replayed = subprocess.run(
        [sys.executable, "-m", "president.cli", "replay", "--json", str(records[0])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["game_over"] is True


async def test_the_server_command_refuses_a_busy_port(tmp_path: Path) -> None:
    blocker = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = blocker.sockets[0].getsockname()[1]
    try:
        out = await asyncio.to_thread(
            subprocess.run,
            [
                sys.executable,
                "-m",
                "president.cli",
                "server",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--data",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert (
            out.returncode == 2 and "cannot listen" in out.stderr and "Traceback" not in out.stderr
        )
    finally:
        blocker.close()


async def test_ctrl_c_keeps_the_game_when_the_output_pipe_is_gone(tmp_path: Path) -> None:
    """`president server | tee log` and Ctrl-C: the terminal's SIGINT ends `tee` too, so
    the server's "shutting down" line meets a closed pipe.  That used to end the game in
    progress (a record of one hand, an `end` row) instead of keeping it for the next start."""
    data = tmp_path / "data"
    proc, port, pin, _ = await asyncio.to_thread(server_process, data)
    ann = Client(
        await connect(f"127.0.0.1:{port}", "ann", pin=pin, known=KnownServers(tmp_path / "k"))
    )
    reader = asyncio.create_task(ann.run())
    try:
        await sit_among_server_bots(ann, seats=3)
        await ann.send(m.Ready())
        await wait_for(lambda: ann.model.view is not None and ann.model.view.status == "playing")
    finally:
        reader.cancel()
        await ann.link.close()
    assert proc.stdout is not None
    proc.stdout.close()  # the reading end of the pipe is gone, as `tee` is
    proc.send_signal(signal.SIGINT)
    assert await asyncio.to_thread(proc.wait, 20) == 0
    assert not list((data / "records").iterdir())  # no game was ended
    again, _, _, head = await asyncio.to_thread(server_process, data)
    try:
        assert "1 with a game in progress" in head, head
    finally:
        again.send_signal(signal.SIGINT)
        await asyncio.to_thread(again.wait, 20)

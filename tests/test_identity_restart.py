"""What issue 15 promises of player keys, with real processes: a `president bot` that is
SIGKILLed mid-game and started again with the same key (its state directory) takes its
chair back without a seat token, in the same game, and plays its own moves again; a process with another
key cannot use that name (one line, exit 2); keys are made 0600 where the docs say."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

from president.client.connection import Client, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m

from .server.helpers import server_process, wait_for
from .test_restarts import Output


async def test_a_killed_bot_restarted_with_its_key_is_back_in_its_chair(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc, port, pin, _ = await asyncio.to_thread(server_process, data)
    address = f"127.0.0.1:{port}"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    command = [sys.executable, "-m", "president.cli", "bot", address, "--fingerprint", pin]
    table = ("--table", "T", "--seats", "4", "--turn-seconds", "60", "--give-up", "30")
    processes: list[subprocess.Popen[str]] = []

    def bot(*extra: str) -> tuple[subprocess.Popen[str], Output]:
        process = subprocess.Popen(
            [*command, *table, *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        processes.append(process)
        return process, Output(process)

    watcher: Client | None = None
    try:
        ann, ann_said = bot("--name", "ann", "--strategy", "greedy", "--delay", "0.05")
        await ann_said.wait_for("ann: seated at T, seat 0")
        key = tmp_path / "state" / "president" / "bots" / "ann.key"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
        bot("--name", "b", "--count", "3", "--strategy", "random", "--delay", "0.05")
        watcher = Client(
            await connect(address, "watcher", pin=pin, known=KnownServers(tmp_path / "known"))
        )
        watcher.keep = True
        watching = asyncio.create_task(watcher.run())
        await watcher.send(m.Spectate(table="T"))

        def view() -> m.TableView | None:
            views = [x for x in watcher.received if isinstance(x, m.TableView)]  # type: ignore[union-attr]
            return views[-1] if views else None

        def playing() -> bool:
            v = view()
            return v is not None and v.status == "playing" and v.game is not None

        await wait_for(playing, 30)
        ann.send_signal(signal.SIGKILL)  # mid-game: no leave, no goodbye
        ann.wait(10)
        await wait_for(lambda: (v := view()) is not None and not v.chairs[0].connected, 20)
        current = view()
        assert current is not None and current.status == "playing", current
        assert current.chairs[0].name == "ann"

        # another key cannot use the name
        stranger = subprocess.run(
            [*command, *table, "--name", "ann", "--identity", str(tmp_path / "stranger.key")],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert stranger.returncode == 2, stranger
        assert stranger.stderr.count("\n") == 1 and "Traceback" not in stranger.stderr
        assert "the name ann belongs to another player on this server" in stranger.stderr

        # the same key (the same state directory): back in chair 0, in the same game
        again, again_said = bot("--name", "ann", "--strategy", "greedy")
        await again_said.wait_for("ann: seated at T, seat 0")
        await wait_for(lambda: (v := view()) is not None and v.chairs[0].connected, 20)
        still = view()
        assert still is not None and still.status == "playing"  # not a new game: the same
        assert still.game is not None and still.game.hand >= current.game.hand  # type: ignore[union-attr]
        seat = still.game.seating.index("ann")
        since = len(watcher.received)

        def ann_moved() -> bool:
            return any(
                isinstance(x, (m.Played, m.Passed)) and x.seat == seat and not x.timeout
                for x in watcher.received[since:]  # type: ignore[union-attr]
            )

        await wait_for(ann_moved, 60)  # her own move, not the timeout rule's
        assert again.poll() is None and not [
            line for line in again_said.lines if "ann:" in line and "seated" not in line
        ], again_said.lines
        watching.cancel()
    finally:
        if watcher is not None:
            await watcher.link.close()
        for process in (proc, *processes):
            if process.poll() is None:
                process.kill()
                process.wait(10)

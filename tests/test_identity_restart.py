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


async def test_a_killed_terminal_client_restarted_is_back_in_its_seat(tmp_path: Path) -> None:
    """The issue's own words: a player restarts the terminal client mid-game and is back
    in the seat (the key in ~/.config/president/identity, made on first use); a terminal
    client with another key is refused the name, in one line."""
    from .terminal import Terminal
    from .test_restarts import BOTS, TURN, play_as_a_person

    data = tmp_path / "data"
    proc, port, pin, _ = await asyncio.to_thread(server_process, data)
    address = f"127.0.0.1:{port}"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    command = [sys.executable, "-m", "president.cli"]
    host = await connect(address, "host", pin=pin, known=KnownServers(tmp_path / "known"))
    await host.send(
        m.CreateTable(name="T", preset="classic", toggles={"target": 3}, seats=4, turn_seconds=0)
    )
    answer = await asyncio.wait_for(host.receive(), 10)
    while answer is not None and not isinstance(answer, m.TableChanged):
        answer = await asyncio.wait_for(host.receive(), 10)
    await host.close()
    ann_command = [*command, "connect", address, "--name", "ann", "--fingerprint", pin]
    ann = Terminal(ann_command, env)
    terminals = [ann]
    bots: subprocess.Popen[str] | None = None
    stop = asyncio.Event()
    try:
        await asyncio.to_thread(ann.wait_for, "0/4 waiting")
        key = tmp_path / "config" / "president" / "identity"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        ann.send("\r")
        await asyncio.to_thread(ann.wait_for, "r = ready")
        bots = subprocess.Popen(
            [*command, "bot", address, "--fingerprint", pin, *BOTS],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        said = Output(bots)
        await said.wait_for("seated at T", 3)
        ann.send("r")
        await asyncio.to_thread(ann.wait_for, TURN, 30)  # mid-game, the table waits on ann
        ann.proc.send_signal(signal.SIGKILL)
        ann.close()

        stranger = Terminal([*ann_command, "--identity", str(tmp_path / "other.key")], env)
        terminals.append(stranger)
        assert await asyncio.to_thread(stranger.proc.wait, 30) == 2
        shown = " ".join(stranger.text().split())
        assert "the name ann belongs to another player on this server" in shown, shown

        again = Terminal(ann_command, env)
        terminals.append(again)
        await asyncio.to_thread(again.wait_for, "4/4 playing")
        again.send("\r")  # her table: back in her seat, by key
        await asyncio.to_thread(again.wait_for, TURN, 30)
        person = asyncio.create_task(play_as_a_person(again, stop))
        code = await asyncio.to_thread(bots.wait, 90)
        stop.set()
        await person
        assert code == 0, "".join(said.lines)
        assert said.count("game 1 over") == 3, "".join(said.lines)
        assert len(list((data / "records").glob("*.json"))) == 1  # the one game, to its end
    finally:
        stop.set()
        for terminal in terminals:
            terminal.close()
        for process in (proc, bots):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(10)


def test_a_key_file_that_cannot_be_used_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Like ssh with a loose private key: the command says which file and the chmod."""
    loose = tmp_path / "loose.key"
    loose.write_text("whatever\n")
    loose.chmod(0o644)
    fingerprint = ":".join(["AB"] * 32)
    base = [sys.executable, "-m", "president.cli", "bot", "127.0.0.1:9", "--fingerprint"]
    for extra, words in (
        (
            ["--identity", str(loose)],
            f"open to other users (mode 644): it is not used; chmod 600 {loose}",
        ),
        (["--identity", str(loose), "--count", "2"], "--identity is one bot's key"),
    ):
        done = subprocess.run(
            [*base, fingerprint, *extra], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done
        assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr

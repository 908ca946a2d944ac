"""What issue 15 promises of player keys, with real processes: a `president bot` that is
SIGKILLed mid-game and started again with the same key (its state directory) takes its
chair back without a seat token, in the same game, and plays its own moves again; a process with another
key cannot use that name (one line, exit 2); keys are made 0600 where the docs say."""

from __future__ import annotations

import asyncio
import signal
import stat
from pathlib import Path

import pytest
from president.client.connection import Client
from president.protocol import messages as m

from .harness.processes import (
    Process,
    ServerProcess,
    bot_process,
    environment,
    president,
    stop,
)
from .harness.servers import dialer, make_table
from .harness.terminal import Terminal
from .harness.waiting import wait_for
from .test_restarts import BOTS, TURN, connect_command, play_as_a_person

pytestmark = pytest.mark.slow


async def test_a_killed_bot_restarted_with_its_key_is_back_in_its_chair(tmp_path: Path) -> None:
    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    table = ("--table", "T", "--seats", "4", "--turn-seconds", "60", "--give-up", "30")
    processes: list[Process] = []

    def bot(*extra: str) -> Process:
        process = bot_process(server, env, *table, *extra)
        processes.append(process)
        return process

    watcher: Client | None = None
    try:
        ann = bot("--name", "ann", "--strategy", "greedy", "--delay", "0.05")
        await ann.said("ann: seated at T, seat 1")
        key = tmp_path / "state" / "president" / "bots" / "ann.key"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
        bot("--name", "b", "--count", "3", "--strategy", "random", "--delay", "0.05")
        watcher = Client(await dialer(server.address, "watcher", tmp_path, pin=server.pin)())
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
        ann.stop(signal.SIGKILL)  # mid-game: no leave, no goodbye
        await wait_for(lambda: (v := view()) is not None and not v.chairs[0].connected, 20)
        current = view()
        assert current is not None and current.status == "playing", current
        assert current.chairs[0].name == "ann"

        # another key cannot use the name
        stranger = await asyncio.to_thread(
            president,
            *("bot", server.address, "--fingerprint", server.pin, *table, "--name", "ann"),
            *("--identity", str(tmp_path / "stranger.key")),
            env=env,
        )
        assert stranger.returncode == 2, stranger
        assert stranger.stderr.count("\n") == 1 and "Traceback" not in stranger.stderr
        assert "the name ann belongs to another player on this server" in stranger.stderr

        # the same key (the same state directory): back in chair 0, in the same game
        again = bot("--name", "ann", "--strategy", "greedy")
        # (said as a return, not a fresh start: a tinkerer's pass)
        await again.said("ann: seated at T, seat 1: back at its seat, a game under way there")
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
        assert again.proc.poll() is None and not [
            line for line in again.lines() if "ann:" in line and "seated" not in line
        ], again.text()
        watching.cancel()
    finally:
        if watcher is not None:
            await watcher.link.close()
        stop(server, *processes)


async def test_a_killed_terminal_client_restarted_is_back_in_its_seat(tmp_path: Path) -> None:
    """The issue's own words: a player restarts the terminal client mid-game and is back
    in the seat (the key in ~/.config/president/identity, made on first use); a terminal
    client with another key is refused the name, in one line."""
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    env = environment(tmp_path)
    # a game of one hand (to 1 point): killed mid-hand, she is back in it and it ends
    await make_table(server.address, server.pin, tmp_path, toggles={"target": 1})
    ann_command = connect_command(server)
    ann = Terminal(ann_command, env)
    terminals = [ann]
    bots: Process | None = None
    halt = asyncio.Event()
    try:
        await ann.shows("0/4 waiting")
        key = tmp_path / "config" / "president" / "identity"
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        ann.send("\r")
        await ann.shows("r = ready")
        bots = bot_process(server, env, *BOTS, merge_stderr=True)
        await bots.said("seated at T", 3)
        ann.send("r")
        await ann.shows(TURN, 30)  # mid-game, the table waits on ann
        ann.proc.send_signal(signal.SIGKILL)
        ann.close()

        stranger = Terminal([*ann_command, "--identity", str(tmp_path / "other.key")], env)
        terminals.append(stranger)
        assert await stranger.exits(30) == 2
        shown = " ".join(stranger.text().split())
        assert "the name ann belongs to another player on this server" in shown, shown

        again = Terminal(ann_command, env)
        terminals.append(again)
        await again.shows("4/4 playing")
        again.send("\r")  # her table: back in her seat, by key
        await again.shows(TURN, 30)
        person = asyncio.create_task(play_as_a_person(again, halt))
        code = await bots.exits(90)
        halt.set()
        await person
        assert code == 0, bots.text()
        assert bots.count("game 1 over") == 3, bots.text()
        assert len(list((data / "records").glob("*.json"))) == 1  # the one game, to its end
    finally:
        halt.set()
        for terminal in terminals:
            terminal.close()
        stop(server, bots)


def test_a_key_file_that_cannot_be_used_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Like ssh with a loose private key: the command says which file and the chmod."""
    loose = tmp_path / "loose.key"
    loose.write_text("whatever\n")
    loose.chmod(0o644)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    fingerprint = ":".join(["AB"] * 32)
    base = ["bot", "127.0.0.1:9", "--fingerprint"]
    for extra, words in (
        (
            ["--identity", str(loose)],
            f"open to other users (mode 644): it is not used; chmod 600 {loose}",
        ),
        (["--identity", str(loose), "--count", "2"], "--identity is one bot's key"),
        (  # (a folder others may write in: they could delete the key)
            ["--identity", str(shared / "id")],
            f"{shared} is writable by other users (mode 777), so they could delete it",
        ),
    ):
        done = president(*base, fingerprint, *extra, env=environment(tmp_path))
        assert done.returncode == 2, done
        assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr

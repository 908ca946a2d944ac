"""What the README promises about stops, with real processes: a `president server` stopped
with Ctrl-C (SIGINT) or killed (SIGKILL) and started again on the same data comes back
with its game, and every client kind — the terminal client in a pseudo-terminal and
`president bot` processes — reconnects, takes its seat back by itself, and plays the
game to its end."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import TextIO

from president.client.connection import connect
from president.client.pinning import KnownServers
from president.protocol import messages as m

from .server.helpers import server_process
from .terminal import Terminal


class Output:
    """A process's output lines, read as they come (by a thread)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stdout is not None
        threading.Thread(target=self._read, args=(proc.stdout,), daemon=True).start()

    def _read(self, stream: TextIO) -> None:
        for line in stream:
            self.lines.append(line)

    def count(self, words: str, since: int = 0) -> int:
        return sum(words in line for line in self.lines[since:])

    async def wait_for(
        self, words: str, times: int = 1, since: int = 0, timeout: float = 20
    ) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.count(words, since) < times:
            assert loop.time() < end, f"never {times} × {words!r}:\n" + "".join(self.lines)
            await asyncio.sleep(0.05)


async def play_as_a_person(ann: Terminal, stop: asyncio.Event) -> None:
    """Ann at the keyboard: on her turn the suggested play and enter, and a pass if it is
    still her turn (nothing beats the pile)."""
    while not stop.is_set():
        if TURN in ann.text():
            ann.send("s\r")
            await asyncio.sleep(0.15)
            if TURN in ann.text():
                ann.send("p")
        await asyncio.sleep(0.05)


#: What ann's screen shows when the table waits on her (a turn or a return she owes).
TURN = "▶ ann (you)"


async def ann_turn(ann: Terminal) -> None:
    await asyncio.to_thread(ann.wait_for, TURN, 30)


#: Three bots at table T for one game, reconnecting for up to a minute.
BOTS = ("--table", "T", "--count", "3", "--strategy", "random", "--games", "1", "--give-up", "60")


async def test_after_ctrl_c_and_after_kill_every_client_comes_back_and_the_game_ends(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    proc, port, pin, _ = await asyncio.to_thread(server_process, data)
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = [sys.executable, "-m", "president.cli"]
    # the table: a short game (to 3 points), no turn timer (the table waits for ann)
    host = await connect(address, "host", pin=pin, known=KnownServers(tmp_path / "known"))
    await host.send(
        m.CreateTable(name="T", preset="classic", toggles={"target": 3}, seats=4, turn_seconds=0)
    )
    answer = await asyncio.wait_for(host.receive(), 10)
    while answer is not None and not isinstance(answer, m.TableChanged):  # the lobby's news
        answer = await asyncio.wait_for(host.receive(), 10)
    assert isinstance(answer, m.TableChanged) and answer.info.name == "T", answer
    await host.close()
    ann = Terminal([*command, "connect", address, "--name", "ann", "--fingerprint", pin], env)
    bots: subprocess.Popen[str] | None = None
    stop = asyncio.Event()
    person: asyncio.Task[None] | None = None
    try:
        await asyncio.to_thread(ann.wait_for, "0/4 waiting")
        ann.send("\r")  # sit down at the table the cursor is on
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
        await ann_turn(ann)  # bots answer at once: the table now waits on ann

        # Ctrl-C: the server says goodbye and keeps the game
        proc.send_signal(signal.SIGINT)
        out, err = await asyncio.to_thread(proc.communicate, timeout=30)
        assert proc.returncode == 0 and "1 game(s) in progress kept" in out, out + err
        await asyncio.to_thread(ann.wait_for, "server restarting — reconnecting (attempt")
        await said.wait_for("server restarting — reconnecting (attempt", 3)
        assert bots.poll() is None, "".join(said.lines)
        mark = len(said.lines)
        proc, again, _, head = await asyncio.to_thread(server_process, data, port)
        assert again == port and "1 with a game in progress" in head
        await said.wait_for(": reconnected", 3, since=mark)
        await asyncio.to_thread(ann.wait_for, "reconnected to your seat")
        await ann_turn(ann)  # back in her seat, on the turn she had

        # play on into the second hand (the game needs two at least), SIGKILL on ann's turn
        person = asyncio.create_task(play_as_a_person(ann, stop))
        await asyncio.to_thread(ann.wait_for, "hand 2 ", 30)
        stop.set()
        await person
        await ann_turn(ann)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        await asyncio.to_thread(ann.wait_for, "connection lost — reconnecting (attempt")
        mark = len(said.lines)
        proc, *_ = await asyncio.to_thread(server_process, data, port)
        await said.wait_for(": reconnected", 3, since=mark)
        await asyncio.to_thread(ann.wait_for, "[connected]")

        # and the game goes on to its end: the bots played their one game and exit 0
        stop.clear()
        person = asyncio.create_task(play_as_a_person(ann, stop))
        code = await asyncio.to_thread(bots.wait, 60)
        assert code == 0, "".join(said.lines)
        assert said.count("game 1 over") == 3, "".join(said.lines)
        await asyncio.to_thread(ann.wait_for, "game over")
        proc.send_signal(signal.SIGINT)
        out, err = await asyncio.to_thread(proc.communicate, timeout=30)
        assert "1 game record(s) written" in out, out + err
    finally:
        stop.set()
        if person is not None:
            await person
        ann.close()
        for process in (proc, bots):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(10)


async def test_a_seat_that_is_gone_or_a_changed_certificate_ends_in_a_clear_state(
    tmp_path: Path,
) -> None:
    """Started again without its tables, the server refuses the resume: the terminal
    client is back in the lobby saying so, the bot exits 1 with one line.  A server on
    the same port with another certificate is refused at every attempt, and a bot gives
    up after --give-up seconds, with one line."""
    data = tmp_path / "data"
    proc, port, pin, _ = await asyncio.to_thread(server_process, data)
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = [sys.executable, "-m", "president.cli"]
    ann = Terminal([*command, "connect", address, "--name", "ann", "--fingerprint", pin], env)
    bots: list[subprocess.Popen[str]] = []

    def bot(table: str, give_up: str) -> tuple[subprocess.Popen[str], Output]:
        process = subprocess.Popen(
            [
                *command,
                *("bot", address, "--fingerprint", pin, "--table", table, "--seats", "3"),
                *("--give-up", give_up, "--name", f"bot-{table}"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        bots.append(process)
        return process, Output(process)

    try:
        first, said = bot("T", "60")
        await said.wait_for("seated at T")
        await asyncio.to_thread(ann.wait_for, "1/3 waiting")
        ann.send("\r")
        await asyncio.to_thread(ann.wait_for, "r = ready")

        # the server comes back without its tables (same data dir, same certificate)
        proc.kill()
        proc.wait(10)
        for journal in data.glob("tables.sqlite3*"):
            journal.unlink()
        proc, *_ = await asyncio.to_thread(server_process, data, port)
        assert await asyncio.to_thread(first.wait, 20) == 1
        assert first.stderr is not None
        err = first.stderr.read()
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "bot-T: the server did not give the seat back: there is no table called" in err
        await asyncio.to_thread(ann.wait_for, "your seat is gone: there is no table called")

        # a server with another certificate on the same port
        second, said = bot("U", "3")
        await said.wait_for("seated at U")
        proc.kill()
        proc.wait(10)
        proc, *_ = await asyncio.to_thread(server_process, tmp_path / "other", port)
        assert await asyncio.to_thread(second.wait, 30) == 1
        assert second.stderr is not None
        err = second.stderr.read()
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "bot-U: gave up reconnecting after 3 s" in err and pin in err, err
        assert said.count("refused: the server shows a certificate that is not the pinned one")
        await asyncio.to_thread(ann.wait_for, "refused: the server shows a certificate")
    finally:
        ann.close()
        for process in (proc, *bots):
            if process.poll() is None:
                process.kill()
                process.wait(10)

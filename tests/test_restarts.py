"""What the README promises about stops, with real processes: a `president server` stopped
with Ctrl-C (SIGINT) or killed (SIGKILL) and started again on the same data comes back
with its game, and every client kind — the terminal client in a pseudo-terminal and
`president bot` processes — reconnects, takes its seat back by itself, and plays the
game to its end."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from .harness.processes import PRESIDENT, Process, ServerProcess, bot_process, environment, stop
from .harness.servers import make_table
from .harness.terminal import Terminal

pytestmark = pytest.mark.slow

#: What ann's screen shows when the table waits on her (a turn or a return she owes).
TURN = "▶ ann (you)"


async def play_as_a_person(ann: Terminal, stop: asyncio.Event) -> None:
    """Ann at the keyboard: on her turn the suggested play and enter, and a pass if it is
    still her turn (nothing beats the pile)."""
    while not stop.is_set():
        if TURN in ann.text():
            ann.send("s\r")
            await ann.settled(0.15)
            if TURN in ann.text():
                ann.send("p")
        await ann.settled(0.05)


#: Three bots at table T for one game, reconnecting for up to a minute.
BOTS = ("--table", "T", "--count", "3", "--strategy", "random", "--games", "1", "--give-up", "60")


#: The terminal's title and bell as a turn of hers comes (`--bell`; README: "`connect` has
#: it too"), for a player reading another window.
TITLE_AND_BELL = "\x1b]2;president: your turn\x07\x07"


def connect_command(server: ServerProcess, name: str = "ann", *more: str) -> list[str]:
    """`president connect` to `server` as `name`, its certificate pinned."""
    pinned = ["--name", name, "--fingerprint", server.pin]
    return [*PRESIDENT, "connect", server.address, *pinned, *more]


async def test_after_ctrl_c_and_after_kill_every_client_comes_back_and_the_game_ends(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    env = environment(tmp_path)
    # the table: a short game (to 3 points), no turn timer (the table waits for ann)
    await make_table(server.address, server.pin, tmp_path, toggles={"target": 3})
    ann = Terminal(connect_command(server, "ann", "--bell"), env)
    sam: Terminal | None = None  # watching
    bots: Process | None = None
    halt = asyncio.Event()
    person: asyncio.Task[None] | None = None
    try:
        await ann.shows("0/4 waiting")
        ann.send("\r")  # sit down at the table the cursor is on
        await ann.shows("r = ready")
        bots = bot_process(server, env, *BOTS, merge_stderr=True)
        await bots.said("seated at T", 3)
        ann.send("r")
        await ann.shows(TURN, 30)  # bots answer at once: the table now waits on ann
        assert ann.output().count(TITLE_AND_BELL) == 1
        sam = Terminal(connect_command(server, "sam"), environment(tmp_path / "sam"))
        await sam.shows("4/4 playing")
        sam.send("w")  # sam watches
        await sam.shows("hand 1 ")

        # Ctrl-C: the server says goodbye and keeps the game
        assert server.stop(signal.SIGINT) == 0, server.errors()
        assert "1 game in progress kept" in server.text(), server.text()
        await ann.shows("server restarting — reconnecting (attempt")
        await bots.said("server restarting — reconnecting (attempt", 3)
        mark = len(bots.lines())
        server = await server.again()
        assert "1 with a game in progress" in server.head
        await bots.said(": reconnected", 3, since=mark)
        await ann.shows("reconnected to your seat")
        await ann.shows(TURN, 30)  # back in her seat, on the turn she had
        assert ann.output().count(TITLE_AND_BELL) == 1  # (the same turn: not rung again)
        await sam.shows("reconnected: watching")  # (watchers stayed on a frozen table)

        # play on into the second hand (the game needs two at least), SIGKILL on ann's turn
        person = asyncio.create_task(play_as_a_person(ann, halt))
        await ann.shows("hand 2 ", 30)
        assert ann.output().count(TITLE_AND_BELL) > 1  # (each turn of hers rings)
        halt.set()
        await person
        await ann.shows(TURN, 30)
        server.stop(signal.SIGKILL)
        await ann.shows("connection lost — reconnecting (attempt")
        mark = len(bots.lines())
        server = await server.again()
        await bots.said(": reconnected", 3, since=mark)
        await ann.shows("[connected]")

        # and the game goes on to its end: the bots played their one game and exit 0
        halt.clear()
        person = asyncio.create_task(play_as_a_person(ann, halt))
        assert await bots.exits(60) == 0, bots.text()
        assert bots.count("game 1 over") == 3, bots.text()
        await ann.shows("game over")
        await sam.shows("game over")  # sam watched on through both stops
        # (README: `v` at a game over reviews it, the record sent by the server; the
        # standings' title says so, as `president play`'s does)
        await ann.shows("final standings (esc shows the table, v its review)")
        ann.send("v")
        await ann.shows("review of ann", 60)
        # and from the lobby, once she has left the table (the record kept opens again)
        ann.send("q")
        await ann.shows("v: its review")
        ann.send("q")
        await ann.shows("v: the review of your game at")
        ann.send("v")
        await ann.shows("review of ann")
        assert server.stop(signal.SIGINT) == 0
        assert "1 game record written" in server.text(), server.text() + server.errors()
    finally:
        halt.set()
        if person is not None:
            await person
        ann.close()
        if sam is not None:
            sam.close()
        stop(server, bots)


async def test_a_seat_that_is_gone_or_a_changed_certificate_ends_in_a_clear_state(
    tmp_path: Path,
) -> None:
    """Started again without its tables, the server refuses the resume: the terminal
    client is back in the lobby saying so (a watcher too), the bot exits 1 with one line.  A server on
    the same port with another certificate is refused at every attempt, and a bot gives
    up after --give-up seconds, with one line."""
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    env = environment(tmp_path)
    ann = Terminal(connect_command(server), env)
    sam: Terminal | None = None  # watching
    bots: list[Process] = []
    pin = server.pin

    def bot(table: str, give_up: str) -> Process:
        process = bot_process(
            server,
            env,
            *("--table", table, "--seats", "3", "--give-up", give_up, "--name", f"bot-{table}"),
        )
        bots.append(process)
        return process

    try:
        first = bot("T", "60")
        await first.said("seated at T")
        await ann.shows("1/3 waiting")
        ann.send("\r")
        await ann.shows("r = ready")
        sam = Terminal(connect_command(server, "sam"), environment(tmp_path / "sam"))
        await sam.shows("2/3 waiting")
        sam.send("w")  # sam watches T
        await sam.shows("T · classic")

        # the server comes back without its tables (same data dir, same certificate)
        server.stop(signal.SIGKILL)
        for journal in data.glob("tables.sqlite3*"):
            journal.unlink()
        server = await server.again()
        assert await first.exits(20) == 1
        err = first.errors()
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "bot-T: the server did not give the seat back: there is no table called" in err
        await ann.shows("your seat is gone: there is no table called")
        await sam.shows("you are no longer watching: there is no table called")

        # a server with another certificate on the same port
        # (its tries come 0.5, 1.5, 3.5, 7.5, 12.5 and 17.5 s after the drop, and the refusal
        # is said at the try after the first that reaches the new server: with 20 s to give
        # up, that server has 12.5 s to start, about ten times what it takes here; with 10
        # it had 7.5, an audit found)
        second = bot("U", "20")
        await second.said("seated at U")
        server.stop(signal.SIGKILL)
        server = await server.again(tmp_path / "other")
        assert await second.exits(60) == 1, second.text() + second.errors()
        err = second.errors()
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "bot-U: gave up reconnecting after 20 s" in err and pin in err, err
        assert second.count("refused: the server shows a certificate that is not the pinned one")
        await ann.shows("refused: the server shows a certificate")
        # Ctrl-C then says what that means and what to do, not that the seat waits (a
        # host's pass), nor the goodbye of the server that went
        ann.ctrl_c()
        assert await ann.exits(20) == 0
        said = " ".join(ann.output().split())
        assert "came back with another certificate than the one you trusted" in said, said
        assert "waits for you" not in said and "said goodbye" not in said, said
    finally:
        ann.close()
        if sam is not None:
            sam.close()
        stop(server, *bots)

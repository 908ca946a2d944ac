"""Back to your seat (issue 27): a terminal client killed mid-game and started again
opens in the lobby; it says that a seat waits there, its table chosen, and `enter` is
the one key back to it, cards and all.  As a person does it: a real server, bots, the
client in a pseudo-terminal, SIGKILL."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from president.client.tui.lobby import LobbyScreen
from president.protocol import messages as m

from ..harness.processes import PRESIDENT, ServerProcess, bot_process, environment, stop
from ..harness.servers import make_table
from ..harness.terminal import Terminal
from ..harness.waiting import wait_for
from ..test_restarts import play_as_a_person
from .test_screens import a_table

WAITING = "your seat at T is waiting, a game under way: enter takes you back"


def test_the_lobby_says_once_which_seat_waits_and_chooses_its_table() -> None:
    screen = LobbyScreen(me="ann")
    tables = (
        a_table("A", "waiting", ("bob", "", "", "")),
        a_table("B", "playing", ("bob", "cat", "dan", "eve")),
        a_table("T", "playing", ("bob", "ann", "bot:random", "cat")),
    )
    screen.record(m.Tables(tables=tables))
    assert screen.cursor == 2 and screen.message == WAITING
    assert "  2: ann (you)" in screen.details()
    screen.message, screen.cursor = "", 0
    screen.record(m.TableChanged(info=tables[2]))  # said once: the cursor stays where it is
    assert screen.cursor == 0 and screen.message == ""
    finished = LobbyScreen(me="ann")
    finished.record(m.Tables(tables=(a_table("T", "finished", ("bob", "ann", "cat", "dan")),)))
    assert finished.message == ""  # no game under way: nothing waits
    # a table not started yet keeps the seat too (a pass came back, the cursor elsewhere)
    before = LobbyScreen(me="ann")
    before.record(m.Tables(tables=(tables[0], a_table("E", "waiting", ("", "ann", "", "")))))
    assert before.cursor == 1
    assert before.message == "your seat at E is waiting: enter takes you back"


@dataclass
class Game:
    """Ann in a terminal at table T of a real server (a game to 3 points) among three
    `president bot` processes, everyone ready; `again`: her client started again."""

    server: ServerProcess
    env: dict[str, str]
    command: list[str]
    ann: Terminal
    again: Terminal | None = None


@contextlib.asynccontextmanager
async def a_game(tmp_path: Path, rows: int, columns: int) -> AsyncIterator[Game]:
    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    command = [*PRESIDENT, "connect", server.address, "--name", "ann"]
    command += ["--fingerprint", server.pin]
    game = Game(server, env, command, Terminal(command, env, rows=rows, columns=columns))
    bots = None
    try:
        await make_table(server.address, server.pin, tmp_path, toggles={"target": 3})
        await game.ann.shows("0/4 waiting")
        game.ann.send("\r")
        await game.ann.shows("r = ready")
        bots = bot_process(server, env, "--table", "T", "--count", "3", "--strategy", "random")
        await bots.said("seated at T", 3)
        game.ann.send("r")
        yield game
    finally:
        game.ann.close()
        if game.again is not None:
            game.again.close()
        stop(server, bots)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "ctrl-c"])
async def test_a_client_killed_mid_game_finds_its_seat_from_the_lobby(
    tmp_path: Path, how: str
) -> None:
    """Killed, or quit with ctrl-c (which leaves nothing: the seat waits as for a crash,
    and the client says so as it ends)."""
    async with a_game(tmp_path, rows=16, columns=60) as game:
        ann, server = game.ann, game.server
        await ann.shows("▶ ann (you)", 30)  # the game is on and waits for ann
        if how == "ctrl-c":
            ann.ctrl_c()
            assert await ann.exits() == 0
            said = " ".join(ann.output().split())
            assert (
                "your seat at T waits for you (the turn timer, or after a while the timeout rule, plays it meanwhile;"
                " away past the host's grace period, 2 minutes unless it set --grace-seconds,"
                " the game goes on without you from the next hand): president "
                f"connect {server.address} --name ann takes you back to it"
            ) in said, said
        ann.close()  # SIGKILL: no goodbye

        again = game.again = Terminal(game.command, game.env, rows=16, columns=60)
        await again.shows("your seat at T is waiting", 30)
        again.send("\r")
        # back in the seat, on the turn she had (the table's screen: the lobby's preview of
        # a table under way shows its seats and whose turn it is too, so the hand's box
        # first, not "▶ ann (you)" alone: a CI run caught the lobby)
        await again.shows("your hand", 30)
        await again.shows("▶ ann (you)", 30)
        # her cards: the seat's view may be drawn a moment before her sealed hand comes
        # (the reader lets the screen draw between two messages), "your cards are
        # coming..." until then; they come, or the wait ends in the screen as it stands
        await wait_for(
            lambda: not re.search(r"no cards|are coming", again.text()),
            30,
            again.text,
        )
        # the log tells the hand so far (sent with the seat: hand_history), then this
        await again.shows("you are back at your seat")
        assert "not in this log" not in again.text()


@pytest.mark.slow
async def test_the_others_log_says_when_a_killed_client_is_away_and_back(
    tmp_path: Path,
) -> None:
    """A host's pass: ann's client killed mid-hand, and the others' logs said nothing,
    then or when she came back.  sam, watching, is told both; ann is told sam watches
    (protocol 14), back at her seat that he does, and when he goes."""
    async with a_game(tmp_path, rows=30, columns=100) as game:
        ann, server = game.ann, game.server
        await ann.shows("▶ ann (you)", 30)  # the game is on and waits for ann
        sam_command = [*PRESIDENT, "connect", server.address, "--name", "sam"]
        sam_command += ["--fingerprint", server.pin]
        sam = Terminal(sam_command, environment(tmp_path / "sam"), rows=30, columns=100)
        try:
            await sam.shows("4/4 playing", 30)
            sam.send("w")  # sam watches: the table's screen (the lobby has no log)
            await sam.shows("| log |", 30)
            await sam.shows("▶ ann", 30)
            assert "ann is away" not in sam.text(), sam.text()
            await ann.shows("— sam is watching —", 30)
            await ann.shows("· 1 watching", 30)  # the header
            ann.close()  # SIGKILL: no goodbye
            await sam.shows("— ann is away —", 30)
            again = game.again = Terminal(game.command, game.env, rows=30, columns=100)
            await again.shows("your seat at T is waiting", 30)
            again.send("\r")
            await sam.shows("— ann is back —", 30)
            await again.shows("— watching: sam —", 30)
            sam.close()  # SIGKILL: his connection gone, he watches no more
            await again.shows("— sam stopped watching —", 30)
        finally:
            sam.close()


@pytest.mark.slow
async def test_a_client_killed_in_the_second_hand_sees_the_whole_game_at_its_end(
    tmp_path: Path,
) -> None:
    """Killed after the first hand and started again, the client is told the hands it
    missed (`game_results`, version 12): at the game's end its standings have every
    hand, where they said "(1 hand was not seen here)" before."""
    halt = asyncio.Event()
    async with a_game(tmp_path, rows=40, columns=100) as game:
        person = asyncio.create_task(play_as_a_person(game.ann, halt))
        try:
            await game.ann.shows("hand 2 ", 60)  # the first hand is over
            halt.set()
            await person
            game.ann.close()  # SIGKILL

            again = game.again = Terminal(game.command, game.env, rows=40, columns=100)
            await again.shows("your seat at T is waiting", 30)
            again.send("\r")
            await again.shows("your hand", 30)
            halt.clear()
            person = asyncio.create_task(play_as_a_person(again, halt))
            await again.shows("GAME OVER after", 120)
            # (the standings' last lines: the box is drawn whole by then)
            shown = await again.shows("hands in a row", 10)
            assert "hand by hand" in shown and "President: " in shown, shown
            assert "not seen here" not in shown, shown
        finally:
            halt.set()
            await person


def test_the_way_back_names_the_key_the_user_came_with() -> None:
    """A pass came with --identity, quit at a table, and ran the command it was told:
    refused, the name belonging to another key.  The command names the key, quoted."""
    from president.cli.connect import back_command

    assert (
        back_command("10.0.0.5:7777", "ann", None) == "president connect 10.0.0.5:7777 --name ann"
    )
    assert back_command("10.0.0.5:7777", "Ann Lee", "/tmp/my keys/ann.key") == (
        "president connect 10.0.0.5:7777 --name 'Ann Lee' --identity '/tmp/my keys/ann.key'"
    )

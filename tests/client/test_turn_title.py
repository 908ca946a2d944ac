"""My turn told outside the screen: on game night a player reading another window saw
nothing of their turn until the timer played for them (and with the clock, a turn missed
costs the next ones time).  The terminal's title says "president: your turn" while it
is, "president" otherwise, and is set back when the program ends; with `--bell` the
bell rings as each turn of mine comes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president.client.tui.app import TableApp
from president.client.tui.shell import TITLE, TURN_TITLE, Shell
from president.protocol import messages as m
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from ..harness.servers import bot_key, client, running_server
from ..harness.waiting import wait_for


class Told(DummyOutput):
    """An output that keeps the titles set and the bells rung, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.said: list[str] = []

    def set_title(self, title: str) -> None:
        self.said.append(f"title {title}")

    def clear_title(self) -> None:
        self.said.append("title cleared")

    def bell(self) -> None:
        self.said.append("bell")


async def my_turns_told(tmp_path: Path, bell: bool) -> tuple[list[str], int]:
    """ann plays three of her turns by keys at a table of two bots, then leaves with q;
    what her terminal was told, and how many of her turns came."""
    output = Told()
    async with running_server(tmp_path, bot_delay=0.0) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        ann.keep = True
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await ann.send(m.Join(table="T"))
        for _ in range(2):
            await ann.send(m.AddBot(table="T", strategy="greedy"))
        with create_pipe_input() as keys:
            table = TableApp(ann, input=keys, output=output)
            table.shell.bell = bell
            network = asyncio.create_task(table.network())
            running = asyncio.create_task(table.app.run_async())
            turns = 0
            try:
                await wait_for(lambda: ann.model.slot is not None)
                keys.send_text("r")
                while turns < 3:
                    await wait_for(lambda: ann.model.my_turn and bool(ann.model.hand), 30)
                    turns += 1
                    since = len(ann.model.events)
                    table.screen.message = ""
                    keys.send_text("s")
                    await wait_for(lambda: bool(table.screen.selected or table.screen.message))
                    keys.send_text("\r" if table.screen.selected else "p")
                    await wait_for(lambda since=since: len(ann.model.events) > since, 30)
            finally:
                network.cancel()
                running.cancel()
                await asyncio.gather(running, return_exceptions=True)
                table.shell.untitle()  # (as the program does when it ends)
                await ann.link.close()
    return output.said, turns


async def test_the_title_says_my_turn_and_the_bell_rings_only_if_asked(tmp_path: Path) -> None:
    said, turns = await my_turns_told(tmp_path / "a", bell=True)
    assert said[-1] == "title cleared"  # (the program ended: the terminal's own title)
    told = said[:-1]
    # from the table's opening (not my turn), the title changes each time my turn comes
    # or goes, and the bell rings right after each "your turn"
    titles = [x for x in told if x != "bell"]
    assert titles[::2] == [f"title {TITLE}"] * len(titles[::2]), said
    assert titles[1::2] == [f"title {TURN_TITLE}"] * len(titles[1::2]), said
    mine = [i for i, x in enumerate(told) if x == f"title {TURN_TITLE}"]
    assert len(mine) >= turns == 3
    assert [told[i + 1] for i in mine] == ["bell"] * len(mine), said
    assert told.count("bell") == len(mine)

    quiet, turns = await my_turns_told(tmp_path / "b", bell=False)
    assert "bell" not in quiet and quiet.count(f"title {TURN_TITLE}") >= turns


class Gone(DummyOutput):
    """A terminal closed (its window killed, once `gone`): every write fails."""

    gone = False

    def flush(self) -> None:
        if self.gone:
            raise OSError(5, "Input/output error")


def test_a_terminal_gone_takes_no_title_and_breaks_nothing() -> None:
    """A recheck closed the window on its turn: leaving the table (as the hangup does)
    failed setting the title back, and the table screen stayed."""
    output = Gone()
    shell = Shell(output=output)
    output.gone = True
    shell.turn(True)  # (no OSError out of it)
    shell.turn(False)
    shell.untitle()

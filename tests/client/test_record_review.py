"""`v` at a server's table, the game over: the record asked of the server (protocol 17)
and its review in the replay viewer, as `president play`'s player has it (a review pass:
a server's player had no way to the record of the game they had just played)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from president.client.tui.replay_app import ReplayApp
from president.protocol import messages as m

from ..harness.apps import my_turn_by_keys, table_app
from ..harness.servers import bot_key, client, running_server
from ..harness.waiting import wait_for


async def test_v_at_a_game_over_asks_its_record_and_opens_its_review(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.0, pause_between_hands=0.0) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={"target": 1}, seats=3))
        await ann.send(m.Join(table="T"))
        for _ in range(2):
            await ann.send(m.AddBot(table="T", strategy="greedy"))
        async with table_app(ann) as (table, keys):
            await wait_for(lambda: ann.model.slot is not None)
            keys.send_text("r")
            while not table.screen.game_over():  # (ann plays s's moves to the end)
                await wait_for(lambda: table.screen.game_over() or ann.model.my_turn, 60)
                if ann.model.my_turn and not table.screen.game_over():
                    await my_turn_by_keys(table, keys)
            assert "v: its review" in " ".join(table.screen.standings())
            await wait_for(lambda: len(server.records) == 1)
            table.screen.message = ""
            keys.send_text("v")
            await wait_for(lambda: isinstance(table.shell.top, ReplayApp), 30)
            viewer = table.shell.top
            assert isinstance(viewer, ReplayApp)
            assert viewer.screen.name == Path(server.records[0]).name
            # q, then v again: the record kept opens again (the server sends one key
            # one record every few seconds: asked again, it said "ask again in 5 s")
            keys.send_text("q")
            await wait_for(lambda: table.shell.top is not viewer, 10)
            keys.send_text("v")
            await wait_for(lambda: isinstance(table.shell.top, ReplayApp), 10)
            assert table.shell.top is not viewer and not table.screen.message
        await ann.link.close()


def test_a_record_with_nothing_to_show_is_said_not_viewed() -> None:
    """A hostile pass: a server's record that passes `loads` but has no step to show (no
    hand, or a fault at its first) ended the table's screen with an IndexError drawing
    the viewer; it is said on the status line, and no viewer opens."""
    from president.client.model import TableModel
    from president.client.tui.coach import show_review
    from president.client.tui.table import TableScreen

    pushed: list[object] = []

    class Shell:
        def push(self, screen: object) -> None:
            pushed.append(screen)

    class Table:
        screen = TableScreen(TableModel(me="ann"))
        shell = Shell()
        extras = None

    for document in (
        b'{"format": "president-record/1", "players": ["ann", "bob", "cat"], "hands": []}',
        b'{"format": "president-record/1", "rules": {"decks": 7}, "players": ["ann"]}',
    ):
        show_review(Table(), document, "x.json", "ann")  # type: ignore[arg-type]
        assert Table.screen.message.startswith("the record x.json has nothing to show: ")
        assert pushed == []


def test_a_game_stopped_for_too_few_players_is_reviewed_too() -> None:
    """A hostile pass: a game the server stopped (too few players left) has its record
    written, yet `v` said "the review opens once the game is over"."""
    from president.client.tui.coach import open_review

    from ..views import a_public_view
    from .test_table_words import SEATING, screen_at

    stopped = screen_at(a_public_view(SEATING), status="waiting")
    stopped.records_sent = True
    assert stopped.status_line()[1].startswith(" the game stopped: v = review, ")
    asked: list[str] = []

    class Table:
        screen = stopped
        shell = None
        extras = None

        def ask_record(self) -> None:
            asked.append("asked")

    open_review(Table())  # type: ignore[arg-type]
    assert asked == ["asked"]
    playing = screen_at(a_public_view(SEATING))  # (a game on: not yet)
    playing.records_sent = True
    Table.screen = playing
    open_review(Table())  # type: ignore[arg-type]
    assert asked == ["asked"] and playing.message == "the review opens once the game is over"


async def test_v_in_the_lobby_reviews_the_game_i_left_its_table_after(tmp_path: Path) -> None:
    """A review pass: once a player had left the table of a game over, its review was out
    of reach (`v` was a key of the table screen alone).  Back in the lobby the message
    line says `v` reviews it, and `v` opens it: asked of the server, then kept."""
    from president.cli.connect import lobby_and_tables
    from president.client.connection import Client, connect
    from president.client.pinning import KnownServers
    from president.client.tui.app import TableApp
    from president.client.tui.lobby import LobbyScreen
    from president.client.tui.lobby_app import LobbyApp
    from president.client.tui.shell import Shell
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from ..harness.apps import my_turn_by_keys

    async with running_server(tmp_path, bot_delay=0.0, pause_between_hands=0.0) as server:
        address = f"127.0.0.1:{server.port}"
        link = await connect(
            address,
            "ann",
            pin=server.fingerprint,
            known=KnownServers(tmp_path / "k"),
            identity=bot_key("ann"),
        )
        ann = Client(link)
        screen = LobbyScreen(me="ann", server=link.server, address=address)
        with create_pipe_input() as keys:
            shell = Shell(input=keys, output=DummyOutput())

            def state() -> str:  # (what a failed wait says)
                top = shell.top
                said = getattr(getattr(top, "screen", None), "message", None)
                return (
                    f"stack {[type(s).__name__ for s in shell.stack]}, its message {said!r},"
                    f" the lobby's {screen.message!r}, ann's errors {ann.errors}"
                )

            screens = asyncio.create_task(lobby_and_tables(ann, screen, bots="greedy", shell=shell))
            await wait_for(lambda: isinstance(shell.top, LobbyApp), 20, state)
            lobby = shell.top
            assert isinstance(lobby, LobbyApp)

            def lobby_now() -> LobbyApp:
                top = shell.top
                assert isinstance(top, LobbyApp)
                return top

            assert "v reviews" not in lobby._status_text()[1]
            keys.send_text("v")  # no game yet
            await wait_for(lambda: "you have played none" in screen.message, 20, state)
            await ann.send(
                m.CreateTable(name="T", preset="classic", toggles={"target": 1}, seats=3)
            )
            await wait_for(lambda: any(t.name == "T" for t in screen.tables), 20, state)
            keys.send_text("\r")  # sit at it
            await wait_for(
                lambda: isinstance(shell.top, TableApp) and ann.model.slot is not None, 20, state
            )
            table = shell.top
            assert isinstance(table, TableApp)
            keys.send_text("bb")
            await wait_for(
                lambda: ann.model.view is not None and all(c.name for c in ann.model.view.chairs),
                20,
                state,
            )
            keys.send_text("r")
            while not table.screen.game_over():
                await wait_for(lambda: table.screen.game_over() or ann.model.my_turn, 60, state)
                if ann.model.my_turn and not table.screen.game_over():
                    await my_turn_by_keys(table, keys)
            await wait_for(lambda: len(server.records) == 1, 20, state)
            keys.send_text("q")  # back to the lobby
            await wait_for(lambda: isinstance(shell.top, LobbyApp), 20, state)
            assert screen.message == "v: the review of your game at T", state()
            screen.message = ""  # (then the keys: v among them)
            assert "v reviews your game" in lobby_now()._status_text()[1]
            keys.send_text("v")
            await wait_for(lambda: isinstance(shell.top, ReplayApp), 30, state)
            viewer = shell.top
            assert isinstance(viewer, ReplayApp)
            assert viewer.screen.name == Path(server.records[0]).name
            keys.send_text("q")
            await wait_for(lambda: isinstance(shell.top, LobbyApp), 10, state)
            keys.send_text("v")  # kept: the server is not asked again (one every 5 s)
            await wait_for(lambda: isinstance(shell.top, ReplayApp), 10, state)
            assert shell.top is not viewer
            keys.send_text("q")
            await wait_for(lambda: isinstance(shell.top, LobbyApp), 10, state)
            keys.send_text("qq")  # (the lobby's q asks once)
            await asyncio.wait_for(screens, 30)
        await link.close()
        assert not [e for e in ann.errors if e.about == m.RecordAsk.TYPE], ann.errors


async def test_a_servers_record_is_read_off_the_screens_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hostile pass: a long game's record (3.3 MB, twelve players to 100 points) took 9
    s to read for the viewer, on the screen's own loop: the screen froze.  A server's
    record is read in a worker thread, the message line saying so meanwhile."""
    import threading

    from president.client.model import TableModel
    from president.client.tui import coach
    from president.client.tui.table import TableScreen

    seen: list[tuple[str, str]] = []

    class Table:
        screen = TableScreen(TableModel(me="ann"))
        shell = None

    def read(data: bytes, name: str) -> str:
        seen.append((threading.current_thread().name, Table.screen.message))
        return f"the record {name} has nothing to show"

    monkeypatch.setattr(coach, "read_review", read)
    await coach.show_review_soon(Table(), b"{}", "x.json", "ann")  # type: ignore[arg-type]
    ((thread, said),) = seen
    assert thread != threading.main_thread().name and said == "reading the record x.json ..."
    assert Table.screen.message == "the record x.json has nothing to show"

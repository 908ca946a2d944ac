"""`v` at a server's table, the game over: the record asked of the server (protocol 17)
and its review in the replay viewer, as `president play`'s player has it (a review pass:
a server's player had no way to the record of the game they had just played)."""

from __future__ import annotations

from pathlib import Path

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

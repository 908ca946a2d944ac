"""`n` at the table: a player nudges the seat a table with no turn timer waits for (a
guest who never moves), driven by keys against a real loopback server; the log says so,
and the timeout rule moves for the seat when the nudge's time runs out."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president.protocol import messages as m

from ..harness.apps import my_turn_by_keys, table_app
from ..harness.servers import bot_key, client, running_server
from ..harness.waiting import wait_for


async def test_n_nudges_the_seat_the_table_waits_for_and_the_timer_then_moves(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, nudge_seconds=1) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        ann.keep = True
        mal = await client(server, "mal", tmp_path, identity=bot_key("mal"))
        reading = asyncio.create_task(mal.run())  # mal reads, and never moves
        await ann.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=3, turn_seconds=0)
        )
        for person in (ann, mal):
            await person.send(m.Join(table="T"))
        await ann.send(m.AddBot(table="T", strategy="greedy"))
        async with table_app(ann) as (table, keys):
            try:
                await wait_for(lambda: ann.model.slot is not None and mal.model.slot is not None)
                keys.send_text("r")
                await mal.send(m.Ready())
                screen = table.screen
                while not (mal.model.my_turn and mal.model.hand):  # ann plays by keys
                    await wait_for(
                        lambda: (
                            (ann.model.my_turn and bool(ann.model.hand))
                            or (mal.model.my_turn and bool(mal.model.hand))
                        ),
                        30,
                    )
                    if ann.model.my_turn:
                        await my_turn_by_keys(table, keys)
                seat = mal.model.seat
                keys.send_text("n")
                await wait_for(
                    lambda: "you nudge mal: 1s, then the table moves for them" in screen.log
                )

                def moved_for_mal() -> bool:
                    return any(
                        isinstance(x, (m.Played, m.Passed)) and x.seat == seat and x.timeout
                        for x in ann.received
                    )

                await wait_for(moved_for_mal, 30)
                assert [e for e in ann.errors if e.about] == []
            finally:
                reading.cancel()
                await ann.link.close()
                await mal.link.close()


def test_the_nudged_players_status_line_goes_with_their_move() -> None:
    """A review: kept until a key, the line outlived the nudge: the player (away from
    the keyboard, as the nudged often are) came back to "60s to move" long after the
    timeout rule had moved for them."""
    from president.client.model import Nudged, TableModel
    from president.client.tui.table import TableScreen
    from president.engine import Passed

    from ..views import a_public_view

    model = TableModel(me="bob")
    model.public = a_public_view(("ann", "bob", "cat"))
    screen = TableScreen(model)
    screen.nudged(Nudged("ann", (1,), 60))
    assert (
        screen.message
        == screen.kept_message
        == "ann nudges you: move before the header's ⏱ runs out"
    )
    screen.heard(Passed(0, False))  # (another seat's move: the line stays)
    assert screen.message == "ann nudges you: move before the header's ⏱ runs out"
    screen.heard(Passed(1, False), timeout="time")  # the timeout rule moved for bob
    assert screen.message == screen.kept_message == ""

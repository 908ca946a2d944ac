"""A guest who sits at a full table and never says ready cannot keep its game from
starting (a hostile-guest pass squatted every new table so): once the people ready have
the say (the table's creator among them, or more of them than not), the people in
chairs who are not ready have `ready_seconds`, then their chairs are freed, each told
why, back in the lobby; a player then takes the chair and the game starts.  Nobody is
moved while a chair is free, while no person is ready (friends chatting before a game),
by one guest ready among friends who are not, or with `ready_seconds` 0."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president.protocol import messages as m
from president.protocol.errors import Code

from ..harness.servers import client, running_server
from ..harness.waiting import wait_for

#: Short enough for a test; the lobby looks every ready_seconds / 4.
READY = 0.4


async def test_a_squatter_who_never_says_ready_is_moved_out_and_the_game_starts(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, ready_seconds=READY) as server:
        ann, bob, sly = [await client(server, n, tmp_path) for n in ("ann", "bob", "sly")]
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob, sly)]
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        for c in (ann, bob, sly):
            await c.send(m.Join(table="T"))
        await wait_for(lambda: all(c.model.slot is not None for c in (ann, bob, sly)))
        for c in (ann, bob):
            await c.send(m.Ready())
        await wait_for(lambda: sly.seat_lost is not None, 10)
        lost = sly.seat_lost
        assert lost is not None and (lost.code, lost.about) == (Code.TIMEOUT, "ready")
        assert lost.message == (
            f"you did not say ready within {READY:g} s while the others at T waited: your "
            "chair is free again"
        )
        assert sly.model.slot is None
        table = server.lobby.tables["T"]
        assert [s.name for s in table.chairs].count("sly") == 0
        assert all(g.table is None for g in server.lobby.guests if g.name == "sly")
        # ann and bob kept their chairs, ready; a player who says ready starts the game
        assert [s.ready for s in table.chairs if s.name] == [True, True]
        cat = await client(server, "cat", tmp_path)
        tasks.append(asyncio.create_task(cat.run()))
        await cat.send(m.Join(table="T"))
        await wait_for(lambda: cat.model.slot is not None)
        await cat.send(m.Ready())
        await wait_for(lambda: table.status == "playing")
        assert ann.seat_lost is None and bob.seat_lost is None
        for t in tasks:
            t.cancel()


async def test_nobody_is_moved_with_a_chair_free_with_nobody_ready_or_with_no_timer(
    tmp_path: Path,
) -> None:
    for ready_seconds, sit, ready in (
        (READY, ("ann", "bob"), ("ann",)),  # a chair free: another may still come
        (READY, ("ann", "bob", "sly"), ()),  # nobody ready: nobody is held up
        (0.0, ("ann", "bob", "sly"), ("ann", "bob")),  # the host chose to wait for ever
        # a guest who sits and says ready at once cannot clear a table of friends who
        # are not ready yet (ann made the table; one ready against two is no say)
        (READY, ("ann", "bob", "sly"), ("sly",)),
    ):
        async with running_server(
            tmp_path / str(len(sit)) / str(len(ready)),
            ready_seconds=ready_seconds,
            idle_table_seconds=4 * READY,
        ) as server:
            people = {n: await client(server, n, tmp_path) for n in sit}
            tasks = [asyncio.create_task(c.run()) for c in people.values()]
            await people["ann"].send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
            for c in people.values():
                await c.send(m.Join(table="T"))
            clients = list(people.values())
            await wait_for(lambda: all(c.model.slot is not None for c in clients))  # noqa: B023
            for n in ready:
                await people[n].send(m.Ready())
            await asyncio.sleep(4 * READY)  # (the lobby has looked several times)
            await server.lobby.sweep()
            await server.lobby.sweep()
            assert all(c.seat_lost is None for c in people.values())
            assert sorted(s.name for s in server.lobby.tables["T"].chairs if s.name) == sorted(sit)
            for t in tasks:
                t.cancel()


async def test_the_creator_ready_among_server_bots_has_a_squatter_moved(tmp_path: Path) -> None:
    """One person ready against one who is not is no majority; the table's creator has
    the say (a host who sat down with bots, and a guest took the last chair)."""
    async with running_server(tmp_path, ready_seconds=READY) as server:
        ann, sly = [await client(server, n, tmp_path) for n in ("ann", "sly")]
        tasks = [asyncio.create_task(c.run()) for c in (ann, sly)]
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await ann.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None)
        await ann.send(m.AddBot(table="T", strategy="random"))
        await ann.send(m.Ready())
        await sly.send(m.Join(table="T"))
        await wait_for(lambda: sly.seat_lost is not None, 10)
        assert ann.seat_lost is None
        for t in tasks:
            t.cancel()


async def test_bots_ready_do_not_move_the_person_who_sat_with_them(tmp_path: Path) -> None:
    """A host who sat down with server bots and went for a coffee keeps the chair: the
    bots are ready, but no person is held up."""
    async with running_server(tmp_path, ready_seconds=READY) as server:
        ann = await client(server, "ann", tmp_path)
        task = asyncio.create_task(ann.run())
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await ann.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None)
        for _ in range(2):
            await ann.send(m.AddBot(table="T", strategy="random"))
        table = server.lobby.tables["T"]
        await wait_for(lambda: not table.chairs.free())
        await asyncio.sleep(4 * READY)
        await server.lobby.sweep()
        await server.lobby.sweep()
        assert ann.seat_lost is None and ann.model.slot is not None
        task.cancel()

"""A guest who sits at a full table and never says ready cannot keep its game from
starting (a hostile-guest pass squatted every new table so): once the table's creator
sits there ready, each person in a chair who is not has `ready_seconds` of holding the
table up (kept by name, so leaving and sitting again goes on with it; a newcomer has all
of it), then their chair is freed, told why, back in the lobby; a player then takes the
chair and the game starts.  Nobody is moved while a chair is free, while the creator is
not ready (one guest's many connections ready are no say), or with `ready_seconds` 0."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.client.connection import Client
from president.protocol import messages as m
from president.protocol.errors import Code
from president.server.app import Server
from president.server.table import Table

from ..harness.ports import free_port
from ..harness.processes import ServerProcess
from ..harness.servers import bot_key, client, dialer, running_server
from ..harness.waiting import wait_for
from .test_table import Member, refused, seated, table

#: Short enough for a test; the lobby looks every ready_seconds / 4.
READY = 0.4


async def sly_is_moved_out(ann: Client, bob: Client, sly: Client) -> None:
    """The three sit at table T (ann made it), ann and bob say ready, sly does not:
    until sly is moved out."""
    for c in (ann, bob, sly):
        await c.send(m.Join(table="T"))
    await wait_for(lambda: all(c.model.slot is not None for c in (ann, bob, sly)))
    for c in (ann, bob):
        await c.send(m.Ready())
    await wait_for(lambda: sly.seat_lost is not None, 10)


async def test_a_squatter_who_never_says_ready_is_moved_out_and_the_game_starts(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, ready_seconds=READY) as server:
        ann, bob, sly = [await client(server, n, tmp_path) for n in ("ann", "bob", "sly")]
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob, sly)]
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await sly_is_moved_out(ann, bob, sly)
        lost = sly.seat_lost
        assert lost is not None and (lost.code, lost.about) == (Code.TIMEOUT, "ready")
        assert lost.message == (
            f"you did not say ready within {READY:g} s while the others at T waited: your "
            "chair is free again"
        )
        assert sly.model.slot is None
        # not back in the moment after (a hostile pass sat again at once, every time)
        await sly.send(m.Join(table="T"))
        await wait_for(lambda: any("you were moved out of T" in e.message for e in sly.errors))
        assert sly.model.slot is None
        table = server.lobby.tables["T"]
        assert [s.name for s in table.chairs].count("sly") == 0
        assert all(g.table is None for g in server.lobby.guests if g.name == "sly")
        # ann and bob kept their chairs, ready; a player who says ready starts the game
        assert [s.ready for s in table.chairs if s.name] == [True, True]
        cat = await client(server, "cat", tmp_path)
        tasks.append(asyncio.create_task(cat.run()))
        await asyncio.sleep(READY)  # (the chair is kept for the table's bot that long)
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
    for case, (ready_seconds, sit, ready) in enumerate(
        (
            (READY, ("ann", "bob"), ("ann",)),  # a chair free: another may still come
            (READY, ("ann", "bob", "sly"), ()),  # nobody ready: nobody is held up
            (0.0, ("ann", "bob", "sly"), ("ann", "bob")),  # the host chose to wait for ever
            # guests who sit and say ready at once cannot clear a table of friends who are
            # not ready yet, however many they are (ann made the table)
            (READY, ("ann", "bob", "sly"), ("bob", "sly")),
        )
    ):
        async with running_server(
            tmp_path / str(case),
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
            await asyncio.sleep(2 * READY)  # (the lobby has looked several times: READY / 4)
            await server.lobby.sweep()
            await server.lobby.sweep()
            assert all(c.seat_lost is None for c in people.values())
            assert sorted(s.name for s in server.lobby.tables["T"].chairs if s.name) == sorted(sit)
            for t in tasks:
                t.cancel()


async def sits_at_table_t(host: Client) -> None:
    """`host` makes table T, of three chairs, and sits there."""
    await host.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
    await host.send(m.Join(table="T"))
    await wait_for(lambda: host.model.slot is not None)


async def test_the_creator_ready_among_server_bots_has_a_squatter_moved(tmp_path: Path) -> None:
    """A host who sat down with server bots, ready, and a guest took the last chair."""
    async with running_server(tmp_path, ready_seconds=READY) as server:
        ann, sly = [await client(server, n, tmp_path) for n in ("ann", "sly")]
        tasks = [asyncio.create_task(c.run()) for c in (ann, sly)]
        await sits_at_table_t(ann)
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
        await sits_at_table_t(ann)
        for _ in range(2):
            await ann.send(m.AddBot(table="T", strategy="random"))
        table = server.lobby.tables["T"]
        await wait_for(lambda: not table.chairs.free())
        await asyncio.sleep(2 * READY)
        await server.lobby.sweep()
        await server.lobby.sweep()
        assert ann.seat_lost is None and ann.model.slot is not None
        task.cancel()


# --- the rule itself, on one table with fake members and a clock of the test's -------------


async def looked_at(t: Table, now: list[float], at: float, creator: object) -> list[str]:
    """The lobby looks at `at` (wait 5 s): the names of the people moved out."""
    now[0] = at
    gone = await t.unseat_unready(5.0, lambda member: member is creator)
    return [person.name for person in gone]


async def held_up_by_sly() -> tuple[Table, list[float], list[Member]]:
    """A table of three on a clock of the test's (`now[0]`): ann, its creator as the tests
    say it, and bob ready; sly in the last chair, not."""
    t, _ = table(3)
    now = [0.0]
    t.clock = lambda: now[0]
    people = await seated(t, "ann", "bob", "sly")
    for member in people[:2]:
        await t.ready(member, True)
    return t, now, people


async def test_a_newcomer_in_a_chair_a_squatter_left_has_the_whole_time() -> None:
    """The time is a person's, not a chair's (a hostile-guest pass: the squatter left
    and vera, who took the chair, was moved out a second later)."""
    t, now, (ann, _bob, sly) = await held_up_by_sly()
    assert await looked_at(t, now, 0.0, ann) == []
    assert await looked_at(t, now, 3.0, ann) == []
    await t.leave(sly)
    now[0] = 8.0  # (the chair kept for the table's bot until then)
    (vera,) = await seated(t, "vera")
    assert await looked_at(t, now, 9.0, ann) == []
    assert await looked_at(t, now, 13.0, ann) == []  # 4 s of hers
    assert await looked_at(t, now, 14.0, ann) == ["vera"]
    (error,) = vera.of(m.Error)
    assert (error.code, error.about) == (Code.TIMEOUT, "ready")  # type: ignore[attr-defined]


async def test_leaving_and_sitting_again_goes_on_with_the_time_had() -> None:
    t, now, (ann, _bob, sly) = await held_up_by_sly()
    assert await looked_at(t, now, 0.0, ann) == []
    assert await looked_at(t, now, 3.0, ann) == []  # 3 s held up
    await t.leave(sly)
    assert await looked_at(t, now, 4.0, ann) == []  # a chair free: nobody held up
    (sly,) = await seated(t, "sly")
    assert await looked_at(t, now, 5.0, ann) == []  # (the time away does not count)
    assert await looked_at(t, now, 6.0, ann) == []  # 4 s
    assert await looked_at(t, now, 7.0, ann) == ["sly"]  # 5 s in all


async def test_only_the_creator_ready_has_the_say_not_a_majority() -> None:
    """Many connections of one guest, ready, are no say over the creator and a friend
    who are not yet (a hostile-guest pass cleared a table so with three)."""
    t, _ = table(5)
    now = [0.0]
    t.clock = lambda: now[0]
    hana, _, *sybils = await seated(t, "hana", "fred", "s0", "s1", "s2")
    for member in sybils:
        await t.ready(member, True)
    for at in (0.0, 5.0, 10.0, 60.0):
        assert await looked_at(t, now, at, hana) == []
    await t.ready(hana, True)  # the creator ready: fred has his 5 s from now
    assert await looked_at(t, now, 61.0, hana) == []
    assert await looked_at(t, now, 66.0, hana) == ["fred"]


async def test_a_squatter_away_is_timed_too() -> None:
    """Dropping the connection and taking the chair back by key between two looks
    stopped the time (a hostile pass held a table so for ever): a person away holds the
    table up as much, and their chair is freed when the time is up."""
    t, now, (ann, _bob, sly) = await held_up_by_sly()
    assert await looked_at(t, now, 0.0, ann) == []
    await t.drop(sly)  # away: the chair kept
    assert await looked_at(t, now, 3.0, ann) == []
    assert [s.name for s in t.chairs] == ["ann", "bob", "sly"]
    now[0] = 5.0
    (away,) = await t.unseat_unready(5.0, lambda member: member is ann)
    # (nobody to tell; the lobby is told the address sly sat from, to bar it: a squatter
    # who dropped and sat again under a new name from it was never barred)
    assert away == ("sly", sly.address, None)
    assert [s.name for s in t.chairs] == ["ann", "bob", ""]  # the chair is free
    assert t.moved_out("sly", 5.0) and not t.moved_out("bob", 5.0)


async def test_a_chair_freed_for_not_saying_ready_is_kept_a_moment_for_the_tables_bot() -> None:
    """A hostile pass took the freed chair again from a fresh address within a
    millisecond, before a friend could press `b`, and held the table from starting for
    as long as it had addresses.  The chair is kept for the table's own players for 15 s
    (or the ready time, if shorter: 5 s here): a newcomer is refused, saying when to
    come back; a bot fills it; later a person may sit."""
    t, now, (ann, bob, _sly) = await held_up_by_sly()
    assert await looked_at(t, now, 0.0, ann) == []
    assert t.view().kept_ms == 0
    assert await looked_at(t, now, 5.0, ann) == ["sly"]
    # the table's people are told the chair is kept, and for how long (protocol 15: a
    # friend saw an empty chair nobody could take, and nothing said why)
    (told,) = {v.kept_ms for v in [ann.of(m.TableView)[-1], bob.of(m.TableView)[-1]]}
    assert told == 5000
    now[0] = 6.0
    assert t.view().kept_ms == 4000
    (vera,) = [Member("vera")]
    message = await refused(Code.NOT_ALLOWED, lambda: t.join(vera, None, None))
    assert message == (
        "a chair at T was just freed from a player who did not say ready: its players may"
        " fill it with a bot first; try again in 4 s"
    )
    await t.ready(bob, False)  # (so that the bot's chair, filled, starts nothing yet)
    await t.add_bot("random", None)  # (bob's `b`: the lobby lets the table's people)
    assert bob.of(m.TableView)[-1].kept_ms == 0  # (filled: nothing is kept)
    # filled within the window: a newcomer is told the table is full, not to come back
    await refused(Code.TABLE_FULL, lambda: t.join(vera, None, None))
    await t.ready(bob, True)
    assert t.status == "playing"
    t2, now2, (ann2, _, _) = await held_up_by_sly()
    assert await looked_at(t2, now2, 0.0, ann2) == []
    assert await looked_at(t2, now2, 5.0, ann2) == ["sly"]
    now2[0] = 10.0  # the chair kept no more: a person sits
    assert t2.view().kept_ms == 0
    (vera,) = await seated(t2, "vera")
    assert t2.chairs.index_of(vera) == 2
    await t.stop()


async def test_a_chair_left_by_a_person_holding_the_table_up_is_kept_as_well() -> None:
    """A second pass: leaving a second before the time was up, the guest freed the chair
    itself, and the next address sat at once with the whole ready time: the chair is
    kept for the table's bot then too (the leaver, back by name or address, goes on with
    its time instead)."""
    t, now, (ann, _bob, sly) = await held_up_by_sly()
    assert await looked_at(t, now, 0.0, ann) == []
    assert await looked_at(t, now, 4.0, ann) == []  # held up: 4 s of sly's 5
    now[0] = 4.5
    await t.leave(sly)
    assert ann.of(m.TableView)[-1].kept_ms == 5000
    message = await refused(Code.NOT_ALLOWED, lambda: t.join(Member("vera"), None, None))
    assert "its players may fill it with a bot first; try again in 5 s" in message
    now[0] = 9.5  # kept no more
    (vera,) = await seated(t, "vera")
    await t.ready(vera, True)
    assert t.status == "playing"
    await t.stop()


async def test_two_guests_taking_turns_not_to_be_ready_are_both_timed() -> None:
    """A hostile pass kept a table waiting for ever with two chairs, one of them always
    not ready: saying ready a moment wiped a person's time.  Now it is kept until the
    game starts (or ten minutes pass), and a look that finds them not ready again counts
    the time since the last."""
    t, _ = table(4)
    now = [0.0]
    t.clock = lambda: now[0]
    ann, bob, al, ty = await seated(t, "ann", "bob", "al", "ty")
    for member in (ann, bob, al):
        await t.ready(member, True)
    moved: list[str] = []
    for step in range(1, 12):  # a look every 2 s, the two trading places between
        one, other = (al, ty) if step % 2 else (ty, al)
        if not moved:  # (until one is moved, the other's chair free then)
            await t.ready(one, False)
            await t.ready(other, True)
        moved += await looked_at(t, now, 2.0 * step, ann)
    # al has been held up at looks 3, 5 and 7 (6 s in all): moved, the chair free for a
    # player (the pair held the table up for ever before)
    assert moved == ["al"] and [s.name for s in t.chairs] == ["ann", "bob", "", "ty"]


async def test_a_guest_may_not_remove_the_bots_others_added(tmp_path: Path) -> None:
    """A guest in a chair took the creator's bots away whenever the table filled, so
    the ready time never applied: a bot is removed by who added it or the creator."""
    async with running_server(tmp_path, ready_seconds=READY) as server:
        ann, sly = [await client(server, n, tmp_path) for n in ("ann", "sly")]
        tasks = [asyncio.create_task(c.run()) for c in (ann, sly)]
        await sits_at_table_t(ann)
        await ann.send(m.AddBot(table="T", strategy="random", seat=1))
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.chairs.slots[1].bot is not None)
        table.chairs.slots[1].added_by = "192.0.2.7"  # (as if from another machine)
        await sly.send(m.Join(table="T"))
        await wait_for(lambda: sly.model.slot is not None)
        await sly.send(m.RemoveBot(table="T", seat=1))
        await wait_for(lambda: bool(sly.errors))
        assert "only who added the bot in seat 1, or the creator of T" in sly.errors[-1].message
        assert table.chairs.slots[1].bot is not None
        await ann.send(m.RemoveBot(table="T", seat=1))  # the creator may
        await wait_for(lambda: table.chairs.slots[1].bot is None)
        for t in tasks:
            t.cancel()


async def test_a_table_restored_after_a_restart_is_still_its_creator_s(tmp_path: Path) -> None:
    """The creator is kept in the journal with the table: after a restart a squatter at
    a restored table is still moved out once its creator is back and ready (it was not:
    the creator was kept in memory alone, and nobody had the say)."""
    port = free_port()
    keys = {n: Ed25519PrivateKey.generate() for n in ("ann", "bob")}

    async def back(server: Server, name: str) -> Client:
        return await client(server, name, tmp_path, identity=keys[name])

    async with running_server(tmp_path, ready_seconds=READY, port=port) as server:
        ann, bob = [await back(server, n) for n in ("ann", "bob")]
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob)]
        await sits_at_table_t(ann)
        await bob.send(m.Join(table="T"))
        await wait_for(lambda: bob.model.slot is not None)
        for t in tasks:
            t.cancel()
    async with running_server(tmp_path, ready_seconds=READY, port=port) as server:
        assert server.lobby.tables["T"].settings.creator == ("127.0.0.1", "ann")
        ann, bob = [await back(server, n) for n in ("ann", "bob")]
        sly = await client(server, "sly", tmp_path)
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob, sly)]
        await sly_is_moved_out(ann, bob, sly)  # (ann and bob back in their chairs, by key)
        assert ann.seat_lost is None and bob.seat_lost is None
        for t in tasks:
            t.cancel()


async def test_after_a_restart_a_bot_is_still_its_adder_s_and_the_creator_s(
    tmp_path: Path,
) -> None:
    """Who added a bot is journaled with its chair: a hostile pass removed the creator's
    bots after a restart (the adder was in memory only), keeping a chair free so that
    the ready time never applied."""
    port = free_port()
    key = Ed25519PrivateKey.generate()
    async with running_server(tmp_path, ready_seconds=READY, port=port) as server:
        ann = await client(server, "ann", tmp_path, identity=key)
        task = asyncio.create_task(ann.run())
        await sits_at_table_t(ann)
        await ann.send(m.AddBot(table="T", strategy="random", seat=1))
        await wait_for(lambda: server.lobby.tables["T"].chairs.slots[1].bot is not None)
        task.cancel()
    async with running_server(tmp_path, ready_seconds=READY, port=port) as server:
        table = server.lobby.tables["T"]
        assert table.chairs.slots[1].added_by == "127.0.0.1"
        table.chairs.slots[1].added_by = "192.0.2.7"  # (as if ann had been elsewhere)
        sly = await client(server, "sly", tmp_path)
        ann = await client(server, "ann", tmp_path, identity=key)
        tasks = [asyncio.create_task(c.run()) for c in (sly, ann)]
        await sly.send(m.Join(table="T"))
        await wait_for(lambda: sly.model.slot is not None)
        await sly.send(m.RemoveBot(table="T", seat=1))
        await wait_for(lambda: bool(sly.errors))
        assert "only who added the bot in seat 1, or the creator of T" in sly.errors[-1].message
        await ann.send(m.RemoveBot(table="T", seat=1))  # the creator may, after a restart too
        await wait_for(lambda: table.chairs.slots[1].bot is None)
        for t in tasks:
            t.cancel()


async def test_leaving_before_the_time_is_up_and_sitting_again_renamed_goes_on_with_it() -> None:
    """A recheck pass held a table for ever from one address: leave just before the time
    was up, sit again under a new name (or key), a fresh time each.  The time is kept by
    the address sat from too (not the creator's: their friends at the host's machine)."""
    t, now, (ann, _bob, sly) = await held_up_by_sly()
    t.settings.creator = (ann.address, "ann")
    assert await looked_at(t, now, 0.0, ann) == []
    assert await looked_at(t, now, 4.0, ann) == []  # 4 s of sly's
    await t.leave(sly)
    (sly2,) = [Member("sly2", address=sly.address)]
    await t.join(sly2, None, None)
    # sat again a second ago, renamed: the address's time goes on, 5 s in all
    assert await looked_at(t, now, 5.0, ann) == ["sly2"]
    now[0] = 10.0  # (the chair kept for the table's bot until then)
    await seated(t, "vera")  # from a machine of her own: her whole time
    assert await looked_at(t, now, 12.0, ann) == []
    assert await looked_at(t, now, 16.0, ann) == []
    assert await looked_at(t, now, 17.0, ann) == ["vera"]
    # at the creator's own address (the host's bots and friends there) only the name
    # counts; and the chair just freed is theirs to take at once
    await t.join(Member("lo1", address=ann.address), None, None)
    for at in (18.0, 19.0, 22.0):
        assert await looked_at(t, now, at, ann) == []
    await t.leave(next(s.member for s in t.chairs if s.name == "lo1"))  # type: ignore[arg-type]
    await t.join(Member("lo2", address=ann.address), None, None)
    assert await looked_at(t, now, 23.0, ann) == []  # lo2 starts afresh, as before


async def test_at_the_cap_a_table_not_started_in_time_makes_room(tmp_path: Path) -> None:
    """A real server at its table cap: a table whose game has not started
    `unstarted_table_seconds` after it was made goes to make room for a new one; its
    player and its watcher are told why and put back in the lobby (the watcher too: it was
    left at a table that was gone)."""
    async with running_server(tmp_path, max_tables=2, unstarted_table_seconds=0.3) as server:
        names = ("ann", "wat", "bob", "cat")
        ann, wat, bob, cat = [await client(server, n, tmp_path) for n in names]
        tasks = [asyncio.create_task(c.run()) for c in (ann, wat, bob, cat)]
        for person, table in ((ann, "T1"), (bob, "T2")):
            await person.send(m.CreateTable(name=table, preset="classic", toggles={}, seats=4))
            await wait_for(lambda table=table: table in server.lobby.tables)
            await person.send(m.Join(table=table))
        await wat.send(m.Spectate(table="T1"))
        await wait_for(lambda: ann.model.slot is not None and bob.model.slot is not None)
        await wait_for(
            lambda: any(g.table is not None and g.name == "wat" for g in server.lobby.guests)
        )
        await asyncio.sleep(0.35)  # T1 and T2 not started in time: the older goes first
        await cat.send(m.CreateTable(name="T3", preset="classic", toggles={}, seats=4))
        await wait_for(lambda: "T3" in server.lobby.tables)
        assert "T1" not in server.lobby.tables and "T2" in server.lobby.tables
        for person in (ann, wat):
            await wait_for(lambda person=person: person.seat_lost is not None)
            lost = person.seat_lost
            assert lost is not None and lost.message.startswith(
                "T1 is closed: the server needed room"
            )
            assert person.model.slot is None
        assert bob.seat_lost is None and bob.model.slot is not None
        for task in tasks:
            task.cancel()


@pytest.mark.slow
async def test_a_real_server_keeps_the_freed_chair_for_the_tables_bot(tmp_path: Path) -> None:
    """`president server --ready-seconds 2` as a host runs it: sly sits at ann's table
    and never says ready; two seconds on its chair is freed, and ann's view says how
    long it is kept for a bot (protocol 15); ann adds one and the game starts."""
    server = await ServerProcess.started(tmp_path / "data", 0, "--ready-seconds", "2")
    people = [
        Client(await dialer(server.address, n, tmp_path, pin=server.pin, identity=bot_key(n))())
        for n in ("ann", "bob", "sly")
    ]
    tasks = [asyncio.create_task(p.run()) for p in people]
    try:
        ann, bob, sly = people
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await sly_is_moved_out(ann, bob, sly)

        def kept() -> int:
            table = ann.model.table
            return 0 if table is None else table.kept_seconds(time.monotonic())

        await wait_for(lambda: kept() > 0)
        assert kept() <= 2  # (the ready time, as it is shorter than 15 s)
        await ann.send(m.AddBot(table="T", strategy="heuristic"))
        await wait_for(lambda: ann.model.table is not None and ann.model.table.status == "playing")
        assert sly.model.slot is None and ann.errors == bob.errors == []
    finally:
        for task in tasks:
            task.cancel()
        server.kill()

"""Who watches a table (protocol version 14): everyone there is told, as at a real
table, by the table's view: how many watch, and the first twelve by name."""

from __future__ import annotations

import dataclasses

from president.protocol import messages as m
from president.server.table import WATCHERS_NAMED

from ..protocol.test_connection import deliver, opened
from .test_table import Member, seated, table


def last_view(member: Member) -> m.TableView:
    view = member.of(m.TableView)[-1]
    assert isinstance(view, m.TableView)
    return view


async def test_the_players_are_told_who_comes_to_watch_and_who_goes() -> None:
    t, _ = table(seats=3)
    ann, bob = await seated(t, "ann", "bob")
    assert (last_view(ann).watchers, last_view(ann).watching) == (0, ())
    dan = Member("dan")
    await t.spectate(dan, None)
    for member in (ann, bob, dan):
        assert (last_view(member).watchers, last_view(member).watching) == (1, ("dan",))
    assert len(dan.of(m.TableView)) == 1  # the watcher's own: with its snapshot, once
    eve = Member("eve")
    await t.spectate(eve, None)
    assert last_view(ann).watching == ("dan", "eve")
    await t.leave(dan)
    assert (last_view(ann).watchers, last_view(ann).watching) == (1, ("eve",))
    assert last_view(eve).watching == ("eve",)
    await t.drop(eve)  # a connection gone: no longer watching either
    assert (last_view(bob).watchers, last_view(bob).watching) == (0, ())
    await t.stop()


async def test_a_crowd_is_counted_whole_and_its_first_twelve_named() -> None:
    t, _ = table(seats=3)
    (ann,) = await seated(t, "ann")
    crowd = [Member(f"w{n}") for n in range(WATCHERS_NAMED + 3)]
    for member in crowd:
        await t.spectate(member, None)
    view = last_view(ann)
    assert view.watchers == len(crowd) == 15
    assert view.watching == tuple(w.name for w in crowd[:WATCHERS_NAMED])
    await t.leave(crowd[0])  # the next to come is named in its place
    assert last_view(ann).watching == tuple(w.name for w in crowd[1 : WATCHERS_NAMED + 1])
    await t.stop()


def test_a_peer_of_version_13_is_sent_neither_field() -> None:
    view = m.TableView(
        table="T",
        number=3,
        status="waiting",
        rules={"preset": "classic"},
        chairs=(m.Chair("ann", "", True, False),) * 3,
        turn_deadline_ms=0,
        watchers=2,
        watching=("dan", "eve"),
    )
    for version in (13, 14):
        client, server = opened(version)
        data = server.send(view)
        assert (b"watching" in data) is (version >= 14)
        read = view if version >= 14 else dataclasses.replace(view, watchers=0, watching=())
        assert deliver(data, client) == [read]

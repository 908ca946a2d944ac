"""Who watches a table (protocol version 14): everyone there is told, as at a real
table, by the table's view: how many watch, and the first twelve by name; within
`WATCHERS_EVERY` seconds, once for however many came and went meanwhile."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from president.protocol import messages as m
from president.server import table as table_module
from president.server.table import WATCHERS_NAMED

from ..harness.waiting import wait_for
from ..protocol.test_connection import deliver, opened
from .test_table import Member, seated, table


@pytest.fixture(autouse=True)
def soon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_module, "WATCHERS_EVERY", 0.05)


def last_view(member: Member) -> m.TableView:
    view = member.of(m.TableView)[-1]
    assert isinstance(view, m.TableView)
    return view


def told(member: Member, watchers: int, watching: tuple[str, ...]) -> bool:
    return (last_view(member).watchers, last_view(member).watching) == (watchers, watching)


async def test_the_players_are_told_who_comes_to_watch_and_who_goes() -> None:
    t, _ = table(seats=3)
    ann, bob = await seated(t, "ann", "bob")
    assert told(ann, 0, ())
    dan = Member("dan")
    await t.spectate(dan, None)
    assert told(dan, 1, ("dan",))  # (its own view, with its snapshot, at once)
    for member in (ann, bob):
        await wait_for(lambda member=member: told(member, 1, ("dan",)))  # type: ignore[misc]
    eve = Member("eve")
    await t.spectate(eve, None)
    await wait_for(lambda: last_view(ann).watching == ("dan", "eve"))
    await t.leave(dan)
    await wait_for(lambda: told(ann, 1, ("eve",)) and told(eve, 1, ("eve",)))
    await t.drop(eve)  # a connection gone: no longer watching either
    await wait_for(lambda: told(bob, 0, ()))
    await t.stop()


async def test_a_crowd_is_counted_whole_and_its_first_twelve_named() -> None:
    t, _ = table(seats=3)
    (ann,) = await seated(t, "ann")
    crowd = [Member(f"w{n}") for n in range(WATCHERS_NAMED + 3)]
    for member in crowd:
        await t.spectate(member, None)
    names = tuple(w.name for w in crowd[:WATCHERS_NAMED])
    await wait_for(lambda: told(ann, len(crowd), names))
    await t.leave(crowd[0])  # the next to come is named in its place
    later = tuple(w.name for w in crowd[1 : WATCHERS_NAMED + 1])
    await wait_for(lambda: told(ann, len(crowd) - 1, later))
    await t.stop()


async def test_watchers_coming_and_going_are_told_once_a_while_not_each_time() -> None:
    """A hostile pass: 19 connections watching and leaving in a loop sent a player 242
    whole table views a second.  However many come and go, the players hear it once
    within `WATCHERS_EVERY` (here 0.05 s), the last state."""
    t, _ = table(seats=3)
    (ann,) = await seated(t, "ann")
    before = len(ann.of(m.TableView))
    crowd = [Member(f"m{n}") for n in range(20)]
    loop = asyncio.get_running_loop()
    began = loop.time()
    for _ in range(5):
        for member in crowd:
            await t.spectate(member, None)
        for member in crowd:
            await t.leave(member)
    took = loop.time() - began
    await wait_for(lambda: len(ann.of(m.TableView)) > before and told(ann, 0, ()))
    # (200 without the wait.  Not a race with the clock: a view is sent by a task that
    # sleeps `WATCHERS_EVERY` first, and the next is made only once it is done, so the
    # tasks begun from `began` to the loop's end are at most int(took / 0.05) + 1, on a
    # machine however slow; none begins after it, nothing changing.  One more allowed
    # for the event loop ending a sleep within its clock's resolution.)
    sent = len(ann.of(m.TableView)) - before
    assert sent <= 2 + int(took / 0.05), (sent, took)
    await t.stop()


def a_view(**fields: object) -> m.TableView:
    """A table's view with `fields` set (newer ones among them)."""
    view = m.TableView(
        table="T",
        number=3,
        status="waiting",
        rules={"preset": "classic"},
        chairs=(m.Chair("ann", "", True, False),) * 3,
        turn_deadline_ms=0,
    )
    return dataclasses.replace(view, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("version", "fields"),
    [
        (14, {"watchers": 2, "watching": ("dan", "eve")}),  # (who watches)
        (15, {"kept_ms": 12_000}),  # (a chair kept for the table's bot)
        (16, {"turn_seconds": 60, "turn_ms": 16_000, "turn_deadline_ms": 12_000}),
    ],
)
def test_a_peer_of_an_older_version_is_not_sent_a_newer_field(
    version: int, fields: dict[str, object]
) -> None:
    """A field a version added is left out for a connection of the version before, which
    would refuse a field it does not know: it reads the field's default."""
    view = a_view(**fields)
    newer = [name for name in fields if name != "turn_deadline_ms"]
    for speaks in (version - 1, version):
        client, server = opened(speaks)
        data = server.send(view)
        assert all((name.encode() in data) is (speaks >= version) for name in newer)
        defaults = {name: getattr(a_view(), name) for name in newer}
        read = view if speaks >= version else dataclasses.replace(view, **defaults)  # type: ignore[arg-type]
        assert deliver(data, client) == [read]

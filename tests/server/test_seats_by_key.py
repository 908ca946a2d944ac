"""Chairs taken back by player key, at a table with fake members (no sockets): a new
connection with the key and name of a chair's person gets that chair — dropped, still
connected, or left mid-game — and nobody else does; the journal keeps the key's id."""

from __future__ import annotations

import asyncio

import pytest
from president.protocol import messages as m
from president.server.seats import Slot, TableError
from president.server.table import REJOIN_SECONDS

from .test_table import Member, all_ready, game_of, table


async def test_a_new_connection_with_the_key_gets_the_chair_back_mid_game() -> None:
    t, _ = table()
    ann, bob, cat = Member("ann", player_id="a" * 64), Member("bob"), Member("cat")
    for member in (ann, bob, cat):
        await t.join(member, None, None)
    await all_ready(t, [ann, bob, cat])
    seat = t.chairs.index_of(ann)
    token = t.chairs.slots[0].token
    assert seat == 0 and t.chairs.slots[0].player_id == "a" * 64
    await t.drop(ann)
    assert not t.chairs.slots[0].present
    stranger = Member("ann", player_id="b" * 64)
    try:
        await t.join(stranger, None, None)
    except TableError as error:
        assert "ann is still in the game" in error.message
    else:
        raise AssertionError("another key sat in ann's place")
    back = Member("ann", player_id="a" * 64)
    await t.join(back, None, None)
    assert t.chairs.index_of(back) == 0 and t.chairs.slots[0].present
    seated = back.of(m.Seated)[-1]
    assert isinstance(seated, m.Seated) and seated.seat == 0 and seated.token != token
    assert back.of(m.SealedHand), "the snapshot of her hand"
    # the same key again from a third connection: the second is told it was replaced
    third = Member("ann", player_id="a" * 64)
    await t.join(third, None, None)
    assert t.chairs.index_of(third) == 0 and t.chairs.index_of(back) is None
    bye = back.of(m.Bye)[-1]
    assert isinstance(bye, m.Bye) and bye.code == "replaced"
    assert back.closed, "the replaced connection is closed, not left open to chat"
    assert game_of(t).seating.index("ann") is not None


async def test_a_player_who_left_mid_game_is_no_longer_leaving_once_back() -> None:
    t, _ = table()
    ann, bob, cat = Member("ann", player_id="a" * 64), Member("bob"), Member("cat")
    for member in (ann, bob, cat):
        await t.join(member, None, None)
    await all_ready(t, [ann, bob, cat])
    await t.leave(ann)
    assert t.chairs.slots[0].leaving
    await t.join(ann, None, None)  # the same connection, or a new one: the key decides
    assert t.chairs.index_of(ann) == 0 and not t.chairs.slots[0].leaving


async def test_without_a_key_nothing_is_taken_back_by_name() -> None:
    t, _ = table()
    ann, bob, cat = Member("ann"), Member("bob"), Member("cat")
    for member in (ann, bob, cat):
        await t.join(member, None, None)
    await all_ready(t, [ann, bob, cat])
    await t.drop(ann)
    try:
        await t.join(Member("ann"), None, None)
    except TableError as error:
        assert "ann is still in the game" in error.message
    else:
        raise AssertionError("a keyless connection took a chair by name")


def test_the_journal_keeps_the_chairs_player_id() -> None:
    slot = Slot(name="ann", token_hash=bytes(32), player_id="c" * 64)
    assert Slot.from_entry(slot.entry(), 0.0).player_id == "c" * 64
    old = slot.entry()
    del old["player_id"]  # a journal from before keys
    assert Slot.from_entry(old, 0.0).player_id == ""


@pytest.mark.parametrize("way", ["key", "token"])
async def test_a_chair_taken_back_again_within_the_second_waits_for_it(
    monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    """Leave and come back in a loop (a view to the whole table, the hand so far and
    journal entries each time: scripts/attack_rejoin_journal.py) is one a second a chair,
    by key (`join`) or by the seat's token (`resume`: a hostile guest's loop went 18 times
    a second that way before): the first time back is at once, a second within
    REJOIN_SECONDS waits the rest of it."""
    t, _ = table()
    now = [1000.0]
    t.clock = lambda: now[0]
    ann, bob, cat = Member("ann", player_id="a" * 64), Member("bob"), Member("cat")
    for member in (ann, bob, cat):
        await t.join(member, None, None)
    await all_ready(t, [ann, bob, cat])
    token = t.chairs.slots[0].token

    async def back() -> None:
        if way == "key":
            await t.join(ann, None, None)
        else:
            await t.resume(ann, 0, token)

    waits: list[float] = []
    sleep = asyncio.sleep

    async def waited(delay: float) -> None:
        waits.append(delay)
        await sleep(0)

    monkeypatch.setattr(asyncio, "sleep", waited)
    await t.leave(ann)
    await back()  # back from a crash: at once
    now[0] += 0.25
    await t.leave(ann)
    await back()  # again within the second: waits the rest of it
    now[0] += 5.0
    await t.leave(ann)
    await back()  # a while later: at once
    monkeypatch.undo()
    assert [w for w in waits if w > 0] == [REJOIN_SECONDS - 0.25]
    assert t.chairs.index_of(ann) == 0 and not t.chairs.slots[0].leaving

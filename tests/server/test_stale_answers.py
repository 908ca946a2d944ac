"""An answer to a turn that is gone (protocol 13, `seen` on every action): the answer a
player sent just before the turn timer fired reaches the server after the timer's move;
where the seat is on turn again by then it was taken as the answer to a turn its player
never saw.  Now it is refused as `stale`, changing nothing; a client that says nothing
(an older version) is checked as before."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from president.engine import PASS, Game, Phase, Play
from president.protocol import messages as m
from president.protocol.errors import Code
from president.server.seats import TableError
from president.server.table import Table

from ..harness.servers import bot_key, client, running_server
from ..harness.waiting import wait_for
from ..protocol.test_connection import deliver, opened
from .test_table import Member, all_ready, game_of, member_of, seated, table


async def timer_moves_for(t: Table, seat: int) -> int:
    """The timeout rule's move for `seat`, as the driver makes it; the number of the last
    event before it."""
    game = game_of(t)
    async with t.lock:
        before = t.number
        t.apply(seat, game.timeout_action(seat), "time")
    return before


async def on_turn_again_after_the_timer(t: Table, members: list[Member]) -> tuple[int, int]:
    """The seat on turn is led for by the timer, the others pass, and it leads again:
    (its seat, the number of the last event it had seen before the timer moved)."""
    game = game_of(t)
    while game.top is not None:  # (to the next lead)
        await t.act(member_of(t, members, game.turn or 0), PASS)
    seat = game.turn
    assert seat is not None
    seen = await timer_moves_for(t, seat)
    while game.turn != seat:
        turn = game.turn
        assert turn is not None
        await t.act(member_of(t, members, turn), PASS)
    return seat, seen


def lowest_single(game: Game, seat: int) -> Play:
    return Play([min(game.hand_of(seat), key=lambda card: card.rank)])


async def test_an_answer_to_a_turn_the_timer_played_is_refused_then_a_fresh_one_taken() -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    seat, seen = await on_turn_again_after_the_timer(t, members)
    player = member_of(t, members, seat)
    late = lowest_single(game, seat)  # (legal now: it leads again)
    cards, number = len(game.hand_of(seat)), t.number

    with pytest.raises(TableError) as refused:
        await t.act(player, late, seen)
    assert refused.value.code is Code.STALE
    assert refused.value.message == (
        f"too late: the turn timer moved for you (event {seen + 1}) after the event your "
        f"action answers ({seen})"
    )
    assert (game.turn, len(game.hand_of(seat)), t.number) == (seat, cards, number)

    await t.act(player, late, t.number)  # chosen on the view of this turn: taken
    assert len(game.hand_of(seat)) == cards - 1
    await t.stop()


async def test_an_action_that_says_nothing_is_checked_as_before() -> None:
    """A client of protocol 12 or older sends no `seen` (0): its late answer is taken
    where it is legal, as it always was; and one chosen on the timer's own move (its
    number or later) is never stale."""
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    seat, seen = await on_turn_again_after_the_timer(t, members)
    cards = len(game.hand_of(seat))
    await t.act(member_of(t, members, seat), lowest_single(game, seat))
    assert len(game.hand_of(seat)) == cards - 1

    seat, seen = await on_turn_again_after_the_timer(t, members)
    cards = len(game.hand_of(seat))
    await t.act(member_of(t, members, seat), lowest_single(game, seat), seen + 1)
    assert len(game.hand_of(seat)) == cards - 1
    await t.stop()


async def test_the_seats_own_moves_make_nothing_stale() -> None:
    """The cards of a due paid one at a time go out together, each saying the same
    `seen`: only the timer's moves and a new hand make an answer stale."""
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    seen = t.number
    for _ in range(6):  # everyone moves on their own, each saying the same old number
        turn = game.turn
        assert turn is not None
        action = lowest_single(game, turn) if game.top is None else PASS
        await t.act(member_of(t, members, turn), action, seen)
    assert t.number > seen + 6
    await t.stop()


async def test_an_answer_from_an_earlier_hand_is_stale() -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    seen, first = t.number, game.hand  # (the first hand, in play)
    while game.hand == first or game.phase is not Phase.PLAY:
        actors = game.actors
        if not actors:  # between hands: the driver deals the next
            await wait_for(lambda: bool(game.actors))
            continue
        await timer_moves_for(t, actors[0])
    seat = game.turn
    assert seat is not None
    player = member_of(t, members, seat)
    with pytest.raises(TableError) as refused:
        await t.act(player, lowest_single(game, seat), seen)
    assert refused.value.code is Code.STALE
    assert "a new hand began" in refused.value.message
    await t.stop()


def test_seen_goes_only_to_a_peer_of_version_13() -> None:
    """A server of version 12 would refuse a field it does not know: a client that chose
    12 leaves `seen` out; a version-12 client's action reads as saying nothing."""
    play = m.PlayCards(cards=("7C",), seen=151)
    for version, read in ((12, dataclasses.replace(play, seen=0)), (13, play)):
        old_client, server = opened(version)
        data = old_client.send(play)
        assert (b"seen" in data) is (version >= 13)
        assert deliver(data, server) == [read]


async def test_a_real_server_refuses_a_late_answer_and_says_why(tmp_path: Path) -> None:
    """Over TCP, with two server bots: the turn timer plays for ann (she says nothing),
    then her answer chosen before it arrives: `stale`, about `play` or `pass`, in words
    (a client without a player key speaks an older version and says nothing: its late
    answer is judged as before, `test_seen_goes_only_to_a_peer_of_version_13`)."""
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        heard: list[m.Message] = []

        async def hear(message: m.Message) -> None:
            heard.append(message)

        ann.on_message = hear
        reading = asyncio.create_task(ann.run())
        await ann.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=3, turn_seconds=1)
        )
        await ann.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None)
        for _ in range(2):
            await ann.send(m.AddBot(table="T", strategy="greedy"))
        await ann.send(m.Ready())
        await wait_for(lambda: ann.model.my_turn and bool(ann.model.hand), 30)
        view = ann.model.view
        assert view is not None
        seen, asked = view.number, ann.model.seat_view()
        mine = ann.model.seat

        def timer_moved_for_ann() -> bool:
            return any(
                isinstance(x, (m.Played, m.Passed))
                and x.timeout
                and x.number > seen
                and x.seat == mine
                for x in heard
            )

        await wait_for(timer_moved_for_ann, 30)
        errors = len(ann.errors)
        await ann.act(asked.legal_actions()[0], seen)
        await wait_for(lambda: len(ann.errors) > errors, 30)
        refusal = ann.errors[-1]
        assert refusal.code == Code.STALE and refusal.about in ("play", "pass"), refusal
        assert refusal.message.startswith("too late: the turn timer moved for you")
        reading.cancel()

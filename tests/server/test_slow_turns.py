"""A person's clock (`Slot.behind`): a hostile guest who moves a second before every
deadline cost the others the whole turn time at each of its turns, for a whole game, as
no rule was broken.  What a person's move takes beyond the free time (half the clock, or
10 s) comes off their next turns, never below the free time; each move quicker than that
gives the difference back.  The time taken is set here by moving the
clock's deadline (a turn of ten minutes: no real time passes)."""

from __future__ import annotations

import asyncio

import pytest
from president.engine import Game, Phase
from president.protocol import messages as m
from president.server.seats import TableError
from president.server.table import Table, free_time

from .test_away import move_until
from .test_nudge import nudge_table
from .test_table import (
    Member,
    all_ready,
    game_of,
    member_of,
    play_until,
    seated,
    table,
    under_way,
)


def to_move(game: Game, member: Member) -> int | None:
    return next((s for s in game.actors if game.seating[s] == member.name), None)


async def takes(t: Table, member: Member, seconds: float) -> None:
    """`member` moves (the timeout rule's move, as any legal one) `seconds` into the
    clock that runs."""
    game = game_of(t)
    seat = to_move(game, member)
    assert seat is not None
    timer = t.driver.timer
    assert timer.length is not None
    timer.deadline = t.clock() + timer.length - seconds
    await t.act(member, game.timeout_action(seat))


def shown(member: Member) -> float:
    """The seconds the last view `member` was sent gives the turn (and says the turn
    began with: protocol 16)."""
    views = [x for x in member.sent if isinstance(x, m.TableView)]
    left, whole = views[-1].turn_deadline_ms / 1000, views[-1].turn_ms / 1000
    assert 0 <= whole - left < 1, (whole, left)
    return left


def test_the_free_time_is_half_the_clock_or_ten_seconds() -> None:
    assert [free_time(s) for s in (600, 60, 30, 15, 8)] == [300, 30, 15, 10, 8]


async def test_a_person_who_moves_just_before_each_deadline_has_less_time_until_quick() -> None:
    t, members, game, seat = await under_way(turn_seconds=600)
    ann = member_of(t, members, seat)
    others = [x for x in members if x is not ann]

    async def ann_next() -> float:
        await asyncio.wait_for(move_until(t, others, lambda: to_move(game, ann) is not None), 20)
        return shown(ann)

    told = [shown(ann)]
    await takes(t, ann, 599)  # a second before the deadline: 299 s beyond the free 300
    told.append(await ann_next())
    await takes(t, ann, 300)  # (all but a second of what she had: 0 given back)
    told.append(await ann_next())
    await takes(t, ann, 100)  # (200 s back)
    told.append(await ann_next())
    await takes(t, ann, 0)  # (the rest back)
    told.append(await ann_next())
    assert [round(x) for x in told] == [600, 301, 301, 501, 600], told
    # the others' turns were never cut
    for other in others:
        assert t.chairs.named(other.name).behind == 0.0
    await t.stop()


async def test_a_steady_thinker_within_half_the_time_keeps_it_all() -> None:
    """A recheck: with a quarter free, a player who took 12 s of every 30 timed out from
    their tenth move on.  Up to half of each turn costs nothing, however many."""
    t, members, game, seat = await under_way(turn_seconds=30)
    ann = member_of(t, members, seat)
    others = [x for x in members if x is not ann]
    for _ in range(12):
        await takes(t, ann, 15)
        await asyncio.wait_for(move_until(t, others, lambda: to_move(game, ann) is not None), 20)
        assert round(shown(ann)) == 30
    await takes(t, ann, 27)
    await asyncio.wait_for(move_until(t, others, lambda: to_move(game, ann) is not None), 20)
    assert round(shown(ann)) == 18  # (27 s: 12 beyond the free 15)
    await t.stop()


async def test_a_nudge_gives_a_slow_person_less_time() -> None:
    """At a table with no turn timer the clock is the nudge's: what the nudged person
    took of it comes off the next nudge's time (said to all, and counted down)."""
    t, game, waited, others = await nudge_table(600)
    await t.nudge(others[0])
    await takes(t, waited, 590)  # (290 s beyond the free 300)
    await asyncio.wait_for(move_until(t, others, lambda: to_move(game, waited) is not None), 20)
    nudger = next(x for x in others if to_move(game, x) is None)
    await t.nudge(nudger)
    told = nudger.of(m.Nudged)[-1]
    assert isinstance(told, m.Nudged) and told.seconds == 310
    assert 309 < shown(nudger) <= 310
    await takes(t, waited, 200)  # (100 s back)
    assert round(t.chairs.named(waited.name).behind) == 190
    await t.stop()


async def test_a_move_with_no_clock_running_gives_time_back() -> None:
    """At a table with no turn timer, a move nobody had to hurry took nothing of a clock."""
    t, game, waited, _ = await nudge_table(600)
    t.chairs.named(waited.name).behind = 280
    seat = to_move(game, waited)
    assert seat is not None
    await t.act(waited, game.timeout_action(seat))
    assert t.chairs.named(waited.name).behind == 0
    await t.stop()


async def test_a_seats_time_is_the_shorter_of_its_clock_and_its_halved_turn() -> None:
    t, members, _game, seat = await under_way(turn_seconds=600)
    ann = member_of(t, members, seat)
    slot = t.chairs.named(ann.name)
    await takes(t, ann, 500)
    assert round(slot.behind) == 200
    assert round(t.seat_time(seat, 600)) == 400
    slot.idle_turns = 3  # (and a turn run out thrice in a row: the shorter of the two)
    assert t.seat_time(seat, 600) == 75
    slot.behind, slot.idle_turns = 600, 0  # (never below the free time)
    assert t.seat_time(seat, 600) == 300
    await t.stop()


async def test_in_an_exchange_anothers_return_does_not_cut_a_slow_seats_clock() -> None:
    """A recheck: the President, behind on their clock, and the Vice owe returns at once,
    on the Vice's whole time; the Vice returned at once, and the clock, started again on
    the seats still owing, cut the President to their own shorter time.  The clock that
    runs stays while it has more left."""
    t, _ = table(seats=4, turn_seconds=40)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.phase is Phase.EXCHANGE)
    assert len(game.actors) == 2, game.actors  # (the President's and the Vice's returns)
    standing = game.standing  # (the last hand's finish: the President first)
    assert standing is not None
    president, vice = (
        member_of(t, members, s)
        for s in sorted(game.actors, key=lambda s: standing.index(game.seating[s]))
    )
    t.chairs.named(president.name).behind = 20.0  # (their own time: 20 s of the 40)
    assert round(t.seat_time(game.seating.index(president.name), 40)) == 20
    timer = t.driver.timer
    timer.start(40.0)  # (the exchange's clock, on the Vice's whole time)
    await takes(t, vice, 1)
    assert game.phase is Phase.EXCHANGE and 38 < (timer.remaining() or 0) <= 39
    await t.stop()


async def test_in_an_exchange_a_nudges_clock_runs_on_for_the_seats_still_owing() -> None:
    """A second recheck, at a table with no turn timer: a nudge of the President (behind)
    and the Vice ran on the Vice's whole time; the Vice's return stopped it, and the Vice
    nudged again at once, for the President's own shorter time.  The nudge's clock now
    runs on for the seats still owing (nudging again: "the clock is already running")."""
    t, _ = table(seats=4, nudge_seconds=40)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.phase is Phase.EXCHANGE)
    standing = game.standing
    assert standing is not None and len(game.actors) == 2
    president, vice = (
        member_of(t, members, s)
        for s in sorted(game.actors, key=lambda s: standing.index(game.seating[s]))
    )
    t.chairs.named(president.name).behind = 20.0  # (their own nudge time: 20 s of the 40)
    nudger = next(x for x in members if x not in (president, vice))
    await t.nudge(nudger)
    assert nudger.of(m.Nudged)[-1].seconds == 40  # type: ignore[attr-defined]
    await takes(t, vice, 1)
    timer = t.driver.timer
    assert game.phase is Phase.EXCHANGE and 38 < (timer.remaining() or 0) <= 39
    with pytest.raises(TableError, match="already running"):
        await t.nudge(vice)
    await t.stop()


async def test_a_nudges_time_is_not_halved_for_turns_run_out() -> None:
    """As before the clock: a turn that ran out halves the next turn timer's time, not a
    nudge's (the nudged player's screen says nothing is halved at such a table)."""
    t, _, waited, others = await nudge_table(600)
    t.chairs.named(waited.name).idle_turns = 2
    await t.nudge(others[0])
    assert others[0].of(m.Nudged)[-1].seconds == 600  # type: ignore[attr-defined]
    await t.stop()

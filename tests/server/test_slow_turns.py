"""A person's clock (`Slot.behind`): a hostile guest who moves a second before every
deadline cost the others the whole turn time at each of its turns, for a whole game, as
no rule was broken.  What a person's move takes beyond the free time (a quarter of the
clock, or 10 s) comes off their next turns, never below the free time; each move
quicker than that gives the difference back.  The time taken is set here by moving the
clock's deadline (a turn of ten minutes: no real time passes)."""

from __future__ import annotations

import asyncio

from president.engine import Game
from president.protocol import messages as m
from president.server.table import Table, free_time

from .test_away import move_until
from .test_nudge import nudge_table
from .test_table import Member, game_of, member_of, under_way


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


def test_the_free_time_is_a_quarter_of_the_clock_or_ten_seconds() -> None:
    assert [free_time(s) for s in (600, 60, 30, 12, 8)] == [150, 15, 10, 10, 8]


async def test_a_person_who_moves_just_before_each_deadline_has_less_time_until_quick() -> None:
    t, members, game, seat = await under_way(turn_seconds=600)
    ann = member_of(t, members, seat)
    others = [x for x in members if x is not ann]

    async def ann_next() -> float:
        await asyncio.wait_for(move_until(t, others, lambda: to_move(game, ann) is not None), 20)
        return shown(ann)

    told = [shown(ann)]
    await takes(t, ann, 599)  # a second before the deadline: 449 s beyond the free 150
    told.append(await ann_next())
    await takes(t, ann, 150)  # (all but a second of what she had: 0 given back)
    told.append(await ann_next())
    for _ in range(3):  # then moves at once: 150 s back each time
        await takes(t, ann, 0)
        told.append(await ann_next())
    assert [round(x) for x in told] == [600, 151, 151, 301, 451, 600], told
    # the others' turns were never cut
    assert t.seat_time(to_move(game, ann) or 0, 600) == 600
    for other in others:
        assert t.chairs.named(other.name).behind == 0.0
    await t.stop()


async def test_a_slow_move_within_the_free_time_costs_nothing() -> None:
    t, members, game, seat = await under_way(turn_seconds=60)
    ann = member_of(t, members, seat)
    others = [x for x in members if x is not ann]
    for _ in range(3):
        await takes(t, ann, 15)  # (a quarter of 60 s, each time)
        await asyncio.wait_for(move_until(t, others, lambda: to_move(game, ann) is not None), 20)
        assert round(shown(ann)) == 60
    await takes(t, ann, 45)
    await asyncio.wait_for(move_until(t, others, lambda: to_move(game, ann) is not None), 20)
    assert round(shown(ann)) == 30  # (45 s: 30 beyond the free 15)
    await t.stop()


async def test_a_nudge_gives_a_slow_person_less_time() -> None:
    """At a table with no turn timer the clock is the nudge's: what the nudged person
    took of it comes off the next nudge's time (said to all, and counted down)."""
    t, game, waited, others = await nudge_table(600)
    await t.nudge(others[0])
    await takes(t, waited, 590)  # (440 s beyond the free 150)
    await asyncio.wait_for(move_until(t, others, lambda: to_move(game, waited) is not None), 20)
    nudger = next(x for x in others if to_move(game, x) is None)
    await t.nudge(nudger)
    told = nudger.of(m.Nudged)[-1]
    assert isinstance(told, m.Nudged) and told.seconds == 160
    assert 159 < shown(nudger) <= 160
    await takes(t, waited, 0)  # at once: 150 s back
    assert round(t.chairs.named(waited.name).behind) == 290
    await t.stop()


async def test_a_move_with_no_clock_running_gives_time_back() -> None:
    """At a table with no turn timer, a move nobody had to hurry took nothing of a clock."""
    t, game, waited, _ = await nudge_table(600)
    t.chairs.named(waited.name).behind = 400
    seat = to_move(game, waited)
    assert seat is not None
    await t.act(waited, game.timeout_action(seat))
    assert t.chairs.named(waited.name).behind == 250
    await t.stop()


async def test_a_seats_time_is_the_shorter_of_its_clock_and_its_halved_turn() -> None:
    t, members, _game, seat = await under_way(turn_seconds=600)
    ann = member_of(t, members, seat)
    slot = t.chairs.named(ann.name)
    await takes(t, ann, 300)
    assert round(slot.behind) == 150
    assert round(t.seat_time(seat, 600)) == 450
    slot.idle_turns = 3  # (and a turn run out thrice in a row: the shorter of the two)
    assert t.seat_time(seat, 600) == 75
    slot.behind, slot.idle_turns = 600, 0  # (never below the free time)
    assert t.seat_time(seat, 600) == 150
    await t.stop()

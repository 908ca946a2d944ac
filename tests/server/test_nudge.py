"""A nudge (protocol 13): at a table with no turn timer, a guest who sits and never moves
held the game for good ("that is what no turn timer means").  Any other player seated
there can now hurry the seats the table waits for: the timer runs for them, then the
timeout rule moves."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from president.client.connection import Client
from president.engine import PASS, Game, Phase, Play
from president.protocol import messages as m
from president.protocol.errors import Code
from president.server.seats import TableError
from president.server.table import Table

from ..harness.processes import ServerProcess
from ..harness.servers import bot_key, dialer
from ..harness.waiting import wait_for
from .test_hand_history import OldMember
from .test_nobody_there import moves_made
from .test_table import (
    Member,
    all_ready,
    back_after_a_drop,
    game_of,
    member_of,
    play_until,
    seated,
    table,
)


def on_turn(t: Table, members: list[Member]) -> tuple[Member, list[Member]]:
    """The member the table waits for, and the others."""
    turn = game_of(t).turn
    assert turn is not None
    waited = member_of(t, members, turn)
    return waited, [x for x in members if x is not waited]


async def nudge_table(seconds: float) -> tuple[Table, Game, Member, list[Member]]:
    """A table with no turn timer and a nudge of `seconds`, ann, bob and cat's game under
    way: the member it waits for, and the others."""
    t, _ = table(seats=3, nudge_seconds=seconds)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    waited, others = on_turn(t, members)
    return t, game_of(t), waited, others


async def test_a_nudge_runs_the_timer_for_the_seat_then_the_timeout_rule_moves() -> None:
    t, _ = table(seats=3, nudge_seconds=1)
    members = await seated(t, "ann", "bob")
    cat = OldMember("cat", version=12)  # (protocol 12: not told, sees the timer in the view)
    await t.join(cat, None, None)
    members.append(cat)
    await all_ready(t, members)
    game = game_of(t)
    waited, others = on_turn(t, members)
    seat = game.turn
    assert seat is not None and t.driver.timer.remaining() is None  # (no timer here)
    before = moves_made(t)

    nudger = others[0]
    await t.nudge(nudger)
    told = m.Nudged(table="T", by=nudger.name, seats=(seat,), seconds=1)
    for member in members:
        assert member.of(m.Nudged) == ([] if member is cat else [told]), member.name
    view = cat.of(m.TableView)[-1]
    assert isinstance(view, m.TableView) and 0 < view.turn_deadline_ms <= 1000

    await wait_for(lambda: moves_made(t) > before)  # the nudge's second ran out
    played = [x for x in waited.sent if isinstance(x, (m.Played, m.Passed))][-1]
    assert played.seat == seat and played.timeout == "time"
    assert game.turn != seat and t.driver.timer.remaining() is None  # no timer after it
    await t.stop()


async def test_the_seats_own_move_stops_the_nudges_clock() -> None:
    t, game, waited, others = await nudge_table(600)
    await t.nudge(others[0])
    assert t.driver.timer.remaining() is not None
    seat = game.turn
    assert seat is not None
    action = Play([min(game.hand_of(seat), key=lambda c: c.rank)]) if game.top is None else PASS
    await t.act(waited, action)
    assert t.driver.timer.remaining() is None  # the next seat is not hurried
    await t.stop()


@pytest.mark.parametrize(
    ("case", "refusal"),
    [
        ("own move", "it is your move: nobody to nudge"),
        ("twice", "the clock is already running"),
        ("watcher", "you are not playing at a table"),
        ("a timer", "this table's turn timer hurries everyone"),
        ("bots only", "only a bot is to move: it needs no nudge"),
        # (a review: the nudge cut short a dropped player's grace period, and after a
        # restart played for a seat the moment it came back)
        # (its grace is 120 s: the table's clock, not a test's, says how much is left)
        ("away", r"{waited} is away: the table moves for them in [12]:[0-5]\d"),
        ("restarted", "the table waits for its players to come back"),
        # (a game-night pass was nudged a second into its turn: every turn on a clock)
        ("too soon", r"the table has waited 0 s for {waited}: a nudge waits until 10 s"),
    ],
)
async def test_what_cannot_be_nudged_is_refused_in_words(case: str, refusal: str) -> None:
    t, _ = table(seats=3, nudge_seconds=600, turn_seconds=30 if case == "a timer" else 0)
    if case == "too soon":
        t.settings.nudge_after_seconds = 10.0
    if case == "bots only":
        t.settings.bot_delay = 3600.0  # (the bot on turn is still thinking)
        members = await seated(t, "ann", "bob")
        t.chairs.add_bot("greedy", None)
        await all_ready(t, members)
        while (turn := game_of(t).turn) is not None and t.bot_for(turn) is None:
            waited, _ = on_turn(t, members)
            game = game_of(t)
            lead = Play([min(game.hand_of(turn), key=lambda c: c.rank)])
            await t.act(waited, PASS if game.top is not None else lead)
        nudger = members[0]
    else:
        members = await seated(t, "ann", "bob", "cat")
        await all_ready(t, members)
        waited, others = on_turn(t, members)
        nudger = {"own move": waited, "watcher": Member("wes")}.get(case, others[0])
        if case == "watcher":
            await t.spectate(nudger, None)
        if case == "twice":
            await t.nudge(others[1])
        if case == "away":
            await t.drop(waited)
        if case == "restarted":  # (as `Table.restored` leaves a table with no turn timer)
            t.driver.timer.resume_until = t.clock() + 600
    with pytest.raises(TableError) as refused:
        await t.nudge(nudger)
    assert refused.value.code is Code.NOT_ALLOWED
    if case in ("away", "too soon"):
        assert re.fullmatch(refusal.format(waited=waited.name), refused.value.message)
    else:
        assert refused.value.message == refusal
    if case not in ("twice", "a timer"):
        assert t.driver.timer.deadline is None  # (no clock was started)
    await t.stop()


async def test_a_nudge_sent_before_the_table_moved_is_stale() -> None:
    """ann presses `n` as the table waits for bob, and bob moves meanwhile: her nudge,
    which says the event she had seen, is refused rather than hurrying cat, whom she
    never saw the table wait for; sent again on what she sees now, it is taken."""
    t, game, waited, others = await nudge_table(600)
    seen = t.number
    seat = game.turn
    assert seat is not None
    action = Play([min(game.hand_of(seat), key=lambda c: c.rank)]) if game.top is None else PASS
    await t.act(waited, action)
    nudger = next(x for x in others if x.name != game.seating[game.turn or 0])
    with pytest.raises(TableError) as refused:
        await t.nudge(nudger, seen)
    assert refused.value.code is Code.STALE and t.driver.timer.deadline is None
    await t.nudge(nudger, t.number)
    assert t.driver.timer.deadline is not None
    await t.stop()


async def test_a_snapshot_sent_to_another_member_does_not_make_a_nudge_stale() -> None:
    """A snapshot for one who comes back takes a number the others are not sent a view
    of: a nudge saying the last view it had must still be taken (the table has not
    moved), not refused as stale until someone moves (a last read of the change)."""
    t, _ = table(seats=3, nudge_seconds=600)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    _, others = on_turn(t, members)
    nudger, other = others
    await back_after_a_drop(t, other)  # (its view, then its snapshot: a number more)
    seen = nudger.of(m.TableView)[-1].number  # type: ignore[attr-defined]
    assert seen < t.number
    await t.nudge(nudger, seen)
    assert t.driver.timer.deadline is not None
    await t.stop()


async def test_no_nudge_while_the_server_shuts_down() -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    _, others = on_turn(t, members)
    await t.driver.suspend()
    with pytest.raises(TableError) as refused:
        await t.nudge(others[0])
    assert refused.value.code is Code.SERVER_CLOSING
    assert not any(x.of(m.Nudged) for x in members)


@pytest.mark.slow
async def test_a_real_server_moves_for_a_seat_that_never_does_once_nudged(tmp_path: Path) -> None:
    """`president server --nudge-seconds 1` as a host runs it; three players at a table
    with no turn timer, one of whom never moves (a hostile guest, or one gone to bed with
    the window open).  Another nudges: every player is told, and the timeout rule moves
    for the silent seat; the game goes on."""
    server = await ServerProcess.started(
        tmp_path / "data", 0, "--nudge-seconds", "1", "--nudge-after", "3"
    )
    names = ("ann", "bob", "mal")
    people = [
        Client(await dialer(server.address, n, tmp_path, pin=server.pin, identity=bot_key(n))())
        for n in names
    ]
    heard: dict[str, list[m.Message]] = {n: [] for n in names}
    for name, person in zip(names, people, strict=True):

        async def hear(message: m.Message, name: str = name) -> None:
            heard[name].append(message)

        person.on_message = hear
    tasks = [asyncio.create_task(p.run()) for p in people]
    try:
        ann, bob, mal = people
        await ann.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=3, turn_seconds=0)
        )
        for person in people:
            await person.send(m.Join(table="T"))
        await wait_for(lambda: all(p.model.slot is not None for p in people), 30)
        for person in people:
            await person.send(m.Ready())

        # ann and bob play (passing where they may, else their first legal move) until
        # the table waits for mal, who never moves
        def someone_asked() -> Client | None:
            return next((p for p in people if p.model.my_turn and p.model.hand), None)

        while (mover := await wait_for(someone_asked, 30)) is not mal:
            number = mover.model.view.number if mover.model.view else 0
            legal = mover.model.seat_view().legal_actions()
            await mover.act(PASS if PASS in legal else legal[0])
            await wait_for(
                lambda m=mover, n=number: (m.model.view.number if m.model.view else 0) > n
            )
        seat = mal.model.seat
        # too soon first (--nudge-after 3): refused in words, then 3 s on, taken (a
        # machine that stalled 3 s between mal's turn and bob's nudge takes it at once)
        await bob.send(m.Nudge())

        def answered() -> bool:
            told = any(isinstance(x, m.Nudged) for x in heard["bob"])
            return told or any(e.about == m.Nudge.TYPE for e in bob.errors)

        await wait_for(answered)
        if bob.errors:
            assert re.fullmatch(
                r"the table has waited [0-2] s for mal: a nudge waits until 3 s",
                bob.errors[-1].message,
            ), bob.errors
            bob.errors.clear()
            await asyncio.sleep(3.2)
            await bob.send(m.Nudge())
        for name in names:
            await wait_for(lambda name=name: any(isinstance(x, m.Nudged) for x in heard[name]))
        nudged = next(x for x in heard["mal"] if isinstance(x, m.Nudged))
        assert (nudged.by, nudged.seats, nudged.seconds) == ("bob", (seat,), 1)

        def moved_for_mal() -> bool:
            return any(
                isinstance(x, (m.Played, m.Passed)) and x.seat == seat and x.timeout == "time"
                for x in heard["ann"]
            )

        await wait_for(moved_for_mal, 30)
        assert [e for p in people for e in p.errors] == []
        assert mal.model.public is not None and mal.model.public.phase is Phase.PLAY
    finally:
        for task in tasks:
            task.cancel()
        server.kill()


async def test_the_grace_of_a_seat_away_counts_down_in_the_view() -> None:
    """A players' pass: at a table with no turn timer, the player whose turn it was
    dropped and the table sat still for two minutes with no clock on anyone's screen
    (and a nudge refused). The view's `turn_deadline_ms` now counts the grace down."""
    t, _ = table(seats=3, grace_seconds=120.0)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    waited, others = on_turn(t, members)
    assert others[0].of(m.TableView)[-1].turn_deadline_ms == 0  # type: ignore[attr-defined]
    await t.drop(waited)
    view = others[0].of(m.TableView)[-1]
    assert isinstance(view, m.TableView) and 100_000 < view.turn_deadline_ms <= 120_000
    await t.stop()


async def test_after_a_restart_the_window_for_an_away_seat_counts_down_in_the_view() -> None:
    """A review: at a table with no turn timer, a restarted table's window for its
    players showed no clock, and the driver moved for the seat when it ended."""
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    waited, others = on_turn(t, members)
    async with t.lock:  # (as `Table.restored` leaves it)
        t.driver.timer.resume_until = t.clock() + 600.0
    await t.drop(waited)
    view = others[0].of(m.TableView)[-1]
    assert isinstance(view, m.TableView) and 500_000 < view.turn_deadline_ms <= 600_000
    await t.stop()


async def test_the_first_one_back_after_nobody_was_there_sees_the_grace_it_has() -> None:
    """A review: the grace stands still while nobody is here, but the first view to the
    first one back counted that time as spent (0: no clock), until the driver's next."""
    t, _ = table(seats=3, grace_seconds=30.0)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    waited, others = on_turn(t, members)
    await t.drop(waited)
    for member in others:
        await t.drop(member)
    await wait_for(lambda: t.driver.unattended_since is not None)
    t.driver.unattended_since -= 3600.0  # (nobody here for an hour, as the clock says)
    for slot in t.chairs.slots:
        if slot.away_since is not None:
            slot.away_since -= 3600.0
        if slot.owed_from is not None:  # (away owing its move: `Slot.owed_away`)
            slot.owed_from -= 3600.0
    watcher = Member("wes")
    await t.spectate(watcher, None)
    first = watcher.of(m.TableView)[0]
    assert isinstance(first, m.TableView) and 20_000 < first.turn_deadline_ms <= 30_000
    await t.stop()


async def test_a_refusal_for_seats_away_gives_each_its_own_time() -> None:
    t, _ = table(seats=4, grace_seconds=120.0)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.phase is Phase.EXCHANGE and len(game.actors) >= 2)
    first, second = (next(x for x in members if x.name == game.seating[s]) for s in game.actors[:2])
    await t.drop(first)
    await t.drop(second)
    now = t.clock()
    t.driver.clock = lambda: now  # (the clock stands still: no margin for a slow machine)
    for slot in t.chairs.slots:  # the first went 100 s ago, the second just now
        if slot.name in (first.name, second.name):
            assert slot.away_since is not None and slot.owed_from is not None
            slot.away_since = slot.owed_from = now - (100.0 if slot.name == first.name else 0.0)
    nudger = next(x for x in members if game.seating.index(x.name) not in game.actors)
    with pytest.raises(TableError) as refused:
        await t.nudge(nudger)
    assert refused.value.message == (
        f"{first.name} is away: the table moves for them in 0:20; {second.name} in 2:00"
    ), refused.value.message
    await t.stop()


@pytest.mark.parametrize("case", ["dropped", "restarted", "nobody was here"])
async def test_the_table_moves_for_a_seat_away_when_the_view_says(case: str) -> None:
    """The wait for a seat away is reckoned in one place (`Driver.away_wait`): the clock a
    view shows for it ends when the driver moves for it, whether it is the grace period,
    a restart's window (longer here) or a grace that stood still while nobody was here."""
    t, _ = table(seats=3, grace_seconds=1.5 if case == "nobody was here" else 0.5)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    waited, others = on_turn(t, members)
    # when the driver means to move, each time it waits for a time, and the last move then
    # (after the seat's, the next seat, away too, has a wait of its own: not this one's)
    ends: list[tuple[float, float]] = []
    woken = t.driver._woken

    async def noted(timeout: float | None) -> bool:
        if timeout is not None:
            ends.append((t.clock() + timeout, t.moved_at))
        return await woken(timeout)

    t.driver._woken = noted  # type: ignore[method-assign]
    if case == "restarted":
        async with t.lock:  # (as `Table.restored` leaves it; long: a slow drop leaves > 1 s)
            t.driver.timer.resume_until = t.clock() + 2.5
    if case == "nobody was here":
        for member in (waited, *others):
            await t.drop(member)
        await wait_for(lambda: t.driver.unattended_since is not None)
        await asyncio.sleep(0.8)  # (a grace spent meanwhile would leave 0.7 s)
        before, watcher = t.clock(), Member("wes")
        await t.spectate(watcher, None)
        view = watcher.of(m.TableView)[0]
    else:
        before = t.clock()
        await t.drop(waited)
        view = others[0].of(m.TableView)[-1]
    after = t.clock()
    assert isinstance(view, m.TableView) and view.turn_deadline_ms > 0
    shown = view.turn_deadline_ms / 1000
    assert (shown > 1.0) is (case != "dropped")  # (not the 0.5 s grace: the window, or 1.5 s)
    await wait_for(lambda: t.moved_at > after, 10)
    assert t.moved_at >= before + shown - 0.001, (shown, t.moved_at - before)  # (not sooner)
    # the end it waited for is the view's (the view's was reckoned between `before` and
    # `after`; the driver's end is noted a few instructions after it reckoned it: no
    # scheduling comes between, so the margin is only for a preempted process)
    waited_for = [end for end, moved in ends if moved <= after]
    assert waited_for and before + shown - 0.01 <= waited_for[-1] <= after + shown + 0.25, (
        shown,
        ends,
    )
    await t.stop()


async def test_a_restarts_window_is_waited_for_a_seat_away_however_it_went() -> None:
    """The restart's window is the table's, not a seat's: the driver waits it out for a
    seat away whatever the table knows of when it went (before `Driver.away_wait`, a seat
    away with no `away_since` was waited for; after it, played for at once: `waits` came
    out empty, and `min(waits, default=0.0)` said the window was over)."""
    t, _ = table(seats=3, grace_seconds=0.2)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    waited, _ = on_turn(t, members)
    moved = t.moved_at
    async with t.lock:
        t.driver.timer.resume_until = t.clock() + 1.5  # (as `Table.restored` leaves it)
        slot = t.chairs.named(waited.name)
        slot.member, slot.away_since = None, None  # (away; when it went is not known)
        before = t.clock()
        t.driver.wake()
    await wait_for(lambda: t.moved_at > moved, 10)
    assert t.moved_at - before >= 1.4, t.moved_at - before  # the window, not at once
    await t.stop()


async def test_a_hands_first_turn_waits_the_floor_from_its_deal() -> None:
    """A hostile pass: the floor counted from the last hand's last move, so a long pause
    between hands (or a seed held back) let the next hand's first turn be nudged at its
    deal.  The deal is the table's move: the wait counts from it."""
    t, _ = table(seats=3, nudge_seconds=600)
    t.settings.nudge_after_seconds = 10.0
    now = [1000.0]
    t.clock = lambda: now[0]  # (the table's clock, moved by hand here)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    first = game.hand
    dealing = t.deal

    def deal_late() -> None:  # (a long pause between hands, and its seeds: then the deal)
        now[0] += 60.0
        dealing()

    t.deal = deal_late  # type: ignore[method-assign]
    await play_until(t, members, lambda: game.hand != first)
    await wait_for(lambda: game.hand != first and bool(game.actors))
    nudger = next(x for x in members if x.name not in [game.seating[s] for s in game.actors])
    with pytest.raises(TableError, match="a nudge waits until 10 s"):
        await t.nudge(nudger)
    now[0] += 10.0  # (and once the turn has lasted the floor, taken)
    await t.nudge(nudger)
    assert t.driver.timer.remaining() is not None
    await t.stop()

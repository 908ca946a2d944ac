"""A player who is away (the connection dropped; not one who left) is not played for at
once: their turn time runs as usual, with no turn timer they are waited for up to the
grace period, and the deal waits its seed window for them (docs/reliability.md)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.engine import Action, Play, find_preset
from president.protocol import messages as m
from president.server.app import Server
from president.server.journal import Entry
from president.server.restore import differences, rebuild, replay_what_can_be
from president.server.table import Table

from ..harness.processes import ServerProcess
from ..harness.servers import (
    client,
    dialer,
    in_play,
    running_server,
    seated_among_server_bots,
    sit_among_server_bots,
)
from ..harness.waiting import wait_for
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


@dataclass
class Away:
    """ann among server bots, seen by a watcher: she moved, then her connection dropped."""

    ann: Client
    table: Table
    seat: int
    watcher: Client
    #: How much the watcher had received when ann went.
    mark: int
    tasks: list[asyncio.Task[None]]
    #: When the watcher got each message it received (`time.monotonic`, the server's clock).
    arrived: list[float]

    def acts_of_ann(self) -> list[m.Message]:
        """Her seat's plays and passes since she went."""
        return [
            x
            for x in self.watcher.received[self.mark :]
            if isinstance(x, (m.Played, m.Passed)) and x.seat == self.seat
        ]

    def first_act_of_ann_seen(self) -> float:
        """When the watcher got the first of those."""
        return next(
            self.arrived[i]
            for i, x in enumerate(self.watcher.received)
            if i >= self.mark and isinstance(x, (m.Played, m.Passed)) and x.seat == self.seat
        )


async def moved_then_away(server: Server, tmp_path: Path, turn_seconds: int) -> Away:
    """ann's move in the first hand, then her connection drops (the bots, thinking 0.1 s,
    play round to her turn after she has gone)."""
    ann, task = await seated_among_server_bots(server, tmp_path, seats=3, turn_seconds=turn_seconds)
    watcher = await client(server, "watcher", tmp_path)
    watcher.keep = True
    arrived: list[float] = []

    async def note_arrival(message: m.Message) -> None:
        arrived.append(time.monotonic())

    watcher.on_message = note_arrival
    tasks = [asyncio.create_task(watcher.run())]
    await watcher.send(m.Spectate(table="T"))
    await ann.send(m.Ready())
    await wait_for(lambda: in_play(ann) and ann.model.my_turn and bool(ann.model.hand), 20)
    table, seat = server.lobby.tables["T"], ann.model.seat
    assert seat is not None and table.game is not None
    away = Away(ann, table, seat, watcher, len(watcher.received), tasks, arrived)
    await ann.act(table.game.timeout_action(seat))
    await wait_for(away.acts_of_ann)  # her move is in; now she goes
    task.cancel()
    await ann.link.close()  # the Wi-Fi drops
    away.mark = len(watcher.received)
    return away


async def test_a_player_away_for_two_seconds_loses_no_turn(tmp_path: Path) -> None:
    """The bots play round to her turn: the table waits for her (her turn time runs),
    and when she is back, her seat's next action is hers."""
    async with running_server(tmp_path, bot_delay=0.1) as server:
        # (a turn time far longer than any wait here: only a table that does not wait
        # for her can play for her seat)
        away = await moved_then_away(server, tmp_path, turn_seconds=120)
        seat, game = away.seat, away.table.game
        assert game is not None
        await wait_for(lambda: game.actors == [seat] or away.acts_of_ann())  # round to her
        await asyncio.sleep(2.0)  # away two seconds on her turn
        assert away.acts_of_ann() == [], "the table played for ann while she was away"
        assert game.actors == [seat]  # it waits on her turn
        back = await client(server, "ann", tmp_path)
        away.tasks.append(asyncio.create_task(back.run()))
        assert away.ann.model.slot is not None
        await back.send(m.Resume(table="T", seat=away.ann.model.slot, token=away.ann.model.token))
        await wait_for(lambda: back.model.my_turn and bool(back.model.hand))
        # her own move, and one the timeout rule would not have made where there is one
        timeout = game.timeout_action(seat)
        mine: Action = next(
            (a for a in back.model.seat_view().legal_actions() if a != timeout), timeout
        )
        await back.act(mine)
        await wait_for(away.acts_of_ann)
        first = away.acts_of_ann()[0]
        if isinstance(mine, Play):
            assert isinstance(first, m.Played) and set(first.cards) == set(map(str, mine.cards))
        else:
            assert isinstance(first, m.Passed)
        for task in away.tasks:
            task.cancel()


async def test_with_no_turn_timer_an_away_seat_is_played_for_after_the_grace_period(
    tmp_path: Path,
) -> None:
    grace = 2.0
    async with running_server(tmp_path, bot_delay=0.1, grace_seconds=grace) as server:
        away = await moved_then_away(server, tmp_path, turn_seconds=0)
        chair = away.table.chairs.slots[away.ann.model.slot or 0]
        went = await wait_for(lambda: chair.away_since)  # when the server saw her go
        await wait_for(away.acts_of_ann, 30)  # the grace period is over: the timeout rule
        # not at once: her seat's move is seen after it is made, and may not be made before
        # the grace period from when she went is over (a slow machine only sees it later)
        seen = away.first_act_of_ann_seen()
        assert seen >= went + grace, f"played for ann {seen - went:.2f} s after she went"
        for task in away.tasks:
            task.cancel()


async def test_the_deal_waits_for_an_away_seat_and_its_seed_counts_when_it_comes_back(
    tmp_path: Path,
) -> None:
    """ann's connection drops as the first hand ends; she is back within the next deal's
    seed window: the deal waits for her, she gets the commit, and her seed is in it."""
    async with running_server(
        # (a seed window long enough for any machine: the deal goes as soon as her seed
        # is in; the deal of hand 1 waiting for her is what is tested)
        tmp_path,
        bot_delay=0.0,
        pause_between_hands=1.0,
        seed_seconds=120.0,
    ) as server:
        ann, task = await seated_among_server_bots(server, tmp_path, seats=3, turn_seconds=30)
        task.cancel()

        ann.reconnect = dialer(f"127.0.0.1:{server.port}", "ann", tmp_path)
        bot = BotPlayer(ann, RandomBot(random.Random(2)))
        plays = ann.on_message
        dropped = asyncio.Event()

        async def on_message(message: m.Message) -> None:
            if plays is not None:
                await plays(message)
            if isinstance(message, m.HandOver) and message.hand == 0 and not dropped.is_set():
                dropped.set()
                ann.link.writer.transport.abort()  # gone as the hand ends

        ann.on_message = on_message
        follow = asyncio.create_task(ann.follow(lambda what: None, retry_seconds=1.5))
        await ann.send(m.Ready())
        await wait_for(lambda: 1 in ann.model.deal_results, 30)
        assert dropped.is_set()
        assert ann.model.deal_results[1] is None, ann.model.deal_results[1]
        assert 1 in ann.seeds  # her seed went into the deal of hand 1 (the reveal shows it)
        follow.cancel()
        del bot


@pytest.mark.slow
async def test_a_real_server_process_waits_for_a_player_away_for_two_seconds(
    tmp_path: Path,
) -> None:
    """The same with `president server` as a host runs it: ann's connection is cut after
    her move, her client takes the seat back by itself 2 s later, and in between nothing
    was played for her seat."""
    # (the bots think 0.2 s: she is gone before her turn comes round again)
    server = await ServerProcess.started(tmp_path / "data", 0, "--bot-delay", "0.2")
    ann = Client(await dialer(server.address, "ann", tmp_path, pin=server.pin)())
    ann.reconnect = dialer(server.address, "ann", tmp_path, pin=server.pin)
    watcher = Client(await dialer(server.address, "watcher", tmp_path, pin=server.pin)())
    ann.keep = watcher.keep = True
    said: list[str] = []
    tasks = [
        asyncio.create_task(ann.follow(said.append, retry_seconds=2.0)),
        asyncio.create_task(watcher.run()),
    ]
    try:
        await sit_among_server_bots(ann, seats=3)
        await watcher.send(m.Spectate(table="T"))
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann) and ann.model.my_turn and bool(ann.model.hand), 20)
        seat = ann.model.seat

        def acts_of_ann(since: int) -> list[m.Message]:
            return [
                x
                for x in watcher.received[since:]
                if isinstance(x, (m.Played, m.Passed)) and x.seat == seat
            ]

        mark = len(watcher.received)
        await ann.act(RandomBot(random.Random(1)).choose(ann.model.seat_view()))
        await wait_for(lambda: acts_of_ann(mark))
        mark, back = len(watcher.received), len(ann.received)
        ann.link.writer.transport.abort()  # cut: her client comes back by itself in 2 s
        await wait_for(lambda: any(isinstance(x, m.Seated) for x in ann.received[back:]), 30)
        await wait_for(lambda: ann.model.my_turn and bool(ann.model.hand))
        assert "connection lost — reconnecting (attempt 1)" in said and "reconnected" in said
        assert acts_of_ann(mark) == [], "the table played for ann while she was away"
        await ann.act(RandomBot(random.Random(2)).choose(ann.model.seat_view()))
        await wait_for(lambda: acts_of_ann(mark))  # and the game goes on with her
    finally:
        for task in tasks:
            task.cancel()
        server.kill()


async def test_once_everyone_is_back_after_a_restart_a_new_drop_is_an_ordinary_one() -> None:
    """A restored table's resume window must not outlive the return of its players: a
    seat that drops later is waited for as any away seat (here: no turn timer, so the
    grace period), not played for because the window is over."""
    t, _ = table(seats=3, turn_seconds=0, grace_seconds=60.0)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    t.driver.timer.resume_until = t.clock() - 1  # restored, its window over, everyone back
    t.driver.wake()
    await wait_for(lambda: t.driver.timer.resume_until is None)  # seen: a window no more
    turn = game.turn
    assert turn is not None
    await t.drop(next(x for x in members if x.name == game.seating[turn]))
    # the driver looks again (it clears its wake as it looks, and a move for the seat
    # would be made in that same step); and a while later it still has not moved for it
    await wait_for(lambda: not t.driver._wake.is_set())
    await asyncio.sleep(0.3)
    assert game.turn == turn, "the seat was played for at once"
    await t.stop()


async def move_until(t: Table, movers: list[Member], done: Callable[[], bool]) -> None:
    """`movers` move (the timeout rule's move, as any legal one) until `done()`."""
    game = game_of(t)
    while not done():
        for actor in list(game.actors):
            mover = next((x for x in movers if x.name == game.seating[actor]), None)
            if mover is not None:
                await t.act(mover, game.timeout_action(actor))
        await asyncio.sleep(0.01)


async def test_a_seat_played_for_while_away_is_played_for_at_once_until_it_is_back() -> None:
    """A game-night pass: a friend closed their window, and every one of their turns
    after that kept the others waiting the whole turn time, for the rest of the game.
    Once the timeout rule has played for a seat while it is away (here: the window after
    a restart ran out), its later turns are played for at once; back, they have their
    time again.  (A turn time of ten minutes: only a move at once passes.)"""
    t, members, game, seat = await under_way(turn_seconds=600)
    ann = member_of(t, members, seat)
    others = [x for x in members if x is not ann]
    await t.drop(ann)
    t.driver.timer.resume_until = t.clock() - 1  # restored, its window over, ann not back
    t.driver.wake()
    await wait_for(lambda: seat not in game.actors)  # played for: the window is over
    assert t.chairs.slots[[s.name for s in t.chairs.slots].index(ann.name)].lapsed

    def played_for() -> int:
        """The moves the timeout rule made for the seat away, as the others were told."""
        told = others[0].sent
        return sum(isinstance(x, (m.Played, m.Passed)) and x.timeout == "away" for x in told)

    for _ in range(3):  # each of its turns: played for at once
        before = played_for()
        await asyncio.wait_for(move_until(t, others, lambda n=before: played_for() > n), 20)
    token = next(x for x in ann.sent if isinstance(x, m.Seated)).token
    back = Member(ann.name, key=ann.key)
    await t.resume(back, [slot.name for slot in t.chairs.slots].index(ann.name), token)
    await asyncio.wait_for(
        move_until(t, others, lambda: any(game.seating[s] == ann.name for s in game.actors)),
        20,
    )
    await wait_for(lambda: not t.driver._wake.is_set())  # (the driver has looked)
    await asyncio.sleep(0.3)
    assert any(game.seating[s] == ann.name for s in game.actors), "played for while back"
    assert not t.chairs.slots[[s.name for s in t.chairs.slots].index(ann.name)].lapsed
    await t.stop()


async def test_a_seat_here_whose_time_keeps_running_out_has_less_of_it_until_it_moves() -> None:
    """A hostile pass sat, stayed connected and never moved: every one of its turns cost
    the others the whole turn time, for the whole game.  Each turn in a row whose time
    runs out with its person here halves the next one's, down to 10 s; a move of its own
    gives the whole time back.  (Ten minutes a turn: the halves are unmistakable.)"""
    t, members, game, seat = await under_way(turn_seconds=600)
    ann = member_of(t, members, seat)
    others = [x for x in members if x is not ann]

    def ann_to_move() -> bool:
        return any(game.seating[s] == ann.name for s in game.actors)

    def others_move_until_ann() -> Awaitable[None]:
        return move_until(t, others, ann_to_move)

    def seconds_shown() -> float:
        """The time ann's turn has, as the view she is sent says."""
        views = [x for x in ann.sent if isinstance(x, m.TableView)]
        assert views[-1].turn_deadline_ms is not None
        return views[-1].turn_deadline_ms / 1000

    told_times = []
    for _ in range(3):  # her time runs out three turns in a row, her connection open
        await asyncio.wait_for(others_move_until_ann(), 20)
        told_times.append(seconds_shown())
        t.driver.timer.deadline = t.clock() - 1
        t.driver.wake()
        await wait_for(lambda: not ann_to_move())
    assert [round(x, -1) for x in told_times] == [600, 300, 150], told_times
    await asyncio.wait_for(others_move_until_ann(), 20)
    assert 70 < seconds_shown() <= 75  # (halved once more: 75 s)
    seat = next(s for s in game.actors if game.seating[s] == ann.name)
    await t.act(ann, game.timeout_action(seat))  # she moves of her own
    await asyncio.wait_for(others_move_until_ann(), 20)
    assert seconds_shown() > 590, "her whole time again"
    t.chairs.named(ann.name).idle_turns = 9
    assert t.turn_time() == 10.0  # (the floor: time for a person back to move)
    await t.stop()
    # a new game at the table: every seat's turns have their whole time again (a review:
    # one away at the end of a game began the next on 10 s turns), the clock of a slow
    # person's moves too (tests/server/test_slow_turns.py)
    t.chairs.named(ann.name).behind = 449.0
    t.status = "waiting"
    for member in members:
        await t.ready(member, True)
    slot = t.chairs.named(ann.name)
    assert t.status == "playing" and slot.idle_turns == 0 and slot.behind == 0.0
    await t.stop()


async def test_a_due_of_several_cards_the_timer_pays_is_one_turn_run_out() -> None:
    """A self-review: the timeout rule pays a due a card at a time, and each card counted
    as a turn run out, so a 7's hand-over of two quartered the seat's next turn.  A due is
    one turn.  (Such a due came in the first hand in 399 of 401 hands tried:
    tests/server/test_grace.py; a game of 5 hands with none fails this on correct code,
    under (1/100)^5.)"""
    daifugo = find_preset("daifugo")
    t, _ = table(seats=4, rules=daifugo, preset="daifugo", turn_seconds=600)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)

    def sevens_and_tens(seat: int) -> Action:  # (in twos or more where a seat can)
        sets = [
            a
            for a in game.legal_actions(seat)
            if isinstance(a, Play) and a.rank in (4, 7) and a.count >= 2
        ]
        return max(sets, key=lambda a: a.count) if sets else game.timeout_action(seat)

    await play_until(
        t, members, lambda: game.due is not None and game.due.size >= 2, sevens_and_tens
    )
    seat = game.actor
    assert seat is not None and game.due is not None
    owed = game.due.size
    async with t.lock:
        t.driver.timer.deadline = t.clock() - 1  # its time runs out, its person here
        t.driver.wake()
    await wait_for(lambda: game.actor != seat or game.due is None)
    slot = t.chairs.named(game.seating[seat])
    assert owed >= 2 and slot.idle_turns == 1, (owed, slot.idle_turns)
    await t.stop()


async def test_after_a_restart_the_clock_shows_the_window_for_a_seat_not_back() -> None:
    """A game-night pass: restarted, the table waited 120 s for the friend to lead who
    was not back, and the others' clock counted down the 35 s his turn had held and
    stood at 0s for a minute.  The view says when the timeout rule will move: the
    window's end while a seat owing a move is away, the held time once all are back."""
    t, members, _, seat = await under_way(turn_seconds=60)
    timer = t.driver.timer
    await t.drop(member_of(t, members, seat))
    async with t.lock:  # (restored: the turn's time held, the window for the players running)
        timer.deadline, timer.held, timer.resume_until = None, 35.0, t.clock() + 120
        shown = t.view().turn_deadline_ms
    assert 100_000 < shown <= 120_000, shown
    await t.stop()


async def test_the_lobby_hears_when_an_away_persons_chair_is_freed(tmp_path: Path) -> None:
    """A newcomer's pass: bots killed at a table before its game; their chairs were freed
    when the grace ran out, and the lobby still listed the table full, its four names,
    for anyone who stayed there (a client that came back saw it empty)."""
    async with running_server(tmp_path, grace_seconds=0.5) as server:
        ann = await client(server, "ann", tmp_path)
        ann_task = asyncio.create_task(ann.run())
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=4))
        await ann.send(m.Join(table="T"))
        bob = await client(server, "bob", tmp_path)
        bob_task = asyncio.create_task(bob.run())
        await bob.send(m.ListTables())

        def players() -> tuple[str, ...] | None:
            listed = {info.name: info for info in bob.lobby.tables or ()}
            return listed["T"].players if "T" in listed else None

        await wait_for(lambda: (players() or ())[:1] == ("ann",))
        ann.link.writer.transport.abort()  # gone; her chair waits 0.5 s
        await wait_for(lambda: players() == ("", "", "", ""), 30, lambda: f"{players()}")
        for task in (ann_task, bob_task):
            task.cancel()
        await bob.link.close()


async def test_the_record_and_a_rebuild_say_which_moves_the_table_made(tmp_path: Path) -> None:
    """A game-night pass: `analyze` judged the moves the table made for a friend away as
    his own.  The game's record marks them (`timeout`), as the journal's rebuild keeps
    them: a restart in between loses none."""
    # (the bots think 20 ms a move: the game is still on when the first mark is made)
    async with running_server(tmp_path, bot_delay=0.02) as server:
        ann, task = await seated_among_server_bots(
            server, tmp_path, seats=3, turn_seconds=1, toggles={"target": 2}
        )
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        table = server.lobby.tables["T"]
        watcher = await client(server, "watcher", tmp_path)  # (a person there: no move
        watching = asyncio.create_task(watcher.run())  # is made for nobody)
        await watcher.send(m.Spectate(table="T"))
        await wait_for(lambda: table.attended and len(table.chairs.spectators) == 1)
        task.cancel()
        await ann.link.close()  # gone: played for after its second, then at once
        await wait_for(lambda: table.timeouts, 30)
        journal = server.journal
        assert journal is not None
        async with table.lock:
            assert table.status == "playing"
            ((_, _, entries),) = [t for t in journal.open_tables() if t[1] == "T"]
            rebuilt = rebuild(entries, server.config, server.write_record, time.monotonic)
            assert differences(table, rebuilt) == []
            assert rebuilt.timeouts == table.timeouts
            # and a journal damaged after them, set aside: its record keeps them too
            damaged = [*entries, Entry("damaged", {"why": "a row is not JSON"})]
            game, marks = replay_what_can_be(damaged, server.config)
            assert game is not None and marks == table.timeouts
        await wait_for(lambda: table.status == "finished", 60)
        watching.cancel()
    (path,) = (tmp_path / "data" / "records").glob("*.json")
    document = json.loads(path.read_text())
    marked = [
        (
            hand["seating"][step["seat"]]
            if hand.get("seating")
            else document["players"][step["seat"]]
        )
        for hand in document["hands"]
        for step in hand["actions"]
        if "timeout" in step
    ]
    assert marked and set(marked) == {"ann"}, marked
    assert {step.get("timeout") for hand in document["hands"] for step in hand["actions"]} <= {
        None,
        "away",
    }


@pytest.mark.slow
async def test_analyze_does_not_judge_a_killed_bots_moves_as_its_own(tmp_path: Path) -> None:
    """README: a move the table made for a player is not judged as theirs.  Real
    processes: a `president server`, two `president bot`s and a third, zed, SIGKILLed
    once the game is under way (a friend's closed window); the table plays for zed, the
    game ends, and `president analyze` of its record counts those moves apart."""
    from ..harness.processes import bot_process, environment, president, stop

    server = await ServerProcess.started(tmp_path / "data", 0, "--bot-delay", "0.05")
    env = environment(tmp_path)
    watcher = Client(await dialer(server.address, "watcher", tmp_path, pin=server.pin)())
    watcher.keep = True  # (a person there: the table moves for nobody else)
    watching = asyncio.create_task(watcher.run())
    shape = ("--table", "T", "--seats", "3", "--turn-seconds", "1", "--set", "target=2")
    bots = bot_process(server, env, *shape, "--count", "2", "--strategy", "random")
    zed = None
    try:
        await bots.said("random-bot-2: seated at T", timeout=60)
        zed = bot_process(server, env, *shape, "--name", "zed", "--strategy", "random")
        await watcher.send(m.Spectate(table="T"))
        await wait_for(lambda: any(isinstance(x, m.HandStarted) for x in watcher.received), 60)
        zed.proc.kill()  # (SIGKILL: gone without a word, mid-game)
        assert await bots.exits(120) == 0, bots.text() + bots.errors()
        records = tmp_path / "data" / "records"
        await wait_for(lambda: list(records.glob("*.json")), 30)
        (record,) = records.glob("*.json")
        done = await asyncio.to_thread(
            president, "analyze", str(record), "--seat", "zed", "--playouts", "8", env=env
        )
    finally:
        watching.cancel()
        stop(bots, zed)
        server.stop()
    assert done.returncode == 0, done.stderr
    made = re.search(r"  (\d+) moves? the table made for zed \(its time ran out", done.stdout)
    assert made is not None and int(made[1]) >= 1, done.stdout
    document = json.loads(record.read_text())
    marked = [
        step["timeout"]
        for hand in document["hands"]
        for step in hand["actions"]
        if "timeout" in step and (hand.get("seating") or document["players"])[step["seat"]] == "zed"
    ]
    assert "away" in marked and len(marked) == int(made[1]), (marked, done.stdout)

"""Headless bots over the protocol (`client/headless.py`): the same bot object plays at a
real server in this process, each online view it gets holding what the engine's own view
of that seat holds; after a restart it takes its chair back by itself."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from president.bots.strategies import make_strategy
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.engine import Phase, SeatView
from president.protocol import messages as m

from ..harness.servers import dialer, running_server, seated_among_server_bots
from ..harness.waiting import wait_for


@pytest.mark.parametrize("strategy", ["greedy", "heuristic", "hoarder", "search"])
async def test_the_same_bot_object_plays_online(tmp_path: Path, strategy: str) -> None:
    """A seat at a real server played by the strategy; each online view it is given
    matches the server's own view of that seat."""
    async with running_server(tmp_path) as server:
        # (a game to 3 points, 2 a hand at most: two hands at least, the second with the
        # exchange; a whole game of 11 was more of the same)
        person, task = await seated_among_server_bots(
            server, tmp_path, turn_seconds=0, toggles={"target": 3}
        )
        inner = make_strategy(strategy, random.Random(5), playouts=16)
        mismatches: list[str] = []
        exchanges: list[int] = []

        loop = asyncio.get_running_loop()

        async def check(view: SeatView) -> None:  # (on the server's thread: its game)
            game = server.lobby.tables["T"].game
            assert game is not None
            truth = game.view_for(view.seat)
            mismatches.extend(
                f"{name}: {getattr(view, name)} != {getattr(truth, name)}"
                for name in SeatView._fields
                if getattr(view, name) != getattr(truth, name)
            )

        class Checked:
            def choose(self, view: SeatView) -> object:  # (in the bot's thread)
                if view.phase is Phase.PLAY:  # (in the exchange, others' returns do not wait)
                    asyncio.run_coroutine_threadsafe(check(view), loop).result(10)
                exchanges.append(len(view.exchange))
                return inner.choose(view)

        bot = BotPlayer(person, Checked())  # type: ignore[arg-type]
        await person.send(m.Ready())
        await wait_for(bot.game_over.is_set, 120)
        assert not mismatches, mismatches[:5]
        assert any(exchanges), "no exchange was ever seen online"
        assert not [e for e in person.errors if e.about], person.errors
        task.cancel()
        await person.link.close()


async def following_bot(port: int, folder: Path) -> tuple[Client, BotPlayer, asyncio.Task[None]]:
    """A random bot called "bot" at the server on `port`, which reconnects by itself when
    the server goes (`Client.follow`, its task)."""
    dial = dialer(f"127.0.0.1:{port}", "bot", folder)
    bot = Client(await dial())
    bot.reconnect = dial
    player = BotPlayer(bot, make_strategy("random", random.Random(1)))
    follow = asyncio.create_task(bot.follow(lambda what: None, retry_seconds=0.1))
    return bot, player, follow


async def test_a_bot_back_after_a_restart_at_a_table_with_no_game_on_says_ready_again(
    tmp_path: Path,
) -> None:
    """A graceful stop between games: the bot reconnects by itself, takes its chair back
    (a restarted server counts nobody as ready until they are back) and is ready again."""
    async with running_server(tmp_path) as server:
        port = server.port
        bot, player, follow = await following_bot(port, tmp_path)
        await bot.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await bot.send(m.Join(table="T"))
        await wait_for(lambda: bot.model.slot is not None)
        player.ready = True
        await bot.send(m.Ready())
        await wait_for(lambda: server.lobby.tables["T"].slots[0].ready)
    async with running_server(tmp_path, port=port) as again:
        chair = again.lobby.tables["T"].slots[0]
        await wait_for(lambda: chair.present and chair.ready, 60)
    follow.cancel()


async def test_a_bot_back_after_a_restart_at_a_finished_table_says_ready_again(
    tmp_path: Path,
) -> None:
    """The same between two games at a finished table (a hostile-guest pass saw bots of
    `president bot --games 0` sit there unready for good after a restart: every view of
    a finished table shows the game over already seen, and the bot answered none)."""
    async with running_server(tmp_path) as server:
        port = server.port
        bot, player, follow = await following_bot(port, tmp_path)
        ann = Client(await dialer(f"127.0.0.1:{port}", "ann", tmp_path)())
        BotPlayer(ann, make_strategy("random", random.Random(2)))  # (ann plays her turns)
        ann_task = asyncio.create_task(ann.run())
        await bot.send(m.CreateTable(name="T", preset="classic", toggles={"target": 1}, seats=3))
        for person in (bot, ann):
            await person.send(m.Join(table="T"))
        await wait_for(lambda: bot.model.slot is not None and ann.model.slot is not None)
        await bot.send(m.AddBot(table="T", strategy="random"))
        player.ready = True
        for person in (bot, ann):
            await person.send(m.Ready())
        await wait_for(player.game_over.is_set, 60)
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.status == "finished")
        player.game_over.clear()  # (as `president bot` does before each game)
        await bot.send(m.Ready())  # ann is not ready: no game starts
        await wait_for(lambda: table.slots[bot.model.slot or 0].ready)
        ann_task.cancel()
    async with running_server(tmp_path, port=port) as again:
        chair = again.lobby.tables["T"].slots[0]
        assert again.lobby.tables["T"].status == "finished"
        await wait_for(lambda: chair.present and chair.ready, 60)
    follow.cancel()


@pytest.mark.slow
async def test_a_bot_slower_than_the_timer_sends_no_answer_to_a_turn_gone(tmp_path: Path) -> None:
    """A strategy that answers only after the turn timer has played for it (a user pass:
    `time.sleep(4)` against a 2 s timer): its answers are dropped, none reaches the server
    (they were taken at later turns where they happened to be legal, or refused by the
    hundred), and its connection read on meanwhile (the deal's seeds in time)."""
    import threading

    from president.client.headless import _acted

    async with running_server(tmp_path) as server:
        person, task = await seated_among_server_bots(server, tmp_path, turn_seconds=1)
        timed_out = threading.Event()  # (set on the loop, waited for in the bot's thread)
        chosen: list[object] = []

        class TooSlow:
            def choose(self, view: SeatView) -> object:
                timed_out.clear()
                assert timed_out.wait(30), "the turn timer never played for the bot"
                chosen.append(view.legal_actions()[0])
                return chosen[-1]

        bot = BotPlayer(person, TooSlow())  # type: ignore[arg-type]
        stuck: list[float] = []  # (told once a choice: the timer moved while it chose)
        bot.on_stuck = stuck.append
        heard = person.on_message
        mine: list[str] = []  # each own move's `timeout` ("" if the bot's own)

        async def spy(message: m.Message) -> None:
            seat = person.model.seat
            if isinstance(message, m.TableEvent) and seat is not None and _acted(message) == seat:
                mine.append(getattr(message, "timeout", ""))
                timed_out.set()
            assert heard is not None
            await heard(message)

        person.on_message = spy
        await person.send(m.Ready())
        await wait_for(lambda: bot.late >= 3, 60)
        assert len(chosen) >= 3 and bot.refused == 0, (chosen, person.errors)
        assert len(stuck) >= bot.late  # (each late answer's choice was told of first)
        assert mine and all(mine), mine  # every move of the seat the timer's
        checks = server.lobby.tables["T"].deal_checks
        assert all(check.get("ann", True) for check in checks.values()), checks
        person.on_message = heard  # (and the thread choosing now let go)
        timed_out.set()
        task.cancel()
        await person.link.close()


@pytest.mark.slow
async def test_an_answer_chosen_before_a_drop_is_not_sent_after_it(tmp_path: Path) -> None:
    """A review of the threaded `choose`: the strategy answers a lead, the connection
    drops while it chooses, the turn timer plays for the seat meanwhile (told after the
    reconnect as a snapshot, not as events), and the seat leads again in the same hand
    before the answer comes: that answer is not sent (it was, and was taken or refused),
    and the turn now is answered afresh."""
    import threading

    from president.engine import Play

    from ..harness.servers import bot_key, client

    async with running_server(tmp_path) as server:
        where = f"127.0.0.1:{server.port}"
        person = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        person.reconnect = dialer(where, "ann", tmp_path, identity=bot_key("ann"))
        status: list[str] = []
        follow = asyncio.create_task(person.follow(status.append, retry_seconds=7))
        others = [
            await client(server, f"b{i}", tmp_path, identity=bot_key(f"b{i}")) for i in range(3)
        ]
        reading = [asyncio.create_task(c.run()) for c in others]
        await person.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=4, turn_seconds=3)
        )
        loop = asyncio.get_running_loop()
        started, release = asyncio.Event(), threading.Event()
        stale: list[object] = []  # the blocked answer: an object of its own, told by identity
        blocked: list[SeatView] = []

        class Blocking:
            def choose(self, view: SeatView) -> object:
                legal = view.legal_actions()
                if view.phase is Phase.PLAY and view.top is None and not blocked:
                    blocked.append(view)
                    loop.call_soon_threadsafe(started.set)
                    release.wait(60)
                    stale.append(Play(list(legal[0].cards)))  # type: ignore[union-attr]
                    return stale[0]
                return legal[0]

        bot = BotPlayer(person, Blocking())  # type: ignore[arg-type]
        players = [
            BotPlayer(c, make_strategy("random", random.Random(i))) for i, c in enumerate(others)
        ]
        sent: list[object] = []
        act = person.act

        async def sending(action: object, seen: int | None = None) -> None:
            sent.append(action)
            await act(action, seen)  # type: ignore[arg-type]

        person.act = sending  # type: ignore[method-assign]
        for c in (person, *others):
            await c.send(m.Join(table="T"))
        await wait_for(lambda: all(c.model.slot is not None for c in (person, *others)))
        for c in (person, *others):
            await c.send(m.Ready())
        await asyncio.wait_for(started.wait(), 60)
        view = blocked[0]
        person.link.writer.transport.abort()  # (dropped, mid-choose)
        await wait_for(lambda: "reconnected" in status, 30)

        def leads_again() -> bool:
            public = person.model.public
            return (
                (
                    person.model.my_turn
                    and public is not None
                    and public.hand_number == view.hand_number
                    and public.trick != view.trick
                )
                or public is None
                or public.hand_number != view.hand_number
            )

        await wait_for(leads_again, 60)
        release.set()
        await wait_for(lambda: bool(stale), 10)
        await asyncio.sleep(0.5)  # (anything sent is sent by now: the loop ran on)
        assert not any(action is stale[0] for action in sent), sent
        assert bot.refused == 0 and bot.failure is None, (person.errors, bot.failure)
        follow.cancel()
        for task in reading:
            task.cancel()
        assert players  # (they played the other seats)


async def test_an_answer_the_server_finds_stale_is_counted_late_not_refused() -> None:
    """Checked fresh and sent, an answer can still reach the server just after the timer
    played for the seat (protocol 13 refuses it as `stale`): the bot counts it with the
    answers too slow for their turn, not with its mistakes, and plays nothing for it."""
    from president.client.model import TableModel

    class Quiet:
        def __init__(self) -> None:
            self.model = TableModel()
            self.on_message: object = None
            self.seat_lost: m.Error | None = None
            self.sent: list[object] = []

        async def act(self, action: object, seen: int | None = None) -> None:
            self.sent.append(action)

    quiet = Quiet()
    bot = BotPlayer(quiet, make_strategy("greedy", random.Random(1)))  # type: ignore[arg-type]
    told: list[m.Error] = []
    bot.on_refused = told.append
    stale = m.Error(code="stale", message="too late: the turn timer moved for you", about="play")
    await bot.on_message(stale)
    illegal = m.Error(code="illegal", message="you do not hold 3C", about="play")
    await bot.on_message(illegal)
    assert (bot.late, bot.refused, told, quiet.sent) == (1, 1, [stale, illegal], [])

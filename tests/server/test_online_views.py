"""Online equals offline: at every decision of a game played through a real server (TLS,
the protocol, the client library), each seat's view is `Game.view_for(seat)` field by
field, and a spectator's view is the engine's public view, for every preset with random
toggle combinations and 3 to 8 players.  One player's client is killed mid-game and a new
one takes the seat back by key, and a second spectator starts watching then: told the
hand so far (`hand_history`), their views go on being the engine's, history included.

The truth is rebuilt from the server's own journal: each entry carries the event number
the table had reached, and a view sent at number N shows the game as the last entry at or
before N left it."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.engine import Game, PublicView, Rules, SeatView, find_preset
from president.engine.record import action_from_json
from president.protocol import messages as m
from president.server.app import Server
from president.server.journal import Entry

from ..harness.servers import bot_key, client, running_server
from ..harness.waiting import wait_for
from ..strategies import tables

TABLES = itertools.count()


class Recorder(RandomBot):
    """A random bot that writes down every view it is asked to choose from, with the
    number of the table message it came with."""

    def __init__(self, rng: random.Random, seen: list[tuple[int, SeatView]]) -> None:
        super().__init__(rng)
        self.seen = seen
        #: The bot it chooses for (the view's number is the one it answers: `choose` runs
        #: in the bot's thread, while its client reads on).
        self.player: BotPlayer | None = None
        #: Set at this many decisions (0: never): the test kills the client then.
        self.drop_at = 0
        self.dropping = asyncio.Event()
        self.loop = asyncio.get_running_loop()

    def choose(self, view: SeatView) -> Any:
        assert self.player is not None and self.player.answered is not None
        self.seen.append((self.player.answered, view))
        if len(self.seen) == self.drop_at:
            self.loop.call_soon_threadsafe(self.dropping.set)
        return super().choose(view)


def truth_by_number(
    entries: list[Entry], rules: Rules
) -> dict[int, tuple[PublicView, tuple[SeatView, ...]]]:
    """The public view and every seat's view after each numbered journal entry."""
    game: Game | None = None
    states: dict[int, tuple[PublicView, tuple[SeatView, ...]]] = {}
    for entry in entries[1:]:
        kind, body = entry.kind, entry.body
        if kind == "game":
            game = Game(rules, body["players"])
        elif kind == "deal":
            assert game is not None
            game.start_hand(seating=body["seating"], dealer=body["dealer"], deal=body["deal"])
        elif kind == "act":
            assert game is not None
            game.apply(*action_from_json(body["action"]))
        if "number" in body and game is not None and game.hand >= 0:
            states[body["number"]] = (
                game.public_view(),
                tuple(game.view_for(s) for s in range(len(game.seating))),
            )
    return states


def at(states: dict[int, Any], number: int) -> Any:
    return states[max(n for n in states if n <= number)]


def differences(online: tuple[Any, ...], truth: tuple[Any, ...]) -> list[str]:
    return [
        f"{field}: online {a!r}, view_for {b!r}"
        for field, a, b in zip(type(truth)._fields, online, truth)
        if a != b
    ]  # type: ignore[attr-defined]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def one_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Server, Path]]:
    tmp = tmp_path_factory.mktemp("online")
    # (a seed window no machine misses: each deal goes as soon as every seed is in, and
    # every deal is checked to have used them)
    async with running_server(
        tmp, max_per_address=200, seed_seconds=120.0, tables_per_address=1000
    ) as server:
        yield server, tmp


@pytest.mark.asyncio(loop_scope="module")
# (each example a whole online game with a seat killed and taken back: 6 in the suite's
# time budget, a quarter of the profile's; 375 under HYPOTHESIS_PROFILE=thorough)
@settings(
    max_examples=max(1, settings.default.max_examples // 4),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(tables(most_players=8))
async def test_every_seat_online_sees_view_for_and_a_spectator_the_public_view(
    one_server: tuple[Server, Path], table: tuple[Rules, int, int]
) -> None:
    server, tmp = one_server
    rules, players, seed = table
    # two or three hands are enough: the first deals, the second has the exchange
    rules = rules.replace(target=min(rules.target, 3), rounds=min(rules.rounds, 2))
    name = f"T{next(TABLES)}"
    seen: list[list[tuple[int, SeatView]]] = [[] for _ in range(players)]
    # (with player keys: only a client of a version with keys may sit at a table playing
    # a variant rule, and the toggles drawn include those)
    clients = [
        await client(server, f"p{i}", tmp, identity=bot_key(f"p{i}")) for i in range(players)
    ]
    watcher = await client(server, "watcher", tmp, role="spectator", identity=bot_key("watcher"))
    watched: list[tuple[int, PublicView]] = []

    async def watch(message: m.Message) -> None:
        if isinstance(message, m.TableView) and watcher.model.public is not None:
            watched.append((message.number, watcher.model.public))

    watcher.on_message = watch
    bots = []
    for i, c in enumerate(clients):
        recorder = Recorder(random.Random(seed + i), seen[i])
        recorder.player = BotPlayer(c, recorder)
        bots.append(recorder.player)
    late = await client(server, "late", tmp, role="spectator", identity=bot_key("late"))
    late_seen: list[tuple[int, list[Any]]] = []

    async def late_watch(message: m.Message) -> None:
        if isinstance(message, m.TableView) and late.model.playing:  # (mid-hand)
            late_seen.append((message.number, late.model.history()))

    late.on_message = late_watch
    bots[0].strategy.drop_at = 2  # type: ignore[attr-defined]
    tasks = [asyncio.create_task(c.run()) for c in [*clients, watcher]]
    back: Client | None = None
    try:
        await clients[0].send(
            m.CreateTable(
                name=name,
                preset="classic",
                seats=players,
                turn_seconds=0,
                toggles=rules.changes_from(find_preset("classic")),
            )
        )
        await watcher.send(m.Spectate(table=name))
        for c in clients:
            await c.send(m.Join(table=name))
        await wait_for(lambda: all(c.model.slot is not None for c in clients))
        for c in clients:
            await c.send(m.Ready())
        recorder = bots[0].strategy
        assert isinstance(recorder, Recorder)
        waits = [asyncio.create_task(e.wait()) for e in (recorder.dropping, bots[0].game_over)]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for wait in waits:
            wait.cancel()
        if recorder.dropping.is_set():  # p0's client dies; a new one takes the seat by key
            tasks[0].cancel()
            await clients[0].link.close()
            table = server.lobby.tables[name]
            await wait_for(lambda: not any(s.name == "p0" and s.present for s in table.chairs))
            back = await client(server, "p0", tmp, identity=bot_key("p0"))
            bots[0] = recorder.player = BotPlayer(back, recorder)
            histories: list[m.HandHistory] = []
            views: list[m.TableView] = []
            heard = back.on_message

            async def spy(message: m.Message) -> None:
                if isinstance(message, m.HandHistory):
                    histories.append(message)
                elif isinstance(message, m.TableView) and not views:
                    views.append(message)
                assert heard is not None
                await heard(message)

            back.on_message = spy
            tasks += [asyncio.create_task(back.run()), asyncio.create_task(late.run())]
            await back.send(m.Join(table=name))
            await late.send(m.Spectate(table=name))
            await wait_for(lambda: bool(views))
            game = views[0].game
            mid_hand = game is not None and game.phase in ("play", "exchange")
            # told the hand so far exactly when it came back during one
            await wait_for(lambda: bool(histories) or not mid_hand)
            assert bool(histories) == mid_hand
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 120)
        await wait_for(lambda: server.lobby.tables[name].status == "finished")
    finally:
        for task in tasks:
            task.cancel()
        for c in [*clients, watcher, late, *([back] if back else [])]:
            await c.link.close()
    assert server.journal is not None
    ((_, _, entries),) = [t for t in server.journal.open_tables() if t[1] == name]
    states = truth_by_number(entries, rules)
    for i, decisions in enumerate(seen):
        assert decisions, f"seat of p{i} was never asked to choose"
        for number, view in decisions:
            truth = at(states, number)[1][view.seat]
            assert view == truth, differences(view, truth)
    assert watched
    for number, public in watched:
        truth = at(states, number)[0]
        assert public == truth, differences(public, truth)
    for number, history in late_seen:  # every seat's history is the hand's plays and passes
        assert history == list(at(states, number)[1][0].history)
    for c in clients[1:] + ([back] if back else []):
        assert not [e for e in c.errors if e.about], c.errors
        assert all(problem is None for problem in c.model.deal_results.values())

"""A player who is away (the connection dropped; not one who left) is not played for at
once: their turn time runs as usual, with no turn timer they are waited for up to the
grace period, and the deal waits its seed window for them (docs/reliability.md)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from president.bots.strategies import RandomBot
from president.client.connection import Client, Link
from president.client.headless import BotPlayer
from president.engine import Action, Play
from president.protocol import messages as m
from president.server.app import Server
from president.server.table import Table

from .helpers import client, in_play, running_server, seated_among_server_bots, wait_for


async def away_on_my_turn(
    server: Server, tmp_path: Path, turn_seconds: int
) -> tuple[Client, Table]:
    """ann among server bots, on her turn in the first hand; then her connection drops."""
    ann, task = await seated_among_server_bots(server, tmp_path, seats=3, turn_seconds=turn_seconds)
    await ann.send(m.Ready())
    await wait_for(lambda: in_play(ann) and ann.model.my_turn and bool(ann.model.hand), 20)
    table = server.lobby.tables["T"]
    slot = ann.model.slot
    assert slot is not None
    task.cancel()
    await ann.link.close()  # the Wi-Fi drops
    await wait_for(lambda: not table.slots[slot].present)
    return ann, table


async def test_a_player_away_for_two_seconds_loses_no_turn(tmp_path: Path) -> None:
    """ann moves, her connection drops, the bots play round to her turn: the table waits
    for her (her turn time runs), and when she is back, her seat's next action is hers."""
    async with running_server(tmp_path, bot_delay=0.1) as server:
        ann, task = await seated_among_server_bots(server, tmp_path, seats=3, turn_seconds=30)
        watcher = await client(server, "watcher", tmp_path)
        watcher.keep = True
        watching = asyncio.create_task(watcher.run())
        await watcher.send(m.Spectate(table="T"))
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann) and ann.model.my_turn and bool(ann.model.hand), 20)
        table, seat, slot = server.lobby.tables["T"], ann.model.seat, ann.model.slot
        assert seat is not None and slot is not None and table.game is not None

        def acts_of_ann(since: int) -> list[m.Message]:
            return [
                x
                for x in watcher.received[since:]
                if isinstance(x, (m.Played, m.Passed)) and x.seat == seat
            ]

        mark = len(watcher.received)
        await ann.act(table.game.timeout_action(seat))
        await wait_for(lambda: acts_of_ann(mark))  # her move is in; now she goes
        task.cancel()
        await ann.link.close()  # the Wi-Fi drops
        mark = len(watcher.received)
        await asyncio.sleep(2.0)
        assert acts_of_ann(mark) == [], "the table played for ann while she was away"
        assert table.game.actors == [seat]  # it waits on her turn
        back = await client(server, "ann", tmp_path)
        resumed = asyncio.create_task(back.run())
        await back.send(m.Resume(table="T", seat=slot, token=ann.model.token))
        await wait_for(lambda: back.model.my_turn and bool(back.model.hand))
        # her own move, and one the timeout rule would not have made where there is one
        timeout = table.game.timeout_action(seat)
        mine: Action = next(
            (a for a in back.model.seat_view().legal_actions() if a != timeout), timeout
        )
        await back.act(mine)
        await wait_for(lambda: acts_of_ann(mark))
        first = acts_of_ann(mark)[0]
        if isinstance(mine, Play):
            assert isinstance(first, m.Played) and set(first.cards) == set(map(str, mine.cards))
        else:
            assert isinstance(first, m.Passed)
        resumed.cancel()
        watching.cancel()


async def test_with_no_turn_timer_an_away_seat_is_played_for_after_the_grace_period(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, bot_delay=0.0, grace_seconds=1.5) as server:
        _ann, table = await away_on_my_turn(server, tmp_path, turn_seconds=0)
        number = table.number
        await asyncio.sleep(0.5)
        assert table.number == number, "the table played for ann at once"
        await wait_for(lambda: table.number > number, 10)  # the grace period is over


async def test_the_deal_waits_for_an_away_seat_and_its_seed_counts_when_it_comes_back(
    tmp_path: Path,
) -> None:
    """ann's connection drops as the first hand ends; she is back within the next deal's
    seed window: the deal waits for her, she gets the commit, and her seed is in it."""
    async with running_server(
        tmp_path, bot_delay=0.0, pause_between_hands=1.0, seed_seconds=8.0
    ) as server:
        ann, task = await seated_among_server_bots(server, tmp_path, seats=3, turn_seconds=30)
        task.cancel()

        async def reconnect() -> Link:
            again = await client(server, "ann", tmp_path)
            return again.link

        ann.reconnect = reconnect
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

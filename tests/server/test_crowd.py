"""A full server still lets a player back to their game (issue 26, "Admission that a
crowd cannot hold"), and chat is never why a reader is dropped: a real server in this
process, real TLS connections."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.client.connection import Client, ConnectFailed, Link, client_tls
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.protocol.sealing import public_key_bytes
from president.server.admission import RESERVE, YOUNG
from president.server.chat import ChatBudget
from president.server.lobby import Lobby
from president.server.session import CHAT_ROOM

from ..harness.servers import (
    bot_key,
    client,
    dialer,
    in_play,
    running_server,
    sit_among_server_bots,
)
from ..harness.waiting import wait_for


async def playing(server: Any, name: str, tmp_path: Path) -> tuple[Client, asyncio.Task[None]]:
    """`name`, with a key of its own, in a game at table T among server bots; its client
    and the task reading for it."""
    player = await client(server, name, tmp_path, identity=bot_key(name))
    player.keep = True
    task = asyncio.create_task(player.run())
    await sit_among_server_bots(player)
    await player.send(m.Ready())
    await wait_for(lambda: in_play(player))
    return player, task


async def back_in_chair(back: Link) -> None:
    """`back` joins table T and is seated there (its chair taken back), refused nothing."""
    await back.send(m.Join(table="T"))
    seated = await asyncio.wait_for(back.receive(), 10)
    while not isinstance(seated, m.Seated):
        assert not isinstance(seated, m.Error), seated
        seated = await asyncio.wait_for(back.receive(), 10)


async def test_a_player_gets_back_to_their_chair_through_a_full_server(tmp_path: Path) -> None:
    async with running_server(
        tmp_path, max_connections=4, max_per_address=1000, evict_idle_seconds=600.0
    ) as server:
        ann, task = await playing(server, "ann", tmp_path)
        crowd = [await client(server, f"crowd{i}", tmp_path) for i in range(3)]
        await ann.link.close()
        task.cancel()
        await wait_for(lambda: len(server.sessions) == 3)
        crowd.append(await client(server, "crowd3", tmp_path))
        await wait_for(lambda: len(server.sessions) == 4)  # full: nobody idle, one address
        address = f"127.0.0.1:{server.port}"
        with pytest.raises(ConnectFailed, match="the server is full"):
            await dialer(address, "carl", tmp_path)()
        back = await dialer(address, "ann", tmp_path, identity=bot_key("ann"))()
        assert len(server.sessions) == 5  # over the cap by one: her chair is in a game
        # one such connection a key (a hostile pass came in with a seated key from 284
        # addresses, each over the cap, until the server had no descriptor left)
        with pytest.raises(ConnectFailed, match="the server is full"):
            await dialer(address, "ann", tmp_path, identity=bot_key("ann"))()
        await back_in_chair(back)
        with pytest.raises(ConnectFailed, match="the server is full"):  # (her chair is hers)
            await dialer(address, "ann", tmp_path, identity=bot_key("ann"))()
        await wait_for(lambda: len(server.sessions) == 5)  # (the refused ones gone)
        await back.close()
        for c in crowd:
            await c.link.close()


async def test_a_player_gets_back_through_reserve_places_held_in_silence(tmp_path: Path) -> None:
    """A hostile pass held every reserve place with a bare TCP connection from an address
    of its own that never began TLS (back as soon as its handshake's time ran out): a
    player could not get back to her game through a full server.  A place held in
    silence for `YOUNG` seconds now goes to a newcomer."""
    async with running_server(
        tmp_path, max_connections=1, max_per_address=1000, evict_idle_seconds=600.0
    ) as server:
        ann, task = await playing(server, "ann", tmp_path)
        await ann.link.close()
        task.cancel()
        await wait_for(lambda: not server.sessions)
        crowd = await client(server, "crowd", tmp_path)  # the one place: nobody to evict
        await wait_for(lambda: len(server.sessions) == 1)
        holders = []  # (from 16 addresses, 127.0.0.2 to 127.0.0.17)
        for i in range(RESERVE):
            local = (f"127.0.0.{i + 2}", 0)
            holders.append(
                await asyncio.open_connection("127.0.0.1", server.port, local_addr=local)
            )
        await wait_for(lambda: sum(a.over for a in server._admitted) == RESERVE)
        await asyncio.sleep(YOUNG + 0.5)  # (held long enough to have said hello)
        back = await dialer(f"127.0.0.1:{server.port}", "ann", tmp_path, identity=bot_key("ann"))()
        await back_in_chair(back)
        await back.close()
        await crowd.link.close()
        for _, writer in holders:
            writer.close()


async def test_a_busy_lobby_connection_makes_room_once_it_has_stayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile pass held every place of a full server for good with lobby connections,
    one an address, each asking for the table list every 10 s (so none idle).  Once one
    has been connected `STAY` seconds (here 1), a newcomer takes its place, and it is told
    why."""
    from president.server import admission

    monkeypatch.setattr(admission, "STAY", 1.0)
    async with running_server(
        tmp_path, max_connections=1, max_per_address=1000, evict_idle_seconds=600.0
    ) as server:
        squatter = await dialer(f"127.0.0.1:{server.port}", "squatter", tmp_path)()
        await wait_for(lambda: len(server.sessions) == 1)
        for _ in range(8):  # busy: never idle
            await squatter.send(m.ListTables())
            await asyncio.sleep(0.2)
        newcomer = await dialer(f"127.0.0.1:{server.port}", "carl", tmp_path)()
        said: list[object] = []
        with contextlib.suppress(Exception):  # (until the bye, or the link's end)
            while not said or not isinstance(said[-1], m.Bye | None):
                said.append(await asyncio.wait_for(squatter.receive(), 5))
        byes = [x for x in said if isinstance(x, m.Bye)]
        assert byes and "this connection, in the lobby, was the oldest there" in byes[0].reason
        await newcomer.close()


async def test_a_chat_burst_is_dropped_for_a_reader_behind_not_the_reader(
    tmp_path: Path,
) -> None:
    """A lobby reader that reads nothing while 400 lines of 500 characters arrive (far
    more than its queue holds): it misses chat, and stays connected."""
    async with running_server(
        tmp_path,
        chat_per_minute=1000,
        chat_per_address=1000,
        chat_per_room=1000,
        rate_per_second=5000,
        rate_burst=5000,
    ) as server:
        talkers = [await client(server, f"talker{i}", tmp_path) for i in range(4)]
        reader = await client(server, "reader", tmp_path)  # never reads below
        await wait_for(lambda: len(server.sessions) == 5)
        (session,) = [s for s in server.sessions if s.name == "reader"]
        for i in range(100):
            for t in talkers:
                await t.send(m.Chat(scope="lobby", text=f"{i:03d}" + "x" * 497))
        await wait_for(lambda: session.chat_dropped > 0)
        assert not session.closed
        assert session.queued_bytes <= session.queue_cap()
        assert session.queue_cap() > CHAT_ROOM
        await reader.link.close()
        for t in talkers:
            await t.link.close()


def test_chat_budgets_per_address_and_per_room() -> None:
    budget = ChatBudget(per_address=5, per_room=8)
    said = [budget.refusal("10.0.0.66", "lobby", 1.0 + i / 10) for i in range(6)]
    assert said[:5] == [None] * 5 and said[5] is not None and "address" in said[5]
    # another address still talks in the same room, and the first in a minute's time
    assert budget.refusal("10.0.0.7", "lobby", 2.0) is None
    assert budget.refusal("10.0.0.66", "lobby", 62.0) is None
    # a room half full: the address holding more than an equal share waits, others talk
    room = ChatBudget(per_address=100, per_room=8)
    for i in range(3):
        assert room.refusal("10.0.0.66", "table T", float(i)) is None
    assert room.refusal("10.0.0.7", "table T", 3.0) is None
    assert room.refusal("10.0.0.66", "table T", 4.0) is not None  # 3 of 4: over its half
    assert room.refusal("10.0.0.7", "table T", 5.0) is None
    assert room.refusal("10.0.0.8", "table T", 6.0) is None
    assert room.refusal("10.0.0.9", "table T", 7.0) is None
    assert room.refusal("10.0.0.9", "table T", 8.0) is None
    assert room.refusal("10.0.0.10", "table T", 9.0) is not None  # 8 heard: the room's all


async def test_a_backlog_left_behind_is_not_answered_nor_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 26: 512 connections that each sent 2,000 requests and left made 68,040
    "SSL connection is closed" warnings (asyncio's, for every answer written to a
    transport already gone) and answers queued for nobody.  Now a session stops reading
    and writing once its peer is gone."""
    async with running_server(tmp_path) as server:
        for i in range(8):
            _reader, writer = await asyncio.open_connection(
                "127.0.0.1", server.port, ssl=client_tls(), server_hostname="127.0.0.1"
            )
            key = public_key_bytes(X25519PrivateKey.generate())
            hello = m.Hello(versions=KEYLESS_VERSIONS, name=f"b{i}", role="player", hand_key=key)
            writer.write(encode_frame(pack(hello.to_wire())))
            writer.write(encode_frame(pack(m.ListTables().to_wire())) * 2000)
            await writer.drain()
            writer.transport.abort()
        await wait_for(lambda: not server.sessions)
        closed = [r for r in caplog.records if "SSL connection is closed" in r.getMessage()]
        assert closed == []
        await still_answering(server, tmp_path)


async def test_a_backlog_past_its_rate_is_not_handled_once_the_peer_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: a connection that sent 2,000 requests and left was held, with its
    buffers, until its rate had let every one through (at 512 such connections, ~10 a
    second each: minutes, and the next crowd's connections were reset meanwhile).  What
    it sent within its burst is handled; once the next would wait, it is not."""
    handled = counted(monkeypatch, m.ListTables)
    # 5 a second past a burst of 10: the 2,000 would take 400 s to let through
    async with running_server(tmp_path, rate_per_second=5.0, rate_burst=10.0) as server:
        for i in range(4):
            _reader, writer = await asyncio.open_connection(
                "127.0.0.1", server.port, ssl=client_tls(), server_hostname="127.0.0.1"
            )
            key = public_key_bytes(X25519PrivateKey.generate())
            hello = m.Hello(versions=KEYLESS_VERSIONS, name=f"b{i}", role="player", hand_key=key)
            writer.write(encode_frame(pack(hello.to_wire())))
            writer.write(encode_frame(pack(m.ListTables().to_wire())) * 2000)
            await writer.drain()
            writer.transport.abort()
        await wait_for(lambda: not server.sessions, what="the departed sessions to end")
        # each: its burst, and what its rate let through while the server read on
        assert handled[0] < 4 * 100
        await still_answering(server, tmp_path)


def counted(monkeypatch: pytest.MonkeyPatch, kind: type[m.Message]) -> list[int]:
    """How many messages of `kind` the lobby has handled so far, as `[n]`."""
    handled = [0]
    real_handle = Lobby.handle

    async def counting(self: Lobby, session: Any, message: m.Message) -> None:
        handled[0] += isinstance(message, kind)
        await real_handle(self, session, message)

    monkeypatch.setattr(Lobby, "handle", counting)
    return handled


async def still_answering(server: Any, tmp_path: Path) -> None:
    c = await client(server, "after", tmp_path)
    await c.send(m.ListTables())
    while not isinstance(await asyncio.wait_for(c.link.receive(), 10), m.Tables):
        pass
    await c.link.close()


async def test_an_address_sending_more_than_its_bytes_is_read_slower() -> None:
    """`Inbound`: within the burst nothing waits; past it, a reader waits for the bytes
    over the rate (measured on the event loop's clock, not asserted on the wall's)."""
    from president.server.session import Inbound

    inbound = Inbound(rate=1000.0, burst=2000.0)
    loop = asyncio.get_running_loop()
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await real_sleep(0)

    inbound.last = loop.time()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asyncio, "sleep", sleep)
        await inbound.spend(1500)
        assert slept == []
        await inbound.spend(1500)  # 1,000 over: a second's worth
        assert len(slept) == 1 and 0 < slept[0] <= 1.0  # (less the refill meanwhile)


async def test_saying_ready_again_and_again_costs_what_its_views_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile pass flipped ready 2,000 times: each flip was a whole view to every
    seat at the table, 220 a second to a friend.  Saying ready (or not) costs 16 tokens
    more, as a join does: with the bucket full again (60), 30 flips have a few handled
    and then wait, the bucket short (a token a message, all 30 would go through with
    tokens to spare)."""
    handled = counted(monkeypatch, m.Ready)
    async with running_server(tmp_path, rate_per_second=50.0, rate_burst=60.0) as server:
        flipper = await client(server, "flip", tmp_path)
        await flipper.send(m.CreateTable(name="t", preset="classic", toggles={}, seats=4))
        await flipper.send(m.Join(table="t"))
        await wait_for(lambda: "t" in server.lobby.tables, what="the table")
        session = next(s for s in server.sessions if getattr(s, "name", "") == "flip")
        chairs = server.lobby.tables["t"].chairs
        await wait_for(lambda: any(c.name == "flip" for c in chairs), what="seated")
        await asyncio.sleep(1.5)  # (at 50 a second the bucket is full again: 60)
        for at in range(30):
            await flipper.send(m.Ready(ready=at % 2 == 0))
        await wait_for(lambda: session._tokens < -5, what="the flipper's bucket short")
        assert handled[0] <= 6, handled
        await flipper.link.close()


async def test_watching_a_table_costs_what_its_answer_costs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: a crowd asking to watch a table again and again kept a friend's hello
    waiting seconds: each answer is a whole table view, built and encoded.  Joining or
    watching costs 16 tokens more than a message (`EXTRA_COST`): a connection with a
    burst of 10 that sends 30 requests to watch has its first answered and then waits,
    its bucket 7 tokens short (a token a message, it would never be short)."""
    from president.server.session import EXTRA_COST

    assert EXTRA_COST[m.Spectate] == EXTRA_COST[m.Join] == 16.0
    handled = counted(monkeypatch, m.Spectate)
    async with running_server(tmp_path, rate_per_second=5.0, rate_burst=10.0) as server:
        host = await client(server, "host", tmp_path)
        await host.send(m.CreateTable(name="t", preset="classic", toggles={}, seats=4))
        await wait_for(lambda: "t" in server.lobby.tables, what="the table")
        crowd = await client(server, "crowd", tmp_path, role="spectator")
        for _ in range(30):
            await crowd.send(m.Spectate(table="t"))

        def short() -> bool:
            return any(
                getattr(s, "name", "") == "crowd" and s._tokens < -5 for s in server.sessions
            )

        await wait_for(short, what="the crowd's bucket short after its first answer")
        assert handled[0] <= 2, handled
        await crowd.link.close()
        await host.link.close()

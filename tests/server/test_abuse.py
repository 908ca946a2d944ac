"""Abuse while a game is on: slowloris (frames that never finish), connection floods
(the total cap), chat floods.  Each is dropped or throttled, and the table beside it
keeps playing the whole time.  (A client that never reads, the per-address cap and the
chat limit for the flooder themselves are in test_robustness.py and test_lobby.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from president.protocol import messages as m
from president.server.app import Server

from ..harness.servers import client, round_trip, running_server
from ..harness.waiting import wait_for
from .test_robustness import HELLO, raw_tls, still_serving


@contextlib.asynccontextmanager
async def a_game_beside(server: Server, tmp_path: Path) -> AsyncIterator[Callable[[], int]]:
    """Three server bots playing a long game at table "busy", watched by a spectator:
    yields the count of game events the spectator has seen so far."""
    watcher = await client(server, "watcher", tmp_path)
    seen = [0]

    async def count(message: m.Message) -> None:
        seen[0] += isinstance(message, m.TableEvent)

    watcher.on_message = count
    task = asyncio.create_task(watcher.run())
    await watcher.send(
        m.CreateTable(name="busy", preset="classic", toggles={"target": 99}, seats=3)
    )
    await watcher.send(m.Spectate(table="busy"))
    for _ in range(3):
        await watcher.send(m.AddBot(table="busy", strategy="random"))
    await wait_for(lambda: seen[0] > 0)
    try:
        yield lambda: seen[0]
    finally:
        task.cancel()


async def dropped(reader: asyncio.StreamReader, within: float = 30) -> bool:
    """True if the server closed the connection within `within` seconds (a bound that
    only ends a wait that would hang: keep it generous)."""
    try:
        async with asyncio.timeout(within):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except (ConnectionError, ssl.SSLError):
        pass
    return True


async def test_slowloris_frames_that_never_finish_are_dropped(tmp_path: Path) -> None:
    # (pings every quarter second: the watcher answers them and stays, the lorises do not)
    async with (
        running_server(
            tmp_path, bot_delay=0.02, hello_seconds=1.0, idle_seconds=1.0, heartbeat_seconds=0.25
        ) as server,
        a_game_beside(server, tmp_path) as events,
    ):
        before = events()
        lorises = []
        for n in range(10):
            reader, writer = await raw_tls(server.port)
            if n % 2:  # after a proper hello: a frame of 200 bytes, sent a byte at a time
                writer.write(HELLO + struct.pack(">I", 200))
            else:  # half a hello, then a byte at a time
                writer.write(HELLO[: len(HELLO) // 2])
            lorises.append((reader, writer))

        async def dribble() -> None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                while True:
                    for _, writer in lorises:
                        if not writer.is_closing():
                            writer.write(b"\x00")
                    await asyncio.sleep(0.2)

        async def cut(reader: asyncio.StreamReader) -> int | None:
            """The game events seen by the time the server cut it (None: never cut)."""
            return events() if await dropped(reader) else None

        feeding = asyncio.create_task(dribble())
        try:
            seen = await asyncio.gather(*(cut(reader) for reader, _ in lorises))
        finally:
            feeding.cancel()
        assert None not in seen, seen  # each cut off at its deadline, bytes or no bytes
        # the game beside went on while they were held (each was held a second at least),
        # and goes on
        assert min(seen) > before, (before, seen)  # type: ignore[type-var]
        await wait_for(lambda: events() > before + 20)
        await still_serving(server, tmp_path)


async def test_a_connection_flood_meets_the_total_cap_and_the_game_goes_on(tmp_path: Path) -> None:
    async with (
        running_server(
            tmp_path,
            bot_delay=0.02,
            max_connections=12,
            max_per_address=1000,
            tls_handshake_seconds=1.0,
        ) as server,
        a_game_beside(server, tmp_path) as events,
    ):
        before = events()
        flood = []
        for _ in range(60):  # plain TCP, as fast as they open
            with contextlib.suppress(OSError):
                flood.append(await asyncio.open_connection("127.0.0.1", server.port))
        await asyncio.sleep(0.3)  # (never more than the cap, however far the server got)
        assert sum(server._per_address.values()) <= 12
        closed = await asyncio.gather(*(dropped(reader) for reader, _ in flood))
        assert all(closed)  # refused at once past the cap, or cut at the handshake deadline
        for _, writer in flood:
            writer.close()
        assert events() > before  # the game went on through the flood, and goes on
        await wait_for(lambda: events() > before + 20)
        await wait_for(lambda: len(server.sessions) == 1)  # only the watcher is left
        await still_serving(server, tmp_path)


async def test_a_chat_flood_is_throttled_and_others_still_talk_and_play(tmp_path: Path) -> None:
    # 500 messages at 500 a second past a burst of 50: the flooder waits ~0.9 s in all
    async with (
        running_server(
            tmp_path, bot_delay=0.005, chat_per_minute=10, rate_per_second=500, rate_burst=50
        ) as server,
        a_game_beside(server, tmp_path) as events,
    ):
        loop = asyncio.get_running_loop()
        flooder, ann, bob = [
            await client(server, name, tmp_path) for name in ("flooder", "ann", "bob")
        ]
        bob.keep = True
        tasks = [asyncio.create_task(c.run()) for c in (flooder, ann, bob)]
        for c in (flooder, ann, bob):
            await c.send(m.ListTables())
        before, begun = events(), loop.time()
        for i in range(500):
            await flooder.send(m.Chat(scope="lobby", text=f"spam {i}"))
        await ann.send(m.Chat(scope="lobby", text="hello bob"))
        await wait_for(lambda: any(c.text == "hello bob" for c in bob.model.chat))

        def answered() -> int:
            """The flooder's chats the server has handled: said to the lobby (the flooder
            hears its own), or refused."""
            said = sum(c.sender == "flooder" for c in flooder.model.chat)
            return said + sum(e.code == "rate_limited" for e in flooder.errors)

        await wait_for(lambda: answered() == 500)
        spent = loop.time() - begun
        await round_trip(bob)  # bob has what the server sent him before: all that got through
        spam = sum(c.sender == "flooder" for c in bob.model.chat)
        # the rest refused: one minute's worth got through (a minute's more for each minute
        # this took, however slow the machine)
        assert 10 <= spam <= 10 * (1 + spent // 60), (spam, spent)
        assert spam == sum(c.sender == "flooder" for c in flooder.model.chat)
        assert events() > before  # the game went on through the flood, and goes on
        await wait_for(lambda: events() > before + 20)
        for t in tasks:
            t.cancel()

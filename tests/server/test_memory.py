"""Memory after a crowd leaves (issue 26, item 7): a departed connection is freed as it
goes, not at the collector's next full pass, and the C allocator's free memory is given
back once a crowd has gone (server/memory.py)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.client.connection import client_tls
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.protocol.sealing import public_key_bytes
from president.server.memory import Trimmer, malloc_trim
from president.server.session import Session

from ..harness.servers import client, running_server
from ..harness.waiting import wait_for


async def test_a_departed_connection_is_freed_without_the_collector(tmp_path: Path) -> None:
    """Before: a session was held in cycles (the error that ended it kept the frames of
    its loops in its traceback; its `admit` held the server's entry, which held it), so
    after attack_backlog.py's crowds left 1,024 sessions and their buffers were still
    there, until a full collection."""
    gone: weakref.WeakSet[Session] = weakref.WeakSet()
    gc.collect()
    gc.disable()
    try:
        async with running_server(tmp_path) as server:
            for i in range(8):
                _reader, writer = await asyncio.open_connection(
                    "127.0.0.1", server.port, ssl=client_tls(), server_hostname="127.0.0.1"
                )
                key = public_key_bytes(X25519PrivateKey.generate())
                hello = m.Hello(
                    versions=KEYLESS_VERSIONS, name=f"b{i}", role="player", hand_key=key
                )
                writer.write(encode_frame(pack(hello.to_wire())))
                writer.write(encode_frame(pack(m.ListTables().to_wire())) * 200)
                await writer.drain()
                session = await wait_for(lambda n=f"b{i}": named(server.sessions, n))
                gone.add(session)
                del session
                writer.transport.abort()
            await wait_for(lambda: not server.sessions, what="the sessions to end")
            await wait_for(lambda: not gone, what=lambda: f"{len(gone)} sessions still held")
    finally:
        gc.enable()


def named(sessions: set[Session], name: str) -> Session | None:
    return next((s for s in sessions if s.name == name), None)


async def test_memory_is_trimmed_once_a_crowd_has_left() -> None:
    """A crowd of `crowd` connections or more gone, down to half of the most there were:
    one trim; fewer, or not yet half: none.  Trims are at least `spacing` apart."""
    open_now = 0
    trims: list[int] = []

    def trim(pad: int) -> int:
        trims.append(pad)
        return 1

    trimmer = Trimmer(lambda: open_now, trim, crowd=64, delay=0.0, spacing=3600.0)

    def to(n: int) -> None:
        nonlocal open_now
        step = 1 if n > open_now else -1
        while open_now != n:
            open_now += step
            trimmer.note()

    to(100)
    to(51)  # 49 gone: not a crowd, nor half
    await asyncio.sleep(0)
    assert trimmer.trims == 0
    to(20)  # 80 gone, under half: a crowd has left
    await wait_for(lambda: trimmer.trims == 1)
    assert trims == [0]
    assert trimmer.high == 20
    to(200)
    to(0)  # another crowd, within the spacing: waits its turn
    await asyncio.sleep(0.05)
    assert trimmer.trims == 1
    await trimmer.close()
    to(100)
    to(0)  # closed: nothing more
    assert trimmer.trims == 1


def test_malloc_trim_where_the_c_library_has_it() -> None:
    """glibc has malloc_trim (this project's Linux hosts); elsewhere it is None and the
    server trims nothing."""
    trim = malloc_trim()
    if trim is not None:
        assert trim(0) in (0, 1)


async def test_memory_is_trimmed_once_a_crowds_tables_have_gone(tmp_path: Path) -> None:
    """A hostile pass: a crowd's connections left first (a trim then), its tables 11
    minutes later, and the memory they had held (their games, their bots) stayed for
    good, 491 MB against 68 at start.  Tables count with connections now."""
    async with running_server(tmp_path, tables_per_address=8) as server:
        trims: list[int] = []
        trimmer = server._trimmer
        trimmer.trim, trimmer.crowd, trimmer.delay = trims.append, 4, 0.0  # type: ignore[assignment]
        ann = await client(server, "ann", tmp_path)
        reading = asyncio.create_task(ann.run())
        names = [f"t{i}" for i in range(6)]
        for name in names:
            await ann.send(m.CreateTable(name=name, preset="classic", toggles={}, seats=4))
        await wait_for(lambda: len(server.lobby.tables) == 6)
        assert trims == []
        for name in names:  # (its connection stays: only the tables go)
            await server.lobby.remove(name, "a test")
        await wait_for(lambda: len(trims) == 1)
        reading.cancel()

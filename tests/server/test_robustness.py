"""Bad input gets a clear error and loses nothing; drops, stalls and shutdowns are
survived; fuzzed frames never crash the server."""

from __future__ import annotations

import asyncio
import socket
import ssl
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from president.bots.strategies import RandomBot
from president.client.connection import PasswordNeeded, client_tls, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol.codec import pack, unpack
from president.protocol.framing import FrameReader, encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.protocol.sealing import public_key_bytes
from president.server.app import Server

from ..harness.servers import (
    client,
    in_play,
    running_server,
    seated_among_server_bots,
    table_of_bots,
)
from ..harness.waiting import wait_for

#: A raw client's hello, with a usable hand key (32 zero bytes are refused: test_security.py).
HELLO = encode_frame(
    pack(
        m.Hello(
            versions=KEYLESS_VERSIONS,  # a client without a player key
            name="raw",
            role="player",
            hand_key=public_key_bytes(X25519PrivateKey.generate()),
        ).to_wire()
    )
)


async def raw_tls(
    port: int, rcvbuf: int | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return await asyncio.open_connection(sock=sock, ssl=client_tls(), server_hostname="127.0.0.1")


async def answers_after(
    writer: asyncio.StreamWriter, reader: asyncio.StreamReader, data: bytes, quiet: float = 0.3
) -> bytes:
    """Everything the server sends after `data`, until it closes or is `quiet` seconds."""
    writer.write(data)
    await writer.drain()
    got = b""
    try:
        while True:
            chunk = await asyncio.wait_for(reader.read(65536), quiet)
            if not chunk:
                break
            got += chunk
    except (TimeoutError, ConnectionError, ssl.SSLError):
        pass
    return got


def sent_until_closed(data: bytes) -> list[m.Message]:
    """The messages in what a server sent a raw client."""
    return [m.Message.from_wire(unpack(body)) for body in FrameReader().feed(data)]


async def still_serving(server: object, tmp_path: Path) -> None:
    c = await client(server, "probe", tmp_path)  # type: ignore[arg-type]
    await c.send(m.ListTables())
    # (the lobby's news of a table that moved on may come before the answer)
    message = await asyncio.wait_for(c.link.receive(), 30)
    while isinstance(message, m.TableChanged):
        message = await asyncio.wait_for(c.link.receive(), 30)
    assert isinstance(message, m.Tables), message
    await c.link.close()


async def test_reconnect_mid_hand_resumes_the_same_seat_and_hand(tmp_path: Path) -> None:
    # (a seed window no machine misses, so no seed of ann's comes too late to be counted)
    async with running_server(tmp_path, bot_delay=0.05, seed_seconds=120) as server:
        # (a game to 3 points: the hand she drops out of, and one more at least, to its end)
        ann, task = await seated_among_server_bots(server, tmp_path, toggles={"target": 3})
        bot = BotPlayer(ann, RandomBot(__import__("random").Random(3)))
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann) and 5 < sum(ann.model.public.counts) < 45)  # type: ignore[union-attr]
        assert ann.model.public is not None
        hand, slot, token, held = (
            ann.model.public.hand_number,
            ann.model.slot,
            ann.model.token,
            len(ann.model.hand),
        )
        assert slot is not None and held
        task.cancel()
        await ann.link.close()  # the Wi-Fi drops
        back = await client(server, "ann", tmp_path)
        back.keep = True
        bot2 = BotPlayer(back, RandomBot(__import__("random").Random(4)))
        task2 = asyncio.create_task(back.run())
        await back.send(m.Resume(table="T", seat=slot, token=token))
        await wait_for(
            lambda: any(
                isinstance(x, m.SealedHand) and x.reason == "snapshot" for x in back.received
            )
        )
        snapshot = next(x for x in back.received if isinstance(x, m.SealedHand))
        assert back.model.slot == slot
        assert snapshot.hand == hand  # the same hand, resumed
        assert 0 < len(back.model.hand) <= held
        server.lobby.tables["T"].settings.bot_delay = 0.0  # resumed: now play on quickly
        await asyncio.wait_for(bot2.game_over.wait(), 60)
        assert not [e for e in back.errors if e.about], back.errors
        await wait_for(lambda: len(server.records) == 1)
        task2.cancel()
        del bot


async def test_a_client_that_stops_reading_is_dropped_and_the_table_goes_on(tmp_path: Path) -> None:
    async with running_server(
        tmp_path, send_buffer=4096, queue_size=16, drain_seconds=0.5, bot_delay=0.0
    ) as server:
        host = await client(server, "host", tmp_path)
        htask = asyncio.create_task(host.run())
        await host.send(m.CreateTable(name="T", preset="classic", toggles={"target": 21}, seats=4))
        _reader, writer = await raw_tls(server.port, rcvbuf=2048)
        writer.write(HELLO + encode_frame(pack(m.Spectate(table="T").to_wire())))
        await writer.drain()
        await wait_for(lambda: any(len(t.chairs.spectators) for t in server.lobby.tables.values()))
        # ... and never reads again, while four server bots play a long game
        for _ in range(4):
            await host.send(m.AddBot(table="T", strategy="random"))
        await host.send(m.Spectate(table="T"))  # (who reads: a game nobody is at waits)
        await wait_for(lambda: all(s.name != "raw" for s in server.sessions), 30)
        await wait_for(lambda: len(server.records) == 1, 60)  # the table went on to the end
        assert server.lobby.tables["T"].status == "finished"
        htask.cancel()
        writer.close()


async def test_bad_input_gets_a_code_and_a_sentence(tmp_path: Path) -> None:
    # (no wait after a wrong password here: test_hostile_guests.py tests the backoff)
    async with running_server(tmp_path, password_wait=0.0) as server:
        c = await client(server, "ann", tmp_path)
        c.keep = True
        task = asyncio.create_task(c.run())

        async def refused(message: m.Message, code: str) -> None:
            before = len(c.errors)
            await c.send(message)
            await wait_for(lambda: len(c.errors) > before)
            assert c.errors[-1].code == code, c.errors[-1]
            assert c.errors[-1].message

        await refused(m.Join(table="nowhere"), "no_such_table")
        await refused(
            m.CreateTable(name="T", preset="classic", toggles={"joker_mode": "wild"}, seats=4),
            "bad_rules",
        )
        await refused(m.CreateTable(name="T", preset="poker", toggles={}, seats=4), "bad_rules")
        await refused(m.CreateTable(name="T", preset="classic", toggles={}, seats=9), "bad_rules")
        await c.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3, password="pw"))
        await refused(m.Join(table="T", password="nope"), "wrong_password")
        await refused(m.Join(table="T"), "wrong_password")
        await refused(m.PlayCards(cards=("3C",)), "not_allowed")
        await refused(m.Ready(), "not_allowed")
        await refused(m.AddBot(table="T", strategy="genius"), "not_allowed")
        for _ in range(3):
            await c.send(m.AddBot(table="T", strategy="random"))
        await refused(m.Join(table="T", password="pw"), "table_full")
        # frames that are not messages
        writer = c.link.writer
        writer.write(encode_frame(b"\xc1"))
        writer.write(encode_frame(pack({"type": "teleport"})))
        writer.write(encode_frame(pack({"type": "join", "table": 7})))
        await wait_for(
            lambda: (
                [e.code for e in c.errors[-3:]] == ["bad_msgpack", "unknown_message", "bad_message"]
            )
        )
        # `about` names the type refused whenever the protocol has that type (docs/PROTOCOL.md,
        # "Error codes"): "" only for a frame that is no message or of no type there is
        assert [e.about for e in c.errors[-3:]] == ["", "", "join"]
        assert all(e.about == e_type for e, e_type in zip(c.errors[:2], ("join", "create_table")))
        hello = pack(
            {
                "type": "hello",
                "versions": [6],
                "name": "ann",
                "role": "player",
                "hand_key": bytes(32),
            }
        )
        writer.write(encode_frame(hello))  # a second hello
        writer.write(encode_frame(pack({"type": "welcome", "version": 6, "server": "me"})))
        await wait_for(lambda: [e.code for e in c.errors[-2:]] == ["handshake", "not_allowed"])
        assert [e.about for e in c.errors[-2:]] == ["hello", "welcome"]
        await still_serving(server, tmp_path)
        task.cancel()


async def test_an_oversize_frame_closes_the_connection_and_nothing_else(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        reader, writer = await raw_tls(server.port)
        got = await answers_after(  # (until it closes: a generous bound only ends a hang)
            writer, reader, HELLO + struct.pack(">I", 10_000_000) + b"x" * 100, quiet=30
        )
        assert b"frame_too_large" in got or not got
        await still_serving(server, tmp_path)


async def test_wrong_server_password_and_silent_clients(tmp_path: Path) -> None:
    async with running_server(tmp_path, password="lan-party", password_wait=0.0) as server:
        address, known = f"127.0.0.1:{server.port}", KnownServers(tmp_path / "k")
        with pytest.raises(PasswordNeeded, match="this server needs a password") as none:
            await connect(address, "eve", known=known)
        with pytest.raises(PasswordNeeded, match="wrong server password") as wrong:
            await connect(address, "eve", known=known, password="guess")
        assert (none.value.wrong, wrong.value.wrong) == (False, True)
        ok = await connect(
            f"127.0.0.1:{server.port}",
            "ann",
            known=KnownServers(tmp_path / "k"),
            password="lan-party",
        )
        await ok.close()
    # (a hello deadline this short only where nobody is meant to say hello in time: a
    # loaded machine can take longer than 0.3 s over a handshake)
    async with running_server(tmp_path, password="lan-party", hello_seconds=0.3) as server:
        reader, writer = await raw_tls(server.port)  # says nothing at all
        said = sent_until_closed(await asyncio.wait_for(reader.read(), 30))
        assert said == [m.Bye(code="timeout", reason="no hello within 0.3 s")]  # then closed
        writer.close()


async def test_the_turn_timer_plays_the_timeout_rule(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ann, task = await seated_among_server_bots(server, tmp_path, seats=3, turn_seconds=1)
        await ann.send(m.Ready())
        # ann never plays: after a second each time, the table plays for her
        await wait_for(
            lambda: any(
                isinstance(x, (m.Played, m.Passed)) and x.seat == ann.model.seat
                for x in ann.received
            ),
            30,
        )
        task.cancel()


async def test_graceful_shutdown_tells_clients_and_keeps_the_game(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.05) as server:
        clients, _bots, tasks = await table_of_bots(server, tmp_path)
        await wait_for(lambda: in_play(clients[0]))
    # the context manager closed the server mid-game
    for c in clients:
        await wait_for(lambda c=c: c.bye is not None)  # type: ignore[misc]
        assert c.bye is not None and c.bye.code == "server_closing"
    assert server.records == []  # kept for the next start (tests/server/test_durable.py)
    for t in tasks:
        t.cancel()


frames = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda b: encode_frame(b), st.binary(max_size=200)),
    st.builds(
        lambda v: encode_frame(pack(v)),
        st.dictionaries(
            st.sampled_from(["type", "table", "cards", "seat", "name", "x"]),
            st.one_of(
                st.sampled_from(sorted(m.REGISTRY)),
                st.integers(-(2**63), 2**64 - 1),
                st.text(max_size=5),
                st.lists(st.text(max_size=3), max_size=3),
                st.none(),
                st.binary(max_size=8),
            ),
            max_size=4,
        ),
    ),
)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def one_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Server, Path]]:
    """One server for every fuzzed example (each example is a new connection to it)."""
    tmp = tmp_path_factory.mktemp("fuzz")
    async with running_server(tmp) as server:
        yield server, tmp


@pytest.mark.asyncio(loop_scope="module")
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(frames, min_size=1, max_size=6))
async def test_fuzzed_frames_never_crash_the_server(
    one_server: tuple[Server, Path], chunks: list[bytes]
) -> None:
    server, tmp = one_server
    reader, writer = await raw_tls(server.port)
    await answers_after(writer, reader, HELLO + b"".join(chunks), quiet=0.05)
    writer.close()
    await still_serving(server, tmp)


async def test_every_seat_ends_with_the_same_public_state_as_the_table(tmp_path: Path) -> None:
    """The last table message every seat got is the table's own final view, field by
    field, and its game is the engine's public view (the per-decision equality is
    tests/server/test_online_views.py)."""
    async with running_server(tmp_path) as server:
        # (a game of two or three hands: the end is what is compared)
        clients, bots, tasks = await table_of_bots(
            server, tmp_path, players=3, toggles={"target": 3}
        )
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        table = server.lobby.tables["T"]
        # (the seats may see the game's last event before the table has ended it)
        await wait_for(lambda: table.status == "finished")
        await wait_for(lambda: all(c.model.view == table.view() for c in clients))
        assert table.game is not None and table.status == "finished"
        for c in clients:
            assert c.model.public == table.game.public_view()
        for t in tasks:
            t.cancel()

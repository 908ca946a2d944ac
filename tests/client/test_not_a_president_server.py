"""Connecting to a port where some other service listens: one line that asks whether it
is a president server, and its certificate is not remembered (trusting it at the
question must not make a real server later on that port a "different certificate")."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from president.client.connection import ConnectFailed, connect
from president.client.pinning import KnownServers
from president.protocol.certs import fingerprint, make_certificate, pem_to_der

#: What the other service does with a client's first bytes.
Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(100)
    writer.write(b"HTTP/1.0 200 ok\r\nContent-type: text/html\r\n\r\n<html></html>\r\n")
    await writer.drain()
    writer.close()


async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(100)
    writer.close()


@asynccontextmanager
async def other_service(tmp_path: Path, answer: Answer, tls: bool = True) -> AsyncIterator[int]:
    context = None
    if tls:
        cert, key = make_certificate("not-president")
        (tmp_path / "c.pem").write_bytes(cert)
        (tmp_path / "k.pem").write_bytes(key)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tmp_path / "c.pem", tmp_path / "k.pem")
    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


@pytest.mark.parametrize("answer", [http, hang_up])
async def test_a_tls_service_that_is_not_president_is_named_and_not_remembered(
    tmp_path: Path, answer: Answer
) -> None:
    known = KnownServers(tmp_path / "known_servers")
    async with other_service(tmp_path, answer) as port:
        with pytest.raises(ConnectFailed) as failed:
            await connect(f"127.0.0.1:{port}", "zed", known=known, trust=lambda _: True)
        said = str(failed.value)
        assert said.startswith(f"the server at 127.0.0.1:{port} ") and "\n" not in said
        assert said.endswith("is it a president server?")
        assert known.load() == {}
        # the fingerprint given (`--fingerprint`, or the one a person said yes to)
        shown = fingerprint(pem_to_der((tmp_path / "c.pem").read_bytes()))
        with pytest.raises(ConnectFailed, match="is it a president server"):
            await connect(f"127.0.0.1:{port}", "zed", known=known, pin=shown)
        assert known.load() == {}


async def test_a_plain_tcp_service_is_named_in_words(tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known_servers")
    async with other_service(tmp_path, http, tls=False) as port:
        with pytest.raises(ConnectFailed) as failed:
            await connect(f"127.0.0.1:{port}", "zed", known=known, trust=lambda _: True)
    said = str(failed.value)
    assert said.startswith(f"cannot reach a president server at 127.0.0.1:{port}: no TLS 1.3 there")
    assert said.endswith("is it a president server's port?")
    assert known.load() == {}


async def test_a_port_where_nothing_listens_is_said_in_words(tmp_path: Path) -> None:
    async with other_service(tmp_path, http, tls=False) as port:
        pass  # (closed: the port is free again)
    with pytest.raises(ConnectFailed) as failed:
        await connect(f"127.0.0.1:{port}", "zed", known=KnownServers(tmp_path / "known"))
    assert str(failed.value) == (
        f"cannot reach a president server at 127.0.0.1:{port}: connection refused: nothing "
        "listens on that port"
    )


async def test_an_address_that_does_not_answer_is_said_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer's typos: an address no machine answers said "Connect call failed
    ('192.0.2.22', 19150)" (asyncio's words, Python's tuple); the port after a dot
    instead of a colon was looked up as a host name, with no hint."""
    import errno
    import socket

    async def unreachable(host: str, port: int, **_: object) -> None:
        raise OSError(errno.EHOSTUNREACH, f"Connect call failed ('{host}', {port})")

    monkeypatch.setattr(asyncio, "open_connection", unreachable)
    known = KnownServers(tmp_path / "known_servers")
    with pytest.raises(ConnectFailed) as failed:
        await connect("192.0.2.22:19150", "zed", known=known)
    assert str(failed.value) == (
        "cannot reach a president server at 192.0.2.22:19150: No route to host:"
        " is the address right, and that machine on this network?"
    )

    async def unknown(host: str, port: int, **_: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(asyncio, "open_connection", unknown)
    with pytest.raises(ConnectFailed) as failed:
        await connect("192.0.2.2.19150", "zed", known=known)
    assert str(failed.value).endswith(
        "(Name or service not known): is it typed right? (did you mean 192.0.2.2:19150?)"
    )
    with pytest.raises(ConnectFailed) as failed:  # (a host's pass typed 127.0.0.l)
        await connect("friday.lan", "zed", known=known)
    assert str(failed.value) == (
        "cannot reach a president server at friday.lan:7766: no machine is called "
        "'friday.lan' (Name or service not known): is it typed right?"
    )

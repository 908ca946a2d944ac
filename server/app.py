"""`Server`: TLS on a port, one `Session` per connection, the lobby, graceful shutdown.
An async context manager with an idempotent `close()` (after websockets' server)."""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import logging
import socket
import ssl
from typing import Any

from president.protocol import messages as m

from .config import ServerConfig
from .journal import Journal
from .lobby import Lobby
from .session import Session
from .storage import Storage
from .table import Table

log = logging.getLogger("president.server")


#: Bytes asyncio's TLS layer reads at a time (and keeps as each connection's buffer).
TLS_READ = 32 * 1024


def _smaller_tls_reads() -> None:
    """asyncio's TLS protocol gives every connection a 256 KiB read buffer, zero-filled
    when the connection opens (Python 3.11-3.13): 500 idle connections held ~140 MiB.
    TLS records carry at most 16 KiB and our frames at most 64 KiB, so reading 32 KiB
    at a time loses nothing (scripts/load.py --tables 0 --idle 500: server RSS 187.6 ->
    78.2 MiB).  A class attribute of the standard library, so only lowered, and only if
    it is there."""
    protocol = getattr(asyncio.sslproto, "SSLProtocol", None)
    if protocol is not None and getattr(protocol, "max_size", 0) > TLS_READ:
        protocol.max_size = TLS_READ


class Server:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.storage = Storage(config.data_dir)
        self.lobby = Lobby(self)
        self.fingerprint = ""
        self.sessions: set[Session] = set()
        self.records: list[str] = []
        self.journal: Journal | None = None
        #: Tables the journal held that could not be rebuilt at start (one line each).
        self.restore_problems: list[str] = []
        self._server: asyncio.Server | None = None
        self._tls: ssl.SSLContext | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._per_address: dict[str, int] = {}
        self._closing = False
        self._closed = asyncio.Event()

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closing(self) -> bool:
        """Shutting down: every table stays as it is, for the next start."""
        return self._closing

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        self.storage.prepare()
        cert, key, self.fingerprint = self.storage.certificate(self.config.name)
        self.journal = Journal(self.storage.journal)
        self.restore_problems = self.lobby.restore(self.journal)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.load_cert_chain(cert, key)
        self._tls = context
        _smaller_tls_reads()
        # Plain TCP first, TLS once the caps allow the connection: a flood of connections
        # that never finish a handshake is counted (and refused) like any other.
        self._server = await asyncio.start_server(
            self._accept, self.config.host, self.config.port, limit=2**16)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer: Any = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        if self._closing or sum(self._per_address.values()) >= self.config.max_connections or \
                self._per_address.get(address, 0) >= self.config.max_per_address:
            writer.transport.abort()
            return
        self._per_address[address] = self._per_address.get(address, 0) + 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            assert self._tls is not None
            try:
                await writer.start_tls(self._tls, ssl_handshake_timeout=self.config.tls_handshake_seconds)
            except (ssl.SSLError, TimeoutError, ConnectionError, OSError):
                writer.transport.abort()
                return
            sock = writer.get_extra_info("socket")
            if self.config.send_buffer is not None and sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.config.send_buffer)
            session = Session(self, reader, writer, address)
            self.sessions.add(session)
            try:
                await session.run()
            finally:
                self.sessions.discard(session)
        finally:
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]
            if task is not None:
                self._tasks.discard(task)

    def write_record(self, table: Table, record: dict[str, Any]) -> None:
        path = self.storage.write_record(table.name, record)
        self.records.append(str(path))
        log.info("table %s: record written to %s", table.name, path)

    async def close(self) -> None:
        """Stop accepting, tell every client, finish the tables' writes, and close every
        connection within the shutdown deadline.  Safe to call more than once."""
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions):
            session.deliver(m.Bye(code="server_closing", reason="the server is shutting down"))
        await self.lobby.close()  # games in progress stay in the journal
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=self.config.shutdown_seconds / 2)
            for session in list(self.sessions):
                session.kill("server closing")
            if pending:
                await asyncio.wait(pending, timeout=self.config.shutdown_seconds / 2)
        if self._server is not None:
            await self._server.wait_closed()
        if self.journal is not None:
            self.journal.close()
        self._closed.set()

    async def serve_until(self, stop: asyncio.Event) -> None:
        await stop.wait()
        await self.close()

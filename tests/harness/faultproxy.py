"""An in-process TCP proxy that does to a connection what flaky Wi-Fi does: adds delay,
writes one byte at a time, stalls, cuts a connection in the middle of a frame, or resets
it.  It sits between a client and the server and works on raw bytes (the TLS inside
passes through untouched), so the faults reach the real TLS and framing code."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from dataclasses import dataclass, field


@dataclass
class Faults:
    #: Seconds added before each chunk is passed on.
    delay: float = 0.0
    #: Pass chunks on in pieces of this many bytes (1: one byte per write), or whole.
    piece: int | None = None
    #: Cleared while stalled: nothing passes either way until it is set again.
    flowing: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set: the next chunk from the server is cut in the middle and the connection closed.
    cut: bool = False

    def __post_init__(self) -> None:
        self.flowing.set()


class FaultProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.faults = Faults()
        self.port = 0
        self.cuts = 0
        self._server: asyncio.Server | None = None
        self._pairs: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.reset()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def connections(self) -> int:
        return len(self._pairs)

    def stall(self) -> None:
        self.faults.flowing.clear()

    def flow(self) -> None:
        self.faults.flowing.set()

    def reset(self) -> None:
        """Reset every connection now (a TCP RST to both sides)."""
        for client, server in self._pairs:
            for writer in (client, server):
                _reset(writer)
        self._pairs.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            _reset(writer)
            return
        pair = (writer, up_writer)
        self._pairs.append(pair)
        for source, sink, downstream in ((reader, up_writer, False), (up_reader, writer, True)):
            task = asyncio.create_task(self._pump(source, sink, pair, downstream))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        pair: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
        downstream: bool,
    ) -> None:
        faults = self.faults
        try:
            while chunk := await source.read(65536):
                await faults.flowing.wait()
                if faults.delay:
                    await asyncio.sleep(faults.delay)
                if downstream and faults.cut and len(chunk) > 1:
                    faults.cut = False
                    self.cuts += 1
                    sink.write(chunk[: len(chunk) // 2])  # half a record, then nothing
                    await sink.drain()
                    raise ConnectionResetError("cut")
                step = faults.piece or len(chunk)
                for start in range(0, len(chunk), step):
                    sink.write(chunk[start : start + step])
                    await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            for writer in pair:
                _reset(writer)
            with contextlib.suppress(ValueError):
                self._pairs.remove(pair)


def _reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()

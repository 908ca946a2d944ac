"""Frames: a 4-byte big-endian length, then that many bytes of msgpack.  The length is
checked against the cap before a single byte of the body is kept."""

from __future__ import annotations

import struct
from typing import Final

from .errors import Code, LocalProtocolError, RemoteProtocolError

#: The largest frame body either side accepts.
MAX_FRAME: Final = 64 * 1024
_HEADER: Final = struct.Struct(">I")


def encode_frame(body: bytes, limit: int = MAX_FRAME) -> bytes:
    if len(body) > limit:
        raise LocalProtocolError(Code.FRAME_TOO_LARGE, f"a {len(body)}-byte frame is over {limit}")
    return _HEADER.pack(len(body)) + body


class FrameReader:
    """Collects bytes and yields whole frame bodies, one at a time (`next_body`), so a
    read full of tiny frames is never decoded all at once; refuses an oversize frame at
    its header, so a peer cannot make us buffer more than one frame's cap beyond what
    was read."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._start = 0  # where the unread part of the buffer begins
        self._need: int | None = None  # body length of the frame being read
        self._failed = False

    def add(self, data: bytes) -> None:
        """Keep bytes received; `next_body` takes frames from them."""
        if self._failed:
            return
        if self._start:  # drop what was taken, once per read rather than once per frame
            del self._buffer[: self._start]
            self._start = 0
        self._buffer += data

    def next_body(self) -> bytes | None:
        """The next whole frame body, or None until more bytes come; raises
        `RemoteProtocolError` (once, then nothing more) for an oversize frame."""
        if self._failed:
            return None
        if self._need is None:
            if len(self._buffer) - self._start < _HEADER.size:
                return None
            (need,) = _HEADER.unpack_from(self._buffer, self._start)
            if need > self.limit:
                head = bytes(self._buffer[self._start : self._start + _HEADER.size])
                self._failed = True
                self._buffer = bytearray()
                said = f"a frame of {need} bytes is over the {self.limit}-byte limit"
                if head.isascii() and head.decode("ascii").isprintable():
                    # (a pass met "a frame of 1213486160 bytes": an HTTP server's answer)
                    said += f"; it begins {head.decode('ascii')!r}, as text does: not this protocol"
                raise RemoteProtocolError(Code.FRAME_TOO_LARGE, said)
            self._start += _HEADER.size
            self._need = need
        end = self._start + self._need
        if len(self._buffer) < end:
            return None
        body = bytes(self._buffer[self._start : end])
        self._start, self._need = end, None
        return body

    def feed(self, data: bytes) -> list[bytes]:
        """Keep `data` and take every whole frame body it completes."""
        self.add(data)
        bodies: list[bytes] = []
        while (body := self.next_body()) is not None:
            bodies.append(body)
        return bodies

    @property
    def pending(self) -> int:
        """Bytes received and not yet taken as frames."""
        return len(self._buffer) - self._start + (0 if self._need is None else _HEADER.size)

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
    """Collects bytes and yields whole frame bodies; refuses an oversize frame at its
    header, so a peer cannot make us buffer more than one frame's cap."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._need: int | None = None  # body length of the frame being read

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        bodies: list[bytes] = []
        while True:
            if self._need is None:
                if len(self._buffer) < _HEADER.size:
                    return bodies
                (need,) = _HEADER.unpack_from(self._buffer)
                if need > self.limit:
                    raise RemoteProtocolError(
                        Code.FRAME_TOO_LARGE,
                        f"a frame of {need} bytes is over the {self.limit}-byte limit",
                    )
                del self._buffer[: _HEADER.size]
                self._need = need
            if len(self._buffer) < self._need:
                return bodies
            bodies.append(bytes(self._buffer[: self._need]))
            del self._buffer[: self._need]
            self._need = None

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a whole frame (for partial-frame deadlines)."""
        return len(self._buffer) + (0 if self._need is None else _HEADER.size)

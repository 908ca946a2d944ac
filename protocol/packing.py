"""A game record sent packed (protocol 18, `GameRecord.packed`): compressed by zlib, and
unpacked to at most `RECORD_UNPACKED` bytes, so that a few kilobytes from a hostile
server cannot unpack to gigabytes in a client."""

from __future__ import annotations

import zlib

from .errors import Code, RemoteProtocolError
from .messages import RECORD_UNPACKED


def pack_record(record: bytes) -> bytes:
    """A record's bytes as `game_record` pages carry them packed."""
    return zlib.compress(record, 6)


def unpack_record(data: bytes, most: int = RECORD_UNPACKED) -> bytes:
    """The record that `data` (the pages' bytes joined) packs: `RemoteProtocolError` if
    it is no zlib stream, is cut short or runs on after its end, or unpacks to more than
    `most` bytes."""
    inflater = zlib.decompressobj()
    try:
        record = inflater.decompress(data, most + 1)
    except zlib.error as exc:
        raise RemoteProtocolError(
            Code.BAD_MESSAGE, f"game_record: its packed bytes are not zlib's ({exc})"
        ) from None
    if len(record) > most or inflater.unconsumed_tail:
        raise RemoteProtocolError(
            Code.BAD_MESSAGE, f"game_record: it unpacks to more than {most} bytes"
        )
    if not inflater.eof or inflater.unused_data:
        raise RemoteProtocolError(
            Code.BAD_MESSAGE, "game_record: its packed bytes are cut short or run on"
        )
    return record

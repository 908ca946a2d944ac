"""Reading a journal's write-ahead log before SQLite does: SQLite stops at the first frame
whose checksum fails and silently drops every write after it, so a damaged WAL would give
an older state with no word said.  This finds that frame (the format: sqlite.org/fileformat.html,
"WAL file format": a 32-byte header, then frames of a 24-byte header and one page, each
with a checksum that runs on from the one before)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

_MAGIC = {0x377F0682: "<", 0x377F0683: ">"}


@dataclass(frozen=True)
class WalDamage:
    #: The first frame (from 1) that fails its checksum.
    frame: int
    #: Committed writes (transactions) after it that SQLite would drop.
    writes: int

    def line(self) -> str:
        return (
            f"the journal's WAL is damaged at frame {self.frame}: the last {self.writes} "
            "write(s) cannot be read"
        )


def _checksum(data: bytes, order: str, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def check_wal(path: Path) -> WalDamage | None:
    """The damage in the WAL at `path`, if a frame of this WAL's generation fails its
    checksum while committed frames of the same generation follow it (a torn last write
    after a power cut, or frames left from an earlier generation, are not damage)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < 32:
        return None
    magic, _version, page_size, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    order = _MAGIC.get(magic)
    if order is None or page_size < 512 or page_size & (page_size - 1):
        return None
    if _checksum(data[:24], order, 0, 0) != (c1, c2):
        return None  # a header that does not check: SQLite ignores the whole file
    s0, s1 = c1, c2
    size = 24 + page_size
    bad: int | None = None
    lost = later = 0
    frame = 0
    for start in range(32, len(data) - size + 1, size):
        frame += 1
        header = data[start : start + 24]
        _page, commit, f_salt1, f_salt2, f1, f2 = struct.unpack(">6I", header)
        if (f_salt1, f_salt2) != (salt1, salt2):
            # the log's end, or a frame left from before, or damage in this very
            # header: only frames of this log after it tell which
            bad = frame if bad is None else bad
            continue
        if bad is None:
            s0, s1 = _checksum(header[:8], order, s0, s1)
            s0, s1 = _checksum(data[start + 24 : start + size], order, s0, s1)
            if (s0, s1) != (f1, f2):
                bad = frame
                lost += commit != 0
        else:
            later += 1
            lost += commit != 0
    if bad is None or not later:
        return None
    return WalDamage(frame=bad, writes=max(lost, 1))

"""Memory a crowd left behind, given back to the system once it has gone.

After 1,536 connections that each sent a backlog and left (scripts/attack_backlog.py),
the server's Python objects were back where they began (tracemalloc: 0.4 MiB more than
before the crowd, 80 MiB at its peak; no session, task or per-address entry left), yet
its resident memory stayed at ~200 MiB against 50 at start: glibc's malloc keeps the
pages it freed (TLS and read buffers) in its arenas for the process's life.
`malloc_trim(0)` hands the free pages back (here 198 -> 69 MiB, in 13-50 ms).

So when a crowd has left (connections down by at least `CROWD` from the most since the
last trim, to at most half of it), the server asks for that once, a second later, in a
worker thread (it takes the allocator's locks, not the GIL: the event loop goes on), and
at most every `SPACING` seconds.  Where the C library has no `malloc_trim` (musl, macOS,
Windows), nothing is done."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
from collections.abc import Callable

#: Connections that must have left (since the most there were) before memory is trimmed.
CROWD = 64
#: Seconds after a crowd has left before the trim (the last sessions' buffers freed).
DELAY = 1.0
#: Seconds at least between two trims.
SPACING = 10.0


def malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


class Trimmer:
    """Watches how many connections are open (`count`, asked at each `note`) and trims
    the C allocator's free memory once a crowd of them has gone."""

    def __init__(
        self,
        count: Callable[[], int],
        trim: Callable[[int], int] | None = None,
        *,
        crowd: int = CROWD,
        delay: float = DELAY,
        spacing: float = SPACING,
    ) -> None:
        self.count = count
        self.trim = trim
        self.crowd, self.delay, self.spacing = crowd, delay, spacing
        #: The most connections open since the last trim.
        self.high = 0
        self.trims = 0
        self._last = float("-inf")
        self._pending: asyncio.Task[None] | None = None
        self._closed = False

    def note(self) -> None:
        """A connection came or went."""
        now = self.count()
        self.high = max(self.high, now)
        if self.trim is None or self._pending is not None or self._closed:
            return
        if self.high - now < self.crowd or now > self.high // 2:
            return
        self._pending = asyncio.get_running_loop().create_task(self._trim())

    async def _trim(self) -> None:
        assert self.trim is not None
        loop = asyncio.get_running_loop()
        try:
            await asyncio.sleep(max(self.delay, self._last + self.spacing - loop.time()))
            await asyncio.to_thread(self.trim, 0)
            self.trims += 1
        finally:
            self._last = loop.time()
            self.high = self.count()
            self._pending = None

    async def close(self) -> None:
        self._closed = True
        if self._pending is not None:
            self._pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pending

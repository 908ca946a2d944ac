"""When a search stops by the clock: its own time budget, or a ceiling set from outside
(a server under a crowd, `server/thinking.py`), whichever comes first."""

from __future__ import annotations

import time


def until(seconds: float | None, limit: float | None) -> float | None:
    """The `time.perf_counter()` at which to stop: `seconds` (a time budget, in place of
    a playout count) or `limit` (a ceiling on any budget) from now, the sooner of those
    given; None when neither is (the playouts alone bound it)."""
    spans = [seconds] if seconds else []  # (0 or None: no time budget)
    if limit is not None:
        spans.append(limit)
    return time.perf_counter() + min(spans) if spans else None

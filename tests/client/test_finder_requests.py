"""How `ServerFinder` asks zeroconf for one server's records (`ServerFinder._request`):
in slices, each by a new request, until a deadline; a request the library ends early
is the answer.  zeroconf's `AsyncServiceInfo` is replaced by fakes that behave as the
library was seen to (the real library is used by tests/test_discovery.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from president.client import discovery
from president.client.discovery import RESOLVE_MS, SLICE_MS, ServerFinder


class Stuck:
    """A request that never completes: it waits out its timeout and says no (as one
    that missed an address arriving before its SRV record)."""

    made = 0

    def __init__(self, *_: Any) -> None:
        type(self).made += 1

    async def async_request(self, zeroconf: Any, timeout: float) -> bool:
        await asyncio.sleep(timeout / 1000)
        return False


class StuckOnce(Stuck):
    """The first request is stuck; a new one completes from the cache at once."""

    made = 0

    async def async_request(self, zeroconf: Any, timeout: float) -> bool:
        if type(self).made == 1:
            return await super().async_request(zeroconf, timeout)
        return True


class Denied(Stuck):
    """Every request ends at once (the host's addresses denied by an NSEC record)."""

    made = 0

    async def async_request(self, zeroconf: Any, timeout: float) -> bool:
        return False


async def timed(monkeypatch: pytest.MonkeyPatch, fake: type[Stuck]) -> tuple[Any, float, int]:
    """(what `_request` gave, the seconds it took, how often a ticker ran meanwhile)."""
    monkeypatch.setattr(discovery, "AsyncServiceInfo", fake)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    ticker = asyncio.get_running_loop().create_task(tick())
    loop = asyncio.get_running_loop()
    begun = loop.time()
    try:
        found = await ServerFinder._request(None, "x._president._tcp.local.")  # type: ignore[arg-type]
    finally:
        ticker.cancel()
    return found, loop.time() - begun, ticks


async def test_a_stuck_request_is_made_again_and_the_new_one_completes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, took, _ = await timed(monkeypatch, StuckOnce)
    assert isinstance(found, StuckOnce) and StuckOnce.made == 2
    assert SLICE_MS / 1000 <= took < RESOLVE_MS / 1000


async def test_a_request_that_never_completes_ends_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, took, ticks = await timed(monkeypatch, Stuck)
    assert found is None and Stuck.made == RESOLVE_MS // SLICE_MS
    assert RESOLVE_MS / 1000 <= took < RESOLVE_MS / 1000 + 1
    assert ticks >= 10  # the loop went on meanwhile


async def test_a_request_ended_early_is_the_answer_and_the_loop_never_spins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, _, _ = await timed(monkeypatch, Denied)
    assert found is None and Denied.made == 1

"""How `ServerFinder` asks zeroconf for one server's records (`ServerFinder._request`):
in slices, each by a new request, until a deadline; a request the library ends early
is the answer.  zeroconf's `AsyncServiceInfo` is replaced by fakes that behave as the
library was seen to, on a clock of the test's own: each request moves it on by as long
as it took, so what is counted is requests against time, never time itself (the real
library is used by tests/test_discovery.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from president.client import discovery
from president.client.discovery import RESOLVE_MS, SLICE_MS, ServerFinder


class Clock:
    """The finder's clock (seconds), moved on by the fake requests."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


CLOCK = Clock()


class Stuck:
    """A request that never completes: it waits out its timeout (and `late` seconds
    more, as on a loaded machine) and says no, as one that missed an address arriving
    before its SRV record."""

    made = 0
    late = 0.0

    def __init__(self, *_: Any) -> None:
        type(self).made += 1

    async def async_request(self, zeroconf: Any, timeout: float) -> bool:
        CLOCK.now += timeout / 1000 + self.late
        await asyncio.sleep(0)  # (the event loop runs meanwhile)
        return False


class StuckOnce(Stuck):
    """The first request is stuck; a new one completes from the cache at once."""

    made = 0

    async def async_request(self, zeroconf: Any, timeout: float) -> bool:
        if type(self).made == 1:
            return await super().async_request(zeroconf, timeout)
        return True


class Late(Stuck):
    """Stuck, each request ending 0.3 s after its timeout."""

    made = 0
    late = 0.3


class Denied(Stuck):
    """Every request ends at once (the host's addresses denied by an NSEC record)."""

    made = 0

    async def async_request(self, zeroconf: Any, timeout: float) -> bool:
        await asyncio.sleep(0)
        return False


async def request(monkeypatch: pytest.MonkeyPatch, fake: type[Stuck]) -> tuple[Any, float, int]:
    """(what `_request` gave, the clock's seconds it took, how often another task ran
    meanwhile)."""
    monkeypatch.setattr(discovery, "AsyncServiceInfo", fake)
    monkeypatch.setattr(fake, "made", 0)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    ticker = asyncio.get_running_loop().create_task(tick())
    begun = CLOCK.now
    try:
        found = await ServerFinder._request(None, "x._president._tcp.local.", CLOCK)  # type: ignore[arg-type]
    finally:
        ticker.cancel()
    return found, CLOCK.now - begun, ticks


async def test_a_stuck_request_is_made_again_and_the_new_one_completes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, took, _ = await request(monkeypatch, StuckOnce)
    assert isinstance(found, StuckOnce) and StuckOnce.made == 2
    assert took == pytest.approx(SLICE_MS / 1000)


async def test_a_request_that_never_completes_ends_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, took, ticks = await request(monkeypatch, Stuck)
    assert found is None and Stuck.made == RESOLVE_MS // SLICE_MS
    assert took == pytest.approx(RESOLVE_MS / 1000)
    assert ticks > 0  # the loop went on meanwhile


async def test_requests_that_end_late_still_end_by_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a loaded machine each slice ends late: fewer requests, never one more, and the
    last one no longer than the time left."""
    found, took, _ = await request(monkeypatch, Late)
    assert found is None and Late.made == RESOLVE_MS // SLICE_MS
    assert RESOLVE_MS / 1000 <= took <= RESOLVE_MS / 1000 + Late.late


async def test_a_request_ended_early_is_the_answer_and_the_loop_never_spins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, took, _ = await request(monkeypatch, Denied)
    assert found is None and Denied.made == 1 and took == 0

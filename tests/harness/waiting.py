"""Waiting for something to come true: the one way every test waits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: How often a condition is asked again.
POLL = 0.01


async def wait_for(
    predicate: Callable[[], T],
    timeout: float = 20.0,
    what: str | Callable[[], str] = "",
) -> T:
    """The first true value `predicate()` gives, asked every 10 ms while the event loop
    goes on; `AssertionError` saying `what` (a text, or a function that tells it then: a
    screen, the lines so far) if none comes within `timeout` seconds.

    The timeout only ends a wait that would hang: no test measures time with it.  Keep it
    generous (a loaded machine is slow) and assert on what happened, not on when."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not (value := predicate()):
        if loop.time() > end:
            said = what() if callable(what) else what
            raise AssertionError(f"not so within {timeout:g} s: {said or predicate}")
        await asyncio.sleep(POLL)
    return value

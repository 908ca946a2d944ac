"""A run over worker processes that a bot's mistake stops: the workers skip the jobs
left and the pool is closed, never terminated.  `Pool.terminate` killed a worker while it
was sending its result, holding the result queue's lock, and the pool's end waited on
that lock for ever: `president sim --jobs 2` with a broken bot hung once in 34 runs on a
loaded machine (faulthandler: the task handler in `queues.put`, the main thread joining
it in `_terminate_pool`).  The hang itself is a race; what is tested here is that the
path that had it is not taken."""

from __future__ import annotations

import multiprocessing.pool
from typing import Any

import pytest
from president.bots import sim
from president.bots.strategies import STRATEGIES, BotMistake
from president.engine import find_preset


class Broken:
    def choose(self, view: Any) -> Any:
        return None  # (no action: a mistake)


def test_a_failed_run_closes_its_pool_and_kills_no_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (a bot made as `president.bots.sdk.register` makes one, known to the forked workers)
    monkeypatch.setitem(STRATEGIES, "broken-for-the-pool", lambda rng, **options: Broken())
    killed: list[object] = []
    terminate = multiprocessing.pool.Pool.terminate

    def recorded(pool: multiprocessing.pool.Pool) -> None:
        killed.append(pool)
        terminate(pool)

    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", recorded)
    bots = ["broken-for-the-pool", "random", "random", "random"]
    with pytest.raises(BotMistake):
        sim.run(find_preset("classic"), bots, games=64, seed=1, processes=2)
    assert killed == []  # closed and joined: every worker ended by itself
    # and a run that goes well ends its pool the same way
    result = sim.run(find_preset("classic"), ["random"] * 4, games=16, seed=1, processes=2)
    assert sum(t.hands for t in result.entrants) > 0 and killed == []

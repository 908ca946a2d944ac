"""A run over worker processes (`president sim --jobs N`) that something stops: a bot's
mistake, a worker process that dies, a bot that raises KeyboardInterrupt.  Each ends
the run with what happened and leaves no worker behind; none waits for ever.

Before: a `multiprocessing.Pool` replaced a worker that died (killed, out of memory, a
bot's `os._exit`) and waited for ever on the games it had (a user pass: `kill -9` of a
worker left the bar at 57/60 games); and the mistake it reported was whichever worker's
came back first (game 0, then 3, then 3 for the same command).  The jobs here stand in
for games (`sim.run_job`, replaced before the workers are forked, which copies it)."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator

import pytest
from president.bots import sim
from president.bots.strategies import BotMistake, WorkerLost
from president.engine import find_preset

#: (worker processes started, and a job that waits a second: the slow tier)
pytestmark = pytest.mark.slow

real_run_job = sim.run_job


def failing_late_and_early(job: sim.Job) -> tuple[int, list[sim.Tally]]:
    """Game 1 fails after a second, game 3 at once: 3 comes back first, 1 is earlier."""
    if job.numbers[0] == 1:
        time.sleep(1.0)
        raise BotMistake("bot-0 (seed 1, game 1, hand 1): it chose None")
    if job.numbers[0] == 3:
        raise BotMistake("bot-0 (seed 1, game 3, hand 1): it chose None")
    return real_run_job(job)


def dying(job: sim.Job) -> tuple[int, list[sim.Tally]]:
    if job.numbers[0] == 2:
        os._exit(9)  # (as a worker killed, or a bot that ends its own process)
    return real_run_job(job)


def interrupting(job: sim.Job) -> tuple[int, list[sim.Tally]]:
    if job.numbers[0] == 2:
        raise KeyboardInterrupt  # (a bot's own: the workers leave Ctrl-C to the parent)
    return real_run_job(job)


def run(monkeypatch: pytest.MonkeyPatch, job: object) -> sim.SimResult:
    monkeypatch.setattr(sim, "run_job", job)
    return sim.run(find_preset("classic"), ["random"] * 4, games=8, seed=1, processes=2)


def test_the_run_reports_its_earliest_mistake_whichever_worker_comes_back_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(BotMistake, match="game 1,"):
        run(monkeypatch, failing_late_and_early)
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_stops_the_run_saying_so(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(WorkerLost, match="a worker process ended in the middle of its games"):
        run(monkeypatch, dying)
    assert multiprocessing.active_children() == []


def test_a_keyboard_interrupt_in_a_worker_stops_the_run_as_ctrl_c(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(KeyboardInterrupt):
        run(monkeypatch, interrupting)
    assert multiprocessing.active_children() == []


def test_a_run_that_goes_well_leaves_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(monkeypatch, real_run_job)
    assert result.games == 8 and sum(t.hands for t in result.entrants) > 0
    assert multiprocessing.active_children() == []


class Counted:
    """A run's plan that counts the jobs asked of it."""

    def __init__(self, plan: sim.Plan) -> None:
        self.plan, self.made = plan, 0

    def __len__(self) -> int:
        return len(self.plan)

    def __iter__(self) -> Iterator[sim.Job]:
        for job in self.plan:
            self.made += 1
            yield job


def test_jobs_go_to_the_workers_as_they_are_needed() -> None:
    """A tinkerer's pass: a million games' 40,000 jobs were made and handed to the pool
    at once, and the run held 175 MB from its start (25 MB now, `president sim --games
    1000000 --jobs 2`); the jobs handed on are a few a worker ahead of those done."""
    rules = find_preset("classic")
    plan = Counted(sim.plan(rules, ["random"] * 4, 400, 1, 1))
    results = sim._map(plan, 2)  # type: ignore[arg-type]
    next(results)
    assert plan.made <= 2 * sim.AHEAD + 1
    for done, _ in enumerate(results, start=2):
        assert plan.made <= 2 * sim.AHEAD + done
    assert plan.made == 400

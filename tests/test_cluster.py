"""`president sim --scheduler`: the simulator's jobs on a Dask cluster (a LocalCluster of
two workers in this process) give the same figures as a run on one machine, to the digit;
a worker lost in the middle of a job costs that job a second run, not the run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from president.bots import cluster, sim
from president.bots.sim import Job, SimResult, Tally
from president.bots.strategies import BotMistake
from president.engine import find_preset

from .harness.ports import free_port
from .harness.processes import Process, president_here, stop

ROOT = Path(__file__).resolve().parent.parent

#: Dask's distributed, when installed (the extra `cluster`, in the test extra too):
#: imported by the tests that use it only, which are in the slow tier (the import alone
#: takes a second).
needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="the extra `cluster` is not installed"
)

BOTS = ["random", "greedy", "random", "greedy"]


def figures(result: SimResult) -> dict[str, Any]:
    """Everything `president sim --json` says but the times taken."""
    found = result.to_json()
    for key in ("seconds", "hands_per_second", "processes"):
        del found[key]
    for tally in (*found["entrants"], *found["strategies"].values()):
        for key in ("think_seconds_per_hand", "decision_times", "choice_times"):
            del tally[key]
    return found


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        yield client


@pytest.mark.slow
@needs_dask
def test_a_cluster_gives_the_figures_of_a_run_on_one_machine(client: Any) -> None:
    rules = find_preset("classic")
    here = sim.run(rules, BOTS, 12, 7, processes=1)
    seen: list[int] = []
    there = cluster.run_on(
        client, rules, BOTS, 12, 7, chunk=3, progress=lambda d, _: seen.append(d)
    )
    assert figures(there) == figures(here)
    assert there.entrants[0].per_game == here.entrants[0].per_game
    assert seen == [3, 6, 9, 12]  # progress as each job comes back
    assert figures(cluster.run_on(client, rules, BOTS, 12, 8, chunk=3)) != figures(here)


#: The job the test's worker loses: it runs on its worker until the scheduler has given
#: the worker up, then fails (an answer that must not count); its second run is the
#: simulator's own.  (Module level, so Dask finds it by name.)
LOST = 4
started = threading.Event()
runs: list[tuple[int, str]] = []


def loses_its_worker(job: Job) -> tuple[int, list[Tally]]:
    import distributed

    worker = distributed.get_worker()
    runs.append((job.numbers[0], worker.address))
    if job.numbers[0] == LOST and not started.is_set():
        started.set()
        deadline = time.monotonic() + 30
        while worker.status.name == "running" and time.monotonic() < deadline:
            time.sleep(0.005)
        raise RuntimeError("the answer of a worker that is gone must not count")
    return sim.run_job(job)


def fails_as_a_bot(job: Job) -> tuple[int, list[Tally]]:
    """A job whose bot's `choose` raised, as `sim.play_game` says it."""
    raise BotMistake(
        "mine-0 (seed 3, game 1, hand 1): its strategy failed:\nTraceback (most recent call"
        ' last):\n  File "mine.py", line 9, in choose\nRuntimeError: my bot broke'
    )


@pytest.mark.slow
@needs_dask
def test_a_bots_failure_on_a_worker_is_said_whole(client: Any) -> None:
    """A user pass: on a cluster, "BotMistake: mine-0 (...): its strategy failed:" and
    no more, where a run on one machine shows the bot's traceback (and exits 1)."""
    rules = find_preset("classic")
    with pytest.raises(BotMistake) as raised:
        cluster.run_on(client, rules, BOTS, 4, 3, chunk=2, task=fails_as_a_bot)
    assert str(raised.value).endswith("line 9, in choose\nRuntimeError: my bot broke")


def failing_late_and_early(job: Job) -> tuple[int, list[Tally]]:
    """Game 2 fails after half a second, games 4 and 6 at once: they come back first, 2 is
    earlier in the run."""
    if job.numbers[0] == 2:
        time.sleep(0.5)
        raise BotMistake("mine-0 (seed 3, game 2, hand 1): its strategy failed")
    if job.numbers[0] in (4, 6):
        raise BotMistake(f"mine-0 (seed 3, game {job.numbers[0]}, hand 1): its strategy failed")
    return sim.run_job(job)


@pytest.mark.slow
@needs_dask
def test_the_mistake_said_is_the_runs_earliest_whichever_comes_back_first(client: Any) -> None:
    """A tinkerer's pass: the same run on a cluster named game 0, then 12, then 0 (on one
    machine, always the earliest); the jobs after it are not waited for."""
    rules = find_preset("classic")
    with pytest.raises(BotMistake, match="game 2,"):
        cluster.run_on(client, rules, BOTS, 40, 3, chunk=2, task=failing_late_and_early)


@pytest.mark.slow
@needs_dask
def test_a_worker_lost_mid_run_costs_its_job_a_second_run(client: Any) -> None:
    rules = find_preset("classic")
    here = sim.run(rules, BOTS, 12, 3, processes=1)
    lost: list[str] = []

    async def lose(address: str, dask_scheduler: Any) -> None:
        await dask_scheduler.remove_worker(address, stimulus_id="test-lost", close=True)

    def progress(done: int, games: int) -> None:
        if started.is_set() and not lost:
            lost.append(next(where for first, where in runs if first == LOST))
            client.run_on_scheduler(lose, lost[0])

    there = cluster.run_on(
        client, rules, BOTS, 12, 3, chunk=2, task=loses_its_worker, progress=progress
    )
    assert figures(there) == figures(here)
    # (the summary said "on 2 processes" after one was lost: the line a run prints)
    assert " on 1 to 2 processes: " in sim.speed_line(there), sim.speed_line(there)
    twice = [where for first, where in runs if first == LOST]
    assert len(twice) == 2 and twice[0] == lost[0] != twice[1]


@pytest.mark.slow
@needs_dask
def test_an_unreachable_scheduler_is_one_line() -> None:
    done = president_here("sim", "--games", "2", "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("president sim: cannot reach the Dask scheduler at tcp://")
    assert done.stderr.count("\n") == 1


def test_without_dask_the_option_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # (an import of it fails)
    done = president_here("sim", "--games", "2", "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode == 2
    assert done.stderr == (
        "president sim: --scheduler needs Dask's distributed scheduler: pip install"
        " '.[cluster]' (or pip install 'dask[distributed]')\n"
    )


def test_the_scheduler_is_not_for_jobs_or_records() -> None:
    done = president_here("sim", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode == 2
    assert "--jobs is for a run on this machine, not with --scheduler" in done.stderr


def dask(command: str, *args: str) -> Process:
    """`dask scheduler` or `dask worker` as a process of its own, its log read."""
    module = f"distributed.cli.dask_{command}"
    return Process(args, command=(sys.executable, "-m", module), merge_stderr=True)


@pytest.mark.slow
@needs_dask
def test_a_scripts_own_bot_plays_on_workers_that_never_ran_its_script(tmp_path: Path) -> None:
    """The bot of docs/bots.md's twenty lines, registered in its script's `__main__` (a
    worker never runs the script), on a cluster of a real `dask scheduler` and `dask
    worker`: the figures of the same run on one machine (the workers once said "there is
    no bot strategy 'lowball'")."""
    script = tmp_path / "mybot.py"
    script.write_text((ROOT / "scripts" / "example_bot.py").read_text(encoding="utf-8"))
    port = free_port()
    scheduler = dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    worker = None
    try:
        scheduler.expect("Scheduler at")
        address = f"tcp://127.0.0.1:{port}"
        worker = dask("worker", address, "--nthreads", "1", "--no-dashboard")
        worker.expect("Registered to")

        def sim(*more: str) -> dict[str, Any]:
            done = subprocess.run(
                [sys.executable, str(script), "sim", "--games", "12", "--seed", "3", *more],
                capture_output=True,
                text=True,
                cwd=tmp_path,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            found: dict[str, Any] = json.loads(done.stdout)
            return found

        there = sim("--scheduler", address, "--json", "--quiet")
        here = sim("--jobs", "1", "--json", "--quiet")
    finally:
        stop(worker, scheduler)
    assert there["entrants"][0]["strategy"] == "lowball"
    for result in (there, here):
        for key in ("seconds", "hands_per_second", "processes"):
            del result[key]
        for tally in (*result["entrants"], *result["strategies"].values()):
            for key in ("think_seconds_per_hand", "decision_times", "choice_times"):
                del tally[key]
    assert there == here


def test_a_lost_scheduler_and_a_job_it_cannot_read_are_said_as_such() -> None:
    """A tinkerer's pass: the scheduler killed mid-run was "a job failed on a worker:
    FutureCancelledError ...", and a module of the bot's own missing where the scheduler
    runs was "RuntimeError: Error during deserialization of the task graph. This
    frequently" (its first line, cut mid-sentence)."""

    class FutureCancelledError(Exception):  # (Dask's, by its name and words)
        pass

    lost = FutureCancelledError("run_job-1f2e cancelled for reason: scheduler-connection-lost.")
    assert cluster.failure(lost).startswith("the scheduler went away mid-run")
    graph = RuntimeError(
        "Error during deserialization of the task graph. This frequently\noccurs if the"
        " Scheduler and Client have different environments."
    )
    said = cluster.failure(graph)
    assert said.startswith("the scheduler could not read a job (Error during deserialization")
    assert "This frequently occurs if the Scheduler and Client" in said
    assert "must be installed where the scheduler runs" in said


def slow_job(job: Job) -> tuple[int, list[Tally]]:
    """A job that takes a while: the run waits for it, counting the workers."""
    time.sleep(0.2)
    return sim.run_job(job)


@pytest.mark.slow
@needs_dask
def test_a_cluster_left_without_workers_says_so_once(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tinkerer's pass: the only worker, without this project, ended itself at its first
    job, and `sim` waited for good without a word.  Here the count of workers reads none
    from the first job back until the warning is said: it is said once, and the run goes
    on to the figures of a run on one machine once workers are counted again."""
    rules = find_preset("classic")
    here = sim.run(rules, BOTS, 8, 3, processes=1)
    gone = threading.Event()
    said: list[str] = []
    real = cluster.threads

    def counted(of: Any) -> int:
        return 0 if gone.is_set() and not said else real(of)

    def warned(line: str) -> None:
        said.append(line)

    monkeypatch.setattr(cluster, "threads", counted)
    monkeypatch.setattr(cluster, "WATCH_SECONDS", 0.0)
    there = cluster.run_on(
        client,
        rules,
        BOTS,
        8,
        3,
        chunk=1,
        task=slow_job,
        progress=lambda done, games: gone.set(),
        warn=warned,
    )
    assert figures(there) == figures(here)
    assert len(said) == 1 and said[0].startswith("the cluster has no workers now"), said
    assert "install this project on every worker" in said[0]


@pytest.mark.slow
@needs_dask
def test_a_peer_that_never_answers_is_one_line_after_the_wait() -> None:
    """A tinkerer's pass: `--scheduler` at `python -m http.server`'s port (it waits for a
    request line Dask never sends) held `sim` 5 minutes without a word."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        done = president_here("sim", "--games", "2", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"president sim: no Dask scheduler answered at tcp://127.0.0.1:{port} within 10 s: is"
        " that a `dask scheduler`'s port (8786 unless it was given another)?\n"
    )


#: A peer that speaks Dask's protocol but is no scheduler (a hostile pass's): its
#: `identity` answers with a pickled object that writes a file when loaded, or raises
#: with escape sequences in its words.  `python -c FAKE MODE PORT FILE`.
FAKE = """
import asyncio, os, sys
from distributed.core import Server
from distributed.protocol.serialize import to_serialize
mode, port, mark = sys.argv[1], int(sys.argv[2]), sys.argv[3]
class Loaded:
    def __reduce__(self):
        return (os.system, (f"touch {mark}",))
async def identity(comm=None, **kw):
    if mode == "error":
        raise RuntimeError("no\\x1b]0;TITLE\\x07\\x1b[2J scheduler")
    return {"type": "Scheduler", "id": "x", "evil": to_serialize(Loaded())}
async def main():
    server = Server({"identity": identity})
    await server.listen(f"tcp://127.0.0.1:{port}")
    print("listening", flush=True)
    await asyncio.sleep(600)
asyncio.run(main())
"""


@pytest.mark.slow
@needs_dask
def test_a_peer_that_is_no_scheduler_runs_nothing_and_its_words_act_on_nothing(
    tmp_path: Path,
) -> None:
    """A hostile pass: a fake scheduler's pickled answer to `sim`'s first question ran code
    in the `sim` process, and its error's escape sequences set the terminal's title."""
    mark = tmp_path / "loaded"
    for mode, words in (
        ("pickle", "is not a Dask scheduler (it did not say so in plain data)"),
        ("error", "RuntimeError('no\\x1b]0;TITLE\\x07\\x1b[2J scheduler')"),
    ):
        port = free_port()
        peer = subprocess.Popen(
            [sys.executable, "-c", FAKE, mode, str(port), str(mark)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert peer.stdout is not None and peer.stdout.readline() == "listening\n"
            done = president_here("sim", "--games", "2", "--scheduler", f"tcp://127.0.0.1:{port}")
        finally:
            peer.kill()
            peer.wait()
        assert done.returncode == 2 and done.stdout == "", done
        assert words in done.stderr and "\x1b" not in done.stderr, done.stderr
        assert not mark.exists()

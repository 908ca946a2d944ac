"""`president sim --scheduler ADDRESS`: the simulator's jobs (chunks of games) on a Dask
cluster's workers (the optional extra `cluster`; Dask is imported only here, and only
when asked for).

A job's results depend on its game numbers alone, and they are added up in the jobs'
order, so a cluster gives the same figures as `president sim` on one machine, to the
digit.  A worker lost in the middle of a job costs that job a second run elsewhere (the
scheduler gives the job of a worker that is gone to another), not the run."""

from __future__ import annotations

import asyncio
import functools
import importlib
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from president.engine import Rules

from .sim import AHEAD, Collector, Job, SimResult, Tally, plan, run_job
from .strategies import BUILT_IN, STRATEGIES, BotMistake, Strategy

#: How long to try to reach the scheduler before saying so.
CONNECT_TIMEOUT = 10.0

#: How often a run waiting for its jobs counts the cluster's workers, in seconds.
WATCH_SECONDS = 0.5

#: The most games in a job: a lost worker costs at most this many games again, and the
#: progress moves at least this often; below it, each thread gets about 8 jobs.
MOST_PER_JOB = 100


class ClusterError(Exception):
    """The cluster cannot run the games: said in one line."""


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A Dask `Client` of the scheduler at `address` (a ClusterError if Dask is not
    installed or the scheduler cannot be reached)."""
    try:
        distributed = dask_distributed()
    except ImportError:
        raise ClusterError(
            "--scheduler needs Dask's distributed scheduler: pip install '.[cluster]'"
            " (or pip install 'dask[distributed]')"
        ) from None
    try:
        reachable(address, timeout)
    except ValueError:
        raise ClusterError(f"not a scheduler's address: {address} (tcp://HOST:PORT)") from None
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None

    deadline = time.monotonic() + timeout  # (the probe and the client share it: a peer
    # that answered the probe at 9 s and then stalled held `sim` 30 s, a hostile pass)
    try:  # (Dask's own client waits for good on a peer that never answers its handshake:
        # a pass's `python -m http.server` held `sim` 5 minutes without a word)
        said = asyncio.run(asyncio.wait_for(identity(address, timeout), timeout))
    except TimeoutError:
        raise ClusterError(
            f"no Dask scheduler answered at {address} within {timeout:g} s: is that a"
            " `dask scheduler`'s port (8786 unless it was given another)?"
        ) from None
    except Exception as exc:
        raise ClusterError(f"no Dask scheduler answered at {address}: {_reason(exc)}") from None

    if not isinstance(said, dict) or said.get("type") != "Scheduler" or not plain(said):
        # (a scheduler says who it is in plain values: anything else, pickled objects
        # above all, is no scheduler this run talks to further, a hostile pass)
        raise ClusterError(
            f"what answers at {address} is not a Dask scheduler (it did not say so in plain"
            " data): --scheduler is trusted like code you run (docs/cluster.md)"
        )

    base: Any = distributed.Client

    class President(base):  # type: ignore[misc]
        """A client that, having never connected, leaves quietly (Dask's own would try
        to close the connection it never made, for 20 s, when it is collected)."""

        def __del__(self) -> None:
            if getattr(self, "status", None) == "running":
                super().__del__()

    left = max(1.0, deadline - time.monotonic())
    try:
        return President(address, timeout=left, set_as_default=False)
    except Exception as exc:  # (what answers there may not speak Dask's protocol at all)
        raise ClusterError(f"no Dask scheduler answered at {address}: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    """An error from the peer in a line: its first, at most 200 characters (or its type)."""
    return (str(exc).splitlines()[0] if str(exc) else type(exc).__name__)[:200]


async def identity(address: str, timeout: float) -> Any:
    """What the scheduler at `address` says it is (Dask's `identity` call), which only a
    Dask scheduler answers."""
    core = importlib.import_module("distributed.core")
    # (its answer not unpickled: a probe only asks whether the peer is a scheduler, and a
    # hostile pass's fake scheduler ran code in `sim` through it; the client after it
    # trusts the scheduler, as Dask's does: docs/cluster.md)
    remote = core.rpc(address, timeout=timeout, deserialize=False)
    try:
        return await remote.identity()
    finally:
        await remote.close_rpc()


def plain(value: Any, depth: int = 0) -> bool:
    """Whether `value` is data and nothing else: strings, numbers, booleans, None, and
    dicts, lists and tuples of them (not 20 deep)."""
    if value is None or isinstance(value, (str, int, float, bool, bytes)):
        return True
    if depth > 20:
        return False
    if isinstance(value, dict):
        return all(plain(k, depth + 1) and plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(plain(item, depth + 1) for item in value)
    return False


def dask_distributed() -> Any:
    """Dask's `distributed`, imported when asked for (it takes a second), untyped."""
    return importlib.import_module("distributed")


def reachable(address: str, timeout: float) -> None:
    """A scheduler's TCP address refusing connections is said at once (Dask's client
    would try again until its timeout)."""
    addressing = importlib.import_module("distributed.comm.addressing")
    scheme, location = addressing.parse_address(address)
    if scheme in ("tcp", "tls"):
        host, port = addressing.parse_host_port(location, 8786)
        socket.create_connection((host, port), timeout=timeout).close()


def threads(client: Any) -> int:
    """The cluster's worker threads now (each runs one job at a time)."""
    return int(sum(client.nthreads().values()))


def run_on(
    client: Any,
    rules: Rules,
    bots: Sequence[str],
    games: int,
    seed: int,
    *,
    rotate: bool = True,
    preset: str = "classic",
    progress: Callable[[int, int], None] | None = None,
    options: dict[str, Any] | None = None,
    first: int = 0,
    chunk: int | None = None,
    task: Callable[[Job], tuple[int, list[Tally]]] = run_job,
    warn: Callable[[str], None] | None = None,
) -> SimResult:
    """`president.bots.sim.run` on the workers of a Dask `client`: the same games in the
    same jobs, their tallies added in the jobs' order; `progress(done, games)` as each
    job comes back; `warn(line)` when the cluster is left with no workers mid-run.
    `task` runs a job (a test's stand-in)."""
    players = len(bots)
    rules.check_players(players)
    workers = max(1, threads(client))
    result = SimResult(players, list(bots), entrants=[Tally(bot) for bot in bots])
    result.processes = workers
    if chunk is None:
        chunk = max(1, min(MOST_PER_JOB, games // (workers * 8)))
    jobs = plan(
        rules, bots, games, seed, chunk, rotate=rotate, preset=preset, options=options, first=first
    )
    own = tuple((name, STRATEGIES[name]) for name in sorted(set(bots)) if name not in BUILT_IN)
    if own:  # a script's bots go with the jobs (Dask pickles a script's code by value)
        task = functools.partial(with_strategies, own, task)
    as_completed = dask_distributed().as_completed
    start = time.perf_counter()
    collector = Collector(result, games)
    fewest = workers
    numbered = enumerate(jobs)
    done = as_completed(loop=client.loop)
    out: dict[Any, tuple[int, Any]] = {}  # a job sent: its future's key -> (index, future)
    mistake: tuple[int, BotMistake] | None = None  # (the earliest in the run's order)

    def hand_on() -> None:
        """The next job to the cluster, in the run's order (none after a bot's mistake):
        jobs go as they are needed, a few for each worker ahead, so that a run's memory
        does not grow with its games (a tinkerer's pass: 40,000 futures at once)."""
        job = next(numbered, None)
        if job is not None and mistake is None:
            future = client.submit(task, job[1], pure=False)
            out[future.key] = (job[0], future)
            done.add(future)

    def arrivals() -> Iterator[Any]:
        """The jobs as they come back; meanwhile, every second or so, the workers counted:
        when the last of them goes with jobs out, `warn` says so, once until one joins (a
        worker without this project ends itself at its first job, and a tinkerer's run
        waited for good without a word)."""
        had = threads(client) > 0
        counted = time.monotonic()
        arrived = getattr(done, "thread_condition", None)  # (what its own `next` waits on)
        while not done.is_empty():
            if done.has_ready():
                yield next(done)
                continue
            if arrived is None:
                time.sleep(0.05)
            else:
                with arrived:
                    arrived.wait(timeout=0.1)
            if time.monotonic() - counted < WATCH_SECONDS:
                continue
            counted = time.monotonic()
            now = threads(client)
            if had and not now and warn is not None:
                warn(
                    "the cluster has no workers now: its jobs wait for a `dask worker` to"
                    " join (Ctrl-C stops). A worker that cannot read a job ends itself: its"
                    " log says why (ModuleNotFoundError: install this project on every"
                    " worker)"
                )
            had = now > 0

    try:
        for _ in range(AHEAD * workers):
            hand_on()
        for future in arrivals():
            index, _ = out.pop(future.key)
            if future.status == "cancelled":  # (a job after a bot's mistake)
                continue
            try:
                count, tallies = future.result()
            except BotMistake as exc:  # (the bot's own, with its traceback: said as a run
                # here says it, the earliest of the run's order whatever order the
                # workers end in, as on one machine: a tinkerer's pass was told of
                # another game at each run)
                if mistake is None or index < mistake[0]:
                    mistake = (index, exc)
                    client.cancel([later for at, later in out.values() if at > index])
                continue
            except Exception as exc:
                raise ClusterError(failure(exc)) from None
            future.release()
            if mistake is not None:
                continue
            collector.add(index, count, tallies)
            now = threads(client)  # (workers come and go: the summary says so)
            fewest, result.processes = min(fewest, now), max(result.processes, now)
            result.fewest_processes = fewest if fewest != result.processes else None
            if progress is not None:
                progress(collector.done, games)
            for _ in range(max(1, AHEAD * now - len(out))):
                hand_on()
        if mistake is not None:
            raise mistake[1]
    except KeyboardInterrupt:
        raise collector.stopped(time.perf_counter() - start) from None
    finally:
        client.cancel([future for _, future in out.values()])
    return collector.finish(time.perf_counter() - start)


def with_strategies(
    strategies: tuple[tuple[str, Callable[..., Strategy]], ...],
    task: Callable[[Job], tuple[int, list[Tally]]],
    job: Job,
) -> tuple[int, list[Tally]]:
    """`task(job)` on a worker that knows these strategies too: those a bot's script
    registered (`sdk.register`) in its own process, which a worker never ran."""
    STRATEGIES.update(strategies)
    return task(job)


def failure(exc: BaseException) -> str:
    """What went wrong with a job, in a line."""
    name = type(exc).__name__
    if name == "KilledWorker":
        return (
            "a job's workers died three times over (out of memory? killed?): "
            f"{str(exc).splitlines()[0] if str(exc) else name}"
        )
    if isinstance(exc, ModuleNotFoundError):
        return f"a worker cannot run the games ({exc}): install this project on every worker"
    text = " ".join(str(exc).split())  # (the whole of it: its first line ended mid-sentence)
    if len(text) > 300:
        text = text[:299] + "…"
    if "scheduler-connection-lost" in text:  # (a pass: the scheduler killed, "a worker" blamed)
        return (
            "the scheduler went away mid-run (its connection was lost): start it again, and"
            " the run with the same --seed gives the same figures"
        )
    if "deserialization of the task graph" in text:  # (the scheduler reads the jobs too)
        return (
            f"the scheduler could not read a job ({text}): a module your bot's script imports"
            " must be installed where the scheduler runs, as on every worker (the scheduler's"
            " log names it)"
        )
    return f"a job failed on a worker: {name}{': ' + text if text else ''}"

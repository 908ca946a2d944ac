"""`president sim`: whole games offline between bots, seats rotated, spread over
processes, with the finishing places each strategy earns and their confidence intervals.

Every game draws its deal and its bots' randomness from (seed, game number) alone, so a
run gives the same figures whatever the number of processes."""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import queue
import random
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from president.bots.strategies import BotMistake, Interrupted, Strategy, WorkerLost, make_strategy
from president.engine import Game, IllegalAction, Phase, Rules

#: A game that has not ended after this many hands is reported, not looped on forever.
MAX_HANDS_PER_GAME = 10_000


#: Decision times are kept in buckets this many to a factor of ten (~2.3% wide), from
#: a microsecond: a compact histogram that adds up across processes.
BUCKETS_PER_DECADE = 100


@dataclass
class Clock:
    """Decision times: how many fell in each logarithmic bucket, their count and sum, so
    medians and percentiles survive a merge across processes to within a bucket."""

    buckets: dict[int, int] = field(default_factory=dict)
    count: int = 0
    seconds: float = 0.0

    def add(self, seconds: float) -> None:
        bucket = math.floor(math.log10(max(seconds, 1e-6) * 1e6) * BUCKETS_PER_DECADE)
        self.buckets[bucket] = self.buckets.get(bucket, 0) + 1
        self.count += 1
        self.seconds += seconds

    def merge(self, other: Clock) -> None:
        for bucket, n in other.buckets.items():
            self.buckets[bucket] = self.buckets.get(bucket, 0) + n
        self.count += other.count
        self.seconds += other.seconds

    @property
    def mean(self) -> float:
        return self.seconds / self.count if self.count else 0.0

    def quantile(self, q: float) -> float:
        """The time below which a fraction `q` of the decisions fell (a bucket's middle)."""
        if not self.count:
            return 0.0
        rank = q * self.count
        seen = 0
        for bucket in sorted(self.buckets):
            seen += self.buckets[bucket]
            if seen >= rank:
                return 1e-6 * 10 ** ((bucket + 0.5) / BUCKETS_PER_DECADE)
        return 1e-6 * 10 ** ((max(self.buckets) + 0.5) / BUCKETS_PER_DECADE)

    def summary(self) -> str:
        return (
            f"median {self.quantile(0.5) * 1e3:.2f} ms, mean {self.mean * 1e3:.2f} ms, "
            f"p90 {self.quantile(0.9) * 1e3:.2f} ms over {self.count:,}"
        )

    def to_json(self) -> dict[str, Any]:
        """The count and the times; the times null where nothing was timed (a bot the
        simulator does not time: zeros read as decisions that took no time)."""
        timed = bool(self.count)
        return {
            "decisions": self.count,
            "median_ms": round(self.quantile(0.5) * 1e3, 3) if timed else None,
            "mean_ms": round(self.mean * 1e3, 3) if timed else None,
            "p90_ms": round(self.quantile(0.9) * 1e3, 3) if timed else None,
        }


@dataclass
class Tally:
    """One entrant's results (an entrant is one strategy in one chair of the line-up);
    tallies of the same entrant from different processes add up."""

    strategy: str
    hands: int = 0
    place_sum: int = 0
    presidents: int = 0
    #: Hands begun as the sitting President, and of those the ones it kept the office.
    chances: int = 0
    kept: int = 0
    #: Exact (a joint win counts 1/n): summed in any order, by any number of jobs or
    #: workers, the same figure to the digit (a pass saw 69.16666666666666 and ...67).
    games_won: Fraction = Fraction(0)
    think: float = 0.0
    #: Per game, by (seed, game number): (hands, sum of places), for a confidence
    #: interval clustered by game.  Chairs of one strategy in the same game add up into
    #: one cluster: their places in a game are tied (they share the places there are).
    #: Kept while a job's games are added up; `fold` moves them into the sums below,
    #: which are all the interval needs (a run of a million games keeps no table of
    #: them: about 190 bytes a game and a tally).
    per_game: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    #: The games folded (`fold`): how many, and the sums over them of n², n·y and y²
    #: (n a game's hands, y its places summed).
    clusters: int = 0
    hands_squared: int = 0
    hands_places: int = 0
    places_squared: int = 0
    #: Every decision's thinking time (CPU), and those with more than one legal action
    #: (as far as the strategy says: see `Timed`).
    decisions: Clock = field(default_factory=Clock)
    choices: Clock = field(default_factory=Clock)
    #: Answers its strategy counted as its own mistakes, each replaced by a legal action
    #: (a strategy's `mistakes`: `PolicyBot`'s answers outside the action mask).
    mistakes: int = 0

    def add(self, other: Tally) -> None:
        self.hands += other.hands
        self.place_sum += other.place_sum
        self.presidents += other.presidents
        self.chances += other.chances
        self.kept += other.kept
        self.games_won += other.games_won
        self.think += other.think
        self.decisions.merge(other.decisions)
        self.choices.merge(other.choices)
        self.mistakes += other.mistakes
        self.clusters += other.clusters
        self.hands_squared += other.hands_squared
        self.hands_places += other.hands_places
        self.places_squared += other.places_squared
        for game, (hands, places) in other.per_game.items():
            have = self.per_game.get(game, (0, 0))
            self.per_game[game] = (have[0] + hands, have[1] + places)

    def fold(self) -> None:
        """Move the games kept one by one into the interval's sums: once no other chair
        of the same team will be added for those games (a job's whole team)."""
        for hands, places in self.per_game.values():
            self.clusters += 1
            self.hands_squared += hands * hands
            self.hands_places += hands * places
            self.places_squared += places * places
        self.per_game.clear()

    @property
    def average(self) -> float:
        return self.place_sum / self.hands if self.hands else 0.0

    def interval(self) -> float:
        """Half-width of the 95% confidence interval of the average place.  Hands of one
        game are not independent (the exchange ties them), so games are the samples: the
        ratio estimator's standard error over per-game clusters, sum((y - mean n)^2)
        expanded into the sums `fold` keeps."""
        games = self.clusters + len(self.per_game)
        if games < 2 or not self.hands:
            return math.inf
        nn, ny, yy = self.hands_squared, self.hands_places, self.places_squared
        for n, y in self.per_game.values():
            nn, ny, yy = nn + n * n, ny + n * y, yy + y * y
        mean = self.average
        n_bar = self.hands / games
        spread = max(0.0, yy - 2 * mean * ny + mean * mean * nn) / (games - 1)
        return 1.96 * math.sqrt(spread / games) / n_bar

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "hands": self.hands,
            "average_place": round(self.average, 4),
            "ci95": round(self.interval(), 4),
            "president_rate": round(self.presidents / max(1, self.hands), 4),
            "president_chances": self.chances,
            "retention_rate": round(self.kept / self.chances, 4) if self.chances else None,
            "games_won": float(self.games_won),
            "think_seconds_per_hand": round(self.think / max(1, self.hands), 6),
            "decision_times": self.decisions.to_json(),
            "choice_times": self.choices.to_json(),
            "mistakes": self.mistakes,
        }


def merge(results: Sequence[SimResult]) -> SimResult:
    """Runs of the same line-up, as one."""
    first = results[0]
    merged = SimResult(
        first.players,
        list(first.bots),
        entrants=[Tally(bot) for bot in first.bots],
        processes=first.processes,
    )
    for result in results:
        for total, part in zip(merged.entrants, result.entrants):
            total.add(part)
        for name, team in result.teams.items():
            merged.teams.setdefault(name, Tally(name)).add(team)
        merged.games += result.games
        merged.hands += result.hands
        merged.seconds += result.seconds
    return merged


@dataclass
class SimResult:
    players: int
    bots: list[str]
    games: int = 0
    hands: int = 0
    entrants: list[Tally] = field(default_factory=list)
    seconds: float = 0.0
    processes: int = 1
    #: On a cluster whose workers came or went during the run: the fewest it had at once
    #: (`processes` the most).
    fewest_processes: int | None = None
    #: Each strategy's chairs together, added up job by job (`Collector`): a game's
    #: chairs of one strategy are one cluster of its interval, which the entrants'
    #: tallies, folded chair by chair, no longer tell.
    teams: dict[str, Tally] = field(default_factory=dict)

    def by_strategy(self) -> dict[str, Tally]:
        if self.teams:
            return dict(self.teams)
        merged: dict[str, Tally] = {}  # (a result made without a collector: by its games)
        for tally in self.entrants:
            merged.setdefault(tally.strategy, Tally(tally.strategy)).add(tally)
        return merged

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "games": self.games,
            "hands": self.hands,
            "seconds": round(self.seconds, 3),
            "processes": self.processes,
            "hands_per_second": round(self.hands / self.seconds, 1) if self.seconds else None,
            "entrants": [t.to_json() for t in self.entrants],
            "strategies": {name: t.to_json() for name, t in self.by_strategy().items()},
        }


def entrant_names(bots: Sequence[str]) -> list[str]:
    return [f"{bot}-{index}" for index, bot in enumerate(bots)]


_now = time.perf_counter


#: A strategy that is not clocked decision by decision is clocked one decision in this
#: many, the time counted this many times over (see `Timed`).
SAMPLE = 8


class Timed:
    """A strategy whose thinking time is added up (`seconds`, by the clock).  A strategy
    that keeps `choices` (how many legal actions its last decision had, as the search bot
    does) is timed decision by decision in CPU time (the process's own: what one core
    spends on it, whatever else the machine runs), its real choices apart from its forced
    moves.  Others are cheap enough that reading the clock costs them more than their
    thinking (two readings take about 0.3 µs here, a random bot's choice 1.5 µs), so their
    `seconds` is sampled: one decision in `SAMPLE` is clocked (the first, the ninth...)
    and counts `SAMPLE` times; over a game's hundreds of decisions that is the total
    within a few percent, at an eighth of the cost."""

    #: The strategy's choice, clocked one way or the other (an attribute, not a method:
    #: chosen once, called as the strategy's `choose` is).
    choose: Callable[[Any], Any]
    #: The strategy's own `choose` (what it returns is the engine's to judge: compiled,
    #: a value typed as an action would be refused here, before the engine says why).
    _choose: Callable[[Any], Any]

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self.seconds = 0.0
        self.decisions = Clock()
        self.choices = Clock()
        self._tick = 0
        self._choose = strategy.choose
        sampled = not hasattr(strategy, "choices")
        self.choose = self._choose_sampled if sampled else self._choose_clocked

    def _choose_clocked(self, view: Any) -> Any:
        start = time.perf_counter()
        cpu = time.process_time()
        try:
            return self.strategy.choose(view)
        finally:
            self.seconds += time.perf_counter() - start
            spent = time.process_time() - cpu
            self.decisions.add(spent)
            if getattr(self.strategy, "choices", 0) > 1:
                self.choices.add(spent)

    def _choose_sampled(self, view: Any) -> Any:
        self._tick = tick = self._tick + 1
        if tick % SAMPLE != 1:
            return self._choose(view)
        start = _now()
        action = self._choose(view)  # (an error ends the game: its time is moot)
        self.seconds += (_now() - start) * SAMPLE
        return action


def play_game(
    rules: Rules,
    bots: Sequence[str],
    seed: int,
    number: int,
    rotate: bool,
    options: dict[str, Any] | None = None,
) -> tuple[Game, list[str], list[Timed]]:
    """Game `number` of a run: its seating (entrants rotated by the game number), deals
    and bot randomness from (seed, number) alone."""
    players = len(bots)
    names = entrant_names(bots)
    shift = number % players if rotate else 0
    seating = [names[(seat - shift) % players] for seat in range(players)]
    base = seed * 1_000_003 + number * 7_919
    strategies = {
        name: Timed(make_strategy(bot, random.Random(base + index), **(options or {})))
        for index, (name, bot) in enumerate(zip(names, bots))
    }
    deal_rng = random.Random(base ^ 0x5EED)
    game = Game(rules, seating)
    while game.phase is not Phase.GAME_OVER:
        if len(game.finishes) >= MAX_HANDS_PER_GAME:
            raise RuntimeError(f"game {number} did not end in {MAX_HANDS_PER_GAME} hands")
        game.start_hand(rng=deal_rng)
        # Each seat's chooser for this hand (the seating may change between hands).
        choosers = [strategies[name].choose for name in game.seating]
        view_for, apply = game.view_for, game.apply
        seat = game.actor
        while seat is not None:
            view = view_for(seat)
            try:  # (a bot's mistake names the bot and the game: `BotMistake`)
                action = choosers[seat](view)
            except (Exception, SystemExit):  # (`sys.exit` in a bot ended the run unsaid)
                raise BotMistake.of(game, seat, seed, number, traceback.format_exc()) from None
            try:
                apply(seat, action)
            except IllegalAction as refused:
                said = f"it chose {action!r}: {refused}"
                raise BotMistake.of(game, seat, seed, number, said) from None
            seat = game.actor
    return game, names, [strategies[name] for name in names]


def tally_game(
    game: Game,
    names: list[str],
    timers: list[Timed],
    tallies: list[Tally],
    key: tuple[int, int] = (0, 0),
) -> None:
    """Add one game to each entrant's tally; `key` (seed, game number) names the game."""
    for index, name in enumerate(names):
        tally = tallies[index]
        places = 0
        for hand, finish in enumerate(game.finishes):
            place = finish.index(name) + 1
            places += place
            tally.presidents += place == 1
            if hand and game.finishes[hand - 1][0] == name:
                tally.chances += 1
                tally.kept += place == 1
        tally.hands += len(game.finishes)
        tally.place_sum += places
        tally.per_game[key] = (len(game.finishes), places)
        if name in game.winners:
            tally.games_won += Fraction(1, len(game.winners))
        tally.think += timers[index].seconds
        tally.decisions.merge(timers[index].decisions)
        tally.choices.merge(timers[index].choices)
        tally.mistakes += getattr(timers[index].strategy, "mistakes", 0)


@dataclass(frozen=True)
class Job:
    rules: Rules
    bots: tuple[str, ...]
    seed: int
    numbers: tuple[int, ...]
    rotate: bool
    record: str | None
    preset: str
    options: tuple[tuple[str, Any], ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        # to a worker process, rebuilt through __init__ (a frozen class compiled by mypyc
        # cannot be unpickled field by field)
        fields = (self.rules, self.bots, self.seed, self.numbers, self.rotate, self.record)
        return (Job, (*fields, self.preset, self.options))


#: A record of the simulator's is the user's own: every hand of the game is in it.
RECORD_MODE = 0o600


def run_job(job: Job) -> tuple[int, list[Tally]]:
    tallies = [Tally(bot) for bot in job.bots]
    for number in job.numbers:
        # (a bot's print goes to stderr: on stdout it broke the run's --json, a
        # tinkerer's pass, whose first debugging tool was print)
        with contextlib.redirect_stdout(sys.stderr):
            game, names, timers = play_game(
                job.rules, job.bots, job.seed, number, job.rotate, dict(job.options)
            )
        tally_game(game, names, timers, tallies, (job.seed, number))
        if job.record:
            from president.bots.files import write_whole
            from president.engine.record import dumps, to_record

            path = Path(job.record) / f"{job.preset}-seed{job.seed}-game{number:05d}.json"
            write_whole(path, dumps(to_record(game, job.preset)), RECORD_MODE)
    return len(job.numbers), tallies


def plan(
    rules: Rules,
    bots: Sequence[str],
    games: int,
    seed: int,
    chunk: int,
    *,
    rotate: bool = True,
    record: str | None = None,
    preset: str = "classic",
    options: dict[str, Any] | None = None,
    first: int = 0,
) -> Plan:
    """The run's games, numbered from `first`, in jobs of `chunk` games (a job's results
    do not depend on the chunk: a game's seating, deals and randomness come from its
    number)."""
    options_given = tuple(sorted((options or {}).items()))
    job = Job(rules, tuple(bots), seed, (), rotate, record, preset, options_given)
    return Plan(job, games, max(1, chunk), first)


class Plan:
    """A run's jobs, each made as it is asked for: a million games' 40,000 jobs, made and
    handed to the workers at once, held 150 MB for the whole run (a tinkerer's pass)."""

    def __init__(self, job: Job, games: int, chunk: int, first: int) -> None:
        #: Every job's fields but its games.
        self.job = job
        self.games, self.chunk, self.first = games, chunk, first

    def __len__(self) -> int:
        return -(-self.games // self.chunk)

    def __getitem__(self, index: int) -> Job:
        if not 0 <= index < len(self):
            raise IndexError(index)
        start = self.first + index * self.chunk
        numbers = tuple(range(start, min(self.first + self.games, start + self.chunk)))
        job = self.job
        fields = (job.rules, job.bots, job.seed, numbers, job.rotate, job.record)
        return Job(*fields, job.preset, job.options)

    def __iter__(self) -> Iterator[Job]:
        return (self[index] for index in range(len(self)))


class Collector:
    """Adds up the jobs' tallies into a result in the jobs' own order, whatever order they
    finish in (so the sums of fractions come out the same to the last bit), and counts
    the games done as they come in."""

    def __init__(self, result: SimResult, games: int, keep_games: bool = False) -> None:
        self.result = result
        self.games = games
        #: Whether the entrants keep each game's figures (`Tally.per_game`, for a paired
        #: comparison of two runs' same games) instead of folding them job by job.
        self.keep_games = keep_games
        self.done = 0
        #: The games in the result's tallies: every job's before the first still out.
        self.added = 0
        self._next = 0
        self._waiting: dict[int, tuple[int, list[Tally]]] = {}

    def add(self, index: int, count: int, tallies: list[Tally]) -> None:
        self.done += count
        self._waiting[index] = (count, tallies)
        while self._next in self._waiting:
            count, tallies = self._waiting.pop(self._next)
            teams: dict[str, Tally] = {}
            for part in tallies:  # (a job's games are its own: its teams are whole)
                teams.setdefault(part.strategy, Tally(part.strategy)).add(part)
            for name, team in teams.items():
                team.fold()
                self.result.teams.setdefault(name, Tally(name)).add(team)
            for total, part in zip(self.result.entrants, tallies):
                if not self.keep_games:
                    part.fold()
                total.add(part)
            self.added += count
            self._next += 1

    def finish(self, seconds: float) -> SimResult:
        result = self.result
        result.seconds = seconds
        result.games = self.added
        result.hands = result.entrants[0].hands if result.entrants else 0
        return result

    def stopped(self, seconds: float) -> Interrupted:
        """The run was stopped (Ctrl-C): what to raise, with the result of the games in
        order so far (the first `added`, whatever finished after a gap is left out, so
        it is what a run of that many games gives)."""
        return Interrupted(self.finish(seconds), self.games)


def run(
    rules: Rules,
    bots: Sequence[str],
    games: int,
    seed: int,
    *,
    rotate: bool = True,
    processes: int = 1,
    record: str | None = None,
    preset: str = "classic",
    progress: Callable[[int, int], None] | None = None,
    options: dict[str, Any] | None = None,
    first: int = 0,
    keep_games: bool = False,
) -> SimResult:
    """Play `games` whole games between `bots` (one strategy per chair of the line-up),
    numbered from `first` (a number fixes the game's seating, deals and bot randomness).
    `keep_games`: the entrants keep each game's figures (`Tally.per_game`)."""
    players = len(bots)
    rules.check_players(players)
    result = SimResult(
        players, list(bots), entrants=[Tally(bot) for bot in bots], processes=max(1, processes)
    )
    chunk = max(1, min(25, games // (max(1, processes) * 8)))
    jobs = plan(
        rules,
        bots,
        games,
        seed,
        chunk,
        rotate=rotate,
        record=record,
        preset=preset,
        options=options,
        first=first,
    )
    start = time.perf_counter()
    collector = Collector(result, games, keep_games)
    try:
        for index, count, tallies in _map(jobs, processes):
            collector.add(index, count, tallies)
            if progress is not None:
                progress(collector.done, games)
    except KeyboardInterrupt:
        raise collector.stopped(time.perf_counter() - start) from None
    return collector.finish(time.perf_counter() - start)


#: Jobs handed to the workers ahead of those they run, a worker: enough that none waits
#: for the next, few enough that a run's memory does not grow with its games.
AHEAD = 4


def _map(jobs: Plan, processes: int) -> Iterator[tuple[int, int, list[Tally]]]:
    """Each job's (index, games, tallies), as they finish.  A job that fails (a bot's
    mistake) stops the run with the earliest failure of the run's order, whatever order
    the workers finish in: the jobs before it are awaited, those after it skipped."""
    numbered = enumerate(jobs)
    if processes <= 1 or len(jobs) <= 1:
        yield from map(_run_numbered, numbered)
        return
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    # (the first failed job so far, read by the workers: they skip every job after it)
    failed_at = context.Value("q", len(jobs), lock=False)
    before = set(multiprocessing.active_children())
    # (an executor, not a `multiprocessing.Pool`: a Pool replaces a worker that dies and
    # waits for ever on the games it had, where an executor says its pool is broken)
    pool = ProcessPoolExecutor(
        processes, mp_context=context, initializer=_start_worker, initargs=(failed_at,)
    )
    # Ctrl-C is taken as a flag, not as a KeyboardInterrupt raised wherever this thread
    # is: raised while it held a future's lock (`as_completed` takes thousands), it
    # left the lock held, and the pool's end waited on it for ever (a CI run: `sim
    # --jobs 2` never ended after Ctrl-C).  The results come through a queue.
    asked = _CtrlC()
    came: queue.SimpleQueue[tuple[int, Future[Any]]] = queue.SimpleQueue()
    workers: list[Any] = []
    failure: tuple[int, BaseException] | None = None
    ended = False

    def hand_on() -> int:
        """The next job to the pool (in the run's order, none after a failure): 1, or
        0 when there is none."""
        job = next(numbered, None)
        if job is None or failure is not None:
            return 0
        future = pool.submit(_run_numbered, job)
        future.add_done_callback(_telling(came, job[0]))
        return 1

    try:
        out = sum(hand_on() for _ in range(processes * AHEAD))
        workers = [child for child in multiprocessing.active_children() if child not in before]
        while out:
            index, future = asked.wait(came)
            out -= 1
            try:
                result = future.result()
            except BrokenProcessPool:
                raise WorkerLost(
                    "a worker process ended in the middle of its games (killed, out of "
                    "memory, or a bot that ended its own process): the run stops"
                ) from None
            except Exception as exc:  # (a bot's mistake: the earliest in the run's order)
                if failure is None or index < failure[0]:
                    failure = (index, exc)
                    failed_at.value = index
                continue
            if failure is None:
                out += hand_on()
                yield result
        ended = True
        if failure is not None:
            raise failure[1]
    finally:
        asked.restore()
        if not ended:  # (Ctrl-C, or the run left early: the workers end at once)
            for worker in workers:
                worker.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _telling(
    came: queue.SimpleQueue[tuple[int, Future[Any]]], index: int
) -> Callable[[Future[Any]], None]:
    """A job's done-callback: the job's index and future, put in `came`."""

    def tell(done: Future[Any]) -> None:
        came.put((index, done))

    return tell


class _CtrlC:
    """Ctrl-C (SIGINT) as a flag while a run waits on its workers (in the main thread;
    elsewhere Ctrl-C is not this thread's), `wait` raising KeyboardInterrupt where it is
    safe to."""

    def __init__(self) -> None:
        self.pressed = False
        self.previous: Any = None
        with contextlib.suppress(ValueError):  # (not the main thread)
            self.previous = signal.signal(signal.SIGINT, self._press)

    def _press(self, signum: int, frame: Any) -> None:
        self.pressed = True

    def wait(self, came: queue.SimpleQueue[tuple[int, Future[Any]]]) -> tuple[int, Future[Any]]:
        """The next job's result, as it comes; KeyboardInterrupt once Ctrl-C is pressed."""
        while not self.pressed:
            try:
                return came.get(timeout=0.1)
            except queue.Empty:
                continue
        raise KeyboardInterrupt

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None


#: Set in a worker: the first job of the run that failed (a bot's mistake), or the
#: number of jobs; the jobs after it are skipped.
_stopped: Any = None


def _start_worker(failed_at: Any) -> None:
    global _stopped
    _stopped = failed_at
    _leave_ctrl_c_to_the_parent()


def _run_numbered(numbered: tuple[int, Job]) -> tuple[int, int, list[Tally]]:
    index, job = numbered
    if _stopped is not None and index > _stopped.value:
        return index, 0, []  # (nobody reads it: the run has failed before it)
    return (index, *run_job(job))


def _leave_ctrl_c_to_the_parent() -> None:
    """A worker ignores Ctrl-C: the parent stops the pool (one line, no worker tracebacks).
    What else a forked worker has of its parent's signal handling goes back to the
    default: an event loop's handlers (`president play` turns SIGTERM and SIGHUP into a
    quit) made SIGTERM a no-op in the worker, so the pool's `terminate` waited on it for
    ever (the review froze the screen), and the loop's wake-up descriptor is the parent's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.set_wakeup_fd(-1)


def default_processes() -> int:
    return max(
        1,
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1),
    )


def progress_bar(stream: Any = sys.stderr) -> Callable[[int, int], None]:
    started = time.perf_counter()

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(1, total)
        elapsed = time.perf_counter() - started
        # (before any game is done, no time left to say: the bar alone, so that slow bots'
        # first games are not a blank screen)
        left = f", about {elapsed / done * (total - done):.0f}s left " if done else ""
        stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games  {elapsed:.0f}s{left}"
        )
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def _kept(t: Tally) -> str:
    """The "kept office" cell: how often it kept the office, of how many chances."""
    return f"{t.kept / t.chances:.1%} of {t.chances}" if t.chances else "—"


def _interval(tally: Tally) -> str:
    """A tally's 95% interval as the table shows it: "—" where there is none."""
    half = tally.interval()
    return "—" if math.isinf(half) else "±" + format(half, ".3f")


def report(result: SimResult, title: str) -> list[str]:
    """The result table, in lines."""
    lines = [
        title,
        f"{result.games} game{'s' * (result.games != 1)}, {result.hands:,} hands; average"
        " place 1 (President) "
        f"to {result.players}, parity {(result.players + 1) / 2:g}",
        "",
    ]
    # (under 80 columns: at 83 every row broke at 80, a newcomer's pass; "games won" a
    # whole number where no game was shared)
    every = [*result.entrants, *result.by_strategy().values()]
    # (as wide as its widest: "71.4% of 10844" pushed the columns after it right)
    kept_w = max([14, *(1 + len(_kept(t)) for t in every)])
    head = (
        f"{'entrant':<14} {'avg place':>9} {'95% CI':>7} {'President':>9} {'kept office':>{kept_w}} "
        f"{'games won':>9} {'think s/h':>9}"
    )
    lines.append(head)

    def row(label: str, t: Tally) -> str:
        won = format(float(t.games_won), ".1f").removesuffix(".0")
        return (
            # (one game is one sample: no interval, "—" where it read "±inf")
            f"{label:<14} {t.average:>9.3f} {_interval(t):>7} "
            f"{t.presidents / max(1, t.hands):>9.1%} {_kept(t):>{kept_w}} {won:>9} "
            f"{t.think / max(1, t.hands):>9.4f}"
        )

    for name, tally in zip(entrant_names(result.bots), result.entrants):
        lines.append(row(name, tally))
    shared = {
        name: tally for name, tally in result.by_strategy().items() if result.bots.count(name) > 1
    }
    if shared:
        lines.append("")
        for name, tally in shared.items():
            lines.append(row(f"all {name}", tally))
    for name, tally in zip(entrant_names(result.bots), result.entrants):
        if tally.mistakes:
            lines.append("")
            lines.append(
                f"{name}: {tally.mistakes:,} answers its strategy counts as mistakes (a"
                " policy's index outside the action mask), each replaced by the first legal"
                " action"
            )
    if any(t.games_won % 1 for t in result.entrants):
        lines.append("")
        lines.append("games won: a game won jointly (tied on points) counts 1/n to each winner")
    return lines


def speed_line(result: SimResult) -> str:
    rate = result.hands / result.seconds if result.seconds else 0.0
    fewest, most = result.fewest_processes, result.processes
    on = f"{fewest} to {most}" if fewest is not None and fewest != most else str(most)
    return (
        f"{result.hands:,} hands in {result.seconds:.1f} s on {on} "
        f"process{'es' if most > 1 else ''}: {rate:,.0f} hands/s"
    )

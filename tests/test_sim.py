"""`president sim`'s figures: a team's confidence interval is clustered by game."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from president.bots.sim import SimResult, Tally, report, run
from president.bots.strategies import STRATEGIES
from president.engine import Action, SeatView, find_preset


def test_chairs_of_one_strategy_in_a_game_are_one_cluster() -> None:
    """Two chairs of one strategy that always share places 1 and 2 between them average
    1.5 in every game: as a team their average is exactly known, so its interval is 0.
    Taken as independent samples (the chairs apart) it would not be."""
    first, second = Tally("greedy"), Tally("greedy")
    for game, (a, b) in enumerate([(1, 2), (2, 1), (1, 2), (2, 1), (1, 2)]):
        first.per_game[(7, game)] = (1, a)
        second.per_game[(7, game)] = (1, b)
        for tally, place in ((first, a), (second, b)):
            tally.hands += 1
            tally.place_sum += place
    team = Tally("greedy")
    team.add(first)
    team.add(second)
    assert team.average == 1.5 and len(team.per_game) == 5
    assert team.interval() == 0.0
    assert first.interval() > 0.4  # one chair alone varies


def test_a_simulated_teams_interval_is_the_ratio_estimator_over_whole_games() -> None:
    result = run(
        find_preset("classic"),
        ["heuristic", "greedy", "greedy", "greedy"],
        30,
        5,
        processes=1,
        keep_games=True,
    )
    team = result.by_strategy()["greedy"]
    chairs = [t for t in result.entrants if t.strategy == "greedy"]
    games = sorted(chairs[0].per_game)
    assert len(games) == 30 and all(sorted(t.per_game) == games for t in chairs)
    sums = [
        (sum(t.per_game[g][0] for t in chairs), sum(t.per_game[g][1] for t in chairs))
        for g in games
    ]
    hands, places = sum(n for n, _ in sums), sum(y for _, y in sums)
    mean, n_bar = places / hands, hands / len(sums)
    spread = sum((y - mean * n) ** 2 for n, y in sums) / (len(sums) - 1)
    assert math.isclose(team.interval(), 1.96 * math.sqrt(spread / len(sums)) / n_bar)
    # the chairs taken apart (the old figure) give a wider interval: their places in a
    # game are tied, so a team's game varies less than three independent chairs would
    apart = [(n, y) for t in chairs for n, y in t.per_game.values()]
    spread_apart = sum((y - mean * n) ** 2 for n, y in apart) / (len(apart) - 1)
    naive = 1.96 * math.sqrt(spread_apart / len(apart)) / (hands / len(apart))
    assert team.interval() < naive


def test_a_run_keeps_no_table_of_its_games_and_gives_the_same_figures() -> None:
    """A run folds each job's games into its tallies' sums (a million games kept one by
    one took about 190 bytes each a tally): the same averages and intervals, clustered
    the same way, as the run that keeps them, over several jobs and processes."""
    rules, bots = find_preset("classic"), ["heuristic", "greedy", "greedy", "random"]
    kept = run(rules, bots, 40, 3, processes=1, keep_games=True)
    folded = run(rules, bots, 40, 3, processes=2)
    assert all(not t.per_game and t.clusters == 40 for t in folded.entrants)
    assert all(len(t.per_game) == 40 for t in kept.entrants)
    for mine, theirs in [
        *zip(kept.entrants, folded.entrants),
        *[(kept.by_strategy()[n], folded.by_strategy()[n]) for n in ("greedy", "heuristic")],
    ]:
        assert (mine.hands, mine.place_sum) == (theirs.hands, theirs.place_sum)
        assert math.isclose(mine.interval(), theirs.interval(), rel_tol=1e-9)
    team = folded.by_strategy()["greedy"]
    assert team.clusters == 40  # (two chairs, one cluster a game)
    assert team.interval() < math.inf


def test_decision_times_add_up_across_processes() -> None:
    """The search bot's every decision is timed, and its real choices apart; the
    histograms of several processes merge into the same counts as one process's."""
    from president.bots.sim import Clock

    options = {"playouts": 4}
    bots = ["search", "greedy", "greedy", "greedy"]
    one = run(find_preset("classic"), bots, 4, 9, processes=1, options=options).entrants[0]
    two = run(find_preset("classic"), bots, 4, 9, processes=2, options=options).entrants[0]
    assert one.decisions.count > one.choices.count > 0
    assert (two.decisions.count, two.choices.count) == (one.decisions.count, one.choices.count)
    assert sum(two.decisions.buckets.values()) == two.decisions.count
    clock, parts = Clock(), [Clock(), Clock()]
    times = [0.001 * (1 + i % 20) for i in range(200)]  # 1 to 20 ms, ten of each
    for i, seconds in enumerate(times):
        clock.add(seconds)
        parts[i % 2].add(seconds)
    parts[0].merge(parts[1])
    assert (parts[0].buckets, parts[0].count) == (clock.buckets, clock.count)
    # a bot not timed: its times are null in --json, not zeros read as no time taken
    assert one.to_json()["decision_times"]["median_ms"] is not None
    untimed = run(find_preset("classic"), bots, 4, 9, processes=1, options=options).entrants[1]
    assert untimed.decisions.count == 0
    assert untimed.to_json()["decision_times"] == {
        "decisions": 0,
        "median_ms": None,
        "mean_ms": None,
        "p90_ms": None,
    }
    assert math.isclose(parts[0].seconds, clock.seconds)
    assert math.isclose(clock.mean, sum(times) / 200)
    assert abs(clock.quantile(0.5) - 0.010) < 0.010 * 0.025  # within a bucket
    assert abs(clock.quantile(0.9) - 0.018) < 0.018 * 0.025


def test_only_a_bot_that_counts_its_choices_is_clocked_per_decision() -> None:
    """The search bot's decisions are timed one by one in CPU time; a cheap bot's only
    add up (a CPU clock per decision would cost it more than it thinks)."""
    import random

    from president.bots.sim import Timed
    from president.bots.strategies import make_strategy
    from president.engine import Game

    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    game.start_hand(rng=random.Random(2))
    seat = game.actor
    assert seat is not None
    view = game.view_for(seat)
    cheap = Timed(make_strategy("random", random.Random(1)))
    search = Timed(make_strategy("search", random.Random(1), playouts=8))
    for timed in (cheap, search):
        timed.choose(view)
        timed.choose(view)
    assert cheap.decisions.count == 0 and cheap.seconds > 0
    assert search.decisions.count == 2 and search.seconds > 0


def test_a_cheap_bots_time_is_sampled_one_decision_in_eight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a clock that each choice moves on by one second, a bot not clocked per decision
    shows one second per decision once its decisions fill whole samples."""
    from president.bots import sim

    now = [0.0]

    class Steady:
        def choose(self, view: object) -> str:
            now[0] += 1.0
            return "pass"

    monkeypatch.setattr(sim, "_now", lambda: now[0])
    timed = sim.Timed(Steady())  # type: ignore[arg-type]
    timed.choose(None)
    assert timed.seconds == sim.SAMPLE  # the first decision is clocked
    for _ in range(sim.SAMPLE * 10 - 1):
        timed.choose(None)
    assert timed.seconds == sim.SAMPLE * 10


def test_the_report_says_what_a_fraction_of_a_game_won_is() -> None:
    tied = SimResult(3, ["random", "greedy", "greedy"], games=2, hands=20)
    tied.entrants = [
        Tally("random", games_won=Fraction(3, 2)),
        Tally("greedy", games_won=Fraction(1, 2)),
        Tally("greedy"),
    ]
    lines = report(tied, "t")
    assert lines[-1] == "games won: a game won jointly (tied on points) counts 1/n to each winner"
    whole = SimResult(3, ["random", "greedy", "greedy"], games=2, hands=20)
    whole.entrants = [Tally("random", games_won=Fraction(2)), Tally("greedy"), Tally("greedy")]
    assert not any("jointly" in line for line in report(whole, "t"))
    # under 80 columns, and a whole number of games where none was shared (a newcomer's
    # pass: 83 columns, every row broken at 80, "games won 9.0")
    played = run(find_preset("classic"), ["heuristic", "greedy", "greedy", "greedy"], 20, 1)
    table = report(played, "t")[3:]
    assert all(len(line) < 80 for line in table), table
    assert not any(re.search(r" \d+\.0 ", line) for line in table[1:5]), table


def test_a_run_stopped_keeps_the_result_of_its_first_games() -> None:
    """Ctrl-C (here raised by the progress callback after the first job) stops `run`
    with `Interrupted`, whose result is the games in order so far: what a run of that
    many games gives."""
    from president.bots.strategies import Interrupted

    def stop(done: int, games: int) -> None:
        raise KeyboardInterrupt

    rules = find_preset("classic")
    with pytest.raises(Interrupted) as stopped:
        run(rules, ["greedy", "random", "random", "random"], 400, 2, progress=stop)
    result, asked = stopped.value.result, stopped.value.asked
    assert asked == 400 and 0 < result.games < 400
    whole = run(rules, ["greedy", "random", "random", "random"], result.games, 2)
    timing = ("think_seconds_per_hand", "decision_times", "choice_times")

    def places(result: SimResult) -> list[dict[str, object]]:
        return [{k: v for k, v in t.to_json().items() if k not in timing} for t in result.entrants]

    assert places(result) == places(whole)
    assert isinstance(stopped.value, KeyboardInterrupt)  # (to whoever does not look)


def test_a_stopped_run_counts_only_the_games_before_the_first_still_out() -> None:
    """Jobs come back in any order over processes; the result of a stopped run holds
    those before the first job still out, so it is a run of fewer games."""
    from president.bots.sim import Collector

    rules = find_preset("classic")
    bots = ["greedy", "random", "random", "random"]
    first, second = run(rules, bots, 3, 4), run(rules, bots, 2, 4, first=3)
    collector = Collector(SimResult(4, bots, entrants=[Tally(b) for b in bots]), 10)
    collector.add(1, 2, second.entrants)
    assert collector.stopped(1.0).result.games == 0 and collector.done == 2
    collector.add(0, 3, first.entrants)
    assert collector.stopped(1.0).result.games == 5 and collector.added == 5


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1"])
async def test_ctrl_c_in_a_run_gives_the_result_of_the_games_done(jobs: str) -> None:
    """A tinkerer stops a long run: the games done so far (every one before the first
    still out, so exactly what a run of that many gives) are reported, then
    "interrupted", exit 130.  (Before: only "interrupted".)  One process: its jobs come
    back in order, so the first drawing of the bar past 0 means games to report."""
    import os
    import re

    from .harness.processes import PRESIDENT, president
    from .harness.terminal import Terminal

    args = ["sim", "--games", "100000", "--bots", "random", "--seed", "3"]
    terminal = Terminal([*PRESIDENT, *args, "--jobs", jobs], dict(os.environ), columns=110)
    try:
        # the progress bar past the first jobs' games: some are in the result
        await terminal.shows("/100000 games")
        await terminal.said("about")  # (the bar's first drawing: a job came back)
        terminal.ctrl_c()
        assert await terminal.exits() == 130
    finally:
        terminal.close()
    shown = terminal.text()
    assert "Traceback" not in terminal.output()
    stopped = re.search(r"stopped after ([\d,]+) of 100,000 games", shown)
    assert stopped, shown
    done = int(stopped.group(1).replace(",", ""))
    assert done and "president sim: interrupted" in shown
    table = shown[shown.index("preset classic") :]
    table = table[: table.index(" hands in ")].rsplit("\n", 1)[0]  # (to the speed's line)
    again = president(*args, "--games", str(done), "--jobs", "1")
    assert again.returncode == 0

    def figures(text: str) -> list[str]:  # every column but the thinking time
        return [line.rsplit(None, 1)[0] for line in text.splitlines() if line.strip()]

    assert figures(table) == figures(again.stdout)


@pytest.mark.slow
async def test_ctrl_c_stops_a_run_whose_workers_are_all_in_a_long_job() -> None:
    """Ctrl-C while the parent waits on a pool whose every worker is deep in a job that
    would take minutes (search bots at 20,000 playouts a decision): it exits at once,
    130, "interrupted", no traceback, and no worker left behind.  The timeouts only end
    a wait that would hang: a job here takes minutes, the wait at most 20 s."""
    import os
    from pathlib import Path

    from .harness.processes import PRESIDENT
    from .harness.terminal import Terminal
    from .harness.waiting import wait_for

    args = ["sim", "--games", "400", "--jobs", "2", "--seed", "1", "--playouts", "20000"]
    args += ["--bots", "search,random,random,random"]
    terminal = Terminal([*PRESIDENT, *args], dict(os.environ), columns=110)
    pid = terminal.proc.pid

    def workers() -> list[int]:
        try:
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def cpu(worker: int) -> float:  # (its user and system time, /proc/PID/stat's 14th, 15th)
        try:
            fields = Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    try:
        started = await wait_for(lambda: len(workers()) >= 2 and workers(), what="two workers")
        # each worker in its job: half a second of CPU spent (a worker just forked may not
        # ignore Ctrl-C yet; one in a job does)
        await wait_for(lambda: all(cpu(w) >= 0.5 for w in started), what="workers in a job")
        terminal.ctrl_c()
        assert await terminal.exits() == 130
    finally:
        terminal.close()
    assert "president sim: interrupted" in terminal.text()
    assert "Traceback" not in terminal.output()
    await wait_for(lambda: not any(Path(f"/proc/{w}").exists() for w in started), what="workers")


@pytest.mark.slow
async def test_ctrl_c_keeps_the_records_of_the_games_its_result_counts(tmp_path: Path) -> None:
    """A user pass: after Ctrl-C the result said "stopped after 72 of 300 games" while
    the --record folder held 84 records (games 0-76 and 90-96), and a folder the run had
    made was removed with every record in it.  Now the records are those of the games
    the result counts, and of no other."""
    import os
    import re

    from .harness.processes import PRESIDENT
    from .harness.terminal import Terminal

    folder = tmp_path / "made-by-the-run"
    args = ["sim", "--games", "100000", "--bots", "random", "--seed", "3", "--jobs", "2"]
    terminal = Terminal([*PRESIDENT, *args, "--record", str(folder)], dict(os.environ), columns=110)
    try:
        await terminal.shows("/100000 games")
        await terminal.said("about", 3)  # (a few jobs back: games in the result, likely)
        terminal.ctrl_c()
        assert await terminal.exits() == 130
    finally:
        terminal.close()
    stopped = re.search(r"stopped after ([\d,]+) of 100,000 games", terminal.text())
    done = int(stopped.group(1).replace(",", "")) if stopped else 0
    if not done:  # (nothing in order came back: nothing kept, the folder gone)
        assert not folder.exists()
        return
    names = {path.name for path in folder.iterdir()}
    assert names == {f"classic-seed3-game{n:05d}.json" for n in range(done)}, sorted(names)


@pytest.mark.slow
def test_records_stay_when_the_results_reader_has_gone(tmp_path: Path) -> None:
    """A tinkerer's pass: `president sim --record DIR | head -1` (or a pager quit early)
    lost every record: the broken pipe of printing the result was taken for a run gone
    wrong, and the folder the run made went with it, and the exit status said 0."""
    import subprocess

    from .harness.processes import PRESIDENT

    folder = tmp_path / "made-by-the-run"
    args = ["sim", "--games", "3", "--bots", "random", "--jobs", "1", "--record", str(folder)]
    sim = subprocess.Popen([*PRESIDENT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert sim.stdout is not None and sim.stderr is not None
    sim.stdout.close()  # the reader gone before the result is printed
    errors = sim.stderr.read().decode()
    assert sim.wait(60) == 0 and "Traceback" not in errors, errors
    names = sorted(path.name for path in folder.iterdir())
    assert names == [f"classic-seed1-game{n:05d}.json" for n in range(3)], names


def test_ctrl_c_and_a_gone_reader_keep_only_the_counted_games_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: a broken pipe while printing a stopped run's result was let through
    untouched, and the records past the games counted stayed (and the half-written
    `.part`), the status 0.  Now it is cleaned as Ctrl-C is, and the status is 130."""
    import io

    from president.bots.strategies import Interrupted
    from president.cli import main, sim

    folder = tmp_path / "records"
    counted = run(find_preset("classic"), ["random"] * 4, 1, 1)

    def stopped_after_three(*args: object, record: str, **kwargs: object) -> SimResult:
        for n in range(3):
            (Path(record) / f"classic-seed1-game{n:05d}.json").write_text("{}")
        (Path(record) / ".classic-seed1-game00003.json.part").write_text("")
        raise Interrupted(counted, 10)

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    monkeypatch.setattr(sim, "run", stopped_after_three)
    monkeypatch.setattr("sys.stdout", Gone())
    args = ["sim", "--games", "10", "--jobs", "1", "--bots", "random", "--record", str(folder)]
    assert main(args) == 130
    assert sorted(p.name for p in folder.iterdir()) == ["classic-seed1-game00000.json"]


def test_a_link_planted_in_the_records_folder_is_never_written_through(tmp_path: Path) -> None:
    """A hostile local user's pass: in a records folder others may write in, a link at
    the fixed name the record was written under first (`.NAME.part`) had the run write
    over a file of the user's.  Now each record goes into a fresh file of a name nobody
    could choose before, private to the user (every hand of the game is in it)."""
    import os
    import stat

    from president.cli import main

    folder = tmp_path / "records"
    folder.mkdir()
    victim = tmp_path / "notes.txt"
    victim.write_text("precious")
    (folder / ".classic-seed7-game00000.json.part").symlink_to(victim)
    (folder / ".classic-seed7-game00000-x.json.part").symlink_to(victim)
    args = ["sim", "--games", "1", "--seed", "7", "--jobs", "1", "--bots", "random"]
    assert main([*args, "--record", str(folder)]) == 0
    assert victim.read_text() == "precious"
    record = folder / "classic-seed7-game00000.json"
    assert not record.is_symlink() and record.read_text().startswith("{")
    assert stat.S_IMODE(os.stat(record).st_mode) == 0o600


def test_games_won_are_the_same_to_the_digit_in_any_order_of_jobs() -> None:
    """A tinkerer's pass: `--json`'s games_won was 69.16666666666666 with --jobs 1 and
    ...67 with --jobs 2 (joint wins, 1/n each, summed in another order).  Kept exact, they
    are one figure; and a "kept office" count of six digits keeps the columns in line."""
    import random

    rng = random.Random(1)
    shares = [Fraction(1, rng.choice([1, 2, 3, 6, 12])) for _ in range(200)]
    assert sum(float(x) for x in shares) != sum(float(x) for x in reversed(shares))  # (floats)
    forward, backward = Tally("random"), Tally("random")
    for share in shares:
        forward.add(Tally("random", games_won=share))
    for share in reversed(shares):
        backward.add(Tally("random", games_won=share))
    assert forward.to_json()["games_won"] == backward.to_json()["games_won"]
    result = SimResult(2, ["random", "greedy"], entrants=[Tally("random"), Tally("greedy")])
    result.entrants[0].chances, result.entrants[0].kept = 108440, 77420
    result.entrants[1].chances, result.entrants[1].kept = 12, 5
    lines = report(result, "t")
    head = next(line for line in lines if line.startswith("entrant"))
    rows = [line for line in lines if line.startswith(("random", "greedy"))]
    end = head.index("kept office") + len("kept office")
    assert all(row[:end].endswith(" of 108440") or row[:end].endswith(" of 12") for row in rows)


class Printer:
    """A tinkerer's bot as first debugged: it prints what it sees."""

    def choose(self, view: SeatView) -> Action:
        print("my hand:", view.hand)
        return view.legal_actions()[0]


def test_a_bots_prints_go_to_stderr_not_into_the_runs_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tinkerer's pass: a bot's print went to stdout, and `sim --json > out.json`
    wrote a file that is not JSON."""
    monkeypatch.setitem(STRATEGIES, "printer", lambda rng: Printer())
    run(find_preset("classic"), ["printer", "random", "random", "random"], 1, 1)
    printed = capsys.readouterr()
    assert printed.out == "" and "my hand:" in printed.err


def test_a_run_of_one_game_says_game_and_no_interval() -> None:
    """A tinkerer's pass: `--games 1` read "1 games" and every interval "±inf"."""
    from president.engine import PRESETS

    lines = report(run(PRESETS["classic"], ["random"] * 4, 1, 1, processes=1), "t")
    assert lines[1].startswith("1 game, "), lines
    rows = [line for line in lines if line.startswith("random-")]
    assert len(rows) == 4 and all(row.split()[2] == "—" for row in rows), rows
    assert not any("inf" in line for line in lines)
    two = report(run(PRESETS["classic"], ["random"] * 4, 2, 1, processes=1), "t")
    assert two[1].startswith("2 games, ") and "±" in two[4], two

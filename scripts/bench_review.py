#!/usr/bin/env python3
"""The review's honest figures (issue 29 §4, docs/analysis.md), each printed with what
it was measured on:

- planted blunders: decisions drawn at random from games of 4 heuristic bots, the action
  taken swapped for the worst legal one (the one whose expected place is highest over
  `--find-worlds` worlds of its own), then judged as `president analyze` judges: the
  share labelled a blunder;
- calibration: over games of 4 heuristic bots, each seat's expected place at the first
  play of a hand (what its cards were worth) against the place it took, by decile;
- discrimination: a seat played by random, greedy, heuristic and search bots against 3
  heuristic bots, the mean loss per decision of its decisions with a 95% interval
  (clustered by game);
- paired discrimination (`--paired-games`): the same decisions put to every bot, drawn
  from games of 4 heuristic bots or (`--paired-first BOT`) from BOT's own decisions
  against 3 heuristic bots, each gap between two bots with its interval.

    python -m scripts.bench_review [--preset classic] [--planted 200] [--games 200]
        [--discrimination-games 10] [--paired-games 0] [--paired-first heuristic]
        [--worlds 48] [--jobs 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from multiprocessing import get_context
from typing import Any, TypeVar

from president.bots import review
from president.bots.sim import play_game
from president.bots.strategies import STRATEGIES
from president.engine import find_preset, record


def game_record(preset: str, bots: list[str], seed: int, number: int) -> dict[str, Any]:
    game, _, _ = play_game(find_preset(preset), bots, seed, number, rotate=False)
    return record.to_record(game, preset)


def planted(job: tuple[str, int, int, int, float, int, bool]) -> list[tuple[float, float, float]]:
    """Blunders planted in one game's decisions: decisions drawn at random, each one's
    action swapped for the worst legal one; for each, how much worse the worst action is
    than the best by the finding evaluation (all legal actions, its own worlds), the
    loss the review then finds, and (`confirm` worlds, 0 for none) the same gap again
    over other worlds, the found best against the found worst alone (the finding
    evaluation picks both ends out of every legal action's noisy figure, so its gap runs
    high where there are many).  Draws go on until `count` of them have a worst action
    `gap` places or more below the best (or the game's decisions run out); with
    `confirmed`, by the finding evaluation and again over the `confirm` worlds."""
    preset, seed, number, count, gap, confirm, confirmed = job
    doc = game_record(preset, ["heuristic"] * 4, seed, number)
    found, _ = review.moments(doc)
    rng = random.Random(seed * 7919 + number)
    labelled = []
    for moment in rng.sample(found, len(found)):
        best, worst, worse = worst_action(moment, WORLDS_TO_FIND, seed + number)
        swapped = dataclasses.replace(moment, chosen=worst)
        judged = review.judge(swapped, "planted", WORLDS, seed=seed + 17 * number + 1)
        again = float("nan")
        if confirm and worse >= gap:
            check = random.Random(seed * 104_729 + number * 1_009 + len(labelled))
            rows = review._worlds_of(moment, [best, worst], confirm, check)
            players = len(moment.view.counts)
            again = review._place(rows, 1, players) - review._place(rows, 0, players)
        labelled.append((worse, judged.loss, again))
        if sum(g >= gap and (again >= gap or not confirmed) for g, _, again in labelled) >= count:
            break
    return labelled


def worst_action(moment: review.Moment, worlds: int, seed: int) -> tuple[Any, Any, float]:
    """The legal actions whose expected places are lowest and highest over `worlds`
    worlds, and how much higher the highest is."""
    judged = review.judge_all(moment, worlds, seed)
    best = min(judged, key=lambda pair: pair[1])
    worst = max(judged, key=lambda pair: pair[1])
    return best[0], worst[0], worst[1] - best[1]


def calibration(job: tuple[str, int, int]) -> list[tuple[float, float, int, int, int]]:
    """(expected place at the first play, the same by an independent evaluation, place
    taken, hand, title) for every seat and hand of a game; the title is the seat's place
    in the standing the hand was played from (0 the President), -1 in the first hand."""
    preset, seed, number = job
    doc = game_record(preset, ["heuristic"] * 4, seed, number)
    work = review.work_of(doc)
    worth = review.luck_chunk((work.starts, LUCK_WORLDS, seed + number))
    again = review.luck_chunk((work.starts, LUCK_WORLDS, 1_000_003 + seed + number))
    out = []
    for start, expected, second in zip(work.starts, worth, again):
        luck = work.luck(start, expected)
        if luck.place:
            _, view, name, _ = start
            standing = list(view.standing or ())
            title = standing.index(name) if name in standing else -1
            out.append((expected, second, luck.place, luck.hand, title))
    return out


T = TypeVar("T")


def equal_parts(ordered: Sequence[T], parts: int = 10) -> list[Sequence[T]]:
    """`ordered` cut into `parts` runs of equal count (deciles by default), in order."""
    count = len(ordered)
    return [ordered[count * part // parts : count * (part + 1) // parts] for part in range(parts)]


def print_calibration(rows: list[Any]) -> None:
    """The calibration's figures from its rows (expected, the same again, place taken,
    hand, title): the first hands and the others, by title, by decile; and how large the
    largest decile gap would be from the sample's noise alone."""
    for what, part in (
        ("hand 1 (no exchange)", [r for r in rows if r[3] == 0]),
        ("hands after an exchange", [r for r in rows if r[3] > 0]),
    ):
        if part:
            print(
                f"  {what}: {len(part)}, predicted {statistics.fmean(r[0] for r in part):.3f},"
                f" taken {statistics.fmean(r[2] for r in part):.3f}"
            )
    # By title (the President 0 ... the Scum): where a miss comes from.
    for title in sorted({r[4] for r in rows}):
        part = [r for r in rows if r[4] == title]
        if len(part) > 1:
            sd = statistics.stdev(r[2] for r in part) / math.sqrt(len(part))
            print(
                f"  title {title}{' (hand 1)' if title < 0 else ''}: {len(part)},"
                f" predicted {statistics.fmean(r[1] for r in part):.3f},"
                f" taken {statistics.fmean(r[2] for r in part):.3f} +- {1.96 * sd:.3f}"
            )
    # Deciles of the first evaluation; the prediction compared with the place taken is
    # the second, independent one: sorted by a noisy prediction, a decile's own mean
    # carries the noise it was sorted by (the extremes look too spread by it alone).
    ordered = sorted(rows)
    worst = worst_own = 0.0
    missed = 0
    errors = []
    for decile, part in enumerate(equal_parts(ordered)):
        own = statistics.fmean(r[0] for r in part)
        predicted = statistics.fmean(r[1] for r in part)
        taken = statistics.fmean(r[2] for r in part)
        sd = statistics.stdev(r[2] for r in part) / math.sqrt(len(part))
        errors.append(sd)
        worst = max(worst, abs(predicted - taken))
        worst_own = max(worst_own, abs(own - taken))
        missed += abs(predicted - taken) > 1.96 * sd
        print(
            f"  decile {decile + 1}: sorted by {own:.3f}; predicted {predicted:.3f},"
            f" taken {taken:.3f} +- {1.96 * sd:.3f} ({len(part)})"
        )
    print(
        f"  largest gap {worst:.3f} (target: within 0.05; {worst_own:.3f} against the"
        f" evaluation sorted by); {missed} of 10 deciles' 95% intervals miss their"
        " prediction"
    )
    # A perfectly calibrated prediction still misses each decile's place taken by that
    # decile's sampling error: the largest of the ten such gaps, drawn 20,000 times.
    rng = random.Random(1)
    noise = sorted(max(abs(rng.gauss(0.0, sd)) for sd in errors) for _ in range(20_000))
    print(
        f"  from the sample's noise alone (a calibrated prediction): the largest gap"
        f" {noise[len(noise) // 2]:.3f} at the median, {noise[len(noise) * 95 // 100]:.3f}"
        f" at the 95th percentile; within 0.05 {sum(x <= 0.05 for x in noise) / len(noise):.0%}"
        " of the time"
    )


def discrimination(job: tuple[str, str, int, int]) -> tuple[float, int, list[float]]:
    """(places lost, decisions, each loss) by seat 0, played by `bot` against 3
    heuristic bots."""
    preset, bot, seed, number = job
    doc = game_record(preset, [bot, "heuristic", "heuristic", "heuristic"], seed, number)
    name = doc["players"][0]
    result = review.review(doc, seats=[name], worlds=WORLDS, luck_worlds=2, seed=seed + number)
    losses = [j.loss for j in result.judged]
    return sum(j.gap for j in result.judged), len(losses), losses


#: The bots whose choices the paired discrimination weighs, in the order expected.
BOTS = ("random", "greedy", "heuristic", "search")


def paired(job: tuple[str, int, int, int, str]) -> list[tuple[int, list[float]]]:
    """The same decisions put to every bot: `count` decisions drawn at random from one
    game of 4 heuristic bots (or, `first` another bot, from that bot's own decisions in a
    game of it against 3 heuristic bots), each asked of `BOTS` from the seat's view, every
    answer weighed over the same worlds as the review weighs a decision (the best chosen
    on half the worlds, each answer's loss against it measured on the other half): per
    decision (game, each bot's loss, unfloored).  Paired, the world's luck and the
    decision's difficulty cancel out of each gap between two bots."""
    preset, seed, number, count, first = job
    doc = game_record(preset, [first] + ["heuristic"] * 3, seed, number)
    found, _ = review.moments(doc)
    if first != "heuristic":  # (its own decisions: the states its play leads to)
        found = [m for m in found if m.view.seating[m.seat] == doc["players"][0]]
    rng = random.Random(seed * 7907 + number)
    out = []
    for moment in rng.sample(found, min(count, len(found))):
        view = moment.view
        bots = [STRATEGIES[name](random.Random(rng.getrandbits(32))) for name in BOTS]
        answers = [bot.choose(view) for bot in bots]
        if moment.redeal is not None:
            candidates = review.returns_weighed(view, moment.actions, answers[2])
        else:
            candidates = review.weighed(view, moment.actions, answers[2])
        candidates += [a for a in dict.fromkeys(answers) if a not in candidates]
        results = review._worlds_of(moment, candidates, WORLDS, rng)
        players = len(view.counts)
        losses = [review._verdict(results, candidates.index(a), players)[1] for a in answers]
        out.append((number, losses))
    return out


def gap_interval(rows: list[tuple[int, list[float]]], a: int, b: int) -> tuple[float, float]:
    """Mean of bot a's loss less bot b's over the decisions, with its 95% interval's half
    width, clustered by game (decisions of one game are not independent)."""
    games: dict[int, list[float]] = {}
    for number, losses in rows:
        games.setdefault(number, []).append(losses[a] - losses[b])
    n = sum(len(d) for d in games.values())
    mean = sum(sum(d) for d in games.values()) / n
    k = len(games)
    residual = [sum(d) - mean * len(d) for d in games.values()]
    var = k / (k - 1) * sum(r * r for r in residual) / n**2 if k > 1 else 0.0
    return mean, 1.96 * math.sqrt(var)


WORLDS = review.WORLDS
WORLDS_TO_FIND = 64
LUCK_WORLDS = review.LUCK_WORLDS


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share k / n (95% at z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def share(losses: list[float], limit: float) -> float:
    return sum(loss >= limit for loss in losses) / max(1, len(losses))


def pool_map(function: Any, jobs: list[Any], processes: int) -> list[Any]:
    if processes <= 1:
        return [function(job) for job in jobs]
    with get_context("fork").Pool(processes) as pool:
        return pool.map(function, jobs)


def main() -> int:
    global WORLDS, WORLDS_TO_FIND, LUCK_WORLDS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--planted", type=int, default=200, help="blunders planted")
    parser.add_argument(
        "--plant-gap",
        type=float,
        default=0.75,
        help="draw until each game has 5 decisions whose worst action is this many places"
        " or more worse than the best (default 0.75)",
    )
    parser.add_argument(
        "--confirm-worlds",
        type=int,
        default=0,
        help="measure each planted blunder's gap again over this many other worlds"
        " (the found best against the found worst alone)",
    )
    parser.add_argument(
        "--plant-confirmed",
        action="store_true",
        help="with --confirm-worlds: draw until each game has 5 decisions whose worst action"
        " is --plant-gap places or more worse by the finding evaluation and again over the"
        " other worlds (a blunder by two evaluations, not one)",
    )
    parser.add_argument("--games", type=int, default=200, help="games for calibration")
    parser.add_argument("--discrimination-games", type=int, default=10)
    parser.add_argument(
        "--paired-games",
        type=int,
        default=0,
        help="games whose decisions are put to every bot (the paired discrimination)",
    )
    parser.add_argument("--paired-decisions", type=int, default=30, help="drawn a game")
    parser.add_argument(
        "--paired-first",
        default="heuristic",
        choices=BOTS,
        help="the paired decisions are this bot's own, in games of it against 3 heuristic"
        " bots (default: any seat's, in games of 4 heuristic bots)",
    )
    parser.add_argument("--worlds", type=int, default=review.WORLDS)
    parser.add_argument("--luck-worlds", type=int, default=review.LUCK_WORLDS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--epsilon", type=float, default=review.EPSILON, help="random moves in the playouts"
    )
    counting = parser.add_mutually_exclusive_group()
    counting.add_argument(
        "--counting",
        action="store_true",
        help="the playouts' heuristic counts the cards (as the heuristic bots do) in judging"
        " decisions too (a hand's cards are weighed so by default)",
    )
    counting.add_argument(
        "--uncounted-cards",
        action="store_true",
        help="a hand's cards weighed with playouts that do not count the cards (as before"
        " the review counted them there)",
    )
    parser.add_argument(
        "--rows", metavar="FILE", help="write the calibration's rows (JSON) to FILE as well"
    )
    args = parser.parse_args()
    WORLDS, LUCK_WORLDS = args.worlds, args.luck_worlds
    review.EPSILON = args.epsilon
    review.COUNTING = args.counting
    review.CARDS_COUNTING = not args.uncounted_cards
    print(
        f"preset {args.preset}, 4 players, {WORLDS} worlds a judged action, seed {args.seed},"
        f" epsilon {review.EPSILON}"
        + (", the playouts counting the cards" if args.counting else "")
        + ("" if review.CARDS_COUNTING else ", a hand's cards weighed without counting them")
    )
    if args.planted:
        started = time.perf_counter()
        per_game = 5
        games = math.ceil(args.planted / per_game)
        confirmed = args.plant_confirmed and args.confirm_worlds > 0
        plants = [
            (args.preset, args.seed, n, per_game, args.plant_gap, args.confirm_worlds, confirmed)
            for n in range(games)
        ]
        pairs = [x for part in pool_map(planted, plants, args.jobs) for x in part]
        losses = [loss for _, loss, _ in pairs]
        blunders = sum(review.label_of(loss) == "blunder" for loss in losses)
        cuts = statistics.quantiles(losses, n=20)
        print(
            f"planted: {len(pairs)} decisions drawn, the action swapped for the worst legal"
            f" one (found over {WORLDS_TO_FIND} worlds of its own);"
            f" {blunders} ({blunders / len(losses):.1%}) labelled a blunder"
            f" ({time.perf_counter() - started:.0f} s)"
        )
        print(
            f"  their losses: 5% below {cuts[0]:.3f}, 10% below {cuts[1]:.3f},"
            f" 25% below {cuts[4]:.3f}, median {cuts[9]:.3f} places"
        )
        for limit in sorted({review.THRESHOLDS[0][1], args.plant_gap, 1.0}):
            real = [loss for gap, loss, _ in pairs if gap >= limit]
            caught = sum(review.label_of(loss) == "blunder" for loss in real)
            print(
                f"  of the {len(real)} whose worst action is {limit} places or more worse than"
                f" the best by the finding evaluation: {caught} labelled a blunder"
                f" ({caught / max(1, len(real)):.1%})"
            )
        if args.confirm_worlds:
            for limit in sorted({review.THRESHOLDS[0][1], args.plant_gap, 1.0}):
                real = [
                    loss for gap, loss, again in pairs if gap >= args.plant_gap and again >= limit
                ]
                caught = sum(review.label_of(loss) == "blunder" for loss in real)
                low, high = wilson(caught, len(real))
                print(
                    f"  of those {args.plant_gap} or more worse by the finding evaluation,"
                    f" the {len(real)} {limit} or more worse again over"
                    f" {args.confirm_worlds} other worlds: {caught} labelled a blunder"
                    f" ({caught / max(1, len(real)):.1%}; 95% interval {low:.1%}-{high:.1%})"
                )
    if args.games:
        started = time.perf_counter()
        games_jobs = [(args.preset, args.seed + 1, n) for n in range(args.games)]
        rows = [p for part in pool_map(calibration, games_jobs, args.jobs) for p in part]
        if args.rows:  # (expected, the same again, place taken, hand, title) per seat-hand
            with open(args.rows, "w") as out:
                json.dump(rows, out)
        print(
            f"calibration: {len(rows)} seat-hands of {args.games} games of 4 heuristic bots"
            f" ({LUCK_WORLDS} worlds an evaluation; {time.perf_counter() - started:.0f} s)"
        )
        print_calibration(rows)
    if args.discrimination_games:
        started = time.perf_counter()
        print(f"discrimination: {args.discrimination_games} games per bot against 3 heuristic")
        for bot in ("random", "greedy", "heuristic", "search"):
            bot_jobs = [
                (args.preset, bot, args.seed + 2, n) for n in range(args.discrimination_games)
            ]
            per_game = pool_map(discrimination, bot_jobs, args.jobs)
            lost = sum(p for p, _, _ in per_game)
            decisions = sum(d for _, d, _ in per_game)
            every = [x for _, _, part in per_game for x in part]
            mean = lost / decisions
            # clustered by game: the ratio estimator's variance
            n = len(per_game)
            residuals = [p - mean * d for p, d, _ in per_game]
            var = n / (n - 1) * sum(r * r for r in residuals) / (decisions**2) if n > 1 else 0.0
            print(
                f"  {bot}: {mean:.4f} places lost a decision (unfloored)"
                f" +- {1.96 * math.sqrt(var):.4f}"
                f" ({decisions} decisions); over 0.10: {share(every, 0.10):.1%},"
                f" 0.25: {share(every, 0.25):.1%}, 0.50: {share(every, 0.50):.1%}"
            )
        print(f"  ({time.perf_counter() - started:.0f} s)")
    if args.paired_games:
        started = time.perf_counter()
        paired_jobs = [
            (args.preset, args.seed + 3, n, args.paired_decisions, args.paired_first)
            for n in range(args.paired_games)
        ]
        rows = [row for part in pool_map(paired, paired_jobs, args.jobs) for row in part]
        whose = (
            "4 heuristic bots"
            if args.paired_first == "heuristic"
            else f"{args.paired_first} against 3 heuristic bots, its own decisions"
        )
        print(
            f"paired discrimination: {len(rows)} decisions of {args.paired_games} games of"
            f" {whose}, each put to {', '.join(BOTS)} ({time.perf_counter() - started:.0f} s)"
        )
        for index, name in enumerate(BOTS):
            losses = [losses[index] for _, losses in rows]
            mean, half = gap_interval([(n, [x, 0.0]) for (n, _), x in zip(rows, losses)], 0, 1)
            print(
                f"  {name}: {mean:.4f} +- {half:.4f} places lost a decision (unfloored);"
                f" over 0.50: {share(losses, 0.50):.1%}"
            )
        for index in range(len(BOTS) - 1):
            mean, half = gap_interval(rows, index, index + 1)
            print(f"  {BOTS[index]} - {BOTS[index + 1]}: {mean:+.4f} +- {half:.4f}")
    print("command: python -m scripts.bench_review " + " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Strength of the built-in bots (issue 5's targets), measured with the simulator:
4 players, `classic`, exchange on, seats rotated every game, at least --hands hands per
match-up, average place 1 (President) to 4 with a 95% confidence interval (clustered by
game), and the search bot's own thinking time per hand.

    python scripts/bench_bots.py [--hands 2000] [--playouts N | --think S] [--jobs N]

Targets: heuristic vs 3 greedy <= 2.2; search vs 3 greedy <= 1.75 at <= 0.25 s of its own
thinking per hand; search vs 3 heuristic <= 2.0.  Prints figures; asserts nothing."""

from __future__ import annotations

import argparse
import json
import time

from president.bots.sim import SimResult, default_processes, merge, run
from president.engine import find_preset

MATCHES = [
    ("heuristic vs 3 greedy", ["heuristic", "greedy", "greedy", "greedy"], 2.2, None),
    ("search vs 3 greedy", ["search", "greedy", "greedy", "greedy"], 1.75, 0.25),
    ("search vs 3 heuristic", ["search", "heuristic", "heuristic", "heuristic"], 2.0, None),
]


def measure(
    bots: list[str], hands: int, seed: int, jobs: int, options: dict[str, object]
) -> SimResult:
    rules = find_preset("classic")
    results: list[SimResult] = []
    played = games = 0
    while played < hands:
        # about 7 hands a game at this table: ask for what is missing, and a little more
        batch = max(jobs, (hands - played) // 6 + 1)
        result = run(rules, bots, batch, seed, processes=jobs, options=options, first=games)
        results.append(result)
        played += result.hands
        games += batch
    return merge(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=default_processes())
    parser.add_argument("--playouts", type=int)
    parser.add_argument("--think", type=float, help="search: seconds per decision")
    parser.add_argument("--only", help="run the match-ups whose name contains this")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options: dict[str, object] = {}
    if args.playouts:
        options["playouts"] = args.playouts
    if args.think:
        options["seconds"] = args.think
    print(
        f"bench_bots: classic, 4 players, seats rotated, >= {args.hands} hands per match-up, "
        f"seed {args.seed}, {args.jobs} processes, search options {options or 'default'}"
    )
    out = []
    for name, bots, target, think_target in MATCHES:
        if args.only and args.only not in name:
            continue
        start = time.perf_counter()
        result = measure(bots, args.hands, args.seed, args.jobs, options)
        tally = result.entrants[0]
        think = tally.think / tally.hands
        verdict = "meets" if tally.average + 0 <= target else "MISSES"
        if think_target is not None and think > think_target:
            verdict = "MISSES (time)" if verdict == "meets" else verdict
        line = (
            f"{name:<24} {bots[0]} avg place {tally.average:.3f} ± {tally.interval():.3f} "
            f"(target <= {target})  {result.hands} hands, {result.games} games  "
            f"think {think:.3f} s/hand"
            + (f" (target <= {think_target})" if think_target else "")
            + f"  [{verdict}]  {time.perf_counter() - start:.0f}s"
        )
        print(line, flush=True)
        out.append(
            {
                "match": name,
                "average_place": tally.average,
                "ci95": tally.interval(),
                "hands": result.hands,
                "games": result.games,
                "think_seconds_per_hand": think,
                "target": target,
                "verdict": verdict,
            }
        )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()

"""Strength of the built-in bots (issues 5 and 14), measured with the simulator: seats
rotated every game, exchange on, at least --hands hands per match-up, average place 1
(President) to N with a 95% confidence interval (clustered by game), and the search bot's
CPU time per decision (median, mean and 90th percentile; over every decision it was asked and
over those with more than one legal action), each process on one core.

    python scripts/bench_bots.py [--hands 4000] [--playouts N | --think S] [--jobs N]
                                 [--only TEXT | --targets]

Targets (classic, 4 players): heuristic vs 3 greedy <= 2.2; search vs 3 greedy <= 1.62;
search vs 3 heuristic <= 1.90, under classic and under daifugo; the search's median time
per decision with a choice <= 10 ms.  The other tables (3, 5 and 6 players; the `table` and `full` presets) are
reported with no target.  Prints figures; asserts nothing."""

from __future__ import annotations

import argparse
import json
import sys
import time

from president.bots.sim import SimResult, default_processes, merge, run
from president.engine import find_preset

#: The search's median time per decision with a choice, in seconds.
TIME_TARGET = 0.010


def _against(opponent: str, players: int) -> list[str]:
    return ["search"] + [opponent] * (players - 1)


#: (name, preset, line-up, target average place or None).
MATCHES: list[tuple[str, str, list[str], float | None]] = [
    ("heuristic vs 3 greedy", "classic", ["heuristic", "greedy", "greedy", "greedy"], 2.2),
    ("search vs 3 greedy", "classic", _against("greedy", 4), 1.62),
    ("search vs 3 heuristic", "classic", _against("heuristic", 4), 1.90),
    *(
        (f"search vs {n - 1} {opponent}", "classic", _against(opponent, n), None)
        for n in (3, 5, 6)
        for opponent in ("greedy", "heuristic")
    ),
    *(
        (f"{preset}: search vs 3 {opponent}", preset, _against(opponent, 4), None)
        for preset in ("table", "full")
        for opponent in ("greedy", "heuristic")
    ),
    # issue 25: the search under Daifugo (its median time per decision has the same target)
    ("daifugo: search vs 3 heuristic", "daifugo", _against("heuristic", 4), 1.90),
    ("daifugo: search vs 3 greedy", "daifugo", _against("greedy", 4), None),
]


def measure(
    preset: str, bots: list[str], hands: int, seed: int, jobs: int, options: dict[str, object]
) -> SimResult:
    rules = find_preset(preset)
    results: list[SimResult] = []
    played = games = 0
    while played < hands:
        # about 7 hands a game at 4 players: ask for what is missing, and a little more
        per_game = played / games if games else 6
        batch = max(jobs, int((hands - played) / max(1.0, per_game - 0.5)) + 1)
        result = run(
            rules,
            bots,
            batch,
            seed,
            processes=jobs,
            options=options,
            first=games,
            preset=preset,
        )
        results.append(result)
        played += result.hands
        games += batch
    return merge(results)


def _option_value(text: str) -> object:
    """A search option's value as written: a whole number, a number, true/false, or a word."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=default_processes())
    parser.add_argument("--playouts", type=int)
    parser.add_argument("--think", type=float, help="search: seconds per decision")
    parser.add_argument(
        "--sampler", choices=("uniform", "belief"), help="search: where its worlds come from"
    )
    parser.add_argument(
        "--only", help="run the match-up of this name, or those whose name contains it"
    )
    parser.add_argument(
        "--targets", action="store_true", help="only the match-ups with a target (classic, 4)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="search: another SearchBot option (a number, true/false, or a word), repeatable",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options: dict[str, object] = {}
    for item in args.option:
        name, _, value = item.partition("=")
        if not name or not value:
            parser.error(f"--option takes NAME=VALUE, not {item!r}")
        options[name.strip()] = _option_value(value.strip())
    if args.playouts:
        options["playouts"] = args.playouts
    if args.think:
        options["seconds"] = args.think
    if args.sampler:
        options["sampler"] = args.sampler
    print(
        f"bench_bots: seats rotated, >= {args.hands} hands per match-up, seed {args.seed}, "
        f"{args.jobs} processes (one core each), search options {options or 'default'}\n"
        f"command: python scripts/bench_bots.py {' '.join(sys.argv[1:])}".rstrip()
    )
    out = []
    # --only: the match-up of that exact name if there is one, else every name holding it
    exact = any(args.only == name for name, *_ in MATCHES)
    for name, preset, bots, target in MATCHES:
        if args.only and (args.only != name if exact else args.only not in name):
            continue
        if args.targets and target is None:
            continue
        start = time.perf_counter()
        result = measure(preset, bots, args.hands, args.seed, args.jobs, options)
        tally = result.entrants[0]
        verdict = "" if target is None else "meets" if tally.average <= target else "MISSES"
        timed = bots[0] == "search"
        if timed and target is not None and tally.choices.quantile(0.5) > TIME_TARGET:
            verdict = "MISSES (time)" if verdict == "meets" else verdict
        line = (
            f"{name:<30} {preset:<8} {bots[0]} avg place {tally.average:.3f} "
            f"± {tally.interval():.3f}"
            + (f" (target <= {target})" if target is not None else "")
            + f"  {result.hands} hands, {result.games} games"
            + (f"  [{verdict}]" if verdict else "")
            + f"  {time.perf_counter() - start:.0f}s"
        )
        print(line, flush=True)
        if timed:
            print(f"{'':<32}CPU, every decision: {tally.decisions.summary()}")
            print(
                f"{'':<32}CPU, with a choice:  {tally.choices.summary()}"
                + (f" (target: median <= {TIME_TARGET * 1e3:g} ms)" if target else "")
            )
        out.append(
            {
                "match": name,
                "preset": preset,
                "bots": bots,
                "average_place": tally.average,
                "ci95": tally.interval(),
                "hands": result.hands,
                "games": result.games,
                "think_seconds_per_hand": tally.think / max(1, tally.hands),
                "decision_times": tally.decisions.to_json(),
                "choice_times": tally.choices.to_json(),
                "target": target,
                "verdict": verdict or None,
            }
        )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()

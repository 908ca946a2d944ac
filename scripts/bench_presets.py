#!/usr/bin/env python3
"""Random-bot hands per second under each preset against classic's, same run (issue 25 §3).

The simulator's own game loop (`president.bots.sim.play_game`, what `president sim
--jobs 1` runs: random bots, a `SeatView` per decision) and the engine alone (each
decision `legal_actions`, a random choice, `apply`), under `classic` and each preset
named, taking turns in slices of a quarter of a second so that a change of load on a
shared machine touches them alike.  Target: every preset >= 0.70 of classic's hands/s
in the simulator (medians over the runs).

    python scripts/bench_presets.py [--seconds 5] [--repeats 3] [--presets daifugo,house]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from scripts.bench_engine import SLICE, play_for, print_build, sim_for

TARGET = 0.70


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="each loop's run, per preset")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--presets", default="daifugo,house,full,sheet,table,japanese")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    presets = ["classic", *[p for p in args.presets.split(",") if p and p != "classic"]]
    ratios: dict[str, list[float]] = {p: [] for p in presets}
    engine_ratios: dict[str, list[float]] = {p: [] for p in presets}
    for run in range(args.repeats):
        seed = args.seed + run
        sim = {p: [0, 0.0, 0] for p in presets}  # hands, seconds, games
        engine = {p: [0, 0.0] for p in presets}
        rngs = {p: random.Random(seed) for p in presets}
        while sim["classic"][1] < args.seconds:
            step = min(SLICE, args.seconds - sim["classic"][1])
            for preset in presets:
                start = time.perf_counter()
                hands, games = sim_for(step, preset, args.players, seed, int(sim[preset][2]))
                sim[preset][1] += time.perf_counter() - start
                sim[preset][0] += hands
                sim[preset][2] += games
                start = time.perf_counter()
                hands, _ = play_for(step / 2, preset, args.players, rngs[preset])
                engine[preset][1] += time.perf_counter() - start
                engine[preset][0] += hands
        rate = {p: sim[p][0] / sim[p][1] for p in presets}
        alone = {p: engine[p][0] / engine[p][1] for p in presets}
        print(
            f"run {run + 1}: simulator hands/s "
            + ", ".join(f"{p} {rate[p]:,.0f}" for p in presets)
            + "; engine alone "
            + ", ".join(f"{p} {alone[p]:,.0f}" for p in presets)
        )
        for preset in presets:
            ratios[preset].append(rate[preset] / rate["classic"])
            engine_ratios[preset].append(alone[preset] / alone["classic"])
    failed = False
    for preset in presets[1:]:
        ratio = statistics.median(ratios[preset])
        meets = ratio >= TARGET
        failed |= not meets
        print(
            f"{preset} / classic: simulator {ratio:.2f} "
            f"({'meets' if meets else 'MISSES'} the target {TARGET:.2f}), "
            f"engine alone {statistics.median(engine_ratios[preset]):.2f} "
            f"(medians of {args.repeats} runs, {args.players} random bots, one process)"
        )
    print_build()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

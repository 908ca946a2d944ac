#!/usr/bin/env python3
"""Issue 25's two speed ratios counted in instructions instead of seconds (cachegrind).

`bench_presets` (daifugo / classic hands/s in the simulator, target >= 0.70) and
`bench_engine` (classic engine / a bare hard-coded loop, target >= 0.7 pure, >= 1.2
compiled) time their loops on the clock, and the same code gives other ratios on other
CPUs (daifugo / classic 0.70-0.71 on one machine, 0.62 on another; docs/bots.md).  This
counts the instructions the same loops execute, which do not depend on the machine or on
its load: each loop runs under `valgrind --tool=cachegrind --cache-sim=no` for a short
and a long count of games, and the difference, over the difference in hands, is a hand's
instructions (the interpreter's start, the imports and the tables' first filling fall out).
A ratio of instructions is a reading beside the targets, not the targets themselves: the
clock weighs an instruction by what the CPU makes of it (a mispredicted branch, a miss).

    python -m scripts.bench_instructions [--presets daifugo] [--games 20,120] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from president.engine import RulesError, find_preset

from scripts.bench_engine import play_one, print_build, reference_hand, sim_one

#: The loops measured, each named by what it runs (`worker`).
KINDS = ("sim", "engine", "bare")
#: Hands of the bare loop per game of the others' counts (a classic game is ~10 hands).
BARE_HANDS_PER_GAME = 10
ROOT = Path(__file__).resolve().parents[1]


def worker(kind: str, preset: str, count: int, players: int, seed: int) -> int:
    """Run one loop for `count` games (the bare loop: hands); return the hands played."""
    rng = random.Random(seed)
    if kind == "bare":
        for _ in range(count * BARE_HANDS_PER_GAME):
            reference_hand(rng, players)
        return count * BARE_HANDS_PER_GAME
    rules = find_preset(preset)
    if kind == "sim":
        return sum(sim_one(rules, players, seed, number) for number in range(count))
    names = [f"P{i}" for i in range(players)]
    return sum(play_one(rules, names, rng)[0] for _ in range(count))


def counted(kind: str, preset: str, count: int, players: int, seed: int) -> tuple[int, int]:
    """(instructions, hands) of one loop run under cachegrind in a fresh interpreter."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cachegrind.out"
        command = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={out}",
            sys.executable,
            "-m",
            "scripts.bench_instructions",
            "--worker",
            kind,
            preset,
            str(count),
            "--players",
            str(players),
            "--seed",
            str(seed),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:  # (its last line that is not valgrind's)
            said = [line for line in done.stderr.splitlines() if line and line[:2] != "=="]
            raise SystemExit(f"{kind} {preset} {count}: failed: {(said or ['?'])[-1]}")
        hands = int(done.stdout.split()[-1])
        summary = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
        return int(summary.split()[1]), hands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default="daifugo", help="presets set against classic")
    parser.add_argument("--games", default="20,120", help="the short and the long count")
    parser.add_argument("--jobs", type=int, default=2, help="loops run at once")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worker", nargs=3, metavar=("KIND", "PRESET", "COUNT"))
    args = parser.parse_args()
    if args.worker:
        kind, preset, count = args.worker
        if kind not in KINDS:
            parser.error(f"--worker: the kind is one of {', '.join(KINDS)}")
        print(worker(kind, preset, int(count), args.players, args.seed))
        return 0
    if shutil.which("valgrind") is None:
        print("bench_instructions: needs valgrind (Debian's package valgrind)", file=sys.stderr)
        return 2
    try:
        short, long = (int(g) for g in args.games.split(","))
    except ValueError:
        parser.error("--games: two counts, the short and the long, as in 20,120")
    if not 0 < short < long:
        parser.error("--games: 0 < the short count < the long one")
    presets = [p for p in args.presets.split(",") if p and p != "classic"]
    for preset in ["classic", *presets]:
        try:
            find_preset(preset).check_players(args.players)
        except RulesError as error:
            parser.error(f"{preset}: {error}")
    loops = [("sim", "classic"), *(("sim", p) for p in presets), ("engine", "classic")]
    loops.append(("bare", "classic"))
    runs = [(kind, preset, count) for kind, preset in loops for count in (short, long)]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda r: counted(r[0], r[1], r[2], args.players, args.seed), runs))
    per_hand: dict[tuple[str, str], float] = {}
    for (kind, preset), first, second in zip(loops, results[::2], results[1::2]):
        (few, few_hands), (many, many_hands) = first, second
        per_hand[kind, preset] = (many - few) / (many_hands - few_hands)
        scale, unit = (BARE_HANDS_PER_GAME, "hands") if kind == "bare" else (1, "games")
        print(
            f"{kind} {preset}: {per_hand[kind, preset] / 1e6:.3f}M instructions a hand "
            f"({many_hands - few_hands} hands: {long * scale} less {short * scale} {unit})"
        )
    classic = per_hand["sim", "classic"]
    for preset in presets:
        print(
            f"{preset} / classic, the simulator's hands per instruction: "
            f"{classic / per_hand['sim', preset]:.2f} (the clock's target: 0.70)"
        )
    print(
        "classic engine / bare loop, hands per instruction: "
        f"{per_hand['bare', 'classic'] / per_hand['engine', 'classic']:.2f} "
        "(the clock's targets: 0.7 pure Python, 1.2 compiled)"
    )
    print_build()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

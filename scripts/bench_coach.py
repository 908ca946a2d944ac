#!/usr/bin/env python3
"""How long the coach (`a` in `president play`) takes to answer, and how much its figure
moves from one sample of worlds to the next, at each number of worlds.

Positions: every tenth decision with three or more legal actions of a few games of four
heuristic bots.  At each, the coach's advice (`review.advise`) three times with three
seeds; printed per preset and number of worlds: the median and the longest answer, and
the mean spread (standard deviation) of its expected place over the three.

    python -m scripts.bench_coach [--presets classic,daifugo] [--worlds 48,144,192] [--games 4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from president.bots.review import advise
from president.bots.strategies import make_strategy
from president.engine import Game, Phase, SeatView, find_preset


def positions(preset: str, games: int) -> list[SeatView]:
    rules = find_preset(preset)
    found = []
    for number in range(games):
        game = Game(rules, ["a", "b", "c", "d"])
        deal = random.Random(number)
        game.start_hand(rng=deal)
        bots = [make_strategy("heuristic", random.Random(seat)) for seat in range(4)]
        steps = 0
        while game.phase is not Phase.GAME_OVER and steps < 60:
            seat = game.actor
            if seat is None:
                game.start_hand(rng=deal)
                continue
            view = game.view_for(seat)
            if steps % 10 == 5 and len(view.legal_actions()) > 2:
                found.append(view)
            game.apply(seat, bots[seat].choose(view))
            steps += 1
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default="classic,daifugo")
    parser.add_argument("--worlds", default="48,144,192")
    parser.add_argument("--games", type=int, default=4)
    args = parser.parse_args()
    counts = [int(w) for w in args.worlds.split(",")]
    for preset in args.presets.split(","):
        views = positions(preset, args.games)
        for worlds in counts:
            times, spreads = [], []
            for view in views:
                other = view.legal_actions()[0]
                start = time.perf_counter()
                figures = [advise(view, other, worlds, seed=s).expected for s in range(3)]
                times.append((time.perf_counter() - start) / 3)
                spreads.append(statistics.pstdev(figures))
            print(
                f"{preset:8} {worlds:4} worlds: answer median {statistics.median(times):.2f} s,"
                f" longest {max(times):.2f} s; spread of its figure"
                f" {statistics.mean(spreads):.3f} of a place ({len(views)} positions)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

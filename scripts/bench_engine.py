#!/usr/bin/env python3
"""Random-bot hands per second through the engine's public API (issue 2 §7).

Plays whole games of preset `classic`, 4 players, exchange on, in one process: each
decision is `legal_actions(seat)`, a uniform random choice, and `apply(seat, action)`
(which checks it again).  Prints the figure and the command.  Target: >= 5,000 hands/s.

    python scripts/bench_engine.py [--seconds 5] [--repeats 3] [--preset classic]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from president.engine import Game, Phase, find_preset


def play_for(seconds: float, preset: str, players: int, seed: int) -> tuple[int, int, float]:
    rules = find_preset(preset)
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    hands = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Game(rules, names)
        while game.phase is not Phase.GAME_OVER:
            game.start_hand(rng=rng)
            seat = game.actor
            while seat is not None:
                game.apply(seat, rng.choice(game.legal_actions(seat)))
                decisions += 1
                seat = game.actor
            hands += 1
    return hands, decisions, time.perf_counter() - start


def reference_hand(rng: random.Random, players: int) -> int:
    """The bare anchor: one hand of the base game as a hard-coded loop over rank counts,
    no toggles, no cards, no exchange, no checks.  Returns the decisions made."""
    deck = [r for r in range(13) for _ in range(4)]
    rng.shuffle(deck)
    hands = [[0] * 13 for _ in range(players)]
    for i, rank in enumerate(deck):
        hands[i % players][rank] += 1
    held = [52 // players + (1 if i < 52 % players else 0) for i in range(players)]
    out = 0
    turn = next(s for s in range(players) if hands[s][0])
    top_rank, top_count, owner, decisions = -1, 0, turn, 0
    passes = 0
    while out < players - 1:
        hand = hands[turn]
        if top_count == 0:
            options = [(r, c) for r in range(13) for c in range(1, hand[r] + 1)]
        else:
            options = [(r, top_count) for r in range(top_rank + 1, 13) if hand[r] >= top_count]
            options.append((-1, 0))
        rank, count = rng.choice(options)
        decisions += 1
        if rank < 0:
            passes += 1
        else:
            hand[rank] -= count
            held[turn] -= count
            top_rank, top_count, owner, passes = rank, count, turn, 0
            if not held[turn]:
                out += 1
                if out == players - 1:
                    break
        active = sum(1 for h in held if h)
        nxt = (turn + 1) % players
        while not held[nxt]:
            nxt = (nxt + 1) % players
        if passes >= active - (1 if held[owner] else 0):
            top_rank, top_count, passes = -1, 0, 0
            nxt = owner if held[owner] else nxt
            if not held[owner]:
                nxt = (owner + 1) % players
                while not held[nxt]:
                    nxt = (nxt + 1) % players
        turn = nxt
    return decisions


def reference_for(seconds: float, players: int, seed: int) -> tuple[int, float]:
    rng = random.Random(seed)
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        reference_hand(rng, players)
        hands += 1
    return hands, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each run")
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs; the best and median are shown"
    )
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates, references = [], []
    for run in range(args.repeats):
        hands, decisions, elapsed = play_for(
            args.seconds, args.preset, args.players, args.seed + run
        )
        rates.append(hands / elapsed)
        ref_hands, ref_elapsed = reference_for(args.seconds / 2, args.players, args.seed + run)
        references.append(ref_hands / ref_elapsed)
        print(
            f"run {run + 1}: engine {hands} hands, {decisions} decisions in {elapsed:.2f} s: "
            f"{hands / elapsed:,.0f} hands/s, {decisions / elapsed:,.0f} decisions/s; "
            f"bare reference loop {ref_hands / ref_elapsed:,.0f} hands/s"
        )
    ratio = statistics.median(r / ref for r, ref in zip(rates, references))
    print(
        f"engine: {max(rates):,.0f} hands/s best, {statistics.median(rates):,.0f} median "
        f"(preset {args.preset}, {args.players} players, exchange on, random bots, one process)"
    )
    print(
        f"bare hard-coded reference loop (no toggles, no cards, no checks): "
        f"{statistics.median(references):,.0f} hands/s median; engine/reference = {ratio:.2f}"
    )
    print("command: " + " ".join([sys.executable.rsplit("/", 1)[-1], *sys.argv]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

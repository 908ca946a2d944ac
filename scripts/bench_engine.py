#!/usr/bin/env python3
"""Random-bot hands per second through the engine's public API (issue 2 §7, issue 14 §4).

Plays whole games of a preset (`classic`, 4 players, exchange on) in one process, three
ways: the engine alone (each decision is `legal_actions(seat)`, a uniform random choice,
and `apply(seat, action)`, which checks it again); a bare hard-coded reference loop (the
anchor: no toggles, no cards, no checks); and the simulator's own game loop
(`president.bots.sim.play_game` with four `random` bots: a `SeatView` per decision).
The three take turns in slices of a quarter of a second, so that a change of load on a
shared machine touches them alike; each run gives the ratios of the same moments.
Targets: engine / bare loop >= 0.80 (issues 2 and 14; issue 25: >= 0.70 interpreted, >= 1.2
compiled); simulator / engine >= 0.60 (medians over the runs).

    python scripts/bench_engine.py [--seconds 5] [--repeats 3] [--preset classic]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from president.bots.sim import play_game
from president.cli.main import compiled_modules
from president.engine import Game, Phase, Rules, find_preset

#: How long each loop runs before the next one takes its turn.
SLICE = 0.25
ENGINE_TARGET = 0.80
#: Issue 25's engine / bare loop targets, by build: interpreted, and compiled by mypyc.
ENGINE_TARGET_PURE = 0.70
ENGINE_TARGET_COMPILED = 1.20
SIM_TARGET = 0.60


def play_one(rules: Rules, names: list[str], rng: random.Random) -> tuple[int, int]:
    """One whole game through the engine's API: (hands, decisions)."""
    hands = decisions = 0
    game = Game(rules, names)
    while game.phase is not Phase.GAME_OVER:
        game.start_hand(rng=rng)
        seat = game.actor
        while seat is not None:
            game.apply(seat, rng.choice(game.legal_actions(seat)))
            decisions += 1
            seat = game.actor
        hands += 1
    return hands, decisions


def play_for(seconds: float, preset: str, players: int, rng: random.Random) -> tuple[int, int]:
    """Whole games through the engine's API for about `seconds`: (hands, decisions)."""
    rules = find_preset(preset)
    names = [f"P{i}" for i in range(players)]
    hands = decisions = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        more, made = play_one(rules, names, rng)
        hands, decisions = hands + more, decisions + made
    return hands, decisions


def sim_one(rules: Rules, players: int, seed: int, number: int) -> int:
    """Game `number` of the simulator's loop with random bots: its hands."""
    game, _, _ = play_game(rules, ["random"] * players, seed, number, rotate=True)
    return len(game.finishes)


def sim_for(seconds: float, preset: str, players: int, seed: int, first: int) -> tuple[int, int]:
    """Whole games of the simulator's loop (random bots) for about `seconds`, numbered
    from `first`: (hands, games)."""
    rules = find_preset(preset)
    hands = games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        hands += sim_one(rules, players, seed, first + games)
        games += 1
    return hands, games


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


def reference_for(seconds: float, players: int, rng: random.Random) -> int:
    hands = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        reference_hand(rng, players)
        hands += 1
    return hands


def print_build() -> None:
    """The footer of every speed script: the build measured and the command run."""
    compiled = compiled_modules()
    print("build: " + (f"compiled by mypyc ({', '.join(compiled)})" if compiled else "pure Python"))
    print("command: " + " ".join([sys.executable.rsplit("/", 1)[-1], *sys.argv]))


def verdict(ratio: float, target: float) -> str:
    return f"{'meets' if ratio >= target else 'MISSES'} the target {target:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each loop's run")
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs; the best and median are shown"
    )
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates, references, sims = [], [], []
    for run in range(args.repeats):
        seed = args.seed + run
        engine_rng, reference_rng = random.Random(seed), random.Random(seed)
        hands = decisions = ref_hands = sim_hands = sim_games = 0
        spent = {"engine": 0.0, "reference": 0.0, "sim": 0.0}
        while spent["engine"] < args.seconds:
            step = min(SLICE, args.seconds - spent["engine"])
            start = time.perf_counter()
            more, made = play_for(step, args.preset, args.players, engine_rng)
            spent["engine"] += time.perf_counter() - start
            hands, decisions = hands + more, decisions + made
            start = time.perf_counter()
            ref_hands += reference_for(step / 2, args.players, reference_rng)
            spent["reference"] += time.perf_counter() - start
            start = time.perf_counter()
            more, games = sim_for(step, args.preset, args.players, seed, sim_games)
            spent["sim"] += time.perf_counter() - start
            sim_hands, sim_games = sim_hands + more, sim_games + games
        rate = hands / spent["engine"]
        reference = ref_hands / spent["reference"]
        sim = sim_hands / spent["sim"]
        rates.append(rate)
        references.append(reference)
        sims.append(sim)
        print(
            f"run {run + 1}: engine {hands} hands, {decisions} decisions in "
            f"{spent['engine']:.2f} s: {rate:,.0f} hands/s, {decisions / spent['engine']:,.0f} "
            f"decisions/s; bare reference loop {reference:,.0f} hands/s; "
            f"simulator {sim:,.0f} hands/s"
        )
    ratio = statistics.median(r / ref for r, ref in zip(rates, references))
    sim_ratio = statistics.median(s / r for s, r in zip(sims, rates))
    print(
        f"engine: {max(rates):,.0f} hands/s best, {statistics.median(rates):,.0f} median "
        f"(preset {args.preset}, {args.players} players, exchange on, random bots, one process)"
    )
    print(
        f"bare hard-coded reference loop (no toggles, no cards, no checks): "
        f"{statistics.median(references):,.0f} hands/s median; engine/reference = {ratio:.2f}: "
        + verdict(ratio, ENGINE_TARGET)
        + " (issues 2 and 14); "
        + (
            verdict(ratio, ENGINE_TARGET_COMPILED) + " compiled"
            if compiled_modules()
            else verdict(ratio, ENGINE_TARGET_PURE) + " interpreted"
        )
        + " (issue 25)"
    )
    print(
        f"simulator (president.bots.sim.play_game, {args.players} random bots, a SeatView "
        f"per decision): {statistics.median(sims):,.0f} hands/s median; simulator/engine = "
        f"{sim_ratio:.2f}: " + verdict(sim_ratio, SIM_TARGET)
    )
    print_build()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

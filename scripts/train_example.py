#!/usr/bin/env python3
"""An honest example of training on `president.env` (issue 30 §3): a linear softmax
policy over the masked actions (numpy only), trained by REINFORCE with a running baseline
on `SingleSeat` (one seat against bots, one hand an episode) for `--minutes`, then played
by `PolicyBot` in the simulator against 3 random and against 3 greedy bots: its average
place (1 = first) with a 95% interval clustered by game, beside a random player's.

    python -m scripts.train_example [--minutes 10] [--preset classic] [--games 200]
        [--save policy.npz]

Prints what it learned, whatever it is (docs/rl.md keeps the figures)."""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from typing import Any

try:
    import numpy as np
    from numpy.typing import NDArray
except ImportError:  # (a pass without the extra met numpy's traceback)
    print(
        f"{sys.argv[0]}: training needs the optional extra rl: pip install '.[rl]'", file=sys.stderr
    )
    raise SystemExit(2) from None
from president.bots.sim import play_game
from president.engine import find_preset
from president.env import Catalog, Observer, SingleSeat, register


class Linear:
    """logits = weights @ observation + bias, over the legal actions only."""

    def __init__(self, observations: int, actions: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(0, 0.01, (actions, observations)).astype(np.float32)
        self.bias = np.zeros(actions, dtype=np.float32)

    def probabilities(
        self, observation: NDArray[np.float32], mask: NDArray[np.int8]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        legal = np.flatnonzero(mask)
        logits = self.weights[legal] @ observation + self.bias[legal]
        logits = logits - logits.max()
        odds = np.exp(logits.astype(np.float64))
        return legal, odds / odds.sum()

    def greedy(self, observation: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
        legal, odds = self.probabilities(observation, mask)
        return int(legal[int(np.argmax(odds))])


def train(args: argparse.Namespace) -> tuple[Linear, int, int]:
    single = SingleSeat(preset=args.preset, players=4, opponents=args.opponents, hands=1)
    size = single.table.observer.layout.size
    policy = Linear(size, len(single.table.catalog), args.seed)
    rng = np.random.default_rng(args.seed)
    baseline = 0.0
    episodes = steps = 0
    deadline = time.perf_counter() + args.minutes * 60
    while time.perf_counter() < deadline:
        observation, _ = single.reset(seed=args.seed * 1_000_003 + episodes)
        trace: list[tuple[NDArray[np.float32], NDArray[np.int64], NDArray[np.float64], int]] = []
        done, won = False, 0.0
        while not done:
            legal, odds = policy.probabilities(
                observation["observation"], observation["action_mask"]
            )
            pick = int(rng.choice(len(legal), p=odds))
            trace.append((observation["observation"], legal, odds, pick))
            observation, reward, done, _, _ = single.step(int(legal[pick]))
            won += reward
            steps += 1
        advantage = won - baseline
        baseline += 0.01 * (won - baseline)
        for seen, legal, odds, pick in trace:
            # the gradient of log pi(pick) over the legal actions' logits: onehot - odds
            gradient = -odds
            gradient[pick] += 1.0
            step = (args.rate * advantage) * gradient.astype(np.float32)
            policy.weights[legal] += np.outer(step, seen)
            policy.bias[legal] += step
        episodes += 1
    return policy, episodes, steps


def places(
    strategy: str, opponents: str, preset: str, games: int, seed: int
) -> tuple[float, float, int]:
    """Average place of `strategy` against 3 `opponents` (seats rotated), and its 95%
    interval's half-width, clustered by game."""
    rules = find_preset(preset)
    per_game: list[tuple[int, int]] = []  # (places summed, hands)
    for number in range(games):
        game, names, _ = play_game(rules, [strategy] + [opponents] * 3, seed, number, rotate=True)
        mine = names[0]
        finishes = [finish.index(mine) + 1 for finish in game.finishes]
        per_game.append((sum(finishes), len(finishes)))
    total = sum(p for p, _ in per_game)
    hands = sum(h for _, h in per_game)
    mean = total / hands
    n = len(per_game)
    residuals = [p - mean * h for p, h in per_game]
    var = n / (n - 1) * sum(r * r for r in residuals) / hands**2 if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var), hands


def main() -> int:
    parser = argparse.ArgumentParser(  # (the first paragraph: its first line stops mid-sentence)
        description=" ".join(__doc__.split("\n\n")[0].split()),
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--opponents", default="random", help="the bots it trains against")
    parser.add_argument("--rate", type=float, default=0.002)
    parser.add_argument("--games", type=int, default=200, help="games per evaluation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", help="write the trained weights to this .npz file")
    args = parser.parse_args()
    started = time.perf_counter()
    policy, episodes, steps = train(args)
    took = time.perf_counter() - started
    print(
        f"trained {took / 60:.1f} min: {episodes:,} hands ({steps:,} decisions) of"
        f" {args.preset} against 3 {args.opponents}, REINFORCE, linear softmax"
        f" ({policy.weights.size + policy.bias.size:,} weights)"
    )
    if args.save:
        # (with what it was trained for: policy_bot.py says so at a table it does not fit)
        np.savez(args.save, weights=policy.weights, bias=policy.bias, preset=args.preset)
        print(f"weights written to {args.save}")
    rules = find_preset(args.preset)
    catalog, observer = Catalog(rules), Observer(rules, 4)
    assert len(catalog) == policy.bias.size and observer.layout.size == policy.weights.shape[1]

    def trained(rng: random.Random) -> Any:
        return policy.greedy

    register("trained-example", trained)
    for opponents in ("random", "greedy"):
        for strategy in ("trained-example", "random"):
            mean, half, hands = places(strategy, opponents, args.preset, args.games, args.seed + 7)
            print(
                f"{strategy} against 3 {opponents}: average place {mean:.3f} +- {half:.3f}"
                f" ({hands:,} hands, {args.games} games; 2.5 is even)"
            )
    print(
        f"command: python -m scripts.train_example --minutes {args.minutes:g} --preset {args.preset}"
        f" --opponents {args.opponents} --games {args.games} --seed {args.seed}"
        + (f" --save {args.save}" if args.save else "")  # (left out before: a pass)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""A policy trained by scripts/train_example.py as a bot, by the SDK's way
(`president.env.register`, `president.cli.bot_script`):

    python scripts/policy_bot.py policy.npz play                  # you against it
    python scripts/policy_bot.py policy.npz sim --games 100       # it against 3 greedy
    python scripts/policy_bot.py policy.npz bot HOST:PORT --fingerprint ... --table T
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from president.cli import bot_script
from president.env import register


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        saved = np.load(sys.argv[1])
        weights, bias = saved["weights"], saved["bias"]
    except (OSError, ValueError, KeyError) as exc:  # (a pass: a missing file, a traceback)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(
            f"{sys.argv[0]}: cannot read the policy {sys.argv[1]}: {why} (train_example.py"
            " writes one)",
            file=sys.stderr,
        )
        return 2
    trained = str(saved["preset"]) if "preset" in saved else "the rules it was trained for"

    def choose(observation: Any, mask: Any) -> int:
        if len(mask) != bias.size or len(observation) != weights.shape[1]:
            # (a tinkerer's pass met numpy's IndexError at a daifugo table, and a
            # matmul's at 5 players: the sizes are the rules' and the table's)
            raise ValueError(
                f"this policy fits {trained} with 4 players ({bias.size} actions, "
                f"{weights.shape[1]} observations), not this table ({len(mask)} actions, "
                f"{len(observation)} observations): train one for its rules (train_example.py "
                "--preset)"
            )
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(weights[legal] @ observation + bias[legal]))])

    register("trained", lambda rng: choose)
    return bot_script("trained", sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())

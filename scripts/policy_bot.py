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
    saved = np.load(sys.argv[1])
    weights, bias = saved["weights"], saved["bias"]

    def choose(observation: Any, mask: Any) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(weights[legal] @ observation + bias[legal]))])

    register("trained", lambda rng: choose)
    return bot_script("trained", sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())

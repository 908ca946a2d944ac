#!/usr/bin/env python3
"""A policy trained by scripts/train_example.py as a bot, by the SDK's way
(`president.env.register`, `president.cli.bot_script`):

    python scripts/policy_bot.py policy.npz play                  # you against it
    python scripts/policy_bot.py policy.npz sim --games 100       # it against 3 greedy
    python scripts/policy_bot.py policy.npz bot HOST:PORT --fingerprint ... --table T
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import zipfile
from typing import Any

try:
    import numpy as np
except ImportError:  # (a pass without the extra met numpy's traceback)
    print(
        f"{sys.argv[0]}: a trained policy needs the optional extra rl: pip install '.[rl]'",
        file=sys.stderr,
    )
    raise SystemExit(2) from None
from president.cli import bot_script
from president.cli.usage import UsageError, chosen_rules
from president.env import register
from president.env.actions import Catalog
from president.env.observe import Observer

#: The most a policy file's arrays may hold unpacked: a linear policy of the largest
#: catalog (some 3,300 actions by 500 observations, in float64) is some 13 MB.
POLICY_BYTES = 256 * 1024 * 1024


def table_of(args: list[str]) -> tuple[Any, int] | None:
    """The rules and the table size the command's options choose (sim's --players, bot's
    --seats, play's --players; 4 unless given), or None where they cannot be read here
    (the command itself then says what is wrong)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--preset")
    parser.add_argument("--rules")
    parser.add_argument("--set", action="append")
    parser.add_argument("--players")  # (read as words: argparse's own error was 4 lines)
    parser.add_argument("--seats")
    try:
        known, _ = parser.parse_known_args(args)
        with contextlib.redirect_stderr(io.StringIO()):  # (its notes: the command's to say)
            rules = chosen_rules(known).rules
        players = int(known.players or known.seats or 4)
        rules.check_players(players)  # (-3 or 13 players: the command says so, as its own)
    except (SystemExit, UsageError, ValueError):
        return None
    return rules, players


def load(path: str) -> tuple[Any, Any, str]:
    """The policy's weights, bias and the preset it was trained for; `ValueError` in one
    line when the file is none (an .npy, a zip cut short, 1-D weights, an array larger
    than any policy: a hostile pass met numpy's tracebacks, and 2 GB for a zip bomb)."""
    try:
        with zipfile.ZipFile(path) as kept:
            # (before a byte is unpacked: a policy is some MB, not a zip bomb's GB)
            if sum(info.file_size for info in kept.infolist()) > POLICY_BYTES:
                raise ValueError("larger than any policy")
        saved = np.load(path, allow_pickle=False)
        weights, bias = saved["weights"], saved["bias"]
        trained = str(saved["preset"]) if "preset" in saved else "the rules it was trained for"
    except OSError as exc:
        raise ValueError(exc.strerror or "cannot be read") from None
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile, MemoryError):
        # (numpy's words for a file it cannot read advised allow_pickle: never)
        raise ValueError("not a policy file") from None
    if weights.ndim != 2 or bias.ndim != 1 or weights.shape[0] != bias.size:
        raise ValueError("not a policy file (its weights and bias do not fit together)")
    return weights, bias, trained


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        weights, bias, trained = load(sys.argv[1])
    except ValueError as why:  # (a pass: a missing file, a traceback)
        print(
            f"{sys.argv[0]}: cannot read the policy {sys.argv[1]}: {why} (train_example.py"
            " --save writes one)",
            file=sys.stderr,
        )
        return 2
    table = table_of(sys.argv[3:])
    if table is not None:  # (a pass's bot made a daifugo table, waited for three players,
        # then failed at its first decision: the sizes are known before any game)
        rules, players = table
        actions, observed = len(Catalog(rules)), Observer(rules, players).layout.size
        if (actions, observed) != (bias.size, weights.shape[1]):
            print(
                f"{sys.argv[0]}: this policy fits {trained} with 4 players ({bias.size}"
                f" actions, {weights.shape[1]} observations), not these rules with"
                f" {players} players ({actions} actions, {observed} observations): train one"
                " for them (train_example.py --preset)",
                file=sys.stderr,
            )
            return 2

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

"""Writing a bot.  A bot is any object with `choose(view) -> action`: given the engine's
`SeatView` of its seat, it returns a `Play`, `PASS`, or (when `view.phase` is "exchange"
and it owes cards) a `Return`; `view.legal_actions()` lists what it may do.  The same
object plays offline in the simulator and online at a server, unchanged.

    from president.client import sdk

    class MyBot:
        def choose(self, view): ...

    sdk.register("mybot", lambda rng: MyBot())
    sdk.main("mybot")   # python mybot.py sim ...  |  python mybot.py bot HOST:PORT ...

`main` runs `president sim` (offline, against three greedy bots unless `--bots` says
otherwise) or `president bot` (online) with the bot registered under its name."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .strategies import STRATEGIES, Strategy

USAGE = """\
usage: {prog} sim [president sim options]      play it offline (default: against 3 greedy bots)
       {prog} bot HOST[:PORT] [president bot options]   play it at a server's table"""


def register(name: str, factory: Callable[[random.Random], Strategy]) -> None:
    """Make the bot available to `president sim` and `president bot` (in this process
    and the simulator's worker processes) under `name`."""
    def make(rng: random.Random, **options: Any) -> Strategy:
        return factory(rng)

    STRATEGIES[name.strip().lower()] = make


def main(strategy: str, argv: Sequence[str] | None = None) -> int:
    from president.cli import main as president

    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["sim"]:
        if "--bots" not in args:
            args += ["--bots", f"{strategy},greedy,greedy,greedy"]
    elif args[:1] == ["bot"]:
        if "--strategy" not in args:
            args += ["--strategy", strategy]
    else:
        print(USAGE.format(prog=sys.argv[0]), file=sys.stderr)
        return 2
    return president(args)

"""Writing a bot.  A bot is any object with `choose(view) -> action`: given the engine's
`SeatView` of its seat, it returns a `Play`, `PASS`, or (when `view.phase` is
`Phase.EXCHANGE` and it owes cards) a `Return`; `view.legal_actions()` lists what it may
do.  The same object plays offline in the simulator and online at a server, unchanged.

    from president.bots import sdk
    from president.cli import bot_script

    class MyBot:
        def choose(self, view): ...

    sdk.register("mybot", lambda rng: MyBot())
    bot_script("mybot")   # python mybot.py sim ...  |  python mybot.py bot HOST:PORT ...

`register` makes the bot a strategy like the built-in ones, by name; `bot_script` (in the
command, which this package does not depend on) runs `president sim` or `president bot`
with it."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .strategies import STRATEGIES, Strategy

__all__ = ["Strategy", "register"]


def register(name: str, factory: Callable[[random.Random], Strategy]) -> None:
    """Make the bot available to `president sim` and `president bot` (in this process
    and the simulator's worker processes) under `name`."""

    def make(rng: random.Random, **options: Any) -> Strategy:
        return factory(rng)

    STRATEGIES[name.strip().lower()] = make

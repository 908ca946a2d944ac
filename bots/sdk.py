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
import re
from collections.abc import Callable
from typing import Any

from .strategies import BUILT_IN, LEVELS, STRATEGIES, Strategy

__all__ = ["Strategy", "register"]

#: A registered bot's name: it goes in `--bots` lists (between commas) and on the screens.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


def register(name: str, factory: Callable[[random.Random], Strategy]) -> None:
    """Make the bot available to `president sim` and `president bot` (in this process
    and the simulator's worker processes) under `name`: letters, digits, - and _, and not
    a built-in bot's name nor a level's (`ValueError` in one line: a pass's `greedy` took
    every greedy seat, its own included, and its `easy` was never played)."""
    key = name.strip().lower()
    if key in BUILT_IN or key in LEVELS:
        raise ValueError(
            f"{name!r} is the name of a built-in bot ({', '.join([*LEVELS, *sorted(BUILT_IN)])}):"
            " register yours under another"
        )
    if not NAME.fullmatch(key):
        raise ValueError(
            f"a bot's name is 1 to 32 letters, digits, - and _, beginning with a letter or"
            f" digit, not {name!r} (it goes in --bots lists, between commas)"
        )

    def make(rng: random.Random, **options: Any) -> Strategy:
        try:
            return factory(rng)
        except Exception as exc:  # (a pass: a factory that raised was a traceback)
            raise ValueError(
                f"the bot {key!r} could not be made: its factory raised {type(exc).__name__}: {exc}"
            ) from None

    STRATEGIES[key] = make

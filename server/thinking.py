"""Server-side bots think off the event loop.  A strategy that searches (its cost per move
is its budget, tens of milliseconds or more) chooses in a worker process, so no number of
such tables slows another table's events: they share `bot_workers` processes and wait
their turn there.  Cheap strategies (a few microseconds) choose at once."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from president.bots.search import SearchBot
from president.bots.strategies import Strategy
from president.engine import Action, SeatView

_pool: ProcessPoolExecutor | None = None
_workers = 1


def configure(workers: int) -> None:
    """How many worker processes the next pool has (it starts at the first search move)."""
    global _workers
    _workers = max(1, workers)


def thinks_long(bot: Strategy) -> bool:
    return isinstance(bot, SearchBot)


def _choose(bot: Strategy, view: SeatView) -> tuple[Action, Strategy]:
    """In a worker: the choice, and the strategy as it is after choosing (its state)."""
    return bot.choose(view), bot


async def think(bot: Strategy, view: SeatView) -> Action:
    """The bot's choice for `view`, without holding up the event loop."""
    if not thinks_long(bot):
        return bot.choose(view)
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(_workers, mp_context=multiprocessing.get_context("spawn"))
    action, after = await asyncio.get_running_loop().run_in_executor(_pool, _choose, bot, view)
    vars(bot).update(vars(after))  # its own state (the random generator) goes on from there
    return action


def shutdown() -> None:
    """Stop the worker processes (the server is closing); a later search move starts new."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None

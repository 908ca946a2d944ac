"""Server-side bots think off the event loop.  A strategy that searches (its cost per move
is its budget, tens of milliseconds or more) chooses in a worker process, so no number of
such tables slows another table's events: they share `bot_workers` processes and wait
their turn there.  Cheap strategies (a few microseconds) choose at once.

Under a crowd (more search moves asked than workers to think them: many tables of hard
bots, perhaps one guest's) each move thinks less instead of every table waiting longer:
its thinking is capped so that the moves waiting are thought in about `CROWD_ROUND`
seconds (`crowd_limit`), so a friend's table keeps its pace however many others play."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from president.bots.search import SearchBot
from president.bots.strategies import Strategy
from president.engine import Action, SeatView

_pool: ProcessPoolExecutor | None = None
_workers = 1
#: Search moves asked of the workers and not yet answered.
_asked = 0

#: Under a crowd, the seconds in which the workers should get through every move waiting.
CROWD_ROUND = 0.5


def crowd_limit(asked: int, workers: int) -> float | None:
    """The ceiling on a move's thinking, seconds, when `asked` search moves (this one
    among them) wait for `workers` processes: None while there is a worker for each, else
    each move's share of `CROWD_ROUND` (a search given less than `search.LEAST_THINK`
    plays the heuristic's choice; given more, it stops after the round of worlds in hand,
    a round of its candidates in one world taking ~2.5 ms under daifugo)."""
    if asked <= workers:
        return None
    return CROWD_ROUND * workers / asked


def configure(workers: int) -> None:
    """How many worker processes the next pool has (it starts at the first search move)."""
    global _workers
    _workers = max(1, workers)


def thinks_long(bot: Strategy) -> bool:
    return isinstance(bot, SearchBot)


#: How often a worker looks whether its server is still there, seconds.
PARENT_CHECK = 1.0


def _watch_parent(parent: int) -> None:
    """In a worker: end the process once the server that started it is gone (a server
    killed with SIGKILL cannot stop its workers itself; they would be left running)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


def _choose(bot: Strategy, view: SeatView, limit: float | None) -> tuple[Action, Strategy]:
    """In a worker: the choice, thinking at most `limit` seconds (None: its own budget),
    and the strategy as it is after choosing (its state)."""
    bot.limit = limit  # type: ignore[attr-defined]  # (a SearchBot: `thinks_long`)
    try:
        return bot.choose(view), bot
    finally:
        bot.limit = None  # type: ignore[attr-defined]


async def think(bot: Strategy, view: SeatView) -> Action:
    """The bot's choice for `view`, without holding up the event loop."""
    if not thinks_long(bot):
        return bot.choose(view)
    global _pool, _asked
    if _pool is None:
        _pool = ProcessPoolExecutor(
            _workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_watch_parent,
            initargs=(os.getpid(),),
        )
    _asked += 1
    try:
        action, after = await asyncio.get_running_loop().run_in_executor(
            _pool, _choose, bot, view, crowd_limit(_asked, _workers)
        )
    finally:
        _asked -= 1
    vars(bot).update(vars(after))  # its own state (the random generator) goes on from there
    return action


def shutdown() -> None:
    """Stop the worker processes (the server is closing); a later search move starts new."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None

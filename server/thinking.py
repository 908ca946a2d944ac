"""Server-side bots think off the event loop.  A strategy that searches (its cost per move
is its budget, tens of milliseconds or more) chooses in a worker process: such tables
share `bot_workers` processes and wait their turn there.  Cheap strategies (a few
microseconds) choose at once.

A searching bot's state (its random generator, the belief it carries through a hand:
some 500 objects) lives in the server as the bytes its worker pickled it into, handed
back to a worker with the next move.  A hostile pass's crowd of 1,200 search bots, when
each move brought the state home unpickled, dropped and made ~500 objects in the server
a move: Python's full collections, walking 650,000 objects every ~3 s, held the event
loop 0.1-2.9 s at a time, every table with it (docs/reliability.md).  A worker that dies (killed,
out of memory) breaks its pool: the move it was thinking is played by the timeout rule,
and the next one starts a new pool.

Under a crowd (more search moves asked than workers to think them: many tables of hard
bots, perhaps one guest's) each move thinks less instead of every table waiting longer:
its thinking is capped so that the moves waiting are thought in about `CROWD_ROUND`
seconds (`crowd_limit`), so a friend's table keeps its pace however many others play."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import threading
import time
import weakref
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from president.bots.search import SearchBot
from president.bots.strategies import Strategy
from president.engine import Action, SeatView

log = logging.getLogger("president.server")

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


#: Each searching bot's state as its last move left it, pickled by its worker (a bot no
#: longer held by any table goes from here with it).
_states: weakref.WeakKeyDictionary[Strategy, bytes] = weakref.WeakKeyDictionary()


def _choose(bot: Strategy | bytes, view: SeatView, limit: float | None) -> tuple[Action, bytes]:
    """In a worker: the choice of `bot` (or of the bot these bytes hold), thinking at most
    `limit` seconds (None: its own budget), and the bot as it is after choosing (its
    state), pickled."""
    thinker: Strategy = pickle.loads(bot) if isinstance(bot, bytes) else bot
    thinker.limit = limit  # type: ignore[attr-defined]  # (a SearchBot: `thinks_long`)
    try:
        action = thinker.choose(view)
    finally:
        thinker.limit = None  # type: ignore[attr-defined]
    return action, pickle.dumps(thinker, pickle.HIGHEST_PROTOCOL)


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
    pool, state = _pool, _states.get(bot)
    try:
        action, after = await asyncio.get_running_loop().run_in_executor(
            pool, _choose, bot if state is None else state, view, crowd_limit(_asked, _workers)
        )
    except BrokenProcessPool:
        if _pool is pool:  # (once, however many moves it broke)
            log.warning("a bot worker process died: its moves go to new workers")
            shutdown()
        raise
    finally:
        _asked -= 1
    _states[bot] = after  # its own state (the random generator) goes on from there
    return action


def shutdown() -> None:
    """Stop the worker processes (the server is closing); a later search move starts new."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None

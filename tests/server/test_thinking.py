"""Server-side search bots think in a worker process, off the event loop, and choose there
exactly what they would have chosen on it (their random generator carried back)."""

from __future__ import annotations

import random

from president.bots.search import SearchBot
from president.bots.strategies import RandomBot
from president.server import thinking

from ..bots.test_strategies import view_with


async def test_a_search_bot_chooses_in_a_worker_as_it_would_at_home() -> None:
    views = [view_with("3C 5D 7S 9C JD KH 2S"), view_with("4C 4D 8S 10C QD AH")]
    at_home = SearchBot(random.Random(7), playouts=24)
    expected = [at_home.choose(view) for view in views]
    away = SearchBot(random.Random(7), playouts=24)
    try:
        chosen = [await thinking.think(away, view) for view in views]
        assert thinking._pool is not None  # the worker was used
    finally:
        thinking.shutdown()
    assert chosen == expected  # the second choice went on from the first one's state
    assert away.rng.getstate() == at_home.rng.getstate()


async def test_cheap_strategies_choose_at_once() -> None:
    bot = RandomBot(random.Random(1))
    view = view_with("3C 5D 7S")
    assert await thinking.think(bot, view) in view.legal_actions()
    assert thinking._pool is None

#!/usr/bin/env python3
"""A friend's hard bots under a crowd of other tables' hard bots, on the server's own
thinking (`server/thinking.py`: one worker process by default, `bot_workers`).

A hostile-guest pass ran 200 tables of search bots from 100 addresses and slowed a
friend's table of hard bots from 3.07 to 0.47 moves a second: every search move waited
its turn behind all the others' full searches.  Now a move thinks less when more moves
wait than there are workers (`crowd_limit`).  This runs the friend's table (one search
move after another) alone, then beside `--tables` others doing the same, with the crowd
limit and without it (`crowd_limit` answering None), and prints each one's moves a
second, its slowest move, and the crowd's.

    python -m scripts.bench_bot_crowd [--tables 50] [--seconds 10] [--preset daifugo]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from president.bots.search import SearchBot
from president.bots.strategies import RandomBot
from president.engine import Game, Phase, SeatView, find_preset
from president.server import thinking


def views(preset: str, count: int, seed: int) -> list[SeatView]:
    """Views of seats with a choice to make, from games of random bots (leads and follows
    alike, the exchange and dues aside)."""
    rules = find_preset(preset)
    rng = random.Random(seed)
    found: list[SeatView] = []
    while len(found) < count:
        game = Game(rules, ["a", "b", "c", "d"])
        game.start_hand(rng=rng)
        bot = RandomBot(rng)
        seat = game.actor
        while seat is not None and len(found) < count:
            view = game.view_for(seat)
            choice = view.phase is Phase.PLAY and view.due is None and len(view.legal_actions()) > 2
            if choice and rng.random() < 0.2:
                found.append(view)
            game.apply(seat, bot.choose(view))
            seat = game.actor
    return found


async def table(seed: int, asked: list[SeatView], until: float, times: list[float] | None) -> int:
    """One table's bots: a search move after another until `until`; its moves."""
    bot = SearchBot(random.Random(seed))
    moves = 0
    while time.perf_counter() < until:
        start = time.perf_counter()
        await thinking.think(bot, asked[moves % len(asked)])
        if times is not None:
            times.append(time.perf_counter() - start)
        moves += 1
    return moves


async def run(tables: int, seconds: float, asked: list[SeatView]) -> tuple[float, float, float]:
    """(the friend's moves a second, its slowest move, the crowd's moves a second)."""
    until = time.perf_counter() + seconds
    times: list[float] = []
    friend, *crowd = await asyncio.gather(
        table(0, asked, until, times),
        *(table(1 + n, asked[n % 7 :], until, None) for n in range(tables)),
    )
    return friend / seconds, max(times), sum(crowd) / seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="the crowd's tables")
    parser.add_argument("--seconds", type=float, default=10.0, help="each run's length")
    parser.add_argument("--preset", default="daifugo")
    parser.add_argument("--workers", type=int, default=1, help="bot_workers (the default 1)")
    args = parser.parse_args()
    asked = views(args.preset, 40, 1)
    thinking.configure(args.workers)
    limit = thinking.crowd_limit
    try:
        asyncio.run(run(0, 1.0, asked))  # (the worker started and warm)
        rows = []
        for name, tables, limited in (
            ("alone", 0, True),
            (f"beside {args.tables} tables, the crowd limit", args.tables, True),
            (f"beside {args.tables} tables, no limit", args.tables, False),
        ):
            thinking.crowd_limit = limit if limited else (lambda asked, workers: None)
            rows.append((name, *asyncio.run(run(tables, args.seconds, asked))))
    finally:
        thinking.crowd_limit = limit
        thinking.shutdown()
    for name, pace, slowest, crowd in rows:
        print(
            f"the friend's table {name}: {pace:.2f} moves/s, slowest move {slowest:.2f} s"
            + (f"; the crowd {crowd:.1f} moves/s" if crowd else "")
        )
    print(
        f"({args.preset}, {args.workers} worker(s), a run of {args.seconds:.0f} s each; "
        f"CROWD_ROUND {thinking.CROWD_ROUND} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""A friend's hard bots under a crowd of other tables' hard bots, on the server's own
thinking (`server/thinking.py`: one worker process by default, `bot_workers`).

A hostile-guest pass ran 200 tables of search bots from 100 addresses and slowed a
friend's table of hard bots from 3.07 to 0.47 moves a second: every search move waited
its turn behind all the others' full searches.  Now a move thinks less when more moves
wait than there are workers (`crowd_limit`).  This runs the friend's table (one search
move after another) alone, then beside `--tables` others doing the same, with the crowd
limit and without it (`crowd_limit` answering None), and prints each one's moves a
second, its slowest move, and the crowd's, and the full collections made meanwhile
(each one holds the event loop: `FullCollections`).

    python -m scripts.bench_bot_crowd [--tables 50] [--seconds 10] [--preset daifugo]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import time

from president.bots.strategies import RandomBot, Strategy, make_strategy
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


#: Seconds a crowd's table waits between its search moves (`--pace`: the other seats'
#: moves and the bot delay; 0, one after another).
PACE = [0.0]


async def table(
    bot: Strategy, asked: list[SeatView], until: float, times: list[float] | None
) -> int:
    """One table's bot (a search bot as the server seats one): a search move after
    another until `until` (the crowd's, `PACE` apart); its moves."""
    moves = 0
    while time.perf_counter() < until:
        start = time.perf_counter()
        await thinking.think(bot, asked[moves % len(asked)])
        if times is not None:
            times.append(time.perf_counter() - start)
        elif PACE[0]:
            await asyncio.sleep(PACE[0] * (0.5 + random.random()))
        moves += 1
    return moves


class FullCollections:
    """The full (generation 2) collections while it is on, each one's seconds: the event
    loop and every table wait for them (a hostile pass: 0.1-2.9 s each, every ~3 s,
    under a crowd of 1,200 search bots whose state came home unpickled at each move)."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._began)

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self)


async def run(
    tables: int, seconds: float, asked: list[SeatView]
) -> tuple[float, float, float, list[float], int]:
    """(the friend's moves a second, its slowest move, the crowd's moves a second, the
    full collections' pauses, the objects the server held for the bots at the end)."""
    until = time.perf_counter() + seconds
    times: list[float] = []
    bots = [make_strategy("search", random.Random(n)) for n in range(1 + tables)]
    with FullCollections() as full:
        friend, *crowd = await asyncio.gather(
            table(bots[0], asked, until, times),
            *(table(bots[1 + n], asked[n % 7 :], until, None) for n in range(tables)),
        )
    gc.collect()
    held = len(gc.get_objects())  # (the bots still held, as a server's tables hold theirs)
    del bots
    gc.collect()
    held -= len(gc.get_objects())
    return friend / seconds, max(times), sum(crowd) / seconds, full.pauses, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="the crowd's tables")
    parser.add_argument("--seconds", type=float, default=10.0, help="each run's length")
    parser.add_argument("--preset", default="daifugo")
    parser.add_argument("--workers", type=int, default=1, help="bot_workers (the default 1)")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds a crowd's table waits between its moves, on average (0: none; a few "
        "seconds, as at a real table, lets each bot's state grow old before it is replaced)",
    )
    args = parser.parse_args()
    PACE[0] = args.pace
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
    for name, pace, slowest, crowd, pauses, held in rows:
        print(
            f"the friend's table {name}: {pace:.2f} moves/s, slowest move {slowest:.2f} s"
            + (f"; the crowd {crowd:.1f} moves/s" if crowd else "")
            + f"; {len(pauses)} full collections, the longest {max(pauses, default=0):.3f} s;"
            f" {held:,} objects held for the bots"
        )
    print(
        f"({args.preset}, {args.workers} worker(s), a run of {args.seconds:.0f} s each, the "
        f"crowd's moves {args.pace:g} s apart; "
        f"CROWD_ROUND {thinking.CROWD_ROUND} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

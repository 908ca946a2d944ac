"""How often the ladder orders the bots as `president sim` does (search > heuristic >
greedy), after a number of hands at one table: offline, through the same `Ladder` the
server keeps, on independent seeds.  What chose tests/test_ladder.py's table and hands.

    python scripts/ladder_order.py --hands 20 40 60 --trials 40 --players search,heuristic,greedy
"""

from __future__ import annotations

import argparse
import random
import time

from president.bots.strategies import make_strategy
from president.engine import Phase, find_preset
from president.server.ratings import Finisher, HandResult, Ladder


def trial(
    bots: list[str], hands: int, seed: int, preset: str, toggles: dict[str, object]
) -> list[str]:
    """The ladder's order (strategy names, best first) after `hands` hands of one long
    game."""
    rules = find_preset(preset).replace(target=100, **toggles)
    names = [f"{bot}-{i}" for i, bot in enumerate(bots)]
    rng = random.Random(seed)
    seating = names[:]
    rng.shuffle(seating)
    from president.engine import Game

    game = Game(rules, seating)
    strategies = {
        n: make_strategy(bot, random.Random(seed * 31 + i))
        for i, (n, bot) in enumerate(zip(names, bots))
    }
    ladder = Ladder()
    for number in range(hands):
        if game.phase is Phase.GAME_OVER:
            break
        game.start_hand(rng=rng)
        seat = game.actor
        while seat is not None:
            game.apply(seat, strategies[game.seating[seat]].choose(game.view_for(seat)))
            seat = game.actor
        finish = tuple(Finisher(n, n, "", "", 0) for n in game.finishes[-1])
        result = HandResult(game="g", hand=number, finish=finish)
        records = ladder.after(result)
        assert records is not None
        ladder.take(result, records)
    return [name.rsplit("-", 1)[0] for name in ladder.order()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[20, 40, 60])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--players", default="search,heuristic,greedy")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exchange", default="two_one", help="the exchange toggle")
    args = parser.parse_args()
    bots = args.players.split(",")
    toggles: dict[str, object] = {"exchange": args.exchange}
    for hands in args.hands:
        start = time.process_time()
        wrong = [
            order
            for t in range(args.trials)
            if (order := trial(bots, hands, args.seed * 10_000 + t, args.preset, toggles))
            != sorted(bots, key=bots.index)
        ]
        cpu = (time.process_time() - start) / args.trials
        print(
            f"{hands} hands, exchange {args.exchange}: the ladder's order is {'>'.join(bots)} in "
            f"{args.trials - len(wrong)} of {args.trials} trials ({cpu:.1f} s CPU a trial)"
            + (f"; wrong: {wrong[:3]}" if wrong else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()

"""How often the ladder orders the bots as `president sim` does (search > heuristic >
greedy), after some hands at one or more tables: offline, through the same `Ladder` the
server keeps, on independent seeds.  What chose tests/test_ladder.py's tables and hands.

Each --table is a line-up, best strategy first, how many hands it plays for each hand of
the first table (a table of cheap bots plays many more in the same time) and its
`exchange` toggle (default two_one), colon-separated; a strategy written @S is a
server-side bot (not rated).  A strategy's rated bot is one
player, at whichever table it sits (as one `--name` is online).

    python scripts/ladder_order.py --hands 40 --trials 20 \\
        --table search,heuristic,greedy:1 --table heuristic,greedy,@greedy,@greedy:3:none

With --hold N it measures tests/test_ladder.py's rule instead: after --hands, play on
until the order has been right at every hand of the second table for its last N hands
(at most --most hands of the first), and print when that came.  --tau replaces the
ladder's per-hand drift (server/ratings.py's TAU), to compare.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from president.bots.strategies import Strategy, make_strategy
from president.engine import Game, Phase, Rules, find_preset
from president.server import ratings
from president.server.ratings import Finisher, HandResult, Ladder


@dataclass
class Table:
    seats: list[str]  # names: a rated bot's is its strategy, a server bot's "@S-i"
    per_round: int
    rules: Rules
    rng: random.Random
    bots: dict[str, Strategy]
    game: Game | None = None
    games: int = 0

    def play(self, ladder: Ladder, label: str) -> None:
        if self.game is None or self.game.phase is Phase.GAME_OVER:
            seating = self.seats[:]
            self.rng.shuffle(seating)
            self.game, self.games = Game(self.rules, seating), self.games + 1
        game = self.game
        game.start_hand(rng=self.rng)
        seat = game.actor
        while seat is not None:
            game.apply(seat, self.bots[game.seating[seat]].choose(game.view_for(seat)))
            seat = game.actor
        finish = tuple(
            Finisher(None if n.startswith("@") else n, n, "", "", 0) for n in game.finishes[-1]
        )
        result = HandResult(game=f"{label}-{self.games}", hand=game.hand, finish=finish)
        records = ladder.after(result)
        assert records is not None
        ladder.take(result, records)


def trial(
    lineups: list[tuple[list[str], int, str]],
    hands: int,
    seed: int,
    want: list[str] | None = None,
    hold: int = 0,
    most: int = 0,
) -> tuple[list[str], int | None]:
    """The ladder's order after the first table played `hands` hands; with `hold`, the
    order when it had been `want` through the second table's last `hold` hands, and how
    many hands the first table had played then (None: not within `most`)."""
    tables = []
    for t, (lineup, per_round, exchange) in enumerate(lineups):
        rules = find_preset("classic").replace(target=100, exchange=exchange)
        seats = [s if not s.startswith("@") else f"{s}-{i}" for i, s in enumerate(lineup)]
        bots = {
            name: make_strategy(
                name.lstrip("@").rsplit("-", 1)[0] if name.startswith("@") else name,
                random.Random(seed * 97 + t * 13 + i),
            )
            for i, name in enumerate(seats)
        }
        tables.append(Table(seats, per_round, rules, random.Random(seed * 31 + t), bots))
    ladder = Ladder()
    right_since = 0  # the second table's hands before the order last came right
    played = 0
    for first in range(1, max(hands, most) + 1):
        for t, table in enumerate(tables):
            for _ in range(table.per_round):
                table.play(ladder, str(t))
                if hold and t == 1:
                    played += 1
                    if ladder.order() != want:
                        right_since = played
        if not hold and first == hands:
            return ladder.order(), first
        if hold and first >= hands and played - right_since >= hold:
            return ladder.order(), first
    return ladder.order(), None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[40])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument(
        "--table", action="append", help="a line-up, best first, and its hands per round"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hold", type=int, default=0, help="hands of the second table")
    parser.add_argument("--most", type=int, default=150, help="with --hold: hands of the first")
    parser.add_argument("--tau", type=float, help=f"the per-hand drift (default {ratings.TAU:.3g})")
    args = parser.parse_args()
    if args.tau is not None:
        ratings.MODEL = ratings.plackett_luce(args.tau)
    lineups = []
    for text in args.table or ["search,heuristic,greedy:1"]:
        parts = text.split(":")
        lineup, per_round, exchange = (parts + ["1", "two_one"][len(parts) - 1 :])[:3]
        lineups.append((lineup.split(","), int(per_round), exchange))
    want: list[str] = []
    for lineup, _, _ in lineups:
        want += [s for s in lineup if not s.startswith("@") and s not in want]
    rank = {"search": 0, "heuristic": 1, "greedy": 2, "random": 3}
    want.sort(key=lambda s: rank.get(s, 9))
    if args.hold and len(lineups) < 2:
        parser.error("--hold needs a second --table")
    for hands in args.hands:
        start = time.process_time()
        runs = [
            trial(lineups, hands, args.seed * 10_000 + t, want, args.hold, args.most)
            for t in range(args.trials)
        ]
        cpu = (time.process_time() - start) / args.trials
        if args.hold:
            came = sorted(first for _, first in runs if first is not None)
            print(
                f"held right for {args.hold} hands of the second table, from {hands} hands "
                f"of the first on: in {len(came)} of {args.trials} trials within {args.most}"
                + (
                    f"; at {came[len(came) // 2]} hands of the first (median), {came[-1]} at most"
                    if came
                    else ""
                )
                + f" ({cpu:.1f} s CPU a trial)",
                flush=True,
            )
            continue
        wrong = [order for order, _ in runs if order != want]
        print(
            f"{hands} hands at {' + '.join(args.table or ['one table'])}: the ladder's order is {' > '.join(want)} in "
            f"{args.trials - len(wrong)} of {args.trials} trials ({cpu:.1f} s CPU a trial)"
            + (f"; wrong: {wrong[:3]}" if wrong else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()

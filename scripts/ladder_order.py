"""How the ladder orders bots of known strength after some hands at one or more tables:
offline, through the same `Ladder` the server keeps, on independent seeds.  What
tests/server/test_ladder_order.py plays and what its false-failure figures come from.

Each --table is a line-up, best strategy first, how many hands it plays for each hand of
the first table (a table of cheap bots plays many more in the same time) and its
`exchange` toggle (default two_one), colon-separated; a strategy written @S is a
server-side bot (not rated).  A strategy's rated bot is one player, at whichever table
it sits (as one `--name` is online).  "passer" is a deliberately weak player for these
measurements only (`Passer`), not one of president's strategies.

    python scripts/ladder_order.py --hands 40 --trials 20 \\
        --table search,heuristic,greedy:1 --table heuristic,greedy,@greedy,@greedy:3:none

With --gaps it prints, per adjacent pair of the expected order, the gap between the two
players' shown ratings (and between their average places) over the trials: mean, sd,
z = mean / sd, the normal tail Phi(-z), the smallest gap and how many trials had the
pair the wrong way round.  --tau replaces the ladder's per-hand drift
(server/ratings.py's TAU), to compare.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from president.bots.strategies import Strategy, make_strategy
from president.engine import PASS, Action, Game, Phase, Rules, SeatView, find_preset
from president.server import ratings
from president.server.ratings import Finisher, HandResult, Ladder

#: Best first, as `president sim` orders them (docs/bots.md), and passer below them all.
STRENGTH = ["search", "heuristic", "greedy", "random", "passer"]


class Passer:
    """Passes whenever it may, else plays the last of its legal actions: a player every
    other strategy beats, for measuring the ladder (not a strategy of president.bots)."""

    def choose(self, view: SeatView) -> Action:
        actions = view.legal_actions()
        return PASS if PASS in actions else actions[-1]


def strategy(name: str, rng: random.Random) -> Strategy:
    """The bot a line-up's `name` means: "passer" or one of president's strategies."""
    return Passer() if name == "passer" else make_strategy(name, rng)


@dataclass(frozen=True)
class Lineup:
    """One table: its seats, best first (@S: a server-side bot, not rated), its hands for
    each hand of the first table, and its exchange."""

    seats: tuple[str, ...]
    per_round: int = 1
    exchange: str = "two_one"

    @classmethod
    def parse(cls, text: str) -> Lineup:
        """A --table's text: `seats[:per_round[:exchange]]`, the seats comma-separated."""
        parts = text.split(":")
        seats, per_round, exchange = (parts + ["1", "two_one"][len(parts) - 1 :])[:3]
        return cls(tuple(seats.split(",")), int(per_round), exchange)

    def __str__(self) -> str:
        return f"{','.join(self.seats)}:{self.per_round}:{self.exchange}"


@dataclass
class Table:
    """One table of a trial: one game after another, to the preset's target, its seating
    shuffled for each new game."""

    seats: list[str]  # names: a rated bot's is its strategy, a server bot's "@S-i"
    per_round: int
    rules: Rules
    rng: random.Random
    bots: dict[str, Strategy]
    game: Game | None = None
    games: int = 0

    def play(self, ladder: Ladder, label: str) -> list[str]:
        """One whole hand, rated on `ladder`; its finishing order."""
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
        finish = game.finishes[-1]
        result = HandResult(
            game=f"{label}-{self.games}",
            hand=game.hand,
            finish=tuple(Finisher(None if n.startswith("@") else n, n, "", "", 0) for n in finish),
        )
        records = ladder.after(result)
        assert records is not None
        ladder.take(result, records)
        return finish


@dataclass
class Trial:
    """What one trial left: the ladder, and each rated player's place (1: first) in every
    hand it played, the figures `president sim` averages."""

    ladder: Ladder
    places: dict[str, list[int]] = field(default_factory=dict)

    def average_place(self, player: str) -> float:
        return statistics.fmean(self.places[player])

    def by_place(self) -> list[str]:
        """The rated players by average place, best first (ties: by name)."""
        return sorted(self.places, key=lambda p: (self.average_place(p), p))


def trial(lineups: Sequence[Lineup], hands: int, seed: int) -> Trial:
    """The first table's `hands` hands (and the others' as many rounds), dealt and played
    from `seed` alone, rated on a new `Ladder`."""
    tables = []
    for t, lineup in enumerate(lineups):
        rules = find_preset("classic").replace(target=100, exchange=lineup.exchange)
        seats = [s if not s.startswith("@") else f"{s}-{i}" for i, s in enumerate(lineup.seats)]
        bots = {
            name: strategy(
                name.lstrip("@").rsplit("-", 1)[0] if name.startswith("@") else name,
                random.Random(seed * 97 + t * 13 + i),
            )
            for i, name in enumerate(seats)
        }
        tables.append(Table(seats, lineup.per_round, rules, random.Random(seed * 31 + t), bots))
    played = Trial(Ladder())
    for _ in range(hands):
        for t, table in enumerate(tables):
            for _ in range(table.per_round):
                finish = table.play(played.ladder, str(t))
                for place, name in enumerate(finish, start=1):
                    if not name.startswith("@"):
                        played.places.setdefault(name, []).append(place)
    return played


def expected(lineups: Sequence[Lineup]) -> list[str]:
    """The rated players, best first by STRENGTH."""
    names = {s for lineup in lineups for s in lineup.seats if not s.startswith("@")}
    return sorted(names, key=lambda s: (STRENGTH.index(s) if s in STRENGTH else 99, s))


#: A gap between two players of one trial, the first above the second when positive.
GapOf = Callable[[Trial, str, str], float]


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def gap_lines(what: str, want: list[str], trials: list[Trial], gap: GapOf) -> list[str]:
    """Per adjacent pair of `want`, the gap's figures over `trials` (one line each)."""
    lines = []
    tail = 0.0
    for upper, lower in itertools.pairwise(want):
        gaps = [gap(t, upper, lower) for t in trials]
        mean, sd = statistics.fmean(gaps), statistics.stdev(gaps)
        z = mean / sd if sd else math.inf
        tail += phi(-z)
        lines.append(
            f"  {what} {upper} - {lower}: mean {mean:.4g} sd {sd:.4g} z {z:.2f} "
            f"Phi(-z) {phi(-z):.2g} min {min(gaps):.4g}, "
            f"wrong way round in {sum(g <= 0 for g in gaps)} of {len(gaps)}"
        )
    lines.append(f"  {what}: union over the pairs, sum of Phi(-z) {tail:.2g}")
    return lines


def rating_gap(played: Trial, upper: str, lower: str) -> float:
    records = played.ladder.records
    return records[upper].rating - records[lower].rating


def place_gap(played: Trial, upper: str, lower: str) -> float:
    return played.average_place(lower) - played.average_place(upper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[40])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument(
        "--table", action="append", help="a line-up, best first, and its hands per round"
    )
    parser.add_argument("--seed", type=int, default=1, help="trial t plays seed*10000 + t")
    parser.add_argument("--tau", type=float, help=f"the per-hand drift (default {ratings.TAU:.3g})")
    parser.add_argument("--gaps", action="store_true", help="each adjacent pair's gaps")
    args = parser.parse_args()
    if args.tau is not None:
        ratings.MODEL = ratings.plackett_luce(args.tau)
    lineups = [Lineup.parse(text) for text in args.table or ["search,heuristic,greedy"]]
    want = expected(lineups)
    for hands in args.hands:
        start = time.process_time()
        trials = [trial(lineups, hands, args.seed * 10_000 + t) for t in range(args.trials)]
        cpu = (time.process_time() - start) / args.trials
        wrong = [t.ladder.order() for t in trials if t.ladder.order() != want]
        misplaced = sum(t.by_place() != want for t in trials)
        print(
            f"{hands} hands at {' + '.join(map(str, lineups))}: the ladder's order is "
            f"{' > '.join(want)} in {args.trials - len(wrong)} of {args.trials} trials, "
            f"the average places' in {args.trials - misplaced} ({cpu:.3f} s CPU a trial)"
            + (f"; wrong: {wrong[:3]}" if wrong else ""),
            flush=True,
        )
        if args.gaps:
            print("\n".join(gap_lines("rating", want, trials, rating_gap)))
            print("\n".join(gap_lines("average place", want, trials, place_gap)), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How well the belief (`bots/belief.py`) knows where the unseen cards are, on recorded
games (issue 14, item 1).

Makes records with `president sim` (fixed seeds; line-ups of heuristic bots, greedy
bots, and a mix with a hoarder and a random bot), replays each through the engine
(`engine.record.replay`), and at every turn of one chosen seat in the play (the record's
first player) scores each contender by the mean, over those decision points and over the
cards whose holder the seat does not know, of log P(the card's true holder), in nats per
card.  P is estimated from the contender's worlds (`--worlds` of them, Laplace-smoothed),
except for `uniform`, which is exact: a seat's unknown count over all unknown cards.

Contenders: `uniform`; `dealt` (uniform, estimated from as many deals as the others get
worlds: what the estimate itself costs); `today` (the search's dealing before the belief,
`search.deal_unseen`: uniform, with the current trick's passers dealt no cheap whole
answer, a few tries); `rules` (only the rules' constraints: the exchange caps and passes
under must_beat, by the same chain); `belief` (the whole model, from scratch at each
decision: `belief_of`); `believer` (the same, its chain carried through the hand:
`Believer`, a one-particle filter); `sir` (uniform deals weighted by the model and
resampled: importance sampling).  The 95% CI is clustered by hand.

    python scripts/bench_belief.py [--games 2] [--worlds 100] [--seed 1]
        [--presets classic,house,full] [--lineups heuristic,greedy,mix] [--only NAMES]
    python scripts/bench_belief.py --timing [--worlds 100]   (time per world alone)
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from president.bots import sim
from president.bots.belief import (
    MODEL,
    RULES_ONLY,
    Belief,
    Believer,
    Evidence,
    Model,
    belief_of,
    uniform_log_likelihood,
)
from president.bots.search import deal_unseen
from president.bots.simple import HeuristicBot
from president.engine import CARDS, Card, Game, Phase, SeatView, find_preset
from president.engine.record import loads, replay

LINEUPS = {
    "heuristic": ["heuristic"] * 4,
    "greedy": ["greedy"] * 4,
    "mix": ["heuristic", "greedy", "hoarder", "random"],
}

Worlds = Callable[[SeatView, random.Random, int], list[list[list[Card]]]]


def score(
    view: SeatView, truth: Sequence[Sequence[Card]], worlds: list[list[list[Card]]]
) -> tuple[float, int]:
    """Sum over the unknown cards of log P(true holder), P from `worlds` (Laplace), and
    the number of cards."""
    belief = Belief(view, Evidence(view, RULES_ONLY))
    seats = belief.seats
    if not belief.unknown or not worlds:
        return 0.0, 0
    copies: dict[int, int] = {}
    for card in belief.unknown:
        copies[card] = copies.get(card, 0) + 1
    tally = {s: [0] * 53 for s in seats}
    for world in worlds:
        for s in seats:
            row = tally[s]
            for card in world[s]:
                row[card.id] += 1
    # the known cards are in every world and in the truth: take them out of both
    for s, cards in belief.known.items():
        for card in cards if s in tally else ():
            tally[s][card.id] -= len(worlds)
    total = 0.0
    count = 0
    n, m = len(worlds), len(seats)
    for s in seats:
        held = list(truth[s])
        for card in belief.known.get(s, ()):
            held.remove(card)
        for card in held:
            total += math.log((tally[s][card.id] + 1) / (n * copies[card.id] + m))
            count += 1
    return total, count


def sampled(make: Callable[[SeatView], Belief], fresh: bool = False) -> Worlds:
    """`n` worlds of one belief; `fresh`: each from a new uniform deal, no chain (with
    the rules-only belief, uniform dealing estimated from `n` deals like the others)."""

    def worlds(view: SeatView, rng: random.Random, n: int) -> list[list[list[Card]]]:
        belief = make(view)
        if fresh:
            return [_deal(belief, view, rng) for _ in range(n)]
        return [belief.sample(rng) for _ in range(n)]

    return worlds


def importance(model: Model, proposals: int = 4) -> Worlds:
    """Uniform deals by counts (the known cards in place), weighted by the model's
    log-weight, resampled: `proposals` deals per world kept."""

    def worlds(view: SeatView, rng: random.Random, n: int) -> list[list[list[Card]]]:
        belief = belief_of(view, model)
        deals = [_deal(belief, view, rng) for _ in range(n * proposals)]
        logs = [belief.log_weight(d) for d in deals]
        top = max(logs)
        weights = [math.exp(w - top) for w in logs]
        return rng.choices(deals, weights, k=n)

    return worlds


def today(view: SeatView, rng: random.Random, n: int) -> list[list[list[Card]]]:
    """The search's own dealing before the belief (`search.deal_unseen`)."""
    return [deal_unseen(view, rng) for _ in range(n)]


def _deal(belief: Belief, view: SeatView, rng: random.Random) -> list[list[Card]]:
    """The unknown cards dealt uniformly by room, the known ones in place."""
    cards = list(belief.unknown)
    rng.shuffle(cards)
    hands = [list(belief.known.get(s, ())) for s in range(len(view.counts))]
    hands[view.seat] = list(view.hand)
    at = 0
    for s in belief.seats:
        hands[s] += [CARDS[c] for c in cards[at : at + belief.room[s]]]
        at += belief.room[s]
    return hands


@dataclass
class Figure:
    """One contender's scores, per hand (the clusters)."""

    hands: dict[tuple[str, int], tuple[float, int]] = field(default_factory=dict)
    decisions: int = 0
    seconds: float = 0.0
    worlds: int = 0

    def add(self, hand: tuple[str, int], total: float, cards: int) -> None:
        have = self.hands.get(hand, (0.0, 0))
        self.hands[hand] = (have[0] + total, have[1] + cards)

    def mean(self) -> float:
        cards = sum(n for _, n in self.hands.values())
        return sum(t for t, _ in self.hands.values()) / max(1, cards)

    def interval(self, base: Figure | None = None) -> float:
        """95% half-width of the ratio estimator over hands (clusters); with `base`, of
        the difference from it (paired: the same cards of the same decisions)."""
        clusters = list(self.hands.values())
        if base is not None:
            clusters = [(t - base.hands[h][0], n) for h, (t, n) in self.hands.items()]
        k = len(clusters)
        if k < 2:
            return math.inf
        mean = sum(t for t, _ in clusters) / max(1, sum(n for _, n in clusters))
        n_bar = sum(n for _, n in clusters) / k
        spread = sum((t - mean * n) ** 2 for t, n in clusters) / (k - 1)
        return 1.96 * math.sqrt(spread / k) / n_bar


def contenders(worlds_per_decision: int) -> dict[str, Worlds | None]:
    believer = Believer(MODEL)
    return {
        "uniform": None,
        "dealt": sampled(lambda view: belief_of(view, RULES_ONLY), fresh=True),
        "today": today,
        "rules": sampled(lambda view: belief_of(view, RULES_ONLY)),
        "belief": sampled(belief_of),
        "believer": sampled(believer.belief),
        "sir": importance(MODEL),
    }


def records(preset: str, bots: list[str], games: int, seed: int, folder: Path) -> list[Path]:
    sim.run(find_preset(preset), bots, games, seed, record=str(folder), preset=preset)
    return sorted(folder.glob("*.json"))


def measure(
    paths: Sequence[Path],
    worlds: int,
    seed: int,
    only: Sequence[str] | None = None,
    made: Callable[[int], dict[str, Worlds | None]] = contenders,
) -> dict[str, Figure]:
    """Every contender's figure over the turns of each record's first player (the
    contenders `made(worlds)` gives, `contenders` by default)."""
    names = [n for n in made(worlds) if only is None or n in only]
    figures = {name: Figure() for name in names}
    for path in paths:
        measure_record(path, figures, worlds, seed, made)
    return figures


def measure_record(
    path: Path,
    figures: dict[str, Figure],
    worlds: int,
    seed: int,
    made: Callable[[int], dict[str, Worlds | None]] = contenders,
) -> None:
    """Add one record's decision points to `figures`."""
    document = loads(path.read_text(encoding="utf-8"))
    chosen = document["players"][0]
    makers = made(worlds)  # a Believer per game, as a bot keeps one
    rng = random.Random(seed)

    def on_step(game: Game, hand: int, action: int | None, events: object) -> None:
        if game.phase is not Phase.PLAY or chosen not in game.seating:
            return
        seat = game.seating.index(chosen)
        if game.actor != seat:
            return
        view = game.view_for(seat)
        truth = [game.hand_of(s) for s in range(len(game.seating))]
        key = (path.name, hand)
        for name, figure in figures.items():
            make = makers[name]
            start = time.perf_counter()
            if make is None:
                total, cards = uniform_log_likelihood(view, truth)
            else:
                dealt = make(view, rng, worlds)
                figure.seconds += time.perf_counter() - start
                figure.worlds += len(dealt)
                total, cards = score(view, truth, dealt)
            figure.add(key, total, cards)
            figure.decisions += 1

    result = replay(document, on_step)
    if not result.ok:
        raise SystemExit(f"{path}: the record does not replay: {result.fault}")


def timing(preset: str, seed: int, worlds: int) -> None:
    """Time per world, and per decision for the evidence and set-up, of the search's
    `deal_unseen`, `belief_of` and a `Believer`, at the decisions of one seat in three
    games of heuristic bots (two hands each), one process."""
    rules = find_preset(preset)
    rng = random.Random(seed)
    bot = HeuristicBot()
    views = []
    for _ in range(3):
        game = Game(rules, ["A", "B", "C", "D"])
        for _ in range(2):
            game.start_hand(rng=rng)
            seat = game.actor
            while seat is not None:
                view = game.view_for(seat)
                if seat == 0 and game.phase is Phase.PLAY:
                    views.append(view)
                game.apply(seat, bot.choose(view))
                seat = game.actor
    believer = Believer()
    makers: dict[str, Callable[[SeatView], Belief] | None] = {
        "deal_unseen": None,
        "belief_of": belief_of,
        "Believer": believer.belief,
    }
    for name, make in makers.items():
        setup = 0.0
        start = time.perf_counter()
        for view in views:
            if make is None:
                for _ in range(worlds):
                    deal_unseen(view, rng)
                continue
            begun = time.perf_counter()
            belief = make(view)
            setup += time.perf_counter() - begun
            for _ in range(worlds):
                belief.sample(rng)
        seconds = time.perf_counter() - start
        print(
            f"{name:12} {seconds / len(views) / worlds * 1e6:7.1f} µs/world"
            f"  ({setup / len(views) * 1e3:.2f} ms/decision of set-up; {len(views)} decisions,"
            f" {worlds} worlds each)"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per preset and line-up")
    parser.add_argument("--worlds", type=int, default=100, help="worlds per decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", default="classic,house,full")
    parser.add_argument("--lineups", default="heuristic,greedy,mix")
    parser.add_argument("--only", default=None, help="contenders, comma-separated")
    parser.add_argument(
        "--timing", action="store_true", help="only time the dealers (first preset)"
    )
    args = parser.parse_args(argv)
    only = args.only.split(",") if args.only else None
    command = "python scripts/bench_belief.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    print(f"# {command.strip()}")
    if args.timing:
        timing(args.presets.split(",")[0], args.seed, args.worlds)
        return 0
    print(
        "preset   line-up    contender  nats/card   ±95%   vs uniform   ±95%  decisions  µs/world"
    )
    for preset in args.presets.split(","):
        for lineup in args.lineups.split(","):
            if lineup not in LINEUPS:
                raise SystemExit(f"no line-up {lineup!r}: choose among {', '.join(LINEUPS)}")
            with tempfile.TemporaryDirectory() as folder:
                paths = records(preset, LINEUPS[lineup], args.games, args.seed, Path(folder))
                figures = measure(paths, args.worlds, args.seed, only)
            base = figures.get("uniform")
            for name, figure in figures.items():
                per_world = figure.seconds / figure.worlds * 1e6 if figure.worlds else 0.0
                gain = figure.mean() - base.mean() if base else math.nan
                gain_ci = figure.interval(base) if base else math.nan
                print(
                    f"{preset:8} {lineup:10} {name:10} {figure.mean():9.4f}  {figure.interval():6.4f}"
                    f"  {gain:+9.4f}  {gain_ci:6.4f}  {figure.decisions:9d}  {per_world:8.1f}"
                )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

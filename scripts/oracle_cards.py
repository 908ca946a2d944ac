"""Which cards' whereabouts make the search stronger (issue 25, a diagnostic, not a bot):
the search (seat 1) against three heuristic bots, its worlds from the belief as always,
then every card of the ranks named moved to the seat that truly holds it (swapped with
a card of another rank from that seat's world hand, so every count stays), on the same
games as the plain search; the paired difference of its average place.  With every rank
named its worlds are the true hands.  It reads the hidden hands, so it runs in one
process and fields no bot anyone may play.

    python -m scripts.oracle_cards --ranks 12,13 [--games 200] [--seed 3] \\
        [--preset daifugo] [--cache DIR]

Ranks are indexes, 0 (the 3) to 12 (the 2), 13 the joker; `all` for every one."""

from __future__ import annotations

import argparse
import random
from typing import Any

from president.bots import strategies
from president.bots.belief import Believer
from president.bots.search import Believed, SearchBot
from president.bots.sim import run
from president.cli.main import compiled_modules
from president.engine import Card, Game, SeatView, find_preset

from scripts.pair_bots import _first_chair, paired

#: The game whose decision is being made (`Game.view_for` is wrapped to note it).
_SHOWN: dict[str, Game] = {}


class Placed:
    """The belief's worlds with the named ranks' cards where they truly are."""

    def __init__(self, ranks: set[int]) -> None:
        self.ranks = ranks
        self.believed = Believed(Believer().belief)

    def __call__(self, view: SeatView, rng: random.Random) -> list[list[Card]]:
        game = _SHOWN["game"]
        truth = [game.hand_of(seat) for seat in range(len(game.seating))]
        hands = [list(hand) for hand in self.believed(view, rng)]
        me, key = view.seat, self.ranks
        for holder, cards in enumerate(truth):
            if holder == me:
                continue
            for card in cards:
                if card.rank not in key or hands[holder].count(card) >= cards.count(card):
                    continue
                # a seat holding more of this card in the world than it truly does
                other = next(
                    (
                        s
                        for s in range(len(hands))
                        if s not in (me, holder) and hands[s].count(card) > truth[s].count(card)
                    ),
                    None,
                )
                spare = next(
                    (
                        c
                        for c in hands[holder]
                        if c.rank not in key or hands[holder].count(c) > cards.count(c)
                    ),
                    None,
                )
                if other is None or spare is None:
                    continue
                hands[holder].remove(spare)
                hands[other].remove(card)
                hands[holder].append(card)
                hands[other].append(spare)
        return [sorted(hand, key=lambda c: c.id) for hand in hands]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--preset", default="daifugo")
    parser.add_argument("--cache", help="pair_bots' cache of the plain search's games")
    args = parser.parse_args()
    ranks = set(range(14)) if args.ranks == "all" else {int(r) for r in args.ranks.split(",")}
    if compiled_modules():
        # (compiled, the simulator calls the game's own `view_for`, whatever this sets)
        raise SystemExit(
            "oracle_cards: it wraps Game.view_for, which the compiled build does not call;"
            " run it on the interpreted build (pip install . without PRESIDENT_COMPILE)"
        )
    shown = Game.view_for

    def view_for(self: Game, seat: int) -> SeatView:
        _SHOWN["game"] = self
        return shown(self, seat)

    Game.view_for = view_for  # type: ignore[method-assign]

    def placed(rng: random.Random, **options: Any) -> SearchBot:
        return SearchBot(rng, sampler=Placed(ranks))

    strategies.STRATEGIES["placed"] = placed
    rules = find_preset(args.preset)
    opponents = ["heuristic"] * 3
    plain = _first_chair(rules, ["search", *opponents], args.games, args.seed, 1, {}, args.cache)
    tally = run(rules, ["placed", *opponents], args.games, args.seed, processes=1).entrants[0]
    diff, half = paired(plain, tally)
    print(
        f"ranks {sorted(ranks)} placed: {tally.average:.3f} ± {tally.interval():.3f} against"
        f" {plain.average:.3f}, {diff:+.3f} ± {half:.3f} (95%, paired over {args.games} games"
        f" of {args.preset}, search vs 3 heuristic, seed {args.seed})"
    )


if __name__ == "__main__":
    main()

"""`president sim`: whole games offline between bots, with the finishing places they earn."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from president.client.strategies import make_strategy
from president.engine import Game, Phase, Rules

#: A game that has not ended after this many hands is reported, not looped on forever.
MAX_HANDS_PER_GAME = 10_000


@dataclass
class SimResult:
    players: int
    bots: list[str]
    games: int = 0
    hands: int = 0
    #: Per starting seat: the sum of finishing places (1 = President) and hands played.
    place_sums: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)

    def average_places(self) -> list[float]:
        return [total / self.hands if self.hands else 0.0 for total in self.place_sums]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players, "games": self.games, "hands": self.hands,
            "seats": [
                {"seat": seat, "bot": bot, "average_place": round(avg, 4), "wins": wins}
                for seat, (bot, avg, wins) in enumerate(
                    zip(self.bots, self.average_places(), self.wins)
                )
            ],
        }


def seat_names(bots: list[str]) -> list[str]:
    return [f"{bot}-{seat}" for seat, bot in enumerate(bots)]


def run(rules: Rules, bots: list[str], games: int, seed: int,
        on_game: Callable[[int, Game], None] | None = None) -> SimResult:
    """Play `games` whole games; the same seed gives the same games.  `on_game` sees
    each finished game (to write its record, say)."""
    players = len(bots)
    rules.check_players(players)
    names = seat_names(bots)
    result = SimResult(players, list(bots), place_sums=[0] * players, wins=[0] * players)
    deal_rng = random.Random(seed)
    for game_number in range(games):
        strategies = {
            name: make_strategy(bot, random.Random(seed * 1_000_003 + game_number * 101 + seat))
            for seat, (name, bot) in enumerate(zip(names, bots))
        }
        game = Game(rules, names)
        while game.phase is not Phase.GAME_OVER:
            if len(game.finishes) >= MAX_HANDS_PER_GAME:
                raise RuntimeError(f"game {game_number} did not end in {MAX_HANDS_PER_GAME} hands")
            game.start_hand(rng=deal_rng)
            while True:
                if game.phase is Phase.PLAY:
                    seat = game.turn
                elif game.phase is Phase.EXCHANGE:
                    seat = next(iter(game.pending_returns))
                else:
                    break
                assert seat is not None
                view = game.view_for(seat)
                game.apply(seat, strategies[game.seating[seat]].choose(view))
            for place, name in enumerate(game.finishes[-1], 1):
                result.place_sums[names.index(name)] += place
            result.hands += 1
        for name in game.winners:
            result.wins[names.index(name)] += 1
        if on_game is not None:
            on_game(game_number, game)
        result.games += 1
    return result

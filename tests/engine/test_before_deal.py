"""`Game.before_deal`: the game before a hand's deal as a seat's view knows it, in which
that hand's own deal, made again, gives back the very moment every seat saw (what the
coach deals its worlds of a return from)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from president.bots.simple import HeuristicBot
from president.engine import Dealt, Game, IllegalAction, Phase, find_preset
from president.engine.rules import Rules


def exchanges(rules: Rules, players: int, seed: int) -> list[tuple[Game, int, list[Any]]]:
    """Each hand's first moment of the exchange (a return owed) in a game of heuristic
    bots, with the seat that owes it and the hand's deal."""
    game = Game(rules, [f"p{i}" for i in range(players)])
    rng, bot, found = random.Random(seed), HeuristicBot(), []
    while game.phase is not Phase.GAME_OVER and len(found) < 3:
        deal = [e.cards for e in game.start_hand(rng=rng) if isinstance(e, Dealt)]
        first = True
        while game.actor is not None:
            seat = game.actor
            if first and game.phase is Phase.EXCHANGE:
                found.append((game.clone(), seat, deal))
            first = False
            game.apply(seat, bot.choose(game.view_for(seat)))
    return found


@pytest.mark.parametrize(
    ("preset", "players", "toggles"),
    [
        ("classic", 4, {}),
        ("japanese", 5, {}),
        ("daifugo", 4, {"dealer": "scum"}),
        ("table", 5, {"seat_order": "by_rank", "gekokujou": True}),
    ],
)
def test_the_deal_made_again_gives_back_what_every_seat_saw(
    preset: str, players: int, toggles: dict[str, object]
) -> None:
    rules = find_preset(preset).replace(**toggles) if toggles else find_preset(preset)
    moments = exchanges(rules, players, seed=players)
    assert moments
    for game, seat, deal in moments:
        view = game.view_for(seat)
        again = Game.before_deal(view)
        assert again.phase is Phase.BETWEEN_HANDS
        again.start_hand(seating=view.seating, dealer=view.dealer, deal=deal)
        for s in range(players):
            assert again.view_for(s) == game.view_for(s)
        assert again.pending_returns == game.pending_returns


def test_the_first_hand_has_nothing_before_it() -> None:
    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    game.start_hand(rng=random.Random(1))
    with pytest.raises(IllegalAction, match="only a hand after the first"):
        Game.before_deal(game.view_for(0))

"""While a seat pays what its play owes (a hand-over, a discard...), the passes made
before that play are behind it: `passed` means passed since the last play, in the fast
game and the plain one alike."""

from __future__ import annotations

import random

from president.engine import Game, Phase, PlainGame, find_preset


def test_no_pass_before_a_play_shows_while_its_due_is_paid() -> None:
    for kind in (Game, PlainGame):
        seen = 0
        game = kind(find_preset("daifugo"), ["a", "b", "c", "d"])
        rng = random.Random(0)
        while game.phase is not Phase.GAME_OVER and seen < 20:
            game.start_hand(rng=rng)
            while game.actor is not None:
                view = game.view_for(game.actor)
                if view.due is not None and view.trick:
                    seen += 1
                    assert not any(view.passed), (kind.__name__, view.trick, view.passed)
                game.apply(game.actor, rng.choice(view.legal_actions()))
        assert seen >= 20

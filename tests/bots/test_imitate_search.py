"""scripts/imitate_search.py, the tool behind issue 25's imitation experiments: its
policy's plumbing (features, candidates, the playouts' continuation) and its fitting."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from president.bots.playout import game_policy
from president.bots.simple import HeuristicBot
from president.engine import Game, Phase, find_preset

from scripts import imitate_search as imitate

#: A policy that weighs nothing but "the heuristic's choice": the heuristic itself.
PRIOR_ONLY = {"prior": 1.0}


def games(count: int) -> Iterator[tuple[Game, int]]:
    """Every moment of `count` hands of heuristic bots under daifugo, as (game, seat),
    before the seat's move is made."""
    rules = find_preset("daifugo").replace(rounds=1)
    bot = HeuristicBot()
    for number in range(count):
        game = Game(rules, ["a", "b", "c", "d"])
        game.start_hand(rng=random.Random(number))
        seat = game.actor
        while seat is not None:
            yield game, seat
            game.apply(seat, bot.choose(game.view_for(seat)))
            seat = game.actor


def test_a_policy_of_the_prior_alone_plays_as_the_heuristic() -> None:
    imitating = imitate.ImitatingBot(PRIOR_ONLY)
    heuristic = HeuristicBot()
    searched = 0
    for game, seat in games(6):
        view = game.view_for(seat)
        assert imitating.choose(view) == heuristic.choose(view)
        searched += view.phase is Phase.PLAY and len(view.legal_actions()) > 1
    assert searched > 100  # (the policy was asked, not only the fallback)


def test_the_continuation_of_the_prior_alone_is_the_playouts_heuristic() -> None:
    asked = 0
    for game, seat in games(6):
        if game.phase is not Phase.PLAY or seat != game.turn:
            continue
        expected = game_policy(game, seat)
        assert imitate.continuation(game, seat, PRIOR_ONLY) == expected
        asked += 1
    assert asked > 100


def test_the_fit_learns_a_rule_its_records_follow() -> None:
    """Records where the search always picks the weakest play: the fitted model picks it
    on the held-out half nearly always, where the (random) prior seldom does."""
    pytest.importorskip("numpy")
    rng = random.Random(1)
    records = []
    for _ in range(400):
        count = rng.randint(2, 5)
        strengths = rng.sample(range(13), count)
        candidates = [[s, 1, 0, False, True, False, False, s] for s in strengths]
        records.append(
            {
                "held": [1] * 13 + [0],
                "counts": [10, 10, 10, 10],
                "seat": 0,
                "top_power": None,
                "candidates": candidates,
                "prior": rng.randrange(count),
                "choice": strengths.index(min(strengths)),
            }
        )
    weights, agreement = imitate.fit(records, steps=300)
    assert agreement["model"] > 0.9
    assert agreement["heuristic"] < 0.6
    assert weights["Llowest"] > 0

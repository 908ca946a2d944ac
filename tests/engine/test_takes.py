"""The dues that take a card of the cards played into a hand (salvage...): a game
rebuilt from a seat's view mid-hand (a bot's world) offers and does what the game does,
and every hand under them ends (a card comes back once a hand)."""

from __future__ import annotations

import random

from president.engine import Game, Phase, Rules, Take, Took, find_preset

from .test_fast_paths import check_every_view

#: The take toggles on a rulebook that discards too (the cards played grow by discards).
TAKING = find_preset("daifugo").replace(
    salvage=True, kings_march=True, zombie=True, queen_bomber=True
)


def random_hand(rules: Rules, seed: int, steps: int = 400) -> tuple[Game, int]:
    """Hand 1 played with random legal actions: (the game, how many takes were made)."""
    rng = random.Random(seed)
    game = Game(rules, ["a", "b", "c", "d"])
    game.start_hand(rng=rng)
    takes = 0
    for _ in range(steps):
        if game.phase is not Phase.PLAY:
            break
        seat = game.actors[0]
        events = game.apply(seat, rng.choice(game.legal_actions(seat)))
        takes += sum(1 for e in events if isinstance(e, Took))
    return game, takes


def test_a_world_rebuilt_while_a_take_is_owed_plays_as_the_game() -> None:
    """At each take owed, and after it, `Game.from_view` (the search's world) offers the
    same cards to take, and taking one does the same as in the game; its views are
    the ones built afresh."""
    owed = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = Game(TAKING, ["a", "b", "c", "d"])
        game.start_hand(rng=rng)
        while game.phase is Phase.PLAY and owed < 6:
            seat = game.actors[0]
            legal = game.legal_actions(seat)
            if game.due is not None and type(legal[0]) is Take:
                owed += 1
                hands = [game.hand_of(s) for s in range(4)]
                world = Game.from_view(game.view_for(seat), hands)
                check_every_view(world, "rebuilt with a take owed")
                assert world.legal_actions(seat) == legal
                action = rng.choice(legal)
                assert world.apply(seat, action) == game.apply(seat, action)
                continue
            game.apply(seat, rng.choice(legal))
        if owed >= 6:
            break
    assert owed >= 6, owed


def test_every_hand_ends_though_cards_come_back() -> None:
    """Random players under salvage, kings_march, zombie and queen_bomber (cards go out
    to bombs too), with discards: each hand ends well within
    the steps a hand without takes needs twice over (a card comes back once a hand), and
    cards did come back."""
    taken = 0
    for seed in range(6):
        game, takes = random_hand(TAKING, seed)
        assert game.phase is not Phase.PLAY, f"hand {seed} did not end in 400 steps"
        taken += takes
    assert taken

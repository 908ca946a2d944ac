"""The rulings of docs/rules.md, for the cases the rulebooks leave open; each pinned here."""

from __future__ import annotations

import random

import pytest
from president.engine import (
    PASS,
    Game,
    IllegalAction,
    Play,
    Return,
    Skipped,
    TrickEnded,
    WentOut,
    parse_cards,
    rules_from,
)
from president.engine.scoring import game_result

from .helpers import finish_hand_low, full_deal, game_with, play

BASE = rules_from({"preset": "classic", "first_lead": "dealer_left"})


def test_suits_are_not_a_choice_any_suits_of_a_listed_play_are_accepted() -> None:
    game = game_with(BASE, {0: "7C 7D 7H"})
    assert Play.parse("7C 7D") in game.legal_actions(0)
    assert Play.parse("7D 7H") not in game.legal_actions(0)  # one play per shape...
    game.check(0, Play.parse("7D 7H"))  # ...but any suits of it are accepted


def test_wild_jokers_make_four_of_a_kind_for_bombs_and_revolutions() -> None:
    rules = BASE.replace(jokers=1, joker_mode="wild", bombs=True, revolution=True)
    game = game_with(rules, {0: "6C 6D", 1: "5C 5D 5H JK"})
    events = play(game, "0 6C 6D", "1 5C 5D 5H JK")
    assert TrickEnded(1, 1) in events and game.revolution


def test_a_set_of_jokers_alone_ranks_above_the_twos_even_in_a_revolution() -> None:
    rules = BASE.replace(jokers=1, joker_mode="wild", revolution=True)
    game = game_with(rules, {0: "4C 4D 4H 4S 2C", 1: "JK 3C"})
    play(game, "0 4C 4D 4H 4S", "1 pass", "2 pass", "3 pass", "0 2C")  # revolution: 2 is low
    assert game.revolution
    play(game, "1 JK")
    with pytest.raises(IllegalAction):
        game.check(2, Play(game.hand_of(2)[:1]))


def test_a_led_bomb_or_clearing_rank_clears_at_once() -> None:
    bombs = game_with(BASE.replace(bombs=True), {0: "9C 9D 9H 9S"})
    assert TrickEnded(0, 0) in play(bombs, "0 9C 9D 9H 9S")
    eights = game_with(BASE.replace(clear_rank=8), {0: "8C"})
    assert TrickEnded(0, 0) in play(eights, "0 8C")


def test_a_wild_joker_in_a_set_of_twos_makes_it_twos() -> None:
    rules = BASE.replace(jokers=1, joker_mode="wild", twos_clear=True)
    game = game_with(rules, {0: "6C 6D 6H", 1: "2C JK"})
    assert TrickEnded(1, 1) in play(game, "0 6C 6D 6H", "1 2C JK")


def test_going_out_on_a_clearing_play_the_lead_passes_on() -> None:
    rules = BASE.replace(twos_clear=True)
    given = {0: "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 2H"}
    game = game_with(rules, given)
    steps = [
        "0 3C 3D 3H 3S",
        "1 pass",
        "2 pass",
        "3 pass",
        "0 4C 4D 4H 4S",
        "1 pass",
        "2 pass",
        "3 pass",
        "0 5C 5D 5H 5S",
        "1 pass",
        "2 pass",
        "3 pass",
    ]
    play(game, *steps)
    events = play(game, "0 2H")
    assert WentOut(0, 0) in events and TrickEnded(0, 1) in events and game.turn == 1


def test_a_skipped_player_counts_as_answering_the_play() -> None:
    rules = BASE.replace(equal_plays="skip")
    game = game_with(rules, {0: "7C 3D", 1: "7D 4D", 2: "KC", 3: "5D"})
    events = play(game, "0 7C", "1 7D")
    assert Skipped(2) in events and game.turn == 3
    events = play(game, "3 pass", "0 pass")
    assert TrickEnded(1, 1) in events  # seat 2 was skipped: the trick still clears


def test_being_skipped_does_not_lock_a_player_out() -> None:
    rules = BASE.replace(equal_plays="skip", passing="locked")
    game = game_with(rules, {0: "7C 3D", 1: "7D 4D", 2: "KC", 3: "8D"})
    play(game, "0 7C", "1 7D", "3 8D", "0 pass")
    assert game.turn == 1
    play(game, "1 pass")
    assert game.turn == 2  # the skipped seat plays again in this trick
    play(game, "2 KC")


def test_the_rotating_deal_goes_to_the_player_on_the_last_dealers_left() -> None:
    game = Game(BASE, list("ABCD"))
    game.start_hand(dealer=1, deal=full_deal(BASE, 4, 2, {}))  # B deals
    finish_hand_low(game)
    game.leave("C")  # C sat on B's left
    game.start_hand(rng=random.Random(1))
    assert game.seating[game.dealer or 0] == "D"


def test_a_player_who_left_and_returns_is_a_newcomer_with_no_points() -> None:
    game = Game(BASE.replace(exchange="none"), list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(BASE, 4, 0, {}))
    finish_hand_low(game)
    assert game.scores["A"] == 2
    game.leave("A")
    game.start_hand(rng=random.Random(1))
    finish_hand_low(game)
    game.join("A")
    assert game.scores["A"] == 0
    game.start_hand(rng=random.Random(2))
    assert game.standing is not None and game.standing[-1] == "A"


def test_only_players_at_the_table_can_win() -> None:
    rules = BASE.replace(target=3, exchange="none")
    game = Game(rules, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {}))
    finish_hand_low(game)  # A 2 points
    game.leave("A")
    game.start_hand(dealer=0, deal=full_deal(rules, 3, 1, {}))
    finish_hand_low(game)  # B leads and goes out first: B 1 + 2 = 3
    assert game.winners == ["B"]


def test_positional_ties_share_the_win() -> None:
    rules = BASE.replace(scoring="positional", rounds=2, exchange="none", later_lead="scum")
    game = Game(rules, ["A", "B", "C"])
    game.start_hand(dealer=2, deal=full_deal(rules, 3, 0, {}))
    finish_hand_low(game)  # A, B, C: 2, 1, 0
    game.start_hand(rng=random.Random(4))  # the Scum (C) leads
    finish_hand_low(game)  # C, A, B: A 3, B 1, C 2 ... A wins alone
    assert game.winners == ["A"]
    over, winners = game_result(
        rules, {"A": 3, "B": 3, "C": 0}, ["A", "B", "C"], 2, ["C", "A", "B"]
    )
    assert over and winners == ["A", "B"]


def test_timeout_rule() -> None:
    game = game_with(BASE, {0: "5C 5D 9C", 1: "7C"})
    lowest = min(game.hand_of(0), key=lambda c: (c.rank, c.suit))
    assert game.timeout_action(0) == Play([lowest])  # lead the lowest single
    play(game, f"0 {lowest}")
    assert game.timeout_action(1) is PASS
    must = game_with(BASE.replace(must_beat=True), {0: "5C", 1: "7C KC"})
    play(must, "0 5C")
    cheapest = min((c for c in must.hand_of(1) if c.rank > 2), key=lambda c: (c.rank, c.suit))
    assert must.timeout_action(1) == Play([cheapest])  # may not pass: the cheapest play
    ex = Game(BASE, list("ABCD"))
    ex.start_hand(dealer=3, deal=full_deal(BASE, 4, 0, {}))
    finish_hand_low(ex)
    ex.start_hand(rng=random.Random(1))
    lowest = sorted(ex.hand_of(0), key=lambda c: (c.rank, c.suit))[:2]
    assert ex.timeout_action(0) == Return(lowest)


def test_either_receiver_may_return_first() -> None:
    game = Game(BASE, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(BASE, 4, 0, {}))
    finish_hand_low(game)
    game.start_hand(rng=random.Random(1))
    vice = game.hand_of(1)[:1]
    game.apply(1, Return(vice))
    assert game.pending_returns == {0: (3, 2)}
    game.apply(0, Return(game.hand_of(0)[:2]))
    assert game.turn == 0


def test_after_the_returns_are_listed_only_a_legal_one_is_taken() -> None:
    """The game keeps the returns it listed, to take one of them without judging it again
    (`Game.apply`): any other return is still judged, whichever seat offers it."""
    game = Game(BASE, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(BASE, 4, 0, {}))
    finish_hand_low(game)
    game.start_hand(rng=random.Random(1))
    listed = game.legal_actions(0)
    assert listed and all(isinstance(ret, Return) for ret in listed)
    not_held = Return([c for c in parse_cards("3C 3D 3H 3S 4C") if c not in game.hand_of(0)][:2])
    for wrong in (not_held, Return(game.hand_of(0)[:1]), PASS):
        with pytest.raises(IllegalAction):
            game.apply(0, wrong)
    with pytest.raises(IllegalAction):  # another seat's return is not the listed seat's
        game.apply(1, listed[0])
    game.apply(0, listed[-1])
    assert 0 not in game.pending_returns


def test_the_return_may_include_cards_just_received() -> None:
    game = Game(BASE, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(BASE, 4, 0, {}))
    finish_hand_low(game)
    game.start_hand(rng=random.Random(1))
    received = list(game.exchanges[0].cards)
    game.apply(0, Return(received))
    assert all(card in game.hand_of(3) for card in received)


def test_the_opening_three_of_clubs_only_in_hand_one() -> None:
    rules = BASE.replace(first_lead="three_of_clubs", exchange="none")
    game = Game(rules, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {1: "3C"}))
    assert game.turn == 1
    finish_hand_low(game)
    game.start_hand(rng=random.Random(1))
    leader = game.turn
    assert leader is not None
    assert any(
        3 not in [c.id for c in p.cards] and 0 not in p.ids
        for p in game.legal_actions(leader)
        if isinstance(p, Play)
    )
    assert parse_cards("3C")

"""The Daifugo tables' local rules taken from the peers (docs/rules.md, "Local rules of the
Daifugo tables"): each toggle's worked example, and the peer scenario it was read from
(statiolake/rich-rich-daifugo's tests, translated), with the rule off for contrast."""

from __future__ import annotations

import pytest
from president.engine import PASS, IllegalAction, Play, Played, Rules, TrickEnded, parse_cards

from .helpers import game_with

LEFT = Rules(first_lead="dealer_left")


def cards(text: str) -> Play:
    return Play(parse_cards(text))


def played(events: list[object]) -> Played:
    return next(e for e in events if isinstance(e, Played))


# --- sandstorm ---------------------------------------------------------------------------


def test_three_threes_clear_any_pile_and_two_do_not() -> None:
    """docs/rules.md, `sandstorm`: the worked example (rich-rich-daifugo's "砂嵐がONの場合、
    3x3が何にでも勝つ": three 3s on three kings)."""
    rules = LEFT.replace(sandstorm=True)
    game = game_with(rules, {0: "KC KD KH 5C 5D", 1: "3C 3D 3H 3S", 2: "AC AD AH"})
    game.apply(0, cards("KC KD KH"))
    events = game.apply(1, cards("3C 3D 3H"))  # the lowest rank, yet it clears
    assert played(events).clears and TrickEnded(1, 1) in events and game.turn == 1
    game.apply(1, cards("3S"))  # a lone 3 is just a 3
    assert game.top is not None and game.top.rank == 0 and game.turn == 2
    off = game_with(LEFT, {0: "KC KD KH", 1: "3C 3D 3H"})
    off.apply(0, cards("KC KD KH"))
    with pytest.raises(IllegalAction):  # "砂嵐がOFFの場合、3x3は通常の強さ判定"
        off.apply(1, cards("3C 3D 3H"))


def test_sandstorm_goes_on_a_pile_of_any_size_but_a_pair_of_threes_does_not_clear() -> None:
    rules = LEFT.replace(sandstorm=True)
    game = game_with(rules, {0: "5C 5D", 1: "3C 3D 3H", 2: "AC AD AH"})
    game.apply(0, cards("5C 5D"))
    assert game.is_legal(1, cards("3C 3D 3H")) and not game.is_legal(1, cards("3C 3D"))


# --- two_back ----------------------------------------------------------------------------


def test_a_two_reverses_the_order_until_the_trick_ends() -> None:
    """docs/rules.md, `two_back`: the worked example (rich-rich-daifugo's 2バック)."""
    rules = LEFT.replace(two_back=True)
    game = game_with(rules, {0: "9C 6H", 1: "2C 7D", 2: "4D AS", 3: "KH QH"})
    game.apply(0, cards("9C"))
    game.apply(1, cards("2C"))
    assert game.jack_back and game.view_for(2).reversed  # reversed for this trick
    assert game.is_legal(2, cards("4D"))  # the 2 is now the weakest card: anything beats it
    game.apply(2, cards("4D"))
    assert not game.is_legal(3, cards("KH"))  # and a king no longer beats a 4
    game.apply(3, PASS)
    game.apply(0, PASS)
    events = game.apply(1, PASS)
    assert TrickEnded(2, 2) in events and not game.jack_back  # the trick is over: order back
    off = game_with(LEFT, {0: "9C", 1: "2C", 2: "4D"})
    off.apply(0, cards("9C"))
    off.apply(1, cards("2C"))
    assert not off.jack_back and not off.is_legal(2, cards("4D"))


def test_a_sequence_holding_a_jack_and_a_two_reverses_twice_that_is_not_at_all() -> None:
    rules = LEFT.replace(two_back=True, jack_back=True, sequences=True)
    game = game_with(rules, {0: "JS QS KS AS 2S", 1: "3C"})
    game.apply(0, cards("JS QS KS AS 2S"))
    assert not game.jack_back


# --- coup, nanasan_revolution, joker_revolution ---------------------------------------------


def test_three_nines_start_a_revolution_under_coup() -> None:
    """docs/rules.md, `coup`: the worked example (rich-rich-daifugo's "9x3でクーデターが発動")."""
    rules = LEFT.replace(coup=True)
    game = game_with(rules, {0: "9C 9D 9H", 1: "4C 4D 4H", 2: "KC KD KH"})
    events = game.apply(0, cards("9C 9D 9H"))
    assert played(events).revolution and game.revolution
    assert game.is_legal(1, cards("4C 4D 4H")) and not game.is_legal(2, cards("KC KD KH"))
    off = game_with(LEFT, {0: "9C 9D 9H", 1: "4C 4D 4H"})
    assert not played(off.apply(0, cards("9C 9D 9H"))).revolution and not off.revolution


def test_two_nines_are_no_coup_and_four_revolt_once() -> None:
    rules = LEFT.replace(coup=True, revolution=True)
    game = game_with(rules, {0: "9C 9D 9H 9S"})
    assert played(game.apply(0, cards("9C 9D 9H 9S"))).revolution and game.revolution
    pair = game_with(LEFT.replace(coup=True), {0: "9C 9D"})
    assert not played(pair.apply(0, cards("9C 9D"))).revolution


def test_three_sevens_start_a_revolution_under_nanasan_revolution() -> None:
    """docs/rules.md, `nanasan_revolution`: the worked example (rich-rich-daifugo's
    ナナサン革命, "7x3で革命")."""
    rules = LEFT.replace(nanasan_revolution=True)
    game = game_with(rules, {0: "5C 5D 5H", 1: "7C 7D 7H", 2: "6C 6D 6H"})
    game.apply(0, cards("5C 5D 5H"))
    events = game.apply(1, cards("7C 7D 7H"))
    assert played(events).revolution and game.revolution
    assert game.is_legal(2, cards("6C 6D 6H"))  # lower beats higher now
    off = game_with(LEFT, {0: "5C 5D 5H", 1: "7C 7D 7H", 2: "6C 6D 6H"})
    off.apply(0, cards("5C 5D 5H"))
    off.apply(1, cards("7C 7D 7H"))
    assert not off.revolution and not off.is_legal(2, cards("6C 6D 6H"))


def test_two_jokers_together_start_a_revolution_under_joker_revolution() -> None:
    """docs/rules.md, `joker_revolution`: the worked example (rich-rich-daifugo's
    ジョーカー革命, "ジョーカー2枚同時で革命")."""
    rules = LEFT.replace(jokers=2, joker_revolution=True)
    game = game_with(rules, {0: "KC KD 4S", 1: "JK JK", 2: "3C 3D"})
    game.apply(0, cards("KC KD"))
    events = game.apply(1, cards("JK JK"))
    assert played(events).revolution and game.revolution
    off = game_with(LEFT.replace(jokers=2), {0: "KC KD", 1: "JK JK"})
    off.apply(0, cards("KC KD"))
    assert not played(off.apply(1, cards("JK JK"))).revolution

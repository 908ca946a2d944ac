"""The Daifugo tables' local rules taken from the peers (docs/rules.md, "Local rules of the
Daifugo tables"): each toggle's worked example, and the peer scenario it was read from
(statiolake/rich-rich-daifugo's tests, translated), with the rule off for contrast."""

from __future__ import annotations

import pickle
import random

import pytest
from president.engine import (
    PASS,
    Bomb,
    Bombed,
    Discarded,
    Game,
    Gave,
    HandedOver,
    Handover,
    IllegalAction,
    Phase,
    Play,
    Played,
    Return,
    Rules,
    Skipped,
    Take,
    Took,
    TrickEnded,
    WentOut,
    parse_cards,
)

from .helpers import finish_hand_low, full_deal, game_with, play

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


# --- assassination, spade_two_return -------------------------------------------------------


def test_a_single_three_on_a_single_two_clears() -> None:
    """docs/rules.md, `assassination`: the worked example (rich-rich-daifugo's 暗殺, "2に対して
    3を出すと場を流せる、革命中は逆")."""
    rules = LEFT.replace(assassination=True)
    game = game_with(rules, {0: "2C 9D", 1: "3H 4S", 2: "AC AD"})
    game.apply(0, cards("2C"))
    events = game.apply(1, cards("3H"))
    assert played(events).clears and TrickEnded(1, 1) in events and game.turn == 1
    off = game_with(LEFT, {0: "2C", 1: "3H"})
    off.apply(0, cards("2C"))
    assert not off.is_legal(1, cards("3H"))


def test_in_a_revolution_a_two_assassinates_a_three_and_a_pair_never_does() -> None:
    rules = LEFT.replace(assassination=True, revolution=True)
    game = game_with(rules, {0: "5C 5D 5H 5S 3C", 1: "2C 2D 9S", 2: "3D 3S"})
    game.apply(0, cards("5C 5D 5H 5S"))  # a revolution: 3 is the strongest rank now
    game.apply(1, PASS)
    game.apply(2, PASS)
    game.apply(3, PASS)
    game.apply(0, cards("3C"))
    assert game.revolution and game.is_legal(1, cards("2C"))
    assert played(game.apply(1, cards("2C"))).clears and game.turn == 1
    pair = game_with(LEFT.replace(assassination=True), {0: "2C 2D", 1: "3H 3S"})
    pair.apply(0, cards("2C 2D"))
    assert not pair.is_legal(1, cards("3H 3S"))


def test_in_a_revolution_the_spade_two_clears_a_lone_joker() -> None:
    """docs/rules.md, `spade_two_return`: the worked example (rich-rich-daifugo's スペ2返し,
    "革命中ジョーカーに対してスペード2で流せる")."""
    rules = LEFT.replace(jokers=1, revolution=True, spade_two_return=True)
    game = game_with(rules, {0: "6C 6D 6H 6S JK", 1: "2S 2H 8C", 2: "AC"})
    game.apply(0, cards("6C 6D 6H 6S"))
    for seat in (1, 2, 3):
        game.apply(seat, PASS)
    game.apply(0, cards("JK"))
    assert game.revolution and not game.is_legal(1, cards("2H"))
    events = game.apply(1, cards("2S"))
    assert played(events).clears and TrickEnded(1, 1) in events
    ordinary = game_with(LEFT.replace(jokers=1, spade_two_return=True), {0: "JK", 1: "2S"})
    ordinary.apply(0, cards("JK"))
    assert not ordinary.is_legal(1, cards("2S"))  # only while the order is reversed


# --- queen_release -----------------------------------------------------------------------------


def test_a_queen_lifts_the_suit_lock() -> None:
    """docs/rules.md, `queen_release`: the worked example (rich-rich-daifugo's Q解き, "縛り中に
    Qを出すと解除")."""
    rules = LEFT.replace(suit_lock=True, queen_release=True)
    game = game_with(rules, {0: "5H 9C", 1: "7H 10C", 2: "QH KC", 3: "AS 4D"})
    game.apply(0, cards("5H"))
    game.apply(1, cards("7H"))
    assert game.lock == (2,)  # hearts on hearts: locked to hearts
    assert not game.is_legal(2, cards("KC"))
    game.apply(2, cards("QH"))  # the queen must fit the lock, and lifts it
    assert game.lock == () and game.is_legal(3, cards("AS"))
    off = game_with(LEFT.replace(suit_lock=True), {0: "5H", 1: "7H", 2: "QH", 3: "AS"})
    for seat, text in ((0, "5H"), (1, "7H"), (2, "QH")):
        off.apply(seat, cards(text))
    assert off.lock == (2,) and not off.is_legal(3, cards("AS"))


# --- great_revolution, lucky_seven ---------------------------------------------------------


def test_four_twos_start_a_revolution_and_their_player_goes_out_first() -> None:
    """docs/rules.md, `great_revolution`: the worked example (rich-rich-daifugo's 大革命,
    "2x4で大革命が発動", "即勝利")."""
    rules = LEFT.replace(great_revolution=True)
    game = game_with(rules, {0: "2C 2D 2H 2S 9C KD", 1: "4C 4D 4H 4S", 2: "AC"})
    events = game.apply(0, cards("2C 2D 2H 2S"))
    assert played(events).revolution and game.revolution
    assert WentOut(0, 0) in events and game.place_of(0) == 0  # first, with 9 cards unplayed
    assert game.card_counts()[0] == 9 and game.turn == 1  # its other cards out of play
    assert game.is_legal(1, cards("4C 4D 4H 4S"))  # lower beats higher now
    off = game_with(LEFT, {0: "2C 2D 2H 2S 9C"})
    events = off.apply(0, cards("2C 2D 2H 2S"))
    assert not played(events).revolution and not any(isinstance(e, WentOut) for e in events)


def test_three_sevens_nobody_answers_win_and_answered_they_do_not() -> None:
    """docs/rules.md, `lucky_seven`: the worked example (rich-rich-daifugo's ラッキーセブン,
    "7x3を出したプレイヤー、無敗なら勝利")."""
    rules = LEFT.replace(lucky_seven=True)
    game = game_with(rules, {0: "7C 7D 7H 9C KD", 1: "3C", 2: "4C", 3: "5C"})
    game.apply(0, cards("7C 7D 7H"))
    game.apply(1, PASS)
    game.apply(2, PASS)
    changes = game.changes
    events = game.apply(3, PASS)
    assert WentOut(0, 0) in events and game.place_of(0) == 0
    assert game.changes > changes  # (a place taken on a pass: an observer reads it)
    assert game.card_counts()[0] == 10 and game.turn == 1  # the next seat holding cards leads
    answered = game_with(rules, {0: "7C 7D 7H 9C", 1: "8C 8D 8H"})
    answered.apply(0, cards("7C 7D 7H"))
    answered.apply(1, cards("8C 8D 8H"))
    for seat in (2, 3, 0):
        events = answered.apply(seat, PASS)
    assert not any(isinstance(e, WentOut) for e in events) and answered.place_of(0) is None


# --- down_number -------------------------------------------------------------------------------


def test_the_card_one_rank_weaker_in_the_piles_suit_may_follow_a_single() -> None:
    """docs/rules.md, `down_number`: the worked example (rich-rich-daifugo's ダウンナンバー:
    the same suit, strength one less)."""
    rules = LEFT.replace(down_number=True)
    game = game_with(rules, {0: "9H KC", 1: "8H 8S 7H", 2: "10D"})
    game.apply(0, cards("9H"))
    assert game.is_legal(1, cards("8H"))  # the 8 of hearts on the 9 of hearts
    assert not game.is_legal(1, cards("8S")) and not game.is_legal(1, cards("7H"))
    game.apply(1, cards("8H"))
    assert game.top is not None and game.top.rank == 5 and game.is_legal(2, cards("10D"))
    pair = game_with(rules, {0: "9H 9C", 1: "8H 8C"})
    pair.apply(0, cards("9H 9C"))
    assert not pair.is_legal(1, cards("8H 8C"))  # singles only
    off = game_with(LEFT, {0: "9H", 1: "8H"})
    off.apply(0, cards("9H"))
    assert not off.is_legal(1, cards("8H"))


def test_a_down_number_must_fit_the_lock() -> None:
    # hearts locked; the spade 3 beats the joker whatever the lock; the order reversed by
    # the jack: the 4S is the 3S's down number, but not of the locked suit
    rules = LEFT.replace(
        down_number=True, suit_lock=True, spade_three=True, jack_back=True, jokers=1
    )
    game = game_with(rules, {0: "5H 3S", 1: "6H 4S", 2: "JH", 3: "JK"})
    for seat, text in ((0, "5H"), (1, "6H"), (2, "JH"), (3, "JK"), (0, "3S")):
        game.apply(seat, cards(text))
    assert game.lock == (2,) and game.jack_back
    assert not game.is_legal(1, cards("4S")) and cards("4S") not in game.legal_actions(1)


def test_in_a_revolution_the_down_number_is_one_rank_higher() -> None:
    rules = LEFT.replace(down_number=True, revolution=True)
    game = game_with(rules, {0: "5C 5D 5H 5S 9H", 1: "10H 8H"})
    game.apply(0, cards("5C 5D 5H 5S"))
    for seat in (1, 2, 3):
        game.apply(seat, PASS)
    game.apply(0, cards("9H"))
    assert game.revolution and game.is_legal(1, cards("10H")) and game.is_legal(1, cards("8H"))


# --- five_cut, six_cut, seven_cut ----------------------------------------------------------


@pytest.mark.parametrize(
    ("toggle", "rank"), [("five_cut", "5"), ("six_cut", "6"), ("seven_cut", "7")]
)
def test_in_a_revolution_a_five_six_or_seven_cuts_the_trick(toggle: str, rank: str) -> None:
    """docs/rules.md, `five_cut` (`six_cut`, `seven_cut`): the worked example
    (rich-rich-daifugo's 5切り, 6切り, 7切り: "革命中に5を出すと場が流れる")."""
    rules = LEFT.replace(revolution=True, **{toggle: True})
    game = game_with(rules, {0: "9C 9D 9H 9S 8C", 1: f"{rank}H {rank}S 4C", 2: "3D"})
    game.apply(0, cards("9C 9D 9H 9S"))  # a revolution
    for seat in (1, 2, 3):
        game.apply(seat, PASS)
    game.apply(0, cards("8C"))
    events = game.apply(1, cards(f"{rank}H"))  # legal as ever (lower beats higher now)...
    assert played(events).clears and TrickEnded(1, 1) in events  # ...and it cuts
    ordinary = game_with(rules, {0: "4D", 1: f"{rank}H"})
    ordinary.apply(0, cards("4D"))
    assert not played(ordinary.apply(1, cards(f"{rank}H"))).clears  # not reversed: no cut
    on_a_four = game_with(rules, {0: "9C 9D 9H 9S 4D", 1: f"{rank}H"})
    on_a_four.apply(0, cards("9C 9D 9H 9S"))
    for seat in (1, 2, 3):
        on_a_four.apply(seat, PASS)
    on_a_four.apply(0, cards("4D"))
    assert not on_a_four.is_legal(1, cards(f"{rank}H"))  # a cut must beat the pile first
    off = game_with(LEFT.replace(revolution=True), {0: "9C 9D 9H 9S 8C", 1: f"{rank}H"})
    off.apply(0, cards("9C 9D 9H 9S"))
    for seat in (1, 2, 3):
        off.apply(seat, PASS)
    off.apply(0, cards("8C"))
    assert not played(off.apply(1, cards(f"{rank}H"))).clears


# --- six_return ------------------------------------------------------------------------------


def test_a_six_ends_the_jack_back() -> None:
    """docs/rules.md, `six_return`: the worked example (rich-rich-daifugo's 6戻し, "11バック中
    に6を出すと解除")."""
    rules = LEFT.replace(jack_back=True, six_return=True)
    game = game_with(rules, {0: "9C", 1: "JC", 2: "6H", 3: "7D 5D"})
    game.apply(0, cards("9C"))
    game.apply(1, cards("JC"))
    assert game.jack_back and game.is_legal(2, cards("6H"))  # lower beats higher now
    game.apply(2, cards("6H"))
    assert not game.jack_back  # the 6 ends the jack back: the ordinary order again
    assert game.is_legal(3, cards("7D")) and not game.is_legal(3, cards("5D"))
    off = game_with(LEFT.replace(jack_back=True), {0: "9C", 1: "JC", 2: "6H", 3: "7D 5D"})
    for seat, text in ((0, "9C"), (1, "JC"), (2, "6H")):
        off.apply(seat, cards(text))
    assert off.jack_back and off.is_legal(3, cards("5D")) and not off.is_legal(3, cards("7D"))


# --- gekokujou, catastrophe ------------------------------------------------------------------


def hand_two(rules: Rules, deal: dict[int, str]) -> Game:
    """Hand 2 of a game whose hand 1 finished A B C D (A the President, D the Scum)."""
    game = Game(rules, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {}))
    finish_hand_low(game)
    assert game.finishes[-1] == list("ABCD")
    game.start_hand(dealer=0, deal=full_deal(rules, 4, 1, deal))
    return game


SCUM_FIRST = {0: "7C", 1: "8C", 2: "9C", 3: "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 6C"}


def scum_goes_out_first(rules: Rules) -> Game:
    game = hand_two(rules, SCUM_FIRST)
    for seat, text in ((0, "7C"), (1, "pass"), (2, "pass")):
        game.apply(seat, PASS if text == "pass" else cards(text))
    for text in ("3C 3D 3H 3S", "4C 4D 4H 4S", "5C 5D 5H 5S", "6C"):  # bombs clear
        game.apply(3, cards(text))
    finish_hand_low(game)
    return game


def test_the_scum_going_out_first_turns_every_title_over() -> None:
    """docs/rules.md, `gekokujou`: the worked example (rich-rich-daifugo's 下剋上: "今回の1位が
    前ラウンドの大貧民" then "全員のランクを逆転")."""
    rules = Rules(first_lead="dealer_left", bombs=True, exchange="none", gekokujou=True)
    game = scum_goes_out_first(rules)
    assert game.finishes[-1] == list("DABC")
    game.start_hand(rng=random.Random(3))
    assert game.standing == list("CBAD")  # the last of hand 2 is the President of hand 3
    off = scum_goes_out_first(rules.replace(gekokujou=False))
    off.start_hand(rng=random.Random(3))
    assert off.standing == off.finishes[-1]


def test_a_scum_holding_nothing_above_ten_gives_nothing() -> None:
    """docs/rules.md, `catastrophe`: the worked example (rich-rich-daifugo's 天変地異:
    "貧民/大貧民が10以下のカードのみを持っている場合、交換が免除される")."""
    low = "3C 3D 3H 4C 4D 4H 5C 5D 6C 7C 8C 9C 10C"
    deal = {3: low, 2: "JC 3S 4S 5S 6S 7S 8S 9S 10S 6D 7D 8D 9D"}
    rules = Rules(first_lead="dealer_left", catastrophe=True)
    game = hand_two(rules, deal)
    assert game.pending_returns == {1: (2, 1)}  # only the Vice-Scum gave (the J)
    off = hand_two(rules.replace(catastrophe=False), deal)
    assert off.pending_returns == {0: (3, 2), 1: (2, 1)}


# --- omen --------------------------------------------------------------------------------------


def test_three_sixes_start_the_hands_last_revolution() -> None:
    """docs/rules.md, `omen`: the worked example (rich-rich-daifugo's オーメン, "6x3で革命＋
    以後革命なし", and "オーメン有効時は革命が発動しない")."""
    rules = LEFT.replace(omen=True, revolution=True)
    game = game_with(rules, {0: "6C 6D 6H 9C 9D 9H 9S 4C", 1: "5C"})
    events = game.apply(0, cards("6C 6D 6H"))
    assert played(events).revolution and game.revolution
    for seat in (1, 2, 3):
        game.apply(seat, PASS)
    events = game.apply(0, cards("9C 9D 9H 9S"))  # four of a kind: no revolution now
    assert not played(events).revolution and game.revolution
    # a bot's world rebuilt from the view knows it from the hand's history
    hands = [game.hand_of(s) for s in range(4)]
    fives = list(parse_cards("5C 5D 5H 5S"))
    hands[1] = fives + [c for c in hands[1] if c not in fives][: len(hands[1]) - 4]
    world = Game.from_view(game.view_for(1), hands)
    events = world.apply(1, Play(tuple(fives)))  # four 5s beat four 9s in the revolution
    assert not played(events).revolution and world.revolution
    off = game_with(LEFT.replace(revolution=True), {0: "6C 6D 6H"})
    assert not played(off.apply(0, cards("6C 6D 6H"))).revolution


# --- step_lock ---------------------------------------------------------------------------------


def test_one_rank_up_locks_the_trick_to_the_next_rank() -> None:
    """docs/rules.md, `step_lock`: the worked example (wecraw/daifugo's kaidan: "3-3 then
    4-4 requires 5-5 next"; "a 4 then a 5 requires a 6 next"; a jump of two does not lock)."""
    rules = LEFT.replace(step_lock=True)
    game = game_with(rules, {0: "5C 10C", 1: "6D", 2: "7H 9H", 3: "8S 9S"})
    game.apply(0, cards("5C"))
    game.apply(1, cards("6D"))  # one rank up: the trick is locked to the 7s
    assert game.is_legal(2, cards("7H")) and not game.is_legal(2, cards("9H"))
    problem = game.view_for(2).problem(cards("9H"))
    assert problem is not None and "step_lock" in problem
    game.apply(2, cards("7H"))
    assert [a for a in game.legal_actions(3) if isinstance(a, Play)] == [cards("8S")]
    pairs = game_with(rules, {0: "3C 3D", 1: "4C 4D", 2: "5C 5D 6C 6D"})
    pairs.apply(0, cards("3C 3D"))
    pairs.apply(1, cards("4C 4D"))
    assert pairs.is_legal(2, cards("5C 5D")) and not pairs.is_legal(2, cards("6C 6D"))
    jump = game_with(rules, {0: "3C", 1: "6D", 2: "9H"})
    jump.apply(0, cards("3C"))
    jump.apply(1, cards("6D"))  # two ranks up: no lock
    assert jump.is_legal(2, cards("9H"))
    off = game_with(LEFT, {0: "5C", 1: "6D", 2: "9H"})
    off.apply(0, cards("5C"))
    off.apply(1, cards("6D"))
    assert off.is_legal(2, cards("9H"))


def test_in_a_revolution_the_next_rank_is_the_next_one_down() -> None:
    # wecraw's "locks toward decreasing strength while inverted": a 9 then an 8 needs a 7
    rules = LEFT.replace(step_lock=True, revolution=True)
    game = game_with(rules, {0: "4C 4D 4H 4S 9C", 1: "8D", 2: "7H 3H"})
    game.apply(0, cards("4C 4D 4H 4S"))
    for seat in (1, 2, 3):
        game.apply(seat, PASS)
    game.apply(0, cards("9C"))
    game.apply(1, cards("8D"))
    assert game.is_legal(2, cards("7H")) and not game.is_legal(2, cards("3H"))


# --- colour_lock -------------------------------------------------------------------------------


def test_two_plays_of_one_colour_lock_the_trick_to_it() -> None:
    """docs/rules.md, `colour_lock`: the worked example (rich-rich-daifugo's 色縛り, "同じ色が
    2回連続で赤/黒縛り")."""
    rules = LEFT.replace(colour_lock=True)
    game = game_with(rules, {0: "5H", 1: "7D", 2: "9S 9H", 3: "10D JC"})
    game.apply(0, cards("5H"))
    game.apply(1, cards("7D"))  # red on red: the trick is locked to red
    assert game.is_legal(2, cards("9H")) and not game.is_legal(2, cards("9S"))
    problem = game.view_for(2).problem(cards("9S"))
    assert problem is not None and "colour_lock" in problem
    game.apply(2, cards("9H"))
    assert game.is_legal(3, cards("10D")) and not game.is_legal(3, cards("JC"))
    mixed = game_with(rules, {0: "5H", 1: "7S", 2: "9S"})
    mixed.apply(0, cards("5H"))
    mixed.apply(1, cards("7S"))  # red then black: no lock
    assert mixed.is_legal(2, cards("9S"))
    off = game_with(LEFT, {0: "5H", 1: "7D", 2: "9S"})
    off.apply(0, cards("5H"))
    off.apply(1, cards("7D"))
    assert off.is_legal(2, cards("9S"))


# --- nine_reverse, queen_reverse, king_reverse ---------------------------------------------------


def test_a_nine_turns_the_direction_of_play() -> None:
    """docs/rules.md, `nine_reverse`: the worked example (rich-rich-daifugo's 9リバース, "9を
    出すとターン順が逆転する": the turn goes the other way round from the play on)."""
    rules = LEFT.replace(nine_reverse=True)
    deal = {0: "5C KD 6H", 1: "9H 7D", 2: "4C AS", 3: "JC QD"}
    game = game_with(rules, deal)
    game.apply(0, cards("5C"))
    game.apply(1, cards("9H"))
    assert game.backwards and game.turn == 0  # anticlockwise: ann, not cat
    assert game.public_view().backwards and game.view_for(2).backwards  # every seat sees it
    game.apply(0, cards("KD"))
    assert game.turn == 3
    for seat in (3, 2):
        game.apply(seat, PASS)
    assert TrickEnded(0, 0) in game.apply(1, PASS)
    game.apply(0, cards("6H"))
    assert game.turn == 3 and game.backwards  # the next trick goes anticlockwise too
    off = game_with(LEFT, deal)
    off.apply(0, cards("5C"))
    off.apply(1, cards("9H"))
    assert not off.backwards and off.turn == 2


def test_a_queen_or_a_king_turns_the_direction_too() -> None:
    """docs/rules.md, `queen_reverse` and `king_reverse`: their worked examples
    (rich-rich-daifugo's Qリバース and Kリバース, "Qを出すと席順が逆転")."""
    deal = {0: "5C KD", 1: "QH 9H", 2: "4C AS", 3: "JC 3D"}
    queen = game_with(LEFT.replace(queen_reverse=True), deal)
    queen.apply(0, cards("5C"))
    queen.apply(1, cards("QH"))
    assert queen.backwards and queen.turn == 0
    queen.apply(0, PASS)
    assert queen.turn == 3
    both = game_with(LEFT.replace(nine_reverse=True, king_reverse=True), deal)
    both.apply(0, cards("5C"))
    both.apply(1, cards("9H"))
    both.apply(0, cards("KD"))  # the king turns it back: clockwise, bob next
    assert not both.backwards and both.turn == 1


def test_the_skips_and_the_hand_over_go_the_way_of_play() -> None:
    """Everything that goes "to the next seat" follows the direction (docs/rules.md,
    `nine_reverse`): after a 9, a 5 skips the seat anticlockwise and a 7 hands over to
    it; the direction lives on in a copy, a pickle and a world rebuilt from a view."""
    rules = LEFT.replace(nine_reverse=True, five_skip=True, seven_pass=True)
    game = game_with(rules, {0: "9C", 1: "10C", 2: "5D 7S 4D", 3: "JC 4C 6C"})
    game.apply(0, cards("9C"))  # anticlockwise from here: dan, cat, bob, ann
    game.apply(3, cards("JC"))
    for seat in (2, 1, 0):
        game.apply(seat, PASS)
    game.apply(3, cards("4C"))
    rebuilt = Game.from_view(game.view_for(2), [game.hand_of(s) for s in range(4)])
    for world in (game.clone(), pickle.loads(pickle.dumps(game)), rebuilt):
        assert world.backwards and world.turn == 2
        assert Skipped(1) in world.apply(2, cards("5D"))  # bob, the next seat this way
        assert world.turn == 0
    game.apply(2, cards("7S"))  # on the 4C: cat owes bob a card
    events = game.apply(2, Handover(parse_cards("4D")))
    assert HandedOver(2, 1, 1, tuple(parse_cards("4D"))) in events and game.turn == 1


# --- scaled_exchange ---------------------------------------------------------------------------


def gives_of_hand_two(rules: Rules, players: int) -> tuple[Game, list[tuple[str, str, int]]]:
    """Hand 2 dealt at a table of `players`: (the game, each give as (giver, receiver,
    cards), names)."""
    game = Game(rules, list("ABCDEFGH"[:players]))
    game.start_hand(rng=random.Random(players))
    finish_hand_low(game)
    events = game.start_hand(rng=random.Random(players + 1))
    names = game.seating
    return game, [
        (names[e.giver], names[e.receiver], e.size) for e in events if isinstance(e, Gave)
    ]


def test_the_exchange_scales_with_the_table() -> None:
    """docs/rules.md, `scaled_exchange`: the worked example (wecraw/daifugo's specification, §4.2,
    "count(i) = floor(N / 2) - i + 1", and its table of worked results for 3 to 8)."""
    rules = LEFT.replace(scaled_exchange=True)
    for players, counts in {3: [1], 4: [2, 1], 5: [2, 1], 6: [3, 2, 1], 8: [4, 3, 2, 1]}.items():
        game, gives = gives_of_hand_two(rules, players)
        top = game.standing or []
        assert gives == [(top[-1 - i], top[i], n) for i, n in enumerate(counts)], players
        assert sorted(size for _, size in game.pending_returns.values()) == sorted(counts)
        while game.phase is Phase.EXCHANGE:  # each receiver returns as many, its lowest
            seat = game.actor
            assert seat is not None
            size = game.pending_returns[seat][1]
            game.apply(seat, Return(game.hand_of(seat)[:size]))
        assert game.phase is Phase.PLAY
    _, plain = gives_of_hand_two(LEFT, 6)  # exchange = "two_one": 2 and 1, whatever the size
    assert [size for _, _, size in plain] == [2, 1]


# --- emperor -----------------------------------------------------------------------------------


def test_an_emperor_starts_a_revolution_and_only_an_emperor_answers_it() -> None:
    """docs/rules.md, `emperor`: the worked example (rich-rich-daifugo's エンペラー, "4種マーク
    連番でエンペラーが発動", and "通常の階段（同じスートの連番4枚）ではエンペラーが発動しない")."""
    rules = LEFT.replace(emperor=True, sequences=True)
    deal = {0: "6S 7H 8D 9C", 1: "3S 4D 5H 6C", 2: "JH QH KH AH", 3: "10S 10C"}
    game = game_with(rules, deal)
    assert game.view_for(0).problem(cards("6S 7H 8D 9C")) is None
    events = game.apply(0, cards("6S 7H 8D 9C"))
    assert played(events).revolution and game.revolution  # the emperor revolts
    assert not game.is_legal(1, cards("3S 4D 5H"))  # not an emperor: no play at all
    game.apply(1, cards("3S 4D 5H 6C"))  # a lower emperor: stronger, the order reversed
    assert not game.revolution  # and it ends the revolution
    problem = game.view_for(2).problem(cards("JH QH KH AH"))
    assert problem is not None and "only an emperor answers an emperor (emperor)" in problem
    run = game_with(rules, {0: "5H 6H 7H 8H", 1: "6S 7C 8D 9H"})
    run.apply(0, cards("5H 6H 7H 8H"))  # a sequence of one suit is no emperor
    assert not run.revolution and not run.is_legal(1, cards("6S 7C 8D 9H"))
    off = game_with(LEFT.replace(sequences=True), deal)
    assert not off.is_legal(0, cards("6S 7H 8D 9C"))


# --- four_stop ---------------------------------------------------------------------------------


def test_as_many_fours_stop_an_eight_cut_and_passes_let_it_clear() -> None:
    """docs/rules.md, `four_stop`: the worked example (rich-rich-daifugo's 4止め, "8切り
    Pending時に4x2で4止めが発動", and "8切りPendingでない時は4止めが発動しない")."""
    rules = LEFT.replace(clear_rank=8, four_stop=True)
    deal = {0: "5C 5D 3H", 1: "8C 8D 9H", 2: "4C 4H 6D", 3: "4D 7H 7S"}
    game = game_with(rules, deal)
    game.apply(0, cards("5C 5D"))
    events = game.apply(1, cards("8C 8D"))
    assert not played(events).clears and game.turn == 2  # the cut waits
    problem = game.view_for(2).problem(cards("6D"))
    assert problem is not None and "four_stop" in problem
    assert not game.is_legal(2, cards("4C"))  # as many 4s as 8s
    game.apply(2, cards("4C 4H"))  # stopped: the 4s are the pile, play goes on
    assert game.top is not None and game.top.rank == 1 and game.turn == 3
    assert game.is_legal(3, cards("7H 7S"))
    cut = game_with(rules, deal)
    cut.apply(0, cards("5C 5D"))
    cut.apply(1, cards("8C 8D"))
    for seat in (2, 3):
        cut.apply(seat, PASS)
    assert TrickEnded(1, 1) in cut.apply(0, PASS)  # nobody stopped it: the 8s clear
    fours = game_with(rules, {0: "4C 4H", 1: "6C 6D"})  # no cut waiting: 4s are 4s
    fours.apply(0, cards("4C 4H"))
    assert fours.is_legal(1, cards("6C 6D"))
    off = game_with(LEFT.replace(clear_rank=8), deal)
    off.apply(0, cards("5C 5D"))
    assert TrickEnded(1, 1) in off.apply(1, cards("8C 8D"))  # an 8-cut clears at once


def test_a_hand_over_goes_to_the_next_seat_in_the_direction_of_play() -> None:
    """`PublicView.next_holding`, what a screen names as a hand-over's receiver, is the
    seat the engine hands the cards to, clockwise or anticlockwise (nine_reverse with
    seven_pass, random games until both directions have handed over)."""
    rules = Rules(nine_reverse=True, seven_pass=True)
    rng, seen = random.Random(5), set()
    for _ in range(40):
        game = Game(rules, ["a", "b", "c", "d", "e"])
        game.start_hand(rng=rng)
        while game.phase is Phase.PLAY:
            seat, before = game.actors[0], game.public_view()
            for event in game.apply(seat, rng.choice(game.legal_actions(seat))):
                if isinstance(event, HandedOver):
                    assert event.receiver == before.next_holding(event.giver)
                    seen.add(before.backwards)
        if seen == {False, True}:
            break
    assert seen == {False, True}, seen


# --- salvage -------------------------------------------------------------------------------


def test_a_three_that_ends_a_trick_takes_a_card_played_back() -> None:
    """docs/rules.md, `salvage`: the worked example (rich-rich-daifugo's サルベージ, "3で場が
    流れた時に捨て札から1枚回収"): the 3's player owes a take before leading, a card comes
    back once a hand, and nothing is owed without the toggle."""
    rules = LEFT.replace(salvage=True)
    deal = {0: "6D", 1: "9C", 2: "2S 3H 3S"}
    game = game_with(rules, deal)
    play(game, "0 6D", "1 9C", "2 2S", "3 pass", "0 pass", "1 pass")
    assert game.due is None and game.turn == 2  # a 2 ended it: nothing to take
    events = play(game, "2 3H", "3 pass", "0 pass", "1 pass")
    assert TrickEnded(2, 2) in events and game.turn == 2
    due = game.view_for(2).due
    assert due is not None and (due.kind, due.size) == ("salvage", 1)
    assert due.cards == tuple(parse_cards("3H 6D 9C 2S"))  # the cards played, lowest first
    problem = game.view_for(2).problem(cards("4C"))
    assert problem is not None and "(salvage)" in problem
    assert not game.is_legal(2, Take(parse_cards("4C")))  # not among the cards played
    assert Took(2, 2, tuple(parse_cards("2S"))) in game.apply(2, Take(parse_cards("2S")))
    assert "2S" in map(str, game.hand_of(2)) and game.due is None and game.turn == 2
    assert "2S" not in map(str, game.public_view().played)
    play(game, "2 2S", "3 pass", "0 pass", "1 pass")  # led again: it stays out now
    play(game, "2 3S", "3 pass", "0 pass", "1 pass")
    due = game.view_for(2).due
    assert due is not None and "2S" not in map(str, due.cards)
    off = game_with(LEFT, deal)
    play(off, "0 6D", "1 9C", "2 2S", "3 pass", "0 pass", "1 pass")
    play(off, "2 3H", "3 pass", "0 pass", "1 pass")
    assert off.due is None and off.turn == 2 and cards("3S") in off.legal_actions(2)


# --- kings_march ---------------------------------------------------------------------------


def test_kings_take_as_many_cards_played_back() -> None:
    """docs/rules.md, `kings_march`: the worked example (rich-rich-daifugo's キングの行進,
    "Kを出すと枚数分捨て札から回収"): a pair of Ks owes two takes, from the finished
    tricks' cards only (not the trick in progress), before play goes on."""
    rules = LEFT.replace(kings_march=True)
    deal = {0: "6D KC KD", 1: "9C AS", 2: "2S 5H 5S", 3: "4C"}
    game = game_with(rules, deal)
    play(game, "0 6D", "1 9C", "2 2S", "3 pass", "0 pass", "1 pass")
    play(game, "2 5H 5S", "3 pass", "0 KC KD")
    due = game.view_for(0).due
    assert due is not None and (due.kind, due.size) == ("march", 2)
    assert due.cards == tuple(parse_cards("6D 9C 2S"))  # not the 5s nor the Ks on the pile
    assert not game.is_legal(0, Take(parse_cards("5H")))
    problem = game.view_for(0).problem(PASS)
    assert problem is not None and "(kings_march)" in problem
    game.apply(0, Take(parse_cards("2S")))
    assert game.turn == 0 and game.due is not None and game.due.size == 1
    game.apply(0, Take(parse_cards("9C")))
    assert game.due is None and game.turn == 1  # play goes on: bob answers the Ks
    assert {"2S", "9C"} <= set(map(str, game.hand_of(0)))
    off = game_with(LEFT, deal)
    play(off, "0 6D", "1 9C", "2 2S", "3 pass", "0 pass", "1 pass", "2 5H 5S", "3 pass")
    play(off, "0 KC KD")
    assert off.due is None and off.turn == 1


# --- zombie --------------------------------------------------------------------------------


def test_three_threes_give_the_next_player_a_card_played() -> None:
    """docs/rules.md, `zombie`: the worked example (rich-rich-daifugo's ゾンビ, "3x3で捨て札
    から任意カードを次のプレイヤーに渡す"): one card, whatever the count, into the next
    seat's hand, before that seat answers the 3s; two 3s do nothing."""
    rules = LEFT.replace(zombie=True)
    deal = {0: "6D 2S 3C 3D 3H", 1: "9C AS", 2: "5H", 3: "4C 4D 4H"}
    game = game_with(rules, deal)
    play(game, "0 6D", "1 9C", "2 pass", "3 pass", "0 2S", "1 pass", "2 pass", "3 pass")
    play(game, "0 3C 3D 3H")
    due = game.view_for(0).due
    assert due is not None and (due.kind, due.size) == ("zombie", 1)
    assert due.cards == tuple(parse_cards("6D 9C 2S"))
    problem = game.view_for(0).problem(PASS)
    assert problem is not None and "give the next player a card" in problem
    assert Took(0, 1, tuple(parse_cards("6D"))) in game.apply(0, Take(parse_cards("6D")))
    assert "6D" in map(str, game.hand_of(1)) and game.due is None and game.turn == 1
    assert game.public_view().taken == tuple(parse_cards("6D"))
    pair = game_with(rules, {0: "6D 2S 3C 3D", 1: "9C AS", 2: "5H", 3: "4C 4D 4H"})
    play(pair, "0 6D", "1 9C", "2 pass", "3 pass", "0 2S", "1 pass", "2 pass", "3 pass")
    play(pair, "0 3C 3D")
    assert pair.due is None and pair.turn == 1  # a pair of 3s gives nothing
    off = game_with(LEFT, deal)
    play(off, "0 6D", "1 9C", "2 pass", "3 pass", "0 2S", "1 pass", "2 pass", "3 pass")
    play(off, "0 3C 3D 3H")
    assert off.due is None and off.turn == 1


# --- queen_bomber --------------------------------------------------------------------------


def test_a_queen_names_a_rank_everyone_discards() -> None:
    """docs/rules.md, `queen_bomber`: the worked example (rich-rich-daifugo's クイーンボンバー,
    "Q1枚ごとに1つのランクを選択し、全員がそのランクのカードをすべて捨てる"): bob's Q names
    the 7s, every seat still holding cards discards its 7s face up, bob first and then
    round the table, and cat answers the Q."""
    rules = LEFT.replace(queen_bomber=True)
    deal = {0: "5C 7C", 1: "QH 7D 9S", 2: "7H 7S 8C", 3: "4C"}
    game = game_with(rules, deal)
    play(game, "0 5C", "1 QH")
    due = game.view_for(1).due
    assert due is not None and (due.kind, due.size) == ("bomb", 1)
    assert len(game.legal_actions(1)) == 13  # any rank, 3 to 2
    problem = game.view_for(1).problem(PASS)
    assert problem is not None and "(queen_bomber)" in problem
    events = game.apply(1, Bomb.parse("7"))
    assert events == [
        Bombed(1, 4),
        Discarded(1, tuple(parse_cards("7D"))),
        Discarded(2, tuple(parse_cards("7H 7S"))),
        Discarded(0, tuple(parse_cards("7C"))),
    ]
    assert game.due is None and game.turn == 2
    assert not any(card.rank == 4 for seat in range(4) for card in game.hand_of(seat))
    off = game_with(LEFT, deal)
    play(off, "0 5C", "1 QH")
    assert off.due is None and off.turn == 2


def test_the_peers_queen_bomber_scenarios() -> None:
    """rich-rich-daifugo's QueenBomber.test.ts, translated (small hands, as the peer's: a
    world rebuilt from a view): a seat without the rank named discards nothing
    ("カードを持っていないプレイヤーはスキップできる"); a seat already out is left alone
    ("上がっているプレイヤーはスキップされる"); a Q that is its player's last card empties
    the hand ("全員が手札を持っていない場合でも動作する": there the player still names a
    rank nobody holds; here a player who went out owes nothing, docs/rules.md)."""
    rules = LEFT.replace(queen_bomber=True)

    def small(hands: str) -> Game:
        held = [list(parse_cards(h.split())) for h in hands.split(" / ")]
        view = game_with(rules, {}).view_for(0)
        counts = tuple(len(h) for h in held)
        return Game.from_view(view._replace(counts=counts, hand=tuple(held[0])), held)

    # ann goes out first on her 2; bob's Q names the 3s: cat and dan discard theirs,
    # bob holds none, ann (out) is not asked
    game = small("2S / 4D QS KH / 3S 5D 6D / 3C 6S 8D")
    play(game, "0 2S")
    assert game.place_of(0) == 0
    play(game, "1 pass", "2 pass", "3 pass", "1 QS")
    events = game.apply(1, Bomb.parse("3"))
    assert [e for e in events if isinstance(e, Discarded)] == [
        Discarded(2, tuple(parse_cards("3S"))),
        Discarded(3, tuple(parse_cards("3C"))),
    ]
    assert [len(game.hand_of(s)) for s in range(4)] == [0, 2, 2, 2]
    # a Q as its player's last card: out at once, no rank to name
    last = small("QS / 3S 4C / 3H 5D / 3C 6S")
    events = last.apply(0, cards("QS"))
    assert last.place_of(0) == 0 and last.due is None and last.turn == 1
    assert not any(isinstance(e, Bombed) for e in events)

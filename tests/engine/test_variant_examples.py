"""The worked examples of docs/rules.md for the variants and the Daifugo family, one test
each (the docs cite them by name): each plays the example's situation on a fixed deal and
checks the outcome the text states, with the toggle off where that shows what it changes."""

from __future__ import annotations

from typing import Any

import pytest
from president.engine import (
    PASS,
    Action,
    Discard,
    Discarded,
    Due,
    Fell,
    Game,
    HandedOver,
    Handover,
    IllegalAction,
    Play,
    Rules,
    RulesError,
    Skipped,
    TrickEnded,
    WentOut,
    parse_cards,
    rules_from,
)

from .helpers import finish_hand_low, full_deal, game_with

BASE = rules_from({"preset": "classic", "first_lead": "dealer_left"})  # seat 0 leads hand 1

# Suits as the engine numbers them (card id = rank * 4 + suit).
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def rules(**toggles: Any) -> Rules:
    return BASE.replace(**toggles)


def rank(text: str) -> int:
    """The engine's rank number of a rank written as on a card (3 is 0, 2 is 12)."""
    return parse_cards([text + "C"])[0].rank


def action(text: str) -> Action:
    """ "pass", "handover 3H", "discard 4S 6H" or the cards of a play."""
    kind, _, cards = text.partition(" ")
    if text == "pass":
        return PASS
    if kind == "handover":
        return Handover(parse_cards(cards))
    if kind == "discard":
        return Discard(parse_cards(cards))
    return Play(parse_cards(text))


def play(game: Game, *steps: str) -> list[object]:
    """Apply steps written like "0 6C 6D", "1 pass", "2 handover 3H": seat first."""
    events: list[object] = []
    for step in steps:
        seat, _, rest = step.partition(" ")
        events += game.apply(int(seat), action(rest))
    return events


def refused(game: Game, seat: int, text: str) -> str:
    with pytest.raises(IllegalAction) as info:
        game.check(seat, action(text))
    return str(info.value)


def trick_ended(events: list[object]) -> tuple[int, int] | None:
    ended = [e for e in events if isinstance(e, TrickEnded)]
    return (ended[-1].winner, ended[-1].leader) if ended else None


# --- sequences and the suit lock -------------------------------------------------------


def test_a_sequence_trick_locked_to_its_suit() -> None:
    given = {0: "4H 5H 6H", 1: "7H 8H 9H", 2: "9S 10S JS", 3: "10H JH QH"}
    game = game_with(rules(sequences=True, suit_lock=True), given)
    play(game, "0 4H 5H 6H")
    assert game.lock == ()  # a lead locks nothing
    play(game, "1 7H 8H 9H")
    assert game.top is not None
    assert (game.top.run, game.top.rank, game.top.size) == (True, rank("7"), 3)
    assert game.lock == (HEARTS, HEARTS, HEARTS)
    assert game.public_view().lock == (HEARTS, HEARTS, HEARTS)
    refused(game, 2, "9S 10S JS")  # higher, but not hearts
    events = play(game, "2 pass", "3 10H JH QH", "0 pass", "1 pass", "2 pass")
    assert trick_ended(events) == (3, 3)
    assert game.lock == ()
    # Without the lock the spades sequence beats the hearts one.
    free = game_with(rules(sequences=True), given)
    play(free, "0 4H 5H 6H", "1 7H 8H 9H", "2 9S 10S JS")
    assert free.lock == ()


def test_sequences_answer_only_sequences_of_their_length() -> None:
    given = {0: "4H 5H 6H", 1: "7C 8C 9C 10C 9D 9H"}
    game = game_with(rules(sequences=True), given)
    play(game, "0 4H 5H 6H")
    for text in ("7C 8C 9C 10C", "9D", "9D 9H"):
        refused(game, 1, text)
    assert Play(parse_cards("7C 8C 9C")) in game.legal_actions(1)
    play(game, "1 7C 8C 9C")
    # Without sequences, three cards of a row are not a play at all.
    plain = game_with(BASE, given)
    refused(plain, 0, "4H 5H 6H")
    # No wrap-around (2 3 4), and no gap without a wild joker; K A 2 is a sequence.
    wrap = game_with(rules(sequences=True), {0: "2D 3D 4D 6D 7D KS AS 2S"})
    refused(wrap, 0, "2D 3D 4D")
    refused(wrap, 0, "4D 6D 7D")
    play(wrap, "0 KS AS 2S")


def test_an_eight_inside_a_sequence_cuts_the_trick() -> None:
    given = {0: "4D 5D 6D", 1: "7C 8C 9C", 2: "6S 7S 8S"}
    game = game_with(rules(sequences=True, clear_rank=8), given)
    events = play(game, "0 4D 5D 6D", "1 7C 8C 9C")
    assert trick_ended(events) == (1, 1)
    assert game.turn == 1 and game.top is None
    # The cut must still be a legal sequence play: 6-7-8 does not beat 7-8-9 ...
    again = game_with(rules(sequences=True, clear_rank=8), {0: "7C 8C 9C", 1: "6S 7S 8S"})
    play(again, "0 7C 8C 9C")  # (a led cut clears at once: seat 0 leads again)
    assert again.turn == 0 and again.top is None
    # ... and without clear_rank the same sequence is an ordinary one.
    plain = game_with(rules(sequences=True), given)
    assert trick_ended(play(plain, "0 4D 5D 6D", "1 7C 8C 9C")) is None


# --- jack back ---------------------------------------------------------------------------


def test_jack_back_inside_a_revolution() -> None:
    given = {0: "6C 6D 6H 6S KC", 1: "JD", 2: "4C QC", 3: "AC"}
    game = game_with(rules(revolution=True, jack_back=True), given)
    play(game, "0 6C 6D 6H 6S", "1 pass", "2 pass", "3 pass")
    assert game.revolution and game.turn == 0
    play(game, "0 KC", "1 JD")  # in the revolution a J beats a K
    assert game.revolution and game.jack_back
    assert not game.public_view().reversed  # both on: the ordinary order, for this trick
    refused(game, 2, "4C")
    events = play(game, "2 QC", "3 AC", "0 pass", "1 pass", "2 pass")
    assert trick_ended(events) == (3, 3)
    assert game.revolution and not game.jack_back
    # Without jack back the Q would not beat the J in the revolution.
    plain = game_with(rules(revolution=True), given)
    play(plain, "0 6C 6D 6H 6S", "1 pass", "2 pass", "3 pass", "0 KC", "1 JD")
    refused(plain, 2, "QC")


# --- 7-pass and 10-discard -----------------------------------------------------------------


def test_a_seven_passes_and_a_ten_discards() -> None:
    given = {0: "5C", 1: "7D 3H", 2: "10S 4S", 3: "KD"}
    game = game_with(rules(seven_pass=True, ten_discard=True), given)
    play(game, "0 5C", "1 7D")
    assert game.turn == 1 and game.due == Due("handover", 1)
    assert game.view_for(1).due == Due("handover", 1)
    refused(game, 1, "pass")
    held = set(map(str, game.hand_of(1)))
    assert {str(a.cards[0]) for a in game.legal_actions(1)} == held
    assert all(isinstance(a, Handover) and len(a.cards) == 1 for a in game.legal_actions(1))
    events = play(game, "1 handover 3H")
    assert HandedOver(1, 2, 1, tuple(parse_cards("3H"))) in events
    assert "3H" in map(str, game.hand_of(2)) and game.due is None and game.turn == 2
    play(game, "2 10S")
    assert game.turn == 2 and game.due == Due("discard", 1)
    events = play(game, "2 discard 4S")
    assert Discarded(2, tuple(parse_cards("4S"))) in events
    assert "4S" not in map(str, game.hand_of(2))
    assert "4S" in map(str, game.public_view().played)
    assert "4S" not in [str(c) for _, p in game.public_view().trick for c in p.cards]
    events = play(game, "3 KD", "0 pass", "1 pass", "2 pass")
    assert trick_ended(events) == (3, 3)
    # Without the toggles a 7 and a 10 owe nothing.
    plain = game_with(BASE, given)
    play(plain, "0 5C", "1 7D", "2 10S")
    assert plain.due is None and plain.turn == 3


def test_a_sequence_with_a_seven_and_a_ten_hands_over_first() -> None:
    game = game_with(
        rules(sequences=True, seven_pass=True, ten_discard=True), {0: "7H 8H 9H 10H 3C 3D"}
    )
    play(game, "0 7H 8H 9H 10H")
    assert game.due == Due("handover", 1)
    refused(game, 0, "discard 3C")
    play(game, "0 handover 3C")
    assert game.due == Due("discard", 1) and game.turn == 0
    play(game, "0 discard 3D")
    assert game.due is None and game.turn == 1


def test_the_timeout_rule_pays_a_due_with_the_lowest_cards() -> None:
    game = game_with(rules(seven_pass=True), {0: "5C 5D", 1: "7D 7H 3H 2S"})
    play(game, "0 5C 5D", "1 7D 7H")
    assert game.due == Due("handover", 2)  # paid one card at a time
    refused(game, 1, "handover 3H 2S")
    lowest = sorted(game.hand_of(1), key=lambda c: (c.rank, c.suit))[:2]
    assert game.timeout_action(1) == Handover(lowest[:1])
    game.apply(1, game.timeout_action(1))
    assert game.due == Due("handover", 1)
    assert game.timeout_action(1) == Handover(lowest[1:])


# --- 5-skip --------------------------------------------------------------------------------


def test_five_skip_reaching_everyone_ends_the_trick() -> None:
    given = {0: "3C 5C 5D 5H", 1: "5S", 3: "9D 4C 4D 4H"}
    game = game_with(rules(five_skip=True), given)
    events = play(game, "0 3C", "1 5S")
    assert Skipped(2) in events and game.turn == 3
    events = play(game, "3 9D", "0 pass", "1 pass", "2 pass")
    assert trick_ended(events) == (3, 3)
    events = play(game, "3 4C 4D 4H", "0 5C 5D 5H")
    assert [e for e in events if isinstance(e, Skipped)] == [Skipped(1), Skipped(2), Skipped(3)]
    assert trick_ended(events) == (0, 0)
    assert game.turn == 0 and game.top is None
    # Without five_skip a 5 is an ordinary card.
    plain = game_with(BASE, given)
    play(plain, "0 3C", "1 5S")
    assert plain.turn == 2


def test_a_play_of_sevens_and_a_five_hands_over_before_it_skips() -> None:
    game = game_with(
        rules(sequences=True, seven_pass=True, five_skip=True), {0: "5H 6H 7H 3C", 1: "4S"}
    )
    events = play(game, "0 5H 6H 7H")
    assert game.due == Due("handover", 1) and not [e for e in events if isinstance(e, Skipped)]
    events = play(game, "0 handover 3C")
    kinds = [type(e) for e in events if isinstance(e, HandedOver | Skipped)]
    assert kinds == [HandedOver, Skipped]
    assert HandedOver(0, 1, 1, tuple(parse_cards("3C"))) in events  # B receives, then misses
    assert Skipped(1) in events and game.turn == 2


# --- spade 3 ---------------------------------------------------------------------------------


def test_the_spade_three_beats_a_lone_joker() -> None:
    given = {0: "9C", 1: "JK", 2: "3S 3H", 3: "4D"}
    game = game_with(rules(jokers=1, spade_three=True), given)
    play(game, "0 9C", "1 JK")
    refused(game, 2, "3H")
    play(game, "2 3S")
    assert game.top is not None and (game.top.rank, game.top.size) == (rank("3"), 1)
    events = play(game, "3 4D", "0 pass", "1 pass", "2 pass")
    assert trick_ended(events) == (3, 3)
    plain = game_with(rules(jokers=1), given)
    play(plain, "0 9C", "1 JK")
    refused(plain, 2, "3S")


# --- capital fall and forbidden finishes ------------------------------------------------------


def hand_two(r: Rules, deal: dict[int, str]) -> Game:
    """Hand 2 of a game whose hand 1 finished A B C D (A the President); A deals hand 2."""
    game = Game(r, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(r, 4, 0, {}))
    finish_hand_low(game)
    assert game.finishes[-1] == list("ABCD")
    game.start_hand(dealer=0, deal=full_deal(r, 4, 1, deal))
    return game


def test_capital_fall() -> None:
    r = rules(capital_fall=True, bombs=True, exchange="none")
    deal = {0: "7C", 1: "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 6C", 2: "9C"}
    game = hand_two(r, deal)
    assert game.turn == 0  # the President leads
    events = play(game, "0 7C", "1 3C 3D 3H 3S", "1 4C 4D 4H 4S", "1 5C 5D 5H 5S", "1 6C")
    assert WentOut(1, 0) in events and Fell(0, 3) in events
    assert game.turn == 2 and len(game.hand_of(0)) == 12  # A's cards stay, out of play
    events = play(game, "2 9C", "3 pass")
    assert trick_ended(events) == (2, 2)  # A is not asked
    finish_hand_low(game)
    assert game.finishes[-1][0] == "B" and game.finishes[-1][-1] == "A"
    # Without capital_fall the President plays on.
    plain = hand_two(rules(bombs=True, exchange="none"), deal)
    events = play(plain, "0 7C", "1 3C 3D 3H 3S", "1 4C 4D 4H 4S", "1 5C 5D 5H 5S", "1 6C")
    assert not [e for e in events if isinstance(e, Fell)] and plain.turn == 2


def test_a_forbidden_finish_takes_the_worst_place() -> None:
    given = {0: "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 2C"}
    game = game_with(rules(forbidden_finishes=True, bombs=True), given)
    events = play(game, "0 3C 3D 3H 3S", "0 4C 4D 4H 4S", "0 5C 5D 5H 5S", "0 2C")
    assert WentOut(0, 3) in events
    events = play(game, "1 pass", "2 pass", "3 pass")
    assert trick_ended(events) == (0, 1)
    plain = game_with(rules(bombs=True), given)
    events = play(plain, "0 3C 3D 3H 3S", "0 4C 4D 4H 4S", "0 5C 5D 5H 5S", "0 2C")
    assert WentOut(0, 0) in events


def test_going_out_by_paying_a_due_is_not_forbidden() -> None:
    r = rules(forbidden_finishes=True, ten_discard=True, bombs=True)
    game = game_with(r, {0: "3C 3D 3H 3S 10C 10D 2C"}, players=8, dealer=7)
    play(game, "0 3C 3D 3H 3S", "0 10C 10D")
    assert game.due == Due("discard", 1)  # two 10s, but one card left
    events = play(game, "0 discard 2C")
    assert WentOut(0, 0) in events


# --- the President variants ------------------------------------------------------------------


def test_transparent_threes_keep_the_rank_they_cover() -> None:
    given = {0: "9C 9D", 1: "3C 3D", 2: "8H 8S 10H 10S"}
    game = game_with(rules(transparent_threes=True), given)
    play(game, "0 9C 9D", "1 3C 3D")
    assert game.top is not None
    assert (game.top.owner, game.top.rank, game.top.size) == (1, rank("9"), 2)
    assert game.top.suits == (CLUBS, DIAMONDS)
    refused(game, 2, "8H 8S")
    play(game, "2 10H 10S")
    plain = game_with(BASE, given)
    play(plain, "0 9C 9D")
    refused(plain, 1, "3C 3D")
    # A transparent play never skips under equal_plays = skip.
    skip = game_with(rules(transparent_threes=True, equal_plays="skip"), given)
    events = play(skip, "0 9C 9D", "1 3C 3D")
    assert not [e for e in events if isinstance(e, Skipped)] and skip.turn == 2


def test_a_lead_of_threes_is_just_threes() -> None:
    game = game_with(rules(transparent_threes=True), {0: "3C 3D", 1: "4H 4S"})
    play(game, "0 3C 3D")
    assert game.top is not None and game.top.rank == rank("3")
    play(game, "1 4H 4S")


def test_suit_ranking_breaks_a_tie_within_a_rank() -> None:
    given = {0: "9D", 1: "9S", 2: "9H 10C", 3: "10H"}
    game = game_with(rules(suit_ranking=True), given)
    play(game, "0 9D", "1 9S")
    refused(game, 2, "9H")
    events = play(game, "2 10C", "3 10H", "0 pass", "1 pass", "2 pass")
    assert trick_ended(events) == (3, 3)
    plain = game_with(BASE, given)
    play(plain, "0 9D")
    refused(plain, 1, "9S")
    # Pairs compare their highest suits: C S beats D H.
    pairs = game_with(rules(suit_ranking=True), {0: "9D 9H", 1: "9C 9S"})
    play(pairs, "0 9D 9H", "1 9C 9S")


def test_suit_ranking_with_equal_plays_is_refused() -> None:
    for value in ("allow", "skip"):
        with pytest.raises(RulesError, match="suit_ranking"):
            rules(suit_ranking=True, equal_plays=value)
    with pytest.raises(RulesError, match="suit_ranking"):
        rules_from({"preset": "classic", "suit_ranking": True, "equal_plays": "allow"})


def test_one_time_around_the_last_play_takes_the_trick() -> None:
    given = {0: "4C 5D", 1: "6C KD", 2: "7C", 3: "9C"}
    game = game_with(rules(one_time_around=True), given)
    play(game, "0 4C", "1 pass", "2 7C")
    events = play(game, "3 9C")
    assert trick_ended(events) == (3, 3)  # A led and B passed: nobody may act again
    plain = game_with(BASE, given)
    play(plain, "0 4C", "1 pass", "2 7C", "3 9C")
    assert plain.turn == 0 and plain.top is not None


def test_a_joker_never_starts_a_lock() -> None:
    r = rules(suit_lock=True, jokers=1, joker_mode="wild")
    given = {0: "9H 9S", 1: "10H JK", 2: "JH JS", 3: "QH QS"}
    game = game_with(r, given)
    play(game, "0 9H 9S", "1 10H JK")
    assert game.lock == ()
    play(game, "2 JH JS")
    assert game.lock == ()  # the pile it beat held a joker
    play(game, "3 QH QS")
    assert game.lock == (HEARTS, SPADES)

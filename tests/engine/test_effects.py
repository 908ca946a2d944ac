"""The effects of plays under the Daifugo family and the variants (docs/rules.md, "How
toggles combine"): dues paid by the same seat before play goes on, 5-skips, one time
around, capital fall and forbidden finishes, in the order the rules give."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from president.engine import (
    PASS,
    Discard,
    Discarded,
    Due,
    Fell,
    Game,
    HandedOver,
    Handover,
    IllegalAction,
    Phase,
    Play,
    Rules,
    Skipped,
    TrickEnded,
    WentOut,
    parse_cards,
)

from .helpers import game_with

LEFT = Rules(first_lead="dealer_left")


def cards(text: str) -> Play:
    return Play(parse_cards(text))


def position(rules: Rules, hands: Sequence[str], turn: int, players: int = 3) -> Game:
    """Hand 2 of a game (hand 1 played out, so there is a President), rebuilt at a lead
    with the seats holding `hands` and `turn` to lead."""
    game = Game(rules, [f"P{i}" for i in range(players)])
    game.start_hand(rng=random.Random(7))
    while game.phase is Phase.PLAY:  # each seat leads its first play; the rest pass
        seat = game.turn
        assert seat is not None
        actions = game.legal_actions(seat)
        game.apply(seat, PASS if PASS in actions else actions[0])
    game.start_hand(rng=random.Random(8))
    finish_exchange(game)
    held = [list(parse_cards(text)) for text in hands]
    view = game.view_for(0)._replace(
        counts=tuple(len(h) for h in held),
        top=None,
        trick=(),
        turn=turn,
        passed=(False,) * players,
        locked=(False,) * players,
        places=(None,) * players,
        history=(),
        opening=False,
    )
    return Game.from_view(view, held)


def finish_exchange(game: Game) -> None:
    while game.phase is Phase.EXCHANGE:
        seat = next(iter(game.pending_returns))
        game.apply(seat, game.legal_actions(seat)[0])


def pass_round(game: Game) -> list[object]:
    """Everyone but the pile's owner passes until the trick ends."""
    events: list[object] = []
    while game.top is not None and game.phase is Phase.PLAY:
        seat = game.turn
        assert seat is not None
        events += game.apply(seat, PASS)
    return events


def test_a_sequence_holding_a_7_and_a_10_owes_a_handover_then_a_discard() -> None:
    rules = LEFT.replace(sequences=True, seven_pass=True, ten_discard=True)
    game = game_with(rules, {0: "7S 8S 9S 10S 3C 4C", 1: "5H"})
    events = game.apply(0, cards("7S 8S 9S 10S"))
    assert game.due == Due("handover", 1) and game.turn == 0
    assert game.view_for(0).due == Due("handover", 1)
    assert all(isinstance(a, Handover) and len(a.cards) == 1 for a in game.legal_actions(0))
    assert game.view_for(0).legal_actions() == game.legal_actions(0)
    with pytest.raises(IllegalAction, match="first hand over a card to the next player"):
        game.apply(0, PASS)
    with pytest.raises(IllegalAction, match="first hand over a card"):
        game.apply(0, Discard(parse_cards("3C")))
    with pytest.raises(IllegalAction, match=r"hand over a card .*: one card at a time, not 2"):
        game.apply(0, Handover(parse_cards("3C 4C")))
    with pytest.raises(IllegalAction, match="you do not hold 5H"):
        game.apply(0, Handover(parse_cards("5H")))
    assert game.timeout_action(0) == Handover(parse_cards("3C"))
    events = game.apply(0, Handover(parse_cards("3C")))
    assert events == [HandedOver(0, 1, 1, tuple(parse_cards("3C")))]
    assert parse_cards("3C")[0] in game.hand_of(1)
    assert game.due == Due("discard", 1) and game.turn == 0
    events = game.apply(0, Discard(parse_cards("4C")))
    assert events == [Discarded(0, tuple(parse_cards("4C")))]
    assert game.due is None and game.turn == 1
    assert game.public_view().played[-1] == parse_cards("4C")[0]  # face up, after the plays
    assert game.public_view().trick == ((0, cards("7S 8S 9S 10S")),)


def test_a_due_of_several_cards_is_paid_one_card_at_a_time() -> None:
    """However many cards are owed, the choices are the kinds of card held: two decks'
    worth of 7s owed from a big hand would otherwise be millions of ways to pay."""
    game = game_with(LEFT.replace(seven_pass=True), {0: "7C 7D 7H 3C 4C 5C"})
    game.apply(0, cards("7C 7D 7H"))
    assert game.due == Due("handover", 3)
    choices = game.legal_actions(0)
    assert choices == [Handover((card,)) for card in game.hand_of(0)]
    assert game.apply(0, Handover(parse_cards("5C"))) == [
        HandedOver(0, 1, 1, tuple(parse_cards("5C")))
    ]
    assert game.due == Due("handover", 2) and game.turn == 0
    assert game.timeout_action(0) == Handover(parse_cards("3C"))
    game.apply(0, Handover(parse_cards("3C")))
    game.apply(0, Handover(parse_cards("4C")))
    assert game.due is None and game.turn == 1
    assert {"3C", "4C", "5C"} <= {str(c) for c in game.hand_of(1)}


def test_a_seat_that_pays_its_last_card_goes_out_in_the_next_place_even_on_a_2() -> None:
    rules = LEFT.replace(seven_pass=True, forbidden_finishes=True)
    game = position(rules, ["7C 7D 2S", "4C 4D", "5C 5D"], turn=0)
    game.apply(0, cards("7C 7D"))
    assert game.due == Due("handover", 1)  # two 7s, but one card left
    events = game.apply(0, Handover(parse_cards("2S")))
    assert WentOut(0, 0) in events  # first place: the finish was by handing over, not a play


def test_fives_that_skip_every_other_seat_end_the_trick_and_the_player_leads() -> None:
    game = game_with(LEFT.replace(five_skip=True), {0: "5C 5D 5H 3S"})
    events = game.apply(0, cards("5C 5D 5H"))
    assert [e for e in events if isinstance(e, (Skipped, TrickEnded))] == [
        Skipped(1),
        Skipped(2),
        Skipped(3),
        TrickEnded(0, 0),
    ]
    assert game.turn == 0 and game.top is None


def test_a_skipped_seat_counts_as_passed_for_the_end_of_the_trick() -> None:
    game = game_with(LEFT.replace(five_skip=True), {0: "5C 3S", 1: "AS"})
    events = game.apply(0, cards("5C"))
    assert Skipped(1) in events and game.turn == 2
    game.apply(2, PASS)
    events = game.apply(3, PASS)
    assert TrickEnded(0, 0) in events  # seat 1 never gets a turn on it


def test_one_time_around_ends_the_trick_when_every_seat_has_acted_once() -> None:
    game = game_with(LEFT.replace(one_time_around=True), {0: "4C", 1: "6C", 3: "9C"})
    game.apply(0, cards("4C"))
    game.apply(1, cards("6C"))
    game.apply(2, PASS)
    events = game.apply(3, cards("9C"))
    assert TrickEnded(3, 3) in events and game.turn == 3
    with pytest.raises(IllegalAction):
        game.apply(0, PASS)


def test_one_time_around_a_seat_that_played_is_not_asked_again() -> None:
    game = game_with(LEFT.replace(one_time_around=True), {0: "4C 8D", 1: "6C", 2: "7C"})
    game.apply(0, cards("4C"))
    game.apply(1, cards("6C"))
    game.apply(2, cards("7C"))
    events = game.apply(3, PASS)
    assert TrickEnded(2, 2) in events  # seat 0 played already: it does not answer the 7
    assert game.view_for(0).locked == (False,) * 4  # a new trick: everyone may act


def test_a_fallen_president_can_be_the_last_place_to_fill_and_the_hand_ends() -> None:
    """Three players: one goes out on a joker (forbidden: last place), then another goes
    out first; the President still holds cards and falls to the one place left."""
    rules = LEFT.replace(jokers=1, capital_fall=True, forbidden_finishes=True, exchange="none")
    probe = position(rules, ["3C", "3D", "3H"], turn=0)
    president = probe.seating.index(probe.standing[0])  # type: ignore[index]
    fouler, winner = [s for s in range(3) if s != president]
    hands = ["", "", ""]
    hands[fouler], hands[winner], hands[president] = "JK", "4C", "3C 5C"
    game = position(rules, hands, turn=fouler)
    events = game.apply(fouler, Play(parse_cards("JK")))
    assert WentOut(fouler, 2) in events
    pass_round(game)  # nothing beats the joker
    if game.turn == president:  # (who leads next depends on the seating)
        game.apply(president, cards("3C"))
    events = game.apply(winner, cards("4C"))
    assert WentOut(winner, 0) in events and Fell(president, 1) in events
    assert game.phase is not Phase.PLAY
    assert game.finishes[-1] == [game.seating[s] for s in (winner, president, fouler)]


@pytest.mark.parametrize(
    ("changes", "last"),
    [
        ({"jokers": 1}, "JK"),
        ({}, "2C"),
        ({"clear_rank": 8}, "8C"),
        ({"revolution": True, "jack_back": True}, "2C"),
    ],
)
def test_going_out_on_a_forbidden_play_takes_the_lowest_free_place(
    changes: dict[str, object], last: str
) -> None:
    rules = LEFT.replace(forbidden_finishes=True, exchange="none", **changes)
    game = position(rules, [last, "4C 4D", "5C 5D"], turn=0)
    events = game.apply(0, Play(parse_cards(last)))
    assert WentOut(0, 2) in events
    off = position(rules.replace(forbidden_finishes=False), [last, "4C 4D", "5C 5D"], turn=0)
    assert WentOut(0, 0) in off.apply(0, Play(parse_cards(last)))


def test_going_out_on_a_3_is_forbidden_when_the_order_is_reversed() -> None:
    rules = LEFT.replace(forbidden_finishes=True, exchange="none", revolution=True)
    game = position(rules, ["3C", "4C 4D", "5C 5D"], turn=0)
    game.revolution = True
    assert WentOut(0, 2) in game.apply(0, cards("3C"))


def test_auto_pass_waits_for_a_due_to_be_paid() -> None:
    rules = LEFT.replace(seven_pass=True, auto_pass=True)
    game = game_with(rules, {0: "7C 3S 4S"})
    events = game.apply(0, cards("7C"))
    assert not any(isinstance(e, TrickEnded) for e in events)
    assert game.due == Due("handover", 1) and game.turn == 0


def test_an_equal_sequence_skips_the_next_seat_under_equal_plays_skip() -> None:
    rules = LEFT.replace(sequences=True, equal_plays="skip")
    game = game_with(rules, {0: "5H 6H 7H", 1: "5S 6S 7S"})
    game.apply(0, cards("5H 6H 7H"))
    events = game.apply(1, cards("5S 6S 7S"))
    assert Skipped(2) in events and game.turn == 3


def test_two_finish_penalty_is_about_a_set_of_2s_not_a_sequence_holding_one() -> None:
    rules = LEFT.replace(sequences=True, two_finish_penalty=True, exchange="none")
    game = position(rules, ["QH KH AH 2H", "4C 4D", "5C 5D"], turn=0)
    assert WentOut(0, 0) in game.apply(0, cards("QH KH AH 2H"))
    game = position(rules, ["2H 2S", "4C 4D", "5C 5D"], turn=0)
    assert WentOut(0, 2) in game.apply(0, cards("2H 2S"))


def test_a_discard_shows_among_the_cards_played_in_the_order_it_was_made() -> None:
    game = game_with(LEFT.replace(ten_discard=True), {0: "10H 4S", 1: "JD"})
    game.apply(0, cards("10H"))
    game.apply(0, Discard(parse_cards("4S")))
    game.apply(1, cards("JD"))
    shown = [str(c) for c in game.public_view().played]
    assert shown == ["10H", "4S", "JD"]
    assert [str(c) for c in game.view_for(2).played] == shown


def test_a_fallen_president_is_told_so_and_anyone_is_told_nothing_is_owed() -> None:
    rules = LEFT.replace(capital_fall=True, exchange="none")
    probe = position(rules, ["3C", "3D", "3H", "3S"], turn=0, players=4)
    president = probe.seating.index(probe.standing[0])  # type: ignore[index]
    first = (president + 1) % 4
    hands = ["4C 4D", "5C 5D", "6C 6D", "7C 7D"]
    hands[first] = "AS"
    game = position(rules, hands, turn=first, players=4)
    assert Fell(president, 3) in game.apply(first, cards("AS"))
    with pytest.raises(IllegalAction, match=r"you fell \(capital_fall\)"):
        game.check(president, PASS)
    classic = game_with(LEFT, {0: "3S"})
    with pytest.raises(IllegalAction, match="nothing is owed now"):
        classic.check(0, Handover(parse_cards("3S")))


def test_two_nines_clear_any_pile_and_one_does_not() -> None:
    rules = LEFT.replace(nines_clear=True)
    game = game_with(rules, {0: "KC KD 3S", 1: "9C 9D 9H", 2: "AC AD"})
    game.apply(0, cards("KC KD"))
    events = game.apply(1, cards("9C 9D"))  # lower than the kings, yet it clears
    assert any(e == TrickEnded(1, 1) for e in events) and game.turn == 1
    game.apply(1, cards("9H"))  # a single 9 led: just a 9
    assert game.top is not None and game.top.rank == 6 and game.turn == 2
    off = game_with(LEFT.replace(sequences=True), {0: "KC KD 3S", 1: "9C 9D 9H"})
    off.apply(0, cards("KC KD"))
    with pytest.raises(IllegalAction):
        off.apply(1, cards("9C 9D"))


def test_two_sixes_clear_any_pile_and_one_does_not() -> None:
    """docs/rules.md, `sixes_clear`: the worked example."""
    rules = LEFT.replace(sixes_clear=True)
    game = game_with(rules, {0: "KC KD 3S", 1: "6C 6D 6H", 2: "AC AD"})
    game.apply(0, cards("KC KD"))
    events = game.apply(1, cards("6C 6D"))  # lower than the kings, yet it clears
    assert any(e == TrickEnded(1, 1) for e in events) and game.turn == 1
    game.apply(1, cards("6H"))  # a single 6 led: just a 6
    assert game.top is not None and game.top.rank == 3 and game.turn == 2
    assert game.is_legal(2, cards("AC"))
    off = game_with(LEFT.replace(sequences=True), {0: "KC KD 3S", 1: "6C 6D 6H"})
    off.apply(0, cards("KC KD"))
    with pytest.raises(IllegalAction):
        off.apply(1, cards("6C 6D"))

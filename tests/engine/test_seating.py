"""Players joining and leaving between hands, and reseating by rank (docs/rules.md,
"Players coming and going" and `seat_order`)."""

from __future__ import annotations

import random

import pytest
from president.engine import Game, IllegalAction, Phase, Rules, rules_from
from president.engine.record import replay, to_record

from .helpers import finish_hand_low, full_deal

BASE = rules_from({"preset": "classic", "first_lead": "dealer_left"})


def after_hand_one(rules: Rules = BASE) -> Game:
    game = Game(rules, list("ABCD"))
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {}))
    finish_hand_low(game)
    assert game.finishes[-1] == ["A", "B", "C", "D"]
    return game


def test_newcomers_take_the_lowest_places_the_last_to_join_is_scum() -> None:
    game = after_hand_one()
    game.join("E")
    game.join("F")
    assert game.scores["E"] == game.scores["F"] == 0
    game.start_hand(rng=random.Random(1))
    assert game.standing == ["A", "B", "C", "D", "E", "F"]
    assert game.titles()["F"] == "Scum" and game.titles()["E"] == "Vice-Scum"
    gives = [
        (game.seating[g.giver], game.seating[g.receiver], len(g.cards)) for g in game.exchanges
    ]
    assert gives == [("F", "A", 2), ("E", "B", 1)]


def test_a_newcomer_deals_when_the_scum_deals() -> None:
    game = after_hand_one(BASE.replace(dealer="scum"))
    game.join("E")
    game.start_hand(rng=random.Random(1))
    assert game.seating[game.dealer or 0] == "E"


def test_a_leaver_is_not_replaced_everyone_below_moves_up() -> None:
    game = after_hand_one()
    game.leave("B")
    game.start_hand(rng=random.Random(1))
    assert game.seating == ["A", "C", "D"] and game.standing == ["A", "C", "D"]
    assert game.titles() == {"A": "President", "C": "Citizen", "D": "Scum"}
    # three players: only the two-card swap
    assert [(game.seating[g.giver], game.seating[g.receiver]) for g in game.exchanges] == [
        ("D", "A")
    ]


def test_the_president_leaving_promotes_the_vice() -> None:
    game = after_hand_one(BASE.replace(later_lead="president", exchange="none"))
    game.leave("A")
    game.start_hand(rng=random.Random(1))
    assert game.titles()["B"] == "President" and game.seating[game.turn or 0] == "B"


def test_by_rank_seats_newcomers_on_the_presidents_right() -> None:
    game = after_hand_one(BASE.replace(seat_order="by_rank"))
    game.join("E")
    assert game.next_seating() == ["A", "B", "C", "D", "E"]
    with pytest.raises(IllegalAction, match="seat_order = 'by_rank'"):
        game.start_hand(seating=["E", "A", "B", "C", "D"], rng=random.Random(1))


def test_fixed_seats_place_newcomers_where_the_table_seats_them() -> None:
    game = after_hand_one()
    game.join("E")
    assert game.next_seating() == ["A", "B", "C", "D", "E"]
    game.start_hand(seating=["A", "E", "B", "C", "D"], rng=random.Random(1))
    assert game.seating == ["A", "E", "B", "C", "D"]
    finish_hand_low(game)
    with pytest.raises(IllegalAction, match="seat_order = 'fixed'"):
        game.start_hand(seating=["B", "A", "E", "C", "D"], rng=random.Random(1))


def test_joining_and_leaving_only_between_hands() -> None:
    game = after_hand_one()
    game.start_hand(rng=random.Random(1))
    with pytest.raises(IllegalAction, match="only between hands"):
        game.join("E")
    with pytest.raises(IllegalAction, match="only between hands"):
        game.leave("A")
    with pytest.raises(IllegalAction, match="not over"):
        game.start_hand(rng=random.Random(2))


def test_bad_joins_and_leaves() -> None:
    game = after_hand_one()
    with pytest.raises(IllegalAction, match="already at the table"):
        game.join("A")
    with pytest.raises(IllegalAction, match="not at the table"):
        game.leave("Z")
    game.leave("A")
    game.leave("B")
    with pytest.raises(IllegalAction, match="at least 3 players"):
        game.start_hand(rng=random.Random(1))


def test_joins_and_leaves_are_in_the_record() -> None:
    game = after_hand_one()
    game.join("E")
    game.leave("B")
    game.start_hand(rng=random.Random(1))
    finish_hand_low(game)
    record = to_record(game)
    assert record["players"] == ["A", "B", "C", "D", "E"]
    assert record["hands"][1]["seating"] == ["A", "C", "D", "E"]
    result = replay(record)
    assert result.ok and result.game is not None
    assert result.game.finishes == game.finishes and result.game.scores == game.scores
    assert result.hands[1]["gives"][0] == {
        "from": "E",
        "to": "A",
        "cards": [str(c) for c in game.exchanges[0].cards],
    }


def test_game_over_refuses_more() -> None:
    game = after_hand_one(BASE.replace(target=2))
    assert game.phase is Phase.GAME_OVER
    with pytest.raises(IllegalAction, match="game is over"):
        game.start_hand(rng=random.Random(1))
    with pytest.raises(IllegalAction, match="game is over"):
        game.join("E")


def test_plan_hand_names_the_dealer_and_the_first_seat_dealt() -> None:
    from president.protocol.fairdeal import deal, deck_order

    rules = BASE.replace(dealer="scum", deal_from_president=True)
    game = after_hand_one(rules)
    seating, dealer, start = game.plan_hand(random.Random(1))
    assert (
        seating == ["A", "B", "C", "D"] and dealer == 3 and start == 0
    )  # Scum deals, from the President
    order = deck_order(bytes(32), [], 1)
    game.start_hand(seating=seating, dealer=dealer, deal=deal(order, 4, start))
    assert game.dealer == 3

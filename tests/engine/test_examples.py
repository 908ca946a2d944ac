"""The rulebooks' worked examples behind docs/rules.md (a trick, the exact count, the forced
give, going out mid-trick, the last player), each written as a record and replayed exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from president.engine import Game, Phase, find_preset, rules_from
from president.engine.record import dumps, loads, replay, to_record

from ..harness.processes import president_here
from .helpers import finish_hand_low, full_deal, game_with, play

RECORDS = Path(__file__).parent / "records"
DEALER_LEFT = {"preset": "classic", "first_lead": "dealer_left"}


def record(
    rules: dict[str, Any],
    deal: list[list[str]],
    actions: list[dict[str, Any]],
    dealer: int = 3,
    players: tuple[str, ...] = ("A", "B", "C", "D"),
) -> dict[str, Any]:
    return {
        "format": "president-record/1",
        "rules": rules,
        "players": list(players),
        "hands": [{"dealer": dealer, "deal": deal, "actions": actions}],
    }


def act(seat: int, cards: str | None = None) -> dict[str, Any]:
    return {"seat": seat, "pass": True} if cards is None else {"seat": seat, "play": cards.split()}


def example_1() -> dict[str, Any]:
    """Seed 000: leader (seat 0) a pair of 6s; West passes; North 10s; East Qs; leader
    passes; West re-enters with As; all pass; West leads the next trick."""
    rules = rules_from(DEALER_LEFT)
    deal = full_deal(rules, 4, 0, {0: "6C 6D", 1: "AC AD 3H", 2: "10C 10D", 3: "QC QD"})
    return record(
        DEALER_LEFT,
        deal,
        [
            act(0, "6C 6D"),
            act(1),
            act(2, "10C 10D"),
            act(3, "QC QD"),
            act(0),
            act(1, "AC AD"),
            act(2),
            act(3),
            act(0),
            act(1, "3H"),  # West leads the next trick
        ],
    )


def example_2() -> dict[str, Any]:
    """Seed 001: A leads 5C 5H, B 9S 9D, C passes, D KC KH, A and B pass, C AS AD,
    D/A/B pass; C leads."""
    rules = rules_from(DEALER_LEFT)
    deal = full_deal(rules, 4, 0, {0: "5C 5H", 1: "9S 9D", 2: "AS AD 4C", 3: "KC KH"})
    return record(
        DEALER_LEFT,
        deal,
        [
            act(0, "5C 5H"),
            act(1, "9S 9D"),
            act(2),
            act(3, "KC KH"),
            act(0),
            act(1),
            act(2, "AS AD"),
            act(3),
            act(0),
            act(1),
            act(2, "4C"),
        ],
    )


@pytest.mark.parametrize("make", [example_1, example_2], ids=["seed000", "seed001"])
def test_trick_examples_replay_and_the_winner_leads(make: Any, tmp_path: Path) -> None:
    document = make()
    result = replay(loads(dumps(document)))
    assert result.ok, result.fault
    assert result.game is not None and result.game.turn is not None
    # The trick was won by the re-entering player, whose lead is the record's last step:
    # anyone else leading there is refused.
    last = document["hands"][0]["actions"][-1]
    for wrong in range(4):
        if wrong == last["seat"]:
            continue
        bad = json.loads(json.dumps(document))
        bad["hands"][0]["actions"][-1] = {"seat": wrong, "play": ["3S"]}
        fault = replay(bad).fault
        assert fault is not None and fault.action == len(document["hands"][0]["actions"]) - 1
        assert "not your turn" in fault.error


def test_worked_example_files_replay_through_the_cli(tmp_path: Path) -> None:
    for name, make in (
        ("example_1_seed000.json", example_1),
        ("example_2_seed001.json", example_2),
    ):
        saved = RECORDS / name
        assert loads(saved.read_text()) == make(), f"{name} is out of date"
        out = president_here("replay", "--json", str(saved))
        assert out.returncode == 0, out.stderr
        summary = json.loads(out.stdout)
        assert summary["ok"] is True and summary["hands"][0]["complete"] is False


ILLEGAL = [
    # (pile, answer, sentence)
    ("JC", "QC QD", "a single J cannot be beaten by a pair of Qs"),
    ("6C 6D", "KC", "a pair of 6s cannot be beaten by a single K"),
    ("6C 6D", "7C 7D 7H", "a pair of 6s cannot be beaten by three 7s"),
    ("6C 6D", "6H 6S", "a pair of 6s cannot be beaten by a pair of 6s"),
]


@pytest.mark.parametrize(("pile", "answer", "sentence"), ILLEGAL)
def test_example_3_count_is_exact(pile: str, answer: str, sentence: str) -> None:
    rules = rules_from(DEALER_LEFT)
    deal = full_deal(rules, 4, 0, {0: pile, 1: answer})
    document = record(DEALER_LEFT, deal, [act(0, pile), act(1, answer)])
    fault = replay(document).fault
    assert fault is not None
    assert (fault.hand, fault.action) == (0, 1)
    assert fault.error.startswith(sentence)


def test_example_3_the_count_can_be_split() -> None:
    """Splitting is allowed: two of three 7s answer a pair."""
    game = game_with(rules_from(DEALER_LEFT), {0: "6C 6D", 1: "7C 7D 7H"})
    play(game, "0 6C 6D", "1 7C 7D")
    sevens = [str(c) for c in game.hand_of(1) if c.rank == 4]
    assert "7H" in sevens and "7C" not in sevens and "7D" not in sevens


def test_example_4_seed001_exchange() -> None:
    """A Scum holding 2D AC AH KS gives 2D and one A (the higher suit, AH) to the President."""
    rules = find_preset("full")  # two_one exchange, dealer's left opens
    game = Game(rules, ["Anna", "Ben", "Carla", "Dan"])
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {}))
    finish_hand_low(game)  # everyone passes but the leader: they go out in seat order
    assert game.finishes[-1] == ["Anna", "Ben", "Carla", "Dan"]
    scum = 3
    deal = full_deal(
        rules,
        4,
        0,
        {
            scum: "2D AC AH KS 3C 3D 3H 3S 4C 4D 4H 4S 5C",
            2: "2C 5D 5H 5S 6C 6D 6H 6S 7C 7D 7H 7S 8C",
        },
    )
    game.start_hand(dealer=scum, deal=deal)  # under `full` the Scum deals
    result = replay(loads(dumps(to_record(game))))
    assert result.ok
    gives = result.hands[1]["gives"]
    assert gives == [
        {"from": "Dan", "to": "Anna", "cards": ["2D", "AH"]},
        {"from": "Carla", "to": "Ben", "cards": ["2C"]},
    ]


def example_5() -> dict[str, Any]:
    """Seat 0 goes out mid-trick with a 2 that wins it; seat 1, the next still holding
    cards, leads."""
    rules = find_preset("classic")
    deal = full_deal(rules, 4, 0, {0: "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 6C 2H", 1: "7C"})
    return record(
        {"preset": "classic"},
        deal,
        [
            act(0, "3C 3D 3H 3S"),
            act(1),
            act(2),
            act(3),
            act(0, "4C 4D 4H 4S"),
            act(1),
            act(2),
            act(3),
            act(0, "5C 5D 5H"),
            act(1),
            act(2),
            act(3),
            act(0, "6C"),
            act(1, "7C"),
            act(2),
            act(3),
            act(0, "2H"),  # seat 0's last card beats the 7: out, mid-trick
            act(1),
            act(2),
            act(3),
            act(1, "8C"),  # the next seat clockwise still holding cards leads
        ],
    )


def test_example_5_going_out_mid_trick() -> None:
    document = example_5()
    assert loads((RECORDS / "example_5_out_mid_trick.json").read_text()) == document
    result = replay(document)
    assert result.ok, result.fault
    game = result.game
    assert game is not None
    assert game.finish_order == [0] and game.card_counts()[0] == 0
    bad = json.loads(json.dumps(document))
    bad["hands"][0]["actions"][-1] = {"seat": 2, "play": ["8D"]}
    fault = replay(bad).fault
    assert fault is not None and "not your turn" in fault.error


def test_example_6_the_last_player_never_plays() -> None:
    rules = find_preset("classic")
    game = Game(rules, ["A", "B", "C", "D"])
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {}))
    finish_hand_low(game)
    assert game.phase is Phase.BETWEEN_HANDS
    last = game.finishes[-1][-1]
    # The hand ended the moment the third player went out; the last still holds cards.
    assert game.card_counts()[game.seating.index(last)] > 0
    document = to_record(game)
    assert replay(document).hands[0]["finish"] == game.finishes[-1]
    document["hands"][0]["actions"].append({"seat": game.seating.index(last), "play": ["KS"]})
    fault = replay(document).fault
    assert fault is not None and fault.error == "the hand is over: no action may follow"


def write_example_files() -> None:
    """Regenerate the committed record files (run this module as a script)."""
    RECORDS.mkdir(exist_ok=True)
    for name, make in (
        ("example_1_seed000.json", example_1),
        ("example_2_seed001.json", example_2),
        ("example_5_out_mid_trick.json", example_5),
    ):
        (RECORDS / name).write_text(dumps(make()))


if __name__ == "__main__":
    write_example_files()

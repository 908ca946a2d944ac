"""Every toggle of docs/rules.md, on and off, on a fixed deal where it changes what happens."""

from __future__ import annotations

import random
from typing import Any

import pytest
from president.engine import (
    PASS,
    Game,
    IllegalAction,
    Passed,
    Phase,
    Play,
    Returned,
    Rules,
    RulesError,
    TrickEnded,
    WentOut,
    find_preset,
    parse_cards,
    rules_from,
)

from .helpers import finish_hand_low, full_deal, game_with, play

BASE = rules_from({"preset": "classic", "first_lead": "dealer_left"})  # seat 0 leads hand 1


def rules(**toggles: Any) -> Rules:
    return BASE.replace(**toggles)


def refused(game: Game, seat: int, cards: str) -> str:
    with pytest.raises(IllegalAction) as info:
        game.check(seat, Play(parse_cards(cards)) if cards != "pass" else PASS)
    return str(info.value)


def after_hand_one(r: Rules, players: int = 4) -> Game:
    """A game whose first hand is over with the finish A, B, C, ... (seat order)."""
    game = Game(r, list("ABCDEFGH"[:players]))
    game.start_hand(dealer=players - 1, deal=full_deal(r, players, 0, {}))
    finish_hand_low(game)
    assert game.finishes[-1] == list("ABCDEFGH"[:players])
    return game


# --- deck -------------------------------------------------------------------------------


def test_decks() -> None:
    with pytest.raises(RulesError, match="decks = 1"):
        Game(rules(decks=1), [str(i) for i in range(9)])
    game = Game(rules(decks=2), [str(i) for i in range(9)])
    game.start_hand(rng=random.Random(1))
    assert sum(game.card_counts()) == 104
    two = game_with(rules(decks=2), {0: "7H 7H"})
    play(two, "0 7H 7H")  # two copies of one card make a pair
    assert "you do not hold 2 of 7H" in refused(game_with(rules(), {0: "7H 7C"}), 0, "7H 7H")


def test_jokers() -> None:
    with_joker = game_with(rules(jokers=1), {0: "2C", 1: "JK"})
    assert sum(with_joker.card_counts()) == 53
    play(with_joker, "0 2C", "1 JK")  # a joker beats a 2
    with pytest.raises(IllegalAction, match="extra JK"):
        Game(rules(), list("ABCD")).start_hand(dealer=3, deal=full_deal(rules(jokers=1), 4, 0, {}))


def test_joker_mode() -> None:
    wild = game_with(rules(jokers=1, joker_mode="wild"), {0: "6C 6D", 1: "7C JK"})
    play(wild, "0 6C 6D", "1 7C JK")  # the joker stands in for a 7
    high = game_with(rules(jokers=1, joker_mode="high"), {0: "6C 6D", 1: "7C JK"})
    play(high, "0 6C 6D")
    assert "joker_mode = 'high'" in refused(high, 1, "7C JK")
    with pytest.raises(RulesError, match="joker_mode = 'wild' needs jokers"):
        rules(joker_mode="wild")


# --- dealing and seats --------------------------------------------------------------------


def test_dealer() -> None:
    rotate = after_hand_one(rules(dealer="rotate"))
    rotate.start_hand(rng=random.Random(1))
    assert rotate.dealer == 0  # left of the last dealer (seat 3)
    scum = after_hand_one(rules(dealer="scum"))
    scum.start_hand(rng=random.Random(1))
    assert scum.dealer == 3  # D finished last
    with pytest.raises(IllegalAction, match="seat 3 deals"):
        after_hand_one(rules(dealer="scum")).start_hand(dealer=0, rng=random.Random(1))


def test_deal_from_president() -> None:
    # Five players: 52 = 5 x 10 + 2, so the first two seats dealt hold 11 cards.
    on = after_hand_one(rules(deal_from_president=True, exchange="none"), players=5)
    on.start_hand(rng=random.Random(1))
    assert on.dealer == 0 and on.card_counts() == [11, 11, 10, 10, 10]  # from A, the President
    on2 = after_hand_one(rules(deal_from_president=True, exchange="none", dealer="scum"), players=5)
    on2.start_hand(rng=random.Random(1))
    assert on2.dealer == 4 and on2.card_counts() == [11, 11, 10, 10, 10]
    off = after_hand_one(rules(deal_from_president=False, exchange="none"), players=5)
    off.start_hand(rng=random.Random(1))
    assert off.dealer == 0 and off.card_counts() == [10, 11, 11, 10, 10]  # from the dealer's left


def test_seat_order() -> None:
    def game(order: str) -> Game:
        r = rules(seat_order=order, exchange="none")
        g = Game(r, list("ABCD"))
        g.start_hand(dealer=2, deal=full_deal(r, 4, 3, {}))  # seat 3 (D) leads and goes out first
        finish_hand_low(g)
        assert g.finishes[-1] == ["D", "A", "B", "C"]
        return g

    by_rank = game("by_rank")
    by_rank.start_hand(rng=random.Random(1))
    assert by_rank.seating == ["D", "A", "B", "C"]  # the President in seat 0
    fixed = game("fixed")
    fixed.start_hand(rng=random.Random(1))
    assert fixed.seating == ["A", "B", "C", "D"]


# --- the trick ---------------------------------------------------------------------------


def test_passing() -> None:
    given = {0: "5C 9C", 1: "6C 8C", 2: "7C", 3: "KC"}
    multi = game_with(rules(passing="multi_round"), given)
    play(multi, "0 5C", "1 pass", "2 7C", "3 pass", "0 pass")
    assert multi.turn == 1  # the first passer may come back in
    play(multi, "1 8C")
    locked = game_with(rules(passing="locked"), given)
    events = play(locked, "0 5C", "1 pass", "2 7C", "3 pass", "0 pass")
    assert TrickEnded(2, 2) in events  # everyone else is out of the trick: 7C wins it
    again = game_with(rules(passing="locked"), given)
    play(again, "0 5C", "1 pass", "2 7C")
    assert again.turn == 3 and "sit out until the trick clears" in refused(again, 1, "8C")


def test_auto_pass() -> None:
    given = {0: "2C 3D"}
    on = game_with(rules(auto_pass=True), given)
    events = play(on, "0 2C")
    assert [e for e in events if isinstance(e, Passed)] == [
        Passed(1, True),
        Passed(2, True),
        Passed(3, True),
    ]
    assert on.turn == 0 and on.top is None
    off = game_with(rules(auto_pass=False), given)
    play(off, "0 2C")
    assert off.turn == 1 and off.legal_actions(1) == [PASS]


def test_twos_clear() -> None:
    given = {0: "6C 6D", 1: "2C 9C"}
    on = game_with(rules(twos_clear=True), given)
    events = play(on, "0 6C 6D", "1 2C")  # a single 2 on a pair clears it
    assert TrickEnded(1, 1) in events and on.turn == 1 and on.top is None
    led = game_with(rules(twos_clear=True), {0: "2C 9C"})
    assert TrickEnded(0, 0) in play(led, "0 2C")  # led, it clears at once too
    off = game_with(rules(twos_clear=False), given)
    play(off, "0 6C 6D")
    assert "a pair of 6s cannot be beaten by a single 2" in refused(off, 1, "2C")


@pytest.mark.parametrize(("rank", "other"), [(8, "10C"), (10, "8C")])
def test_clear_rank(rank: int, other: str) -> None:
    given = {0: "KC", 1: f"{rank}C {other}"}
    on = game_with(rules(clear_rank=rank), given)
    play(on, "0 KC")
    assert refused(on, 1, other).startswith("a single K cannot be beaten")
    assert TrickEnded(1, 1) in play(on, f"1 {rank}C")
    off = game_with(rules(clear_rank=None), given)
    play(off, "0 KC")
    assert refused(off, 1, f"{rank}C").startswith("a single K cannot be beaten")


def test_bombs() -> None:
    given = {0: "6C 6D", 1: "5C 5D 5H 5S"}
    on = game_with(rules(bombs=True), given)
    events = play(on, "0 6C 6D", "1 5C 5D 5H 5S")  # four low cards on a pair
    assert TrickEnded(1, 1) in events
    off = game_with(rules(bombs=False), given)
    play(off, "0 6C 6D")
    assert "cannot be beaten by four 5s" in refused(off, 1, "5C 5D 5H 5S")


def test_revolution() -> None:
    given = {0: "5C 5D 5H 5S 9C", 1: "4C KC"}
    on = game_with(rules(revolution=True), given)
    events = play(on, "0 5C 5D 5H 5S", "1 pass", "2 pass", "3 pass", "0 9C")
    assert on.revolution and any(getattr(e, "revolution", False) for e in events)
    assert "revolution" in refused(on, 1, "KC")
    play(on, "1 4C")  # the order is reversed: a 4 beats a 9
    off = game_with(rules(revolution=False), given)
    play(off, "0 5C 5D 5H 5S", "1 pass", "2 pass", "3 pass", "0 9C")
    assert not off.revolution
    assert refused(off, 1, "4C") == "a single 9 cannot be beaten by a single 4"
    play(off, "1 KC")


def test_equal_plays() -> None:
    given = {0: "7C", 1: "7D"}
    allow = game_with(rules(equal_plays="allow"), given)
    play(allow, "0 7C", "1 7D")
    assert allow.turn == 2
    skip = game_with(rules(equal_plays="skip"), given)
    events = play(skip, "0 7C", "1 7D")
    assert skip.turn == 3 and any(type(e).__name__ == "Skipped" and e.seat == 2 for e in events)  # type: ignore[attr-defined]
    off = game_with(rules(equal_plays="off"), given)
    play(off, "0 7C")
    assert "equal ranks never beat" in refused(off, 1, "7D")


def test_must_beat() -> None:
    given = {0: "5C", 1: "9C"}
    on = game_with(rules(must_beat=True), given)
    play(on, "0 5C")
    assert "must_beat" in refused(on, 1, "pass")
    assert PASS not in on.legal_actions(1)
    off = game_with(rules(must_beat=False), given)
    play(off, "0 5C", "1 pass")


def test_two_finish_penalty() -> None:
    given = {0: "3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 2H"}
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
        "0 2H",
    ]
    on = game_with(rules(two_finish_penalty=True), given)
    assert WentOut(0, 3) in play(on, *steps)  # out on a 2: the lowest free place
    finish_hand_low(on)
    assert on.finishes[-1][-1] == "A"
    off = game_with(rules(two_finish_penalty=False), given)
    assert WentOut(0, 0) in play(off, *steps)


# --- the exchange ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exchange", "players", "gives"),
    [
        ("none", 4, []),
        ("one", 4, [(3, 0, 1)]),
        ("two", 4, [(3, 0, 2)]),
        ("two_one", 4, [(3, 0, 2), (2, 1, 1)]),
        ("two_one", 3, [(2, 0, 2)]),
    ],
)
def test_exchange(exchange: str, players: int, gives: list[tuple[int, int, int]]) -> None:
    game = after_hand_one(rules(exchange=exchange), players)
    before = [sorted(game.hand_of(s)) for s in range(players)]
    game.start_hand(rng=random.Random(3))
    made = [(g.giver, g.receiver, len(g.cards)) for g in game.exchanges]
    assert made == gives
    for giver, _, _count in gives:
        # the giver's best cards went: nothing left in hand ranks above what was given
        given = next(g for g in game.exchanges if g.giver == giver).cards
        assert all(c.rank <= min(x.rank for x in given) for c in game.hand_of(giver))
    assert game.phase is (Phase.EXCHANGE if gives else Phase.PLAY)
    assert before  # (dealt before; the exchange happened on the new deal)


def test_auto_return() -> None:
    on = after_hand_one(rules(exchange="two", auto_return=True))
    events = on.start_hand(rng=random.Random(3))
    returned = [e for e in events if isinstance(e, Returned)]
    assert len(returned) == 1 and returned[0].automatic and on.phase is Phase.PLAY
    # the President's two lowest cards went back
    hand_after = on.hand_of(0)
    assert all(c.rank >= max(x.rank for x in returned[0].cards) for c in hand_after)
    off = after_hand_one(rules(exchange="two", auto_return=False))
    off.start_hand(rng=random.Random(3))
    assert off.phase is Phase.EXCHANGE and off.pending_returns == {0: (3, 2)}
    with pytest.raises(RulesError, match="auto_return needs an exchange"):
        rules(exchange="none", auto_return=True)


# --- who leads ---------------------------------------------------------------------------


def test_first_lead() -> None:
    given = {2: "3C 9C", 0: "4C"}
    clubs = game_with(rules(first_lead="three_of_clubs"), given)
    assert clubs.turn == 2
    assert "3C" in refused(clubs, 2, "9C")
    play(clubs, "2 3C")
    left = game_with(rules(first_lead="dealer_left"), given)
    assert left.turn == 0
    play(left, "0 4C")


@pytest.mark.parametrize(("later", "leader"), [("president", 0), ("scum", 3)])
def test_later_lead(later: str, leader: int) -> None:
    game = after_hand_one(rules(later_lead=later, exchange="none"))
    game.start_hand(rng=random.Random(1))
    assert game.turn == leader


# --- scoring and the end -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("scoring", "points"),
    [
        ("top_two", {"A": 2, "B": 1, "C": 0, "D": 0}),
        ("positional", {"A": 3, "B": 2, "C": 1, "D": 0}),
        ("last_president", {"A": 0, "B": 0, "C": 0, "D": 0}),
    ],
)
def test_scoring(scoring: str, points: dict[str, int]) -> None:
    game = after_hand_one(rules(scoring=scoring, rounds=1))
    assert game.scores == points
    over = scoring != "top_two"
    assert (game.phase is Phase.GAME_OVER) is over
    if over:
        assert game.winners == ["A"]


def test_target() -> None:
    assert after_hand_one(rules(target=2)).winners == ["A"]
    game = after_hand_one(rules(target=11))
    assert game.phase is Phase.BETWEEN_HANDS and not game.winners


def test_target_needs_a_sole_top_score() -> None:
    r = rules(target=2, exchange="none", dealer="scum")
    game = Game(r, list("ABCD"))
    game.start_hand(dealer=2, deal=full_deal(r, 4, 3, {}))
    finish_hand_low(game)  # D, A, B, C
    assert game.scores == {"A": 1, "B": 0, "C": 0, "D": 2}
    assert game.phase is Phase.GAME_OVER and game.winners == ["D"]


def test_rounds() -> None:
    game = after_hand_one(rules(scoring="positional", rounds=2, exchange="none"))
    assert game.phase is Phase.BETWEEN_HANDS
    game.start_hand(rng=random.Random(1))
    finish_hand_low(game)
    assert game.phase is Phase.GAME_OVER and len(game.finishes) == 2


def test_title_scum() -> None:
    beggar = after_hand_one(rules(title_scum="Beggar"))
    beggar.start_hand(rng=random.Random(1))
    assert beggar.titles() == {
        "A": "President",
        "B": "Vice-President",
        "C": "Vice-Beggar",
        "D": "Beggar",
    }
    scum = after_hand_one(rules(title_scum="Scum"))
    scum.start_hand(rng=random.Random(1))
    assert scum.titles()["D"] == "Scum" and scum.titles()["C"] == "Vice-Scum"
    three = after_hand_one(rules(), players=3)
    three.start_hand(rng=random.Random(1))
    assert three.titles() == {"A": "President", "B": "Citizen", "C": "Scum"}


def test_presets_are_the_table_of_rules_md() -> None:
    assert find_preset("classic") == Rules()
    full = find_preset("full")
    assert (full.dealer, full.first_lead, full.later_lead, full.target, full.title_scum) == (
        "scum",
        "dealer_left",
        "scum",
        10,
        "Beggar",
    )
    house = find_preset("house")
    assert (
        house.twos_clear,
        house.later_lead,
        house.exchange,
        house.auto_return,
        house.scoring,
        house.rounds,
    ) == (True, "scum", "two", True, "positional", 5)
    sheet = find_preset("sheet")
    assert (
        sheet.dealer,
        sheet.first_lead,
        sheet.later_lead,
        sheet.exchange,
        sheet.seat_order,
        sheet.deal_from_president,
        sheet.title_scum,
    ) == ("scum", "dealer_left", "president", "one", "by_rank", True, "Beggar")
    table = find_preset("table")
    assert (table.dealer, table.first_lead, table.auto_pass, table.exchange, table.target) == (
        "scum",
        "three_of_clubs",
        True,
        "two_one",
        10,
    )

"""The strategies, on the engine alone: every strategy plays legal moves under every
preset, every variant and random toggles; what the greedy, heuristic and search bots
choose in positions kept as data; the worlds the search deals from a seat's view."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from president.bots.heuristic import cheapest_return
from president.bots.search import SearchBot, deal_unseen, known_cards
from president.bots.sim import play_game
from president.bots.simple import GreedyBot, HeuristicBot, HoarderBot
from president.bots.strategies import STRATEGIES
from president.engine import (
    PASS,
    Card,
    Game,
    Phase,
    Play,
    Return,
    SeatView,
    find_preset,
)
from president.engine.rules import VARIANTS

from ..strategies import tables
from ..views import a_public_view


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


@settings(max_examples=25, deadline=None)
@given(tables())
def test_every_strategy_finishes_games_under_random_rules(table: tuple[object, int, int]) -> None:
    rules, players, seed = table
    line_up = [name for name in STRATEGIES][:players] + ["heuristic"] * max(
        0, players - len(STRATEGIES)
    )
    game, _, _ = play_game(rules, line_up, seed, 0, True, {"playouts": 8})  # type: ignore[arg-type]
    assert game.phase is Phase.GAME_OVER  # every action was legal: `apply` checks each


def view_with(hand: str, top: tuple[int, int, int] | None = None, **changes: object) -> SeatView:
    """Seat 0's view of a 4-player classic hand in play (`changes` to the public view,
    or `exchange`)."""
    from president.engine.moves import Top

    held = cards(hand)
    exchange = changes.pop("exchange", ())
    public = a_public_view(
        ("a", "b", "c", "d"),
        counts=(len(held), 10, 10, 10),
        top=Top(top[0], top[1], top[2], 0) if top else None,
    )._replace(**changes)
    return SeatView.of(public, 0, held, exchange)  # type: ignore[arg-type]


def test_greedy_leads_its_lowest_rank_whole_and_follows_as_low_as_it_can() -> None:
    bot = GreedyBot()
    assert bot.choose(view_with("4C 4D 4H 7S 9C 2S")) == Play(cards("4C 4D 4H"))
    assert bot.choose(view_with("4C 4D 7S 9C 2S", top=(1, 2, 1))) == Play(cards("7S"))  # on a 5
    assert bot.choose(view_with("4C 4D 7S", top=(1, 11, 1))) is PASS


def test_heuristic_keeps_sets_whole_and_spends_a_2_when_it_is_the_cheapest_answer() -> None:
    bot = HeuristicBot()
    # a single 5 on the pile: the 7 answers without breaking the pair of 6s
    assert bot.choose(view_with("3C 6C 6D 7S KC KD", top=(1, 2, 1))) == Play(cards("7S"))
    # only a broken pair answers a low single: pass rather than break it
    assert bot.choose(view_with("3C 3D 6C 6D", top=(1, 2, 1))) is PASS
    # an ace on the pile: the 2 is the cheapest answer, and the heuristic spends it
    assert bot.choose(view_with("3C 4D 6C 9D 2S", top=(1, 11, 1))) == Play(cards("2S"))
    # the hoarder will not, while it holds anything else
    assert HoarderBot().choose(view_with("3C 4D 6C 9D 2S", top=(1, 11, 1))) is PASS
    assert HoarderBot().choose(view_with("2S 2C", top=(1, 11, 1))) == Play(cards("2C"))


def test_a_player_about_to_go_out_is_pressed() -> None:
    bot = HeuristicBot()
    # only broken pairs answer: pass while nobody is close to going out ...
    calm = view_with("3C 3D 4S 4H 9C 9D", top=(1, 0, 1), counts=(6, 8, 10, 10))
    assert bot.choose(calm) is PASS
    # ... but seat 1 holds one card after this single: break a pair to stop it
    pressed = view_with("3C 3D 4S 4H 9C 9D", top=(1, 0, 1), counts=(6, 1, 10, 10))
    choice = bot.choose(pressed)
    assert isinstance(choice, Play) and choice.rank == 1 and choice.count == 1  # a single 4


def test_with_two_sets_left_a_follow_nobody_can_beat_comes_before_the_last() -> None:
    """A newcomer's pass (the review's record of it): two players left, root holds AS 2C
    on bot-2's JC, and the 2s still out cannot beat a 2.  The normal bot put its ace on
    the jack, and the 2D beat it; the 2C takes the trick, and the ace then goes out."""
    from pathlib import Path

    from president.bots import review
    from president.engine import record

    records = Path(__file__).parent / "records"
    doc = record.loads((records / "two_left_classic.json").read_text())
    found, _ = review.moments(doc)
    ace = next(m for m in found if (m.hand, m.number) == (1, 55))
    assert HeuristicBot().choose(ace.view) == Play.parse("2C")


def test_returns_are_junk_singles_that_break_nothing() -> None:
    view = view_with("3C 5D 5S 8H KC 2S 2D", phase=Phase.EXCHANGE, owed=((0, 2),), turn=None)
    held = [len(row) for row in view.rows]
    returned = cheapest_return([a for a in view.legal_actions() if isinstance(a, Return)], held)
    assert sorted(c.rank for c in returned.cards) == [0, 5]  # 3C and 8H, not the 5s or 2s
    assert HeuristicBot().choose(view) == returned


def test_a_world_deals_only_what_the_seat_has_not_seen() -> None:
    from president.engine.events import Gave

    played = cards("3S 3H 4C")
    view = view_with(
        "5C 6C 7C",
        played=played,
        counts=(3, 2, 2, 2),
        exchange=(Gave(0, 2, 1, cards("AS")), Gave(2, 0, 1, cards("7C"))),
    )
    assert known_cards(view) == {2: list(cards("AS"))}
    rng = random.Random(1)
    for _ in range(20):
        hands = deal_unseen(view, rng)
        assert [len(h) for h in hands] == [3, 2, 2, 2]
        assert hands[0] == list(view.hand)
        assert Card.parse("AS") in hands[2]  # what I gave is where I gave it
        dealt = [c for h in hands[1:] for c in h]
        assert not set(dealt) & set(played) and not set(dealt) & set(view.hand)


def test_a_card_given_in_the_exchange_that_came_back_is_not_known_elsewhere() -> None:
    from president.engine.events import Gave

    # I gave the AS to seat 2; a 7-pass has since handed it back to me
    view = variant_view("5C AS", counts=(2, 3, 3, 3), seven_pass=True)._replace(
        exchange=(Gave(0, 2, 1, cards("AS")),)
    )
    assert known_cards(view) == {}
    hands = deal_unseen(view, random.Random(1))
    assert [len(h) for h in hands] == [2, 3, 3, 3] and Card.parse("AS") not in hands[2]


def test_cards_given_in_the_exchange_to_a_seat_now_out_are_dealt_elsewhere() -> None:
    from president.engine import deck
    from president.engine.events import Gave

    # I gave the 2S and AD to seat 1, which has gone out without playing them (a 7-pass
    # handed them on): every card not played and not mine is in seats 2 and 3
    rest = cards("2S AD 9H 9D QC KH")
    played = tuple(c for c in deck(1, 0) if c not in (*rest, *cards("5C 6C")))
    view = variant_view("5C 6C", counts=(2, 0, 3, 3), seven_pass=True)._replace(
        played=played, exchange=(Gave(0, 1, 2, cards("2S AD")),)
    )
    for seed in range(5):
        hands = deal_unseen(view, random.Random(seed))
        assert [len(h) for h in hands] == [2, 0, 3, 3]
        assert sorted(hands[2] + hands[3]) == sorted(rest)


def test_search_takes_a_sure_win_and_spends_its_budget() -> None:
    bot = SearchBot(random.Random(2), playouts=40)
    # two 2s and a 3 against a lone 4-card opponent hand: lead the 2s, then the 3
    view = view_with("3C 2S 2D", counts=(3, 1, 1, 1))
    choice = bot.choose(view)
    assert choice in view.legal_actions()
    timed = SearchBot(random.Random(3), seconds=0.05)
    assert (
        timed.choose(view_with("3C 5D 7S 9C JD KH 2S"))
        in view_with("3C 5D 7S 9C JD KH 2S").legal_actions()
    )


def test_from_a_view_the_engine_rebuilds_a_hand_in_play() -> None:
    rng = random.Random(4)
    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    game.start_hand(rng=rng)
    while game.phase is Phase.PLAY and len(game.log) < 5:
        seat = game.turn
        assert seat is not None
        game.apply(seat, game.legal_actions(seat)[0])
    seat = game.turn
    assert seat is not None
    world = Game.from_view(game.view_for(seat), [game.hand_of(s) for s in range(4)])
    assert world.legal_actions(seat) == game.legal_actions(seat)


# --- the variants and the Daifugo family (docs/rules.md) ----------------------------------


def variant_view(hand: str, top: tuple[int, int, int] | None = None, **toggles: object) -> SeatView:
    """`view_with` under classic with `toggles` on (the view fields `due`, `counts` and
    `revolution` may be given too)."""
    fields = {k: toggles.pop(k) for k in ("due", "counts", "revolution") if k in toggles}
    rules = find_preset("classic").replace(**toggles)
    return view_with(hand, top, rules=rules, **fields)


def test_the_heuristic_leads_a_sequence_that_sheds_three_cards() -> None:
    view = variant_view("4H 5H 6H 9C 9D KD", sequences=True)
    assert HeuristicBot().choose(view) == Play(cards("4H 5H 6H"))
    # a sequence that breaks a pair is not worth it: the lowest set whole, as ever
    view = variant_view("4H 5H 6H 6C 9C", sequences=True)
    assert HeuristicBot().choose(view) == Play(cards("4H"))


def test_the_heuristic_answers_a_sequence_with_the_cheapest_sequence() -> None:
    from president.engine.moves import Top

    view = variant_view("6S 7S 8S 10D JD QD 3C", sequences=True)._replace(
        top=Top(1, 2, 3, 0, True, (1, 1, 1))  # the 5-6-7 of diamonds
    )
    assert HeuristicBot().choose(view) == Play(cards("6S 7S 8S"))


def test_a_handover_or_discard_is_paid_with_the_least_useful_cards() -> None:
    from president.engine import Discard, Due, Handover

    bot = HeuristicBot()
    # lowest singles, not the pair of 5s, the 2 or the joker
    view = variant_view(
        "3C 4D 5D 5S 9H JK 2S",
        top=(0, 7, 1),
        due=Due("discard", 2),
        seven_pass=True,
        ten_discard=True,
        jokers=1,
    )
    assert bot.choose(view) == Discard(cards("3C"))  # one card at a time
    view = variant_view(
        "4D 5D 5S 9H JK 2S",
        top=(0, 7, 1),
        due=Due("discard", 1),
        seven_pass=True,
        ten_discard=True,
        jokers=1,
    )
    assert bot.choose(view) == Discard(cards("4D"))
    # nor a card of a sequence held: the 6 goes, not the 3-4-5 of hearts
    view = variant_view(
        "3H 4H 5H 6C 9D", top=(0, 4, 1), due=Due("handover", 1), sequences=True, seven_pass=True
    )
    assert bot.choose(view) == Handover(cards("6C"))
    # the greedy bot and the search pay too (legally; the search as the heuristic does)
    assert isinstance(GreedyBot().choose(view), Handover)
    assert SearchBot(random.Random(1), playouts=8).choose(view) == Handover(cards("6C"))


def test_the_heuristic_keeps_a_safe_last_play_under_forbidden_finishes() -> None:
    bot = HeuristicBot()
    # leading with a 2 and a 5 left: the 2 first, so as to go out on the 5
    view = variant_view("5C 2S", forbidden_finishes=True, counts=(2, 10, 10, 10))
    assert bot.choose(view) == Play(cards("2S"))
    # following a 4 with a 6 and a 2 left: not the 6, the only safe last card
    view = variant_view("6C 2D", top=(1, 1, 1), forbidden_finishes=True, counts=(2, 10, 10, 10))
    assert bot.choose(view) == Play(cards("2D"))
    # a single 4 to answer holding 5, 8, 8 under the 8-cut: the 5 would leave only 8s to
    # go out on (forbidden); the 8s cut, and the 5 stays for the last play
    view = variant_view("8C 8D 5S", top=(1, 1, 1), forbidden_finishes=True, clear_rank=8)
    assert bot.choose(view) == Play(cards("8C 8D"))


def test_the_heuristic_keeps_the_spade_three_for_a_lone_joker() -> None:
    from president.engine.cards import JOKER_RANK

    bot = HeuristicBot()
    view = variant_view("3S 7C 9D", spade_three=True, jokers=1)
    assert bot.choose(view) == Play(cards("7C"))
    view = variant_view("3S 7C 9D", top=(1, JOKER_RANK, 1), spade_three=True, jokers=1)
    assert bot.choose(view) == Play(cards("3S"))
    # the joker on the pile was the last one out (it counts as played, so none is
    # left unseen), and the 3S is one of a pair: it takes the joker all the same
    # (it once passed here, counting the joker gone and the 3S as a broken pair)
    from president.engine.cards import CARDS, JOKER_ID

    rules = find_preset("classic").replace(spade_three=True, jokers=1)
    view = view_with("3S 3C 7C 9D", top=(1, JOKER_RANK, 1), rules=rules, played=(CARDS[JOKER_ID],))
    assert bot.choose(view) == Play(cards("3S"))


def test_the_heuristic_weighs_plays_in_the_order_a_jack_back_leaves() -> None:
    # a J on the pile has reversed the order for this trick: 4 and 9 both answer it, the
    # 4 being the strongest card now; the cheapest answer is the 9
    view = variant_view("4C 9D KS", top=(1, 8, 1), jack_back=True)._replace(jack_back=True)
    assert view.reversed
    assert HeuristicBot().choose(view) == Play(cards("9D"))
    assert GreedyBot().choose(view) == Play(cards("9D"))


@pytest.mark.parametrize("toggle", [*VARIANTS, "daifugo"])
def test_every_strategy_finishes_a_game_under_each_variant(toggle: str) -> None:
    """Each new toggle alone (the spade 3 with a joker to beat) and the daifugo preset:
    the search, the heuristic, greedy and random play two hands out, every action legal."""
    if toggle == "daifugo":
        rules = find_preset("daifugo").replace(rounds=2)
    else:
        jokers = 1 if toggle == "spade_three" else 0
        rules = find_preset("classic").replace(
            scoring="positional", rounds=2, jokers=jokers, **{toggle: True}
        )
    line_up = ["search", "heuristic", "greedy", "random"]
    game, _, _ = play_game(rules, line_up, 1, 0, True, {"playouts": 8})
    assert game.phase is Phase.GAME_OVER and len(game.finishes) == 2


def test_the_heuristic_leads_a_ten_or_a_seven_that_sheds_more_than_it_holds() -> None:
    # the 8 is the lowest, but a 10 owes a discard: two cards gone for one lead
    view = variant_view("8C 10D KS AH", ten_discard=True)
    assert HeuristicBot().choose(view) == Play(cards("10D"))
    assert HeuristicBot().choose(variant_view("8C 10D KS AH")) == Play(cards("8C"))


def test_the_heuristic_keeps_a_lone_three_for_a_single_two_under_assassination() -> None:
    from president.engine.cards import TWO

    bot = HeuristicBot()
    view = variant_view("3H 7C 9D", assassination=True)
    assert bot.choose(view) == Play(cards("7C"))  # the 3 is not led while a 2 is out
    assert bot.choose(variant_view("3H 7C 9D")) == Play(cards("3H"))
    view = variant_view("3H 7C 9D", top=(1, TWO, 1), assassination=True)
    assert bot.choose(view) == Play(cards("3H"))  # and it kills the 2


def test_the_heuristic_plays_four_twos_that_win_at_once() -> None:
    bot = HeuristicBot()
    hand = "4C 5D 9H 2C 2D 2H 2S"
    assert bot.choose(variant_view(hand, great_revolution=True)) == Play(cards("2C 2D 2H 2S"))
    assert bot.choose(variant_view(hand)) == Play(cards("4C"))  # otherwise: the lowest


def test_the_heuristic_leads_an_emperor_when_the_revolution_suits_the_cards_left() -> None:
    bot = HeuristicBot()
    emperor = Play(cards("5S 6H 7D 8C"))
    weak = "3D 4S 5S 6H 7D 8C 9H"  # what is left after it is low: a revolution helps
    assert bot.choose(variant_view(weak, emperor=True)) == emperor
    assert bot.choose(variant_view(weak)) != emperor  # (not a play without the toggle)
    strong = "5S 6H 7D 8C AH AS 2D"  # aces and a 2 left: it keeps the order as it is
    assert bot.choose(variant_view(strong, emperor=True)) != emperor


def test_a_levels_strategy_is_told_by_its_level() -> None:
    """The README offers easy, normal and hard: `b` said "asked for a heuristic bot"."""
    from president.bots.strategies import described

    assert [described(s) for s in ("greedy", "heuristic", "search", "random")] == [
        "easy (greedy)",
        "normal (heuristic)",
        "hard (search)",
        "random",
    ]

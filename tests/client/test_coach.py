"""The coach (`a` in `president play`) on what a play owes (a hand-over, a discard) and on
the exchange's return."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from president.bots.review import Moment, _redealt, advise, redeal_of
from president.bots.simple import HeuristicBot
from president.engine import Discard, Game, Handover, Phase, Return, SeatView, find_preset

from .test_replay_view import coach_says


def a_moment(owing: bool, cards: int = 1) -> SeatView:
    """A seat's view in a japanese game of heuristic bots: the first that owes a hand-over
    or a discard with a choice (`owing`; `cards` of them owed), or the first that owes
    an exchange return."""
    game = Game(find_preset("japanese"), ["a", "b", "c", "d"])
    rng, bot = random.Random(4), HeuristicBot()
    while game.phase is not Phase.GAME_OVER:
        game.start_hand(rng=rng)
        while game.actor is not None:
            seat = game.actor
            view = game.view_for(seat)
            due = view.due
            if owing and due is not None and due.size == cards and len(view.legal_actions()) > 1:
                return view
            if not owing and view.phase is Phase.EXCHANGE and view.return_size:
                return view
            game.apply(seat, bot.choose(view))
    raise AssertionError("no such moment in the game")


@pytest.mark.parametrize("cards", [1, 2])
def test_the_coach_weighs_what_a_play_owes(cards: int) -> None:
    view = a_moment(owing=True, cards=cards)
    said = coach_says(view)
    due = view.due
    assert due is not None
    word = "hand over" if due.kind == "handover" else "discard"
    assert said.startswith((f"coach: {word} ", f"coach: s suggests {word} ")), said
    assert "expected place" in said
    assert all(isinstance(a, (Handover, Discard)) for a in view.legal_actions())
    # several owed: weighed card by card, the coach names the first and says so
    assert (f" first of {due.size}" in said) == (due.size > 1), said


def test_the_coach_weighs_the_return_of_the_exchange() -> None:
    said = coach_says(a_moment(owing=False))
    assert said.startswith(("coach: return ", "coach: s suggests return ")), said
    assert "expected place" in said


def test_the_return_is_weighed_in_worlds_dealt_as_the_seat_saw_them() -> None:
    """Each world of a return gives the seat the very hand it holds (the gifts from the
    giver among them), and the returns weighed are told apart (not the stand-in 0.5 of
    worlds that could not be dealt)."""
    view = a_moment(owing=False)
    redeal = redeal_of(view)
    assert redeal is not None
    actions = tuple(view.legal_actions())
    moment = Moment(view.hand_number, 0, view.seat, view, actions, actions[0], redeal)
    rng = random.Random(3)
    for _ in range(5):
        world = _redealt(moment, rng)
        assert world is not None
        assert Counter(world.hand_of(view.seat)) == Counter(view.hand)
    advice = advise(view, worlds=8)
    assert isinstance(advice.best, Return) and len(advice.best.cards) == view.return_size
    assert advice.expected != 2.5


def test_the_coachs_figures_are_measured_on_worlds_that_did_not_choose_its_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The coach chooses its play over one set of worlds and says the expected places of
    it and of `s`'s play over another, where only those two are played out: on the worlds
    that chose it, the best's luck would flatter it."""
    from president.bots import review
    from president.client.tui.table import suggested

    made: list[list[Any]] = []
    real = review._worlds_of

    def kept(*args: Any) -> list[Any]:
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(review, "_worlds_of", kept)
    view = a_moment(owing=True)
    other = suggested(view)
    advice = advise(view, other, worlds=8)
    assert len(made) == 2
    choosing, measuring = made
    players = len(view.counts)
    played = [i for i in range(len(measuring[0])) if measuring[0].known(i)]
    assert 1 <= len(played) <= 2 and all(row.known(i) for row in measuring for i in played)
    figures = {review._place(measuring, i, players) for i in played}
    assert advice.expected in figures and advice.other_expected in figures
    assert all(row.known(i) for row in choosing for i in range(len(row)))


def test_the_coach_says_when_its_play_and_ss_are_no_different() -> None:
    """Measured on worlds that did not choose it, the coach's play may come out no better
    than `s`'s: then it says so rather than recommend the worse-looking figure."""
    from president.bots.review import Advice
    from president.client.tui.coach import advice_text
    from president.engine import PASS, Play

    pair = Play.parse("9D 9H")
    better = Advice(PASS, 2.6, pair, 2.9, 48)
    assert advice_text(better) == "coach: pass, expected place 2.6 · s: 9♦ 9♥, 2.9"
    level = Advice(PASS, 3.0, pair, 2.8, 48)
    assert advice_text(level) == (
        "coach: s suggests 9♦ 9♥, expected place 2.8 (no worse than the search's own pass: 3.0)"
    )


def test_the_coach_on_two_cards_owed_names_the_first_of_each() -> None:
    """A discard of two is weighed card by card: the coach names its first card and s's
    (s selects both), saying so (the newcomer pass: "coach: discard 6♥ · s: discard 3♦"
    read as one card each)."""
    from president.bots.review import Advice
    from president.client.tui.coach import advice_text
    from president.engine import Card, Discard

    six, three = Discard([Card.parse("6H")]), Discard([Card.parse("3D")])
    said = advice_text(Advice(six, 2.1, three, 2.6, 48), owed=2)
    assert said == "coach: discard 6♥ first of 2, expected place 2.1 · s: discard 3♦ first, 2.6"
    assert advice_text(Advice(six, 2.1, three, 2.6, 48)) == (
        "coach: discard 6♥, expected place 2.1 · s: discard 3♦, 2.6"
    )

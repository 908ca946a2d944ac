"""Fast forms of the engine beside the statements they stand for, held equal on random
hands, piles and toggles: the steady path (`Game._steady_play`: a set whose effects are
its cards' alone, `Judge.steady_facts`, carried out from its `facts_of` without a
`Trick` nor `effects_of`), and the exchange's returns and a due's choices read off the
rows.  The whole games of the fast == plain tests (tests/engine/test_plain.py,
test_fast_paths.py) play them too."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from president.engine import Due, Play, Top, fast_tricks, find_preset, judge_for, moves, tricks
from president.engine.moves import rows_of

from ..strategies import tables
from .test_judge import hands, tricks_of


# (the profile's examples: 0.5 s on a loaded machine, load average 7)
@settings(max_examples=settings.default.max_examples, deadline=None)
@given(st.data())
def test_a_steady_play_does_what_its_cards_do(data: Any) -> None:
    rules = data.draw(tables())[0]
    counts = data.draw(hands(rules))
    trick = data.draw(tricks_of(rules))
    judge = judge_for(rules)
    for play in tricks.legal_plays(rules, counts, trick):
        facts = judge.steady_facts(play)
        if facts is None:
            continue
        suits = tricks.suits_of(play) if rules.variants else ()
        assert tricks.effects_of(rules, 1, play, trick, False) == tricks.Effects(
            facts.cleared,
            facts.revolt,
            facts.jack,
            tricks.lock_after(rules, trick, play),
            Top(1, play.rank, play.count, play.jokers, False, suits),
            facts.skips,
            facts.dues,
            False,
            facts.wins,
            facts.unreverses,
            facts.turns,
        ), (play, trick)


def test_daifugo_s_effect_ranks_and_its_3s_are_steady_and_sequences_are_not() -> None:
    judge = judge_for(find_preset("daifugo"))
    steady = {
        rank for rank in "3456789TJQKA2" if judge.steady_facts(Play.parse(f"{rank}H")) is not None
    }
    assert steady == set("3456789TJQKA2")
    assert judge.steady_facts(Play.parse("4H 5H 6H")) is None  # (a sequence: the trick's)
    # under equal_plays = "skip" an equal set skips a seat: the trick decides
    assert (
        judge_for(find_preset("daifugo").replace(equal_plays="skip")).steady_facts(Play.parse("4H"))
        is None
    )


@given(st.data())
def test_the_returns_from_the_rows_are_the_returns_by_cards(data: Any) -> None:
    """The exchange under the variants lists its returns from the rows
    (`moves.returns_held`): the same list as from every card kind's count, or None for
    two cards from a hand holding a card twice."""
    rules = data.draw(tables())[0]
    counts = data.draw(hands(rules))
    size = data.draw(st.integers(1, 2))
    found = moves.returns_held(rows_of(counts), size)
    if found is None:
        assert size == 2 and max(counts) > 1
    else:
        assert found == moves.returns_by_cards(counts, size)


@given(st.data())
def test_a_due_s_choices_from_the_rows_are_those_by_card_kind(data: Any) -> None:
    """A hand-over's or a discard's choices read off the suit patterns
    (`fast_tricks.due_choices_held`, what the game lists, and the judge from the rows,
    what a view lists) are `moves.due_choices` from every card kind's count."""
    rules = data.draw(tables())[0]
    counts = data.draw(hands(rules))
    due = Due(data.draw(st.sampled_from(["handover", "discard"])), 1)
    rows = rows_of(counts)
    expected = moves.due_choices(counts, due)
    assert fast_tricks.due_choices_held(moves.patterns_of(rows), due) == expected
    assert judge_for(rules).due_choices(rows, due) == expected

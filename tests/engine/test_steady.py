"""The game's steady path (`Game._steady_play`): a set whose effects are its cards' alone
(`Judge.steady_facts`) is carried out from its `facts_of` without a `Trick` nor
`effects_of`.  Here, on random hands, piles and toggles, `effects_of` says of every
such play what that path does; the whole games of the fast == plain tests
(tests/engine/test_plain.py, test_fast_paths.py) play it too."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from president.engine import Play, Top, find_preset, judge_for, tricks

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

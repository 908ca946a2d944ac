"""The judge: one object per table's rules, asked by the game, the views, the screens and
the bots alike; and its fast listing (`fast_tricks`) against the readable one (`tricks`).

Here hands, piles, locks and orders are drawn at random under random toggles (two decks,
wild jokers, sequences, locks, every clearing rule), far more of them than whole games
reach: every list the tables give is the readable statement's list, in its order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from president.engine import Rules, RulesError, Top, Trick, fast_tricks, judge_for, strength, tricks
from president.engine.house import HOUSE_FIELDS
from president.engine.moves import patterns_of, rows_of

from ..strategies import TOGGLE_VALUES, tables

#: The toggles that change what may be played on what (the rest play no part here).
PLAYING = (
    "decks",
    "jokers",
    "joker_mode",
    "twos_clear",
    "clear_rank",
    "bombs",
    "equal_plays",
    "transparent_threes",
    "suit_ranking",
    "sequences",
    "suit_lock",
    "spade_three",
    "spade_two_return",
    "assassination",
    "down_number",
    # every house rule whose trigger clears (nines_clear...): it changes what may follow
    *(
        f.name
        for f in HOUSE_FIELDS
        if f.metadata["trigger"] is not None and f.metadata["trigger"].effect == "clear"
    ),
)


@st.composite
def judged_rules(draw: st.DrawFn) -> Rules:
    toggles = draw(st.fixed_dictionaries({}, optional={n: TOGGLE_VALUES[n] for n in PLAYING}))
    try:
        return Rules(**toggles)
    except RulesError:
        assume(False)
        raise


@st.composite
def hands(draw: st.DrawFn, rules: Rules) -> list[int]:
    """A hand as card-kind counts: up to 20 cards of the deck `rules` deal."""
    copies = [rules.decks] * 52 + [rules.decks * rules.jokers]
    counts = [0] * 53
    for card_id in draw(st.lists(st.integers(0, 52), max_size=20)):
        if counts[card_id] < copies[card_id]:
            counts[card_id] += 1
    return counts


@st.composite
def tricks_of(draw: st.DrawFn, rules: Rules) -> Trick:
    """A pile (none, a set, or a sequence), the order, and a lock the pile could have made."""
    kind = draw(st.sampled_from(["lead", "set", "run"] if rules.sequences else ["lead", "set"]))
    reversed_ = draw(st.booleans())
    if kind == "lead":
        return Trick(None, reversed_, (), False)
    if kind == "set":
        rank = draw(st.integers(0, 13))
        size = draw(st.integers(1, 4 * rules.decks + 2))
        jokers = size if rank == 13 else draw(st.integers(0, min(size - 1, 2)))
        suits = tuple(
            sorted(
                draw(st.lists(st.integers(0, 3), min_size=size - jokers, max_size=size - jokers))
            )
        )
        top = Top(0, rank, size, jokers, False, suits)
    else:
        low = draw(st.integers(0, 10))
        size = draw(st.integers(3, 13 - low))
        suit = draw(st.integers(0, 3))
        jokers = draw(st.integers(0, 1))
        top = Top(0, low, size, jokers, True, (suit,) * (size - jokers))
    lock: tuple[int, ...] = ()
    if rules.suit_lock and top.suits and draw(st.booleans()):
        lock = top.suits
    return Trick(top, reversed_, lock, False)


def tables_against_readable(data: Any) -> None:
    rules = data.draw(judged_rules())
    counts = data.draw(hands(rules))
    trick = data.draw(tricks_of(rules))
    readable = tricks.legal_plays(rules, counts, trick)
    patterns = patterns_of(rows_of(counts))
    fast = fast_tricks.Listing(rules).legal_plays(patterns, trick)
    if fast is not None:
        assert fast == readable
    if rules.variants:  # (under the base rules the judge lists one play per shape)
        assert judge_for(rules).legal_plays(rows_of(counts), trick) == readable
    assert fast_tricks.kind_counts_of(patterns) == counts


#: 400 draws here (16 times the profile's: about a second); the slow tier draws 1,500
#: more.
@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_tables_list_what_the_readable_rules_list(data: Any) -> None:
    tables_against_readable(data)


# (60 times the profile's examples: 1,500; 90,000 under HYPOTHESIS_PROFILE=thorough)
@pytest.mark.slow
@settings(max_examples=settings.default.max_examples * 60, deadline=None)
@given(st.data())
def test_the_tables_list_what_the_readable_rules_list_at_length(data: Any) -> None:
    tables_against_readable(data)


def test_the_tables_answer_the_common_moments_of_daifugo() -> None:
    """A lead, a follow on a set (locked or not) and on a sequence: not left to `tricks`."""
    rules = Rules(
        jokers=1, joker_mode="wild", clear_rank=8, sequences=True, suit_lock=True, spade_three=True
    )
    counts = [1 if card_id % 3 else 0 for card_id in range(53)]
    patterns = patterns_of(rows_of(counts))
    listing = fast_tricks.Listing(rules)
    for trick in (
        Trick(None, False, (), False),
        Trick(Top(1, 4, 2, 0, False, (1, 2)), False, (), False),
        Trick(Top(1, 4, 2, 0, False, (1, 2)), True, (1, 2), False),
        Trick(Top(1, 2, 3, 0, True, (0, 0, 0)), False, (0,), False),
    ):
        assert listing.legal_plays(patterns, trick) is not None, trick


def test_one_judge_per_rules_and_the_same_one_for_equal_rules() -> None:
    rules = Rules(sequences=True)
    assert judge_for(rules) is judge_for(rules)
    assert judge_for(Rules(sequences=True)) is judge_for(rules)
    assert judge_for(Rules()) is not judge_for(rules)


def test_what_is_kept_by_rules_is_bounded() -> None:
    """A server's guests may start games under ever new rules (a hostile pass: 30-50 KiB
    kept for good per rule set, the server's memory rising for as long as they went on):
    the judges and the tables kept by rules are kept for the newest 512."""
    import random

    from president.engine import Game, judge, state

    for target in range(1, 700):
        rules = Rules(target=target, sequences=True)
        game = Game(rules, ["a", "b", "c", "d"])
        game.start_hand(rng=random.Random(target))
        assert judge_for(rules).rules == rules
        state._hand_points(rules, 4)
    for kept in (judge._by_value, state._hand_points, state._clearing):
        assert kept.cache_info().currsize <= 512, kept


def test_the_order_of_ranks_is_the_judge_s_and_a_revolution_reverses_it() -> None:
    assert [strength(rank, False) for rank in (0, 12, 13)] == [0, 12, 13]
    assert [strength(rank, True) for rank in (0, 12, 13)] == [12, 0, 13]
    assert judge_for(Rules()).strength(0, True) == strength(0, True)


# (150 draws, 6 times the profile's, was a fixed 300; 9,000 under
# HYPOTHESIS_PROFILE=thorough)
@settings(max_examples=max(1, settings.default.max_examples * 6), deadline=None)
@given(st.data())
def test_a_quiet_play_only_goes_on_the_pile(data: Any) -> None:
    """What the game's quiet path does without asking (`Game._quiet_play`) is what
    `effects_of` says of every play `is_quiet` names, on any trick, under any toggles."""
    rules = data.draw(tables())[0]
    counts = data.draw(hands(rules))
    trick = data.draw(tricks_of(rules))
    judge = judge_for(rules)
    for play in tricks.legal_plays(rules, counts, trick):
        if not judge.is_quiet(play):
            continue
        suits = tricks.suits_of(play) if rules.variants else ()  # (the quiet path's rules)
        assert tricks.effects_of(rules, 2, play, trick, False) == tricks.Effects(
            False,
            False,
            False,
            tricks.lock_after(rules, trick, play),
            Top(2, play.rank, play.count, play.jokers, False, suits),
            0,
            (),
            False,
        ), (play, trick)


def test_quiet_plays_under_daifugo_are_the_ranks_without_effects() -> None:
    """Daifugo's 5s skip, 7s hand over, 8s clear, 10s discard, Js reverse and the 3S beats
    a joker: a set of any other rank is quiet, a set of those ranks is not."""
    from president.engine import Play, find_preset

    judge = judge_for(find_preset("daifugo"))
    quiet = {rank for rank in "3456789TJQKA2" if judge.is_quiet(Play.parse(f"{rank}H {rank}D"))}
    assert quiet == set("469QKA2")
    assert not judge.is_quiet(Play.parse("4H 5H 6H"))  # sequences go the general way


def test_a_judge_keeps_the_facts_of_a_bounded_number_of_plays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client's judge hears whatever plays its server sends (the log asks it what each
    does): a hostile pass's ever-new cards grew its facts for good (166k, 54 MB)."""
    from president.engine import Play, find_preset
    from president.engine import judge as judging
    from president.engine.cards import CARDS

    monkeypatch.setattr(judging, "FACTS_KEPT", 10)
    judge = judging.Judge(find_preset("daifugo"))
    for card in CARDS[:40]:
        assert judge.dues_of(Play((card,))) == judge.dues_of(Play((card,)))
        assert len(judge._facts) <= 10

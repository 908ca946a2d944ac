"""What may be played on what under the variant toggles (engine/tricks.py; docs/rules.md,
the toggles' sections): each rule on small concrete cases, its combinations with the older
toggles, and properties: `legal_plays` is exactly what `play_problem` accepts, and without
variants both agree with `moves`."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from president.engine import Play, Rules, RulesError, find_preset, moves, parse_cards
from president.engine.cards import CARDS, JOKER_ID, KINDS, counts_of
from president.engine.moves import Top
from president.engine.tricks import (
    Trick,
    clears,
    count_of,
    forbidden_finish,
    is_transparent,
    legal_plays,
    lock_after,
    pile_of,
    play_problem,
    revolts,
    run_of,
)

LEAD = Trick(None, False, (), False)
OPENING = Trick(None, False, (), True)
VARIANT_TOGGLES = (
    "transparent_threes",
    "suit_ranking",
    "sequences",
    "suit_lock",
    "spade_three",
    "jack_back",
    "forbidden_finishes",
)


def rules(**toggles: Any) -> Rules:
    return Rules(**toggles)


def P(text: str) -> Play:
    return Play(parse_cards(text))


def hand(text: str) -> list[int]:
    return counts_of(parse_cards(text))


def on(top: Top | None, reversed: bool = False, lock: tuple[int, ...] = ()) -> Trick:
    return Trick(top, reversed, lock, False)


def pile(rank: int, size: int, jokers: int = 0, suits: tuple[int, ...] = ()) -> Top:
    """A set pile owned by seat 9 (ranks: 0 = 3 .. 12 = 2, 13 = joker)."""
    return Top(9, rank, size, jokers, False, suits)


def run_pile(low: int, size: int, suit: int, jokers: int = 0) -> Top:
    return Top(9, low, size, jokers, True, (suit,) * (size - jokers))


def problem(r: Rules, trick: Trick, cards: str, held: str | None = None) -> str | None:
    return play_problem(r, hand(held if held is not None else cards), trick, P(cards))


def listed(r: Rules, held: str, trick: Trick) -> list[str]:
    return [str(p) for p in legal_plays(r, hand(held), trick)]


SEQ = rules(sequences=True)
SEQ_WILD = rules(sequences=True, jokers=1, joker_mode="wild")
SEQ_WILD2 = rules(sequences=True, jokers=2, joker_mode="wild")
K, A, TWO, EIGHT, TEN, JOKER = 10, 11, 12, 5, 7, 13


# --- sequences --------------------------------------------------------------------------


def test_a_sequence_is_three_or_more_cards_of_one_suit_in_consecutive_ranks() -> None:
    assert run_of(SEQ, P("4H 5H 6H")) == (1, 3, 2)
    assert run_of(SEQ, P("9S 10S JS QS KS")) == (6, 10, 3)
    assert problem(SEQ, LEAD, "4H 5H 6H") is None
    assert "at least 3 cards" in str(problem(SEQ, LEAD, "4H 5H"))
    assert "one suit" in str(problem(SEQ, LEAD, "4H 5D 6H"))
    assert "follow each other" in str(problem(SEQ, LEAD, "4H 6H 7H"))
    assert run_of(rules(), P("4H 5H 6H")) is None  # sequences off
    assert problem(rules(), LEAD, "4H 5H 6H") == (
        "a play must be one rank: a single card or a set of equal cards"
    )


def test_a_sequence_runs_from_3_up_to_2_without_wrapping_around() -> None:
    assert run_of(SEQ, P("KH AH 2H")) == (10, 12, 2)
    assert run_of(SEQ, P("AH 2H 3H")) is None
    assert run_of(SEQ, P("2H 3H 4H")) is None


def test_a_sequence_holds_one_card_of_each_rank() -> None:
    two_decks = rules(sequences=True, decks=2)
    assert run_of(two_decks, P("4H 4H 5H")) is None
    assert "one card of each rank" in str(problem(two_decks, LEAD, "4H 4H 5H 6H"))


def test_wild_jokers_stand_for_missing_cards_inside_a_sequence_only() -> None:
    assert run_of(SEQ_WILD, P("4H JK 6H")) == (1, 3, 2)
    assert run_of(SEQ_WILD, P("4H 5H JK")) is None  # a joker at an end
    assert run_of(SEQ_WILD2, P("4H JK JK 7H")) == (1, 4, 2)
    assert run_of(SEQ_WILD, P("4H JK 7H")) is None  # one joker for two gaps
    high = rules(sequences=True, jokers=1)
    assert run_of(high, P("4H JK 6H")) is None
    assert "joker_mode = 'high'" in str(problem(high, LEAD, "4H JK 6H"))


def test_a_sequence_beats_a_higher_sequence_of_the_same_length_only() -> None:
    four_to_six = on(run_pile(1, 3, 2))
    assert problem(SEQ, four_to_six, "5S 6S 7S") is None
    assert problem(SEQ, four_to_six, "4S 5S 6S") == (
        "the sequence 4 to 6 of hearts cannot be beaten by the sequence 4 to 6 of spades:"
        " its lowest card must be above the pile's lowest (equal_plays is off)"
    )
    assert "below" not in str(problem(SEQ, four_to_six, "3S 4S 5S"))
    assert "above the pile's lowest" in str(problem(SEQ, four_to_six, "3S 4S 5S"))
    assert "a sequence of 3 cards" in str(problem(SEQ, four_to_six, "9S 10S JS QS"))


def test_in_the_reversed_order_a_sequence_beats_when_its_highest_card_is_lower() -> None:
    five_to_seven = on(run_pile(2, 3, 2), reversed=True)
    assert problem(SEQ, five_to_seven, "4S 5S 6S") is None
    assert problem(SEQ, five_to_seven, "3S 4S 5S") is None
    assert "below the pile's highest" in str(problem(SEQ, five_to_seven, "6S 7S 8S"))
    assert "below the pile's highest" in str(problem(SEQ, five_to_seven, "5S 6S 7S"))


def test_equal_plays_let_a_sequence_of_the_same_ranks_follow() -> None:
    for mode in ("allow", "skip"):
        r = rules(sequences=True, equal_plays=mode)
        assert problem(r, on(run_pile(1, 3, 2)), "4S 5S 6S") is None
        assert problem(r, on(run_pile(1, 3, 2), reversed=True), "4S 5S 6S") is None
        assert problem(r, on(run_pile(1, 3, 2)), "3S 4S 5S") is not None


def test_a_sequence_answers_only_a_sequence_and_only_a_sequence_answers_one() -> None:
    assert "a sequence answers only a sequence" in str(problem(SEQ, on(pile(1, 3)), "5S 6S 7S"))
    assert "only a sequence of 3 cards answers a sequence" in str(
        problem(SEQ, on(run_pile(1, 3, 2)), "KC KD KS")
    )
    # Transparent 3s answer sets only.
    r = rules(sequences=True, transparent_threes=True)
    assert problem(r, on(run_pile(1, 3, 2)), "3C 3D 3S") is not None


def test_a_clearing_set_goes_on_a_sequence_pile_as_on_any_pile() -> None:
    four_to_six = on(run_pile(1, 3, 2))
    assert problem(rules(sequences=True, clear_rank=8), four_to_six, "8C") is None
    assert problem(rules(sequences=True, twos_clear=True), four_to_six, "2C") is None
    assert problem(rules(sequences=True, bombs=True), four_to_six, "9C 9D 9H 9S") is None
    assert problem(rules(sequences=True), four_to_six, "8C") is not None


def test_a_sequence_opens_the_game_only_if_it_holds_the_three_of_clubs() -> None:
    assert problem(SEQ, OPENING, "3C 4C 5C") is None
    assert "must contain the 3C" in str(problem(SEQ, OPENING, "4C 5C 6C"))
    assert listed(SEQ, "3C 4C 5C 3D 4D 5D", OPENING) == ["3C", "3C 3D", "3C 4C 5C"]


def test_the_pile_of_a_sequence_is_its_lowest_rank_and_length() -> None:
    assert pile_of(SEQ_WILD, 2, P("4H JK 6H 7H"), LEAD) == Top(2, 1, 4, 1, True, (2, 2, 2))


def test_count_of_counts_a_set_whole_and_a_sequence_s_natural_cards() -> None:
    assert count_of(P("7C 7H JK"), 4) == 3
    assert count_of(P("7C 7H"), 5) == 0
    assert count_of(P("5H 6H 7H"), 4) == 1
    assert count_of(P("6H JK 8H"), 4) == 0  # the joker stands for the 7: not a natural 7


def test_a_sequence_of_five_is_a_revolution_and_four_of_a_kind_still_is() -> None:
    r = rules(sequences=True, revolution=True)
    assert revolts(r, P("4H 5H 6H 7H 8H"))
    assert not revolts(r, P("4H 5H 6H 7H"))
    assert revolts(r, P("4H 4C 4D 4S"))
    assert not revolts(rules(sequences=True), P("4H 5H 6H 7H 8H"))


def test_a_sequence_with_a_natural_card_of_clear_rank_clears_but_twos_and_bombs_do_not() -> None:
    eight = rules(sequences=True, clear_rank=8, jokers=1, joker_mode="wild")
    assert clears(eight, P("7H 8H 9H"), LEAD)
    assert not clears(eight, P("7H JK 9H"), LEAD)  # the joker is no natural 8
    assert clears(rules(sequences=True, clear_rank=10), P("9H 10H JH"), LEAD)
    assert not clears(rules(sequences=True, twos_clear=True), P("KH AH 2H"), LEAD)
    assert not clears(rules(sequences=True, bombs=True), P("4H 5H 6H 7H"), LEAD)
    assert clears(rules(sequences=True, bombs=True), P("4H 4C 4D 4S"), LEAD)


# --- transparent 3s ---------------------------------------------------------------------


def test_transparent_threes_follow_any_set_pile_of_their_size_and_keep_its_rank() -> None:
    r = rules(transparent_threes=True, jokers=1, joker_mode="wild")
    aces = pile(A, 2, 0, (0, 1))
    assert problem(r, on(aces), "3D 3S") is None
    assert problem(r, on(aces, reversed=True), "3D 3S") is None
    assert problem(r, on(aces), "3D JK") is None
    assert "every play in this trick has 2 cards" in str(problem(r, on(aces), "3D"))
    assert pile_of(r, 1, P("3D 3S"), on(aces)) == Top(1, A, 2, 0, False, (1, 3))
    wild_pair = pile(K, 2, 1, (2,))
    assert pile_of(r, 1, P("3D 3S"), on(wild_pair)) == Top(1, K, 2, 1, False, (1, 3))
    assert problem(rules(jokers=1, joker_mode="wild"), on(aces), "3D 3S") is not None
    bomb = r.replace(bombs=True)  # four 3s on a pair: a bomb, not a transparent play
    assert pile_of(bomb, 1, P("3C 3D 3H 3S"), on(aces)) == Top(1, 0, 4, 0, False, (0, 1, 2, 3))


def test_a_lead_of_threes_is_just_threes() -> None:
    r = rules(transparent_threes=True)
    assert pile_of(r, 0, P("3C 3H"), LEAD) == Top(0, 0, 2, 0, False, (0, 2))
    assert not is_transparent(r, P("3C 3H"), LEAD)


def test_threes_on_threes_are_transparent_so_they_never_count_as_an_equal_play() -> None:
    r = rules(transparent_threes=True, equal_plays="skip")
    threes = on(pile(0, 1, 0, (0,)))
    assert is_transparent(r, P("3H"), threes)
    assert problem(rules(transparent_threes=True), threes, "3H") is None  # equal_plays off
    assert not is_transparent(rules(equal_plays="skip"), P("3H"), threes)
    spade = rules(transparent_threes=True, spade_three=True, jokers=1)
    assert not is_transparent(spade, P("3S"), on(pile(JOKER, 1, 1)))
    assert is_transparent(spade, P("3H"), on(pile(JOKER, 1, 1)))


# --- suit ranking -----------------------------------------------------------------------


def test_suit_ranking_an_equal_rank_beats_in_a_higher_suit_in_either_order() -> None:
    r = rules(suit_ranking=True)
    seven_hearts = pile(4, 1, 0, (2,))
    for reversed_ in (False, True):
        assert problem(r, on(seven_hearts, reversed_), "7S") is None
        assert "above hearts" in str(problem(r, on(seven_hearts, reversed_), "7D"))
    assert problem(r, on(pile(4, 2, 0, (1, 2))), "7C 7S") is None
    assert problem(r, on(pile(4, 2, 0, (1, 3))), "7C 7H") is not None
    two_decks = rules(suit_ranking=True, decks=2)
    assert problem(two_decks, on(pile(4, 1, 0, (3,))), "7S") is not None  # equal suits
    assert "equal_plays is off" in str(problem(rules(), on(seven_hearts), "7S"))


def test_suit_ranking_a_play_or_pile_without_a_natural_card_has_no_suit() -> None:
    r = rules(suit_ranking=True, jokers=2, joker_mode="wild", decks=2)
    lone_joker = pile(JOKER, 1, 1)
    assert "has no suit" in str(problem(r, on(lone_joker), "JK"))
    assert problem(r, on(pile(4, 2, 1, (0,))), "7D JK") is None


def test_suit_ranking_with_equal_plays_is_refused_at_table_creation() -> None:
    with pytest.raises(RulesError):
        rules(suit_ranking=True, equal_plays="allow")


# --- the spade 3 --------------------------------------------------------------------------


def test_the_spade_three_beats_a_lone_joker_in_either_order_lock_or_not() -> None:
    r = rules(spade_three=True, jokers=1)
    joker = pile(JOKER, 1, 1)
    for reversed_ in (False, True):
        for lock in ((), (2,)):
            assert problem(r, on(joker, reversed_, lock), "3S") is None
    assert problem(r, on(joker), "3H") is not None
    assert problem(r, on(pile(JOKER, 2, 2)), "3S") is not None
    assert problem(rules(jokers=1), on(joker), "3S") is not None
    assert pile_of(r, 1, P("3S"), on(joker)) == Top(1, 0, 1, 0, False, (3,))
    assert not clears(r, P("3S"), on(joker))


def test_the_spade_three_comes_before_transparency_on_a_lone_joker() -> None:
    r = rules(spade_three=True, transparent_threes=True, jokers=1)
    joker = pile(JOKER, 1, 1)
    assert pile_of(r, 1, P("3S"), on(joker)) == Top(1, 0, 1, 0, False, (3,))
    assert pile_of(r, 1, P("3H"), on(joker)) == Top(1, JOKER, 1, 1, False, (2,))


# --- the suit lock ------------------------------------------------------------------------


def test_a_follow_with_the_pile_s_suit_pattern_locks_the_trick() -> None:
    r = rules(suit_lock=True, jokers=1, joker_mode="wild", sequences=True)
    assert lock_after(r, on(pile(4, 1, 0, (2,))), P("9H")) == (2,)
    assert lock_after(r, on(pile(4, 1, 0, (2,))), P("9S")) == ()
    assert lock_after(r, on(pile(4, 2, 0, (0, 2))), P("9C 9H")) == (0, 2)
    assert lock_after(r, on(run_pile(1, 3, 2)), P("5H 6H 7H")) == (2, 2, 2)
    assert lock_after(r, LEAD, P("9H")) == ()
    assert lock_after(r, on(pile(4, 2, 1, (2,))), P("9H JK")) == ()  # jokers never lock
    assert lock_after(r, on(pile(4, 2, 1, (2,))), P("9C 9H")) == ()
    assert lock_after(r, on(pile(4, 1, 0, (2,)), lock=(2,)), P("9S")) == (2,)
    assert lock_after(rules(), on(pile(4, 1, 0, (2,))), P("9H")) == ()


def test_while_locked_every_play_fits_the_pattern_wild_jokers_standing_in() -> None:
    r = rules(suit_lock=True, jokers=1, joker_mode="wild", sequences=True)
    hearts = on(pile(4, 1, 0, (2,)), lock=(2,))
    assert problem(r, hearts, "KH") is None
    assert problem(r, hearts, "KS") == (
        "the trick is locked to hearts (suit_lock): every card played must take one of those"
        " suits, wild jokers standing for missing suits"
    )
    assert problem(r, hearts, "JK") is None
    clubs_hearts = on(pile(4, 2, 0, (0, 2)), lock=(0, 2))
    assert problem(r, clubs_hearts, "KC KH") is None
    assert problem(r, clubs_hearts, "KC JK") is None
    assert "clubs and hearts" in str(problem(r, clubs_hearts, "KC KD"))
    hearts_run = on(run_pile(1, 3, 2), lock=(2, 2, 2))
    assert problem(r, hearts_run, "5H JK 7H") is None
    assert problem(r, hearts_run, "5S 6S 7S") is not None
    eight = r.replace(clear_rank=8)
    assert problem(eight, hearts, "8S") is not None  # a clearing play fits the lock too
    assert problem(eight, hearts, "8H") is None


# --- forbidden finishes -------------------------------------------------------------------


def test_forbidden_finishes_name_jokers_the_strongest_rank_clear_rank_and_the_spade_three() -> None:
    r = rules(forbidden_finishes=True, jokers=1, joker_mode="wild", clear_rank=8, spade_three=True)
    assert forbidden_finish(r, P("9H JK"), LEAD)
    assert forbidden_finish(r, P("2H"), LEAD)
    assert not forbidden_finish(r, P("2H"), on(None, reversed=True))
    assert forbidden_finish(r, P("3H"), on(None, reversed=True))
    assert not forbidden_finish(r, P("3H"), LEAD)
    assert forbidden_finish(r, P("8H"), LEAD)
    assert forbidden_finish(r, P("3S"), on(pile(JOKER, 1, 1)))
    assert not forbidden_finish(r, P("3S"), on(pile(K, 1, 0, (1,))))
    assert not forbidden_finish(r.replace(forbidden_finishes=False), P("2H"), LEAD)
    seq = r.replace(sequences=True)
    assert forbidden_finish(seq, P("KH AH 2H"), LEAD)
    assert not forbidden_finish(seq, P("9H 10H JH"), LEAD)


# --- the older toggles on top -----------------------------------------------------------


def test_old_toggles_under_variants_judge_sets_as_moves_does() -> None:
    r = rules(sequences=True, twos_clear=True, bombs=True, jokers=1, joker_mode="wild")
    kings = on(pile(K, 2, 0, (0, 1)))
    assert problem(r, kings, "2C") is None  # twos clear any pile
    assert problem(r, kings, "5C 5D 5H JK") is None  # a bomb with a wild joker
    assert problem(r, kings, "AC JK") is None
    assert problem(r, kings, "QC QD") is not None
    assert problem(r, on(pile(K, 2), reversed=True), "QC QD") is None
    high = rules(sequences=True, jokers=1)
    assert problem(high, kings, "AC JK") == "jokers are not wild here (joker_mode = 'high')"
    assert problem(high, on(pile(A, 1, 0, (0,))), "JK") is None


def test_jack_back_reversal_is_named_in_the_sentence() -> None:
    r = rules(jack_back=True)
    assert "a revolution or a jack back" in str(problem(r, on(pile(4, 1), True), "9C"))
    assert "a revolution has reversed" in str(problem(rules(), on(pile(4, 1), True), "9C"))


# --- legal_plays ---------------------------------------------------------------------------


def test_legal_plays_lists_every_suit_choice_in_a_stable_order() -> None:
    r = rules(suit_ranking=True)
    assert listed(r, "7C 7H 9D", LEAD) == ["7C", "7H", "7C 7H", "9D"]
    assert listed(r, "7C 7H 7S 9D", on(pile(4, 1, 0, (1,)))) == ["7H", "7S", "9D"]


def test_legal_plays_lists_sequences_with_jokers_inside_and_standing_for_held_cards() -> None:
    assert listed(SEQ_WILD, "4H 5H 6H JK", LEAD) == [
        "4H",
        "4H JK",
        "4H 5H 6H",
        "4H 6H JK",
        "5H",
        "5H JK",
        "6H",
        "6H JK",
        "JK",
    ]
    assert listed(SEQ_WILD, "4H 5H 6H 7H JK", on(run_pile(0, 4, 1))) == [
        "4H 5H 6H 7H",
        "4H 5H 7H JK",
        "4H 6H 7H JK",
    ]


# --- properties ----------------------------------------------------------------------------


def subsets(counts: list[int]) -> list[Play]:
    """Every distinct nonempty card set (by kinds) a hand holds."""
    kinds = [(i, n) for i, n in enumerate(counts) if n]
    plays = []
    for picks in itertools.product(*(range(n + 1) for _, n in kinds)):
        ids = [i for (i, _), k in zip(kinds, picks, strict=True) for _ in range(k)]
        if ids:
            plays.append(Play(parse_cards([str(CARDS[i]) for i in ids])))
    return plays


@st.composite
def variant_rules(draw: st.DrawFn, variants: bool = True) -> Rules:
    toggles: dict[str, Any] = {
        "decks": draw(st.sampled_from((1, 1, 2))),
        "jokers": draw(st.sampled_from((0, 1, 2))),
        "twos_clear": draw(st.booleans()),
        "clear_rank": draw(st.sampled_from((None, 8, 10))),
        "bombs": draw(st.booleans()),
        "revolution": draw(st.booleans()),
        "equal_plays": draw(st.sampled_from(("off", "allow", "skip"))),
    }
    if toggles["jokers"]:
        toggles["joker_mode"] = draw(st.sampled_from(("high", "wild")))
    if variants:
        for name in VARIANT_TOGGLES:
            toggles[name] = draw(st.booleans())
        if toggles["suit_ranking"]:
            toggles["equal_plays"] = "off"
    try:
        return Rules(**toggles)
    except RulesError:  # pragma: no cover - the draws above avoid refused combinations
        raise AssertionError(toggles) from None


def deal(rng: random.Random, r: Rules, sizes: tuple[int, ...]) -> list[list[int]]:
    """Hands dealt from a few neighbouring ranks and suits, so that sets, sequences, locks
    and answers to each other's plays are common."""
    cards = [i for i in range(52) for _ in range(r.decks)] + [JOKER_ID] * (r.jokers * r.decks)
    low = rng.randrange(12)
    ranks = set(range(low, min(13, low + rng.randint(3, 6)))) | {rng.randrange(13)}
    suits = set(rng.sample(range(4), rng.choice((1, 1, 2, 3))))
    extra = {3, JOKER_ID} if rng.random() < 0.3 else {JOKER_ID}  # the 3S (spade_three)
    pool = [i for i in cards if (i >> 2 in ranks and i & 3 in suits) or i in extra]
    rng.shuffle(pool)
    hands = []
    for size in sizes:
        hands.append(counts_of(CARDS[i] for i in pool[:size]))
        del pool[:size]
    return hands


def random_trick(rng: random.Random, r: Rules, others: list[list[int]]) -> Trick:
    """A lead; a pile made by another hand's legal lead, perhaps followed by a third hand's
    legal answer (which may lock the trick); or (under variants) any pile at all."""
    reversed_ = rng.random() < 0.3
    kind = rng.random()
    if kind < 0.15:
        return Trick(None, reversed_, (), rng.random() < 0.3)
    trick = Trick(None, reversed_, (), False)
    for seat, counts in enumerate(others):
        plays = legal_plays(r, counts, trick)
        if not plays or (trick.top is not None and rng.random() < 0.3):
            break
        play = likely_play(rng, plays, trick.top)
        lock = lock_after(r, trick, play)
        trick = Trick(pile_of(r, seat, play, trick), reversed_, lock, False)
    top = trick.top
    if top is None or (kind < 0.3 and r.variants):
        top = arbitrary_pile(rng, r)
        trick = Trick(top, reversed_, (), False)
    if r.suit_lock and not trick.lock and top.suits and rng.random() < 0.5:
        trick = trick._replace(lock=top.suits)  # as if locked earlier in the trick
    return trick


def likely_play(rng: random.Random, plays: list[Play], top: Top | None) -> Play:
    """A legal play, sequences, lone jokers and answers in the pile's suits often."""
    runs = [p for p in plays if p.rank < 0]
    if runs and rng.random() < 0.5:
        return rng.choice(runs)
    if top is None and Play.parse("JK") in plays and rng.random() < 0.3:
        return Play.parse("JK")
    if top is not None:
        same = [
            p for p in plays if not p.jokers and sorted(c.suit for c in p.cards) == list(top.suits)
        ]
        if same and rng.random() < 0.6:
            return rng.choice(same)
    return rng.choice(plays)


def arbitrary_pile(rng: random.Random, r: Rules) -> Top:
    wild = r.jokers * r.decks if r.joker_mode == "wild" else 0
    if r.sequences and rng.random() < 0.4:
        size = rng.randint(3, 5)
        low = rng.randint(0, 13 - size)
        jokers = rng.randint(0, min(size - 2, wild))
        return Top(1, low, size, jokers, True, (rng.randrange(4),) * (size - jokers))
    rank = rng.randrange(14)
    size = rng.randint(1, 4)
    jokers = size if rank == 13 else rng.randint(0, min(size - 1, wild))
    suits = tuple(sorted(rng.randrange(4) for _ in range(size - jokers))) if r.variants else ()
    return Top(1, rank, size, jokers, False, suits)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant_rules(), st.randoms(use_true_random=False), st.integers(3, 8))
def test_legal_plays_are_exactly_the_card_sets_play_problem_accepts(
    r: Rules, rng: random.Random, size: int
) -> None:
    counts, *others = deal(rng, r, (size, 6, 6))
    for _ in range(4):
        trick = random_trick(rng, r, others)
        if trick.opening:
            counts[0] = max(counts[0], 1)
        accepted = [p for p in subsets(counts) if play_problem(r, counts, trick, p) is None]
        listed_ = legal_plays(r, counts, trick)
        assert len(listed_) == len(set(listed_)), "a card set listed twice"
        assert set(listed_) == set(accepted), (r, counts, trick)
        assert legal_plays(r, counts, trick) == listed_  # a stable order
        for play in listed_:
            assert play_problem(r, counts, trick, play) is None
            after = pile_of(r, 5, play, trick)
            assert (after.owner, after.size, after.run) == (5, play.count, play.rank < 0)
            suits = tuple(sorted(c.suit for c in play.cards if not c.is_joker))
            assert after.suits == (suits if r.variants else ())
            if trick.lock:
                assert lock_after(r, trick, play) == trick.lock


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant_rules(variants=False), st.randoms(use_true_random=False), st.integers(3, 9))
def test_without_variants_the_verdicts_and_shapes_are_moves_own(
    r: Rules, rng: random.Random, size: int
) -> None:
    counts, *others = deal(rng, r, (size, 6, 6))
    for _ in range(4):
        trick = random_trick(rng, r, others)
        if trick.opening:
            counts[0] = max(counts[0], 1)
        plays = subsets(counts)
        outside = [i for i in range(KINDS) if not counts[i]]
        plays += [Play([CARDS[rng.choice(outside)]]) for _ in range(3)]
        plays += [Play([CARDS[i] for i in rng.sample(range(KINDS), 3)]) for _ in range(3)]
        for play in plays:
            ours = play_problem(r, counts, trick, play)
            theirs = moves.play_problem(r, counts, trick.top, trick.reversed, trick.opening, play)
            assert ours == theirs, (r, counts, trick, play)
        shapes = {(p.rank, p.count, p.jokers) for p in legal_plays(r, counts, trick)}
        rows = moves.rows_of(counts)
        expected = {
            (p.rank, p.count, p.jokers)
            for p in moves.legal_plays(r, rows, trick.top, trick.reversed, trick.opening)
        }
        assert shapes == expected, (r, counts, trick)


OLD_TOGGLES = [
    {
        "jokers": 2,
        "joker_mode": mode,
        "equal_plays": equal,
        "twos_clear": twos,
        "clear_rank": clear,
        "bombs": bombs,
        "revolution": True,
    }
    for mode, equal, twos, clear, bombs in itertools.product(
        ("high", "wild"), ("off", "allow", "skip"), (False, True), (None, 8, 10), (False, True)
    )
]
#: A hand and piles where every variant rule has something to say.
COMBINATION_HAND = "3S 4H 5H 6H 8H 8S JK JK"
COMBINATION_TRICKS = (
    LEAD,
    on(pile(4, 1, 0, (2,))),  # a single 7H
    on(pile(4, 1, 0, (2,)), reversed=True),
    on(pile(4, 1, 0, (2,)), lock=(2,)),
    on(pile(3, 2, 0, (0, 2))),  # a pair of 6s
    on(run_pile(0, 3, 2)),  # 3H to 5H
    on(run_pile(0, 3, 2), reversed=True, lock=(2, 2, 2)),
    on(pile(JOKER, 1, 1)),
)


@pytest.mark.parametrize("variant", [*VARIANT_TOGGLES, "all"])
def test_every_combination_of_the_old_toggles_lists_exactly_what_it_accepts(variant: str) -> None:
    counts = hand(COMBINATION_HAND)
    candidates = subsets(counts)
    for old in OLD_TOGGLES:
        on_ = VARIANT_TOGGLES if variant == "all" else (variant,)
        toggles = old | dict.fromkeys(on_, True)
        if "suit_ranking" in on_ and old["equal_plays"] != "off":
            with pytest.raises(RulesError):
                Rules(**toggles)
            continue
        r = Rules(**toggles)
        for trick in COMBINATION_TRICKS:
            accepted = {p for p in candidates if play_problem(r, counts, trick, p) is None}
            assert set(legal_plays(r, counts, trick)) == accepted, (toggles, trick)


def test_under_the_daifugo_preset_a_hearts_sequence_answered_in_hearts_locks_and_8_cuts() -> None:
    r = find_preset("daifugo")
    four_to_six = on(run_pile(1, 3, 2))
    follow = P("7H 8H 9H")
    assert problem(r, four_to_six, "7H 8H 9H") is None
    assert lock_after(r, four_to_six, follow) == (2, 2, 2)
    assert clears(r, follow, four_to_six)  # it holds a natural 8
    locked = on(run_pile(5, 3, 2), lock=(2, 2, 2))  # 8H to 10H, locked to hearts
    held = "9S 10S JS QS 9H JH QH KH JK"
    assert listed(r, held, locked) == ["9H JH JK", "JH QH KH", "JH KH JK"]  # spades locked out
    assert listed(r, held, locked._replace(reversed=True)) == []  # none ends below the 10

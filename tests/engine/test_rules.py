"""Rules: presets by name, and combinations that make no sense refused by name."""

from __future__ import annotations

import dataclasses

import pytest
from president.engine import PRESETS, TOGGLES, Game, Rules, RulesError, find_preset, rules_from
from president.engine.describe import describe


def test_presets_by_name() -> None:
    assert set(PRESETS) == {"classic", "full", "house", "sheet", "table", "daifugo", "japanese"}
    assert find_preset("Classic") is PRESETS["classic"]
    with pytest.raises(RulesError, match=r"no preset 'poker'.*classic, full, house, sheet, table"):
        find_preset("poker")


def test_every_toggle_but_the_house_rules_is_in_one_section() -> None:
    """`president rules` shows the toggles under SECTIONS, then the house rules: a toggle
    in none of them would not be shown at all."""
    from president.engine.describe import SECTIONS
    from president.engine.house import HOUSE_RULES

    sectioned = [name for _, names in SECTIONS for name in names]
    assert sorted(sectioned + list(HOUSE_RULES)) == sorted(TOGGLES)


def test_rules_are_frozen_and_keyword_only() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().target = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Rules(1)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"joker_mode": "wild"}, "joker_mode"),
        ({"auto_return": True, "exchange": "none"}, "auto_return"),
        ({"decks": 3}, "decks"),
        ({"jokers": 5}, "jokers"),
        ({"passing": "sometimes"}, "passing"),
        ({"clear_rank": 9}, "clear_rank"),
        ({"target": 0}, "target"),
        ({"rounds": 0}, "rounds"),
        ({"twos_clear": "yes"}, "twos_clear"),
        ({"target": True}, "target"),
    ],
)
def test_nonsense_is_refused_naming_the_toggle(changes: dict[str, object], named: str) -> None:
    with pytest.raises(RulesError, match=named):
        Rules(**changes)  # type: ignore[arg-type]


def test_table_sizes() -> None:
    with pytest.raises(RulesError, match="at least 3 players"):
        Game(Rules(), ["A", "B"])
    with pytest.raises(RulesError, match="decks = 1 serves at most 8 players, not 11"):
        Game(Rules(), [str(i) for i in range(11)])
    Game(Rules(decks=2), [str(i) for i in range(12)])
    with pytest.raises(RulesError, match="decks = 2 serves at most 12"):
        Game(Rules(decks=2), [str(i) for i in range(13)])
    # past 12 no "set decks = 2": it would be refused again (a tinkerer's pass)
    with pytest.raises(RulesError) as refused:
        Game(Rules(), [str(i) for i in range(13)])
    assert str(refused.value) == (
        "decks = 1 serves at most 8 players, not 13 (decks = 2 serves at most 12)"
    )
    with pytest.raises(RulesError, match="unique"):
        Game(Rules(), ["A", "A", "B"])


def test_equal_skip_with_locked_passing_is_fine() -> None:
    Rules(equal_plays="skip", passing="locked")


def test_rules_from_record_values() -> None:
    assert rules_from("house") == PRESETS["house"]
    assert rules_from({"preset": "classic", "target": 5}).target == 5
    assert rules_from({"target": 5}) == Rules(target=5)
    with pytest.raises(RulesError, match="no toggle 'wildcards'"):
        rules_from({"preset": "classic", "wildcards": True})
    with pytest.raises(RulesError, match=r"no toggle 'must_bet' \(did you mean must_beat\?\)"):
        rules_from({"must_bet": True})  # (as `--set` says it: a toggle's name mistyped)


def test_every_toggle_is_described_in_words() -> None:
    rows = describe(find_preset("house"))
    assert [name for name, _, _ in rows] == list(TOGGLES)
    assert all(words for _, _, words in rows)
    assert dict((n, v) for n, v, _ in rows)["twos_clear"] == "true"


def test_a_count_of_one_is_said_in_the_singular() -> None:
    """A user pass read "1 points to win" in the create form."""
    from president.engine.describe import toggle_words

    top_two = find_preset("classic").replace(scoring="top_two")
    assert toggle_words("target", 1, top_two) == "1 point to win"
    assert toggle_words("target", 5, top_two) == "5 points to win"
    positional = find_preset("daifugo")
    assert toggle_words("rounds", 1, positional) == "1 hand"
    assert toggle_words("rounds", 5, positional) == "5 hands"


def test_a_clearing_play_under_a_suit_lock_is_said_to_be_bound_by_it() -> None:
    """A pass read `daifugo`'s "a set of 8s may be played on any pile" and was refused an
    8♦ on a trick locked to clubs: the lock binds clearing plays too (docs/rules.md)."""
    from president.engine.describe import toggle_words

    daifugo = find_preset("daifugo")
    assert toggle_words("clear_rank", 8, daifugo).endswith("(a suit lock binds it too)")
    both = daifugo.replace(twos_clear=True, bombs=True)
    for name in ("twos_clear", "bombs"):
        assert toggle_words(name, True, both).endswith("(a suit lock binds it too)"), name
        assert "lock" not in toggle_words(name, False, both), name
    unlocked = find_preset("classic").replace(clear_rank=8)
    assert "lock" not in toggle_words("clear_rank", 8, unlocked)


def test_the_words_call_the_last_place_by_the_tables_title() -> None:
    """A newcomer's pass: under `daifugo`, whose last place is the Beggar, the rules in
    words said "then the Scum deals" and "the Scum gives their 2 highest cards"."""
    from president.engine.describe import toggle_words

    daifugo = find_preset("daifugo")
    for name in ("dealer", "later_lead", "exchange"):
        words = toggle_words(name, getattr(daifugo, name), daifugo)
        assert "Beggar" in words and "Scum" not in words, words
    classic = find_preset("classic")
    assert "the Scum gives" in toggle_words("exchange", "two", classic)

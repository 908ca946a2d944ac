"""Hypothesis strategies shared by the engine, protocol and server tests: tables under
every preset with random toggle combinations (every toggle the engine has, so a new one
is drawn at once)."""

from __future__ import annotations

from typing import Any

from hypothesis import assume
from hypothesis import strategies as st
from president.engine import PRESETS, TOGGLES, Rules, RulesError, find_preset
from president.engine.rules import toggle_choices

#: Each toggle with a choice of values (target and rounds are drawn short, below).
TOGGLE_VALUES: dict[str, st.SearchStrategy[Any]] = {
    name: st.sampled_from(list(choices))
    for name in TOGGLES
    if (choices := toggle_choices(name)) is not None
}


@st.composite
def tables(draw: st.DrawFn, most_players: int = 7) -> tuple[Rules, int, int]:
    """(rules, players, seed): a preset with random toggles changed, short games (a low
    target and few rounds), 3 to `most_players` players the deck can serve."""
    base = find_preset(draw(st.sampled_from(list(PRESETS))))
    toggles = draw(st.fixed_dictionaries({}, optional=TOGGLE_VALUES))
    try:
        rules = base.replace(**toggles)
    except RulesError:
        assume(False)
        raise
    rules = rules.replace(
        target=min(rules.target, draw(st.integers(1, 6))),
        rounds=min(rules.rounds, draw(st.integers(1, 4))),
    )
    # a table changes at most 32 toggles from its preset (the protocol's cap on
    # `create_table.toggles` and `table.rules`); the tests send them as classic's changes
    assume(len(rules.changes_from(find_preset("classic"))) <= 32)
    players = draw(st.integers(3, min(rules.max_players, most_players)))
    return rules, players, draw(st.integers(0, 2**32 - 1))

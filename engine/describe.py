"""The rules in words, toggle by toggle (for `president rules`, lobbies and help screens)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from .cards import SUIT_SYMBOLS
from .house import HOUSE_RULES, house_words
from .rules import TOGGLES, Rules


def _yes_no(on: str, off: str) -> Callable[[Any, Rules], str]:
    return lambda value, _rules: on if value else off


_WORDS: Final[dict[str, Callable[[Any, Rules], str]]] = {
    "decks": lambda v, r: (
        "one 52-card deck (3-8 players)"
        if v == 1
        else "two decks shuffled together (up to 12 players)"
    ),
    "jokers": lambda v, r: "no jokers" if v == 0 else f"{v} joker{'s' if v > 1 else ''} per deck",
    "joker_mode": lambda v, r: (
        "jokers rank above the 2s; jokers pair with jokers"
        if v == "high"
        else "jokers are wild: with natural cards they take their rank; alone they rank above the 2s"
    ),
    "dealer": lambda v, r: (
        "hand 1 is dealt by a random seat; then the deal rotates to the left"
        if v == "rotate"
        else "hand 1 is dealt by a random seat; then the Scum deals"
    ),
    "deal_from_president": _yes_no(
        "the deal starts with the President", "the deal starts at the dealer's left"
    ),
    "seat_order": lambda v, r: (
        "seats never move"
        if v == "fixed"
        else "before each hand players are reseated by rank: the President in seat 0, the Scum last"
    ),
    "passing": lambda v, r: (
        "a pass covers that turn only; you may play when the turn comes round"
        if v == "multi_round"
        else "once you pass you sit out until the trick clears"
    ),
    "auto_pass": _yes_no(
        "a player with no legal play is passed for automatically",
        "every player is asked, even with no legal play",
    ),
    "twos_clear": _yes_no(
        "a set of 2s may be played on any pile and clears it; its player leads",
        "2s do not clear: a 2 is merely the highest rank",
    ),
    "clear_rank": lambda v, r: (
        "no rank clears the pile"
        if v is None
        else f"a set of {v}s may be played on any pile and clears it; its player leads"
    ),
    "bombs": _yes_no(
        "four (or more) of a kind may be played on any pile and clears it", "no bombs"
    ),
    "revolution": _yes_no(
        "four (or more) of a kind reverses the rank order for the rest of the hand",
        "no revolutions",
    ),
    "equal_plays": lambda v, r: {
        "off": "equal ranks never beat: a follow must be strictly higher",
        "allow": "a set of the same rank as the last play may also be played",
        "skip": "a set of the same rank may also be played, and the next player misses a turn",
    }[v],
    "must_beat": _yes_no(
        "a follower holding a legal play may not pass", "passing is always allowed when following"
    ),
    "two_finish_penalty": _yes_no(
        "going out with a 2 takes the lowest free place",
        "going out on a 2 is allowed like any other play",
    ),
    "exchange": lambda v, r: {
        "none": "no card exchange",
        "one": "from hand 2 the Scum gives their highest card to the President, who returns one",
        "two": "from hand 2 the Scum gives their 2 highest cards to the President, who returns 2",
        "two_one": "from hand 2 the Scum gives their 2 highest cards to the President, who returns 2;"
        " with 4+ players the Vice-Scum gives their highest to the Vice-President, who returns 1",
    }[v],
    "auto_return": _yes_no(
        "returns are automatic: the receiver's lowest cards",
        "the receiver chooses which cards to return",
    ),
    "first_lead": lambda v, r: (
        "in hand 1 the holder of the 3C leads, and the opening play holds it"
        if v == "three_of_clubs"
        else "in hand 1 the player left of the dealer leads anything"
    ),
    "later_lead": lambda v, r: (
        f"from hand 2 the {'President' if v == 'president' else 'Scum'} leads"
    ),
    "scoring": lambda v, r: {
        "top_two": f"President 2 points, Vice-President 1; the game ends when someone has "
        f"{r.target}+ points and the sole top score",
        "positional": f"place p (from 0) scores players-1-p; highest total after {r.rounds} hands wins",
        "last_president": f"no points: after {r.rounds} hands, that hand's President wins",
    }[v],
    "target": lambda v, r: (
        f"{v} point{'s' * (v != 1)} to win"
        if "target" not in r.idle()
        else f"{v} point{'s' * (v != 1)} (not used by this scoring)"
    ),
    "rounds": lambda v, r: (
        f"{v} hand{'s' * (v != 1)}"
        if "rounds" not in r.idle()
        else f"{v} hand{'s' * (v != 1)} (not used by this scoring)"
    ),
    "title_scum": lambda v, r: f"the last place is called {v} (and next-to-last Vice-{v})",
}


#: The clearing plays' toggles: "on any pile", but a suit lock binds them too (a pass
#: read "any pile" under `daifugo` and was refused an 8 on a trick locked to clubs).
_CLEARING = frozenset({"twos_clear", "clear_rank", "bombs"})


def toggle_words(name: str, value: Any, rules: Rules) -> str:
    """One toggle at `value` in words (`rules` supplies what the words refer to: the last
    place by the table's own title, the Beggar under `daifugo`)."""
    if name in HOUSE_RULES:
        words = house_words(name, value)
    else:
        words = _WORDS[name](value, rules)
        if name in _CLEARING and value not in (None, False) and rules.suit_lock:
            words += " (a suit lock binds it too)"
    if rules.title_scum != "Scum" and name != "title_scum":
        words = re.sub(r"\bScum\b", rules.title_scum, words)
    return words


def value_word(value: object) -> str:
    """A toggle's value as records, `--set`, `president rules` and the screens write it:
    true/false, none, a number or a word as it is."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: The toggles that are not house rules, in the sections `president rules` shows them
#: under (every one in exactly one: `tests/engine/test_rules.py`); the house rules follow,
#: those in force, then the others by name.
SECTIONS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "The cards and the deal",
        ("decks", "jokers", "joker_mode", "dealer", "deal_from_president", "seat_order"),
    ),
    (
        "Leads and turns",
        ("first_lead", "later_lead", "passing", "auto_pass", "must_beat", "equal_plays"),
    ),
    ("Plays that clear or revolt", ("twos_clear", "clear_rank", "bombs", "revolution")),
    ("The exchange", ("exchange", "auto_return", "title_scum")),
    ("Going out and scoring", ("two_finish_penalty", "scoring", "target", "rounds")),
)


def describe(rules: Rules) -> list[tuple[str, str, str]]:
    """(toggle, value as written in records, the rule in words) for every toggle."""
    rows = []
    for name in TOGGLES:
        value = getattr(rules, name)
        rows.append((name, value_word(value), toggle_words(name, value, rules)))
    return rows


#: A card as the engine's words write it (the 3C, the 10D), alone.
CARD_WORD = re.compile(r"\b(10|[2-9JQKA])([CDHS])\b")


def suited(text: str) -> str:
    """The engine's words (a rule, a refusal) with each card as the screens show it:
    "the 3♠" where they say "the 3S" (a pass read 3S in the rules beside 3♠ in the hand)."""
    return CARD_WORD.sub(lambda hit: hit[1] + SUIT_SYMBOLS["CDHS".index(hit[2])], text)

"""The pile's presenter (client/tui/pile.py) and the table around the game as the model
keeps it for the screens (client/model.py `TableState`), without a terminal."""

from __future__ import annotations

import dataclasses

from president.client.model import Chair, TableModel, TableState
from president.client.tui.pile import EMPTY, OVER, pile, pile_line
from president.engine import Card, Phase, Play, parse_cards

from ..views import a_public_view
from .test_table_words import SEATING, table_view


def colour(card: Card) -> str:
    return "red" if card.suit in (1, 2) else "black"


def test_the_pile_line_names_the_top_play_its_cards_coloured_and_the_lock() -> None:
    assert pile_line(None, "ann", colour) == [("class:dim", EMPTY)]
    assert pile_line(a_public_view(SEATING), "ann", colour) == [("class:dim", EMPTY)]
    nines, tens = Play(tuple(parse_cards("9H 9S"))), Play(tuple(parse_cards("10H 10D")))
    view = a_public_view(SEATING, trick=((1, nines), (0, tens)), lock=(2, 1))
    assert pile(view, "ann") == [("bob", nines), ("you", tens)]
    assert pile_line(view, "ann", colour) == [
        ("", "you: "),
        ("red", "10♦ "),
        ("red", "10♥ "),
        ("class:turn", " locked: ♦♥"),
    ]
    assert pile_line(view, "", colour)[0] == ("", "ann: ")
    # the game over, its last trick is no pile (a newcomer read it as one to beat)
    over = a_public_view(SEATING, trick=((1, nines), (0, tens)), phase=Phase.GAME_OVER)
    assert pile_line(over, "ann", colour) == [("class:dim", OVER)]


def test_the_model_keeps_the_table_around_the_game_in_its_own_terms() -> None:
    model = TableModel(me="ann")
    view = table_view(a_public_view(SEATING), toggles={"bombs": True})
    model.see(view, now=100.0)
    table = model.table
    assert isinstance(table, TableState)
    assert (table.name, table.status, table.preset, table.changed) == (
        "t",
        "playing",
        "classic",
        ("bombs",),
    )
    assert table.chair_of("bob") == Chair("bob", "", True, False) and table.chair_of("eve") is None
    assert not table.has_empty_chair
    assert table.seconds_left(101.0) is None  # no timer in this view
    timed = TableState.of(dataclasses.replace(view, turn_deadline_ms=2500), now=100.0)
    assert [timed.seconds_left(t) for t in (100.0, 101.2, 102.5, 109.0)] == [3, 2, 0, 0]

"""The table screen while a due of the cards played or of ranks is owed (salvage...,
queen_bomber): the hand's row shows what may be chosen, the status line says so in
words, and space and enter send the engine's action."""

from __future__ import annotations

from typing import Any

from president.client.model import TableModel
from president.client.tui.table import TableScreen
from president.engine import Bomb, Due, Take, parse_cards

from ..views import a_public_view
from .test_table_words import SEATING, table_view

HAND = tuple(parse_cards("4C 9H KD"))
PLAYED = tuple(parse_cards("6D 2S"))


def screen_owing(due: Due, toggles: dict[str, Any]) -> TableScreen:
    """Ann, seat 0, to pay `due` on her turn."""
    model = TableModel(me="ann", slot=0)
    model.see(table_view(a_public_view(SEATING, due=due, played=PLAYED), toggles=toggles))
    model.hold(HAND, (), 1, "snapshot", 0)
    return TableScreen(model)


def test_a_take_shows_the_cards_played_and_takes_the_one_chosen() -> None:
    screen = screen_owing(Due("salvage", 1, PLAYED), {"salvage": True})
    assert screen.hand() == list(PLAYED)  # not ann's own cards
    _, words = screen.status_line(100)
    assert "take back 1 card of the cards played (shown above)" in words, words
    assert "space chooses, enter takes back" in words
    screen.toggle(1)
    assert screen.actions() == [Take(PLAYED[1:])]


def test_a_bomb_shows_a_card_of_each_rank_and_names_the_rank_chosen() -> None:
    screen = screen_owing(Due("bomb", 1), {"queen_bomber": True})
    assert [card.rank for card in screen.hand()] == list(range(13))
    _, words = screen.status_line(100)
    assert "name 1 rank for all to discard: space chooses, enter names" in words, words
    screen.toggle(4)
    assert screen.actions() == [Bomb(4)]  # the 7s

"""The rules of President as a pure library: no I/O, no clocks, no global randomness."""

from .actions import PASS, Action, Pass, Play, Return
from .cards import CARDS, JOKER, Card, deck, format_cards, parse_cards
from .errors import IllegalAction, RulesError
from .events import (
    Dealt,
    Event,
    ExchangeDone,
    GameOver,
    Gave,
    HandOver,
    HandStarted,
    Passed,
    Played,
    Returned,
    Skipped,
    TrickEnded,
    WentOut,
)
from .moves import Top
from .rules import PRESETS, TOGGLES, Rules, find_preset, rules_from
from .state import Game, Phase
from .view import SeatView

__all__ = [
    "CARDS",
    "JOKER",
    "PASS",
    "PRESETS",
    "TOGGLES",
    "Action",
    "Card",
    "Dealt",
    "Event",
    "ExchangeDone",
    "Game",
    "GameOver",
    "Gave",
    "HandOver",
    "HandStarted",
    "IllegalAction",
    "Pass",
    "Passed",
    "Phase",
    "Play",
    "Played",
    "Return",
    "Returned",
    "Rules",
    "RulesError",
    "SeatView",
    "Skipped",
    "Top",
    "TrickEnded",
    "WentOut",
    "deck",
    "find_preset",
    "format_cards",
    "parse_cards",
    "rules_from",
]

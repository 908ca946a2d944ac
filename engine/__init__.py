"""The rules of President as a pure library: no I/O, no clocks, no global randomness."""

from .actions import PASS, Action, Discard, Due, Handover, Pass, Play, Return
from .cards import CARDS, JOKER, Card, counts_of, deck, format_cards, parse_cards
from .errors import IllegalAction, NotYourTurn, RulesError
from .events import (
    Dealt,
    Discarded,
    Event,
    ExchangeDone,
    Fell,
    GameOver,
    Gave,
    HandedOver,
    HandOver,
    HandStarted,
    Passed,
    Played,
    Returned,
    Skipped,
    TrickEnded,
    WentOut,
    public_event,
)
from .moves import Top
from .phase import Phase
from .rules import PRESETS, TOGGLES, VARIANTS, Rules, find_preset, rules_from
from .state import Game
from .view import PublicView, SeatView, moves_seen

__all__ = [
    "CARDS",
    "JOKER",
    "PASS",
    "PRESETS",
    "TOGGLES",
    "VARIANTS",
    "Action",
    "Card",
    "Dealt",
    "Discard",
    "Discarded",
    "Due",
    "Event",
    "ExchangeDone",
    "Fell",
    "Game",
    "GameOver",
    "Gave",
    "HandOver",
    "HandStarted",
    "HandedOver",
    "Handover",
    "IllegalAction",
    "NotYourTurn",
    "Pass",
    "Passed",
    "Phase",
    "Play",
    "Played",
    "PublicView",
    "Return",
    "Returned",
    "Rules",
    "RulesError",
    "SeatView",
    "Skipped",
    "Top",
    "TrickEnded",
    "WentOut",
    "counts_of",
    "deck",
    "find_preset",
    "format_cards",
    "moves_seen",
    "parse_cards",
    "public_event",
    "rules_from",
]

"""Where a game stands: one enum, its transitions all made by `Game`."""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    """Transitions: BETWEEN_HANDS -> (EXCHANGE ->) PLAY -> BETWEEN_HANDS or GAME_OVER;
    they all happen in `Game`, nowhere else."""

    BETWEEN_HANDS = "between_hands"
    EXCHANGE = "exchange"
    PLAY = "play"
    GAME_OVER = "game_over"

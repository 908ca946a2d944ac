"""Views to build tests on: the engine's public view of a hand in play, as plain as it
gets, with the fields a test cares about changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from president.engine import Phase, PublicView, find_preset


def a_public_view(seating: Sequence[str], **changes: Any) -> PublicView:
    """Hand 2 of a classic game in play: 13 cards each, the first seat to lead, nothing
    played yet, nobody scored; `changes` on top."""
    players = len(seating)
    return PublicView(
        rules=find_preset("classic"),
        hand_number=1,
        phase=Phase.PLAY,
        seating=tuple(seating),
        dealer=players - 1,
        counts=(13,) * players,
        turn=0,
        top=None,
        trick=(),
        played=(),
        revolution=False,
        opening=False,
        passed=(False,) * players,
        locked=(False,) * players,
        finish_order=(),
        standing=tuple(seating),
        scores=tuple((name, 0) for name in seating),
        owed=(),
        hands_played=1,
        winners=(),
        places=(None,) * players,
    )._replace(**changes)

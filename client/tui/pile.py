"""The pile as the screens say it, from the engine's public view: the trick in progress
as (who, play), oldest first, and the live table's line of it (the top play's cards, each
in its colour's style, and the trick's suit lock).  The replay viewer draws the whole
trick from the same `pile`.  No prompt_toolkit here: (style, text) pairs."""

from __future__ import annotations

from collections.abc import Callable

from president.engine import Card, Phase, Play, PublicView

from .narrator import card_text, lock_text

#: What the pile line says when there is nothing to beat.
EMPTY = "empty: the next play leads"
#: ... and once the game is over (its last trick is no pile to beat).
OVER = "none: the game is over"


def pile(view: PublicView, me: str = "") -> list[tuple[str, Play]]:
    """The trick in progress, oldest play first: (who, what), "you" for `me`."""
    return [
        ("you" if me and view.seating[seat] == me else view.seating[seat], play)
        for seat, play in view.trick
    ]


def pile_line(
    view: PublicView | None, me: str, style_of: Callable[[Card], str]
) -> list[tuple[str, str]]:
    """The top of the pile as (style, text) pairs: who played it and its cards (each in
    `style_of` its card), then the suit lock if the trick has one."""
    if view is not None and view.phase is Phase.GAME_OVER:
        return [("class:dim", OVER)]
    if view is None or not view.trick:
        return [("class:dim", EMPTY)]
    who, play = pile(view, me)[-1]
    out = [("", f"{who}: ")]
    out += [(style_of(card), card_text(card) + " ") for card in play.cards]
    if view.lock:
        out.append(("class:turn", f" {lock_text(view.lock)}"))
    return out

"""The lobby's ladder pane: its head stays, its places scroll when the pane cannot hold
them all (at 60x16 it held four rows of the twenty asked for, and said only that a
taller window would show them)."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import UIContent, UIControl

from .fit import cut

#: A line as (style, text), a row of the pane once cut to its width.
Line = tuple[str, str]

#: The foot in short, on the last row of a ladder cut short.
SHORT_FOOT = " · ? not settled yet"


class LadderView(UIControl):
    """`lines(width)`'s head (what the ladder is, the columns' names) above its places
    and its foot (what a `?` means); given fewer rows than they need, as many places as
    fit from `top`, the last row saying which are shown, that ↑/↓ scroll, and the foot
    in short if it fits."""

    def __init__(self, lines: Callable[[int], tuple[list[Line], list[Line], list[Line]]]) -> None:
        self.lines = lines
        #: The first place shown (0: the top of the ladder).
        self.top = 0
        #: The places are more than the pane held when last drawn (↑/↓ scroll them).
        self.cut = False

    def scroll(self, rows: int) -> bool:
        """Up (negative) or down (positive) by `rows` if the places are cut; whether they
        were (clamped when next drawn)."""
        if self.cut:
            self.top = max(0, self.top + rows)
        return self.cut

    def create_content(self, width: int, height: int) -> UIContent:
        head, places, foot = self.lines(width)
        if len(head) + len(places) + len(foot) <= height or not places:  # (none: no scroll)
            self.top, self.cut = 0, False
            rows = head + places + foot
        else:
            head = head[: max(0, height - 2)]  # (at least one place and the mark)
            room = max(1, height - len(head) - 1)
            self.top = max(0, min(self.top, len(places) - room))
            self.cut = True
            shown = places[self.top : self.top + room]
            mark = f"places {self.top + 1}-{self.top + len(shown)} of {len(places)} · ↑/↓ scroll"
            if foot and len(mark) + len(SHORT_FOOT) <= width:
                mark += SHORT_FOOT
            rows = [*head, *shown, ("class:dim", mark)]
        fragments: list[StyleAndTextTuples] = [[(style, cut(text, width))] for style, text in rows]
        return UIContent(get_line=lambda i: fragments[i], line_count=len(fragments))

    def is_focusable(self) -> bool:
        return False

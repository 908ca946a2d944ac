"""A log that follows its newest line, wrapped at words, and scrolls back (PageUp,
PageDown, the mouse wheel) until End or the next move brings it back: the way tig and
htop treat a pager."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import UIContent, UIControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from .fit import wrap

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

#: A line of the log and its style class.
Line = tuple[str, str]
#: How far a wrapped line's continuations are indented.
HANGING = 2


class LogView(UIControl):
    """The last lines of `lines()` that fit, or older ones `back` rows up."""

    def __init__(self, lines: Callable[[], list[Line]], wheel: int = 3) -> None:
        self.lines = lines
        self.wheel = wheel
        self.back = 0
        self.height = 10
        #: What was last drawn while scrolled back: (width, where it ended, its rows).
        self._drawn: tuple[int, int, tuple[Line, ...]] | None = None

    def follow(self) -> None:
        self.back, self._drawn = 0, None

    def scroll(self, rows: int) -> None:
        """Up (positive) or down (negative) by `rows`; clamped when next drawn."""
        self.back, self._drawn = max(0, self.back + rows), None

    def page(self, pages: int) -> None:
        self.scroll(pages * max(1, self.height - 1))

    def rows(self, width: int) -> list[Line]:
        """Each line wrapped, its continuations indented: a chat line whose words wrap
        so that "<ann> ..." begins a row cannot pass for ann's own line."""
        return [
            (style, part) for style, text in self.lines() for part in wrap(text, width, HANGING)
        ]

    def create_content(self, width: int, height: int) -> UIContent:
        self.height = height
        rows = self.rows(width)
        if self.back:
            self.back = self._held(rows, width)
        self.back = min(self.back, max(0, len(rows) - height))
        end = len(rows) - self.back
        window = rows[max(0, end - height) : end]
        self._drawn = (width, end, tuple(window)) if self.back else None
        shown: list[StyleAndTextTuples] = [[row] for row in window]
        if self.back and shown:
            newer = f"↓ {self.back} newer line{'s' if self.back != 1 else ''}: End follows"
            shown[-1] = [("class:dim reverse", newer[:width])]
        return UIContent(get_line=lambda i: shown[i], line_count=len(shown))

    def _held(self, rows: list[Line], width: int) -> int:
        """Scrolled back, the rows drawn last stay where they were as lines come at the
        end and go at the start (the log keeps its last few hundred): `back` from where
        they are now.  A user reading back mid-game saw the text move under them."""
        if self._drawn is None or self._drawn[0] != width or not self._drawn[2]:
            return self.back
        _, end, window = self._drawn
        size = len(window)
        for gone in range(0, end - size + 1):  # rows that went at the start since
            start = end - size - gone
            if tuple(rows[start : start + size]) == window:
                return len(rows) - (start + size)
        return self.back  # (not there any more: as far back as it was)

    def mouse_handler(self, mouse_event: MouseEvent) -> NotImplementedOrNone:
        if mouse_event.event_type == MouseEventType.SCROLL_UP:
            self.scroll(self.wheel)
        elif mouse_event.event_type == MouseEventType.SCROLL_DOWN:
            self.scroll(-self.wheel)
        else:
            return NotImplemented
        return None

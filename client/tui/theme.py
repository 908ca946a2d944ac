"""The screens' colours: one palette per terminal background, and the choice of one.

`THEMES` are `dark`, `light`, `mono` and `neutral`; `choose_theme` picks one from the
command line, then `NO_COLOR` (https://no-color.org: any non-empty value means no colour),
then what the terminal tells of its background (`COLORFGBG`, else its answer to OSC 11:
`background.py`), else `neutral`, readable on a dark background and a light one alike
(black suits in the terminal's own foreground colour, no pale or bright colour).  Suits never rely on
colour alone: their glyphs differ, and each theme also sets them apart by weight (red
suits bold, black suits plain); no theme draws a suit in black, and mono draws no colour."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from president.engine import Card
from president.engine.cards import JOKER_RANK
from prompt_toolkit.application import get_app_or_none
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Dimension as D
from prompt_toolkit.layout import UIContent, UIControl, Window
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from .fit import HelpPages

THEMES = ("dark", "light", "mono", "neutral")

_COMMON = {
    "legal": "underline",
    "selected": "reverse",
    "title": "bold",
}

_PALETTES: dict[str, dict[str, str]] = {
    "dark": {
        "red": "fg:ansibrightred bold",
        "black": "fg:ansibrightcyan nobold",
        "joker": "fg:ansibrightmagenta bold",
        "cursor": "fg:ansiyellow bold",
        "turn": "fg:ansibrightgreen bold",
        # not bright black: some dark palettes (Solarized) draw it in the background's colour
        "dim": "fg:ansigray",
        "message": "fg:ansiyellow",
        # the review's labels, from yellow to bold red (inaccuracy was the green of "your turn")
        "inaccuracy": "fg:ansiyellow",
        "mistake": "fg:ansibrightred",
        "blunder": "fg:ansibrightred bold underline",
    },
    "light": {
        "red": "fg:ansired bold",
        "black": "fg:ansiblue nobold",
        "joker": "fg:ansimagenta bold",
        "cursor": "fg:ansiblue bold",
        "turn": "fg:ansigreen bold",
        "dim": "fg:ansibrightblack",
        "message": "fg:ansimagenta",  # not red: the red suits and the review's mistakes are red
        "inaccuracy": "fg:ansimagenta",
        "mistake": "fg:ansired",
        "blunder": "fg:ansired bold underline",
    },
    # for a background nobody told us: the terminal's own foreground for the black suits,
    # and only the darker ANSI colours that stand out on white and on black alike
    "neutral": {
        "red": "fg:ansired bold",
        "black": "fg:default nobold",
        "joker": "fg:ansimagenta bold",
        "cursor": "fg:ansimagenta bold",
        "turn": "fg:ansigreen bold",
        "dim": "italic",
        "message": "fg:ansimagenta",
        "inaccuracy": "fg:ansimagenta",
        "mistake": "fg:ansired",
        "blunder": "fg:ansired bold underline",
    },
    "mono": {
        "red": "bold",
        "black": "nobold",
        "joker": "bold underline",
        "cursor": "bold",
        "turn": "bold",
        "dim": "",
        "message": "bold",
        "inaccuracy": "",
        "mistake": "bold",
        "blunder": "bold underline",
    },
}


def style_for(theme: str) -> Style:
    """The prompt_toolkit style of a theme."""
    return Style.from_dict({**_COMMON, **_PALETTES[theme]})


def color_depth(theme: str) -> ColorDepth | None:
    """Mono writes no colour at all (not even the defaults' greys); the others leave the
    depth to the terminal (None: what `TERM` and prompt_toolkit's environment say)."""
    return ColorDepth.DEPTH_1_BIT if theme == "mono" else None


def choose_theme(
    asked: str | None,
    environ: Mapping[str, str],
    background: Callable[[], float | None] = lambda: None,
) -> str:
    """The theme to use: the one asked for, else mono if NO_COLOR is set, else the
    terminal's background as COLORFGBG tells it, else as `background()` finds it (the
    terminal's answer to OSC 11: its lightness, 0 to 1, or None), else neutral."""
    if asked:
        return asked
    if environ.get("NO_COLOR"):
        return "mono"
    told = environ.get("COLORFGBG", "").rpartition(";")[2]
    if told.isdigit():
        # rxvt/konsole convention: background colour 0-6 and 8 are dark, 7 and 9-15 light
        return "light" if int(told) in (7, *range(9, 16)) else "dark"
    lightness = background()
    if lightness is not None:
        return "light" if lightness > 0.5 else "dark"
    return "neutral"


def card_style(card: Card) -> str:
    if card.rank == JOKER_RANK:
        return "class:joker"
    return "class:red" if card.suit in (1, 2) else "class:black"


class HasHelp(Protocol):
    help: bool
    help_pages: HelpPages


def add_help_keys(kb: KeyBindings, screen: HasHelp, opens: Filter) -> None:
    """`?` (where `opens`) shows a screen's help overlay; on a screen too short for it,
    `?`, space or page down shows its next page; any other key, escape or enter closes
    it (as does the next page key on the last page)."""
    shown = Condition(lambda: screen.help)

    @kb.add("?", filter=opens)
    def _help(event: KeyPressEvent) -> None:
        screen.help, screen.help_pages.page = True, 0

    @kb.add("?", filter=shown)
    @kb.add("space", filter=shown)
    @kb.add("pagedown", filter=shown)
    def _more(event: KeyPressEvent) -> None:
        screen.help = screen.help_pages.next()

    @kb.add("<any>", filter=shown)
    @kb.add("escape", filter=shown)
    @kb.add("enter", filter=shown)
    def _close_help(event: KeyPressEvent) -> None:
        screen.help, screen.help_pages.page = False, 0


class HelpControl(UIControl):
    """A help overlay's lines, a page at a time where the window is too short for them
    (`HelpPages`)."""

    def __init__(self, screen: HasHelp, lines: Callable[[], Sequence[str]]) -> None:
        self.screen, self.lines = screen, lines

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self.screen.help_pages.page_of(self.lines(), height)
        last = len(lines) - 1
        paged = self.screen.help_pages.pages > 1

        def line(i: int) -> StyleAndTextTuples:
            return [("class:dim" if paged and i == last else "", lines[i])]

        return UIContent(get_line=line, line_count=len(lines), show_cursor=False)

    def preferred_width(self, max_available_width: int) -> int:
        return max((len(line) for line in self.lines()), default=0)

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: object
    ) -> int:
        return len(self.lines())


def help_box_of(
    screen: HasHelp,
    lines: Callable[[], Sequence[str]],
    width: Callable[[], int] | None = None,
    title: str = "help",
) -> Frame:
    """A screen's help overlay: its lines in a frame, paged where they do not fit; as
    wide as `width()` says (or its longest line), or as the whole screen when that is
    only a few columns short of it (the screen beneath showed at its sides: a header's
    last letter beside the frame)."""

    def fitted() -> D:
        wanted = max((len(line) for line in lines()), default=0) if width is None else width()
        app = get_app_or_none()
        inside = app.output.get_size().columns - 2 if app is not None else wanted
        return D.exact(inside if inside - wanted < 4 else wanted)

    return Frame(Window(HelpControl(screen, lines), width=fitted), title=title)

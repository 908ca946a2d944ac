"""The screens' colours: one palette per terminal background, and the choice of one.

`THEMES` are `dark`, `light`, `mono` and `neutral`; `choose_theme` picks one from the
command line, then `NO_COLOR` (https://no-color.org: any non-empty value means no colour),
then what the terminal tells of its background (`COLORFGBG`, else its answer to OSC 11:
`background.py`), else `neutral`, readable on a dark background and a light one alike
(black suits in the terminal's own foreground colour, no pale or bright colour).  Suits never rely on
colour alone: their glyphs differ, and each theme also sets them apart by weight (red
suits bold, black suits plain); no theme draws a suit in black, and mono draws no colour."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from president.engine import Card
from president.engine.cards import JOKER_RANK
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

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
    },
    "light": {
        "red": "fg:ansired bold",
        "black": "fg:ansiblue nobold",
        "joker": "fg:ansimagenta bold",
        "cursor": "fg:ansiblue bold",
        "turn": "fg:ansigreen bold",
        "dim": "fg:ansibrightblack",
        "message": "fg:ansired",
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
    },
    "mono": {
        "red": "bold",
        "black": "nobold",
        "joker": "bold underline",
        "cursor": "bold",
        "turn": "bold",
        "dim": "",
        "message": "bold",
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


def add_help_keys(kb: KeyBindings, screen: HasHelp, opens: Filter) -> None:
    """`?` (where `opens`) shows a screen's help overlay; any key, escape or enter
    closes it."""

    @kb.add("?", filter=opens)
    def _help(event: KeyPressEvent) -> None:
        screen.help = True

    @kb.add("<any>", filter=Condition(lambda: screen.help))
    @kb.add("escape", filter=Condition(lambda: screen.help))
    @kb.add("enter", filter=Condition(lambda: screen.help))
    def _close_help(event: KeyPressEvent) -> None:
        screen.help = False

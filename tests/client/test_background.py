"""Readable on light terminals (issue 27): the theme from what the terminal says of its
background (COLORFGBG, else its answer to OSC 11), else a palette readable on both; the
answer read as a terminal writes it; and the real command in tmux, whose pane answers
OSC 11 with the colour it was given."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from president.client.tui.background import answered, ask_background, lightness
from president.client.tui.theme import choose_theme

from ..harness.processes import PRESIDENT
from ..harness.screen import Pen, Screen
from ..harness.waiting import wait_for

RECORD = Path(__file__).resolve().parents[1] / "engine" / "records" / "game_classic.json"


def test_an_osc_11_answer_is_read_as_a_terminal_writes_it() -> None:
    white, black = b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\", b"\x1b]11;rgb:0000/0000/0000\x07"
    assert lightness(white) == pytest.approx(1.0) and lightness(black) == 0.0
    assert lightness(b"\x1b]11;rgb:fd/f6/e3\x1b\\") == pytest.approx(0.96, abs=0.01)  # Solarized
    assert lightness(b"\x1b]11;rgba:0000/2b2b/3636/ffff\x1b\\") < 0.2  # Solarized dark
    assert lightness(b"\x1b]11;rgb:c/c/c\x07") == pytest.approx(0.8)  # one digit a colour
    assert lightness(b"\x1b[?1;2c") is None  # no answer to OSC 11: only the attributes'
    assert lightness(b"") is None and lightness(b"\x1b]11;rgb:zz/00/00\x07") is None
    assert not answered(white) and answered(white + b"\x1b[?62;22c")
    assert answered(b"\x1b[?1;2c") and not answered(b"\x1b[?1;2")


def test_the_terminals_answer_chooses_dark_or_light_and_silence_neutral() -> None:
    asked: list[bool] = []

    def background(value: float | None) -> Callable[[], float | None]:
        def ask() -> float | None:
            asked.append(True)
            return value

        return ask

    assert choose_theme(None, {}, background(0.9)) == "light"
    assert choose_theme(None, {}, background(0.1)) == "dark"
    assert choose_theme(None, {}, background(None)) == "neutral"
    assert len(asked) == 3
    # asked only when nothing else has said: --theme, NO_COLOR and COLORFGBG come first
    assert choose_theme("dark", {}, background(0.9)) == "dark"
    assert choose_theme(None, {"NO_COLOR": "1"}, background(0.9)) == "mono"
    assert choose_theme(None, {"COLORFGBG": "15;0"}, background(0.9)) == "dark"
    assert len(asked) == 3


def test_no_terminal_is_not_asked() -> None:
    assert ask_background() is None  # pytest's stdin is not a terminal: nothing written


# --- the real command in tmux -----------------------------------------------------------


def black_suit_pens(captured: str) -> set[Pen]:
    """The pens the clubs and spades of a `capture-pane -e` were drawn with."""
    lines = captured.splitlines()
    screen = Screen(len(lines) + 1, 200)
    screen.feed("\r\n".join(lines))
    return {
        Pen(fg=screen.pens[row][column].fg, bold=screen.pens[row][column].bold)
        for row, line in enumerate(screen.cells)
        for column, char in enumerate(line)
        if char in "♣♠"
    }


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize(
    ("style", "wanted"),
    [
        ("bg=white,fg=black", {Pen(fg="34")}),  # light: blue, as the light theme draws them
        ("bg=black,fg=white", {Pen(fg="96")}),  # dark: bright cyan
        ("default", {Pen(fg=""), Pen(fg="39")}),  # no answer: the terminal's own foreground
    ],
)
async def test_the_replay_viewer_in_tmux_takes_the_panes_background(
    style: str, wanted: set[Pen], tmp_path: Path
) -> None:
    """`president replay --view` in a tmux pane with no COLORFGBG: tmux answers OSC 11
    with the pane's background when it has one (window-style), and the clubs and spades
    are drawn in that background's palette; a pane that does not answer gets the palette
    readable on both."""
    socket = str(tmp_path / "tmux")
    shell = ("env", "-u", "COLORFGBG", "-u", "NO_COLOR", "TERM=tmux-256color", *PRESIDENT)
    command = " ".join((*shell, "replay", "--view", str(RECORD), "; sleep 30"))
    tmux = ("tmux", "-S", socket)
    start = ("new-session", "-d", "-x", "80", "-y", "24", "sh", "-c", command)
    styled = (";", "set", "-g", "window-style", style)
    subprocess.run((*tmux, "-f", "/dev/null", *start, *styled), check=True)
    try:

        def captured() -> str:
            run = subprocess.run(
                [*tmux, "capture-pane", "-e", "-p"], capture_output=True, text=True, check=False
            )
            return run.stdout if "♣" in run.stdout else ""

        shown = await wait_for(captured, 30, "the replay viewer's cards")
        assert black_suit_pens(shown) <= wanted and black_suit_pens(shown), shown
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, capture_output=True)

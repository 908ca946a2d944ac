"""A terminal that cannot show every character (a terminal pass: on a Latin-1 terminal
every suit, border and arrow was a `?`, and a wide name pulled the rest of its row left,
leaving stray letters): each character the encoding lacks is drawn in ones it has, in
the same width; `PRESIDENT_ASCII=1` asks for ASCII on any terminal."""

from __future__ import annotations

import io
import os

import pytest
from president.client.tui.fit import cells
from president.client.tui.glyphs import Drawable, DrawnOutput, terminal_output

#: Lines as the screens draw them: cards, a box, the turn's mark and clock, names.
DRAWN = [
    "3♣ 10♥ K♠ A♦",
    "┌──| table |──┐",
    "│▶ 李雷 (you)      13 cards  0 pts  ⏱ 60s",
    "José · Zoë — 4 blunders …",
    "▁▂▃▄▅▆▇█",
    "←/→ cards · ↑/↓ rows",
    "😀 e\u0301",
]


@pytest.mark.parametrize("encoding", ["latin-1", "ascii", "cp437"])
def test_what_cannot_be_shown_is_drawn_in_the_same_width(encoding: str) -> None:
    drawable = Drawable(encoding)
    for text in DRAWN:
        drawn = drawable(text)
        drawn.encode(encoding)  # (every character shown: no `?` from the terminal)
        assert cells(drawn) == cells(text), (text, drawn)
    assert drawable("3♣ 10♥ K♠ A♦") == "3C 10H KS AD"  # (as the text commands say them)
    if encoding != "cp437":  # (an old PC's code page has the lines of a box)
        assert drawable("┌──| table |──┐") == "+--| table |--+"
        assert drawable("│▶ 李雷 (you)").startswith("|> ???? (you)")


def test_a_latin_1_terminal_keeps_its_own_letters_and_ascii_drops_the_accents() -> None:
    assert Drawable("latin-1")("José · Zoë") == "José · Zoë"
    assert Drawable("ascii")("José · Zoë") == "Jose . Zoe"
    assert Drawable("utf-8")(DRAWN[2]) == DRAWN[2]


def a_terminal(encoding: str) -> tuple[io.TextIOWrapper, int]:
    """A pseudo terminal whose program side writes in `encoding`; and its other end."""
    mine, theirs = os.openpty()
    return io.TextIOWrapper(open(theirs, "wb", buffering=0), encoding=encoding), mine


def test_the_screens_output_draws_in_what_the_terminal_shows() -> None:
    latin, latin_end = a_terminal("latin-1")
    utf8, utf8_end = a_terminal("utf-8")
    try:
        assert terminal_output(utf8, {}) is None  # (prompt_toolkit's own)
        assert terminal_output(utf8, {"PRESIDENT_ASCII": "0"}) is None
        asked = terminal_output(utf8, {"PRESIDENT_ASCII": "1"})
        assert isinstance(asked, DrawnOutput) and asked.drawable.encoding == "ascii"
        output = terminal_output(latin, {})
        assert isinstance(output, DrawnOutput)
        output.write("3♣ 李 é")
        output.flush()
        assert os.read(latin_end, 100) == "3C ?? é".encode("latin-1")
        # (no terminal, no screens: prompt_toolkit's own says so)
        assert terminal_output(io.StringIO(), {"PRESIDENT_ASCII": "1"}) is None
    finally:
        for stdout, end in ((latin, latin_end), (utf8, utf8_end)):
            stdout.close()
            os.close(end)

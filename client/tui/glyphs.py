"""What the screens draw on a terminal that cannot show every character (a terminal
pass: on a Latin-1 terminal every suit, border and arrow was a `?`, and a wide name,
laid out in two columns and written as one `?`, pulled the rest of its row left and
left stray letters behind).  Each character the terminal's encoding lacks is drawn in
ones it has, in the same width: a suit as its letter (3♣ as 3C, as the text commands
print it), a line of a box as `-`, `|` and `+`, an arrow as `<` or `>`, an accented
letter as its letter, anything else as a `?` a column.  `PRESIDENT_ASCII=1` asks for
ASCII whatever the locale says (under `LANG=C` Python writes UTF-8, which a terminal
that is not UTF-8 shows as mojibake)."""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Mapping
from typing import Final, TextIO

from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.utils import (
    get_bell_environment_variable,
    get_cwidth,
    get_term_environment_variable,
)

#: The environment variable that asks for ASCII (any value but "", "0").
ASCII_SWITCH: Final = "PRESIDENT_ASCII"

#: How a character the screens use looks in ASCII, one column for one.
ASCII_LOOKS: Final = {
    **dict(zip("♣♦♥♠", "CDHS", strict=True)),
    **dict.fromkeys("─━═", "-"),
    **dict.fromkeys("│┃║", "|"),
    **dict.fromkeys("┌┐└┘├┤┬┴┼╭╮╯╰", "+"),
    **dict(zip("▶◀►◄▸◂←→↑↓", "><><><<>^v", strict=True)),
    **dict(zip("▁▂▃▄▅▆▇█", "_..--==#", strict=True)),
    "⏱": "T",
    "…": "~",  # (a recheck: "FB.3" read as part of a cut fingerprint)
    "·": ".",
    "•": "*",
    "★": "*",
    "—": "-",
    "–": "-",
    "−": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "±": "+",
    "×": "x",
}


def asked_for_ascii(environ: Mapping[str, str] = os.environ) -> bool:
    return environ.get(ASCII_SWITCH, "") not in ("", "0")


def encoding_of(stdout: TextIO, environ: Mapping[str, str] = os.environ) -> str:
    """The encoding the screens are drawn in: the terminal's, or ASCII if asked."""
    return "ascii" if asked_for_ascii(environ) else (getattr(stdout, "encoding", None) or "utf-8")


def shows_everything(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf16", "utf32")


class Drawable:
    """Text as `encoding` can draw it, each character the same width (remembered a
    character at a time: a screen redraws often, with the same few)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._looks: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        if text.isascii():
            return text
        return "".join(self._look(ch) for ch in text)

    def _look(self, ch: str) -> str:
        look = self._looks.get(ch)
        if look is None:
            look = self._looks[ch] = ch if self._shows(ch) else self._instead(ch)
        return look

    def _shows(self, text: str) -> bool:
        try:
            text.encode(self.encoding)
        except UnicodeEncodeError:
            return False
        return True

    def _instead(self, ch: str) -> str:
        width = get_cwidth(ch)
        look = ASCII_LOOKS.get(ch)
        if look is None and width == 1:  # (an accented letter: its letter)
            base = unicodedata.normalize("NFKD", ch)[:1]
            look = base if base.isascii() and base.isprintable() else None
        if look is not None and self._shows(look) and get_cwidth(look) == width:
            return look
        return "?" * max(0, width)


class DrawnOutput(Vt100_Output):
    """A terminal's output that writes what `drawable` makes of each text (the escape
    sequences, ASCII, go as they are)."""

    drawable = Drawable("utf-8")

    def write(self, data: str) -> None:
        super().write(self.drawable(data))


def terminal_output(
    stdout: TextIO | None = None, environ: Mapping[str, str] = os.environ
) -> Output | None:
    """The output to draw the screens on: None (prompt_toolkit's own) where the terminal
    shows every character, or is none; else one that draws what it cannot in what it
    can."""
    stdout = sys.stdout if stdout is None else stdout
    encoding = encoding_of(stdout, environ)
    if shows_everything(encoding) or sys.platform == "win32" or not stdout.isatty():
        return None
    output = DrawnOutput.from_pty(
        stdout,
        term=get_term_environment_variable(),
        default_color_depth=ColorDepth.from_env(),
        enable_bell=get_bell_environment_variable(),
    )
    assert isinstance(output, DrawnOutput)
    output.drawable = Drawable(encoding)
    return output

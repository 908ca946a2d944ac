"""What the terminal says of its background colour, asked once before a screen opens.

The question is OSC 11 (`ESC ] 11 ; ? ST`), which xterm, VTE terminals (GNOME Terminal),
Konsole, iTerm2, kitty, foot, WezTerm, Alacritty and tmux (when it knows the pane's
colour) answer with `ESC ] 11 ; rgb:RRRR/GGGG/BBBB ST`.  It is followed by the primary
device attributes question (DA1, `ESC [ c`), which every terminal answers: once that
answer is in, an OSC 11 answer would have come before it, so a terminal that does not
know OSC 11 costs one round trip rather than the whole timeout, and no late answer is
left to be read as keys by the screen that opens next.  Only on a real terminal (stdin
and stdout both one), and only for `timeout` seconds."""

from __future__ import annotations

import os
import re
import select
import time

#: An OSC 11 answer: 1 to 4 hex digits for each of red, green and blue.
_ANSWER = re.compile(rb"\x1b\]11;rgba?:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})")
#: The answer to DA1: the terminal's attributes, `ESC [ ? ... c`.
_ATTRIBUTES = re.compile(rb"\x1b\[\?[0-9;]*c")

#: The questions: the background colour, then the device attributes.
QUESTION = b"\x1b]11;?\x1b\\\x1b[c"


def lightness(answer: bytes) -> float | None:
    """The relative luminance (0 black to 1 white, ITU-R BT.709 weights) of the background
    an OSC 11 answer gives, or None if `answer` holds none."""
    found = _ANSWER.search(answer)
    if found is None:
        return None
    parts: tuple[bytes, ...] = found.groups()
    red, green, blue = (int(part, 16) / (16 ** len(part) - 1) for part in parts)
    return float(0.2126 * red + 0.7152 * green + 0.0722 * blue)


def answered(answer: bytes) -> bool:
    """Whether the terminal has said all it will: its device attributes have come."""
    return _ATTRIBUTES.search(answer) is not None


#: Terminals not to ask: the Linux console reads `ESC ]` as its own palette commands.
_UNASKED = ("", "dumb", "linux")


def ask_background(timeout: float = 0.5) -> float | None:
    """The lightness of the terminal's background, as it answers OSC 11; None when it
    does not answer (or there is no terminal to ask: stdin and stdout must both be one,
    by their file descriptors, not by what `sys.stdin` claims)."""
    if os.name != "posix" or not (os.isatty(0) and os.isatty(1)):
        return None
    if os.environ.get("TERM", "") in _UNASKED:
        return None
    import termios

    answer = b""
    try:
        saved = termios.tcgetattr(0)
        quiet = termios.tcgetattr(0)
        quiet[3] &= ~(termios.ICANON | termios.ECHO)  # the answer unechoed, byte by byte
        termios.tcsetattr(0, termios.TCSANOW, quiet)
        try:
            os.write(1, QUESTION)
            end = time.monotonic() + timeout
            while not answered(answer) and (left := end - time.monotonic()) > 0:
                ready, _, _ = select.select([0], [], [], left)
                if ready:
                    answer += os.read(0, 256)
        finally:
            termios.tcsetattr(0, termios.TCSANOW, saved)
    except (OSError, termios.error):
        return None
    return lightness(answer)

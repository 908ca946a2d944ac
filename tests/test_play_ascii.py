"""README: "`PRESIDENT_ASCII=1` asks for ASCII": `president play` in a real terminal (a
pseudo-terminal, 80x24) drawn in ASCII alone, cards with their suits as letters, boxes of
`-`, `|` and `+` (a terminal pass: on a terminal that is not UTF-8 every suit, border and
arrow was a `?`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .harness.processes import PRESIDENT, environment
from .harness.terminal import Terminal

pytestmark = pytest.mark.slow

#: A control sequence (what remains of the output without them is what was drawn).
CONTROL = re.compile(
    r"\x1b(\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[=>78M])"
)


async def test_president_play_asked_for_ascii_draws_in_ascii(tmp_path: Path) -> None:
    env = {**environment(tmp_path), "PRESIDENT_ASCII": "1"}
    command = [*PRESIDENT, "play", "--players", "4", "--name", "ann"]
    command += ["--bot-delay", "0", "--pause", "0.5"]
    ann = Terminal(command, env, rows=24, columns=80)
    try:
        text = await ann.shows("> ann (you)", 60)  # (the turn's mark, ▶ on a UTF-8 one)
        assert "+--" in text and "| table |" in text
        lines = text.splitlines()
        hand = lines[next(i for i, line in enumerate(lines) if "your hand" in line) + 1]
        assert re.search(r"\[(10|[2-9JQKA])[CDHS]\]", hand), hand  # (the cursor's card)
        drawn = CONTROL.sub("", ann.output())
        assert drawn.isascii(), sorted({ch for ch in drawn if not ch.isascii()})
        ann.send("qq")  # (a game is on: q asks again)
        assert await ann.exits() == 0
    finally:
        ann.close()

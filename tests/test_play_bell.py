"""README: "the terminal's title says when it is your turn; `--bell` rings its bell as
it comes": `president play --bell` in a real terminal (a pseudo-terminal, 80x24), as a
player in another window would be told (on game night a player reading elsewhere saw
nothing of their turn until the timer played for them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness.processes import PRESIDENT, environment
from .harness.terminal import Terminal

pytestmark = pytest.mark.slow

TURN = "\x1b]2;president: your turn\x07"


async def test_president_play_titles_my_turn_and_rings_when_asked(tmp_path: Path) -> None:
    command = [*PRESIDENT, "play", "--players", "4", "--name", "ann", "--bell"]
    command += ["--bot-delay", "0", "--pause", "0.5"]
    ann = Terminal(command, environment(tmp_path), rows=24, columns=80)
    try:
        await ann.shows("your turn", 60)
        output = ann.output()
        assert "\x1b[22;0t" in output  # (the terminal's own title kept first)
        assert TURN + "\x07" in output  # (my turn: the title, then the bell)
        ann.send("qq")  # (a game is on: q asks again)
        assert await ann.exits() == 0
        after = ann.output()
        ended = after.rindex("\x1b]2;\x07")  # (the title cleared, the terminal's own back)
        assert after.index("\x1b[23;0t", ended) > ended
    finally:
        ann.close()

"""The review of a game just played (`v` once `president play`'s game is over), as a
person opens it in a real terminal: it runs to its end, shows its figures, and `q`
then quits the program.  A user pass found it froze instead: its worker processes,
forked from `president play`, inherited the event loop's handler of SIGTERM, so the
pool's `terminate` at the review's end waited on them for ever, the screen with it
(Ctrl-C did nothing); `kill -9` of a worker let it go on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ..harness.processes import PRESIDENT, environment
from ..harness.terminal import Terminal
from ..test_restarts import play_as_a_person

pytestmark = pytest.mark.slow


async def test_the_review_after_a_game_runs_to_its_end_and_q_quits(tmp_path: Path) -> None:
    command = [*PRESIDENT, "play", "--players", "3", "--bots", "random", "--name", "ann"]
    command += ["--set", "target=1", "--bot-delay", "0", "--pause", "0.3"]
    ann = Terminal(command, environment(tmp_path), rows=24, columns=80)
    halt = asyncio.Event()
    person = asyncio.create_task(play_as_a_person(ann, halt))
    try:
        await ann.shows("GAME OVER after", 120)
        halt.set()
        await person
        await ann.shows("v: its review", 10)
        ann.send("v")
        # the review's figures once every decision is judged and the cards weighed (the
        # timeout only ends a wait that would hang: a hand's review takes seconds)
        await ann.shows("accuracy", 120)
        ann.send("q")  # the review put away: the table and its standings
        await ann.shows("final standings", 20)
        ann.send("q")  # and the program ends
        assert await ann.exits(30) == 0
    finally:
        halt.set()
        ann.close()
    assert "Traceback" not in ann.output()

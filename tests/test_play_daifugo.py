"""The README's `president play` under the Daifugo rules, as a person runs it in a real
terminal (a pseudo-terminal, 80x24): playing a 7 or a 10 makes a due, the status line
says it, and the person pays it with the same keys as a play (`s` chooses the lowest
cards, enter pays)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from .harness.processes import PRESIDENT, environment
from .harness.terminal import Terminal
from .harness.waiting import wait_for

pytestmark = pytest.mark.slow

#: What ann's screen shows when the table waits on her.
TURN = "▶ ann (you)"
DUE = re.compile(r"enter (discards|hands over)")
#: What the log says of a due she paid.
PAID = {"you discard": "discard", "you hand": "handover"}


def hand_cards(text: str) -> list[str]:
    """The cards of the `your hand` box, in order (the cursor's brackets dropped)."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if "your hand" in line), None)
    if at is None or at + 1 >= len(lines):
        return []
    return re.findall(r"(10|[2-9JQKA])[♣♦♥♠]|JK", lines[at + 1].replace("[", " "))


async def test_a_person_pays_a_discard_and_a_handover_in_president_play(tmp_path: Path) -> None:
    env = environment(tmp_path)
    command = [*PRESIDENT, "play", "--preset", "daifugo"]
    command += ["--players", "3", "--bots", "random", "--name", "ann"]
    command += ["--bot-delay", "0", "--pause", "0.5"]  # the bots at full speed
    ann = Terminal(command, env, rows=24, columns=80)
    paid: set[str] = set()

    def status_line() -> str:
        text = ann.text()
        return text.splitlines()[-1] if text else ""

    def said_paid() -> bool:
        """The log says what she paid (it stays on screen while the table waits on her)."""
        shown = ann.text()
        paid.update(due for words, due in PAID.items() if words in shown)
        return bool(paid)

    try:
        await ann.shows(TURN, 60)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 300  # (only a hang ends it: a game has many 7s and 10s)
        while paid != {"discard", "handover"}:
            assert loop.time() < deadline, (paid, ann.text())
            said_paid()
            text = ann.text()
            if "GAME OVER" in text:  # (over before she paid both: r, another game; a CI
                ann.send("\x1b")  # run saw a game of 5 hands with no 7 she could play)
                await ann.settled(0.3)
                ann.send("r")
                await wait_for(lambda: "GAME OVER" not in ann.text(), 30, ann.text)
                continue
            status = text.splitlines()[-1] if text else ""
            if "gives back" in status:  # the exchange of a later hand: the lowest cards
                ann.send("s\r")
                await ann.settled(0.3)
                continue
            if DUE.search(status):
                ann.send("s\r")  # the lowest cards, paid
                await wait_for(lambda: not DUE.search(status_line()), 30, ann.text)
                said_paid()
                continue
            if TURN in text and "p passes" in status and "space chooses" not in status:
                ann.send("p")  # nothing beats the pile
            elif TURN in text and ("your turn" in status or "may not pass" in status):
                cards = hand_cards(text)
                wanted = [r for r, due in (("10", "discard"), ("7", "handover")) if due not in paid]
                rank = next((r for r in wanted if r in cards), "")
                if rank:
                    # play that card alone (a lead, or a follow if it beats the pile): to the
                    # left end, right to it, choose, play.  The choice is empty at the start
                    # of a turn (a play or a pass clears it); if this one is refused (it does
                    # not beat the pile, or the opening lead holds the 3C), s replaces it.
                    ann.send("\x1b[D" * 20 + "\x1b[C" * cards.index(rank) + " \r")
                    await ann.settled(0.4)
                    if DUE.search(ann.text().splitlines()[-1]):
                        continue
                ann.send("s\r")
                await ann.settled(0.3)
                now = ann.text().splitlines()[-1]
                if TURN in ann.text() and "your turn" in now and "p passes" in now:
                    ann.send("p")  # (s chose nothing: nothing to play that is wanted)
            await ann.settled(0.1)
        assert paid == {"discard", "handover"}, ann.text()
    finally:
        ann.close()

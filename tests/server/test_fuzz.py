"""A bounded sample of `scripts/fuzz.py` (which runs 100,000 inputs a campaign): the
decoders and the lobby's handlers take random and mutated input without a crash.  Its
"hangs" (an input over a second, by the clock) are the script's figure, not asserted
here: a machine shared and loaded took over a second for one input of the suite's run
(no assertion on wall-clock time).  A handler that never returns is a crash
(`fuzz.STUCK`)."""

from __future__ import annotations

import random
from pathlib import Path

from scripts import fuzz


def test_decoders_take_mutated_frames_without_a_crash(tmp_path: Path) -> None:
    crashes, _, _ = fuzz.fuzz_decoders(5000, random.Random(11), tmp_path)
    assert crashes == 0
    assert not list(tmp_path.iterdir())


async def test_handlers_take_random_messages_without_a_crash(tmp_path: Path) -> None:
    crashes, _, _ = await fuzz.fuzz_handlers(3000, random.Random(12), tmp_path)
    assert crashes == 0

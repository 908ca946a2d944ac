"""A bounded sample of `scripts/fuzz.py` (which runs 100,000 inputs a campaign): the
decoders and the lobby's handlers take random and mutated input without a crash."""

from __future__ import annotations

import random
from pathlib import Path

from scripts import fuzz


def test_decoders_take_mutated_frames_without_a_crash(tmp_path: Path) -> None:
    crashes, hangs, _ = fuzz.fuzz_decoders(5000, random.Random(11), tmp_path)
    assert (crashes, hangs) == (0, 0)
    assert not list(tmp_path.iterdir())


async def test_handlers_take_random_messages_without_a_crash(tmp_path: Path) -> None:
    crashes, hangs, _ = await fuzz.fuzz_handlers(3000, random.Random(12), tmp_path)
    assert (crashes, hangs) == (0, 0)

"""A small run of `scripts/load.py` (the full one: 50 tables × 4 bots and 500 idle
connections, figures in docs/reliability.md): a real server process, every game
finished, every record replayed, the idle connections still open at the end."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ..harness.processes import Process

SCRIPT = Path(__file__).parents[2] / "scripts" / "load.py"


@pytest.mark.slow
def test_a_small_load_run_finishes_every_game() -> None:
    load = Process(
        [
            str(SCRIPT),
            *("--tables", "4", "--idle", "40", "--jobs", "1", "--target", "5"),
            "--seconds",
            "120",
        ],
        command=[sys.executable],
    )
    assert load.wait(300) == 0, load.text() + load.errors()[-2000:]
    out = load.text()
    assert "games finished: 4/4" in out and "records replayed OK: 4/4" in out
    assert "deals that did not check out: 0" in out
    assert "idle connections still open at the end: 40/40" in out
    assert out.rstrip().endswith("OK")

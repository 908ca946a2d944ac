"""A small run of `scripts/load.py` (the full one: 50 tables × 4 bots and 500 idle
connections, figures in docs/reliability.md): a real server process, every game
finished, every record replayed, the idle connections still open at the end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "load.py"


def test_a_small_load_run_finishes_every_game() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--tables",
            "4",
            "--idle",
            "40",
            "--jobs",
            "1",
            "--target",
            "5",
            "--seconds",
            "120",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert "games finished: 4/4" in out.stdout and "records replayed OK: 4/4" in out.stdout
    assert "deals that did not check out: 0" in out.stdout
    assert "idle connections still open at the end: 40/40" in out.stdout
    assert out.stdout.rstrip().endswith("OK")

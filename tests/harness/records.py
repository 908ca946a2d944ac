"""What `president replay --json` says of a game record, without a process (the command
itself is run as one by tests/test_cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from president.engine.record import loads, replay


def replayed(path: Path | str) -> dict[str, Any]:
    """The record at `path` replayed through the engine: `ok` (every step legal), the
    hands, scores, `game_over` and `winners`, as `president replay --json` prints them."""
    summary: dict[str, Any] = replay(loads(Path(path).read_bytes())).to_json()
    return summary

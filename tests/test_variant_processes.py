"""Issue 16's promise with real processes: `president bot` processes play a whole game at
a `daifugo` table of a `president server` (7s handed over, 10s discarded, through the
protocol's version 5), and the record the server writes replays with `president replay`."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest

from .harness.processes import ServerProcess, bot_process, environment, president, stop

pytestmark = pytest.mark.slow


async def test_bots_play_a_whole_daifugo_game_and_its_record_replays(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    bots = None
    try:
        bots = bot_process(
            server,
            environment(tmp_path),
            *("--table", "D", "--preset", "daifugo", "--seats", "4", "--count", "4"),
            *("--strategy", "random", "--seed", "5", "--games", "1", "--give-up", "10"),
            merge_stderr=True,
        )
        assert await bots.exits(180) == 0, bots.text()
        assert bots.count("game 1 over") == 4, bots.text()
        assert server.stop(signal.SIGINT) == 0
    finally:
        stop(server, bots)
    assert "1 game record written" in server.text(), server.text() + server.errors()
    (path,) = list(data.rglob("*.json"))
    record = json.loads(path.read_text())
    assert record["rules"]["preset"] == "daifugo", record["rules"]
    decisions = [step for hand in record["hands"] for step in hand["actions"]]
    kinds = {key for step in decisions for key in step if key != "seat"}
    assert {"handover", "discard"} <= kinds, kinds  # 7s and 10s were played and paid
    checked = await asyncio.to_thread(president, "replay", "--json", str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["ok"] is True, checked.stdout

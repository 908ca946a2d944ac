"""Whole games through a real server over TLS on loopback."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from .helpers import running_server, table_of_bots, wait_for


async def test_four_clients_play_a_whole_game_and_the_record_replays(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path)
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        await wait_for(lambda: len(server.records) == 1)
        for c in clients:
            assert not [e for e in c.errors if e.code != "rate_limited"], c.errors
            # every hand's deal checked out for every seat
            assert c.model.deal_results and all(v is None for v in c.model.deal_results.values())
        for t in tasks:
            t.cancel()
    record = Path(server.records[0])
    out = subprocess.run([sys.executable, "-m", "president", "replay", "--json", str(record)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    summary = json.loads(out.stdout)
    assert summary["ok"] and summary["game_over"] and summary["winners"]

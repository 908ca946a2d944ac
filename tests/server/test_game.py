"""Whole games through a real server over TLS on loopback."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from president.protocol import messages as m

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


async def test_no_client_ever_receives_another_seats_cards(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path, preset="house")
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        for c in clients:
            hands = [msg for msg in c.received if isinstance(msg, m.SealedHand)]
            assert hands
            for sealed in hands:
                # sealed to this client's key: it opened (errors would show otherwise)
                seat_name = None
                views = [v for v in c.received if isinstance(v, m.TableView) and v.hand == sealed.hand]
                seat_name = views[-1].seats[sealed.seat].name
                assert seat_name == c.model.me
            assert not c.errors
            # no message but a sealed hand ever carries cards the client did not see played
            for msg in c.received:
                assert not isinstance(msg, m.SealedHand) or msg.sealed.count(b"3C") == 0
        for t in tasks:
            t.cancel()

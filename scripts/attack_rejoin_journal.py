#!/usr/bin/env python3
"""A hostile guest grows the server's journal: at its own table (four of its clients, no
turn timer) a game is started and left standing (nobody plays), then each client leaves
and takes its chair back by key as fast as the server answers.  Each time back the table
journals the seats and a snapshot (the hand sealed again), and sends the view to everyone
there and the hand's history; a table's journal is compacted only when its game ends.
On a real `president server` on loopback.

Printed: rejoins a second, the journal's growth (bytes, entries), then the time the
server takes to start again on that journal (it replays it: hand histories included).

    cd scripts && ../.venv/bin/python attack_rejoin_journal.py [--seconds 20]"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from attack_hand_history import connect_as
from attack_seatlock import SOURCE, spawn
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import environment, start_server, stop_server


def journal(data: Path) -> tuple[int, int]:
    """The journal's bytes (with its WAL) and its entries."""
    size = sum(p.stat().st_size for p in data.glob("tables.sqlite3*"))
    with contextlib.closing(sqlite3.connect(data / "tables.sqlite3")) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        rows = sum(db.execute(f"select count(*) from {t}").fetchone()[0] for t in tables)
    return size, rows


async def attack(args: argparse.Namespace) -> int:
    home = Path(tempfile.mkdtemp(prefix="president-rejoin-"))
    data = home / "server"
    log = (home / "server.log").open("w")
    env = environment(home)
    server = start_server(args.python, data, "--pause", "0", env=env, stderr=log)
    address, pin = server.address, server.pin
    known = KnownServers(home / "known")
    SOURCE.set("127.0.0.5")
    clients = [await connect_as(address, pin, known, f"r{i}") for i in range(4)]
    for client in clients:
        spawn(client.run())
    await clients[0].send(
        m.CreateTable(name="stuck", preset="classic", toggles={}, seats=4, turn_seconds=0)
    )
    await asyncio.sleep(0.3)
    for client in clients:
        await client.send(m.Join(table="stuck"))
    await asyncio.sleep(0.3)
    for client in clients:
        await client.send(m.Ready())
    await asyncio.sleep(1)
    before = journal(data)
    count = 0
    stop = time.monotonic() + args.seconds

    async def loop(client: object) -> None:
        nonlocal count
        c = clients[clients.index(client)]  # type: ignore[arg-type]
        while time.monotonic() < stop:
            seen = sum(1 for x in c.received if isinstance(x, m.Seated))
            await c.send(m.Leave())
            await c.send(m.Join(table="stuck"))
            while sum(1 for x in c.received if isinstance(x, m.Seated)) == seen:
                await asyncio.sleep(0.002)
                if time.monotonic() > stop:
                    return
            count += 1

    for client in clients:
        client.keep = True
    began = time.monotonic()
    await asyncio.gather(*(loop(c) for c in clients))
    took = time.monotonic() - began
    await asyncio.sleep(0.5)
    after = journal(data)
    history = sum(1 for c in clients for x in c.received if isinstance(x, m.HandHistory))
    print(
        f"{count} rejoins in {took:.1f} s ({count / took:.1f}/s, {history} history pages sent):"
        f" journal {before[0] / 1024:.0f} -> {after[0] / 1024:.0f} KiB"
        f" ({(after[0] - before[0]) / took / 1024:.1f} KiB/s), entries {before[1]} -> {after[1]}"
        f" ({(after[1] - before[1]) / max(1, count):.1f} a rejoin)"
    )
    for client in clients:
        await client.link.close()
    stop_server(server.proc)
    began = time.monotonic()
    again = start_server(args.python, data, "--pause", "0", env=env, stderr=log)
    print(f"restart on that journal: ready in {time.monotonic() - began:.2f} s")
    stop_server(again.proc)
    log.close()
    text = (home / "server.log").read_text()
    print(f"server log: {len(text.splitlines())} lines, {text.count('Traceback')} tracebacks")
    print(f"server: {args.python} (command: python {' '.join(sys.argv)})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

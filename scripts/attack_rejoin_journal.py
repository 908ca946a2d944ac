#!/usr/bin/env python3
"""A hostile guest grows the server's journal: at its own table (four of its clients, no
turn timer) a game is started and left standing (nobody plays), then each client leaves
and takes its chair back by key as fast as the server answers.  Each time back the table
journals the seats and a snapshot (the hand sealed again), and sends the view to everyone
there and the hand's history; a table's journal is compacted only when its game ends.
On a real `president server` on loopback.

Printed: rejoins a second, the journal's growth (bytes, entries), another table's moves
a second and a lobby client's ping round trip (in a process of their own) before, during
and after, then the time the server takes to start again on that journal (it replays it:
hand histories included).  `--tables` such tables, each from an address of its own.

    cd scripts && ../.venv/bin/python attack_rejoin_journal.py [--seconds 20]"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import sqlite3
import statistics
import sys
import time
from pathlib import Path

from attack_hand_history import connect_as
from attack_history_flood import victim_process
from attack_seatlock import SOURCE, spawn
from president.client.connection import Client
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import LoggedServer, stop_server

#: No pauses, quick server bots: the victim table's pace is the server's.
PACE = ("--pause", "0", "--bot-delay", "0.01")


def journal(data: Path) -> tuple[int, int]:
    """The journal's bytes (with its WAL) and its entries."""
    size = sum(p.stat().st_size for p in data.glob("tables.sqlite3*"))
    with contextlib.closing(sqlite3.connect(data / "tables.sqlite3")) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        rows = sum(db.execute(f"select count(*) from {t}").fetchone()[0] for t in tables)
    return size, rows


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(args.python, "president-rejoin-", *PACE)
    address, pin, home, data = server.address, server.pin, server.home, server.data
    known = KnownServers(home / "known")
    clients: list[Client] = []
    tables: dict[int, str] = {}
    for t in range(args.tables):  # each table from an address of its own
        SOURCE.set(f"127.0.3.{10 + t}")
        mine = [await connect_as(address, pin, known, f"r{t}-{i}") for i in range(args.seats)]
        for client in mine:
            spawn(client.run())
            tables[id(client)] = f"stuck{t}"
        await mine[0].send(
            m.CreateTable(
                name=f"stuck{t}", preset="classic", toggles={}, seats=args.seats, turn_seconds=0
            )
        )
        await asyncio.sleep(0.3)
        for client in mine:
            await client.send(m.Join(table=f"stuck{t}"))
        await asyncio.sleep(0.3)
        for client in mine:
            await client.send(m.Ready())
        clients += mine
    await asyncio.sleep(1)
    context = multiprocessing.get_context("spawn")
    out, done = context.Queue(), context.Event()
    victim = context.Process(target=victim_process, args=(address, pin, str(home), done, out))
    victim.start()
    await asyncio.sleep(4 + args.quiet)
    before = journal(data)
    count = 0
    stop = time.monotonic() + args.seconds

    async def loop(client: object) -> None:
        nonlocal count
        c = clients[clients.index(client)]  # type: ignore[arg-type]
        while time.monotonic() < stop:
            seen = sum(1 for x in c.received if isinstance(x, m.Seated))
            await c.send(m.Leave())
            await c.send(m.Join(table=tables[id(c)]))
            while sum(1 for x in c.received if isinstance(x, m.Seated)) == seen:
                await asyncio.sleep(0.002)
                if time.monotonic() > stop:
                    return
            count += 1

    for client in clients:
        client.keep = True
    began, began_wall = time.monotonic(), time.time()
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
    await asyncio.sleep(args.quiet)
    done.set()
    moves, pings = await asyncio.to_thread(out.get, True, 60)
    victim.join(10)
    end = time.time()
    for name, (low, high) in {
        "quiet before": (began_wall - args.quiet, began_wall),
        "rejoin loop": (began_wall, began_wall + took),
        "quiet after": (end - args.quiet, end),
    }.items():
        pace = sum(1 for t in moves if low <= t < high) / (high - low)
        rtts = sorted(r for t, r in pings if low <= t < high)
        p99 = rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))] if rtts else float("nan")
        median = statistics.median(rtts) if rtts else float("nan")
        print(
            f"{name}: victim {pace:.1f} moves/s; ping p50 {1000 * median:.1f} ms,"
            f" p99 {1000 * p99:.1f} ms"
        )
    for client in clients:
        await client.link.close()
    stop_server(server.proc)
    began = time.monotonic()
    server.start()
    print(f"restart on that journal: ready in {time.monotonic() - began:.2f} s")
    server.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--tables", type=int, default=1, help="tables, an address each")
    parser.add_argument("--seats", type=int, default=4, help="the guest's clients a table")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds measured before")
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Does bot thinking hold up other tables? (issue 12 §7)  A real `president server`
process runs N tables of four server-side `search` bots (no delay, no pause); beside them
one table of four client bots that act as soon as it is their turn.  Each search table
has a watcher connected (a game nobody is connected to makes no move).  Prints that table's
game events per second and the server's CPU, so runs with N = 0 and N = 50 compare.

    python scripts/bench_search_tables.py [--search-tables 50] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_server import cpu_seconds, start_server
from president.bots.strategies import RandomBot
from president.client.connection import Client, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m


async def bench(port: int, pin: str, search_tables: int, seconds: float, pid: int) -> None:
    known = KnownServers(Path(tempfile.mkdtemp()) / "known")
    address = f"127.0.0.1:{port}"
    owner = Client(await connect(address, "owner", pin=pin, known=known))
    tasks = [asyncio.create_task(owner.run())]
    for t in range(search_tables):
        await owner.send(m.CreateTable(name=f"search{t}", preset="classic", toggles={}, seats=4))
        for _ in range(4):
            await owner.send(m.AddBot(table=f"search{t}", strategy="search"))
    searched = [0]

    async def count_search(message: m.Message) -> None:
        searched[0] += isinstance(message, m.TableEvent)

    owner.on_message = count_search
    if search_tables:
        await owner.send(m.Spectate(table="search0"))
    # a watcher at every other search table (a game nobody is connected to waits)
    for t in range(1, search_tables):
        watcher = Client(await connect(address, f"w{t}", pin=pin, known=known))
        tasks.append(asyncio.create_task(watcher.run()))
        await watcher.send(m.Spectate(table=f"search{t}"))
    await asyncio.sleep(1)
    refused = [e.message for e in owner.errors]
    if refused:
        print(f"the server refused {len(refused)} request(s), e.g. {refused[0]!r}")
    players = [Client(await connect(address, f"p{i}", pin=pin, known=known)) for i in range(4)]
    events = [0]
    watcher = players[0]
    for i, c in enumerate(players):
        tasks.append(asyncio.create_task(c.run()))
        bot = BotPlayer(c, RandomBot(random.Random(i)))
        if c is watcher:
            forward = bot.on_message

            async def count(message: m.Message, forward: object = forward) -> None:
                events[0] += isinstance(message, m.TableEvent)
                if isinstance(message, m.GameOver):
                    await watcher.send(m.Ready())  # another game
                await forward(message)  # type: ignore[operator]

            watcher.on_message = count
        else:
            inner = c.on_message

            async def again(message: m.Message, c: Client = c, inner: object = inner) -> None:
                if isinstance(message, m.GameOver):
                    await c.send(m.Ready())
                await inner(message)  # type: ignore[operator]

            c.on_message = again
    await players[0].send(
        m.CreateTable(name="beside", preset="classic", toggles={"target": 100}, seats=4)
    )
    for c in players:
        await c.send(m.Join(table="beside"))
    await asyncio.sleep(0.5)
    for c in players:
        await c.send(m.Ready())
    await asyncio.sleep(3)  # warm up
    start, cpu, began = events[0], cpu_seconds(pid), time.perf_counter()
    search_start = searched[0]
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - began
    rate = (events[0] - start) / elapsed
    busy = (cpu_seconds(pid) - cpu) / elapsed
    print(
        f"{search_tables} tables of 4 server search bots beside: the table of 4 client bots saw "
        f"{rate:.1f} game events/s over {elapsed:.0f} s; server process CPU {busy:.0%} of one "
        "core (its bot worker processes not counted)"
    )
    if search_tables:
        print(f"one of the search tables saw {(searched[0] - search_start) / elapsed:.1f} events/s")
    for task in tasks:
        task.cancel()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--search-tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp())
    command = [sys.executable, "-m", "president.cli", "server"]
    helptext = subprocess.run([*command, "--help"], capture_output=True, text=True).stdout
    caps = []
    if "--tables-per-address" in helptext:  # a server with caps: lift them for the owner
        n = str(max(1, args.search_tables + 1))
        caps = ["--tables-per-address", n, "--bots-per-address", str(4 * int(n))]
        caps += ["--max-per-address", str(args.search_tables + 16)]  # (their watchers)
    server, head = start_server(data, *caps)
    try:
        port = int(re.search(r"listening on [\d.]+:(\d+)", head).group(1))  # type: ignore[union-attr]
        pin = re.search(r"SHA-256\): (\S+)", head).group(1)  # type: ignore[union-attr]
        asyncio.run(bench(port, pin, args.search_tables, args.seconds, server.pid))
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)
    print("command: python " + " ".join(sys.argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

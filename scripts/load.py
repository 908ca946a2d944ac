#!/usr/bin/env python3
"""Load (issue 6 §2): a real `president server` process on loopback with N tables of 4
bot clients each (one connection per bot) and M idle connections held open meanwhile.
Every game must finish within the time given and every record the server wrote must
replay; prints the move round trip (a bot sends its move, until its own event comes
back: p50/p99/max), moves per second, and the server's memory (RSS) at start, with the
idle connections, at the end, and at its peak.  Exit status 1 if anything fell short.

    python scripts/load.py [--tables 50] [--idle 500] [--games 1] [--seconds 600]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import multiprocessing
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_server import TimedBot, cpu_seconds, start_process
from president.bots.strategies import RandomBot
from president.client.connection import Client, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.engine.record import loads, replay
from president.protocol import messages as m


class LoadBot(TimedBot):
    """A timed random bot that plays `games` games, then stays seated."""

    def __init__(self, client: Client, seed: int, trips: list[float], games: int) -> None:
        super().__init__(client, RandomBot(random.Random(seed)), trips)
        self.wanted = games
        self.done = asyncio.Event()

    async def on_message(self, message: m.Message) -> None:
        if isinstance(message, m.GameOver) and self.games + 1 >= self.wanted:
            await BotPlayer.on_message(self, message)  # counted, and no "ready" for another
            self.done.set()
            return
        await super().on_message(message)


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in KiB (Linux /proc)."""
    text = Path(f"/proc/{pid}/status").read_text()
    return {
        key: int(re.search(rf"^{key}:\s+(\d+) kB", text, re.M).group(1))  # type: ignore[union-attr]
        for key in ("VmRSS", "VmHWM")
    }


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


async def play_share(
    args: argparse.Namespace,
    address: str,
    pin: str,
    tables: range,
    idle: int,
    playing: Any,
    release: Any,
) -> dict[str, Any]:
    """One worker's share: its idle connections and its tables, played to the end; the
    idle connections stay open until the main process has measured the server."""
    scratch = tempfile.TemporaryDirectory(prefix="president-load-known-")
    known = KnownServers(Path(scratch.name) / "known")
    idle_tasks = []
    for i in range(idle):
        c = Client(await connect(address, f"idle{tables.start}-{i}", pin=pin, known=known))
        idle_tasks.append(asyncio.create_task(c.run()))  # answers the server's pings, nothing more
    trips: list[float] = []
    bots: list[LoadBot] = []
    tasks = []
    for t in tables:
        clients = [
            Client(await connect(address, f"t{t}p{i}", pin=pin, known=known)) for i in range(4)
        ]
        tasks += [asyncio.create_task(c.run()) for c in clients]
        bots += [LoadBot(c, t * 10 + i, trips, args.games) for i, c in enumerate(clients)]
        await clients[0].send(
            m.CreateTable(
                name=f"load{t}", preset=args.preset, toggles={"target": args.target}, seats=4
            )
        )
        for c in clients:
            await c.send(m.Join(table=f"load{t}"))
    await asyncio.sleep(0.5)
    for bot in bots:
        await bot.client.send(m.Ready())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(b.done.wait() for b in bots)), args.seconds)
    playing.set()
    await asyncio.to_thread(release.wait)
    result = {
        "trips": trips,
        "games": sum(min(b.games, args.games) for b in bots[::4]),
        "deal_problems": [
            v for b in bots for v in b.client.model.deal_results.values() if v is not None
        ],
        "idle_closed": sum(task.done() for task in idle_tasks),
    }
    for task in tasks + idle_tasks:
        task.cancel()
    scratch.cleanup()
    return result


def worker(
    args: argparse.Namespace,
    address: str,
    pin: str,
    tables: range,
    idle: int,
    playing: Any,
    release: Any,
    results: Any,
) -> None:
    results.put(asyncio.run(play_share(args, address, pin, tables, idle, playing, release)))


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="president-load-") as scratch:
        return measure(args, Path(scratch))


def measure(args: argparse.Namespace, data: Path) -> int:
    """The run, its server's data in `data`."""
    cap = str(args.tables * 4 + args.idle + 50)
    proc, head = start_process(
        [
            "-m",
            "president.cli",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data",
            str(data),
            "--pause",
            "0",
            "--bot-delay",
            "0",
            "--max-connections",
            cap,
            "--max-per-address",
            cap,
            "--tables-per-address",
            str(max(1, args.tables)),
        ]
    )
    port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", head).group(1))  # type: ignore[union-attr]
    pin = re.search(r"SHA-256\): ([0-9A-F:]{95})", head).group(1)  # type: ignore[union-attr]
    address = f"127.0.0.1:{port}"
    problems: list[str] = []
    jobs = max(1, min(args.jobs, args.tables or 1))
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    release = context.Event()
    workers = []
    try:
        time.sleep(0.5)
        at_start = memory(proc.pid)
        cpu_before = cpu_seconds(proc.pid)
        started = time.perf_counter()
        for j in range(jobs):
            share = range(j * args.tables // jobs, (j + 1) * args.tables // jobs)
            playing = context.Event()
            process = context.Process(
                target=worker,
                args=(
                    args,
                    address,
                    pin,
                    share,
                    args.idle // jobs + (j < args.idle % jobs),
                    playing,
                    release,
                    results,
                ),
            )
            process.start()
            workers.append((process, playing))
        print(
            f"{jobs} client process(es): {args.tables} tables × 4 bots and {args.idle} idle "
            f"connections; {args.games} game(s) a table ...",
            flush=True,
        )
        deadline = time.monotonic() + args.seconds + 60
        for _, playing in workers:
            playing.wait(max(0.0, deadline - time.monotonic()))
        elapsed = time.perf_counter() - started
        server_cpu = cpu_seconds(proc.pid) - cpu_before
        at_end = memory(proc.pid)
        release.set()
        shares = [results.get(timeout=60) for _ in workers]
        for process, _ in workers:
            process.join(30)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        release.set()
        for process, _ in workers:
            if process.is_alive():
                process.kill()
        if proc.poll() is None:
            proc.kill()

    trips = [t for share in shares for t in share["trips"]]
    finished = sum(share["games"] for share in shares)
    idle_closed = sum(share["idle_closed"] for share in shares)
    deal_problems = collections.Counter(p for share in shares for p in share["deal_problems"])
    expected = args.tables * args.games
    if finished < expected:
        problems.append(f"{expected - finished} game(s) did not finish within {args.seconds:g} s")
    if idle_closed:
        problems.append(f"{idle_closed} idle connection(s) were closed")
    records = sorted((data / "records").glob("*.json"))
    replayed = 0
    for path in records:
        result = replay(loads(path.read_text()))
        if result.ok and result.to_json()["game_over"]:
            replayed += 1
        else:
            problems.append(f"{path.name} does not replay: {result.to_json()}")
    if len(records) != expected:
        problems.append(f"{len(records)} records written, {expected} games played")

    moves = len(trips)
    ordered = sorted(trips) or [0.0]
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    print(
        f"games finished: {finished}/{expected} in {elapsed:.1f} s; records replayed OK: "
        f"{replayed}/{len(records)}; deals that did not check out: {sum(deal_problems.values())}"
    )
    for why, count in deal_problems.most_common():
        print(f"  {count} × {why}")
    print(
        f"moves: {moves:,} ({moves / elapsed:,.0f}/s); move round trip p50 {p(0.5):.1f} ms, "
        f"p99 {p(0.99):.1f} ms, max {ordered[-1] * 1000:.1f} ms, mean "
        f"{statistics.fmean(ordered) * 1000:.1f} ms"
    )
    print(
        f"server RSS: start {mib(at_start['VmRSS'])}, end {mib(at_end['VmRSS'])}, peak "
        f"{mib(at_end['VmHWM'])}; server CPU {server_cpu:.1f} s over {elapsed:.1f} s "
        f"({server_cpu / elapsed:.0%} of a core)"
    )
    print(f"idle connections still open at the end: {args.idle - idle_closed}/{args.idle}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print("OK" if not problems else "FAILED")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--idle", type=int, default=500, help="idle connections held open")
    parser.add_argument("--games", type=int, default=1, help="games per table")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--target", type=int, default=11, help="points that win a game")
    parser.add_argument(
        "--seconds", type=float, default=600, help="time allowed for every game to finish"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="client processes (default: one per core)",
    )
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())

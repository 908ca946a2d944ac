#!/usr/bin/env python3
"""Load (issue 6 §2): a real `president server` process on loopback with N tables of 4
bot clients each (one connection per bot) and M idle connections held open meanwhile.
Every game must finish within the time given and every record the server wrote must
replay; prints the move round trip (a bot sends its move, until its own event comes
back: p50/p99/max), moves per second, and the server's memory (RSS) at start, with the
idle connections, at the end, and at its peak.  Exit status 1 if anything fell short.

With `--hostile N` (issue 12), N hostile connections from 40 loopback addresses
(127.0.0.10-49) attack beside the tables, each reconnecting whenever it is cut: some never
finish TLS or never say hello, some never read, some flood tiny frames, some send deal
checks for made-up hands.  The server keeps its default caps (1,000 connections, 32 an
address); meanwhile a new player connects every few seconds: the time to its welcome is
printed, with the server's peak memory.

    python scripts/load.py [--tables 50] [--idle 500] [--games 1] [--seconds 600]
    python scripts/load.py --tables 10 --idle 0 --hostile 1000
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import multiprocessing
import os
import queue
import random
import re
import resource
import signal
import socket
import ssl
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_server import TimedBot, cpu_seconds, start_server
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import Client, client_tls, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.engine.record import loads, replay
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.protocol.sealing import public_key_bytes
from servers import port_and_pin

#: What each hostile connection does, in turn.
ATTACKS = ("silent", "no hello", "never reads", "tiny frames", "deal checks")
#: Hostile connections come from this many loopback addresses (127.0.0.10 on).
HOSTILE_ADDRESSES = 40


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


def frame(message: m.Message) -> bytes:
    return encode_frame(pack(message.to_wire()))


async def attack(kind: str, i: int, port: int, counts: collections.Counter[str]) -> None:
    """One hostile connection of `kind`, until the server cuts it."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind((f"127.0.0.{10 + i % HOSTILE_ADDRESSES}", 0))
    if kind == "never reads":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    counts[f"{kind}: connected"] += 1
    if kind == "silent":  # not even TLS: wait for the server to close
        while await loop.sock_recv(sock, 4096):
            pass
        sock.close()
        return
    reader, writer = await asyncio.open_connection(
        sock=sock, ssl=client_tls(), server_hostname="127.0.0.1", ssl_handshake_timeout=60
    )
    try:
        if kind != "no hello":
            key = public_key_bytes(X25519PrivateKey.generate())
            writer.write(
                frame(m.Hello(versions=KEYLESS_VERSIONS, name=f"h{i}", role="player", hand_key=key))
            )
        if kind == "never reads":
            writer.write(frame(m.Spectate(table="load0")))
            while True:
                writer.write(frame(m.ListTables()) * 50)
                await asyncio.wait_for(writer.drain(), 30)
                await asyncio.sleep(0.5)
        drain = asyncio.create_task(_discard(reader))
        if kind == "tiny frames":
            flood = frame(m.Ping(nonce=1)) * (65536 // len(frame(m.Ping(nonce=1))))
            while not drain.done():
                writer.write(flood)
                await writer.drain()
        elif kind == "deal checks":
            writer.write(frame(m.CreateTable(name=f"h{i}", preset="classic", toggles={}, seats=3)))
            writer.write(frame(m.Join(table=f"h{i}")))
            checks = b"".join(
                frame(m.DealCheck(hand=random.randrange(2**40), ok=False)) for _ in range(200)
            )
            while not drain.done():
                writer.write(checks)
                await writer.drain()
                await asyncio.sleep(0.05)
        await drain
    finally:
        writer.close()


async def _discard(reader: asyncio.StreamReader) -> None:
    with contextlib.suppress(ConnectionError, ssl.SSLError, OSError):
        while await reader.read(65536):
            pass


async def hostile_share(first: int, count: int, port: int, release: Any, results: Any) -> None:
    """`count` hostile connections (numbered from `first`), each coming back when it is
    cut, until `release`."""
    counts: collections.Counter[str] = collections.Counter()

    async def one(i: int) -> None:
        kind = ATTACKS[i % len(ATTACKS)]
        while True:
            try:
                await attack(kind, i, port, counts)
            except (OSError, ssl.SSLError, ConnectionError, TimeoutError, EOFError):
                pass
            except Exception as exc:
                counts[f"{kind}: {type(exc).__name__}"] += 1
            counts[f"{kind}: cut"] += 1
            await asyncio.sleep(0.5 + random.random())

    tasks = []
    for i in range(first, first + count):
        tasks.append(asyncio.create_task(one(i)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)

    while not release.is_set():
        await asyncio.sleep(0.5)
    results.put(dict(counts))
    for task in tasks:
        task.cancel()


def hostile_worker(first: int, count: int, port: int, release: Any, results: Any) -> None:
    # asyncio warns of every write to a connection the server cut: expected here
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    asyncio.run(hostile_share(first, count, port, release, results))


async def newcomer(address: str, pin: str, known: Path) -> float | str:
    """Seconds from a new player's first byte to its welcome and a table list, or why
    it did not get in within 30 s."""
    started = time.perf_counter()
    try:
        link = await connect(address, "newcomer", pin=pin, known=KnownServers(known), timeout=30)
        client = Client(link)
        await client.send(m.ListTables())
        async with asyncio.timeout(30):
            while not isinstance(said := await client.link.receive(), m.Tables):
                if said is None or isinstance(said, m.Bye):
                    raise ConnectionError(f"closed by the server: {said}")
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:120] or "refused"
    took = time.perf_counter() - started
    await client.link.close()
    return took


def more_descriptors(wanted: int) -> None:
    """Raise this process's (and so the server's) open-file limit to `wanted` if the
    soft limit is lower (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        print(f"open-file limit raised from {soft} to {target}", flush=True)


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="president-load-") as scratch:
        return measure(args, Path(scratch))


def measure(args: argparse.Namespace, data: Path) -> int:
    """The run, its server's data in `data`."""
    if args.hostile:  # the server's own caps, with the bots' one address let in
        more_descriptors(args.hostile * 2 + args.tables * 8 + 1000)
        caps = ["--max-per-address", str(max(32, args.tables * 4 + args.idle + 8))]
        caps += ["--verbose"] if args.server_log else []
    else:
        cap = str(args.tables * 4 + args.idle + 50)
        caps = ["--max-connections", cap, "--max-per-address", cap]
    caps += ["--tables-per-address", str(max(1, args.tables))]  # the bots' tables: one address
    proc, head = start_server(data, *caps)
    port, pin = port_and_pin(head)
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
        welcomes: list[float | str] = []
        attackers: list[Any] = []
        held: list[int] = []
        if args.hostile:
            time.sleep(3)  # the bots are seated; then the attack
            hostile_results = context.Queue()
            for k in range(args.attackers):
                share = range(
                    k * args.hostile // args.attackers, (k + 1) * args.hostile // args.attackers
                )
                attackers.append(
                    context.Process(
                        target=hostile_worker,
                        args=(share.start, len(share), port, release, hostile_results),
                    )
                )
                attackers[-1].start()
            print(
                f"{args.hostile} hostile connections attacking from {args.attackers} "
                "process(es) ...",
                flush=True,
            )
            time.sleep(10)  # they are all up, and the first ones cut have come back
            with tempfile.TemporaryDirectory(prefix="president-load-newcomer-") as scratch:
                while len(welcomes) < 5 or not all(p.is_set() for _, p in workers):
                    welcomes.append(asyncio.run(newcomer(address, pin, Path(scratch) / "k")))
                    took = welcomes[-1]
                    held.append(len(os.listdir(f"/proc/{proc.pid}/fd")))
                    print(
                        "  a new player: "
                        + (f"not in: {took}" if isinstance(took, str) else f"in, {took:.2f} s")
                        + f"; server RSS {mib(memory(proc.pid)['VmRSS'])}, "
                        f"{held[-1]} descriptors open",
                        flush=True,
                    )
                    if len(welcomes) >= 60:
                        break
                    time.sleep(2)
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
        attacks: collections.Counter[str] = collections.Counter()
        for _ in attackers:
            try:
                attacks.update(hostile_results.get(timeout=60))
            except queue.Empty:
                attacks["attacking process(es) that did not report"] += 1
        for attacker in attackers:
            attacker.join(10)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        release.set()
        for process, _ in workers:
            if process.is_alive():
                process.kill()
        for attacker in attackers:
            if attacker.is_alive():
                attacker.kill()
                attacker.join()
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
    if args.hostile:
        print(
            f"every game finished: {'yes' if finished >= expected else 'no'} ({finished}/{expected})"
        )
        admitted = sorted(w for w in welcomes if isinstance(w, float))
        print(
            f"new players admitted: {len(admitted)}/{len(welcomes)}; time to welcome and a "
            f"table list: median {statistics.median(admitted or [0]):.2f} s, "
            f"max {max(admitted or [0]):.2f} s"
        )
        if len(admitted) < len(welcomes):
            problems.append(f"{len(welcomes) - len(admitted)} new player(s) were not admitted")
        peak = at_end["VmHWM"] / 1024
        print(f"server peak RSS (VmHWM): {mib(at_end['VmHWM'])} (bound {args.max_rss} MiB)")
        if peak > args.max_rss:
            problems.append(f"server peak RSS {peak:.1f} MiB is over {args.max_rss} MiB")
        print(
            "server descriptors open while new players came (sockets and files): "
            f"median {statistics.median(held or [0]):.0f}, max {max(held or [0])}"
        )
        print("hostile connections: " + ", ".join(f"{k} {v}" for k, v in sorted(attacks.items())))
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print("OK" if not problems else "FAILED")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--idle", type=int, default=500, help="idle connections held open")
    parser.add_argument("--games", type=int, default=1, help="games per table")
    parser.add_argument(
        "--hostile", type=int, default=0, help="hostile connections beside the tables"
    )
    parser.add_argument(
        "--server-log", action="store_true", help="the server logs what it does (-v)"
    )
    parser.add_argument(
        "--attackers", type=int, default=4, help="processes the hostile connections run in"
    )
    parser.add_argument(
        "--max-rss",
        type=int,
        default=640,
        help="with --hostile: the server's peak memory (MiB) past which the run fails",
    )
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

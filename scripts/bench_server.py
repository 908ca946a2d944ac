#!/usr/bin/env python3
"""Server throughput over loopback (issue 3 §7): N tables of 4 bot clients against a real
`president server` process — moves per second and the move round trip (a client sends its
play, until its own event comes back) — beside, in the same run, a bare echo of frames of
the same size over the same TLS, which is the limit.

    python scripts/bench_server.py [--tables 4] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import servers
from president.bots.strategies import RandomBot
from president.client.connection import Client, client_tls, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.engine import Action
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import FrameReader, encode_frame


class TimedBot(BotPlayer):
    """A random bot that notes when it sent each move and when its own event returned."""

    def __init__(self, client: Client, strategy: RandomBot, trips: list[float]) -> None:
        super().__init__(client, strategy)
        self.trips = trips
        self.sent: float | None = None
        act = client.act

        async def timed_act(action: Action, seen: int | None = None) -> None:
            self.sent = time.perf_counter()
            await act(action, seen)

        client.act = timed_act  # type: ignore[method-assign]

    async def on_message(self, message: m.Message) -> None:
        was_waiting = self.waiting
        await super().on_message(message)
        if was_waiting and not self.waiting and self.sent is not None:
            self.trips.append(time.perf_counter() - self.sent)
            self.sent = None
        if isinstance(message, m.GameOver):
            self.game_over.clear()
            await self.client.send(m.Ready())  # play another game


def start_server(data: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """`president server` for the benchmarks (`servers.start_server`): no pauses, bots at
    once, with `extra` options: the process and what it printed up to "Ctrl-C"."""
    server = servers.start_server(sys.executable, data, "--pause", "0", "--bot-delay", "0", *extra)
    return server.proc, server.head


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


SERVER_CPU: list[float] = []


async def bench_tables(
    port: int, fingerprint: str, tables: int, seconds: float, server_pid: int | None = None
) -> tuple[int, list[float]]:
    trips: list[float] = []
    known = KnownServers(Path(tempfile.mkdtemp()) / "known")
    tasks = []
    for t in range(tables):
        clients = [
            Client(await connect(f"127.0.0.1:{port}", f"b{t}-{i}", pin=fingerprint, known=known))
            for i in range(4)
        ]
        tasks += [asyncio.create_task(c.run()) for c in clients]
        for i, c in enumerate(clients):
            TimedBot(c, RandomBot(random.Random(t * 10 + i)), trips)
        await clients[0].send(
            m.CreateTable(name=f"bench{t}", preset="classic", toggles={}, seats=4)
        )
        for c in clients:
            await c.send(m.Join(table=f"bench{t}"))
        await asyncio.sleep(0.2)
        for c in clients:
            await c.send(m.Ready())
    await asyncio.sleep(2)  # warm up
    start_count = len(trips)
    cpu = cpu_seconds(server_pid) if server_pid else 0.0
    await asyncio.sleep(seconds)
    moves = len(trips) - start_count
    if server_pid:
        SERVER_CPU.append(cpu_seconds(server_pid) - cpu)
    window = trips[start_count:]
    for task in tasks:
        task.cancel()
    return moves, window


async def echo_server(port_holder: list[int], cert: str, key: str) -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(cert, key)

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        frames = FrameReader()
        while data := await reader.read(65536):
            for body in frames.feed(data):
                writer.write(encode_frame(body))
            await writer.drain()

    server = await asyncio.start_server(echo, "127.0.0.1", 0, ssl=context)
    print(f"ECHO {server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.Event().wait()


async def bench_echo(port: int, clients: int, seconds: float) -> tuple[int, list[float]]:
    body = pack(m.PlayCards(cards=("7C", "7D")).to_wire())
    trips: list[float] = []
    stop = time.perf_counter() + seconds + 2

    async def one() -> None:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=client_tls(), server_hostname="127.0.0.1"
        )
        frames = FrameReader()
        while time.perf_counter() < stop:
            sent = time.perf_counter()
            writer.write(encode_frame(body))
            await writer.drain()
            got: list[bytes] = []
            while not got:
                got = frames.feed(await reader.read(65536))
            trips.append(time.perf_counter() - sent)
        writer.close()

    tasks = [asyncio.create_task(one()) for _ in range(clients)]
    await asyncio.sleep(2)
    start_count = len(trips)
    await asyncio.sleep(seconds)
    window = trips[start_count : start_count + 10**9]
    moves = len(window)
    await asyncio.gather(*tasks, return_exceptions=True)
    return moves, window


def describe(name: str, moves: int, trips: list[float], seconds: float) -> float:
    rate = moves / seconds
    trips = sorted(trips)
    p50 = statistics.median(trips) * 1000 if trips else float("nan")
    p99 = trips[int(len(trips) * 0.99) - 1] * 1000 if trips else float("nan")
    print(f"{name:34} {rate:10,.0f} /s   round trip p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    return rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--echo-server", nargs=2, metavar=("CERT", "KEY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        asyncio.run(echo_server([], *args.echo_server))
        return 0
    data = Path(tempfile.mkdtemp())
    server, head = start_server(data, "--tables-per-address", str(max(1, args.tables)))
    try:
        port, fingerprint = servers.port_and_pin(head)
        moves, trips = asyncio.run(
            bench_tables(port, fingerprint, args.tables, args.seconds, server.pid)
        )
    finally:
        servers.stop_server(server)
    echo, head = servers.start_process(
        [sys.executable, __file__, "--echo-server", str(data / "cert.pem"), str(data / "key.pem")],
        "ECHO",
    )
    try:
        port = int(head.split()[-1])
        echoes, echo_trips = asyncio.run(bench_echo(port, args.tables * 4, args.seconds))
    finally:
        servers.stop_server(echo)
    print(
        f"{args.tables} tables x 4 bot clients, {args.seconds:.0f} s, loopback, TLS 1.3, server in its own process"
    )
    game = describe("server: moves (play/pass/return)", moves, trips, args.seconds)
    limit = describe("bare TLS echo of same-size frames", echoes, echo_trips, args.seconds)
    print(f"server moves/s over echo/s: {game / limit:.3f}")
    if SERVER_CPU and moves:
        busy = SERVER_CPU[0] / args.seconds
        print(
            f"server process CPU: {busy:.0%} of one core, {SERVER_CPU[0] / moves * 1000:.2f} ms per move "
            f"(the {args.tables * 4} benchmark clients share one process and are the bottleneck "
            f"when this is well under 100%)"
        )
    print("command: python " + " ".join(sys.argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

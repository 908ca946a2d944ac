#!/usr/bin/env python3
"""A game night, soaked (issue 26 §8): a real `president server` on loopback for
`--minutes`, with `--tables` tables of 4 `president bot` processes playing for ever, a
spectator at each table chatting, spectators dropping and coming back every minute, a bot
process killed (SIGKILL) and started again every 5 minutes, and the server itself
restarted (Ctrl-C, then started again on its port and data) half-way.  Prints the server's
memory slope (least squares over its samples, per run of the server), the round trip of a
ping from an idle client every second (the event loop's lag as a client feels it: p50,
p99, max), the games finished at each table, how often each table's bot process exited
by itself (a crash loop shows here), and every error seen.

Every connection comes from 127.0.0.1 (a host's machine running the bots), so the server
is told to let one address make every table and hold every connection.

    cd scripts && python soak.py [--minutes 30] [--tables 10]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from president.client.connection import Client, ConnectFailed, Link, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import environment, start_server, stop_server

PRESIDENT = [sys.executable, "-m", "president.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss(pid: int) -> float | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"VmRSS:\s+(\d+)", text)
    return int(found.group(1)) / 1024 if found else None


def slope(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MiB), in MiB an hour."""
    if len(samples) < 3:
        return float("nan")
    xs, ys = [x for x, _ in samples], [y for _, y in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 3600 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


class Night:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.home = Path(tempfile.mkdtemp(prefix="president-soak-"))
        self.data = self.home / "server"
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = environment(self.home)
        self.server: subprocess.Popen[str] | None = None
        self.pin = ""
        self.log = (self.home / "server.log").open("w")
        self.bots: dict[int, subprocess.Popen[bytes]] = {}
        self.samples: list[list[tuple[float, float]]] = []
        self.trips: list[float] = []
        self.errors: list[str] = []
        #: Per table, how often its bot process exited by itself (and was started again).
        self.exits: collections.Counter[int] = collections.Counter()
        self.chats = 0
        self.reconnects = 0
        self.began = time.monotonic()

    def start_server(self) -> None:
        tables = self.args.tables
        # every table is made, and every connection comes, from this one address: 4 bots
        # and a spectator a table, the probe, and room for connections being replaced
        server = start_server(
            sys.executable,
            self.data,
            *("--tables-per-address", str(tables + 1)),
            *("--max-per-address", str(6 * tables + 8)),
            port=self.port,
            env=self.env,
            stderr=self.log,
        )
        self.pin = server.pin
        self.server = server.proc
        self.samples.append([])

    def stop_server(self) -> None:
        assert self.server is not None
        code = stop_server(self.server, signal.SIGINT, 30)
        if code is None:
            self.errors.append("the server did not stop within 30 s of Ctrl-C")
        elif code != 0:
            self.errors.append(f"the server exited {code} after Ctrl-C")

    def start_bots(self, table: int) -> None:
        command = [*PRESIDENT, "bot", self.address, "--fingerprint", self.pin]
        command += ["--strategy", "random", "--count", "4", "--table", f"soak{table}"]
        command += ["--name", f"t{table}bot", "--games", "0", "--delay", "0.05"]
        command += ["--give-up", "600"]
        errors = (self.home / f"bots{table}.err").open("ab")
        self.bots[table] = subprocess.Popen(
            command, env=self.env, stdout=subprocess.DEVNULL, stderr=errors
        )

    async def sample(self) -> None:
        while True:
            server = self.server
            if server is not None and (mib := rss(server.pid)) is not None:
                self.samples[-1].append((time.monotonic() - self.began, mib))
            await asyncio.sleep(10)

    async def link(self, name: str) -> Link:
        known = KnownServers(self.home / "known")
        while True:
            try:
                return await connect(self.address, name, pin=self.pin, known=known, timeout=10)
            except (ConnectFailed, OSError):
                self.reconnects += 1
                await asyncio.sleep(1)  # the server restarting

    async def probe(self) -> None:
        """An idle client's pings, one a second: their round trips."""
        nonce = 0
        while True:
            link = await self.link("probe")
            try:
                while True:
                    nonce += 1
                    sent = time.perf_counter()
                    await link.send(m.Ping(nonce=nonce))
                    while True:
                        message = await asyncio.wait_for(link.receive(), 30)
                        if message is None:
                            raise ConnectionError
                        if isinstance(message, m.Ping):
                            await link.send(m.Pong(nonce=message.nonce))
                        elif isinstance(message, m.Pong) and message.nonce == nonce:
                            self.trips.append(time.perf_counter() - sent)
                            break
                    await asyncio.sleep(1)
            except (ConnectionError, OSError, TimeoutError):
                await link.close()

    async def spectator(self, table: int) -> None:
        """Watches a table and chats there; leaves and comes back every minute or so."""
        round_ = 0
        while True:
            round_ += 1
            client = Client(await self.link(f"watcher{table}"))
            runner = asyncio.create_task(client.run())
            with contextlib.suppress(Exception):
                await client.send(m.Spectate(table=f"soak{table}"))
                for n in range(4):
                    await asyncio.sleep(15)
                    await client.send(m.Chat(scope="table", text=f"round {round_}, line {n}"))
                    self.chats += 1
            runner.cancel()
            await client.link.close()

    async def run(self) -> int:
        args = self.args
        self.start_server()
        for table in range(args.tables):
            self.start_bots(table)
        tasks = [asyncio.create_task(self.sample()), asyncio.create_task(self.probe())]
        tasks += [asyncio.create_task(self.spectator(t)) for t in range(args.tables)]
        seconds = args.minutes * 60
        restarted = False
        next_kill = 300.0
        killed = 0
        try:
            while (now := time.monotonic() - self.began) < seconds:
                if not restarted and now >= seconds / 2:
                    restarted = True
                    self.stop_server()
                    self.start_server()
                if now >= next_kill:
                    next_kill += 300
                    table = killed % args.tables
                    killed += 1
                    self.bots[table].kill()
                    self.bots[table].wait()
                    self.start_bots(table)
                for table, bots in self.bots.items():
                    if bots.poll() is not None:
                        self.exits[table] += 1
                        self.errors.append(f"the bots of soak{table} exited {bots.returncode}")
                        self.start_bots(table)
                await asyncio.sleep(1)
        finally:
            for task in tasks:
                task.cancel()
            for bots in self.bots.values():
                bots.terminate()
            self.stop_server()
            for bots in self.bots.values():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    bots.wait(10)
        return self.report(killed)

    def report(self, killed: int) -> int:
        self.log.close()
        records = list((self.data / "records").glob("*.json"))
        games = collections.Counter(
            found.group(1)
            for path in records
            if (found := re.fullmatch(r"\d{8}-\d{6}-(soak\d+)(?:-\d+)?\.json", path.name))
        )
        log = (self.home / "server.log").read_text().splitlines()
        bad = [line for line in log if "ERROR" in line or "Traceback" in line]
        bot_errors = [
            line
            for path in self.home.glob("bots*.err")
            for line in path.read_text(errors="replace").splitlines()
            if "Traceback" in line or "Error" in line
        ]
        print(
            f"{self.args.minutes} minutes, {self.args.tables} tables of 4 bot processes, a"
            f" spectator each; a restart half-way; {killed} bot processes killed and started"
            " again"
        )
        for n, samples in enumerate(self.samples, 1):
            if samples:
                settled = [s for s in samples if s[0] - samples[0][0] >= 120]
                print(
                    f"server run {n}: RSS {samples[0][1]:.1f} -> {samples[-1][1]:.1f} MiB"
                    f" ({len(samples)} samples), slope {slope(samples):+.1f} MiB/hour;"
                    f" after its first 2 minutes {slope(settled):+.1f} MiB/hour"
                )
        trips = sorted(self.trips)
        if trips:
            p99 = trips[min(len(trips) - 1, int(len(trips) * 0.99))]
            print(
                f"idle client's ping round trip ({len(trips)}): p50"
                f" {1000 * statistics.median(trips):.1f} ms, p99 {1000 * p99:.1f} ms,"
                f" max {1000 * trips[-1]:.1f} ms"
            )
        print(f"games finished (records written): {len(records)}; chat lines {self.chats}")
        tables = [f"soak{t}" for t in range(self.args.tables)]
        print("games at each table: " + ", ".join(f"{t} {games[t]}" for t in tables))
        print(
            "bot processes that exited by themselves (started again), a table:"
            f" {sum(self.exits.values())}"
            + "".join(f", soak{t} {n}" for t, n in sorted(self.exits.items()))
        )
        self.errors += [f"no game finished at {t}" for t in tables if not games[t]]
        print(f"connection retries (restart, drops): {self.reconnects}")
        print(f"server log: {len(log)} lines, {len(bad)} errors")
        for line in bad[:10]:
            print(f"  {line}")
        print(f"bot processes' errors: {len(bot_errors)}")
        for line in bot_errors[:10]:
            print(f"  {line}")
        for line, times in collections.Counter(self.errors).items():
            print(f"problem: {line}" + (f" ({times} times)" if times > 1 else ""))
        print(f"command: python {' '.join(sys.argv)}")
        return 1 if bad or self.errors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--tables", type=int, default=10)
    return asyncio.run(Night(parser.parse_args()).run())


if __name__ == "__main__":
    raise SystemExit(main())

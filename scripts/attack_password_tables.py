#!/usr/bin/env python3
"""Many password tables created at once (server/lobby.py `_create`, its scrypt now off the
event loop, in turn with the password checks), on a real `president server` on loopback.

`--addresses` addresses each open three connections and create three tables with a
password, all at the same moment.  Meanwhile, in a process of their own: a lobby client
pings every 100 ms (round trip; faster would pass its share of the rate once many connections are open), and a friend joins a password table made before the burst
(its password checked: an scrypt in the same turn) then leaves, again and again.

Printed: ping p50/p99 and the friend's join p50/max, quiet and during the burst (one run),
how long the burst took and how many tables were made.

    cd scripts && ../.venv/bin/python attack_password_tables.py [--addresses 60]"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from attack_hand_history import connect_as
from attack_seatlock import SOURCE, spawn
from president.client.connection import Client
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import LoggedServer


def victim_process(address: str, pin: str, folder: str, done: Any, out: Any) -> None:
    """(time, ping round trip) every 100 ms and (time, friend's join seconds) until `done`."""
    pings: list[tuple[float, float]] = []
    joins: list[tuple[float, float]] = []

    async def run() -> None:
        known = KnownServers(Path(folder) / "victim")
        SOURCE.set("127.0.0.2")
        pinger = await connect_as(address, pin, known, "pinger")
        SOURCE.set("127.0.0.3")
        friend = await connect_as(address, pin, known, "friend")
        sent: dict[int, float] = {}

        async def reads(client: Client, answers: asyncio.Queue[m.Message]) -> None:
            while True:
                message = await client.link.receive()
                if message is None:
                    return
                if isinstance(message, m.Pong) and message.nonce in sent:
                    pings.append((time.time(), time.perf_counter() - sent.pop(message.nonce)))
                elif isinstance(message, m.Ping):
                    await client.link.send(m.Pong(nonce=message.nonce))
                elif isinstance(message, (m.Seated, m.Error)):
                    await answers.put(message)

        answers: asyncio.Queue[m.Message] = asyncio.Queue()
        spawn(reads(pinger, asyncio.Queue()))
        spawn(reads(friend, answers))

        async def joining() -> None:
            while not done.is_set():
                began = time.perf_counter()
                await friend.link.send(m.Join(table="friends", password="friends only"))
                said = await answers.get()
                if isinstance(said, m.Seated):
                    joins.append((time.time(), time.perf_counter() - began))
                await friend.link.send(m.Leave())
                await asyncio.sleep(0.1)

        spawn(joining())
        n = 0
        while not done.is_set():
            n += 1
            sent[n] = time.perf_counter()
            await pinger.link.send(m.Ping(nonce=n))
            await asyncio.sleep(0.1)

    asyncio.run(run())
    out.put((pings, joins))


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
    return (
        f"p50 {1000 * statistics.median(values):.1f} ms, p99 {1000 * p99:.1f} ms,"
        f" max {1000 * values[-1]:.1f} ms (n={len(values)})"
    )


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(
        args.python, "president-pwtables-", "--pause", "0", "--max-connections", "2000"
    )
    address, pin, home = server.address, server.pin, server.home
    known = KnownServers(home / "known")
    try:
        SOURCE.set("127.0.0.1")
        host = await connect_as(address, pin, known, "host")
        spawn(host.run())
        await host.send(
            m.CreateTable(
                name="friends", preset="classic", toggles={}, seats=8, password="friends only"
            )
        )
        crowd: list[Client] = []
        for a in range(args.addresses):
            SOURCE.set(f"127.0.2.{10 + a}")
            for c in range(3):
                client = await connect_as(address, pin, known, f"c{a}-{c}")
                spawn(client.run())
                crowd.append(client)
        context = multiprocessing.get_context("spawn")
        out, done = context.Queue(), context.Event()
        victim = context.Process(target=victim_process, args=(address, pin, str(home), done, out))
        victim.start()
        await asyncio.sleep(4 + args.quiet)
        began = time.time()
        await asyncio.gather(
            *(
                client.send(
                    m.CreateTable(
                        name=f"pw{i}", preset="classic", toggles={}, seats=4, password=f"secret {i}"
                    )
                )
                for i, client in enumerate(crowd)
            )
        )
        made = 0
        while time.time() - began < 120:
            await host.send(m.ListTables())
            await asyncio.sleep(0.25)
            made = sum(1 for t in host.tables or () if t.name.startswith("pw"))
            errors = sum(len(c.errors) for c in crowd)
            if made + errors >= len(crowd):
                break
        burst = time.time() - began
        await asyncio.sleep(1)
        done.set()
        pings, joins = await asyncio.to_thread(out.get, True, 60)
        victim.join(10)
        refused = [e.message for c in crowd for e in c.errors]
        print(
            f"burst: {len(crowd)} password tables asked from {args.addresses} addresses at once:"
            f" {made} made, {len(refused)} refused ({refused[:2]}) in {burst:.1f} s"
        )
        for name, (low, high) in {
            "quiet": (began - args.quiet, began),
            "burst": (began, began + burst),
        }.items():
            print(f"{name}: ping {spread([r for t, r in pings if low <= t < high])}")
            print(f"{name}: friend's join {spread([r for t, r in joins if low <= t < high])}")
    finally:
        server.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--addresses", type=int, default=60)
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds measured before")
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

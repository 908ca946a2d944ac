#!/usr/bin/env python3
"""The chat-burst attack of issue 26, on a real `president server` on loopback: many
connections from few addresses each send a burst of long lobby chat lines at once, while
two honest readers (each in a process of its own) sit in the lobby reading.  Prints
whether each reader was kept, how many lines reached it, and what the attackers were
told.

    python scripts/attack_chat_burst.py [--connections 128] [--addresses 4] [--lines 31]
    python scripts/attack_chat_burst.py --python /path/to/old/venv/bin/python   # "before"

Exit status 1 if a reader was dropped."""

from __future__ import annotations

import argparse
import asyncio
import collections
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from attack_seatlock import SOURCE, spawn, start
from president.client.connection import Client, ConnectFailed, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import stop_server


def reader(address: str, pin: str, folder: str, name: str, seconds: float, out: Any) -> None:
    """An honest lobby client reading everything for `seconds`: (chat lines, how it ended)."""

    async def read() -> tuple[int, str]:
        link = await connect(address, name, pin=pin, known=KnownServers(Path(folder) / name))
        client = Client(link)
        lines = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                message = await asyncio.wait_for(client.link.receive(), 1.0)
            except TimeoutError:
                continue
            if message is None:
                return lines, "dropped by the server"
            if isinstance(message, m.Bye):
                return lines, f"dropped by the server: bye {message.code}"
            if isinstance(message, m.Ping):
                await client.link.send(m.Pong(nonce=message.nonce))
            lines += isinstance(message, m.Chat)
        return lines, "kept"

    out.put((name, *asyncio.run(read())))


async def talker(address: str, pin: str, known: KnownServers, i: int, args: Any) -> Any:
    SOURCE.set(f"127.0.0.{10 + i % args.addresses}")
    try:
        client = Client(await connect(address, f"t{i}", pin=pin, known=known, timeout=30))
    except (ConnectFailed, OSError) as exc:
        return str(exc)
    client.keep = True
    spawn(client.run())
    return client


async def attack(args: argparse.Namespace) -> int:
    data = Path(tempfile.mkdtemp(prefix="president-chatburst-"))
    proc, port, pin = start(args.python, data / "server", 1000)
    address = f"127.0.0.1:{port}"
    known = KnownServers(data / "known")
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    readers = [
        context.Process(
            target=reader, args=(address, pin, str(data), f"reader{i}", args.seconds, out)
        )
        for i in range(2)
    ]
    try:
        for r in readers:
            r.start()
        await asyncio.sleep(3)  # the readers are in
        talkers = await asyncio.gather(
            *(talker(address, pin, known, i, args) for i in range(args.connections))
        )
        inside = [t for t in talkers if not isinstance(t, str)]
        began = time.monotonic()
        await asyncio.gather(
            *(
                t.send(m.Chat(scope="lobby", text=f"{i:02d}-{n:02d} " + "x" * 493))
                for i, t in enumerate(inside)
                for n in range(args.lines)
            )
        )
        sent = time.monotonic() - began
        results = [await asyncio.to_thread(out.get, True, args.seconds + 30) for _ in readers]
        told = collections.Counter(
            x.message for t in inside for x in t.received if isinstance(x, m.Error)
        )
        print(
            f"{len(inside)} talkers from {args.addresses} addresses sent"
            f" {len(inside) * args.lines} lines of 500 characters in {sent:.1f} s"
        )
        print(f"talkers were told: {dict(told) or 'nothing'}")
        for name, lines, how in sorted(results):
            print(f"{name}: {how}, {lines} chat lines reached it")
        print(f"server: {args.python} (command: python {' '.join(sys.argv)})")
        return 0 if all(how == "kept" for _, _, how in results) else 1
    finally:
        for r in readers:
            r.join(5)
            if r.is_alive():
                r.kill()
        stop_server(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=128)
    parser.add_argument("--addresses", type=int, default=4)
    parser.add_argument("--lines", type=int, default=31)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long readers read")
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

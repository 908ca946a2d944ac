#!/usr/bin/env python3
"""The seat-lock attack of issue 26, on a real `president server` on loopback: a crowd of
connections from few addresses fills the server (seated at tables, or watching them
when they are full; answering pings, a message every few seconds so none is idle); then a friend whose connection dropped
mid-game comes back, and a newcomer arrives.  Prints whether each got in (and the friend
back in their chair), and how the crowd fared.

    python scripts/attack_seatlock.py [--connections 1000] [--addresses 32]
    python scripts/attack_seatlock.py --python /path/to/old/venv/bin/python   # "before"

The crowd comes from 127.0.0.10 on (one address per `--addresses`); the friend and the
newcomer from 127.0.0.1 and 127.0.0.2.  Exit status 1 if the friend or the newcomer was
kept out."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import contextvars
import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.client.connection import Client, ConnectFailed, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import start_server, stop_server

#: The source address of the connections a task opens.
SOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("source", default=None)
_open_connection = asyncio.open_connection


async def _sourced(*args: Any, **kwargs: Any) -> Any:
    source = SOURCE.get()
    if source is not None:
        kwargs["local_addr"] = (source, 0)
    return await _open_connection(*args, **kwargs)


asyncio.open_connection = _sourced  # type: ignore[assignment]

#: The tasks this script runs beside its own (kept, so none is collected while it runs).
TASKS: set[asyncio.Task[Any]] = set()


def spawn(coroutine: Any) -> None:
    task = asyncio.create_task(coroutine)
    TASKS.add(task)


def key(name: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest())


def start(python: str, data: Path, connections: int) -> tuple[subprocess.Popen[str], int, str]:
    """The server these attacks run against: no pauses, quick bots, at most
    `connections`."""
    server = start_server(
        python,
        data,
        *("--pause", "0", "--bot-delay", "0.05", "--max-connections", str(connections)),
    )
    return server.proc, server.port, server.pin


async def member(address: str, pin: str, known: KnownServers, i: int, sources: int) -> Any:
    """One of the crowd: in, seated at its address's tables if a chair is free, then a
    list request every 5 s so it is never idle.  Returns its client, or why it failed."""
    source = f"127.0.0.{10 + i % sources}"
    SOURCE.set(source)
    try:
        client = Client(await connect(address, f"m{i}", pin=pin, known=known, timeout=30))
    except (ConnectFailed, OSError) as exc:
        return str(exc)
    client.keep = True
    spawn(client.run())
    table = f"crowd {i % sources}-{(i // sources) % 3}"
    if i < 3 * sources:
        await client.send(m.CreateTable(name=table, preset="classic", toggles={}, seats=8))
    await asyncio.sleep(0.2)
    await client.send(m.Join(table=table))
    await asyncio.sleep(1.0)
    if client.model.slot is None:  # no chair there: watch the friends' game (not idle)
        await client.send(m.Spectate(table="friends"))

    async def busy() -> None:
        with contextlib.suppress(Exception):
            while True:
                await asyncio.sleep(5)
                await client.send(m.ListTables())

    spawn(busy())
    return client


async def attack(args: argparse.Namespace) -> int:
    data = Path(tempfile.mkdtemp(prefix="president-seatlock-"))
    proc, port, pin = start(args.python, data / "server", args.connections)
    address = f"127.0.0.1:{port}"
    known = KnownServers(data / "known")
    try:
        SOURCE.set("127.0.0.1")
        ann = Client(await connect(address, "ann", pin=pin, known=known, identity=key("ann")))
        ann.keep = True
        ann_task = asyncio.create_task(ann.run())
        await ann.send(m.CreateTable(name="friends", preset="classic", toggles={}, seats=4))
        await ann.send(m.Join(table="friends"))
        for _ in range(3):
            await ann.send(m.AddBot(table="friends", strategy="random"))
        await asyncio.sleep(0.5)
        await ann.send(m.Ready())
        began = time.monotonic()
        crowd = await asyncio.gather(
            *(member(address, pin, known, i, args.addresses) for i in range(args.connections))
        )
        inside = [c for c in crowd if not isinstance(c, str)]
        print(
            f"crowd: {len(inside)} of {args.connections} connections in from {args.addresses}"
            f" addresses in {time.monotonic() - began:.1f} s"
        )
        await asyncio.sleep(3)  # seated, busy
        seated = sum(
            1 for c in inside if c.model.slot is not None and c.link.conn.state != "closed"
        )
        refused = collections.Counter(
            x.message for c in inside for x in c.received if isinstance(x, m.Error)
        )
        print(f"crowd: {seated} seated; refusals: {dict(refused) or 'none'}")
        ann_task.cancel()
        await ann.link.close()  # the friend's Wi-Fi drops mid-game
        await asyncio.sleep(1)
        # the crowd takes the place the friend left
        SOURCE.set(f"127.0.0.{10}")
        with contextlib.suppress(ConnectFailed, OSError):
            filler = Client(await connect(address, "filler", pin=pin, known=known, timeout=30))
            spawn(filler.run())
        SOURCE.set("127.0.0.1")
        back = "kept out"
        try:
            again = Client(await connect(address, "ann", pin=pin, known=known, identity=key("ann")))
            again.keep = True
            spawn(again.run())
            await again.send(m.Join(table="friends"))
            for _ in range(100):
                if again.model.slot is not None:
                    back = "back in her chair"
                    break
                await asyncio.sleep(0.1)
            else:
                back = "in, but not back in her chair"
        except (ConnectFailed, OSError) as exc:
            back = f"kept out: {exc}"
        print(f"friend coming back to her game: {back}")
        SOURCE.set("127.0.0.2")
        try:
            carl = Client(await connect(address, "carl", pin=pin, known=known, timeout=30))
            spawn(carl.run())
            newcomer = "in"
        except (ConnectFailed, OSError) as exc:
            newcomer = f"kept out: {exc}"
        print(f"newcomer from another address: {newcomer}")
        await asyncio.sleep(1)
        left = sum(1 for c in inside if c.link.conn.state != "closed")
        print(f"crowd: {left} connections still open")
        print(f"server: {args.python} (command: python {' '.join(sys.argv)})")
        return 0 if back == "back in her chair" and newcomer == "in" else 1
    finally:
        stop_server(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--addresses", type=int, default=32)
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

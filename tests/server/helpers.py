"""A real server on loopback, port 0, and real clients."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import Client, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.engine import Phase
from president.protocol import messages as m
from president.server.app import Server
from president.server.config import ServerConfig

FAST = ServerConfig(
    host="127.0.0.1",
    port=0,
    bot_delay=0.0,
    pause_between_hands=0.0,
    seed_seconds=2.0,
    shutdown_seconds=2.0,
)


@contextlib.asynccontextmanager
async def running_server(tmp_path: Path, **changes: object) -> AsyncIterator[Server]:
    config = replace(FAST, data_dir=tmp_path / "data", **changes)  # type: ignore[arg-type]
    async with Server(config) as server:
        yield server


async def client(server: Server, name: str, tmp_path: Path, **kwargs: object) -> Client:
    link = await connect(
        f"127.0.0.1:{server.port}", name, known=KnownServers(tmp_path / f"known-{name}"), **kwargs
    )  # type: ignore[arg-type]
    return Client(link)


def in_play(c: Client) -> bool:
    """The client's table is in the play of a hand (not the exchange, not between hands)."""
    return c.model.public is not None and c.model.public.phase is Phase.PLAY


async def wait_for(predicate: object, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():  # type: ignore[operator]
        if loop.time() > end:
            raise TimeoutError("the condition never came true")
        await asyncio.sleep(0.01)


def bot_key(name: str) -> Ed25519PrivateKey:
    """A player key for a test client, the same for the same name (so a name it claims
    stays its own when it connects again)."""
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(b"test key " + name.encode()).digest()
    )


async def table_of_bots(
    server: Server,
    tmp_path: Path,
    table: str = "T",
    preset: str = "classic",
    players: int = 4,
    toggles: dict[str, object] | None = None,
    seed: int = 1,
) -> tuple[list[Client], list[BotPlayer], list[asyncio.Task[None]]]:
    """`players` headless random bots, each over its own connection with a player key
    (`bot_key`: rated on the ladder), seated and ready."""
    clients = [
        await client(server, f"bot{i}", tmp_path, identity=bot_key(f"bot{i}"))
        for i in range(players)
    ]
    for c in clients:
        c.keep = True
    tasks = [asyncio.create_task(c.run()) for c in clients]
    await clients[0].send(
        m.CreateTable(
            name=table,
            preset=preset,
            toggles=toggles or {},  # type: ignore[arg-type]
            seats=players,
            turn_seconds=30,
        )
    )
    bots = [BotPlayer(c, RandomBot(random.Random(seed * 10 + i))) for i, c in enumerate(clients)]
    for c in clients:
        await c.send(m.Join(table=table))
    await wait_for(lambda: all(c.model.slot is not None for c in clients))
    for c in clients:
        await c.send(m.Ready())
    return clients, bots, tasks


async def seated_among_server_bots(
    server: Server,
    tmp_path: Path,
    name: str = "ann",
    seats: int = 4,
    turn_seconds: int = 30,
    toggles: dict[str, object] | None = None,
) -> tuple[Client, asyncio.Task[None]]:
    """One client at a new table "T", server-side random bots in the other seats; the
    client has not said ready yet."""
    person = await client(server, name, tmp_path)
    person.keep = True
    task = asyncio.create_task(person.run())
    await sit_among_server_bots(person, seats, turn_seconds, toggles)
    return person, task


async def sit_among_server_bots(
    person: Client,
    seats: int = 4,
    turn_seconds: int = 60,
    toggles: dict[str, object] | None = None,
) -> None:
    """`person` (whose messages are being read) makes table "T", sits in it, and fills
    the other seats with server-side random bots; not ready yet."""
    await person.send(
        m.CreateTable(
            name="T",
            preset="classic",
            toggles=toggles or {},  # type: ignore[arg-type]
            seats=seats,
            turn_seconds=turn_seconds,
        )
    )
    await person.send(m.Join(table="T"))
    await wait_for(lambda: person.model.slot is not None)
    for _ in range(seats - 1):
        await person.send(m.AddBot(table="T", strategy="random"))


def server_process(
    data: Path, port: int = 0, *extra: str
) -> tuple[subprocess.Popen[str], int, str, str]:
    """`president server` as a host runs it, on loopback, with no pauses: (the process,
    its port, the fingerprint it printed, everything it printed up to "Ctrl-C")."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "president.cli",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data",
            str(data),
            "--pause",
            "0",
            "--bot-delay",
            "0",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    head = ""
    while "Ctrl-C" not in head:
        line = proc.stdout.readline()
        assert line, head + (proc.stderr.read() if proc.stderr else "")
        head += line
    found = re.search(r"listening on 127\.0\.0\.1:(\d+)", head)
    pin = re.search(r"SHA-256\): ([0-9A-F:]{95})", head)
    assert found and pin, head
    return proc, int(found.group(1)), pin.group(1), head

"""A real server in this process on loopback, port 0, and real clients over TLS: for
what sockets add (framing, drops, floods, restarts) without the cost of processes."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import Client, Link, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.engine import Phase
from president.protocol import messages as m
from president.server.app import Server
from president.server.config import ServerConfig

from .ports import free_port
from .waiting import wait_for

FAST = ServerConfig(
    host="127.0.0.1",
    port=0,
    bot_delay=0.0,
    pause_between_hands=0.0,
    seed_seconds=2.0,
    shutdown_seconds=2.0,
    nudge_after_seconds=0.0,  # (a nudge at once: the tests of its own floor set one)
)


@contextlib.asynccontextmanager
async def running_server(tmp_path: Path, **changes: object) -> AsyncIterator[Server]:
    """A server in this process with `FAST`'s settings and `changes`, its data in
    `tmp_path/data`, on a free port of this worker's (so that the same port is free for
    a server started again on it: `ports.free_port`)."""
    changes.setdefault("port", free_port())
    config = replace(FAST, data_dir=tmp_path / "data", **changes)  # type: ignore[arg-type]
    async with Server(config) as server:
        yield server


def dialer(
    address: str, name: str, folder: Path, **kwargs: object
) -> Callable[[], Awaitable[Link]]:
    """A way in for `name` at `address`, as often as it is called (a client's
    `reconnect`): each call a new connection, trusting what `folder/known-NAME` holds."""
    known = KnownServers(folder / f"known-{name}")

    def dial() -> Awaitable[Link]:
        return connect(address, name, known=known, **kwargs)  # type: ignore[arg-type]

    return dial


async def client(server: Server, name: str, tmp_path: Path, **kwargs: object) -> Client:
    return Client(await dialer(f"127.0.0.1:{server.port}", name, tmp_path, **kwargs)())


async def make_table(
    address: str,
    pin: str,
    folder: Path,
    name: str = "T",
    toggles: dict[str, m.Scalar] | None = None,
    seats: int = 4,
    preset: str = "classic",
    turn_seconds: int = 0,
) -> None:
    """Table `name` made at `address` by a short visit (as a host would from the lobby),
    once the lobby's news of it has come back."""
    host = await dialer(address, "host", folder, pin=pin)()
    try:
        await host.send(
            m.CreateTable(
                name=name,
                preset=preset,
                toggles=toggles or {},
                seats=seats,
                turn_seconds=turn_seconds,
            )
        )
        answer = await asyncio.wait_for(host.receive(), 20)
        while not (isinstance(answer, m.TableChanged) and answer.info.name == name):
            assert not isinstance(answer, m.Error) and answer is not None, answer
            answer = await asyncio.wait_for(host.receive(), 20)
    finally:
        await host.close()


def in_play(c: Client) -> bool:
    """The client's table is in the play of a hand (not the exchange, not between hands)."""
    return c.model.public is not None and c.model.public.phase is Phase.PLAY


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
    names: list[str] | None = None,
) -> tuple[list[Client], list[BotPlayer], list[asyncio.Task[None]]]:
    """`players` headless random bots (`names`, or bot0, bot1...), each over its own
    connection with a player key (`bot_key`: rated on the ladder), seated and ready."""
    clients = [
        await client(server, name, tmp_path, identity=bot_key(name))
        for name in names or [f"bot{i}" for i in range(players)]
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
    preset: str = "classic",
    strategy: str = "random",
) -> None:
    """`person` (whose messages are being read) makes table "T", sits in it, and fills
    the other seats with server-side bots of `strategy`; not ready yet."""
    await person.send(
        m.CreateTable(
            name="T",
            preset=preset,
            toggles=toggles or {},  # type: ignore[arg-type]
            seats=seats,
            turn_seconds=turn_seconds,
        )
    )
    await person.send(m.Join(table="T"))
    await wait_for(lambda: person.model.slot is not None)
    for _ in range(seats - 1):
        await person.send(m.AddBot(table="T", strategy=strategy))


async def round_trip(c: Client, timeout: float = 20) -> None:
    """A ping answered (`c` keeps what it receives): the server has handled whatever `c`
    sent before it, in order."""
    nonce = len(c.received) + 1
    await c.send(m.Ping(nonce=nonce))
    await wait_for(
        lambda: any(isinstance(x, m.Pong) and x.nonce == nonce for x in c.received), timeout
    )


#: What a client says of a deal whose reveal left its seed out: the server's answer to a
#: seed that came after its window (`seed_seconds`; `president server` waits 5 s).
SEED_LEFT_OUT = "the reveal leaves out this client's seed"


def deals_check_out(results: dict[int, str | None]) -> bool:
    """Every deal a client checked came out as committed: none failed its check.  (A
    server process keeps its 5 s seed window, and a loaded machine can send a seed later
    than that; the deal is then made without it, and said so: correct, not a failure.)"""
    return bool(results) and all(r is None or r == SEED_LEFT_OUT for r in results.values())


def failing_journal(server: Server) -> Callable[[bool], None]:
    """Make the server's journal refuse every write as a full disk does (True), or take
    them again (False); it takes them until told."""
    journal = server.journal
    assert journal is not None
    write, full = journal.append, [False]

    def append(table_id: int, kind: str, body: dict[str, object]) -> None:
        if full[0]:
            raise sqlite3.OperationalError("database or disk is full")
        write(table_id, kind, body)

    journal.append = append  # type: ignore[method-assign]
    return lambda on: full.__setitem__(0, on)


#: The tasks reading watchers' connections (`watching`), kept from the collector.
_WATCHING: set[asyncio.Task[None]] = set()


async def watching(server: Server, folder: Path, table: str) -> Client:
    """A client named "watch-TABLE" watching `table` (once the lobby has it), its
    messages read (a game nobody is connected to makes no move) until the server closes
    its connection."""
    await wait_for(lambda: table in server.lobby.tables)
    watcher = await client(server, f"watch-{table}", folder)
    task = asyncio.create_task(watcher.run())
    _WATCHING.add(task)
    task.add_done_callback(_WATCHING.discard)
    await watcher.send(m.Spectate(table=table))
    return watcher


async def tables_of_bots(server: Server, folder: Path, names: Sequence[str], hand: int) -> None:
    """A table of three random server bots for each of `names`, each made by a host of
    its own who then stays in the lobby, and watched (`watching`); back once every
    table's game has reached hand `hand` (the journals then hold deals and plays to
    damage)."""
    for name in names:
        host = await client(server, f"host-{name}", folder)
        await host.send(m.CreateTable(name=name, preset="classic", toggles={}, seats=3))
        await watching(server, folder, name)
        for _ in range(3):
            await host.send(m.AddBot(table=name, strategy="random"))
    await wait_for(
        lambda: (
            len(server.lobby.tables) == len(names)
            and all(
                t.game is not None and t.game.hand >= hand for t in server.lobby.tables.values()
            )
        )
    )

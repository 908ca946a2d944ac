#!/usr/bin/env python3
"""How the tables' journal grows (issue 12 §4): the bytes of `tables.sqlite3` and its WAL
after N `ready` toggles at a table with no game on, and after G whole games of server-side
bots at one table, with the rows the journal holds.  A server in this process, a real
client over TLS on loopback, a scratch data directory (removed at the end).

    python scripts/journal_growth.py [--toggles 2000] [--games 10]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
from dataclasses import replace
from pathlib import Path

from president.client.connection import Client, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.server.app import Server
from president.server.config import ServerConfig

CONFIG = ServerConfig(
    host="127.0.0.1",
    port=0,
    bot_delay=0.0,
    pause_between_hands=0.0,
    rate_per_second=1e6,
    rate_burst=1e6,
)


def size(data: Path) -> tuple[str, int]:
    """(the journal's bytes: file + WAL, and the rows it holds)."""
    main, wal = (data / "tables.sqlite3", data / "tables.sqlite3-wal")
    total = f"{main.stat().st_size:,} + WAL {wal.stat().st_size if wal.exists() else 0:,} bytes"
    db = sqlite3.connect(data / "tables.sqlite3")
    try:
        ((rows,),) = db.execute("SELECT count(*) FROM events").fetchall()
    finally:
        db.close()
    return total, rows


async def settle(predicate: object, seconds: float = 300.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not predicate():  # type: ignore[operator]
        if loop.time() > end:
            raise TimeoutError("never settled")
        await asyncio.sleep(0.01)


def _lists(client: Client) -> int:
    """The whole table lists `client` has received."""
    return sum(isinstance(x, m.Tables) for x in client.received)


async def main(toggles: int, games: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "data"
        async with Server(replace(CONFIG, data_dir=data)) as server:
            link = await connect(
                f"127.0.0.1:{server.port}", "ann", known=KnownServers(Path(scratch) / "known")
            )
            ann = Client(link)
            ann.keep = True
            task = asyncio.create_task(ann.run())
            await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
            await ann.send(m.Join(table="T"))
            await settle(lambda: ann.model.slot is not None)
            start = size(data)
            for i in range(toggles):
                await ann.send(m.Ready(ready=i % 2 == 0))
                if i % 100 == 99 or i == toggles - 1:  # let the views sent back be read
                    seen = _lists(ann)
                    await ann.send(m.ListTables())  # answered after every toggle before it
                    await settle(lambda s=seen: _lists(ann) > s)  # type: ignore[misc]
            after = size(data)
            print(
                f"{toggles} ready toggles: journal {start[0]} -> {after[0]}, "
                f"rows {start[1]} -> {after[1]}"
            )
            task.cancel()
            await link.close()
            await server.lobby.tables["T"].stop()
            # G whole games of three server bots at one table, one after the other
            link = await connect(
                f"127.0.0.1:{server.port}", "host", known=KnownServers(Path(scratch) / "known")
            )
            host = Client(link)
            task = asyncio.create_task(host.run())
            await host.send(
                m.CreateTable(name="B", preset="classic", toggles={"target": 3}, seats=3)
            )
            await host.send(m.Spectate(table="B"))  # (a game nobody watches waits)
            for _ in range(3):
                await host.send(m.AddBot(table="B", strategy="random"))
            await settle(lambda: "B" in server.lobby.tables)
            bots = server.lobby.tables["B"]
            print("games of 3 bots at one table (target 3), journal after each game:")
            for game in range(1, games + 1):
                await settle(lambda g=game: len(server.records) >= g)  # type: ignore[misc]
                await asyncio.sleep(0.05)
                total, rows = size(data)
                print(f"  after game {game}: {total}, {rows} rows")
                if game < games:  # another game: a bot leaves and comes back
                    await host.send(m.RemoveBot(table="B", seat=0))
                    await host.send(m.AddBot(table="B", strategy="random", seat=0))
                    await settle(lambda: bots.status == "playing")
            task.cancel()
            await link.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--toggles", type=int, default=2000)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(main(args.toggles, args.games))

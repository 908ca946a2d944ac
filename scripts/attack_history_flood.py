#!/usr/bin/env python3
"""Amplification through `hand_history` (protocol version 9): a hostile guest makes the
server send a long hand's history again and again, and we measure what it costs another
table, on a real `president server` on loopback.

Setup: the attacker's table "long" (12 seats, two decks: 8 server bots and 4 of the
attacker's clients, random players) is played until its hand holds `--events` events,
then the attacker's clients stop answering (no turn timer): the hand, and its history,
stay.  The victim: table "victim" (one client playing at once + three server bots), whose
moves a second are counted, and a client in the lobby whose pings are timed.

Phases of `--seconds` each, in one run (ratios against the quiet phases):
- quiet;
- spectate: `--connections` connections (from `--addresses` addresses) each watch
  "long", leave, watch again, as fast as the server answers (each watch: the table view
  and every page of the history);
- rejoin: the attacker's four seated clients each leave and take their chair back by key
  as fast as answered (each: a view to everyone at the table, the history, the hand;
  journal entries);
- quiet again.

Printed per phase: the victim's moves a second, ping round trip p50/p99, the bytes a
second the attackers received, the server's CPU share, its journal's growth.

    cd scripts && ../.venv/bin/python attack_history_flood.py [--seconds 10]"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from attack_hand_history import connect_as
from attack_seatlock import SOURCE, spawn
from president.bots.strategies import make_strategy
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m
from servers import LoggedServer


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def victim_process(address: str, pin: str, folder: str, done: Any, out: Any) -> None:
    """The victim, in a process of its own: table "victim" (this client playing at once,
    three server bots) and a lobby client pinging every 50 ms, until `done`: the times
    of the victim table's moves, and (time, round trip) of each ping."""
    moves: list[float] = []
    pings: list[tuple[float, float]] = []

    async def run() -> None:
        known = KnownServers(Path(folder) / "victim")
        SOURCE.set("127.0.0.1")
        victim = await connect_as(address, pin, known, "vic")
        await victim.send(m.CreateTable(name="victim", preset="classic", toggles={}, seats=4))
        await asyncio.sleep(0.3)
        BotPlayer(victim, make_strategy("random", random.Random(9)))
        inner = victim.on_message

        async def counting(message: m.Message) -> None:
            if isinstance(message, (m.Played, m.Passed)):
                moves.append(time.time())
            if inner is not None:
                await inner(message)
            if isinstance(message, m.TableView) and message.status == "finished":
                await victim.send(m.Ready())

        victim.on_message = counting
        spawn(victim.run())
        await victim.send(m.Join(table="victim"))
        for _ in range(3):
            await victim.send(m.AddBot(table="victim", strategy="random"))
        await asyncio.sleep(0.3)
        await victim.send(m.Ready())
        SOURCE.set("127.0.0.2")
        pinger = await connect_as(address, pin, known, "pinger")
        sent: dict[int, float] = {}

        async def pinger_reads() -> None:
            while True:
                message = await pinger.link.receive()
                if message is None:
                    return
                if isinstance(message, m.Pong) and message.nonce in sent:
                    pings.append((time.time(), time.perf_counter() - sent.pop(message.nonce)))
                elif isinstance(message, m.Ping):
                    await pinger.link.send(m.Pong(nonce=message.nonce))

        spawn(pinger_reads())
        n = 0
        while not done.is_set():
            n += 1
            sent[n] = time.perf_counter()
            await pinger.link.send(m.Ping(nonce=n))
            await asyncio.sleep(0.05)

    try:
        asyncio.run(run())
    except Exception as exc:  # (said, and what was measured still returned)
        print(f"victim process: {exc!r}", flush=True)
    out.put((moves, pings))


class Meter:
    """What one phase measures."""

    def __init__(self) -> None:
        self.moves = 0
        self.pings: list[float] = []
        self.bytes = 0
        self.answers = 0


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(args.python, "president-flood-", "--pause", "0", "--bot-delay", "0.01")
    address, pin, home, data = server.address, server.pin, server.home, server.data
    known = KnownServers(home / "known")
    meter = Meter()
    try:
        SOURCE.set("127.0.0.3")
        # --- the attacker's long hand ------------------------------------------------
        seated = [await connect_as(address, pin, known, f"a{i}") for i in range(4)]
        toggles = {"decks": 2}
        await seated[0].send(
            m.CreateTable(name="long", preset="classic", toggles=toggles, seats=12, turn_seconds=0)
        )
        await asyncio.sleep(0.3)
        players = []
        for i, client in enumerate(seated):
            players.append(BotPlayer(client, make_strategy("random", random.Random(i)), delay=0.05))
            spawn(client.run())
            await client.send(m.Join(table="long"))
        for _ in range(8):
            await seated[0].send(m.AddBot(table="long", strategy="random"))
        await asyncio.sleep(0.5)
        for client in seated:
            await client.send(m.Ready())
        events = 0
        for _ in range(600):
            await asyncio.sleep(0.1)
            view = seated[0].model.view
            playing = view is not None and view.game is not None and view.game.phase == "play"
            events = len(seated[0].model.events) if hasattr(seated[0].model, "events") else 0
            if playing and events >= args.events:
                break
        for player in players:  # the attacker's seats stop answering: the hand stays
            player.client.on_message = None
        await asyncio.sleep(1)
        print(f"long: the hand stands with {len(seated[0].model.events)} events heard")

        # --- the victim, in a process of its own (this one's loop is the attackers') -----
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        done = context.Event()
        victim = context.Process(target=victim_process, args=(address, pin, str(home), done, out))
        victim.start()
        await asyncio.sleep(4)

        # --- the attackers ----------------------------------------------------------------
        stop = asyncio.Event()

        target = {"table": "empty"}  # what the crowd watches: "empty" (no game: the control)

        async def reader(client: Client, watch: bool) -> None:
            """Read everything; count bytes; answer pings; watch again on each answer (the
            last history page at "long", the view at "empty")."""
            link = client.link
            with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
                while True:
                    message = link.conn.next_event()
                    if message is None:
                        data = await link.reader.read(65536)
                        if not data:
                            return
                        meter.bytes += len(data)
                        link.conn.receive_data(data)
                        continue
                    if isinstance(message, m.Ping):
                        await link.send(m.Pong(nonce=message.nonce))
                    elif watch and (
                        (isinstance(message, m.HandHistory) and not message.more)
                        or (
                            isinstance(message, m.TableView)
                            and message.table == target["table"]
                            and target["table"] == "empty"
                        )
                    ):
                        meter.answers += 1
                        if not stop.is_set():
                            await link.send(m.Leave())
                            await link.send(m.Spectate(table=target["table"]))

        crowd = []
        for i in range(args.connections):  # in the lobby, idle, before the first phase
            SOURCE.set(f"127.0.0.{10 + i % args.addresses}")
            crowd.append(await connect_as(address, pin, known, f"w{i}"))

        await crowd[0].send(m.CreateTable(name="empty", preset="classic", toggles={}, seats=4))

        async def spectators() -> list[Client]:
            for client in crowd:
                spawn(reader(client, True))
                await client.send(m.Spectate(table=target["table"]))
            return crowd

        async def rejoiners() -> None:
            async def one(client: Client) -> None:
                with contextlib.suppress(ConnectionError, OSError):
                    while not stop.is_set():
                        await client.send(m.Leave())
                        await client.send(m.Join(table="long"))
                        before = meter.answers
                        await asyncio.sleep(0)
                        while meter.answers == before and not stop.is_set():
                            await asyncio.sleep(0.005)

            for client in seated:
                client.on_message = None

                async def count(message: m.Message) -> None:
                    if isinstance(message, m.SealedHand):
                        meter.answers += 1

                client.on_message = count
                spawn(one(client))

        rows = []

        async def phase(name: str) -> None:
            meter.bytes, meter.answers = 0, 0
            cpu, journal, began = cpu_seconds(server.proc.pid), folder_bytes(data), time.time()
            mine = time.process_time()
            await asyncio.sleep(args.seconds)
            took = time.time() - began
            row: dict[str, Any] = {
                "phase": name,
                "span": (began, began + took),
                "attacker KB/s": meter.bytes / took / 1024,
                "answers/s": meter.answers / took,
                "server CPU": (cpu_seconds(server.proc.pid) - cpu) / took,
                "attacker CPU": (time.process_time() - mine) / took,
                "load": os.getloadavg()[0],
                "journal KB/s": (folder_bytes(data) - journal) / took / 1024,
            }
            rows.append(row)

        await phase("quiet")
        stop.clear()
        crowd = await spectators()
        await phase("spectate empty")  # the control: the same loop, no history
        target["table"] = "long"
        for client in crowd:
            await client.link.send(m.Leave())
            await client.link.send(m.Spectate(table="long"))
        await phase("spectate")
        stop.set()
        await asyncio.sleep(1)
        for client in crowd:
            await client.link.close()
        stop.clear()
        await rejoiners()
        await phase("rejoin")
        stop.set()
        await asyncio.sleep(1)
        await phase("quiet again")
        done.set()
        moves, pings = await asyncio.to_thread(out.get, True, 60)
        victim.join(10)
        if moves and pings:
            print(
                f"victim: {len(moves)} moves, the last {time.time() - moves[-1]:.1f} s ago;"
                f" {len(pings)} pings, the last {time.time() - pings[-1][0]:.1f} s ago"
            )
        for row in rows:
            low, high = row.pop("span")
            row["victim moves/s"] = sum(1 for t in moves if low <= t < high) / (high - low)
            rtts = sorted(r for t, r in pings if low <= t < high)
            p99 = rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))] if rtts else float("nan")
            row["ping p50 ms"] = 1000 * statistics.median(rtts) if rtts else float("nan")
            row["ping p99 ms"] = 1000 * p99
            print(
                "  ".join(
                    f"{k} {v:.3g}" if isinstance(v, float) else str(v) for k, v in row.items()
                )
            )
        quiet = (rows[0]["victim moves/s"] + rows[-1]["victim moves/s"]) / 2
        for row in rows[1:-1]:
            print(
                f"{row['phase']}: victim's pace {row['victim moves/s'] / quiet:.2f} of quiet's;"
                f" ping p99 {row['ping p99 ms']:.1f} ms against {rows[0]['ping p99 ms']:.1f} ms"
            )
    finally:
        server.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--events", type=int, default=250, help="the long hand's events")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--addresses", type=int, default=16)
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

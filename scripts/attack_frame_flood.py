#!/usr/bin/env python3
"""The frame-flood attack of issue 26, on a real `president server` on loopback: a game of
four bot processes runs beside; a spectator counts its events a second, first alone, then
while 32 connections from one address send frames built to be costly to decode (nested
arrays at the size limit: ~61,000 objects a frame), reconnecting whenever they are cut.
Prints the game's pace in both, and their ratio (target >= 0.80), same run.

    cd scripts && python attack_frame_flood.py [--seconds 15] [--python /old/venv/bin/python]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.client.connection import client_tls, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.protocol.sealing import public_key_bytes
from servers import environment, start_server, stop_server

#: A frame near the size limit of nested arrays, each within the decoder's limits.
BOMB = encode_frame(msgpack.packb([[0] * 60 for _ in range(1000)]))


async def bomber(port: int, i: int, stop: asyncio.Event, sent: list[int]) -> None:
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1",
                port,
                ssl=client_tls(),
                server_hostname="127.0.0.1",
                local_addr=("127.0.0.66", 0),
            )
        except OSError:
            await asyncio.sleep(0.05)
            continue
        key = public_key_bytes(X25519PrivateKey.generate())
        hello = m.Hello(versions=KEYLESS_VERSIONS, name=f"bomb{i}", role="player", hand_key=key)
        writer.write(encode_frame(pack(hello.to_wire())))
        drain = asyncio.create_task(reader.read(-1))
        try:
            while not stop.is_set() and not drain.done():
                writer.write(BOMB)
                sent[0] += 1
                await asyncio.wait_for(writer.drain(), 5)
        except (OSError, TimeoutError):
            pass
        drain.cancel()
        writer.transport.abort()


async def count_events(link: object, counts: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        message = await link.receive()  # type: ignore[attr-defined]
        if message is None:
            return
        if isinstance(message, m.Ping):
            await link.send(m.Pong(nonce=message.nonce))  # type: ignore[attr-defined]
        counts[0] += 1


async def attack(args: argparse.Namespace) -> int:
    home = Path(tempfile.mkdtemp(prefix="president-bombs-"))
    started = start_server(args.python, home / "server", "--pause", "0", stderr=subprocess.DEVNULL)
    server, port, pin = started.proc, started.port, started.pin
    env = environment(home)
    bot = [sys.executable, "-m", "president.cli", "bot", f"127.0.0.1:{port}"]
    bot += ["--fingerprint", pin, "--strategy", "random", "--count", "4"]
    bot += ["--table", "beside", "--games", "0", "--delay", "0"]
    bots = subprocess.Popen(
        bot,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        link = await connect(
            f"127.0.0.1:{port}", "watcher", pin=pin, known=KnownServers(home / "known")
        )
        await asyncio.sleep(3)  # the bots are seated and playing
        await link.send(m.Spectate(table="beside"))
        stop = asyncio.Event()
        counts = [0]
        watching = asyncio.create_task(count_events(link, counts, stop))
        await asyncio.sleep(2)
        start, began = counts[0], time.monotonic()
        await asyncio.sleep(args.seconds)
        alone = (counts[0] - start) / (time.monotonic() - began)
        sent = [0]
        flood = asyncio.Event()
        bombers = [asyncio.create_task(bomber(port, i, flood, sent)) for i in range(32)]
        await asyncio.sleep(2)
        start, began = counts[0], time.monotonic()
        await asyncio.sleep(args.seconds)
        flooded = (counts[0] - start) / (time.monotonic() - began)
        flood.set()
        stop.set()
        for task in [*bombers, watching]:
            task.cancel()
        print(f"the game beside, alone: {alone:.1f} events/s; under the flood: {flooded:.1f}")
        print(
            f"ratio {flooded / alone:.2f} (target >= 0.80); {sent[0]} frames of {len(BOMB)} bytes"
        )
        print(f"server: {args.python} (command: python {' '.join(sys.argv)})")
        return 0 if flooded >= 0.8 * alone else 1
    finally:
        bots.send_signal(signal.SIGTERM)
        stop_server(server)
        with contextlib.suppress(subprocess.TimeoutExpired):
            bots.wait(10)
        bots.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The backlog attack of issue 26, on a real `president server` on loopback: rounds of 512
connections (from 32 loopback addresses) that each say hello, send 2,000 requests at once
and leave.  Prints the server's memory (RSS) after each round and the lines it logged.

    cd scripts && python attack_backlog.py [--rounds 3] [--python /old/venv/bin/python]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import re
import sys
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.client.connection import client_tls
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.protocol.sealing import public_key_bytes
from servers import start_server, stop_server


def frame(message: m.Message) -> bytes:
    return encode_frame(pack(message.to_wire()))


def rss(pid: int) -> int:
    """The process's resident memory, MiB."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+)", text)
    assert found
    return int(found.group(1)) // 1024


async def leaver(port: int, i: int) -> str:
    try:
        _, writer = await asyncio.open_connection(
            "127.0.0.1",
            port,
            ssl=client_tls(),
            server_hostname="127.0.0.1",
            local_addr=(f"127.0.0.{10 + i % 32}", 0),
        )
    except OSError as exc:
        return type(exc).__name__
    key = public_key_bytes(X25519PrivateKey.generate())
    writer.write(
        frame(m.Hello(versions=KEYLESS_VERSIONS, name=f"b{i}", role="player", hand_key=key))
    )
    writer.write(frame(m.ListTables()) * 2000)
    with contextlib.suppress(TimeoutError, OSError):
        await asyncio.wait_for(writer.drain(), 5)
    writer.transport.abort()
    return "sent and left"


async def attack(args: argparse.Namespace) -> int:
    data = Path(tempfile.mkdtemp(prefix="president-backlog-"))
    log = (data / "server.log").open("w")
    server = start_server(args.python, data / "server", stderr=log)
    proc, port = server.proc, server.port
    try:
        print(f"server RSS at start: {rss(proc.pid)} MiB")
        for n in range(args.rounds):
            said = await asyncio.gather(*(leaver(port, i) for i in range(512)))
            await asyncio.sleep(3)
            print(f"round {n + 1}: {dict(collections.Counter(said))}, RSS {rss(proc.pid)} MiB")
        waited = 0
        for then in (5, 15, 30):
            await asyncio.sleep(then - waited)
            waited = then
            print(f"server RSS {then} s later: {rss(proc.pid)} MiB")
    finally:
        stop_server(proc)
        log.close()
    lines = (data / "server.log").read_text().splitlines()
    kinds = collections.Counter(re.sub(r"^\S+ \S+ ", "", line) for line in lines)
    print(f"server log: {len(lines)} lines; most common: {kinds.most_common(3)}")
    print(f"server: {args.python} (command: python {' '.join(sys.argv)})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

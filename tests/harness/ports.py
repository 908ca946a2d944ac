"""Ports for servers that a test stops and starts again on the same port.

A port the kernel picks (`--port 0`) comes from the ephemeral range, the same range every
outgoing connection's own port comes from: while a server restarts, any connection of
any test (on any worker) may take its port, and the restart fails.  These ports come
from below that range, from a block of this worker's own (pytest-xdist runs tests in
several processes at once), so nothing but this worker's own servers uses them."""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

#: Ports a worker chooses from; the blocks lie just below the ephemeral range.
BLOCK = 2000
BLOCKS = 8


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # (Linux's default)


def _worker() -> int:
    """This process's number among pytest-xdist's workers ("gw3": 3); 0 without them."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name[2:]) if name[2:].isdigit() else 0


def free_port() -> int:
    """A port on 127.0.0.1 that nothing is bound to, from this worker's block."""
    first = _ephemeral_low() - BLOCK * (BLOCKS - _worker() % BLOCKS)
    for _ in range(200):
        port = random.randrange(first, first + BLOCK)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port from {first} to {first + BLOCK - 1}")

"""Everything a server can be told, with the limits that keep one bad client from
hurting anyone else, and each table's settings."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from president.engine import Rules, find_preset
from president.engine.rules import PRESETS


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "president"


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 7766
    data_dir: Path = Path()
    name: str = "president"
    #: Journal every table (and restore them at start); off for `president play`'s own
    #: embedded server, where each run is a new game.
    journal: bool = True
    password: str | None = None
    # connections
    max_connections: int = 1000
    max_per_address: int = 32
    tls_handshake_seconds: float = 10.0
    hello_seconds: float = 10.0
    #: At the connection cap, a lobby connection (no table) that has sent nothing but
    #: pongs for this long may be closed to let a newcomer in (docs/reliability.md).
    evict_idle_seconds: float = 30.0
    idle_seconds: float = 60.0
    heartbeat_seconds: float = 15.0
    # a client that stops reading is dropped, not waited for
    queue_size: int = 512
    #: Bytes a client's outgoing queue may hold (with the batch being written): past it
    #: the client is too slow and is dropped.
    queue_bytes: int = 1024 * 1024
    #: Bytes all clients' outgoing queues may hold together: with many connections open,
    #: each one's cap is its share of this (never under 256 KiB, nor over `queue_bytes`).
    queue_total: int = 64 * 1024 * 1024
    drain_seconds: float = 5.0
    #: Bytes the TLS transport may buffer for a client before writes wait on it.
    write_buffer: int = 64 * 1024
    #: SO_SNDBUF for each client socket (None: the system's choice): bounds what a
    #: client that stops reading can hold in kernel memory before it is dropped.
    send_buffer: int | None = None
    # abuse
    rate_per_second: float = 200.0
    rate_burst: float = 400.0
    #: Messages a second taken from all connections together: with many connections
    #: open, each one's rate (and burst) is its share of this, so a thousand of them
    #: cannot take the whole server.
    rate_total: float = 5000.0
    strikes: int = 10
    chat_per_minute: int = 30
    #: Log lines one connection may cause (a burst of this many, then this many a minute).
    log_per_minute: int = 20
    max_tables: int = 500
    # tables
    grace_seconds: float = 120.0
    #: After a restart: how long tables wait for their players to come back.
    resume_seconds: float = 120.0
    seed_seconds: float = 5.0
    bot_delay: float = 0.3
    pause_between_hands: float = 2.0
    shutdown_seconds: float = 5.0


@dataclass
class TableSettings:
    """One table as its creator asked for it, with this server's timings."""

    name: str
    preset: str
    rules: Rules
    seats: int
    password: str | None = None
    turn_seconds: int = 60
    grace_seconds: float = 120.0
    seed_seconds: float = 5.0
    bot_delay: float = 0.3
    pause_between_hands: float = 2.0
    #: After a restart: how long a table waits for its players before the timeout rule.
    resume_seconds: float = 120.0

    @classmethod
    def on(
        cls,
        config: ServerConfig,
        *,
        name: str,
        preset: str,
        rules: Rules,
        seats: int,
        password: str | None,
        turn_seconds: int,
    ) -> TableSettings:
        """A table as created (or restored), with the timings of this server's configuration."""
        return cls(
            name=name,
            preset=preset,
            rules=rules,
            seats=seats,
            password=password,
            turn_seconds=turn_seconds,
            grace_seconds=config.grace_seconds,
            seed_seconds=config.seed_seconds,
            bot_delay=config.bot_delay,
            pause_between_hands=config.pause_between_hands,
            resume_seconds=config.resume_seconds,
        )

    @classmethod
    def from_entry(cls, body: dict[str, Any], config: ServerConfig) -> TableSettings:
        """The settings the journal's "table" entry kept."""
        preset = body["preset"]
        return cls.on(
            config,
            name=body["name"],
            preset=preset,
            rules=find_preset(preset).replace(**body["toggles"]),
            seats=body["seats"],
            password=body["password"],
            turn_seconds=body["turn_seconds"],
        )

    def entry(self) -> dict[str, Any]:
        """What the journal keeps: the table as created (timings come from the server's
        configuration at each start)."""
        return {
            "name": self.name,
            "preset": self.preset,
            "toggles": self.rules.changes_from(PRESETS[self.preset]),
            "seats": self.seats,
            "password": self.password,
            "turn_seconds": self.turn_seconds,
        }

"""Everything a server can be told, with the limits that keep one bad client from
hurting anyone else, and each table's settings."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import secrets
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from president.engine import Rules, find_preset
from president.engine.rules import PRESETS

T = TypeVar("T")


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "president"


#: scrypt's cost for passwords: 2**13 × 8 (8 MiB, ~27 ms here): slow for a guesser with
#: the journal, quick enough for the event loop at each attempt.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**13, 8, 1


def hash_password(password: str) -> str:
    """A salted scrypt hash of `password`, as text: "scrypt$n$r$p$salt$hash" (hex)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32
    )
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def is_password_hash(text: str) -> bool:
    return text.startswith("scrypt$") and text.count("$") == 5


def password_matches(stored: str, given: str | None) -> bool:
    """Whether `given` is the password whose hash is `stored` (constant-time compare)."""
    try:
        _, n, r, p, salt, digest = stored.split("$")
        again = hashlib.scrypt(
            (given or "").encode(),
            salt=bytes.fromhex(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=32,
            maxmem=256 * 1024 * 1024,
        )
    except ValueError:
        return False
    return hmac.compare_digest(again, bytes.fromhex(digest))


#: One scrypt at a time, in a worker thread (hashlib releases the GIL while it works):
#: a guest sending the right password again and again must not hold the event loop
#: (~27 ms each on the loop froze every table for seconds).  One turn per event loop (a
#: semaphore belongs to the loop it first waited in).  Addresses take turns: each one
#: waits for the turn with at most one check at a time, so however many checks a crowd
#: of connections asks for, a newcomer waits for at most one per address ahead of it.
_SCRYPT_TURNS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)
#: Per address, the lock its checks queue on (while any is waiting or running).
_ADDRESS_TURNS: dict[tuple[asyncio.AbstractEventLoop, str], tuple[asyncio.Lock, list[int]]] = {}
#: Passwords found right, as keyed hashes (a key of this process's own): the same right
#: password again costs no scrypt at all, so sending it in a loop queues nothing.
_RIGHT_KEY = os.urandom(32)
_RIGHT: dict[str, bytes] = {}


def _keyed(given: str | None) -> bytes:
    return hmac.digest(_RIGHT_KEY, (given or "").encode(), "sha256")


async def _scrypt_turn(address: str, work: Callable[[], T]) -> T:
    """`work` (an scrypt) in a worker thread when its turn comes: one at a time, addresses
    taking turns."""
    loop = asyncio.get_running_loop()
    lock, users = _ADDRESS_TURNS.setdefault((loop, address), (asyncio.Lock(), [0]))
    users[0] += 1
    try:
        async with lock:
            turn = _SCRYPT_TURNS.setdefault(loop, asyncio.Semaphore(1))
            async with turn:
                return await asyncio.to_thread(work)
    finally:
        users[0] -= 1
        if not users[0]:
            del _ADDRESS_TURNS[(loop, address)]


async def password_hashed(password: str, address: str = "") -> str:
    """`hash_password`, off the event loop, in turn with the checks: a guest making
    password tables must not hold every table for an scrypt each.  The password is known
    right from then on (`remember_right`)."""
    stored = await _scrypt_turn(address, lambda: hash_password(password))
    remember_right(stored, password)
    return stored


def remember_right(stored: str, given: str) -> None:
    """`given` is the password of `stored` (as it was made, or found by a check): the
    same again costs no scrypt (`known_right`)."""
    if len(_RIGHT) >= 1024:
        _RIGHT.clear()
    _RIGHT[stored] = _keyed(given)


def known_right(stored: str, given: str | None) -> bool:
    """Whether `given` is the password found right before for `stored`, by the keyed
    hash kept: no scrypt.  (Not a way past `PasswordGuard`'s budgets: a check let
    through them only, else every guess would be answered.)"""
    known = _RIGHT.get(stored)
    return known is not None and given is not None and hmac.compare_digest(known, _keyed(given))


async def password_checks(stored: str, given: str | None, address: str = "") -> bool:
    """`password_matches`, off the event loop, fairly between addresses."""
    if known_right(stored, given):
        return True
    right = await _scrypt_turn(address, lambda: password_matches(stored, given))
    if right and given is not None:
        remember_right(stored, given)
    return right


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 7766
    #: Listen on this Unix socket instead of `host`:`port` (`president play`'s embedded
    #: server: the socket is made readable and writable by its owner alone, in a folder
    #: only they may enter, so no other local user can connect at all).
    unix_socket: Path | None = None
    data_dir: Path = Path()
    name: str = "president"
    #: Journal every table (and restore them at start); off for `president play`'s own
    #: embedded server, where each run is a new game.
    journal: bool = True
    #: The password every client must give (the `Server` keeps only its scrypt hash).
    password: str | None = None
    #: While a table's journal writes fail: how often it tries again.
    journal_retry_seconds: float = 5.0
    # connections
    max_connections: int = 1000
    max_per_address: int = 32
    #: Game records kept in DIR/records (about 3 KB each); past it the oldest go.
    max_records: int = 100_000
    #: Whether a game's players may have its record once it has ended (`record_ask`):
    #: every hand as dealt, as `president play` gives its player, for the review.
    share_records: bool = True
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
    #: Bytes a second one address may send, over all its connections (and a burst of
    #: `inbound_burst`): past it its connections are read more slowly (server/session.py
    #: `Inbound`).  A game's messages are a few hundred bytes.
    inbound_per_second: int = 256 * 1024
    inbound_burst: int = 1024 * 1024
    #: Chat lines one address may send a minute, over all its connections, and lines a
    #: room (a table, or the lobby) hears a minute from everyone (server/chat.py).
    chat_per_address: int = 60
    chat_per_room: int = 240
    #: Log lines one address may cause, over all its connections (a burst of this many,
    #: then this many a minute).
    log_per_minute: int = 20
    max_tables: int = 500
    #: Tables one address may have created that are still open (well under max_tables,
    #: so one guest cannot fill the server).
    tables_per_address: int = 3
    #: Server-side bots one address may have added that still sit at a table.
    bots_per_address: int = 8
    #: At max_tables, a table that has not started this long after it was made may be
    #: removed to make room for a new one (`Lobby.make_room`).
    unstarted_table_seconds: float = 600.0
    #: A table with no person in a chair and nobody watching (bots do not count) is
    #: removed after this long; a finished one at the lobby's next look once empty
    #: (it looks every idle_table_seconds / 4, at most every 30 s).
    idle_table_seconds: float = 600.0
    #: A table with every chair taken and its creator there ready waits this long for
    #: each person in a chair who does not say ready, then frees their chair (0: it
    #: waits for ever).
    #: The lobby looks every ready_seconds / 4 (at most every 30 s).
    ready_seconds: float = 120.0
    #: Upper bounds on a table's settings (a longer game is a bigger bill for the server).
    max_target: int = 100
    max_turn_seconds: int = 600
    #: Wrong passwords (server's or a table's): the first wait before the address may try
    #: again, doubled after each wrong one up to the cap; forgotten after a quiet spell.
    password_wait: float = 1.0
    password_wait_max: float = 60.0
    password_forget_seconds: float = 600.0
    #: Lobby news of one table goes out at most this often (changes in between are merged).
    lobby_update_seconds: float = 0.2
    #: Processes that think for server-side search bots, off the event loop.
    bot_workers: int = 1
    # tables
    grace_seconds: float = 120.0
    #: At a table with no turn timer: how long a seat another player nudged has to move.
    nudge_seconds: int = 60
    #: ... and how long a turn lasts before anyone may nudge (a game-night pass was
    #: nudged a second into its turn: every turn could be put on a clock).
    nudge_after_seconds: float = 10.0
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
    #: The table's password as a salted scrypt hash (`hash_password`), never in clear.
    password: str | None = None
    turn_seconds: int = 60
    grace_seconds: float = 120.0
    nudge_seconds: int = 60
    nudge_after_seconds: float = 0.0
    seed_seconds: float = 5.0
    bot_delay: float = 0.3
    pause_between_hands: float = 2.0
    #: After a restart: how long a table waits for its players before the timeout rule.
    resume_seconds: float = 120.0
    #: While its journal writes fail: how often the table tries again.
    journal_retry_seconds: float = 5.0
    #: Who created it: their address and name (None: made before creators were kept).
    #: Journaled with the table, so that it is still theirs after a restart (the ready
    #: time's say, removing bots, the tables an address has open).
    creator: tuple[str, str] | None = None
    #: The creator's player key, where they had one ("": none, or a table made before
    #: keys were kept): the table is theirs by it too (a hostile pass took a creator's
    #: name from the creator's own address, under another key, and set the password).
    creator_key: str = ""

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
        creator: tuple[str, str] | None = None,
        creator_key: str = "",
    ) -> TableSettings:
        """A table as created (or restored), with the timings of this server's
        configuration; `password` in clear (kept as its hash)."""
        return cls(
            name=name,
            preset=preset,
            rules=rules,
            seats=seats,
            password=None if password is None else hash_password(password),
            turn_seconds=turn_seconds,
            grace_seconds=config.grace_seconds,
            nudge_seconds=config.nudge_seconds,
            nudge_after_seconds=config.nudge_after_seconds,
            seed_seconds=config.seed_seconds,
            bot_delay=config.bot_delay,
            pause_between_hands=config.pause_between_hands,
            resume_seconds=config.resume_seconds,
            journal_retry_seconds=config.journal_retry_seconds,
            creator=creator,
            creator_key=creator_key,
        )

    @classmethod
    def from_entry(cls, body: dict[str, Any], config: ServerConfig) -> TableSettings:
        """The settings the journal's "table" entry kept (a journal from before hashes
        holds the password in clear: it is hashed here)."""
        preset = body["preset"]
        settings = cls.on(
            config,
            name=body["name"],
            preset=preset,
            rules=find_preset(preset).replace(**body["toggles"]),
            seats=body["seats"],
            password=body.get("password"),
            turn_seconds=body["turn_seconds"],
            creator=_creator(body.get("creator")),
            creator_key=str(body.get("creator_key", "")),
        )
        if "password_scrypt" in body:
            stored = body["password_scrypt"]
            if stored is not None and not (isinstance(stored, str) and is_password_hash(stored)):
                raise ValueError("the table's password hash is not one")
            settings.password = stored
        return settings

    def entry(self) -> dict[str, Any]:
        """What the journal keeps: the table as created (timings come from the server's
        configuration at each start)."""
        return {
            "name": self.name,
            "preset": self.preset,
            "toggles": self.rules.changes_from(PRESETS[self.preset]),
            "seats": self.seats,
            "password_scrypt": self.password,
            "turn_seconds": self.turn_seconds,
            **({} if self.creator is None else {"creator": list(self.creator)}),
            **({"creator_key": self.creator_key} if self.creator_key else {}),
        }


def _creator(kept: object) -> tuple[str, str] | None:
    """A "table" entry's creator (address, name); None from a journal before they were
    kept."""
    if kept is None:
        return None
    if not (isinstance(kept, list) and len(kept) == 2 and all(isinstance(k, str) for k in kept)):
        raise ValueError("the table's creator is not an address and a name")
    return kept[0], kept[1]

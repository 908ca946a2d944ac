"""`Server`: TLS on a port, one `Session` per connection handing its messages to the
lobby, graceful shutdown.  An async context manager with an idempotent `close()` (after
websockets' server)."""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import contextlib
import functools
import json
import logging
import os
import socket
import sqlite3
import ssl
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Any

from president.engine.record import to_record
from president.protocol import messages as m
from president.protocol.errors import Code
from president.protocol.identity import certificate_digest

from .admission import (
    AGAIN_SECONDS,
    CHURN,
    CHURN_SECONDS,
    QUIET,
    RESERVE,
    RESERVE_YOUNG,
    Admitted,
    reserve_open,
    reserve_victim,
    to_evict,
)
from .config import ServerConfig, hash_password, remember_right
from .journal import Journal, JournalError, copy_aside, salvage
from .ladder import carry
from .lobby import Lobby
from .logs import LogBudgets
from .memory import Trimmer, malloc_trim
from .players import NameBook
from .restore import replay_what_can_be
from .session import Inbound, Session
from .storage import Storage, write_private
from .wal import check_wal

log = logging.getLogger("president.server")


#: Connections taken from the listen queue in one turn of the accept loop.
ACCEPT_BATCH = 64
#: The listen queue (the kernel caps it at net.core.somaxconn).
BACKLOG = 2048

#: Bytes asyncio's TLS layer reads at a time (and keeps as each connection's buffer).
TLS_READ = 32 * 1024


def _vouched(path: Path) -> bool:
    """Whether the journal at `path` has rows that carry MACs (a journal from before them
    takes a key at its first start), as far as its file or its -wal says; a file SQLite
    cannot read says so later (`Server._open_journal`)."""
    wal = path.with_name(path.name + "-wal")
    logged = wal.exists() and wal.stat().st_size > 0  # (rows not yet in the file itself)
    try:
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
            if not columns:  # (its tables made since the last checkpoint, in the -wal)
                return logged
            if "mac" not in columns:
                return False
            return logged or db.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
        finally:
            db.close()
    except sqlite3.Error:
        return False


def _smaller_tls_reads() -> None:
    """asyncio's TLS protocol gives every connection a 256 KiB read buffer, zero-filled
    when the connection opens (Python 3.11-3.13): 500 idle connections held ~140 MiB.
    TLS records carry at most 16 KiB and our frames at most 64 KiB, so reading 32 KiB
    at a time loses nothing (scripts/load.py --tables 0 --idle 500: server RSS 187.6 ->
    78.2 MiB).  A class attribute of the standard library, so only lowered, and only if
    it is there."""
    protocol = getattr(asyncio.sslproto, "SSLProtocol", None)
    if protocol is not None and getattr(protocol, "max_size", 0) > TLS_READ:
        protocol.max_size = TLS_READ


class ListenError(Exception):
    """The server cannot listen on its address (in use, not this machine's, no such
    name); the message (one line) says which and why."""


#: The address every connection through a Unix socket counts under.
UNIX = "unix"


def listen_unix(path: Path) -> socket.socket:
    """A socket listening at `path` for its owner alone: its folder must be theirs and
    closed to everyone else (checked), and the socket is 0600 before it listens."""
    try:
        folder = path.parent.stat()
        if folder.st_uid != os.geteuid() or folder.st_mode & 0o077:
            raise ListenError(
                f"cannot listen on {path}: its folder is open to other users "
                "(it must be yours alone, mode 0700)"
            )
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
        except BaseException:
            sock.close()
            raise
        try:
            os.chmod(path, 0o600)
            sock.listen(BACKLOG)
        except BaseException:
            sock.close()
            path.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ListenError(f"cannot listen on {path}: {exc.strerror or exc}") from None
    return sock


#: The addresses whose recent connections are kept for admission (the newest met).
OPENED_ADDRESSES = 4096

#: Descriptors a server keeps beside its connections' (the listener, the journal and
#: names files, the bot workers' pipes, mDNS): more than it needs.
SPARE_DESCRIPTORS = 256


def room_for_connections(connections: int) -> None:
    """Raise this process's soft limit on open files toward what `connections` (and the
    places let in over the cap) need, as far as its hard limit allows; a line in the log
    if that is short (a common soft limit, 1024, is about the default cap of 1000)."""
    try:
        import resource
    except ImportError:  # (not a Unix)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + 2 * RESERVE + SPARE_DESCRIPTORS
    if soft != resource.RLIM_INFINITY and soft < want:
        raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft != resource.RLIM_INFINITY and soft < want:
        log.warning(
            "open files are limited to %d (ulimit -n), and %d connections need about %d: "
            "lower --max-connections, or raise the limit",
            soft,
            connections,
            want,
        )


def _logged(log: dict[str, deque[float]], address: str, now: float, most: int) -> deque[float]:
    """`now` added to `address`'s last `most` times in `log` (which keeps the addresses
    met last, `OPENED_ADDRESSES`, the newest at its end); its times."""
    times = log.pop(address, None) or deque(maxlen=most)
    times.append(now)
    log[address] = times
    if len(log) > OPENED_ADDRESSES:
        del log[next(iter(log))]
    return times


def _close_unserved(sock: socket.socket, entry: Admitted, _: object) -> None:
    """`sock` closed, if its connection's task ended before it began (evicted then)."""
    if not entry.started:
        sock.close()


class Server:
    def __init__(self, config: ServerConfig) -> None:
        if config.password is not None:  # kept only as its hash (and known right)
            stored = hash_password(config.password)
            remember_right(stored, config.password)
            config = replace(config, password=stored)
        self.config = config
        self.storage = Storage(config.data_dir)
        self.lobby = Lobby(config, self.write_record)
        self.fingerprint = ""
        #: Which player's key owns each name (kept in the data directory when journaled).
        self.names = NameBook()
        self.sessions: set[Session] = set()
        self.records: list[str] = []
        #: The records kept in DIR/records, oldest first (read at the first written), and
        #: how many went this run to keep them under `max_records`.
        self._kept_records: deque[Path] | None = None
        self._records_let_go = 0
        #: When a failure to accept a connection was last logged.
        self._accept_failed_said = -60.0
        #: When each address opened its connections lately (server/admission.py, CHURN).
        self._opened: dict[str, deque[float]] = {}
        #: Per address, the age its last closed connection had and when it closed (for
        #: one that comes back in its place: server/admission.py, AGAIN_SECONDS).
        self._lineage: dict[str, tuple[float, float]] = {}
        #: When each address last had a connection evicted.
        self._evicted: dict[str, float] = {}
        #: When each address's last reserve places went in silence: closed by their client
        #: before sending anything, or taken after `RESERVE_YOUNG` (admission, `QUIET`).
        self._closed_silent: dict[str, deque[float]] = {}
        self.journal: Journal | None = None
        #: Tables the journal held that could not be rebuilt at start, and a damaged
        #: journal (one line each).
        self.restore_problems: list[str] = []
        #: Where this start set aside what it could not use (DIR/damaged/<stamp>/).
        self.set_aside: Path | None = None
        self._listener: socket.socket | None = None
        self._accepting: asyncio.Task[None] | None = None
        self._tls: ssl.SSLContext | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._per_address: dict[str, int] = {}
        #: What each address may still send, shared by its connections (`Inbound`).
        self._inbound: dict[str, Inbound] = {}
        #: The log lines each address may still cause, kept past its connections.
        self._log_budgets = LogBudgets(self.config.log_per_minute, self.config.log_per_minute)
        self._admitted: set[Admitted] = set()
        #: Gives the C allocator's free memory back once a crowd has left (server/memory.py):
        #: its connections, and its tables (a hostile pass: 491 MB kept for good after a
        #: crowd's tables went, 11 minutes after its connections, against 68 at start).
        self._trimmer = Trimmer(lambda: len(self._admitted) + len(self.lobby.tables), malloc_trim())
        self.lobby.on_tables = self._trimmer.note
        self._closing = False
        self._closed = asyncio.Event()

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def port(self) -> int:
        """The TCP port listened on (0 on a Unix socket: `config.unix_socket`)."""
        assert self._listener is not None
        where = self._listener.getsockname()
        return int(where[1]) if isinstance(where, tuple) else 0

    async def start(self) -> None:
        """Lock the data directory (before anything else: a second server changes
        nothing), listen (before the journal: a server that cannot listen leaves it as it
        is), then the certificate, the journal and its tables."""
        self.storage.prepare(exclusive=self.config.journal)
        try:
            self._start()
        except BaseException:
            self._stop_listening()
            if self.journal is not None:
                self.journal.close()
            self.names.close()
            self.storage.discard()  # a data directory this start made goes again
            raise

    def _start(self) -> None:
        # The server accepts plain TCP itself and starts TLS only once the caps allow the
        # connection: a flood of connections that never finish a handshake is counted and
        # refused like any other.
        room_for_connections(self.config.max_connections)
        self._listener = self._listen()
        self._listener.setblocking(False)
        self.storage.note_port(self.port)
        cert, key, self.fingerprint = self.storage.certificate(self.config.name)
        if self.config.journal:
            self.names = NameBook(self.storage.names)
        if self.config.journal:
            try:
                self.journal = self.lobby.journal = self._open_journal()
                self.restore_problems += self.lobby.ratings.attach(self.journal.db)
                self.restore_problems += self.lobby.restore(self.journal)
                self._set_aside_closed()
                self.journal.checkpoint()
            except (sqlite3.Error, OSError) as exc:
                raise JournalError(
                    f"the tables' journal {self.storage.journal} cannot be used: {exc}"
                ) from None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.load_cert_chain(cert, key)
        self._tls = context
        _smaller_tls_reads()
        self._accepting = asyncio.get_running_loop().create_task(self._accept_loop(), name="accept")

    def _listen(self) -> socket.socket:
        """The listening socket: on `host`:`port`, or on `unix_socket`."""
        config = self.config
        if config.unix_socket is not None:
            return listen_unix(config.unix_socket)
        family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
        try:
            return socket.create_server((config.host, config.port), family=family, backlog=BACKLOG)
        except (OSError, OverflowError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            reason = reason.split(" (while attempting")[0]  # asyncio's repeat of the address
            raise ListenError(f"cannot listen on {config.host}:{config.port}: {reason}") from None

    def _stop_listening(self) -> None:
        if self._listener is None:
            return
        self._listener.close()
        if self.config.unix_socket is not None:
            with contextlib.suppress(OSError):
                self.config.unix_socket.unlink()

    # --- the journal at start ---------------------------------------------------------------

    def _problem(self, line: str) -> None:
        log.error("%s", line)
        self.restore_problems.append(line)

    def _aside(self) -> Path:
        if self.set_aside is None:
            self.set_aside = self.storage.set_aside_dir()
        return self.set_aside

    def _open_journal(self) -> Journal:
        """The journal, checked before it is believed: a damaged WAL is named and kept
        (SQLite would drop what follows the damage without a word), a damaged file is kept
        aside and the rows SQLite can still read are carried into a new one."""
        storage = self.storage
        path = storage.journal
        wal = path.with_name(path.name + "-wal")
        keyed = storage.journal_key_file.exists()
        size = path.stat().st_size if path.exists() else -1
        if size > 0 and not keyed and _vouched(path):  # (a new key would find every row
            # "not authentic", and the tables would leave the journal: a host's pass, a
            # backup without it)
            raise JournalError(
                f"{storage.journal_key_file} is missing, and the tables' journal {path} holds"
                " rows only it can vouch for: put the key back (from where the data directory"
                f" was copied), or move {path.name} away to start with no tables"
            )
        storage.create_journal()
        key = storage.journal_key()
        if keyed and size <= 0:  # (empty or gone, where a server kept tables: a host's
            # pass emptied it, and the next start was a new server's, without a word)
            kept = ""
            if wal.exists() and wal.stat().st_size:
                copy_aside(path, self._aside())
                kept = f" (its -wal is kept in {self.set_aside})"
            self._problem(
                f"the tables' journal {path} is {'empty' if size == 0 else 'missing'}, though"
                f" {storage.journal_key_file.name} says a server kept tables here: no table"
                f" comes back, nor the ladder{kept}"
            )
        damage = check_wal(wal)
        if damage is not None:
            copy_aside(path, self._aside())
            self._problem(f"{damage.line()}; a copy is kept in {self.set_aside}")
        try:
            journal = Journal(path, key)
        except JournalError as exc:
            trouble = str(exc).split(" (", 1)[-1].split(")", 1)[0]
        else:
            found = journal.check()
            if found is None:
                return journal
            journal.close()
            trouble = found
        aside = self._aside()
        if damage is None:
            copy_aside(path, aside)
        fresh = path.with_name(path.name + ".salvage")
        fresh.unlink(missing_ok=True)
        os.close(os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        try:
            rows = salvage(path, fresh, key)
        except sqlite3.DatabaseError:
            rows = 0
        try:  # the ladder lives in the same file: what of it can be read comes along
            players = carry(path, fresh)
        except sqlite3.DatabaseError:
            players = 0
        for suffix in ("", "-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        os.replace(fresh, path)
        self._problem(
            f"the tables' journal {path} is damaged ({trouble}): kept in {aside}; {rows} "
            "row(s) could be read, and the tables they rebuild come back"
            + (f"; the ladder's {players} player(s) could be read" if players else "")
        )
        return Journal(path, key)

    def _set_aside_closed(self) -> None:
        """Tables the journal holds but does not rebuild: their rows are copied out to the
        set-aside folder, a record written of their game as far as it replays, and they
        leave the journal."""
        journal = self.journal
        assert journal is not None
        for table_id, name in journal.closed_tables():
            aside = self._aside()
            rows = journal.rows(table_id)
            write_private(
                aside / f"table-{table_id}.json",
                json.dumps({"table": name, "rows": rows}, indent=1).encode(),
            )
            entries = journal.entries(table_id)
            game, marks = replay_what_can_be(entries, self.config)
            note = f"set aside in {aside}"
            if game is not None and game.history and entries[0].kind == "table":
                record = to_record(game, str(entries[0].body.get("preset", "classic")), marks)
                note += f", its game's record in {self.storage.write_record(name, record)}"
            journal.drop_table(table_id)
            head = f"table {name!r} could not be restored"
            for i, line in enumerate(self.restore_problems):
                if line.startswith(head) and "set aside" not in line:
                    self.restore_problems[i] = f"{line}; {note}"
                    break
            else:
                self._problem(f"{head}: {note}")
            log.warning("table %s: %s", name, note)

    async def _accept_loop(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._listener is not None
        unix = self._listener.family == getattr(socket, "AF_UNIX", None)
        while not self._closing:
            try:
                accepted = [await loop.sock_accept(self._listener)]
                # then whatever else is waiting, at once: under a flood a listen queue
                # taken one connection a loop turn overflows, and newcomers are reset
                with contextlib.suppress(BlockingIOError, InterruptedError):
                    while len(accepted) < ACCEPT_BATCH:
                        accepted.append(self._listener.accept())
            except OSError as exc:  # out of descriptors, say: wait, do not spin
                now = loop.time()  # (said once a minute: it came ten times a second)
                if now - self._accept_failed_said >= 60.0:
                    self._accept_failed_said = now
                    log.warning("accepting a connection failed: %s", exc)
                await asyncio.sleep(0.1)
                continue
            for sock, peer in accepted:
                sock.setblocking(False)
                # (a Unix socket's peers share one address, named or not: a peer may bind
                # itself any name, and one per connection would pass the per-address cap)
                self._admit(sock, UNIX if unix else str(peer[0]))

    def _admit(self, sock: socket.socket, address: str) -> None:
        """Serve a connection just accepted, if the caps allow it (evicting another at
        the total cap when one may go); close it otherwise."""
        if self._closing or self._per_address.get(address, 0) >= self.config.max_per_address:
            sock.close()
            return
        over = False
        # (a person goes only for a newcomer that has said hello, `_admit_at_hello`: a
        # bare TCP connection evicted the oldest watcher; here only the silent go)
        if self._regular() >= self.config.max_connections and not self._evict(address, False):
            if not reserve_open(self._admitted, address):
                now = asyncio.get_running_loop().time()
                silent = reserve_victim(
                    self._admitted, address, now, self._opened_lately(now), self._quiet(now)
                )
                if silent is None:
                    sock.close()
                    return
                if now - silent.since >= RESERVE_YOUNG:  # (held past its time in silence)
                    self._mark_silent(silent.address, now)
                self._drop(silent, address, now)  # (a reserve place held, saying nothing)
            over = True  # in to say hello: it stays if it comes back to its chair
        loop = asyncio.get_running_loop()
        entry = Admitted(address, loop.time(), over=over)
        self._note_opened(address, entry.since)
        came_back = self._lineage.get(address)  # (as old as the one it replaces: STAY)
        if came_back is not None and entry.since - came_back[1] <= AGAIN_SECONDS:
            entry.born = came_back[0]
        self._admitted.add(entry)
        self._per_address[address] = self._per_address.get(address, 0) + 1
        if address not in self._inbound:
            config = self.config
            self._inbound[address] = Inbound(config.inbound_per_second, config.inbound_burst)
        task = entry.task = loop.create_task(self._serve(sock, entry))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # (evicted before its task's first step, `_serve` never runs to close its socket:
        # a hostile pass's bursts left thousands in CLOSE-WAIT until the collector came)
        task.add_done_callback(functools.partial(_close_unserved, sock, entry))
        self._trimmer.note()

    def _note_opened(self, address: str, now: float) -> None:
        """A connection from `address` accepted now (the last `CHURN_SECONDS` are kept,
        for the addresses met last: `OPENED_ADDRESSES`)."""
        times = _logged(self._opened, address, now, 64)  # (enough to rank)
        while times and now - times[0] > CHURN_SECONDS:
            times.popleft()

    def _opened_lately(self, now: float) -> dict[str, int]:
        """Per address, the connections it opened in the last `CHURN_SECONDS` and closed
        again (where that is a churn's worth or more: the rest is no matter to admission).
        Those it still holds do not count: a host's `president bot --count 7` opens seven
        at once and keeps them."""
        churned = {  # (each address's times pruned at its last connection: the rest by
            # its newest, an address quiet for `CHURN_SECONDS` counted as none)
            address: len(times) - self._per_address.get(address, 0)
            for address, times in self._opened.items()
            if len(times) >= CHURN and now - times[-1] <= CHURN_SECONDS
        }
        return {address: n for address, n in churned.items() if n >= CHURN}

    def _mark_silent(self, address: str, now: float) -> None:
        """A reserve place of `address` was closed by its client before it sent anything,
        or taken from it after `RESERVE_YOUNG` seconds of silence (`QUIET`: a last hostile
        pass let its own next connections evict its places, which no close counted)."""
        _logged(self._closed_silent, address, now, QUIET)

    def _quiet(self, now: float) -> set[str]:
        """The addresses whose reserve places went in silence `QUIET` times within
        `CHURN_SECONDS` (`_mark_silent`; for `reserve_victim`)."""
        return {
            address
            for address, times in self._closed_silent.items()
            if len(times) >= QUIET and now - times[0] <= CHURN_SECONDS
        }

    def _regular(self) -> int:
        """Connections counted against `max_connections` (not those on reserve places)."""
        return sum(1 for a in self._admitted if not a.over)

    def _admit_at_hello(self, entry: Admitted, session: Session) -> str | None:
        """For a connection let in over the cap (server/admission.py): None if it may
        stay (its key holds a chair in a game under way, or room was made since), else
        why not."""
        if not entry.over:
            return None
        # (an address evicted lately takes a free place, or a reserve place to a chair of
        # its own, but pushes nobody out: evicted crowds pushed out one another in turn,
        # each back young, and kept every newcomer out, a second hostile pass)
        if self._regular() < self.config.max_connections or self._evict(
            entry.address, self._may_push(entry.address)
        ):
            entry.over = False
            return None
        # (a chair waiting for its key, one such connection a key, `RESERVE` in all: a
        # hostile pass seated a key once and then came in with it from 284 addresses,
        # each over the cap, until the server had no descriptor left for anyone)
        back = [a for a in self._admitted if a.back_for and not a.released]
        if (
            self.lobby.holds_seat(session.player_id, away=True)
            and all(a.back_for != session.player_id for a in back)
            and len(back) < RESERVE
        ):
            entry.over, entry.back_for = False, session.player_id  # over the cap by one
            log.info("%s: let in over the cap to take back a chair", entry.address)
            return None
        return "the server is full: try again in a minute"

    def _may_push(self, address: str) -> bool:
        """Whether a newcomer from `address` may push people out at the cap: not if one
        of its connections was evicted within `AGAIN_SECONDS`."""
        evicted = self._evicted.get(address)
        return evicted is None or asyncio.get_running_loop().time() - evicted > AGAIN_SECONDS

    def _evict(self, newcomer: str, people: bool = True) -> bool:
        """At the cap: make room for a connection from `newcomer` (server/admission.py
        says who goes); False if nobody may be evicted."""
        now = asyncio.get_running_loop().time()
        victim = to_evict(
            self._admitted,
            newcomer,
            now,
            self.config.evict_idle_seconds,
            self._opened_lately(now),
            people,
        )
        if victim is None:
            return False
        self._drop(victim, newcomer, now)
        return True

    def _drop(self, victim: Admitted, newcomer: str, now: float) -> None:
        """Close `victim` to make room for a connection from `newcomer`, saying why."""
        self._release(victim, evicted=True)
        session = victim.session
        log.info("%s: evicted to make room for %s", victim.address, newcomer)
        if isinstance(session, Session) and session.welcomed:
            where = "watching" if session.watching else "in the lobby"
            if now - session.last_active >= self.config.evict_idle_seconds:
                reason = "the server is full and this connection was idle"
            elif victim.evicted_for == "age":
                reason = f"the server is full and this connection, {where}, was the oldest there"
            elif victim.evicted_for == "churn":  # (it was told of its address's many)
                reason = (
                    f"the server is full and this connection, {where}, is of an address that"
                    " connects again and again"
                )
            else:
                reason = "the server is full and your address holds more connections than any other"
            session.goodbye(m.Bye(code=Code.TIMEOUT, reason=reason))
            asyncio.get_running_loop().call_later(1.0, session.writer.transport.abort)
        elif isinstance(session, Session):
            session.kill("evicted before hello: the server is full")
        elif victim.task is not None:
            victim.task.cancel()  # still in its TLS handshake

    def _release(self, entry: Admitted, evicted: bool = False) -> None:
        """The connection no longer counts against the caps (once).  Its address's age is
        kept for a connection that comes back in its place, unless it was evicted (then
        the next starts afresh: an evicted person is not the oldest again at once)."""
        if entry.released:
            return
        entry.released = True
        if not evicted and entry.over and not entry.greeted:  # (closed in silence: `QUIET`)
            self._mark_silent(entry.address, asyncio.get_running_loop().time())
        if evicted:
            self._lineage.pop(entry.address, None)
            self._evicted[entry.address] = asyncio.get_running_loop().time()
            if len(self._evicted) > OPENED_ADDRESSES:
                del self._evicted[next(iter(self._evicted))]
        else:
            now = asyncio.get_running_loop().time()
            kept = self._lineage.pop(entry.address, None)
            born = entry.age_from
            if kept is not None and now - kept[1] <= AGAIN_SECONDS:
                born = min(born, kept[0])
            self._lineage[entry.address] = (born, now)
            if len(self._lineage) > OPENED_ADDRESSES:
                del self._lineage[next(iter(self._lineage))]
        self._admitted.discard(entry)
        self._per_address[entry.address] -= 1
        if not self._per_address[entry.address]:
            del self._per_address[entry.address]
            self._inbound.pop(entry.address, None)
        self._trimmer.note()

    async def _serve(self, sock: socket.socket, entry: Admitted) -> None:
        """One accepted connection: the TLS handshake within its deadline, then a session."""
        entry.started = True  # (the socket is this coroutine's to close from here)
        loop = asyncio.get_running_loop()
        address = entry.address
        try:
            # asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and a socket
            # from socket.create_server says 0: without it each small write waits on Nagle.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.config.send_buffer is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.config.send_buffer)
            # (a StreamReader stops reading the socket at twice its limit: 32 KiB held here)
            reader = asyncio.StreamReader(limit=2**14)
            protocol = asyncio.StreamReaderProtocol(reader)
            try:
                transport, _ = await loop.connect_accepted_socket(
                    lambda: protocol,
                    sock,
                    ssl=self._tls,
                    ssl_handshake_timeout=self.config.tls_handshake_seconds,
                )
            except (ssl.SSLError, TimeoutError, ConnectionError, OSError):
                sock.close()
                return
            except asyncio.CancelledError:  # evicted during its handshake
                sock.close()
                raise
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
            session = entry.session = Session(
                self.config,
                self.lobby,
                reader,
                writer,
                address,
                lambda: len(self.sessions),
                certificate=certificate_digest(self.fingerprint),
                names=self.names,
                admit=lambda session: self._admit_at_hello(entry, session),
                inbound=self._inbound.get(address),
                log_budget=self._log_budgets.of(address),
            )
            self.sessions.add(session)
            try:
                await session.run()
            finally:
                self.sessions.discard(session)
        finally:
            self._release(entry)
            # the session's `admit` holds `entry`: without this, a cycle that only the
            # collector's rare full pass frees, with the connection's buffers (memory.py)
            entry.session = None

    def write_record(self, table: str, record: dict[str, Any]) -> str:
        path = self.storage.write_record(table, record)
        self.records.append(str(path))
        log.info("table %s: record written to %s", table, path)
        self._keep_records(path)
        return str(path)

    def _keep_records(self, written: Path) -> None:
        """At most `max_records` game records in DIR/records: past it the oldest go (their
        names begin with the time), a line in the log for each hundredth (one guest's bots
        finishing a game every few seconds filled the disk a record at a time, and a full
        disk pauses every table: a hostile pass)."""
        if written.parent != self.storage.records:
            return
        if self._kept_records is None:  # (read once; then followed as they are written)
            self._kept_records = deque(sorted(self.storage.records.glob("*.json")))
        else:
            self._kept_records.append(written)
        while len(self._kept_records) > self.config.max_records:
            oldest = self._kept_records.popleft()
            with contextlib.suppress(OSError):
                oldest.unlink()
            self._records_let_go += 1
            if self._records_let_go % 100 == 1:
                log.warning(
                    "records: past %d kept, the oldest go (%s; %d so far this run)",
                    self.config.max_records,
                    oldest.name,
                    self._records_let_go,
                )

    async def close(self) -> None:
        """Stop accepting, tell every client, finish the tables' writes, and close every
        connection within the shutdown deadline.  Safe to call more than once."""
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        self.lobby.closing = True
        if self._accepting is not None:
            self._accepting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._accepting
        self._stop_listening()
        bye = m.Bye(code=Code.SERVER_CLOSING, reason="the server is shutting down")
        for session in list(self.sessions):
            session.goodbye(bye)
        await self.lobby.close()  # games in progress stay in the journal
        if self._tasks:
            _, pending = await asyncio.wait(
                set(self._tasks), timeout=self.config.shutdown_seconds / 2
            )
            for session in list(self.sessions):
                session.kill("server closing")
            if pending:
                await asyncio.wait(pending, timeout=self.config.shutdown_seconds / 2)
        await self._trimmer.close()
        if self.journal is not None:
            self.journal.close()
        self.names.close()
        self.storage.unlock()
        self._closed.set()

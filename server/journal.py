"""The tables' journal: a log of every table's events in SQLite (WAL mode), from which a
restarted server rebuilds each table as it was (see `restore.py`).

One row per thing that changed a table: its settings when it opened, its seats when
they changed, each deal (with the seeds that made it), each action, the end of a game.
Rows are written *before* what they record is sent to anyone, so nothing a player has
seen can be missing after a crash.  `synchronous=NORMAL` under WAL: a killed server
loses nothing that was written; a power cut may lose the last moments.

Each row carries its place in its table's log (`seq`, 0, 1, 2, ...) and a MAC
(HMAC-SHA256 keyed by DIR/journal.key) over the table, the place, the kind and the body:
an edited, reordered, removed or moved row is refused at restore, not believed.  The
journal holds no secret that gives a seat: seat tokens as SHA-256, passwords as scrypt.

It stays small: a `seats` row replaces a `seats` row just before it (only the last one
matters), a table's log is compacted when its game ends and at start, and the WAL is
truncated after each compaction."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    seq INTEGER,
    mac BLOB
);
CREATE INDEX IF NOT EXISTS events_by_table ON events (table_id, id);
"""

#: What a failed write raises: SQLite's errors and the OS's (a full disk is either).
WriteFailed = (sqlite3.Error, OSError)


class JournalError(Exception):
    """The journal file cannot be opened or read; the message says what to do."""


@dataclass(frozen=True)
class Entry:
    kind: str
    body: dict[str, Any]


def row_mac(key: bytes, table_id: int, seq: int, kind: str, body: str) -> bytes:
    """A row's MAC: HMAC-SHA256 over its table, its place in the table's log, its kind and
    its body."""
    message = f"{table_id}\0{seq}\0{kind}\0".encode() + body.encode()
    return hmac.new(key, message, hashlib.sha256).digest()


def as_text(raw: bytes) -> str:
    """A text column as read: bytes that are not UTF-8 (damage SQLite's own check does
    not see) read as U+FFFD, so that the row fails its MAC and its table is set aside,
    instead of the read failing and the server not starting."""
    return raw.decode("utf-8", "replace")


def _dump(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"))


class Journal:
    def __init__(self, path: Path, key: bytes) -> None:
        self.path = path
        self.key = key
        #: Per table: (row id, seq, kind) of its last row.
        self._last: dict[int, tuple[int, int, str]] = {}
        #: Tables closed by this process (set aside: see `Server`).
        self.closed_now: list[int] = []
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.text_factory = as_text
            mode = self.db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA secure_delete=ON")  # rows removed leave no bytes behind
            # the WAL is copied into the file every 256 pages and then cut back to 1 MiB
            self.db.execute("PRAGMA wal_autocheckpoint=256")
            self.db.execute("PRAGMA journal_size_limit=1048576")
            self.db.executescript(SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(events)")}
            if "mac" not in columns:
                self._add_macs()
        except sqlite3.DatabaseError as exc:
            raise JournalError(
                f"the tables' journal {path} cannot be read ({exc}); move it away to start "
                "with no tables"
            ) from None
        if mode != "wal":
            raise JournalError(f"the tables' journal {path} cannot use WAL mode (got {mode!r})")

    def _add_macs(self) -> None:
        """A journal from before MACs: its rows are taken as they are, once, and given
        their places and MACs (docs/reliability.md says why)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("ALTER TABLE events ADD COLUMN seq INTEGER")
            self.db.execute("ALTER TABLE events ADD COLUMN mac BLOB")
            rows = self.db.execute(
                "SELECT id, table_id, kind, body FROM events ORDER BY table_id, id"
            ).fetchall()
            places: dict[int, int] = {}
            for row_id, table_id, kind, body in rows:
                seq = places.get(table_id, 0)
                places[table_id] = seq + 1
                self.db.execute(
                    "UPDATE events SET seq = ?, mac = ? WHERE id = ?",
                    (seq, self.mac(table_id, seq, kind, body), row_id),
                )

    def mac(self, table_id: int, seq: int, kind: str, body: str) -> bytes:
        return row_mac(self.key, table_id, seq, kind, body)

    def check(self) -> str | None:
        """None if SQLite finds the file whole; else what it says is wrong (first line)."""
        try:
            rows = self.db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            return str(exc).splitlines()[0]
        if rows == [("ok",)]:
            return None
        said = [line for row in rows for line in str(row[0]).splitlines()]
        said = [line for line in said if not line.startswith("***")] or ["quick_check failed"]
        return said[0]

    # --- writing --------------------------------------------------------------------------

    def open_table(self, name: str) -> int:
        cursor = self.db.execute("INSERT INTO tables (name) VALUES (?)", (name,))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def append(self, table_id: int, kind: str, body: dict[str, Any]) -> None:
        """One row at the end of the table's log (a `seats` row right after a `seats`
        row takes its place, and a `password` row after a `password` row: a creator
        changing it again and again grew the journal 200 MB an hour, a hostile pass).
        Raises sqlite3.Error or OSError if it cannot be written."""
        text = _dump(body)
        last = self._last.get(table_id)
        if last is None:
            found = self.db.execute(
                "SELECT id, seq, kind FROM events WHERE table_id = ? ORDER BY id DESC LIMIT 1",
                (table_id,),
            ).fetchone()
            last = found if found is not None else (0, -1, "")
        row_id, seq, last_kind = last
        if kind in ("seats", "password") and last_kind == kind:
            self.db.execute(
                "UPDATE events SET body = ?, mac = ? WHERE id = ?",
                (text, self.mac(table_id, seq, kind, text), row_id),
            )
            return
        seq += 1
        cursor = self.db.execute(
            "INSERT INTO events (table_id, kind, body, seq, mac) VALUES (?, ?, ?, ?, ?)",
            (table_id, kind, text, seq, self.mac(table_id, seq, kind, text)),
        )
        assert cursor.lastrowid is not None
        self._last[table_id] = (cursor.lastrowid, seq, kind)

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """One transaction for what is written inside (a journal row and what the ladder
        counts with it): all of it is written, or none (a failure rolls it back and
        raises)."""
        last = dict(self._last)
        try:
            with self.db:
                self.db.execute("BEGIN")
                yield
        except BaseException:
            self._last = last  # the rows it noted are not there
            raise

    def close_table(self, table_id: int) -> None:
        """Leave a table out of every later start (set aside: its rows stay until they
        are copied out, see `closed_tables` and `drop_table`)."""
        self.db.execute("UPDATE tables SET closed = 1 WHERE id = ?", (table_id,))
        self.closed_now.append(table_id)

    def drop_table(self, table_id: int) -> None:
        """Remove a table and its rows (its record is written, or its rows copied out)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM events WHERE table_id = ?", (table_id,))
            self.db.execute("DELETE FROM tables WHERE id = ?", (table_id,))
        self._last.pop(table_id, None)

    def compact(self, table_id: int, entries: list[Entry]) -> None:
        """Replace a table's log by `entries` (what rebuilds it as it is now), in one
        transaction: when its game ends, and at start for tables with no game on."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM events WHERE table_id = ?", (table_id,))
            self._last.pop(table_id, None)
            rows = []
            for seq, entry in enumerate(entries):
                text = _dump(entry.body)
                rows.append(
                    (table_id, entry.kind, text, seq, self.mac(table_id, seq, entry.kind, text))
                )
            self.db.executemany(
                "INSERT INTO events (table_id, kind, body, seq, mac) VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it (it would otherwise keep its
        largest size)."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # --- reading --------------------------------------------------------------------------

    def open_tables(self) -> Iterator[tuple[int, str, list[Entry]]]:
        """Every table not closed, oldest first, with its entries in order.  A row that
        is not authentic (its MAC, or its place in the log), or whose body is not JSON,
        is given as kind "damaged" with `why`, so the table's rebuild refuses it."""
        try:
            tables = self.db.execute(
                "SELECT id, name FROM tables WHERE closed = 0 ORDER BY id"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"the tables' journal {self.path} cannot be read ({exc})") from None
        for table_id, name in tables:
            yield table_id, name, self.entries(table_id)

    def closed_tables(self) -> list[tuple[int, str]]:
        return [
            (table_id, name)
            for table_id, name in self.db.execute(
                "SELECT id, name FROM tables WHERE closed = 1 ORDER BY id"
            )
        ]

    def entries(self, table_id: int) -> list[Entry]:
        entries = []
        rows = self.db.execute(
            "SELECT id, seq, kind, body, mac FROM events WHERE table_id = ? ORDER BY id",
            (table_id,),
        ).fetchall()
        for place, (row_id, seq, kind, body, mac) in enumerate(rows):
            why = ""
            if seq != place:
                why = f"row {row_id} is out of place (a row before it is missing or moved)"
            elif not isinstance(mac, bytes) or not hmac.compare_digest(
                mac, self.mac(table_id, seq, str(kind), str(body))
            ):
                why = f"row {row_id} is not authentic (its MAC does not match: edited or moved)"
            value: Any = None
            if not why:
                try:
                    value = json.loads(body)
                except (ValueError, TypeError):
                    value = None
                if not isinstance(value, dict):
                    why = f"row {row_id} is not JSON"
            if why:
                kind, value = "damaged", {"why": why}
            entries.append(Entry(kind, value))
        if rows:
            last_id, last_seq, last_kind = rows[-1][0], rows[-1][1], rows[-1][2]
            self._last[table_id] = (last_id, last_seq, last_kind)
        return entries

    def rows(self, table_id: int) -> list[dict[str, Any]]:
        """The table's rows as they are (to keep a set-aside table's log)."""
        return [
            {"id": i, "seq": s, "kind": k, "body": b, "mac": m.hex() if isinstance(m, bytes) else m}
            for i, s, k, b, m in self.db.execute(
                "SELECT id, seq, kind, body, mac FROM events WHERE table_id = ? ORDER BY id",
                (table_id,),
            )
        ]

    def close(self) -> None:
        self.db.close()


def salvage(damaged: Path, into: Path, key: bytes) -> int:
    """Copy every row SQLite can still read from the damaged journal `damaged`, and whose
    MAC holds (a damaged page can give rows of garbage), into a new journal file `into`,
    as they are; the number of rows copied.  A table that lost rows then shows a gap in
    its places, and is set aside at restore."""
    source = sqlite3.connect(damaged, isolation_level=None)
    source.text_factory = as_text
    target = sqlite3.connect(into, isolation_level=None)
    target.execute("PRAGMA journal_mode=WAL")
    target.executescript(SCHEMA)
    copied = 0
    try:
        try:
            source.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError:
            return 0  # not a database at all: nothing to read
        names: dict[int, str] = {}
        tables = {row[0]: row for row in _readable(source, "tables", "id, name, closed")}
        try:
            columns = {row[1] for row in source.execute("PRAGMA table_info(events)")}
        except sqlite3.DatabaseError:
            columns = {"mac"}
        macs = "seq, mac" if "mac" in columns else "NULL, NULL"  # older: refused, set aside
        rows = _readable(source, "events", f"id, table_id, kind, body, {macs}")
        for row in rows:
            _, table_id, kind, body, seq, mac = row
            if not (
                isinstance(table_id, int)
                and isinstance(seq, int)
                and isinstance(mac, bytes)
                and isinstance(kind, str)
                and isinstance(body, str)
                and hmac.compare_digest(mac, row_mac(key, table_id, seq, kind, body))
            ):
                continue
            if table_id not in names:
                known = tables.get(table_id)
                names[table_id] = str(known[1]) if known else f"table {table_id}"
                closed = known[2] if known else 0
                target.execute(
                    "INSERT INTO tables (id, name, closed) VALUES (?, ?, ?)",
                    (table_id, names[table_id], closed),
                )
            target.execute(
                "INSERT OR IGNORE INTO events (id, table_id, kind, body, seq, mac) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
            copied += 1
    finally:
        source.close()
        target.close()
    return copied


def _readable(db: sqlite3.Connection, table: str, columns: str, step: int = 64) -> list[Any]:
    """The rows of `table` SQLite can read, a range of ids at a time: a damaged page
    loses the rows on it, not the rest."""
    query = f"SELECT {columns} FROM {table} WHERE id BETWEEN ? AND ? ORDER BY id"
    try:
        top = db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    top = top if isinstance(top, int) else 100_000
    found: list[Any] = []
    for low in range(0, top + 1, step):
        try:
            found += db.execute(query, (low, low + step - 1)).fetchall()
        except sqlite3.DatabaseError:
            for one in range(low, low + step):
                try:
                    found += db.execute(query, (one, one)).fetchall()
                except sqlite3.DatabaseError:
                    continue
    return found


def copy_aside(path: Path, folder: Path) -> None:
    """Copy the journal's files (main, -wal, -shm) into `folder` as they are."""
    for suffix in ("", "-wal", "-shm"):
        source = path.with_name(path.name + suffix)
        if source.exists() and not source.is_symlink():
            shutil.copyfile(source, folder / source.name)
            (folder / source.name).chmod(0o600)

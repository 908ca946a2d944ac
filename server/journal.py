"""The tables' journal: an append-only log of every table's events in SQLite (WAL mode),
from which a restarted server rebuilds each table as it was (see `restore.py`).

One row per thing that changed a table: its settings when it opened, its seats when
they changed, each deal (with the seeds that made it), each action, the end of a game.
Rows are written *before* what they record is sent to anyone, so nothing a player has
seen can be missing after a crash.  `synchronous=NORMAL` under WAL: a killed server
loses nothing that was written; a power cut may lose the last moments but never leaves
the file damaged."""

from __future__ import annotations

import json
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
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_table ON events (table_id, id);
"""


class JournalError(Exception):
    """The journal file cannot be opened or read; the message says what to do."""


@dataclass(frozen=True)
class Entry:
    kind: str
    body: dict[str, Any]


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            mode = self.db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise JournalError(
                f"the tables' journal {path} cannot be read ({exc}); move it away to start "
                "with no tables"
            ) from None
        if mode != "wal":
            raise JournalError(f"the tables' journal {path} cannot use WAL mode (got {mode!r})")

    def open_table(self, name: str) -> int:
        cursor = self.db.execute("INSERT INTO tables (name) VALUES (?)", (name,))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def append(self, table_id: int, kind: str, body: dict[str, Any]) -> None:
        self.db.execute(
            "INSERT INTO events (table_id, kind, body) VALUES (?, ?, ?)",
            (table_id, kind, json.dumps(body, separators=(",", ":"))),
        )

    def close_table(self, table_id: int) -> None:
        """Leave a table out of every later start (its rows stay, for a person to read)."""
        self.db.execute("UPDATE tables SET closed = 1 WHERE id = ?", (table_id,))

    def open_tables(self) -> Iterator[tuple[int, str, list[Entry]]]:
        """Every table not closed, oldest first, with its entries in order.  A row whose
        body is not JSON is given as kind "damaged" so the table's rebuild can refuse it."""
        try:
            tables = self.db.execute(
                "SELECT id, name FROM tables WHERE closed = 0 ORDER BY id"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"the tables' journal {self.path} cannot be read ({exc})") from None
        for table_id, name in tables:
            entries = []
            for kind, body in self.db.execute(
                "SELECT kind, body FROM events WHERE table_id = ? ORDER BY id", (table_id,)
            ):
                try:
                    value = json.loads(body)
                except (ValueError, TypeError):
                    value = None
                if not isinstance(value, dict):
                    kind, value = "damaged", {}
                entries.append(Entry(kind, value))
            yield table_id, name, entries

    def compact(self, table_id: int, entries: list[Entry]) -> None:
        """Replace a table's log by `entries` (what rebuilds it as it is now), in one
        transaction: at start-up, for tables with no game in progress."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM events WHERE table_id = ?", (table_id,))
            self.db.executemany(
                "INSERT INTO events (table_id, kind, body) VALUES (?, ?, ?)",
                [(table_id, e.kind, json.dumps(e.body, separators=(",", ":"))) for e in entries],
            )

    def close(self) -> None:
        self.db.close()

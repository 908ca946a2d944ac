"""Which player's key each name belongs to on this server: the first key to say hello
with a name claims it, and from then on only that key may use it (compared without
case: "Eve" and "eve" are one name).  Kept in `DIR/names.sqlite3` (private like the
rest of the data directory, under its lock); a server without a journal (`president
play`'s) keeps them in memory only."""

from __future__ import annotations

import contextlib
import datetime
import hmac
import logging
import os
import sqlite3
from pathlib import Path

from president.protocol.messages import name_taken

from .storage import StorageError

log = logging.getLogger("president.server")

#: The most names a server remembers: past it, a new name is refused (a flood of fresh
#: keys cannot grow the file without end); names already claimed still work.
MAX_NAMES = 100_000


class NamesError(StorageError):
    """The names file cannot be used; the message (one line) says why."""


class NameBook:
    """Names and the player ids (protocol/identity.py `player_id`) that own them."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._memory: dict[str, str] = {}
        self.db: sqlite3.Connection | None = None
        if path is None:
            return
        try:
            if path.is_symlink():
                raise NamesError(f"{path} is a symlink; the server does not follow one")
            with contextlib.suppress(FileExistsError):  # 0600 before SQLite opens it
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS names (folded TEXT PRIMARY KEY, name TEXT NOT NULL,"
                " player TEXT NOT NULL, claimed TEXT NOT NULL)"
            )
        except (sqlite3.Error, OSError) as exc:
            raise NamesError(f"the names file {path} cannot be used: {exc}") from None

    def owner(self, name: str) -> str | None:
        """The player id that owns `name`, or None if nobody has claimed it."""
        folded = name.casefold()
        if self.db is None:
            return self._memory.get(folded)
        row = self.db.execute("SELECT player FROM names WHERE folded = ?", (folded,)).fetchone()
        return None if row is None else str(row[0])

    def refusal(self, name: str, player: str) -> str | None:
        """Why `player` (a player id, "" for a client without a key) may not use `name`
        here, or None if it may: a key claims a name nobody has (a client without a key
        uses one, claiming nothing).  A claim that cannot be written is logged and the
        name is the player's for now (it is claimed again at its next hello)."""
        owner = self.owner(name)
        if owner is not None:
            return None if player and hmac.compare_digest(owner, player) else name_taken(name)
        if not player:
            return None
        if self.count() >= MAX_NAMES:
            log.warning("names: %d names kept, the most; %r not claimed", MAX_NAMES, name)
            return "this server remembers as many names as it can: use a name you used here before"
        folded = name.casefold()
        if self.db is None:
            self._memory[folded] = player
            return None
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        try:
            self.db.execute(
                "INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)", (folded, name, player, now)
            )
        except sqlite3.Error as exc:
            log.warning("names: %r could not be written: %s", name, exc)
            return None
        return None if self.owner(name) == player else name_taken(name)

    def count(self) -> int:
        if self.db is None:
            return len(self._memory)
        return int(self.db.execute("SELECT count(*) FROM names").fetchone()[0])

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

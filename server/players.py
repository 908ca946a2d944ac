"""Which player's key each name belongs to on this server: the first key to say hello
with a name claims it, and from then on only that key may use it.  Names are compared
as a reader sees them (`name_key`): without case, compatibility forms (fullwidth
letters) or invisible characters (zero-width spaces, soft hyphens), so "Eve", "eve",
"ｅｖｅ" and "e\u200bve" are one name; and a name that mixes Latin, Cyrillic or Greek
letters (a Cyrillic "а" in "аnn") is refused.  Kept in `DIR/names.sqlite3` (private
like the rest of the data directory, under its lock); a server without a journal
(`president play`'s) keeps them in memory only.

Claims cannot lock anyone out: an address claims at most `CLAIMS_PER_HOUR` new names
an hour, and past that, or once the book holds `MAX_NAMES`, a new name is used
unclaimed (as by a client without a key) rather than refused."""

from __future__ import annotations

import contextlib
import datetime
import hmac
import logging
import os
import sqlite3
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from pathlib import Path

from president.protocol.messages import name_taken

from .storage import StorageError

log = logging.getLogger("president.server")

#: The most names a server remembers: past it, a new name is used without being claimed
#: (a flood of fresh keys cannot grow the file without end, nor lock newcomers out).
MAX_NAMES = 100_000
#: New names one address may claim in an hour (past it: used, not claimed).
CLAIMS_PER_HOUR = 30
#: Alphabets whose letters look alike: a name may use one of them, not several.
LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})


def name_key(name: str) -> str:
    """`name` as it is compared: NFKC, without case, without invisible (format)
    characters."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFKC", text)


def mixed_scripts(name: str) -> list[str]:
    """The lookalike alphabets `name`'s letters come from, if more than one."""
    scripts = set()
    for ch in name:
        if ch.isalpha():
            script = unicodedata.name(ch, "").split(" ")[0]
            if script in LOOKALIKE_SCRIPTS:
                scripts.add(script)
    return sorted(scripts) if len(scripts) > 1 else []


class NamesError(StorageError):
    """The names file cannot be used; the message (one line) says why."""


class NameBook:
    """Names and the player ids (protocol/identity.py `player_id`) that own them."""

    def __init__(
        self, path: Path | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.path = path
        self.clock = clock
        self._memory: dict[str, str] = {}
        #: Per address, when it claimed its recent names (the last hour's).
        self._claims: dict[str, deque[float]] = {}
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
        folded = name_key(name)
        if self.db is None:
            return self._memory.get(folded)
        row = self.db.execute("SELECT player FROM names WHERE folded = ?", (folded,)).fetchone()
        return None if row is None else str(row[0])

    def refusal(self, name: str, player: str, address: str = "") -> str | None:
        """Why `player` (a player id, "" for a client without a key) may not use `name`
        here, or None if it may: a key claims a name nobody has (a client without a key
        uses one, claiming nothing).  A claim that cannot be written, or is past the
        limits, is logged and the name is used unclaimed for now (claimed at a later
        hello)."""
        mixed = mixed_scripts(name)
        if mixed:
            return (
                f"a name may not mix {' and '.join(s.title() for s in mixed)} letters "
                "(they look alike): choose a name in one alphabet"
            )
        owner = self.owner(name)
        if owner is not None:
            return None if player and hmac.compare_digest(owner, player) else name_taken(name)
        if not player:
            return None
        if self.count() >= MAX_NAMES:
            log.warning("names: %d names kept, the most; %r used unclaimed", MAX_NAMES, name)
            return None
        if not self._may_claim(address):
            log.warning(
                "names: %s claimed %d names this hour; %r used unclaimed",
                address,
                CLAIMS_PER_HOUR,
                name,
            )
            return None
        folded = name_key(name)
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

    def _may_claim(self, address: str) -> bool:
        """Count a claim against `address`'s hour, if it has room left."""
        now = self.clock()
        if len(self._claims) > 4096:  # forget addresses quiet for an hour
            for old in [a for a, times in self._claims.items() if now - times[-1] > 3600]:
                del self._claims[old]
        times = self._claims.setdefault(address, deque())
        while times and now - times[0] > 3600:
            times.popleft()
        if len(times) >= CLAIMS_PER_HOUR:
            return False
        times.append(now)
        return True

    def count(self) -> int:
        if self.db is None:
            return len(self._memory)
        return int(self.db.execute("SELECT count(*) FROM names").fetchone()[0])

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

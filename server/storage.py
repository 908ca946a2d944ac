"""The server's data directory: its lock, its certificate and key, the tables' journal and
its key, the names players' keys claimed, and the finished games' records.

The directory is private (0700, every file in it 0600, owned by the server's user:
anything else is refused with one line), one server uses it at a time (an exclusive
`flock` on `DIR/lock` and on DIR itself, taken before anything else is touched and held
for the process's life), and secrets are never written through a symlink."""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import os
import re
import secrets
import ssl
import stat
from pathlib import Path
from typing import Any

from president.bots.files import foreign_folder
from president.engine.record import dumps
from president.protocol.certs import fingerprint, make_certificate, pem_to_der

#: The files of a data directory the server checks at start (besides the directories).
SERVER_FILES = (
    "lock",
    "cert.pem",
    "key.pem",
    "journal.key",
    "tables.sqlite3",
    "tables.sqlite3-wal",
    "tables.sqlite3-shm",
    "names.sqlite3",
    "names.sqlite3-journal",
    "names.sqlite3-wal",
    "names.sqlite3-shm",
)


class StorageError(Exception):
    """The data directory cannot be used; the message (one line) says why and what to do."""


class Storage:
    def __init__(self, root: Path) -> None:
        self._place(root)
        self._lock: int | None = None
        self._folder_lock: int | None = None
        self._exclusive = True
        #: The directories this start made (the data directory and missing parents),
        #: outermost first: what `discard` takes away again if the start fails.
        self._made: list[Path] = []
        #: The data directory was made private here (`prepare`): what it was before.
        self.tightened: int | None = None
        #: The certificate was made at this start (`certificate`): the first with this
        #: directory, or a host's typo in `--data` (its clients then refuse the server).
        self.new_certificate = False

    def _place(self, root: Path) -> None:
        self.root = root
        self.records = root / "records"
        self.damaged = root / "damaged"
        self.journal = root / "tables.sqlite3"
        self.journal_key_file = root / "journal.key"
        #: Which player's key owns each name (server/players.py).
        self.names = root / "names.sqlite3"

    # --- start: lock, then check ----------------------------------------------------------

    def prepare(self, exclusive: bool = True) -> None:
        """Make the directory if it is not there, lock it, and check it is private.  The
        lock comes first: a second server refused here has changed nothing.  A server
        with no journal (`president play`'s) shares the directory with others like it
        (`exclusive` False: only its records and certificate are there) but never with a
        journaled server."""
        missing = [p for p in (self.root, *self.root.parents) if not p.exists()]
        try:  # each directory made here is private, the parents too (mkdir's mode is
            for path in reversed(missing):  # only the last one's with parents=True)
                with contextlib.suppress(FileExistsError):  # made meanwhile: not ours
                    path.mkdir(mode=0o700)
                    self._made.append(path)
        except OSError as exc:
            self.discard()
            raise StorageError(
                f"cannot make the data directory {self.root}: {exc.strerror or exc}"
            ) from None
        try:
            self._settle()
            self._tighten()
            _check_private(self.root, directory=True, follow=True)
            self.lock(exclusive)
            for name in SERVER_FILES:
                _check_private(self.root / name, directory=False)
            for folder in (self.records, self.damaged):
                _check_private(folder, directory=True)
            try:
                self.records.mkdir(mode=0o700, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"cannot make {self.records}: {exc.strerror}") from None
        except BaseException:
            self.discard()
            raise

    def _settle(self) -> None:
        """From here on the data directory is its real path (a link to it is read once,
        here), and every directory above it is one only this user or root may change (or
        a sticky one, as /tmp): another user who may rename a folder on the way could put
        a directory of their own in its place after these checks, and be served its key
        and journal (a hostile pass, with a link in a folder a group shared)."""
        real = Path(os.path.realpath(self.root))
        foreign = foreign_folder(real.parent)
        if foreign is not None:
            fix = f", or {foreign.fix}" if foreign.fix else ""
            raise StorageError(
                f"the data directory {real} is inside {foreign.place}, which {foreign.why}:"
                " they could put a directory of their own in its place; use one under"
                f" folders only you can write (--data){fix}"
            )
        self._place(real)

    def _tighten(self) -> None:
        """A data directory of this user's, empty, that others may read but not write (a
        host's plain `mkdir`): made private (0700) here, not refused.  One others may
        write in, or one holding anything, is refused as before: what is in it may
        already have been read or put there."""
        try:
            info = os.stat(self.root)
        except OSError:
            return
        mode = stat.S_IMODE(info.st_mode)
        if not (stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and mode & 0o077):
            return
        if mode & 0o022 or any(self.root.iterdir()):
            return
        os.chmod(self.root, 0o700)
        self.tightened = mode

    def discard(self) -> None:
        """After a failed start: take away the data directory (and parents) this start
        made, with what it put there, so a mistake leaves nothing behind.  A directory
        someone else wrote in meanwhile (another `president play`) stays."""
        held = self._lock is not None
        self.unlock()
        if not self._made:
            return
        for name in (*SERVER_FILES, ".cert.pem.tmp", ".key.pem.tmp", ".journal.key.tmp"):
            if held:  # without the lock, another server may be using them
                (self.root / name).unlink(missing_ok=True)
        for path in (self.records, self.damaged, *reversed(self._made)):
            with contextlib.suppress(OSError):  # not empty: not only ours
                path.rmdir()
        self._made = []

    def lock(self, exclusive: bool = True) -> None:
        """Take the directory's lock (DIR/lock, holding our pid, and the directory itself)
        or say who holds it."""
        path = self.root / "lock"
        try:
            # (the directory too: a lock file removed by hand, as a stale one looks, let a
            # second server use the data of a running one, a host's pass)
            folder = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise StorageError(f"cannot open {self.root}: {exc.strerror}") from None
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            os.close(folder)
            if exc.errno == errno.ELOOP:
                raise StorageError(f"{path} is a symlink; remove it") from None
            raise StorageError(f"cannot open {path}: {exc.strerror}") from None
        how = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        try:
            fcntl.flock(folder, how)
            fcntl.flock(fd, how)
        except OSError:
            holder = os.read(fd, 100).decode("ascii", "replace").split()
            os.close(fd)
            os.close(folder)
            who = f"process {holder[0]}" if holder else "another process"
            if len(holder) > 1:
                who += f", listening on port {holder[1]}"
            raise StorageError(
                f"the data directory {self.root} is in use by another president server "
                f"({who}); stop it, or give this one another --data"
            ) from None
        self._lock, self._folder_lock, self._exclusive = fd, folder, exclusive
        if exclusive:
            self.note_port(None)

    def note_port(self, port: int | None) -> None:
        """Write who holds the lock (our pid, and our port once listening) into it."""
        if self._lock is None or not self._exclusive:
            return
        text = f"{os.getpid()}" + ("" if port is None else f" {port}") + "\n"
        os.ftruncate(self._lock, 0)
        os.pwrite(self._lock, text.encode(), 0)

    def unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        if self._folder_lock is not None:
            os.close(self._folder_lock)
            self._folder_lock = None

    # --- files ----------------------------------------------------------------------------

    def certificate(self, name: str) -> tuple[Path, Path, str]:
        """(cert file, key file, SHA-256 fingerprint): made on first start, kept after."""
        cert, key = self.root / "cert.pem", self.root / "key.pem"
        if cert.exists() and not key.exists():
            # (a new pair would change the fingerprint clients were shown, unsaid; a key
            # without its certificate is what a first start that stopped between the two
            # writes leaves, or a host's new certificate: a new pair then, as ever)
            raise StorageError(
                f"{key} is missing beside {cert}: put it back, or move {cert} away and a "
                "new pair is made at the next start (clients then warn of a new fingerprint: "
                "tell them it changed)"
            )
        try:
            if not (cert.exists() and key.exists()):
                cert_pem, key_pem = make_certificate(name)
                write_private(key, key_pem)
                write_private(cert, cert_pem)
                self.new_certificate = True
            shown = fingerprint(pem_to_der(cert.read_bytes()))
            ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key)  # (as served)
            return cert, key, shown
        except OSError as exc:
            if isinstance(exc, ssl.SSLError):  # (one of them not PEM, or not a pair)
                raise StorageError(self._unusable(cert, key)) from None
            where = exc.filename or cert
            raise StorageError(f"cannot keep the certificate ({where}): {exc.strerror}") from None
        except ValueError:  # (not PEM at all)
            raise StorageError(self._unusable(cert, key)) from None

    @staticmethod
    def _unusable(cert: Path, key: Path) -> str:
        return (
            f"the server's certificate {cert} and key {key} are not a certificate and its "
            "key: move both away and a new pair is made at the next start (clients then "
            "warn of a new fingerprint: tell them it changed)"
        )

    def journal_key(self) -> bytes:
        """The secret that authenticates the journal's rows (32 random bytes, made on
        first start)."""
        path = self.journal_key_file
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            key = secrets.token_bytes(32)
            write_private(path, key)
            return key
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc.strerror}") from None
        try:
            key = os.read(fd, 64)
        finally:
            os.close(fd)
        if len(key) != 32:
            raise StorageError(f"{path} is not a journal key (32 bytes); move it away")
        return key

    def create_journal(self) -> None:
        """Make the journal file 0600 before SQLite opens it (its -wal and -shm files take
        the main file's mode), and refuse a symlink in its place."""
        for name in ("", "-wal", "-shm"):
            path = self.journal.with_name(self.journal.name + name)
            if path.is_symlink():
                raise StorageError(f"{path} is a symlink; the server does not follow one")
        try:
            fd = os.open(self.journal, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return
        os.close(fd)

    def set_aside_dir(self) -> Path:
        """A fresh folder under DIR/damaged/ for what a damaged journal leaves."""
        self.damaged.mkdir(mode=0o700, exist_ok=True)
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
        path, n = self.damaged / stamp, 1
        while path.exists():
            n += 1
            path = self.damaged / f"{stamp}-{n}"
        path.mkdir(mode=0o700)
        return path

    def write_record(self, table: str, record: dict[str, Any], folder: Path | None = None) -> Path:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
        # (letters of any alphabet kept: a table named 金曜日 made "…-_.json", a newcomer's
        # pass; a table's name holds no separator, control or space: `_room_for`)
        safe = re.sub(r"[^\w-]+", "_", table)[:40].strip("_") or "table"
        where = folder or self.records
        path = where / f"{stamp}-{safe}.json"
        n = 1
        while path.exists():
            n += 1
            path = where / f"{stamp}-{safe}-{n}.json"
        write_private(path, dumps(record).encode())
        return path


def _check_private(path: Path, *, directory: bool, follow: bool = False) -> None:
    """Refuse (one line) a path owned by someone else, open to others, or (unless
    `follow`: the data directory itself may be a link) a symlink."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise StorageError(f"{path} is a symlink; the server does not follow one: remove it")
    if directory and not stat.S_ISDIR(info.st_mode):
        raise StorageError(f"{path} is not a directory")
    if not directory and stat.S_ISDIR(info.st_mode):
        raise StorageError(f"{path} is a directory, not a file: move it away")
    if info.st_uid != os.geteuid():
        raise StorageError(
            f"{path} belongs to user {info.st_uid}, not to this server's user "
            f"{os.geteuid()}: use a data directory of your own (--data)"
        )
    mode = stat.S_IMODE(info.st_mode)
    fix = f"chmod 700 {path}" if directory else f"chmod 600 {path}"
    if mode & 0o077:
        raise StorageError(
            f"{path} is open to other users (mode {mode:o}); it holds secrets: {fix}"
        )
    # (the server reads and writes each of them: a journal of 0400 was taken at start, its
    # tables then refused as "disk full?", and its -wal and -shm left 0400 after it, a
    # host's pass; an unreadable key.pem was said as the certificate)
    wanted = 0o700 if directory else 0o600
    if mode & wanted != wanted:
        what = "read, written and entered" if directory else "read and written"
        raise StorageError(f"{path} cannot be {what} by this server (mode {mode:o}): {fix}")


def write_private(path: Path, data: bytes) -> None:
    """Write whole or not at all, 0600, never through a symlink: a fresh temporary file
    (O_EXCL|O_NOFOLLOW, a stale one unlinked first: unlink does not follow), flushed,
    then renamed into place (rename replaces a symlink, it does not follow it)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)

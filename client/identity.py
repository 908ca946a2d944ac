"""The player's key, like an SSH identity: an Ed25519 private key made on first use in
`identity` in the XDG config directory (a bot's in `bots/NAME.key` in the XDG state
directory), kept 0600 in a 0700 directory, never read or written through a symlink.
A key file open to other users, someone else's, or unreadable is refused with one line
(`IdentityError`)."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.bots.files import foreign_folder


class IdentityError(Exception):
    """The key file cannot be used; the message (one line) says why and what to do."""


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "president"


def default_identity() -> Path:
    """Where a person's key lives unless `--identity` says otherwise."""
    return config_dir() / "identity"


def bot_identity(name: str) -> Path:
    """Where the key of the bot called `name` lives: one key per bot name, in the XDG
    state directory (a bot's key is state it makes for itself, not configuration)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or "bot"
    if safe != name:
        # a name the file's name could not keep as it is (Анна, ψ, rob!): the name's own
        # digest beside it, or Анна and Иван would share ____.key, one key for two bots
        # ("~" is never in a name kept as it is: no file of one is ever this one)
        safe += "~" + hashlib.sha256(name.encode()).hexdigest()[:16]
    return Path(base) / "president" / "bots" / f"{safe}.key"


class KeyFile:
    """A player key in a file, made only when first needed (when a server asks for a
    proof), so a command that fails before that leaves nothing behind."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._key: Ed25519PrivateKey | None = None

    def check(self) -> KeyFile:
        """Refuse now (`IdentityError`) a key file that is there and cannot be used."""
        with contextlib.suppress(FileNotFoundError):
            self._key = load(self.path)
        return self

    def __call__(self) -> Ed25519PrivateKey:
        """The key, made on first use; `IdentityError` if it cannot be."""
        if self._key is None:
            self._key = load_or_create(self.path)
        return self._key


def load_or_create(path: Path) -> Ed25519PrivateKey:
    """The key in `path`, made there first if there is none (its directory made 0700)."""
    try:
        return load(path)
    except FileNotFoundError:
        pass
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _make_dir(path.parent)
    if _write_new(path, pem):
        return key
    return load(path)  # another process made it meanwhile: theirs is the key


def load(path: Path) -> Ed25519PrivateKey:
    """The key in `path`; `FileNotFoundError` if there is none, `IdentityError` if it
    cannot be used."""
    _refuse_foreign_folders(path)
    try:
        # (O_NONBLOCK: a FIFO put there would otherwise hang the open; a file ignores it)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise IdentityError(f"the key file {path} is a symlink; it is not followed") from None
        raise IdentityError(f"cannot read the key file {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise IdentityError(f"the key file {path} is not a file")
        if info.st_uid != os.geteuid():
            raise IdentityError(
                f"the key file {path} belongs to user {info.st_uid}, not to you: it is not used"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            raise IdentityError(
                f"the key file {path} is open to other users (mode "
                f"{stat.S_IMODE(info.st_mode):o}): it is not used; chmod 600 {path}"
            )
        try:
            data = os.read(fd, 64 * 1024)
        except OSError as exc:
            raise IdentityError(f"cannot read the key file {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise IdentityError(
            f"{path} is not an unencrypted Ed25519 private key (PEM): move it away and a new "
            "key is made"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(f"{path} holds a key that is not Ed25519: move it away")
    return key


def _refuse_foreign_folders(path: Path) -> None:
    """`IdentityError` if another user could change the folder the key is in, or one
    above it (`foreign_folder`): they could not read the key, nor have theirs taken for
    it (`load` checks the file's owner), but they could delete it, and with it the names
    it holds on servers; or rename the folder away and put one of their own there."""
    found = foreign_folder(path.parent)
    if found is None:
        return
    fix = f"{found.fix}, or " if found.fix else ""
    raise IdentityError(
        f"the key file {path} is not safe there: {found.place} {found.why}, so they could"
        f" delete it or put a folder of theirs in its place; {fix}keep it in a folder of"
        " your own (--identity)"
    )


def _make_dir(folder: Path) -> None:
    """The key's directory, made 0700 (and its missing parents) if not there."""
    try:
        private_folder(folder)
    except OSError as exc:
        raise IdentityError(f"cannot make {folder} for your key: {exc.strerror}") from None


def private_folder(folder: Path) -> None:
    """Make `folder` and its missing parents, each 0700 (whatever the umask: under
    `umask 000` a plain `mkdir` made the config folder open to every user); one already
    there is left as it is.  `OSError` if one cannot be made."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
            path.chmod(0o700)  # (mkdir's mode is masked by the umask, which might take ours)


def _write_new(path: Path, data: bytes) -> bool:
    """Write `path` whole, 0600, if it does not exist: a fresh temporary file (O_EXCL,
    O_NOFOLLOW) linked into place, which fails rather than replace anything there.
    False if a file appeared there meanwhile."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise IdentityError(f"cannot write your key to {path}: {exc.strerror}") from None
    return True

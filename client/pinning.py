"""Trust on first use: the server's certificate fingerprint is remembered per address in
`known_servers` (in the XDG config directory) and a changed one is refused.  An address
is HOST:PORT, an IPv6 address in brackets (`[fd00::2]:7766`); a line written before
brackets (`fd00::2:7766`) is read as the same address."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from president.bots.files import others_may_write
from president.protocol.certs import normalise_fingerprint, same_fingerprint

from .identity import private_folder


def default_known_servers() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "president" / "known_servers"


class PinError(Exception):
    """What is remembered cannot vouch for the server (`PinMismatch`, `UntrustedPins`)."""


class UntrustedPins(PinError):
    """The file of remembered servers is not this user's alone: another user could have
    written a fingerprint into it (or may yet)."""


def ask_the_host(address: str, path: Path) -> str:
    """What to do about a certificate other than the one remembered for `address` (in
    `path`): said when connecting to it, and when it comes back so mid-game."""
    return (
        "Ask the host for the fingerprint their server printed; if it is the new one, remove "
        f"the line for {address} from {path} (or connect with --fingerprint)."
    )


class PinMismatch(PinError):
    """The server shows a different certificate than the one remembered for it."""

    def __init__(self, address: str, known: str, shown: str, path: Path) -> None:
        super().__init__(
            f"the server at {address} shows a different certificate than last time.\n"
            f"  remembered: {known}\n  shown now:  {shown}\n"
            "Someone may be between you and the server, or the host made a new certificate. "
            + ask_the_host(address, path)
        )
        self.address, self.known, self.shown = address, known, shown


class KnownServers:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_known_servers()

    def load(self) -> dict[str, str]:
        """The remembered fingerprints by address; `UntrustedPins` if the file, or the
        folder it is in, is another user's or open to their writing, or the file is a
        link or no file (a FIFO hung the client).  What is read is the file checked: one
        descriptor, never the path again (a swap between the two let another's pins in)."""
        try:  # (O_NONBLOCK: a FIFO would hang the open; a file ignores it)
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UntrustedPins(
                    f"{self.path} is a symlink: the servers remembered there are not "
                    "trusted (it is not followed); put the file itself there"
                ) from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # (a folder, a FIFO: before it is read)
                raise UntrustedPins(f"{self.path} is not a file: remove it")
        except BaseException:
            os.close(fd)
            raise
        with os.fdopen(fd, encoding="utf-8") as file:
            self._trusted(self.path, info)
            self._trusted(self.path.parent, self.path.parent.stat())
            return known_lines(file.read().splitlines())

    def _trusted(self, path: Path, info: os.stat_result) -> None:
        """`UntrustedPins` if `path` (the file or its folder) is another user's or open to
        another user's writing (its group's too, unless that group is the user's own)."""
        if info.st_uid != os.geteuid():
            raise UntrustedPins(
                f"{path} belongs to user {info.st_uid}, not to you: the servers "
                f"remembered in {self.path} are not trusted; remove it"
            )
        if others_may_write(info):
            raise UntrustedPins(
                f"{path} is open to other users' writing (mode {info.st_mode & 0o7777:o}):"
                f" the servers remembered in {self.path} are not trusted; chmod go-w {path},"
                " and check the fingerprints there"
            )

    def lookup(self, address: str) -> str | None:
        return self.load().get(address)

    def check(self, address: str, shown: str) -> bool:
        """True if `shown` is the remembered fingerprint, False if nothing is remembered;
        `PinMismatch` if something else is."""
        known = self.lookup(address)
        if known is None:
            return False
        if not same_fingerprint(known, shown):
            raise PinMismatch(address, known, normalise_fingerprint(shown), self.path)
        return True

    def remember(self, address: str, shown: str) -> None:
        known = self.load()
        if known.get(address) == normalise_fingerprint(shown):
            return  # (known already: a client coming back writes nothing, a full disk or not)
        known[address] = normalise_fingerprint(shown)
        private_folder(self.path.parent)
        self._trusted(self.path.parent, self.path.parent.stat())  # (open: not written into)
        body = "".join(f"{addr} {fp}\n" for addr, fp in sorted(known.items()))
        text = "# president: servers whose certificates you trusted\n" + body
        # Private like the rest of the folder (it says which servers this user visits);
        # a temporary file of this process's own, so that bots started together do not
        # move one another's away (they wrote one shared name, and all but one failed)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                os.fchmod(out.fileno(), 0o600)
                out.write(text)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def known_lines(lines: list[str]) -> dict[str, str]:
    """The fingerprints by address of a `known_servers` file's lines."""
    known: dict[str, str] = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and not line.startswith("#"):
            address = parts[0]
            if address.count(":") > 1 and not address.startswith("["):
                host, _, port = address.rpartition(":")  # (written before brackets)
                address = f"[{host}]:{port}"
            try:
                known[address] = normalise_fingerprint(parts[1])
            except ValueError:
                continue
    return known

"""What the server picker shows and what its keys do, as plain Python: the servers
announced on the LAN (kept as they come and go), the cursor, the chosen one in words.
No prompt_toolkit here.

An announcement is a hint: the picker says what a server claims (and whether this
client trusted its address before) but never vouches for it; connecting asks about the
certificate exactly as for a typed address."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from president.protocol.certs import same_fingerprint
from president.protocol.discovery import Announcement

from .fit import HelpPages, cells, head, middle_cut, pad


@dataclass
class ServersScreen:
    """The servers as last found, the cursor (kept on the same server as the list
    changes), the message line, and the versions this client speaks."""

    versions: tuple[int, ...]
    #: Addresses this client trusted before (known_servers): address -> fingerprint.
    known: Mapping[str, str] = field(default_factory=dict)
    servers: tuple[Announcement, ...] = ()
    cursor: int = 0
    message: str = ""
    #: Why the LAN cannot be searched, if it cannot (an address can still be typed).
    trouble: str = ""
    help: bool = False
    help_pages: HelpPages = field(default_factory=HelpPages, repr=False)
    #: Announcements left out (unusable, or too many).
    ignored: int = 0

    def update(self, servers: Iterable[Announcement], ignored: int = 0) -> None:
        chosen = self.selected()
        self.servers = tuple(servers)
        self.ignored = ignored
        if chosen is not None:
            keys = [(a.name, a.address) for a in self.servers]
            if (chosen.name, chosen.address) in keys:
                self.cursor = keys.index((chosen.name, chosen.address))
        self.cursor = min(self.cursor, max(0, len(self.servers) - 1))

    def selected(self) -> Announcement | None:
        return self.servers[self.cursor] if 0 <= self.cursor < len(self.servers) else None

    def move(self, step: int) -> None:
        if self.servers:
            self.cursor = (self.cursor + step) % len(self.servers)

    def trusted(self, server: Announcement) -> str | None:
        """The fingerprint trusted before for the server's address (as known_servers
        keys it: HOST:PORT, an IPv6 address in brackets), if any."""
        return self.known.get(server.address)

    def namesakes(self, server: Announcement) -> list[Announcement]:
        """The other servers listed under the same name (an impostor uses a known one)."""
        name = server.name.casefold()
        return [
            other
            for other in self.servers
            if other.name.casefold() == name and other.address != server.address
        ]

    def warnings(self, server: Announcement) -> list[str]:
        """What the user should know before trusting `server` for the first time: other
        servers under its name, one of them trusted already."""
        if self.trusted(server) is not None:
            return []
        out = []
        for other in self.namesakes(server):
            trusted = " (a server you trusted)" if self.trusted(other) is not None else ""
            out.append(
                f"Warning: another server on the LAN also calls itself {server.name}, at "
                f"{other.address}{trusted}. Ask the host which address is theirs."
            )
        return out

    def line(self, server: Announcement, width: int) -> str:
        """One server in `width`: its name (cut in the middle), its address, its tables
        and marks: `locked` (a password), `trusted` (this address was trusted before),
        `same name` (another server listed under its name), `other version` (no
        protocol version in common)."""
        tables = "?" if server.tables is None else str(server.tables)
        marks = [f"{tables} tbl"]
        if server.password:
            marks.append("locked")
        if self.trusted(server) is not None:
            marks.append("trusted")
        if self.namesakes(server):
            marks.append("same name")
        if not server.speaks(self.versions):
            marks.append("other version")
        tail = f" {server.address}  {' '.join(marks)}"
        name_w = max(6, min(20, width - len(tail)))
        text = f"{pad(middle_cut(server.name, name_w), name_w)}{tail}"
        return text if cells(text) <= width else head(text, width - 1) + "…"

    def details(self) -> list[str]:
        """The chosen server in words."""
        server = self.selected()
        if server is None:
            return [
                "no server yet: servers started on this network appear here as they "
                "announce themselves",
                "press a to type an address instead",
            ]
        tables = "tables: not said" if server.tables is None else f"{server.tables} table(s)"
        out = [
            f"{server.name} — {tables}",
            "password needed" if server.password else "no password",
            "at " + ", ".join(server.addresses) + f" port {server.port}",
        ]
        if not server.speaks(self.versions):
            theirs = ",".join(map(str, server.versions))
            mine = ",".join(map(str, self.versions))
            out.append(f"speaks protocol {theirs}, this client {mine}: it may refuse you")
        others = self.namesakes(server)
        if len(others) == 1:
            out.append(f"another server calls itself {server.name} too, at {others[0].address}")
        elif others:  # (a line each for 63 of them hid the rest, a hostile pass)
            at = ", ".join(o.address for o in others[:2]) + (", …" if len(others) > 2 else "")
            out.append(
                f"{len(others)} other servers call themselves {server.name} too (at {at}):"
                " only the fingerprint the host printed tells which is theirs"
            )
        known = self.trusted(server)
        if known is not None:
            out.append("you trusted this address before")
            if server.fingerprint is not None and not same_fingerprint(known, server.fingerprint):
                out.append(
                    "its announced certificate is not the one you trusted: "
                    "connecting checks the real one"
                )
        elif server.fingerprint is not None:
            out.append(
                f"announces certificate {server.fingerprint[:11]}…{server.fingerprint[-5:]} "
                "(a hint: you are asked to compare it with the host's on first connect)"
            )
        return out

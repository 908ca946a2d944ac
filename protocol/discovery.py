"""What a server says about itself on the LAN (DNS-SD, `_president._tcp.local.`): its
name, protocol versions, table count, whether it wants a password and its certificate
fingerprint as a hint, as TXT properties and back.  Pure: no sockets, no zeroconf.

Anyone on the LAN can announce anything, so reading is strict: every value is checked
and a bad one is dropped (or the whole announcement refused), never trusted, never
shown raw.  The fingerprint is only a hint: the client still checks the certificate
the server shows, and asks on first use exactly as for a typed address."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .certs import normalise_fingerprint
from .schema import shown

#: The DNS-SD service type every president server announces.
SERVICE_TYPE = "_president._tcp.local."
#: The version of the TXT properties below (RFC 6763 §6.7).
TXTVERS = "1"
#: What a name may be on the wire (protocol/messages.py: 1-32 characters).
MAX_NAME = 32
#: More tables than any server holds: a larger count is a lie, shown as unknown.
MAX_TABLES = 100_000
#: Addresses kept from one announcement (a real host has a handful).
MAX_ADDRESSES = 16
#: Bytes a TXT value may hold (a DNS character-string is at most 255 bytes).
MAX_VALUE = 255


class BadAnnouncement(ValueError):
    """An announcement no client can use (no port, no address, not ours)."""


@dataclass(frozen=True, kw_only=True)
class Announcement:
    """One server as it announces itself."""

    name: str
    port: int
    #: The addresses it says it can be reached at, best first (the client connects to
    #: the first).
    addresses: tuple[str, ...] = ()
    #: Protocol versions it speaks (protocol.messages.VERSIONS on a server of this build).
    versions: tuple[int, ...] = ()
    #: Open tables, or None when it did not say (or said something unbelievable).
    tables: int | None = None
    password: bool = False
    #: Its certificate's fingerprint as it claims it: a hint, never a pin.
    fingerprint: str | None = None

    def to_txt(self) -> dict[str, str]:
        """The TXT properties (the port and addresses travel in SRV and A/AAAA records)."""
        txt = {
            "txtvers": TXTVERS,
            "name": self.name,
            "proto": ",".join(str(v) for v in self.versions),
            "password": "yes" if self.password else "no",
        }
        if self.tables is not None:
            txt["tables"] = str(self.tables)
        if self.fingerprint is not None:
            txt["fp"] = normalise_fingerprint(self.fingerprint).replace(":", "")
        return txt

    @classmethod
    def from_txt(
        cls,
        properties: Mapping[bytes, bytes | None],
        *,
        port: int | None,
        addresses: Iterable[str],
        instance: str = "",
    ) -> Announcement:
        """An announcement as heard: the TXT `properties`, the SRV `port`, the resolved
        `addresses` and the DNS-SD `instance` label (the name when the TXT has none).
        `BadAnnouncement` if nothing in it can be connected to; any other bad value is
        dropped."""
        if port is None or not 1 <= port <= 65535:
            raise BadAnnouncement(f"no usable port: {port!r}")
        usable = reachable(addresses)
        if not usable:
            raise BadAnnouncement("no usable address")
        txt = _text_properties(properties)
        name = _name(txt.get("name")) or _name(instance) or "(no name)"
        return cls(
            name=name,
            port=port,
            addresses=usable,
            versions=_versions(txt.get("proto", "")),
            tables=_count(txt.get("tables")),
            password=txt.get("password", "").lower() in ("yes", "1", "true"),
            fingerprint=_fingerprint(txt.get("fp")),
        )

    @property
    def address(self) -> str:
        """HOST:PORT for `president connect` (an IPv6 address in brackets)."""
        return host_port(self.addresses[0], self.port)

    def speaks(self, versions: Iterable[int]) -> bool:
        """Whether a client speaking `versions` can talk to it (unknown: assume so)."""
        return not self.versions or bool(set(self.versions) & set(versions))


def host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def reachable(addresses: Iterable[str]) -> tuple[str, ...]:
    """The addresses a client can connect to, IPv4 first: parsed, each once, none that
    means "nowhere" (unspecified, multicast, broadcast) and no IPv6 link-local one (it
    needs an interface named with it), at most `MAX_ADDRESSES`."""
    kept: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for text in addresses:
        try:
            ip = ipaddress.ip_address(str(text)[:64])
        except ValueError:
            continue
        if (
            ip.is_unspecified
            or ip.is_multicast
            or ip == ipaddress.IPv4Address("255.255.255.255")
            or (ip.version == 6 and ip.is_link_local)
            or ip in kept
        ):
            continue
        kept.append(ip)
        if len(kept) == MAX_ADDRESSES:
            break
    kept.sort(key=lambda ip: ip.version)  # stable: the announcer's order within each
    return tuple(str(ip) for ip in kept)


def _text_properties(properties: Mapping[bytes, bytes | None]) -> dict[str, str]:
    """The properties as text: keys lower-cased (RFC 6763 §6.4: case-insensitive),
    the first of a repeated key, values cut to `MAX_VALUE` bytes and decoded with any
    undecodable byte replaced."""
    out: dict[str, str] = {}
    for key, value in list(properties.items())[:64]:
        if not isinstance(key, bytes):
            continue
        name = key[:16].decode("ascii", errors="replace").lower()
        if name in out or not isinstance(value, bytes | type(None)):
            continue
        out[name] = (value or b"")[:MAX_VALUE].decode("utf-8", errors="replace")
    return out


def _name(text: str | None) -> str | None:
    """A name as a screen may show it: controls escaped, spaces trimmed, at most
    `MAX_NAME` characters; None if nothing is left."""
    if not text:
        return None
    name = " ".join(shown(text).split())[:MAX_NAME].strip()
    return name or None


def _versions(text: str) -> tuple[int, ...]:
    found: list[int] = []
    for part in text.split(",")[:16]:
        part = part.strip()
        if part.isascii() and part.isdigit() and len(part) <= 3 and 1 <= int(part) <= 255:
            found.append(int(part))
    return tuple(sorted(set(found)))


def _count(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        return None
    count = int(text)
    return count if count <= MAX_TABLES else None


def _fingerprint(text: str | None) -> str | None:
    if not text or len(text) > 100:
        return None
    try:
        return normalise_fingerprint(text)
    except ValueError:
        return None

"""The server on the LAN: the addresses friends can use, and its DNS-SD announcement
(python-zeroconf, on the server's own event loop: nothing blocks it), kept current as
tables come and go and withdrawn at shutdown.  Announcing is a convenience: when it
cannot be done the server says so in one line and serves anyway."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, replace

import ifaddr
from president.protocol.discovery import SERVICE_TYPE, Announcement, host_port
from zeroconf import InterfaceChoice, IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

log = logging.getLogger("president.server")

#: Seconds browsers may keep the service's records without hearing them again.
OTHER_TTL = 120
#: Listening on one of these is listening on every interface.
EVERYWHERE = ("0.0.0.0", "::", "")


def interface_addresses(*, ipv6: bool = True) -> list[str]:
    """This machine's non-loopback interface addresses (IPv4 first), read from the
    system without a packet sent.  IPv6 link-local addresses are left out: a friend's
    client would need the interface's name with them."""
    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    try:
        adapters = ifaddr.get_adapters()
    except OSError:
        return []
    for adapter in adapters:
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            try:
                address = ipaddress.ip_address(text)
            except ValueError:
                continue
            if address.is_loopback or address.is_unspecified or address in found:
                continue
            if address.version == 6 and (not ipv6 or address.is_link_local):
                continue
            found.append(address)
    found.sort(key=lambda a: a.version)
    return [str(a) for a in found]


def friend_addresses(host: str, port: int) -> list[str]:
    """HOST:PORT for each address friends can use to reach a server listening on `host`:
    every interface's when it listens on all of them (IPv4 only on 0.0.0.0), else the
    one it listens on."""
    if host in EVERYWHERE:
        return [host_port(a, port) for a in interface_addresses(ipv6=host != "0.0.0.0")]
    return [host_port(host, port)]


#: mDNS's groups by IP version, and its port (RFC 6762 §3, §20).
MDNS_GROUPS = {4: "224.0.0.251", 6: "ff02::fb"}
MDNS_PORT = 5353


def multicast_problem(address: str) -> str | None:
    """Why nothing can be multicast from the interface of `address`, in the system's
    words, or None when it can (or when that interface is not found: zeroconf will
    say).  The kernel is asked by connecting a UDP socket to mDNS's group from that
    interface, which sends nothing: IPv6 loopback, for one, has no multicast route,
    and zeroconf does not report that its packets went nowhere."""
    ip = ipaddress.ip_address(address)
    try:
        if ip.version == 4:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, ip.packed)
                sock.connect((MDNS_GROUPS[4], MDNS_PORT))
            return None
        index = _interface_index(ip)
        if index is None:
            return None
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as sock:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, index)
            sock.connect((MDNS_GROUPS[6], MDNS_PORT, 0, index))
    except OSError as exc:
        if exc.errno == errno.EADDRNOTAVAIL:
            return "not an address of this machine"
        return exc.strerror or str(exc)
    return None


def _interface_index(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> int | None:
    """The index of the interface that has this IPv6 address, or None."""
    scope = getattr(ip, "scope_id", None)
    if scope:
        try:
            return int(scope) if scope.isdigit() else socket.if_nametoindex(scope)
        except OSError:
            return None
    bare = ipaddress.ip_address(str(ip).split("%")[0])
    try:
        adapters = ifaddr.get_adapters()
    except OSError:
        return None
    for adapter in adapters:
        for held in adapter.ips:
            if isinstance(held.ip, tuple) and ipaddress.ip_address(held.ip[0]) == bare:
                return int(adapter.index) if adapter.index is not None else None
    return None


@dataclass(frozen=True, kw_only=True)
class Where:
    """Where to announce: the interfaces zeroconf listens and sends on, and the
    addresses the announcement gives."""

    interfaces: InterfaceChoice | list[str]
    ip_version: IPVersion
    addresses: tuple[str, ...]


def where_to_announce(host: str, interface: str | None) -> Where:
    """On the interface asked for (`--mdns-interface`: tests keep everything on
    loopback with 127.0.0.1), else on the one address the server listens on, else on
    every interface, giving every address there."""
    chosen = interface or (None if host in EVERYWHERE else host)
    if chosen is None:
        everywhere = host == "::" or host == ""
        return Where(
            interfaces=InterfaceChoice.All,
            ip_version=IPVersion.All if everywhere else IPVersion.V4Only,
            addresses=tuple(interface_addresses(ipv6=everywhere)),
        )
    address = ipaddress.ip_address(chosen)  # ValueError: not an address
    listened = host if host not in EVERYWHERE else chosen
    return Where(
        interfaces=[str(address)],
        ip_version=IPVersion.V6Only if address.version == 6 else IPVersion.V4Only,
        addresses=(listened,),
    )


def _label(text: str, limit: int) -> str:
    """`text` as a DNS label of at most `limit` bytes: no dots, no controls."""
    label = re.sub(r"[\x00-\x1f\x7f.]+", "-", text).strip(" -") or "president"
    while len(label.encode()) > limit:
        label = label[:-1]
    return label


class Announcer:
    """The server's DNS-SD service: registered when started (in the background: probing
    takes a second or two), updated when the table count changes (looked at every
    `every` seconds, so a busy lobby sends at most one update that often), withdrawn
    by `close()` within a second."""

    def __init__(
        self,
        announcement: Announcement,
        where: Where,
        tables: Callable[[], int],
        say: Callable[[str], None],
        *,
        every: float = 3.0,
    ) -> None:
        self.announcement = announcement
        self.where = where
        self.tables = tables
        self.say = say
        self.every = every
        self.host = _label(socket.gethostname(), 40)
        self.instance = _label(f"{announcement.name} on {self.host}", 63)
        #: Set once the service is registered (the name may have changed on a clash).
        self.registered = asyncio.Event()
        self._zeroconf: AsyncZeroconf | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="announce")

    def _info(self, name: str) -> AsyncServiceInfo:
        a = self.announcement
        return AsyncServiceInfo(
            SERVICE_TYPE,
            name,
            port=a.port,
            properties=a.to_txt(),
            server=f"{self.host}-president-{a.port}.local.",
            parsed_addresses=list(self.where.addresses),
            # a server killed without its goodbye leaves browsers' lists within two
            # minutes (the library's default for these records is 75)
            other_ttl=OTHER_TTL,
        )

    async def _run(self) -> None:
        try:
            if not isinstance(self.where.interfaces, InterfaceChoice):
                problems = [multicast_problem(a) for a in self.where.interfaces]
                if all(problems):
                    where = ", ".join(self.where.interfaces)
                    raise OSError(f"no multicast from {where}: {problems[0]}")
            self._zeroconf = AsyncZeroconf(
                interfaces=self.where.interfaces, ip_version=self.where.ip_version
            )
            self.announcement = replace(self.announcement, tables=self.tables())
            info = self._info(f"{self.instance}.{SERVICE_TYPE}")
            await self._zeroconf.async_register_service(info, allow_name_change=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # any failure: say it, serve anyway
            reason = (str(exc).splitlines() or [type(exc).__name__])[0]
            self.say(f"not announced on the LAN ({reason}): friends connect with the address above")
            log.info("announcing failed: %r", exc)
            await self._close_zeroconf()
            return
        name = info.name  # with a suffix if another service had the name
        self.registered.set()
        where = (
            "every interface"
            if isinstance(self.where.interfaces, InterfaceChoice)
            else ", ".join(self.where.interfaces)
        )
        self.say(
            f"announced on the LAN (mDNS on {where}): `president connect` with no address "
            "lists this server"
        )
        while True:
            await asyncio.sleep(self.every)
            count = self.tables()
            if count == self.announcement.tables:
                continue
            self.announcement = replace(self.announcement, tables=count)
            try:
                await self._zeroconf.async_update_service(self._info(name))
            except Exception as exc:  # the next change tries again
                log.warning("updating the announcement failed: %r", exc)

    async def _close_zeroconf(self) -> None:
        zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is None:
            return
        try:
            # the goodbye packets (RFC 6762 §10.1), so browsers drop the server at once
            await asyncio.wait_for(zeroconf.async_close(), 1.0)
        except Exception as exc:  # shutting down regardless
            log.warning("withdrawing the announcement: %r", exc)

    async def close(self) -> None:
        """Withdraw the announcement (idempotent, within about a second)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._close_zeroconf()

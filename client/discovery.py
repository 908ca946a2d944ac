"""Servers on the LAN, as they announce themselves (DNS-SD `_president._tcp.local.`,
python-zeroconf on the client's event loop): a live list, each entry checked by
`protocol.discovery` before it is kept.  Finding a server trusts nothing: connecting
to one checks its certificate exactly as connecting to a typed address does."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable
from dataclasses import replace
from types import TracebackType

import ifaddr
from president.protocol.discovery import SERVICE_TYPE, Announcement, BadAnnouncement
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

log = logging.getLogger("president.client")

#: Servers kept at once: a flood of announcements cannot grow the list without end.
MAX_SERVERS = 64
#: How long one server's details are asked for before it is left out.
RESOLVE_MS = 3000
#: ... in requests of at most this long (`ServerFinder._request` says why).
SLICE_MS = 1000
#: Seconds between checks that each server listed still answers.  A server that stops
#: without its goodbye (killed, unplugged) would stay listed until its PTR record expires
#: (python-zeroconf keeps those at least 1,125 s); its other records expire after the
#: server's TTL (server.announce.OTHER_TTL, 120 s), and then it is asked again.
RECHECK = 15.0


class DiscoveryFailed(Exception):
    """The LAN cannot be searched here (no multicast on the interface, say)."""


def local_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks this machine's interfaces are on."""
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    with contextlib.suppress(OSError):
        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
                with contextlib.suppress(ValueError):
                    networks.append(ipaddress.ip_network(f"{text}/{ip.network_prefix}", False))
    return networks


def nearest_first(
    announcement: Announcement, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> Announcement:
    """The announcement with the addresses on one of this machine's networks first
    (a server on two networks is reached over the one we share), IPv4 before IPv6."""

    def distance(text: str) -> tuple[int, int]:
        ip = ipaddress.ip_address(text)
        return (0 if any(ip in net for net in networks) else 1, ip.version)

    ordered = tuple(sorted(announcement.addresses, key=distance))
    if ordered == announcement.addresses:
        return announcement
    return replace(announcement, addresses=ordered)


class ServerFinder:
    """Browses the LAN while open (`async with`): `servers` holds what is announced
    now, keyed by service name; `on_change()` is called after each change.  With an
    `interface` (an address of this machine) it listens and asks on that one only:
    tests use 127.0.0.1, so nothing leaves the machine."""

    def __init__(
        self,
        on_change: Callable[[], None] = lambda: None,
        *,
        interface: str | None = None,
        recheck: float = RECHECK,
    ) -> None:
        self.on_change = on_change
        self.interface = interface
        self.recheck = recheck
        self._rechecking: asyncio.Task[None] | None = None
        self.servers: dict[str, Announcement] = {}
        #: Services announced but not kept: beyond `MAX_SERVERS`, or unusable.
        self.ignored = 0
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._lookups: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._networks = local_networks()

    async def __aenter__(self) -> ServerFinder:
        await self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Start browsing; `DiscoveryFailed` in one line if this machine cannot."""
        try:
            if self.interface is None:
                interfaces: InterfaceChoice | list[str] = InterfaceChoice.All
                version = IPVersion.V4Only
            else:
                chosen = ipaddress.ip_address(self.interface)
                interfaces = [str(chosen)]
                version = IPVersion.V6Only if chosen.version == 6 else IPVersion.V4Only
            self._zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=version)
            self._browser = AsyncServiceBrowser(
                self._zeroconf.zeroconf, [SERVICE_TYPE], handlers=[self._changed]
            )
            self._rechecking = asyncio.get_running_loop().create_task(self._recheck())
        except Exception as exc:  # zeroconf's and the system's, in one line
            await self.close()
            reason = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise DiscoveryFailed(f"cannot look for servers on the LAN: {reason}") from None

    async def close(self) -> None:
        for task in [*self._lookups.values(), self._rechecking]:
            if task is not None:
                task.cancel()
        browser, self._browser = self._browser, None
        zeroconf, self._zeroconf = self._zeroconf, None
        with contextlib.suppress(Exception):
            if browser is not None:
                await browser.async_cancel()
            if zeroconf is not None:
                await asyncio.wait_for(zeroconf.async_close(), 1.0)

    def listing(self) -> list[Announcement]:
        """The servers found, by name then address."""
        return sorted(self.servers.values(), key=lambda a: (a.name.lower(), a.address))

    # --- zeroconf's callbacks (on the event loop) -----------------------------------

    def _changed(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            self._again.discard(name)
            task = self._lookups.pop(name, None)
            if task is not None:
                task.cancel()
            if self.servers.pop(name, None) is not None:
                self.on_change()
            return
        if name in self._lookups:
            self._again.add(name)  # looked up once more when this lookup ends
            return
        if name not in self.servers and len(self.servers) + len(self._lookups) >= MAX_SERVERS:
            self.ignored += 1
            return
        task = asyncio.get_running_loop().create_task(self._look_up(name))
        self._lookups[name] = task

    async def _recheck(self) -> None:
        """Every `recheck` seconds, each server listed that no lookup is busy with: its
        records from the cache while they last, else asked for again; gone if no answer."""
        while True:
            await asyncio.sleep(self.recheck)
            for name in list(self.servers):
                if name in self._lookups or name not in self.servers:
                    continue
                if not await self._resolve(name) and self.servers.pop(name, None) is not None:
                    log.info("%r: no answer: gone", name)
                    self.on_change()

    async def _look_up(self, name: str) -> None:
        try:
            while True:
                self._again.discard(name)
                await self._resolve(name)
                if name not in self._again:
                    return
        finally:
            self._lookups.pop(name, None)

    async def _resolve(self, name: str) -> bool:
        """Ask for the service's records (the cache answers while they last) and keep
        what they announce; False if nothing answered."""
        zeroconf = self._zeroconf
        if zeroconf is None:
            return False
        try:
            info = await self._request(zeroconf.zeroconf, name)
            if info is None:
                return False
            instance = name.removesuffix("." + SERVICE_TYPE)
            found = Announcement.from_txt(
                info.properties,
                port=info.port,
                addresses=info.parsed_addresses(),
                instance=instance,
            )
        except BadAnnouncement as exc:
            log.info("%r: left out: %s", name, exc)
            self._left_out(name)
            return True
        except Exception as exc:  # a hostile record is left out, never fatal
            log.info("%r: left out: %r", name, exc)
            self._left_out(name)
            return True
        found = nearest_first(found, self._networks)
        if self.servers.get(name) != found:
            self.servers[name] = found
            self.on_change()
        return True

    @staticmethod
    async def _request(
        zeroconf: Zeroconf, name: str, clock: Callable[[], float] | None = None
    ) -> AsyncServiceInfo | None:
        """The service's records, asked for (the cache answers while they last) for up
        to `RESOLVE_MS`, or None.  Asked in slices of `SLICE_MS`, each by a new request,
        which first reads what the cache holds: a request can miss an address that came
        in the same packet as, and before, the SRV record naming its host, and then
        never completes, since the address it lacks is in the cache and so is not
        answered again (python-zeroconf 0.154; seen in
        tests/test_discovery.py::test_a_hostile_announcement_is_neither_a_crash_nor_shown_raw).
        A request that gives up before its time (the host's addresses denied) is the
        answer: asking again would only spin.  `clock` is the event loop's (tests give
        their own)."""
        now = clock or asyncio.get_running_loop().time
        deadline = now() + RESOLVE_MS / 1000
        while True:
            # (the library refuses some hostile instance names here, by raising)
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            begun = now()
            timeout = max(1, min(SLICE_MS, int((deadline - begun) * 1000)))
            if await info.async_request(zeroconf, timeout):
                return info
            ended = now()
            if ended >= deadline or ended - begun < timeout / 2000:
                return None

    def _left_out(self, name: str) -> None:
        self.ignored += 1
        if self.servers.pop(name, None) is not None:  # its update made it unusable
            self.on_change()

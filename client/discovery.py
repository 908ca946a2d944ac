"""Servers on the LAN, as they announce themselves (DNS-SD `_president._tcp.local.`,
python-zeroconf on the client's event loop): a live list, each entry checked by
`protocol.discovery` before it is kept.  Finding a server trusts nothing: connecting
to one checks its certificate exactly as connecting to a typed address does.

Anyone on the LAN can announce hundreds of servers, so the list is bounded, and a
server this client trusted before (its address and fingerprint in known_servers) is
kept apart from the rest and listed first: a flood of others never hides it.  Of the
others, one whose address answers with the certificate it announces (a TLS handshake,
`answers`) is kept apart from those that do not: an announcement may name any address,
and a flood naming a real server's own address filled that address's places (a
hostile pass), where a fake cannot answer there with a certificate of its own."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ipaddress
import logging
import ssl
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import TracebackType

import ifaddr
from president.protocol.certs import fingerprint as fingerprint_of
from president.protocol.certs import normalise_fingerprint, same_fingerprint
from president.protocol.discovery import SERVICE_TYPE, Announcement, BadAnnouncement, host_port
from zeroconf import (
    InterfaceChoice,
    IPVersion,
    ServiceStateChange,
    Zeroconf,
    current_time_millis,
)
from zeroconf._dns import DNSPointer
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
from zeroconf.const import _CLASS_IN, _TYPE_PTR

from .pinning import KnownServers, PinError

log = logging.getLogger("president.client")

#: Servers not trusted before kept at once: a flood of announcements cannot grow the
#: list without end (nor push out a trusted one: those are kept apart).
MAX_OTHERS = 64
#: Servers claiming the certificate of a trusted one at an address it was not trusted
#: at (one that moved, or an impostor: connecting tells which), kept at once.
MAX_CLAIMING = 16
#: Servers at a trusted address claiming the fingerprint trusted there, kept at once.
MAX_TRUSTED = 64
#: Servers of any one kind kept at one address (the one a client would connect to).
MAX_PER_HOST = 8
#: Servers not trusted before whose address is asked, once each, whether it answers with
#: the certificate announced (`answers`), at most, in a finder's life: the addresses
#: come from whoever announces, so this client's connections to them are bounded.
MAX_PROBES = 1024
#: Seconds a probe waits for the handshake.
PROBE_SECONDS = 3.0
#: Servers looked up at once that are not kept yet (an announcement whose records are
#: not all in the library's cache); one turned away is tried again when it changes.
MAX_LOOKUPS = 16
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


def on_networks(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network],
) -> bool:
    """`ip` is on one of `networks` (this machine's: `local_networks`)."""
    return any(ip in net for net in networks)


def nearest_first(
    announcement: Announcement, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> Announcement:
    """The announcement with the addresses on one of this machine's networks first
    (a server on two networks is reached over the one we share), IPv4 before IPv6."""

    def distance(text: str) -> tuple[int, int]:
        ip = ipaddress.ip_address(text)
        return (0 if on_networks(ip, networks) else 1, ip.version)

    ordered = tuple(sorted(announcement.addresses, key=distance))
    if ordered == announcement.addresses:
        return announcement
    return replace(announcement, addresses=ordered)


class Trust(enum.IntEnum):
    """What this client knows of an announced server, in the order they are listed."""

    #: At an address trusted before, claiming the fingerprint trusted there.
    TRUSTED = 0
    #: Claiming a trusted fingerprint at another address: the server moved, or someone
    #: copied its (public) fingerprint; connecting checks the certificate either way.
    CLAIMING = 1
    #: Nothing known, but its address answers with the certificate it announces (not
    #: trust: connecting still asks about it; a fake naming another's address cannot).
    ANSWERED = 2
    #: Nothing known.
    OTHER = 3


#: How many of each kind are kept at once.
KEPT = {
    Trust.TRUSTED: MAX_TRUSTED,
    Trust.CLAIMING: MAX_CLAIMING,
    Trust.ANSWERED: MAX_OTHERS,
    Trust.OTHER: MAX_OTHERS,
}


def judged(
    announcement: Announcement, known: Mapping[str, str], fingerprints: frozenset[str]
) -> tuple[Trust, Announcement]:
    """The announcement's `Trust` by `known` (known_servers: HOST:PORT -> fingerprint,
    whose `fingerprints` are given too), and the announcement with the trusted address
    first if it has one, so that connecting goes where the pin is."""
    claimed = announcement.fingerprint
    if claimed is None or claimed not in fingerprints:
        return Trust.OTHER, announcement
    for address in announcement.addresses:
        if known.get(host_port(address, announcement.port)) == claimed:
            rest = tuple(a for a in announcement.addresses if a != address)
            return Trust.TRUSTED, replace(announcement, addresses=(address, *rest))
    return Trust.CLAIMING, announcement


class KeptServers:
    """The servers kept, by service name, in three bounded pools (`Trust`): at most
    `KEPT` of a kind and `MAX_PER_HOST` of a kind at one address.  A server is kept if
    its pool has room when it comes, or if the address with the most servers of its
    kind has at least two more than its own would have: one of those goes (so a flood
    of strangers fills only its own pool, and within it a few addresses do not keep out
    a server of another).  Addresses are as announced: only `Trust.ANSWERED` ones have
    been seen to answer there.  Pure: no zeroconf, no clock."""

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        self.known: dict[str, str] = {}
        for address, fingerprint in (known or {}).items():
            with contextlib.suppress(ValueError):
                self.known[address] = normalise_fingerprint(fingerprint)
        self._fingerprints = frozenset(self.known.values())
        self.servers: dict[str, Announcement] = {}
        self.trust: dict[str, Trust] = {}

    def offer(self, name: str, announcement: Announcement, answered: bool = False) -> bool:
        """Keep `announcement` for `name` (in place of what was kept for it) if its pool
        has room; True if what is kept changed.  `answered`: its address answered with
        the certificate it announces (`answers`)."""
        trust, announcement = judged(announcement, self.known, self._fingerprints)
        if trust is Trust.OTHER and answered:
            trust = Trust.ANSWERED
        if self.servers.get(name) == announcement and self.trust.get(name) is trust:
            return False
        was = self.remove(name)
        host = announcement.addresses[0]
        if not self._room(trust, host) and not self._make_room(trust, host):
            return was
        self.servers[name] = announcement
        self.trust[name] = trust
        return True

    def remove(self, name: str) -> bool:
        self.trust.pop(name, None)
        return self.servers.pop(name, None) is not None

    def _room(self, trust: Trust, host: str) -> bool:
        same = [self.servers[n] for n, t in self.trust.items() if t is trust]
        return len(same) < KEPT[trust] and sum(a.addresses[0] == host for a in same) < MAX_PER_HOST

    def _make_room(self, trust: Trust, host: str) -> bool:
        """With the pool of `trust` full, let the address with the most servers there
        give one up (its latest) if it has at least two more than `host` would; True if
        one went."""
        by_host: dict[str, list[str]] = {}
        for name, kind in self.trust.items():
            if kind is trust:
                by_host.setdefault(self.servers[name].addresses[0], []).append(name)
        if (
            len(by_host.get(host, ())) >= MAX_PER_HOST
            or sum(map(len, by_host.values())) < KEPT[trust]
        ):
            return False  # (the address's own bound, not the pool's)
        most = max(by_host.values(), key=len)
        if len(most) < len(by_host.get(host, ())) + 2:
            return False
        self.remove(most[-1])
        return True

    def ranked(self) -> list[tuple[Trust, Announcement]]:
        """Trusted servers first, then those claiming a trusted certificate, then the
        rest; each kind by name, then address."""
        found = [(self.trust[n], a) for n, a in self.servers.items()]
        return sorted(found, key=lambda ta: (ta[0], ta[1].name.lower(), ta[1].address))

    def listing(self) -> list[Announcement]:
        return [announcement for _, announcement in self.ranked()]

    def trusted_at(self, fingerprint: str | None) -> list[str]:
        """The addresses `fingerprint` was trusted at (known_servers)."""
        return sorted(a for a, fp in self.known.items() if fp == fingerprint)

    def __contains__(self, name: object) -> bool:
        return name in self.servers


async def answers(announcement: Announcement, timeout: float = PROBE_SECONDS) -> bool:
    """Whether the announcement's address and port answer a TLS 1.3 handshake with the
    certificate whose fingerprint it announces (nothing is sent after it)."""
    claimed = announcement.fingerprint
    if claimed is None:
        return False
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # (the fingerprint is what is compared)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    host, port = announcement.addresses[0], announcement.port
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=context), timeout
        )
    except (OSError, TimeoutError, ValueError, ssl.SSLError):
        return False
    try:
        tls = writer.get_extra_info("ssl_object")
        der = tls.getpeercert(binary_form=True) if tls is not None else None
        return der is not None and same_fingerprint(fingerprint_of(der), claimed)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 1.0)


class ServerFinder:
    """Browses the LAN while open (`async with`): `servers` holds what is announced
    now, keyed by service name (`KeptServers`: those trusted in `known`, by default this
    user's known_servers, first); `on_change()` is called after each change.  With an
    `interface` (an address of this machine) it listens and asks on that one only:
    tests use 127.0.0.1, so nothing leaves the machine."""

    def __init__(
        self,
        on_change: Callable[[], None] = lambda: None,
        *,
        interface: str | None = None,
        recheck: float = RECHECK,
        known: Mapping[str, str] | None = None,
    ) -> None:
        self.on_change = on_change
        self.interface = interface
        self.recheck = recheck
        self._rechecking: asyncio.Task[None] | None = None
        self.kept = KeptServers(_remembered() if known is None else known)
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._lookups: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._networks = local_networks()
        self._ignored_at_close = 0
        #: What each (address, port, fingerprint) answered (`answers`), and the probes
        #: under way by service name.
        self._answered: dict[tuple[str, int, str], bool] = {}
        self._probes: dict[str, asyncio.Task[None]] = {}
        #: Servers to probe once a probe under way ends (the latest of each name).
        self._queued: dict[str, Announcement] = {}

    @property
    def servers(self) -> Mapping[str, Announcement]:
        return self.kept.servers

    @property
    def ignored(self) -> int:
        """Services announced now and not listed: unusable, not answered yet, or beyond
        the bounds of `KeptServers`.  Counted from the mDNS library's cache (which holds
        at most 10,000 records), so the finder keeps nothing of those it turned away."""
        zeroconf = self._zeroconf
        if zeroconf is None:
            return self._ignored_at_close
        pointers = zeroconf.zeroconf.cache.async_all_by_details(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN)
        now = current_time_millis()
        announced = {
            p.alias for p in pointers if isinstance(p, DNSPointer) and not p.is_expired(now)
        }
        return len(announced - self.kept.servers.keys())

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
        if self._zeroconf is not None:
            self._ignored_at_close = self.ignored
        for task in [*self._lookups.values(), *self._probes.values(), self._rechecking]:
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
        """The servers found, trusted ones first (`KeptServers.listing`)."""
        return self.kept.listing()

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
            if self.kept.remove(name):
                self.on_change()
            return
        if name in self._lookups:
            self._again.add(name)  # looked up once more when this lookup ends
            return
        if self._from_cache(zeroconf, name):
            return
        if name not in self.kept and len(self._lookups) >= MAX_LOOKUPS:
            return  # turned away for now: counted in `ignored`, judged again when it changes
        task = asyncio.get_running_loop().create_task(self._look_up(name))
        self._lookups[name] = task

    def _from_cache(self, zeroconf: Zeroconf, name: str) -> bool:
        """Judge the service from the library's cache at once, with no lookup, if all its
        records are there (a server announcing itself sends them in one packet); False
        if some are missing."""
        try:
            # (the library refuses some hostile instance names here, by raising)
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not info.load_from_cache(zeroconf):
                return False
        except Exception as exc:  # a hostile record is left out, never fatal
            log.info("%r: left out: %r", name, exc)
            self._left_out(name)
            return True
        self._judge(name, info)
        return True

    async def _recheck(self) -> None:
        """Every `recheck` seconds, each server listed that no lookup is busy with: its
        records from the cache while they last, else asked for again; gone if no answer."""
        while True:
            await asyncio.sleep(self.recheck)
            for name in list(self.servers):
                if name in self._lookups or name not in self.servers:
                    continue
                if not await self._resolve(name) and self.kept.remove(name):
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
        except Exception as exc:  # a hostile record is left out, never fatal
            log.info("%r: left out: %r", name, exc)
            self._left_out(name)
            return True
        if info is None:
            return False
        self._judge(name, info)
        return True

    def _judge(self, name: str, info: AsyncServiceInfo) -> None:
        """Keep what the service's records announce, if it is usable and its kind has
        room (`KeptServers.offer`)."""
        try:
            found = Announcement.from_txt(
                info.properties,
                port=info.port,
                addresses=info.parsed_addresses(),
                instance=name.removesuffix("." + SERVICE_TYPE),
            )
        except BadAnnouncement as exc:
            log.info("%r: left out: %s", name, exc)
            self._left_out(name)
            return
        except Exception as exc:  # a hostile record is left out, never fatal
            log.info("%r: left out: %r", name, exc)
            self._left_out(name)
            return
        self._offer(name, nearest_first(found, self._networks))

    def _offer(self, name: str, found: Announcement) -> None:
        """Keep `found` (`KeptServers.offer`), as answered if its address answered with
        its certificate; a server not trusted before, on this machine's networks, is
        asked that once (a bounded number of times in all)."""
        key = (found.addresses[0], found.port, found.fingerprint or "")
        answered = self._answered.get(key)
        if self.kept.offer(name, found, bool(answered)):
            self.on_change()
        if (
            answered is None
            and found.fingerprint is not None
            and self.kept.trust.get(name, Trust.OTHER) is Trust.OTHER
            and name not in self._probes
            and len(self._answered) + len(self._queued) < MAX_PROBES
            and self._near(found.addresses[0])
        ):
            # (at most `MAX_LOOKUPS` at once, the rest in turn: a flood's probes that
            # took every slot kept the real server's from ever starting)
            self._queued[name] = found
            self._next_probes()

    def _next_probes(self) -> None:
        if self._zeroconf is None:  # (closed: nothing more is asked)
            self._queued.clear()
            return
        while self._queued and len(self._probes) < MAX_LOOKUPS:
            name = next(iter(self._queued))
            found = self._queued.pop(name)
            key = (found.addresses[0], found.port, found.fingerprint or "")
            if key in self._answered or name in self._probes:
                continue
            self._answered[key] = False  # (asked once: a later offer waits for it)
            task = asyncio.get_running_loop().create_task(self._probe(name, found, key))
            self._probes[name] = task

    async def _probe(self, name: str, found: Announcement, key: tuple[str, int, str]) -> None:
        try:
            answered = self._answered[key] = await answers(found)
            now = self.kept.servers.get(name, found)  # (turned away meanwhile: as found)
            same = (now.addresses[0], now.port, now.fingerprint or "") == key
            if answered and same and self.kept.offer(name, now, True):
                self.on_change()
        finally:
            self._probes.pop(name, None)
            self._next_probes()

    async def settled(self) -> None:
        """Every probe under way answered (each within `PROBE_SECONDS`; `MAX_PROBES` in
        all), so that what is kept says which servers answered."""
        while self._probes:  # (each ending starts the next queued)
            await asyncio.gather(*list(self._probes.values()), return_exceptions=True)

    def _near(self, address: str) -> bool:
        """`address` is on one of this machine's networks (a LAN server is), or is
        this machine's own."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return ip.is_loopback or on_networks(ip, self._networks)

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
        if self.kept.remove(name):  # its update made it unusable
            self.on_change()


def _remembered() -> dict[str, str]:
    """The servers this user trusted before; none if their file is not theirs alone
    (connecting then says why: `UntrustedPins`)."""
    try:
        return KnownServers().load()
    except PinError:
        return {}

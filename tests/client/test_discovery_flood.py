"""A flood of announcements on the LAN (issue 26 §6): what the finder keeps is bounded,
by kind and by address, and a server trusted before (known_servers) is kept apart and
listed first, whatever came before it.  `KeptServers` is fed announcements directly;
`ServerFinder` is fed the records the real announcer sends, through the mDNS library's
own cache, with no socket and no clock (scripts/attack_mdns_flood.py does it for real)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from president.cli import servers
from president.client.discovery import (
    MAX_CLAIMING,
    MAX_LOOKUPS,
    MAX_OTHERS,
    MAX_PER_HOST,
    KeptServers,
    ServerFinder,
    Trust,
)
from president.protocol.certs import normalise_fingerprint
from president.protocol.discovery import SERVICE_TYPE, Announcement
from president.protocol.messages import OFFERED
from zeroconf import DNSCache, ServiceInfo, ServiceStateChange

PIN = normalise_fingerprint("ab" * 32)
REAL = Announcement(
    name="kitchen", port=7766, addresses=("192.168.1.20",), versions=OFFERED, fingerprint=PIN
)
#: known_servers: the kitchen server, trusted at its address.
KNOWN = {"192.168.1.20:7766": PIN}
FAKES = 300


def fake(i: int, host: str | None = None, fingerprint: str | None = None) -> Announcement:
    """Fake server `i`: an address of its own (or `host`), a certificate of its own (or
    the one it claims)."""
    return Announcement(
        name=f"fake {i:03d}",
        port=20000 + i,
        addresses=(host or f"10.26.{i // 250}.{i % 250 + 1}",),
        fingerprint=fingerprint or normalise_fingerprint(f"{i + 1:064x}"),
    )


def kinds(kept: KeptServers) -> list[Trust]:
    return [trust for trust, _ in kept.ranked()]


@pytest.mark.parametrize("arrives", [0, FAKES // 2, FAKES])
def test_the_trusted_server_is_kept_and_first_wherever_it_comes_in_a_flood(arrives: int) -> None:
    kept = KeptServers(KNOWN)
    for i in range(FAKES + 1):
        if i == arrives:
            kept.offer("kitchen", REAL)
        if i < FAKES:
            kept.offer(f"fake {i}", fake(i))
    assert kept.ranked()[0] == (Trust.TRUSTED, REAL)
    assert kinds(kept) == [Trust.TRUSTED] + [Trust.OTHER] * MAX_OTHERS
    # the first fakes kept, none pushed out for a later one
    assert {a.name for a in kept.listing()[1:]} == {f"fake {i:03d}" for i in range(MAX_OTHERS)}


def test_servers_at_one_address_are_capped_beside_the_total() -> None:
    kept = KeptServers(KNOWN)
    for i in range(FAKES):
        kept.offer(f"same {i}", fake(i, host="127.0.0.1"))
    assert len(kept.listing()) == MAX_PER_HOST
    for i in range(FAKES):
        kept.offer(f"spread {i}", fake(i))
    assert kinds(kept) == [Trust.OTHER] * MAX_OTHERS
    hosts = [a.addresses[0] for a in kept.listing()]
    # (the pool full, each newcomer took a place of the address with the most)
    assert hosts.count("127.0.0.1") == 1
    kept.offer("kitchen", REAL)  # full of strangers: still room for it
    assert kept.listing()[0] == REAL


@pytest.mark.parametrize("claims", [False, True])
def test_a_few_addresses_do_not_hide_a_server_from_a_first_time_guest(claims: bool) -> None:
    """A hostile pass: 8 addresses, 8 announcements each under the real server's name
    (its fingerprint copied, or not), filled the pool of servers not trusted before, and
    a guest new to the LAN never saw the real one.  It takes a place of the address with
    the most, and keeps it while they announce again and again."""
    kept = KeptServers({})  # (nothing trusted before)
    real = replace(REAL, name="real")
    hosts = [f"10.26.0.{h}" for h in range(1, 9)]

    def flood() -> None:
        for h, host in enumerate(hosts):
            for i in range(MAX_PER_HOST):
                kept.offer(
                    f"fake {h} {i}",
                    replace(fake(h * 8 + i, host, PIN if claims else None), name="real"),
                )

    flood()
    assert len(kept.listing()) == MAX_OTHERS and real not in kept.listing()
    kept.offer("real", real)
    for _ in range(3):
        flood()
        assert real in kept.listing() and len(kept.listing()) == MAX_OTHERS
    # as many addresses as places hide it: the bound, said in the docs
    crowd = KeptServers({})
    for i in range(MAX_OTHERS):
        crowd.offer(f"crowd {i}", fake(i))
    crowd.offer("real", real)
    assert real not in crowd.listing()


def test_fakes_claiming_the_trusted_certificate_are_bounded_and_mislead_nobody() -> None:
    """A fingerprint is public: anyone can claim it.  Claimed at another address, the
    server is listed after the trusted one, as `CLAIMING` (connecting checks what it
    shows); claimed at the trusted address itself, it leads only to that address."""
    kept = KeptServers(KNOWN)
    for i in range(FAKES):
        kept.offer(f"elsewhere {i}", fake(i, fingerprint=PIN))
        kept.offer(f"there {i}", replace(fake(i, "192.168.1.20", PIN), port=REAL.port))
    kept.offer("kitchen", REAL)
    got = kept.ranked()
    trusted = [a for trust, a in got if trust is Trust.TRUSTED]
    assert len(trusted) == MAX_PER_HOST
    assert {a.address for a in trusted} == {REAL.address}  # the one it trusted, whoever is named
    assert kinds(kept) == [Trust.TRUSTED] * MAX_PER_HOST + [Trust.CLAIMING] * MAX_CLAIMING
    assert kept.trusted_at(PIN) == ["192.168.1.20:7766"]


def test_the_trusted_address_comes_first_and_a_mere_address_is_no_trust() -> None:
    kept = KeptServers(KNOWN)
    kept.offer("two", replace(REAL, addresses=("10.0.0.9", "192.168.1.20")))
    assert kept.ranked() == [(Trust.TRUSTED, replace(REAL, addresses=("192.168.1.20", "10.0.0.9")))]
    other = normalise_fingerprint("cd" * 32)
    kept.offer("liar", replace(REAL, name="liar", fingerprint=other))
    kept.offer("silent", replace(REAL, name="silent", fingerprint=None))
    assert kinds(kept) == [Trust.TRUSTED, Trust.OTHER, Trust.OTHER]


def test_an_update_that_claims_trust_moves_it_and_one_that_drops_it_may_lose_its_place() -> None:
    kept = KeptServers(KNOWN)
    for i in range(MAX_OTHERS):
        kept.offer(f"fake {i}", fake(i))
    kept.offer("kitchen", REAL)
    assert kinds(kept)[0] is Trust.TRUSTED
    # no longer claiming its certificate: judged as any stranger, and theirs is full
    assert kept.offer("kitchen", replace(REAL, fingerprint=None))
    assert "kitchen" not in kept and kinds(kept) == [Trust.OTHER] * MAX_OTHERS
    kept.offer("kitchen", REAL)
    assert kept.listing()[0] == REAL


class Library:
    """What the finder reads of python-zeroconf: its record cache, filled as a browser's
    is by a server announcing itself (the announcer's own records: PTR, SRV, TXT, A)."""

    def __init__(self) -> None:
        self.cache = DNSCache()

    def hear(self, announcement: Announcement, *, records: str = "all") -> str:
        name = f"{announcement.name}.{SERVICE_TYPE}"
        info = ServiceInfo(
            SERVICE_TYPE,
            name,
            port=announcement.port,
            properties=announcement.to_txt(),
            server=f"{announcement.name.replace(' ', '-')}.local.",
            parsed_addresses=list(announcement.addresses),
        )
        pointer = info.dns_pointer()
        if records == "all":
            found = [pointer, info.dns_service(), info.dns_text(), *info.dns_addresses()]
        else:
            found = [pointer]
        self.cache.async_add_records(found)
        return name


def finder_on(library: Library, known: dict[str, str] = KNOWN) -> ServerFinder:
    """A finder reading `library` as if started (no socket, no browser), `known` trusted."""
    finder = ServerFinder(interface="127.0.0.1", known=known)
    finder._zeroconf = SimpleNamespace(zeroconf=library)  # type: ignore[assignment]
    return finder


def added(finder: ServerFinder, library: Library, name: str) -> None:
    """The browser's callback, as the library makes it once the records are cached."""
    finder._changed(library, SERVICE_TYPE, name, ServiceStateChange.Added)  # type: ignore[arg-type]


async def test_a_finder_fed_300_fakes_then_the_trusted_server_lists_it_first() -> None:
    library = Library()
    finder = finder_on(library)
    changes = [0]
    finder.on_change = lambda: changes.__setitem__(0, changes[0] + 1)
    for i in range(FAKES):
        added(finder, library, library.hear(fake(i)))
    added(finder, library, library.hear(REAL))
    listing = finder.listing()
    assert listing[0].address == "192.168.1.20:7766" and listing[0].fingerprint == PIN
    assert len(listing) == 1 + MAX_OTHERS and changes[0] == 1 + MAX_OTHERS
    assert finder.ignored == FAKES - MAX_OTHERS  # announced, not listed: counted, not kept
    assert not finder._lookups  # every one judged from the cache at once
    await finder.close()
    assert finder.ignored == FAKES - MAX_OTHERS  # as it was when the finder closed


async def test_announcements_waiting_for_records_take_a_bounded_number_of_lookups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """300 names whose records never come: at most `MAX_LOOKUPS` asked about at once;
    a server whose records are all there needs no lookup and is listed at once."""
    never = asyncio.Event()

    async def unanswered(*_: Any) -> None:
        await never.wait()

    monkeypatch.setattr(ServerFinder, "_request", staticmethod(unanswered))
    library = Library()
    finder = finder_on(library)
    for i in range(FAKES):
        added(finder, library, library.hear(fake(i), records="pointer"))
    await asyncio.sleep(0)  # (the lookups start)
    assert len(finder._lookups) == MAX_LOOKUPS
    added(finder, library, library.hear(REAL))
    assert finder.listing() == [REAL]
    assert finder.ignored == FAKES
    await finder.close()


def printed(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kept: KeptServers,
    ignored: int = 0,
    json: bool = False,
) -> str:
    """What `president servers` prints (`--json` with `json`) when the LAN holds what
    `kept` keeps, and `ignored` announcements more."""

    async def found(wait: float, interface: str | None) -> tuple[KeptServers, int]:
        return kept, ignored

    monkeypatch.setattr(servers, "find_servers", found)
    args = SimpleNamespace(wait=3.0, json=json, mdns_interface="127.0.0.1")
    assert servers.cmd_servers(args) == 0  # type: ignore[arg-type]
    return capsys.readouterr().out


def test_president_servers_prints_the_trusted_server_first_and_counts_the_rest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = KeptServers(KNOWN)
    for i in range(FAKES):
        kept.offer(f"fake {i}", fake(i))
    kept.offer("impostor", fake(999, fingerprint=PIN))
    kept.offer("kitchen", REAL)
    lines = printed(monkeypatch, capsys, kept, FAKES - MAX_OTHERS).splitlines()
    assert lines[0].startswith("kitchen ") and lines[0].endswith("trusted before")
    assert lines[1].startswith("fake 999 ")
    assert lines[1].endswith("claims the certificate you trusted at 192.168.1.20:7766")
    assert all(line.startswith("fake ") for line in lines[2 : 2 + MAX_OTHERS])
    assert lines[2 + MAX_OTHERS].startswith(f"({FAKES - MAX_OTHERS} other announcements not")
    assert lines[-1].endswith("not trusted before still asks about its certificate)")
    listed = json.loads(printed(monkeypatch, capsys, kept, FAKES - MAX_OTHERS, json=True))
    assert [s["trust"] for s in listed[:3]] == ["trusted", "claiming", "other"]


def test_president_servers_says_no_question_comes_when_every_server_was_trusted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A newcomer's pass: a server listed "trusted before", and under it "the first
    connection still asks about the certificate"."""
    kept = KeptServers(KNOWN)
    kept.offer("kitchen", REAL)
    lines = printed(monkeypatch, capsys, kept).splitlines()
    assert lines[0].endswith("trusted before") and "asks" not in lines[-1], lines
    assert lines[-1].endswith("connecting checks the certificate you trusted)"), lines


def test_president_servers_counts_the_servers_announcing_one_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hostile pass listed 64 servers all called "real", unsaid."""
    kept = KeptServers({})
    kept.offer("real", replace(REAL, name="Real"))
    for i in range(5):
        kept.offer(f"fake {i}", replace(fake(i), name="real"))
    kept.offer("other", fake(99))
    lines = printed(monkeypatch, capsys, kept).splitlines()
    said = [line for line in lines if "announce the name" in line]
    assert said == [
        "(6 servers announce the name real: only the fingerprint the host printed tells"
        " which is theirs)"
    ], lines


async def test_fakes_naming_a_servers_own_address_do_not_hide_it_from_a_first_timer(
    tmp_path: Path,
) -> None:
    """A hostile pass: 8 announcements naming the real server's own address (and its
    name, and its fingerprint) filled that address's places, and a guest new to the LAN
    never saw it; 64 naming made-up addresses from one socket filled the pool.  Its
    address answers a handshake with the certificate it announces, which a fake naming
    it cannot: it is kept apart from them, and listed before them."""
    from ..harness.ports import free_port
    from ..harness.servers import running_server

    async with running_server(tmp_path) as server:
        pin = normalise_fingerprint(server.fingerprint)
        real = Announcement(
            name="real",
            port=server.port,
            addresses=("127.0.0.1",),
            versions=OFFERED,
            fingerprint=pin,
        )
        library = Library()
        finder = finder_on(library, known={})
        for i in range(MAX_PER_HOST * 2):  # (its own address, other ports, its name)
            claim = pin if i % 2 else normalise_fingerprint(f"{i + 1:064x}")
            added(
                finder,
                library,
                library.hear(replace(real, name=f"real {i}", port=free_port(), fingerprint=claim)),
            )
        for i in range(MAX_OTHERS):  # (made-up addresses, TEST-NET-3: on no network of a
            # machine, so not asked: a 10.x of a CI machine's own would take 3 s each)
            made_up = replace(fake(i), name=f"real x{i}", addresses=(f"203.0.113.{i + 1}",))
            added(finder, library, library.hear(made_up))
        added(finder, library, library.hear(real))
        await finder.settled()
        kinds_of = {a.port: t for t, a in finder.kept.ranked()}
        assert kinds_of.get(server.port) is Trust.ANSWERED, finder.kept.ranked()[:3]
        assert finder.listing()[0].port == server.port  # (before the ones that did not)
        assert list(kinds_of.values()).count(Trust.ANSWERED) == 1
        await finder.close()

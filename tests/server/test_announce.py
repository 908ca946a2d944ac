"""The server's side of LAN discovery in-process: which addresses it prints and
announces, and the announcement itself with the real mDNS library on loopback only
(kept current without flooding, withdrawn at once)."""

from __future__ import annotations

import asyncio
import ipaddress
import os

import pytest
from president.client.discovery import ServerFinder
from president.protocol.discovery import Announcement
from president.protocol.messages import VERSIONS
from president.server.announce import (
    Announcer,
    friend_addresses,
    interface_addresses,
    multicast_problem,
    where_to_announce,
)
from zeroconf import InterfaceChoice, IPVersion

from ..harness.waiting import wait_for


def test_friends_are_given_every_interface_address_never_0_0_0_0() -> None:
    everywhere = friend_addresses("0.0.0.0", 7766)
    assert everywhere == [f"{a}:7766" for a in interface_addresses(ipv6=False)]
    for text in everywhere:
        ip = ipaddress.ip_address(text.rsplit(":", 1)[0])
        assert ip.version == 4 and not ip.is_loopback and not ip.is_unspecified
    for text in friend_addresses("::", 7766):
        host = text.rsplit(":", 1)[0].strip("[]")
        ip = ipaddress.ip_address(host)
        assert not ip.is_loopback and not (ip.version == 6 and ip.is_link_local)
    assert friend_addresses("192.0.2.2", 7000) == ["192.0.2.2:7000"]
    assert friend_addresses("fd00::2", 7000) == ["[fd00::2]:7000"]


def test_where_to_announce() -> None:
    # a server on one address announces there only (on loopback: nothing leaves)
    one = where_to_announce("127.0.0.1", None)
    assert one.interfaces == ["127.0.0.1"] and one.ip_version is IPVersion.V4Only
    assert one.addresses == ("127.0.0.1",)
    chosen = where_to_announce("0.0.0.0", "127.0.0.1")
    assert chosen.interfaces == ["127.0.0.1"] and chosen.addresses == ("127.0.0.1",)
    every = where_to_announce("0.0.0.0", None)
    assert every.interfaces is InterfaceChoice.All
    assert every.addresses == tuple(interface_addresses(ipv6=False))
    assert where_to_announce("::1", None).ip_version is IPVersion.V6Only


def test_an_interface_that_cannot_multicast_is_found_before_announcing() -> None:
    # loopback multicasts (the discovery tests announce there); 203.0.113.9 (TEST-NET-3)
    # is no address of this machine's: no packet can leave from it
    assert multicast_problem("127.0.0.1") is None
    assert multicast_problem("203.0.113.9") == "not an address of this machine"


async def test_the_announcer_says_in_one_line_that_it_could_not_multicast() -> None:
    said: list[str] = []
    announcement = Announcement(name="nowhere", port=7766, versions=VERSIONS, password=False)
    where = where_to_announce("203.0.113.9", None)
    announcer = Announcer(announcement, where, lambda: 0, said.append)
    announcer.start()
    await wait_for(lambda: said)
    await announcer.close()
    assert len(said) == 1, said
    assert said[0].startswith("not announced on the LAN (no multicast from 203.0.113.9: ")
    assert said[0].endswith("): friends connect with the address above")
    assert not announcer.registered.is_set()


#: A name of this run's: mDNS on loopback is the whole machine's, and another test run
#: here announces the same test's server.
NAME = f"kitchen-{os.getpid():x}"


@pytest.mark.xdist_group("mdns")
async def test_the_table_count_is_kept_current_without_flooding() -> None:
    tables = [0]
    said: list[str] = []
    announcer = Announcer(
        Announcement(name=NAME, port=4711, versions=VERSIONS),
        where_to_announce("127.0.0.1", None),
        lambda: tables[0],
        said.append,
        every=0.3,
    )
    loop = asyncio.get_running_loop()
    async with ServerFinder(interface="127.0.0.1") as finder:
        announcer.start()
        try:
            await wait_for(announcer.registered.is_set)
            zeroconf = announcer._zeroconf
            assert zeroconf is not None
            updates = []
            real_update = zeroconf.async_update_service

            async def counted(info):  # type: ignore[no-untyped-def]
                updates.append(info.properties[b"tables"])
                return await real_update(info)

            zeroconf.async_update_service = counted  # type: ignore[method-assign]
            began = loop.time()
            for count in range(1, 41):  # a busy lobby: 40 changes in about a second
                tables[0] = count
                await asyncio.sleep(0.025)
            await wait_for(lambda: updates and updates[-1] == b"40")
            # updates come at least `every` apart: however long this took, no more than
            # one an `every` of it (and the first)
            spent = loop.time() - began
            assert 1 <= len(updates) <= spent / 0.3 + 1, (updates, spent)

            def seen() -> Announcement | None:
                return next((a for a in finder.listing() if a.name == NAME), None)

            found = await wait_for(
                lambda: (a := seen()) is not None and a.tables == 40 and a,
                60,
                lambda: str(finder.listing()),
            )
            assert found.port == 4711 and found.addresses == ("127.0.0.1",)
        finally:
            async with asyncio.timeout(60):
                await announcer.close()
        # its goodbye: the browser drops it at once, not when the record would expire (120 s)
        await wait_for(lambda: seen() is None, 60, lambda: str(finder.listing()))
    assert said and said[0].startswith("announced on the LAN (mDNS on 127.0.0.1)")

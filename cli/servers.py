"""`president servers`: the president servers announced on the LAN, printed once after
listening a few seconds (for people and, with --json, for scripts).  Also the option
every LAN-facing command shares: the one interface to announce or look on."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import sys
from collections import Counter
from collections.abc import Sequence

from president.client.discovery import (
    MAX_OTHERS,
    MAX_PER_HOST,
    DiscoveryFailed,
    KeptServers,
    ServerFinder,
    Trust,
)
from president.client.tui.fit import pad
from president.client.tui.narrator import plural
from president.protocol.discovery import Announcement
from president.protocol.messages import VERSIONS

from .usage import as_written, json_text, seconds, unbracketed

#: The environment variable that names the one interface to announce and look on.
INTERFACE_ENV = "PRESIDENT_MDNS_INTERFACE"


def quiet_zeroconf(verbose: bool = False) -> None:
    """The mDNS library's own warnings (an interface that went away, a packet it could
    not send) stay out of the terminal: discovery says what went wrong in one line of
    its own.  With `verbose` (a host's -v) they go to the log."""
    logging.getLogger("zeroconf").setLevel(logging.WARNING if verbose else logging.CRITICAL + 1)


def interface_address(text: str) -> str:
    """An interface's address for mDNS: an IPv4 or IPv6 address of this machine."""
    try:
        return str(ipaddress.ip_address(unbracketed(text.strip())))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an IP address: {text!r}") from None


def add_interface(parser: argparse.ArgumentParser, what: str) -> None:
    """`--mdns-interface ADDR` (default: the environment's PRESIDENT_MDNS_INTERFACE)."""
    parser.add_argument(
        "--mdns-interface",
        type=interface_address,
        metavar="ADDR",
        help=f"{what} on this interface address only (e.g. 127.0.0.1: nothing leaves this "
        f"machine; default ${INTERFACE_ENV}, else every interface)",
    )


def chosen_interface(args: argparse.Namespace) -> str | None:
    """The interface from the command line, else from the environment (checked)."""
    if args.mdns_interface is not None:
        return str(args.mdns_interface)
    given = os.environ.get(INTERFACE_ENV, "").strip()
    if not given:
        return None
    try:
        return interface_address(given)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"${INTERFACE_ENV}: {exc}") from None


async def find_servers(wait: float, interface: str | None) -> tuple[KeptServers, int]:
    """What is announced after listening `wait` seconds (servers trusted in this user's
    known_servers first), and how many announcements were not listed."""
    async with ServerFinder(interface=interface) as finder:
        await asyncio.sleep(wait)
        await finder.settled()  # (which of them answered with their certificate)
        return finder.kept, finder.ignored


def as_json(found: Announcement, trust: Trust) -> dict[str, object]:
    return {
        "name": found.name,
        "address": found.address,
        "addresses": list(found.addresses),
        "port": found.port,
        "versions": list(found.versions),
        "compatible": found.speaks(VERSIONS),
        "tables": found.tables,
        "password": found.password,
        "fingerprint_hint": found.fingerprint,
        "trust": trust.name.lower(),
    }


def as_line(found: Announcement, trust: Trust, trusted_at: Sequence[str]) -> str:
    tables = "? tables" if found.tables is None else plural(found.tables, "table")
    notes = [tables]
    if found.password:
        notes.append("password")
    if not found.speaks(VERSIONS):
        notes.append("another protocol version: " + ",".join(map(str, found.versions)))
    if trust is Trust.TRUSTED:
        notes.append("trusted before")
    elif trust is Trust.CLAIMING:
        notes.append(f"claims the certificate you trusted at {', '.join(trusted_at)}")
    name = pad(as_written(found.name), 20)  # (by columns: a server named 山田のサーバー; whole)
    return f"{name} president connect {found.address:<22} {', '.join(notes)}"


def shared_names(found: Sequence[Announcement]) -> list[tuple[str, int]]:
    """Each name more than one server announces (as the first of them writes it), with
    how many do: an impostor takes a known server's name (a hostile pass listed 64 so)."""
    counts = Counter(a.name.casefold() for a in found)
    first: dict[str, str] = {}
    for a in found:
        first.setdefault(a.name.casefold(), a.name)
    return [(first[key], n) for key, n in counts.items() if n > 1]


def cmd_servers(args: argparse.Namespace) -> int:
    quiet_zeroconf()
    try:
        kept, ignored = asyncio.run(find_servers(args.wait, chosen_interface(args)))
    except DiscoveryFailed as exc:
        print(f"president servers: {exc}", file=sys.stderr)
        return 2
    found = kept.ranked()
    if args.json:
        print(json_text([as_json(a, trust) for trust, a in found]))
        return 0
    if not found:
        print(f"no president server announced itself within {args.wait:g} s")
    for trust, announcement in found:
        print(as_line(announcement, trust, kept.trusted_at(announcement.fingerprint)))
    if ignored:
        print(
            f"({plural(ignored, 'other announcement')} not listed: unusable, not answered, or beyond "
            f"the {MAX_OTHERS} kept of servers not trusted before, {MAX_PER_HOST} an address)"
        )
    for name, count in shared_names([a for _, a in found]):
        print(
            f"({count} servers announce the name {as_written(name)}: only the fingerprint"
            " the host printed tells which is theirs)"
        )
    if any(trust is Trust.CLAIMING for trust, _ in found):
        print(
            "(a server claiming a trusted certificate at another address may have moved, or "
            "be pretending: connecting checks the certificate it shows)"
        )
    if any(trust is not Trust.TRUSTED for trust, _ in found):
        print(
            "(announcements are hints: connecting to a server not trusted before still asks"
            " about its certificate)"
        )
    elif found:  # (each trusted before: "the first connection asks" read as a contradiction)
        print("(announcements are hints: connecting checks the certificate you trusted)")
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "List the president servers announced on the LAN (mDNS/DNS-SD), after listening "
        "a few seconds. What a server announces is a hint, not proof of who it is."
    )
    parser.add_argument("--json", action="store_true", help="print them as a JSON list")
    parser.add_argument(
        "--wait",
        type=seconds(60, zero=False),
        default=3.0,
        metavar="SECONDS",
        help="how long to listen (default 3)",
    )
    add_interface(parser, "look")
    parser.set_defaults(handler=cmd_servers)

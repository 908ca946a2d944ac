"""What a server announces on the LAN, as TXT properties and back: a round trip, and
hostile announcements (garbage, huge, lying values) that must neither crash the reader
nor put anything on a screen that was not checked."""

from __future__ import annotations

import pytest
from president.protocol.discovery import (
    MAX_ADDRESSES,
    Announcement,
    BadAnnouncement,
    reachable,
)
from president.protocol.messages import OFFERED, VERSIONS
from president.protocol.schema import CONTROLS

FP = ":".join(["AB"] * 16 + ["01"] * 16)


def as_heard(txt: dict[str, str]) -> dict[bytes, bytes | None]:
    """TXT properties as zeroconf hands them to a browser."""
    return {k.encode(): v.encode() for k, v in txt.items()}


def heard(
    properties: dict[bytes, bytes | None],
    port: int | None = 7766,
    addresses: tuple[str, ...] = ("192.168.1.20",),
    instance: str = "kitchen on box",
) -> Announcement:
    return Announcement.from_txt(properties, port=port, addresses=addresses, instance=instance)


def test_an_announcement_round_trips() -> None:
    sent = Announcement(
        name="Kitchen table",
        port=7766,
        addresses=("192.168.1.20", "fd00::2"),
        versions=OFFERED,
        tables=3,
        password=True,
        fingerprint=FP.lower().replace(":", ""),
    )
    txt = sent.to_txt()
    assert txt["fp"] == FP.replace(":", "")  # 64 hex digits: fits a TXT string
    got = heard(as_heard(txt), addresses=sent.addresses)
    assert got == Announcement(
        name="Kitchen table",
        port=7766,
        addresses=("192.168.1.20", "fd00::2"),
        versions=OFFERED,
        tables=3,
        password=True,
        fingerprint=FP,
    )
    assert got.address == "192.168.1.20:7766" and got.speaks(VERSIONS)
    no_password = heard(as_heard(Announcement(name="x", port=1, password=False).to_txt()))
    assert no_password.password is False and no_password.tables is None


@pytest.mark.parametrize(
    ("properties", "field", "expected"),
    [
        # a name that would move the cursor or reorder the screen is shown escaped
        ({b"name": b"evil\x1b[2J\x1b]0;owned\x07"}, "name", "evil\\x1b[2J\\x1b]0;owned\\x07"),
        ({b"name": "a\u202eb".encode()}, "name", "a\\u202eb"),
        ({b"name": b"\xff\xfe\xfd"}, "name", "\ufffd\ufffd\ufffd"),
        ({b"name": b"x" * 255}, "name", "x" * 32),
        ({b"name": b"   "}, "name", "kitchen on box"),  # nothing left: the instance label
        ({b"name": None}, "name", "kitchen on box"),
        ({b"NAME": b"upper"}, "name", "upper"),  # keys are case-insensitive (RFC 6763)
        ({b"tables": b"999999999999"}, "tables", None),
        ({b"tables": b"-3"}, "tables", None),
        ({b"tables": b"500000"}, "tables", None),  # more than any server holds
        ({b"tables": "\u0663".encode()}, "tables", None),  # an Arabic-Indic three
        ({b"tables": b"12"}, "tables", 12),
        ({b"proto": b"2,x,999,3,3,-1"}, "versions", (2, 3)),
        ({b"proto": b"," * 200}, "versions", ()),
        ({b"fp": b"not a fingerprint"}, "fp", None),
        ({b"fp": b"AB" * 33}, "fp", None),
        ({b"password": b"maybe"}, "password", False),
    ],
)
def test_hostile_values_are_checked(
    properties: dict[bytes, bytes | None], field: str, expected: object
) -> None:
    got = heard(properties)
    value = {
        "name": got.name,
        "tables": got.tables,
        "versions": got.versions,
        "fp": got.fingerprint,
        "password": got.password,
    }[field]
    assert value == expected
    assert not any(ch in CONTROLS for ch in got.name)


def test_a_huge_announcement_is_read_in_bounded_parts() -> None:
    flood: dict[bytes, bytes | None] = {f"k{i}".encode(): b"v" * 10_000 for i in range(5_000)}
    flood[b"name"] = b"late"  # beyond the keys read: not taken
    got = heard(flood)
    assert got.name == "kitchen on box" and got.tables is None
    many = tuple(f"10.0.{i // 250}.{i % 250 + 1}" for i in range(1000))
    assert len(heard({}, addresses=many).addresses) == MAX_ADDRESSES


@pytest.mark.parametrize(
    ("port", "addresses"),
    [
        (None, ("192.168.1.20",)),
        (0, ("192.168.1.20",)),
        (70000, ("192.168.1.20",)),
        (7766, ()),
        (7766, ("0.0.0.0", "224.0.0.251", "255.255.255.255", "fe80::1", "::", "garbage")),
    ],
)
def test_nothing_to_connect_to_is_refused(port: int | None, addresses: tuple[str, ...]) -> None:
    with pytest.raises(BadAnnouncement):
        heard({b"name": b"x"}, port=port, addresses=addresses)


def test_addresses_ipv4_first_each_once() -> None:
    assert reachable(["fd00::2", "192.168.1.20", "192.168.1.20", "10.0.0.3", "fe80::9"]) == (
        "192.168.1.20",
        "10.0.0.3",
        "fd00::2",
    )
    ipv6 = heard({}, addresses=("fd00::2",))
    assert ipv6.address == "[fd00::2]:7766"


def test_a_server_of_other_versions_is_told_apart() -> None:
    other = heard({b"proto": str(max(VERSIONS) + 1).encode()})
    assert not other.speaks(VERSIONS)
    assert heard({}).speaks(VERSIONS)  # said nothing: let the handshake decide

"""LAN discovery with real processes and the real mDNS library, all on loopback: every
server and browser here is bound to 127.0.0.1 (`--mdns-interface 127.0.0.1`, and a
server on 127.0.0.1 announces only there), so nothing is sent beyond this machine.

A `president server` announces itself, `president servers` and `president connect`
without an address find it; the table count follows the lobby; `--no-announce` stays
unlisted; a stopped server leaves the list at once; an interface that cannot be used is
one line and the server serves anyway; a hostile announcement is neither a crash nor
shown raw."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from president.client.connection import Client, ConnectFailed, connect, resolve_pin
from president.client.discovery import ServerFinder
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.server.announce import multicast_problem
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from .harness.ports import free_port
from .harness.processes import PRESIDENT, Process, ServerProcess, environment, president, stop
from .harness.screen import MainScreen
from .harness.servers import dialer
from .harness.terminal import Terminal
from .harness.waiting import wait_for

# (the mDNS tests run one after another, on one worker: what one announces, another sees)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("mdns")]

LOOPBACK = ("--mdns-interface", "127.0.0.1")

#: This run's mark on every name it announces: mDNS on loopback is the whole machine's,
#: and another test run here (a developer's, beside a CI run) announces the same names;
#: the picker rightly warns of two servers called the same (a CI run failed so).
RUN = f"{os.getpid():x}"
KITCHEN, ATTIC, HIDDEN = f"kitchen-{RUN}", f"attic-{RUN}", f"hidden-{RUN}"


def servers(wait: float = 2.0) -> list[dict[str, Any]]:
    """`president servers --json`, on loopback only."""
    out = president("servers", "--json", "--wait", str(wait), *LOOPBACK, timeout=60)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    found: list[dict[str, Any]] = json.loads(out.stdout)
    return found


def on_port(found: list[dict[str, Any]], port: int) -> dict[str, Any] | None:
    return next((s for s in found if s["port"] == port), None)


async def side_by_side(*servers: tuple[Path, *tuple[str, ...]]) -> list[ServerProcess]:
    """Announced servers on loopback started at once (each on a port of its own: `data`
    and arguments); if one fails to start, the others are stopped."""
    chosen: set[int] = set()
    while len(chosen) < len(servers):
        chosen.add(free_port())
    started = await asyncio.gather(
        *(
            ServerProcess.started(data, port, *extra, *LOOPBACK, announce=True)
            for port, (data, *extra) in zip(chosen, servers, strict=True)
        ),
        return_exceptions=True,
    )
    ready = [s for s in started if isinstance(s, ServerProcess)]
    if len(ready) < len(started):
        stop(*ready)
        raise next(s for s in started if isinstance(s, BaseException))
    return ready


async def test_servers_lists_what_is_announced(tmp_path: Path) -> None:
    # (the three start side by side: each start is a process's imports and keys)
    kitchen, attic, hidden = await side_by_side(
        (tmp_path / "k", "--name", KITCHEN),
        (tmp_path / "a", "--name", ATTIC, "--password", "s3cret"),
        (tmp_path / "h", "--name", HIDDEN, "--no-announce"),
    )
    k_port, k_pin, a_port, h_port, h_head = (
        kitchen.port,
        kitchen.pin,
        attic.port,
        hidden.port,
        hidden.head,
    )
    try:
        assert "not announced on the LAN (--no-announce)" in h_head
        for server in (kitchen, attic):  # (said once the announcement is registered)
            await server.said("announced on the LAN (mDNS on 127.0.0.1)", timeout=60)
        async with asyncio.timeout(120):  # (a loaded machine may take more than one look)
            while True:
                found = await asyncio.to_thread(servers, 2)
                k, a = on_port(found, k_port), on_port(found, a_port)
                if k is not None and a is not None:
                    break
        assert k == {
            "name": KITCHEN,
            "address": f"127.0.0.1:{k_port}",
            "addresses": ["127.0.0.1"],
            "port": k_port,
            "versions": list(m.OFFERED),
            "compatible": True,
            "tables": 0,
            "password": False,
            "fingerprint_hint": k_pin,
            "trust": "answered",  # (its address answers with the certificate it announces)
        }, found
        assert a is not None and a["name"] == ATTIC and a["password"] is True
        assert on_port(found, h_port) is None and HIDDEN not in {s["name"] for s in found}

        # a table made on the kitchen server: its announcement follows
        link = await dialer(kitchen.address, "ann", tmp_path, pin=k_pin)()
        ann = Client(link)
        reader = asyncio.create_task(ann.run())
        try:
            await ann.send(m.CreateTable(name="Friday", preset="classic", toggles={}, seats=4))
            async with asyncio.timeout(120):  # (only a hang ends it)
                while True:
                    now = on_port(await asyncio.to_thread(servers, 1.5), k_port)
                    if now is not None and now["tables"] == 1:
                        break
        finally:
            reader.cancel()
            await link.close()
    finally:
        for server in (kitchen, attic, hidden):
            if server.proc.poll() is None:
                assert server.stop(signal.SIGTERM) == 0, server.errors()
                assert "Traceback" not in server.errors()


def cursor_line(screen: str) -> str:
    return next((line for line in screen.splitlines() if "▶" in line), "")


async def point_at(picker: Terminal, name: str) -> None:
    """The picker's cursor moved onto `name`, a key at a time (another test run on this
    machine may have servers listed before it)."""
    for _ in range(50):
        line = cursor_line(picker.text())
        if f"▶ {name}" in line:
            return
        picker.send("j")
        await wait_for(lambda was=line: cursor_line(picker.text()) != was, 20, picker.text)
    raise AssertionError(f"never pointed at {name}: {picker.text()}")


async def test_connect_without_an_address_finds_servers_live(tmp_path: Path) -> None:
    """The picker in a pseudo-terminal: a server started later appears, a stopped one
    goes (its goodbye), and choosing one asks the first-use question as a typed address
    does, with the certificate the server really shows."""
    kitchen = await ServerProcess.started(
        tmp_path / "k", 0, "--name", KITCHEN, *LOOPBACK, announce=True
    )
    k_port, k_pin = kitchen.port, kitchen.pin
    command = [*PRESIDENT, "connect", "--name", "ann", *LOOPBACK]
    ann = Terminal(command, environment(tmp_path), rows=24, columns=80, screen=MainScreen(24, 80))
    attic: ServerProcess | None = None
    try:
        await ann.shows(f"127.0.0.1:{k_port}")
        await point_at(ann, KITCHEN)
        attic = await ServerProcess.started(
            tmp_path / "a", 0, "--name", ATTIC, *LOOPBACK, announce=True
        )
        a_port = attic.port
        shown = await ann.shows(f"127.0.0.1:{a_port}")
        assert f"▶ {KITCHEN}" in shown  # the cursor stays where it was
        assert attic.stop(signal.SIGTERM) == 0
        # gone at its goodbye (the records it leaves would keep it listed for 120 s)
        await wait_for(lambda: f"127.0.0.1:{a_port}" not in ann.text(), 60, ann.text)
        ann.send("\r")
        question = await ann.shows("[y/N]")
        assert f"First connection to 127.0.0.1:{k_port}" in question
        assert k_pin in "".join(question.split())  # (in rows of whole bytes when narrow)
        ann.send("y\r")
        lobby = await ann.shows("you are ann")
        assert f"{KITCHEN} at 127.0.0.1:{k_port}" in lobby
        known = (tmp_path / "config" / "president" / "known_servers").read_text()
        assert f"127.0.0.1:{k_port} {k_pin}" in known
        ann.send("qq")  # (the lobby's q asks once)
        assert await ann.exits() == 0
    finally:
        ann.close()
        stop(kitchen, attic)


async def test_an_interface_without_multicast_is_one_line_and_the_server_serves(
    tmp_path: Path,
) -> None:
    """203.0.113.9 (TEST-NET-3) is no interface of this machine: zeroconf cannot bind
    to it, so nothing is sent anywhere."""
    server = await ServerProcess.started(
        tmp_path / "d", 0, "--mdns-interface", "203.0.113.9", announce=True
    )
    try:
        link = await dialer(server.address, "ann", tmp_path, pin=server.pin)()
        await link.close()
        # the announcer gives up at once: its one line comes
        await wait_for(lambda: "not announced" in server.text() + server.errors())
    finally:
        status = server.stop(signal.SIGTERM)
    out, err = server.text(), server.errors()
    said = [line for line in (out + err).splitlines() if "announce" in line]
    assert status == 0 and "Traceback" not in err, err
    assert len(said) == 1, said
    assert said[0].startswith("not announced on the LAN (no multicast from 203.0.113.9: "), said


async def test_a_hostile_announcement_is_neither_a_crash_nor_shown_raw(tmp_path: Path) -> None:
    """A service registered here with the real library, its TXT full of lies and
    control characters, beside one that cannot be connected to (its only address
    0.0.0.0: never listed, whether the library resolves it or not)."""
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    loopback = [socket.inet_aton("127.0.0.1")]
    hostile = AsyncServiceInfo(
        "_president._tcp.local.",
        f"evil-{RUN}._president._tcp.local.",
        port=4242,
        properties={
            b"name": b"\x1b[2J\x1b]0;pwned\x07real kitchen" + b"!" * 200,
            b"tables": b"99999999999999",
            b"proto": b"2,3,banana",
            b"fp": b"00" * 40,
            **{f"junk{i}".encode(): b"\xff" * 200 for i in range(30)},
        },
        server=f"evil-{RUN}-host.local.",
        addresses=loopback,
    )
    nowhere = AsyncServiceInfo(
        "_president._tcp.local.",
        f"nowhere-{RUN}._president._tcp.local.",
        port=4243,
        properties={b"name": b"nowhere"},
        server=f"nowhere-{RUN}-host.local.",
        addresses=[socket.inet_aton("0.0.0.0")],  # no address a client can connect to
    )
    try:
        for info in (hostile, nowhere):
            await zc.async_register_service(info)
        for _ in range(4):  # (a loaded machine may take longer to probe and answer)
            # the JSON listing and the people's one, side by side (each browses for 4 s)
            found, text = await asyncio.gather(
                asyncio.to_thread(servers, 4),
                asyncio.to_thread(president, "servers", "--wait", "4", *LOOPBACK),
            )
            evil = on_port(found, 4242)
            if evil is not None and "pwned" in text.stdout:
                break
        assert evil is not None, found
        assert "pwned" in text.stdout, text.stdout  # listed there too, its name made safe
        assert evil["name"].startswith("\\x1b[2J\\x1b]0;pwned\\x07") and len(evil["name"]) == 32
        assert evil["tables"] is None and evil["fingerprint_hint"] is None
        assert evil["versions"] == [2, 3]
        assert "nowhere" not in {s["name"] for s in found} and on_port(found, 4243) is None
        assert text.returncode == 0 and "\x1b" not in text.stdout and "\x07" not in text.stdout
        assert "nowhere" not in text.stdout
    finally:
        await zc.async_close()


#: A service announced with records that expire after 3 s (a real server's: 120 s), in a
#: process of its own, so that it can be killed without saying goodbye.
SHORT_LIVED = """
import asyncio, socket, sys
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

async def main() -> None:
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    name = sys.argv[1]
    await zc.async_register_service(AsyncServiceInfo(
        "_president._tcp.local.", f"{name}._president._tcp.local.", port=int(sys.argv[2]),
        properties={"name": name}, server=f"{name}-host.local.",
        addresses=[socket.inet_aton("127.0.0.1")], host_ttl=3, other_ttl=3))
    print("registered", flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


async def test_a_server_gone_without_its_goodbye_leaves_the_list() -> None:
    """Killed (or unplugged), a server sends no goodbye, and the library would keep its
    PTR record 1,125 s: the finder asks again once its other records expire.  One that
    still answers stays listed through those checks."""

    def announce(name: str, port: int) -> Process:
        return Process(["-c", SHORT_LIVED, name, str(port)], command=[sys.executable])

    gone, kept = f"crashed-{RUN}", f"alive-{RUN}"
    crashed, alive = announce(gone, 4801), announce(kept, 4802)  # (side by side)
    try:
        for process in (crashed, alive):
            process.expect("registered")
        async with ServerFinder(interface="127.0.0.1", recheck=0.5) as finder:

            def names() -> set[str]:
                return {a.name for a in finder.listing()}

            await wait_for(lambda: {gone, kept} <= names(), 60, lambda: str(finder.listing()))
            crashed.kill()
            # (its records live 3 s; the library alone would list it for 1,125 s)
            await wait_for(lambda: gone not in names(), 120, lambda: str(finder.listing()))
            # its records expired too, and it answered again (listed, or listed again: a
            # stall of 3 s of its process, or of multicast, drops it rightly, an audit saw)
            await wait_for(lambda: kept in names(), 30, lambda: str(finder.listing()))
    finally:
        stop(crashed, alive)


#: An mDNS answer built by hand, sent to the mDNS group on 127.0.0.1 only (TTL 1): an
#: instance name full of terminal controls, which the library itself refuses to look up.
RAW_ANSWER = """
import socket, sys, time
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText, const
kind = "_president._tcp.local."
name = "\\x1b]0;OWNED\\x07\\x1b[2J\\x1b[5mBLINK\\u202e." + kind
host = "evil\\x1b[31m.local."
unique = const._CLASS_IN | const._CLASS_UNIQUE
out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
out.add_answer_at_time(DNSPointer(kind, const._TYPE_PTR, const._CLASS_IN, 120, name), 0)
out.add_answer_at_time(DNSService(name, const._TYPE_SRV, unique, 120, 0, 0, 4244, host), 0)
out.add_answer_at_time(DNSText(name, const._TYPE_TXT, unique, 120, b"\\x0bproto=2,3,4"), 0)
out.add_answer_at_time(
    DNSAddress(host, const._TYPE_A, unique, 120, socket.inet_aton("127.0.0.1")), 0
)
sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
sender.bind(("127.0.0.1", 0))
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for packet in out.packets():
        sender.sendto(packet, ("224.0.0.251", 5353))
    print("sent", flush=True)
    time.sleep(0.3)
"""


def test_an_instance_name_the_library_refuses_is_left_out_quietly(tmp_path: Path) -> None:
    """A name with terminal controls makes the library raise before any lookup: the
    finder leaves it out, prints no traceback, and writes no control to the terminal
    (a hostile host on the LAN sent one such packet and the picker broke)."""
    sender = Process(["-c", RAW_ANSWER, "8"], command=[sys.executable])
    try:
        sender.expect("sent")  # sending (every 0.3 s) before the listing starts listening
        out = president("servers", "--wait", "3", *LOOPBACK)
    finally:
        sender.kill()
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "exception" not in out.stderr.lower(), out.stderr
    for stream in (out.stdout, out.stderr):
        assert "\x1b" not in stream and "\x07" not in stream and "\u202e" not in stream
    assert "4244" not in out.stdout


def ipv6_loopback() -> bool:
    """Whether this machine can listen on ::1 (a machine without IPv6 cannot)."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


async def test_a_server_on_ipv6_loopback_says_its_address_as_a_client_writes_it(
    tmp_path: Path,
) -> None:
    """`--host '[::1]'`: the address in brackets before its port on every line, and
    "announced" only where a packet can leave (IPv6 loopback seldom has a multicast
    route: then its one line says so, in the system's words)."""
    if not ipv6_loopback():
        pytest.skip("no IPv6 loopback on this machine")
    server = Process(
        [
            *("server", "--host", "[::1]", "--port", "0", "--data", str(tmp_path / "d")),
            *("--pause", "0", "--name", f"six-{RUN}"),
        ]
    )
    try:
        head = server.expect("Ctrl-C")
        port = int(head.split("listening on [::1]:", 1)[1].split()[0])
        assert f"president connect [::1]:{port} --name NAME" in head, head
        problem = multicast_problem("::1")
        words = "not announced on the LAN (no multicast from ::1: " if problem else "announced on"
        await wait_for(lambda: words in server.text(), 30, lambda: server.text())
        # a client writes it so too: in what it remembers (and says) of the server
        known = KnownServers(tmp_path / "known")
        link = await connect(f"[::1]:{port}", "six", known=known)
        await link.close()
        assert known.path.read_text().splitlines()[1].startswith(f"[::1]:{port} ")
        with pytest.raises(
            ConnectFailed, match=rf"^\[::1\]:{port} is not a server you trusted before"
        ):
            await resolve_pin(f"[::1]:{port}", KnownServers(tmp_path / "none"), None, None)
    finally:
        status = server.stop(signal.SIGTERM)
    out, err = server.text(), server.errors()
    assert status == 0 and "Traceback" not in err, err
    said = [line for line in out.splitlines() if "announced" in line]
    assert len(said) == 1 and said[0].startswith(words), said

#!/usr/bin/env python3
"""Discovery under a flood (issue 26 §6): a real `president server` announced on
loopback, trusted before (its address and fingerprint in the client's known_servers),
and N fake servers announced beside it, over and over, in the real announcer's wire
form (one mDNS response a service: PTR, SRV, TXT of `Announcement.to_txt()`, A).  Each
of K runs is one `president servers --json`; it prints whether the real server was
listed, and where.  Exit status 1 if it was missing from any run.

Everything stays on this machine: the server and `president servers` use
`--mdns-interface 127.0.0.1`, the fakes go to the mDNS group on 127.0.0.1 with TTL 1
(as tests/test_discovery.py sends its hostile answer).

    cd scripts && python attack_mdns_flood.py [--fakes 300] [--runs 10] [--wait 3]
    python attack_mdns_flood.py --hosts 1        # every fake on one address (127.0.0.1)
    python attack_mdns_flood.py --claim          # fakes claim the real server's fingerprint
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from president.protocol.discovery import SERVICE_TYPE, Announcement
from president.protocol.messages import VERSIONS
from servers import environment, start_server, stop_server
from zeroconf import DNSOutgoing, ServiceInfo, const

MDNS_GROUP = ("224.0.0.251", 5353)
PRESIDENT = [sys.executable, "-m", "president.cli"]


def fake_packets(fakes: int, hosts: int, claim: str | None, tag: str) -> list[bytes]:
    """One mDNS response a fake server, as the real announcer's zeroconf sends it
    (`Zeroconf.generate_service_broadcast`): PTR, SRV, TXT and address records.  Fake
    `i` is at 127.0.0.1 if `hosts` is 1, else at one of `hosts` addresses in 10.26/16."""
    packets = []
    for i in range(fakes):
        host = "127.0.0.1" if hosts == 1 else f"10.26.{i % hosts // 250}.{i % hosts % 250 + 1}"
        port = 20000 + i
        announcement = Announcement(
            name=f"fake {i:03d}",
            port=port,
            versions=VERSIONS,
            tables=random.randrange(10),
            fingerprint=claim or random.randbytes(32).hex(),
        )
        info = ServiceInfo(
            SERVICE_TYPE,
            f"fake {i:03d} {tag}.{SERVICE_TYPE}",
            port=port,
            properties=announcement.to_txt(),
            server=f"fake-{tag}-{i}.local.",
            parsed_addresses=[host],
            other_ttl=120,
        )
        out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
        out.add_answer_at_time(info.dns_pointer(), 0)
        out.add_answer_at_time(info.dns_service(), 0)
        out.add_answer_at_time(info.dns_text(), 0)
        for record in info.get_address_and_nsec_records():
            out.add_answer_at_time(record, 0)
        packets += out.packets()
    return packets


def flood(packets: list[bytes], every: float, stop: threading.Event) -> None:
    """Send every packet to the mDNS group on loopback, all at once, every `every` s."""
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    sender.bind(("127.0.0.1", 0))
    try:
        while not stop.is_set():
            for packet in packets:
                sender.sendto(packet, MDNS_GROUP)
            stop.wait(every)
    finally:
        sender.close()


def one_run(args: argparse.Namespace, env: dict[str, str], port: int, claim: str | None) -> str:
    """One `president servers --json` under the flood: what became of the real server."""
    packets = fake_packets(args.fakes, args.hosts, claim, f"{random.randrange(10**6):06d}")
    stop = threading.Event()
    sender = threading.Thread(target=flood, args=(packets, args.every, stop), daemon=True)
    sender.start()
    try:
        command = [*PRESIDENT, "servers", "--json", "--wait", str(args.wait)]
        out = subprocess.run(
            [*command, "--mdns-interface", "127.0.0.1"],
            capture_output=True,
            text=True,
            env=env,
            timeout=args.wait + 60,
            check=False,
        )
    finally:
        stop.set()
        sender.join()
    if out.returncode != 0:
        return f"failed ({out.returncode}): {out.stderr.strip()[-300:]}"
    found = json.loads(out.stdout)
    fakes = sum(1 for s in found if str(s.get("name", "")).startswith("fake "))
    at = next((i for i, s in enumerate(found) if s["port"] == port), None)
    if at is None:
        return f"MISSING  ({len(found)} listed, {fakes} fakes)"
    return f"listed   (position {at + 1} of {len(found)}, {fakes} fakes)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fakes", type=int, default=300, help="fake servers (default 300)")
    parser.add_argument("--runs", type=int, default=10, help="runs of `president servers`")
    parser.add_argument("--wait", type=float, default=3.0, help="its --wait (default 3)")
    parser.add_argument(
        "--every", type=float, default=0.1, help="seconds between floods (default 0.1)"
    )
    parser.add_argument(
        "--hosts", type=int, default=0, help="addresses the fakes use (default: one each)"
    )
    parser.add_argument(
        "--claim", action="store_true", help="fakes claim the real server's fingerprint"
    )
    args = parser.parse_args()
    args.hosts = args.hosts or args.fakes
    with tempfile.TemporaryDirectory(prefix="mdns-flood-") as scratch:
        home = Path(scratch)
        env = environment(home)
        server = start_server(
            sys.executable,
            home / "data",
            *("--name", "real", "--mdns-interface", "127.0.0.1"),
            env=env,
            announce=True,
        )
        port, pin = server.port, server.pin
        try:
            known = home / "config" / "president" / "known_servers"
            known.parent.mkdir(parents=True, exist_ok=True)
            known.write_text(f"127.0.0.1:{port} {pin}\n")  # trusted before
            print(
                f"real server 127.0.0.1:{port}; {args.fakes} fakes on {args.hosts} address(es)"
                f"{', claiming its fingerprint' if args.claim else ''}, every {args.every:g} s"
            )
            missing = 0
            for run in range(1, args.runs + 1):
                said = one_run(args, env, port, pin if args.claim else None)
                missing += not said.startswith("listed")
                print(f"run {run:2d}: real server {said}", flush=True)
        finally:
            stop_server(server.proc)
    print(f"real server listed in {args.runs - missing}/{args.runs} runs")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

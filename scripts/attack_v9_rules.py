#!/usr/bin/env python3
"""Malformed and odd version-9 rules from a hostile guest, on a real `president server` on
loopback: create_table with 33 toggles, scaled_exchange at every table size (3 to 12, two
decks past 8), the three reverses and emperor, odd values (strings, huge numbers, lists,
null, negative), unknown toggles, the japanese preset; a v8 client asking for and
joining such tables.  Tables that were made get server bots and a game; meanwhile table
"other" plays on.  Prints every answer (one line each), whether any table's game moved,
and counts tracebacks in the server log.

    cd scripts && ../.venv/bin/python attack_v9_rules.py

Exit status 1 on a traceback, a refusal that is not one line, or "other" stalling."""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
from typing import Any

from attack_hand_history import connect_as
from attack_seatlock import SOURCE, spawn
from president.client.connection import Client
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from servers import LoggedServer

ODD: list[Any] = [
    "yes",
    "",
    2,
    -1,
    10**18,
    1.5,
    float("inf"),
    None,
    [True],
    {"a": 1},
    b"\x00",
]


def cases() -> list[tuple[str, str, dict[str, Any], int]]:
    """(what, preset, toggles, seats) to try."""
    out: list[tuple[str, str, dict[str, Any], int]] = []
    for seats in range(3, 13):
        toggles: dict[str, Any] = {"scaled_exchange": True}
        if seats > 8:
            toggles["decks"] = 2
        out.append((f"scaled x{seats}", "classic", toggles, seats))
        out.append((f"scaled daifugo x{seats}", "daifugo", dict(toggles), seats))
    out.append(
        ("scaled, exchange none", "classic", {"scaled_exchange": True, "exchange": "none"}, 8)
    )
    out.append(
        (
            "scaled + auto_return off x8",
            "classic",
            {"scaled_exchange": True, "auto_return": False},
            8,
        )
    )
    every = {"nine_reverse": True, "queen_reverse": True, "king_reverse": True}
    out.append(("three reverses", "japanese", every, 5))
    out.append(("emperor", "classic", {"emperor": True}, 4))
    out.append(
        (
            "emperor + scaled x12",
            "daifugo",
            {"emperor": True, "scaled_exchange": True, "decks": 2, "jokers": 4},
            12,
        )
    )
    out.append(("japanese x3", "japanese", {}, 3))
    out.append(("japanese x12 two decks", "japanese", {"decks": 2}, 12))
    for value in ODD:
        out.append((f"scaled_exchange={value!r}", "classic", {"scaled_exchange": value}, 4))
        out.append((f"nine_reverse={value!r}", "classic", {"nine_reverse": value}, 4))
    out.append(("unknown toggle", "classic", {"no_such_rule": True}, 4))
    out.append(("preset JAPANESE ", "JAPANESE ", {}, 4))
    return out


async def answer(client: Client, before: int) -> str:
    """What the server said to the last request: an error's one line, or "made"."""
    for _ in range(40):
        await asyncio.sleep(0.05)
        if len(client.errors) > before:
            return "refused: " + client.errors[-1].message
    return "no error (made?)"


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(args.python, "president-v9rules-", "--pause", "0", "--bot-delay", "0.01")
    address, pin = server.address, server.pin
    known = KnownServers(server.home / "known")
    problems: list[str] = []
    tracebacks = 0
    try:
        SOURCE.set("127.0.0.1")
        host = await connect_as(address, pin, known, "host")
        spawn(host.run())
        await host.send(m.CreateTable(name="other", preset="classic", toggles={}, seats=4))
        await asyncio.sleep(0.2)
        for _ in range(4):
            await host.send(m.AddBot(table="other", strategy="random"))
        watcher = await connect_as(address, pin, known, "watch")
        spawn(watcher.run())
        await watcher.send(m.Spectate(table="other"))
        old = await connect_as(address, pin, known, "old", version=8)
        spawn(old.run())

        # 33 toggles: refused by the message's own limit (32)
        toggles = {f"t{i}": True for i in range(33)}
        try:
            await host.send(m.CreateTable(name="t33", preset="classic", toggles=toggles, seats=4))
            print("33 toggles: the client library sent it")
        except Exception as exc:  # (the library refuses to build it: send the raw frame)
            print(f"33 toggles: the client library refuses: {str(exc)[:100]}")
        # a client sends what only a server sends: hand_history (raw frames: the library
        # will not), one well formed, one of 129 events, one nesting a hand_history
        event = {"type": "played", "table": "other", "number": 1, "seat": 0, "cards": ["3C"]}
        event |= {"clears": False, "revolution": False, "timeout": ""}
        page = {"type": "hand_history", "table": "other", "hand": 0, "page": 0, "more": False}
        for what, events in (
            ("hand_history from a client", [event]),
            ("hand_history of 129 events", [event] * 129),
            ("hand_history inside hand_history", [{**page, "events": [event]}]),
        ):
            before = len(host.errors)
            host.link.writer.write(encode_frame(pack({**page, "events": events})))
            said = await answer(host, before)
            print(f"{what}: {said[:120]}")
            if said.startswith("no error"):
                problems.append(f"{what}: not refused")
        made = []
        for n, (what, preset, toggles, seats) in enumerate(cases()):
            SOURCE.set(f"127.0.1.{10 + n}")  # a table an address (its 8 bots for it)
            guest = await connect_as(address, pin, known, f"g{n}")
            spawn(guest.run())
            name = f"odd{n}"
            try:
                await guest.send(
                    m.CreateTable(name=name, preset=preset, toggles=toggles, seats=seats)
                )
            except Exception as exc:
                print(f"{what}: not sent by the library: {type(exc).__name__}: {str(exc)[:90]}")
                continue
            said = await answer(guest, 0)
            print(f"{what}: {said[:150]}")
            if "\n" in said:
                problems.append(f"{what}: a refusal of more than one line")
            if said.startswith("no error"):
                made.append((name, seats, guest, what))
                # a v8 client asks to watch and to sit
                before = len(old.errors)
                await old.send(m.Spectate(table=name))
                print(f"    v8 watching {name}: {(await answer(old, before))[:120]}")
                await old.send(m.Leave())
                await asyncio.sleep(0.05)
        # the made tables get bots and a game (bots from the table's address)
        for name, seats, guest, what in made:
            for _ in range(min(seats, 8)):
                await guest.send(m.AddBot(table=name, strategy="random"))
            for extra in range(seats - 8):  # the rest: people of the guest's, ready
                index = made.index((name, seats, guest, what))
                SOURCE.set(f"127.0.1.{10 + int(name[3:])}")
                person = await connect_as(address, pin, known, f"x{index}-{extra}")
                spawn(person.run())
                await person.send(m.Join(table=name))
                await asyncio.sleep(0.05)
                await person.send(m.Ready())
        await asyncio.sleep(args.seconds)
        await host.send(m.ListTables())
        await asyncio.sleep(0.5)
        states = collections.Counter(t.status for t in host.tables or ())
        print(f"tables after {args.seconds:g} s: {dict(states)}")
        other_events = sum(1 for x in watcher.received if isinstance(x, m.Played))
        print(f"other: {other_events} plays watched")
        if other_events == 0:
            problems.append("table other never played")
        for name, _, _, what in made:
            info = next((t for t in host.tables or () if t.name == name), None)
            print(f"  {what}: {info.status if info else 'gone'}")
        faults = [e.message for c in (host, watcher) for e in c.errors]
        if faults:
            print(f"errors to host/watcher: {faults[:5]}")
    finally:
        tracebacks = server.stop()
    if tracebacks:
        problems.append(f"tracebacks in the server log ({server.log_path})")
    for problem in problems:
        print("FAIL: " + problem)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="of games afterwards")
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

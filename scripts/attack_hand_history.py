#!/usr/bin/env python3
"""Can anyone see a card they should not through `hand_history` (protocol version 9)?
A hostile guest's test on a real `president server` on loopback.

Table "leak": six seats, all this script's clients (random bots over the network), under
classic with scaled_exchange on and auto_return off (the exchange moves 3+2+1 cards each
way, returns chosen by the seats).  Meanwhile:

- a v9 spectator leaves and watches again every `--every` seconds (a snapshot each time,
  during the exchange and the play);
- seat p2 leaves mid-hand and takes its chair back by key; seat p3's connection is cut
  and it resumes with its token from a new connection (both get a snapshot);
- a v8 client tries to watch "leak" (must be refused: scaled_exchange is version 9), then
  watches table "other" (classic, one client + three server bots) in the same loop;
- a v9 spectator watches "other" in the same loop; the player at "other" plays throughout.

Afterwards every card string in every message each client received (the sealed hands
aside) is checked against what that client may know: a card is public from the number
of the first `played`/`discarded` event holding it (any client's stream, live or in a
history); a seat also knows the cards it held in that hand (its sealed hands, opened).
A card shown to a client that may not know it yet is a leak.  Also counted: the pages of
history each client got, the events in them, and whether a v8 client got any.

    cd scripts && ../.venv/bin/python attack_hand_history.py [--seconds 40]

Exit status 1 on a leak, a traceback in the server log, or a v8 client sent history."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from attack_seatlock import key, spawn
from president.bots.strategies import make_strategy
from president.client.connection import Client, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.engine import cards as engine_cards
from president.protocol import messages as m
from president.protocol import wire
from servers import LoggedServer

CARD_TEXTS = frozenset(wire.cards_to_wire(engine_cards.CARDS))
PUBLIC_KINDS = (m.Played, m.Discarded)


def card_strings(value: Any) -> Iterator[str]:
    """Every string in a wire value that is a card's text."""
    if isinstance(value, str):
        if value in CARD_TEXTS:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from card_strings(item)


async def connect_as(
    address: str, pin: str, known: KnownServers, name: str, version: int = 9
) -> Client:
    """A client of `name` speaking at most `version` (a v8 client offers 2..8)."""
    saved = m.VERSIONS
    if version < max(saved):
        m.VERSIONS = tuple(v for v in saved if v <= version)
    try:
        link = await connect(address, name, pin=pin, known=known, identity=key(name))
    finally:
        m.VERSIONS = saved
    client = Client(link)
    client.keep = True
    return client


class Seat:
    """One of this script's players: a random bot over the network that records every
    hand it was sealed (the cards it may know)."""

    def __init__(self, client: Client, address: str, pin: str, known: KnownServers) -> None:
        self.client = client
        name = client.link.name
        self.player = BotPlayer(client, make_strategy("random", random.Random(name)), delay=0.02)
        self.held: dict[tuple[str, int], set[str]] = collections.defaultdict(set)
        self.player.ready = True
        inner = self.player.on_message

        async def on_message(message: m.Message) -> None:
            if isinstance(message, m.SealedHand):
                cards = set(wire.cards_to_wire(client.model.hand))
                self.held[(message.table, message.hand)] |= cards
            await inner(message)
            if isinstance(message, m.TableView) and self.player.game_over.is_set():
                self.player.game_over.clear()
                with contextlib.suppress(ConnectionError, OSError):
                    await client.send(m.Ready())

        client.on_message = on_message

        def reconnect() -> Any:
            return connect(address, name, pin=pin, known=known, identity=key(name))

        client.reconnect = reconnect
        spawn(client.follow(lambda what: None, give_up=20))


def leaks_in(
    shown: Mapping[str, Sequence[tuple[str, int, int, str, str]]],
    public: Mapping[tuple[str, int, str], int],
    held: Mapping[str, Mapping[tuple[str, int], set[str]]],
) -> tuple[collections.Counter[str], list[str]]:
    """The cards each client was shown (`streams`) that it did not hold in that hand and
    that were not public by then (`public`: (table, hand, card) -> the number of the
    first event that showed it to everyone), counted by client and kind of message, and
    up to ten examples."""
    leaks: collections.Counter[str] = collections.Counter()
    examples: list[str] = []
    for name, items in shown.items():
        mine = held.get(name, {})
        for table, hand, number, card, where in items:
            if card in mine.get((table, hand), set()):
                continue
            first = public.get((table, hand, card))
            if first is not None and first <= number:
                continue
            leaks[f"{name} in {where}"] += 1
            if len(examples) < 10:
                examples.append(
                    f"{name}: {card} in {where} #{number} at {table} hand {hand}"
                    f" (public from {first})"
                )
    return leaks, examples


def streams(clients: dict[str, Client]) -> dict[str, list[tuple[str, int, int, str, str]]]:
    """Per client: every card it was shown, as (table, hand, number, card, where)."""
    out: dict[str, list[tuple[str, int, int, str, str]]] = {}
    for name, client in clients.items():
        seen: list[tuple[str, int, int, str, str]] = []
        hand_at: dict[str, int] = {}
        last = 0
        for message in client.received:
            if isinstance(message, m.SealedHand):
                continue
            if isinstance(message, m.HandHistory):
                for event in message.events:
                    wired = event.to_wire()
                    for card in card_strings(wired):
                        seen.append((message.table, message.hand, event.number, card, event.TYPE))
                continue
            wired = message.to_wire()
            number = getattr(message, "number", None)
            last = number if isinstance(number, int) else last
            table = getattr(message, "table", "")
            if isinstance(message, m.TableView) and message.game is not None:
                hand_at[table] = message.game.hand
            if isinstance(message, m.HandStarted):
                hand_at[table] = message.hand
            for card in card_strings(wired):
                where = message.TYPE
                seen.append((table, hand_at.get(table, -1), last, card, where))
        out[name] = seen
    return out


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(args.python, "president-history-", "--pause", "0", "--bot-delay", "0.02")
    address, pin, home = server.address, server.pin, server.home
    known = KnownServers(home / "known")
    failures: list[str] = []
    tracebacks = 0
    try:
        names = [f"p{i}" for i in range(6)]
        clients: dict[str, Client] = {}
        for name in names:
            clients[name] = await connect_as(address, pin, known, name)
        toggles: dict[str, Any] = {"scaled_exchange": True, "auto_return": False}
        await clients["p0"].send(
            m.CreateTable(name="leak", preset=args.preset, toggles=toggles, seats=6)
        )
        await asyncio.sleep(0.3)
        seats = {name: Seat(clients[name], address, pin, known) for name in names}
        for name in names:
            await clients[name].send(m.Join(table="leak"))
        await asyncio.sleep(0.5)
        for name in names:
            await clients[name].send(m.Ready())

        other = await connect_as(address, pin, known, "q0")
        clients["q0"] = other
        await other.send(m.CreateTable(name="other", preset="classic", toggles={}, seats=4))
        await asyncio.sleep(0.3)
        seats["q0"] = Seat(other, address, pin, known)
        await other.send(m.Join(table="other"))
        for _ in range(3):
            await other.send(m.AddBot(table="other", strategy="random"))
        await asyncio.sleep(0.3)
        await other.send(m.Ready())

        watchers = {
            "s9": ("leak", 9),
            "s9other": ("other", 9),
            "old8": ("other", 8),
        }
        for name, (_, version) in watchers.items():
            clients[name] = await connect_as(address, pin, known, name, version)
            spawn(clients[name].run())
        old = clients["old8"]
        await old.send(m.Spectate(table="leak"))
        await asyncio.sleep(0.5)
        refused = [e for e in old.received if isinstance(e, m.Error)]
        print(
            f"v8 client asking to watch the v9 table: {refused[-1].message if refused else 'LET IN'}"
        )
        if not refused:
            failures.append("a v8 client was let watch a scaled_exchange table")

        async def watch_loop(name: str, table: str) -> None:
            client = clients[name]
            with contextlib.suppress(ConnectionError, OSError):
                while True:
                    await client.send(m.Spectate(table=table))
                    await asyncio.sleep(args.every)
                    await client.send(m.Leave())
                    await asyncio.sleep(0.02)

        for name, (table, _) in watchers.items():
            spawn(watch_loop(name, table))

        async def leave_and_back() -> int:
            """p2 leaves mid-hand, then takes its chair back by key; p3's connection is
            cut (it resumes with its token): each as soon as a hand's exchange is on."""
            times = 0
            p2, p3 = clients["p2"], clients["p3"]
            loop = asyncio.get_running_loop()
            end = loop.time() + args.seconds
            while loop.time() < end:
                await asyncio.sleep(0.05)
                view = p2.model.view
                if view is None or view.game is None or view.game.phase != "exchange":
                    continue
                await p2.send(m.Leave())
                await asyncio.sleep(0.1)
                await p2.send(m.Join(table="leak"))
                p3.link.writer.transport.abort()  # the Wi-Fi drops; follow() resumes
                times += 1
                await asyncio.sleep(1.5)
            return times

        cuts = await leave_and_back()
        await asyncio.sleep(1)
    finally:
        tracebacks = server.stop()

    # --- the analysis ---------------------------------------------------------------
    shown = streams(clients)
    public: dict[tuple[str, int, str], int] = {}
    for client in clients.values():
        events: list[m.TableEvent] = [x for x in client.received if isinstance(x, m.TableEvent)]
        events += [e for x in client.received if isinstance(x, m.HandHistory) for e in x.events]
        hand_at: dict[str, int] = {}
        for message in client.received:
            if isinstance(message, m.HandStarted):
                hand_at[message.table] = message.hand
            if isinstance(message, m.HandHistory):
                hand_at[message.table] = message.hand
                for event in message.events:
                    if isinstance(event, PUBLIC_KINDS):
                        for card in event.cards:
                            spot = (event.table, message.hand, card)
                            public[spot] = min(public.get(spot, 1 << 62), event.number)
            elif isinstance(message, PUBLIC_KINDS):
                for card in message.cards:
                    spot = (message.table, hand_at.get(message.table, -1), card)
                    public[spot] = min(public.get(spot, 1 << 62), message.number)
    if args.control:  # the check's own test: a hand's plays taken as never public
        public = {k: v for k, v in public.items() if k[1] != 1}
    leaks, examples = leaks_in(shown, public, {name: seat.held for name, seat in seats.items()})
    pages = {
        name: sum(1 for x in c.received if isinstance(x, m.HandHistory))
        for name, c in clients.items()
    }
    events_in = {
        name: sum(len(x.events) for x in c.received if isinstance(x, m.HandHistory))
        for name, c in clients.items()
    }
    gave = sum(
        1
        for c in clients.values()
        for x in c.received
        if isinstance(x, m.HandHistory)
        for e in x.events
        if isinstance(e, (m.Gave, m.Returned))
    )
    handed = sum(
        1
        for c in clients.values()
        for x in c.received
        if isinstance(x, m.HandHistory)
        for e in x.events
        if isinstance(e, (m.HandedOver, m.Discarded))
    )
    hands = {name: max((h for (_, h) in s.held), default=-1) for name, s in seats.items()}
    checked = sum(len(items) for items in shown.values())
    print(f"hands reached: {hands}; p2 left/rejoined and p3 cut/resumed {cuts} times each")
    print(f"hand_history pages received: {pages}")
    print(
        f"events inside them: {events_in}; gave/returned events among them: {gave}, handed_over/discarded {handed}"
    )
    print(f"card strings checked: {checked}; leaks: {dict(leaks) or 'none'}")
    for line in examples:
        print("  " + line)
    if pages["old8"]:
        failures.append(f"the v8 client got {pages['old8']} hand_history pages")
    if leaks:
        failures.append(f"{sum(leaks.values())} cards shown to someone who may not know them")
    if not pages["s9"] or not gave:
        failures.append(
            "the spectator's snapshots never held an exchange (the attack did not bite)"
        )
    if tracebacks:
        failures.append("tracebacks in the server log: " + str(server.log_path))
    print(
        f"errors sent to clients: {collections.Counter(e.message[:70] for c in clients.values() for e in c.errors).most_common(6)}"
    )
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument(
        "--preset", default="classic", help="table leak's (japanese: hand-overs, discards)"
    )
    parser.add_argument(
        "--control", action="store_true", help="hand 1's plays taken as never public: must fail"
    )
    parser.add_argument("--every", type=float, default=0.2, help="seconds between snapshots")
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

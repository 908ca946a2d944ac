#!/usr/bin/env python3
"""`take` and `bomb` (protocol version 10: salvage, kings_march, zombie, queen_bomber) from
a hostile guest, on a real `president server` on loopback.

Table "takes" (japanese, the four toggles on, a short turn timer): seat x0 is the
attacker (a random bot underneath), x1 random, x2 heuristic, x3 greedy, all this
script's clients.  Whenever x0 owes a take or a bomb it first sends what it may not: a
card not among the due's `cards`, a card of its own hand, a card it could never know
(neither played nor its own), a text that is no card, two cards, the other kind of
payment, a bomb of rank 13 and -1 (twice each: bad messages count against a
connection); then it pays after 0.3 s, or, one due in three, never (the turn timer
must pay).  It also sends a take and a bomb owing nothing, and in the exchange.  While
a seat owes, x1 (not its turn), a spectator and a client in the lobby send a take and
a bomb; a version-9 client raw frames of both, and x3's token in a `resume`; fresh
lobby clients 20 raw garbage frames.  x2's connection is cut while it owes (it
resumes).  At the end the server is restarted while x0 leaves a due to the timer, then
x0 walks away from the table owing.  Table "other" (classic, a random bot of this
script's and three server bots) is watched throughout.

Afterwards: every hostile message must have had one refusal (more only for a seat's
own payment that came after the timer paid), one line, whose `about` names its type; no
traceback in the server log; the timer paid x0's unpaid dues and play went on; a take
resealed the receiver's hand alone, holding the card; after the restart the hand's
history is the same; "other" kept playing; and every card string each client received
is checked against what it may know (attack_hand_history's leak check: a card is public
from the first `played`/`discarded` holding it, a seat knows the cards sealed to it).

    cd scripts && ../.venv/bin/python attack_takes.py [--seconds 60] [--control]

Exit status 1 on any failure."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import random
import sys
from typing import Any

from attack_hand_history import CARD_TEXTS, connect_as, leaks_in, streams
from attack_seatlock import SOURCE, key, spawn
from president.bots.strategies import make_strategy
from president.client.connection import Client, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from servers import LoggedServer

#: Where the server listens (a restart moves it to another port).
ADDRESS = [""]
TOGGLES = {"salvage": True, "kings_march": True, "zombie": True, "queen_bomber": True}
TAKES = ("salvage", "march", "zombie")

#: Raw frames a client must not be able to hurt the server with (one strike each).
GARBAGE: list[dict[str, Any]] = [
    {"type": "bomb", "rank": 13},
    {"type": "bomb", "rank": -1},
    {"type": "bomb", "rank": 2**40},
    {"type": "bomb", "rank": "7"},
    {"type": "bomb", "rank": None},
    {"type": "bomb", "rank": 1.5},
    {"type": "bomb"},
    {"type": "bomb", "rank": 3, "extra": 1},
    {"type": "take", "cards": "3C"},
    {"type": "take", "cards": []},
    {"type": "take", "cards": ["ZZ"]},
    {"type": "take", "cards": [3]},
    {"type": "take"},
    {"type": "take", "cards": ["3C"] * 13},
    {"type": "take", "cards": [["3C"]]},
    {"type": "take", "cards": ["3C"], "rank": 4},
    {"type": "take", "cards": {"3C": 1}},
    {"type": "bomb", "rank": [4]},
    {"type": "bomb", "rank": True},
    {"type": "take", "cards": ["10X"]},
]


class Tally:
    """Every hostile message sent, by client and type, and what came of them."""

    def __init__(self) -> None:
        self.sent: collections.Counter[tuple[str, str]] = collections.Counter()
        self.what: list[tuple[str, str, str]] = []

    def add(self, name: str, about: str, what: str) -> None:
        self.sent[(name, about)] += 1
        self.what.append((name, about, what))


TALLY = Tally()


#: Hostile messages are sent while this holds (the count is taken with none in flight).
SENDING = [True]


async def hostile(client: Client, name: str, message: m.Message, what: str) -> None:
    if not SENDING[0]:
        return
    cards = getattr(message, "cards", None)
    TALLY.add(name, message.TYPE, what if cards is None else f"{what} {'+'.join(cards)}")
    with contextlib.suppress(ConnectionError, OSError):
        await client.send(message)


def raw(client: Client, name: str, frame: dict[str, Any], what: str) -> None:
    """A frame the client library would not build, written as it is."""
    if not SENDING[0]:
        return
    TALLY.add(name, str(frame.get("type")), what)
    client.link.writer.write(encode_frame(pack(frame)))


class Seat:
    """One of this script's players: a bot over the network (`strategy`) that records
    every hand sealed to it; `before(view)` runs before it answers a view, and may tell it
    not to answer (False)."""

    def __init__(
        self, client: Client, strategy: str, address: str, pin: str, known: KnownServers
    ) -> None:
        self.client = client
        name = client.link.name
        self.player = BotPlayer(client, make_strategy(strategy, random.Random(name)), delay=0.02)
        self.held: dict[tuple[str, int], set[str]] = collections.defaultdict(set)
        #: Each hand sealed to it: number -> (reason, its cards).
        self.sealed: dict[int, tuple[str, set[str]]] = {}
        self.player.ready = True
        self.before: Any = None
        #: The view the bot must not answer (a due left for the timer): nor on an error
        #: about it, which would otherwise make the bot answer again.
        self.mute: int | None = None
        inner = self.player.on_message

        async def on_message(message: m.Message) -> None:
            if isinstance(message, m.SealedHand):
                cards = set(wire.cards_to_wire(client.model.hand))
                self.held[(message.table, message.hand)] |= cards
                self.sealed[message.number] = (message.reason, cards)
            asked = isinstance(message, m.TableView) and self.before is not None
            if asked and not await self.before(message):
                self.mute = getattr(message, "number", None)  # (a view left unanswered)
                return
            view = client.model.view
            if (
                view is not None
                and view.number == self.mute
                and not isinstance(message, m.TableEvent)
            ):
                return
            await inner(message)
            if isinstance(message, m.TableView) and self.player.game_over.is_set():
                self.player.game_over.clear()
                with contextlib.suppress(ConnectionError, OSError):
                    await client.send(m.Ready())

        client.on_message = on_message
        #: Its bot's own takes and bombs (one may come after the timer paid: refused).
        self.own: collections.Counter[str] = collections.Counter()
        self.own_cards: collections.Counter[str] = collections.Counter()
        act = client.act

        async def counted(action: Any, seen: int | None = None) -> None:
            wired = wire.action_to_wire(action)
            self.own[wired.TYPE] += 1
            self.own_cards.update(getattr(wired, "cards", None) or ())
            await act(action, seen)

        client.act = counted  # type: ignore[method-assign]

        def reconnect() -> Any:
            return connect(ADDRESS[0], name, pin=pin, known=known, identity=key(name))

        client.reconnect = reconnect
        spawn(client.follow(lambda what: None, give_up=20))


def owing(view: m.TableView | None) -> tuple[int, m.Due] | None:
    """(the seat, the due) when a take or a bomb is owed in `view`."""
    game = view.game if view is not None else None
    if game is None or game.due is None or game.turn is None or game.phase != "play":
        return None
    if game.due.kind not in (*TAKES, "bomb"):
        return None
    return game.turn, game.due


class Attacker:
    """Seat x0's hostile side."""

    def __init__(self, seat: Seat, rng: random.Random) -> None:
        self.seat, self.rng = seat, rng
        self.client = seat.client
        self.done: set[int] = set()
        self.lazy = 0
        self.idle_sends = 0
        self.exchange_sends = 0
        self.restart_next = False
        self.leave_next = False
        self.left_owing: tuple[int, int] | None = None
        self.raw_takes = 3
        self.raw_left = 2  # bad frames this connection may still send (10 strikes close it)
        self.owed = 0
        #: Set while x0 leaves a due for the timer (the moment to restart the server).
        self.stalled = asyncio.Event()

    async def before(self, view: m.TableView) -> bool:
        client, model = self.client, self.client.model
        if view.number in self.done or model.seat is None or view.game is None:
            return True
        self.done.add(view.number)
        due = owing(view)
        me = model.seat
        if due is None or due[0] != me:
            game = view.game
            if game.phase == "exchange" and self.exchange_sends < 6:
                self.exchange_sends += 1
                await hostile(client, "x0", m.TakeCards(cards=("3C",)), "in the exchange")
                await hostile(client, "x0", m.BombRank(rank=0), "in the exchange")
            mine = game.phase == "play" and game.turn == me and game.due is None
            if mine and self.idle_sends < 12 and game.played:  # owes nothing: take, bomb
                self.idle_sends += 1
                card = game.played[0]
                await hostile(client, "x0", m.TakeCards(cards=(card,)), "owes nothing")
                await hostile(client, "x0", m.BombRank(rank=0), "owes nothing")
            return True
        self.owed += 1
        kind = due[1].kind
        offered = set(due[1].cards)
        held = set(wire.cards_to_wire(model.hand))
        unknown = sorted(CARD_TEXTS - offered - held - set(view.game.played))
        if kind == "bomb":
            card = view.game.played[-1] if view.game.played else "3C"
            await hostile(client, "x0", m.TakeCards(cards=(card,)), "a take for a bomb")
            if self.raw_left:
                self.raw_left -= 1
                raw(client, "x0", {"type": "bomb", "rank": 13}, "owed, rank 13")
                raw(client, "x0", {"type": "bomb", "rank": -1}, "owed, rank -1")
        else:
            if unknown:
                guess = (self.rng.choice(unknown),)
                await hostile(client, "x0", m.TakeCards(cards=guess), "never known")
            if held - offered:
                own = (sorted(held - offered)[0],)
                await hostile(client, "x0", m.TakeCards(cards=own), "own card")
            if self.raw_takes:  # not a card: refused by the wire, not a strike
                self.raw_takes -= 1
                raw(client, "x0", {"type": "take", "cards": ["ZZ"]}, "owed, not a card")
            two = sorted(offered)[:2] if len(offered) > 1 else [*offered, *unknown[:1]]
            await hostile(client, "x0", m.TakeCards(cards=tuple(two)), "two cards")
            await hostile(client, "x0", m.BombRank(rank=5), "a bomb for a take")
        if self.leave_next:  # walks away owing: played for at once
            self.leave_next = False
            self.left_owing = (view.number, me)
            await client.send(m.Leave())
            return False
        if self.rng.random() < 1 / 3 or self.restart_next:
            self.lazy += 1
            self.stalled.set()
            return False  # never pays: the timer must
        await asyncio.sleep(0.3)
        return True


def live_dues(client: Client, hand: int) -> list[tuple[str, int, int, tuple[str, ...]]]:
    """The plays, discards, takes and bombs of `hand` at "takes" as `client` heard them,
    live or in a history page: (type, number, seat, cards or (rank,))."""
    out: dict[int, tuple[str, int, int, tuple[str, ...]]] = {}
    current = -1
    for message in client.received:
        if isinstance(message, m.HandStarted) and message.table == "takes":
            current = message.hand
            if current == hand:  # (a new game numbers its hands from 0 again)
                out.clear()
        events: list[m.Message] = [message]
        if isinstance(message, m.HandHistory):
            if message.table != "takes" or message.hand != hand:
                continue
            events = list(message.events)
        elif current != hand or getattr(message, "table", "") != "takes":
            continue
        for event in events:
            if isinstance(event, m.Took):
                out[event.number] = ("took", event.number, event.seat, event.cards)
            elif isinstance(event, m.Bombed):
                out[event.number] = ("bombed", event.number, event.seat, (str(event.rank),))
            elif isinstance(event, (m.Played, m.Discarded)):
                out[event.number] = (event.TYPE, event.number, event.seat, event.cards)
    return [out[n] for n in sorted(out)]


async def restart_owing(
    server: LoggedServer, attacker: Attacker, clients: dict[str, Client], known: KnownServers
) -> list[str]:
    """The server restarted while x0 owes a take or a bomb and leaves it to the timer:
    the seats resume by token, the due is paid after the restart, play goes on, and a
    newcomer's history of the hand holds the same takes and bombs as heard live."""
    problems: list[str] = []
    attacker.stalled.clear()
    attacker.restart_next = True
    try:
        await asyncio.wait_for(attacker.stalled.wait(), 60)
    except TimeoutError:
        print("restart: x0 never owed a take or a bomb again in 60 s")
        return ["restart: no due to restart on"]
    attacker.restart_next = False
    x0 = clients["x0"]
    view = x0.model.view
    assert view is not None and view.game is not None
    hand, before, me = view.game.hand, view.number, x0.model.seat
    due = view.game.due
    server.restart()
    ADDRESS[0] = server.address
    await asyncio.sleep(0.5)
    SOURCE.set("127.0.0.5")
    late = await connect_as(server.address, server.pin, known, "late", 10)
    clients["late"] = late
    spawn(late.run())
    await late.send(m.Spectate(table="takes"))
    for _ in range(150):
        await asyncio.sleep(0.1)
        after = x0.model.view
        if after is not None and after.number > before + 5:
            break
    await asyncio.sleep(2)
    after = x0.model.view
    paid = [
        x
        for x in x0.received
        if isinstance(x, (m.Took, m.Bombed)) and x.number > before and x.seat == me
    ]
    print(
        f"restart while x0 owed {due}: view #{before} -> #{after.number if after else None};"
        f" x0's dues paid since: {[(x.TYPE, x.timeout) for x in paid][:4]}"
    )
    if after is None or after.number <= before + 1:
        problems.append("restart: the table did not go on after the restart")
    if not paid:
        problems.append("restart: x0's due was not paid after the restart")
    live, rebuilt = live_dues(x0, hand), live_dues(late, hand)
    common = [x for x in live if x[1] <= before]
    print(
        f"restart: plays/discards/takes/bombs of hand {hand}: {len(common)} heard live before it, "
        f"{len([x for x in rebuilt if x[1] <= before])} in the newcomer's history"
    )
    if common != [x for x in rebuilt if x[1] <= before]:
        problems.append(f"restart: the rebuilt history differs: {common} vs {rebuilt}")
    return problems


async def leave_owing(attacker: Attacker, clients: dict[str, Client]) -> list[str]:
    """x0 walks away from the table while it owes a take or a bomb: the timeout rule pays
    for it at once ("left") and the others play on."""
    attacker.leave_next = True
    for _ in range(600):
        await asyncio.sleep(0.1)
        if attacker.left_owing is not None:
            break
    else:
        return ["leave: x0 never owed a take or a bomb in 60 s"]
    number, seat = attacker.left_owing
    await asyncio.sleep(3)
    x1 = clients["x1"].received
    paid = [
        (x.TYPE, x.timeout)
        for x in x1
        if isinstance(x, (m.Took, m.Bombed)) and x.number > number and x.seat == seat
    ]
    moves = [x for x in x1 if isinstance(x, (m.Played, m.Passed)) and x.number > number]
    print(
        f"x0 left owing (view #{number}): its dues paid since {paid[:4]}; moves since {len(moves)}"
    )
    problems = []
    if not paid or paid[0][1] != "left":
        problems.append("leave: the due of a seat that walked away was not paid for it")
    if not moves:
        problems.append("leave: the table did not go on after x0 walked away owing")
    return problems


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(args.python, "president-takes-", "--pause", "0", "--bot-delay", "0.02")
    address, pin = server.address, server.pin
    ADDRESS[0] = address
    known = KnownServers(server.home / "known")
    failures: list[str] = []
    rng = random.Random(args.seed)
    clients: dict[str, Client] = {}
    seats: dict[str, Seat] = {}
    try:
        SOURCE.set("127.0.0.1")
        names = ["x0", "x1", "x2", "x3"]
        for name in names:
            clients[name] = await connect_as(address, pin, known, name, 10)
        await clients["x0"].send(
            m.CreateTable(
                name="takes",
                preset="japanese",
                toggles={**TOGGLES, **({"decks": 2} if args.decks == 2 else {})},
                seats=4,
                turn_seconds=args.turn_seconds,
            )
        )
        await asyncio.sleep(0.3)
        for name, strategy in zip(names, ("random", "random", "heuristic", "greedy")):
            seats[name] = Seat(clients[name], strategy, address, pin, known)
        attacker = Attacker(seats["x0"], rng)
        seats["x0"].before = attacker.before

        async def nosy(view: m.TableView) -> bool:
            """x1: a take and a bomb while x0 owes (not x1's turn)."""
            due = owing(view)
            model = clients["x1"].model
            if due is not None and model.seat is not None and due[0] != model.seat:
                if due[1].cards:
                    card = due[1].cards[0]
                    await hostile(clients["x1"], "x1", m.TakeCards(cards=(card,)), "not its turn")
                await hostile(clients["x1"], "x1", m.BombRank(rank=3), "not its turn")
            return True

        seats["x1"].before = nosy
        for name in names:
            await clients[name].send(m.Join(table="takes"))
        await asyncio.sleep(0.5)
        for name in names:
            await clients[name].send(m.Ready())

        # table "other": this script's random bot and three server bots, watched
        SOURCE.set("127.0.0.2")
        host = await connect_as(address, pin, known, "host", 10)
        clients["host"] = host
        await host.send(m.CreateTable(name="other", preset="classic", toggles={}, seats=4))
        await asyncio.sleep(0.3)
        seats["host"] = Seat(host, "random", address, pin, known)
        await host.send(m.Join(table="other"))
        for _ in range(3):
            await host.send(m.AddBot(table="other", strategy="random"))
        await asyncio.sleep(0.3)
        await host.send(m.Ready())
        watch = await connect_as(address, pin, known, "watch", 10)
        clients["watch"] = watch
        spawn(watch.run())
        await watch.send(m.Spectate(table="other"))

        # a spectator of "takes", a client in the lobby, a version-9 client
        SOURCE.set("127.0.0.3")
        for name, version in (("spy", 10), ("lobby", 10), ("old9", 9), ("spy2", 10)):
            clients[name] = await connect_as(address, pin, known, name, version)
            spawn(clients[name].run())
        await clients["spy"].send(m.Spectate(table="takes"))

        async def rewatch() -> None:
            """spy2 watches "takes" again and again: a snapshot, the hand's history."""
            with contextlib.suppress(ConnectionError, OSError):
                while True:
                    await clients["spy2"].send(m.Spectate(table="takes"))
                    await asyncio.sleep(1.0)
                    await clients["spy2"].send(m.Leave())
                    await asyncio.sleep(0.02)

        spawn(rewatch())
        cuts = [0]

        async def cut_owing() -> None:
            """x2's connection is cut while it owes a take or a bomb (it resumes by its
            token: a snapshot holding the due), at most once every 3 s."""
            while True:
                await asyncio.sleep(0.02)
                due, model = owing(clients["spy"].model.view), clients["x2"].model
                if due is None or model.seat is None or due[0] != model.seat:
                    continue
                clients["x2"].link.writer.transport.abort()
                cuts[0] += 1
                await asyncio.sleep(3)

        spawn(cut_owing())

        async def outsiders() -> None:
            """Each due x0 owes: the spectator and the lobby client send a take and a
            bomb; the version-9 client raw frames of both (one each time, few in all)."""
            seen: set[int] = set()
            old_left = 8
            with contextlib.suppress(ConnectionError, OSError):
                while True:
                    await asyncio.sleep(0.05)
                    view = clients["spy"].model.view
                    due = owing(view)
                    if view is None or due is None or view.number in seen:
                        continue
                    seen.add(view.number)
                    card = due[1].cards[0] if due[1].cards else "3C"
                    for name in ("spy", "lobby"):
                        take = m.TakeCards(cards=(card,))
                        await hostile(clients[name], name, take, "not seated")
                        await hostile(clients[name], name, m.BombRank(rank=4), "not seated")
                    if old_left:
                        old_left -= 2
                        raw(clients["old9"], "old9", {"type": "take", "cards": [card]}, "v9")
                        raw(clients["old9"], "old9", {"type": "bomb", "rank": 4}, "v9")

        spawn(outsiders())

        # garbage from fresh lobby clients (at most 6 bad frames a connection)
        SOURCE.set("127.0.0.4")
        for start in range(0, len(GARBAGE), 6):
            name = f"g{start // 6}"
            clients[name] = await connect_as(address, pin, known, name, 10)
            spawn(clients[name].run())
            for frame in GARBAGE[start : start + 6]:
                raw(clients[name], name, frame, repr(frame)[:60])
                await asyncio.sleep(0.05)

        # the v9 client tries x3's chair with x3's token (an old client resuming)
        await asyncio.sleep(2)
        x3 = clients["x3"].model
        if x3.slot is not None:
            resume = m.Resume(table="takes", seat=x3.slot, token=x3.token)
            await hostile(clients["old9"], "old9", resume, "v9 resume into takes")
        half = args.seconds / 2
        await asyncio.sleep(half)
        other_mid = sum(1 for x in watch.received if isinstance(x, m.Played))
        await asyncio.sleep(args.seconds - half)
        other_end = sum(1 for x in watch.received if isinstance(x, m.Played))
        SENDING[0] = False  # (each refusal in before the count)
        await asyncio.sleep(1.5)
        alive = server.proc.poll() is None
        sent_before = collections.Counter(TALLY.sent)
        said_before = {name: list(c.errors) for name, c in clients.items()}
        own = {name: collections.Counter(seat.own) for name, seat in seats.items()}
        SENDING[0] = True
        restart = await restart_owing(server, attacker, clients, known) if args.restart else []
        failures += restart
        failures += await leave_owing(attacker, clients)
    finally:
        tracebacks = server.stop()

    # --- refusals --------------------------------------------------------------------
    # (counted before the restart: what was sent as the server stopped had no answer)
    sent = sum(sent_before.values())
    refusals: collections.Counter[tuple[str, str]] = collections.Counter()
    lines: collections.Counter[str] = collections.Counter()
    for name, errors in said_before.items():
        for error in errors:
            if error.about in ("take", "bomb", "resume"):
                refusals[(name, error.about)] += 1
                lines[f"{error.about}: {error.code}: {error.message[:90]}"] += 1
                if "\n" in error.message:
                    failures.append(f"{name}: a refusal of more than one line")
    # each hostile message refused; any more refusals are of the bot's own payments that
    # came after the timer had paid (the rest of a due is paid at once at its deadline)
    unanswered = {
        k: (n, refusals[k], own.get(k[0], collections.Counter())[k[1]])
        for k, n in sent_before.items()
        if not n <= refusals[k] <= n + own.get(k[0], collections.Counter())[k[1]]
    }
    other = [
        f"{name}: {e.about or '-'}: {e.message[:80]}"
        for name, c in clients.items()
        for e in c.errors
        if e.about not in ("take", "bomb", "resume")
    ]
    print("garbage frames, each with its refusal:")
    for index in range(0, len(GARBAGE), 6):
        said = [e for e in said_before.get(f"g{index // 6}", []) if e.about]
        for frame, error in zip(GARBAGE[index : index + 6], said, strict=False):
            print(f"  {str(frame)[:48]:48} -> {error.about}: {error.code}: {error.message[:60]}")
    if any(isinstance(x, m.Seated) for x in clients["old9"].received):
        failures.append("the v9 client took x3's chair at a table playing takes")
    byes = {name: c.bye.reason for name, c in clients.items() if c.bye is not None}
    kinds = collections.Counter(a for (_, a) in sent_before.elements())
    print(f"hostile messages sent: {sent} ({dict(kinds)})")
    print(f"refusals about take/bomb: {sum(refusals.values())}; by client {dict(refusals)}")
    late = {k: n - sent_before[k] for k, n in refusals.items() if n > sent_before[k]}
    print(f"  of which the seats' own payments, late: {late or 'none'}")
    for line, n in lines.most_common(30):
        print(f"  {n:4d} x {line}")
    # a hostile take the server took: x0's takes (not the timer's) beyond its bot's own
    seating: tuple[str, ...] = ()
    paid: collections.Counter[str] = collections.Counter()
    for x in clients["x0"].received:
        if isinstance(x, m.TableView) and x.game is not None:
            seating = x.game.seating
        if isinstance(x, m.Took) and not x.timeout and seating and seating[x.seat] == "x0":
            paid.update(x.cards)
    accepted = paid - seats["x0"].own_cards
    if accepted:
        print(f"  x0's takes paid beyond its bot's own: {dict(accepted)}; hostile sends of them:")
        for n, a, w in TALLY.what:
            if n == "x0" and any(w.endswith(" " + card) for card in accepted):
                print(f"    {a} {w}")
    for name, about in unanswered:
        said = collections.Counter(
            e.message[:100] for e in clients[name].errors if e.about == about
        )
        sent_as = collections.Counter(w for n, a, w in TALLY.what if (n, a) == (name, about))
        if (name, about) not in sent_before:
            continue
        print(f"  {name} {about}: sent {dict(sent_as)}; refused {dict(said)}")
    if unanswered:
        failures.append(f"sent, refused, own payments: {unanswered}")
    if other:
        print(f"other errors: {collections.Counter(other).most_common(8)}")
    if byes:
        print(f"byes: {byes}")

    # --- the dues, the timer ------------------------------------------------------------
    spy = clients["spy"].received
    took = [x for x in spy if isinstance(x, m.Took)]
    bombed = [x for x in spy if isinstance(x, m.Bombed)]
    timed = [x for x in took if x.timeout] + [x for x in bombed if x.timeout]
    timed.sort(key=lambda x: x.number)
    zombies = [x for x in took if x.seat != x.receiver]
    print(
        f"dues owed by x0: {attacker.owed} (left unpaid: {attacker.lazy}); took {len(took)}"
        f" (zombie {len(zombies)}), bombed {len(bombed)}; paid by the timer {len(timed)}"
    )
    numbers = [x.number for x in spy if isinstance(x, m.TableEvent)]
    after = [x for x in spy if isinstance(x, m.Played) and timed and x.number > timed[-1].number]
    hands = max((x.hand for x in spy if isinstance(x, m.HandStarted)), default=-1)
    print(
        f"takes: hands reached {hands}, events {len(numbers)}, plays after the last timer payment {len(after)}"
    )
    if attacker.lazy and len(timed) < 1:
        failures.append("x0 left dues unpaid and the timer never paid one")
    if not took or not bombed:
        failures.append("the attack did not bite (no take or no bomb seen)")
    if not zombies:
        print("WARN: no zombie take in this run (3 or more 3s played): run it longer")
    if timed and not after and hands < 1:
        failures.append("play did not go on after the timer paid")
    print(f"x2 cut while owing: {cuts[0]} times")
    # under zombie the receiver alone gets its hand again, holding the card
    wrong = 0
    x0 = clients["x0"].received
    seating: tuple[str, ...] = ()
    events = [x for x in x0 if isinstance(x, (m.TableView, m.Took, m.TableEvent))]
    for index, event in enumerate(events):
        if isinstance(event, m.TableView) and event.game is not None:
            seating = event.game.seating
        if not isinstance(event, m.Took) or not seating:
            continue
        later = [x.number for x in events[index + 1 :] if isinstance(x, m.TableEvent)]
        end = later[0] if later else 1 << 62
        got = {
            name: cards
            for name in seats
            for number, (reason, cards) in seats[name].sealed.items()
            if event.number < number < end and reason == "take"
        }
        receiver = seating[event.receiver]
        if set(got) - {receiver} or (receiver in got and event.cards[0] not in got[receiver]):
            wrong += 1
            print(f"  took #{event.number} {event.cards} -> {receiver}: resealed to {sorted(got)}")
    print(f"takes whose reseal went wrong: {wrong}")
    if wrong:
        failures.append(f"{wrong} takes resealed to another seat or without the card")
    print(f"other: {other_mid} plays at half time, {other_end} at the end")
    if other_end <= other_mid:
        failures.append("table other stopped playing")
    if not alive:
        failures.append("the server process died")

    # --- leaks --------------------------------------------------------------------------
    shown = streams(clients)
    public: dict[tuple[str, int, str], int] = {}
    for items in shown.values():  # (public from the first played/discarded holding it)
        for table, hand, number, card, where in items:
            if where in ("played", "discarded"):
                key_ = (table, hand, card)
                public[key_] = min(public.get(key_, 1 << 62), number)
    if args.control:  # the check's own test: hand 1's plays taken as never public
        public = {k: v for k, v in public.items() if k[1] != 1}
    leaks, examples = leaks_in(shown, public, {name: seat.held for name, seat in seats.items()})
    resealed = collections.Counter(
        name
        for name, c in clients.items()
        for x in c.received
        if isinstance(x, m.SealedHand) and x.reason == "take"
    )
    checked = sum(len(items) for items in shown.values())
    print(f"hands resealed for a take, by client: {dict(resealed)}")
    print(f"card strings checked: {checked}; leaks: {dict(leaks) or 'none'}")
    for line in examples:
        print("  " + line)
    if leaks:
        failures.append(f"{sum(leaks.values())} cards shown to someone who may not know them")
    if tracebacks:
        failures.append(f"tracebacks in the server log: {server.log_path}")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--turn-seconds", type=int, default=2, help="table takes's turn timer")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", type=int, choices=(1, 2), default=1, help="table takes's")
    parser.add_argument(
        "--no-restart", dest="restart", action="store_false", help="skip the restart at the end"
    )
    parser.add_argument(
        "--control", action="store_true", help="hand 1's plays taken as never public: must fail"
    )
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

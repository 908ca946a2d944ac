#!/usr/bin/env python3
"""The hand history rebuilt from the journal after a restart (server/restore.py,
server/history.py `HandLog.replay`): does it show a card the live one did not, or differ
from what was sent?  On a real `president server` on loopback.

Four of this script's clients play a classic table (auto_return off, scaled_exchange on,
no turn timer) until hand 1's exchange is under way with returns owed, then stop
answering.  A spectator watches (the live history); the server is stopped (SIGTERM) and
started again on the same data; another spectator watches (the rebuilt history); a
seat resumes with its token (its snapshot).  Compared: the two histories, message by
message; every card string in the rebuilt one and in the resumed seat's non-hand
messages against the cards played (public) and the seat's own.

    cd scripts && ../.venv/bin/python attack_restart_history.py

Exit status 1 if the histories differ or a card shows that should not."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys

from attack_hand_history import card_strings, connect_as
from attack_seatlock import spawn
from president.bots.strategies import make_strategy
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol import wire
from servers import LoggedServer


def history(client: Client) -> list[m.TableEvent]:
    pages = [x for x in client.received if isinstance(x, m.HandHistory)]
    return [e for page in pages for e in page.events]


async def attack(args: argparse.Namespace) -> int:
    server = LoggedServer(args.python, "president-restart-", "--pause", "0")
    home = server.home
    known = KnownServers(home / "known")
    problems: list[str] = []
    names = [f"p{i}" for i in range(4)]
    seats = [await connect_as(server.address, server.pin, known, n) for n in names]
    toggles = {"auto_return": False, "scaled_exchange": True}
    await seats[0].send(
        m.CreateTable(name="t", preset="classic", toggles=toggles, seats=4, turn_seconds=0)
    )
    await asyncio.sleep(0.3)
    players = [BotPlayer(c, make_strategy("random", random.Random(i))) for i, c in enumerate(seats)]
    stopped = False

    def stopping(player: BotPlayer) -> None:
        inner = player.on_message

        async def on_message(message: m.Message) -> None:
            nonlocal stopped
            if isinstance(message, m.HandStarted) and message.hand >= 1:
                stopped = True  # nobody answers from hand 1 on: its exchange stands
            if not stopped:
                await inner(message)

        player.client.on_message = on_message

    for player in players:
        stopping(player)
    for client in seats:
        spawn(client.run())
        await client.send(m.Join(table="t"))
    await asyncio.sleep(0.3)
    for client in seats:
        await client.send(m.Ready())

    def owed() -> bool:
        view = seats[0].model.view
        game = view.game if view is not None else None
        return game is not None and game.phase == "exchange" and game.hand >= 1 and bool(game.owed)

    for _ in range(600):
        if owed():
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    print(f"hand 1's exchange standing: returns owed {seats[0].model.view.game.owed}")  # type: ignore[union-attr]
    held = {n: set(wire.cards_to_wire(c.model.hand)) for n, c in zip(names, seats, strict=True)}
    token = seats[1].model.token
    live = await connect_as(server.address, server.pin, known, "live")
    spawn(live.run())
    await live.send(m.Spectate(table="t"))
    await asyncio.sleep(0.5)
    for client in seats:
        await client.link.close()
    server.restart()
    tracebacks = 0
    try:
        known = KnownServers(home / "known2")
        after = await connect_as(server.address, server.pin, known, "after")
        spawn(after.run())
        await after.send(m.Spectate(table="t"))
        back = await connect_as(server.address, server.pin, known, "p1")
        spawn(back.run())
        await back.send(m.Resume(table="t", seat=1, token=token))
        await asyncio.sleep(1)
        old, new = history(live), history(after)
        print(f"history: {len(old)} events live, {len(new)} rebuilt; same: {old == new}")
        if old != new:
            problems.append("the rebuilt history differs from the live one")
            for a, b in zip(old, new, strict=False):
                if a != b:
                    print(f"  first difference: live {a}\n  rebuilt {b}")
                    break
        played = {c for e in new if isinstance(e, (m.Played, m.Discarded)) for c in e.cards}
        shown = {c for e in new for c in card_strings(e.to_wire())}
        print(f"cards in the rebuilt history: {len(shown)}, all played: {shown <= played}")
        if not shown <= played:
            problems.append(f"cards in the rebuilt history never played: {shown - played}")
        others: set[str] = set()
        for x in back.received:
            if not isinstance(x, m.SealedHand):
                others |= set(card_strings(x.to_wire()))
        beyond = others - played - held["p1"]
        print(
            f"resumed seat p1: {sum(isinstance(x, m.HandHistory) for x in back.received)}"
            f" history pages, {sum(isinstance(x, m.SealedHand) for x in back.received)} hands;"
            f" cards beyond its own and the played: {sorted(beyond) or 'none'}"
        )
        if beyond:
            problems.append(f"p1 was shown {sorted(beyond)}")
        if back.errors:
            print(f"p1's errors: {[e.message for e in back.errors]}")
    finally:
        tracebacks = server.stop()
    if tracebacks:
        problems.append("tracebacks in the server log")
    for problem in problems:
        print("FAIL: " + problem)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

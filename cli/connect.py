"""`president connect HOST[:PORT] --name NAME`: check the server's certificate (asking
the user the first time), then the lobby screen; sitting down or watching opens the
table screen, and leaving the table comes back to the lobby."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import os
import sys
from collections.abc import Awaitable, Callable

from president.bots.strategies import strategy_problem
from president.client.connection import Client, ConnectFailed, Link, connect, resolve_pin
from president.client.model import TableModel
from president.client.pinning import KnownServers
from president.client.tui.app import TableApp
from president.client.tui.lobby import LobbyScreen
from president.client.tui.lobby_app import LobbyApp
from president.client.tui.theme import THEMES, choose_theme
from president.protocol import messages as m
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from .usage import UsageError


async def lobby_and_tables(
    client: Client,
    screen: LobbyScreen,
    *,
    bots: str,
    input: Input | None = None,
    output: Output | None = None,
    theme: str = "dark",
) -> None:
    """The lobby, then a table, then the lobby again ... until the user quits or the
    server goes away for good."""
    # the screen that is up shows the connection's state: one slot, set as screens change
    shown: list[Callable[[str], None]] = [lambda what: None]
    network = asyncio.get_running_loop().create_task(client.follow(lambda what: shown[0](what)))

    try:
        while True:
            lobby = LobbyApp(client, screen, bots=bots, input=input, output=output, theme=theme)
            client.on_message = lobby.on_message
            shown[0] = lobby.status
            await client.send(m.ListTables())
            await lobby.app.run_async()
            if lobby.outcome != "table":
                return
            table = TableApp(client, input=input, output=output, bots=bots, theme=theme)
            client.on_message = table.on_message
            shown[0] = table.status
            if client.model.view is not None:
                table.screen.record(client.model.view)
            await table.app.run_async()
            if network.done():
                return
            lost, client.seat_lost = client.seat_lost, None
            if lost is None:
                with contextlib.suppress(ConnectionError, OSError):
                    await client.send(m.Leave())
            client.model = TableModel(me=client.model.me)
            screen.message = "" if lost is None else f"your seat is gone: {lost.message}"
    finally:
        network.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await network


async def run_connect(args: argparse.Namespace) -> int:
    known = KnownServers()
    loop = asyncio.get_running_loop()

    async def ask(question: str) -> str:
        return await loop.run_in_executor(None, input, question)

    try:
        pin = await resolve_pin(args.address, known, args.fingerprint, ask)

        def reconnect() -> Awaitable[Link]:
            return connect(args.address, args.name, pin=pin, known=known, password=args.password)

        link = await reconnect()
    except (ConnectFailed, EOFError) as exc:
        print(f"president connect: {exc}", file=sys.stderr)
        return 1
    client = Client(link)
    client.reconnect = reconnect
    screen = LobbyScreen(
        me=args.name, server=link.server, address=args.address, fingerprint=link.fingerprint
    )
    try:
        await lobby_and_tables(client, screen, bots=args.bots, theme=args.theme)
    finally:
        await client.link.close()
    if client.bye is not None:
        print(f"the server said goodbye: {client.bye.reason}")
    return 0


def cmd_connect(args: argparse.Namespace) -> int:
    problem = strategy_problem(args.bots)
    if problem:
        raise UsageError(problem)
    if not 1 <= len(args.name) <= 32:
        raise UsageError("--name must be 1 to 32 characters")
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError("needs a terminal (run it in one)")
    return asyncio.run(run_connect(args))


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Connect to a president server: the lobby lists its tables; create one, "
        "sit down, watch, add bots. The first time, you are shown the server's certificate "
        "fingerprint to compare with the one the host's server printed."
    )
    parser.add_argument("address", metavar="HOST[:PORT]", help="the server (default port 7766)")
    parser.add_argument(
        "--name", default=(getpass.getuser() or "player")[:32], help="your name at the tables"
    )
    parser.add_argument(
        "--fingerprint",
        metavar="SHA256",
        help="the fingerprint the host printed "
        "(skips the question; a different certificate is refused)",
    )
    parser.add_argument("--password", help="the server's password, if the host set one")
    parser.add_argument(
        "--bots", default="random", help="strategy of the bots you add (default random)"
    )
    parser.add_argument(
        "--theme",
        choices=THEMES,
        default=choose_theme(None, os.environ),
        help="colours for a dark or light terminal, or none "
        "(default: none if NO_COLOR is set, else as COLORFGBG tells, else dark)",
    )
    parser.set_defaults(handler=cmd_connect)

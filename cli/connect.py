"""`president connect [HOST[:PORT]] --name NAME`: without an address, choose among the
servers announced on the LAN; then check the server's certificate (asking
the user the first time), then the lobby screen; sitting down or watching opens the
table screen, and leaving the table comes back to the lobby."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import shutil
import sys
import termios
from collections.abc import Awaitable
from pathlib import Path

from president.client.connection import (
    CertificateRefused,
    Client,
    ConnectFailed,
    Link,
    PasswordNeeded,
    connect,
    resolve_pin,
)
from president.client.identity import default_identity
from president.client.model import Sealed, TableModel
from president.client.pinning import KnownServers, PinError, ask_the_host
from president.client.tui.app import TableApp
from president.client.tui.background import ask_background
from president.client.tui.fit import fitted
from president.client.tui.lobby import LobbyScreen
from president.client.tui.lobby_app import LobbyApp
from president.client.tui.servers import ServersScreen
from president.client.tui.servers_app import pick_server
from president.client.tui.shell import Shell
from president.client.tui.theme import choose_theme
from president.engine.rulefile import RuleSet
from president.protocol import messages as m
from president.server.players import NameBook
from prompt_toolkit.application import in_terminal
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from .keys import add_identity, player_key
from .servers import add_interface, chosen_interface, quiet_zeroconf
from .usage import (
    PASSWORD,
    STRATEGY_HELP,
    UsageError,
    add_bell,
    add_password,
    add_theme,
    address,
    login_name,
    need_screen,
    password,
    saved_rule_sets,
    short_text,
    strategy,
    wire_rules,
)


def back_command(address: str, name: str, identity: str | None) -> str:
    """The command that takes this user back to the server as themselves: with the key
    they came with (a pass was told the command without `--identity`, which the server
    then refused: the name belongs to another key), each word quoted as a shell needs."""
    words = ["president", "connect", address, "--name", name]
    if identity is not None:
        words += ["--identity", identity]
    return shlex.join(words)


async def lobby_and_tables(
    client: Client,
    screen: LobbyScreen,
    *,
    bots: str,
    input: Input | None = None,
    output: Output | None = None,
    theme: str = "dark",
    shell: Shell | None = None,
    identity: str | None = None,
) -> str | None:
    """The lobby, then a table, then the lobby again ... until the user quits or the
    server goes away for good: screens on one shell (the client's messages and the
    connection's state go to the screen on top).  What to tell the user after: where
    their seat waits, when they quit (ctrl-c) at a table without leaving it."""
    shell = shell if shell is not None else Shell(theme, input, output)
    client.on_message = shell.on_message
    network = asyncio.get_running_loop().create_task(client.follow(shell.status))

    kept: list[str] = []

    async def screens() -> None:
        while True:
            lobby = LobbyApp(client, screen, bots=bots, shell=shell)
            await client.send(m.ListTables())
            await shell.show(lobby)
            if lobby.outcome != "table":
                return
            table = TableApp(client, bots=bots, shell=shell)
            await shell.show(table)
            if network.done():
                return
            model = client.model
            if table.quitting and client.refused is not None:  # (the seat went with the
                return  # server this client trusted, or is held by it: "waits" misled)
            if table.quitting and model.slot is not None and client.seat_lost is None:
                # (no `leave`: the seat waits, as for a client that crashed)
                meanwhile = (
                    "the turn timer, or after a while the timeout rule, plays it meanwhile;"
                    " away past the host's grace period, 2 minutes unless it set"
                    " --grace-seconds, the game goes on without you from the next hand"
                    if model.playing
                    else "kept for a while with no game on"
                )
                again = (
                    back_command(screen.address, model.me, identity)
                    if screen.address
                    else "connecting again"
                )
                kept.append(
                    f"your seat at {model.name} waits for you ({meanwhile}): {again} takes "
                    "you back to it"
                )
                return
            lost, client.seat_lost = client.seat_lost, None
            if lost is None:
                with contextlib.suppress(ConnectionError, OSError):
                    await client.send(m.Leave())
            client.model = TableModel(me=client.model.me)
            review = ""
            dealt = any(isinstance(news, Sealed) for news in model.news)
            if model.slot is not None and dealt and model.name:
                # a game dealt me a hand here: `v` in the lobby asks its record (a review
                # pass: once the table was left, the game's review was out of reach)
                screen.last_game, screen.last_record = model.name, table.kept_record
                screen.left_under_way = not table.screen.game_ended()
                if table.screen.records_sent:
                    over = "" if table.screen.game_ended() else ", once it is over"
                    review = f"v: the review of your game at {model.name}{over}"
            if lost is None:
                screen.message = review
            elif lost.about == m.Spectate.TYPE:  # (watching, not let watch again after a drop)
                screen.message = f"you are no longer watching: {lost.message}"
            else:
                screen.message = f"your seat is gone: {lost.message}"

    try:
        await shell.run(screens)
    finally:
        network.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await network
    return kept[0] if kept else None


async def ask(question: str, *, echo: bool = True) -> str:
    """A line typed at the terminal (not shown if not `echo`), read by the event loop:
    Ctrl-C stops the command at once (`input` in a thread held the exit until Enter).
    `EOFError` when the input ends."""
    fd = sys.stdin.fileno()
    loop = asyncio.get_running_loop()
    line: asyncio.Future[bytes] = loop.create_future()
    typed = bytearray()

    def readable() -> None:
        try:
            data = os.read(fd, 1024)
        except OSError:
            data = b""
        typed.extend(data)
        if (not data or b"\n" in typed) and not line.done():
            line.set_result(bytes(typed))

    async with in_terminal():  # (the shell's screen set aside while the terminal asks)
        saved = termios.tcgetattr(fd) if not echo else None
        if saved is not None:
            quiet = list(saved)
            quiet[3] &= ~termios.ECHO
            termios.tcsetattr(fd, termios.TCSADRAIN, quiet)
        print(fitted(question, shutil.get_terminal_size().columns), end="", flush=True)
        loop.add_reader(fd, readable)
        try:
            answer = await line
        finally:
            loop.remove_reader(fd)
            if saved is not None:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
                print(flush=True)  # the Enter the terminal did not show
    if not answer:
        raise EOFError("no answer: the input ended")
    return answer.decode(errors="replace").partition("\n")[0].rstrip("\r")


#: Questions for a server's password before giving up.
PASSWORD_TRIES = 3


async def first_link(
    args: argparse.Namespace, pin: str, known: KnownServers, secret: str | None
) -> tuple[Link, str | None]:
    """The first link, and the password it took: asked for when the server wants one
    (a few tries: an empty answer, or one no server takes, is asked again), never shown."""
    for _ in range(PASSWORD_TRIES):
        try:
            link = await connect(
                args.address, args.name, pin=pin, known=known, password=secret, identity=args.key
            )
            return link, secret
        except PasswordNeeded as exc:
            what = "that password is wrong. The password" if exc.wrong else "the password"
            secret = await ask_secret(f"{what} for {args.address} (not shown): ")
    link = await connect(
        args.address, args.name, pin=pin, known=known, password=secret, identity=args.key
    )
    return link, secret


async def ask_secret(question: str) -> str:
    """A password the server wants, typed unseen; an empty answer, or one too long for any
    server, is asked again (`PASSWORD_TRIES` in all)."""
    reason = ""
    for _ in range(PASSWORD_TRIES):
        secret = await ask(reason + question, echo=False)
        try:
            return PASSWORD(secret)
        except argparse.ArgumentTypeError as problem:
            reason = "nothing typed: " if not secret else f"{problem}: "
    raise ConnectFailed(f"not connected: {reason.removesuffix(': ')}")


def table_rule_sets() -> tuple[dict[str, RuleSet], list[str]]:
    """The saved rule sets for the create-table form, each as a table is created with it;
    a line for each one that cannot be (said on the lobby's message line)."""
    found, problems = saved_rule_sets()
    usable = {}
    for name, rule_set in found.items():
        try:
            usable[name] = wire_rules(rule_set)
        except UsageError as exc:
            problems.append(f"{name}: {exc}")
    return usable, [f"not in the form: {problem}" for problem in problems]


def address_problem(text: str) -> str | None:
    """What is wrong with a typed HOST[:PORT], or None."""
    try:
        address(text)
    except argparse.ArgumentTypeError as exc:
        return str(exc)
    return None


async def run_connect(args: argparse.Namespace, secret: str | None) -> int:
    """Every screen on one shell: the server picker (without an address), then the lobby
    and the tables; the questions before the first connection (the fingerprint, a
    password) are asked on the terminal itself, the shell set aside meanwhile."""
    known = KnownServers()
    theme = choose_theme(args.theme, os.environ, ask_background)  # (the terminal asked once)
    shell = Shell(theme)
    shell.bell = bool(getattr(args, "bell", False))
    said: list[str] = []

    async def screens() -> None:
        hint, warnings = None, []
        if args.address is None:  # the servers announced on the LAN, to pick one
            quiet_zeroconf()
            picked = await pick_server(
                ServersScreen(versions=m.VERSIONS, known=known.load()),
                address_problem,
                interface=chosen_interface(args),
                shell=shell,
            )
            if picked is None:
                return
            args.address, hint, warnings = picked.address, picked.hint, picked.warnings
        pin = await resolve_pin(args.address, known, args.fingerprint, ask, hint, warnings)
        link, password = await first_link(args, pin, known, secret)

        def reconnect() -> Awaitable[Link]:
            return connect(
                args.address, args.name, pin=pin, known=known, password=password, identity=args.key
            )

        client = Client(link)
        client.reconnect = reconnect
        screen = LobbyScreen(
            me=args.name, server=link.server, address=args.address, fingerprint=link.fingerprint
        )
        screen.read_saved = table_rule_sets
        screen.saved, problems = table_rule_sets()
        screen.message = "; ".join(problems)
        try:
            farewell = await lobby_and_tables(
                client, screen, bots=args.bots, shell=shell, identity=args.identity
            )
        finally:
            await client.link.close()
        if client.refused is not None:  # (left while the server was not the one trusted)
            said.append(refusal_words(client.refused, args.address, bool(args.fingerprint)))
        elif farewell is not None:
            said.append(farewell)
        if client.bye is not None and client.refused is None:  # (an old goodbye then)
            said.append(f"the server said goodbye: {client.bye.reason}")

    try:
        await shell.hold(screens)
    except (ConnectFailed, EOFError) as exc:
        print(f"president connect: {exc}", file=sys.stderr)
        return 2
    for line in said:
        print(line)
    return 0


def refusal_words(refused: CertificateRefused | PinError, address: str, given: bool = False) -> str:
    """What to do when the server came back with a certificate this client does not
    trust: the words `connect` says when it meets one, the seat's fate with them
    (`given`: the fingerprint trusted was --fingerprint's, not the known servers')."""
    if isinstance(refused, CertificateRefused) and refused.shown:
        where = refused.where or address
        then = (
            "Ask the host for the fingerprint their server printed; if it is the new one, "
            "connect with it (--fingerprint)."
            if given
            else ask_the_host(where, KnownServers().path)
        )
        return (
            f"the server at {where} came back with another certificate than the one you "
            f"trusted (it shows {refused.shown}). Someone may be between you and the "
            f"server, or the host started a new one (then your seat went with the old). {then}"
        )
    return str(refused)


def cmd_connect(args: argparse.Namespace) -> int:
    need_screen()
    # (the protocol's rules for a name, said before connecting, as a name too long is: a
    # space at an end was said only by the server, a user pass)
    refused = NameBook().refusal(args.name, "")
    if refused is not None:
        raise UsageError(f"--name {args.name!r}: {refused}")
    args.key = player_key(Path(args.identity) if args.identity else default_identity())
    secret = password(args, "--password", "PRESIDENT_PASSWORD", "the server's password: ")
    return asyncio.run(run_connect(args, secret))


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Connect to a president server: the lobby lists its tables; create one, "
        "sit down, watch, add bots. The first time, you are shown the server's certificate "
        "fingerprint to compare with the one the host's server printed."
    )
    parser.add_argument(
        "address",
        type=address,
        nargs="?",
        metavar="HOST[:PORT]",
        help="the server (default port 7766); without it, choose among the servers "
        "announced on the LAN",
    )
    parser.add_argument(
        "--name",
        type=short_text(32, "a name"),
        default=login_name("player"),
        help="your name at the tables",
    )
    parser.add_argument(
        "--fingerprint",
        metavar="SHA256",
        help="the fingerprint the host printed "
        "(skips the question; a different certificate is refused)",
    )
    add_password(
        parser,
        "--password",
        "PRESIDENT_PASSWORD",
        "the server's password",
        when=", if the host set one: without it you are asked when the server wants one",
    )
    parser.add_argument(
        "--bots",
        type=strategy,
        default="heuristic",
        help=f"the bots you add: {STRATEGY_HELP} (default normal: heuristic)",
    )
    add_identity(parser)
    add_theme(parser, "the lobby and the table")
    add_bell(parser)
    add_interface(parser, "look for servers")
    parser.set_defaults(handler=cmd_connect)

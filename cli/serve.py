"""`president server`: run a lobby server until Ctrl-C (or SIGTERM), then shut down
gracefully: tell every client, write the tables' records, close within a deadline."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import os
import shutil
import signal
import socket
import sys

from president.client.tui.fit import fitted
from president.client.tui.narrator import plural
from president.protocol.certs import normalise_fingerprint
from president.protocol.discovery import Announcement, host_port
from president.protocol.messages import OFFERED
from president.server.announce import (
    EVERYWHERE,
    Announcer,
    friend_addresses,
    where_to_announce,
)
from president.server.app import ListenError, Server
from president.server.config import ServerConfig, default_data_dir
from president.server.journal import JournalError
from president.server.storage import StorageError

from .servers import add_interface, chosen_interface, quiet_zeroconf
from .usage import (
    Password,
    add_password,
    directory,
    given_password,
    listen_host,
    port,
    seconds,
    short_text,
    whole,
)


def say(*args: object, **kwargs: object) -> None:
    """Print for the host; a closed output (the end of a pipe gone, as `| tee` goes with
    Ctrl-C) never stops the server from shutting down properly."""
    try:
        print(*args, **kwargs, flush=True)  # type: ignore[call-overload]
    except (BrokenPipeError, OSError):
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (for the rest of the run)


def terminal_width() -> int | None:
    """The host's terminal's width; None when the output is not a terminal (a log, a
    pipe: lines are left whole there, for a script to read)."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def fingerprint_lines(fingerprint: str, width: int | None) -> list[str]:
    """The fingerprint the host reads out, on one line; on a terminal too narrow for it,
    under its label in rows of whole bytes, as `connect` shows it (a host's pass at 120
    columns read "...:FB:9" and "C:13:...")."""
    label = "certificate fingerprint (SHA-256):"
    if width is None or len(label) + 1 + len(fingerprint) < width:
        return [f"{label} {fingerprint}"]
    return fitted(f"{label}\n  {fingerprint}", width).split("\n")


def password_line(given: Password | None) -> str:
    """What the host is told about the password: whether one is in force and where it
    came from, never the password itself."""
    if given is None:
        return "no password: anyone who can reach this port may connect"
    where = {"--password": "with --password", "the prompt": "at the prompt"}
    return f"clients must give a password (set {where.get(given.source, 'in ' + given.source)})"


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def host_address(host: str) -> str:
    """The address a host name given to --host stands for (itself if it is one)."""
    if host in EVERYWHERE:
        return host
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        return str(socket.getaddrinfo(host, None, family)[0][4][0])


def announcer(config: ServerConfig, server: Server, interface: str | None) -> Announcer | None:
    """The server's announcement on the LAN, or None (said in one line) if the interface
    cannot be used."""
    try:
        where = where_to_announce(host_address(config.host), interface)
    except (OSError, ValueError, IndexError) as exc:
        say(f"not announced on the LAN: {config.host!r} gives no address to announce ({exc})")
        return None
    announcement = Announcement(
        name=config.name,
        port=server.port,
        versions=OFFERED,
        password=config.password is not None,
        fingerprint=normalise_fingerprint(server.fingerprint),
    )
    return Announcer(announcement, where, lambda: len(server.lobby.tables), say)


def stopping_signals() -> list[signal.Signals]:
    """What stops the server as Ctrl-C does (clients told, every table kept): SIGINT,
    SIGTERM, and the terminal closed (SIGHUP: a host's closed window ended the server
    at once, its players left to find out), unless that is ignored (`nohup`: the host
    asked the server to outlive the terminal)."""
    signals = [signal.SIGINT, signal.SIGTERM]
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN:
        signals.append(hangup)
    return signals


async def serve(
    config: ServerConfig,
    given: Password | None = None,
    *,
    announce: bool = True,
    interface: str | None = None,
) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in stopping_signals():
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        server = Server(config)
        await server.start()
    except (JournalError, StorageError, ListenError) as exc:
        busy = isinstance(exc, ListenError) and "already in use" in str(exc)
        hint = " (another server or program listens there: stop it, or give --port)" if busy else ""
        print(f"president server: {exc}{hint}", file=sys.stderr)
        return 2
    everywhere = " (every interface)" if config.host in EVERYWHERE else ""
    say(
        f"president server {config.name!r} listening on {host_port(config.host, server.port)}{everywhere}"
    )
    friends = friend_addresses(config.host, server.port)
    for address in friends:
        if is_loopback(config.host):
            say(f"  only this machine can connect: president connect {address} --name NAME")
        else:
            say(f"  friends connect with: president connect {address} --name NAME")
    if not friends:
        say("  no network interface has an address: only this machine can connect")
    for line in fingerprint_lines(server.fingerprint, terminal_width()):
        say(line)
    say("  tell your friends this fingerprint: their client shows it on first connect")
    say(password_line(given))
    say(f"data and game records in {config.data_dir}")
    if not config.share_records:
        say("  game records kept to this machine (--private-records): players cannot have them")
    if server.storage.new_certificate:  # (a host's typo in --data: friends then refused)
        say(
            "  a new certificate, made now: the first start with this folder (if it is"
            " not, check --data: clients that knew the server refuse a new one)"
        )
    if server.storage.tightened is not None:
        mode = f"{server.storage.tightened:o}"
        say(f"  made it private (chmod 700): it was empty and open to other users (mode {mode})")
    tables = server.lobby.tables.values()
    if tables:
        playing = sum(t.status == "playing" for t in tables)
        back = (
            f": the game waits {config.resume_seconds:g} s for its players to reconnect;"
            f" after the grace ({config.grace_seconds:g} s) it goes on without whoever is"
            " still away, from the next hand"
            # (the bare 120 s read to a host who set --grace-seconds 90 as their grace)
            if playing
            else ""
        )
        # (none in progress: nothing waits for anyone; a host pass read the 120 s as if)
        say(
            f"restored {plural(len(tables), 'table')}, {playing or 'none'} with a game in progress{back}"
        )
    for problem in server.restore_problems:
        say(f"  {problem}")
    lan = announcer(config, server, interface) if announce else None
    if not announce:
        say("not announced on the LAN (--no-announce): friends need the address")
    say("Ctrl-C stops the server")
    if lan is not None:
        lan.start()
    try:
        await stop.wait()
        say("shutting down: telling clients, keeping the tables ...")
    finally:  # whatever happens here, the games in progress stay in the journal
        if lan is not None:
            await lan.close()  # first: browsers drop this server at once
        kept = sum(t.status == "playing" for t in server.lobby.tables.values())
        await server.close()
    kept_line = f"; {plural(kept, 'game')} in progress kept for the next start" if kept else ""
    say(f"stopped; {plural(len(server.records), 'game record')} written this run{kept_line}")
    return 0


def cmd_server(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    quiet_zeroconf(args.verbose)
    given = given_password(
        args,
        "--password",
        "PRESIDENT_PASSWORD",
        "the password every client must give: ",
        confirm=True,
    )
    config = ServerConfig(
        host=args.host,
        port=args.port,
        data_dir=args.data or default_data_dir(),
        name=args.name,
        password=None if given is None else given.text,
        pause_between_hands=args.pause,
        bot_delay=args.bot_delay,
        max_connections=args.max_connections,
        max_per_address=args.max_per_address,
        tables_per_address=args.tables_per_address,
        bots_per_address=args.bots_per_address,
        bot_workers=args.bot_workers,
        chat_per_address=args.chat_per_address,
        chat_per_room=args.chat_per_room,
        max_records=args.max_records,
        share_records=args.share_records,
        ready_seconds=args.ready_seconds,
        nudge_seconds=args.nudge_seconds,
        nudge_after_seconds=args.nudge_after,
        grace_seconds=args.grace_seconds,
    )
    interface = chosen_interface(args)
    return asyncio.run(serve(config, given, announce=args.announce, interface=interface))


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Run a president server. It makes a self-signed certificate on first start "
        "(kept in the data directory) and prints its fingerprint for players to check."
    )
    parser.add_argument(
        "--host", type=listen_host, default="0.0.0.0", help="address to listen on (default: all)"
    )
    parser.add_argument("--port", type=port, default=7766, help="port (default 7766; 0 picks one)")
    parser.add_argument(
        "--data",
        type=directory,
        metavar="DIR",
        help=f"data directory (default {default_data_dir()})",
    )
    add_password(
        parser,
        "--password",
        "PRESIDENT_PASSWORD",
        "the password every client must give",
        confirm=True,
    )
    parser.add_argument(
        "--name",
        type=short_text(32, "a name"),
        default="president",
        help="the server's name, shown to clients",
    )
    parser.add_argument(
        "--pause",
        type=seconds(600),
        default=2.0,
        metavar="SECONDS",
        help="pause between hands, for people to read the result (default 2)",
    )
    parser.add_argument(
        "--bot-delay",
        type=seconds(60),
        default=0.3,
        metavar="SECONDS",
        help="how long server-side bots think, so people can follow (default 0.3)",
    )
    defaults = ServerConfig()
    parser.add_argument(
        "--nudge-seconds",
        type=whole(1, 3600),
        default=defaults.nudge_seconds,
        metavar="SECONDS",
        help="at a table with no turn timer, how long a player another one nudged has "
        f"to move before the timeout rule moves for them (default {defaults.nudge_seconds})",
    )
    parser.add_argument(
        "--nudge-after",
        type=seconds(3600),
        default=defaults.nudge_after_seconds,
        metavar="SECONDS",
        help="how long a turn lasts before another player may nudge it (default"
        f" {defaults.nudge_after_seconds:g}; 0: at once)",
    )
    parser.add_argument(
        "--grace-seconds",
        type=seconds(86400),
        default=defaults.grace_seconds,
        metavar="SECONDS",
        help="how long a player whose client quit or lost its connection keeps their "
        "place in a game (the table plays their turns meanwhile); away longer, the game "
        "goes on without them from the next hand, and back, they sit in again as a "
        f"newcomer, from 0 points (default {defaults.grace_seconds:g})",
    )
    parser.add_argument(
        "--ready-seconds",
        type=seconds(3600),
        default=defaults.ready_seconds,
        metavar="SECONDS",
        help="how long a full table whose creator is ready waits for each person in a "
        f"chair to say ready before freeing the chair (default {defaults.ready_seconds:g}; "
        "0: for ever)",
    )
    caps = (
        ("max_connections", "connections held at once, in all (default {})"),
        (
            "max_per_address",
            "connections from one address (default {}; raise it to run many bots from one machine)",
        ),
        ("tables_per_address", "open tables one address may have created (default {})"),
        ("bots_per_address", "server bots one address may have seated (default {})"),
        ("bot_workers", "processes that think for search bots, off the event loop (default {})"),
        (
            "chat_per_address",
            "chat lines a minute from one address, all its connections (default {})",
        ),
        ("chat_per_room", "chat lines a minute a table or the lobby hears (default {})"),
        ("max_records", "game records kept in DATA/records; past it the oldest go (default {})"),
    )
    for field, words in caps:
        default = getattr(defaults, field)
        parser.add_argument(
            "--" + field.replace("_", "-"),
            type=whole(1, 1_000_000),
            default=default,
            metavar="N",
            help=words.format(default),
        )
    parser.add_argument(
        "--private-records",
        dest="share_records",
        action="store_false",
        help="keep the game records to this machine: by default each player of a game may"
        " have its record once it has ended (every hand as dealt), for the review",
    )
    parser.add_argument(
        "--no-announce",
        dest="announce",
        action="store_false",
        help="do not announce the server on the LAN (mDNS): players type its address",
    )
    add_interface(parser, "announce")
    parser.add_argument("-v", "--verbose", action="store_true", help="log connections and games")
    parser.set_defaults(handler=cmd_server)

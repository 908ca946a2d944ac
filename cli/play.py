"""`president play`: one command, no setup — an embedded server only this user can
reach (a Unix socket in a folder of theirs; loopback only where no socket can be made),
a table with bots in the other seats, and the table screen.  Quitting stops the
server."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shlex
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Mapping
from dataclasses import replace
from pathlib import Path
from stat import S_ISDIR, S_ISSOCK, S_ISVTX

from president.client.connection import UNIX_PREFIX, Client, ConnectFailed, Link, connect
from president.client.identity import default_identity
from president.client.pinning import KnownServers
from president.client.tui.app import TableApp
from president.client.tui.background import ask_background
from president.client.tui.coach import PlayExtras
from president.client.tui.theme import choose_theme
from president.engine import RulesError
from president.protocol import messages as m
from president.server.app import ListenError, Server
from president.server.config import ServerConfig, default_data_dir
from president.server.players import NameBook
from president.server.storage import StorageError

from .keys import add_identity, player_key
from .usage import (
    STRATEGY_HELP,
    add_bell,
    add_rules,
    add_theme,
    chosen_rules,
    directory,
    login_name,
    need_screen,
    seconds,
    short_text,
    strategy,
    whole,
    wire_rules,
)

#: The longest path a Unix socket takes, with its final NUL (108 bytes on Linux, 104 on
#: the BSDs and macOS).
UNIX_PATH_MAX = 108 if sys.platform.startswith("linux") else 104
#: How the name of a game's own folder begins, and its server's socket's name in it.
PREFIX = "president-play-"
SOCKET = "server"


async def start_local_game(
    args: argparse.Namespace, data: Path, known: KnownServers, private: Path | None = None
) -> tuple[Server, Client]:
    """The server, and this player's client seated at a table of bots, ready.  The
    client's `reconnect` opens a new link to the same server.

    The server listens on a Unix socket in `private` (a folder of this user's alone), so
    no other local user can connect to it: on loopback any of them could, and could fill
    the connections one address may hold, so that the player could not come back after
    a drop.  Only where there can be no such socket (no `private`, a system without
    them, a path too long for one) does it listen on loopback; a socket that cannot be
    made is a `ListenError` (another user who fills the temporary folder's disk must not
    send the game to loopback).  Either way it asks a password made for this game, which
    only this client has: on loopback, without it another local user could list the
    tables (the player's name among them), watch the game and chat."""
    secret = secrets.token_urlsafe(24)
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        data_dir=data,
        name="local",
        password=secret,
        journal=False,
        bot_delay=args.bot_delay,
        pause_between_hands=args.pause,
        # (every other seat a bot: 12 players seated only 8, the LAN server's limit for
        # one address, and the game waited for ever)
        bots_per_address=max(ServerConfig.bots_per_address, args.players - 1),
    )
    server = Server(replace(config, unix_socket=_socket_in(private)))
    await server.start()
    address = (
        f"{UNIX_PREFIX}{server.config.unix_socket}"
        if server.config.unix_socket is not None
        else f"127.0.0.1:{server.port}"
    )

    def reconnect() -> Awaitable[Link]:
        return connect(
            address,
            args.name,
            pin=server.fingerprint,
            known=known,
            password=secret,
            identity=getattr(args, "key", None),
        )

    try:
        client = Client(await reconnect())
    except ConnectFailed:  # (its own server refused: the name, say; it goes with it)
        await server.close()
        raise
    client.reconnect = reconnect
    # (a ladder that lives only as long as this game, of one person among server bots,
    # is no rating to show: "rating 0" beside the player all game said nothing)
    client.ladder.unsupported = True
    toggles = dict(getattr(args, "toggles", None) or {})  # (cmd_play's, from --rules/--set)
    await client.send(
        m.CreateTable(
            name="local", preset=args.preset, toggles=toggles, seats=args.players, turn_seconds=0
        )
    )
    await client.send(m.Join(table="local", seat=0))
    for _ in range(args.players - 1):
        await client.send(m.AddBot(table="local", strategy=args.bots))
    await client.send(m.Ready())
    return server, client


def _socket_in(private: Path | None) -> Path | None:
    """Where the server's Unix socket goes in `private`, if there can be one there."""
    if private is None or not hasattr(socket, "AF_UNIX"):
        return None
    path = private / SOCKET
    return path if _fits(path) else None


def _fits(path: str | Path) -> bool:
    """A Unix socket may be made at `path` (its length allows it)."""
    return len(os.fsencode(path)) < UNIX_PATH_MAX


def runtime_dir(environ: Mapping[str, str] = os.environ) -> str | None:
    """`XDG_RUNTIME_DIR` where it is this user's alone (a tmpfs of their own, which other
    users cannot fill as they can a shared /tmp); None for the system's temporary folder."""
    where = environ.get("XDG_RUNTIME_DIR", "")
    try:
        info = os.stat(where) if os.path.isabs(where) else None
    except OSError:
        return None
    if info is None or not S_ISDIR(info.st_mode):
        return None
    if info.st_uid != os.geteuid() or info.st_mode & 0o077:
        return None
    return where


def folder_parent(runtime: str | None, temporary: str) -> str | None:
    """Where the game's own folder goes: the user's runtime folder (`runtime_dir`), else
    the system's temporary one, where a socket's path fits in it; else /tmp (a long
    TMPDIR, as a test runner's, sent the game to loopback).  Only a folder no other user
    may rename things in (theirs or root's, and closed to others' writing or sticky, as
    /tmp is): with /tmp and /var/tmp full, the system's choice is the working folder,
    where another could move the game's folder and put one of theirs in its place.  None
    where no such folder is there."""
    closed = [where for where in (runtime, temporary, "/tmp") if where and _closed(where)]
    for where in closed:
        if _fits(os.path.join(where, f"{PREFIX}{'x' * 8}", SOCKET)):  # (mkdtemp's 8)
            return where
    return closed[0] if closed else None  # (no socket fits: loopback, `start_local_game`)


def _closed(where: str) -> bool:
    """Nobody else may move or replace what this user makes in folder `where`."""
    try:
        info = os.stat(where)
    except OSError:
        return False
    return (
        S_ISDIR(info.st_mode)
        and info.st_uid in (os.geteuid(), 0)
        and (not info.st_mode & 0o022 or bool(info.st_mode & S_ISVTX))
    )


def sweep_killed(parent: Path, now: float | None = None, seconds: float = 5.0) -> list[Path]:
    """Remove the folders of this user's games that ended without a word (SIGKILL, a
    crash, a power cut) from `parent`: theirs, a minute old, their socket there and no
    longer listening (a game's lives as long as the game), or empty (killed as it
    began).  The folders removed.  Reads
    the folder as it goes and for `seconds` at most: another user may fill a shared /tmp
    with millions of names (run beside the game, not before it)."""
    now = time.time() if now is None else now
    deadline = time.monotonic() + seconds
    swept = []
    try:
        with os.scandir(parent) as entries:
            for entry in entries:
                if not entry.name.startswith(PREFIX):
                    continue
                if time.monotonic() >= deadline:  # (no time given: none swept)
                    break
                folder = Path(entry.path)
                try:
                    if not entry.is_dir(follow_symlinks=False):
                        continue
                    info = entry.stat(follow_symlinks=False)
                    if info.st_uid != os.geteuid() or now - info.st_mtime < 60:
                        continue  # (one just made may not listen yet)
                    with contextlib.suppress(OSError):  # (killed before its first file)
                        folder.rmdir()  # (only if empty)
                        swept.append(folder)
                        continue
                    if not S_ISSOCK((folder / SOCKET).lstat().st_mode):
                        continue  # (an older kind's, with no socket)
                    with socket.socket(socket.AF_UNIX) as probe:
                        probe.settimeout(1.0)  # (a stopped game's full queue would hold it)
                        probe.connect(str(folder / SOCKET))
                except ConnectionRefusedError:
                    shutil.rmtree(folder, ignore_errors=True)
                    swept.append(folder)
                except OSError:
                    continue
    except OSError:
        pass  # (the folder unreadable: nothing swept)
    return swept


async def play(args: argparse.Namespace, input: object = None, output: object = None) -> int:
    data = args.data or default_data_dir() / "local"
    parent = folder_parent(runtime_dir(), tempfile.gettempdir())
    if parent is None:
        print(
            "president play: no temporary folder closed to other users' hands (the usual "
            "ones full or missing): set TMPDIR to a folder of yours",
            file=sys.stderr,
        )
        return 2
    # the game's own folder: its server's socket, and the known servers' file of its client
    # (the embedded server's certificate is pinned by its fingerprint: nothing to keep)
    with tempfile.TemporaryDirectory(prefix=PREFIX, dir=parent) as scratch:
        try:
            server, client = await start_local_game(
                args, data, KnownServers(Path(scratch) / "known"), Path(scratch)
            )
        except (StorageError, ListenError) as exc:  # its data directory unusable, or in use
            print(f"president play: {exc}", file=sys.stderr)
            return 2
        except ConnectFailed as exc:  # (its own server refused the player: `cmd_play`
            why = str(exc).partition(" refused: ")[2] or str(exc)  # checks the name first)
            print(f"president play: its server refused you: {why}", file=sys.stderr)
            return 2
        if hasattr(socket, "AF_UNIX"):  # (beside the game: nothing waits on it)
            threading.Thread(target=sweep_killed, args=(Path(parent),), daemon=True).start()
        theme = choose_theme(getattr(args, "theme", None), os.environ, ask_background)
        app = TableApp(client, input=input, output=output, theme=theme)  # type: ignore[arg-type]
        app.shell.bell = bool(getattr(args, "bell", False))
        app.extras = PlayExtras(lambda: server.records[-1] if server.records else None, args.name)
        loop = asyncio.get_running_loop()
        reader = loop.create_task(app.network(client.reconnect))
        # The terminal closed (SIGHUP) or the process told to stop (SIGTERM): as Ctrl-C,
        # the game's record kept (they ended the process at once, the record lost).
        hung_up: list[int] = []

        def stop(signum: int) -> None:
            hung_up.append(signum)
            app.quit()

        for signum in (signal.SIGHUP, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, AttributeError):
                loop.add_signal_handler(signum, stop, signum)
        try:
            await app.app.run_async()
        except OSError:
            if signal.SIGHUP not in hung_up:
                raise  # (after a hangup, the screen's last writes fail: nobody sees it)
        finally:
            app.shell.untitle()  # (the terminal's own title back)
            for signum in (signal.SIGHUP, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, AttributeError):
                    loop.remove_signal_handler(signum)
            reader.cancel()
            await client.link.close()
            await server.close()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    with contextlib.suppress(OSError):  # (a terminal gone: the records are on disk)
        for record in server.records:
            print(f"game record: {record}")
        if server.records:  # (where to see them all: `president stats` reads them)
            records = "" if args.data is None else f" --records {Path(data) / 'records'}"
            command = invoked_as()
            print(f"was it the cards or you: {command} analyze {shlex.quote(server.records[-1])}")
            print(f"the ladder of all your games here: {command} stats{records}")
    return 0


def invoked_as() -> str:
    """How to type this command again: `president` where that is the one on the PATH,
    else the path it was run by (a newcomer's pass: README's first command runs
    `.venv/bin/president`, and the hint's `president stats` was not found)."""
    ran = Path(sys.argv[0])
    found = shutil.which("president")
    if ran.name != "president" or (found is not None and Path(found).resolve() == ran.resolve()):
        return "president"
    return shlex.quote(str(ran))


def cmd_play(args: argparse.Namespace) -> int:
    chosen = wire_rules(chosen_rules(args))  # --preset or --rules, then --set
    args.preset, args.toggles = chosen.preset, dict(chosen.changes)
    try:
        chosen.rules.check_players(args.players)
    except RulesError as exc:
        print(f"president play: {exc}", file=sys.stderr)
        return 2
    need_screen()
    refused = NameBook().refusal(args.name, "")  # (its server's rules for a name, before
    if refused is not None:  # anything is made: no key, no data directory)
        print(f"president play: --name {args.name!r} cannot play: {refused}", file=sys.stderr)
        return 2
    args.key = player_key(Path(args.identity) if args.identity else default_identity())
    return asyncio.run(play(args))


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Start a game against bots in this terminal: a server of its own that no "
        "other user of this machine can reach, bots in the other seats. Press ? in the "
        "game for the keys."
    )
    add_rules(parser, "the game")
    parser.add_argument("--players", type=whole(), default=4, help="table size (default 4)")
    parser.add_argument(
        "--bots",
        type=strategy,
        default="heuristic",
        help=f"the bots' strategy: {STRATEGY_HELP} (default normal: heuristic)",
    )
    parser.add_argument(
        "--name", type=short_text(32, "a name"), default=login_name("you"), help="your name"
    )
    parser.add_argument(
        "--bot-delay",
        type=seconds(60),
        default=0.7,
        metavar="SECONDS",
        help="how long bots think, so you can follow (default 0.7)",
    )
    parser.add_argument(
        "--pause",
        type=seconds(600),
        default=3.0,
        metavar="SECONDS",
        help="pause between hands to read the result (default 3)",
    )
    parser.add_argument(
        "--data",
        type=directory,
        metavar="DIR",
        help=f"where game records go (default {default_data_dir() / 'local'})",
    )
    add_identity(parser)
    add_theme(parser, "the table")
    add_bell(parser)
    parser.set_defaults(handler=cmd_play)

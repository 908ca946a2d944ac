"""`president bot HOST[:PORT] --strategy S [--count N] [--table T] [--name NAME]`:
headless bots that join a server's tables as ordinary clients (the server's certificate
pinned as for the terminal client) and play with the same strategy objects the
simulator runs offline."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import random
import re
import shlex
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from president.bots.strategies import STRATEGIES, make_strategy
from president.client.connection import (
    Client,
    ConnectFailed,
    Link,
    PasswordNeeded,
    connect,
    resolve_pin,
)
from president.client.headless import BotPlayer
from president.client.identity import bot_identity
from president.client.pinning import KnownServers
from president.client.tui.narrator import plural
from president.protocol import messages as m
from president.protocol.errors import Code

from .keys import add_identity, player_key
from .usage import (
    PLAYOUTS,
    STRATEGY_HELP,
    THINK,
    UsageError,
    add_password,
    add_rules,
    address,
    check_budget,
    chosen_rules,
    password,
    search_options,
    seconds,
    short_text,
    strategy,
    whole,
    wire_rules,
)


class BotFailed(Exception):
    """A bot could not do what it was asked; the message says why (exit status 1)."""


class TableFull(BotFailed):
    """A bot found every seat of its table taken (the bots before it keep theirs)."""


class StartFailed(BotFailed):
    """The bots could not start: the server cannot be reached or trusted, or refused a
    table or a seat (exit status 2, as for any mistake in the command)."""


@dataclass
class RunningBot:
    name: str
    client: Client
    player: BotPlayer
    reader: asyncio.Task[None]


#: Seconds between tries while the server holds password checks (someone guessing).
AGAIN = 5.0


async def wait_out(
    held: bool, failed: str, why: str, deadline: float, say: Callable[[str], None]
) -> None:
    """A refusal at hello or at the seat: while the server holds password checks because
    someone guesses (`held`), say `why` and wait to try again, within `deadline` (the
    bot's --give-up), as a person would (the bot quit at once before); any other
    refusal, or no time left, ends it (`failed`)."""
    if not held or time.monotonic() + AGAIN > deadline:
        raise BotFailed(failed) from None
    say(f"{why} (waiting)")
    await asyncio.sleep(AGAIN)


async def until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise BotFailed(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def pick_table(tables: Sequence[m.TableInfo], wanted: str | None) -> str | None:
    """The table to join: the one named, or the first waiting one with a free seat."""
    for info in tables:
        if wanted is not None:
            if info.name == wanted:
                return info.name
        elif info.status != "playing" and not info.password and any(not p for p in info.players):
            return info.name
    return None


async def start_bot(
    args: argparse.Namespace,
    name: str,
    pin: str,
    known: KnownServers,
    index: int,
    options: dict[str, Any],
    say: Callable[[str], None],
) -> RunningBot:
    """Connect, find (or create) the table, sit down."""
    secret, table_secret = args.password, args.table_password  # as `cmd_bot` found them
    chosen = getattr(args, "identity", None)  # (a Namespace made in code may not have it)
    key = player_key(Path(chosen) if chosen else bot_identity(name))

    def reconnect() -> Awaitable[Link]:
        return connect(
            args.address, name, role="bot", pin=pin, known=known, password=secret, identity=key
        )

    deadline = time.monotonic() + args.give_up
    while True:
        try:
            link = await reconnect()
            break
        except PasswordNeeded as exc:  # (said as `president stats` says it)
            raise BotFailed(
                f"{exc} (give it with --password-prompt or $PRESIDENT_PASSWORD)"
            ) from None
        except ConnectFailed as exc:
            held = "refused: too many" in str(exc)
            await wait_out(held, str(exc), f"{name}: {exc}", deadline, say)
    client = Client(link)
    client.reconnect = reconnect
    strategy = make_strategy(
        args.strategy,
        random.Random(args.seed * 1000 + index if args.seed is not None else None),
        **options,
    )
    player = BotPlayer(client, strategy, delay=args.delay)

    def refused(error: m.Error) -> None:  # (a bot's mistake is said as it happens)
        say(f"{name}: the server refused its {error.about}: {error.message}")

    player.on_refused = refused
    # (then, the table where it was, what the turn timer would do: a table with no timer
    # waited on it for ever)
    player.on_fallback = lambda action: say(
        f"{name}: in its place, as the turn timer would: {action}"
    )
    # (a strategy slower than the turn timer: its answer to a turn gone is not sent)
    player.on_late = lambda action: say(
        f"{name}: too slow: the table moved on while it chose {action}; not sent"
    )
    # (a strategy still choosing when the timer moved for it: said once a choice, a
    # `choose` stuck for good said nothing until the game's end)
    # ("after 0 s" beside a 2 s timer read as a bug, a tinkerer's pass: that choose had
    # started late, once the one before returned)
    player.on_stuck = lambda seconds: say(
        f"{name}: still choosing: the turn timer moved for it while its choose ran"
        f" ({seconds:.1f} s of it; a choose slower than the timer starts each turn late),"
        " and moves for it at each turn until its choose returns"
    )
    reader = asyncio.get_running_loop().create_task(
        client.follow(lambda what: say(f"{name}: {what}"), give_up=args.give_up)
    )
    bot = RunningBot(name, client, player, reader)
    await client.send(m.ListTables())
    await until(lambda: client.tables is not None, 10, "the table list")
    assert client.tables is not None
    table = pick_table(client.tables, args.table)
    if table is None and args.table is not None:
        if args.count > args.seats:  # (before the table is made: no bot would fit)
            raise BotFailed(
                f"{args.count} bots need a table of {args.count} seats or more: --seats "
                f"{args.count} (a table the bots create has --seats seats, {args.seats})"
            )
        errors = client.errors_heard
        await client.send(
            m.CreateTable(
                name=args.table,
                preset=args.preset,
                toggles=dict(getattr(args, "toggles", None) or {}),  # (cmd_bot's: --rules)
                seats=args.seats,
                password=table_secret,
                turn_seconds=args.turn_seconds,
            )
        )
        table = args.table

        def listed() -> bool:
            return any(t.name == table for t in client.tables or ())

        await until(lambda: listed() or client.errors_heard > errors, 10, "the new table")
        if not listed():  # refused (this address's tables, a name taken meanwhile, ...)
            said = client.errors[-1].message
            alike = re.search(r"looks like table '(.*)': ", said)
            if alike is not None:  # (a pass meant that table: --table Friday for friday;
                # --table=NAME, so that a name starting with "-" is no option, a hostile pass)
                said += f" (--table={shlex.quote(alike.group(1))} sits at it)"
            raise BotFailed(f"{name} could not create {table}: {said}")
        timer = f"{args.turn_seconds} s a turn" if args.turn_seconds else "no turn timer"

        def numbered(text: str) -> str:  # (run 1, run 2...: a series, not a typo)
            return re.sub(r"\s*\d+", "", text.casefold())

        others = [t.name for t in client.tables or () if numbered(t.name) != numbered(table)]
        near = difflib.get_close_matches(table, others, n=1, cutoff=0.75)
        # (a game-night pass typed 'revo nite' for 'revo night': a stray table, unsaid)
        also = (
            f"; table {near[0]} is there too: --table={shlex.quote(near[0])} sits at it"
            if near
            else ""
        )
        say(f"{name}: created table {table} ({args.preset}, {args.seats} seats, {timer}){also}")
    elif table is not None and args.table is not None and index == 0:
        # (a guest who made the table first, to hold these bots there, made its rules and
        # its timer too: the host should know they did not make it; a bot back to its
        # chair there is not told)
        info = next(t for t in client.tables if t.name == table)
        plays = f"{info.preset}{', ' + info.changes if info.changes else ''}, {info.seats} seats"
        timer = f"{info.turn_seconds} s a turn" if info.turn_seconds else "no turn timer"
        ours = (args.preset, args.seats, args.turn_seconds)
        if name not in info.players and (
            (info.preset, info.seats, info.turn_seconds) != ours
            or info.changes
            or getattr(args, "toggles", None)
        ):
            say(  # (true whether or not rules were asked for: a pass, asking none, was
                # told of "this command's" rules)
                f"{name}: table {table} was already there: it plays {plays}, {timer}, as it"
                " was made (--preset, --rules, --set, --seats and --turn-seconds shape a new"
                " table only)"
            )
        elif name not in info.players:  # (as this command would have made it: no warning)
            say(f"{name}: table {table} was already there ({plays}, {timer})")
    if table is None:
        raise BotFailed(
            "no table has a free seat: name one with --table (it is created if missing)"
        )
    there = next((t for t in client.tables or () if t.name == table), None)
    # (its own seat in a game under way, after a crash or a kill: said, a tinkerer's pass
    # read "seated" alone as a fresh start)
    back = there is not None and there.status == "playing" and name in there.players
    deadline = time.monotonic() + args.give_up
    while True:
        seen = client.errors_heard  # (the kept errors are bounded: a count that can fall)

        def answered(seen: int = seen) -> bool:
            return client.model.slot is not None or client.errors_heard > seen

        await client.send(m.Join(table=table, password=table_secret))
        await until(answered, 10, "a seat")
        if client.model.slot is not None:
            break
        denied = client.errors[-1]
        failed = f"{name} could not sit at {table}: {denied.message}"
        if denied.code == Code.WRONG_PASSWORD:  # (how a bot gives it: a pass had to look)
            failed += " (--table-password-prompt or $PRESIDENT_TABLE_PASSWORD)"
        if denied.code == Code.TABLE_FULL:
            reader.cancel()  # (first: closed under it, it said "connection lost — reconnecting")
            await client.link.close()
            raise TableFull(failed)
        held = denied.code == Code.RATE_LIMITED
        await wait_out(held, failed, f"{name}: {denied.message}", deadline, say)
    again = ": back at its seat, a game under way there" if back else ""
    say(f"{name}: seated at {table}, seat {client.model.slot + 1}{again}")  # (counted from 1)
    return bot


async def tell_empty_seats(bot: RunningBot, say: Callable[[str], None]) -> None:
    """Once the bots sat: the seats still empty, if any, and how they fill (a tinkerer's
    bot sat at a table of its own and waited there in silence, for ever)."""
    model = bot.client.model
    with contextlib.suppress(BotFailed):  # (no view yet: nothing said)
        await until(lambda: model.view is not None and model.slot is not None, 10, "the table")
    view = model.view
    if view is None or view.status != "waiting":
        return
    empty = sum(1 for chair in view.chairs if not chair.name and not chair.bot)
    if empty:
        say(
            f"{view.table}: the game starts when its {plural(empty, 'other seat')} "
            f"{'is' if empty == 1 else 'are'} taken (a friend's `president connect`, `b` "
            f"there for a server bot, or `president bot ... --table {view.table} --count "
            f"{empty}`)"
        )


async def play_games(bot: RunningBot, games: int, say: Callable[[str], None]) -> None:
    client, player, name = bot.client, bot.player, bot.name
    played = 0
    while games == 0 or played < games:
        stopped = player.stopped
        player.game_over.clear()
        player.ready = True
        # (the connection down: the reader reconnects, and the seat taken back says ready
        # again; a CI run's server went between the seat and the ready, and the bot ended
        # with "Connection lost", status 2, not reconnecting)
        with contextlib.suppress(ConnectionError, OSError):
            await client.send(m.Ready())
        waiter = asyncio.ensure_future(player.game_over.wait())
        lost = asyncio.ensure_future(player.seat_lost.wait())
        failed = asyncio.ensure_future(player.failed.wait())
        await asyncio.wait({waiter, lost, failed, bot.reader}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        lost.cancel()
        failed.cancel()
        if player.failure is not None:
            raise BotFailed(f"{name}: its strategy failed, so it stops:\n{player.failure.rstrip()}")
        if client.seat_lost is not None:
            raise BotFailed(
                f"{name}: the server did not give the seat back: {client.seat_lost.message}"
            )
        if not player.game_over.is_set():
            bye = client.bye  # (its seat taken back by another process with its key)
            said = f"the server said goodbye: {bye.reason}" if bye is not None else ""
            raise BotFailed(f"{name}: {client.gave_up or said or 'the server went away'}")
        played += 1
        places = player.places
        average = sum(places) / len(places) if places else 0.0
        refused = f"; {player.refused} of its actions refused" if player.refused else ""
        if player.late:
            refused += f"; {player.late} chosen too late for its turn"
        if player.timed_out:  # (a pass: a `choose` stuck for good said nothing of it)
            refused += f"; {player.timed_out} of its moves made by the turn timer"
        ended = "over"
        if player.stopped > stopped:  # (no game_over: the table went back to waiting)
            ended = "stopped before its end (fewer than three players were left)"
        say(
            f"{name}: game {played} {ended}; won {player.won} of {player.games}, "
            f"average place {average:.2f} over {plural(len(places), 'hand')}{refused}"
        )


async def run_bots(args: argparse.Namespace, say: Callable[[str], None] = print) -> int:
    options = search_options(args)
    known = KnownServers()
    try:
        pin = await resolve_pin(args.address, known, args.fingerprint, None)
    except ConnectFailed as exc:
        raise StartFailed(str(exc)) from None
    base = args.name or f"{args.strategy}-bot"
    names = [base] if args.count == 1 else [f"{base}-{i}" for i in range(1, args.count + 1)]
    bots: list[RunningBot] = []
    running = asyncio.current_task()
    if running is not None:  # (SIGTERM as Ctrl-C: the bots leave and the summary is said;
        # a tinkerer's pass saw it print nothing at all)
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, running.cancel)
    try:
        for index, name in enumerate(names):  # one after another: the first may create the table
            try:
                bots.append(await start_bot(args, name, pin, known, index, options, say))
            except TableFull as exc:
                if not bots:
                    raise StartFailed(str(exc)) from None
                # (the seats there were are filled: a pass's --count 2 at one free seat
                # saw the first bot leave again, unsaid, and the command fail)
                say(f"{exc}: {len(bots)} of the {args.count} bots play")
                break
            except BotFailed as exc:
                if bots:  # (they leave the table again: said, not done behind the words)
                    said = ", ".join(bot.name for bot in bots)
                    raise StartFailed(f"{exc} ({said} left again)") from None
                raise StartFailed(str(exc)) from None
        await tell_empty_seats(bots[-1], say)
        await asyncio.gather(*(play_games(bot, args.games, say) for bot in bots))
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)
        await leave_all(bots)
        places = [place for bot in bots for place in bot.player.places]
        if places:  # (said when stopped too: Ctrl-C or SIGTERM said nothing of the games)
            say(
                # (a hand a bot, summed: "3 hands" of one hand's game read oddly, a pass)
                f"all bots: {plural(len(places), 'hand')} played (summed over the bots),"
                f" average place {sum(places) / len(places):.3f}, "
                f"games won {sum(bot.player.won for bot in bots)}"
            )
    return 0


#: How long the bots take to leave their tables and close, together, before their
#: connections are dropped (a server that stopped answering held each close 30 s).
LEAVE_SECONDS = 3.0


async def leave_all(bots: Sequence[RunningBot]) -> None:
    """Every bot says `leave` and closes, all at once, within `LEAVE_SECONDS`; what is
    not closed by then is dropped (a hostile pass froze the server: SIGTERM then took 30 s
    a bot, the TLS close waiting for its answer)."""

    async def leave(bot: RunningBot) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            await bot.client.send(m.Leave())
        bot.reader.cancel()
        await bot.client.link.close()

    if not bots:
        return
    leaving = {asyncio.ensure_future(leave(bot)): bot for bot in bots}
    _, late = await asyncio.wait(leaving, timeout=LEAVE_SECONDS)
    for task in late:
        task.cancel()
        bot = leaving[task]
        bot.reader.cancel()
        bot.client.link.writer.transport.abort()


def cmd_bot(args: argparse.Namespace) -> int:
    chosen = wire_rules(chosen_rules(args))  # --preset or --rules, then --set
    args.preset, args.toggles = chosen.preset, dict(chosen.changes)
    chosen.rules.check_players(args.seats)  # before any connection is made
    check_budget(args, [args.strategy])
    if args.name is not None and args.count > 1 and len(args.name) > 29:
        raise UsageError("--name is at most 29 characters with --count (a number is added)")
    if args.identity is not None and args.count > 1:
        raise UsageError(
            "--identity is one bot's key: with --count, each bot keeps its own (by its name)"
        )
    args.password = password(args, "--password", "PRESIDENT_PASSWORD", "the server's password: ")
    args.table_password = password(
        args, "--table-password", "PRESIDENT_TABLE_PASSWORD", "the table's password: "
    )
    try:
        return asyncio.run(run_bots(args))
    except asyncio.CancelledError:  # (SIGTERM: `run_bots` stopped as for Ctrl-C)
        print("president bot: stopped (SIGTERM)", file=sys.stderr)
        return 143
    except StartFailed as exc:
        print(f"president bot: {exc}", file=sys.stderr)
        return 2
    except (BotFailed, ConnectFailed) as exc:
        print(f"president bot: {exc}", file=sys.stderr)
        return 1


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Bots that join a president server as ordinary clients. Without --table "
        "they sit at the first waiting table with a free seat; a --table that does not exist "
        "is created. They say ready and play --games games, then leave. If the connection "
        "drops or the server restarts, they reconnect and take their seats back by themselves "
        "(for up to --give-up seconds)."
    )
    parser.add_argument(
        "address", type=address, metavar="HOST[:PORT]", help="the server (default port 7766)"
    )
    parser.add_argument(
        "--strategy",
        type=strategy,
        default="heuristic",
        help=f"{STRATEGY_HELP}: {', '.join(STRATEGIES)} (default heuristic)",
    )
    parser.add_argument("--count", type=whole(1, 12), default=1, help="how many bots (default 1)")
    parser.add_argument(
        "--table",
        type=short_text(40, "a table name"),
        help="the table to join (created if missing)",
    )
    parser.add_argument(
        "--name", type=short_text(32, "a name"), help="bot name (numbered when --count > 1)"
    )
    parser.add_argument(
        "--games", type=whole(0), default=1, help="games to play, 0 = forever (default 1)"
    )
    parser.add_argument(
        "--fingerprint", metavar="SHA256", help="the server's fingerprint, as its host printed it"
    )
    add_identity(parser, f"one per bot name in {bot_identity('bot').parent}/")
    add_password(parser, "--password", "PRESIDENT_PASSWORD", "the server's password")
    add_password(parser, "--table-password", "PRESIDENT_TABLE_PASSWORD", "the table's password")
    add_rules(parser, "a table the bots create")
    parser.add_argument(
        "--seats", type=whole(3, 12), default=4, help="seats of a table the bots create"
    )
    parser.add_argument(
        "--turn-seconds",
        type=whole(0, 3600),
        default=60,
        help="turn timer of a table the bots create, in seconds (0: none; default 60)",
    )
    parser.add_argument(
        "--delay", type=seconds(60), default=0.0, metavar="SECONDS", help="pause before each move"
    )
    parser.add_argument("--playouts", type=PLAYOUTS, help="search: playouts per decision")
    parser.add_argument("--think", type=THINK, metavar="SECONDS", help="search: time per decision")
    parser.add_argument(
        "--seed", type=whole(), help="seed the bots' randomness (for repeatable runs)"
    )
    parser.add_argument(
        "--give-up",
        type=seconds(7 * 24 * 3600, zero=False),
        default=300.0,
        metavar="SECONDS",
        help="after a drop or a server restart, reconnect for this long before exiting; "
        "password checks held by someone's guessing are waited out as long (default 300)",
    )
    parser.set_defaults(handler=cmd_bot)

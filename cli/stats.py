"""`president stats HOST[:PORT] [--json]`: a server's ladder (ratings, places, points,
offices), printed; without HOST, the same ladder made from a folder of game records
(`president play`'s by default), every seat rated by its name.  The server's
certificate is pinned as for `president connect`; the first-use question is put only
to a person at a terminal: a script passes `--fingerprint` (as `president bot` does)
and is refused, not held, without one."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from president.client.connection import ConnectFailed, Link, PasswordNeeded, connect, resolve_pin
from president.client.identity import default_identity
from president.client.model import shown as rating_shown
from president.client.pinning import KnownServers
from president.client.tui.fit import ELLIPSIS, middle_cut, pad
from president.client.tui.narrator import place_text, plural
from president.engine.record import CutShort, NotARecord, loads
from president.protocol import messages as m
from president.protocol.errors import RemoteProtocolError
from president.protocol.identity import player_id, public_bytes
from president.protocol.schema import shown
from president.server.config import default_data_dir
from president.server.ladder import rating_entry, record_results
from president.server.ratings import Ladder

from .keys import add_identity, player_key
from .usage import (
    UsageError,
    add_password,
    address,
    as_written,
    json_text,
    login_name,
    password,
    short_text,
    whole,
)

#: How a server refuses a name another key holds (docs/PROTOCOL.md, "Names").
NAME_TAKEN = ("belongs to another player", "is another player's")

#: The most entries one `leaderboard` asks for (the protocol's cap).
PAGE = 50


async def fetch(link: Link, top: int, players: tuple[str, ...], timeout: float) -> list[m.Ratings]:
    """The server's answers: pages of the ladder down to place `top`, or the players named."""
    asks = (
        [m.Leaderboard(players=players)]
        if players
        else [
            m.Leaderboard(start=start, count=min(PAGE, top - start))
            for start in range(0, top, PAGE)
        ]
    )
    answers: list[m.Ratings] = []
    for ask in asks:
        await link.send(ask)
        # (one deadline for the answer: a server that only pinged, or chatted, held a
        # deadline of each message's own for ever, a hostile pass)
        async with asyncio.timeout(timeout):
            message = await answer_to(link)
        answers.append(message)
        if len(message.entries) < ask.count or ask.start + ask.count >= message.total:
            break
    return answers


async def answer_to(link: Link) -> m.Ratings:
    """The server's `ratings`, pings answered and other messages passed over."""
    while True:
        message = await link.receive()
        if message is None:
            raise ConnectFailed("the server closed the connection")
        if isinstance(message, m.Ping):
            await link.send(m.Pong(nonce=message.nonce))
        elif isinstance(message, m.Error):
            raise ConnectFailed(f"the server refused: {message.message}")
        elif isinstance(message, m.Ratings):
            return message


def entry_json(entry: m.RatingEntry) -> dict[str, Any]:
    return {
        "place": entry.place,
        "name": entry.name,
        "rating": entry.rating,
        "provisional": entry.provisional,
        "mu": entry.mu,
        "sigma": entry.sigma,
        "hands": entry.hands,
        "games": entry.games,
        "wins": entry.wins,
        "places": list(entry.places),
        "points": entry.points,
        "offices": {o.title: {"held": o.held, "kept": o.kept} for o in entry.offices},
    }


def name_column(name: str, width: int) -> str:
    """`name` in a column `width` wide as stdout writes it: escaped where its encoding
    lacks a character (`as_written`), cut in the middle if longer, with an ellipsis it
    can write (a recheck: under Latin-1 the cut's `…` was written as \\u2026, six
    columns for one), padded."""
    cut = middle_cut(as_written(name), width)
    if as_written(cut) != cut:
        cut = cut.replace(ELLIPSIS, "~")
    return pad(cut, width)


def lines(
    server: str, total: int, entries: list[m.RatingEntry], asked: Sequence[str] = ()
) -> list[str]:
    """The ladder in words, one line a player (and one for the offices they held); the
    players `asked` for by name that it does not hold, said so."""
    out = [  # (two lines: one broke mid-word in a terminal of 100 columns)
        f"Ladder of {server}: {plural(total, 'player')} rated",
        "rating = mu - 3 sigma (OpenSkill, Plackett-Luce, updated every hand)",
    ]
    found = {e.name.casefold() for e in entries}  # (a name in any case: `--player Root`)
    missing = [name for name in asked if name.casefold() not in found]
    if missing:
        out.append(f"not on this ladder (no hand finished here by that name): {', '.join(missing)}")
    if not entries:
        if not total and not asked:
            out.append("nobody has finished a hand here yet")
        return [shown(line) for line in out]
    # (every row as many places as the longest: "3 3 4" read as 3, 3, 4 of four places;
    # each as wide as the widest, under its own place; the header under 80 columns)
    most = max(len(e.places) for e in entries)
    ordinals = [place_text(place) for place in range(most)]
    wide = max(len(str(n)) for e in entries for n in (*e.places, *ordinals, 0))
    # (five places and more: mu and sigma give way, then the names narrow, so a row stays
    # under 80 columns: a game of five made rows of 83, "5th" broken onto a line alone)
    places_w = (wide + 1) * most  # (each place and the space before it)
    skill = 63 + places_w <= 79  # (the row before the places: 64 columns, 52 without)
    name_w = 16 if skill else max(8, min(16, 44 - places_w))
    out.append(
        f"{'#':>3} {'player':<{name_w}} {'rating':>7} "
        + (f"{'mu':>5} {'sigma':>5} " if skill else "")
        + f"{'hands':>5} {'games':>5} {'won':>3} {'points':>6} "
        + " ".join(ordinal.rjust(wide) for ordinal in ordinals)
    )
    for e in entries:
        out.append(
            f"{e.place:>3} {name_column(e.name, name_w)} {rating_shown(e):>7} "
            + (f"{e.mu:>5} {e.sigma:>5} " if skill else "")
            + f"{e.hands:>5} {e.games:>5} {e.wins:>3} {e.points:>6} "
            + " ".join(f"{n:>{wide}}" for n in (*e.places, *[0] * (most - len(e.places))))
        )
        if e.offices:
            line = "    offices kept/held:"  # (under 80 columns, an office with its figures)
            for n, office in enumerate(e.offices):
                item = f" {office.title} {office.kept}/{office.held}" + (
                    "," if n < len(e.offices) - 1 else ""
                )
                if len(line) + len(item) > 79:
                    out.append(line)
                    line = "     "
                line += item
            out.append(line)
    if any(e.provisional and not e.unrated for e in entries):
        out.append(  # (under 80 columns: at 100 its last letter went to a line alone)
            "? provisional: not yet met by enough settled players, listed after them"
        )
    if any(e.unrated for e in entries):
        out.append("unrated: no hand has rated them yet (server bots rate nobody)")
    return [shown(line) for line in out]


async def run_stats(args: argparse.Namespace, secret: str | None) -> int:
    known = KnownServers()
    question: Callable[[str], Awaitable[str]] | None = None
    if sys.stdin.isatty() and sys.stdout.isatty():  # a person can answer the question
        from .connect import ask

        question = ask
    try:
        pin = await resolve_pin(args.address, known, args.fingerprint, question)

        # (with the user's own key and name, as `connect`: a connection without a key
        # speaks only the versions before keys, which say no rating is provisional)
        def dial(name: str) -> Awaitable[Link]:
            return connect(
                args.address,
                name,
                role="spectator",
                pin=pin,
                known=known,
                password=secret,
                identity=args.key,
            )

        try:
            link = await dial(args.name or login_name("player"))
        except ConnectFailed as exc:
            # A watcher claims no name, but may not use one another key holds: the login
            # name, taken by someone else on this server, refused a ladder that needs
            # no name at all (a host's pass).  Then a name of this key's own.
            if args.name or not any(words in str(exc) for words in NAME_TAKEN):
                raise
            key_id = player_id(public_bytes(args.key()))
            link = await dial(f"{login_name('player')[:20]}-{key_id[:8]}")
    except PasswordNeeded as exc:
        print(
            f"president stats: {exc} (give it with --password-prompt or $PRESIDENT_PASSWORD)",
            file=sys.stderr,
        )
        return 2
    except (ConnectFailed, EOFError) as exc:
        print(f"president stats: {exc}", file=sys.stderr)
        return 2
    try:
        answers = await fetch(link, args.top, tuple(args.player), args.timeout)
    except (ConnectFailed, TimeoutError, RemoteProtocolError, ConnectionError, OSError) as exc:
        why = str(exc) or "no answer in time"
        print(f"president stats: {why}", file=sys.stderr)
        return 1
    finally:
        await link.close()
    entries = [e for answer in answers for e in answer.entries]
    total = answers[-1].total if answers else 0
    if args.json:
        document = {
            "server": link.server,
            "total": total,
            "players": [entry_json(e) for e in entries],
        }
        print(json_text(document, indent=1))
    else:
        said = lines(link.server, total, entries, tuple(args.player))
        # (a pass missed the game's winner, a bot the server played: docs/ratings.md)
        said[2:2] = [
            "players rated by their player key (shown by the name they last used); not rated:",
            "the server's own bots (b at a table), nor a hand in which two people shared a key",
        ]
        print("\n".join(said))
    return 0


def records_ladder(folder: Path) -> tuple[Ladder, int, int, list[str]]:
    """The ladder of the game records in `folder` (in the order of their names, which
    `president play` and the server begin with the time), every seat rated by name; the
    records read, how many of them end before their game's end, and a line for each file
    left out or cut short by a fault."""
    ladder, read, unfinished = Ladder(), 0, 0
    problems: list[str] = []
    games = _games(sorted(folder.glob("*.json")), problems)
    for path in sorted(games):
        cut = ""
        try:
            document = loads(path.read_bytes())
        except CutShort as exc:  # (its whole hands count: a copy stopped short, a pass)
            document, cut = exc.whole, str(exc)
        except (NotARecord, OSError) as exc:  # (gone, or changed, since it was first read)
            problems.append(f"{path.name} left out: {exc}")
            continue
        results, fault = record_results(document, path.name)
        if (fault or cut) and not results:  # (nothing of it counts: a fault, or the
            # cut, before any hand's end)
            left = fault or f"{cut}: no hand ends before the cut"
            problems.append(f"{path.name} left out: {left}")
            continue
        if fault:
            problems.append(f"{path.name}: only the hands before this counted: {fault}")
        elif cut:
            problems.append(f"{path.name}: only the hands before the cut counted: {cut}")
        for result in results:
            records = ladder.after(result)
            if records is not None:
                ladder.take(result, records)
        read += 1
        ended = bool(fault or cut)  # (said above: not a game left early)
        unfinished += not ended and not results[-1].game_over if results else not ended
    return ladder, read, unfinished, problems


@dataclass
class _Copy:
    """A record file as one game's copy: its hands' digests, and whether it is cut short
    (its last hand then perhaps not whole)."""

    path: Path
    hands: list[str]
    cut: bool

    def within(self, other: _Copy) -> bool:
        """Whether this copy holds no whole hand `other` does not: the same hands, or,
        where one of them is cut short, its whole hands the first of `other`'s."""
        if not self.cut and not other.cut:
            return self.hands == other.hands
        whole = self.whole
        return other.whole[: len(whole)] == whole

    @property
    def whole(self) -> list[str]:
        """The digests of the hands it holds whole (a cut copy's last is perhaps not)."""
        return self.hands[:-1] if self.cut else self.hands


def _games(paths: list[Path], problems: list[str]) -> set[Path]:
    """Of `paths`, one file a game: a copy of a record ("x.json" and "x (1).json") counted
    its game twice (a review), and a copy cut short beside the whole record would count
    its hands twice; the fuller copy counts.  Files that are no record are told in
    `problems` and left out."""
    kept: dict[str, list[_Copy]] = {}  # a game's rules, players and first hand -> copies
    for path in paths:
        try:
            document, cut = loads(path.read_bytes()), False
        except CutShort as exc:
            document, cut = exc.whole, True
        except (NotARecord, OSError) as exc:
            problems.append(f"{path.name} left out: {exc}")
            continue
        hands = document.get("hands")
        hands = hands if isinstance(hands, list) else []
        copy = _Copy(path, [_digest(hand) for hand in hands], cut)
        first = _digest([document.get("rules"), document.get("players"), hands[:1]])
        copies = kept.setdefault(first, [])
        same = next((other for other in copies if copy.within(other)), None)
        if same is not None:
            problems.append(f"{path.name} left out: the same game as {same.path.name}")
            continue
        for other in [other for other in copies if other.within(copy)]:
            problems.append(f"{other.path.name} left out: the same game as {path.name}")
            copies.remove(other)
        copies.append(copy)
    return {copy.path for copies in kept.values() for copy in copies}


def _digest(value: object) -> str:
    """A digest of a record's JSON value, its keys in order."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def local_stats(args: argparse.Namespace) -> int:
    """`president stats` without a server: the ladder of a folder of records."""
    given = args.records is not None
    folder = Path(args.records).expanduser() if given else default_data_dir() / "local" / "records"
    if not folder.is_dir() and (given or not args.json):  # (with --json and no games of
        # play's, the document of an empty ladder below: a script reads JSON whatever)
        if given:
            what = "is not a folder of game records" if folder.exists() else "does not exist"
            print(f"president stats: {folder} {what}", file=sys.stderr)
            return 2
        print(
            f"No games of `president play` yet (their records go to {folder}). "
            "A server's ladder: president stats HOST[:PORT]."
        )
        return 0
    ladder, read, unfinished, problems = records_ladder(folder)
    if unfinished:  # (a newcomer's pass read "games 0" of two games left early)
        problems.insert(
            0,
            f"{unfinished} of these games was left before the end: its hands count, the game "
            "does not"
            if unfinished == 1
            else f"{unfinished} of these games were left before the end: their hands count, "
            "the games do not",
        )
    named = ladder.named(args.player) if args.player else ladder.board(0, args.top)
    entries = [rating_entry(place, record) for place, record in named]
    if args.json:
        document = {
            "records": str(folder),
            "games": read,
            "total": len(ladder),
            "players": [entry_json(e) for e in entries],
            "problems": problems,
        }
        print(json_text(document, indent=1))
        return 0
    where = f"the {read} game record{'' if read == 1 else 's'} in {folder}"
    said = lines(where, len(ladder), entries, tuple(args.player))
    said.insert(2, "every seat rated by name (bots too), the records in the order of their names")
    print("\n".join([*said, *(shown(line) for line in problems)]))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    if len(args.player) > 12:
        raise UsageError("--player: at most 12 players at a time")
    if args.address is None:
        return local_stats(args)
    if args.records is not None:
        raise UsageError("--records is for a folder of records, without a server's address")
    secret = password(args, "--password", "PRESIDENT_PASSWORD", "the server's password: ")
    args.key = player_key(Path(args.identity) if args.identity else default_identity())
    return asyncio.run(run_stats(args, secret))


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Print a server's ladder: each player's rating (mu - 3 sigma of an OpenSkill "
        "Plackett-Luce rating, updated after every hand), hands and games played, places, "
        "points and the offices they held and kept. Without a terminal, give the server's "
        "--fingerprint (nothing is asked). Without a server, the same ladder of your "
        "games of president play (or of any folder of records: --records DIR)."
    )
    parser.add_argument(
        "address",
        nargs="?",
        type=address,
        metavar="HOST[:PORT]",
        help="the server (default port 7766); without it, the ladder of --records",
    )
    parser.add_argument(
        "--records",
        metavar="DIR",
        help="without a server: a folder of game records to rate, every seat by its name "
        f"(default president play's, {default_data_dir() / 'local' / 'records'})",
    )
    parser.add_argument("--json", action="store_true", help="print the ladder as JSON")
    parser.add_argument(
        "--top", type=whole(1, 10_000), default=20, help="how many places (default 20)"
    )
    parser.add_argument(
        "--player",
        action="append",
        default=[],
        type=short_text(40, "a name"),
        metavar="NAME",
        help="show this player only (repeatable, up to 12)",
    )
    parser.add_argument(
        "--fingerprint",
        metavar="SHA256",
        help="the fingerprint the host printed (needed without a terminal)",
    )
    parser.add_argument(
        "--name",
        type=short_text(32, "a name"),
        default=None,
        help="the name to ask under, with your player key (default your login name, or "
        "if another player holds it there, a name of your key's own)",
    )
    add_identity(parser)
    parser.add_argument("--timeout", type=float, default=10.0, help=argparse.SUPPRESS)
    add_password(parser, "--password", "PRESIDENT_PASSWORD", "the server's password")
    parser.set_defaults(handler=cmd_stats)

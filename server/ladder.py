"""The ladder kept in the data directory, beside the tables' journal (`tables.sqlite3`):
what a finished hand gives each rated player is written in the same SQLite transaction
as the journal row that ends the hand, so a crash leaves both or neither, and a hand is
counted once (`rated_games` holds the last hand counted of each game).  A game replayed
from the journal at a restart goes through the engine only: nothing is counted again.

Also: the one adapter from a chair to the id a player is rated under (`rating_key`), the
`HandResult` of a finished hand (and those of a game record, for a ladder of records
rated by name), and the lobby's `ratings` answers."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from president.engine import Event, Game, GameOver, HandOver
from president.engine.record import replay
from president.engine.scoring import titles_by_name
from president.protocol import messages as m

from .journal import as_text
from .ratings import KEPT_GAMES, Finisher, HandResult, Ladder, Record
from .seats import Chairs, Slot

log = logging.getLogger("president.server")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rated_games (
    game TEXT PRIMARY KEY,
    last_hand INTEGER NOT NULL
);
"""


def rating_key(slot: Slot) -> str | None:
    """The id a seated player is rated under: the player id of the key they proved at
    hello (protocol/identity.py `player_id`), kept on the chair, so a player keeps one
    rating whatever name they use and nobody else can play under it.  None (not rated)
    for a server-side bot and for a client without a key (an old one: anyone could sit
    under its name)."""
    if slot.empty or slot.bot is not None:
        return None
    return slot.player_id or None


def hand_result(
    game: Game, chairs: Chairs, game_id: str, over: HandOver, ended: GameOver | None
) -> HandResult:
    """What the hand that just ended (`over`, and `ended` if it ended the game) gives the
    ladder: each place's player, rated id, titles held and earned, and points."""
    slots = {slot.name: slot for slot in chairs if not slot.empty}
    return _result(
        game, game_id, over, ended, lambda name: rating_key(slots[name]) if name in slots else None
    )


def _result(
    game: Game,
    game_id: str,
    over: HandOver,
    ended: GameOver | None,
    rated_as: Callable[[str], str | None],
) -> HandResult:
    held = titles_by_name(game.rules, game.standing or ())
    earned = titles_by_name(game.rules, over.finish)
    points = dict(over.points)
    finish = tuple(
        Finisher(rated_as(name), name, held.get(name, ""), earned[name], points.get(name, 0))
        for name in over.finish
    )
    winners = () if ended is None else ended.winners
    return HandResult(game_id, over.hand, finish, ended is not None, winners)


def record_results(document: Mapping[str, Any], game_id: str) -> tuple[list[HandResult], str]:
    """What a game record's finished hands give a ladder rated by name (every seat, bots
    too: `president stats --records`), as `hand_result` gives the server's; and the
    record's fault, if it has one ("" if none: the hands before a fault count)."""
    results: list[HandResult] = []

    def seen(game: Game, _hand: int, _action: int | None, events: list[Event]) -> None:
        over = next((e for e in events if isinstance(e, HandOver)), None)
        if over is not None:
            ended = next((e for e in events if isinstance(e, GameOver)), None)
            results.append(_result(game, game_id, over, ended, lambda name: name))

    outcome = replay(document, seen)
    return results, "" if outcome.fault is None else outcome.fault.told()


def rating_entry(place: int, record: Record) -> m.RatingEntry:
    """A player's line of the ladder as the protocol carries it."""
    return m.RatingEntry(
        name=record.name[:40],
        place=place,
        rating=round(record.rating),
        mu=round(record.mu),
        sigma=round(record.sigma),
        hands=record.hands,
        games=record.games,
        wins=record.wins,
        places=record.places[:12],
        points=record.points,
        offices=tuple(
            m.Office(title=title[:40], held=held, kept=record.kept.get(title, 0))
            for title, held in sorted(record.held.items())
        )[:16],
        provisional=not record.established,
    )


class Ratings:
    """The ladder in memory, and (once `attach`ed to the journal's database) on disk."""

    def __init__(self) -> None:
        self.ladder = Ladder()
        self.db: sqlite3.Connection | None = None

    def attach(self, db: sqlite3.Connection) -> list[str]:
        """Load the ladder from the journal's database (making its tables); the problems
        found (a row that is not a record is left out, with one line)."""
        db.executescript(SCHEMA)
        problems, records = [], []
        for player, text in db.execute("SELECT id, record FROM players"):
            try:
                records.append(Record.from_json(str(player), str(text)))
            except (ValueError, TypeError) as exc:
                problems.append(f"the ladder's row for {player!r} is left out: {exc}")
        counted = {
            str(game): int(last)
            # (oldest first: the first let go once `KEPT_GAMES` are counted)
            for game, last in db.execute("SELECT game, last_hand FROM rated_games ORDER BY rowid")
        }
        self.ladder = Ladder(records, counted)
        self.db = db
        for line in problems:
            log.error("%s", line)
        return problems

    def changes(self, result: HandResult) -> list[Record] | None:
        return self.ladder.after(result)

    def write(self, result: HandResult, records: Sequence[Record]) -> None:
        """Write the hand's records and mark it counted, inside the caller's transaction
        (the one that writes the journal row ending the hand)."""
        if self.db is None:
            return
        self.db.executemany(
            "INSERT INTO players (id, record) VALUES (?, ?) "
            "ON CONFLICT(id) DO UPDATE SET record = excluded.record",
            [(r.player, r.to_json()) for r in records],
        )
        self.db.execute(
            "INSERT INTO rated_games (game, last_hand) VALUES (?, ?) "
            "ON CONFLICT(game) DO UPDATE SET last_hand = excluded.last_hand",
            (result.game, result.hand),
        )
        if result.game not in self.ladder.counted:  # (a new game: the oldest beyond go)
            self.db.execute(
                "DELETE FROM rated_games WHERE rowid <= (SELECT max(rowid) FROM rated_games) - ?",
                (KEPT_GAMES,),
            )

    def take(self, result: HandResult, records: Sequence[Record]) -> None:
        """The write is committed: the ladder in memory follows."""
        self.ladder.take(result, records)

    def answer(self, ask: m.Leaderboard) -> m.Ratings:
        """The answer to `leaderboard`: a page of the ladder, or the players named."""
        if ask.players:
            found = self.ladder.named(ask.players)[: len(ask.players)]
        else:
            found = self.ladder.board(ask.start, ask.count)
        return m.Ratings(
            start=ask.start if not ask.players else 0,
            total=len(self.ladder),
            entries=tuple(rating_entry(place, record) for place, record in found),
            players=ask.players,
        )


def carry(damaged: Path, into: Path) -> int:
    """After the journal was found damaged: copy the ladder's rows SQLite can still read
    from `damaged` into the new journal `into` (a row of a damaged page is lost, the
    rest kept; a row that is not a record is left out when the ladder is loaded); the
    number of players carried."""
    source = sqlite3.connect(damaged, isolation_level=None)
    source.text_factory = as_text
    target = sqlite3.connect(into, isolation_level=None)
    carried = 0
    try:
        target.executescript(SCHEMA)
        for table, columns in (("players", "id, record"), ("rated_games", "game, last_hand")):
            try:
                top = source.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
            except sqlite3.DatabaseError:
                continue  # no such table (a journal from before the ladder), or unreadable
            for low in range(0, (top if isinstance(top, int) else 0) + 1, 64):
                query = f"SELECT {columns} FROM {table} WHERE rowid BETWEEN ? AND ?"
                try:
                    rows = source.execute(query, (low, low + 63)).fetchall()
                except sqlite3.DatabaseError:
                    rows = []
                    for one in range(low, low + 64):
                        try:
                            rows += source.execute(query, (one, one)).fetchall()
                        except sqlite3.DatabaseError:
                            continue
                target.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?, ?)", rows)
                carried += len(rows) if table == "players" else 0
    finally:
        source.close()
        target.close()
    return carried

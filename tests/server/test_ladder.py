"""The ladder at a server (server/ladder.py): every finished hand counted once, written
with the journal row that ends it (both or neither), kept across a restart; and the
`leaderboard` request against hostile input."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from president.engine import find_preset
from president.engine.scoring import hand_points, titles_by_name
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.framing import encode_frame
from president.server.ratings import Finisher, HandResult, Ladder, Record

from ..harness.servers import client, running_server, table_of_bots
from ..harness.waiting import wait_for
from .test_hostile import answer_to, hello
from .test_robustness import still_serving

LONG = {"target": 100}  # one game that lasts: the hands are what is counted


def expected(finishes: list[list[str]], game: str = "") -> Ladder:
    """The ladder those finishes (one game of classic rules, nobody coming or going) give,
    worked out here from the rules' titles and points."""
    rules = find_preset("classic")
    ladder = Ladder()
    for number, finish in enumerate(finishes):
        held = titles_by_name(rules, finishes[number - 1]) if number else {}
        titles = titles_by_name(rules, finish)
        points = hand_points(rules, len(finish))
        result = HandResult(
            game=game,
            hand=number,
            finish=tuple(
                Finisher(name, name, held.get(name, ""), titles[name], points[place])
                for place, name in enumerate(finish)
            ),
        )
        records = ladder.after(result)
        assert records is not None
        ladder.take(result, records)
    return ladder


def same_records(live: dict[str, Record], want: dict[str, Record]) -> None:
    """The ladder keys players by key (their player id); `expected` by name."""
    by_name = {record.name: record for record in live.values()}
    assert len(by_name) == len(live) and set(by_name) == set(want)
    assert all(len(player) == 64 for player in live)  # rated under their keys' ids
    for player, record in want.items():
        got = by_name[player]
        assert (got.hands, got.places, got.points, got.held, got.kept) == (
            record.hands,
            record.places,
            record.points,
            record.held,
            record.kept,
        ), player
        assert (got.mu, got.sigma) == (record.mu, record.sigma), player


async def test_every_hand_is_counted_once_and_the_ladder_survives_a_restart(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        _, _, tasks = await table_of_bots(server, tmp_path, players=3, toggles=LONG)
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.game is not None and len(table.game.finishes) >= 4)
        for task in tasks:
            task.cancel()
    assert table.game is not None
    finishes = [list(f) for f in table.game.finishes]
    live = server.lobby.ratings.ladder.records
    same_records(live, expected(finishes).records)
    async with running_server(tmp_path, resume_seconds=60) as again:
        assert again.lobby.ratings.ladder.records == live
        assert again.lobby.ratings.ladder.counted == {table.game_id: len(finishes) - 1}
        assert again.lobby.tables["T"].game_id == table.game_id  # the game goes on as itself


async def test_two_people_on_one_key_play_on_and_their_game_survives_a_restart(
    tmp_path: Path,
) -> None:
    """Two friends on one computer account share its player key at one table (the host
    pass): the ladder raised "a player finished twice in one hand" at the first hand's
    end, the row ending the hand was never written, and the game could not be restored
    after a restart.  Now the hand is not rated for that key, the others are, and the
    game goes on and comes back."""
    from president.bots.strategies import RandomBot
    from president.client.headless import BotPlayer

    from ..harness.servers import bot_key

    async with running_server(tmp_path) as server:
        keys = {"cat": "shared", "dan": "shared", "eve": "eve"}
        clients = [
            await client(server, name, tmp_path, identity=bot_key(key))
            for name, key in keys.items()
        ]
        tasks = []
        for index, seated in enumerate(clients):
            seated.keep = True
            tasks.append(asyncio.create_task(seated.run()))
            BotPlayer(seated, RandomBot(__import__("random").Random(index)))
        await clients[0].send(
            m.CreateTable(name="T", preset="classic", toggles=LONG, seats=3, turn_seconds=30)
        )
        for seated in clients:
            await seated.send(m.Join(table="T"))
        await wait_for(lambda: all(c.model.slot is not None for c in clients))
        for seated in clients:
            await seated.send(m.Ready())
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.game is not None and len(table.game.finishes) >= 3)
        for task in tasks:
            task.cancel()
        game = table.game
        assert game is not None
        hands = len(game.finishes)
    by_name = {r.name: r for r in server.lobby.ratings.ladder.records.values()}
    assert set(by_name) == {"eve"} and by_name["eve"].hands == hands
    async with running_server(tmp_path, resume_seconds=60) as again:
        restored = again.lobby.tables["T"]  # (it raised "the hand in progress is not over")
        assert restored.game_id == table.game_id and restored.game is not None
        assert len(restored.game.finishes) == hands


async def test_a_fault_of_the_ladder_leaves_the_hand_unrated_and_the_game_whole(
    tmp_path: Path,
) -> None:
    """Whatever goes wrong in counting a hand (a bug of the ladder's), the row ending
    the hand is written and the game goes on: the game in memory has moved on, and a
    journal without that row would not rebuild it."""
    async with running_server(tmp_path) as server:

        def broken(result: HandResult) -> list[Record] | None:
            raise RuntimeError("a bug in the ladder")

        server.lobby.ratings.changes = broken  # type: ignore[method-assign]
        _, _, tasks = await table_of_bots(server, tmp_path, players=3, toggles=LONG)
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.game is not None and len(table.game.finishes) >= 2)
        for task in tasks:
            task.cancel()
        assert table.game is not None and not table.paused
        hands = len(table.game.finishes)
    assert not server.lobby.ratings.ladder.records
    async with running_server(tmp_path, resume_seconds=60) as again:
        restored = again.lobby.tables["T"].game
        assert restored is not None and len(restored.finishes) == hands


async def test_a_hand_whose_count_cannot_be_written_is_not_in_the_journal_either(
    tmp_path: Path,
) -> None:
    """The ladder's write fails at a hand's end: the journal row that ended the hand is
    rolled back with it and the table pauses; once writes work again both go in, once."""
    async with running_server(tmp_path) as server:
        ratings = server.lobby.ratings
        write, failing = ratings.write, True

        def fails(result: HandResult, records: list[Record]) -> None:
            write(result, records)  # (inside the transaction: rolled back by the raise)
            if failing:
                raise sqlite3.OperationalError("database or disk is full")

        ratings.write = fails  # type: ignore[assignment,method-assign]
        _, _, tasks = await table_of_bots(server, tmp_path, players=3, toggles=LONG)
        table = server.lobby.tables["T"]
        table.settings.journal_retry_seconds = 0.05
        await wait_for(lambda: table.paused)
        assert server.journal is not None and table.log_id is not None
        entries = server.journal.entries(table.log_id)
        written = max(e.body.get("number", 0) for e in entries)
        assert written < table.number, "the row ending the hand is in the journal"
        assert not ratings.ladder.records and not ratings.ladder.counted
        stored = server.journal.db.execute("SELECT count(*) FROM players").fetchone()[0]
        assert stored == 0
        failing = False
        await wait_for(lambda: not table.paused)
        game = table.game
        assert game is not None
        await wait_for(lambda: len(game.finishes) >= 3)
        for task in tasks:
            task.cancel()
    finishes = [list(f) for f in game.finishes]
    same_records(server.lobby.ratings.ladder.records, expected(finishes).records)
    async with running_server(tmp_path, resume_seconds=60) as again:
        same_records(again.lobby.ratings.ladder.records, expected(finishes).records)


async def test_the_lobby_answers_a_page_of_the_ladder_or_the_players_named(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        ladder = server.lobby.ratings.ladder
        for n in range(30):
            result = HandResult(
                game=f"g{n}",
                hand=0,
                finish=tuple(Finisher(f"p{n}-{k}", f"p{n}-{k}", "", "", 0) for k in range(3)),
            )
            records = ladder.after(result)
            assert records is not None
            ladder.take(result, records)
        ann = await client(server, "ann", tmp_path)
        await ann.send(m.Leaderboard(start=5, count=10))
        page = await asyncio.wait_for(ann.link.receive(), 30)
        assert isinstance(page, m.Ratings) and page.total == 90 and page.start == 5
        assert [e.place for e in page.entries] == list(range(6, 16))
        assert [e.name for e in page.entries] == [
            ladder.records[p].name for p in ladder.order()[5:15]
        ]
        await ann.send(m.Leaderboard(players=("p3-0", "nobody")))
        named = await asyncio.wait_for(ann.link.receive(), 30)
        assert isinstance(named, m.Ratings) and [e.name for e in named.entries] == ["p3-0"]
        assert named.players == ("p3-0", "nobody") and named.entries[0].places == (1,)
        await ann.link.close()


def answered(said: list[m.Message]) -> bool:
    """The request had its answer: a refusal or a page."""
    return any(isinstance(x, (m.Error, m.Ratings)) for x in said)


async def test_hostile_leaderboard_requests_are_refused_in_one_line_and_the_largest_answer_fits(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        ladder = server.lobby.ratings.ladder
        titles = ["President", "Vice-President", "Citizen", "Vice-Scum", "Scum", "Vice-Beggar"]
        for n in range(200):  # the longest names, every place and every office
            record = Record(
                player=f"{n:040d}",
                name=f"{n:040d}",
                hands=10**6,
                places=(10**5,) * 12,
                held={t: 10**5 for t in titles},
                kept={t: 10**4 for t in titles},
            )
            ladder.records[record.player] = record
        ladder._order = None
        answer = server.lobby.ratings.answer(m.Leaderboard(start=0, count=50))
        assert len(answer.entries) == 50
        assert len(pack(answer.to_wire())) < 64 * 1024  # it fits one frame
        hostile: list[tuple[dict[str, object], str]] = [
            ({"count": 10**9}, "outside 1..50"),
            ({"count": 0}, "outside 1..50"),
            ({"start": 2**40}, "outside"),
            ({"start": -1}, "outside"),
            ({"count": "all"}, "expected a whole number"),
            ({"players": [f"p{i}" for i in range(13)]}, "13 items"),
            ({"players": ["x" * 41]}, "outside 1..40"),
            ({"players": "ann"}, "expected a list"),
            ({"everyone": True}, "unexpected field"),
        ]
        # each on a connection of its own, all at once: each answer is followed by half a
        # second of quiet (nothing more comes), which one after another took 4.5 s
        answers = await asyncio.gather(
            *(
                answer_to(
                    server.port,
                    hello(name=f"raw{n}") + encode_frame(pack({"type": "leaderboard", **bad})),
                    answered,
                )
                for n, (bad, _) in enumerate(hostile)
            )
        )
        for (bad, words), said in zip(hostile, answers, strict=True):
            errors = [s for s in said if isinstance(s, m.Error)]
            assert len(errors) == 1 and errors[0].code == "bad_message", (bad, said)
            assert words in errors[0].message and "\n" not in errors[0].message, bad
            assert not any(isinstance(s, m.Ratings) for s in said)
        far = encode_frame(pack({"type": "leaderboard", "start": 2**31}))
        said = await answer_to(server.port, hello() + far, answered)
        pages = [s for s in said if isinstance(s, m.Ratings)]
        assert len(pages) == 1 and pages[0].entries == () and pages[0].total == 200
        await still_serving(server, tmp_path)


async def test_a_damaged_journal_keeps_the_ladder_rows_it_can_read(tmp_path: Path) -> None:
    """The ladder lives in the journal's file: when a damaged journal is set aside and
    its readable rows carried into a new one, the ladder's rows come along."""
    async with running_server(tmp_path) as server:
        _, _, tasks = await table_of_bots(server, tmp_path, players=3, toggles=LONG)
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.game is not None and len(table.game.finishes) >= 2)
        for task in tasks:
            task.cancel()
    live = server.lobby.ratings.ladder.records
    journal = tmp_path / "data" / "tables.sqlite3"
    db = sqlite3.connect(journal)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (events,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()
    (players,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'players'").fetchone()
    db.close()
    assert events != players
    raw = bytearray(journal.read_bytes())
    raw[(events - 1) * 4096 : events * 4096] = b"\xa5" * 4096  # the events' root page
    journal.write_bytes(bytes(raw))
    async with running_server(tmp_path, resume_seconds=60) as again:
        said = " ".join(again.restore_problems)
        assert "is damaged" in said and "the ladder's 3 player(s) could be read" in said, said
        assert again.lobby.ratings.ladder.records == live

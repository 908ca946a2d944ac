"""Protocol 17: a game's record for its players once it has ended (`record_ask`), so that
a player at a server's table may ask "was it the cards or me?" as `president play`'s
player does (a review pass: a server player had no way to the record of the game they
had just played; only the host's `records/` held it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from president.client.connection import Client
from president.engine.record import loads, replay
from president.protocol import messages as m
from president.server import lobby

from ..harness.servers import bot_key, client, running_server, table_of_bots
from ..harness.waiting import wait_for


async def asked(who: Client, table: str = "T") -> m.Error | tuple[str, str, bytes]:
    """What the server answers `who` asking for the record of `table`'s last game: the
    record, whole, or its refusal."""
    who.game_record, heard = None, who.errors_heard
    await who.send(m.RecordAsk(table=table))
    await wait_for(lambda: who.game_record is not None or who.errors_heard > heard, 20)
    return who.game_record if who.game_record is not None else who.errors[-1]


async def test_a_games_players_may_have_its_record_and_nobody_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby, "RECORD_EVERY", 0.0)  # (asked again and again here)
    async with running_server(tmp_path, seed_seconds=120) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path, toggles={"target": 2})
        stranger = await client(server, "eve", tmp_path, identity=bot_key("eve"))
        tasks.append(asyncio.create_task(stranger.run()))
        refused = await asked(clients[0])  # (the game is on: none has ended here)
        assert isinstance(refused, m.Error) and refused.code == "not_allowed"
        assert refused.message == "no game has ended at T since the server started"
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        await wait_for(lambda: len(server.records) == 1)
        kept = Path(server.records[0]).read_bytes()
        for player in clients:  # each player: the host's very record
            assert await asked(player) == ("T", Path(server.records[0]).name, kept)
        document = loads(kept)
        assert replay(document).ok and set(document["players"]) == {"bot0", "bot1", "bot2", "bot3"}
        # someone who did not play it, a table that is not there
        refused = await asked(stranger)
        assert isinstance(refused, m.Error) and refused.code == "not_allowed"
        assert refused.message == (
            "only a game's players may have its record: none of the games that ended at T was yours"
        )
        refused = await asked(stranger, "Nowhere")
        assert isinstance(refused, m.Error) and refused.code == "no_such_table"
        # the table gone (everyone left it): its players may still have the record (a
        # hostile pass: "no such table" to a player back from the lobby)
        await server.lobby.remove("T", "a test: everyone left")
        assert await asked(clients[1]) == ("T", Path(server.records[0]).name, kept)
        refused = await asked(stranger)
        assert isinstance(refused, m.Error) and refused.code == "not_allowed"
        # another table made under the name, and a game finished there by others: the
        # first game's players still have theirs, its own players theirs (a hostile pass:
        # a guest's game at a table remade under the name took the first record away)
        others, others_bots, more = await table_of_bots(
            server, tmp_path, toggles={"target": 1}, names=["bot4", "bot5", "bot6", "bot7"]
        )
        tasks += more
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in others_bots)), 60)
        await wait_for(lambda: len(server.records) == 2)
        assert await asked(clients[1]) == ("T", Path(server.records[0]).name, kept)
        second = Path(server.records[1]).read_bytes()
        assert await asked(others[0]) == ("T", Path(server.records[1]).name, second)
        await server.lobby.remove("T", "a test: everyone left again")  # (both kept)
        assert await asked(clients[2]) == ("T", Path(server.records[0]).name, kept)
        assert await asked(others[0]) == ("T", Path(server.records[1]).name, second)
        # the record gone from the disk (past --max-records): said, never no answer
        for emptied in (b"", None):
            if emptied is None:
                Path(server.records[0]).unlink()
            else:
                Path(server.records[0]).write_bytes(emptied)
            refused = await asked(clients[1])
            assert isinstance(refused, m.Error) and "not kept any more" in refused.message
        for task in tasks:
            task.cancel()


async def test_a_host_may_keep_the_records_to_the_server(tmp_path: Path) -> None:
    async with running_server(tmp_path, seed_seconds=120, share_records=False) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path, toggles={"target": 1})
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        refused = await asked(clients[0])
        assert isinstance(refused, m.Error) and refused.code == "not_allowed"
        assert "keeps its game records to itself (--private-records)" in refused.message
        for task in tasks:
            task.cancel()


async def test_who_left_the_game_may_have_its_record_and_who_sat_in_at_its_end_not(
    tmp_path: Path,
) -> None:
    """One who left before its end played it too (by the key they played with); one who
    sat down in the chair so freed during the last hand, dealt no hand of it, did not (a
    hostile pass had every hand so, as a watcher who sat a few seconds)."""
    async with running_server(tmp_path, seed_seconds=120) as server:
        clients, _bots, tasks = await table_of_bots(server, tmp_path, players=4)
        eve = await client(server, "eve", tmp_path, identity=bot_key("eve"))
        tasks.append(asyncio.create_task(eve.run()))
        await wait_for(lambda: all(c.model.public is not None for c in clients))
        await clients[0].send(m.Leave())
        table = server.lobby.tables["T"]
        game = table.game
        assert game is not None
        await wait_for(lambda: game.hand >= 1 and "bot0" not in game.seating, 60)
        await eve.send(m.Join(table="T"))  # (the chair bot0 left: eve plays from the next hand)
        await wait_for(lambda: eve.model.slot is not None, 30)
        table.finish()  # (the game stopped here: its record written, as at a game's end)
        await wait_for(lambda: len(server.records) == 1)
        got = await asked(clients[0])
        assert isinstance(got, tuple) and got[2] == Path(server.records[0]).read_bytes()
        refused = await asked(eve)
        assert isinstance(refused, m.Error) and refused.code == "not_allowed", refused
        for task in tasks:
            task.cancel()


async def test_one_key_is_sent_one_record_every_few_seconds(tmp_path: Path) -> None:
    """A hostile pass: 48 connections under one player's key pulled 17 MB/s of records
    beside a friend's table, whose bots' events fell from 700 to 300 a second; a player
    asks once a game."""
    async with running_server(tmp_path, seed_seconds=120) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path, toggles={"target": 1})
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        again = await client(server, "bot0", tmp_path, identity=bot_key("bot0"))  # (its key)
        tasks.append(asyncio.create_task(again.run()))
        assert isinstance(await asked(clients[0]), tuple)
        refused = await asked(again)
        assert isinstance(refused, m.Error) and refused.code == "rate_limited", refused
        assert refused.message.startswith(
            f"one record every {lobby.RECORD_EVERY:g} s: ask again in "
        )
        assert isinstance(await asked(clients[1]), tuple)  # (another player's key)
        for task in tasks:
            task.cancel()


async def test_who_left_before_a_restart_may_still_have_the_record(tmp_path: Path) -> None:
    """Who was dealt a hand of the game was kept in memory alone: one who left it, the
    server then restarted mid-game, was refused its record at its end (only the keys of
    the hand in play were known again).  Each deal's keys are journaled."""
    async with running_server(tmp_path, seed_seconds=120) as server:
        clients, _bots, tasks = await table_of_bots(server, tmp_path, players=4)
        await wait_for(lambda: all(c.model.public is not None for c in clients))
        await clients[0].send(m.Leave())
        game = server.lobby.tables["T"].game
        assert game is not None
        await wait_for(lambda: game.hand >= 1 and "bot0" not in game.seating, 60)
        for task in tasks:
            task.cancel()
    async with running_server(tmp_path, seed_seconds=120) as again:
        table = again.lobby.tables["T"]
        assert table.status == "playing"
        table.finish()  # (the game stopped here: its record written, as at a game's end)
        await wait_for(lambda: len(again.records) == 1)
        bot0 = await client(again, "bot0", tmp_path, identity=bot_key("bot0"))
        reading = asyncio.create_task(bot0.run())
        got = await asked(bot0)
        assert isinstance(got, tuple) and got[2] == Path(again.records[0]).read_bytes(), got
        reading.cancel()
        await bot0.link.close()


async def test_a_long_record_goes_packed_to_version_18_and_raw_to_17(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long game of twelve passed the 192 KiB the pages hold after some 11 hands, and
    its players were refused its record.  A connection of version 18 is sent it packed
    (zlib), in fewer pages; one of 17 gets the record as it is, or, too long, the
    refusal it got before."""
    monkeypatch.setattr(lobby, "RECORD_EVERY", 0.0)
    async with running_server(tmp_path, seed_seconds=120) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path, toggles={"target": 1})
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        await wait_for(lambda: len(server.records) == 1)
        path = Path(server.records[0])
        long = path.read_bytes().replace(b"{", b"{" + b" " * 4000)  # (JSON all the same)
        assert len(long) > m.RECORD_PAGE * m.RECORD_PAGES
        path.write_bytes(long)
        packings: list[Path] = []
        read_and_pack = lobby._read_and_pack

        def counted(path: Path) -> tuple[int, bytes]:
            packings.append(path)
            return read_and_pack(path)

        monkeypatch.setattr(lobby, "_read_and_pack", counted)
        clients[0].keep = True
        assert await asked(clients[0]) == ("T", path.name, long)
        pages = [x for x in clients[0].received if isinstance(x, m.GameRecord)]
        assert all(page.packed for page in pages) and len(pages) < 10
        # packed once for all its players (a hostile pass: 50 keys at once, each ask
        # packing it again, took 2.1 s of CPU); again once the file is another
        assert await asked(clients[2]) == ("T", path.name, long) and len(packings) == 1
        longer = long + b" " * 10
        path.write_bytes(longer)
        assert await asked(clients[2]) == ("T", path.name, longer) and len(packings) == 2
        path.write_bytes(long)
        monkeypatch.setattr(m, "VERSIONS", tuple(v for v in m.VERSIONS if v <= 17))
        old = await client(server, "bot1", tmp_path, identity=bot_key("bot1"))
        monkeypatch.undo()
        monkeypatch.setattr(lobby, "RECORD_EVERY", 0.0)
        assert old.link.conn.version == 17
        old.keep = True
        tasks.append(asyncio.create_task(old.run()))
        refused = await asked(old)
        assert isinstance(refused, m.Error) and "too long to send" in refused.message
        path.write_bytes(long[: m.RECORD_PAGE * 3])  # (cut: a record of 3 pages)
        assert await asked(old) == ("T", path.name, long[: m.RECORD_PAGE * 3])
        assert not any(x.packed for x in old.received if isinstance(x, m.GameRecord))
        for task in tasks:
            task.cancel()


async def test_a_game_over_before_a_restart_is_still_asked_of_after_it(tmp_path: Path) -> None:
    """A pass: the server restarted after a game's end, and `v` at its standings, still on
    the screen, was told "no game has ended at T since the server started".  The journal's
    end of the game keeps its record and who may have it."""
    async with running_server(tmp_path, seed_seconds=120) as server:
        _clients, bots, tasks = await table_of_bots(server, tmp_path, toggles={"target": 1})
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        await wait_for(lambda: len(server.records) == 1)
        kept = Path(server.records[0])
        for task in tasks:
            task.cancel()
    async with running_server(tmp_path, seed_seconds=120) as again:
        assert again.lobby.tables["T"].status == "finished"
        bot2 = await client(again, "bot2", tmp_path, identity=bot_key("bot2"))
        eve = await client(again, "eve", tmp_path, identity=bot_key("eve"))
        reading = [asyncio.create_task(c.run()) for c in (bot2, eve)]
        assert await asked(bot2) == ("T", kept.name, kept.read_bytes())
        refused = await asked(eve)
        assert isinstance(refused, m.Error) and refused.code == "not_allowed", refused
        for task in reading:
            task.cancel()


async def test_a_newer_game_at_a_table_leaves_the_last_ones_record_to_its_players() -> None:
    """A table's next game ends: the one before stays its players' (asked by the table's
    name, each player has the latest game they played there)."""
    from types import SimpleNamespace

    from ..harness.servers import FAST

    hall = lobby.Lobby(FAST, lambda table, record: "second.json")
    table = SimpleNamespace(record_file="first.json", record_keys=frozenset({"ann", "bob"}))
    hall.tables["T"] = table  # type: ignore[assignment]
    table.record_file = hall.on_record("T", {})  # (what `Table.finish` does)
    table.record_keys = frozenset({"bob", "cy"})
    assert hall.records_of("T") == [
        ("second.json", frozenset({"bob", "cy"})),
        ("first.json", frozenset({"ann", "bob"})),
    ]

"""Protocol 17: a game's record for its players once it has ended (`record_ask`), so that
a player at a server's table may ask "was it the cards or me?" as `president play`'s
player does (a review pass: a server player had no way to the record of the game they
had just played; only the host's `records/` held it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president.client.connection import Client
from president.engine.record import loads, replay
from president.protocol import messages as m

from ..harness.servers import bot_key, client, running_server, table_of_bots
from ..harness.waiting import wait_for


async def asked(who: Client, table: str = "T") -> m.Error | tuple[str, str, bytes]:
    """What the server answers `who` asking for the record of `table`'s last game: the
    record, whole, or its refusal."""
    who.game_record, heard = None, who.errors_heard
    await who.send(m.RecordAsk(table=table))
    await wait_for(lambda: who.game_record is not None or who.errors_heard > heard, 20)
    return who.game_record if who.game_record is not None else who.errors[-1]


async def test_a_games_players_may_have_its_record_and_nobody_else(tmp_path: Path) -> None:
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
            "only the players of the game that last ended at T may have its record"
        )
        refused = await asked(stranger, "Nowhere")
        assert isinstance(refused, m.Error) and refused.code == "no_such_table"
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


async def test_a_player_who_left_the_game_may_have_its_record(tmp_path: Path) -> None:
    """One who left before its end played it too (by the key they played with)."""
    async with running_server(tmp_path, seed_seconds=120) as server:
        clients, _bots, tasks = await table_of_bots(server, tmp_path, players=5)
        await wait_for(lambda: all(c.model.public is not None for c in clients))
        await clients[0].send(m.Leave())
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.left_keys, 60)  # (gone from the game, between hands)
        table.finish()  # (the game stopped here: its record written, as at a game's end)
        await wait_for(lambda: len(server.records) == 1)
        got = await asked(clients[0])
        assert isinstance(got, tuple) and got[2] == Path(server.records[0]).read_bytes()
        for task in tasks:
            task.cancel()

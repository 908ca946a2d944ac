"""What a guest's endless games leave on the server is bounded (a hostile pass: its own
bots finishing a game every few seconds at three tables grew the records folder, the
ladder's counted games in memory and its `rated_games` rows, without end; a full disk
pauses every table)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from president.server import ladder as ladder_module
from president.server import ratings
from president.server.ladder import Ratings
from president.server.ratings import Finisher, HandResult, Ladder

from ..harness.servers import running_server


def result(game: str, hand: int = 0) -> HandResult:
    return HandResult(game, hand, tuple(Finisher(p, p, "", "", 0) for p in ("a", "b", "c")))


def test_the_ladder_keeps_the_newest_games_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings, "KEPT_GAMES", 3)
    monkeypatch.setattr(ladder_module, "KEPT_GAMES", 3)
    store = Ratings()
    store.attach(sqlite3.connect(":memory:", isolation_level=None))
    for n in range(6):
        for hand in range(2):  # (a game's second hand: the same game, nothing let go)
            found = result(f"g{n}", hand)
            records = store.changes(found)
            assert records is not None
            store.write(found, records)
            store.take(found, records)
    assert list(store.ladder.counted) == ["g3", "g4", "g5"]
    assert store.db is not None
    rows = [g for (g,) in store.db.execute("SELECT game FROM rated_games ORDER BY rowid")]
    assert rows == ["g3", "g4", "g5"]
    assert store.changes(result("g5", 1)) is None  # a counted hand is still counted once
    plain = Ladder()
    for n in range(5):
        plain.take(result(f"h{n}"), [])
    assert list(plain.counted) == ["h2", "h3", "h4"]


async def test_past_max_records_the_oldest_records_go(tmp_path: Path) -> None:
    async with running_server(tmp_path, max_records=3) as server:
        folder = server.storage.records
        for n in range(3):  # (from earlier runs: their names begin with their time)
            (folder / f"2020010{n + 1}-000000-old.json").write_text("{}")
        server.write_record("T", {"a": 1})
        kept = sorted(p.name for p in folder.iterdir())
        assert len(kept) == 3 and kept[0] == "20200102-000000-old.json", kept
        server.write_record("T", {"a": 2})
        server.write_record("T", {"a": 3})
        kept = sorted(p.name for p in folder.iterdir())
        assert len(kept) == 3 and not any("old" in name for name in kept), kept
        assert len(server.records) == 3


async def test_a_records_name_keeps_its_tables_letters_of_any_alphabet(tmp_path: Path) -> None:
    """A newcomer's pass: a table named 金曜日の大富豪 had its records named "…-_.json"."""
    async with running_server(tmp_path) as server:
        server.write_record("金曜日の大富豪", {"a": 1})
        server.write_record("friday night!", {"a": 2})
        names = sorted(p.name.split("-", 2)[2] for p in server.storage.records.iterdir())
        assert names == ["friday_night.json", "金曜日の大富豪.json"], names

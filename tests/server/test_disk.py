"""The data directory against careless hosts and other local users: one server at a time,
private files, no symlink followed, no secret in the journal, an edited row refused."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sqlite3
import stat
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from president.client.connection import Client, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.server import storage
from president.server.app import Server
from president.server.config import ServerConfig
from president.server.wal import check_wal

from ..harness.ports import free_port
from ..harness.processes import ServerProcess, president
from ..harness.servers import (
    FAST,
    client,
    failing_journal,
    round_trip,
    running_server,
    table_of_bots,
    tables_of_bots,
    watching,
)
from ..harness.waiting import wait_for


def server_command(data: Path, port: int) -> subprocess.CompletedProcess[str]:
    """`president server` run to its end (a refusal), or a TimeoutExpired if it serves."""
    return president(
        *("server", "--host", "127.0.0.1", "--port", str(port), "--data", str(data)), timeout=20
    )


def state_of(folder: Path) -> dict[str, tuple[str, int, int]]:
    """Every file and folder under `folder`: (sha-256, mtime, mode)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        found[str(path.relative_to(folder))] = (digest, info.st_mtime_ns, info.st_mode)
    return found


def refused_in_one_line(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, out
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


@pytest.mark.slow
async def test_a_second_server_on_the_same_data_dir_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = await ServerProcess.started(data, 0)
    proc, port = server.proc, server.port
    try:
        host = await asyncio.wait_for(client_of(port, "ann", tmp_path), 30)
        host.keep = True
        task = asyncio.create_task(host.run())
        await host.send(m.CreateTable(name="Friday", preset="classic", toggles={}, seats=3))
        await host.send(m.Join(table="Friday"))
        await wait_for(lambda: host.model.slot is not None)
        await round_trip(host)  # all it sent is handled (and written)
        before = state_of(data)
        for other_port in (port, 0):  # the same port, and one of its own
            line = refused_in_one_line(await asyncio.to_thread(server_command, data, other_port))
            assert "in use by another president server" in line
            assert f"process {proc.pid}" in line and f"port {port}" in line
        assert state_of(data) == before
        # its lock file removed by hand (it stays when a server stops, and looks stale):
        # still refused, by the lock on the directory itself (a host's pass ran two)
        (data / "lock").unlink()
        line = refused_in_one_line(await asyncio.to_thread(server_command, data, 0))
        assert "in use by another president server" in line, line
        assert proc.poll() is None
        newcomer = await asyncio.wait_for(client_of(port, "bob", tmp_path), 30)
        listing = asyncio.create_task(newcomer.run())
        await newcomer.send(m.ListTables())
        await wait_for(lambda: newcomer.tables is not None and len(newcomer.tables) == 1)
        assert newcomer.tables is not None and newcomer.tables[0].name == "Friday"
        task.cancel()
        listing.cancel()
    finally:
        server.stop(signal.SIGTERM)


async def client_of(port: int, name: str, tmp_path: Path) -> Client:
    link = await connect(f"127.0.0.1:{port}", name, known=KnownServers(tmp_path / f"k-{name}"))
    return Client(link)


async def test_the_data_dir_is_0700_and_every_file_in_it_0600(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        _clients, bots, tasks = await table_of_bots(server, tmp_path, toggles={"target": 1})
        await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)
        await wait_for(lambda: len(server.records) == 1)
        for t in tasks:
            t.cancel()
        data = tmp_path / "data"
        files = [p for p in data.rglob("*") if p.is_file()]
        names = {p.name for p in files}
        assert {"cert.pem", "key.pem", "journal.key", "lock", "tables.sqlite3"} <= names
        assert "tables.sqlite3-wal" in names and len(list((data / "records").iterdir())) == 1
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for path in data.rglob("*"):
        want = 0o700 if path.is_dir() else 0o600
        assert stat.S_IMODE(path.lstat().st_mode) == want, path


@pytest.mark.slow
async def test_a_data_dir_open_to_others_or_not_ours_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    (data / "notes.txt").write_text("read by anyone: maybe already")
    line = refused_in_one_line(await asyncio.to_thread(server_command, data, 0))
    assert f"chmod 700 {data}" in line
    (data / "notes.txt").unlink()
    data.chmod(0o775)  # empty, but another could have put something there meanwhile
    line = refused_in_one_line(await asyncio.to_thread(server_command, data, 0))
    assert f"chmod 700 {data}" in line and stat.S_IMODE(data.stat().st_mode) == 0o775
    data.chmod(0o700)
    (data / "tables.sqlite3").write_bytes(b"")
    (data / "tables.sqlite3").chmod(0o644)
    line = refused_in_one_line(await asyncio.to_thread(server_command, data, 0))
    assert f"chmod 600 {data / 'tables.sqlite3'}" in line
    (data / "tables.sqlite3").unlink()
    if os.geteuid() == 0:  # root can make a directory another user's
        os.chown(data, 4242, 4242)
        before = state_of(data)
        line = refused_in_one_line(await asyncio.to_thread(server_command, data, 0))
        assert "belongs to user 4242" in line
        assert state_of(data) == before  # its key and cert are not used, nor made
    shared = tmp_path / "shared"  # a folder others may write in, on the way to it
    shared.mkdir()
    shared.chmod(0o777)
    line = refused_in_one_line(await asyncio.to_thread(server_command, shared / "data", 0))
    assert "which is writable by other users (mode 777)" in line, line


@pytest.mark.slow
async def test_an_empty_data_dir_made_by_mkdir_is_made_private_not_refused(
    tmp_path: Path,
) -> None:
    """A host's plain `mkdir` (0755 under the usual umask), still empty: the server makes
    it 0700 and says so, where it refused to start."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    server = await ServerProcess.started(data, 0)
    try:
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        assert "made it private (chmod 700): it was empty and open to other users (mode 755)" in (
            server.head
        ), server.head
    finally:
        assert server.stop(signal.SIGTERM) == 0


async def test_a_planted_symlink_is_not_written_through(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    (data / ".key.pem.tmp").symlink_to(victim)
    async with running_server(tmp_path):
        pass
    assert victim.read_bytes() == b"precious"
    key = data / "key.pem"
    assert not key.is_symlink() and b"PRIVATE KEY" in key.read_bytes()
    # a symlink in the key's place is refused in one line, not used
    key.unlink()
    key.symlink_to(victim)
    with pytest.raises(storage.StorageError, match="symlink"):
        async with running_server(tmp_path):
            pass
    assert victim.read_bytes() == b"precious"


async def test_the_journal_holds_no_table_password_and_no_seat_token(tmp_path: Path) -> None:
    password = "hunter2-correct-horse"
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path)
        task = asyncio.create_task(ann.run())
        await ann.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=3, password=password)
        )
        await ann.send(m.Join(table="T", password=password))
        await wait_for(lambda: ann.model.slot is not None)
        token = ann.model.token
        task.cancel()
        await ann.link.close()
        journal = b"".join(
            p.read_bytes() for p in (tmp_path / "data").glob("tables.sqlite3*") if p.is_file()
        )
        assert password.encode() not in journal
        assert token.hex().encode() not in journal and token not in journal
    # the hashes are enough to come back (no wait after a wrong password: that is tested
    # in test_hostile_guests.py)
    async with running_server(tmp_path, password_wait=0.0) as again:
        ann = await client(again, "ann", tmp_path)
        task = asyncio.create_task(ann.run())
        await ann.send(m.Resume(table="T", seat=0, token=token))
        await wait_for(lambda: ann.model.slot == 0)
        bob = await client(again, "bob", tmp_path)
        bob_task = asyncio.create_task(bob.run())
        await bob.send(m.Join(table="T", password="wrong"))
        await wait_for(lambda: bool(bob.errors))
        assert bob.errors[0].code == "wrong_password"
        await bob.send(m.Join(table="T", password=password))
        await wait_for(lambda: bob.model.slot is not None)
        task.cancel()
        bob_task.cancel()


def set_aside_alone(again: Server, bad: int) -> tuple[str, dict[str, Any]]:
    """After a restart: table "good" back, table "bad" (journal id `bad`) set aside for a
    row that is not authentic, in one line; that line and what was kept of the table."""
    assert list(again.lobby.tables) == ["good"]
    (line,) = again.restore_problems
    assert "'bad'" in line and "not authentic" in line and "set aside in" in line
    assert again.set_aside is not None
    kept: dict[str, Any] = json.loads((again.set_aside / f"table-{bad}.json").read_text())
    return line, kept


async def test_an_edited_deal_row_is_refused_and_its_table_set_aside(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.02) as server:
        await tables_of_bots(server, tmp_path, ("good", "bad"), hand=1)
    db = sqlite3.connect(tmp_path / "data" / "tables.sqlite3")
    ((bad,),) = db.execute("SELECT id FROM tables WHERE name = 'bad'").fetchall()
    ((row, body),) = db.execute(
        "SELECT id, body FROM events WHERE id = "
        "(SELECT max(id) FROM events WHERE table_id = ? AND kind = 'deal')",
        (bad,),
    ).fetchall()
    deal = json.loads(body)
    # one card changes hands: still a whole deck, so the engine alone would believe it
    deal["deal"][0][0], deal["deal"][1][0] = deal["deal"][1][0], deal["deal"][0][0]
    db.execute("DELETE FROM events WHERE table_id = ? AND id > ?", (bad, row))
    db.execute("UPDATE events SET body = ? WHERE id = ?", (json.dumps(deal), row))
    db.commit()
    db.close()
    async with running_server(tmp_path, bot_delay=0.0) as again:
        line, kept = set_aside_alone(again, bad)
        assert kept["table"] == "bad" and any(r["kind"] == "deal" for r in kept["rows"])
        assert "its game's record in" in line  # the game as far as it replays
        assert again.journal is not None
        assert again.journal.db.execute(
            "SELECT count(*) FROM events WHERE table_id = ?", (bad,)
        ).fetchone() == (0,)


async def test_a_row_of_bytes_that_are_not_text_sets_its_table_aside(tmp_path: Path) -> None:
    """A row whose kind is not UTF-8 (a disk's or an editor's damage SQLite's own check
    does not see: `quick_check` says ok): its table is set aside as for any row that is
    not authentic, the others come back, and the server starts."""
    async with running_server(tmp_path, bot_delay=0.02) as server:
        await tables_of_bots(server, tmp_path, ("good", "bad"), hand=1)
    db = sqlite3.connect(tmp_path / "data" / "tables.sqlite3")
    ((bad,),) = db.execute("SELECT id FROM tables WHERE name = 'bad'").fetchall()
    db.execute(
        "UPDATE events SET kind = CAST(X'6163FF' AS TEXT) WHERE id = "
        "(SELECT max(id) FROM events WHERE table_id = ?)",
        (bad,),
    )
    db.commit()
    assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    db.close()
    async with running_server(tmp_path, bot_delay=0.0) as again:
        _, kept = set_aside_alone(again, bad)
        assert kept["rows"][-1]["kind"] == "ac\ufffd"  # (the bytes that were not text, marked)


async def test_ready_toggles_do_not_grow_the_journal(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path)
        ann.keep = True
        task = asyncio.create_task(ann.run())
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await ann.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None)
        for i in range(100):
            await ann.send(m.Ready(ready=i % 2 == 0))
        await ann.send(m.Ready(ready=True))
        await round_trip(ann)  # every toggle handled
        assert server.lobby.tables["T"].slots[0].ready
        assert server.journal is not None
        ((rows,),) = server.journal.db.execute("SELECT count(*) FROM events").fetchall()
        assert rows <= 3, rows
        task.cancel()


def test_a_server_config_keeps_only_the_hash_of_its_password(tmp_path: Path) -> None:
    server = Server(ServerConfig(data_dir=tmp_path, password="letmein"))
    assert server.config.password is not None and "letmein" not in server.config.password


def last_number(c: Client, table: str = "T") -> int:
    """The number of the last thing this client was sent about the table."""
    numbers = [getattr(x, "number", 0) for x in c.received if getattr(x, "table", None) == table]
    return max(numbers, default=0)


async def test_a_journal_that_cannot_be_written_pauses_the_table_and_sends_nothing_unwritten(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_server(tmp_path) as server:
        clients, _, tasks = await table_of_bots(server, tmp_path, toggles={"target": 30})
        table = server.lobby.tables["T"]
        table.settings.journal_retry_seconds = 0.05
        await wait_for(lambda: table.game is not None and table.game.hand >= 1)
        journal = server.journal
        assert journal is not None and table.log_id is not None
        full = failing_journal(server)
        full(True)
        await wait_for(lambda: getattr(table, "paused", False))
        await asyncio.sleep(0.5)  # ten retries, and the bots and the timer would have moved
        written = max(e.body.get("number", 0) for e in journal.entries(table.log_id))
        number = table.number
        await asyncio.sleep(0.3)
        assert table.number == number, "the game moved on while paused"
        for c in clients:
            await round_trip(c)  # it has all the server sent it so far
            assert last_number(c) <= written, "a player was sent what is not in the journal"
            assert any("cannot write its journal" in e.message for e in c.errors), c.errors
        failures = [r for r in caplog.records if "cannot be written" in r.getMessage()]
        assert len(failures) == 1 and failures[0].exc_info is None  # once, no traceback
        # the disk has room again: the held entries are written, then sent, and play goes on
        full(False)
        await wait_for(lambda: not table.paused)
        await wait_for(lambda: table.number > number + 20)
        seen = [last_number(c) for c in clients]
        # and full again: a restart from the journal is exactly what the players last saw
        full(True)
        await wait_for(lambda: table.paused)
        for c in clients:
            await round_trip(c)  # it has all the server sent it (nothing more comes, paused)
        seen = [last_number(c) for c in clients]
        views = [[x for x in c.received if isinstance(x, m.TableView)][-1] for c in clients]
        for t in tasks:
            t.cancel()
    async with running_server(tmp_path, resume_seconds=60) as again:
        restored = again.lobby.tables["T"]
        assert restored.number == max(seen)
        last = max(views, key=lambda v: v.number)
        assert last.number == restored.number
        assert restored.view().game == last.game


async def two_tables(tmp_path: Path) -> None:
    """A table "quiet" with nobody playing, then a table "busy" of server bots in a long
    game, stopped mid-game: a journal of many pages, "quiet" in its first ones."""
    async with running_server(tmp_path, bot_delay=0.0) as server:
        host = await client(server, "host", tmp_path)
        await host.send(m.CreateTable(name="quiet", preset="classic", toggles={}, seats=3))
        await host.send(
            m.CreateTable(name="busy", preset="classic", toggles={"target": 99}, seats=3)
        )
        await wait_for(lambda: len(server.lobby.tables) == 2)
        await watching(server, tmp_path, "busy")
        for _ in range(3):
            await host.send(m.AddBot(table="busy", strategy="random"))
        busy = server.lobby.tables["busy"]
        await wait_for(lambda: busy.game is not None and busy.game.hand >= 5, 60)


@pytest.mark.slow
async def test_a_damaged_page_is_named_in_one_line_and_the_rest_comes_back(
    tmp_path: Path,
) -> None:
    await two_tables(tmp_path)
    data = tmp_path / "data"
    journal = data / "tables.sqlite3"
    assert (
        not (data / "tables.sqlite3-wal").exists()
        or not journal.with_name("tables.sqlite3-wal").stat().st_size
    )
    raw = bytearray(journal.read_bytes())
    pages = len(raw) // 4096
    assert pages > 8
    at = (pages * 3 // 4) * 4096 + 100  # a page of the busy game's rows, well inside
    raw[at : at + 600] = b"\xa5" * 600
    journal.write_bytes(bytes(raw))
    damaged = bytes(raw)
    server = await ServerProcess.started(data, 0)
    head = server.head
    try:
        problems = [line for line in head.splitlines() if "is damaged" in line]
        assert len(problems) == 1, head
        assert "tables.sqlite3 is damaged" in problems[0] and "kept in" in problems[0]
        assert "Traceback" not in head
        (kept,) = (data / "damaged").iterdir()
        assert (kept / "tables.sqlite3").read_bytes() == damaged
        assert "quiet" not in "".join(
            line for line in head.splitlines() if "could not be restored" in line
        )
        # the busy game lost rows with the page (set aside, with a record of it as far as
        # it replays), unless the page held only an index, which is rebuilt
        if "'busy' could not be restored" in head:
            assert "set aside in" in head and "its game's record in" in head
            assert len(list((data / "records").iterdir())) == 1
        else:
            assert "restored 2 tables" in head
        ann = await asyncio.wait_for(client_of(server.port, "ann", tmp_path), 30)
        task = asyncio.create_task(ann.run())
        await ann.send(m.ListTables())
        await wait_for(lambda: ann.tables is not None)
        assert ann.tables is not None and "quiet" in [t.name for t in ann.tables]
        task.cancel()
    finally:
        server.stop(signal.SIGTERM)
    assert "Traceback" not in server.errors()


def current_frames(wal: bytes) -> int:
    """How many frames at the start of a WAL belong to its present log (its salts)."""
    if len(wal) < 32:
        return 0
    salts, size, n = wal[16:24], 24 + int.from_bytes(wal[8:12], "big"), 0
    while 32 + (n + 1) * size <= len(wal) and wal[32 + n * size + 8 : 32 + n * size + 16] == salts:
        n += 1
    return n


async def damaged_wal(tmp_path: Path) -> tuple[Path, bytes, int]:
    """A data directory as a crash leaves it, copied while a busy table writes, with one
    frame of its WAL's present log damaged: (the copy, its WAL, the damaged frame)."""
    data = tmp_path / "data"
    copy = tmp_path / "copy"
    async with running_server(tmp_path, bot_delay=0.0) as server:
        host = await client(server, "host", tmp_path)
        await host.send(
            m.CreateTable(name="busy", preset="classic", toggles={"target": 99}, seats=3)
        )
        await watching(server, tmp_path, "busy")
        for _ in range(3):
            await host.send(m.AddBot(table="busy", strategy="random"))
        busy = server.lobby.tables["busy"]
        await wait_for(lambda: busy.game is not None and busy.game.hand >= 2, 60)
        # the files as a crash would leave them: copied while the server writes, at a
        # moment when the WAL holds a few commits since it last began again
        copy.mkdir(mode=0o700)
        frames = 0
        while frames < 6:
            await asyncio.sleep(0.01)
            async with busy.lock:
                wal = (data / "tables.sqlite3-wal").read_bytes()
                frames = current_frames(wal)
                if frames >= 6:
                    for name in ("cert.pem", "key.pem", "journal.key", "tables.sqlite3"):
                        if (data / name).exists():
                            (copy / name).write_bytes((data / name).read_bytes())
    for path in copy.iterdir():
        path.chmod(0o600)
    middle = 32 + (frames // 2) * (24 + 4096) + 24 + 2000
    damaged = wal[:middle] + bytes(b ^ 0xFF for b in wal[middle : middle + 8]) + wal[middle + 8 :]
    (copy / "tables.sqlite3-wal").write_bytes(damaged)
    (copy / "tables.sqlite3-wal").chmod(0o600)
    return copy, damaged, frames // 2 + 1


async def test_a_damaged_wal_is_found_said_and_kept(tmp_path: Path) -> None:
    """The frame whose checksum fails is found before SQLite would silently drop the
    writes after it; the server says so and keeps the WAL as it was."""
    copy, damaged, frame = await damaged_wal(tmp_path)
    found = check_wal(copy / "tables.sqlite3-wal")
    assert found is not None and found.frame == frame and found.writes >= 1, found
    async with Server(replace(FAST, data_dir=copy)) as server:
        problems = [line for line in server.restore_problems if "WAL" in line]
    assert len(problems) == 1, server.restore_problems
    assert f"the journal's WAL is damaged at frame {frame}" in problems[0]
    (kept,) = (copy / "damaged").iterdir()
    assert (kept / "tables.sqlite3-wal").read_bytes() == damaged


@pytest.mark.slow
async def test_a_damaged_wal_is_named_in_one_line_and_kept(tmp_path: Path) -> None:
    """The same, as `president server` prints it when it starts."""
    copy, damaged, frame = await damaged_wal(tmp_path)
    server = await ServerProcess.started(copy, 0)
    head = server.head
    try:
        problems = [line for line in head.splitlines() if "WAL" in line]
        assert len(problems) == 1, head
        assert f"the journal's WAL is damaged at frame {frame}" in problems[0]
        assert "write(s) cannot be read" in problems[0]
        (kept,) = (copy / "damaged").iterdir()
        assert (kept / "tables.sqlite3-wal").read_bytes() == damaged
    finally:
        server.stop(signal.SIGTERM)
    assert "Traceback" not in server.errors() + head


OLD_SCHEMA = """
CREATE TABLE tables (id INTEGER PRIMARY KEY, name TEXT NOT NULL, closed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_id INTEGER NOT NULL REFERENCES tables(id),
    kind TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX events_by_table ON events (table_id, id);
"""


async def test_a_journal_from_before_hashes_and_macs_comes_back_and_loses_its_secrets(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    token = os.urandom(32)
    password = "old-clear-password"
    empty = {"name": "", "strategy": "", "token": "", "ready": False, "leaving": False}
    ann = {"name": "ann", "strategy": "", "token": token.hex(), "ready": False, "leaving": False}
    settings = {"name": "T", "preset": "classic", "toggles": {}, "seats": 3}
    db = sqlite3.connect(data / "tables.sqlite3")
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO tables (name) VALUES ('T')")
    for kind, body in (
        ("table", {**settings, "password": password, "turn_seconds": 60}),
        ("seats", {"seats": [ann, empty, empty]}),
    ):
        db.execute(
            "INSERT INTO events (table_id, kind, body) VALUES (1, ?, ?)", (kind, json.dumps(body))
        )
    db.commit()
    db.close()
    (data / "tables.sqlite3").chmod(0o600)
    async with running_server(tmp_path) as server:
        assert server.restore_problems == [] and list(server.lobby.tables) == ["T"]
        journal = b"".join(p.read_bytes() for p in data.glob("tables.sqlite3*"))
        assert password.encode() not in journal and token.hex().encode() not in journal
        back = await client(server, "ann", tmp_path)
        task = asyncio.create_task(back.run())
        await back.send(m.Resume(table="T", seat=0, token=token))
        await wait_for(lambda: back.model.slot == 0)
        bob = await client(server, "bob", tmp_path)
        bob_task = asyncio.create_task(bob.run())
        await bob.send(m.Join(table="T", password=password))
        await wait_for(lambda: bob.model.slot is not None)
        task.cancel()
        bob_task.cancel()


async def test_a_tables_log_keeps_only_its_last_game_once_the_one_before_is_recorded(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as server:
        host = await client(server, "host", tmp_path)
        await host.send(m.CreateTable(name="T", preset="classic", toggles={"target": 1}, seats=3))
        await watching(server, tmp_path, "T")
        for _ in range(3):
            await host.send(m.AddBot(table="T", strategy="random"))
        for game in (1, 2, 3):
            await wait_for(lambda g=game: len(server.records) == g, 60)  # type: ignore[misc]
            table = server.lobby.tables["T"]
            ended = table.game
            await host.send(m.RemoveBot(table="T", seat=0))  # a bot leaves and comes back:
            await host.send(m.AddBot(table="T", strategy="random", seat=0))  # a new game
        # the fourth game has begun (a game of one hand: it may be over already, with its
        # rows and its end in the log; a wait for it to be playing could miss it)
        await wait_for(lambda: table.game is not ended)
        assert server.journal is not None
        ((_, _, entries),) = [t for t in server.journal.open_tables() if t[1] == "T"]
        kinds = [e.kind for e in entries]
        assert kinds.count("game") == 1 and kinds[:3] == ["table", "seats", "end"], kinds


@pytest.mark.slow
async def test_a_server_that_cannot_listen_leaves_the_journal_as_it_was(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        _clients, _, tasks = await table_of_bots(server, tmp_path, toggles={"target": 30})
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.game is not None and table.game.hand >= 1)
        for t in tasks:
            t.cancel()
    data = tmp_path / "data"
    journal = {k: v for k, v in state_of(data).items() if k.startswith("tables.sqlite3")}
    blocker = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    try:
        port = blocker.sockets[0].getsockname()[1]
        line = refused_in_one_line(await asyncio.to_thread(server_command, data, port))
        assert "cannot listen" in line
    finally:
        blocker.close()
    assert {k: v for k, v in state_of(data).items() if k.startswith("tables.sqlite3")} == journal
    assert not (data / "records").exists() or not list((data / "records").iterdir())


def test_a_play_data_dir_leaves_its_parents_private_and_plays_share_it(tmp_path: Path) -> None:
    """`president play` keeps its records in DIR/local under the server's default data
    directory: making it must not leave the server's own directory 0755 (then refused),
    and two plays at once (no journal) share their directory, while a journaled server
    does not."""
    home = tmp_path / "share" / "president"
    play = storage.Storage(home / "local")
    play.prepare(exclusive=False)
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    another = storage.Storage(home / "local")
    another.prepare(exclusive=False)  # a second game in another terminal
    with pytest.raises(storage.StorageError, match="in use"):
        storage.Storage(home / "local").prepare()
    play.unlock()
    another.unlock()
    server = storage.Storage(home)
    server.prepare()  # the server's default directory, after a play made it
    server.unlock()


def test_a_data_dir_others_could_swap_is_refused_and_a_link_is_read_once(tmp_path: Path) -> None:
    """A hostile pass: the host's data directory reached through a link in a folder a
    group shared; after the server's checks another user put a link to a directory of
    their own in its place, and the server served that one's key and journal.  A folder
    on the way that others may write in is refused now (a sticky one, as /tmp, is not:
    nobody else may rename what is ours there), and a link is read once, at start."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(storage.StorageError) as refused:
        storage.Storage(shared / "president").prepare()
    said = str(refused.value)
    assert f"inside {shared}, which is writable by other users (mode 777)" in said, said
    assert f"chmod go-w {shared}" in said and "\n" not in said
    assert not (shared / "president").exists()  # nothing made, nothing left
    shared.chmod(0o1777)  # sticky: as /tmp
    sticky = storage.Storage(shared / "president")
    sticky.prepare()
    sticky.unlock()
    if os.geteuid() == 0:  # root can make a folder another user's
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o755)
        os.chown(theirs, 4242, 4242)
        with pytest.raises(
            storage.StorageError, match=f"inside {theirs}, which belongs to user 4242"
        ):
            storage.Storage(theirs / "president").prepare()
    # a link to the data directory: read at start, never again
    real, elsewhere = tmp_path / "real", tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    elsewhere.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    linked = storage.Storage(link)
    linked.prepare()
    assert linked.root == real and linked.journal == real / "tables.sqlite3"
    link.unlink()
    link.symlink_to(elsewhere)  # swapped after the checks
    cert, key, _ = linked.certificate("home")
    linked.create_journal()
    assert cert.parent == key.parent == real and (real / "tables.sqlite3").exists()
    assert not any(elsewhere.iterdir())
    linked.unlock()


@pytest.mark.parametrize("damaged", ["key.pem", "cert.pem"])
def test_a_certificate_or_key_that_is_not_pem_is_one_line_naming_both(
    tmp_path: Path, damaged: str
) -> None:
    """A key file overwritten (or a certificate that is not one): named, with what to do,
    instead of the TLS library's "[SSL] PEM lib (_ssl.c:3926)" as the server starts."""
    kept = storage.Storage(tmp_path / "data")
    kept.prepare()
    kept.certificate("kitchen")
    kept.unlock()
    (tmp_path / "data" / damaged).write_bytes(b"garbage\n")
    again = storage.Storage(tmp_path / "data")
    again.prepare()
    with pytest.raises(storage.StorageError) as refused:
        again.certificate("kitchen")
    again.unlock()
    said = str(refused.value)
    assert f"{tmp_path / 'data' / 'cert.pem'} and key {tmp_path / 'data' / 'key.pem'}" in said
    assert "move both away and a new pair is made" in said and "\n" not in said
    assert (tmp_path / "data" / damaged).read_bytes() == b"garbage\n"  # nothing overwritten


def test_a_certificate_without_its_key_is_refused_not_replaced(tmp_path: Path) -> None:
    """The key missing beside its certificate: a new pair made at once would change the
    fingerprint clients were shown with no word (a newcomer pass saw it), and every
    client would warn of a changed server.  (A key without its certificate still makes a
    new pair: a first start stopped between the two writes leaves that, and removing the
    certificate is how test_security's host makes a new one.)"""
    kept = storage.Storage(tmp_path / "data")
    kept.prepare()
    kept.certificate("kitchen")
    kept.unlock()
    (tmp_path / "data" / "key.pem").unlink()
    again = storage.Storage(tmp_path / "data")
    again.prepare()
    with pytest.raises(storage.StorageError, match=r"key\.pem is missing beside"):
        again.certificate("kitchen")
    again.unlock()
    assert not (tmp_path / "data" / "key.pem").exists()  # nothing made


@pytest.mark.slow
async def test_an_emptied_journal_is_said_and_a_missing_key_refused_with_the_tables_kept(
    tmp_path: Path,
) -> None:
    """A host's pass: `: > tables.sqlite3` while the server was down, and the next start
    was a new server's without a word (every table and the ladder gone, the -wal dropped
    uncopied); `journal.key` gone (a backup without it), and the next start called every
    row "not authentic", made a new key and dropped the tables from the journal."""
    await two_tables(tmp_path)
    data = tmp_path / "data"
    journal, key = data / "tables.sqlite3", data / "journal.key"
    # the key gone: refused in one line, nothing changed; put back, every table is back
    kept = key.read_bytes()
    key.unlink()
    before = state_of(data)
    line = refused_in_one_line(await asyncio.to_thread(server_command, data, free_port()))
    assert "journal.key is missing" in line and "put the key back" in line, line
    after = state_of(data)
    del before["lock"], after["lock"]  # (the pid and port of the last start)
    assert after == before
    key.write_bytes(kept)
    key.chmod(0o600)
    server = await ServerProcess.started(data, 0)
    try:
        assert "restored 2 tables" in server.head, server.head
    finally:
        assert server.stop(signal.SIGTERM) == 0, server.errors()
    # the journal emptied, its -wal beside it: said, and the -wal kept
    journal.write_bytes(b"")
    wal = journal.with_name("tables.sqlite3-wal")
    wal.write_bytes(b"x" * 4096)  # (what a server stopped hard leaves: some WAL)
    wal.chmod(0o600)
    server = await ServerProcess.started(data, 0)
    try:
        problems = [line for line in server.head.splitlines() if "is empty" in line]
        assert len(problems) == 1, server.head
        assert "journal.key says a server kept tables here: no table comes back" in problems[0]
        (aside,) = (data / "damaged").iterdir()
        assert (aside / "tables.sqlite3-wal").read_bytes() == b"x" * 4096
        assert f"its -wal is kept in {aside}" in problems[0]
    finally:
        assert server.stop(signal.SIGTERM) == 0, server.errors()
    assert "Traceback" not in server.errors() + server.head


@pytest.mark.slow
async def test_a_file_the_server_cannot_write_or_read_is_refused_at_start_naming_it(
    tmp_path: Path,
) -> None:
    """A host's pass: a journal of 0400 was taken at start, its tables then refused as
    "disk full?", and its -wal and -shm were left 0400 (the next start, the journal
    fixed, said "attempt to write a readonly database"); an unreadable key.pem was said
    as "cannot keep the certificate (cert.pem)"."""
    data = tmp_path / "data"
    server = await ServerProcess.started(data, 0)
    assert server.stop(signal.SIGTERM) == 0, server.errors()
    for name, mode in (("tables.sqlite3", 0o400), ("key.pem", 0o000), ("names.sqlite3", 0o400)):
        path = data / name
        path.chmod(mode)
        line = refused_in_one_line(await asyncio.to_thread(server_command, data, free_port()))
        assert line.endswith(
            f"{path} cannot be read and written by this server (mode {mode:o}): chmod 600 {path}"
        ), line
        path.chmod(0o600)
    server = await ServerProcess.started(data, 0)  # (mended, as the line said)
    assert server.stop(signal.SIGTERM) == 0, server.errors()

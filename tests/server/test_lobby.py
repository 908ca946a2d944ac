"""Lobby life: coming and going between hands, chat, connection caps."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import ConnectFailed, connect
from president.client.headless import BotPlayer
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol.errors import RemoteProtocolError

from ..harness.records import replayed
from ..harness.servers import client, in_play, running_server, seated_among_server_bots
from ..harness.waiting import wait_for


async def test_a_player_leaves_mid_game_and_another_joins_between_hands(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.01) as server:
        ann, atask = await seated_among_server_bots(server, tmp_path, toggles={"target": 30})
        BotPlayer(ann, RandomBot(random.Random(1)))
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        bob = await client(server, "bob", tmp_path)
        bob.keep = True
        btask = asyncio.create_task(bob.run())
        BotPlayer(bob, RandomBot(random.Random(2)))
        await bob.send(m.Spectate(table="T"))  # (a game nobody is at waits: he watches)
        await wait_for(lambda: bob.model.public is not None)
        await ann.send(m.Leave())  # mid-hand: her seat is played by the timeout rule
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.game is not None and len(table.game.seating) == 3, 30)
        await bob.send(m.Join(table="T"))
        await wait_for(lambda: table.game is not None and "bob" in table.game.seating, 30)
        assert "ann" not in table.game.seating
        await wait_for(lambda: any(isinstance(x, m.SealedHand) for x in bob.received))
        await table.stop()  # end it here: the record holds the leaving and the joining
        atask.cancel()
        btask.cancel()
    record = Path(server.records[-1])
    assert replayed(record)["ok"], replayed(record)
    text = record.read_text()
    assert '"bob"' in text and '"ann"' in text


async def test_chat_in_the_lobby_and_at_the_table_and_floods(tmp_path: Path) -> None:
    async with running_server(tmp_path, chat_per_minute=5) as server:
        ann, bob = await client(server, "ann", tmp_path), await client(server, "bob", tmp_path)
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob)]
        for c in (ann, bob):
            await c.send(m.ListTables())  # both in the lobby
        await ann.send(m.Chat(scope="lobby", text="anyone for a game?"))
        await wait_for(lambda: bob.model.chat)
        assert bob.model.chat[-1] == m.Chat(scope="lobby", text="anyone for a game?", sender="ann")
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        for c in (ann, bob):
            await c.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None and bob.model.slot is not None)
        await bob.send(m.Chat(scope="table", text="good luck"))
        await wait_for(lambda: any(c.text == "good luck" for c in ann.model.chat))
        for i in range(8):
            await bob.send(m.Chat(scope="table", text=f"spam {i}"))
        await wait_for(lambda: any(e.code == "rate_limited" for e in bob.errors))
        with pytest.raises(RemoteProtocolError, match=r"outside 1\.\.500"):  # chat is capped
            m.Message.from_wire({"type": "chat", "scope": "table", "text": "x" * 501})
        for t in tasks:
            t.cancel()


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("\u200b" * 3, "a chat line must show something"),  # zero-width spaces (a hostile pass)
        (" \t \u3164\u2800", "a chat line must show something"),  # blanks, filler, braille blank
        ("a" + "\u0301" * 499, "may carry 8 marks at most"),  # an "a" under 499 accents
        ("a" + "\u0301" * 9, "may carry 8 marks at most"),
        ("a" + "\u0301" * 8, None),
        # a second pass: an invisible character between runs of 8 kept them on one "a"
        *[
            ("a" + ("\u0301" * 8 + x) * 40, "may carry 8 marks at most")
            for x in (
                "\u200d",
                "\u2060",
                "\u200b",
                "\u00ad",
                "\U000e0020",
                "\ufeff",
                "\u3164",
                "\u2800",
            )
        ],
        ("a\u0301 b\u0301" * 10, None),  # a mark a letter, however many letters
        ("Tiếng Việt, हिन्दी, 👍", None),  # marks as scripts write them, and a symbol
        ("\u200bhi", None),
    ],
)
def test_a_chat_line_shows_what_it_says(text: str, refused: str | None) -> None:
    from president.server.chat import line_problem

    problem = line_problem(text)
    assert problem is None if refused is None else refused in (problem or ""), problem


async def test_an_invisible_chat_line_is_refused_to_its_sender(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ann, bob = await client(server, "ann", tmp_path), await client(server, "bob", tmp_path)
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob)]
        for c in (ann, bob):
            await c.send(m.ListTables())
        await ann.send(m.Chat(scope="lobby", text="\u200b\u200b"))
        await wait_for(lambda: any(e.code == "not_allowed" for e in ann.errors))
        assert ann.errors[-1].message == "a chat line must show something"
        await ann.send(m.Chat(scope="lobby", text="hello"))
        await wait_for(lambda: bob.model.chat)
        assert [c.text for c in bob.model.chat] == ["hello"]  # the invisible one never came
        for t in tasks:
            t.cancel()


async def test_connections_per_address_are_capped(tmp_path: Path) -> None:
    async with running_server(tmp_path, max_per_address=2) as server:
        known = KnownServers(tmp_path / "known")
        links = [await connect(f"127.0.0.1:{server.port}", f"c{i}", known=known) for i in range(2)]
        with pytest.raises(ConnectFailed):
            await connect(f"127.0.0.1:{server.port}", "c3", known=known, timeout=3)
        for link in links:
            await link.close()
        await wait_for(lambda: not server.sessions)
        link = await connect(f"127.0.0.1:{server.port}", "c4", known=known)
        await link.close()


def test_a_hello_works_out_each_chairs_looks_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hello compares its name with every person's chair (`Lobby.seated_under`).
    Past the 4,096 names `players.looks` keeps, each hello worked out every chair's
    skeletons again (a hostile pass: 4,206 chairs, 38 ms a hello, 30 hellos a second
    stalled every table); each chair keeps its name's looks now."""
    import types

    from president.server import seats
    from president.server.lobby import Lobby
    from president.server.seats import Slot

    tables = {
        f"t{t}": types.SimpleNamespace(
            name=f"t{t}", slots=[Slot(name=f"g{t}-{s}", player_id="k") for s in range(12)]
        )
        for t in range(400)
    }
    tables["t7"].slots[3] = Slot(name="Ann", player_id="someone")
    lobby = types.SimpleNamespace(tables=tables)
    asked: list[str] = []
    real = seats.looks
    monkeypatch.setattr(seats, "looks", lambda name: asked.append(name) or real(name))
    assert Lobby.seated_under(lobby, "bob", "mine") is None  # type: ignore[arg-type]
    assert len(asked) == 4800  # every chair once
    assert Lobby.seated_under(lobby, "ANN", "mine") == "t7"  # type: ignore[arg-type]
    assert Lobby.seated_under(lobby, "ann", "someone") is None  # type: ignore[arg-type]
    assert len(asked) == 4800  # and never again while the names stay
    tables["t7"].slots[3].name = "cat"
    assert Lobby.seated_under(lobby, "ann", "mine") is None  # type: ignore[arg-type]
    assert asked[4800:] == ["cat"]  # a chair's new name is looked at afresh


def test_one_address_cannot_push_the_others_lines_out_of_the_lobbys_history() -> None:
    """The last 20 lines: a talker alone keeps all 20, but a new line pushes out the
    oldest of the address holding the most, not another's (one connection pushed every
    line of the others out within a minute; later two addresses in turn did)."""
    from president.server.chat import ChatKept

    kept = ChatKept(20)
    for n in range(30):
        kept.add(n, "ann", f"ann {n}", "10.0.0.1")
    assert [what for _, _, what in kept] == [f"ann {n}" for n in range(10, 30)]
    kept = ChatKept(20)
    for n in range(3):
        kept.add(n, "bob", f"bob {n}", "10.0.0.2")
    for n in range(100):
        kept.add(3 + n, "eve", f"eve {n}", "10.0.0.66")
    lines = [what for _, _, what in kept]
    assert lines == [f"bob {n}" for n in range(3)] + [f"eve {n}" for n in range(83, 100)]
    # two addresses flooding in turn (a second hostile pass): the others' lines stay
    kept = ChatKept(20)
    for n in range(3):
        kept.add(n, f"p{n}", f"honest {n}", f"10.0.2.{n}")
    for n in range(24):
        kept.add(3 + n, f"flood{n % 2}", f"flood {n}", f"10.6.6.{n % 2}")
    lines = [what for _, _, what in kept]
    assert lines[:3] == ["honest 0", "honest 1", "honest 2"] and len(lines) == 20, lines
    assert lines[3:] == [f"flood {n}" for n in range(7, 24)], lines
    # people talking in turn: the oldest line goes, whoever said it
    kept = ChatKept(20)
    for n in range(25):
        kept.add(n, f"p{n % 3}", f"line {n}", f"10.0.1.{n % 3}")
    assert [what for _, _, what in kept] == [f"line {n}" for n in range(5, 25)]


async def test_who_comes_to_the_lobby_reads_its_last_lines_of_chat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lobby's last 20 lines of chat, oldest first, come after the table list to a
    connection at no table (version 12); none to one at a table or of version 11."""
    async with running_server(tmp_path, chat_per_minute=60) as server:
        keyed = {"identity": Ed25519PrivateKey.generate}  # (version 12 needs a key)
        ann = await client(server, "ann", tmp_path, **keyed)
        assert ann.link.conn.version == max(m.VERSIONS)
        task = asyncio.create_task(ann.run())
        ann.keep = True
        await ann.send(m.ListTables())
        for n in range(23):
            await ann.send(m.Chat(scope="lobby", text=f"line {n}"))
        await wait_for(lambda: sum(isinstance(x, m.Chat) for x in ann.received) == 23)
        cat = await client(server, "cat", tmp_path, **keyed)
        cat.keep = True
        tasks = [task, asyncio.create_task(cat.run())]
        await cat.send(m.ListTables())
        await wait_for(lambda: any(isinstance(x, m.ChatHistory) for x in cat.received))
        (history,) = [x for x in cat.received if isinstance(x, m.ChatHistory)]
        assert [line.text for line in history.lines] == [f"line {n}" for n in range(3, 23)]
        assert {line.sender for line in history.lines} == {"ann"}
        # (how long ago: oldest first, so never less than the line after's; no bound on
        # the seconds themselves, which a loaded machine stretches)
        agos = [line.ago for line in history.lines]
        assert agos == sorted(agos, reverse=True) and agos[-1] >= 0
        kinds = [type(x) for x in cat.received]
        assert kinds.index(m.Tables) < kinds.index(m.ChatHistory)  # after the list
        # at a table: none; of version 11: none
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=3))
        await ann.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None)
        seated_at = len(ann.received)
        await ann.send(m.ListTables())
        await ann.send(m.Ping(nonce=7))  # (answered after all that the list brings)
        monkeypatch.setattr(m, "VERSIONS", tuple(v for v in m.VERSIONS if v <= 11))
        old = await client(server, "old", tmp_path, **keyed)
        monkeypatch.undo()
        assert old.link.conn.version == 11
        old.keep = True
        tasks.append(asyncio.create_task(old.run()))
        await old.send(m.ListTables())
        await old.send(m.Ping(nonce=7))
        for who in (ann, old):
            await wait_for(lambda who=who: m.Pong(nonce=7) in who.received)
        assert not any(isinstance(x, m.ChatHistory) for x in old.received)
        assert not any(isinstance(x, m.ChatHistory) for x in ann.received[seated_at:])
        # back from the table: the list, then the lines (an independent client's pass:
        # a `leave` brought the list alone)
        await ann.send(m.Leave())
        await wait_for(lambda: any(isinstance(x, m.ChatHistory) for x in ann.received[seated_at:]))
        kinds = [type(x) for x in ann.received[seated_at:]]
        assert kinds.index(m.Tables) < kinds.index(m.ChatHistory)
        for t in tasks:
            t.cancel()

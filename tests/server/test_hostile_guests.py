"""One hostile guest cannot break the lobby, hold the server's tables, spend its CPU on
endless games and bots, or guess passwords fast (issue 12, items 6-8)."""

from __future__ import annotations

import asyncio
import math
import threading
import time
import types
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.client.connection import Client, ConnectFailed, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.errors import Code
from president.protocol.framing import MAX_FRAME
from president.protocol.sealing import public_key_bytes
from president.server.app import Server
from president.server.config import ServerConfig
from president.server.lobby import SPENT_SECONDS, Lobby
from president.server.table import Table

from ..harness.processes import ServerProcess
from ..harness.servers import FAST, client, running_server
from ..harness.waiting import wait_for


@dataclass(eq=False)
class Guest:
    """A connection as the lobby sees it, from `address`, keeping what it is sent."""

    name: str
    address: str = "10.0.0.1"
    role: str = "player"
    table: Table | None = None
    hand_key: bytes = field(default_factory=lambda: public_key_bytes(X25519PrivateKey.generate()))
    sent: list[m.Message] = field(default_factory=list)
    player_id: str = ""
    closed: bool = False
    version: int = max(m.VERSIONS)

    def deliver(self, message: m.Message) -> None:
        if not self.closed:
            self.sent.append(message)

    def goodbye(self, bye: m.Bye) -> None:
        self.deliver(bye)
        self.closed = True

    def chat_allowed(self, now: float) -> bool:
        return True

    def errors(self) -> list[str]:
        return [x.code for x in self.sent if isinstance(x, m.Error)]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lobby(**changes: Any) -> Lobby:
    return Lobby(replace(FAST, **changes), lambda table, record: None)


def create(name: str, **changes: Any) -> m.CreateTable:
    fields: dict[str, Any] = {"name": name, "preset": "classic", "toggles": {}, "seats": 4}
    return m.CreateTable(**{**fields, **changes})


async def test_one_address_cannot_hold_the_servers_tables() -> None:
    hall = lobby(max_tables=20, tables_per_address=3)
    mallory = Guest("mallory", address="10.0.0.66")
    for i in range(500):  # as fast as it can
        await hall.handle(mallory, create(f"spam {i}"))
    assert len(hall.tables) == 3
    assert mallory.errors().count(Code.NOT_ALLOWED) == 497
    refusal = next(x for x in mallory.sent if isinstance(x, m.Error))
    assert (
        refusal.message == "your address already has 3 tables open (at most 3);"
        " a table with nobody at it closes after 10 minutes; at this cap one that nobody is"
        " at makes room: at once if its game is over, and one you made that never started"
        " 30 s after it empties"
    )
    ann = Guest("ann", address="10.0.0.7")  # another address still finds room
    await hall.handle(ann, create("Friday"))
    assert "Friday" in hall.tables and ann.errors() == []


async def test_a_makers_finished_empty_tables_make_room_for_its_next_and_no_more() -> None:
    """A bot writer's fourth quick run was refused: its three tables' games were over
    and their bots gone, yet they counted toward its address's 3 until the sweep came.
    At the cap, the maker's own tables whose game is over and that nobody is at go at
    once.  A finished table someone is at still counts: a hostile pass held 6 tables
    under a cap of 2, each table finished, left (it counted no more, as first made) and
    sat at again, which nothing then removed."""
    hall = lobby(max_tables=20, tables_per_address=2, bots_per_address=20)
    tinker = Guest("tinker", address="10.0.0.5")
    again = [Guest("again", address="10.0.0.5")]
    for guest in (tinker, *again):
        hall.welcome(guest)

    async def bots_play(name: str) -> None:
        """A game of three bots to 1 point, watched to its end by tinker, who leaves
        (a game plays on only while a person is there)."""
        await hall.handle(tinker, create(name, seats=3, toggles={"target": 1}))
        for _ in range(3):
            await hall.handle(tinker, m.AddBot(table=name, strategy="random"))
        await hall.handle(tinker, m.Spectate(table=name))
        await wait_for(lambda: hall.tables[name].status == "finished")
        await hall.handle(tinker, m.Leave())

    await bots_play("run 1")
    await bots_play("run 2")  # (the cap, 2: both finished and empty)
    await bots_play("run 3")  # run 1 and run 2 went for it
    assert tinker.errors() == [] and set(hall.tables) == {"run 3"}
    await bots_play("run 4")  # (under the cap: run 3 stays, finished and empty)
    await hall.handle(again[0], m.Spectate(table="run 3"))  # someone there again: it counts
    await hall.handle(tinker, create("run 5"))  # at the cap: run 4 goes, not run 3
    assert tinker.errors() == [] and set(hall.tables) == {"run 3", "run 5"}
    await hall.handle(tinker, create("run 6"))
    assert tinker.errors() == [Code.NOT_ALLOWED] and "run 6" not in hall.tables
    refusal = next(x for x in tinker.sent if isinstance(x, m.Error))
    assert refusal.message.startswith("your address already has 2 tables open (at most 2)")
    # a table that never started, which its bots left (killed), goes too, once the sweep
    # has seen it empty a while (a tinkerer's dead runs each counted for 10 minutes);
    # one just made, its maker not yet in its chair, stays
    await hall.handle(again[0], m.Leave())  # (run 3: nobody there again)
    await hall.handle(tinker, create("run 6"))  # run 3 goes, finished and empty
    assert set(hall.tables) == {"run 5", "run 6"}
    await hall.handle(tinker, m.Leave())
    await hall.handle(tinker, create("run 7"))  # run 6 just made: not spent
    assert set(hall.tables) == {"run 5", "run 6"} and "run 7" not in hall.tables
    hall._empty_since["run 6"] = time.monotonic() - SPENT_SECONDS - 1  # (the sweep's note)
    await hall.handle(tinker, create("run 7"))
    assert set(hall.tables) == {"run 5", "run 7"}
    await hall.close()


async def test_only_its_makers_own_spent_tables_make_room_behind_one_address() -> None:
    """Two people behind one address share its table cap: a table of ann's that waits for
    her friends, nobody yet at it, does not go to make room for bob's next (a hostile
    pass: it did, 30 s after it emptied); bob's own does."""
    hall = lobby(max_tables=20, tables_per_address=2, bots_per_address=20)
    ann, bob = Guest("ann", address="10.0.0.9"), Guest("bob", address="10.0.0.9")
    for guest in (ann, bob):
        hall.welcome(guest)
    await hall.handle(ann, create("friday"))
    await hall.handle(bob, create("bob 1"))
    for name in ("friday", "bob 1"):  # (the sweep's note: empty for long)
        hall._empty_since[name] = time.monotonic() - SPENT_SECONDS - 1
    await hall.handle(bob, create("bob 2"))
    assert set(hall.tables) == {"friday", "bob 2"} and bob.errors() == []
    await hall.handle(bob, create("bob 3"))  # (bob 2 just made; friday is ann's)
    assert set(hall.tables) == {"friday", "bob 2"} and bob.errors() == [Code.NOT_ALLOWED]
    refusal = next(x for x in bob.sent if isinstance(x, m.Error))
    assert "one you made that never started 30 s after it empties" in refusal.message
    await hall.close()


async def test_many_addresses_cannot_hold_every_table_for_ever() -> None:
    """At the table cap, room for a new table: first a table of server bots alone, then
    one that has not started `unstarted_table_seconds` after it was made, whoever sits
    there (many addresses, each holding its tables where nobody says ready, once kept
    everyone from making one: a hostile pass, 167 addresses). Who sat or watched there
    is told, and is back in the lobby; a young table stays."""
    hall = lobby(max_tables=4, tables_per_address=1, bots_per_address=4)
    squatters = [Guest(f"s{i}", address=f"10.0.6.{i}") for i in range(3)]
    for i, squatter in enumerate(squatters):
        hall.welcome(squatter)
        await hall.handle(squatter, create(f"hold {i}"))
        await hall.handle(squatter, m.Join(table=f"hold {i}"))
    watcher = Guest("w", address="10.0.6.9")
    hall.welcome(watcher)
    await hall.handle(watcher, m.Spectate(table="hold 0"))
    bots = Guest("b", address="10.0.6.8")
    await hall.handle(bots, create("bots"))
    for _ in range(4):  # a game of bots alone, nobody watching: it starts at once
        await hall.handle(bots, m.AddBot(table="bots", strategy="random"))
    assert hall.tables["bots"].status == "playing" and len(hall.tables) == 4
    ann, ben = Guest("ann", address="10.0.0.7"), Guest("ben", address="10.0.0.8")
    await hall.handle(ann, create("Friday"))  # the bots' table makes room
    await hall.handle(ann, m.Join(table="Friday"))
    assert "Friday" in hall.tables and "bots" not in hall.tables and ann.errors() == []
    await hall.handle(ben, create("Saturday"))  # every table young, people at each
    assert ben.errors() == [Code.NOT_ALLOWED] and "Saturday" not in hall.tables
    hall.tables["hold 0"].held_since -= FAST.unstarted_table_seconds  # ten minutes on
    await hall.handle(ben, create("Saturday"))
    assert "Saturday" in hall.tables and "hold 0" not in hall.tables
    for guest in (squatters[0], watcher):
        told = [x for x in guest.sent if isinstance(x, m.Error)][-1]
        assert told.code == Code.TIMEOUT and told.about == m.Ready.TYPE
        assert told.message.startswith("hold 0 is closed: the server needed room"), told
        assert guest.table is None and isinstance(guest.sent[-1], m.Tables)
    assert all(squatter.table is not None for squatter in squatters[1:])
    await hall.close()


async def test_games_that_stand_still_make_room_at_the_cap() -> None:
    """A hostile pass: 167 addresses, each at 3 tables of its own (itself and 2 server
    bots, no turn timer), said ready and never moved, and no one else could make a table
    for as long as it liked (nobody else there to nudge).  At the cap, a game where
    nothing has moved for `unstarted_table_seconds` makes room, the stillest first;
    one that moves is never taken so."""
    hall = lobby(max_tables=2, tables_per_address=1, bots_per_address=4, seed_seconds=0.0)
    squatters = [Guest(f"s{i}", address=f"10.0.7.{i}") for i in range(2)]
    for i, squatter in enumerate(squatters):
        hall.welcome(squatter)
        await hall.handle(squatter, create(f"still {i}", seats=3))
        await hall.handle(squatter, m.Join(table=f"still {i}"))
        for _ in range(2):
            await hall.handle(squatter, m.AddBot(table=f"still {i}", strategy="random"))
        await hall.handle(squatter, m.Ready(ready=True))
    games = [hall.tables[f"still {i}"] for i in range(2)]

    def waits_on_its_person(table: Table) -> bool:  # (the bots have moved up to it)
        game = table.game
        return game is not None and [game.seating[s] for s in game.actors] == [
            next(s.name for s in table.chairs if s.bot is None)
        ]

    await wait_for(lambda: all(waits_on_its_person(t) for t in games))
    ann = Guest("ann", address="10.0.0.7")
    await hall.handle(ann, create("Friday"))  # both games young
    assert ann.errors() == [Code.NOT_ALLOWED] and "Friday" not in hall.tables
    refusal = next(x for x in ann.sent if isinstance(x, m.Error))
    assert refusal.message.startswith("this server has as many tables as it takes (2): a")
    assert "not moved for 10 minutes" in refusal.message, refusal.message
    games[1].moved_at -= FAST.unstarted_table_seconds + 2  # the stiller
    games[0].moved_at -= FAST.unstarted_table_seconds + 1
    await hall.handle(ann, create("Friday"))
    assert "Friday" in hall.tables and list(hall.tables) == ["still 0", "Friday"]
    told = [x for x in squatters[1].sent if isinstance(x, m.Error)][-1]
    assert told.message.startswith("still 1 is closed: the server needed room"), told
    assert "nothing had moved in its game for" in told.message
    assert squatters[1].table is None and squatters[0].table is games[0]
    await hall.close()


async def _bot_game(hall: Lobby, crowd: Guest, name: str, think: float = 0.0) -> Guest:
    """A table of 4 random server bots made by `crowd`, each thinking `think` seconds a
    move, watched by one of its connections (from its address): the watcher."""
    watcher = Guest(f"{crowd.name}-w{len(hall.tables)}", address=crowd.address)
    hall.welcome(watcher)
    await hall.handle(crowd, create(name))
    hall.tables[name].settings.bot_delay = think
    await hall.handle(watcher, m.Spectate(table=name))
    for _ in range(4):
        await hall.handle(crowd, m.AddBot(table=name, strategy="random"))
    assert hall.tables[name].status == "playing" and watcher.table is hall.tables[name]
    return watcher


def _told_closed(watcher: Guest, name: str) -> None:
    told = [x for x in watcher.sent if isinstance(x, m.Error)][-1]
    assert told.message.startswith(f"{name} is closed: the server needed room"), told
    assert watcher.table is None and isinstance(watcher.sent[-1], m.Tables)


@pytest.mark.parametrize("over", [True, False])
async def test_watching_a_game_of_bots_does_not_hold_a_table_at_the_cap(over: bool) -> None:
    """A hostile pass from 167 addresses filled the cap with games of server bots, each
    watched by one of its connections, playing or over: no table could be made for
    minutes (a table someone watched was never taken). At the cap a table where no
    person sits goes, however many watch it (a finished game before one under way, the
    oldest first); its watchers are told and are back in the lobby. A table a person
    sits at stays."""
    hall = lobby(max_tables=3, tables_per_address=3, bots_per_address=12)
    crowd = Guest("m", address="10.6.7.1")
    # (bots that think a minute a move: the games stay under way unless `over`)
    think = 0.0 if over else 60.0
    watchers = [await _bot_game(hall, crowd, f"bots {i}", think) for i in range(2)]
    sat = Guest("sat", address="10.6.7.2")
    await hall.handle(sat, create("people"))
    await hall.handle(sat, m.Join(table="people"))
    if over:
        await wait_for(lambda: all(hall.tables[f"bots {i}"].status == "finished" for i in (0, 1)))
    ann, ben, cat = (Guest(n, address=f"10.0.0.{i}") for i, n in enumerate("abc", 7))
    # refused for its rules: nothing goes (a hostile pass's "nonesuch" took a watched game)
    await hall.handle(ann, create("Friday", preset="nonesuch"))
    await hall.handle(ann, create("Friday", toggles={"target": 10**6}))
    assert ann.errors() == [Code.BAD_RULES] * 2, ann.sent
    assert list(hall.tables) == ["bots 0", "bots 1", "people"]
    ann.sent.clear()
    await hall.handle(ann, create("Friday"))  # the oldest game goes
    assert ann.errors() == [] and list(hall.tables) == ["bots 1", "people", "Friday"]
    _told_closed(watchers[0], "bots 0")
    assert watchers[1].table is hall.tables["bots 1"]
    await hall.handle(ann, m.Join(table="Friday"))
    await hall.handle(ben, create("Saturday"))  # then the next
    assert ben.errors() == [] and list(hall.tables) == ["people", "Friday", "Saturday"]
    _told_closed(watchers[1], "bots 1")
    await hall.handle(ben, m.Join(table="Saturday"))
    await hall.handle(cat, create("Sunday"))  # a person sits at every table: none goes
    assert cat.errors() == [Code.NOT_ALLOWED] and sat.table is hall.tables["people"]
    await hall.close()


async def test_at_the_cap_a_finished_game_goes_before_one_under_way() -> None:
    hall = lobby(max_tables=2, tables_per_address=3, bots_per_address=12)
    crowd = Guest("m", address="10.6.7.1")
    playing = await _bot_game(hall, crowd, "playing", think=60.0)  # (the older)
    finished = await _bot_game(hall, crowd, "finished")
    await wait_for(lambda: hall.tables["finished"].status == "finished")
    assert hall.tables["playing"].status == "playing"
    ann = Guest("ann", address="10.0.0.7")
    await hall.handle(ann, create("Friday"))
    assert ann.errors() == [] and list(hall.tables) == ["playing", "Friday"]
    _told_closed(finished, "finished")
    assert playing.table is hall.tables["playing"]
    await hall.close()


async def test_a_crowd_remaking_its_tables_does_not_make_them_young(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crowd at the cap that empties its oldest table and makes another in its place
    (the new one makes room by taking the emptied one) kept every table younger than the
    wait, so every honest create was refused for as long as it went on (a recheck of the
    rule above). A table counts as old as its maker's holding of tables."""
    from president.server import lobby as lobby_module

    now = [time.monotonic()]
    monkeypatch.setattr(lobby_module, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    hall = lobby(max_tables=4, tables_per_address=2)
    # four tables from three addresses (one with room): each in turn empties one and
    # another address, with room, makes its next table, taking the emptied one
    sitters = [Guest(f"c{i}", address=f"10.0.7.{i}") for i in (0, 0, 1, 2)]
    makers = [Guest(f"m{i}", address=f"10.0.7.{i}") for i in (1, 0, 0, 2)]
    for i, guest in enumerate(sitters):
        hall.welcome(guest)
        await hall.handle(guest, create(f"c{i}"))
        await hall.handle(guest, m.Join(table=f"c{i}"))
    now[0] += FAST.unstarted_table_seconds / 2
    for i, (sitter, maker) in enumerate(zip(sitters, makers)):
        hall.welcome(maker)
        await hall.handle(sitter, m.Leave())
        await hall.handle(maker, create(f"again {i}"))
        await hall.handle(maker, m.Join(table=f"again {i}"))
        assert f"c{i}" not in hall.tables and f"again {i}" in hall.tables, maker.sent
    assert len(hall.tables) == 4
    now[0] += FAST.unstarted_table_seconds / 2 + 1  # each made half the wait ago
    ann = Guest("ann", address="10.0.0.7")
    await hall.handle(ann, create("Friday"))
    assert "Friday" in hall.tables and ann.errors() == [], ann.sent
    assert "again 0" not in hall.tables  # the oldest holding first
    # a host playing at a table who makes another: a table whose game is on is no holding
    await hall.handle(ann, m.Join(table="Friday"))
    for _ in range(3):
        await hall.handle(ann, m.AddBot(table="Friday", strategy="random"))
    await hall.handle(ann, m.Ready())
    assert hall.tables["Friday"].status == "playing"
    now[0] += FAST.unstarted_table_seconds * 2
    assert hall.held_since(ann.address) == now[0]
    await hall.close()


async def test_a_table_name_shows_as_itself_and_looks_like_no_open_tables() -> None:
    """A table's name is held to what a player's is (each character shows as itself, one
    alphabet among those that look alike), and may not look like an open table's: a
    hostile guest made "Frid\u0430y" (a Cyrillic a), "Friday\u200b" and a name that
    draws nothing beside the host's "Friday"."""
    hall = lobby(tables_per_address=20)
    host, mallory = Guest("host", address="10.0.0.1"), Guest("mallory", address="10.0.0.66")
    await hall.handle(host, create("Friday"))
    await hall.handle(host, create("Cape"))
    spoofs = {
        "\u0421\u0430\u0440\u0435": "the name 'Саре' looks like table 'Cape'",  # all Cyrillic
        "friday": "the name 'friday' looks like table 'Friday'",
        "FRIDAY": "the name 'FRIDAY' looks like table 'Friday'",
        "Ｆｒｉｄａｙ": "the name 'Ｆｒｉｄａｙ' looks like table 'Friday'",  # full width
        "Frid\u0430y": "a table name may not mix Cyrillic and Latin letters",
        "Friday\u200b": "table 'Friday\\u200b': a table name may not hold U+200B (Zero Width Space)",
        "\u2800\u3164": "table '\u2800\u3164': a table name may not hold U+2800",  # blanks
        " Friday": "table ' Friday': a table name may not begin or end with a space",
        "Fri  day": "table 'Fri  day': a table name may not hold two spaces in a row",
    }
    for name in spoofs:
        await hall.handle(mallory, create(name))
    assert list(hall.tables) == ["Friday", "Cape"], list(hall.tables)
    refusals = [x for x in mallory.sent if isinstance(x, m.Error)]
    assert [x.code for x in refusals] == [Code.NOT_ALLOWED] * len(spoofs)
    for (name, start), refusal in zip(spoofs.items(), refusals):
        assert refusal.message.startswith(start), (name, refusal.message)
    for name in ("Saturday", "Fri day", "Пятница", "金曜日", "Friday ♥"):  # names of their own
        await hall.handle(mallory, create(name))
    assert len(hall.tables) == 7 and mallory.errors() == [Code.NOT_ALLOWED] * len(spoofs)
    await hall.close()


async def test_every_table_setting_has_an_upper_bound() -> None:
    hall = lobby()
    ann = Guest("ann")
    await hall.handle(ann, create("long", toggles={"target": 1_000_000}))
    await hall.handle(ann, create("slow", turn_seconds=3600))
    await hall.handle(ann, create("fine", toggles={"target": 100}, turn_seconds=600))
    errors = [x for x in ann.sent if isinstance(x, m.Error)]
    assert [(e.code, e.message) for e in errors] == [
        (Code.BAD_RULES, "target must be at most 100 points, not 1000000"),
        (Code.BAD_RULES, "the turn timer must be at most 600 s (0 for none), not 3600"),
    ]
    assert list(hall.tables) == ["fine"]
    await hall.close()


async def test_only_the_tables_own_people_change_its_bots() -> None:
    """Who sits there or created it adds bots; a bot is removed by who added it or the
    creator."""
    hall = lobby()
    ann, bob, mallory = Guest("ann"), Guest("bob", address="10.0.0.2"), Guest("m", "10.0.0.66")
    await hall.handle(ann, create("Friday", password="pw"))
    await hall.handle(mallory, m.AddBot(table="Friday", strategy="random"))
    assert mallory.errors() == [Code.NOT_ALLOWED]
    await hall.handle(ann, m.AddBot(table="Friday", strategy="random"))  # the creator may
    await hall.handle(mallory, m.RemoveBot(table="Friday", seat=0))
    assert mallory.errors() == [Code.NOT_ALLOWED] * 2
    await hall.handle(bob, m.Join(table="Friday", password="pw"))
    await hall.handle(bob, m.AddBot(table="Friday", strategy="greedy"))  # a seated player may
    assert [s.strategy for s in hall.tables["Friday"].chairs] == ["random", "", "greedy", ""]
    # but not take away the bots others added (a guest did, to keep a chair free and the
    # ready time from applying): his own, and the creator any
    await hall.handle(bob, m.RemoveBot(table="Friday", seat=0))
    assert bob.errors() == [Code.NOT_ALLOWED]
    await hall.handle(bob, m.RemoveBot(table="Friday", seat=2))
    await hall.handle(ann, m.RemoveBot(table="Friday", seat=0))
    assert bob.errors() == [Code.NOT_ALLOWED] and ann.errors() == []
    assert [s.strategy for s in hall.tables["Friday"].chairs] == ["", "", "", ""]
    await hall.close()


async def test_server_bots_are_capped_per_address() -> None:
    hall = lobby(bots_per_address=4)
    ann = Guest("ann")
    for name in ("one", "two"):
        await hall.handle(ann, create(name, seats=3))
        for _ in range(3):
            await hall.handle(ann, m.AddBot(table=name, strategy="random"))
    assert ann.errors() == [Code.NOT_ALLOWED, Code.NOT_ALLOWED]
    assert sum(s.bot is not None for t in hall.tables.values() for s in t.chairs) == 4
    await hall.close()


async def test_nobody_watches_under_a_bots_name_nor_a_bot_takes_a_watchers() -> None:
    """A hostile pass watched a table as "heuristic-bot-2" and chatted there as if the
    bot spoke.  A watcher may not take the name of a bot at the table, and a bot added
    takes no watcher's name."""
    hall = lobby()
    ann = Guest("ann")
    await hall.handle(ann, create("Friday", seats=4))
    early = Guest("random\u2011bot\u20112", address="10.0.0.9")  # (looks like random-bot-2)
    await hall.handle(early, m.Spectate(table="Friday"))
    for _ in range(2):
        await hall.handle(ann, m.AddBot(table="Friday", strategy="random"))
    names = [slot.name for slot in hall.tables["Friday"].chairs]
    assert "random-bot-1" in names and "random-bot-3" in names and "random-bot-2" not in names
    for i, name in enumerate(["random-bot-1", "random\u2010bot\u20101", "Random-Bot-\uff11"]):
        eve = Guest(name, address=f"10.0.0.{66 + i}")  # (and as it looks: other hyphens)
        await hall.handle(eve, m.Spectate(table="Friday"))
        assert eve.errors() == [Code.NOT_ALLOWED] and eve.table is None
        refused = next(x for x in eve.sent if isinstance(x, m.Error))
        assert refused.message == (
            "a bot at Friday is called random-bot-1: come with another name to watch"
        )
    await hall.close()


async def test_nobody_sits_under_a_bots_name_nor_a_bot_takes_a_players() -> None:
    """A hostile pass sat at a table as "heuristic‐bot‐1" (other hyphens), "HEURISTIC-BOT-1"
    and "heuristic-bot-l" beside the bot heuristic-bot-1, and chatted there as the bot.
    Nobody sits under the look of a bot's name, and a bot added takes no sitter's."""
    hall = lobby()
    ann = Guest("ann")
    await hall.handle(ann, create("Friday", seats=6))
    early = Guest("random\u2011bot\u20112", address="10.0.0.9")  # (looks like random-bot-2)
    await hall.handle(early, m.Join(table="Friday"))
    assert early.errors() == []
    for _ in range(2):
        await hall.handle(ann, m.AddBot(table="Friday", strategy="random"))
    names = [slot.name for slot in hall.tables["Friday"].chairs]
    assert "random-bot-1" in names and "random-bot-3" in names and "random-bot-2" not in names
    looks_alike = ["random\u2010bot\u20101", "RANDOM-BOT-1", "random-bot-l", "Random-Bot-\uff11"]
    for i, name in enumerate(looks_alike):
        eve = Guest(name, address=f"10.0.0.{66 + i}")
        await hall.handle(eve, m.Join(table="Friday"))
        assert eve.errors() == [Code.NOT_ALLOWED] and eve.table is None, name
        refused = next(x for x in eve.sent if isinstance(x, m.Error))
        assert refused.message == (
            "a bot at Friday is called random-bot-1: come with another name to sit here"
        )
    bob = Guest("random-bot-9", address="10.0.0.70")  # a name of its own: welcome
    await hall.handle(bob, m.Join(table="Friday"))
    assert bob.errors() == [] and bob.table is hall.tables["Friday"]
    # nor twice under two looks of one name (a second pass sat one key as random-bot-I,
    # random-bot-l, RANDOM-BOT-I and random-bot-| side by side)
    for i, name in enumerate(["RANDOM-BOT-9", "random-bot-９", "Random-Bot-9"]):
        again = Guest(name, address=f"10.0.0.{80 + i}")
        await hall.handle(again, m.Join(table="Friday"))
        assert again.errors() == [Code.NOT_ALLOWED] and again.table is None, name
        refused = next(x for x in again.sent if isinstance(x, m.Error))
        assert refused.message == "someone called random-bot-9 already sits at Friday"
    await hall.close()


async def test_wrong_table_passwords_wait_longer_each_time() -> None:
    """20 wrong guesses take at least the backoff's sum: 1 + 2 + 4 + ... capped at 60 s."""
    hall = lobby(password_wait=1.0, password_wait_max=60.0)
    clock = Clock()
    hall.guard.clock = clock
    await hall.handle(Guest("ann"), create("Friday", password="right"))
    mallory = Guest("mallory", address="10.0.0.66")
    start = clock.now
    while mallory.errors().count(Code.WRONG_PASSWORD) < 20:
        await hall.handle(mallory, m.Join(table="Friday", password="guess"))
        clock.now += 0.25
    waits = [min(60.0, 2.0**i) for i in range(19)]
    assert clock.now - start >= sum(waits)
    refused = [x for x in mallory.sent if isinstance(x, m.Error) and x.code == Code.RATE_LIMITED]
    assert refused and refused[0].message.startswith("too many wrong passwords: try again in ")
    # the right password, during the wait, is not even checked; after it, it is
    ann = Guest("ben", address="10.0.0.66")
    await hall.handle(ann, m.Spectate(table="Friday", password="right"))
    assert ann.errors() == [Code.RATE_LIMITED]
    clock.now += 61
    await hall.handle(ann, m.Spectate(table="Friday", password="right"))
    assert ann.errors() == [Code.RATE_LIMITED] and ann.table is hall.tables["Friday"]
    # another address was never slowed
    bob = Guest("bob", address="10.0.0.2")
    await hall.handle(bob, m.Join(table="Friday", password="right"))
    assert bob.errors() == []
    await hall.close()


async def test_no_password_at_a_password_table_is_no_guess() -> None:
    """The lobby's question left empty sends no password: refused in words, and not
    counted as a wrong one (it was, and the right password a moment later waited)."""
    hall = lobby(password_wait=30.0, password_wait_max=60.0)
    await hall.handle(Guest("ann"), create("Friday", password="right"))
    bob = Guest("bob", address="10.0.0.2", player_id="bob-key")
    for message in (m.Spectate(table="Friday"), m.Join(table="Friday", password="")):
        await hall.handle(bob, message)
    refused = [x for x in bob.sent if isinstance(x, m.Error)]
    assert [x.code for x in refused] == [Code.WRONG_PASSWORD] * 2
    assert all(x.message == "table Friday has a password: give it to sit or watch" for x in refused)
    await hall.handle(bob, m.Spectate(table="Friday", password="right"))
    assert bob.errors() == [Code.WRONG_PASSWORD] * 2 and bob.table is hall.tables["Friday"]
    await hall.close()


async def test_a_player_at_the_table_joining_or_watching_again_is_told_so() -> None:
    """A connection seated at a password table, or watching it, that sends `join` or
    `spectate` for it again (a client that lost track) is told where it is, whatever
    password it gives: none is asked of it, checked, or counted as a guess (it was asked
    the password, and a wrong one counted against its address)."""
    hall = lobby(password_wait=30.0, password_wait_max=60.0)
    await hall.handle(Guest("ann"), create("Friday", password="right"))
    bob = Guest("bob", address="10.0.0.2", player_id="bob-key")
    await hall.handle(bob, m.Join(table="Friday", password="right"))
    assert bob.errors() == [] and bob.table is hall.tables["Friday"]
    for given in (None, "", "wrong", "right"):
        await hall.handle(bob, m.Join(table="Friday", password=given))
    refused = [x for x in bob.sent if isinstance(x, m.Error)]
    assert [x.code for x in refused] == [Code.NOT_ALLOWED] * 4, refused
    assert all(x.message == "you already sit at Friday" for x in refused), refused
    assert hall.guard.refusal("10.0.0.2", "table") is None  # (no wrong guess counted)
    assert hall.tables["Friday"].chairs.index_of(bob) is not None and bob.table is not None
    # nor is a `spectate` from a seat, nor one from a watcher
    cat = Guest("cat", address="10.0.0.3", player_id="cat-key")
    await hall.handle(cat, m.Spectate(table="Friday", password="right"))
    assert cat.errors() == [] and cat.table is hall.tables["Friday"]
    for guest, given in ((bob, "wrong"), (bob, None), (cat, "wrong"), (cat, None)):
        guest.sent.clear()
        await hall.handle(guest, m.Spectate(table="Friday", password=given))
        (error,) = [x for x in guest.sent if isinstance(x, m.Error)]
        assert error.code == Code.NOT_ALLOWED, error
        assert error.message == (
            "you sit at this table; leave your seat to watch"
            if guest is bob
            else "you already watch Friday"
        )
    for address in ("10.0.0.2", "10.0.0.3"):
        assert hall.guard.refusal(address, "table") is None
    assert cat in hall.tables["Friday"].chairs.spectators
    await hall.close()


async def test_first_tries_from_new_addresses_share_a_budget_a_known_key_skips() -> None:
    """A hostile pass checked a 4-digit table password in 25 s from an address a guess:
    first tries are budgeted too; a key that opened the table before is not held."""
    hall = lobby(password_wait=1.0, password_wait_max=60.0)
    clock = Clock()
    hall.guard.clock = clock
    ann = Guest("ann", player_id="ann-key")
    await hall.handle(ann, create("Friday", password="right"))
    bob = Guest("bob", address="10.0.0.2", player_id="bob-key")
    await hall.handle(bob, m.Spectate(table="Friday", password="right"))
    await hall.handle(bob, m.Leave())
    guessers = [Guest(f"g{i}", address=f"10.6.0.{i}") for i in range(40)]
    for guesser in guessers:
        await hall.handle(guesser, m.Join(table="Friday", password="guess"))
    codes = [code for guesser in guessers for code in guesser.errors()]
    # (bob's first try was right: no guess, not counted in the minute's 30)
    assert codes.count(Code.WRONG_PASSWORD) == 30 and codes.count(Code.RATE_LIMITED) == 10
    cat = Guest("cat", address="10.0.0.3", player_id="cat-key")
    await hall.handle(cat, m.Spectate(table="Friday", password="right"))
    assert cat.errors() == [Code.RATE_LIMITED] and cat.table is None
    bob.address = "10.0.0.4"  # (the same key from a new address)
    await hall.handle(bob, m.Spectate(table="Friday", password="right"))
    assert bob.errors() == [] and bob.table is hall.tables["Friday"]
    await hall.handle(ann, m.Join(table="Friday", password="right"))  # (its creator)
    assert ann.errors() == [] and ann.table is hall.tables["Friday"]
    clock.now += 61
    await hall.handle(cat, m.Spectate(table="Friday", password="right"))
    assert cat.errors() == [Code.RATE_LIMITED] and cat.table is hall.tables["Friday"]
    await hall.close()


async def test_the_right_password_is_no_guess_however_many_give_it() -> None:
    """A crowd giving the right password (friends arriving, a guest reconnecting in a
    loop) took every place in the first tries' budget and held newcomers out: a check
    found right is not counted.  One found wrong is, and past the budget nothing is
    checked, right or wrong (no answer beyond the budget)."""
    hall = lobby(password_wait=1.0, password_wait_max=60.0)
    await hall.handle(Guest("ann"), create("Friday", password="right"))
    crowd = [Guest(f"c{i}", address=f"10.5.0.{i}") for i in range(40)]
    for guest in crowd:
        await hall.handle(guest, m.Spectate(table="Friday", password="right"))
    assert all(g.errors() == [] and g.table is hall.tables["Friday"] for g in crowd)
    guessers = [Guest(f"g{i}", address=f"10.6.0.{i}") for i in range(31)]
    for guest in guessers:
        await hall.handle(guest, m.Spectate(table="Friday", password="guess"))
    assert [c for g in guessers for c in g.errors()].count(Code.WRONG_PASSWORD) == 30
    late = Guest("late", address="10.5.1.1")  # (right, but past the budget: not checked)
    await hall.handle(late, m.Spectate(table="Friday", password="right"))
    assert late.errors() == [Code.RATE_LIMITED] and late.table is None
    await hall.close()


async def test_table_guesses_at_once_from_one_address_are_checked_one_at_a_time() -> None:
    """As at hello: eight guests of one address guessing a table's password at the same
    moment get one check between them; the rest wait their turn, then its wait."""
    hall = lobby(password_wait=1.0, password_wait_max=60.0)
    hall.guard.clock = Clock()
    await hall.handle(Guest("ann"), create("Friday", password="right"))
    guessers = [Guest(f"g{i}", address="10.0.0.66") for i in range(8)]
    await asyncio.gather(
        *(
            hall.handle(g, m.Join(table="Friday", password=f"guess{i}"))
            for i, g in enumerate(guessers)
        )
    )
    said = [code for guesser in guessers for code in guesser.errors()]
    assert sorted(said) == sorted([Code.WRONG_PASSWORD] + [Code.RATE_LIMITED] * 7), said
    await hall.close()


async def test_a_player_who_opened_a_table_before_is_not_locked_out_with_guessers() -> None:
    """At a table: a key that gave its password before gets in after one typo while
    guessers from many addresses use up the checks they share; another key from the same
    address waits; the key opens no table made again under the name with another
    password."""
    hall = lobby(password_wait=1.0, password_wait_max=60.0)
    clock = Clock()
    hall.guard.clock = clock
    await hall.handle(Guest("ann"), create("Friday", password="right"))
    bob = Guest("bob", address="10.0.0.2", player_id="bob-key")
    await hall.handle(bob, m.Spectate(table="Friday", password="right"))
    await hall.handle(bob, m.Leave())
    await hall.handle(bob, m.Spectate(table="Friday", password="rihgt"))
    assert bob.errors() == [Code.WRONG_PASSWORD]
    guessers = [Guest(f"g{i}", address=f"10.6.0.{i}") for i in range(14)]
    for guesser in guessers:
        await hall.handle(guesser, m.Join(table="Friday", password="guess"))
    clock.now += 1.1  # every address's own wait is over: the guessers use up the minute
    for guesser in guessers:
        await hall.handle(guesser, m.Join(table="Friday", password="guess"))
    cat = Guest("cat", address="10.0.0.2", player_id="cat-key")
    await hall.handle(cat, m.Spectate(table="Friday", password="right"))
    assert cat.errors() == [Code.RATE_LIMITED] and cat.table is None
    await hall.handle(bob, m.Spectate(table="Friday", password="right"))
    assert bob.errors() == [Code.WRONG_PASSWORD] and bob.table is hall.tables["Friday"]
    await hall.remove("Friday", "a test")
    await hall.handle(Guest("ann"), create("Friday", password="other"))
    await hall.handle(bob, m.Leave())
    await hall.handle(bob, m.Spectate(table="Friday", password="other"))
    assert bob.errors() == [Code.WRONG_PASSWORD, Code.RATE_LIMITED]
    await hall.close()


async def test_a_squatter_who_drops_and_sits_again_renamed_is_barred_by_address() -> None:
    """A hostile pass held a table for ever from one address: sit, drop the connection,
    sit again under a new name once the chair was freed (a chair freed of a person away
    barred nobody's address).  The lobby also hears of that chair freed (it showed the
    squatter there for a minute and more)."""
    hall = lobby(ready_seconds=0.2, lobby_update_seconds=0.01)
    ann, bob = Guest("ann", address="10.0.0.1"), Guest("bob", address="10.0.0.2")
    sly, browser = Guest("sly1", address="10.0.0.66"), Guest("cat", address="10.0.0.3")
    for guest in (ann, bob, sly, browser):
        hall.welcome(guest)
    await hall.handle(ann, create("mon", seats=3))
    for guest in (ann, bob, sly):
        await hall.handle(guest, m.Join(table="mon"))
    for guest in (ann, bob):
        await hall.handle(guest, m.Ready())
    await hall.disconnect(sly)  # away: the chair kept for now
    table = hall.tables["mon"]
    await wait_for(lambda: [s.name for s in table.chairs] == ["ann", "bob", ""], 20)
    await wait_for(lambda: any(news_of(browser, "mon", "ann", "bob", "")), 20)
    again = Guest("sly2", address="10.0.0.66")
    hall.welcome(again)
    await hall.handle(again, m.Join(table="mon"))
    assert again.errors() == [Code.NOT_ALLOWED] and again.table is None
    assert "you were moved out of mon" in again.sent[-1].message  # type: ignore[attr-defined]
    dan = Guest("dan", address="10.0.0.4")
    hall.welcome(dan)
    await asyncio.sleep(0.2)  # (the chair is kept that long for the table's bot)
    await hall.handle(dan, m.Join(table="mon"))
    assert dan.errors() == [] and dan.table is table
    await hall.close()


async def test_a_game_that_stands_still_is_not_moving_for_the_connection_cap() -> None:
    """A hostile pass held every place of a full server with games of no turn timer where
    nobody moved (pings answered, nothing else): their players, protected as a game
    under way's (server/admission.py), kept every newcomer out.  A game is protected
    only while it moves (`Table.moving`)."""
    from president.server.table import MOVING_SECONDS

    hall = lobby()
    people = [Guest(name, address=f"10.0.0.{i}") for i, name in enumerate(("ann", "bob", "cat"))]
    for guest in people:
        hall.welcome(guest)
    await hall.handle(people[0], create("still", seats=3, turn_seconds=0))
    for guest in people:
        await hall.handle(guest, m.Join(table="still"))
    for guest in people:
        await hall.handle(guest, m.Ready())
    table = hall.tables["still"]
    await wait_for(lambda: table.game is not None and table.game.turn is not None, 20)
    clock = Clock()
    table.clock, table.moved_at = clock, clock()
    assert table.moving()
    clock.now += MOVING_SECONDS + 1  # nobody moved
    assert not table.moving()
    game = table.game
    assert game is not None and game.turn is not None
    table.apply(game.turn, game.legal_actions(game.turn)[0])  # a move: moving again
    assert table.moving()
    clock.now += MOVING_SECONDS + 1
    assert not table.moving()
    await hall.close()


def news_of(guest: Guest, table: str, *players: str) -> list[m.TableChanged]:
    """The news `guest` heard of `table` with these chairs."""
    return [
        x
        for x in guest.sent
        if isinstance(x, m.TableChanged) and x.info.name == table and x.info.players == players
    ]


async def said_at_hello(
    server: Server,
    tmp_path: Path,
    name: str,
    password: str,
    identity: Ed25519PrivateKey | None = None,
) -> str:
    """What a real `hello` under `name` with `password` got: "welcome", or the words of
    its refusal."""
    known = KnownServers(tmp_path / "known")
    try:
        link = await connect(
            f"127.0.0.1:{server.port}",
            name,
            pin=server.fingerprint,
            known=known,
            password=password,
            identity=identity,
        )
    except ConnectFailed as exc:
        return str(exc)
    await link.close()
    return "welcome"


async def test_wrong_server_passwords_wait_longer_each_time(tmp_path: Path) -> None:
    async with running_server(tmp_path, password="sesame") as server:
        clock = Clock()
        server.lobby.guard.clock = clock

        async def hello(password: str) -> str:
            return await said_at_hello(server, tmp_path, "m", password)

        assert (await hello("guess")).endswith("wrong server password")
        assert (await hello("sesame")).endswith("too many wrong passwords: try again in 1 s")
        clock.now += 1.1
        assert (await hello("guess2")).endswith("wrong server password")
        assert (await hello("guess3")).endswith("try again in 2 s")
        clock.now += 2.1
        assert await hello("sesame") == "welcome"


async def test_guesses_at_once_from_one_address_are_checked_one_at_a_time(tmp_path: Path) -> None:
    """Eight connections of one address guessing at the same moment: one is checked, the
    others wait their turn and then its wait (a hostile pass had all of an address's first
    wave checked: the refusal was asked before any wrong guess was counted)."""
    async with running_server(tmp_path, password="sesame") as server:
        clock = Clock()
        server.lobby.guard.clock = clock
        said = await asyncio.gather(
            *(said_at_hello(server, tmp_path, f"m{i}", f"guess{i}") for i in range(8))
        )
        assert sum(words.endswith("wrong server password") for words in said) == 1, said
        assert sum("too many wrong passwords: try again" in words for words in said) == 7, said
        assert not server.lobby.guard._turns  # (nothing kept once nobody waits)


async def test_a_friend_who_mistyped_is_not_locked_out_with_guessers(tmp_path: Path) -> None:
    """Guessers from many addresses use up the checks they share; a friend whose key gave
    the right password before (proven at hello, before the password is checked) gets in
    after one typo, once its own wait is over; the same address with no key waits."""
    async with running_server(tmp_path, password="sesame") as server:
        clock = Clock()
        server.lobby.guard.clock = clock
        key = Ed25519PrivateKey.generate()

        async def hello(password: str, identity: Ed25519PrivateKey | None) -> str:
            return await said_at_hello(server, tmp_path, "amy", password, identity)

        assert await hello("sesame", key) == "welcome"
        assert (await hello("sesam", key)).endswith("wrong server password")
        guard = server.lobby.guard
        for i in range(40):  # guessers elsewhere on the LAN
            guard.refusal(f"10.6.0.{i}", "server")
            guard.wrong(f"10.6.0.{i}", "server")
        clock.now += 1.1  # every address's own wait is over: their next guesses go
        assert sum(guard.refusal(f"10.6.0.{i}", "server") is None for i in range(40)) == 12
        refused = await hello("sesame", None)
        assert "too many wrong passwords from many addresses" in refused, refused
        assert await hello("sesame", key) == "welcome"


async def test_an_empty_table_goes_and_does_not_come_back(tmp_path: Path) -> None:
    """No person at a table (bots do not count) for the idle time: it is removed from the
    lobby and from the journal; a table with a person stays."""
    async with running_server(
        tmp_path, idle_table_seconds=1.0, lobby_update_seconds=0.01
    ) as server:
        ann, bob = await client(server, "ann", tmp_path), await client(server, "bob", tmp_path)
        bob.keep = True
        tasks = [asyncio.create_task(c.run()) for c in (ann, bob)]
        await bob.send(m.ListTables())
        await ann.send(create("empty"))
        await ann.send(create("bots", seats=3))
        for _ in range(3):
            await ann.send(m.AddBot(table="bots", strategy="random"))
        await ann.send(create("kept", seats=3))
        await ann.send(m.Join(table="kept"))

        def heard() -> set[str]:
            """The tables bob has heard of (he need not see them all at once)."""
            names = {x.info.name for x in bob.received if isinstance(x, m.TableChanged)}
            for x in bob.received:
                if isinstance(x, m.Tables):
                    names |= {t.name for t in x.tables}
            return names

        await wait_for(lambda: {"empty", "bots", "kept"} <= heard())
        await wait_for(lambda: list(server.lobby.tables) == ["kept"], 60)
        await wait_for(lambda: bob.tables is not None and [t.name for t in bob.tables] == ["kept"])
        gone = {x.table for x in bob.received if isinstance(x, m.TableGone)}
        assert gone == {"empty", "bots"}
        for t in tasks:
            t.cancel()
    config = replace(FAST, data_dir=tmp_path / "data", idle_table_seconds=1.0)
    async with Server(config) as again:
        assert list(again.lobby.tables) == ["kept"]


async def test_the_lobby_lists_any_number_of_tables(cheap_scrypt: None) -> None:
    """Hundreds of tables with the longest names and many toggles: every lobby guest still
    gets the whole list, in pages that each fit a frame; a change is one table's news."""
    config: ServerConfig = replace(FAST, journal=False, tables_per_address=1000)
    hall = Lobby(config, lambda table, record: None)
    host = Guest("host")
    toggles = {
        "bombs": True,
        "twos_clear": True,
        "revolution": True,
        "must_beat": True,
        "jokers": 2,
        "joker_mode": "wild",
        "equal_plays": "skip",
        "target": 99,
    }
    count = 220
    for i in range(count):
        await hall.handle(host, create(f"{i:03d} " + "€" * 36, toggles=toggles, password="pw"))
    assert host.errors() == []
    ann = Guest("ann")
    await hall.handle(ann, m.ListTables())
    sizes = [len(pack(x.to_wire())) for x in ann.sent]
    assert max(sizes) < MAX_FRAME // 2
    assert sum(len(x.tables) for x in ann.sent if isinstance(x, m.Tables)) == count


def most_checks(seconds: float) -> float:
    """The most wrong passwords one address can have checked in `seconds`: the k-th check
    comes at least 1 + 2 + ... + 2^(k-2) = 2^(k-1) - 1 s after the first (each wait
    doubles), so k <= 1 + log2(1 + seconds), however fast the guesses come."""
    return 1 + math.log2(1 + seconds)


@pytest.mark.slow
async def test_a_real_server_slows_password_guessing_and_logs_it_once(tmp_path: Path) -> None:
    """`president server --password`: a guest guessing as fast as it can is refused
    unchecked during each wait, so in any stretch of time at most `most_checks` of its
    guesses are checked, at the server and at a table; the right password gets in once
    the wait is over; the host's log has one line per burst, not one per guess.  (How
    long each wait is, is pinned against a fake clock:
    test_wrong_server_passwords_wait_longer_each_time.)"""
    server = await ServerProcess.started(tmp_path / "data", 0, "--password", "sesame")
    known = KnownServers(tmp_path / "known")
    loop = asyncio.get_running_loop()

    async def hello(name: str, password: str) -> Client | str:
        try:
            link = await connect(
                server.address, name, pin=server.pin, known=known, password=password
            )
        except ConnectFailed as exc:
            return str(exc)
        return Client(link)

    try:
        checked = refused = 0
        begun = loop.time()
        async with asyncio.timeout(120):  # (only a hang ends it: the waits grow to 60 s)
            while refused < 3:
                said = await hello("m", "guess")
                assert isinstance(said, str), "a wrong server password got in"
                checked += said.endswith("wrong server password")
                refused += "too many wrong passwords" in said
        assert 1 <= checked <= most_checks(loop.time() - begun), (checked, loop.time() - begun)
        async with asyncio.timeout(120):  # the wait over, the right password is checked
            while isinstance(ann := await hello("ann", "sesame"), str):
                assert "too many wrong passwords" in ann, ann
        mallory = await hello("m2", "sesame")
        assert not isinstance(mallory, str), mallory
        reading = [asyncio.create_task(c.run()) for c in (ann, mallory)]
        await ann.send(create("Friday", password="right"))
        await ann.send(m.Join(table="Friday", password="right"))
        await wait_for(lambda: ann.model.slot is not None)
        sent, begun = 0, loop.time()
        while [e.code for e in mallory.errors].count(Code.RATE_LIMITED) < 3:  # (each answered)
            await mallory.send(m.Join(table="Friday", password="guess"))
            sent += 1
            await wait_for(lambda n=sent: len(mallory.errors) >= n, 120)  # type: ignore[misc]
        codes = [e.code for e in mallory.errors]
        assert 1 <= codes.count(Code.WRONG_PASSWORD) <= most_checks(loop.time() - begun), codes
        assert set(codes) == {Code.WRONG_PASSWORD, Code.RATE_LIMITED}, codes
        for task in reading:
            task.cancel()
    finally:
        server.stop()
    log = server.text() + server.errors()
    lines = [line for line in log.splitlines() if "wrong" in line and "password" in line]
    assert len(lines) == 2, log  # one for the server password's burst, one for the tables'


async def test_tables_that_never_started_make_room_at_the_cap() -> None:
    """Issue 26: the cap filled by a crowd's tables; once nobody is connected at them
    (the crowd left, or the server restarted), a newcomer's table takes the oldest's
    place.  A table someone sits at, watches, or plays at is never taken."""
    hall = lobby(max_tables=4, tables_per_address=3)
    crowd = [Guest(f"m{i}", address=f"10.6.6.{i}") for i in range(4)]
    for i, mallory in enumerate(crowd):
        await hall.handle(mallory, create(f"spam {i}"))
        await hall.handle(mallory, m.Join(table=f"spam {i}"))
    ann = Guest("ann", address="10.0.0.7")
    await hall.handle(ann, create("Friday"))  # every table has a person connected at it
    assert "Friday" not in hall.tables and ann.errors() == [Code.NOT_ALLOWED]
    await hall.disconnect(crowd[1])
    await hall.disconnect(crowd[2])
    await hall.handle(ann, create("Friday"))
    assert list(hall.tables) == ["spam 0", "spam 2", "spam 3", "Friday"]  # the oldest went
    await hall.handle(ann, m.Join(table="Friday"))
    bob = Guest("bob", address="10.0.0.8")
    await hall.handle(bob, create("Saturday"))
    assert list(hall.tables) == ["spam 0", "spam 3", "Friday", "Saturday"]
    await hall.close()


async def test_a_password_table_is_hashed_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Making a password table costs an scrypt (~27 ms): it runs in a worker thread, so
    the lobby answers others meanwhile; a second table of the same name asked for while
    the first one's hash runs is refused, and the stored hash checks the password."""
    from president.server import config

    release = threading.Event()
    hash_password = config.hash_password

    def held(password: str) -> str:
        release.wait(20)  # (until the lobby has answered someone else)
        return hash_password(password)

    monkeypatch.setattr(config, "hash_password", held)
    hall = lobby()
    host, twin, ann = Guest("host"), Guest("twin", address="10.0.0.2"), Guest("ann")
    making = asyncio.create_task(hall.handle(host, create("locked", password="pw")))
    again = asyncio.create_task(hall.handle(twin, create("locked", password="other")))
    await hall.handle(ann, m.ListTables())  # answered while the hashes wait
    assert any(isinstance(x, m.Tables) for x in ann.sent) and not making.done()
    release.set()
    await asyncio.gather(making, again)
    assert host.errors() == [] and twin.errors() == [Code.NOT_ALLOWED]
    stored = hall.tables["locked"].settings.password
    assert stored is not None and await config.password_checks(stored, "pw")
    assert not await config.password_checks(stored, "other")

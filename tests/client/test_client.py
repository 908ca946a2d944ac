"""The client library against a link that fails and a server that contradicts itself:
it never raises out of its reader, it reconnects, and a bot never chooses from nothing
(found by attacking it with a hostile server: tests/server and docs/reliability.md)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import CertificateRefused, Client, ConnectFailed, Link
from president.client.headless import BotPlayer
from president.engine import parse_cards
from president.protocol import messages as m
from president.protocol.errors import Code

from ..harness.waiting import wait_for
from ..protocol.test_messages import CHAIRS, GAME


def view(number: int, status: str, game: m.GameView | None = None) -> m.TableView:
    """Friday's view after event `number`, its status `status`."""
    return m.TableView(
        table="Friday",
        number=number,
        status=status,  # type: ignore[arg-type]
        rules={"preset": "classic"},
        chairs=CHAIRS,
        turn_deadline_ms=0,
        game=game,
    )


@dataclass
class FakeLink:
    """What `Client` uses of a link: messages to read, and sends that may fail."""

    incoming: list[m.Message]
    name: str = "Ann"
    key: X25519PrivateKey = field(default_factory=X25519PrivateKey.generate)
    sent: list[m.Message] = field(default_factory=list)
    broken: bool = False

    async def receive(self) -> m.Message | None:
        return self.incoming.pop(0) if self.incoming else None

    async def send(self, message: m.Message) -> None:
        if self.broken:
            raise ConnectionResetError("Connection lost")
        self.sent.append(message)

    async def close(self) -> None:
        return None


async def test_a_link_that_breaks_while_answering_is_reconnected() -> None:
    """A reset as the client answers a ping: the reader ends, `follow` reconnects and
    asks for the tables again, instead of the error ending the client."""
    first = FakeLink([m.Ping(nonce=1)], broken=True)
    second = FakeLink([])
    client = Client(first)  # type: ignore[arg-type]
    links = [second]

    async def reconnect() -> Link:
        return links.pop(0)  # type: ignore[return-value]

    client.reconnect = reconnect
    said: list[str] = []

    async def follow() -> None:
        await client.follow(said.append, retry_seconds=0.01)

    task = asyncio.create_task(follow())
    await wait_for(lambda: second.sent)
    task.cancel()
    assert said[:2] == ["connection lost — reconnecting (attempt 1)", "reconnected"]
    assert second.sent == [m.ListTables()]


async def test_a_bot_never_chooses_from_a_view_where_nothing_is_legal() -> None:
    """A server that says we owe two cards while we hold one: no choice, no crash."""
    link = FakeLink([])
    client = Client(link)  # type: ignore[arg-type]
    bot = BotPlayer(client, RandomBot(random.Random(1)))
    game = m.GameView(
        **{
            **GAME.__dict__,
            "phase": "exchange",
            "turn": None,
            "top": None,
            "trick": (),
            "owed": ((1, 2),),
        }
    )
    view = m.TableView(
        table="Friday",
        number=20,
        status="playing",
        rules={"preset": "classic"},
        chairs=CHAIRS,
        turn_deadline_ms=0,
        game=game,
    )
    client.model.hand = list(parse_cards(["7C"]))  # one card, and two owed
    await client.handle(view)
    assert client.model.my_turn and not client.model.seat_view().legal_actions()
    assert link.sent == [] and not bot.waiting


async def test_a_server_that_says_it_is_closing_is_reconnected_to_and_the_seat_taken_back() -> None:
    """A graceful stop is a restart to come: the bye is not final; attempts are counted,
    a failure waits longer, and the seat is asked back with its token."""
    first = FakeLink([m.Bye(code="server_closing", reason="the server is shutting down")])
    second = FakeLink([])
    client = Client(first)  # type: ignore[arg-type]
    client.model.name, client.model.slot, client.model.token = "T", 1, b"t" * 32
    tries: list[float] = []

    async def reconnect() -> Link:
        tries.append(asyncio.get_running_loop().time())
        if len(tries) < 3:
            raise ConnectFailed("cannot reach a president server at 127.0.0.1:7766")
        return second  # type: ignore[return-value]

    client.reconnect = reconnect
    said: list[str] = []
    retry = 0.05
    task = asyncio.create_task(client.follow(said.append, retry_seconds=retry))
    await wait_for(lambda: second.sent)
    task.cancel()
    assert said[:4] == [
        "server restarting — reconnecting (attempt 1)",
        "server restarting — reconnecting (attempt 2)",
        "server restarting — reconnecting (attempt 3)",
        "reconnected",
    ]
    assert second.sent == [m.Resume(table="T", seat=1, token=b"t" * 32)]
    # the wait doubles: each try comes at least that long after the one before (a sleep
    # never ends early; a loaded machine only makes the gaps longer)
    assert tries[1] - tries[0] >= 2 * retry - 1e-3 and tries[2] - tries[1] >= 4 * retry - 1e-3


async def test_reconnecting_gives_up_after_its_bound_and_says_why() -> None:
    """A server that shows another certificate is refused at every attempt, and said so."""
    client = Client(FakeLink([]))  # type: ignore[arg-type]

    async def reconnect() -> Link:
        raise CertificateRefused("the server at 127.0.0.1:7766 shows the certificate AB:CD")

    client.reconnect = reconnect
    # with no bound it tries on, and says why each try after the first failed
    said: list[str] = []
    task = asyncio.create_task(client.follow(said.append, retry_seconds=0.01))
    await wait_for(lambda: len(said) >= 3)
    task.cancel()
    refused = "refused: the server shows a certificate that is not the pinned one"
    assert said[:3] == [
        "connection lost — reconnecting (attempt 1)",
        f"{refused} — reconnecting (attempt 2)",
        f"{refused} — reconnecting (attempt 3)",
    ]
    assert client.gave_up is None
    # past its bound (none left: a bound of 0 s, so no clock decides how many tries)
    said.clear()
    await asyncio.wait_for(client.follow(said.append, retry_seconds=0.01, give_up=0), 30)
    assert said == ["connection lost — reconnecting (attempt 1)", "disconnected"]
    assert client.gave_up is not None and client.gave_up.startswith("gave up reconnecting after")
    assert "shows the certificate AB:CD" in client.gave_up


async def test_a_resume_the_server_refuses_leaves_the_seat_with_the_reason() -> None:
    client = Client(FakeLink([]))  # type: ignore[arg-type]
    client.model.name, client.model.slot, client.model.token = "T", 1, b"t" * 32
    refusal = m.Error(code="no_such_table", message="there is no table called T", about="resume")
    await client.handle(refusal)
    assert client.seat_lost is refusal
    assert client.model.slot is None and client.model.token == b""


def test_after_a_lost_connection_the_history_starts_again_after_the_gap() -> None:
    """Moves made while the client was away never reach it: a history spanning the gap
    would put later moves on the wrong pile, so it starts after the gap, as for a client
    that joined mid-hand."""
    import random

    from president.client.model import TableModel
    from president.engine import Game, Passed, Phase, Played, find_preset

    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    rng = random.Random(4)
    model = TableModel()
    model.events += game.start_hand(rng=rng)[:1]  # HandStarted (the deal is nobody's)
    for turn in range(12):
        seat = game.actors[0]
        events = game.apply(seat, rng.choice(game.legal_actions(seat)))
        if turn == 6:
            model.lost_touch()  # this move's events are lost with the connection
            continue
        model.events += [e for e in events if type(e) in (Played, Passed)]
    assert game.phase is Phase.PLAY
    model.public = game.public_view()
    assert model.history() == list(game.view_for(0).history[7:])


async def test_a_finished_game_is_one_game_over_however_many_views_say_so() -> None:
    """After a game's end the table's views say "finished" until the next game starts
    (the ready flags change meanwhile): `president bot --games 3` counted each as another
    game and stopped after one.  A view saying so still ends the game for a bot that
    missed the `game_over` event (it came back after it)."""
    client = Client(FakeLink([]))  # type: ignore[arg-type]
    bot = BotPlayer(client, RandomBot(random.Random(1)))
    await client.handle(view(1, "playing"))
    await client.handle(m.GameOver(table="Friday", number=2, winners=("Bob",)))
    await client.handle(view(2, "finished"))
    assert bot.game_over.is_set() and bot.games == 1
    bot.game_over.clear()  # as `president bot` does before its next ready
    for number in (3, 4, 5):  # the others say ready: the same finished game
        await client.handle(view(number, "finished"))
    assert not bot.game_over.is_set()
    await client.handle(view(6, "playing"))  # the next game; its end only seen in a view
    await client.handle(view(7, "finished"))
    assert bot.game_over.is_set()


async def test_a_new_games_commit_forgets_the_last_games_deals() -> None:
    """Hand numbers start again with each game: a commit for hand h begins it, and what
    was kept of hand h or later is the last game's.  Kept, a reveal of this game checked
    against the last game's commit and cards read as a failed deal (a false alarm of a
    server cheating), and the notes showed the last game's "fair deal of hand 11"."""
    link = FakeLink([])
    client = Client(link)  # type: ignore[arg-type]
    model = client.model
    for hand in range(9, 11):  # the last game's last hands, checked
        await client.handle(m.DealCommit(table="T", hand=hand, digest=bytes(32)))
        model.dealt[hand] = list(parse_cards("3C 4D"))
        model.deal_results[hand] = None
    model.deals_missed.add(8)
    await client.handle(m.DealCommit(table="T", hand=0, digest=bytes([1]) * 32))
    assert model.deal_results == {} and model.deals_missed == set()
    assert list(client.commits) == [0] and client.commits[0] == bytes([1]) * 32
    assert list(client.seeds) == [0] and model.dealt == {}
    seed = [x for x in link.sent if isinstance(x, m.ClientSeed)][-1]
    assert seed.hand == 0 and seed.seed == client.seeds[0]
    # within a game, the next hand's commit keeps the hands before it
    model.deal_results[0] = None
    await client.handle(m.DealCommit(table="T", hand=1, digest=bytes(32)))
    assert model.deal_results == {0: None} and sorted(client.commits) == [0, 1]


async def test_a_view_between_games_forgets_the_last_games_deals() -> None:
    """A client that said ready, dropped before the next game's first deal and came back
    in its hand 10 never saw hand 10's commit: kept, the last game's commit and cards of
    its own hand 10 were checked against this game's reveal, a false "FAILED".  A view of
    a table with no game under way (every chair sees one between games, resuming too)
    forgets them; what the checks found stays for the notes."""
    link = FakeLink([])
    client = Client(link)  # type: ignore[arg-type]
    model = client.model
    model.me = "Ann"  # (her seat is read off the view's seating)
    for hand in (9, 10):  # the last game's last hands, checked
        await client.handle(m.DealCommit(table="Friday", hand=hand, digest=bytes(32)))
        model.dealt[hand] = list(parse_cards("3C 4D"))
        model.deal_results[hand] = None
    await client.handle(view(40, "finished", GAME))
    assert client.commits == {} and client.seeds == {} and model.dealt == {}
    assert model.deal_results == {9: None, 10: None}  # (the notes' last line stays)
    await client.handle(view(90, "playing", GAME))  # back in the next game's hand 10
    assert model.seat is not None
    await client.handle(
        m.DealReveal(
            table="Friday",
            hand=10,
            server_seed=bytes([7]) * 32,
            client_seeds=(bytes([8]) * 32,),
            dealer=0,
            start=1,
            players=4,
        )
    )
    assert not [x for x in link.sent if isinstance(x, m.DealCheck)]
    assert 10 in model.deals_missed and model.deal_results[10] is None


@pytest.mark.parametrize("refused", [False, True])
async def test_a_watcher_watches_again_after_a_reconnect(refused: bool) -> None:
    """Watchers stayed on a frozen table after a server restart ("reconnected to your
    seat", then nothing): the client asks to watch again, with the password it gave; a
    refusal then ends the watching, as a seat not given back ends a seat."""
    first = FakeLink([m.Ping(nonce=1)], broken=True)
    answer = m.Error(code=Code.NO_SUCH_TABLE, message="no table T", about="spectate")
    second = FakeLink([answer] if refused else [])
    client = Client(first)  # type: ignore[arg-type]
    client.watching = m.Spectate(table="T", password="pw")  # (as `send` keeps it)

    async def reconnect() -> Link:
        return second  # type: ignore[return-value]

    client.reconnect = reconnect
    said: list[str] = []
    task = asyncio.create_task(client.follow(said.append, retry_seconds=0.01))
    await wait_for(lambda: second.sent)
    # (the first thing sent: the fake link then ends, and the client goes round again)
    assert second.sent[0] == m.Spectate(table="T", password="pw")
    if refused:
        await wait_for(lambda: client.seat_lost is answer)
        assert client.watching is None
    else:
        assert client.seat_lost is None and client.watching is not None
    task.cancel()


async def test_what_the_client_watches_follows_what_it_asked() -> None:
    client = Client(FakeLink([]))  # type: ignore[arg-type]
    await client.send(m.Spectate(table="T"))
    assert client.watching == m.Spectate(table="T")
    await client.send(m.Leave())
    assert client.watching is None
    await client.send(m.Spectate(table="T"))
    await client.send(m.Join(table="T"))  # a watcher who sits is a player
    assert client.watching is None
    await client.send(m.Spectate(table="U", password="x"))
    await client.handle(m.Error(code=Code.WRONG_PASSWORD, message="no", about="spectate"))
    assert client.watching is None and client.seat_lost is None  # (refused from the lobby)


async def test_a_late_refusal_of_watching_again_is_not_taken_for_a_lost_seat() -> None:
    """A hostile pass: the user left during the re-watch after a drop; its refusal then
    set `seat_lost`, and the next table left sent no `leave`.  And a watcher put out when
    an unstarted table closed (an error about ready, `timeout`) still watched it, asking
    to watch it again after the next drop."""
    client = Client(FakeLink([]))  # type: ignore[arg-type]
    client.watching, client._rewatching = m.Spectate(table="Sat"), True
    await client.send(m.Leave())  # back to the lobby before the answer
    await client.handle(m.Error(code=Code.NO_SUCH_TABLE, message="no Sat", about="spectate"))
    assert client.seat_lost is None and client.watching is None
    await client.send(m.Spectate(table="T", password="pw"))
    await client.handle(m.Error(code=Code.TIMEOUT, message="T closed", about="ready"))
    assert client.watching is None


def table_info(name: str) -> m.TableInfo:
    return m.TableInfo(
        name=name,
        preset="classic",
        changes="",
        seats=4,
        players=("", "", "", ""),
        status="waiting",
        password=False,
        turn_seconds=0,
        spectators=0,
    )


async def test_a_hostile_servers_floods_keep_the_clients_memory_bounded() -> None:
    """A hostile pass grew a client to 1.65 GB: chat, errors, commits for hands 0 to
    199,999, and `tables` pages that never ended, each kept whole.  Each is kept to a
    bound now (the newest kept), and `errors_heard` still counts every error."""
    from president.client import connection, model

    flood: list[m.Message] = [
        m.Chat(scope="table", sender="mal", text=f"line {n}") for n in range(2200)
    ]
    flood += [m.Error(code=Code.BAD_MESSAGE, message=f"no {n}") for n in range(1500)]
    flood += [m.DealCommit(table="Friday", hand=n, digest=bytes(32)) for n in range(300)]
    flood += [
        m.Tables(
            tables=tuple(table_info(f"t{page}-{n}") for n in range(1000)), page=page, more=True
        )
        for page in range(7)
    ]
    flood += [m.TableChanged(info=table_info(f"new-{n}")) for n in range(200)]
    client = Client(FakeLink(list(flood)))  # type: ignore[arg-type]
    await client.run()
    assert len(client.model.chat) <= model.KEPT_CHAT and client.model.chat[-1].text == "line 2199"
    assert len(client.errors) <= connection.KEPT_ERRORS and client.errors_heard == 1500
    assert client.errors[-1].message == "no 1499"
    assert len(client.commits) == len(client.seeds) == connection.KEPT_DEALS
    assert max(client.commits) == 299
    paging = client.lobby._paging
    assert paging is not None and len(paging) == model.LISTED_MOST
    assert "new-0" not in paging  # (a table beyond the bound is not listed)
    # a list that completes is taken whole (to the bound), and a table in it updated
    client = Client(FakeLink([*flood[-207:-200], m.Tables(tables=(), page=7, more=False)]))  # type: ignore[arg-type]
    client.link.incoming.append(m.TableChanged(info=table_info("t0-0")))  # type: ignore[attr-defined]
    await client.run()
    assert client.tables is not None and len(client.tables) == model.LISTED_MOST


async def test_a_flood_of_messages_does_not_hold_the_event_loop() -> None:
    """A hostile server's flood of `table_info` froze the terminal: q and Ctrl-C did
    nothing, since a read of a full buffer never waits and the keys were never read.
    The reader lets the loop run between messages."""
    flood: list[m.Message] = [m.Chat(scope="lobby", sender="mal", text="hi")] * 2000
    link = FakeLink(list(flood))
    reading = asyncio.create_task(Client(link).run())  # type: ignore[arg-type]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    left = len(link.incoming)  # (this task ran again while the flood was being read)
    await reading
    assert 0 < left < 2000


async def test_a_frame_over_the_limit_ends_the_link_instead_of_leaving_it_deaf() -> None:
    """After a frame over the limit nothing more the server sends can be read (the
    connection is closed for reading): the reader ends, so the client reconnects and
    says so, where it stayed connected and deaf for good."""
    from types import SimpleNamespace

    from president.protocol.connection import Connection
    from president.protocol.errors import RemoteProtocolError

    conn = Connection("client")
    conn.receive_data(b"\xff\xff\xff\xff")  # a length header of 4 GiB
    with pytest.raises(RemoteProtocolError):
        conn.next_event()
    assert conn.state == "closed"

    class Oversize(FakeLink):
        async def receive(self) -> m.Message | None:
            if self.incoming:
                return self.incoming.pop(0)
            if self.conn.state == "closed":  # (read on: the client stays deaf for good)
                raise AssertionError("the reader went on after the frame over the limit")
            self.conn.state = "closed"
            raise RemoteProtocolError(Code.FRAME_TOO_LARGE, "a frame of 4294967295 bytes")

    link = Oversize([m.Ping(nonce=1)])
    link.conn = SimpleNamespace(state="open")  # type: ignore[attr-defined]
    client = Client(link)  # type: ignore[arg-type]
    await asyncio.wait_for(client.run(), 5)
    assert client.errors[-1].code == Code.FRAME_TOO_LARGE


async def test_a_packed_record_that_does_not_unpack_is_dropped_and_said() -> None:
    """`game_record.packed` (version 18): a hostile server's few kilobytes that unpack to
    more than `RECORD_UNPACKED`, bytes that are no zlib, a stream cut short or running
    on, or pages packed and not: no record, and why (`record_dropped`, an error kept);
    a good one unpacks to the record."""
    import zlib

    from president.protocol.packing import pack_record

    record = b'{"hands": []}'
    bomb = zlib.compress(b" " * (m.RECORD_UNPACKED + 1), 9)
    assert len(bomb) < m.RECORD_PAGE
    good = pack_record(record)
    cases: list[tuple[list[tuple[bytes, bool]], str]] = [
        ([(bomb, True)], "unpacks to more than"),
        ([(b"not zlib at all", True)], "not zlib's"),
        ([(good[:-3], True)], "cut short or run on"),
        ([(good + b"more", True)], "cut short or run on"),
        ([(good[:10], True), (good[10:], False)], "packed and not packed"),
    ]
    for pages, why in cases:
        messages = [
            m.GameRecord("T", "r.json", n, n < len(pages) - 1, data, packed)
            for n, (data, packed) in enumerate(pages)
        ]
        client = Client(FakeLink(messages))  # type: ignore[arg-type]
        await client.run()
        assert client.game_record is None and why in client.record_dropped, (
            why,
            client.record_dropped,
        )
        assert client.errors and why in client.errors[-1].message
    client = Client(FakeLink([m.GameRecord("T", "r.json", 0, False, good, True)]))  # type: ignore[arg-type]
    await client.run()
    assert client.game_record == ("T", "r.json", record) and client.record_dropped == ""

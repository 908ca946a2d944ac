"""Every message: an example that round-trips, and ill-typed input refused with a code."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from president.protocol import messages as m
from president.protocol.codec import pack, unpack
from president.protocol.errors import RemoteProtocolError

CHAIRS = (
    m.Chair("Ann", "", True, True),
    m.Chair("heuristic-bot-1", "heuristic", True, True),
    m.Chair("Cat", "", False, True),
    m.Chair("Dan", "", True, True),
)
GAME = m.GameView(
    hand=1,
    phase="play",
    seating=("Dan", "Ann", "heuristic-bot-1", "Cat"),
    dealer=3,
    counts=(11, 12, 13, 12),
    turn=2,
    top=m.TopPlay(owner=1, rank=6, size=2, jokers=0),
    trick=((0, ("6C", "6D")), (1, ("9S", "9H"))),
    played=("6C", "6D", "9S", "9H"),
    revolution=False,
    opening=False,
    passed=(False, False, False, False),
    locked=(False, False, False, False),
    finish_order=(),
    standing=("Ann", "Dan", "Cat", "heuristic-bot-1"),
    scores=(1, 2, 0, 0),
    owed=(),
    hands_played=1,
    winners=(),
    places=(None, None, None, None),
)
#: A daifugo trick: a sequence of hearts on the pile, locked to hearts, jack back on, and
#: the seat to play owing a hand-over (version 5).
VARIANT_GAME = dataclasses.replace(
    GAME,
    top=m.TopPlay(owner=1, rank=7, size=3, jokers=0, run=True, suits=(2, 2, 2)),
    trick=((0, ("5H", "6H", "7H")), (1, ("10H", "JH", "QH"))),
    played=("5H", "6H", "7H", "10H", "JH", "QH"),
    turn=1,
    jack_back=True,
    lock=(2, 2, 2),
    due=m.Due(kind="discard", size=1),
)
KEY = bytes(range(32))

EXAMPLES: list[m.Message] = [
    m.Hello(versions=(2,), name="Ann", role="player", hand_key=KEY),
    m.Welcome(version=2, server="Kitchen table"),
    m.Challenge(version=4, challenge=bytes(range(32))),
    m.Proof(player_key=KEY, signature=bytes(64)),
    m.Reject(versions=(2,), reason="no protocol version in common"),
    m.Ping(nonce=7),
    m.Pong(nonce=7),
    m.Chat(scope="lobby", text="hi all"),
    m.Chat(scope="table", text="nice play", sender="Ben"),
    m.ListTables(),
    m.CreateTable(
        name="Friday",
        preset="house",
        toggles={"bombs": True, "clear_rank": 8},
        seats=4,
        password="pw",
        turn_seconds=30,
    ),
    m.Join(table="Friday", seat=2, password="pw"),
    m.Join(table="Friday"),
    m.Spectate(table="Friday"),
    m.Leave(),
    m.AddBot(table="Friday", strategy="random", seat=3),
    m.RemoveBot(table="Friday", seat=3),
    m.Ready(ready=True),
    m.Resume(table="Friday", seat=1, token=KEY),
    m.PlayCards(cards=("7C", "7D")),
    m.PlayCards(cards=("7C", "7D"), seen=151),  # (version 13: the event it answers)
    m.PassTurn(),
    m.PassTurn(seen=151),
    m.ReturnCards(cards=("3C", "4D")),
    m.HandoverCards(cards=("3C", "4D")),
    m.DiscardCards(cards=("6S",)),
    m.TakeCards(cards=("2S",)),
    m.BombRank(rank=4),
    m.Nudge(),
    m.Nudge(seen=152),
    m.Nudged(table="Friday", by="Ann", seats=(2,), seconds=60),
    m.ClientSeed(hand=2, seed=KEY),
    m.DealCheck(hand=2, ok=True),
    m.Error(code="illegal", message="a pair of 6s cannot be beaten by a single K", about="play"),
    m.Tables(
        tables=(
            m.TableInfo(
                name="Friday",
                preset="house",
                changes="bombs",
                seats=4,
                players=("Ann", "bot:random", "", ""),
                status="waiting",
                password=True,
                turn_seconds=30,
                spectators=0,
            ),
        ),
        page=1,
        more=True,
    ),
    m.TableChanged(
        info=m.TableInfo(
            name="Friday",
            preset="classic",
            changes="",
            seats=3,
            players=("Ann", "", ""),
            status="playing",
            password=False,
            turn_seconds=0,
            spectators=2,
        )
    ),
    m.TableGone(table="Friday"),
    m.Seated(table="Friday", seat=1, token=KEY),
    m.TableView(
        table="Friday",
        number=12,
        status="playing",
        rules={"preset": "house", "bombs": True},
        chairs=CHAIRS,
        turn_deadline_ms=41000,
        game=GAME,
    ),
    m.TableView(
        table="Friday",
        number=13,
        status="playing",
        rules={"preset": "daifugo"},
        chairs=CHAIRS,
        turn_deadline_ms=41000,
        game=VARIANT_GAME,
    ),
    m.TableView(
        table="Friday",
        number=0,
        status="waiting",
        rules={"preset": "classic"},
        chairs=(
            m.Chair("Ann", "", True, False),
            m.Chair("", "", False, False),
            m.Chair("", "", False, False),
        ),
        turn_deadline_ms=0,
    ),
    m.HandStarted(
        table="Friday",
        number=13,
        hand=1,
        seating=("Dan", "Ann", "heuristic-bot-1", "Cat"),
        dealer=3,
    ),
    m.Gave(table="Friday", number=15, giver=3, receiver=1, size=2),
    m.Returned(table="Friday", number=16, giver=1, receiver=3, size=2, automatic=False),
    m.ExchangeDone(table="Friday", number=18),
    m.Played(table="Friday", number=19, seat=2, cards=("KC", "KD"), clears=False, revolution=False),
    m.Passed(table="Friday", number=20, seat=3, automatic=False),
    m.Skipped(table="Friday", number=21, seat=0),
    m.TrickEnded(table="Friday", number=22, winner=2, leader=2),
    m.WentOut(table="Friday", number=23, seat=2, place=0),
    m.HandOver(
        table="Friday",
        number=60,
        hand=1,
        finish=("heuristic-bot-1", "Ann", "Dan", "Cat"),
        points=(2, 1, 0, 0),
    ),
    m.GameOver(table="Friday", number=61, winners=("Ann",)),
    m.HandedOver(table="Friday", number=30, giver=1, receiver=2, size=2),
    m.HandedOver(table="Friday", number=31, giver=1, receiver=2, size=1, timeout="time"),
    m.Discarded(table="Friday", number=32, seat=1, cards=("6S",)),
    m.Took(table="Friday", number=33, seat=1, receiver=2, cards=("2S",)),
    m.Bombed(table="Friday", number=34, seat=1, rank=4),
    m.Fell(table="Friday", number=33, seat=3, place=3),
    m.SealedHand(table="Friday", number=14, hand=1, seat=1, sealed=b"\x01" * 104, reason="deal"),
    m.DealCommit(table="Friday", hand=0, digest=KEY),
    m.DealReveal(
        table="Friday",
        hand=0,
        server_seed=KEY,
        client_seeds=(KEY, KEY, KEY, KEY),
        dealer=3,
        start=0,
        players=4,
    ),
    m.Bye(code="server_closing", reason="the host is shutting the server down"),
    # a hand's history with a snapshot (issue 27, version 9)
    m.HandHistory(
        table="Friday",
        hand=1,
        page=0,
        more=False,
        events=(
            m.HandStarted(
                table="Friday", number=140, hand=1, seating=("Ann", "Ben", "Cat"), dealer=2
            ),
            m.Gave(table="Friday", number=144, giver=2, receiver=0, size=2),
            m.Played(
                table="Friday", number=150, seat=0, cards=("3C",), clears=False, revolution=False
            ),
            m.Passed(table="Friday", number=151, seat=1, automatic=False, timeout="away"),
        ),
    ),
    # the game's ended hands with a snapshot (version 12)
    m.GameResults(
        table="Friday",
        page=0,
        more=False,
        hands=(m.HandResult(hand=0, finish=("Cat", "Ann", "Ben"), points=(2, 1, 0)),),
    ),
    # the lobby's last lines of chat with the table list (version 12)
    m.ChatHistory(lines=(m.ChatLine(sender="bob", text="we start at 8", ago=300),)),
    # a game's record for its players (version 17)
    m.RecordAsk(table="Friday"),
    m.TablePassword(table="Friday", password="hunter2"),
    m.TablePassword(table="Friday"),
    m.GameRecord(table="Friday", name="20261207-201500-Friday.json", page=0, more=False, data=b"{"),
    # the ladder (issue 15)
    m.Leaderboard(start=20, count=10, players=("Ann",)),
    m.Ratings(
        start=0,
        total=1,
        entries=(
            m.RatingEntry(
                name="Ann",
                place=1,
                rating=-12,
                mu=1488,
                sigma=500,
                hands=3,
                games=1,
                wins=0,
                places=(0, 1, 2),
                points=1,
                offices=(m.Office(title="Scum", held=2, kept=1),),
            ),
        ),
    ),
]


def test_every_message_type_has_an_example() -> None:
    assert {type(e) for e in EXAMPLES} == set(m.REGISTRY.values())


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.TYPE)
def test_round_trip(example: m.Message) -> None:
    wire = example.to_wire()
    assert wire["type"] == example.TYPE
    assert m.Message.from_wire(unpack(pack(wire))) == example


@pytest.mark.parametrize(
    ("wire", "code", "words"),
    [
        ({"type": "teleport"}, "unknown_message", "no message type 'teleport'"),
        ({"kind": "hello"}, "bad_message", "a map with a type"),  # (docs/PROTOCOL.md)
        ({"type": 7}, "unknown_message", "no message type 7"),
        ([1, 2], "bad_message", "a map"),
        (
            {
                "type": "played",
                "table": "T",
                "number": 1,
                "seat": 0,
                "cards": [],
                "clears": False,
                "revolution": False,
            },
            "bad_message",
            "cards: 0 items",
        ),
        (
            {
                "type": "table",
                "table": "T",
                "number": 1,
                "status": "over",
                "rules": {"preset": "classic"},
                "chairs": [],
                "turn_deadline_ms": 0,
            },
            "bad_message",
            "status",
        ),
        (
            {"type": "hello", "versions": [1], "name": "Ann", "role": "player"},
            "bad_message",
            "missing field 'hand_key'",
        ),
        (
            {
                "type": "hello",
                "versions": [1],
                "name": "Ann",
                "role": "player",
                "hand_key": b"short",
            },
            "bad_message",
            "hand_key: expected 32 bytes",
        ),
        (
            {"type": "hello", "versions": [], "name": "Ann", "role": "player", "hand_key": KEY},
            "bad_message",
            "versions",
        ),
        (
            {"type": "hello", "versions": [1], "name": "", "role": "player", "hand_key": KEY},
            "bad_message",
            "name",
        ),
        (
            {"type": "hello", "versions": [1], "name": "A\x00n", "role": "player", "hand_key": KEY},
            "bad_message",
            "control characters",
        ),
        (
            # a hand's history holds game events only, each whole, told apart by its type
            {
                "type": "hand_history",
                "table": "T",
                "hand": 0,
                "page": 0,
                "more": False,
                "events": [{"type": "chat", "sender": "Ann", "text": "hi"}],
            },
            "bad_message",
            "events[0]: 'chat' is not a type allowed here",
        ),
        (
            {
                "type": "hand_history",
                "table": "T",
                "hand": 0,
                "page": 0,
                "more": False,
                "events": [{"type": "passed", "table": "T", "number": 3, "seat": 1}],
            },
            "bad_message",
            "missing field 'automatic'",
        ),
        (
            {
                "type": "hand_history",
                "table": "T",
                "hand": 0,
                "page": 0,
                "more": False,
                "events": [{"table": "T", "number": 3}],
            },
            "bad_message",
            "None is not a type allowed here",
        ),
        ({"type": "join", "table": "T", "seat": 12}, "bad_message", "seat: 12 is outside 0..11"),
        ({"type": "join", "table": "T", "seat": True}, "bad_message", "seat"),
        ({"type": "ready", "ready": 1}, "bad_message", "true or false"),
        ({"type": "play", "cards": "7C"}, "bad_message", "expected a list"),
        ({"type": "play", "cards": [7]}, "bad_message", "expected text"),
        ({"type": "pass", "cards": []}, "bad_message", "unexpected field 'cards'"),
        (
            {
                "type": "create_table",
                "name": "T",
                "preset": "classic",
                "toggles": {"a": [1]},
                "seats": 4,
            },
            "bad_message",
            "toggles.a",
        ),
    ],
)
def test_ill_typed_input_is_refused_with_a_code(wire: Any, code: str, words: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        m.Message.from_wire(wire)
    assert info.value.code == code and words in info.value.message


wire_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.text(max_size=40)
    | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=5).map(tuple)
        | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)


# (each example is cheap but its drawing is not: 150, six times the profile's 25)
@settings(max_examples=settings.default.max_examples * 6)
@given(
    st.sampled_from(sorted(m.REGISTRY)),
    st.dictionaries(st.text(max_size=12), wire_values, max_size=8),
)
def test_fuzzed_messages_only_ever_raise_protocol_errors(kind: str, fields: dict[str, Any]) -> None:
    with contextlib.suppress(RemoteProtocolError):
        m.Message.from_wire({"type": kind, **fields})


def test_a_full_page_of_hand_history_fits_a_frame() -> None:
    """The biggest page a server may send: `HISTORY_PAGE` events, each as big as an event
    gets (a 40-character table name, 13 cards, 12 names of 40), within one frame."""
    from president.protocol.framing import MAX_FRAME

    name, names = "T" * 40, tuple(f"{n:02d}" + "x" * 38 for n in range(12))
    big = (
        m.HandStarted(table=name, number=2**53, hand=2**53, seating=names, dealer=11),
        m.HandOver(table=name, number=2**53, hand=2**53, finish=names, points=(-(2**31),) * 12),
    )
    plays = tuple(
        m.Played(name, 2**53, 11, ("10C",) * 13, True, True, "away")
        for _ in range(m.HISTORY_PAGE - len(big))
    )
    page = m.HandHistory(table=name, hand=2**53, page=2**31, more=True, events=big + plays)
    assert len(pack(page.to_wire())) < MAX_FRAME - 4
    assert m.Message.from_wire(unpack(pack(page.to_wire()))) == page


def test_a_full_page_of_game_results_fits_a_frame() -> None:
    """The biggest `game_results` page a server may send: `RESULTS_PAGE` hands of 12
    names of 40 characters of four bytes each, within one frame; and the pages of a
    game longer than `RESULTS_SENT` hands carry its latest hands only, in order."""
    from president.engine import HandOver
    from president.protocol.framing import MAX_FRAME
    from president.protocol.wire import results_from_wire, results_to_wire

    name = "T" * 40
    names = tuple(f"{n:02d}" + "\U0001d538" * 38 for n in range(12))
    assert len(names[0].encode()) == 2 + 4 * 38
    hands = [HandOver(hand, names, tuple((n, -(2**31)) for n in names)) for hand in range(200)]
    pages = results_to_wire(name, hands)
    assert [len(page.hands) for page in pages] == [m.RESULTS_PAGE] * 5
    assert [(page.page, page.more) for page in pages] == [(0, True)] * 1 + [
        (n, n < 4) for n in range(1, 5)
    ]
    for page in pages:
        assert len(pack(page.to_wire())) < MAX_FRAME - 4
        assert m.Message.from_wire(unpack(pack(page.to_wire()))) == page
    assert results_from_wire(pages) == tuple(hands[-m.RESULTS_SENT :])
    assert results_to_wire(name, []) == [m.GameResults(name, 0, False, ())]


def test_the_longest_chat_history_fits_a_frame() -> None:
    """`CHAT_KEPT` lines of 500 characters of four bytes each, from names of 40 such."""
    from president.protocol.framing import MAX_FRAME

    line = m.ChatLine(sender="\U0001d538" * 40, text="\U0001d538" * 500, ago=2**31)
    history = m.ChatHistory(lines=(line,) * m.CHAT_KEPT)
    assert len(pack(history.to_wire())) < MAX_FRAME - 4
    assert m.Message.from_wire(unpack(pack(history.to_wire()))) == history

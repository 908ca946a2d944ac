"""Client and server `Connection`s paired in memory (after h11's ConnectionPair)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.connection import Connection, choose_version
from president.protocol.errors import LocalProtocolError, RemoteProtocolError
from president.protocol.framing import encode_frame

KEY = bytes(32)
HELLO = m.Hello(versions=m.OFFERED, name="Ann", role="player", hand_key=KEY)


def pair() -> tuple[Connection, Connection]:
    return Connection("client"), Connection("server")


def deliver(data: bytes, to: Connection) -> list[m.Message]:
    to.receive_data(data)
    return list(to.events())


def test_a_handshake_and_a_conversation() -> None:
    client, server = pair()
    assert deliver(client.send(HELLO), server) == [HELLO]
    newest = max(m.VERSIONS)
    assert choose_version(HELLO.versions) == newest
    challenge = m.Challenge(version=newest, challenge=bytes(range(32)))
    assert deliver(server.send(challenge), client) == [challenge]
    proof = m.Proof(player_key=KEY, signature=bytes(64))
    assert deliver(client.send(proof), server) == [proof]
    welcome = m.Welcome(version=newest, server="home")
    assert deliver(server.send(welcome), client) == [welcome]
    assert client.state == server.state == "open" and client.version == newest
    play = m.PlayCards(cards=("7C",))
    assert deliver(client.send(play), server) == [play]
    event = m.Passed(table="t", number=1, seat=1, automatic=False, timeout="time")
    assert deliver(server.send(event), client) == [event]


def test_a_version_2_client_gets_no_field_of_version_3() -> None:
    """A version-2 reader refuses a field its messages do not have: a server that chose
    version 2 leaves `timeout` out (the same message object, broadcast, keeps it for a
    version-3 peer); a version-3 client reads a version-2 server's `passed` as it is."""
    old_client, server, new_server, new_client = (
        Connection("client"),
        Connection("server"),
        Connection("server"),
        Connection("client"),
    )
    deliver(old_client.send(m.Hello(versions=(2,), name="Old", role="bot", hand_key=KEY)), server)
    deliver(server.send(m.Welcome(version=2, server="home")), old_client)
    deliver(new_client.send(HELLO), new_server)
    deliver(new_server.send(m.Welcome(version=3, server="home")), new_client)
    events = [
        m.Passed(table="t", number=1, seat=1, automatic=False, timeout="away"),
        m.Played(
            table="t",
            number=2,
            seat=0,
            cards=("3C",),
            clears=False,
            revolution=False,
            timeout="left",
        ),
        m.Returned(
            table="t", number=3, giver=1, receiver=0, size=1, automatic=False, timeout="time"
        ),
    ]
    for event in events:
        assert deliver(new_server.send(event), new_client) == [event]
        data = server.send(event)
        assert b"timeout" not in data
        assert deliver(data, old_client) == [dataclasses.replace(event, timeout="")]
        assert deliver(new_server.send(event), new_client) == [event]  # the cache is per version


def opened(version: int) -> tuple[Connection, Connection]:
    """A client and a server that chose `version` (no player key asked for)."""
    client, server = pair()
    deliver(client.send(m.Hello(versions=(version,), name="Ann", role="bot", hand_key=KEY)), server)
    deliver(server.send(m.Welcome(version=version, server="home")), client)
    return client, server


PLAIN_GAME = m.GameView(
    hand=0,
    phase="play",
    seating=("a", "b", "c"),
    dealer=2,
    counts=(10, 12, 13),
    turn=1,
    top=m.TopPlay(owner=0, rank=4, size=3, jokers=0),
    trick=((0, ("7C", "8C", "9C")),),
    played=("7C", "8C", "9C"),
    revolution=False,
    opening=False,
    passed=(False,) * 3,
    locked=(False,) * 3,
    finish_order=(),
    standing=(),
    scores=(0, 0, 0),
    owed=(),
    hands_played=0,
    winners=(),
    places=(None,) * 3,
)


def test_a_client_before_version_5_gets_no_field_and_no_message_of_version_5() -> None:
    """A version-4 reader refuses the variant fields of a `table` (at a plain table each
    is at its default, so nothing is lost) and has no variant message types: the server
    leaves the fields out for it and never sends it those messages; a version-5 client
    reads a version-4 server's `table` as it is (the fields absent: their defaults)."""
    old_client, old_server = opened(4)
    new_client, new_server = opened(5)
    variant = dataclasses.replace(
        PLAIN_GAME,
        top=m.TopPlay(owner=0, rank=4, size=3, jokers=0, run=True, suits=(0, 0, 0)),
        jack_back=True,
        lock=(0, 0, 0),
        due=m.Due(kind="handover", size=1),
    )
    for game in (PLAIN_GAME, variant):
        view = m.TableView(
            table="t",
            number=4,
            status="playing",
            rules={"preset": "classic"},
            chairs=(m.Chair("a", "", True, True),) * 3,
            turn_deadline_ms=0,
            game=game,
        )
        assert deliver(new_server.send(view), new_client) == [view]
        data = old_server.send(view)
        for name in ("jack_back", "lock", "due", "run", "suits"):
            assert pack(name) not in data  # (as a msgpack key)
        assert deliver(data, old_client) == [dataclasses.replace(view, game=PLAIN_GAME)]
        assert deliver(new_server.send(view), new_client) == [view]  # the cache is per version
    news = [
        m.HandedOver(table="t", number=5, giver=0, receiver=1, size=1),
        m.Discarded(table="t", number=6, seat=1, cards=("4H",)),
        m.Fell(table="t", number=7, seat=2, place=2),
    ]
    for event in news:
        assert deliver(new_server.send(event), new_client) == [event]
        with pytest.raises(LocalProtocolError):
            old_server.send(event)
    for action in (m.HandoverCards(cards=("4H",)), m.DiscardCards(cards=("5C",))):
        assert deliver(new_client.send(action), new_server) == [action]
        with pytest.raises(LocalProtocolError):
            old_client.send(action)


def test_version_negotiation() -> None:
    assert choose_version((1, 2, 3), (1, 2)) == 2
    assert choose_version((9,), (1,)) is None
    assert choose_version((1,)) is None  # version 1 carried events as kind + data: gone
    client, server = pair()
    deliver(client.send(m.Hello(versions=(9,), name="Old", role="bot", hand_key=KEY)), server)
    reject = m.Reject(versions=m.OFFERED, reason="no version in common")
    assert deliver(server.send(reject), client) == [reject]
    assert client.state == "closed" and server.state == "closed"


def test_a_message_before_hello_is_a_handshake_error() -> None:
    _, server = pair()
    server.receive_data(encode_frame(b"not msgpack at all \xc1"))
    with pytest.raises(RemoteProtocolError):
        server.next_event()
    other = Connection("server")
    from president.protocol.codec import pack

    other.receive_data(encode_frame(pack(m.ListTables().to_wire())))
    with pytest.raises(RemoteProtocolError) as info:
        other.next_event()
    assert info.value.code == "handshake"


def test_a_second_hello_is_refused() -> None:
    client, server = pair()
    data = client.send(HELLO)
    server.receive_data(data + data)
    assert server.next_event() == HELLO
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "handshake"


def test_a_client_cannot_send_server_messages_and_vice_versa() -> None:
    client, server = pair()
    with pytest.raises(LocalProtocolError):
        client.send(m.ListTables())  # hello first
    deliver(client.send(HELLO), server)
    with pytest.raises(LocalProtocolError):
        client.send(m.Seated(table="t", seat=0, token=KEY))
    with pytest.raises(LocalProtocolError):
        server.send(m.Tables(tables=()))  # welcome first
    deliver(server.send(m.Welcome(version=1, server="s")), client)
    with pytest.raises(LocalProtocolError):
        server.send(m.PlayCards(cards=("3C",)))
    # A hostile peer sending the other side's messages is refused on arrival.
    from president.protocol.codec import pack

    server.receive_data(encode_frame(pack(m.Seated(table="t", seat=0, token=KEY).to_wire())))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "not_allowed"


def test_bad_frames_surface_in_order() -> None:
    client, server = pair()
    good = client.send(HELLO)
    server.receive_data(good + encode_frame(b"\xc1") + client.send(m.Ping(nonce=1)))
    assert server.next_event() == HELLO
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "bad_msgpack"
    assert server.next_event() == m.Ping(nonce=1)


@settings(max_examples=300)
@given(st.binary(max_size=2000))
def test_fuzzed_bytes_only_ever_raise_protocol_errors(data: bytes) -> None:
    server = Connection("server")
    server.receive_data(Connection("client").send(HELLO) + data)
    for _ in range(100):
        try:
            if server.next_event() is None:
                break
        except RemoteProtocolError:
            continue


CHALLENGE = m.Challenge(version=4, challenge=bytes(32))
PROOF = m.Proof(player_key=KEY, signature=bytes(64))


def test_a_proof_answers_one_challenge_and_nothing_else_does() -> None:
    """The player-key exchange (version 4) sits between hello and welcome: a proof comes
    only after a challenge, once, and while one is owed nothing else is taken."""
    client, server = pair()
    deliver(client.send(HELLO), server)
    with pytest.raises(LocalProtocolError):
        client.send(PROOF)  # nothing asked for one
    unasked = Connection("server")
    deliver(Connection("client").send(HELLO), unasked)
    with pytest.raises(RemoteProtocolError, match="one proof"):
        deliver(encode_frame(_packed(PROOF)), unasked)
    deliver(server.send(CHALLENGE), client)
    with pytest.raises(LocalProtocolError):
        server.send(m.Welcome(version=4, server="home"))  # the proof first
    with pytest.raises(LocalProtocolError):
        server.send(CHALLENGE)  # one challenge
    with pytest.raises(LocalProtocolError):
        client.send(m.ListTables())  # the proof first
    with pytest.raises(RemoteProtocolError, match="one proof, not list_tables"):
        deliver(encode_frame(_packed(m.ListTables())), server)
    deliver(client.send(PROOF), server)
    with pytest.raises(LocalProtocolError):
        client.send(PROOF)
    with pytest.raises(RemoteProtocolError, match="one proof"):
        deliver(encode_frame(_packed(PROOF)), server)
    deliver(server.send(m.Welcome(version=4, server="home")), client)
    assert client.state == server.state == "open"


def test_a_challenge_after_welcome_or_twice_is_refused_by_the_client() -> None:
    client = Connection("client")
    client.send(HELLO)
    client.receive_data(encode_frame(_packed(CHALLENGE)))
    assert list(client.events()) == [CHALLENGE]
    with pytest.raises(RemoteProtocolError, match="expected welcome, not challenge"):
        deliver(encode_frame(_packed(CHALLENGE)), client)
    late = Connection("client")
    late.send(m.Hello(versions=(3,), name="Ann", role="player", hand_key=KEY))
    deliver(encode_frame(_packed(m.Welcome(version=3, server="home"))), late)
    with pytest.raises(RemoteProtocolError, match="does not send challenge"):
        deliver(encode_frame(_packed(CHALLENGE)), late)


def _packed(message: m.Message) -> bytes:
    from president.protocol.codec import pack

    return pack(message.to_wire())


def test_a_peer_before_version_5_may_not_send_a_message_of_version_5() -> None:
    """What this side never sends an older peer, it does not take from one either: a
    version-4 client's hand-over is refused as not in its version, and so is a version-4
    server's fall."""
    old_client, old_server = opened(4)
    for action in (m.HandoverCards(cards=("4H",)), m.DiscardCards(cards=("5C",))):
        old_server.receive_data(encode_frame(pack({"type": action.TYPE, **action.to_wire()})))
        with pytest.raises(RemoteProtocolError, match="not in protocol version 4"):
            list(old_server.events())
    fell = m.Fell(table="t", number=7, seat=2, place=2)
    old_client.receive_data(encode_frame(pack({"type": fell.TYPE, **fell.to_wire()})))
    with pytest.raises(RemoteProtocolError, match="not in protocol version 4"):
        list(old_client.events())


def test_a_hand_history_goes_to_version_9_only_each_event_as_its_type_reads() -> None:
    """`hand_history` (version 9) carries game events inside it, each with its type: a
    version-9 client reads them back as sent; an older peer is never sent one.  The
    events inside are cut to the peer's version by their own types (what a later event
    field would need)."""
    history = m.HandHistory(
        table="t",
        hand=0,
        page=0,
        more=False,
        events=(
            m.HandStarted(table="t", number=1, hand=0, seating=("a", "b", "c"), dealer=2),
            m.Played(table="t", number=5, seat=0, cards=("3C",), clears=False, revolution=False),
            m.Passed(table="t", number=6, seat=1, automatic=False, timeout="time"),
        ),
    )
    new_client, new_server = opened(9)
    assert deliver(new_server.send(history), new_client) == [history]
    _, old_server = opened(8)
    with pytest.raises(LocalProtocolError, match="not in protocol version 8"):
        old_server.send(history)
    wired = m.for_version(history.to_wire(), m.HandHistory, 2)
    assert [sorted(e) for e in wired["events"]][2] == sorted(
        ["type", "table", "number", "seat", "automatic"]
    )


def test_a_rating_s_provisional_mark_goes_to_version_11_only() -> None:
    """`ratings.entries[].provisional` (version 11): sent and read back as sent to a
    version-11 client, left out for an older one (whose reader would refuse a field it
    does not know), which reads the entry as established."""
    entry = m.RatingEntry(
        name="ann", place=2, rating=-197, mu=1258, sigma=485, hands=3, games=0, wins=0,
        places=(1, 1, 1), points=4, offices=(), provisional=True,
    )  # fmt: skip
    ratings = m.Ratings(start=0, total=2, entries=(entry,))
    new_client, new_server = opened(11)
    assert deliver(new_server.send(ratings), new_client) == [ratings]
    old_client, old_server = opened(10)
    got = deliver(old_server.send(ratings), old_client)
    assert got == [
        m.Ratings(start=0, total=2, entries=(dataclasses.replace(entry, provisional=False),))
    ]
    assert "provisional" not in m.for_version(ratings.to_wire(), m.Ratings, 10)["entries"][0]


def test_a_client_offers_its_newest_versions_which_an_older_server_reads() -> None:
    """A client of version 18 offering all 17 of its versions was refused by a server of
    version 17 ("hello.versions: 17 items is outside 1..16", its schema's bound, which
    every earlier version's has too): a client offers its newest 16, and a server of 17
    answers them with 17."""
    from president.client.connection import versions_offered
    from president.protocol.connection import choose_version

    offered = versions_offered(True)
    assert offered == m.OFFERED and max(offered) == max(m.VERSIONS)
    hello = m.Hello(versions=offered, name="Ann", role="player", hand_key=KEY)
    server = Connection("server")
    server.receive_data(Connection("client").send(hello))
    assert server.next_event() == hello  # (within the bound of every version's schema)
    assert choose_version(offered, [v for v in m.VERSIONS if v <= 17]) == 17
    assert versions_offered(False) == (2, 3)

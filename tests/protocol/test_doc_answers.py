"""What a client written from docs/PROTOCOL.md alone had to guess, each answered in the
document and held here to what the code does.

guess -> where answered (docs/PROTOCOL.md) -> test

Already answered before this list was made:

- the proof's version byte -> Player keys, step 2 ->
  test_the_proof_signs_the_version_chosen_as_one_byte
- which certificate bytes the proof hashes -> Player keys, step 2 ->
  test_the_proof_binds_the_sha256_of_the_der_certificate_tls_shows
- `played.revolution` -> Game events, `played` (a jack under jack_back is not one: added)
  -> test_played_revolution_is_true_for_each_play_that_turns_the_order_over
- `table.turn_deadline_ms` -> `table` (it was wrong: a seat away does not hold the timer,
  only a restart does) ->
  test_turn_deadline_ms_counts_down_runs_on_while_away_is_0_between_hands
- when a hand-over's sealed hands come -> `handed_over`, and now "What one move sends, in
  order" -> tests/server/test_variants.py::
  test_a_hand_over_reseals_both_hands_and_tells_the_third_seat_only_its_size, and
  test_sealed_hands_come_after_the_events_of_their_move (the same rule for the exchange)
- which refusals count toward the ten -> Error codes ->
  test_only_protocol_refusals_count_toward_the_ten_bad_messages

Found reading the document as a client's author:

- when the exchange's sealed hands come, and the number of a dealt hand -> What one move
  sends, in order -> test_sealed_hands_come_after_the_events_of_their_move
- the order at the end of a hand (does the last seat get `went_out`? `reveal` before or
  after `game_over` and `table`?) -> What one move sends, in order ->
  test_the_end_of_a_hand_comes_in_the_documented_order
- `trick_ended.winner` against `leader` -> Game events ->
  test_trick_ended_leader_is_the_winner_or_the_next_seat_holding_cards
- when `skipped` is sent -> Game events ->
  test_skipped_is_sent_for_a_skip_and_never_for_a_seat_out_of_the_trick
- the order of the cards in `played.cards`, `trick`, `game.played` -> Values on the wire,
  Cards -> test_the_cards_of_a_play_come_back_in_card_id_order
- what answers `leave`; lobby news without `list_tables`; what answers `create_table`
  -> `leave`, `list_tables`, `create_table` ->
  test_leave_create_table_and_the_lobby_news_as_documented
- the lobby entry's `changes` and `players`; a new table's `table.number` -> `tables`,
  Numbering -> test_a_lobby_entry_says_changes_and_players_as_documented
- who gets a `chat`, and whether the sender gets its own back -> `chat` ->
  test_chat_goes_back_to_its_sender_and_to_its_scope_only
- whether `client_seed` and `deal_check` are answered -> `client_seed`, `deal_check` ->
  test_a_seed_taken_and_a_deal_check_are_not_answered
- whether an `error` to a `hello` ends the connection -> `hello` ->
  test_a_refused_hello_leaves_the_connection_open_for_a_good_one

Found by a client written from the document alone (2026-12-07), which played whole
games and came back mid-hand with it:

- whether your hand comes again after your own play; in a snapshot, the `table` or the
  `hand` first -> `hand` -> test_your_hand_is_not_sent_after_your_own_play_and_a_snapshot_ends_with_it
- which fields `create_table` needs; what `clear_rank` 8 is -> `create_table` ->
  test_create_table_needs_toggles_and_seats_and_clear_rank_is_a_cards_face
- the strategies `add_bot` takes -> `add_bot` ->
  test_add_bot_takes_the_strategies_and_levels_the_document_lists
- what answers `spectate` -> `spectate` -> test_spectate_is_answered_with_the_view_and_no_hand
- the lobby's chat after `leave` -> `chat_history` -> tests/server/test_lobby.py::
  test_who_comes_to_the_lobby_reads_its_last_lines_of_chat
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.engine import Game, Phase, Play, TrickEnded, find_preset, parse_cards
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.certs import fingerprint, make_certificate, pem_to_der
from president.protocol.codec import pack, unpack
from president.protocol.errors import Code
from president.protocol.framing import FrameReader, encode_frame
from president.protocol.identity import (
    KEYLESS_VERSIONS,
    certificate_digest,
    proof_bytes,
    proof_problem,
    public_bytes,
    sign_proof,
)
from president.protocol.sealing import public_key_bytes
from president.server.config import TableSettings
from president.server.table import Table

from ..engine.helpers import game_with, play
from ..harness.servers import client, round_trip, running_server
from ..harness.waiting import wait_for
from ..server.test_hostile_guests import Guest, create, lobby
from ..server.test_robustness import raw_tls
from ..server.test_table import (
    Member,
    all_ready,
    back_after_a_drop,
    game_of,
    member_of,
    play_until,
    refused,
    seated,
    table,
    under_way,
)
from .test_certs import handshake

CLASSIC = find_preset("classic")


# --- player keys ------------------------------------------------------------------------


def test_the_proof_signs_the_version_chosen_as_one_byte() -> None:
    digest, challenge = bytes(range(32)), bytes(32)
    signed = proof_bytes(6, digest, challenge)
    assert len(signed) == 92
    assert signed == b"president player key proof\x00" + b"\x06" + digest + challenge
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    made_for_4 = sign_proof(key, 4, digest, challenge)
    assert proof_problem(public_bytes(key), made_for_4, 4, digest, challenge) is None
    assert proof_problem(public_bytes(key), made_for_4, 6, digest, challenge) is not None


def test_the_proof_binds_the_sha256_of_the_der_certificate_tls_shows(tmp_path: Path) -> None:
    """The server binds proofs to SHA-256 of its cert.pem as DER (server/app.py through
    storage.certificate); a client hashes the leaf certificate the TLS handshake showed
    (`getpeercert(binary_form=True)`): the same 32 bytes, and not a hash of the PEM."""
    cert_pem, key_pem = make_certificate("kitchen")
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    (tmp_path / "key.pem").write_bytes(key_pem)
    _, shown = handshake(tmp_path / "cert.pem", tmp_path / "key.pem")
    assert shown is not None
    servers = certificate_digest(fingerprint(pem_to_der(cert_pem)))
    assert hashlib.sha256(shown).digest() == servers
    key, challenge = Ed25519PrivateKey.generate(), bytes(range(32))
    good = sign_proof(key, 6, hashlib.sha256(shown).digest(), challenge)
    assert proof_problem(public_bytes(key), good, 6, servers, challenge) is None
    of_pem = sign_proof(key, 6, hashlib.sha256(cert_pem).digest(), challenge)
    assert proof_problem(public_bytes(key), of_pem, 6, servers, challenge) is not None


# --- game events --------------------------------------------------------------------------


def test_played_revolution_is_true_for_each_play_that_turns_the_order_over() -> None:
    rules = CLASSIC.replace(revolution=True, jack_back=True)
    game = game_with(rules, {0: "3C 4C 4D 4H 4S 5C 5D 5H 5S JC"})
    lead_again = ("1 pass", "2 pass", "3 pass")
    said = []
    for step in ("0 4C 4D 4H 4S", "0 5C 5D 5H 5S", "0 JC"):
        events = play(game, *(("0 3C",) if not said else ()), *lead_again, step)
        message = wire.event_to_wire("T", 1, events[-1])
        assert isinstance(message, m.Played)
        view = wire.public_view_to_wire(game.public_view())
        said.append((message.revolution, view.revolution, view.jack_back))
    # a revolution starts, another four of a kind ends it, a jack reverses no revolution
    assert said == [(True, True, False), (True, False, False), (False, False, True)]


def test_trick_ended_leader_is_the_winner_or_the_next_seat_holding_cards() -> None:
    gone = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = Game(CLASSIC, ["a", "b", "c", "d"])
        game.start_hand(rng=rng)
        while game.phase is Phase.PLAY:
            seat = game.actor
            assert seat is not None
            for event in game.apply(seat, rng.choice(game.legal_actions(seat))):
                if not isinstance(event, TrickEnded):
                    continue
                counts, winner = game.card_counts(), event.winner
                if counts[winner]:
                    assert event.leader == winner
                    continue
                gone += 1
                after = [(winner + step) % 4 for step in range(1, 4)]
                assert event.leader == next(s for s in after if counts[s])
    assert gone, "no trick was won by a seat going out: the test proves nothing"


def test_skipped_is_sent_for_a_skip_and_never_for_a_seat_out_of_the_trick() -> None:
    skip = game_with(CLASSIC.replace(equal_plays="skip"), {0: "3C 6C", 1: "3D"})
    events = play(skip, "0 3C", "1 3D")
    assert [type(e).__name__ for e in events[-2:]] == ["Played", "Skipped"]
    assert events[-1] == wire.event_from_wire(m.Skipped("T", 3, 2)) and skip.turn == 3
    view = wire.public_view_to_wire(skip.public_view())
    assert view.passed == (False, False, True, False)  # answered, not locked, not a pass
    assert view.locked == (False, False, False, False)
    locked = game_with(CLASSIC.replace(passing="locked"), {0: "3C 6C", 2: "4C", 3: "5C"})
    play(locked, "0 3C", "1 pass", "2 4C", "3 5C")
    events = play(locked, "0 6C")
    assert [type(e).__name__ for e in events] == ["Played"] and locked.turn == 2


def test_the_cards_of_a_play_come_back_in_card_id_order() -> None:
    game = game_with(CLASSIC, {0: "3C 3D 3S"})
    sent = m.PlayCards(cards=("3S", "3C", "3D"))
    (event,) = game.apply(0, wire.action_from_wire(sent))
    message = wire.event_to_wire("T", 1, event)
    assert isinstance(message, m.Played) and message.cards == ("3C", "3D", "3S")
    view = wire.public_view_to_wire(game.public_view())
    assert view.trick == ((0, ("3C", "3D", "3S")),) and view.played == ("3C", "3D", "3S")
    wild = Play(parse_cards(["JK", "4S", "4C"]))
    assert wire.cards_to_wire(wild.cards) == ("4C", "4S", "JK")


# --- what a table sends, in order -------------------------------------------------------


def since_hand(member: Member, hand: int) -> list[m.Message]:
    """What `member` was sent from the `hand_started` of `hand` on."""
    start = next(
        i for i, x in enumerate(member.sent) if isinstance(x, m.HandStarted) and x.hand == hand
    )
    return member.sent[start:]


def by_view(messages: list[m.Message]) -> list[list[m.Message]]:
    """Messages cut after each `table`: one move's worth each."""
    moves: list[list[m.Message]] = [[]]
    for message in messages:
        moves[-1].append(message)
        if isinstance(message, m.TableView):
            moves.append([])
    return [move for move in moves if move]


async def test_sealed_hands_come_after_the_events_of_their_move() -> None:
    t, _ = table(seats=4)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.hand == 1 and game.phase is not Phase.BETWEEN_HANDS)
    assert game.phase is Phase.EXCHANGE
    await play_until(t, members, lambda: game.phase is not Phase.EXCHANGE)
    for member in members:
        seat = game.seating.index(member.name)
        moves = by_view(since_hand(member, 1))
        started, dealt = moves[0][0], moves[0][1]
        assert isinstance(started, m.HandStarted) and isinstance(dealt, m.SealedHand)
        assert (dealt.reason, dealt.number) == ("deal", started.number + 1 + seat)
        done = next(i for i, move in enumerate(moves) if m.ExchangeDone in map(type, move))
        assert done > 0  # the returns were moves of their own
        for move in moves[: done + 1]:
            events = [x for x in move if isinstance(x, m.TableEvent)]
            hands = [x for x in move if isinstance(x, m.SealedHand) and x.reason == "exchange"]
            moved = {
                s
                for e in events
                if isinstance(e, (m.Gave, m.Returned))
                for s in (e.giver, e.receiver)
            }
            assert len(hands) == (1 if seat in moved else 0), move  # one, however many moves
            if hands:
                last_event = max(i for i, x in enumerate(move) if isinstance(x, m.TableEvent))
                assert move.index(hands[0]) > last_event
                assert hands[0].number > max(e.number for e in events)
            assert isinstance(move[-1], m.TableView)
    await t.stop()


async def test_the_end_of_a_hand_comes_in_the_documented_order() -> None:
    t, _ = table(seats=4)
    members = await seated(t, "ann", "bob", "cat", "dan")
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.hand == 1)
    for member in [*members, watcher]:
        hand_zero = member.sent[: member.sent.index(since_hand(member, 1)[0])]
        kinds = [type(x) for x in hand_zero]
        over = kinds.index(m.HandOver)
        outs = [x for x in hand_zero if isinstance(x, m.WentOut)]
        assert sorted(x.seat for x in outs) == [0, 1, 2, 3]  # one each, the last seat's too
        assert [x.place for x in outs] == [0, 1, 2, 3]
        assert hand_zero[over - 1] == outs[-1]  # the last seat's, right before `hand_over`
        view = hand_zero[over + (1 if member is watcher else 2)]
        assert isinstance(view, m.TableView) and view.game is not None
        assert view.game.phase == "between_hands" and view.turn_deadline_ms == 0
        if member is watcher:
            assert m.DealReveal not in kinds and m.DealCommit not in kinds
            continue
        assert kinds[over + 1] is m.DealReveal  # at once, before the `table`
        assert kinds[over + 3 :].index(m.DealCommit) == 0  # the next deal's, after it
    await t.stop()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_turn_deadline_ms_counts_down_runs_on_while_away_is_0_between_hands() -> None:
    clock = Clock()
    settings = TableSettings(
        name="T",
        preset="classic",
        rules=CLASSIC,
        seats=3,
        turn_seconds=30,
        seed_seconds=0.0,
        bot_delay=0.0,
        pause_between_hands=0.0,
    )
    t = Table(settings, lambda name, record: None, clock=clock)
    members = await seated(t, "ann", "bob", "cat")
    assert t.view().turn_deadline_ms == 0  # waiting
    await all_ready(t, members)
    assert t.view().turn_deadline_ms == 30_000
    clock.now += 12.5
    assert t.view().turn_deadline_ms == 17_500
    game = game_of(t)
    await play_until(t, members, lambda: game.hand == 1)
    ended = members[0].sent.index(next(x for x in members[0].sent if isinstance(x, m.HandOver)))
    view = next(x for x in members[0].sent[ended:] if isinstance(x, m.TableView))
    assert view.turn_deadline_ms == 0  # between hands
    await wait_for(lambda: game.phase is Phase.PLAY or game.phase is Phase.EXCHANGE)
    async with t.lock:
        assert t.view().turn_deadline_ms == 30_000  # a new turn: a whole one
        turn = game.actors[0]
    away = next(x for x in members if x.name == game.seating[turn])
    await t.drop(away)
    clock.now += 5
    assert t.view().turn_deadline_ms == 25_000  # away: the time runs on
    # after a restart the time that was left is held, whatever the clock says, and
    # while the seat owing the move is not back the view counts down the window for it
    restored = Table.restored(
        settings,
        lambda name, record: None,
        clock=clock,
        slots=t.slots,
        game=game,
        status="playing",
        number=t.number,
        deal_secret=None,
        remaining=7.25,
    )
    clock.now += 3
    assert restored.driver.timer.remaining() == 7.25
    assert restored.view().turn_deadline_ms == (settings.resume_seconds - 3) * 1000
    await t.stop()


async def test_a_seed_taken_and_a_deal_check_are_not_answered() -> None:
    t, _ = table(seats=3, seed_seconds=60.0)
    members = await seated(t, "ann", "bob", "cat")
    for member in members:
        await t.ready(member, True)
    await wait_for(lambda: all(member.of(m.DealCommit) for member in members))
    ann = members[0]
    before = len(ann.sent)
    await t.client_seed(ann, 0, bytes(32))
    assert ann.sent[before:] == []
    said = await refused(Code.BAD_DEAL_SEED, lambda: t.client_seed(ann, 0, bytes(32)))
    assert "already in" in said
    t.settings.seed_seconds = 0.0  # the next deals wait for no seed
    for member in members[1:]:
        await t.client_seed(member, 0, bytes(32))
    game = game_of(t)
    await play_until(t, members, lambda: game.hand == 1)
    before = len(ann.sent)
    await t.deal_check(ann, 0, False)
    await t.deal_check(ann, 0, True)  # a second check of the same hand: ignored
    await t.deal_check(ann, 99, True)  # no such hand: ignored
    assert ann.sent[before:] == []
    assert t.deal_checks == {0: {"ann": False}}
    await t.stop()


# --- the lobby ----------------------------------------------------------------------------


async def test_leave_create_table_and_the_lobby_news_as_documented() -> None:
    hall = lobby()
    ann, bob = Guest("ann"), Guest("bob", address="10.0.0.2")
    hall.welcome(ann)
    hall.welcome(bob)
    await hall.handle(ann, create("Friday", seats=3))
    assert ann.sent == [] and ann.table is None  # no answer of its own, not seated
    for guest in (ann, bob):  # news, though neither asked for the list
        await wait_for(lambda g=guest: any(isinstance(x, m.TableChanged) for x in g.sent))
    await hall.handle(ann, m.Join(table="Friday"))
    await hall.handle(bob, m.Spectate(table="Friday"))
    mark = len(ann.sent), len(bob.sent)
    await hall.handle(ann, m.Leave())
    left = [x for x in ann.sent[mark[0] :] if not isinstance(x, m.TableChanged)]
    assert left and all(isinstance(x, m.Tables) for x in left)
    assert left[0].page == 0 and not left[-1].more  # type: ignore[attr-defined]
    assert [x for x in bob.sent[mark[1] :] if isinstance(x, m.TableView)]  # its people: a table
    await hall.handle(ann, m.Leave())
    assert ann.errors()[-1] == Code.NOT_ALLOWED  # at no table
    await hall.close()


async def test_a_lobby_entry_says_changes_and_players_as_documented() -> None:
    hall = lobby()
    ann = Guest("ann")
    await hall.handle(ann, create("Friday", toggles={"bombs": True, "clear_rank": 8}, seats=3))
    await hall.handle(ann, m.Join(table="Friday"))
    await hall.handle(ann, m.AddBot(table="Friday", strategy="random"))
    info = hall.tables["Friday"].info()
    assert info.changes == "clear_rank=8, bombs=True"  # in the order `table.rules` has
    first = next(x for x in ann.sent if isinstance(x, m.TableView))
    assert list(first.rules) == ["preset", "clear_rank", "bombs"]
    assert info.players == ("ann", "bot:random", "")
    assert first.number == 0  # nothing has happened there yet
    await hall.close()


async def test_chat_goes_back_to_its_sender_and_to_its_scope_only() -> None:
    hall = lobby()
    ann, bob = Guest("ann"), Guest("bob", address="10.0.0.2")
    cat, dan = Guest("cat", address="10.0.0.3"), Guest("dan", address="10.0.0.4")
    for guest in (ann, bob, cat, dan):
        hall.welcome(guest)
    await hall.handle(ann, create("Friday", seats=3))
    await hall.handle(ann, m.Join(table="Friday"))
    await hall.handle(cat, m.Spectate(table="Friday"))

    async def heard(sender: Guest, scope: str) -> set[str]:
        marks = {g.name: len(g.sent) for g in (ann, bob, cat, dan)}
        said = m.Chat(scope=scope, text="hi", sender="mallory")  # type: ignore[arg-type]
        await hall.handle(sender, said)
        return {
            g.name
            for g in (ann, bob, cat, dan)
            if m.Chat(scope=scope, text="hi", sender=sender.name) in g.sent[marks[g.name] :]  # type: ignore[arg-type]
        }

    assert await heard(ann, "table") == {"ann", "cat"}
    assert await heard(bob, "lobby") == {"bob", "dan"}
    assert await heard(ann, "lobby") == {"ann", "bob", "dan"}
    assert await heard(bob, "table") == set()
    assert bob.errors()[-1] == Code.NOT_ALLOWED
    await hall.close()


# --- connections --------------------------------------------------------------------------


async def test_only_protocol_refusals_count_toward_the_ten_bad_messages(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        c = await client(server, "ann", tmp_path)
        c.keep = True
        task = asyncio.create_task(c.run())
        for _ in range(12):  # a lobby's refusals: never counted
            await c.send(m.Join(table="nowhere"))
        await wait_for(lambda: len(c.errors) == 12)
        for _ in range(9):
            c.link.writer.write(encode_frame(b"\xc1"))
        await wait_for(lambda: len(c.errors) == 21)
        await round_trip(c)  # nine bad messages: still served
        c.link.writer.write(encode_frame(b"\xc1"))
        await wait_for(lambda: c.bye is not None)
        assert c.bye == m.Bye(code="bad_msgpack", reason="too many bad messages")
        task.cancel()


async def test_a_refused_hello_leaves_the_connection_open_for_a_good_one(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        reader, writer = await raw_tls(server.port)
        hello = m.Hello(
            versions=KEYLESS_VERSIONS,
            name="ann",
            role="player",
            hand_key=public_key_bytes(X25519PrivateKey.generate()),
        ).to_wire()
        writer.write(encode_frame(pack({**hello, "name": "a\nb"})))
        writer.write(encode_frame(pack(hello)))
        frames, got = FrameReader(), []
        while not any(isinstance(x, (m.Welcome, m.Reject, m.Bye)) for x in got):
            data = await asyncio.wait_for(reader.read(65536), 30)
            assert data, f"closed after {got}"
            got += [m.Message.from_wire(unpack(body)) for body in frames.feed(data)]
        assert [type(x) for x in got] == [m.Error, m.Welcome]
        error = got[0]
        assert isinstance(error, m.Error) and (error.code, error.about) == ("bad_message", "hello")
        writer.close()


# --- found by a client written from the document alone (2026-12-07) ---------------------


async def test_your_hand_is_not_sent_after_your_own_play_and_a_snapshot_ends_with_it() -> None:
    t, members, game, seat = await under_way()
    ann = member_of(t, members, seat)
    mark = len(ann.sent)
    await t.act(ann, game.timeout_action(seat))  # (her lead: the lowest card)
    after = ann.sent[mark:]
    assert any(isinstance(x, m.Played) and x.seat == seat for x in after), after
    assert not any(isinstance(x, m.SealedHand) for x in after), after
    back = await back_after_a_drop(t, ann)  # a snapshot: seated, ..., table, then hand
    kinds = [type(x) for x in back.sent]
    assert kinds[0] is m.Seated and m.SealedHand in kinds, kinds
    assert kinds.index(m.TableView) < kinds.index(m.SealedHand), kinds
    snapshot = next(x for x in back.sent if isinstance(x, m.SealedHand))
    assert snapshot.reason == "snapshot"
    await t.stop()


async def test_create_table_needs_toggles_and_seats_and_clear_rank_is_a_cards_face() -> None:
    for missing in ("toggles", "seats"):
        wired = {"type": "create_table", "name": "T", "preset": "classic", "toggles": {}}
        wired["seats"] = 4
        del wired[missing]
        try:
            m.Message.from_wire(unpack(pack(wired)))
        except Exception as exc:  # (the schema's refusal: bad_message, naming the field)
            assert getattr(exc, "code", None) is Code.BAD_MESSAGE, exc
            assert f"missing field {missing!r}" in str(exc), exc
        else:
            raise AssertionError(f"create_table without {missing} was taken")
    hall = lobby()
    ann = Guest("ann")
    await hall.handle(ann, create("T", toggles={"clear_rank": "8"}, seats=3))
    assert ann.errors() == [Code.BAD_RULES]
    assert "clear_rank must be one of none, 8, 10" in ann.sent[-1].message  # type: ignore[attr-defined]
    await hall.handle(ann, create("Friday", toggles={"clear_rank": 8}, seats=3))
    assert hall.tables["Friday"].settings.rules.clear_rank == 8  # the eights' face
    await hall.close()


async def test_add_bot_takes_the_strategies_and_levels_the_document_lists() -> None:
    hall = lobby(bots_per_address=12)
    ann = Guest("ann")
    await hall.handle(ann, create("T", seats=8))
    await hall.handle(ann, m.Join(table="T"))
    listed = ("random", "greedy", "heuristic", "hoarder", "search", "easy", "normal", "hard")
    for strategy in listed[:7]:  # (7 chairs free of 8; the last, a level, at another)
        await hall.handle(ann, m.AddBot(table="T", strategy=strategy))
    await hall.handle(ann, create("U", seats=3))
    await hall.handle(ann, m.AddBot(table="U", strategy=listed[7]))
    assert ann.errors() == [], ann.sent
    await hall.handle(ann, m.AddBot(table="U", strategy="nonsense"))
    assert ann.errors() == [Code.NOT_ALLOWED]
    said = ann.sent[-1].message  # type: ignore[attr-defined]
    assert all(name in said for name in listed), said
    await hall.close()


async def test_spectate_is_answered_with_the_view_and_no_hand() -> None:
    t, _members, game, _ = await under_way()
    eve = Member("eve")
    await t.spectate(eve, None)
    kinds = [type(x) for x in eve.sent]
    assert m.TableView in kinds and m.Seated not in kinds and m.SealedHand not in kinds, kinds
    assert kinds.index(m.HandHistory) < kinds.index(m.TableView), kinds
    assert game.hand >= 0
    await t.stop()

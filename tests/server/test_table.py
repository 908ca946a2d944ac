"""The rules of a table, as specs: one `Table` with fake members (no sockets, no TLS):
who may sit, who may act and when, what each member is sent, leaving and coming back.
What sockets add (framing, TLS, drops, floods) is in the other server tests."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.engine import PASS, Action, Card, Game, Phase, Play, find_preset
from president.protocol import messages as m
from president.protocol.errors import Code
from president.protocol.sealing import open_hand, public_key_bytes
from president.server.config import TableSettings, hash_password
from president.server.seats import TableError
from president.server.table import Table

from ..harness.waiting import wait_for

#: Numbers the members' machines.
_MACHINES = itertools.count()


@dataclass(eq=False)
class Member:
    """A connection as the table sees it, keeping what it is sent."""

    name: str
    key: X25519PrivateKey = field(default_factory=X25519PrivateKey.generate)
    sent: list[m.Message] = field(default_factory=list)
    player_id: str = ""
    closed: bool = False
    #: Where it connects from: each member a machine of its own unless given.
    address: str = field(default_factory=lambda: f"10.0.0.{next(_MACHINES) % 250 + 1}")

    @property
    def hand_key(self) -> bytes:
        return public_key_bytes(self.key)

    def deliver(self, message: m.Message) -> None:
        if not self.closed:
            self.sent.append(message)

    def goodbye(self, bye: m.Bye) -> None:
        self.deliver(bye)
        self.closed = True

    def of(self, kind: type[m.Message]) -> list[m.Message]:
        return [x for x in self.sent if isinstance(x, kind)]

    def cards(self) -> tuple[Card, ...]:
        """The cards of the last hand sealed to me."""
        sealed = self.of(m.SealedHand)[-1]
        assert isinstance(sealed, m.SealedHand)
        return open_hand(
            sealed.sealed, self.key, sealed.table, sealed.hand, sealed.seat, sealed.number
        )[0]


def table(seats: int = 3, **changes: object) -> tuple[Table, list[dict[str, object]]]:
    """A table with no waits (no seeds awaited, no pauses, bots at once); its records."""
    settings = TableSettings(
        name="T",
        preset="classic",
        rules=find_preset("classic"),
        seats=seats,
        turn_seconds=0,
        seed_seconds=0.0,
        bot_delay=0.0,
        pause_between_hands=0.0,
    )
    for name, value in changes.items():
        # a table keeps its password as a salted hash
        setattr(settings, name, hash_password(value) if name == "password" else value)
    records: list[dict[str, object]] = []
    return Table(settings, lambda name, record: records.append(record)), records


async def refused(code: Code, action: Callable[[], object]) -> str:
    with pytest.raises(TableError) as info:
        await action()  # type: ignore[misc]
    assert info.value.code is code, info.value.message
    return info.value.message


async def seated(t: Table, *names: str) -> list[Member]:
    members = [Member(name) for name in names]
    for member in members:
        await t.join(member, None, None)
    return members


def game_of(t: Table) -> Game:
    assert t.game is not None
    return t.game


def member_of(t: Table, members: list[Member], seat: int) -> Member:
    """The member in `seat` of the hand in play."""
    return next(x for x in members if x.name == game_of(t).seating[seat])


async def all_ready(t: Table, members: list[Member]) -> None:
    """Everyone says ready; the game starts and its first hand comes to the play."""
    for member in members:
        await t.ready(member, True)
    await wait_for(lambda: game_of(t).phase is Phase.PLAY)


async def under_way(**changes: object) -> tuple[Table, list[Member], Game, int]:
    """A table of ann, bob and cat (`table`'s `changes`) whose game is under way, and the
    seat to move first."""
    t, _ = table(seats=3, **changes)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    assert game.turn is not None
    return t, members, game, game.turn


async def back_after_a_drop(t: Table, member: Member) -> Member:
    """`member`'s connection dropped, and its player back in the chair from a new one,
    with the seat's token."""
    await t.drop(member)
    token = next(x for x in member.sent if isinstance(x, m.Seated)).token
    back = Member(member.name, key=member.key)
    await t.resume(back, [slot.name for slot in t.chairs.slots].index(member.name), token)
    return back


async def play_until(
    t: Table,
    members: list[Member],
    done: Callable[[], bool],
    choose: Callable[[int], Action] | None = None,
) -> None:
    """Members act by the timeout rule, or as `choose` says for a seat (the driver
    plays everyone else), until `done`."""
    game = game_of(t)
    by_name = {member.name: member for member in members}

    def mover() -> Member | None:
        seat = game.actor
        return None if seat is None else by_name.get(game.seating[seat])

    while not done():
        await wait_for(lambda: done() or mover() is not None)
        async with t.lock:
            seat, member = game.actor, mover()
        if seat is not None and member is not None and not done():
            await t.act(member, game.timeout_action(seat) if choose is None else choose(seat))


async def test_who_may_sit_and_where() -> None:
    t, _ = table(seats=3, password="pw")
    ann = Member("ann")
    assert "does not match" in await refused(Code.WRONG_PASSWORD, lambda: t.join(ann, None, "nope"))
    await refused(Code.WRONG_PASSWORD, lambda: t.join(ann, None, None))
    await t.join(ann, 1, "pw")
    seated_msg = ann.of(m.Seated)[0]
    assert isinstance(seated_msg, m.Seated) and seated_msg.seat == 1 and len(seated_msg.token) == 32
    await refused(Code.NOT_ALLOWED, lambda: t.join(ann, None, "pw"))  # already there
    await refused(Code.NOT_ALLOWED, lambda: t.join(Member("ann"), None, "pw"))  # the name is taken
    await refused(Code.SEAT_TAKEN, lambda: t.join(Member("bob"), 1, "pw"))
    await refused(Code.NOT_ALLOWED, lambda: t.join(Member("bob"), 7, "pw"))
    await t.join(Member("bob"), None, "pw")
    await refused(Code.NOT_ALLOWED, lambda: t.add_bot("genius", None))
    await t.add_bot("Easy", None)  # a level: seated as its strategy, greedy
    await refused(Code.TABLE_FULL, lambda: t.join(Member("cat"), None, "pw"))
    await refused(Code.TABLE_FULL, lambda: t.add_bot("greedy", None))
    view = ann.of(m.TableView)[-1]
    assert isinstance(view, m.TableView)
    assert [(c.name, c.bot) for c in view.chairs] == [
        ("bob", ""),
        ("ann", ""),
        ("greedy-bot-1", "greedy"),
    ]
    assert t.info().players == ("bob", "ann", "bot:greedy")


async def test_a_full_ready_table_plays_and_each_seat_gets_only_its_own_cards() -> None:
    t, records = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    for member in members[:2]:
        await t.ready(member, True)
    assert t.status == "waiting"
    await t.ready(members[2], True)
    assert t.status == "playing"
    await wait_for(lambda: game_of(t).phase is Phase.PLAY)
    game = game_of(t)
    for member in members:
        seat = game.seating.index(member.name)
        assert [s.seat for s in member.of(m.SealedHand)] == [seat]  # its own seat only
        assert list(member.cards()) == game.hand_of(seat)
        assert member.of(m.DealCommit)
    assert not watcher.of(m.SealedHand) and not watcher.of(m.DealCommit)
    # each member's last view is the table's, its game the engine's public view
    for member in [*members, watcher]:
        last = member.of(m.TableView)[-1]
        assert last == t.view() and isinstance(last, m.TableView) and last.game is not None
    # play the game out with every seat passing or leading its lowest card
    await play_until(t, members, lambda: t.status != "playing")
    assert t.status == "finished" and game.phase is Phase.GAME_OVER
    assert len(records) == 1 and records[0]["players"] == ["ann", "bob", "cat"]
    reveals = [x for x in members[0].sent if isinstance(x, m.DealReveal)]
    assert len(reveals) == len(game.history)  # every deal revealed after its hand
    assert any(isinstance(x, m.GameOver) for x in watcher.sent)


async def test_a_seat_acts_only_for_itself_and_only_in_turn() -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    stranger = Member("eve")
    await refused(Code.NOT_ALLOWED, lambda: t.act(members[0], PASS))  # no game yet
    await all_ready(t, members)
    game = game_of(t)
    turn = game.turn
    assert turn is not None
    idle = next(x for x in members if x.name != game.seating[turn])
    mover = next(x for x in members if x.name == game.seating[turn])
    assert "not your turn" in await refused(Code.NOT_YOUR_TURN, lambda: t.act(idle, PASS))
    await refused(Code.NOT_ALLOWED, lambda: t.act(stranger, PASS))
    held = game.hand_of(turn)
    others = [c for seat in range(3) if seat != turn for c in game.hand_of(seat)]
    await refused(Code.ILLEGAL, lambda: t.act(mover, Play([others[0]])))  # not in its hand
    before = t.number
    await t.act(mover, Play([held[0]]))  # the opening 3C is the lowest card of its holder
    assert t.number > before
    played = [x for x in idle.sent if isinstance(x, m.Played)]
    assert played and played[-1].seat == turn


async def test_leaving_mid_game_the_chair_goes_at_the_hand_end_and_a_newcomer_sits_in() -> None:
    t, records = table(seats=4, turn_seconds=0)
    ann, bob, cat, dan = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, [ann, bob, cat, dan])
    game = game_of(t)
    await t.leave(dan)  # mid-hand: the timeout rule plays dan's seat to the hand's end
    assert t.chairs.slots[3].leaving and t.chairs.slots[3].name == "dan"
    eve = Member("eve")
    await refused(Code.TABLE_FULL, lambda: t.join(eve, None, None))
    await play_until(t, [ann, bob, cat], lambda: bool(game.finishes))
    await wait_for(lambda: t.chairs.slots[3].empty)  # the hand is over: the chair is free
    assert "dan" not in game.seating or game.phase is not Phase.PLAY
    await t.join(eve, None, None)  # sits in from the next hand (docs/rules.md)
    assert t.chairs.slots[3].ready
    await play_until(t, [ann, bob, cat, eve], lambda: "eve" in game.seating)
    assert "dan" not in game.seating and len(game.seating) == 4
    await t.stop()
    assert records and "eve" in records[0]["players"] and "dan" in records[0]["players"]


async def test_a_dropped_seat_comes_back_with_its_token_and_only_with_it() -> None:
    t, _ = table(seats=3)
    ann, bob, cat = await seated(t, "ann", "bob", "cat")
    await all_ready(t, [ann, bob, cat])
    token = next(x for x in ann.sent if isinstance(x, m.Seated)).token
    await t.drop(ann)  # the Wi-Fi drops
    assert not t.chairs.slots[0].present and t.chairs.slots[0].name == "ann"
    eve = Member("eve")
    await refused(Code.BAD_TOKEN, lambda: t.resume(eve, 0, bytes(32)))
    await refused(Code.BAD_TOKEN, lambda: t.resume(eve, 1, token))  # ann's token, bob's chair
    await refused(Code.BAD_TOKEN, lambda: t.resume(eve, 9, token))
    back = Member("ann-again")
    await t.resume(back, 0, token)
    assert back.name == "ann"  # the chair's name, whatever the connection said
    seat = game_of(t).seating.index("ann")
    snapshot = [x for x in back.sent if isinstance(x, m.SealedHand)]
    assert snapshot and snapshot[-1].reason == "snapshot" and snapshot[-1].seat == seat
    assert list(back.cards()) == game_of(t).hand_of(seat)
    # taken back from yet another connection: the older one is told why
    newest = Member("ann")
    await t.resume(newest, 0, token)
    bye = [x for x in back.sent if isinstance(x, m.Bye)]
    assert bye and bye[0].code == Code.REPLACED
    await t.stop()


async def test_bots_fill_the_chairs_and_play_a_whole_game() -> None:
    t, records = table(seats=4)
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    for strategy in ("random", "greedy", "heuristic", "hoarder"):
        await t.add_bot(strategy, None)
    assert t.status == "playing"  # bots are always ready
    await refused(Code.NOT_ALLOWED, lambda: t.remove_bot(0))  # not mid-game
    await wait_for(lambda: t.status == "finished", 30)
    assert len(records) == 1 and not watcher.of(m.SealedHand)
    last = watcher.of(m.TableView)[-1]
    assert (
        isinstance(last, m.TableView) and last.game is not None and last.game.phase == "game_over"
    )


async def test_a_player_who_leaves_on_their_turn_is_played_for_at_once_with_no_timer() -> None:
    """No turn timer: the table must not wait for a seat whose player walked away (found
    by this file: the driver slept on the leaver's turn until a timer that never came)."""
    t, members, game, turn = await under_way(turn_seconds=0)
    leaver = next(x for x in members if x.name == game.seating[turn])
    # (the driver dealt and went straight on to wait for that seat, without yielding in
    # between: all_ready saw the deal, so it is waiting on the leaver's turn now)
    await t.leave(leaver)
    await wait_for(lambda: game.turn != turn or game.phase is not Phase.PLAY)
    await t.stop()


async def test_a_watcher_who_takes_a_chair_back_is_no_longer_a_watcher() -> None:
    """Spectate, then resume a chair with its token: one or the other, never both (else
    every message came twice, and leaving left a ghost in the chair)."""
    t, _ = table(seats=3)
    ann, _bob, _cat = await seated(t, "ann", "bob", "cat")
    token = next(x for x in ann.sent if isinstance(x, m.Seated)).token
    await t.drop(ann)
    again = Member("ann")
    await t.spectate(again, None)
    await t.resume(again, 0, token)
    assert again not in t.chairs.spectators and t.chairs.members().count(again) == 1
    await t.leave(again)
    assert t.chairs.slots[0].empty and again not in t.chairs.members()


async def test_a_table_password_is_checked_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """scrypt takes ~27 ms: checked on the loop, a guest sending the right password again
    and again froze every table (pings 10 s late).  Each check runs in a worker thread,
    before the table's lock is taken (and the right password again is not checked again:
    tests/server/test_password_fairness.py)."""
    from president.server import config

    threads: list[int] = []
    checked = config.password_matches

    def where(stored: str, given: str | None) -> bool:
        threads.append(threading.get_ident())
        return checked(stored, given)

    monkeypatch.setattr(config, "password_matches", where)
    t, _ = table(seats=3, password="pw")
    await t.spectate(Member("eve"), "pw")
    await t.join(Member("ann"), None, "pw")
    await refused(Code.WRONG_PASSWORD, lambda: t.join(Member("bob"), None, "nope"))
    assert len(threads) == 2 and threading.get_ident() not in threads


async def test_a_connection_that_sits_cannot_resume_a_seat_again() -> None:
    """Re-sending `resume` for one's own seat wrote a journal row and sealed a hand each
    time (145 rows a second from one guest); resuming a second chair left it 'present'
    for ever after the connection dropped."""
    t, _ = table(seats=3)
    ann, bob = Member("ann"), Member("bob")
    await t.join(ann, 0, None)
    await t.join(bob, 1, None)
    ann_token, bob_token = t.slots[0].token, t.slots[1].token
    await t.drop(bob)
    numbered = t.number
    await refused(Code.NOT_ALLOWED, lambda: t.resume(ann, 0, ann_token))
    await refused(Code.NOT_ALLOWED, lambda: t.resume(ann, 1, bob_token))
    assert t.number == numbered and t.slots[1].member is None
    await t.resume(Member("bob"), 1, bob_token)  # bob himself, from a new connection


async def seeds_from(t: Table, members: list[Member], hand: int) -> None:
    """Once the deal of `hand` waits for seeds, each of `members` in its seating sends one."""
    await wait_for(lambda: t.deal_secret is not None and t.deal_secret.hand == hand)
    secret = t.deal_secret
    assert secret is not None
    for member in members:
        if member.name in secret.order_names:
            await t.client_seed(member, hand, bytes(32))


async def test_a_newcomer_who_leaves_while_its_first_deal_waits_is_played_for(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A fuzz run under load crashed the game's driver: a newcomer in the next hand's
    seating (its deal committed) left while the deal waited for the seats' seeds; its
    chair was freed at once, as if it were in no game, and the deal found a seat with
    no chair.  It is in the game from the moment it is seated for the next hand: its
    seat is dealt and played for by the timeout rule, and it goes at that hand's end."""
    t, _ = table(seats=4, seed_seconds=60.0)  # (the deals wait for the seeds below)
    ann, bob, cat, dan = await seated(t, "ann", "bob", "cat", "dan")
    for member in (ann, bob, cat, dan):
        await t.ready(member, True)
    await seeds_from(t, [ann, bob, cat, dan], 0)
    game = game_of(t)
    await wait_for(lambda: game.phase is Phase.PLAY)
    await t.leave(dan)  # (his chair is free at the hand's end)
    await play_until(t, [ann, bob, cat], lambda: len(game.finishes) == 1)
    await wait_for(lambda: t.deal_secret is not None and t.deal_secret.hand == 1)
    eve = Member("eve")
    await t.join(eve, None, None)  # while hand 2's deal waits: she plays from hand 3
    await seeds_from(t, [ann, bob, cat], 1)
    await play_until(t, [ann, bob, cat], lambda: len(game.finishes) == 2)
    await wait_for(lambda: t.deal_secret is not None and t.deal_secret.hand == 2)
    assert t.deal_secret is not None and "eve" in t.deal_secret.order_names
    await t.client_seed(eve, 2, bytes(32))
    await t.leave(eve)  # her deal committed, not yet dealt
    assert t.chairs.slots[3].name == "eve" and t.chairs.slots[3].leaving
    await seeds_from(t, [ann, bob, cat], 2)
    await wait_for(lambda: game.hand == 2 and game.phase is not Phase.BETWEEN_HANDS)
    assert "eve" in game.seating
    await play_until(t, [ann, bob, cat], lambda: len(game.finishes) == 3)
    await wait_for(lambda: t.chairs.slots[3].empty)  # gone at that hand's end
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
    await t.stop()

"""Issue 16's rules at a server: only a client that knows them sits at or watches a table
playing one (an older one is refused in one sentence, and everything else stays as it
was for it), a due is paid by the seat that owes it, and a hand-over's cards reach the
two seats' sealed hands and nobody else."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

from president.engine import (
    PRESETS,
    TOGGLES,
    Discarded,
    HandedOver,
    Handover,
    Phase,
    Play,
    Played,
    find_preset,
    parse_cards,
)
from president.engine.actions import DUE_ACTIONS
from president.protocol import messages as m
from president.protocol.errors import Code
from president.server.driver import TurnTimer
from president.server.restore import differences, rebuild

from ..harness.servers import bot_key, client, running_server, table_of_bots
from ..harness.waiting import wait_for
from .test_hostile_guests import Guest, create, lobby
from .test_security import strings_in
from .test_table import all_ready, game_of, play_until, refused, seated, table

REFUSAL = (
    "table Friday plays rules your client does not know (daifugo):"
    " update president to play or watch there"
)


async def test_an_older_client_may_not_create_sit_at_or_watch_a_variant_table() -> None:
    hall = lobby()
    ann, old = Guest("ann"), Guest("old", address="10.0.0.9", version=4)
    await hall.handle(old, create("Friday", preset="daifugo"))
    assert "Friday" not in hall.tables
    await hall.handle(old, create("Saturday", toggles={"one_time_around": True}))
    assert "Saturday" not in hall.tables
    await hall.handle(ann, create("Friday", preset="daifugo"))
    assert ann.errors() == []
    await hall.handle(old, m.Join(table="Friday"))
    await hall.handle(old, m.Spectate(table="Friday"))
    await hall.handle(old, m.Resume(table="Friday", seat=0, token=bytes(32)))
    refusals = [x for x in old.sent if isinstance(x, m.Error)]
    assert [(e.code, e.about) for e in refusals] == [
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "join"),
        (Code.NOT_ALLOWED, "spectate"),
        (Code.NOT_ALLOWED, "resume"),
    ]
    assert refusals[0].message == REFUSAL and refusals[2].message == REFUSAL
    assert "(one_time_around)" in refusals[1].message
    assert hall.tables["Friday"].chairs.members() == []
    # every other table is as it was for it
    await hall.handle(old, create("Sunday", preset="house", toggles={"bombs": True}))
    await hall.handle(old, m.Join(table="Sunday"))
    assert len([x for x in old.sent if isinstance(x, m.Error)]) == 5
    assert old.table is hall.tables["Sunday"]
    await hall.handle(ann, m.Join(table="Friday"))
    assert ann.errors() == [] and ann.table is hall.tables["Friday"]
    await hall.close()


async def test_a_client_that_knows_one_toggle_less_plays_every_table_but_that_one() -> None:
    """A version-5 client was made before nines_clear (version 6): a table that turns it
    on is refused to it, naming it; a Daifugo table without it is its, as before."""
    assert m.RULES_SINCE["nines_clear"] == 6
    hall = lobby()
    ann, old = Guest("ann"), Guest("old", address="10.0.0.9", version=5)
    await hall.handle(old, create("Friday", preset="daifugo", toggles={"nines_clear": True}))
    assert "Friday" not in hall.tables
    await hall.handle(ann, create("Friday", preset="daifugo", toggles={"nines_clear": True}))
    await hall.handle(ann, create("Saturday", preset="daifugo"))
    assert ann.errors() == []
    await hall.handle(old, m.Spectate(table="Friday"))
    await hall.handle(old, m.Join(table="Saturday"))
    refusals = [x for x in old.sent if isinstance(x, m.Error)]
    assert [(e.code, e.about) for e in refusals] == [
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "spectate"),
    ]
    assert all("does not know (nines_clear)" in e.message for e in refusals)
    assert old.table is hall.tables["Saturday"]
    await hall.close()


async def test_a_version_8_client_never_sits_where_the_direction_of_play_turns() -> None:
    """nine_reverse (version 9) turns the direction of play, which a version-8 client
    cannot show (`game.backwards` is not in its view), and scaled_exchange moves more
    cards than its messages carry: a table playing one is refused to that client, naming
    it; a daifugo table without them is its, as before."""
    assert m.RULES_SINCE["nine_reverse"] == 9
    hall = lobby()
    ann, old = Guest("ann"), Guest("old", address="10.0.0.9", version=8)
    await hall.handle(old, create("Friday", preset="daifugo", toggles={"nine_reverse": True}))
    assert "Friday" not in hall.tables
    await hall.handle(ann, create("Friday", preset="daifugo", toggles={"king_reverse": True}))
    await hall.handle(ann, create("Saturday", preset="daifugo"))
    assert ann.errors() == []
    await hall.handle(old, m.Join(table="Friday"))
    await hall.handle(old, m.Spectate(table="Friday"))
    await hall.handle(old, m.Join(table="Saturday"))
    refusals = [x for x in old.sent if isinstance(x, m.Error)]
    assert [(e.code, e.about) for e in refusals] == [
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "join"),
        (Code.NOT_ALLOWED, "spectate"),
    ]
    assert "does not know (nine_reverse)" in refusals[0].message
    assert all("does not know (king_reverse)" in e.message for e in refusals[1:])
    assert old.table is hall.tables["Saturday"]
    # nor where an exchange may move more than two cards (scaled_exchange: its wire caps)
    await hall.handle(old, create("Sunday", toggles={"scaled_exchange": True}))
    assert "Sunday" not in hall.tables
    last = [x for x in old.sent if isinstance(x, m.Error)][-1]
    assert (last.about, "does not know (scaled_exchange)" in last.message) == ("create_table", True)
    await hall.close()


def test_the_protocol_knows_when_every_toggle_and_preset_arrived() -> None:
    """What a new toggle owes the protocol (docs/PROTOCOL.md): its version, in
    `RULES_SINCE`; a toggle the protocol does not list is refused to every older client."""
    assert set(m.RULES_SINCE) == set(TOGGLES) | set(PRESETS)
    assert all(2 <= v <= max(m.VERSIONS) for v in m.RULES_SINCE.values())
    assert m.rules_unknown({"preset": "daifugo", "nines_clear": True}, 4) == [
        "daifugo",
        "nines_clear",
    ]
    assert m.rules_unknown({"preset": "house", "bombs": True}, 2) == []
    future = {"preset": "classic", "a_rule_from_the_future": 1}
    assert m.rules_unknown(future, max(m.VERSIONS)) == ["a_rule_from_the_future"]


async def test_a_client_without_a_player_key_is_told_why_over_a_real_connection(
    tmp_path: Path,
) -> None:
    """A client that offers only the versions before keys (and so before the variant
    rules) gets the sentence; a client with a key sits there."""
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        old = await client(server, "old", tmp_path)
        assert ann.link.conn.version == max(m.VERSIONS) and old.link.conn.version == 3
        tasks = [asyncio.create_task(c.run()) for c in (ann, old)]
        await ann.send(m.CreateTable(name="Friday", preset="daifugo", toggles={}, seats=4))
        await ann.send(m.Join(table="Friday"))
        await wait_for(lambda: ann.model.slot is not None)
        await old.send(m.Join(table="Friday"))
        await wait_for(lambda: old.errors)
        assert (old.errors[0].code, old.errors[0].message) == (Code.NOT_ALLOWED, REFUSAL)
        assert old.model.slot is None
        for task in tasks:
            task.cancel()


async def test_a_hand_over_reseals_both_hands_and_tells_the_third_seat_only_its_size() -> None:
    """At a daifugo table the seat that played 7s owes a hand-over; paying it sends the
    giver and the receiver each its new hand sealed to it (reason "handover", the cards
    gone from one and come to the other) and the third seat only how many went."""
    t, _ = table(3, preset="daifugo", rules=find_preset("daifugo"))
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)

    def owed() -> bool:
        return game.due is not None and game.due.kind == "handover"

    # (the deal is the table's own: in about one hand 1 in 100 no 7 is played, so play on
    # until one is; in 3,000 whole games by the timeout rule, 5 hands each, none had no
    # hand-over)
    await play_until(t, members, lambda: owed() or game.phase is Phase.GAME_OVER)
    assert owed(), "no 7s were played in a whole game"
    giver = game.actor
    assert giver is not None
    by_name = {member.name: member for member in members}
    before = {seat: game.hand_of(seat) for seat in range(3)}
    mark = {member.name: len(member.sent) for member in members}
    action = game.timeout_action(giver)
    assert isinstance(action, Handover)
    others = [by_name[name] for seat, name in enumerate(game.seating) if seat != giver]
    said = await refused(Code.NOT_YOUR_TURN, lambda: t.act(others[0], action))
    assert said, "a due is owed by the seat whose turn it is, and only it pays"
    playing = Play(action.cards)
    said = await refused(Code.ILLEGAL, lambda: t.act(by_name[game.seating[giver]], playing))
    assert "hand over" in said, said
    await t.act(by_name[game.seating[giver]], action)
    (event,) = [
        x
        for x in by_name[game.seating[giver]].sent[mark[game.seating[giver]] :]
        if isinstance(x, m.HandedOver)
    ]
    receiver = event.receiver
    assert (event.giver, event.size) == (giver, len(action.cards))
    third = ({0, 1, 2} - {giver, receiver}).pop()
    handed = Counter(action.cards)
    for seat, moved in ((giver, -1), (receiver, 1)):
        member = by_name[game.seating[seat]]
        sealed = [x for x in member.sent[mark[member.name] :] if isinstance(x, m.SealedHand)]
        assert [x.reason for x in sealed] == ["handover"], sealed
        # the order docs/PROTOCOL.md gives: the events, then the sealed hand, then the view
        kinds = [type(x) for x in member.sent[mark[member.name] :]]
        told, resealed = kinds.index(m.HandedOver), kinds.index(m.SealedHand)
        assert told < resealed < len(kinds) - 1 - kinds[::-1].index(m.TableView)
        assert sealed[0].number > event.number
        want = Counter(before[seat]) + handed if moved > 0 else Counter(before[seat]) - handed
        assert Counter(member.cards()) == want
    other = by_name[game.seating[third]]
    news = other.sent[mark[other.name] :]
    assert not [x for x in news if isinstance(x, m.SealedHand)]
    assert any(isinstance(x, m.HandedOver) for x in news)
    texts = {str(card) for card in action.cards}
    for message in news:
        assert not texts & set(strings_in(message.to_wire())), message
    await t.stop()


async def test_the_journal_replays_hand_overs_and_discards(tmp_path: Path) -> None:
    """Bots play a daifugo game through a real server; at every step the journal
    rebuilds the table exactly, its dues paid (a restart would lose nothing)."""
    async with running_server(tmp_path, bot_delay=0.0) as server:
        # (three hands, not five: each has its 7s and 10s, and the second its dues of the
        # exchange)
        _clients, _bots, tasks = await table_of_bots(
            server, tmp_path, preset="daifugo", seed=6, toggles={"rounds": 3}
        )
        table_ = server.lobby.tables["T"]
        journal = server.journal
        assert journal is not None

        def rebuilds() -> set[str]:
            """The journal rebuilds the table as it is now; the kinds of action in it."""
            ((_, _, entries),) = [t for t in journal.open_tables() if t[1] == "T"]
            rebuilt = rebuild(entries, server.config, server.write_record, time.monotonic)
            assert differences(table_, rebuilt) == []
            return {k for e in entries if e.kind == "act" for k in e.body["action"]}

        checked = 0
        while table_.status != "finished" and checked < 2000:
            async with table_.lock:
                rebuilds()
                checked += 1
            # (a few moves on: as many steps as this machine sees; each rebuild replays the
            # whole journal, so not after every move)
            await asyncio.sleep(0.03)
        await wait_for(lambda: table_.status == "finished", 120)
        async with table_.lock:
            kinds = rebuilds()  # the whole game's
        assert {"handover", "discard"} <= kinds, kinds
        for task in tasks:
            task.cancel()


async def test_the_turn_timer_pays_a_due_with_the_lowest_cards() -> None:
    """A seat owing a due whose time runs out: the timeout rule pays it (the lowest
    cards, `Game.timeout_action`), and everyone is told the timer did it."""
    t, _ = table(3, preset="daifugo", rules=find_preset("daifugo"))
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.due is not None or game.phase is Phase.GAME_OVER)
    due, seat = game.due, game.actor
    assert due is not None and seat is not None, "no 7s or 10s in a whole game"
    lowest = game.timeout_action(seat)
    assert isinstance(lowest, DUE_ACTIONS[due.kind]) and len(lowest.cards) == 1
    mark = len(members[0].sent)
    t.settings.turn_seconds = 1  # from here on, a turn lasts a second
    async with t.lock:
        t.driver.timer.deadline = t.clock() + 1
        t.driver.wake()
    kind = m.HandedOver if due.kind == "handover" else m.Discarded
    await wait_for(lambda: any(isinstance(x, kind) for x in members[0].sent[mark:]))
    # the timeout rule pays the whole due, a card at a time, the lowest first
    await wait_for(lambda: game.due is None or game.due.kind != due.kind or game.actor != seat)
    # (what the timer pays before the next seat's turn: on a slow machine that turn's
    # second may be over too, and its move another due's first card)
    news = members[0].sent[mark:]
    turn = next((i for i, x in enumerate(news) if isinstance(x, (m.Played, m.Passed))), None)
    paid = [x for x in news[:turn] if isinstance(x, kind)]
    assert len(paid) == due.size and all(x.timeout == "time" for x in paid)
    if isinstance(paid[0], m.Discarded):
        assert paid[0].cards == tuple(str(c) for c in lowest.cards)
    await t.stop()


def test_after_a_due_is_paid_whole_the_next_seat_gets_a_whole_turn() -> None:
    """A due is paid a card at a time on the turn's own time; once it is paid the seat to
    act (the next one) gets a whole turn."""
    for paid in (HandedOver(0, 1, 1, ()), Discarded(0, tuple(parse_cards("4C")))):
        clock = [100.0]
        timer = TurnTimer(lambda clock=clock: clock[0])  # type: ignore[misc]
        timer.rearm([Played(0, tuple(parse_cards("7C 7D")), False, False)], True, 30)
        clock[0] = 110.0
        timer.rearm([paid], True, 30, owing=True)  # one more card still owed
        assert timer.deadline == 130.0, paid
        timer.rearm([paid], True, 30)
        assert timer.deadline == 140.0, paid

"""The dues that take a card of the cards played into a hand (salvage...) at a server:
only a client that knows them sits at such a table, the taker pays (or the timer does),
everyone is told the card (it was face up), and only the receiver's hand is sealed
to it again."""

from __future__ import annotations

from collections import Counter

import pytest
from president.engine import PASS, Card, Phase, Play, Rules, Take, find_preset, parse_cards
from president.protocol import messages as m
from president.protocol.errors import Code
from president.server.dealing import DealSecret

from ..engine.helpers import full_deal
from .test_hostile_guests import Guest, create, lobby
from .test_table import all_ready, game_of, play_until, refused, seated, table


async def test_a_version_9_client_never_sits_where_a_card_played_comes_back() -> None:
    """salvage and kings_march (version 10) owe a `take`, which a version-9 client cannot
    send nor show: a table playing one is refused to that client, naming it."""
    assert m.RULES_SINCE["salvage"] == 10
    hall = lobby()
    ann, old = Guest("ann"), Guest("old", address="10.0.0.9", version=9)
    await hall.handle(old, create("Friday", preset="daifugo", toggles={"salvage": True}))
    assert "Friday" not in hall.tables
    await hall.handle(ann, create("Friday", preset="daifugo", toggles={"salvage": True}))
    await hall.handle(old, m.Join(table="Friday"))
    refusals = [x for x in old.sent if isinstance(x, m.Error)]
    assert [(e.code, e.about) for e in refusals] == [
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "join"),
    ]
    assert all("does not know (salvage)" in e.message for e in refusals)
    for toggle in ("kings_march", "zombie", "queen_bomber"):
        assert m.RULES_SINCE[toggle] == 10
        await hall.handle(old, create("Sunday", toggles={toggle: True}))
        assert "Sunday" not in hall.tables
        last = [x for x in old.sent if isinstance(x, m.Error)][-1]
        assert f"does not know ({toggle})" in last.message
    await hall.close()


async def test_a_salvage_reseals_the_takers_hand_and_tells_everyone_the_card() -> None:
    """Four members play by the timeout rule (lead the lowest single, pass on a follow)
    until a 3 ends a trick: its player owes a take; another seat may not pay it, a play
    is refused naming the due; the take is told to everyone with its card, and only the
    taker gets its hand again (reason "take"), holding the card."""
    rules = find_preset("classic").replace(salvage=True)
    t, _ = table(4, rules=rules)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)

    def owed() -> bool:
        return game.due is not None and game.due.kind == "salvage"

    # (the lowest single led and everyone passing: the first lead is the 3C, so the first
    # trick ends on a 3)
    await play_until(t, members, lambda: owed() or game.phase is Phase.GAME_OVER)
    assert owed(), "no trick ended on a 3"
    taker = game.actor
    assert taker is not None and game.due is not None
    by_name = {member.name: member for member in members}
    me = by_name[game.seating[taker]]
    before = Counter(game.hand_of(taker))
    card = game.due.cards[-1]
    mark = {member.name: len(member.sent) for member in members}
    other = by_name[game.seating[(taker + 1) % 4]]
    await refused(Code.NOT_YOUR_TURN, lambda: t.act(other, Take((card,))))
    said = await refused(Code.ILLEGAL, lambda: t.act(me, Play(game.hand_of(taker)[:1])))
    assert "(salvage)" in said, said
    await t.act(me, Take((card,)))
    for member in members:
        news = member.sent[mark[member.name] :]
        (took,) = [x for x in news if isinstance(x, m.Took)]
        assert (took.seat, took.receiver, took.cards) == (taker, taker, (str(card),))
        sealed = [x for x in news if isinstance(x, m.SealedHand)]
        assert [x.reason for x in sealed] == (["take"] if member is me else [])
    assert Counter(me.cards()) == before + Counter([card])
    assert game.due is None and game.actor == taker
    await t.stop()


async def test_a_zombie_reseals_the_receivers_hand_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deal cut to order (ann holds the four 3s): ann opens with the 3C, everyone
    passes, she leads three 3s and owes a give (zombie); the card goes to the next seat,
    which alone gets its hand again (reason "take"), everyone told which card."""
    rules = find_preset("classic").replace(zombie=True)

    def cut(secret: DealSecret, rules: Rules) -> list[list[Card]]:
        secret.dealt = True
        seat = secret.order_names.index("ann")
        given = {seat: "3C 3D 3H 3S"}
        return [list(parse_cards(hand)) for hand in full_deal(rules, 4, secret.start, given)]

    monkeypatch.setattr(DealSecret, "cut", cut)
    t, _ = table(4, rules=rules)
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)
    ann = game.seating.index("ann")
    by_seat = {game.seating.index(member.name): member for member in members}
    await t.act(by_seat[ann], Play(parse_cards("3C")))
    for step in range(1, 4):
        await t.act(by_seat[(ann + step) % 4], PASS)
    await t.act(by_seat[ann], Play(parse_cards("3D 3H 3S")))
    assert game.due is not None and game.due.kind == "zombie"
    receiver = (ann + 1) % 4
    before = Counter(by_seat[receiver].cards())
    mark = {member.name: len(member.sent) for member in members}
    await t.act(by_seat[ann], Take(parse_cards("3C")))
    for seat, member in by_seat.items():
        news = member.sent[mark[member.name] :]
        (took,) = [x for x in news if isinstance(x, m.Took)]
        assert (took.seat, took.receiver, took.cards) == (ann, receiver, ("3C",))
        sealed = [x.reason for x in news if isinstance(x, m.SealedHand)]
        assert sealed == (["take"] if seat == receiver else []), (seat, sealed)
    assert Counter(by_seat[receiver].cards()) == before + Counter(parse_cards("3C"))
    await t.stop()

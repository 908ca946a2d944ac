"""A take or a bomb out of place, through the lobby as a connection sends it: each is
refused in one line whose `about` names its type, the due stands, and the refusal of a
card someone else holds says no more than the refusal of one nobody does
(scripts/attack_takes.py does the same against a real server)."""

from __future__ import annotations

from typing import Any, cast

from president.engine import Phase
from president.protocol import messages as m

from ..harness.waiting import wait_for
from .test_hostile_guests import Guest, create, lobby
from .test_table import game_of, play_until


async def test_a_take_or_a_bomb_out_of_place_is_refused_naming_its_type() -> None:
    hall = lobby(seed_seconds=0.01)  # (no seed of the players' is waited for)
    players = [Guest(name, address=f"10.0.0.{i + 1}") for i, name in enumerate("abcd")]
    watcher, outsider = Guest("eve", address="10.0.0.9"), Guest("oz", address="10.0.0.10")
    await hall.handle(players[0], create("Friday", toggles={"salvage": True}))
    for guest in players:
        await hall.handle(guest, m.Join(table="Friday"))
    await hall.handle(watcher, m.Spectate(table="Friday"))
    t = hall.tables["Friday"]
    for guest in players:
        await hall.handle(guest, m.Ready())
    await wait_for(lambda: game_of(t).phase is Phase.PLAY)
    game = game_of(t)

    def owed() -> bool:
        return game.due is not None and game.due.kind == "salvage"

    # (the timeout rule leads the lowest single and passes: the first trick ends on a 3;
    # a lobby's Guest is the table's member)
    await play_until(t, cast(Any, players), lambda: owed() or game.phase is Phase.GAME_OVER)
    assert owed() and game.due is not None and game.actor is not None
    due, taker = game.due, game.actor
    by_name = {guest.name: guest for guest in players}
    me = by_name[game.seating[taker]]
    other = by_name[game.seating[(taker + 1) % 4]]
    offered = str(due.cards[0])
    hidden = str(game.hand_of((taker + 1) % 4)[0])  # held by the next seat
    mine = str(game.hand_of(taker)[0])
    attempts: list[tuple[Guest, m.TakeCards | m.BombRank, str]] = [
        (me, m.TakeCards(cards=("ZZ",)), "bad_message"),
        (me, m.TakeCards(cards=(offered, offered)), "illegal"),
        (me, m.TakeCards(cards=(hidden,)), "illegal"),
        (me, m.TakeCards(cards=(mine,)), "illegal"),
        (me, m.BombRank(rank=4), "illegal"),
        (other, m.TakeCards(cards=(offered,)), "not_your_turn"),
        (other, m.BombRank(rank=4), "not_your_turn"),
        (watcher, m.TakeCards(cards=(offered,)), "not_allowed"),
        (outsider, m.BombRank(rank=4), "not_allowed"),
    ]
    said = []
    for guest, message, code in attempts:
        before = len(guest.sent)
        await hall.handle(guest, message)
        (error,) = [x for x in guest.sent[before:] if isinstance(x, m.Error)]
        assert (error.about, error.code) == (message.TYPE, code), error
        assert "\n" not in error.message
        said.append(error.message)
    assert said[2] == f"{hidden} is not among the cards played that may be taken"
    assert said[3] == f"{mine} is not among the cards played that may be taken"
    assert (game.due, game.actor) == (due, taker)
    await hall.close()

"""The hand so far (issue 27, protocol version 9): whoever joins, watches or comes back
mid-hand is sent the hand's public events with their numbers, exactly as everyone there
was sent them, and never a card the events did not show."""

from __future__ import annotations

from dataclasses import dataclass

from president.engine import Phase, find_preset, moves_seen
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.codec import pack

from .test_table import (
    Member,
    all_ready,
    back_after_a_drop,
    game_of,
    play_until,
    seated,
    table,
)


def history_of(member: Member) -> list[m.TableEvent]:
    """The events of the last history a member was sent (its pages put together)."""
    pages = member.of(m.HandHistory)
    first = max(
        i for i, page in enumerate(pages) if isinstance(page, m.HandHistory) and page.page == 0
    )
    return [e for page in pages[first:] if isinstance(page, m.HandHistory) for e in page.events]


def sent_since_the_deal(member: Member, hand: int) -> list[m.TableEvent]:
    """The game events `member` was sent from hand `hand`'s start on."""
    events = [x for x in member.sent if isinstance(x, m.TableEvent)]
    start = max(i for i, e in enumerate(events) if isinstance(e, m.HandStarted) and e.hand == hand)
    return events[start:]


@dataclass(eq=False)
class OldMember(Member):
    """A connection that chose version 8: it has no `hand_history`."""

    version: int = 8


async def test_a_watcher_and_a_seat_back_mid_hand_are_told_the_hand_as_it_was_sent() -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: len(game.public_view().played) >= 6)
    hand = game.hand
    ann = members[0]
    told = sent_since_the_deal(ann, hand)
    assert any(isinstance(e, m.Played) for e in told)
    watcher, old = Member("watcher"), OldMember("old")
    await t.spectate(watcher, None)
    await t.spectate(old, None)
    assert history_of(watcher) == told  # the very messages, numbers and timeouts
    kinds = [type(x) for x in watcher.sent]
    assert kinds.index(m.HandHistory) < kinds.index(m.TableView)  # a view follows its events
    assert not old.of(m.HandHistory) and old.of(m.TableView)
    again = Member("again")  # no event since: the very pages (their frames encoded once)
    await t.spectate(again, None)
    assert again.of(m.HandHistory)[0] is watcher.of(m.HandHistory)[0]
    # a seat that drops and comes back is told the same, then its hand
    back = await back_after_a_drop(t, ann)
    assert history_of(back) == sent_since_the_deal(members[1], hand)
    kinds = [type(x) for x in back.sent]
    assert kinds.index(m.HandHistory) < kinds.index(m.SealedHand)
    # the history is the engine's: the seat's moves read from it are its view's history
    events = [wire.event_from_wire(e) for e in history_of(back)]
    seat = game.seating.index("ann")
    assert moves_seen(events, hand, len(game.seating)) == list(game.view_for(seat).history)


async def test_the_history_during_the_exchange_shows_no_card() -> None:
    """The gives and returns between other seats (and a seat's own) are counts in the
    history, as in the events: no card of any hand is in it."""
    t, _ = table(seats=4, rules=find_preset("classic").replace(auto_return=False))
    members = await seated(t, "ann", "bob", "cat", "dan")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.hand == 1)
    assert game.phase is Phase.EXCHANGE and game.public_view().owed  # returns are owed
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    history = watcher.of(m.HandHistory)
    assert history
    kinds = {type(e) for e in history_of(watcher)}
    assert m.HandStarted in kinds and m.Gave in kinds
    packed = b"".join(pack(page.to_wire()) for page in history)
    for seat in range(4):
        for card in wire.cards_to_wire(game.hand_of(seat)):
            assert pack(card) not in packed, card

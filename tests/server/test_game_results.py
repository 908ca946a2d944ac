"""The game so far (protocol version 12): whoever joins, watches or comes back while a
game is at the table is sent its ended hands, each as its `hand_over` said it, so the
standings of a player who left and came back, or of a late watcher, are the whole
game's (before this, "(2 hands were not seen here)")."""

from __future__ import annotations

from president.engine import Phase, find_preset
from president.protocol import messages as m

from .test_hand_history import OldMember
from .test_table import (
    Member,
    all_ready,
    back_after_a_drop,
    game_of,
    play_until,
    seated,
    table,
)


def results_of(member: Member) -> list[tuple[int, tuple[str, ...], tuple[int, ...]]]:
    """The hands the last `game_results` a member was sent tell of (its pages together)."""
    pages = [p for p in member.of(m.GameResults) if isinstance(p, m.GameResults)]
    first = max(i for i, page in enumerate(pages) if page.page == 0)
    assert not pages[-1].more
    return [(h.hand, h.finish, h.points) for page in pages[first:] for h in page.hands]


def hands_over(member: Member) -> list[tuple[int, tuple[str, ...], tuple[int, ...]]]:
    """The `hand_over` events a member was sent, as `results_of` gives them."""
    return [(e.hand, e.finish, e.points) for e in member.sent if isinstance(e, m.HandOver)]


async def test_a_watcher_a_seat_back_and_an_old_client_mid_game() -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    await play_until(t, members, lambda: game.hand == 2 and game.phase is Phase.PLAY)
    ann = members[0]
    told = hands_over(ann)
    assert [hand for hand, _, _ in told] == [0, 1]
    watcher, old, older = Member("watcher"), OldMember("old", version=11), OldMember("older")
    for member in (watcher, old, older):
        await t.spectate(member, None)
    assert results_of(watcher) == told
    kinds = [type(x) for x in watcher.sent]
    assert kinds.index(m.GameResults) < kinds.index(m.HandHistory) < kinds.index(m.TableView)
    assert not old.of(m.GameResults) and old.of(m.HandHistory) and old.of(m.TableView)
    assert not older.of(m.GameResults) and older.of(m.TableView)
    again = Member("again")  # no hand ended since: the very pages (encoded once)
    await t.spectate(again, None)
    assert again.of(m.GameResults)[0] is watcher.of(m.GameResults)[0]
    # a seat that drops and comes back is told them too, before its hand
    back = await back_after_a_drop(t, ann)
    assert results_of(back) == told
    kinds = [type(x) for x in back.sent]
    assert kinds.index(m.GameResults) < kinds.index(m.SealedHand)


async def test_at_the_first_hand_an_empty_page_and_at_the_end_every_hand() -> None:
    t, _ = table(seats=3, rules=find_preset("classic").replace(scoring="positional", rounds=3))
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    game = game_of(t)
    early = Member("early")
    await t.spectate(early, None)  # hand 0 in play: nothing has ended
    pages = early.of(m.GameResults)
    assert pages == [m.GameResults("T", 0, False, ())]
    await play_until(t, members, lambda: game.phase is Phase.GAME_OVER)
    told = hands_over(members[1])
    assert len(told) == game.hand + 1 == 3
    late = Member("late")
    await t.spectate(late, None)  # the game over, still shown at the table
    assert results_of(late) == told
    assert late.of(m.GameResults)[0] is not early.of(m.GameResults)[0]  # hands ended since

"""The game so far (protocol version 12): the `game_results` a snapshot brings become the
results the final standings read, so a player who left mid-game and came back, or a late
watcher, sees every hand's column and who held the office, not "(3 hands were not seen
here)"; and they replace results this screen holds of another game."""

from __future__ import annotations

import pytest
from president.client.model import TableModel, Tallied
from president.client.tui.table import TableScreen
from president.engine import HandOver
from president.protocol import messages as m
from president.protocol.errors import RemoteProtocolError

from .test_table_words import SEATING, game_over, hand_over, receive, screen_at, table_view

DAN_FIRST = ("dan", "ann", "cat", "bob")
BOB_FIRST = ("bob", "ann", "cat", "dan")


def results(
    finishes: list[tuple[str, ...]], page: int = 0, more: bool = False, first: int = 0
) -> m.GameResults:
    hands = tuple(
        m.HandResult(hand, finish, (2, 1, 0, 0)) for hand, finish in enumerate(finishes, first)
    )
    return m.GameResults(table="t", page=page, more=more, hands=hands)


def tallied(screen: TableScreen, *pages: m.GameResults) -> None:
    """As the client does with a snapshot's results: the model first, then the screen."""
    for page in pages:
        screen.model.tally(page)
        screen.record(page)


def test_a_late_watcher_sees_every_hand_of_the_game() -> None:
    screen = screen_at(None, me="sam", slot=None)
    # the watcher came in at hand 3 of 20: the server tells it hands 0 to 2 first
    tallied(screen, results([DAN_FIRST] * 3))
    for hand in range(3, 20):
        receive(screen, hand_over(hand, BOB_FIRST))
    over = game_over(SEATING, hands_played=20, winners=("bob",))
    receive(screen, table_view(over, status="finished"))
    lines = screen.standings(60)
    assert not any("not seen here" in line for line in lines)
    assert "President: dan (hands 1–3), bob (hands 4–20)" in " ".join(lines)


def test_a_seat_back_after_the_game_sees_the_hands_it_missed() -> None:
    """Ann saw hands 0 and 1, left, and came back when the game was over: the snapshot's
    results are the game's three hands, in place of her two."""
    screen = screen_at(None)
    receive(screen, hand_over(0, BOB_FIRST))
    receive(screen, hand_over(1, BOB_FIRST))
    tallied(screen, results([BOB_FIRST, BOB_FIRST, DAN_FIRST]))
    receive(screen, table_view(game_over(SEATING, hands_played=3), status="finished"))
    lines = screen.standings(60)
    assert not any("not seen here" in line for line in lines)
    assert any(line.startswith("place and points won, hand by hand") for line in lines)
    assert "President: bob (hands 1–2), dan (hand 3)" in " ".join(lines)


def test_the_log_tells_the_hands_it_had_not_told() -> None:
    """A late watcher's log began at the hand under way: it tells the game so far first,
    each hand's end in the words of its line; one told before is not told again."""
    screen = screen_at(None, me="sam", slot=None)
    receive(screen, hand_over(0, BOB_FIRST))
    tallied(screen, results([BOB_FIRST, DAN_FIRST]))
    assert screen.log[-3:] == [
        "hand 1 is over: 1. bob +2, 2. ann +1, 3. cat, 4. dan",
        "— the game so far —",
        "hand 2 is over: 1. dan +2, 2. ann +1, 3. cat, 4. bob",
    ]
    tallied(screen, results([BOB_FIRST, DAN_FIRST]))  # (again, after a lost connection)
    assert screen.log.count("— the game so far —") == 1


def test_results_of_another_game_are_replaced_not_added_to() -> None:
    """Ann watched a whole game, left, and came back during the next one (its hand 1
    over): its results are that hand's alone."""
    screen = screen_at(None)
    for hand in range(5):
        receive(screen, hand_over(hand, BOB_FIRST))
    tallied(screen, results([DAN_FIRST]))
    assert [(r.hand, r.finish) for r in screen.results] == [(0, DAN_FIRST)]


def test_pages_are_told_together_and_only_in_order() -> None:
    model = TableModel(me="ann", slot=0)
    model.tally(results([DAN_FIRST], page=1))  # no page 0 before it: ignored
    model.tally(results([BOB_FIRST], page=0, more=True))
    assert not model.news  # not before the last page
    model.tally(results([DAN_FIRST], page=1, first=1))
    (news,) = model.news
    assert news == Tallied(
        "t",
        (
            HandOver(0, BOB_FIRST, tuple(zip(BOB_FIRST, (2, 1, 0, 0)))),
            HandOver(1, DAN_FIRST, tuple(zip(DAN_FIRST, (2, 1, 0, 0)))),
        ),
    )


def test_a_server_that_says_more_for_ever_is_refused_at_the_most_pages_it_may_send() -> None:
    """A hostile server sent `more` on every page: the client kept them all (2 GB in four
    minutes).  Past the most pages a server sends, they are dropped with an error."""
    model = TableModel(me="ann", slot=0)
    for page in range(m.RESULTS_PAGES):
        model.tally(results([DAN_FIRST], page=page, more=True, first=page))
    with pytest.raises(RemoteProtocolError, match="game_results: more than 5 pages"):
        model.tally(results([DAN_FIRST], page=m.RESULTS_PAGES, more=True))
    model.tally(results([DAN_FIRST], page=m.RESULTS_PAGES + 1))  # the rest: dropped
    assert not model.news
    model.tally(results([BOB_FIRST]))  # a history afresh is heard again
    assert [news.hands for news in model.news if isinstance(news, Tallied)] == [
        (HandOver(0, BOB_FIRST, tuple(zip(BOB_FIRST, (2, 1, 0, 0)))),)
    ]
    for page in range(m.HISTORY_PAGES):
        model.recall(m.HandHistory("t", 1, page, True, ()))
    with pytest.raises(RemoteProtocolError, match="hand_history: more than 64 pages"):
        model.recall(m.HandHistory("t", 1, m.HISTORY_PAGES, True, ()))

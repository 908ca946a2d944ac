"""Back mid-hand (issue 27, item 3): the server's `hand_history` becomes the model's
events, so the seat's history is the engine's, and the table's log tells the hand so
far (only what it had not told, after a lost connection) instead of saying it cannot."""

from __future__ import annotations

from dataclasses import replace

from president.client.model import TableModel
from president.client.tui.table import RECONNECTED, TableScreen
from president.engine import PASS, Card, Gave, Play, Returned, parse_cards
from president.protocol import messages as m

from ..views import a_public_view
from .test_table_words import SEATING, following, table_view

START = m.HandStarted("t", 10, 1, SEATING, 3)
SO_FAR = (
    START,
    m.Played("t", 12, 0, ("4C",), False, False),
    m.Passed("t", 13, 1, False, "away"),
    m.Played("t", 14, 2, ("5C", "5D", "5H", "5S"), False, True),
    m.Played("t", 15, 3, ("6C", "6D", "6H", "6S"), False, True),
    m.Passed("t", 16, 0, False),
    m.Played("t", 17, 1, ("9S",), False, False),
)


def history(
    events: tuple[m.TableEvent, ...] = SO_FAR, page: int = 0, more: bool = False
) -> m.HandHistory:
    return m.HandHistory(table="t", hand=1, page=page, more=more, events=events)


def back(model: TableModel) -> TableScreen:
    """The snapshot of a seat taken back: the hand so far, the view, the hand."""
    model.recall(history())
    model.see(table_view(following()))
    model.hold(tuple(parse_cards("4C 10H KD")), (), 1, "snapshot", 0)
    screen = TableScreen(model)
    screen.catch_up()
    return screen


MOVES = [
    (0, Play((Card.parse("4C"),))),
    (1, PASS),
    (2, Play(tuple(parse_cards("5C 5D 5H 5S")))),
    (3, Play(tuple(parse_cards("6C 6D 6H 6S")))),
    (0, PASS),
    (1, Play((Card.parse("9S"),))),
]


def test_a_seat_back_mid_hand_has_the_hands_history_and_its_log_tells_it() -> None:
    model = TableModel(me="ann", slot=0)
    screen = back(model)
    assert model.history() == MOVES
    assert screen.log == [
        "— hand 2: dan deals —",
        "you play 4♣",
        "bob was away: auto-pass",
        "cat plays 5♣ 5♦ 5♥ 5♠ — REVOLUTION: ranks reversed",
        "dan plays 6♣ 6♦ 6♥ 6♠ — counter-revolution: ranks back in order",
        "you pass",
        "bob plays 9♠",
        "— hand 2 under way: you are back at your seat —",
    ]
    screen.catch_up()
    assert len(screen.log) == 8  # told once


def test_after_a_lost_connection_the_log_tells_only_what_it_missed() -> None:
    model = TableModel(me="ann", slot=0)
    model.see(table_view(a_public_view(SEATING)))
    for event in SO_FAR[:3]:
        model.note(event)
    screen = TableScreen(model)
    screen.catch_up()
    told = list(screen.log)
    assert told[-1] == "bob was away: auto-pass"
    model.lost_touch()
    model.recall(history())
    model.see(table_view(following()))
    model.hold(tuple(parse_cards("10H KD")), (), 1, "snapshot", 0)
    screen.catch_up()
    assert screen.log[len(told) :] == [
        "cat plays 5♣ 5♦ 5♥ 5♠ — REVOLUTION: ranks reversed",
        "dan plays 6♣ 6♦ 6♥ 6♠ — counter-revolution: ranks back in order",
        "you pass",
        "bob plays 9♠",
        "— hand 2 under way: you are back at your seat —",
    ]
    assert model.history() == MOVES  # the hand once, not the heard part and the history


def test_taken_back_having_missed_nothing_the_log_says_it_once() -> None:
    """A pass: after a drop that missed no move, the log said "— reconnected to your seat
    —" and under it "— hand 2 under way: you are back at your seat —", one thing twice.
    With nothing told between them, they are one line; with moves between, both stay."""
    for missed in (0, 3):
        model = TableModel(me="ann", slot=0)
        model.see(table_view(a_public_view(SEATING)))
        for event in SO_FAR[: len(SO_FAR) - missed]:
            model.note(event)
        screen = TableScreen(model)
        screen.catch_up()
        told = len(screen.log)
        model.lost_touch()
        screen.note(RECONNECTED)  # (the connection's, said as it comes back)
        model.recall(history())
        model.see(table_view(following()))
        model.hold(tuple(parse_cards("10H KD")), (), 1, "snapshot", 0)
        screen.catch_up()
        back = "— hand 2 under way: you are back at your seat —"
        if missed:
            assert screen.log[told] == RECONNECTED and screen.log[-1] == back, screen.log
            assert len(screen.log) == told + missed + 2, screen.log[told:]
        else:
            assert screen.log[told:] == ["— reconnected to your seat: hand 2 under way —"]


def _connected(view: m.TableView, away: set[str]) -> m.TableView:
    chairs = tuple(replace(c, connected=c.connected and c.name not in away) for c in view.chairs)
    return replace(view, chairs=chairs)


def test_after_a_server_restart_nobody_is_said_to_go_away_or_come_back() -> None:
    """A host's pass: after a server's restart ann's log said "— bob is away —" of
    everyone not back yet, then "— bob is back —" of each, under "— reconnected to your
    seat —" and apart from its "hand 2 under way": it was the server that had gone.
    Who is away is learnt afresh from the first view after the reconnection, untold; a
    going away after it is told, and its coming back."""
    model = TableModel(me="ann", slot=0)
    model.see(table_view(a_public_view(SEATING)))
    for event in SO_FAR:
        model.note(event)
    screen = TableScreen(model)
    screen.catch_up()
    told = len(screen.log)
    model.lost_touch()
    screen.reconnected(seated=True)
    model.recall(history())
    model.see(_connected(table_view(following()), {"bob", "cat", "dan"}))  # (not back yet)
    model.hold(tuple(parse_cards("10H KD")), (), 1, "snapshot", 0)
    screen.catch_up()
    model.see(_connected(table_view(following()), set()))  # (each back)
    screen.catch_up()
    assert screen.log[told:] == ["— reconnected to your seat: hand 2 under way —"]
    model.see(_connected(table_view(following()), {"cat"}))
    screen.catch_up()
    model.see(_connected(table_view(following()), set()))
    screen.catch_up()
    assert screen.log[told + 1 :] == ["— cat is away —", "— cat is back —"]


def test_a_history_in_pages_is_taken_whole_and_a_page_out_of_order_is_not() -> None:
    model = TableModel(me="ann", slot=0)
    model.recall(history(SO_FAR[3:], page=1))  # no page 0 before it: ignored
    assert model.events == [] and not model.news
    model.recall(history(SO_FAR[:3], page=0, more=True))
    assert model.events == []  # not before the last page
    model.recall(history(SO_FAR[3:], page=1))
    model.see(table_view(following()))
    assert model.history() == MOVES


def test_an_older_server_still_gets_the_line_that_says_the_log_starts_here() -> None:
    model = TableModel(me="ann", slot=0)
    model.see(table_view(following()))
    model.hold(tuple(parse_cards("4C 10H KD")), (), 1, "snapshot", 0)
    screen = TableScreen(model)
    screen.catch_up()
    assert screen.log == [
        "— hand 2 under way: you are back at your seat "
        "(what was played before is not in this log) —"
    ]


def test_a_seat_back_after_the_exchange_is_told_what_it_gave_and_got() -> None:
    """The exchange's line ("exchange: you gave ...; you got ...") is noted when the
    exchange ends; a client started again after it is told it with its cards (once: not
    again after a lost connection, where it was told already)."""
    model = TableModel(me="ann", slot=0)
    mine = (
        Gave(0, 3, 1, (Card.parse("2S"),)),
        Returned(3, 0, 1, (Card.parse("4C"),), False),
    )
    model.recall(history())
    model.see(table_view(following()))
    model.hold(tuple(parse_cards("4C 10H KD")), mine, 1, "snapshot", 0)
    screen = TableScreen(model)
    screen.catch_up()
    told = [text for _, _, text in screen.stream]  # (a note: beside the log when wide)
    assert told[-2:] == [
        "— hand 2 under way: you are back at your seat —",
        "exchange: you gave 2♠; you got 4♣",
    ]
    assert screen.exchange_line == "exchange: you gave 2♠; you got 4♣"
    model.lost_touch()
    model.recall(history())
    model.see(table_view(following()))
    model.hold(tuple(parse_cards("4C 10H KD")), mine, 1, "snapshot", 0)
    screen.catch_up()
    told = [text for _, _, text in screen.stream]
    assert told.count("exchange: you gave 2♠; you got 4♣") == 1


def test_back_mid_hand_on_a_short_turn_of_mine_the_line_says_so() -> None:
    """A recheck: a new `connect` back at a seat whose turn had less than the table's
    time (protocol 16's `turn_ms`): the first view set the line, and my own moves in the
    hand so far, told after it, took it away."""
    model = TableModel(me="ann", slot=0)
    model.recall(history())
    view = replace(table_view(following()), turn_deadline_ms=9_000)
    model.see(replace(view, turn_seconds=60, turn_ms=16_000))
    screen = TableScreen(model)
    screen.catch_up()
    assert screen.message == (
        "16s this turn, not 60s: your moves took long (quick ones give time back)"
    )

"""One narrator for the live table and the replay viewer: every engine event is told,
and the same event reads the same on both screens (the live table hears it as a message
of the wire, the replay walks the record through the engine)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest
from president.client.model import TableModel
from president.client.tui.narrator import Narrator
from president.client.tui.replay import ReplayScreen
from president.client.tui.seats import seat_rows, skipped_seats
from president.client.tui.table import TableScreen
from president.engine import (
    Bombed,
    Dealt,
    Discarded,
    Event,
    ExchangeDone,
    Fell,
    Game,
    GameOver,
    Gave,
    HandedOver,
    HandOver,
    HandStarted,
    Passed,
    Played,
    Returned,
    Skipped,
    Took,
    TrickEnded,
    WentOut,
    find_preset,
    parse_cards,
    public_event,
)
from president.engine.record import loads, replay
from president.protocol import messages as m
from president.protocol import wire

RECORDS = Path(__file__).parent.parent / "engine" / "records"
SEATING = ("ann", "bob", "cat", "dan")
CARDS = tuple(parse_cards("3C 4D"))

#: One of each event the engine makes (the public face where it has one).
EXAMPLES: dict[type, Event] = {
    HandStarted: HandStarted(1, SEATING, 2),
    Dealt: Dealt(0, CARDS),
    Gave: Gave(3, 0, 2, ()),
    Returned: Returned(0, 3, 2, (), False),
    ExchangeDone: ExchangeDone(),
    Played: Played(1, CARDS[:1], False, False),
    Passed: Passed(2, False),
    Skipped: Skipped(3),
    TrickEnded: TrickEnded(1, 1),
    WentOut: WentOut(1, 0),
    HandedOver: HandedOver(0, 1, 2, ()),
    Discarded: Discarded(2, CARDS[:1]),
    Fell: Fell(3, 3),
    Took: Took(2, 2, CARDS[:1]),
    Bombed: Bombed(1, 4),
    HandOver: HandOver(1, ("bob", "ann", "cat", "dan"), (("bob", 2), ("ann", 1))),
    GameOver: GameOver(("bob",)),
}

#: What a log does not tell: a seat's own deal, and the exchange's end (the next line
#: says who leads).
UNTOLD = {Dealt, ExchangeDone}


def test_every_event_of_the_engine_is_told() -> None:
    assert set(EXAMPLES) == set(get_args(Event)), "an event without an example here"
    narrator = Narrator(me="ann", rules=find_preset("classic"), seating=SEATING)
    for kind, event in EXAMPLES.items():
        line = narrator.line(event)
        if kind in UNTOLD:
            assert line is None, (kind, line)
        else:
            assert line and "seat " not in line, (kind, line)
    assert narrator.line(Played(0, CARDS[:1], False, False)) == "you play 3♣"
    assert narrator.line(Passed(1, False)) == "bob passes"


def test_a_seat_named_you_is_not_said_as_this_clients_own() -> None:
    """A hostile pass sat as "you" (refused by this server now, perhaps not by another):
    its moves read "you pass", "you deal", as the viewer's own.  Its verbs agree with a
    third person, so that "you passes" is not the viewer; the viewer's own still read
    "you pass"."""
    narrator = Narrator(me="ann", rules=find_preset("classic"), seating=("ann", "you", "cat"))
    assert narrator.line(Passed(1, False)) == "you passes"
    assert narrator.line(Passed(0, False)) == "you pass"
    assert narrator.line(HandedOver(2, 1, 1, ())) == "cat hands 1 card to you"
    assert narrator.line(HandedOver(2, 0, 1, ())) == "cat hands you 1 card"


def test_cards_are_said_where_the_event_shows_them_and_counted_where_not() -> None:
    narrator = Narrator(seating=SEATING)
    assert narrator.line(Gave(3, 0, 2, CARDS)) == "dan gives 3♣ 4♦ to ann"
    assert narrator.line(Gave(3, 0, 2, ())) == "dan gives 2 cards to ann"
    assert (
        narrator.line(Returned(0, 3, 1, (), True)) == "ann returns 1 card to dan (auto: the lowest)"
    )
    assert narrator.line(HandedOver(0, 1, 2, ()), timeout="away") == (
        "ann was away: auto-hand-over 2 cards to bob"
    )


#: Lines a replay's deal has besides its events (who sat down or left, who owes a return,
#: who leads), and the lines of events whose cards only the replay shows.
_REPLAY_ONLY = re.compile(r".* sits down|.* has left the table|\S+ owes .*|\S+ leads")
_PRIVATE = re.compile(r"\S+ (gives|returns|hands) .*")


def _rules_on_wire(document: dict[str, Any]) -> dict[str, Any]:
    rules = document.get("rules", "classic")
    return {"preset": rules} if isinstance(rules, str) else dict(rules)


def _live_log(document: dict[str, Any], skipped: list[frozenset[int]] | None = None) -> list[str]:
    """The log of a live table watching the recorded game: each step's public events as
    the server sends them, then the table's view; into `skipped`, after each step, the
    seats the live table shows skipped (`skipped_seats` of its model's events)."""
    screen = TableScreen(TableModel(me="a-watcher"))
    number = 0
    log: list[str] = []  # (the screen keeps the last 200 lines)
    kept = 0  # the screen's last lines, in `log` already (a due's next card retells one)

    def send(message: m.Message) -> None:
        nonlocal kept
        if isinstance(message, m.TableView):
            screen.model.see(message)
        elif isinstance(message, m.TableEvent):
            screen.model.note(message)
        screen.record(message)
        log[len(log) - kept :] = screen.log
        del screen.log[:-5]
        kept = len(screen.log)

    def step(game: Game, hand: int, action: int | None, events: list[Event]) -> None:
        nonlocal number
        for event in events:
            seen = public_event(event)
            message = None if seen is None else wire.event_to_wire("t", number, seen)
            if message is not None:
                number += 1
                send(message)
        view = m.TableView(
            table="t",
            number=number,
            status="playing",
            rules=_rules_on_wire(document),
            chairs=tuple(
                m.Chair(name=name, bot="", connected=True, ready=True) for name in game.seating
            ),
            turn_deadline_ms=0,
            game=wire.public_view_to_wire(game.public_view()),
        )
        send(view)
        if skipped is not None:
            skipped.append(skipped_seats(screen.model.events, screen.model.resumed))

    assert replay(document, on_step=step).fault is None
    return log


@pytest.mark.parametrize(
    "name",
    [
        "game_classic",
        "game_daifugo",
        "game_capital_fall",
        "game_seven_pass",
        "game_jack_back",
        "game_five_skip",
        "game_forbidden_finishes",
        "game_ten_discard",
    ],
)
def test_the_same_event_reads_the_same_at_the_table_and_in_the_replay(name: str) -> None:
    document = loads((RECORDS / f"{name}.json").read_bytes())
    viewer = ReplayScreen.of(document)
    viewer.last()
    replayed = [
        line
        for index in range(len(viewer.steps))
        for line in viewer.told(index)
        if not _REPLAY_ONLY.fullmatch(line) and not _PRIVATE.fullmatch(line)
    ]
    live = [line for line in _live_log(document) if not _PRIVATE.fullmatch(line)]
    assert live == replayed
    assert len(live) > 50


def test_a_due_paid_a_card_at_a_time_is_one_line_on_both_screens() -> None:
    """random-1 discards 4♦ then 4♥, one action each, for the two 10s it played: the
    live table says it once, whole; the replay's second step says it in place of the
    first's, which still says its own card when the viewer stands on it."""
    document = loads((RECORDS / "game_ten_discard.json").read_bytes())
    live = _live_log(document)
    assert "random-1 discards 4♦ 4♥" in live and "random-1 discards 4♦" not in live
    viewer = ReplayScreen.of(document)
    first, second = (
        index
        for index, step in enumerate(viewer.steps)
        if step.lines[:1] in (("random-1 discards 4♦",), ("random-1 discards 4♦ 4♥",))
    )
    assert second == first + 1 and viewer.steps[second].retells
    viewer.go(second)
    log = [line for line, _ in viewer.log(80, 40)]
    assert log[-1].endswith("random-1 discards 4♦ 4♥")
    assert not any(line.endswith("random-1 discards 4♦") for line in log)
    # numbered with both its actions (a pass saw the numbers jump from 43 to 45)
    one, two = (viewer.steps[i].action for i in (first, second))
    assert one is not None and two == one + 1
    assert log[-1] == f"{one + 1}–{two + 1} random-1 discards 4♦ 4♥", log[-1]
    viewer.go(first)
    assert viewer.log(80, 40)[-1][0] == f"{one + 1:>3} random-1 discards 4♦"
    # a hand-over shows its cards in a replay (the record is public): the same, whole
    seven = ReplayScreen.of(loads((RECORDS / "game_seven_pass.json").read_bytes()))
    whole = [(step.lines[0], step.retells) for step in seven.steps if step.retells]
    assert whole == [("random-2 hands 10♥ K♠ to random-3", True)]


def test_one_seat_row_for_both_screens() -> None:
    """The live table's rows (cards counted) and the replay's (cards face up) come from
    the same view through the same builder."""
    document = loads((RECORDS / "game_classic.json").read_bytes())
    viewer = ReplayScreen.of(document)
    step = viewer.steps[5]
    replayed = step.seats()
    live = seat_rows(step.view)
    assert [r.name for r in replayed] == [r.name for r in live]
    assert [len(r.cards) for r in replayed] == [r.count for r in live]
    assert [(r.turn, r.passed, r.place, r.title, r.points) for r in replayed] == [
        (r.turn, r.passed, r.place, r.title, r.points) for r in live
    ]
    assert all(r.cards == () for r in live)


def test_a_seat_the_fives_skip_shows_skipped_not_passed() -> None:
    """Skipped by the 5s, a seat has answered the pile (the view's `passed`) but did not
    pass: both screens say "skipped" until it moves again or the trick ends, and a seat
    that passed still says "passed"."""
    five = Played(0, tuple(parse_cards("5C")), False, False)
    assert skipped_seats([five, Skipped(1)]) == {1}
    assert skipped_seats([five, Skipped(1), Passed(2, False), Skipped(3)]) == {1, 3}
    assert skipped_seats([five, Skipped(1), Passed(1, False)]) == set()
    assert skipped_seats([five, Skipped(1), Played(1, CARDS, False, False)]) == set()
    assert skipped_seats([five, Skipped(1), TrickEnded(0, 0)]) == set()
    assert skipped_seats([Skipped(1), HandStarted(1, SEATING, 0)]) == set()
    assert skipped_seats([Skipped(1), Skipped(2)], start=1) == {2}

    document = loads((RECORDS / "game_five_skip.json").read_bytes())
    steps = ReplayScreen.of(document).steps
    live: list[frozenset[int]] = []
    _live_log(document, live)
    assert [step.skipped for step in steps] == live  # the table's rows and the replay's
    told = passed = 0
    for step in steps:
        rows = step.seats()
        names = [row.name for row in rows]
        for line in step.lines:  # (a seat out of the answer, its trick not yet over)
            for words, flags in ((" is skipped by the 5s", "skipped"), (" passes", "passed")):
                row = rows[names.index(line.split()[0])] if line.endswith(words) else None
                if row is not None and row.passed:
                    told += flags == "skipped"
                    passed += flags == "passed"
                    assert row.flags == flags, line
        for row in rows:
            assert row.skipped <= row.passed  # skipped only while out of the answer
    assert told > 5 and passed > 5


def test_a_play_that_turns_the_direction_of_play_says_which_way() -> None:
    """Under nine_reverse a 9 turns play round, and the line says which way from the
    view before it; a play holding a 9 and a Q under both turns it twice: nothing said."""
    rules = find_preset("classic").replace(nine_reverse=True, queen_reverse=True)
    narrator = Narrator(seating=SEATING, rules=rules)
    game = Game(rules, list(SEATING))
    before = game.public_view()
    nine = tuple(parse_cards("9C"))
    assert narrator.line(Played(1, nine, False, False), before) == (
        "bob plays 9♣ — play turns anticlockwise"
    )
    assert narrator.line(Played(1, nine, False, False), before._replace(backwards=True)) == (
        "bob plays 9♣ — play turns clockwise again"
    )
    run = tuple(parse_cards("9C 10C JC QC"))
    assert "turns" not in (narrator.line(Played(1, run, False, False), before) or "")
    assert "turns" not in (Narrator(seating=SEATING).line(Played(1, nine, False, False)) or "")


def test_the_engines_words_name_cards_as_the_screens_show_them() -> None:
    """A pass read "the 3S" in the rules beside 3♠ in the hand."""
    from president.engine.describe import suited

    assert suited("the opening play must contain the 3C") == "the opening play must contain the 3♣"
    assert (
        suited("the 3S played alone beats a lone joker") == "the 3♠ played alone beats a lone joker"
    )
    assert suited("10D, AH and 2S") == "10♦, A♥ and 2♠"
    for kept in ("ACE", "3Sx", "a 3 or 10", "13C", "mode 3C0"):
        assert suited(kept) == kept


def test_a_play_that_locks_the_trick_or_owes_cards_says_so() -> None:
    """A follow in the pile's suits locks the trick (suit_lock), and the line says so; a
    queen under queen_release lifts it; a play of 7s or 10s says the hand-over or discard
    that follows, unless they were its player's last cards (a game-night pass held aces
    and 2s over a locked king and read "nothing you hold beats the pile" as a bug)."""
    from president.engine import Top

    rules = find_preset("daifugo").replace(queen_release=True)
    narrator = Narrator(seating=SEATING, rules=rules)
    start = Game(rules, list(SEATING)).public_view()._replace(counts=(9, 9, 9, 9))
    on_king = start._replace(top=Top(0, 10, 1, 0, False, (1,)))  # K♦
    diamond = tuple(parse_cards("AD"))
    assert narrator.line(Played(1, diamond, False, False), on_king) == (
        "bob plays A♦ — locked to ♦ until the trick ends"
    )
    assert narrator.line(Played(1, tuple(parse_cards("AS")), False, False), on_king) == (
        "bob plays A♠"
    )
    locked = on_king._replace(lock=(1,))
    assert narrator.line(Played(1, diamond, False, False), locked) == "bob plays A♦"
    assert narrator.line(Played(1, tuple(parse_cards("QD")), False, False), locked) == (
        "bob plays Q♦ — the lock is lifted"
    )
    sevens = tuple(parse_cards("7C 7H"))
    assert narrator.line(Played(1, sevens, False, False), start) == (
        "bob plays 7♣ 7♥ — a hand-over of 2 cards follows"
    )
    assert narrator.line(Played(1, tuple(parse_cards("10C")), False, False), start) == (
        "bob plays 10♣ — a discard of 1 card follows"
    )
    last = start._replace(counts=(9, 2, 9, 9))
    assert narrator.line(Played(1, sevens, False, False), last) == "bob plays 7♣ 7♥"

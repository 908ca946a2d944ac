"""The table screen under issue 16's rules, without a terminal: a due is said with whom
it goes to and paid by choosing its cards and enter; the lock, jack back, hand-overs
(their cards to the two seats only), discards, falls and 5-skips are said in words."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from president.client.model import TableModel
from president.client.tui.app import TableApp
from president.client.tui.lobby import TableForm
from president.client.tui.lobby_app import LobbyApp
from president.client.tui.narrator import Narrator, lock_text
from president.client.tui.table import TableScreen, suggested_payment
from president.engine import (
    VARIANTS,
    Discard,
    Discarded,
    Due,
    Fell,
    Game,
    HandedOver,
    Handover,
    Phase,
    Play,
    PublicView,
    find_preset,
    parse_cards,
)
from president.engine.actions import DUE_ACTIONS
from president.engine.describe import suited, toggle_words
from president.engine.moves import Top
from president.protocol import messages as m
from prompt_toolkit.input import create_pipe_input

from ..harness.apps import AppTerminal
from ..harness.waiting import wait_for
from ..views import a_public_view
from .test_screens import FakeClient, Table, lobby_screen
from .test_table_words import SEATING, receive, screen_at, table_view

DAIFUGO = {
    name: True
    for name in (
        "sequences",
        "suit_lock",
        "jack_back",
        "five_skip",
        "seven_pass",
        "ten_discard",
        "spade_three",
        "capital_fall",
        "forbidden_finishes",
    )
}


def owing(kind: str, size: int, **changes: Any) -> PublicView:
    """Ann has just played 7s (or 10s) on an empty pile and owes their due."""
    sevens = Play(parse_cards("7C 7D" if size == 2 else "7C"))
    return a_public_view(
        SEATING,
        top=Top(0, 4, sevens.count, 0, False, tuple(c.suit for c in sevens.cards)),
        trick=((0, sevens),),
        played=sevens.cards,
        due=Due(kind, size),  # type: ignore[arg-type]
        **changes,
    )


def test_s_then_enter_pays_a_due_in_the_normal_bots_order() -> None:
    """A review pass: `s` chose the normal bot's three cards and enter sent them in the
    hand's order (4♥ first), so the review weighed the first as not its choice (it pays
    the 5♦ first, then the 9♥, then breaks the 4s)."""
    screen = screen_at(owing("handover", 3), "4H 4S 5D 9H 10C 10H", toggles=DAIFUGO)
    screen.suggest()
    assert screen.actions() == [Handover(parse_cards(card)) for card in ("5D", "9H", "4H")]


def test_a_short_clock_for_a_due_leaves_the_dues_line() -> None:
    """My 7 owes a hand-over, on a clock shorter than the table's (my moves took long):
    the status line keeps what to pay and its keys (the header shows the time), where a
    new lead after a move of mine says the short turn (`test_table_words`)."""
    screen = screen_at(a_public_view(SEATING, turn=1), "7C 4C 9H KD", toggles=DAIFUGO)
    receive(screen, m.Played("t", 2, 0, ("7C",), False, False))
    after = dataclasses.replace(
        table_view(owing("handover", 1), toggles=DAIFUGO), turn_seconds=60, turn_ms=12_000
    )
    receive(screen, dataclasses.replace(after, number=3, turn_deadline_ms=12_000))
    assert screen.message == ""
    assert screen.status_line()[1].startswith(" hand over 1 card to bob")


def test_a_due_says_what_is_owed_and_to_whom_and_enter_pays_it() -> None:
    screen = screen_at(owing("handover", 2), "4C 9H KD 2S", toggles=DAIFUGO)
    style, text = screen.status_line()
    assert style == "class:turn"
    assert text == " hand over 2 cards to bob: space chooses, s suggests, enter hands over"
    assert screen.pass_problem() == "no passing: you owe 2 cards to hand over first"
    assert screen.actions() == []
    assert screen.message == "choose 2 cards to hand over with space, then enter"
    screen.toggle(0)
    assert screen.message == "1 of 2 cards chosen to hand over: space chooses more"
    assert screen.actions() == []
    screen.toggle(3)
    assert screen.explain() is None
    assert screen.message == "2 cards chosen: enter hands over"
    screen.toggle(1)
    assert screen.message == "3 chosen, 2 owed to hand over: space takes one back"
    screen.toggle(1)
    # the engine takes a due's cards one at a time: enter sends one action a card
    assert screen.actions() == [Handover(parse_cards("4C")), Handover(parse_cards("2S"))]
    # bob is out: the cards go to the next seat holding cards
    # narrow (60 columns), the keys' words go before the receiver's name is cut (a newcomer
    # read "hand over 1 card to he…-1" at 60x16)
    bot = a_public_view(("ann", "heuristic-bot-1", "cat", "dan"), due=Due("handover", 1))
    narrow = screen_at(bot, "4C 9H KD 2S", toggles=DAIFUGO).status_line(60)[1]
    assert narrow == " hand over 1 card to heuristic-bot-1: space, enter", narrow
    past = owing("handover", 2, places=(None, 0, None, None), counts=(4, 0, 13, 13))
    assert "to cat:" in screen_at(past, "4C 9H KD 2S", toggles=DAIFUGO).status_line()[1]
    discard = screen_at(owing("discard", 1), "4C 9H KD", toggles=DAIFUGO)
    assert discard.status_line()[1] == " discard 1 card: space chooses, s suggests, enter discards"
    discard.suggest()  # s suggests the normal bot's card: here the lowest
    assert discard.actions() == [Discard(parse_cards("4C"))]
    # ... the least useful, not the lowest: the pair of 3s kept whole (the review pass:
    # an all-s daifugo game read "the play -1.7 against the normal bot's", nearly all
    # of it one discard s had chosen lowest)
    pair = screen_at(owing("discard", 2), "3C 3D 6H JS", toggles=DAIFUGO)
    pair.suggest()
    assert pair.actions() == [Discard(parse_cards("6H")), Discard(parse_cards("JS"))]
    theirs = screen_at(owing("discard", 1, turn=2), "4C", me="bob", slot=1, toggles=DAIFUGO)
    assert theirs.status_line() == ("class:dim", " cat to play ...")


def test_a_due_line_fits_60_columns_with_the_longest_name() -> None:
    seating = ("ann", "a-very-long-player-name-of-forty-chars-x", "cat", "dan")
    public = owing("handover", 2)._replace(seating=seating)
    public = public._replace(scores=tuple((name, 0) for name in seating))
    screen = screen_at(public, "4C 9H", toggles=DAIFUGO, names=seating)
    text = screen.status_line(60)[1]
    assert len(text) <= 60 and text.endswith("enter hands over"), text
    assert " to a-" in text  # the name cut in the middle, its start kept


def test_hand_overs_show_their_cards_to_the_two_seats_only() -> None:
    """The table hears how many cards went; the giver and the receiver, whose sealed
    hands change, see which."""
    seven = owing("handover", 2, turn=1)
    third = screen_at(seven, "4C 5D", me="cat", slot=2, toggles=DAIFUGO)
    receive(third, m.HandedOver("t", 5, 0, 1, 2))
    assert third.log[-1] == "ann hands 2 cards to bob"
    me = screen_at(seven, "3C 4C 9H KD", toggles=DAIFUGO)
    receive(me, m.HandedOver("t", 5, 0, 1, 2))
    assert me.log[-1] == "you hand 2 cards to bob"
    me.model.hold(tuple(parse_cards("9H KD")), (), 1, "handover", 0)
    receive(me, m.SealedHand(table="t", number=6, hand=1, seat=0, sealed=b"x", reason="handover"))
    assert me.log[-1] == "you hand 3♣ 4♣ to bob"
    assert me.stream[-1] == ("", "", "you hand 3♣ 4♣ to bob")
    bob = screen_at(seven, "5S", me="bob", slot=1, toggles=DAIFUGO)
    receive(bob, m.HandedOver("t", 5, 0, 1, 2, "time"))
    assert bob.log[-1] == "ann ran out of time: auto-hand-over 2 cards to you"
    bob.model.hold(tuple(parse_cards("3C 4C 5S")), (), 1, "handover", 1)
    receive(bob, m.SealedHand(table="t", number=6, hand=1, seat=1, sealed=b"x", reason="handover"))
    assert bob.log[-1] == "ann ran out of time: auto-hand-over 3♣ 4♣ to you"
    assert [e.cards for e in bob.model.handed] == [tuple(parse_cards("3C 4C"))]


def pay_a_card_at_a_time(screen: TableScreen, owed: int, timeout: str = "") -> None:
    """Ann, who played 7s, pays her hand-over of `owed` cards to bob as a bot (or the
    timeout rule) does: one card an action, each followed by the sealed hands of the two
    seats (ann held 3C 4S 9D KD, bob 5S) and the table's view."""
    ann, bob = list(parse_cards("3C 4S 9D KD")), list(parse_cards("5S"))
    number = 10
    for paid in parse_cards("4S 9D")[:owed]:
        number += 1
        receive(screen, m.HandedOver("t", number, 0, 1, 1, timeout))
        ann.remove(paid)
        bob.append(paid)
        me = screen.model.seat
        if me in (0, 1):
            screen.model.hold(tuple(ann if me == 0 else bob), (), 1, "handover", me)
            sealed = m.SealedHand(
                table="t", number=number, hand=1, seat=me, sealed=b"x", reason="handover"
            )
            receive(screen, sealed)
        owed -= 1
        after = owing("handover", 2, turn=0 if owed else 1, counts=(len(ann), len(bob), 13, 13))
        receive(
            screen,
            table_view(
                after._replace(due=Due("handover", owed) if owed else None), toggles=DAIFUGO
            ),
        )


def handing(screen: TableScreen) -> list[str]:
    return [line for line in screen.log if "hand" in line]


def test_a_hand_over_paid_a_card_at_a_time_is_one_line_to_each_seat() -> None:
    """A bot pays a 2-card hand-over as two actions: the log says it once, whole, as
    soon as the second card goes (it read as two moves, "ann hands 1 card to bob" twice);
    the cards still only to the two seats."""
    seven = owing("handover", 2, turn=0)
    third = screen_at(seven, "5D", me="cat", slot=2, toggles=DAIFUGO)
    pay_a_card_at_a_time(third, 2)
    assert handing(third) == ["ann hands 2 cards to bob"]
    assert third.stream[-1] == ("", "", "ann hands 2 cards to bob")
    ann = screen_at(seven, "3C 4S 9D KD", toggles=DAIFUGO)
    pay_a_card_at_a_time(ann, 1)  # (the first card: said with it at once)
    assert handing(ann) == ["you hand 4♠ to bob"]
    ann = screen_at(seven, "3C 4S 9D KD", toggles=DAIFUGO)
    pay_a_card_at_a_time(ann, 2)
    assert handing(ann) == ["you hand 4♠ 9♦ to bob"]
    assert [s for s in ann.stream if " hand" in s[2]] == [("", "", "you hand 4♠ 9♦ to bob")]
    bob = screen_at(seven, "5S", me="bob", slot=1, toggles=DAIFUGO)
    pay_a_card_at_a_time(bob, 2)
    assert handing(bob) == ["ann hands you 4♠ 9♦"]
    timed_out = screen_at(seven, "5D", me="cat", slot=2, toggles=DAIFUGO)
    pay_a_card_at_a_time(timed_out, 2, "time")
    assert handing(timed_out) == ["ann ran out of time: auto-hand-over 2 cards to bob"]


def test_a_one_card_hand_over_and_each_due_keep_lines_of_their_own() -> None:
    one = owing("handover", 1, turn=0)
    third = screen_at(one, "5D", me="cat", slot=2, toggles=DAIFUGO)
    pay_a_card_at_a_time(third, 1)
    assert handing(third) == ["ann hands 1 card to bob"]
    bob = screen_at(one, "5S", me="bob", slot=1, toggles=DAIFUGO)
    pay_a_card_at_a_time(bob, 1)
    assert handing(bob) == ["ann hands you 4♠"]
    # a due of 2 paid whole, then the next play's: two lines
    seven = owing("handover", 2, turn=0)
    third = screen_at(seven, "5D", me="cat", slot=2, toggles=DAIFUGO)
    pay_a_card_at_a_time(third, 2)
    receive(third, table_view(seven, toggles=DAIFUGO))
    pay_a_card_at_a_time(third, 1)
    assert handing(third) == ["ann hands 2 cards to bob", "ann hands 1 card to bob"]
    # a card paid by hand, the next by the timeout rule: each said as it was paid
    third = screen_at(seven, "5D", me="cat", slot=2, toggles=DAIFUGO)
    receive(third, m.HandedOver("t", 11, 0, 1, 1))
    receive(third, table_view(owing("handover", 1, turn=0), toggles=DAIFUGO))
    receive(third, m.HandedOver("t", 12, 0, 1, 1, "time"))
    assert handing(third) == [
        "ann hands 1 card to bob",
        "ann ran out of time: auto-hand-over 1 card to bob",
    ]


def test_a_discard_paid_a_card_at_a_time_is_one_line() -> None:
    screen = screen_at(owing("discard", 2, turn=2), "5D", toggles=DAIFUGO)
    receive(screen, m.Discarded("t", 11, 2, ("6S",)))
    assert screen.log[-1] == "cat discards 6♠"
    receive(screen, table_view(owing("discard", 1, turn=2), toggles=DAIFUGO))
    receive(screen, m.Discarded("t", 12, 2, ("7S",)))
    assert [line for line in screen.log if "discard" in line] == ["cat discards 6♠ 7♠"]
    # the discards a queen bomb makes are no due's: each seat's its own line
    bombed = screen_at(owing("bomb", 1, turn=2), "5D", toggles=DAIFUGO)
    receive(bombed, m.Bombed("t", 11, 2, 4))
    receive(bombed, m.Discarded("t", 12, 2, ("7S",)))
    receive(bombed, table_view(owing("discard", 1, turn=2), toggles=DAIFUGO))
    receive(bombed, m.Discarded("t", 13, 2, ("6S",)))
    assert [line for line in bombed.log if line.startswith("cat discards")] == [
        "cat discards 7♠",
        "cat discards 6♠",
    ]


def test_discards_falls_skips_jacks_and_forbidden_finishes_are_said() -> None:
    screen = screen_at(owing("discard", 1, turn=0), "4C 9H", toggles=DAIFUGO)

    def line(message: m.TableEvent) -> str:
        receive(screen, message)
        return screen.log[-1]

    assert line(m.Discarded("t", 2, 0, ("4C",))) == "you discard 4♣"
    assert screen.model.hand == list(parse_cards("9H"))  # my discard left my hand
    assert line(m.Discarded("t", 3, 2, ("6S", "7S"), "away")) == (
        "cat was away: auto-discard 6♠ 7♠"
    )
    assert line(m.Played("t", 4, 1, ("5C", "5D"), False, False)) == "bob plays 5♣ 5♦"
    assert line(m.Skipped("t", 5, 2)) == "cat is skipped by the 5s"
    assert line(m.Skipped("t", 6, 3)) == "dan is skipped by the 5s"
    assert line(m.Played("t", 7, 2, ("9H", "10H", "JH"), False, False)) == (
        "cat plays 9♥ 10♥ J♥ — JACK BACK: ranks reversed — a discard of 1 card follows"
    )
    assert line(m.WentOut("t", 8, 1, 0)) == "bob is left holding cards: place 1"
    assert line(m.Fell("t", 9, 3, 3)) == "dan falls to Scum: capital fall"
    assert line(m.Played("t", 10, 2, ("JK",), False, False)) == "cat plays JK"
    assert line(m.WentOut("t", 11, 2, 2)) == (
        "cat goes out on a forbidden finish: place 3 (the lowest free)"
    )
    jacked = owing("discard", 1, turn=0, jack_back=True)
    receive(screen, table_view(jacked, toggles=DAIFUGO))
    assert line(m.Played("t", 12, 1, ("JC",), False, False)) == (
        "bob plays J♣ — jack back ends: ranks as before — locked to ♣ until the trick ends"
    )  # (on 7♣: the same suit locks the trick)


def test_a_locked_trick_and_jack_back_are_shown_and_the_hand_sorts_by_the_order() -> None:
    locked = owing("discard", 1, turn=0, lock=(2, 3), jack_back=True)._replace(due=None)
    screen = screen_at(locked, "4C 9H 2S", toggles=DAIFUGO)
    assert [str(c) for c in screen.hand()] == ["2S", "9H", "4C"]  # reversed by the jack
    assert lock_text(locked.lock) == "locked: ♥♠"
    assert lock_text((2, 2, 2)) == "locked: ♥" and lock_text(()) == ""
    assert screen.model.public is not None and screen.model.public.phase is Phase.PLAY


def test_nothing_beats_a_locked_pile_names_the_lock() -> None:
    """Aces and 2s over a king of ♦ locked to ♦: the hint names the lock, in full and at
    60 columns (a game-night pass read "nothing you hold beats the pile" as a bug)."""
    king = Play(parse_cards("KD"))
    public = a_public_view(
        SEATING,
        top=Top(1, 10, 1, 0, False, (1,)),
        trick=((2, Play(parse_cards("QD"))), (1, king)),
        played=(*parse_cards("QD"), *king.cards),
        lock=(1,),
        turn=0,
        counts=(4, 12, 12, 13),
    )
    screen = screen_at(public, "AC AS 2C 2S", toggles=DAIFUGO)
    assert screen.actions() == []  # (no play: p passes)
    said = "nothing you hold in ♦ beats the pile (the trick is locked to ♦): p passes"
    assert screen.explain() == said
    screen.message = ""  # (the turn's own hint, under no message)
    assert screen.status_line()[1] == f" your turn: {said}"
    assert screen.status_line(59)[1] == " locked to ♦: nothing you hold beats it: p passes"


# --- on a terminal ------------------------------------------------------------------------


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80)])
async def test_the_due_the_lock_and_jack_back_are_on_the_screen(rows: int, columns: int) -> None:
    """Ann played a sequence 7♥ 8♥ 9♥ holding a 7 on bob's 4♥ 5♥ 6♥: the trick is locked
    to hearts, a jack turned the order, and she owes a hand-over to bob."""
    run = Play(parse_cards("7H 8H 9H"))
    public = a_public_view(
        SEATING,
        top=Top(0, 4, 3, 0, True, (2, 2, 2)),
        trick=((1, Play(parse_cards("4H 5H 6H"))), (0, run)),
        played=(*parse_cards("4H 5H 6H"), *run.cards),
        lock=(2, 2, 2),
        jack_back=True,
        due=Due("handover", 1),
        counts=(5, 10, 13, 13),
    )
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        model = TableModel(me="ann", slot=0, hand=list(parse_cards("3C 4D JS KD 2S")))
        client = FakeClient(model)
        app = TableApp(client, input=keys, output=terminal.output)  # type: ignore[arg-type]
        view = table_view(public, toggles=DAIFUGO)
        model.see(view)
        app.screen.record(view)
        await terminal.start(app.app)
        text = terminal.screen.text()
        assert "Window too small" not in text, text
        assert "JACK BACK" in terminal.lines()[0], text
        assert "locked: ♥" in text, text
        assert "7♥ 8♥ 9♥" in text, text
        assert "hand over 1 card to bob" in terminal.lines()[-1], text
        text = await terminal.press("\r")  # nothing chosen: one line says what to do
        assert "choose 1 card to hand over" in text, text
        await terminal.press(" ")  # the cursor's card: the highest in the reversed order
        await terminal.press("\x1b[C ")  # and the next: one too many
        text = await terminal.press("\r")
        assert "2 chosen, 1 owed to hand over: space takes one back" in text, text
        assert client.sent == []
        await terminal.press(" ")  # unchoose the second
        await terminal.press("\r")
        await wait_for(lambda: client.sent)
        assert client.sent == [Handover(parse_cards("2S"))]  # (one card: one action)
        await terminal.stop()
    for line in text.split("\n"):
        assert len(line) <= columns


def test_the_replay_says_each_new_event_with_its_cards() -> None:
    """A finished game's record is public: the replay shows a hand-over's cards too."""
    narrator = Narrator(seating=("ann", "bob", "cat", "dan"))
    cards = tuple(parse_cards("3C 4D"))
    assert narrator.line(HandedOver(0, 1, 2, cards)) == "ann hands 3♣ 4♦ to bob"
    assert narrator.line(Discarded(2, cards[:1])) == "cat discards 3♣"
    assert narrator.line(Fell(3, 3)) == "dan falls to 4th: capital fall"  # (rules not known)


def test_the_create_table_form_says_each_new_toggle_in_words() -> None:
    form = TableForm(name="friday")
    while form.preset != "daifugo":
        form.row = form.keys.index("preset")
        form.change(1)
    rows = {label: (value, words) for label, value, words in form.rows()}
    rules = find_preset("daifugo")
    for name in VARIANTS:
        value = getattr(rules, name)
        assert rows[name] == (str(value).lower(), suited(toggle_words(name, value, rules))), name
    assert form.problem() is None
    form.row = form.keys.index("suit_ranking")
    form.change(1)
    form.row = form.keys.index("equal_plays")
    form.change(1)
    assert form.problem() is not None and "suit_ranking" in form.problem()  # type: ignore[operator]
    assert form.request().preset == "daifugo"


def test_a_choice_the_lock_or_a_sequence_refuses_is_said_in_the_engines_words() -> None:
    nine = Play(parse_cards("9H"))
    locked = a_public_view(
        SEATING, top=Top(1, 6, 1, 0, False, (2,)), trick=((1, nine),), played=nine.cards, lock=(2,)
    )
    screen = screen_at(locked, "10C 10H 4S 5S 6S", toggles=DAIFUGO)
    screen.toggle(screen.hand().index(parse_cards("10C")[0]))
    assert screen.message is not None and "locked to hearts" in screen.message, screen.message
    screen.clear()
    screen.toggle(screen.hand().index(parse_cards("10H")[0]))
    assert screen.explain() is None
    lead = screen_at(a_public_view(SEATING), "4S 5S 6S 9H", toggles=DAIFUGO)
    for card in parse_cards("4S 5S 6S"):
        lead.toggle(lead.hand().index(card))
    assert lead.explain() is None and lead.actions() == [Play(parse_cards("4S 5S 6S"))]


def test_a_president_who_fell_is_told_so() -> None:
    fell = owing("discard", 1, turn=2, places=(3, 0, None, None), counts=(5, 0, 9, 9))
    screen = screen_at(fell._replace(due=None), "4C 5C 6C 7C 8C", toggles=DAIFUGO)
    assert screen.status_line() == (
        "class:dim",
        " you fell to place 4 (capital fall): the others play on",
    )


# --- a daifugo game from the engine, on a terminal ----------------------------------------


@contextlib.asynccontextmanager
async def daifugo_table(
    rows: int, columns: int, seed: int
) -> AsyncIterator[tuple[Table, AppTerminal]]:
    """The table screen on a terminal, fed a daifugo game of the engine's."""
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        table = Table(seed=seed)
        table.rules = find_preset("daifugo").replace(target=3)
        table.game = Game(table.rules, table.seating)
        app = TableApp(table.client, input=keys, output=terminal.output)  # type: ignore[arg-type]
        table.attach(app)
        yield table, terminal


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80)])
async def test_a_due_from_a_real_game_is_paid_by_keys(rows: int, columns: int) -> None:
    """Ann plays 7s or 10s in an engine game: the screen says what she owes, a wrong
    count is one line, and s then enter pays it with the normal bot's cards."""
    async with daifugo_table(rows, columns, seed=3) as (table, terminal):
        me = table.seating.index("ann")
        game = table.game

        def mine() -> bool:
            return game.due is not None and game.actor == me

        table.deal()
        table.until(mine)
        await terminal.start(table.app.app)
        due = game.due
        assert due is not None
        verb = "hand over" if due.kind == "handover" else "discard"
        text = terminal.screen.text()
        assert "Window too small" not in text, text
        assert f"{verb} {due.size} card" in terminal.lines()[-1], text
        screen = table.app.screen
        for index in range(due.size + 1):  # one card too many
            screen.toggle(index)
        text = await terminal.press("\r")
        assert f"{due.size + 1} chosen, {due.size} owed to {verb}" in text, text
        assert table.client.sent == []
        screen.clear()
        view = game.view_for(me)
        normal = suggested_payment(view)  # the normal bot's cards, one by one
        assert len(normal) == due.size
        await terminal.press("s")
        await terminal.press("\r")
        await wait_for(lambda: len(table.client.sent) >= due.size)
        sent = table.client.sent
        assert sorted(sent, key=str) == sorted(
            (DUE_ACTIONS[due.kind]((card,)) for card in normal), key=str
        )
        for line in terminal.lines():
            assert len(line) <= columns
        await terminal.stop()


def test_enter_off_turn_with_nothing_chosen_sends_nothing() -> None:
    """Found playing by hand: enter pressed as the turn moved on sent an empty play, and
    the server's schema refusal ("play.cards: 0 items ...") was the line shown."""
    screen = screen_at(a_public_view(SEATING, turn=2), "4C 9H", toggles=DAIFUGO)
    assert screen.actions() == [] and screen.message == "it is not your turn"


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80)])
async def test_the_form_shows_each_new_toggle_in_words_on_a_terminal(
    rows: int, columns: int
) -> None:
    """The create-table form at the daifugo preset, walked down to every new toggle:
    each row is on the screen with its value and its words."""
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        screen = lobby_screen()
        lobby = LobbyApp(
            FakeClient(TableModel(me="ann")), screen, input=keys, output=terminal.output
        )  # type: ignore[arg-type]
        await terminal.start(lobby.app)
        await terminal.press("n")
        form = screen.form
        assert form is not None
        form.preset = "daifugo"
        rules = find_preset("daifugo")
        for name in VARIANTS:
            while form.key != name:  # (the screen is read at the row)
                await terminal.step("\x1b[B")
            text = await terminal.redraw()
            shown = set(text.replace("│", " ").split())
            words = suited(toggle_words(name, getattr(rules, name), rules))
            assert name in text and set(words.split()) <= shown, (name, text)
        await terminal.stop()
    for line in text.split("\n"):
        assert len(line) <= columns

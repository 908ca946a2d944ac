"""The replay viewer (`president replay FILE --view`): the pure stepping over records of
every preset, the screen driven by keys at 60x20 and 80x24, and the real command in a
pseudo-terminal.  Records are made the way `president sim --record` makes them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import sys
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from president.bots.sim import play_game
from president.bots.strategies import make_strategy
from president.client.tui.narrator import card_text
from president.client.tui.replay import ReplayScreen, Step, Swap, walk, wrap
from president.client.tui.replay_app import WIDE, ReplayApp, reviewed
from president.client.tui.review import ReviewState, sparkline
from president.client.tui.seats import SeatRow
from president.engine import PRESETS, Game, Phase, deck, parse_cards
from president.engine.record import dumps, replay, to_record
from president.engine.scoring import titles_by_name

from ..harness.apps import AppTerminal, app_terminal
from ..harness.processes import PRESIDENT, environment, president_here
from ..harness.terminal import Terminal
from ..harness.waiting import wait_for

# --- records, as `president sim --record` writes them --------------------------------

#: name -> (preset, players, toggles on top of it)
TABLES: dict[str, tuple[str, int, dict[str, Any]]] = {
    "classic": ("classic", 4, {}),
    "full": ("full", 5, {}),
    "house": ("house", 4, {}),
    "sheet": ("sheet", 5, {}),
    "table": ("table", 3, {}),
    # returns chosen by hand, locked passing, revolutions, bombs, skips, two decks, wild jokers
    "toggles": (
        "classic",
        6,
        {
            "decks": 2,
            "jokers": 2,
            "joker_mode": "wild",
            "passing": "locked",
            "revolution": True,
            "bombs": True,
            "equal_plays": "skip",
            "two_finish_penalty": True,
            "target": 4,
        },
    ),
}


@cache
def _record_text(name: str) -> str:
    preset, players, toggles = TABLES[name]
    rules = PRESETS[preset].replace(**toggles)
    game, _, _ = play_game(rules, ["heuristic"] * players, seed=13, number=0, rotate=True)
    assert game.phase is Phase.GAME_OVER
    return dumps(to_record(game, preset))


def a_record(name: str) -> dict[str, Any]:
    return json.loads(_record_text(name))


def step_of(screen: ReplayScreen, hand: int, action: int | None) -> int:
    return next(i for i, s in enumerate(screen.steps) if (s.hand, s.action) == (hand, action))


# --- the pure stepping ----------------------------------------------------------------


@pytest.mark.parametrize("name", TABLES)
def test_each_step_is_the_table_after_one_deal_or_action(name: str) -> None:
    document = a_record(name)
    screen = ReplayScreen.of(document)
    assert screen.fault is None
    hands = document["hands"]
    assert [(s.hand, s.action) for s in screen.steps] == [
        (h, a) for h, hand in enumerate(hands) for a in [None, *range(len(hand["actions"]))]
    ]
    assert len(screen.hands) == len(hands)
    for step in screen.steps:
        dealt = Counter(parse_cards([c for cards in hands[step.hand]["deal"] for c in cards]))
        held = Counter(card for cards in step.cards for card in cards)
        # no card made or lost: what the seats hold and what was played is the deal
        assert held + Counter(step.view.played) == dealt, (step.hand, step.action)
        assert list(step.view.seating) == hands[step.hand]["seating"]
        if step.action is None:
            # each hand face up as dealt, then moved by the exchange the engine made
            for seat, cards in enumerate(hands[step.hand]["deal"]):
                name_ = step.view.seating[seat]
                got = Counter(c for s in step.exchange if s.receiver == name_ for c in s.cards)
                gave = Counter(c for s in step.exchange if s.giver == name_ for c in s.cards)
                assert Counter(step.cards[seat]) == Counter(parse_cards(cards)) - gave + got
        else:
            assert step.actor == hands[step.hand]["actions"][step.action]["seat"]
            assert step.lines, "every action says what it did"


@pytest.mark.parametrize("name", TABLES)
def test_the_scores_as_they_stood(name: str) -> None:
    """At a hand's deal, the scores after the hands before it; at its last action,
    after it: as `president replay` counts them on the record cut there."""
    document = a_record(name)
    screen = ReplayScreen.of(document)
    for hand, steps in enumerate(screen.hands):
        before = replay({**document, "hands": document["hands"][:hand]})
        after = replay({**document, "hands": document["hands"][: hand + 1]})
        assert before.game is not None and after.game is not None
        assert dict(screen.steps[steps.start].scores) == before.game.scores
        assert dict(screen.steps[steps[-1]].scores) == after.game.scores
        rows = screen.steps[steps[-1]].seats()
        assert {r.name: r.points for r in rows} == {
            n: after.game.scores[n] for n in after.game.seating
        }
        screen.go(steps[-1])  # the score sheet, as far as this hand
        number, finish, scores = screen.sheet()[-1]
        assert (number, scores) == (hand, after.game.scores)
        assert list(finish) == after.to_json()["hands"][-1]["finish"]
        assert len(screen.sheet()) == hand + 1
        screen.go(steps[-1] - 1)
        assert len(screen.sheet()) == hand
    assert screen.over and screen.verdict().startswith("every step legal")


@pytest.mark.parametrize("name", ["classic", "full", "sheet", "toggles"])
def test_the_exchange_who_gave_what_to_whom(name: str) -> None:
    document = a_record(name)
    screen = ReplayScreen.of(document)
    checked = replay(document).to_json()["hands"]
    returns = 0
    for hand, steps in enumerate(screen.hands):
        deal = screen.steps[steps.start]
        gives = [
            {"from": s.giver, "to": s.receiver, "cards": [str(c) for c in s.cards]}
            for s in deal.exchange
            if not s.returned
        ]
        assert gives == checked[hand]["gives"]
        for row in deal.seats():  # what each seat got is marked in its hand
            got = Counter(card for s in deal.exchange if s.receiver == row.name for card in s.cards)
            assert Counter(row.received) == got
        for index, action in enumerate(document["hands"][hand]["actions"]):
            if "return" not in action:
                continue
            returns += 1
            step = screen.steps[step_of(screen, hand, index)]
            giver = step.view.seating[action["seat"]]
            swap = step.exchange[-1]
            assert swap.returned and swap.giver == giver
            assert sorted(swap.cards) == sorted(parse_cards(action["return"]))
            assert step.seats()[action["seat"]].owes == 0
            assert f"{giver} returns {' '.join(card_text(c) for c in swap.cards)}" in step.lines[0]
    if name != "house":
        assert returns, "the record has returns chosen by hand"


def test_moving_action_by_action_and_hand_by_hand() -> None:
    screen = ReplayScreen.of(a_record("classic"))
    assert (screen.step.hand, screen.step.action) == (0, None)
    screen.back()
    assert screen.index == 0
    screen.forward()
    assert (screen.step.hand, screen.step.action) == (0, 0)
    screen.next_hand()
    assert (screen.step.hand, screen.step.action) == (1, None)
    screen.forward()
    screen.forward()
    screen.previous_hand()  # back to this hand's deal ...
    assert (screen.step.hand, screen.step.action) == (1, None)
    screen.previous_hand()  # ... and from there to the hand before
    assert (screen.step.hand, screen.step.action) == (0, None)
    screen.previous_hand()
    assert screen.index == 0
    screen.last()
    assert screen.index == len(screen.steps) - 1 and screen.step.view.phase is Phase.GAME_OVER
    screen.forward()
    assert screen.index == len(screen.steps) - 1
    screen.next_hand()
    assert screen.index == len(screen.steps) - 1
    screen.back()
    assert screen.index == len(screen.steps) - 2
    screen.first()
    assert screen.index == 0
    assert screen.position() == f"hand 1/{len(screen.hands)} · deal"
    screen.forward()
    assert screen.position() == f"hand 1/{len(screen.hands)} · action 1/{len(screen.hands[0]) - 1}"


def test_the_log_up_to_the_step_cut_at_words() -> None:
    screen = ReplayScreen.of(a_record("classic"))
    screen.go(step_of(screen, 1, 5))
    log = screen.log(34, 12)
    assert len(log) == 12 and all(len(line) <= 34 for line, _ in log)
    now = [line for line, current in log if current]
    assert now and log[-1][1], "this step's lines come last, highlighted"
    words = " ".join(screen.step.lines).split()
    assert " ".join(now).split()[1:] == words  # its number, then its words, none cut
    earlier = [line for line, current in log if not current]
    assert " ".join(screen.steps[screen.index - 1].lines).split()[-1] in earlier[-1]
    long = next(i for i, s in enumerate(screen.steps) if s.action and len(s.lines[0]) > 30)
    screen.go(long)
    narrow = screen.log(24, 30)
    now = [line for line, current in narrow if current]
    assert all(len(line) <= 24 for line, _ in narrow) and len(now) > len(screen.step.lines)
    assert now[0].split()[0] == str(screen.step.action + 1)  # the number once, at its start
    assert " ".join(now).split()[1:] == " ".join(screen.step.lines).split()
    screen.last()  # the last action: the play, who went out, the hand, the game
    tight = screen.log(60, 3)
    assert all(now for _, now in tight) and len(screen.step.lines) > 3
    assert tight[0][0].split()[1:] == screen.step.lines[0].split()[: len(tight[0][0].split()) - 1]
    screen.first()
    first = screen.log(80, 10)
    assert first[0][0].startswith("— hand 1:") and all(current for _, current in first)


def test_a_step_too_long_for_the_log_keeps_its_action_and_its_end() -> None:
    """A hand's last step (the last ones out, the finish) in a log of a few rows: its
    first row, the action, then "…", then its last rows, the finish whole (a pass at
    60x16 saw "hand 2 is over: 1. root +2, 2. heuristic-bot-3 +1," and no more)."""
    screen = ReplayScreen.of(a_record("classic"))
    end = screen.steps[screen.hands[0][-1]]
    screen.go(screen.steps.index(end))
    rows = screen.log_lines(screen.index, 40)
    assert len(rows) > 4 and rows[-1].split()[-1], rows  # (a step longer than the box)
    shown = screen.log(40, 4)
    assert [line for line, _ in shown] == [rows[0], "  …", *rows[-2:]], (shown, rows)
    assert all(now for _, now in shown) and "4. " in shown[-1][0], shown  # (the last place)


def test_a_finish_is_wrapped_a_player_at_a_time() -> None:
    """A long line is cut at spaces only: not inside heuristic-bot-1, not between a
    place and its player or a player and their points."""
    line = "hand 3 is over: 1. heuristic-bot-1 +2, 2. heuristic-bot-3 +1, 3. me, 4. greedy-2"
    for width in range(30, len(line) + 1):
        parts = wrap(line, width)
        assert all(len(part) <= width for part in parts), (width, parts)
        assert " ".join(parts).split() == line.split(), (width, parts)
        for part in parts:
            assert not re.search(r"(\d\.|-)$", part), (width, parts)
            assert not part.lstrip().startswith("+"), (width, parts)
    assert wrap(line, len(line)) == [line]


@pytest.mark.parametrize("name", TABLES)
def test_titles_once_a_hand_is_over_are_the_ones_it_gave(name: str) -> None:
    """During a hand, each seat's title is from the hand before; at its last step (and
    at the end of the game) the one its own finish gave, kept into the next deal."""
    screen = ReplayScreen.of(a_record(name))
    held: dict[str, str] = {}
    for hand, steps in enumerate(screen.hands):
        for index in steps[:-1]:
            assert {r.name: r.title for r in screen.steps[index].seats() if r.title} == held
        screen.go(steps[-1])
        number, finish, _ = screen.sheet()[-1]
        assert number == hand
        held = titles_by_name(screen.step.view.rules, finish)
        assert {r.name: r.title for r in screen.step.seats()} == held, hand
    assert screen.over


def test_a_record_cut_mid_hand_is_shown_as_far_as_it_goes() -> None:
    document = a_record("house")
    document["hands"] = document["hands"][:3]
    document["hands"][2]["actions"] = document["hands"][2]["actions"][:7]
    screen = ReplayScreen.of(document)
    assert screen.fault is None and not screen.over
    screen.last()
    assert (screen.step.hand, screen.step.action) == (2, 6)
    assert screen.verdict() == "every step legal: 3 hands, the game is not over"


def test_an_illegal_step_shows_the_steps_before_it(tmp_path: Path) -> None:
    document = a_record("classic")
    actions = document["hands"][1]["actions"]
    lead = next(i for i, a in enumerate(actions) if i > 3 and "play" in a)
    actions[lead] = {"seat": actions[lead]["seat"], "play": ["3C", "3C", "3C", "3C", "3C"]}
    screen = ReplayScreen.of(document)
    assert screen.fault == replay(document).fault
    assert (screen.steps[-1].hand, screen.steps[-1].action) == (1, lead - 1)
    assert screen.verdict().startswith(
        f"illegal in hand 2, action {lead + 1} (the record's hands[1].actions[{lead}]): "
    )
    assert screen.fault is not None and screen.fault.error in screen.verdict()
    # the viewer says where as `president replay` does
    path = _written(document, tmp_path)
    said = president_here("replay", str(path))
    assert said.returncode == 1 and said.stdout.strip() == screen.verdict(), said.stdout

    bad_deal = a_record("classic")
    bad_deal["hands"][2]["dealer"] = 9
    screen = ReplayScreen.of(bad_deal)
    assert screen.steps[-1].hand == 1 and screen.steps[-1].action == len(screen.hands[1]) - 2
    assert screen.verdict().startswith("illegal in hand 3's deal (the record's hands[2]): ")
    said = president_here("replay", str(_written(bad_deal, tmp_path)))
    assert said.returncode == 1 and said.stdout.strip() == screen.verdict(), said.stdout

    no_rules = {**a_record("classic"), "rules": {"preset": "nope"}}
    screen = ReplayScreen.of(no_rules)
    assert not screen.steps and screen.verdict().startswith("illegal in the header: rules: ")


def _written(document: dict[str, Any], folder: Path) -> Path:
    """`document` in a file of its own, for `president replay`."""
    path = folder / f"game-{len(list(folder.iterdir()))}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _left_and_joined() -> dict[str, Any]:
    """A table where Ben leaves after hand 1 and Eve sits down, as a server's record has it."""
    game = Game(PRESETS["classic"].replace(target=30), ["Ann", "Ben", "Cat", "Dan"])
    bots = make_strategy("greedy", random.Random(1))
    for hand in range(2):
        if hand:
            game.leave("Ben")
            game.join("Eve")
        game.start_hand(rng=random.Random(hand))
        while (seat := game.actor) is not None:
            game.apply(seat, bots.choose(game.view_for(seat)))
    return json.loads(dumps(to_record(game, "classic")))


def test_players_who_leave_and_join_between_hands() -> None:
    screen = ReplayScreen.of(_left_and_joined())
    assert screen.fault is None
    deal = screen.steps[screen.hands[1].start]
    assert "Ben has left the table" in deal.lines and "Eve sits down" in deal.lines
    assert "Ben" not in deal.view.seating and "Eve" in deal.view.seating
    scores = dict(deal.scores)
    assert scores["Eve"] == 0 and "Ben" in scores  # the leaver's score is kept
    assert {r.name for r in deal.seats()} == {"Ann", "Cat", "Dan", "Eve"}


# --- the screen, driven by keys -------------------------------------------------------


@contextlib.asynccontextmanager
async def viewer(
    document: dict[str, Any], rows: int, columns: int
) -> AsyncIterator[tuple[ReplayScreen, AppTerminal]]:
    screen = ReplayScreen.of(document, "game.json")
    with app_terminal(rows, columns) as terminal:
        app = ReplayApp(screen, input=terminal.keys, output=terminal.output)
        await terminal.start(app.app)
        try:
            yield screen, terminal
        finally:
            await terminal.stop()


CARD_TEXTS = {card_text(card) for card in deck(decks=1, jokers=1)}


def spread(word: str) -> list[str]:
    """The cards of a word on screen: 7♣ as it is; a crowded screen's 7♣♥ as 7♣ 7♥."""
    rank = word.rstrip("♣♦♥♠")
    suits = word[len(rank) :]
    return [rank + suit for suit in suits] if len(suits) > 1 else [word]


def on_screen(step: Step, text: str) -> None:
    """The cards of every seat, its score, and what this step did are all there."""
    lines = [line.partition("│")[0] for line in text.splitlines()]  # the table's column
    for row in step.seats():
        seat_line = next(
            (i for i, line in enumerate(lines) if line[2:].startswith(f"{row.name} ")), None
        )
        assert seat_line is not None, f"{row.name} is not on screen:\n{text}"
        assert f"{row.points} pt" in lines[seat_line], text
        # the cards beside the name, or on the lines under it (wrapped at a card)
        words = lines[seat_line].split()
        for line in lines[seat_line + 1 :]:
            if not line.startswith("  ") or " pt" in line:
                break  # the next seat, or the next section
            words += line.split()
        held = [card for word in words for card in spread(word) if card in CARD_TEXTS]
        assert held == [card_text(c) for c in row.cards], f"{row.name}'s cards:\n{text}"
    first = step.lines[0]
    assert " ".join(first.split()[:3]) in text, f"{first!r} is not on screen:\n{text}"


async def test_a_terminal_too_small_for_the_viewer_says_so_and_no_game_goes_on() -> None:
    """The shell's words at 59x15: how big, and nothing of a game going on (the viewer
    said "(the game goes on)", a table's words, a user pass)."""
    async with viewer(a_record("classic"), 15, 59) as (_, terminal):
        await wait_for(lambda: "make it bigger" in " ".join(terminal.text().split()))
        text = " ".join(terminal.text().split())
    assert "at least 60x16; this one is 59x15: make it bigger" in text, text
    assert "game goes on" not in text, text


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80), (40, 120)])
@pytest.mark.parametrize("name", TABLES)
async def test_the_viewer_steps_by_keys_at_small_sizes(name: str, rows: int, columns: int) -> None:
    async with viewer(a_record(name), rows, columns) as (screen, terminal):
        await wait_for(lambda: "hand 1/" in terminal.text(), what=terminal.text)
        on_screen(screen.step, terminal.text())

        terminal.keys.send_text("n")  # the next hand's deal: the exchange is made
        terminal.keys.send_text("\x1b[C" * 3)  # three actions on
        await wait_for(lambda: screen.index == screen.hands[1].start + 3, what=terminal.text)
        where = screen.position()
        await wait_for(lambda: where in terminal.text(), what=terminal.text)
        on_screen(screen.step, terminal.text())
        text = terminal.text()
        assert "exchange: " in text and "→" in text, text

        terminal.keys.send_text("\x1b[6~")  # PageDown: hand 3
        terminal.keys.send_text("l")
        await wait_for(lambda: screen.index == screen.hands[2].start + 1, what=terminal.text)
        await wait_for(lambda: screen.position() in terminal.text(), what=terminal.text)
        on_screen(screen.step, terminal.text())

        terminal.keys.send_text("\x1b[F")  # End: the verdict on the status line
        await wait_for(lambda: "every step legal" in terminal.text(), what=terminal.text)
        assert "game over" in terminal.text()
        on_screen(screen.step, terminal.text())  # the last seat out still holds its cards
        if columns >= 100:  # room for the score sheet: each player's final total
            table = [line.partition("│")[0] for line in terminal.text().splitlines()]
            sheet = table[next(i for i, line in enumerate(table) if "score sheet" in line) :]
            for player, points in screen.step.scores:
                row = next(line for line in sheet if line.startswith(f" {player} "))
                assert row.split()[-1] == str(points), terminal.text()
        terminal.keys.send_text("?")
        await wait_for(lambda: "next step" in terminal.text(), what=terminal.text)
        preset, _, toggles = TABLES[name]
        assert f"rules: {preset}" in terminal.text()
        for toggle, value in toggles.items():  # every change of the preset, as written
            assert f"{toggle}={json.dumps(value)}" in terminal.text(), terminal.text()
        terminal.keys.send_text("x")  # any key closes the help
        await wait_for(lambda: "next step" not in terminal.text(), what=terminal.text)
        terminal.keys.send_text("\x1b[H")  # Home
        await wait_for(lambda: screen.index == 0, what=terminal.text)
        await terminal.left("q")


#: (preset, line-up) as `president sim --preset P --games 1 --seed 1 --bots ...` plays
SIM_GAMES = [
    pytest.param(preset, ["heuristic", *["greedy"] * (players - 1)], id=f"{preset}-{players}")
    for preset in PRESETS
    for players in (4, 6)
]


@cache
def _sim_record_text(preset: str, bots: tuple[str, ...]) -> str:
    """`president sim`'s record of one game played to 3 points or 2 hands at most (`--set
    target=3 --set rounds=2`): a deal without an exchange, deals with one, and the end,
    as in a whole game."""
    rules = PRESETS[preset]
    rules = rules.replace(target=min(rules.target, 3), rounds=min(rules.rounds, 2))
    game, _, _ = play_game(rules, list(bots), seed=1, number=0, rotate=True)
    return dumps(to_record(game, preset))


def this_step_in_the_log(screen: ReplayScreen, text: str, columns: int) -> None:
    """All of what this step did is in the log box, last, if it fits there (and its
    first lines if it does not)."""
    lines = text.splitlines()
    if columns >= WIDE:  # the log is the column right of the bar: as tall as the screen
        box = [line.partition("│")[2] for line in lines[2:-1]]
        words = " ".join(box).split()
        step = screen.log_lines(screen.index, 80)
        want = " ".join(step).split()
        assert words[-len(want) :] == want, text
        return
    rule = next(i for i, line in enumerate(lines) if line.startswith("─ log ─"))
    # up to the status line (the verdict may take two lines: three winners at 60 columns)
    last = len(lines) - 1
    status = next((i for i in range(last, rule, -1) if lines[i].startswith(" every")), last)
    box = [line[1:] for line in lines[rule + 1 : status]]
    while box and not box[-1]:  # a log shorter than its box is drawn from the top
        box.pop()
    step = [line.rstrip() for line in screen.log_lines(screen.index, columns - 1)]
    if len(step) <= len(box):
        assert box[len(box) - len(step) :] == step, text
    else:  # its first rows (the action), "…", its last (how the hand ended)
        head = len(screen.log_lines(screen.index, columns - 1, first=True))
        assert box[:head] == step[:head] and box[head] == "  …", text
        assert box[head + 1 :] == step[len(step) - (len(box) - head - 1) :], text


@pytest.mark.parametrize(
    ("rows", "columns"),
    [(20, 60), pytest.param(24, 80, marks=pytest.mark.slow), (40, 120)],
)
@pytest.mark.parametrize(("preset", "bots"), SIM_GAMES)
async def test_every_line_of_a_deal_and_the_end_is_on_screen(
    preset: str, bots: list[str], rows: int, columns: int
) -> None:
    """On the records `president sim` writes: each hand's deal (the exchange said in
    full) and the last step (the last ones out, the finish, GAME OVER) show every line
    they add to the log, wrapped at spaces, when the box can hold them; the box is made
    to hold them (a seat out with no cards takes one line; stacked, the exchange under
    the pile gives way).  Games of two or three hands: every later deal is said as the
    second is (14 whole games were 5 to 15 hands each)."""
    document = json.loads(_sim_record_text(preset, tuple(bots)))
    async with viewer(document, rows, columns) as (screen, terminal):
        for hand in range(len(screen.hands)):
            if hand:
                terminal.keys.send_text("n")
            await wait_for(
                lambda hand=hand: screen.index == screen.hands[hand].start, what=terminal.text
            )
            await wait_for(lambda: screen.position() in terminal.text(), what=terminal.text)
            this_step_in_the_log(screen, terminal.text(), columns)
        terminal.keys.send_text("G")
        await wait_for(lambda: "every step legal" in terminal.text(), what=terminal.text)
        text = terminal.text()
        this_step_in_the_log(screen, text, columns)
        assert "game over: " in text and screen.step.lines[-1].startswith("game over: "), text
        if columns < WIDE:  # a whole step, even the end of a game, fits a stacked box
            box = text.splitlines()
            start = next(i for i, line in enumerate(box) if line.startswith("─ log ─"))
            assert len(screen.log_lines(screen.index, columns - 1)) <= len(box) - start - 2
        on_screen(screen.step, text)
        await terminal.left("q")


@pytest.mark.parametrize(
    ("rows", "sheet", "bots"), [(30, True, False), (20, False, False), (24, True, True)]
)
async def test_the_exchange_shows_each_give_with_what_came_back_for_it(
    rows: int, sheet: bool, bots: bool
) -> None:
    """A `daifugo` exchange at 100 columns: each give with its return on one line
    ("a→b 2♠ 2♣, back 4♠ 6♥"), none cut, the score sheet under them where it fits. Its
    four moves a line each had the fourth cut to "…" above empty rows at 100x30, and
    where two shared a row a pass read a return as a give. With a server's bots' longer
    names (`bots`) a pair takes its own row, under "exchange:" alone: the pile's lines
    grow into the rows the column has (a review saw the second pair cut at 100x24, with
    rows free under the score sheet)."""
    text = _sim_record_text("daifugo", ("heuristic",) * 4)
    document = json.loads(text.replace('"heuristic-', '"heuristic-bot-') if bots else text)
    async with viewer(document, rows, 100) as (screen, terminal):
        terminal.keys.send_text("n" + "\x1b[C" * 2)  # hand 2, both returns made
        await wait_for(lambda: screen.index == screen.hands[1].start + 2, what=terminal.text)
        await wait_for(lambda: screen.position() in terminal.text(), what=terminal.text)
        text = terminal.text()
        table = [line.partition("│")[0] for line in text.splitlines()]
        moves = screen.step.exchange
        assert len(moves) == 4, moves

        def cards(swap: Swap) -> str:
            return " ".join(card_text(c) for c in swap.cards)

        # each give with what came back for it (a pass read a give and a return on one
        # row as two gives)
        for give in (g for g in moves if not g.returned):
            back = next(r for r in moves if (r.giver, r.receiver) == (give.receiver, give.giver))
            shown = f"{give.giver}→{give.receiver} {cards(give)}, back {cards(back)}"
            assert any(shown in line for line in table), f"{shown!r}:\n{text}"
        assert not any(line.rstrip().endswith("…") for line in table), text
        assert ("score sheet" in text) is sheet, text
        await terminal.left("q")


@pytest.mark.parametrize("name", ["classic", "full", "house", "sheet"])
def test_no_seat_is_cut_when_a_finish_gives_titles(name: str) -> None:
    """The seats' layout is chosen for the whole hand, the titles its finish gives
    included: hand 1 is dealt without titles, and its last step must not cut a name's
    line (…) where its deal fitted."""
    screen = ReplayScreen.of(a_record(name))
    app = ReplayApp(screen)
    for width in range(40, 61):
        for index in screen.hands[0]:
            screen.go(index)
            for line in app._seats(width, 0):
                text = "".join(text for _, text, *_ in line)
                assert not text.endswith("…"), (width, index, text)


def test_a_crowded_seat_out_is_not_marked_as_passed() -> None:
    """On a crowded screen the mark before a name says who is to play (▶) or passed
    (·); a seat out of the hand has neither, whatever its last move was."""
    app = ReplayApp(ReplayScreen.of(a_record("classic")))
    row = SeatRow(
        name="Ann",
        title="Scum",
        points=3,
        cards=(),
        received=(),
        turn=False,
        passed=True,
        place=3,
        owes=0,
        acted=False,
    )
    label = "".join(text for _, text, *_ in app._seat_label(row, 3, 4, short=True))
    assert label.startswith("  Ann S ") and "·" not in label, label
    playing = "".join(
        text for _, text, *_ in app._seat_label(replace(row, place=None), 3, 4, short=True)
    )
    assert playing.startswith("· Ann"), playing


async def test_a_faulty_record_on_screen_says_so_in_one_line() -> None:
    document = a_record("classic")
    document["hands"][0]["actions"][4] = {"seat": 0, "return": ["3C"]}
    async with viewer(document, 24, 80) as (screen, terminal):
        await wait_for(
            lambda: (
                "illegal in hand 1, action 5 (the record's hands[0].actions[4])" in terminal.text()
            ),
            what=terminal.text,
        )
        terminal.keys.send_text("\x1b[F")
        await wait_for(lambda: "action 4/" in terminal.text(), what=terminal.text)
        on_screen(screen.step, terminal.text())
        await terminal.left("q")


def test_the_seat_rows_say_turn_passes_and_places() -> None:
    screen = ReplayScreen.of(a_record("classic"))
    last = screen.hands[0][-1]
    places = sorted((r.place, r.name) for r in screen.steps[last].seats())
    assert [n for _, n in places] == replay(
        {**a_record("classic"), "hands": a_record("classic")["hands"][:1]}
    ).to_json()["hands"][0]["finish"]
    passed = next(i for i, s in enumerate(screen.steps) if any(r.passed for r in s.seats()))
    step = screen.steps[passed]
    assert step.lines[0].split()[1] == "passes" or "passes" in " ".join(step.lines)
    turn = [r.name for r in screen.steps[1].seats() if r.turn]
    view = screen.steps[1].view
    assert view.turn is not None and turn == [view.seating[view.turn]]


# --- the command, in a pseudo-terminal ------------------------------------------------


@pytest.mark.slow
async def test_president_replay_view_in_a_terminal(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(_record_text("full"), encoding="utf-8")
    document = json.loads(_record_text("full"))
    command = [*PRESIDENT, "replay", str(path), "--view"]
    term = Terminal(command, environment(tmp_path), rows=24, columns=80)
    try:
        await term.shows("hand 1/")
        first = document["hands"][0]["deal"][0]  # (the screen may be drawn in two writes)
        await term.shows(" ".join(card_text(c) for c in sorted(parse_cards(first))))
        term.send("n")
        await term.shows("hand 2/")
        term.send("\x1b[C")
        await term.shows(f"hand 2/{len(document['hands'])} · action 1/")
        term.send("q")
        assert await term.exits() == 0
    finally:
        term.close()


@pytest.mark.slow
async def test_president_replay_view_reviews_the_record_in_worker_processes(
    tmp_path: Path,
) -> None:
    """The real command: a record of a few actions judged in the background while the
    screen is up (worker processes), the panel's figures once done; q leaves, exit 0."""
    document = a_record("table")
    document["hands"] = document["hands"][:1]
    document["hands"][0]["actions"] = document["hands"][0]["actions"][:12]  # (cut short)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    first = document["players"][0]
    command = [*PRESIDENT, "replay", str(path), "--view", "--theme", "mono"]
    term = Terminal(command, environment(tmp_path))
    try:
        await term.shows(f"review of {first}")
        await term.shows(", play ", timeout=60)  # (the figures replace the progress)
        term.send("\x1b[C")
        await term.shows("hand 1/1 · action 1/")
        term.send("q")
        assert await term.exits() == 0
    finally:
        term.close()


def _niceness(_: object) -> int:
    return os.nice(0)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities here")
async def test_the_reviews_workers_judge_at_a_lower_priority_than_the_viewer() -> None:
    """The worker processes a review starts beside the viewer run `WORKER_NICENESS`
    lower (a pass saw the review keep a core busy while a game ran beside it)."""
    from president.client.tui.review import WORKER_NICENESS, Workers

    workers = Workers(1, asyncio.get_running_loop())
    try:
        theirs = await asyncio.wait_for(workers.submit(_niceness, None), 60)
    finally:
        workers.close()
    assert theirs == min(19, os.nice(0) + WORKER_NICENESS)


@pytest.mark.slow
async def test_president_replay_view_of_an_illegal_record_exits_1(tmp_path: Path) -> None:
    document = a_record("table")
    document["hands"][1]["actions"][0] = {"seat": 0, "pass": True, "play": ["3C"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    command = [*PRESIDENT, "replay", str(path), "--view", "--theme", "mono"]
    term = Terminal(command, environment(tmp_path))
    try:
        shown = await term.shows("illegal in hand 2, action 1 (the record's hands[1].actions[0]):")
        assert "an action is one of play, pass," in shown, shown  # (the engine's words)
        term.send("q")
        assert await term.exits() == 1
    finally:
        term.close()


@pytest.mark.parametrize(
    ("content", "extra", "words"),
    [
        (None, [], "--view needs a terminal"),
        (b"not json", [], "not JSON"),
        (None, ["--json"], "--view and --json do not go together"),
    ],
)
def test_president_replay_view_without_a_terminal_or_a_record_exits_2(
    tmp_path: Path, content: bytes | None, extra: list[str], words: str
) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(content if content is not None else _record_text("classic").encode())
    out = president_here("replay", str(path), "--view", *extra)
    assert out.returncode == 2, out
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr and not out.stdout


def test_walk_sees_the_same_fault_as_the_checker() -> None:
    document = a_record("sheet")
    document["hands"][0]["actions"].insert(2, {"seat": 0, "return": ["3C"]})
    steps, fault = walk(document)
    assert fault == replay(document).fault and fault is not None
    assert (fault.hand, fault.action) == (0, 2)
    assert (steps[-1].hand, steps[-1].action) == (0, 1)


# --- colours --------------------------------------------------------------------------


#: A select-graphic-rendition sequence that sets a foreground colour.
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38)(?:;[0-9;]*)?m")


@pytest.mark.parametrize(("theme", "coloured"), [("dark", True), ("light", True), ("mono", False)])
async def test_the_theme_colours_the_screen_or_not(theme: str, coloured: bool) -> None:
    screen = ReplayScreen.of(a_record("classic"))
    with app_terminal(24, 80) as terminal:
        app = ReplayApp(screen, theme=theme, input=terminal.keys, output=terminal.output)
        await terminal.start(app.app)
        await wait_for(lambda: "♥" in terminal.all_output(), what=terminal.all_output)
        await terminal.left("q")
    raw = terminal.all_output()
    assert bool(COLOUR.search(raw)) is coloured, raw[:400]


class TTY:
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("asked", "environ", "theme"),
    [
        ([], {"NO_COLOR": "1"}, "mono"),
        (["--theme", "light"], {"NO_COLOR": "1"}, "light"),
        ([], {"COLORFGBG": "0;15"}, "light"),
        ([], {}, "neutral"),  # (no terminal to ask here: stdin and stdout only say they are)
    ],
)
def test_the_command_hands_the_viewer_its_theme(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    asked: list[str],
    environ: dict[str, str],
    theme: str,
) -> None:
    from president.cli.main import main
    from president.client.tui import replay_app

    path = tmp_path / "game.json"
    path.write_text(_record_text("table"), encoding="utf-8")
    shown: list[tuple[ReplayScreen, str]] = []
    monkeypatch.setattr(replay_app, "run_viewer", lambda s, t, review=True: shown.append((s, t)))
    monkeypatch.setattr(sys, "stdin", TTY())
    monkeypatch.setattr(sys, "stdout", TTY())
    for name in ("NO_COLOR", "COLORFGBG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["replay", str(path), "--view", *asked]) == 0
    [(screen, chosen)] = shown
    assert chosen == theme and screen.name == "game.json" and screen.fault is None


@pytest.mark.parametrize(
    ("rules", "code", "words"),
    [
        ("classic", 0, "every step legal: no hand was dealt: nothing to view"),
        ("nope", 1, "illegal in the header: rules: there is no preset 'nope'"),
    ],
)
def test_a_record_without_a_step_to_show_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rules: str,
    code: int,
    words: str,
) -> None:
    from president.cli.main import main

    path = tmp_path / "empty.json"
    document = {"format": "president-record/1", "rules": rules, "players": ["A", "B", "C"]}
    path.write_text(json.dumps({**document, "hands": []}), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", TTY())
    monkeypatch.setattr(sys, "stdout", TTY())
    assert main(["replay", str(path), "--view"]) == code
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_a_records_names_reach_the_screen_with_their_control_characters_escaped() -> None:
    """A record is anyone's file: names holding ESC, a C1 CSI or a right-to-left override
    are shown escaped, everywhere the viewer names a player, and the record still checks."""
    records = os.path.join(os.path.dirname(__file__), "..", "engine", "records")
    with open(os.path.join(records, "game_classic.json"), encoding="utf-8") as handle:
        text = handle.read()
    name = json.loads(text)["players"][0]
    evil = "ev\x1b[2J\x9b1m\u202eil"
    document = json.loads(text.replace(json.dumps(name), json.dumps(evil)))
    screen = ReplayScreen.of(document, "evil\x1b.json")
    assert screen.fault is None
    shown_everywhere = []
    for index in range(len(screen.steps)):
        step = screen.steps[index]
        shown_everywhere += list(step.view.seating)
        shown_everywhere += screen.log_lines(index, 60)
    shown_everywhere += [screen.verdict(), screen.name]
    for line in shown_everywhere:
        assert not any(ch in line for ch in "\x1b\x9b\u202e"), line
    assert any("ev\\x1b[2J\\x9b1m\\u202eil" in line for line in shown_everywhere)


DAIFUGO_RECORD = Path(__file__).resolve().parents[1] / "engine" / "records" / "game_daifugo.json"


@pytest.mark.parametrize(
    ("record", "initials"),
    [("game_classic.json", "(P, VP, C, VS, S)"), ("game_daifugo.json", "(P, VP, C, VB, B)")],
)
async def test_the_help_names_the_titles_initials_under_the_records_rules(
    record: str, initials: str
) -> None:
    """A newcomer's pass: the help said "P, VP, C, VS, S" under Daifugo, whose last is the
    Beggar (its crowded seats show "B")."""
    document = json.loads((DAIFUGO_RECORD.parent / record).read_text(encoding="utf-8"))
    async with viewer(document, 40, 120) as (_, terminal):
        terminal.keys.send_text("?")
        await wait_for(lambda: "titles by initials" in terminal.text(), what=terminal.text)
        assert f"titles by initials {initials}" in terminal.text(), terminal.text()
        await terminal.left("q")


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80)])
async def test_the_viewer_steps_through_hand_overs_discards_and_falls(
    rows: int, columns: int
) -> None:
    """A daifugo game's record (tests/engine/records): the step of a hand-over shows its
    cards (a finished game is public) and moves them between the two hands; a discard's
    step shows its cards gone; a fall is said."""
    document = json.loads(DAIFUGO_RECORD.read_text(encoding="utf-8"))
    async with viewer(document, rows, columns) as (screen, terminal):
        await wait_for(lambda: "hand 1/" in terminal.text(), what=terminal.text)
        found = {"hands": 0, "discards": 0}
        for index, step in enumerate(screen.steps):
            line = step.lines[0] if step.lines else ""
            kind = next((k for k in found if f" {k} " in line), None)
            if kind is None or found[kind]:
                continue
            found[kind] = index
            screen.go(index - 1)
            terminal.keys.send_text("\x1b[C")  # right: onto the step
            await wait_for(lambda i=index: screen.index == i, what=terminal.text)  # type: ignore[misc]
            await wait_for(lambda: screen.position() in terminal.text(), what=terminal.text)
            on_screen(screen.step, terminal.text())
            before, after = screen.steps[index - 1], step
            assert before.actor == after.actor is not None
            mover = after.actor
            gone = Counter(before.cards[mover]) - Counter(after.cards[mover])
            assert gone and all(card_text(c) in line for c in gone.elements()), line
        assert all(found.values()), found
        falls = [line for step in screen.steps for line in step.lines if "capital fall" in line]
        assert falls and all(re.fullmatch(r"\S+ falls to [\w-]+: capital fall", f) for f in falls)
        await terminal.left("q")


# --- the review (issue 29): each decision judged beside its step ------------------------


def _judged(screen: ReplayScreen, focus: str, mistakes: set[int]) -> ReviewState:
    """A review as `president analyze` would give it, made up: every decision of the
    record with a choice gets the action taken at 2.0 and, at the steps in `mistakes`
    (of `focus`'s), a best action at 1.4 (a blunder: 0.6 places)."""
    from president.bots.review import Judged, label_of, moments

    document = screen.document
    assert document is not None
    state = ReviewState(list(document["players"]), focus)
    found, _ = moments(document)
    judged = []
    for moment in found:
        name = screen.steps[step_of(screen, moment.hand, None)].view.seating[moment.seat]
        index = step_of(screen, moment.hand, moment.number)
        other = next(a for a in moment.actions if a != moment.chosen)
        bad = index in mistakes
        best, loss = (other, 0.6) if bad else (moment.chosen, 0.0)
        expected = ((moment.chosen, 2.0), (other, 1.4 if bad else 2.5))
        judged.append(
            Judged(
                moment.hand,
                moment.number,
                moment.seat,
                name,
                moment.chosen,
                best,
                expected,
                loss,
                label_of(loss),
                loss,
            )
        )
    state.total, state.planned, state.started = len(judged), True, True
    state.add(judged)
    return state


def _steps_of(screen: ReplayScreen, name: str) -> list[int]:
    from president.bots.review import moments

    assert screen.document is not None
    found, _ = moments(screen.document)
    return [
        step_of(screen, m.hand, m.number)
        for m in found
        if screen.steps[step_of(screen, m.hand, None)].view.seating[m.seat] == name
    ]


def test_the_review_jumps_between_a_players_mistakes_and_says_when_there_is_none() -> None:
    screen = ReplayScreen.of(a_record("classic"))
    ann = screen.steps[0].view.seating[0]
    theirs = _steps_of(screen, ann)
    planted = {theirs[3], theirs[40]}
    state = _judged(screen, ann, planted)
    assert state.mistakes(screen) == sorted(planted)
    state.jump(screen, forward=True)
    assert screen.index == theirs[3]
    decision = "".join(text for _, text in state.decision(screen))
    assert "blunder" in decision and "−0.60" in decision and "(2.00)" in decision
    state.jump(screen, forward=True)
    assert screen.index == theirs[40]
    state.jump(screen, forward=True)  # none after the last: it stays, and says so
    assert screen.index == theirs[40] and state.message == f"no mistake of {ann} after this"
    state.jump(screen, forward=False)
    assert screen.index == theirs[3]
    # another player's decision is judged too, and following them changes whose mistakes
    screen.go(theirs[3] + 1)
    assert "the best" in "".join(text for _, text in state.decision(screen))
    state.next_focus()
    assert state.focus != ann and state.mistakes(screen) == []


def test_a_decision_shows_the_figures_that_measured_its_loss() -> None:
    """Beside the loss, the action taken's and the best's expected places over the worlds
    that measured it (their difference is the loss); where the best found on half the
    worlds did no better on the others, no best is named."""
    screen = ReplayScreen.of(a_record("classic"))
    ann = screen.steps[0].view.seating[0]
    at = _steps_of(screen, ann)[3]
    state = _judged(screen, ann, {at})
    step = screen.steps[at]
    key = (step.hand, step.action)
    state.judged[key] = replace(state.judged[key], gap=0.6, measured=(2.3, 1.7))
    screen.go(at)
    decision = "".join(text for _, text in state.decision(screen))
    assert "(2.30) · best" in decision and "(1.70) · −0.60 blunder" in decision
    assert "s would suggest it too" not in decision
    # the normal bot's choice too, as analyze says it (a pass that pressed s there read
    # the blunder as its own doing)
    state.judged[key] = replace(state.judged[key], usual=True)
    decision = "".join(text for _, text in state.decision(screen))
    assert decision.endswith("−0.60 blunder · s would suggest it too"), decision
    # a little narrower (a pane of 71 columns at 120x40, a newcomer's pass): the note
    # shortens, then goes, before the expected places do
    short = "".join(text for _, text in state.decision(screen, len(decision) - 1))
    assert short.endswith("(1.70) · −0.60 blunder · s too"), short
    plain = "".join(text for _, text in state.decision(screen, len(short) - 1))
    assert plain.endswith("(1.70) · −0.60 blunder"), plain
    state.judged[key] = replace(state.judged[key], usual=False)
    # the best in the text's own colour (it was dim grey: on white, the faintest thing
    # on the line), each label in its own (an inaccuracy was the green of "your turn")
    styles = dict((text.strip(), style) for style, text in state.decision(screen))
    assert styles["blunder"] == "class:blunder"
    assert next(style for text, style in styles.items() if text.endswith("(1.70)")) == ""
    from president.client.tui.theme import THEMES, style_for

    # too wide for the screen (60x16 cut it at "−0.…"), the loss and label go first
    narrow = state.decision(screen, 40)
    assert narrow[0] == ("class:blunder", " −0.60 blunder"), narrow
    assert "(2.30)" not in "".join(text for _, text in narrow)
    labels = ("inaccuracy", "mistake", "blunder")
    for theme in THEMES:  # (every palette says each label apart)
        looks = {style_for(theme).get_attrs_for_style_str(f"class:{n}") for n in labels}
        assert len(looks) == 3, theme
    state.judged[key] = replace(state.judged[key], loss=0.0, label=None, gap=-0.1)
    decision = "".join(text for _, text in state.decision(screen))
    assert decision.endswith("(2.30) · no better action found"), decision
    narrow = state.decision(screen, len(decision) - 5)  # (60 columns cut it: "fo…")
    assert "".join(text for _, text in narrow).endswith("(2.30) · none better"), narrow
    assert "best" not in decision.replace("better", "")


def test_a_deal_says_when_its_cards_will_be_weighed() -> None:
    """At a deal, while the review runs, the player's cards are said to be weighed after
    the decisions, as they are (it said "weighed last": a pass found it cryptic); once
    the review is over without them, "not weighed"."""
    screen = ReplayScreen.of(a_record("classic"))
    ann = screen.steps[0].view.seating[0]
    state = ReviewState(list(screen.steps[0].view.seating), ann, total=10, done=3, planned=True)
    screen.go(0)
    said = "".join(text for _, text in state.decision(screen))
    assert said == f" {ann}'s cards this hand: weighed after the decisions", said
    state.done = 10
    said = "".join(text for _, text in state.decision(screen))
    assert said == f" {ann}'s cards this hand: not weighed", said


def test_the_sparkline_is_tall_for_a_good_place_and_fits_its_width() -> None:
    assert sparkline([1.0, 4.0, 2.5], 10, 4.0) == "█▁▅"
    assert sparkline([1.0] * 50 + [4.0] * 50, 10, 4.0) == "█" * 5 + "▁" * 5
    assert len(sparkline([2.0] * 1000, 37, 4.0)) == 37 and sparkline([], 10, 4.0) == ""


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (24, 80)])
async def test_the_review_panel_on_screen_and_its_keys(rows: int, columns: int) -> None:
    screen = ReplayScreen.of(a_record("classic"), "game.json")
    ann = screen.steps[0].view.seating[0]
    mistake = _steps_of(screen, ann)[5]
    state = _judged(screen, ann, {mistake})
    with app_terminal(rows, columns) as terminal:
        app = ReplayApp(screen, input=terminal.keys, output=terminal.output, review=state)
        await terminal.start(app.app)
        await wait_for(lambda: f"review of {ann}" in terminal.text(), what=terminal.text)
        assert "exp. place" in terminal.text() and "]/[ mistake" in terminal.text()
        terminal.keys.send_text("]")  # the mistake, and the table as it stood after it
        await wait_for(lambda: screen.index == mistake, what=terminal.text)
        # (the decision's line says it; the title counts it, in words, from the start)
        await wait_for(
            lambda: any(
                "blunder" in line and "review of" not in line
                for line in terminal.text().splitlines()
            ),
            what=terminal.text,
        )
        on_screen(screen.step, terminal.text())
        assert "· 1 blunder ·" in terminal.text() or columns < 80, terminal.text()
        lines = terminal.text().splitlines()
        assert len(lines) == rows and all(len(line) <= columns for line in lines)
        terminal.keys.send_text("]")
        await wait_for(lambda: "no mistake of" in terminal.text(), what=terminal.text)
        terminal.keys.send_text("?")
        await wait_for(lambda: "follow the next player" in terminal.text(), what=terminal.text)
        if rows < 24:  # the help a page at a time: the review's words on the second
            assert "? or space: more (1/2)" in terminal.text(), terminal.text()
            terminal.keys.send_text("?")
        await wait_for(lambda: "a tall bar nearer 1st" in terminal.text(), what=terminal.text)
        await terminal.left("q")


def test_the_reviewer_judges_every_decision_of_a_short_record() -> None:
    """The background review, in a thread here (worker processes in the command), over
    the first hand of a 3-player game, 2 worlds a decision: every decision with a choice
    judged, the focused player's first, and every seat's cards weighed."""
    import asyncio

    from president.bots.review import moments
    from president.client.tui.review import Reviewer

    document = a_record("table")
    document = {**document, "hands": document["hands"][:1]}
    screen = ReplayScreen.of(document)
    state, _ = reviewed(screen)
    assert state is not None
    seen: list[int] = []
    reviewer = Reviewer(state, screen.document or {}, jobs=0, worlds=2, luck_worlds=2)
    reviewer.changed = lambda: seen.append(len(state.judged))

    async def run() -> None:
        reviewer.start()
        assert reviewer.task is not None
        await reviewer.task

    asyncio.run(run())
    found, starts = moments(document)
    assert state.finished and state.total == len(found) + len(starts) == state.done
    assert set(state.judged) == {(m.hand, m.number) for m in found}
    assert len(state.luck) == 3 and seen and seen[-1] == len(found)


# --- president play's keys: v (the review of the game) and a (the coach) ---------------


class _Model:
    my_turn = True


class _Screen:
    """What the keys read of the table screen: whether the game is over, my view."""

    def __init__(self, over: bool, view: Any = None) -> None:
        self.over, self.view, self.message, self.model = over, view, "", _Model()

    def game_over(self) -> bool:
        return self.over

    def seat_view(self) -> Any:
        return self.view


def _table(screen: _Screen, record: str | None, shell: Any) -> Any:
    from president.client.tui.coach import PlayExtras

    table = type("Table", (), {})()
    table.screen, table.shell = screen, shell
    table.extras = PlayExtras(lambda: record, "heuristic-1", worlds=4)
    return table


def coach_says(view: Any) -> str:
    """What the coach (`a`) says from this view, once it has thought: "thinking" first,
    its word when the weighing is done."""
    import asyncio

    from president.client.tui.coach import ask_coach

    screen = _Screen(over=False, view=view)
    shell = type("Shell", (), {"invalidate": lambda self: None})()
    table = _table(screen, None, shell)

    async def ask() -> None:
        ask_coach(table)
        assert screen.message == "the coach is thinking ..."
        await asyncio.gather(*table.extras._tasks)

    asyncio.run(ask())
    return screen.message


def test_v_opens_the_games_review_once_it_is_over(tmp_path: Path) -> None:
    from president.client.tui.coach import open_review
    from president.client.tui.shell import Shell
    from prompt_toolkit.output import DummyOutput

    document = a_record("table")
    document["hands"] = document["hands"][:2]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    shell = Shell(output=DummyOutput())
    playing = _table(_Screen(over=False), str(path), shell)
    open_review(playing)
    assert not shell.stack and playing.screen.message == "the review opens once the game is over"
    unwritten = _table(_Screen(over=True), None, shell)
    open_review(unwritten)
    assert not shell.stack and "not written yet" in unwritten.screen.message
    over = _table(_Screen(over=True), str(path), shell)
    open_review(over)
    (viewer,) = shell.stack
    assert isinstance(viewer, ReplayApp) and viewer.review is not None
    assert viewer.review.focus == "heuristic-1" and viewer.screen.name == "game.json"
    viewer.leave()  # q: back to the table (no worker was started: nothing drew)
    assert not shell.stack


def test_a_asks_the_coach_on_my_turn_only() -> None:
    from president.bots.review import moments
    from president.client.tui.coach import ask_coach
    from president.engine import Play

    found, _ = moments(a_record("classic"))
    moment = next(m for m in found if isinstance(m.chosen, Play))
    waiting = _table(_Screen(over=False, view=None), None, None)
    ask_coach(waiting)
    assert (
        waiting.screen.message == "the coach speaks when it is your turn to play or to return cards"
    )
    said = coach_says(moment.view)
    assert said.startswith("coach: ") and "expected place" in said


@pytest.mark.slow
async def test_at_60x16_with_its_review_every_seat_is_on_screen(tmp_path: Path) -> None:
    """A user pass, `president replay --view` of a server's record at 60x16: with the
    review's lines, the last seat's second line of cards went unseen, nothing said.  A
    screen too short for two lines a seat gives each one line, the cards past its end
    counted ("+5"): every seat is there, and its cards add up."""
    text = _sim_record_text("classic", ("heuristic", "greedy", "greedy", "greedy"))
    long_names = ["Alexandria-Longname-Player-001", "Bartholomew_The_Very_Long_Nam2"]
    for short, long in zip(("heuristic-0", "greedy-1"), long_names, strict=True):
        text = text.replace(f'"{short}"', f'"{long}"')
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    names = [*long_names, "greedy-2", "greedy-3"]
    term = Terminal([*PRESIDENT, "replay", str(path), "--view"], environment(tmp_path), 16, 60)
    try:
        await term.shows("─ review of")
        shown = await term.shows("─ log ─")
        lines = shown.splitlines()
        for name in names:
            row = next((line for line in lines if f" {name} " in line), None)
            assert row is not None, shown
            words = row.split(" pts ", 1)[1].split()
            more = int(words.pop()[1:]) if words and words[-1].startswith("+") else 0
            cards = [card for word in words for card in spread(word)]
            assert len(cards) + more == 13, (name, row, shown)
        term.send("q")
        assert await term.exits() == 0
    finally:
        term.close()


def test_the_reviews_title_keeps_the_accuracy_of_a_long_name() -> None:
    """A user pass: with a name of 31 characters the title kept "cards ..., play ..."
    at 80 columns and the name alone at 60, the accuracy gone.  A long name is cut in
    the middle before a figure goes (the cards' and the play's share the last)."""
    screen = ReplayScreen.of(a_record("classic"))
    ann = screen.steps[0].view.seating[0]
    state = _judged(screen, ann, {_steps_of(screen, ann)[3]})
    assert state.finished
    long = "Maximilianus-Longname-the-Third"
    figures = state.summary()
    assert figures.decisions
    state.focus = long  # (whose review it says; the figures are ann's)
    state.summary = lambda: figures  # type: ignore[method-assign]
    for width in (56, 76, 96):
        _, title = state.title(width)
        assert len(title) <= width and ", play " in title, (width, title)
        assert title.startswith("review of Maxim") and ("accuracy" in title) == (width > 56), title
    assert long in state.title(96)[1]

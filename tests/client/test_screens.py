"""The table and lobby screens as a terminal shows them: each application run with
prompt_toolkit's real VT100 output into a virtual terminal of a fixed size, fed game
situations built from the engine and the protocol's own messages, and the screen read
back as text and colours."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace

import pytest
from president.bots.sim import play_game
from president.cli.stats import lines as stats_lines
from president.client.model import Ladder, TableModel
from president.client.tui.app import TableApp
from president.client.tui.coach import PlayExtras
from president.client.tui.fit import (
    cells,
    compact_seats,
    cut,
    middle_cut,
    pad,
    seat_lines,
    shorten,
    window_start,
    wrap,
)
from president.client.tui.lobby import LobbyScreen
from president.client.tui.lobby_app import LobbyApp
from president.client.tui.narrator import card_text
from president.client.tui.replay import ReplayScreen
from president.client.tui.replay_app import ReplayApp
from president.client.tui.seats import SeatRow, rating_text
from president.client.tui.standings import HandResult, standings
from president.client.tui.table import PRESENCE_LINES
from president.client.tui.theme import choose_theme
from president.engine import PASS, Game, Phase, find_preset
from president.engine.record import to_record
from president.protocol import messages as m
from president.protocol import wire
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from ..harness.apps import AppTerminal
from ..harness.screen import Pen
from ..harness.waiting import wait_for
from ..views import a_public_view

SIZES = ((20, 60), (24, 80), (40, 120))
ME = "ann"
#: Long enough to be cut somewhere, told apart from the others by its end.
SEATING = (ME, "bartholomew-the-patient-2", "cat", "random-bot-3")


# --- a table fed from an engine game --------------------------------------------------------


@dataclass
class FakeClient:
    """What the table screen reads of a `Client`: the model, and where messages go."""

    model: TableModel
    on_message: Callable[[m.Message], object] | None = None
    seat_lost: m.Error | None = None
    sent: list[object] = field(default_factory=list)
    ladder: Ladder = field(default_factory=Ladder)
    version: int = m.VERSIONS[-1]
    game_record: tuple[str, str, bytes] | None = None

    async def act(self, action: object, seen: int | None = None) -> None:
        self.sent.append(action)

    async def send(self, message: object) -> None:
        self.sent.append(message)


class Table:
    """An engine game at a table called `t`, its public events and views turned into
    protocol messages and given to the screen as the `Client` would give them."""

    def __init__(self, seating: tuple[str, ...] = SEATING, seed: int = 7, target: int = 3) -> None:
        self.seating = seating
        decks = 2 if len(seating) > 8 else 1
        self.rules = find_preset("classic").replace(target=target, decks=decks)
        self.game = Game(self.rules, seating)
        self.rng = random.Random(seed)
        self.number = 0
        self.client = FakeClient(TableModel(me=ME, slot=0))
        self.ready = {name: name != ME for name in seating}
        self.name = "t"  # (the table's)
        self.away = {"cat"}  # (whose chair says they are not connected)
        self.watching: tuple[str, ...] = ()  # (who watches, protocol 14)
        self.deadline_ms = 0  # (the turn timer's, as the view says: none)

    def view(self, status: str = "playing") -> m.TableView:
        game = self.game
        public = wire.public_view_to_wire(game.public_view()) if game.hand >= 0 else None
        chairs = tuple(
            m.Chair(
                name=name,
                bot="random" if name.startswith("random-bot") else "",
                connected=name not in self.away,
                ready=self.ready[name],
            )
            for name in self.seating
        )
        return m.TableView(
            table=self.name,
            number=self.number,
            status=status,  # type: ignore[arg-type]
            rules=wire.rules_to_wire("classic", self.rules),
            chairs=chairs,
            turn_deadline_ms=self.deadline_ms,
            game=public,
            watchers=len(self.watching),
            watching=self.watching[:12],
        )

    def deliver(self, message: m.Message) -> None:
        """As `Client.handle` does: the model first, then the screen."""
        model, app = self.client.model, self.app
        if isinstance(message, m.TableView):
            model.see(message)
        elif isinstance(message, m.TableEvent):
            model.note(message)
        app.screen.record(message)

    def attach(self, app: TableApp) -> None:
        self.app = app

    def events(self, events: list[object]) -> None:
        for event in events:
            self.number += 1
            message = wire.event_to_wire(self.name, self.number, event)  # type: ignore[arg-type]
            if message is not None:
                self.deliver(message)
        self.hold()
        self.deliver(
            self.view("finished" if self.game.public_view().phase is Phase.GAME_OVER else "playing")
        )

    def hold(self) -> None:
        seat = self.game.seating.index(ME)
        view = self.game.view_for(seat)
        model = self.client.model  # (the hand as it stands: no sealed hand told)
        model.hand, model.exchange = list(view.hand), view.exchange

    def deal(self) -> None:
        self.events(self.game.start_hand(rng=self.rng))

    def step(self) -> None:
        """One seat acts: the cheapest play or return, else a pass."""
        public = self.game.public_view()
        seat = public.turn if public.phase is Phase.PLAY else public.owed[0][0]
        assert seat is not None
        actions = self.game.legal_actions(seat)
        action = next((a for a in actions if a is not PASS), PASS)
        self.events(self.game.apply(seat, action))

    def phase(self) -> Phase:
        return self.game.public_view().phase

    def until(self, done: Callable[[], bool]) -> None:
        for _ in range(5000):
            if done():
                return
            if self.phase() is Phase.BETWEEN_HANDS:
                self.deal()
            else:
                self.step()
        raise AssertionError("the game never got there")

    def chat(self, text: str) -> None:
        message = m.Chat(scope="table", text=text, sender="cat")
        self.client.model.said(message)
        self.deliver(message)


LONG = (
    "well played everyone, that was a properly long trick and I would like it noted "
    "that I saw the revolution coming from a mile away"
)


def before_the_game(table: Table) -> None:
    table.deliver(table.view("waiting"))


def mid_hand(table: Table) -> None:
    """Hand 2 under way (titles from hand 1), after a long log with lines that wrap; the
    newest line is a play."""
    table.deal()
    table.until(lambda: table.game.hand == 1 and table.phase() is Phase.PLAY)
    table.chat(LONG)
    table.until(lambda: len(table.game.public_view().played) >= 3)


def exchange(table: Table) -> None:
    table.deal()
    table.until(lambda: table.game.hand == 1 and table.phase() is Phase.EXCHANGE)


def game_over(table: Table) -> None:
    table.deal()
    table.until(lambda: table.phase() is Phase.GAME_OVER)


SITUATIONS = {
    "before": before_the_game,
    "mid-hand": mid_hand,
    "exchange": exchange,
    "game-over": game_over,
}


@contextlib.asynccontextmanager
async def open_lobby(
    rows: int, columns: int
) -> AsyncIterator[tuple[LobbyScreen, FakeClient, AppTerminal]]:
    """The lobby (`lobby_screen`'s tables) on a terminal of that size; closed after."""
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        screen = lobby_screen()
        client = FakeClient(TableModel(me=ME))
        lobby = LobbyApp(client, screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
        await terminal.start(lobby.app)
        try:
            yield screen, client, terminal
        finally:
            await terminal.stop()


@contextlib.asynccontextmanager
async def open_table(
    situation: Callable[[Table], None],
    rows: int,
    columns: int,
    theme: str = "dark",
    seating: tuple[str, ...] = SEATING,
    target: int = 3,
    seed: int = 7,
) -> AsyncIterator[tuple[Table, AppTerminal]]:
    """The table screen on a terminal of that size, in that situation; closed after."""
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        table = Table(seating, seed=seed, target=target)
        app = TableApp(table.client, input=keys, output=terminal.output, theme=theme)  # type: ignore[arg-type]
        table.attach(app)
        situation(table)
        await terminal.start(app.app)
        try:
            yield table, terminal
        finally:
            await terminal.stop()


def seat_rows(lines: list[str]) -> list[tuple[bool, int, int]]:
    """(turn marker, cards, points) of each seat line on the screen, top to bottom."""
    found = []
    for line in lines:
        hit = re.search(r"(▶)? [^│]*?(\d+)(?: cards?|c),? +(\d+)(?: pts?|p)", line)
        if hit:
            found.append((bool(hit.group(1)), int(hit.group(2)), int(hit.group(3))))
    return found


def hand_cards(lines: list[str]) -> list[str]:
    """The card texts in the "your hand" box."""
    top = next(i for i, line in enumerate(lines) if "your hand" in line)
    cards: list[str] = []
    for line in lines[top + 1 :]:
        if line.startswith("└"):
            break
        cards += re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]|JK", line)
    return cards


@pytest.mark.parametrize(("rows", "columns"), SIZES)
@pytest.mark.parametrize("name", SITUATIONS)
async def test_everything_needed_to_play_is_on_the_screen(
    name: str, rows: int, columns: int
) -> None:
    async with open_table(SITUATIONS[name], rows, columns) as (table, terminal):
        text = terminal.screen.text()
        if name == "game-over":
            # the final standings come first: every player with the points of the game,
            # the header and the status line still showing; esc shows the table under them
            assert "final standings" in text, text
            # over the whole table, the header and status line aside: no piece of the
            # table around the box (a user saw "│nn    │" and "┘t-1   │" beside it)
            rows_shown = text.splitlines()
            box = [row for row in rows_shown[1:-1] if row.strip()]
            assert box[0].startswith("┌") and box[0].rstrip().endswith("┐"), text
            assert all(len(row.rstrip()) == len(box[0].rstrip()) for row in box), text
            assert "your hand" not in text, text
            public = table.client.model.public
            assert public is not None
            for player, points in public.scores:
                # a name too long for its column has a line of its own, the numbers under it
                shown = re.escape(middle_cut(player, 12)[:6])
                assert re.search(rf"{shown}.*(\n[│ ]*)?\b{points}\b", text), text
            assert "game over" in terminal.lines()[-1], text
            app = table.app  # (a screen of the shell's stack, over the table's)
            assert app.shell.stack == [app, app.standings], app.shell.stack
            # ? over the standings: the help shows (it was drawn under them: the newcomer
            # pass saw its top border above the standings' box), and any key puts it away
            text = await terminal.press("?")
            assert "this help" in text and "final standings" not in text, text
            text = await terminal.press("x")
            assert "this help" not in text and "final standings" in text, text
            text = await terminal.press("\x1b")
            assert "final standings" not in text, text
            assert app.shell.stack == [app]
        lines = terminal.lines()
    assert "Window too small" not in text, text

    # the header and the status are shortened by whole words, never cut inside one
    def words(text: str) -> set[str]:
        return {word.strip(",;:") for word in text.split()}

    header = words("".join(fragment[1] for fragment in table.app._header()))
    status = words("".join(fragment[1] for fragment in table.app._status()))
    assert words(lines[0]) <= header, (lines[0], header)
    assert words(lines[-1]) <= status, (lines[-1], status)
    model = table.client.model
    if name == "before":
        assert re.search(r"ann \(you\): not ready", text), text
        assert text.count(": ready") == 3, text
        # a server's bot is named as the game will name it (not by its strategy alone)
        bots = [name for name in SEATING if name.startswith("random-bot")]
        assert bots and all(middle_cut(f"{bot} (bot)", 20)[:8] in text for bot in bots), text
        assert "r = ready" in text, text  # the status line says how to start
        return
    public = model.public
    assert public is not None
    scores = dict(public.scores)
    owing = {seat for seat, _ in public.owed}
    want = [
        (public.turn == seat or seat in owing, public.counts[seat], scores[name])
        for seat, name in enumerate(public.seating)
    ]
    assert seat_rows(lines) == want, text
    assert any("▶" in line for line in lines) or public.phase is Phase.GAME_OVER, text
    assert hand_cards(lines) == [card_text(c) for c in table.app.screen.hand()], text
    newest = table.app.screen.log[-1]
    assert newest in text, f"newest log line {newest!r} is not on the screen:\n{text}"
    if name == "mid-hand":
        titles = public.titles()
        assert titles and all(middle_cut(t, 6)[:3] in text for t in titles.values()), text
    for line in lines:
        assert len(line) <= columns


async def test_a_full_table_on_a_small_screen_shows_whose_turn_it_is() -> None:
    """Twelve seats do not fit in 20 rows a line each: they go in two columns, every one
    on the screen, the turn's marked once."""
    seating = (ME, *(f"player-{n}" for n in range(1, 12)))
    async with open_table(mid_hand, 20, 60, seating=seating) as (table, terminal):
        first = terminal.screen.text()
        table.until(lambda: (table.game.public_view().turn or 0) >= 9)  # out of the first view
        text = await terminal.redraw()
    assert "Window too small" not in first, first
    public = table.client.model.public
    assert public is not None and public.turn is not None and public.turn >= 9
    assert re.search(rf"▶ {public.seating[public.turn]} ", text), text
    assert text.count("▶") == 1, text
    assert all(re.search(rf"{name}( \(you\))? +\d+c", text) for name in seating), text
    assert hand_cards(text.split("\n")) == [card_text(c) for c in table.app.screen.hand()], text
    assert table.app.screen.log[-1] in text, text


async def test_a_seat_whose_cards_have_not_come_says_they_are_coming() -> None:
    """Back at a seat (or at a deal), the table's view, which counts my cards, can be
    drawn before my sealed hand comes: the hand's box says they are coming, not that I
    have none; with none left it says so."""
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        model = table.client.model
        model.hand = []  # (the view heard, the sealed hand not yet)
        text = await terminal.redraw()
        assert "your cards are coming..." in text and "no cards" not in text, text
        assert "your cards are coming ..." in terminal.lines()[-1], text  # no "p passes"
        seat = table.game.seating.index(ME)
        public = model.public
        assert public is not None and public.counts[seat]
        model.public = public._replace(counts=tuple(0 for _ in public.counts))
        text = await terminal.redraw()
        assert "no cards" in text and "cards are coming" not in text, text


async def test_who_watches_is_in_the_header_and_their_coming_and_going_in_the_log() -> None:
    def watched(table: Table) -> None:
        table.watching = ("dan",)  # (already watching when the table's screen opens)
        before_the_game(table)

    async with open_table(watched, 24, 80) as (table, terminal):
        table.deal()
        text = await terminal.redraw()
        assert "— watching: dan —" in text and "· 1 watching" in terminal.lines()[0], text
        table.watching = ("dan", "eve")
        table.step()
        text = await terminal.redraw()
        assert "— eve is watching —" in text and "· 2 watching" in terminal.lines()[0], text
        table.watching = ()
        table.step()
        text = await terminal.redraw()
        assert "— dan stopped watching —" in text and "— eve stopped watching —" in text, text
        assert "watching" not in terminal.lines()[0], text
        # one coming and going again and again: a few lines a hand, then the header's count
        for _ in range(10):
            for watching in (("mal",), ()):
                table.watching = watching
                table.deliver(table.view())
        log = table.app.screen.log
        flaps = [line for line in map(str, log) if "mal " in line]
        assert len(flaps) == 6 - 3, flaps  # (three of the hand's six told of dan and eve)
        assert "no more of these this hand" in flaps[-1], flaps
        # past the twelve named, one going names the next, already there: not "coming"
        screen = table.app.screen
        screen.watchers_told = 0  # (as at the next deal: the flaps above used this hand's)
        crowd = tuple(f"w{n:02d}" for n in range(13))
        table.watching = crowd
        table.deliver(table.view())
        told = len(screen.log)
        table.watching = crowd[1:]
        table.deliver(table.view())
        new = [str(line) for line in screen.log[told:]]
        assert any("w00 stopped watching" in line for line in new), new
        assert not any("w12 is watching" in line for line in new), new


async def test_on_my_turn_the_hand_says_what_its_underline_means() -> None:
    """A pass: nothing said what an underlined card meant (a card some play open to me
    now holds); on my turn the hand's box says it, at other times it is "your hand"."""
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        while table.client.model.my_turn:
            table.step()
        text = await terminal.redraw()
        assert "| your hand |" in text and "underlined" not in text, text
        while not table.client.model.my_turn:
            table.step()
        text = await terminal.redraw()
        assert table.app.screen.legal_ranks(), text  # (this deal: a play is open to me)
        assert "| your hand: underlined cards can be played |" in text, text


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (24, 80)])
async def test_the_cards_chosen_are_said_on_the_status_line(rows: int, columns: int) -> None:
    """A newcomer's pass: the cards chosen were marked by reverse video alone, which a
    plain-text capture, some terminals and a screen reader do not show; the status line
    says them (and that enter plays them) until they are played or unchosen."""
    async with open_table(mid_hand, rows, columns) as (table, terminal):
        while not table.client.model.my_turn:
            table.step()
        await terminal.redraw()
        screen = table.app.screen
        legal = screen.legal_ranks()
        screen.cursor = next(i for i, c in enumerate(screen.hand()) if c.rank in legal)
        await terminal.press(" ")
        (card,) = screen.chosen()
        status = terminal.lines()[-1]
        assert f"{card_text(card)} chosen: enter plays" in status, status
        assert "plays it" in status or columns < 80, status  # (one card: "it")
        assert len(status.rstrip()) <= columns
        await terminal.press(" ")  # unchosen: the keys again
        status = terminal.lines()[-1]
        assert " chosen:" not in status, status


async def test_it_is_not_your_turn_goes_when_my_turn_comes() -> None:
    """A pass pressed s while the bots played: "it is not your turn" stayed under the
    header's "▶ bob (you)" and its running clock, until esc."""
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        while table.client.model.my_turn:
            table.step()
        await terminal.press("s")
        assert "it is not your turn" in terminal.lines()[-1]
        while not table.client.model.my_turn:
            table.step()
        text = await terminal.redraw()
        assert "it is not your turn" not in terminal.lines()[-1], text
    async with open_table(exchange, 24, 80) as (table, terminal):  # (every card may go back)
        text = await terminal.redraw()
        assert "| your hand |" in text and "underlined" not in text, text


async def test_on_a_narrow_screen_the_rules_stay_in_the_log_once_the_game_begins() -> None:
    """A pass at 80x24: the log showed the table's rules until the game began, then they
    were nowhere (a narrow screen has no notes box).  They stay in its history, before
    the first hand's line; a wide screen has them in its notes box."""
    async with open_table(before_the_game, 24, 80) as (table, terminal):
        assert "rules: classic" in await terminal.redraw()
        table.deal()
        text = await terminal.redraw()
        stream = table.app.screen.stream
        rules = [i for i, (where, _, line) in enumerate(stream) if line.startswith("rules: ")]
        first = next(i for i, (_, _, line) in enumerate(stream) if "hand 1:" in line)
        assert rules and rules[-1] < first and stream[rules[-1]][0] == "narrow", stream
        assert "rules: classic" in text, text  # (the log's first lines, short as it is)


def test_the_seats_in_view_are_the_turns_and_the_last_plays() -> None:
    assert window_start(6, 5, [2, 0]) == 0  # both in the first five lines
    assert window_start(6, 5, [5, 1]) == 1  # both: the window as low as needed
    assert window_start(6, 5, [5, 0]) == 1  # both cannot be: the turn's line is kept
    assert window_start(8, 3, [6, 1]) == 5  # both cannot be: the turn's
    assert window_start(8, 3, [None, 7]) == 5
    assert window_start(8, 3, [None, None]) == 0
    assert window_start(4, 5, [3, 0]) == 0  # all fit


@pytest.mark.slow  # (2-3 s: twelve seats' game)
async def test_twelve_seats_at_60x16_say_how_many_are_out_of_view() -> None:
    """At 60x16 twelve seats do not fit even in two columns: 10 showed and nothing said
    so (issue 27).  The frame says how many are out of view, and the lines kept show
    whose turn it is and who played last, as the turn goes round."""
    seating = (ME, *(f"player-{n}" for n in range(1, 12)))
    async with open_table(mid_hand, 16, 60, seating=seating) as (table, terminal):
        checked = 0
        for turn in (5, 11):
            table.until(lambda: (table.game.public_view().turn or 0) >= turn)  # noqa: B023
            text = await terminal.redraw()
            public = table.client.model.public
            assert public is not None and public.turn is not None
            panel = text.split(" pile ")[0]
            shown = [name for name in seating if re.search(rf"{name}( \(you\))? +\d+c", panel)]
            hidden = re.search(r"table \(\+(\d+) more\)", text)
            assert hidden and int(hidden.group(1)) == len(seating) - len(shown) > 0, text
            assert re.search(rf"▶ {public.seating[public.turn]} ", panel), text
            if public.trick:
                assert public.seating[public.trick[-1][0]] in shown, text
                checked += 1
        assert checked


@pytest.mark.parametrize(("rows", "columns"), SIZES)
async def test_the_help_fits_and_any_key_closes_it_without_acting(rows: int, columns: int) -> None:
    async with open_table(mid_hand, rows, columns) as (table, terminal):
        while not table.client.model.my_turn:
            table.step()
        screen = table.app.screen
        screen.suggest()
        await terminal.redraw()
        text = await terminal.press("?")
        assert screen.help
        for keys_, words in (("ctrl-c", "quit, keeping your seat"), ("s", "suggest a play")):
            assert re.search(rf"{re.escape(keys_)} +.*{words}", text), text
        assert "q " in text and "this help" in text, text
        text = await terminal.press("\r")  # closes the help, and plays nothing
        assert not screen.help and "this help" not in text
        await asyncio.sleep(0.05)
        assert table.client.sent == [] and screen.selected
        await terminal.press("?")
        terminal.keys.send_text("\x1b")  # escape closes it too, and keeps the choice
        await wait_for(lambda: not screen.help)  # (a lone escape is one after a short wait)
        assert screen.selected


async def test_a_watchers_help_lists_a_watchers_keys() -> None:
    """Watching, `?` listed the player's keys (space, p pass, r ready): a watcher's are
    the log, the standings, chat and leaving."""
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        table.client.model.slot = None  # (watching: no chair)
        text = await terminal.press("?")
        assert "keys (watching)" in text and "stop watching" in text, text
        assert "pass" not in text and "ready" not in text and "suggest" not in text, text


async def test_the_help_of_a_local_game_lists_its_keys_only() -> None:
    """A newcomer's pass: `president play`'s help listed b (add a bot), n (nudge) and c
    (chat), which only answer that they do nothing there, and said q leaves the table
    where it quits the game."""
    async with open_table(mid_hand, 30, 100) as (table, terminal):
        table.app.extras = PlayExtras(lambda: None, ME)
        text = await terminal.press("?")
    for key, words in (("r", "another game"), ("q", "quit (asks again"), ("a", "the coach")):
        assert re.search(rf"│ {key} +{re.escape(words)}", text), text
    for gone in ("add a bot", "nudge", "chat to the table", "leave the table"):
        assert gone not in text, text
    # the coach beside s, the review beside r, ctrl-c last (a pass found a and v after it)
    keys = [found.group(1) for found in re.finditer(r"│ (\S+) {2,}\S", text)]
    assert keys.index("a") == keys.index("s") + 1 and keys.index("v") == keys.index("r") + 1
    assert keys[-1] == "ctrl-c", keys


async def test_a_local_games_r_and_n_mid_game_say_what_they_do_there() -> None:
    """A newcomer's pass in `president play`: r mid-game said "ready is for a seated
    player before a game", where its help says "another game, once this one is over";
    n, not in its help, said the server's "nobody to nudge"."""
    async with open_table(mid_hand, 30, 100) as (table, terminal):
        table.app.extras = PlayExtras(lambda: None, ME)
        text = " ".join((await terminal.press("r")).split())
        assert "r starts another game once this one is over" in text, text
        text = " ".join((await terminal.press("n")).split())
        assert "nobody to nudge here: the bots never keep you waiting" in text, text
        assert not table.client.sent, table.client.sent


@pytest.mark.parametrize("settled", [True, False])
async def test_the_help_explains_a_rating_not_settled_when_a_seat_shows_one(settled: bool) -> None:
    """A players' pass: "rating -110?" at the table, and nothing there said what the ? is
    (the lobby's ladder says it under its list).  The help says it while a seat shows one."""
    async with open_table(mid_hand, 30, 100) as (table, terminal):
        entry = replace(rated("cat", 1, -110), provisional=not settled)
        table.client.ladder.take(m.Ratings(start=0, total=1, entries=(entry,), players=("cat",)))
        text = await terminal.redraw()
        assert ("rating -110 " if settled else "rating -110?") in text, text
        text = await terminal.press("?")
        assert ("not settled yet" in text) is not settled, text


async def test_a_player_no_hand_has_rated_shows_as_unrated_not_as_zero() -> None:
    """A player's pass: among server bots all evening (which rate nobody), their seat
    read "rating 0?" (mu - 3 sigma of a newcomer), as if rated zero.  It reads "unrated"
    at the seat, on the lobby's ladder and in `president stats`; a provisional player a
    hand has moved keeps its number and its mark."""
    from president.cli.stats import lines as ladder_lines
    from president.client.model import shown

    newcomer = replace(rated("cat", 2, 0, hands=5), mu=1500, sigma=500, provisional=True)
    moved = replace(rated("dan", 3, 0), mu=1290, sigma=430, provisional=True)
    assert (shown(newcomer), shown(moved)) == ("unrated", "0?")
    async with open_table(mid_hand, 30, 100) as (table, terminal):
        table.client.ladder.take(m.Ratings(start=0, total=1, entries=(newcomer,), players=("cat",)))
        text = await terminal.redraw()
        assert "unrated" in text and "rating 0" not in text, text
    lines = ladder_lines("srv", 2, [rated("ann", 1, 700), newcomer])
    row = next(line for line in lines if " cat " in line)
    assert "unrated" in row and " 0?" not in row, lines
    assert lines[-1] == "unrated: no hand has rated them yet (server bots rate nobody)"


async def test_a_help_too_long_for_the_screen_shows_a_page_at_a_time() -> None:
    """At 60x16 the table's help does not fit: a page, and a line saying how to see the
    next; `?` (or space) shows it, every line of the help on one page or the other, and
    on the last page it closes the help, having done nothing at the table."""
    async with open_table(mid_hand, 16, 60) as (table, terminal):
        screen = table.app.screen
        await terminal.redraw()
        first = await terminal.press("?")
        assert screen.help and "? or space: more (1/" in first, first
        seen, pages = first, screen.help_pages.pages
        for page in range(2, pages + 1):
            text = await terminal.press("?")
            assert screen.help and f"({page}/{pages})" in text, text
            seen += text
        assert "any key closes" in text, text
        for keys_, words in (("ctrl-c", "quit, keeping your seat"), ("s", "suggest a play")):
            assert re.search(rf"{re.escape(keys_)} +.*{words}", seen), seen
        assert "this help" in seen
        # the table's rules, on a page of their own after the keys (a newcomer's pass)
        assert "the rules here: " in text and "ctrl-c" not in text, text
        assert "President 2 points" in seen or "scores" in seen, seen
        if "per deck" in seen:  # (jokers: how a screen writes one, a newcomer's pass)
            assert "(written JK)" in seen, seen
        text = await terminal.press("?")
        assert not screen.help and "this help" not in text
        await terminal.press("?")
        await terminal.press(" ")
        text = await terminal.press("x")  # any other key closes it from any page
        assert not screen.help and screen.help_pages.page == 0, text
        assert table.client.sent == []


async def test_the_log_follows_and_scrolls_back() -> None:
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        for n in range(40):
            table.chat(f"line {n} of a chat that goes on for a while")
        text = await terminal.redraw()
        assert "line 39 of" in text and "line 20 of" not in text
        text = await terminal.press("\x1b[5~")  # page up
        assert "line 39 of" not in text and "newer lines: End follows" in text, text
        text = await terminal.press("\x1b[6~\x1b[6~\x1b[6~")  # page down to the end
        assert "line 39 of" in text and "End follows" not in text, text
        text = await terminal.press("\x1b[5~\x1b[5~")
        assert "line 39 of" not in text
        text = await terminal.press("\x1b[F")  # end
        assert "line 39 of" in text
        row = next(i for i, line in enumerate(terminal.lines()) if "line 39 of" in line)
        text = await terminal.press(f"\x1b[<64;10;{row + 1}M")  # the wheel, up over the log
        assert "line 39 of" not in text and "End follows" in text, text
        table.chat("one more")  # new lines do not pull the reader back down ...
        text = await terminal.redraw()
        assert "one more" not in text
        while not table.client.model.my_turn:
            table.step()
        await terminal.redraw()
        text = await terminal.press("s\r")  # ... the player's own move does
        assert "End follows" not in text and table.client.sent, text


def test_the_table_logs_finish_is_wrapped_a_player_at_a_time() -> None:
    """The table's log (`fit.wrap`, with its hanging indent) cuts a hand's finish as the
    replay's does: never between a place and its player, nor before their points (a pass
    saw "2." end one row and "heuristic-bot-3" begin the next)."""
    line = "hand 3 is over: 1. heuristic-bot-1 +2, 2. heuristic-bot-3 +1, 3. you, 4. greedy-2"
    for width in range(24, len(line) + 1):
        parts = wrap(line, width, 2)
        assert all(len(part) <= width for part in parts), (width, parts)
        assert " ".join(parts).split() == line.split(), (width, parts)
        for part in parts:
            assert not re.search(r"\d\.$", part), (width, parts)
            assert not part.lstrip().startswith("+"), (width, parts)


async def test_wrapped_log_lines_break_between_words() -> None:
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        table.chat(LONG)
        table.step()
        await terminal.redraw()
    rows = [line[1:-1].rstrip() for line in terminal.lines() if line.startswith("│")]
    first = max(i for i, row in enumerate(rows) if row.startswith("<cat> well played"))
    wrapped = [rows[first]]
    while len(" ".join(row.strip() for row in wrapped)) < len(f"<cat> {LONG}"):
        wrapped.append(rows[first + len(wrapped)])
    assert len(wrapped) > 1  # it did wrap
    assert " ".join(row.strip() for row in wrapped) == f"<cat> {LONG}", wrapped  # no word cut
    # its continuations indented: no row of it can pass for a line of its own (a hostile
    # chat line wrapped so that "<ann> ..." began a row, as if ann had said it)
    assert all(row.startswith("  ") and not row.startswith("   ") for row in wrapped[1:])


# --- colour ---------------------------------------------------------------------------------


def suit_pens(terminal: AppTerminal) -> dict[str, set[Pen]]:
    """The pens of each suit's glyph in the hand box."""
    lines = terminal.lines()
    top = next(i for i, line in enumerate(lines) if "your hand" in line)
    pens: dict[str, set[Pen]] = {}
    for row in range(top + 1, len(lines)):
        if lines[row].startswith("└"):
            break
        for column, char in enumerate(terminal.screen.cells[row]):
            if char in "♣♦♥♠":
                pen = terminal.screen.pens[row][column]
                pens.setdefault(char, set()).add(
                    Pen(fg=pen.fg, bg=pen.bg, bold=pen.bold)  # not cursor/selection marks
                )
    return pens


COLOUR = re.compile(r"\x1b\[[0-9;]*?(?<![0-9])(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")


@pytest.mark.parametrize("theme", ["dark", "light", "mono", "neutral"])
async def test_each_suit_is_drawn_readably_and_apart(theme: str) -> None:
    async with open_table(mid_hand, 24, 80, theme=theme) as (_table, terminal):
        pass
    pens = suit_pens(terminal)
    assert set(pens) == {"♣", "♦", "♥", "♠"}, pens  # the deal gives every suit here
    red = pens["♦"] | pens["♥"]
    black = pens["♣"] | pens["♠"]
    assert len(red) == 1 and len(black) == 1 and red != black, pens  # one look per colour
    (r,), (b,) = red, black
    assert r.bold != b.bold  # told apart by weight as well as colour
    if theme == "mono":
        assert not COLOUR.search(terminal.all_output()), "mono drew a colour"
        assert r.fg == b.fg == "" and r.bg == b.bg == ""
        return
    if theme == "neutral":  # the terminal's own foreground: readable on its background
        assert r.fg == "31" and b.fg in ("", "39"), (r, b)
        return
    assert r.fg and b.fg and r.fg != b.fg
    assert b.fg not in ("30", "38;5;0", "38;5;16"), "black on a terminal: invisible when dark"
    if theme == "dark":
        assert b.fg not in ("90", "34"), "too dim on a dark background"
    else:
        assert b.fg not in ("97", "37", "93", "33"), "too pale on a light background"


def test_the_theme_is_chosen_from_the_environment() -> None:
    assert choose_theme(None, {}) == "neutral"  # nothing said: readable on either
    assert choose_theme(None, {"NO_COLOR": "1"}) == "mono"
    assert choose_theme("light", {"NO_COLOR": "1"}) == "light"
    assert choose_theme(None, {"COLORFGBG": "0;15"}) == "light"
    assert choose_theme(None, {"COLORFGBG": "15;default;0"}) == "dark"
    assert choose_theme(None, {"NO_COLOR": ""}) == "neutral"  # empty means unset


# --- fitting text -----------------------------------------------------------------------------


def test_lines_fit_by_whole_words_and_parts() -> None:
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]
    assert wrap("  1. bartholomew  +2", 14) == ["  1.", "  bartholomew", "  +2"]
    assert cut("a game is on: press q again to leave", 20) == "a game is on: press…"
    hint = "your turn: space chooses, enter plays, p passes, s suggests"
    assert shorten(hint, 50) == "your turn: space chooses, enter plays, p passes"
    assert shorten("enter sits · n new · c chat · ? help · q quits", 30) == (
        "enter sits · n new · ? help"
    )
    assert middle_cut("random-bot-12", 9) == "rand…t-12"


def seat(turn: bool, name: str, title: str, count: int, points: int, flags: str) -> SeatRow:
    """A seat's row as the table shows it, its state as its flags say it."""
    return SeatRow(
        name=name,
        title=title,
        count=count,
        points=points,
        turn=turn,
        passed="passed" in flags,
        fell="fell" in flags,
        away="away" in flags,
    )


def test_seat_lines_keep_every_number_and_flag_at_any_width() -> None:
    rows = [
        seat(True, "bartholomew-the-patient-2 (you)", "Vice-President", 13, 10, ""),
        seat(False, "random-bot-3", "President", 0, 120, "passed away"),
    ]
    for width in (40, 58, 78, 120):
        lines = seat_lines(rows, width)
        assert all(len(line) <= width for line in lines), (width, lines)
        assert re.search(r"13(?: cards|c) +10(?: pts|p)$", lines[0]), lines
        assert lines[1].endswith("passed · away") and " 120" in lines[1], lines
        assert lines[0].startswith("▶ ") and lines[1].startswith("  ")
    wide = seat_lines(rows, 120)
    assert "Vice-President" in wide[0] and "bartholomew-the-patient-2 (you)" in wide[0]


def test_wide_names_keep_the_columns_by_the_terminals_columns() -> None:
    """A table of Japanese names (under `daifugo`!): 山田 takes four columns, not two.
    The seats' columns were pushed apart by the difference, and a chat line in Japanese
    ran past the log's edge."""
    rows = [
        seat(True, "山田太郎さんの名前 (you)", "", 13, 0, ""),
        seat(False, "heuristic-bot-1", "", 14, 0, ""),
        seat(False, "e\u0301milie", "", 12, 0, ""),  # (a combining mark: no column)
    ]
    for width in (30, 40, 60, 100):
        lines = seat_lines(rows, width)
        assert all(cells(line) <= width for line in lines), (width, lines)
        numbers = {cells(line[: line.index(f" {row.count}")]) for row, line in zip(rows, lines)}
        assert len(numbers) == 1, (width, lines)  # the cards' column, one place
        columns = compact_seats(rows, width // 2)
        assert len({cells(line[: line.rindex("c ") - 2]) for line in columns}) == 1, columns
    assert cells(middle_cut("山田太郎さんの名前", 9)) <= 9
    assert middle_cut("山田太郎さんの名前", 9).startswith("山田") and cells(pad("山田", 6)) == 6
    chat = "<山田> 日本語のチャットです。これは長い行なので折り返されるはずです。 and english"
    for width in range(4, 40):
        lines = wrap(chat, width, 2)
        assert all(cells(line) <= width for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == chat.replace(" ", ""), lines
    assert wrap(chat, 24, 2)[0] == "<山田> 日本語のチャット"  # (filled: no spaces to wait for)
    # no line begins with "。" or "、" (kinsoku): the character before goes down with it
    said = "<山田太郎> こんにちは、皆さん。今日はよろしくお願いします。大富豪のルールです"
    for width in range(12, 40):
        lines = wrap(said, width, 2)
        assert not [line for line in lines if line.strip()[:1] in "。、"], (width, lines)
        assert "".join(lines).replace(" ", "") == said.replace(" ", "")
    names = ("山田太郎", "ann", "鈴木")
    results = [HandResult(0, names, (2, 1, 0)), HandResult(1, names[::-1], (2, 1, 0))]
    final = standings(None, results, ("山田太郎",), {"山田太郎": 3, "ann": 2, "鈴木": 2}, 2)
    places = [line for line in final if re.match(r" \d\. ", line)]
    assert len({cells(line[: line.index("  —")]) for line in places}) == 1, final  # points
    grid = final[final.index("place and points won, hand by hand") + 2 :][:3]
    assert len({cells(re.sub(r"[1-3]( \+\d)?\s*$", "", line)) for line in grid}) == 1, final


def test_one_point_is_one_pt() -> None:
    rows = [seat(False, "ann", "", 13, 1, "away"), seat(False, "bob", "", 13, 2, "away")]
    one, two = seat_lines(rows, 60)
    assert one.endswith(" 1 pt  away") and two.endswith(" 2 pts away"), (one, two)


# --- the lobby ---------------------------------------------------------------------------------


def a_table(name: str, status: str, players: tuple[str, ...]) -> m.TableInfo:
    return m.TableInfo(
        name=name,
        preset="classic",
        changes="must_beat=True",
        seats=len(players),
        players=players,
        status=status,  # type: ignore[arg-type]
        password=name.endswith("s"),
        turn_seconds=30,
        spectators=1,
    )


def lobby_screen() -> LobbyScreen:
    screen = LobbyScreen(
        me=ME,
        server="friday-night-server",
        address="192.168.1.20:7766",
        fingerprint="9f" * 32,
    )
    tables = tuple(
        a_table(f"table {n}{'s' if n % 3 == 0 else ''}", "waiting", ("bob", "", "", "bot:random"))
        for n in range(9)
    )
    screen.record(m.Tables(tables=tables))
    for n in range(12):
        screen.record(m.Chat(scope="lobby", text=f"message {n}: {LONG}", sender="bob"))
    screen.record(m.Chat(scope="lobby", text="the newest word", sender="cat"))
    return screen


@pytest.mark.parametrize(("rows", "columns"), SIZES)
async def test_the_lobby_fits(rows: int, columns: int) -> None:
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        screen = lobby_screen()
        lobby = LobbyApp(FakeClient(TableModel(me=ME)), screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
        await terminal.start(lobby.app)
        text = terminal.screen.text()
        assert "Window too small" not in text, text
        assert "friday-night-server" in text and "9f9f" in text
        assert "table 0" in text and "? help" in text, text
        assert "<cat> the newest word" in text, text
        assert "bot:random" in text, text  # the chosen table's seats
        await terminal.step("j", 7)
        text = await terminal.press("j")
        assert "table 8" in text, text  # the list follows its cursor
        text = await terminal.press("?")
        assert "choose a table" in text and "quit" in text, text
        text = await terminal.press("\r")  # closes the help, sits nowhere
        assert "choose a table" not in text and not lobby.entering
        text = await terminal.press("n")
        assert "new table" in text and "preset" in text and "turn timer" in text, text
        await terminal.step("\x1b[B", 8)  # down to a toggle with a long sentence
        text = await terminal.press("\x1b[B")
        form = screen.form
        assert form is not None
        label, _, words = form.rows()[form.row]
        shown = set(text.replace("│", " ").split())
        assert label == "deal_from_president" and set(words.split()) <= shown, text
        await terminal.stop()
    for line in text.split("\n"):
        assert len(line) <= columns


# --- what the reviewer met playing the table --------------------------------------------------

BOTS = (ME, "heuristic-bot-1", "heuristic-bot-2", "heuristic-bot-3")


@pytest.mark.parametrize(("rows", "columns"), [(24, 80), (40, 120)])
async def test_the_final_standings_take_the_width_they_need(rows: int, columns: int) -> None:
    """Long bot names stay whole in the final standings and the line about the office is
    wrapped between names; at 120 columns every hand has its column."""
    async with open_table(game_over, rows, columns, seating=BOTS, target=12, seed=12) as (
        table,
        terminal,
    ):
        text = terminal.screen.text()
    lines = text.split("\n")
    top = next(i for i, line in enumerate(lines) if "final standings" in line)
    left = lines[top].rindex("┌", 0, lines[top].index("final standings"))
    right = lines[top].index("┐", left)
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i][left] == "└")
    inside = "\n".join(line[left + 1 : right] for line in lines[top + 1 : bottom])
    for name in BOTS[1:]:
        assert re.search(rf"\d\. {name} +\d", inside), inside
    assert "…" not in inside, inside
    hands = len(table.app.screen.results)
    if columns == 120:
        office = inside[inside.index("President: ") : inside.index("longest run as President")]
        assert "," in office and "\n" in office, inside  # several names, wrapped between them
        assert hands > 9 and "the last" not in inside, inside
        assert f"h{hands} " in inside and " h1 " in inside, inside
        # the title is the office the last hand gave, not the game's rank: said so
        assert re.search(rf"points  title after hand {hands} *\n", inside), inside


def skipped_by_the_fives(table: Table) -> None:
    """Under five_skip, a seat just skipped by the 5s, its trick going on."""
    table.rules = table.rules.replace(five_skip=True)
    table.game = Game(table.rules, table.seating)
    table.deal()

    def skipped() -> bool:
        public, log = table.client.model.public, table.app.screen.log
        if public is None or not log or not log[-1].endswith(" skipped by the 5s"):
            return False
        who = log[-1].split()[0]
        return public.passed[table.seating.index(ME if who == "you" else who)]

    table.until(skipped)


@pytest.mark.parametrize(("rows", "columns"), [*SIZES, (16, 60)])
async def test_a_seat_the_fives_skipped_says_skipped_not_passed(rows: int, columns: int) -> None:
    """The view counts a skipped seat as having answered the pile, as a pass does: the
    seat says "skipped" (a compact cell "skip"), not "passed"."""
    async with open_table(skipped_by_the_fives, rows, columns) as (table, terminal):
        text = await terminal.redraw()
    who = table.app.screen.log[-1].split()[0]
    name = "ann (you)" if who == "you" else who
    panel = text.split("your hand")[0]
    # the word after the seat's numbers (a compact line holds two seats)
    flag = re.search(rf"{re.escape(name[:4])}.*? \d+(?: cards?|c) +\d+(?: pts?|p) (\w*)", panel)
    assert flag is not None and flag.group(1) == ("skip" if rows < 20 else "skipped"), text


async def test_at_the_end_the_seats_show_the_titles_the_last_hand_gave() -> None:
    async with open_table(game_over, 40, 120) as (table, terminal):
        text = await terminal.press("\x1b")  # the table under the standings
    public = table.client.model.public
    assert public is not None and public.titles_won() != public.titles()  # seed 7's game
    for name, title in public.titles_won().items():
        assert re.search(rf"{re.escape(name[:8])}\S*(?: \(you\))? +{title} ", text), text


async def test_a_message_lasts_until_the_next_key() -> None:
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        while not table.client.model.my_turn:
            table.step()
        screen = table.app.screen
        await terminal.redraw()
        hint = screen.status_line()[1].strip()
        text = await terminal.press("\r")  # nothing chosen: refused, and said why
        assert "choose cards with space" in terminal.lines()[-1], text
        text = await terminal.press("l")  # the next key puts the hint back
        assert terminal.lines()[-1].strip() == hint, text
        text = await terminal.press("q")
        assert "press q again" in text, text
        text = await terminal.press("l")  # ... a key between: q asks again
        assert "press q again" not in text, text
        text = await terminal.press("q")
        assert "press q again to leave" in text and not table.app.app.is_done, text
        # a key that acts, pressed for "no", only says so (n nudged, a host's pass)
        sent = len(table.client.sent)
        for key in ("n", "p", "\r"):
            text = await terminal.press(key)
            assert "you stay" in terminal.lines()[-1], text
            assert len(table.client.sent) == sent and not table.app.app.is_done
            text = await terminal.press("q")
            assert "press q again to leave" in text, text
        await terminal.press("l")
        # in `president play` the game ends with its player: q asks to quit
        table.app.extras = PlayExtras(lambda: None, ME)
        await terminal.press("l")
        text = await terminal.press("q")
        assert "press q again to quit (the game ends here" in text, text
        assert "timeout rule" not in text and not table.app.app.is_done, text
        table.deliver(m.Error(code="refused", message="the server says no"))
        text = await terminal.redraw()
        assert "the server says no" in text
        text = await terminal.redraw()
        assert "the server says no" in text  # until a key
        await terminal.press("l")
        assert "the server says no" not in await terminal.redraw()
        await terminal.press("q")
        await terminal.left("q")  # q twice leaves


async def test_esc_acts_at_once_and_toggles_the_final_standings() -> None:
    async with open_table(game_over, 24, 80) as (table, terminal):
        screen, app = table.app.screen, table.app.app
        # esc is told from the start of a longer key sequence by waiting: not long here
        assert app.ttimeoutlen <= 0.1 and (app.timeoutlen or 0) <= 0.1
        for hidden in (True, False, True):
            terminal.keys.send_text("\x1b")
            await wait_for(lambda h=hidden: screen.standings_hidden is h)  # type: ignore[misc]
            text = await terminal.redraw()
            assert ("final standings" in text) is not hidden, text
            if hidden:
                assert "esc = standings" in terminal.lines()[-1], text


def test_the_lobby_and_the_replay_take_esc_at_once() -> None:
    game, _, _ = play_game(find_preset("classic"), ["heuristic"] * 4, seed=1, number=0, rotate=True)
    with create_pipe_input() as keys:
        output = Vt100_Output(io.StringIO(), lambda: Size(24, 80), term="xterm")
        lobby = LobbyApp(FakeClient(TableModel(me=ME)), lobby_screen(), input=keys, output=output)  # type: ignore[arg-type]
        record = ReplayScreen.of(to_record(game, "classic"), "game.json")  # type: ignore[arg-type]
        replay = ReplayApp(record, input=keys, output=output)
        for app in (lobby.app, replay.app):
            assert app.ttimeoutlen <= 0.1 and (app.timeoutlen or 0) <= 0.1


async def test_the_narrow_log_ends_with_the_newest_event() -> None:
    """The deal's check and the exchange are lines of the log when they come, not lines
    pinned under the newest events."""
    async with open_table(mid_hand, 20, 60) as (table, terminal):
        table.client.model.deal_results[1] = None
        table.chat("checked")  # any message: the deal's check is logged with it
        for _ in range(3):
            table.step()
        await terminal.redraw()
        lines = terminal.lines()
        top = next(i for i, line in enumerate(lines) if "| log |" in line)
        end = next(i for i in range(top + 1, len(lines)) if lines[i].startswith("└"))
        last = lines[end - 1].strip("│ ")
        screen = table.app.screen
        assert last and screen.log[-1].endswith(last), (last, screen.log[-1])
        assert screen.log[-1] != "fair deal of hand 2: verified"


# --- what a second reviewer met playing the table -------------------------------------------------

LONGEST = "Maximilianus-Longname-the-Thirds"  # 32 characters, the most a name may have


def test_a_cut_name_in_the_seats_stays_the_same_as_the_numbers_and_flags_change() -> None:
    shown = set()
    for cards, points, flags in ((13, 0, ""), (9, 0, "passed"), (2, 12, "away"), (0, 7, "")):
        rows = [
            seat(False, "ann (you)", "Vice-President", 13, 10, ""),
            seat(True, LONGEST, "President", cards, points, flags),
        ]
        line = seat_lines(rows, 58)[1]
        assert len(line) <= 58 and line.endswith(flags), line
        shown.add(line.split()[1])
    assert len(shown) == 1 and "…" in next(iter(shown)), shown


SIX = (ME, "heuristic-bot-1", "heuristic-bot-2", "heuristic-bot-3", "bob", LONGEST)


async def test_the_final_standings_of_six_scroll_at_60x20() -> None:
    """More standings than rows: the last row says so; j, down, space and pagedown show
    the rest (the office lines too), k, up and pageup go back; the log stays where it was."""
    async with open_table(game_over, 20, 60, seating=SIX, target=3, seed=1) as (table, terminal):
        app = table.app
        full = [line for line in app.screen.standings(58) if line.strip()]
        text = terminal.screen.text()
        assert "↓ more: PgDn" in text, text

        def box() -> int:
            top = next(line for line in terminal.lines() if "final standings" in line)
            return top.rindex("┌", 0, top.index("final standings"))

        left = box()
        assert "longest run" not in text and "nobody was President" not in text, text
        for key in ("j", "\x1b[B", " ", "\x1b[6~", "\x1b[6~", "\x1b[6~"):
            text = await terminal.press(key)
        assert "↑ more: PgUp" in text and "↓" not in text, text
        assert box() == left, text  # the box stays where it was
        assert full[-2] in text, text  # the last line of the office (the keys line went)
        assert app.log.back == 0 and not app.screen.selected
        for key in ("k", "\x1b[A", "\x1b[5~", "\x1b[5~", "\x1b[5~"):
            text = await terminal.press(key)
        assert "↓ more: PgDn" in text and "↑" not in text and full[0] in text, text
        terminal.keys.send_text("\x1b")  # the table under them: pageup is the log's again
        await wait_for(lambda: app.screen.standings_hidden)
        assert "final standings" not in await terminal.redraw()
        await terminal.press("\x1b[5~")
        assert app.log.back > 0


async def test_a_message_goes_after_a_few_seconds_and_the_hint_comes_back() -> None:
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        while not table.client.model.my_turn:
            table.step()
        app, screen = table.app, table.app.screen
        now = [1000.0]
        app.clock = lambda: now[0]
        hint = (await terminal.redraw()).split("\n")[-1].strip()
        table.deliver(m.Error(code="refused", message="the server says no"))
        assert "the server says no" in await terminal.redraw()
        now[0] += 4
        assert "the server says no" in await terminal.redraw()
        now[0] += 1.5
        await terminal.redraw()
        assert terminal.lines()[-1].strip() == hint
        refused = (await terminal.press("\r")).split("\n")[-1]  # nothing chosen: refused
        assert refused.strip() != hint, refused
        now[0] += 4
        assert (await terminal.press("\r")).split("\n")[-1] == refused  # again: a new message
        now[0] += 4
        assert (await terminal.redraw()).split("\n")[-1] == refused
        now[0] += 1.5
        await terminal.redraw()
        assert terminal.lines()[-1].strip() == hint
        text = await terminal.press("q")
        assert "press q again" in text and screen.leave_asked
        now[0] += 6
        await terminal.redraw()
        assert terminal.lines()[-1].strip() == hint and not screen.leave_asked
        text = await terminal.press("q")  # after it went, q asks again
        assert "press q again" in text and not app.app.is_done, text
        await terminal.left("q")  # q twice leaves


# --- the ladder (issue 15) ---------------------------------------------------------------


#: A name as long as a name may be (32 characters).
LONGEST_NAME = "bartholomew-the-patient-player-2"


def rated(name: str, place: int, rating: int, hands: int = 60) -> m.RatingEntry:
    return m.RatingEntry(
        name=name,
        place=place,
        rating=rating,
        mu=rating + 900,
        sigma=300,
        hands=hands,
        games=2,
        wins=1,
        places=(hands,),
        points=2 * hands,
        offices=(),
    )


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80)])
async def test_the_lobby_shows_the_ladder_and_the_chosen_tables_ratings(
    rows: int, columns: int
) -> None:
    board = tuple(rated(f"player-{n}", n, 900 - 37 * n) for n in range(1, 21))
    board = (*board[:2], rated(LONGEST_NAME, 3, 789), *board[3:])
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        screen = lobby_screen()
        client = FakeClient(TableModel(me=ME))
        lobby = LobbyApp(client, screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
        client.ladder.take(
            m.Ratings(start=0, total=42, entries=(rated("bob", 7, 412),), players=("bob",))
        )
        await terminal.start(lobby.app)
        text = await terminal.press("j")  # the next table: its people's ratings are asked for
        assert m.Leaderboard(players=("bob",)) in client.sent
        assert "bob  rating 412" in text or "bob rating 412" in " ".join(text.split()), text
        text = await terminal.press("l")
        assert m.Leaderboard(count=20) in client.sent
        assert "asking the server for its" in text, text
        client.ladder.take(m.Ratings(start=0, total=42, entries=board))
        text = await terminal.redraw()
        assert "42 rated (rating = mu - 3 sigma)" in text, text
        assert re.search(r"  # rating  name +hands", text), text  # the columns named
        assert re.search(r"  1    863  player-1 +60\b", text), text  # place, rating, name
        assert re.search(r"  2    826  player-2 +60\b", text), text
        assert re.search(rf"  3    789  {LONGEST_NAME} +60\b", text), text  # whole
        assert "ladder" in text and "Window too small" not in text, text
        assert "l back to the tables" in text, text  # (how to put it away: at 60 too)
        text = await terminal.press("l")
        assert "863  player-1" not in text and "bot:random" in text, text  # the table again
        assert "l back to" not in text, text
        await terminal.stop()
    for line in text.split("\n"):
        assert len(line) <= columns


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (40, 120)])
async def test_the_lobby_ladder_scrolls_where_its_pane_cannot_hold_it(
    rows: int, columns: int
) -> None:
    """A newcomer's pass: at 60x16 the ladder's pane held four of its twenty places and
    said only that a taller window would show them.  Now ↑/↓ (k/j) scroll its places
    under its head, the last row saying which are shown; where it all fits, they choose
    a table as ever."""
    board = tuple(rated(f"player-{n}", n, 900 - 37 * n) for n in range(1, 21))
    async with open_lobby(rows, columns) as (screen, client, terminal):
        await terminal.press("l")
        client.ladder.take(m.Ratings(start=0, total=20, entries=board))
        text = await terminal.redraw()
        chosen = screen.cursor
        if rows < 20:
            assert "20 rated (rating = mu - 3 sigma)" in text, text
            assert re.search(r"places 1-(\d+) of 20 · ↑/↓ scroll", text), text
            assert "player-1 " in text and "player-20" not in text, text
            for _ in range(30):  # past the end: the last places show, and no further
                text = await terminal.press("j")
            shown = re.search(r"places (\d+)-20 of 20 · ↑/↓ scroll", text)
            assert shown is not None and int(shown[1]) > 1, text
            assert "player-20" in text and "player-1 " not in text, text
            assert re.search(r"  # rating  name +hands", text), text  # the head stays
            text = await terminal.press("k")
            assert f"places {int(shown[1]) - 1}-19 of 20" in text, text
            assert screen.cursor == chosen, "the keys scrolled the ladder, not the tables"
            await terminal.press("l")
            text = await terminal.press("l")  # shown again: from its top
            assert "places 1-" in text and "player-1 " in text, text
        else:
            assert "player-1 " in text and "player-20" in text and "scroll" not in text, text
            await terminal.press("j")
            assert screen.cursor == chosen + 1, "all of it fits: j chooses the next table"
    for line in text.split("\n"):
        assert len(line) <= columns


@pytest.mark.parametrize(("rows", "columns"), [(24, 80), (16, 60), (40, 120)])
async def test_chat_said_with_the_ladder_shown_is_sent(rows: int, columns: int) -> None:
    """A newcomer's pass at 80x24: `l` (the ladder in the tables' place), `c`, a line,
    enter: an exception ("Window does not appear in the layout": the tables' list was
    not there to be given the keys back) and the line never sent.  Esc the same."""
    async with open_lobby(rows, columns) as (_, client, terminal):
        await terminal.press("l")
        await terminal.press("c")
        await terminal.press("hello\r")
        await terminal.press("c")
        await terminal.press("x")
        await terminal.press("\x1b")
        text = await terminal.press("l")  # (the keys are the lobby's again)
        assert "tables" in text, text
    await asyncio.sleep(0)  # (the chat's send, a task of its own)
    said = [x for x in client.sent if isinstance(x, m.Chat)]
    assert [x.text for x in said] == ["hello"], client.sent


def test_a_ladder_pane_with_no_places_scrolls_nothing() -> None:
    """A review: a pane too short for the head alone ("asking the server ...") set its
    first place at -1, said "lines 0--1 of 0", and kept ↑/↓ from choosing tables."""
    from president.client.tui.ladder_view import LadderView

    view = LadderView(lambda width: ([("", "asking the server for its ladder ...")] * 3, [], []))
    content = view.create_content(40, 2)
    assert not view.cut and view.top == 0 and not view.scroll(1)
    assert all(
        "of 0" not in text for i in range(content.line_count) for _, text in content.get_line(i)
    )
    places = [("", f"place {n}") for n in range(5)]
    view = LadderView(lambda width: ([("", "head")] * 3, places, [("", "? not settled")]))
    view.create_content(60, 2)  # (a head taller than the pane: one place and the mark)
    assert view.cut and view.scroll(-1) and view.top == 0
    content = view.create_content(60, 2)
    mark = "places 1-1 of 5 · ↑/↓ scroll · ? not settled yet"  # (the foot in short)
    assert view.top == 0 and content.get_line(1) == [("class:dim", mark)]
    narrow = view.create_content(40, 2)  # (where it does not fit, the foot goes)
    assert narrow.get_line(1) == [("class:dim", "places 1-1 of 5 · ↑/↓ scroll")]


def test_president_stats_of_five_places_and_japanese_names_stays_under_80_columns() -> None:
    """A newcomer's pass: five places made rows of 83 columns ("5th" broke onto a line of
    its own at 80), and a Japanese name pushed its row's figures right (padded by
    characters)."""
    first = replace(rated("山田太郎", 1, 180), places=(1, 2, 3, 4, 5))
    second = replace(rated("player-number-2", 2, 150), places=(5, 4, 3, 2, 1))
    said = stats_lines("home", 2, [first, second])
    rows = said[2:]
    assert all(cells(line) <= 79 for line in rows), said
    assert rows[0].endswith(" 1st 2nd 3rd 4th 5th") and "sigma" not in rows[0], said
    assert cells(rows[1]) == cells(rows[2]) == cells(rows[0]), said  # (in line)


def test_president_stats_shows_every_row_with_as_many_places_as_the_longest() -> None:
    """A user pass read "3 3 4" as a player's places without the fourth's 0."""
    first = replace(rated("ann", 1, 180), places=(3, 3, 4))
    second = replace(rated("bob", 2, 150), places=(1, 2, 3, 4))
    said = stats_lines("home", 2, [first, second])
    rows = {line.split()[1]: line for line in said if line.split()[1:2] in (["ann"], ["bob"])}
    assert rows["ann"].endswith(" 3   3   4   0") and rows["bob"].endswith(" 1   2   3   4"), said
    assert said[2].endswith(" 1st 2nd 3rd 4th"), said  # (each place under its own)
    # its header in lines that fit 80 columns beside a server's long address (one of 110
    # broke mid-word at 100)
    said = stats_lines("president-night.example.lan:7766", 2, [first, second])
    assert said[:2] == [
        "Ladder of president-night.example.lan:7766: 2 players rated",
        "rating = mu - 3 sigma (OpenSkill, Plackett-Luce, updated every hand)",
    ]


def test_a_provisional_rating_is_marked_wherever_it_is_shown() -> None:
    """A player not yet established (version 11's `provisional`) is listed after every
    established one, so the ladder's order is not its ratings' order: its rating is
    marked `412?`, in the ladder (said under it), beside a seat, and in `president stats`
    (a newcomer pass read a frozen rating, and an order by a number it did not show)."""
    settled, newcomer = rated("ann", 1, 180), replace(rated("bob", 2, -192), provisional=True)
    screen = lobby_screen()
    screen.ladder.take(m.Ratings(start=0, total=2, entries=(settled, newcomer)))
    text = screen.ladder_lines(60)
    assert re.search(r"  1 +180  ann ", text[2]) and re.search(r"  2 +-192\?  bob ", text[3]), text
    assert text[-1] == "? not settled yet: listed after the settled ones" and len(text) == 5
    assert screen.ladder.rating("bob") == "-192?" and screen.ladder.rating("ann") == "180"
    assert rating_text(screen.ladder.rating("bob")) == "rating -192?"
    said = stats_lines("home", 2, [settled, newcomer])
    assert any(line.split()[:3] == ["2", "bob", "-192?"] for line in said), said
    assert said[-1].startswith("? provisional: not yet met by enough settled players")
    assert all(len(line) < 80 for line in said[:2] + said[-1:]), said
    assert not any("provisional" in line for line in stats_lines("home", 1, [settled]))
    only_settled = lobby_screen()
    only_settled.ladder.take(m.Ratings(start=0, total=1, entries=(settled,)))
    assert not any("?" in line for line in only_settled.ladder_lines(60))


@pytest.mark.parametrize(("rows", "columns"), [(20, 60), (24, 80), (30, 100), (40, 120)])
async def test_the_table_shows_each_seated_players_rating(rows: int, columns: int) -> None:
    """Labelled ("rating 400", not a bare "(400)") where there is room; names whole at
    every size here, the ratings going first on a narrow screen (issue 27).  The server
    bot's seat shows none, though the ladder has a player of its name (`president bot`
    names its bots as the server does: a newcomer pass saw another's rating there)."""
    async with open_table(mid_hand, rows, columns) as (table, terminal):
        await table.app.on_message(table.view())  # as the client hands it on
        await wait_for(lambda: table.client.sent)
        people = tuple(name for name in table.seating if not name.startswith("random-bot"))
        assert table.client.sent[-1] == m.Leaderboard(players=people)  # not the server bot
        names = tuple(table.seating)
        entries = tuple(rated(name, n, 500 - 100 * n) for n, name in enumerate(names, start=1))
        table.client.ladder.take(m.Ratings(start=0, total=4, entries=entries, players=names))
        text = await terminal.redraw()
        lines = text.split("\n")
        for name, entry in zip(names, entries):
            row = next((line for line in lines if re.search(rf"{name}\b.*\d+ ?c", line)), "")
            assert row, (name, text)  # the name whole
            if name not in people:
                assert "rating" not in row, row
            elif columns >= 80:
                assert re.search(rf"{name}( \(you\))? +rating {entry.rating} ", row), text
                assert re.search(r"\d+ cards? +\d+ pts?", row), row  # the numbers in words
        assert "(400)" not in text
        assert len(seat_rows(lines)) == len(names), text
        for line in lines:
            assert len(line) <= columns


async def test_a_server_bot_says_so_where_a_person_has_a_bots_name() -> None:
    """A hostile pass sat as heuristic-bot-2 beside the server's bots, alike on the table
    screen (and `president bot` names its own so): where a person has such a name, the
    server's bots say "server bot" where a person's rating stands; elsewhere nothing
    changes."""
    seating = (ME, "heuristic-bot-2", "cat", "random-bot-3")
    for people, marked in ((SEATING, False), (seating, True)):
        async with open_table(mid_hand, 24, 100, seating=people) as (_table, terminal):
            text = await terminal.redraw()
        bot = next(line for line in text.split("\n") if "random-bot-3 " in line and "pt" in line)
        assert ("server bot" in bot) is marked, text
        assert text.count("server bot") == (1 if marked else 0), text


def test_a_rating_and_the_cards_are_two_columns_apart_where_no_title_parts_them() -> None:
    """A newcomer's pass, a first hand at a server: "bob rating 757 11 cards" read as
    one figure; with titles, the title's column parts them."""
    rows = [SeatRow("bob", count=11, rating="rating 757"), SeatRow("ann", count=9)]
    bob = seat_lines(rows, 60)[0]
    assert "rating 757  11 cards" in bob, bob
    titled = seat_lines([replace(r, title="Scum") for r in rows], 60)[0]
    assert "rating 757 Scum 11 cards" in titled, titled


# --- labels and widths (issue 27) --------------------------------------------------------

#: Eight players, bots' names as `president bot` makes them, and a long one.
EIGHT = (
    ME,
    "heuristic-bot-1",
    "heuristic-bot-2",
    "bartholomew-the-patient-2",
    "cat",
    "random-bot-3",
    "search-bot-12",
    "dora",
)


@pytest.mark.parametrize(("rows", "columns"), [(24, 80), (30, 100), (40, 120)])
async def test_every_name_is_whole_at_80_columns_and_more(rows: int, columns: int) -> None:
    """At 100 columns the names were cut beside the log (`heurist…-bot-1`, `9c 1p`): the
    table goes beside the log only where its seats fit whole."""
    async with open_table(mid_hand, rows, columns, seating=EIGHT) as (table, terminal):
        entries = tuple(rated(name, n, 500 - 130 * n) for n, name in enumerate(EIGHT, start=1))
        table.client.ladder.take(m.Ratings(start=0, total=8, entries=entries, players=EIGHT))
        text = await terminal.redraw()
    assert "…" not in text.split("log")[0], text
    for name, entry in zip(EIGHT, entries):
        if name.startswith("random-bot"):  # (a server bot here: never rated)
            assert not re.search(rf"{name} +rating", text), text
            continue
        assert re.search(rf"{name}( \(you\))? +rating {entry.rating} ", text), (name, text)
    assert len(seat_rows(text.split("\n"))) == len(EIGHT), text
    assert not re.search(r"\d+c \d+p", text), text  # the numbers in words


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (24, 80), (40, 120)])
async def test_the_header_says_the_table_is_reconnecting(rows: int, columns: int) -> None:
    """docs/reliability.md: the header says `[... reconnecting (attempt N)]`; on a narrow
    screen it was the first part to go."""
    async with open_table(mid_hand, rows, columns) as (table, terminal):
        table.app.status("server restarting — reconnecting (attempt 3)")
        text = await terminal.redraw()
        header = terminal.lines()[0]
        assert re.search(r"\[(server restarting — )?reconnecting \((attempt )?3\)\]", header), text
        if columns >= 120:
            assert "[server restarting — reconnecting (attempt 3)]" in header
        pens = {
            terminal.screen.pens[0][column].fg
            for column, char in enumerate(terminal.screen.cells[0])
            if header.index("[") <= column < header.index("]")
        }
        assert pens == {"33"}, pens  # the message's colour (dark theme: yellow)
        table.app.status("reconnected")
        text = await terminal.redraw()
        assert "[connected]" in terminal.lines()[0] or columns < 80, text
        assert "reconnecting" not in terminal.lines()[0], text


async def test_the_log_says_who_sat_down_and_who_left_the_table() -> None:
    """A newcomer's pass: nothing at the table said who had sat down (only the seats
    changed).  Not on the first view (the seats show who is there); a few a hand."""
    async with open_table(before_the_game, 24, 80) as (table, terminal):
        everyone = table.seating
        table.seating = everyone[:-1]  # the last chair empty
        table.deliver(table.view("waiting"))
        text = await terminal.redraw()
        assert f"— {everyone[-1]} left the table —" in text, text
        table.seating = everyone
        table.deliver(table.view("waiting"))
        text = await terminal.redraw()
        assert f"— {everyone[-1]} sat down —" in text, text
        assert f"{ME} sat down" not in text, text
        for _ in range(10):  # sitting down and leaving again and again: a few lines
            table.seating = everyone[:-1]
            table.deliver(table.view("waiting"))
            table.seating = everyone
            table.deliver(table.view("waiting"))
        text = await terminal.redraw()
        said = [x for _, _, x in table.app.screen.stream if "sat down" in x or "left the" in x]
        assert len(said) == 6 and "(no more of these this hand)" in said[-1], said


async def test_the_log_says_when_another_player_goes_away_and_comes_back() -> None:
    """A host's pass: bob's client killed mid-hand, and ann's log said nothing, then or
    when he came back; only the seat's "away" and the header's clock told it."""
    async with open_table(mid_hand, 30, 100) as (table, terminal):
        text = await terminal.redraw()
        assert "is away" not in text and "is back" not in text, text  # (cat was away before)
        bob = SEATING[1]
        table.away.add(bob)
        table.deliver(table.view())
        text = await terminal.redraw()
        assert f"— {bob} is away —" in text, text
        table.away.discard(bob)
        table.deliver(table.view())
        text = await terminal.redraw()
        assert f"— {bob} is back —" in text and "cat is" not in text, text
        table.away.add(ME)  # (my own connection: the header says it, not the log)
        table.deliver(table.view())
        assert f"{ME} is away" not in await terminal.redraw()
        # a connection dropped and made again over and over: a few lines a hand, no more
        for _ in range(50):
            for change in (table.away.add, table.away.discard):
                change(bob)
                table.deliver(table.view())
        told = [line for line in table.app.screen.log if line.startswith(f"— {bob} is ")]
        assert len(told) == PRESENCE_LINES, told
        # the last says the log stops there (a hostile pass: it said "back" while he was
        # away, his next drop untold), and the seats go on saying it
        assert told[-1].endswith("(no more of these this hand: the seats show it)"), told
        assert all(line.endswith(" —") for line in told[:-1]), told
        table.away.add(bob)
        table.deliver(table.view())
        text = await terminal.redraw()  # (his seat's row, not a line of the log)
        assert any(bob in row and "away" in row and "—" not in row for row in text.splitlines())


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (24, 80), (40, 120)])
async def test_a_long_table_name_stays_in_the_header_while_reconnecting(
    rows: int, columns: int
) -> None:
    """A players' pass: while reconnecting, a long table name went from the header
    before the hand and its phase did (the state takes the room).  It is cut in the
    middle instead, its start and end kept, as a seat's name is."""
    name = "Alexandria-Longname's table"

    def long_named(table: Table) -> None:
        table.name = name
        mid_hand(table)

    async with open_table(long_named, rows, columns) as (table, terminal):
        table.app.status("server restarting — reconnecting (attempt 3)")
        text = await terminal.redraw()
        header = terminal.lines()[0]
        assert "reconnecting" in header and "hand 2 · play" in header, text
        shown = header.split(" · ")[0].strip()
        cut = shown.startswith("Alexandri") and "…" in shown and shown.endswith("'s table")
        assert shown == name or cut, header


async def test_at_60_columns_the_header_keeps_the_preset_where_it_fits() -> None:
    """A newcomer's pass at 60x16: the header dropped the preset (" local · hand 1 ·
    play") with room for it to spare; it is measured as it is drawn now."""
    async with open_table(mid_hand, 16, 60) as (table, terminal):
        table.name = "local"
        table.deliver(table.view())
        await terminal.redraw()
    header = terminal.lines()[0]
    assert header.startswith(" local · classic+ · hand 2 · play"), header
    assert header.rstrip().endswith("[connected]  ? for help") and len(header.rstrip()) <= 59
    # who watches goes before the preset (a pass: the preset went first, the count
    # stayed), after "[connected]" (README: the header counts who watches; at 80 columns
    # with a clock a newcomer's pass saw no count)
    async with open_table(mid_hand, 16, 60) as (table, terminal):
        table.name, table.watching = "local", ("dan",)
        table.deliver(table.view())
        await terminal.redraw()
    header = terminal.lines()[0]
    assert header.startswith(" local · classic+ · hand 2 · play · 1 watching"), header
    assert "[connected]" not in header, header
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        table.name, table.watching, table.deadline_ms = "friday", ("dan",), 60_000
        table.deliver(table.view())
        await terminal.redraw()
    header = terminal.lines()[0]
    assert header.startswith(" friday · classic+ · hand 2 · play · ⏱ "), header
    assert "· 1 watching" in header and header.rstrip().endswith("? for help"), header


async def test_a_long_table_name_in_the_create_form_keeps_its_words_apart() -> None:
    """A user pass (80x24, a creator named with 30 characters): the suggested name ran on
    into its words, "...Player-001's table type one to rep".  A value longer than its
    column has its words on the lines under it."""
    me = "Alexandria-Longname-Player-001"
    async with a_lobby(me, 24, 80) as terminal:
        text = await terminal.press("n")
    lines = [line.strip("│┌┐└┘ ") for line in text.split("\n")]
    at = next(i for i, line in enumerate(lines) if line.startswith("▶ table name"))
    assert lines[at].endswith(f"{me}'s table"), lines[at]
    assert lines[at + 1].strip() == "type one to replace it", lines[at : at + 2]


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (24, 80)])
async def test_the_create_forms_words_are_never_cut(rows: int, columns: int) -> None:
    """At 60 columns a toggle's words were cut at the frame ("suggested for 4 …"): a
    row shows its words whole (wrapped under their column where there is room) or not at
    all, and the focused row's are in full under the rows."""
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        screen = lobby_screen()
        lobby = LobbyApp(FakeClient(TableModel(me=ME)), screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
        await terminal.start(lobby.app)
        text = await terminal.press("n")
        form = screen.form
        assert form is not None
        for _ in range(12):
            inside = [line.strip("│┌┐└┘ ") for line in text.split("\n")[2:-2]]
            assert not any(line.endswith("…") for line in inside), text
            label, _, words = form.rows()[form.row]
            flat = " ".join(re.sub("[│┌┐└┘]", " ", text).split())
            assert f"{label}: {words}" in flat, (label, words, text)
            text = await terminal.press("\x1b[B")
        await terminal.stop()


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (20, 60), (24, 80), (16, 120), (40, 120)])
@pytest.mark.parametrize(
    "players",
    # 3, 5 and 8 in the fast tier; the rest in the acceptance tier
    [3, pytest.param(4, marks=pytest.mark.slow), 5]
    + [pytest.param(n, marks=pytest.mark.slow) for n in (6, 7)]
    + [8],
)
@pytest.mark.parametrize("name", ["before", "mid-hand", "exchange"])
async def test_every_seat_is_on_the_screen_from_60x16(
    rows: int, columns: int, players: int, name: str
) -> None:
    """At 60x20 seat 7 was missing and at 60x16 only 3 of 8 seats showed (issue 27): on
    a short screen the seats go in compact columns, the log down to a line."""
    seating = EIGHT[:players]
    async with open_table(SITUATIONS[name], rows, columns, seating=seating) as (_, terminal):
        text = await terminal.redraw()
    assert "Window too small" not in text, text
    # the table's frame: above the log (or beside it, left of it)
    panel = "\n".join(line.split("││")[0] for line in text.split("your hand")[0].split("\n"))
    if name != "before":
        panel = panel.split("pile")[0]
    for player in seating:  # (a compact cell may cut a name in the middle)
        assert player in panel or (player[:5] in panel and player[-1] in panel), (player, text)
    if name == "before":
        assert panel.count("ready") == players, text
    else:
        assert len(re.findall(r"\d+(?: cards?|c) +\d+(?: pts?|p)", panel)) == players, text
    for line in text.split("\n"):
        assert len(line) <= columns


@pytest.mark.parametrize(("rows", "columns"), [(10, 40), (15, 80), (24, 59)])
async def test_a_terminal_too_small_is_told_how_big_it_must_be(rows: int, columns: int) -> None:
    """prompt_toolkit's "Window too small..." said neither the size needed nor what to do
    (a newcomer at 40x10); the screens are made for 60x16 and more."""
    async with open_table(mid_hand, rows, columns) as (_, terminal):
        text = " ".join((await terminal.redraw()).split())
    assert "Window too small" not in text
    assert (
        f"president needs a terminal of at least 60x16; this one is {columns}x{rows}: make it "
        "bigger (the game goes on" in text
    ), text


def my_turn(table: Table) -> None:
    """Hand 1, the play, and the turn mine."""
    table.deal()
    me = table.game.seating.index(ME)
    table.until(lambda: table.phase() is Phase.PLAY and table.game.public_view().turn == me)


async def test_a_terminal_too_small_says_it_is_your_turn_and_takes_no_unseen_key() -> None:
    """A terminal pass: at 45x12 on its turn `p` passed, unseen, and the turn timer ran
    out while the screen said only "the game goes on"."""
    async with open_table(my_turn, 15, 59) as (table, terminal):
        text = " ".join((await terminal.redraw()).split())
        assert "(the game goes on; it is your turn)" in text, text
        await terminal.press("p")
        await terminal.press("q")
        assert table.client.sent == []  # (drawn, the same keys act: every test here)
        await terminal.left("\x03")  # (Ctrl-C still quits)


@contextlib.asynccontextmanager
async def a_lobby(
    me: str, rows: int, columns: int, tables: tuple[m.TableInfo, ...] = ()
) -> AsyncIterator[AppTerminal]:
    """The lobby of `me` on a server listing `tables`, in a terminal of this size."""
    with create_pipe_input() as keys:
        terminal = AppTerminal(rows, columns, keys)
        screen = LobbyScreen(
            me=me, server="president", address="127.0.0.1:7766", fingerprint="9f" * 32
        )
        screen.record(m.Tables(tables=tables))
        lobby = LobbyApp(FakeClient(TableModel(me=me)), screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
        await terminal.start(lobby.app)
        try:
            yield terminal
        finally:
            await terminal.stop()


LONG_NAMES = (
    "Maximilianus-Longname-the-Third",
    "Bartholomew-of-the-Long-Road",
    "Cassiopeia-Starlight-Wanderer",
    "bot:heuristic",
)


@pytest.mark.parametrize(("rows", "columns"), [(16, 60), (24, 80), (16, 100), (40, 120)])
async def test_the_lobby_shows_who_sits_first_and_says_when_the_panel_is_cut(
    rows: int, columns: int
) -> None:
    """A user pass: four long names at a table, and the panel showed seat 1 alone (60x16,
    100x16), the others cut off with no word of them; at 80x24 a name broke over two
    lines and "2:" stood on a line of its own.  Now the seats come before the settings,
    a seat is one line (a long name cut in the middle), and a panel too short for it all
    ends by saying how many lines more there are."""
    tables = (a_table("friday", "playing", LONG_NAMES), a_table("t2", "waiting", ("bob", "")))
    async with a_lobby(ME, rows, columns, tables) as terminal:
        text = terminal.screen.text()
    top = next(i for i, line in enumerate(text.split("\n")) if "| table |" in line)
    left = text.split("\n")[top].rindex("┌", 0, text.split("\n")[top].index("| table |"))
    panel = [line[left + 1 :].split("│")[0] for line in text.split("\n")[top + 1 :]]
    panel = panel[: next(i for i, line in enumerate(panel) if line.startswith("─"))]
    assert panel[0].startswith("seats: 1: Maxi" if columns < 80 else "friday — playing"), panel
    if columns >= 80:
        assert panel[1].strip() == "seats:", panel
        for seat, name in enumerate(LONG_NAMES, 1):  # each seat one line, its name's ends
            line = panel[1 + seat].strip()
            assert line.startswith(f"{seat}: {name[:8]}") and line.endswith(name[-6:]), panel
    shown = "\n".join(panel)
    if rows < 24:
        assert re.search(r"… \d+ more lines: a taller window shows them", panel[-1]), panel
    else:
        assert "more line" not in shown and "open to anyone" in shown, panel


async def test_the_lobby_header_keeps_a_long_name_told_apart_at_60_columns() -> None:
    """A user pass: at 60x16 the header said "president — you are…", the name gone."""
    async with a_lobby("Bartholomew-of-the-Long-Road", 16, 60) as terminal:
        head = terminal.screen.text().split("\n")[0]
    assert re.search(r"you are Bartho[\w-]*…[\w-]*Road +\[connected\]", head), head
    assert len(head) <= 60


def test_the_lobbys_list_keeps_its_columns_for_names_and_statuses_of_any_width() -> None:
    """A newcomer's pass at 80x24: a Japanese table's name pushed its row's facts four
    columns right, and a "finished" table's preset stood a column left of a "playing"
    one's where names were cut."""
    screen = LobbyScreen(me="ann")
    names = ("山田太郎の大富豪テーブル歓迎", "friday night at the long table", "土曜日")
    tables = [
        a_table(n, st, ("ann", "")) for n, st in zip(names, ("playing", "finished", "waiting"))
    ]
    screen.record(m.Tables(tables=tuple(tables)))
    for width in (40, 50, 80):
        lines = [screen.line(t, width) for t in tables]
        assert len({cells(line[: line.index("classic")]) for line in lines}) == 1, lines
        assert all(cells(line) <= width for line in lines), lines


def test_a_long_table_name_in_the_lobbys_panel_is_cut_not_broken_mid_word() -> None:
    """A user pass at 80x24: the panel's first line broke the table's name in a word,
    "Bartholomew-Featherstonehaug" / "h-X's table — waiting"."""
    screen = LobbyScreen(me="ann")
    name = "Bartholomew-Featherstonehaugh-X's table"
    screen.record(m.Tables(tables=(a_table(name, "waiting", ("ann", "")),)))
    first = screen.details(28)[0]
    assert len(first) <= 28 and first.endswith("'s table — waiting") and "…" in first, first
    assert screen.details()[0] == f"{name} — waiting"  # (a width not given: whole)


def test_a_seat_in_the_lobbys_details_leaves_its_rating_out_rather_than_wrap() -> None:
    """At 80x24 the panel beside the list is 28 columns: "2: heuristic-bot-1  rating"
    wrapped its number onto a line of its own (a newcomer pass)."""
    screen = lobby_screen()
    screen.record(m.Tables(tables=(a_table("t", "waiting", ("bob", "heuristic-bot-1", "")),)))
    screen.ladder.take(
        m.Ratings(
            start=0,
            total=2,
            entries=(rated("bob", 1, 412), rated("heuristic-bot-1", 2, 230)),
            players=("bob", "heuristic-bot-1"),
        )
    )
    wide = screen.details()
    assert "  1: bob  rating 412" in wide and "  2: heuristic-bot-1  rating 230" in wide
    narrow = screen.details(28)
    assert "  1: bob  rating 412" in narrow and "  2: heuristic-bot-1" in narrow  # the name whole
    assert all(len(line) <= 28 for line in narrow if line.startswith("  ")), narrow


async def test_a_message_goes_after_its_seconds_but_the_coachs_stays_until_a_key() -> None:
    """The newcomer pass: the coach's answer went after 5 s like any message, so a slow
    reader saw nothing; an answer asked for stays until the next key."""
    from president.client.tui.app import MESSAGE_SECONDS

    async with open_table(mid_hand, 24, 80) as (table, _terminal):
        app, screen, now = table.app, table.app.screen, [0.0]
        app.clock = lambda: now[0]
        screen.message = "it is not your turn"
        app.before_render()
        now[0] += MESSAGE_SECONDS + 0.5
        app.before_render()
        assert screen.message == ""  # an ordinary message went
        screen.message = screen.kept_message = "coach: pass, expected place 2.5"
        app.before_render()
        now[0] += 10 * MESSAGE_SECONDS
        app.before_render()
        assert screen.message == "coach: pass, expected place 2.5"  # still there
        app.key_pressed()
        assert screen.message == "" and screen.kept_message == ""


async def test_a_game_over_says_no_order_in_force() -> None:
    """A newcomer saw REVOLUTION in the header after the game was over."""
    async with open_table(game_over, 24, 80) as (table, _):
        model = table.client.model
        seating = model.public.seating if model.public is not None else SEATING
        for phase, shown in ((Phase.PLAY, True), (Phase.GAME_OVER, False)):
            model.public = a_public_view(seating, phase=phase, revolution=True, jack_back=True)
            header = "".join(fragment[1] for fragment in table.app._header())
            assert ("REVOLUTION" in header) is shown and ("JACK BACK" in header) is shown, header


async def test_a_narrow_lobby_keeps_each_seat_on_one_line() -> None:
    """At 60 columns the chosen table's seats are one wrapped line: a seat's number and
    its player stay together (a user saw "3:" end one line, "bot:heuristic" begin the
    next)."""
    players = ("annabelle-lee", "bot:heuristic", "bot:heuristic", "christopher")
    screen = LobbyScreen(me=ME, server="s", address="192.168.1.20:7766", fingerprint="9f" * 32)
    screen.record(m.Tables(tables=(a_table("friday", "waiting", players),)))
    with create_pipe_input() as keys:
        terminal = AppTerminal(16, 60, keys)
        lobby = LobbyApp(FakeClient(TableModel(me=ME)), screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
        await terminal.start(lobby.app)
        text = terminal.screen.text()
        await terminal.stop()
    for seat, player in enumerate(players, 1):
        assert re.search(rf"\b{seat}: {player}\b", text), text


@pytest.mark.parametrize("theme", ["dark", "light", "neutral"])
def test_an_ordinary_message_is_not_drawn_in_the_red_of_a_mistake(theme: str) -> None:
    # a suggestion, the coach, a seat waiting: said in the red of the red suits and of a
    # review's mistakes, they read as errors (light drew them fg:ansired)
    from president.client.tui.theme import _PALETTES

    palette = _PALETTES[theme]
    colour = lambda style: [p for p in style.split() if p.startswith("fg:")]  # noqa: E731
    assert colour(palette["message"]) != colour(palette["mistake"]), palette
    assert colour(palette["message"]) != colour(palette["red"]), palette


async def test_a_full_table_is_said_full_before_its_password_is_asked() -> None:
    """A host's pass typed a table's password to be told "every seat at friday is
    taken": the lobby knows it is full, and says so first (w still watches: asked the
    password)."""
    players = ("ann", "bob", "cat", "bot:heuristic")

    async def lobby_of(
        me: str, table: m.TableInfo, keys_pressed: str
    ) -> tuple[list[str], FakeClient]:
        """The screen after each key, `me` in a lobby of `table` alone."""
        screen = LobbyScreen(me=me, server="s", address="192.168.1.20:7766", fingerprint="9f" * 32)
        screen.record(m.Tables(tables=(table,)))
        client = FakeClient(TableModel(me=me))
        with create_pipe_input() as keys:
            terminal = AppTerminal(24, 80, keys)
            lobby = LobbyApp(client, screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
            await terminal.start(lobby.app)
            texts = [await terminal.press(key) for key in keys_pressed]
            await terminal.stop()
        return texts, client

    texts, client = await lobby_of("dan", a_table("fridays", "playing", players), "\rw")  # (locked)
    assert "every seat at fridays is taken: w watches" in texts[0], texts[0]
    assert "password for" not in texts[0]
    assert "password for fridays" in texts[1], texts[1]
    assert client.sent == []  # (nothing after either key: sent only grows)
    # a chair of one's own name, the server may give back by key (a finished table's
    # too, whose seats the next game takes): asked for, not refused here (a review)
    texts, client = await lobby_of("ann", a_table("friday", "finished", players), "\r")
    assert "is taken" not in texts[0] and client.sent == [m.Join(table="friday")], texts[0]
    # q asks once, on the line at the foot (a game-night pass's q q from a table quit)
    texts, client = await lobby_of("ann", a_table("friday", "finished", players), "q")
    assert "press q again to quit president connect" in texts[0], texts[0]


async def test_v_in_the_lobby_waits_for_the_end_of_a_game_left_under_way() -> None:
    """A hostile pass: `v` in the lobby, the game left still on, opened the table's
    previous game (the last that ended there, all the server sends) as "your game at
    T".  While the lobby lists it playing, it says so and asks nothing."""
    for status, asked in (("playing", []), ("finished", [m.RecordAsk(table="T")])):
        screen = LobbyScreen(me="ann", server="s", address="192.168.1.20:7766")
        screen.record(m.Tables(tables=(a_table("T", status, ("ann", "bob", "cat")),)))
        screen.last_game, screen.left_under_way = "T", True
        client = FakeClient(TableModel(me="ann"))
        with create_pipe_input() as keys:
            terminal = AppTerminal(24, 80, keys)
            lobby = LobbyApp(client, screen, input=keys, output=terminal.output)  # type: ignore[arg-type]
            await terminal.start(lobby.app)
            text = " ".join((await terminal.press("v")).split())
            await wait_for(lambda c=client, a=asked: c.sent == a)  # type: ignore[misc]
            await terminal.stop()
        assert client.sent == asked, (status, client.sent)
        said = "the game you left at T is still on: v opens its review once it is over"
        assert (said in text) is (status == "playing"), text


async def test_the_clock_goes_from_the_header_once_the_connection_is_gone_for_good() -> None:
    """A host's pass: the window whose seat was taken back from another counted down a
    turn it no longer played."""
    async with open_table(mid_hand, 24, 80) as (table, _terminal):
        screen = table.app.screen
        screen.seconds_left = lambda: 30  # type: ignore[method-assign]

        def header() -> str:
            return "".join(fragment[1] for fragment in table.app._header())

        assert "⏱ 30s" in header()
        screen.connection = "connection lost — reconnecting (attempt 1)"
        assert "⏱ 30s" in header()  # (a drop for a moment: the turn still runs)
        screen.connection = "disconnected"
        assert "⏱" not in header(), header()
        # (a server restarting charges nobody the wait: its clock stands still, and
        # counting down here said the turn was running out, a host's pass)
        screen.connection = "server restarting — reconnecting (attempt 3)"
        assert "⏱" not in header(), header()


async def test_the_lobbys_refusal_goes_after_a_while() -> None:
    """A recheck read "try again in 11 s" on the lobby's line minutes after the wait was
    over: the server's refusal goes after 20 s; the lobby's own words stay."""
    now = [1000.0]
    with create_pipe_input() as keys:
        terminal = AppTerminal(24, 80, keys)
        screen = LobbyScreen(me="ann", server="president", address="127.0.0.1:7766")
        lobby = LobbyApp(
            FakeClient(TableModel(me="ann")), screen, input=keys, output=terminal.output
        )  # type: ignore[arg-type]
        lobby.clock = lambda: now[0]
        await terminal.start(lobby.app)
        try:
            refusal = "a chair at T was just freed ...; try again in 11 s"
            screen.record(m.Error(code="not_allowed", message=refusal, about="join"))
            assert refusal in await terminal.redraw()
            now[0] += 19
            assert refusal in await terminal.redraw()
            now[0] += 2
            await terminal.redraw()
            assert refusal not in await terminal.redraw()
            screen.message = "your seat at T is waiting: enter takes you back"
            await terminal.redraw()
            now[0] += 60
            assert "your seat at T is waiting" in await terminal.redraw()
        finally:
            await terminal.stop()


async def test_a_paused_table_says_so_until_it_goes_on_and_shows_no_clock() -> None:
    """A host's pass filled the server's disk: the table paused, the line said so for a
    few seconds and went, and the header's clock ran down to 0s on a table that looked
    hung.  Now the log says it, the header says PAUSED in place of the clock, and both
    say when the table goes on."""
    async with open_table(mid_hand, 24, 80) as (table, terminal):
        screen = table.app.screen
        pause = "the server cannot write its journal (disk full?); the table is paused"
        table.deliver(m.Error(code="server_error", message=pause))
        text = await terminal.redraw()
        assert screen.paused and "PAUSED" in text and "⏱" not in text, text
        assert f"— {pause} —" in screen.log
        table.deliver(m.Error(code="server_error", message=pause))  # (said once)
        assert screen.log.count(f"— {pause} —") == 1
        table.step()  # (what it held back comes)
        text = await terminal.redraw()
        assert not screen.paused and "PAUSED" not in text, text
        assert screen.log[-1] != f"— {pause} —" and any("goes on" in line for line in screen.log)


def test_the_rules_page_says_each_house_rule_and_how_a_joker_is_written() -> None:
    """`?`'s last pages under daifugo (a newcomer's pass: a pair of 8s on a single ace
    surprised, and "you gave JK" said nothing)."""
    from president.client.model import TableModel
    from president.client.tui.table import TableScreen

    model = TableModel(me="ann")
    chair = m.Chair(name="ann", bot="", connected=True, ready=False)
    model.see(
        m.TableView(
            table="T",
            number=0,
            status="waiting",
            rules={"preset": "daifugo"},
            chairs=(chair, *[m.Chair(name="", bot="", connected=False, ready=False)] * 3),
            turn_deadline_ms=0,
        )
    )
    lines = TableScreen(model).rules_help(56)
    text = "\n".join(lines)
    assert lines[1] == " the rules here: daifugo", lines
    assert "a set of 8s may be played on any pile and clears it" in " ".join(text.split())
    assert "1 joker per deck (written JK)" in text, text
    assert all(len(line) <= 56 for line in lines), lines

"""The table screen in prompt_toolkit: a layout of callables that read `TableScreen`,
key bindings from `create_key_bindings`, input and output injectable for tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from president.engine import PASS, Action
from president.protocol import messages as m
from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame, TextArea

from ..connection import Client, Link
from .table import TableScreen, card_text
from .theme import card_style, style_for

STYLE = style_for("dark")

HELP = """\
 keys
 ←/→  h/l    move along your hand
 space        choose / unchoose the card (or click it)
 enter        play the chosen cards (in the exchange: return them)
 s            choose the cheapest legal play for you
 p            pass
 r            ready / not ready (before a game starts)
 b            add a bot to an empty seat (before a game starts)
 esc          clear the choice (after a game: show the table)
 c            chat to the table (enter sends, esc cancels)
 ?            this help (any key closes it)
 q            leave the table (asks again while a game is on)
 ctrl-c       leave at once
"""


LEAVE_AGAIN = (
    "a game is on: press q again to leave (the timeout rule plays your seat to the hand's end)"
)


class TableApp:
    """The application around one `Client` at one table."""

    def __init__(
        self,
        client: Client,
        *,
        input: Input | None = None,
        output: Output | None = None,
        bots: str = "random",
    ) -> None:
        self.client = client
        self.screen = TableScreen(client.model)
        self.bots = bots
        self.chat = TextArea(height=1, prompt="say: ", multiline=False)
        self.chatting = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=create_key_bindings(self),
            style=STYLE,
            full_screen=True,
            mouse_support=True,
            refresh_interval=0.5,
            input=input,
            output=output,
        )
        client.on_message = self.on_message

    async def on_message(self, message: m.Message) -> None:
        self.screen.record(message)
        if message is self.client.seat_lost and self.app.is_running and not self.app.is_done:
            self.app.exit()  # the seat was not given back: the lobby says why
        self.app.invalidate()

    async def network(
        self, reconnect: Callable[[], Awaitable[Link]] | None = None, retry_seconds: float = 1.0
    ) -> None:
        """Read from the server for as long as the screen is up; after a drop, take the
        seat back with its token by itself (see `Client.follow`)."""
        if reconnect is not None:
            self.client.reconnect = reconnect
        await self.client.follow(self.status, retry_seconds)

    def status(self, what: str) -> None:
        """The connection's state, shown in the header."""
        if what == "reconnected":
            self.screen.connection = "connected"
            self.screen.message = "reconnected to your seat"
        else:
            self.screen.connection = what
        self.app.invalidate()

    def spawn(self, coro: Awaitable[None]) -> None:
        """Run a send in the background, keeping the task alive until it is done."""
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.screen.message = f"not sent: {task.exception()}"
            self.app.invalidate()

    async def send(self, action: Action) -> None:
        try:
            await self.client.act(action)
        except (ConnectionError, OSError):
            self.screen.message = "not sent: the connection is down"

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> Layout:
        screen = self.screen
        header = Window(FormattedTextControl(self._header), height=1)
        seats = Frame(Window(FormattedTextControl(self._seats)), title="table")
        pile = Frame(Window(FormattedTextControl(self._pile)), title="pile")
        log = Frame(Window(FormattedTextControl(self._log), wrap_lines=True), title="log")
        self.hand_window = Window(
            FormattedTextControl(self._hand, focusable=True), height=2, wrap_lines=True
        )
        hand = Frame(self.hand_window, title="your hand")
        status = Window(FormattedTextControl(self._status), height=1)
        chat = ConditionalContainer(self.chat, filter=Condition(lambda: self.chatting))
        body = HSplit([header, VSplit([HSplit([seats, pile]), log]), hand, chat, status])
        help_box = Frame(Window(FormattedTextControl(HELP), width=70, height=12), title="help")
        final = Frame(
            Window(FormattedTextControl(self._standings)),
            title="final standings",
        )
        standings = Condition(lambda: screen.game_over() and not screen.standings_hidden)
        return Layout(
            FloatContainer(
                body,
                floats=[
                    Float(ConditionalContainer(help_box, filter=Condition(lambda: screen.help))),
                    Float(ConditionalContainer(final, filter=standings)),
                ],
            ),
            focused_element=self.hand_window,
        )

    def _header(self) -> StyleAndTextTuples:
        view, public = self.client.model.view, self.client.model.public
        if view is None:
            return [("class:title", " president — waiting for the table ...")]
        rules = f"{view.rules.get('preset', '')}{'+' if len(view.rules) > 1 else ''}"
        hand = f"hand {public.hand_number + 1}" if public is not None else "not started"
        phase = public.phase.value.replace("_", " ") if public is not None else view.status
        extra = "  REVOLUTION" if public is not None and public.revolution else ""
        left = self.screen.seconds_left()
        timer = f"  ⏱ {left}s" if left is not None else ""
        return [
            ("class:title", f" {view.table}  ·  {rules}  ·  {hand}  ·  {phase}{extra}{timer}"),
            ("class:dim", f"   [{self.screen.connection}]  ? for help"),
        ]

    def _seats(self) -> StyleAndTextTuples:
        model = self.client.model
        view, public = model.view, model.public
        if view is None:
            return []
        out: StyleAndTextTuples = []
        if public is None:
            for seat, chair in enumerate(view.chairs):
                if not chair.name:
                    out.append(("class:dim", f"  seat {seat}: empty\n"))
                    continue
                me = " (you)" if chair.name == model.me else ""
                who = f"bot:{chair.bot}" if chair.bot else chair.name
                ready = "ready" if chair.ready else "not ready"
                out.append(("class:turn" if chair.ready else "", f"  {who}{me}: {ready}\n"))
            return out
        connected = {chair.name: chair.connected for chair in view.chairs}
        titles = public.titles()
        scores = dict(public.scores)
        owing = {seat for seat, _ in public.owed}
        for seat, name in enumerate(public.seating):
            turn = public.turn == seat or seat in owing
            mark = "▶ " if turn else "  "
            me = " (you)" if name == model.me else ""
            flags = " passed" if public.passed[seat] or public.locked[seat] else ""
            flags += "" if connected.get(name, False) else " away"
            title = f" {titles[name]}" if name in titles else ""
            style = "class:turn" if turn else ""
            out.append(
                (
                    style,
                    f"{mark}{name}{me}{title}: {public.counts[seat]} cards, {scores[name]} pts{flags}\n",
                )
            )
        return out

    def _pile(self) -> StyleAndTextTuples:
        public = self.client.model.public
        if public is None or not public.trick:
            return [("class:dim", "empty: the next play leads")]
        seat, play = public.trick[-1]
        out: StyleAndTextTuples = [("", f"{self.screen.name_of(seat)}: ")]
        for card in play.cards:
            out.append((card_style(card), card_text(card) + " "))
        return out

    def _log(self) -> StyleAndTextTuples:
        lines = [*self.screen.summary, ""] if self.screen.summary else []
        if self.client.model.public is None:
            lines += self.screen.rules_lines()
        lines += self.screen.log[-14:]
        deal = self.screen.deal_line()
        swap = self.screen.exchange_line
        return [
            ("class:message", (swap + "\n") if swap else ""),
            ("", "\n".join(lines)),
            ("class:dim", ("\n" + deal) if deal else ""),
        ]

    def _standings(self) -> str:
        columns = self.app.output.get_size().columns
        return "\n".join(self.screen.standings(max(30, min(60, columns - 4))))

    def _hand(self) -> StyleAndTextTuples:
        screen = self.screen
        legal = screen.legal_ranks()
        out: StyleAndTextTuples = []
        for index, card in enumerate(screen.hand()):
            style = card_style(card)
            if card.rank in legal:
                style += " class:legal"
            if index in screen.selected:
                style += " class:selected"
            if index == screen.cursor:
                out.append(("class:cursor", "["))
            else:
                out.append(("", " "))
            out.append((style, card_text(card), self._clicker(index)))
            out.append(("class:cursor", "]") if index == screen.cursor else ("", " "))
        if not out:
            watching = self.client.model.slot is None
            out.append(
                ("class:dim", "you are watching: every hand is private" if watching else "no cards")
            )
        return out

    def _clicker(self, index: int) -> Callable[[MouseEvent], None]:
        def click(event: MouseEvent) -> None:
            if event.event_type == MouseEventType.MOUSE_UP:
                self.screen.toggle(index)
                self.app.invalidate()

        return click

    def _status(self) -> StyleAndTextTuples:
        return [self.screen.status_line()]


def create_key_bindings(table: TableApp) -> KeyBindings:
    """Every key of the table screen (the help overlay lists them)."""
    kb = KeyBindings()
    screen = table.screen
    playing = Condition(lambda: not table.chatting)

    def later(coro: Awaitable[None]) -> None:
        table.spawn(coro)

    @kb.add("?", filter=playing)
    def _help(event: KeyPressEvent) -> None:
        screen.help = not screen.help

    @kb.add("<any>", filter=Condition(lambda: screen.help))
    def _close_help(event: KeyPressEvent) -> None:
        screen.help = False

    @kb.add("left", filter=playing)
    @kb.add("h", filter=playing)
    def _left(event: KeyPressEvent) -> None:
        screen.move(-1)

    @kb.add("right", filter=playing)
    @kb.add("l", filter=playing)
    def _right(event: KeyPressEvent) -> None:
        screen.move(1)

    @kb.add("space", filter=playing)
    def _toggle(event: KeyPressEvent) -> None:
        screen.toggle()

    @kb.add("escape", filter=playing)
    def _clear(event: KeyPressEvent) -> None:
        screen.clear()
        screen.message = ""
        screen.standings_hidden = screen.game_over()  # the table under the final standings

    @kb.add("s", filter=playing)
    def _suggest(event: KeyPressEvent) -> None:
        screen.select_lowest()

    @kb.add("enter", filter=playing)
    def _play(event: KeyPressEvent) -> None:
        action = screen.action()
        if action is not None:
            later(table.send(action))

    @kb.add("p", filter=playing)
    def _pass(event: KeyPressEvent) -> None:
        problem = screen.pass_problem()
        if problem:
            screen.message = problem
        else:
            screen.clear()
            screen.message = ""
            later(table.send(PASS))

    @kb.add("c", filter=playing)
    def _chat(event: KeyPressEvent) -> None:
        table.chatting = True
        event.app.layout.focus(table.chat)

    @kb.add("enter", filter=Condition(lambda: table.chatting))
    def _say(event: KeyPressEvent) -> None:
        text = table.chat.text.strip()[:500]
        table.chat.text = ""
        table.chatting = False
        event.app.layout.focus(table.hand_window)
        if text:
            later(table.client.send(m.Chat(scope="table", text=text)))

    @kb.add("escape", filter=Condition(lambda: table.chatting))
    def _unsay(event: KeyPressEvent) -> None:
        table.chat.text = ""
        table.chatting = False
        event.app.layout.focus(table.hand_window)

    @kb.add("r", filter=playing)
    def _ready(event: KeyPressEvent) -> None:
        model = table.client.model
        view = model.view
        if model.slot is None or view is None or view.status == "playing":
            screen.message = "ready is for a seated player before a game"
            return
        mine = next((chair for chair in view.chairs if chair.name == model.me), None)
        ready = not (mine is not None and mine.ready)
        screen.message = "ready: the game starts when every seat is ready" if ready else "not ready"
        later(table.client.send(m.Ready(ready=ready)))

    @kb.add("b", filter=playing)
    def _bot(event: KeyPressEvent) -> None:
        model = table.client.model
        if model.view is None or model.view.status == "playing":
            screen.message = "bots join between games"
            return
        screen.message = f"asked for a {table.bots} bot"
        later(table.client.send(m.AddBot(table=model.name, strategy=table.bots)))

    @kb.add("q", filter=playing)
    def _leave(event: KeyPressEvent) -> None:
        model = table.client.model
        in_game = model.slot is not None and model.playing
        if in_game and screen.message != LEAVE_AGAIN:
            screen.message = LEAVE_AGAIN
            return
        event.app.exit()

    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return kb

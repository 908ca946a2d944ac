"""The lobby screen in prompt_toolkit: the server and its fingerprint, the live table
list, the selected table in words, lobby chat, the create-table form.  It ends when this
client is at a table (seated or watching) or the user quits."""

from __future__ import annotations

import asyncio
from typing import Literal

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
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame, TextArea

from ..connection import Client
from .app import STYLE
from .lobby import LobbyScreen, TableForm

LOBBY_HELP = """\
 keys
 ↑/↓  k/j     choose a table
 enter        sit down at the table (asks for its password if it has one)
 w            watch the table
 b            add a bot to an empty seat of the table
 n            create a table (a form: ↑/↓ rows, ←/→ values, type names;
              enter creates, esc cancels)
 c            chat to the lobby (enter sends, esc cancels)
 r            ask the server for the table list again
 ?            this help (any key closes it)
 q  ctrl-c    quit
"""

Outcome = Literal["table", "quit", "disconnected"]
Asking = Literal["", "chat", "join", "watch"]


class LobbyApp:
    def __init__(
        self,
        client: Client,
        screen: LobbyScreen,
        *,
        bots: str = "random",
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.client = client
        self.screen = screen
        self.bots = bots
        self.line = TextArea(
            height=1, multiline=False, password=Condition(lambda: self.asking in ("join", "watch"))
        )
        #: A table this client created and will sit at once the server lists it.
        self.creating: m.CreateTable | None = None
        #: A join or watch was sent: the table's view, when it comes, opens the table.
        #: (Views of a table just left may still be on their way: they open nothing.)
        self.entering = False
        self.asking: Asking = ""
        self.outcome: Outcome = "quit"
        self._tasks: set[asyncio.Task[None]] = set()
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=create_lobby_bindings(self),
            style=STYLE,
            full_screen=True,
            mouse_support=True,
            input=input,
            output=output,
        )

    async def on_message(self, message: m.Message) -> None:
        self.screen.record(message)
        creating = self.creating
        if creating is not None:
            if isinstance(message, (m.Tables, m.TableChanged)) and any(
                t.name == creating.name for t in self.screen.tables
            ):
                self.creating = None
                self.send(m.Join(table=creating.name, password=creating.password))
            elif isinstance(message, m.Error) and message.about == m.CreateTable.TYPE:
                self.creating = None
        if isinstance(message, m.Error) and message.about in (m.Join.TYPE, m.Spectate.TYPE):
            self.entering = False
        if (
            isinstance(message, m.TableView)
            and self.entering
            and self.app.is_running
            and not self.app.is_done
        ):
            self.outcome = "table"  # seated or watching: the table screen takes over
            self.app.exit()
        self.app.invalidate()

    def status(self, what: str) -> None:
        self.screen.connection = "connected" if what == "reconnected" else what
        if what == "disconnected" and self.app.is_running and not self.app.is_done:
            self.outcome = "disconnected"
            self.app.exit()
        self.app.invalidate()

    def send(self, message: m.Message) -> None:
        if isinstance(message, (m.Join, m.Spectate)):
            self.entering = True

        async def go() -> None:
            try:
                await self.client.send(message)
            except (ConnectionError, OSError):
                self.screen.message = "not sent: the connection is down"
                self.app.invalidate()

        task = asyncio.ensure_future(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def ask(self, what: Asking, prompt: str) -> None:
        self.asking = what
        self.line.text = ""
        self.prompt = prompt
        self.app.layout.focus(self.line)

    def answered(self) -> None:
        what, text = self.asking, self.line.text
        self.asking = ""
        self.line.text = ""
        self.app.layout.focus(self.list_window)
        info = self.screen.selected()
        if what == "chat" and text.strip():
            self.send(m.Chat(scope="lobby", text=text.strip()[:500]))
        elif what == "join" and info is not None:
            self.send(m.Join(table=info.name, password=text[:64] or None))
        elif what == "watch" and info is not None:
            self.send(m.Spectate(table=info.name, password=text[:64] or None))

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> Layout:
        screen = self.screen
        self.prompt = ""
        header = Window(FormattedTextControl(self._header), height=3, wrap_lines=True)
        self.list_window = Window(FormattedTextControl(self._tables, focusable=True))
        tables = Frame(self.list_window, title="tables", width=48)
        details = Frame(Window(FormattedTextControl(self._details), wrap_lines=True), title="table")
        chat = Frame(
            Window(FormattedTextControl(self._chat), wrap_lines=True), title="lobby chat", height=8
        )
        asking = ConditionalContainer(
            VSplit(
                [
                    Window(
                        FormattedTextControl(lambda: [("class:turn", self.prompt)]),
                        width=lambda: len(self.prompt) + 1,
                        height=1,
                    ),
                    self.line,
                ]
            ),
            filter=Condition(lambda: bool(self.asking)),
        )
        status = Window(FormattedTextControl(self._status), height=1)
        body = HSplit([header, VSplit([tables, details]), chat, asking, status])
        form = Frame(
            Window(FormattedTextControl(self._form), wrap_lines=True),
            title="new table — ↑/↓ rows, ←/→ values, enter creates, esc cancels",
        )
        help_box = Frame(
            Window(FormattedTextControl(LOBBY_HELP), width=76, height=14), title="help"
        )
        return Layout(
            FloatContainer(
                body,
                floats=[
                    Float(
                        ConditionalContainer(
                            form, filter=Condition(lambda: screen.form is not None)
                        ),
                        left=1,
                        right=1,
                        top=1,
                        bottom=1,
                    ),
                    Float(ConditionalContainer(help_box, filter=Condition(lambda: screen.help))),
                ],
            ),
            focused_element=self.list_window,
        )

    def _header(self) -> StyleAndTextTuples:
        s = self.screen
        return [
            ("class:title", f" {s.server} at {s.address} — you are {s.me}"),
            ("class:dim", f"  [{s.connection}]\n"),
            ("class:dim", f" certificate (SHA-256) {s.fingerprint}"),
        ]

    def _tables(self) -> StyleAndTextTuples:
        s = self.screen
        if not s.tables:
            return [("class:dim", "no tables yet: press n to create one")]
        out: StyleAndTextTuples = []
        for index, info in enumerate(s.tables):
            style = "class:selected" if index == s.cursor else ""
            out.append((style, s.line(info) + "\n"))
        return out

    def _details(self) -> StyleAndTextTuples:
        words = self.screen.rules_words()
        return [
            ("", "\n".join(self.screen.details())),
            ("class:dim", ("\n" + "\n".join(f"• {w}" for w in words)) if words else ""),
        ]

    def _chat(self) -> StyleAndTextTuples:
        return [("", "\n".join(self.screen.chat[-6:]))]

    def _status(self) -> StyleAndTextTuples:
        s = self.screen
        if s.message:
            return [("class:message", " " + s.message)]
        if s.form is not None:
            return [
                (
                    "class:dim",
                    " ↑/↓ rows · ←/→ values · type the name and password · enter creates · esc",
                )
            ]
        return [
            (
                "class:dim",
                " enter sits · w watches · b adds a bot · n new table · c chat · ? help · q quits",
            )
        ]

    def _form(self) -> StyleAndTextTuples:
        form = self.screen.form
        if form is None:
            return []
        rows = form.rows()
        if self.app.is_running:
            size = self.app.output.get_size()
            height, width = max(1, size.rows - 10), max(40, size.columns - 4)
        else:
            height, width = len(rows), 200
        # a window of rows around the current one, each cut to the width; the current
        # row's words in full below them
        first = max(0, min(form.row - height // 2, len(rows) - height))
        out: StyleAndTextTuples = []
        for index, (label, value, words) in list(enumerate(rows))[first : first + height]:
            here = index == form.row
            line = f"{'▶' if here else ' '} {label:<20} {value:<15} {words}"
            if len(line) > width:
                line = line[: width - 1] + "…"
            out.append(("class:selected" if here else "", line + "\n"))
        label, value, words = rows[form.row]
        out.append(("class:title", f"\n{label}: "))
        out.append(("", words + "\n"))
        problem = form.problem()
        out.append(("class:message", problem or "ready: enter creates the table and sits you down"))
        return out


def create_lobby_bindings(lobby: LobbyApp) -> KeyBindings:
    """Every key of the lobby (the help overlay lists them)."""
    kb = KeyBindings()
    screen = lobby.screen
    browsing = Condition(lambda: not lobby.asking and screen.form is None and not screen.help)
    filling = Condition(lambda: screen.form is not None and not screen.help)
    asking = Condition(lambda: bool(lobby.asking))

    @kb.add("?", filter=browsing)
    def _help(event: KeyPressEvent) -> None:
        screen.help = True

    @kb.add("<any>", filter=Condition(lambda: screen.help))
    def _close_help(event: KeyPressEvent) -> None:
        screen.help = False

    @kb.add("up", filter=browsing)
    @kb.add("k", filter=browsing)
    def _up(event: KeyPressEvent) -> None:
        screen.move(-1)

    @kb.add("down", filter=browsing)
    @kb.add("j", filter=browsing)
    def _down(event: KeyPressEvent) -> None:
        screen.move(1)

    def chosen() -> m.TableInfo | None:
        info = screen.selected()
        if info is None:
            screen.message = "there is no table: press n to create one"
        return info

    def enter(what: Asking) -> None:
        """Sit down (`join`) or watch (`watch`), asking the password first if there is one."""
        info = chosen()
        if info is None:
            return
        screen.message = ""
        if info.password:
            lobby.ask(what, f"password for {info.name}: ")
        else:
            lobby.send(m.Join(table=info.name) if what == "join" else m.Spectate(table=info.name))

    @kb.add("enter", filter=browsing)
    def _join(event: KeyPressEvent) -> None:
        enter("join")

    @kb.add("w", filter=browsing)
    def _watch(event: KeyPressEvent) -> None:
        enter("watch")

    @kb.add("b", filter=browsing)
    def _bot(event: KeyPressEvent) -> None:
        info = chosen()
        if info is not None:
            screen.message = f"asked for a {lobby.bots} bot at {info.name}"
            lobby.send(m.AddBot(table=info.name, strategy=lobby.bots))

    @kb.add("n", filter=browsing)
    def _new(event: KeyPressEvent) -> None:
        taken = {t.name for t in screen.tables}
        name = next(
            n
            for n in (f"{screen.me}'s table", *(f"{screen.me}'s table {i}" for i in range(2, 999)))
            if n not in taken
        )
        screen.form = TableForm(name=name[:40])
        screen.message = ""

    @kb.add("c", filter=browsing)
    def _chat(event: KeyPressEvent) -> None:
        lobby.ask("chat", "say: ")

    @kb.add("r", filter=browsing)
    def _refresh(event: KeyPressEvent) -> None:
        screen.message = ""
        lobby.send(m.ListTables())

    @kb.add("q", filter=browsing)
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        lobby.outcome = "quit"
        event.app.exit()

    # --- the one-line question (chat, a password) ---

    @kb.add("enter", filter=asking)
    def _answer(event: KeyPressEvent) -> None:
        lobby.answered()

    @kb.add("escape", filter=asking)
    def _cancel(event: KeyPressEvent) -> None:
        lobby.asking = ""
        lobby.line.text = ""
        event.app.layout.focus(lobby.list_window)

    # --- the form ---

    def form() -> TableForm:
        assert screen.form is not None
        return screen.form

    @kb.add("up", filter=filling)
    def _form_up(event: KeyPressEvent) -> None:
        form().move(-1)

    @kb.add("down", filter=filling)
    @kb.add("tab", filter=filling)
    def _form_down(event: KeyPressEvent) -> None:
        form().move(1)

    @kb.add("left", filter=filling)
    def _form_left(event: KeyPressEvent) -> None:
        form().change(-1)

    @kb.add("right", filter=filling)
    @kb.add("space", filter=filling)
    def _form_right(event: KeyPressEvent) -> None:
        if event.data == " " and form().key in ("name", "password"):
            form().type(" ")
        else:
            form().change(1)

    @kb.add("backspace", filter=filling)
    def _form_back(event: KeyPressEvent) -> None:
        form().backspace()

    @kb.add("<any>", filter=filling)
    def _form_type(event: KeyPressEvent) -> None:
        if event.data.isprintable() and len(event.data) == 1:
            form().type(event.data)

    @kb.add("enter", filter=filling)
    def _create(event: KeyPressEvent) -> None:
        problem = form().problem()
        if problem:
            screen.message = problem
            return
        request = form().request()
        screen.form = None
        screen.message = f"creating {request.name} ..."
        lobby.creating = request
        lobby.send(request)

    @kb.add("escape", filter=filling)
    def _close(event: KeyPressEvent) -> None:
        screen.form = None

    return kb

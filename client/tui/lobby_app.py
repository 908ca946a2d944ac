"""The lobby screen in prompt_toolkit: the server and its fingerprint, the live table
list, the selected table in words, lobby chat, the create-table form.  It ends when this
client is at a table (seated or watching) or the user quits."""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from president.bots.strategies import described
from president.protocol import messages as m
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.filters import Condition, Never
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    UIContent,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame, TextArea

from ..connection import Client
from .coach import RecordAsker
from .fit import (
    cells,
    cut,
    head,
    help_lines,
    middle_cut,
    pad,
    status_fragments,
    status_lines,
    tail,
    typed_line,
    wrap,
)
from .ladder_view import LadderView, Line
from .lobby import LobbyScreen, TableForm
from .logview import LogView
from .shell import MessageAge, Shell
from .theme import add_help_keys, help_box_of

#: A space that `wrap` does not break at (put back as a space once wrapped).
NO_BREAK = "\xa0"

#: Seconds the server's refusal stays on the lobby's message line.
REFUSAL_SECONDS = 20.0

#: The keys and what they do, as the help overlay shows them.
LOBBY_HELP = (
    ("", " keys"),
    ("↑/↓  k/j", "choose a table (with the ladder shown, scroll it where it is cut)"),
    ("enter", "sit down at the table (asks for its password if it has one)"),
    ("w", "watch the table"),
    ("b", "add a bot to an empty seat of the table"),
    (
        "n",
        "create a table (a form: ↑/↓ rows, ←/→ values; letters go to a setting; enter "
        "creates, esc cancels)",
    ),
    ("c", "chat to the lobby (enter sends, esc cancels)"),
    ("r", "ask the server for the table list again"),
    ("v", "review your last game here (from the server)"),
    ("l", "the server's ladder (l again: the tables)"),
    ("pgup/pgdn", "scroll the lobby chat back and forth (or the mouse wheel); end follows it"),
    ("?", "this help (esc closes it)"),
    ("q q", "quit (ctrl-c: at once; ctrl-z: to the shell)"),
)

#: From this many columns the table list and the chosen table stand side by side.
WIDE = 76

Outcome = Literal["table", "quit", "disconnected"]
#: What the lobby's q says first (q again quits).
QUIT_AGAIN = "press q again to quit president connect (ctrl-c quits at once)"
Asking = Literal["", "chat", "join", "watch"]


class Trimmed(FormattedTextControl):
    """Text that, given fewer rows than it has lines, shows as many as fit but one and
    ends with a line saying how many more there are (a cut seat list said nothing)."""

    def create_content(self, width: int, height: int | None) -> UIContent:
        content = super().create_content(width, height)
        if height is None or height < 2 or content.line_count <= height:
            return content
        more = content.line_count - (height - 1)
        mark: StyleAndTextTuples = [
            (
                "class:dim",
                cut(
                    f"… {more} more line{'s' if more > 1 else ''}: a taller window shows them",
                    width,
                ),
            )
        ]
        return UIContent(
            get_line=lambda i: content.get_line(i) if i < height - 1 else mark,
            line_count=height,
        )


class LobbyApp:
    def __init__(
        self,
        client: Client,
        screen: LobbyScreen,
        *,
        bots: str = "random",
        input: Input | None = None,
        output: Output | None = None,
        theme: str = "dark",
        shell: Shell | None = None,
    ) -> None:
        """The lobby on `shell` (the caller shows it); without one, on a shell of its
        own, shown at once (the application ends when the lobby is left)."""
        self.client = client
        self.screen = screen
        self.bots = bots
        self.line = TextArea(
            height=1, multiline=False, password=Condition(lambda: self.asking in ("join", "watch"))
        )
        #: A table this client created and will sit at once the server lists it.
        self.creating: m.CreateTable | None = None
        #: The form that request came from, opened again if the server refuses it.
        self.sent_form: TableForm | None = None
        #: A join or watch was sent: the table's view, when it comes, opens the table.
        #: (Views of a table just left may still be on their way: they open nothing.)
        self.entering = False
        self.asking: Asking = ""
        #: How long the message line has said what it says (`before_render`).
        self._message = MessageAge()
        self.clock = time.monotonic
        self.outcome: Outcome = "quit"
        #: q was pressed (`quit_asked`), and the key before this one was q (`quit_armed`):
        #: q asks once (a pass's q q from a table left it, then quit the program unasked)
        self.quit_asked = self.quit_armed = False
        screen.ladder = client.ladder  # (one ladder, as the client hears it)
        #: The players whose ratings were last asked for (the chosen table's).
        self.rated: tuple[str, ...] = ()
        #: `v`: the record of my last game here, asked of the server (kept in `screen`,
        #: which outlives this lobby); the list asked again once its review is put away.
        self.records = RecordAsker(client, self, lambda: screen.me, self.send, self._opened)
        self.records.kept = screen.last_record
        self._covered = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.container = self._layout()
        self.bindings = create_lobby_bindings(self)
        self.focus: Window = self.list_window
        self.mouse = True
        self.shell = shell if shell is not None else Shell(theme, input, output)
        self.app: Application[None] = self.shell.app
        client.on_message = self.shell.on_message
        if shell is None:
            self.shell.push(self)

    def leave(self, outcome: Outcome) -> None:
        """Off the shell's stack, saying why: a table to open, quit, or disconnected."""
        self.outcome = outcome
        self.shell.pop(self)

    def key_pressed(self) -> None:
        """The key now pressed answers "press q again" (the one before was q) or not."""
        self.quit_armed, self.quit_asked = self.quit_asked, False
        if self.screen.message == QUIT_AGAIN:
            self.screen.message = ""

    def before_render(self) -> None:
        """The server's refusal goes after `REFUSAL_SECONDS` (the app redraws every half
        second); any other message stays until replaced."""
        screen = self.screen
        if self._covered:  # (on top again: the list may have changed meanwhile)
            self._covered = False
            self.send(m.ListTables())
        age = self._message.of(screen.message, self.clock())
        if screen.message and screen.message == screen.refusal and age >= REFUSAL_SECONDS:
            screen.message = screen.refusal = ""

    async def on_message(self, message: m.Message) -> None:
        self.screen.record(message)
        self.records.heard(message)
        self.screen.last_record = self.records.kept
        if isinstance(message, m.Tables) and not message.more and not self.screen.ladder.heard:
            self.ask_ladder()
        if isinstance(message, (m.Tables, m.TableChanged)):
            changed = (
                isinstance(message, m.TableChanged)
                and message.info.name == (self.screen.selected() or message.info).name
            )
            self.ask_ratings(again=changed)
        creating = self.creating
        if creating is not None:
            if isinstance(message, (m.Tables, m.TableChanged)) and any(
                t.name == creating.name for t in self.screen.tables
            ):
                self.creating = None
                self.send(m.Join(table=creating.name, password=creating.password))
            elif isinstance(message, m.Error) and message.about == m.CreateTable.TYPE:
                self.creating = None
                form, self.sent_form = self.sent_form, None
                if form is not None and self.screen.form is None:  # (open again, as it was)
                    form.refuse(message.message, creating)
                    self.screen.form = form
                    self.screen.message = self.screen.refusal = ""  # (the form says it)
        if isinstance(message, m.Error) and message.about in (m.Join.TYPE, m.Spectate.TYPE):
            self.entering = False
        if isinstance(message, m.TableView) and self.entering:
            self.leave("table")  # seated or watching: the table screen takes over
        self.app.invalidate()

    def status(self, what: str) -> None:
        self.screen.connection = "connected" if what == "reconnected" else what
        if what == "disconnected":
            self.leave("disconnected")
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

    def ask_record(self) -> None:
        """`v`: the review of my last game here, over the lobby (its record asked of the
        server, protocol 17; kept once it came)."""
        s = self.screen
        if not s.last_game:
            s.message = "v reviews your last game here: you have played none since connecting"
            return
        info = next((t for t in s.tables if t.name == s.last_game), None)
        wait = ""
        if s.left_under_way and info is not None and info.status == "playing":
            # (the server sends the last game that ended there: an earlier one, opened as
            # "your game", a hostile pass)
            wait = (
                f"the game you left at {s.last_game} is still on: v opens its review once"
                " it is over"
            )
        self.records.ask(
            s.last_game, f"asking the server for the record of your game at {s.last_game} ...", wait
        )

    def _opened(self) -> None:
        """A review opened over the lobby: the table list asked again when the lobby is on
        top once more (the viewer heard the server meanwhile, not the lobby)."""
        self._covered = self.shell.top is not self
        self.app.invalidate()

    def ask_ladder(self) -> None:
        """The top of the ladder (for the pane `l` shows)."""
        if self.client.ladder.wanted():
            self.send(m.Leaderboard(count=20))

    def ask_ratings(self, again: bool = False) -> None:
        """The ratings of the people at the chosen table, when they are not the ones
        asked for last (or `again`: that table changed, a game there may have ended)."""
        names = self.screen.rated_players()
        if names and (again or names != self.rated) and self.client.ladder.wanted():
            self.rated = names
            self.send(m.Leaderboard(players=names))

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
        if what == "chat":
            said, self.screen.message = typed_line(text, m.CHAT_MOST)
            if said:
                self.send(m.Chat(scope="lobby", text=said))
        elif what == "join" and info is not None:
            self.send(m.Join(table=info.name, password=text[:64] or None))
        elif what == "watch" and info is not None:
            self.send(m.Spectate(table=info.name, password=text[:64] or None))

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> FloatContainer:
        screen = self.screen
        self.prompt = ""
        header = Window(FormattedTextControl(self._header), height=lambda: len(self._head()))
        self.list_window = Window(FormattedTextControl(self._tables, focusable=True))
        chosen = Window(Trimmed(self._details))
        self.ladder_view = LadderView(self._ladder)
        ladder = Window(self.ladder_view)
        details = Frame(
            DynamicContainer(lambda: ladder if screen.showing_ladder else chosen),
            title=lambda: "ladder" if screen.showing_ladder else "table",
        )
        wide = VSplit([Frame(self.list_window, title="tables", width=self._list_width), details])
        # the ladder where it does not fit beside the tables: in their place, names whole
        # (the tables' list hidden there, not gone: the keys go back to it after a chat
        # line or a password; a newcomer's pass, `l` then `c` at 80x24, ended the client
        # with "Window does not appear in the layout")
        alone = HSplit([details, ConditionalContainer(self.list_window, filter=Never())])
        narrow = HSplit(
            [
                Frame(
                    self.list_window,
                    title="tables",
                    height=lambda: D(min=3, preferred=min(len(screen.tables), 4) + 2),
                ),
                details,
            ]
        )
        self.chat_log = LogView(lambda: [("", line) for line in self.screen.chat])
        chat = Frame(Window(self.chat_log), title="lobby chat", height=self._chat_height)
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
        status = Window(FormattedTextControl(self._status), height=self._status_height)
        body = HSplit(
            [
                header,
                DynamicContainer(
                    lambda: wide if self._beside() else alone if self._ladder_alone() else narrow
                ),
                chat,
                asking,
                status,
            ]
        )
        form = Frame(
            Window(FormattedTextControl(self._form)),
            title="new table — enter creates, esc cancels",
        )
        help_box = help_box_of(self.screen, self._help_lines, self._help_width)
        return FloatContainer(
            body,
            floats=[
                Float(
                    ConditionalContainer(form, filter=Condition(lambda: screen.form is not None)),
                    left=1,
                    right=1,
                    top=1,
                    bottom=1,
                ),
                Float(ConditionalContainer(help_box, filter=Condition(lambda: screen.help))),
            ],
        )

    # --- sizes: from the terminal's ----------------------------------------------------

    def _columns(self) -> int:
        return get_app().output.get_size().columns

    def _rows(self) -> int:
        return get_app().output.get_size().rows

    def _wide(self) -> bool:
        return self._columns() >= WIDE

    def _tables_width(self) -> int:
        """The table list's width inside its frame."""
        return (self._list_width() if self._beside() else self._columns()) - 2

    def _ladder_alone(self) -> bool:
        """The ladder is shown and does not fit beside the table list: it takes the
        list's place (`l` again shows the tables)."""
        return self.screen.showing_ladder and (
            not self._wide()
            or self._columns() - self._list_width() - 2 < self.screen.ladder_width()
        )

    def _beside(self) -> bool:
        """The tables' list and the panel beside it (the chosen table, or the ladder)."""
        return self._wide() and not self._ladder_alone()

    def _list_width(self) -> int:
        return min(64, max(50, self._columns() // 2))

    def _chat_height(self) -> int:
        return 8 if self._rows() >= 30 else 5 if self._rows() >= 22 else 4

    def _help_width(self) -> int:
        return max(20, min(80, self._columns() - 4))

    def _help_lines(self) -> list[str]:
        return help_lines(LOBBY_HELP, self._help_width())

    def _status_text(self) -> tuple[str, str]:
        s = self.screen
        if s.message:
            return "class:message", s.message
        if s.form is not None:
            return "class:dim", s.form.hint()
        if s.showing_ladder:  # (first: at 60x16 nothing said how to put it away)
            return "class:dim", "l back to the tables · enter sits · c chat · ? help · q quits"
        # the least needed last: a narrow screen drops them first (the help has all)
        review = " · v reviews your game" if s.last_game else ""
        return (
            "class:dim",
            f"enter sits · n new table{review} · w watches · c chat · l ladder · b adds a bot"
            " · ? help · q quits",
        )

    def _status_lines(self) -> list[tuple[str, str]]:
        style, text = self._status_text()
        return status_lines(style, text, self._columns() - 2, bool(self.screen.message))

    def _status_height(self) -> int:
        return len(self._status_lines())

    def _status(self) -> StyleAndTextTuples:
        return status_fragments(self._status_lines())  # type: ignore[return-value]

    # --- what each part shows ----------------------------------------------------------

    def _head(self) -> list[tuple[str, str]]:
        """Who and where, then the certificate (on its own line when the width is short)."""
        s = self.screen
        width = self._columns() - 1
        who = f" {s.server} at {s.address} — you are {s.me}"
        state = f"  [{s.connection}]"
        if cells(who) + len(state) > width:  # the address is the first to go
            who = f" {s.server} — you are {s.me}"
        if cells(who) + len(state) > width:  # then the names are cut in the middle (mine
            # went whole: "president — you are…" at 60 columns, a user pass; and behind a
            # long server name, "— you…", a newcomer's pass)
            room = width - len(state) - len(" — you are ") - 1
            me = middle_cut(s.me, max(min(cells(s.me), 16, room // 2), room - cells(s.server)))
            who = f" {middle_cut(s.server, max(8, room - cells(me)))} — you are {me}"
        out = [("class:title", cut(who, width - len(state)) + state)]
        certificate = f" certificate (SHA-256) {s.fingerprint}"
        if len(certificate) > width:  # checked in full when first connecting
            certificate = " certificate " + middle_cut(s.fingerprint, width - 13)
        out.append(("class:dim", certificate))
        return out

    def _header(self) -> StyleAndTextTuples:
        lines = self._head()
        return [
            (style, text + ("\n" if i < len(lines) - 1 else ""))
            for i, (style, text) in enumerate(lines)
        ]

    def _tables(self) -> StyleAndTextTuples:
        s = self.screen
        if not s.tables:
            return [("class:dim", "no tables yet: press n to create one")]
        out: StyleAndTextTuples = []
        for index, info in enumerate(s.tables):
            if index == s.cursor:
                out.append(("[SetCursorPosition]", ""))  # the list scrolls to show it
            style = "class:selected" if index == s.cursor else ""
            out.append((style, s.line(info, self._tables_width()) + "\n"))
        return out

    def _details(self) -> StyleAndTextTuples:
        """The chosen table in words; under the list on a narrow screen, a few lines."""
        beside = self._columns() - self._list_width() - 2
        # (narrow, a seat's line goes after "seats: ", less its indent of 2)
        details = self.screen.details(beside if self._wide() else self._columns() - 7)
        words = [f"• {w}" for w in self.screen.rules_words()]
        if self._wide():
            width = beside
            plain = details
        else:
            width = self._columns() - 2
            # (a seat's number, name and rating kept on one line: "3:" ended one line
            # and "bot:heuristic" began the next; a name is cut to fit one: `details`)
            seats = [line.strip().replace(" ", NO_BREAK) for line in details if line[:2] == "  "]
            # who sits there first (the list's line above has its name, preset and state)
            plain = ["seats: " + "  ".join(seats)] if seats else []
            rest = [line for line in details if line != "seats:" and line[:2] != "  "]
            plain += [" · ".join(rest)]
        lines = [("", part.replace(NO_BREAK, " ")) for line in plain for part in wrap(line, width)]
        lines += [("class:dim", part) for line in words for part in wrap(line, width)]
        return [
            (style, text + ("\n" if i < len(lines) - 1 else ""))
            for i, (style, text) in enumerate(lines)
        ]

    def _ladder(self, width: int) -> tuple[list[Line], list[Line], list[Line]]:
        """The ladder's head (what it is in words, the columns' names), its places, a
        line a player (`LadderView` scrolls them), and its foot (what a `?` means)."""
        (first, *titles), places, foot = self.screen.ladder_parts(width)
        head = [("class:dim", part) for part in wrap(first, width)]
        head += [("class:title", line) for line in titles]
        return head, [("", line) for line in places], [("class:dim", line) for line in foot]

    def _form(self) -> StyleAndTextTuples:
        form = self.screen.form
        if form is None:
            return []
        rows = form.rows()
        # inside the float (one column and row off each edge) and its frame
        room, width = max(4, self._rows() - 4), max(30, self._columns() - 4)
        label, value, words = rows[form.row]
        below = [("class:title", line) for line in wrap(f"{label}: {words}", width)]
        said = wrap(form.said().replace("\t", " "), width)
        most = max(1, room // 3)  # (a server's refusal of 500 wide characters filled the
        if len(said) > most:  # form at 60x16 and hid its rows, a hostile pass)
            said = [*said[: most - 1], head(said[most - 1], width - 1) + "…"]
        below += [("class:message", line) for line in said]
        height = max(1, room - 1 - len(below))
        # each row: its label, its value and its words, wrapped under their column where
        # there is room for that (else a row's words only when they fit whole: the
        # current row's are in full below); a window of rows around the current one
        label_w = max(len(label) for label, _, _ in rows)
        value_w = 15  # (fixed: the words' column stays put as the values change)
        indent = 2 + label_w + 1 + value_w + 1
        drawn: list[list[str]] = []
        for index, (label, value, words) in enumerate(rows):
            line = f"{'▶' if index == form.row else ' '} {label:<{label_w}} {pad(value, value_w)}"
            if cells(line) > width and index == form.row:  # (typed: its end shows, where
                # the next letter goes, a newcomer's pass at 60x16)
                room = width - (2 + label_w + 1) - 1
                drawn.append([f"▶ {label:<{label_w}} …{tail(value, room)}"])
            elif cells(line) > width:
                drawn.append([head(line, width - 1) + "…"])
            elif width - indent >= 30:
                parts = wrap(words, width - indent) if words else [""]
                if cells(value) > value_w:  # (a long value, a table's name: its words under it,
                    # not run on after it: "…Player-001's table type one to rep")
                    drawn.append([line, *(" " * indent + p for p in parts if p)])
                else:
                    drawn.append([f"{line} {parts[0]}", *(" " * indent + p for p in parts[1:])])
            else:
                fits = cells(line) + 1 + len(words) <= width
                drawn.append([f"{line} {words}" if fits else line])
        first = form.row
        lines = len(drawn[first])
        while first > 0 and lines + len(drawn[first - 1]) <= height // 2 + 1:
            first -= 1
            lines += len(drawn[first])
        out: StyleAndTextTuples = []
        shown = 0
        for index in range(first, len(drawn)):
            if shown + len(drawn[index]) > height and index > form.row:
                break
            style = "class:selected" if index == form.row else ""
            out.extend((style, line.rstrip() + "\n") for line in drawn[index])
            shown += len(drawn[index])
        out.append(("", "\n"))
        out.extend((style, line + "\n") for style, line in below)
        return out


def create_lobby_bindings(lobby: LobbyApp) -> KeyBindings:
    """Every key of the lobby (the help overlay lists them)."""
    kb = KeyBindings()
    screen = lobby.screen
    browsing = Condition(lambda: not lobby.asking and screen.form is None and not screen.help)
    filling = Condition(lambda: screen.form is not None and not screen.help)
    asking = Condition(lambda: bool(lobby.asking))

    add_help_keys(kb, screen, browsing)

    @kb.add("pageup", filter=browsing)
    def _chat_back(event: KeyPressEvent) -> None:
        lobby.chat_log.page(1)

    @kb.add("pagedown", filter=browsing)
    def _chat_on(event: KeyPressEvent) -> None:
        lobby.chat_log.page(-1)

    @kb.add("end", filter=browsing)
    def _chat_follow(event: KeyPressEvent) -> None:
        lobby.chat_log.follow()

    @kb.add("up", filter=browsing)
    @kb.add("k", filter=browsing)
    def _up(event: KeyPressEvent) -> None:
        if screen.showing_ladder and lobby.ladder_view.scroll(-1):
            return  # (the ladder's places, where the pane cannot hold them all)
        screen.move(-1)
        lobby.ask_ratings()

    @kb.add("down", filter=browsing)
    @kb.add("j", filter=browsing)
    def _down(event: KeyPressEvent) -> None:
        if screen.showing_ladder and lobby.ladder_view.scroll(1):
            return
        screen.move(1)
        lobby.ask_ratings()

    @kb.add("l", filter=browsing)
    def _ladder(event: KeyPressEvent) -> None:
        screen.showing_ladder = not screen.showing_ladder
        if screen.showing_ladder:
            lobby.ladder_view.top = 0
            lobby.ask_ladder()  # as it is now

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
        kept = screen.waiting_seat()
        # (a chair of ours is taken back by our key, without the password: `join`)
        mine = what == "join" and kept is not None and kept.name == info.name
        if what == "join" and not mine and all(info.players) and screen.me not in info.players:
            # (said before a password is asked: a host's pass typed it to be told this; a
            # chair of this name the server may give back by key, at a finished table too)
            screen.message = f"every seat at {info.name} is taken: w watches"
            return
        if info.password and not mine:
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
            screen.message = f"asked for a bot at {info.name}: {described(lobby.bots)}"
            lobby.send(m.AddBot(table=info.name, strategy=lobby.bots))

    @kb.add("n", filter=browsing)
    def _new(event: KeyPressEvent) -> None:
        taken = {t.name.casefold() for t in screen.tables}  # (another case looks the same)
        name = next(
            n
            for n in (f"{screen.me}'s table", *(f"{screen.me}'s table {i}" for i in range(2, 999)))
            if n.casefold() not in taken
        )
        screen.message = ""
        if screen.read_saved is not None:
            screen.saved, problems = screen.read_saved()
            screen.message = "; ".join(problems)
        screen.form = TableForm(name=name[:40], saved=screen.saved, suggested=True)

    @kb.add("c", filter=browsing)
    def _chat(event: KeyPressEvent) -> None:
        lobby.ask("chat", "say: ")

    @kb.add("v", filter=browsing)
    def _review(event: KeyPressEvent) -> None:
        lobby.ask_record()

    @kb.add("r", filter=browsing)
    def _refresh(event: KeyPressEvent) -> None:
        screen.message = ""
        lobby.send(m.ListTables())
        lobby.ask_ladder()

    @kb.add("q", filter=browsing)
    def _quit_asked(event: KeyPressEvent) -> None:
        if lobby.quit_armed:
            lobby.leave("quit")
        else:
            lobby.quit_asked = True
            screen.message = QUIT_AGAIN

    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        lobby.leave("quit")

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
        sent = form()
        request = sent.request()
        screen.form = None
        screen.message = f"creating {request.name} ..."
        lobby.creating, lobby.sent_form = request, sent
        lobby.send(request)

    @kb.add("escape", filter=filling)
    def _close(event: KeyPressEvent) -> None:
        screen.form = None

    return kb

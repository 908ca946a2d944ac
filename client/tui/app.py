"""The table screen in prompt_toolkit: a layout of callables that read `TableScreen`,
key bindings from `create_key_bindings`, input and output injectable for tests."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from president.bots.strategies import described
from president.engine import PASS, Action, HandOver, Phase
from president.protocol import messages as m
from president.protocol.errors import Code
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame, TextArea

from ..connection import Client, Link
from ..model import Chair, Heard, Ladder
from .coach import HELP as PLAY_HELP
from .coach import Kept, PlayExtras, RecordAsker, add_play_keys
from .fit import (
    COMPACT_CELL,
    cells,
    compact_seats,
    cut,
    fit_fragments,
    fit_parts,
    help_lines,
    middle_cut,
    pad,
    seat_lines,
    seats_width,
    shorten,
    typed_line,
    window_start,
    wrap,
)
from .logview import LogView
from .narrator import card_text
from .pile import pile_line
from .seats import SeatRow, rating_text, seat_rows, skipped_seats
from .shell import MessageAge, Shell
from .table import RANK_CARDS, TableScreen
from .theme import add_help_keys, card_style, help_box_of

#: Where a person's rating stands, a server's bot's row says it is one (where a person
#: at the table has a name like a bot's: `rating_column`).
SERVER_BOT = "server bot"


def rating_column(chairs: Sequence[Chair], ladder: Ladder) -> Callable[[str], str]:
    """What a seat's rating column shows, by name: the player's rating on the ladder; for
    a server's bot nothing (it is not rated: a player of the ladder may have its name,
    as `president bot` names its bots the same way), or `SERVER_BOT` where a person here
    has a name like a bot's (a hostile pass sat as heuristic-bot-2 beside the server's
    heuristic-bot-1)."""
    bots = {c.name for c in chairs if c.bot}
    doubt = any(c.name and not c.bot and re.search(r"-bot-\d+$", c.name) for c in chairs)
    bot_shown = SERVER_BOT if doubt else ""

    def shown(name: str) -> str:
        return bot_shown if name in bots else rating_text(ladder.rating(name))

    return shown


#: The keys and what they do, as the help overlay shows them.
HELP = (
    ("", " keys"),
    ("←/→  h/l", "move along your hand"),
    ("space", "choose / unchoose the card (or click it)"),
    ("enter", "play, return or pay the chosen cards"),
    ("s", "suggest a play (the normal bot's)"),
    ("p", "pass"),
    ("r", "ready / not ready (before a game starts)"),
    ("b", "add a bot to an empty seat (before a game)"),
    ("esc", "clear the choice, or hide/show the standings"),
    ("c", "chat to the table (enter sends, esc cancels)"),
    ("n", "nudge a slow player (no turn timer)"),
    ("pgup/pgdn", "scroll the log, or the standings (↑/↓ too); end follows the log"),
    ("?", "this help (esc closes it)"),
    ("q", "leave the table (asked again in a game)"),
)
#: The table creator's key, after the rest (seldom needed: on the help's last page).
CREATOR_HELP = (("o", "a password for the table, or none (its creator)"),)
#: The keys of `president play`'s table: no one else to wait for, chat with or nudge,
#: no seat to fill, the coach's key beside `s` and the review's beside `r`, and q quits
#: the game (asked again while it is on).
LOCAL_HELP = (
    *(
        entry
        for key, words in HELP
        if key not in ("r", "b", "c", "n", "q")
        for entry in ((key, words), *(PLAY_HELP[:1] if key == "s" else ()))  # (the coach)
    ),
    ("r", "another game, once this one is over"),
    *PLAY_HELP[1:],  # (the review)
    ("q", "quit (asks again while the game is on; its record is kept)"),
)
#: The keys of someone watching (no hand, no seat: the player's keys do nothing there).
WATCH_HELP = (
    ("", " keys (watching)"),
    ("c", "chat to the table (enter sends, esc cancels)"),
    ("pgup/pgdn", "scroll the log, or the standings (↑/↓ too); end follows the log"),
    ("esc", "once the game is over: hide/show the final standings"),
    ("?", "this help (esc closes it)"),
    ("q", "stop watching: back to the lobby"),
)
#: The protocol version from which a server sends a game's record to its players.
RECORDS_SENT = m.GameRecord.SINCE
#: What a seat's line shows that its words do not say.
SEAT_LEGEND = (("rating N?", "a rating not settled yet: few games rated"),)
#: Ctrl-C at a server's table, and in `president play` (whose game ends with it).
#: (Ctrl-Z, to the shell, as in any terminal program, is said in the lobby's help and
#: `president play`'s: here the help fits one page at 60x20 without it.)
QUIT_KEEPING = (("ctrl-c", "quit, keeping your seat (connect again)"),)
QUIT_PLAY = (("ctrl-c", "quit; ctrl-z: to the shell (fg comes back)"),)

#: From this many columns the log stands beside the table rather than under it.
WIDE = 100
#: The longest title a seat gets in the base game: its room is kept before titles come.
TITLE_ROOM = "Vice-President"


#: A message on the status line goes after this many seconds (or at the next key), so
#: the turn's hint comes back to a player who waits.
MESSAGE_SECONDS = 5.0

LEAVE_AGAIN = (
    "a game is on: press q again to leave (the timeout rule plays your seat to the hand's end)"
)
#: The same in `president play`, whose game ends when its player goes.
QUIT_AGAIN = "a game is on: press q again to quit (the game ends here, its record kept)"
#: Said of a key that answers either question otherwise, and so does nothing else.
STAYING = "you stay (that key did nothing else)"


class TableApp:
    """The application around one `Client` at one table."""

    @property
    def while_small(self) -> str:
        """Told on a terminal too small to draw the table (`Shell`): that the game goes
        on, and whether it waits on me (a terminal pass sat at 45x12 on its turn, unseen,
        until the turn timer played for it)."""
        if not self.client.model.my_turn:
            return "the game goes on"
        left = self.screen.seconds_left()
        return "the game goes on; it is your turn" + (f": {left} s left" if left else "")

    def __init__(
        self,
        client: Client,
        *,
        input: Input | None = None,
        output: Output | None = None,
        bots: str = "random",
        theme: str = "dark",
        shell: Shell | None = None,
    ) -> None:
        """A table screen on `shell` (the caller shows it); without one, on a shell of
        its own, shown at once (the application ends when the screen is left)."""
        self.client = client
        self.screen = TableScreen(client.model)
        self._extras: PlayExtras | None = None
        self.screen.records_sent = client.version >= RECORDS_SENT
        self.bots = bots
        self.chat = TextArea(height=1, prompt="say: ", multiline=False)
        self.chatting = False
        #: `o`: the table's password, typed by its creator (not shown).
        self.secret = TextArea(
            height=1,
            prompt="password for this table (empty: none): ",
            multiline=False,
            password=True,
        )
        self.closing = False
        self.log = LogView(self._log)
        self._tasks: set[asyncio.Task[None]] = set()
        #: `v`: the record of the game over here, asked of the server, and kept while
        #: its game is the one over here.
        self.records = RecordAsker(client, self, lambda: client.model.me, self._send_message)
        #: The people whose ratings were last asked for (see `ask_ratings`).
        self._rated: tuple[str, ...] = ()
        self.container = self._layout()
        self.bindings = create_key_bindings(self)
        self.focus: Window = self.hand_window
        self.mouse = True
        self.shell = shell if shell is not None else Shell(theme, input, output)
        self.app: Application[None] = self.shell.app
        #: The final standings: a screen over this one once a game is over.
        self.standings = FinalStandings(self)
        self.clock = time.monotonic
        self._message = MessageAge()  # (of the status line's)
        #: q was pressed once during a game (by the key before this one): q again leaves
        self.leaving = False
        self.answering = False  # (the key now pressed answers "press q again")
        #: ctrl-c: the program quits without leaving the table (its seat waits, as if the
        #: client had crashed), where q gives the seat up
        self.quitting = False
        client.on_message = self.shell.on_message
        self.screen.catch_up()  # what the model heard before this screen opened
        #: Whether the shell was last told it is my turn (`Shell.turn`; None: not yet).
        self._turn_told: bool | None = None
        self.tell_turn()
        if shell is None:
            self.shell.push(self)

    def leave(self) -> None:
        """Off the shell's stack (the standings over it too): back to the screen under
        this one (or the end)."""
        if self._turn_told:
            self.shell.turn(False)  # (back in the lobby: nobody's turn)
        self.shell.pop(self.standings)
        self.shell.pop(self)

    def quit(self) -> None:
        """Ctrl-C, or the terminal gone: leave without asking (`quitting`)."""
        self.quitting = True
        self.leave()

    def show_standings(self) -> None:
        """The final standings over the table once a game is over, until esc puts them
        away or a new game starts."""
        wanted = self.screen.game_over() and not self.screen.standings_hidden
        shown = self.standings in self.shell.stack
        if wanted and not shown and self.shell.top is self:
            self.shell.push(self.standings)
        elif shown and not wanted:
            self.shell.pop(self.standings)

    def key_pressed(self) -> None:
        """A message lasts until the next key (one that key sets shows) or
        `MESSAGE_SECONDS`."""
        self.leaving, self.screen.leave_asked = self.screen.leave_asked, False
        # (this key answers "press q again": one that acts does not act then, a host's
        # pass pressed n for "no" and nudged a player whose turn had just begun)
        self.answering = self.leaving
        self.screen.message = ""
        self.screen.kept_message = ""
        self._message.restart()  # a message the key sets again is new: its time starts

    def before_render(self) -> None:
        self._expire()
        self.show_standings()

    def _expire(self) -> None:
        """An old message goes (the app redraws every half second); the question of q
        goes with its message, so q after it asks again."""
        screen = self.screen
        age = self._message.of(screen.message, self.clock())
        if screen.message and age >= MESSAGE_SECONDS and screen.message != screen.kept_message:
            screen.message = ""
            screen.leave_asked = False

    async def on_message(self, message: m.Message) -> None:
        self.records.heard(message)
        news = self.screen.record(message)
        if not self.screen.game_ended():  # (another game: its record is another)
            self.records.kept = None
        self.ask_ratings(any(isinstance(n, Heard) and isinstance(n.event, HandOver) for n in news))
        if message is self.client.seat_lost:
            self.leave()  # the seat was not given back: the lobby says why
        else:
            self.tell_turn()
        self.app.invalidate()

    def tell_turn(self) -> None:
        """The shell told when my turn comes or goes (the title, the bell)."""
        mine = self.client.model.my_turn
        if mine != self._turn_told:
            self._turn_told = mine
            self.shell.turn(mine)

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
            # (in the log: a message on the status line hid the turn's hint for its time)
            self.screen.reconnected(self.client.model.slot is not None)
        else:
            self.screen.connection = what
            bye = self.client.bye if what == "disconnected" else None
            if bye is not None and bye.code == Code.REPLACED:
                # (the seat is played from elsewhere now: said here, not only on quitting)
                self.screen.gone = bye.reason
        self.app.invalidate()

    def ask_ratings(self, hand_over: bool = False) -> None:
        """The ratings of the people at the table: when who sits here changes, and after
        each hand (`hand_over`: each hand finished rates its players)."""
        table, ladder = self.client.model.table, self.client.ladder
        if table is None or not ladder.wanted():
            return
        names = tuple(c.name for c in table.chairs if c.name and not c.bot)
        if names and (names != self._rated or hand_over):
            self._rated = names
            self.spawn(self.client.send(m.Leaderboard(players=names)))

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

    def send(self, *actions: Action) -> Awaitable[None]:
        """Send the actions in order (a due's cards go one at a time), each saying the
        table's last event as it stands now, when the key is pressed (`seen`: the server
        refuses an answer to a turn the timer has played meanwhile)."""
        return self._send(actions, self.client.model.seen)

    async def _send(self, actions: tuple[Action, ...], seen: int) -> None:
        try:
            for action in actions:
                await self.client.act(action, seen)
        except (ConnectionError, OSError):
            self.screen.message = "not sent: the connection is down"

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> FloatContainer:
        screen = self.screen
        header = Window(FormattedTextControl(self._header), height=1)
        in_game = Condition(lambda: self.client.model.public is not None)
        seats = Frame(
            HSplit(
                [
                    Window(FormattedTextControl(self._seats), height=self._seats_height),
                    ConditionalContainer(
                        Window(FormattedTextControl(self._pile_line), height=1), filter=in_game
                    ),
                ]
            ),
            title=self._seats_title,
        )
        log = Frame(Window(self.log), title="log")
        notes = Frame(Window(FormattedTextControl(self._notes)), title="notes")
        wide = VSplit([HSplit([seats, notes], width=self._left_width), log])
        narrow = HSplit([seats, log])
        self.hand_window = Window(
            FormattedTextControl(self._hand, focusable=True), height=self._hand_height
        )
        hand = Frame(self.hand_window, title=self._hand_title)
        status = Window(FormattedTextControl(self._fitted_status), height=self._status_height)
        chat = ConditionalContainer(self.chat, filter=Condition(lambda: self.chatting))
        secret = ConditionalContainer(self.secret, filter=Condition(lambda: self.closing))
        body = HSplit(
            [
                header,
                DynamicContainer(lambda: wide if self._wide() else narrow),
                hand,
                chat,
                secret,
                status,
            ]
        )
        help_box = help_box_of(self.screen, self._help_lines, self._help_width)
        return FloatContainer(
            body,
            floats=[Float(ConditionalContainer(help_box, filter=Condition(lambda: screen.help)))],
        )

    def ask_record(self) -> None:
        """`v` at a server's table, the game over: its record asked of the server (sent to
        the game's players, protocol 17); its review opens when it comes (`on_message`)."""
        table = self.client.model.table
        if table is None:
            return
        self.records.ask(table.name, "asking the server for the game's record ...")

    def _send_message(self, message: m.Message) -> None:
        self.spawn(self.client.send(message))

    @property
    def kept_record(self) -> Kept | None:
        """The record of the game over here that `v` fetched (table, file name, bytes)."""
        return self.records.kept

    @property
    def typing(self) -> bool:
        """A line is being typed (chat, or the table's password): keys go to it."""
        return self.chatting or self.closing

    @property
    def extras(self) -> PlayExtras | None:
        """The coach's key and the review's, in a game against bots (`president play`)."""
        return self._extras

    @extras.setter
    def extras(self, extras: PlayExtras | None) -> None:
        self._extras = extras
        self.screen.reviewable = extras is not None

    # --- sizes: from the terminal's, so the split does not move as the text does ----------

    def _columns(self) -> int:
        return get_app().output.get_size().columns

    def _rows(self) -> int:
        return get_app().output.get_size().rows

    def _wide(self) -> bool:
        """The table beside the log: on a wide terminal, if the seats fit whole beside a
        log of 40 columns (else the log goes under the seats, as on a narrow one)."""
        columns = self._columns()
        return columns >= WIDE and columns - self._left_width() >= 40

    def _left_width(self) -> int:
        """The table's panel beside the log: as wide as its seats need, names whole."""
        return max(56, min(90, self._seats_needed() + 2))

    def _seats_needed(self) -> int:
        """The width the seat lines need to show every name whole, with room for a title
        kept from the start (so the layout does not change when titles come, nor when
        the game starts: before it, the chairs as the game will show them)."""
        rows = self._seat_rows()
        waiting = 0
        if rows is None:
            model, table = self.client.model, self.client.model.table
            chairs = table.chairs if table is not None else ()
            rating = rating_column(chairs, self.client.ladder)
            rows = [
                SeatRow(
                    name=chair.name + (" (you)" if chair.name == model.me else ""),
                    count=13,
                    rating=rating(chair.name),
                )
                for chair in chairs
                if chair.name
            ]
            waiting = max((cells(line) for _, line in self._waiting_lines(1000)), default=0)
        if rows and not any(row.title for row in rows):
            rows[0] = replace(rows[0], title=TITLE_ROOM)
        return max(waiting, seats_width(rows))

    def _seats_height(self) -> int:
        return self._seat_grid()[1]

    def _seat_grid(self) -> tuple[int, int]:
        """(columns, lines) of the seats: a line a seat while they fit with room for a
        few lines of log; on a shorter screen the seats in compact columns, the log
        down to a line (issue 27: at 60x16 only 3 of 8 seats showed); past that,
        scrolled to whose turn it is."""
        seats = len(self._seat_rows() or self._waiting_lines(1000))
        rows, wide = self._rows(), self._wide()
        comfortable = rows - 14 if wide else rows - 13
        if seats <= comfortable:
            return 1, max(1, seats)
        in_game = self.client.model.public is not None
        # header, the seats' frame, the pile, the log's frame and one line (or the notes'
        # frame and a line beside the log), the hand's frame and rows, the status
        used = 1 + 2 + in_game + 3 + 2 + self._hand_height() + self._status_height()
        room = max(1, rows - used)
        if wide and seats <= room:  # (beside the log, only the notes give way)
            return 1, seats
        most = max(1, min(3, self._seats_width() // COMPACT_CELL))
        columns = min(most, max(2, -(-seats // room)))  # as few as will do
        if columns > 1:
            return columns, min(room, -(-seats // columns))
        return 1, max(1, min(seats, max(comfortable, room)))

    def _seats_width(self) -> int:
        return (self._left_width() if self._wide() else self._columns()) - 2

    def _help_width(self) -> int:
        return max(20, min(76, self._columns() - 4))

    def _help_lines(self) -> list[str]:
        keys: tuple[tuple[str, str], ...]
        if self.extras:
            keys = LOCAL_HELP + QUIT_PLAY
        elif self.client.model.slot is None:
            keys = WATCH_HELP + QUIT_PLAY
        else:  # (a server that sends a game's record: `v`, as `president play` has it)
            review = (("v", "the game's review, once it is over"),)
            keys = HELP[:-1] + (review if self.screen.records_sent else ()) + HELP[-1:]
            keys += QUIT_KEEPING + CREATOR_HELP
        width = self._help_width()
        lines = help_lines(keys + (SEAT_LEGEND if self._unsettled() else ()), width)
        return lines + self.screen.rules_help(width)

    def _unsettled(self) -> bool:
        """A seat shows a rating not settled yet ("rating 1520?"), which the help explains."""
        table, ladder = self.client.model.table, self.client.ladder
        chairs = table.chairs if table is not None else ()
        return any(
            (ladder.rating(c.name) or "").endswith("?") for c in chairs if c.name and not c.bot
        )

    def _hand_height(self) -> int:
        return min(3, max(1, len(self._hand_rows())))

    def _status_lines(self) -> list[StyleAndTextTuples]:
        """The status as it is if it fits; else hints lose their last parts and a message
        wraps onto two lines (in the first part's style)."""
        width = self._columns() - 1
        status = self._status()
        text = "".join(fragment[1] for fragment in status)
        if cells(text) <= width or not status:
            return [status]
        style = status[0][0]
        if not self.screen.message:
            return [[(style, " " + shorten(text.strip(), width - 1))]]
        lines = wrap(text.strip(), width - 1)
        if len(lines) > 2:
            lines = [lines[0], cut(" ".join(lines[1:]), width - 1)]
        return [[(style, " " + line)] for line in lines]

    def _status_height(self) -> int:
        return len(self._status_lines())

    def _fitted_status(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for number, line in enumerate(self._status_lines()):
            out.extend([("", "\n")] if number else [])
            out.extend(line)
        return out

    # --- what each part shows ----------------------------------------------------------

    def _connection_part(self) -> tuple[int, str]:
        """The connection's state for the header: "[connected]" the first part to go on a
        narrow line (before who watches, which README promises the header counts: at 80
        columns with a clock a newcomer's pass saw no count), any other state
        ("reconnecting ...") the last (docs/reliability.md)."""
        state = self.screen.connection
        return (6 if state == "connected" else 0), f"[{state}]"

    def _header(self) -> StyleAndTextTuples:
        table, public = self.client.model.table, self.client.model.public
        if table is None:
            return [("class:title", " president — waiting for the table ...")]
        rules = f"{table.preset}{'+' if table.changed else ''}"
        hand = f"hand {public.hand_number + 1}" if public is not None else "not started"
        phase = public.phase.value.replace("_", " ") if public is not None else table.status
        # (no clock once the connection is gone for good: it counted down a turn this
        # window no longer plays, a host's pass, the seat taken back from another; nor
        # while the server restarts, which charges nobody the wait: 53 s, 45 s, then 57 s
        # once back, another host's pass.  A connection lost for a moment keeps it: the
        # turn still runs at the server)
        state = self.screen.connection
        away = state == "disconnected" or state.startswith("server restarting")
        left = None if away or self.screen.paused else self.screen.seconds_left()
        # (the order in force, while a game goes on: a game over reverses nothing)
        going = public if public is not None and public.phase is not Phase.GAME_OVER else None
        # (importance, text): the least important go first when the line is too narrow
        parts = [
            (2, table.name),
            (4, rules),
            (1, hand),
            (1, phase),
            (0, "REVOLUTION" if going is not None and going.revolution else ""),
            (0, "JACK BACK" if going is not None and going.jack_back else ""),
            (0, f"⏱ {left}s" if left is not None else ""),
            (0, "PAUSED" if self.screen.paused else ""),
            (5, f"{table.watchers} watching" if table.watchers else ""),  # (the first to go)
            (5, "password" if table.password else ""),
            self._connection_part(),
            (2, "? for help"),
        ]
        parts = [(rank, text) for rank, text in parts if text]
        width = self._columns() - 1
        if self.screen.connection != "connected" and cells(" · ".join(p for _, p in parts)) > width:
            parts[-2] = (0, f"[{_short_state(self.screen.connection)}]")
        first_tail = len(parts) - 2  # (the connection's state and "? for help")

        def drawn(kept: list[int]) -> int:
            """The header's length as drawn: " a · b · c" then "   state  ? for help"."""
            main = [cells(parts[i][1]) for i in kept if i < first_tail]
            tail = [cells(parts[i][1]) for i in kept if i >= first_tail]
            return (1 + sum(main) + 3 * max(0, len(main) - 1)) + (
                3 + sum(tail) + 2 * (len(tail) - 1) if tail else 0
            )

        kept = fit_parts(parts, width, " · ")  # (as drawn, within one or two columns)
        while len(kept) > 1 and drawn(kept) > width:
            kept.remove(max(kept, key=lambda i: (parts[i][0], i)))
        room = width - drawn(kept) - 3  # (the name and its " · ")
        if 0 not in kept and room >= 8:  # the table's name cut to the room, not gone
            parts[0] = (parts[0][0], middle_cut(table.name, room))
            kept.insert(0, 0)
        main = [parts[i][1] for i in kept if i < len(parts) - 2]
        tail = [parts[i][1] for i in kept if i >= len(parts) - 2]
        rest = "   " + "  ".join(tail) if tail else ""
        head: StyleAndTextTuples = [
            ("class:title", cut(" " + " · ".join(main), width - cells(rest)))
        ]
        if self.screen.connection == "connected" or not tail:
            return [*head, ("class:dim", rest)]
        state, *others = tail  # not connected: the state stands out
        return [
            *head,
            ("", "   "),
            ("class:message", state),
            ("class:dim", "".join(f"  {o}" for o in others)),
        ]

    def _seat_lines(self) -> list[tuple[str, str]]:
        """Each seat's line and style: who is there, and in a game their title, cards,
        points and flags, fitted to the panel."""
        width = self._seats_width()
        rows = self._seat_rows()
        if rows is None:
            return self._waiting_lines(width)
        return [
            ("class:turn" if row.turn else "", line)
            for row, line in zip(rows, seat_lines(rows, width))
        ]

    def _grid_lines(self, columns: int, height: int) -> list[list[tuple[str, str]]]:
        """The seats in `columns` compact cells a line, down each column in seat order,
        each cell in its own style (whose turn it is stands out)."""
        cell = self._seats_width() // columns
        rows = self._seat_rows()
        if rows is None:
            boxes = [(style, line.strip()) for style, line in self._waiting_lines(cell - 2)]
            boxes = [(style, "  " + middle_cut(text, cell - 3)) for style, text in boxes]
        else:
            texts = compact_seats(rows, cell - 1)
            boxes = [("class:turn" if row.turn else "", text) for row, text in zip(rows, texts)]
        lines = max(height, -(-len(boxes) // columns))
        out = []
        for line in range(lines):
            here = [
                boxes[c * lines + line] for c in range(columns) if c * lines + line < len(boxes)
            ]
            out.append([(style, pad(text, cell)) for style, text in here])
        return out

    def _waiting_lines(self, width: int) -> list[tuple[str, str]]:
        """Before the game: who sits where, and who is ready."""
        model, ladder = self.client.model, self.client.ladder
        table = model.table
        if table is None:
            return []
        out: list[tuple[str, str]] = []
        for seat, chair in enumerate(table.chairs, 1):  # (counted as people count)
            if not chair.name:
                out.append(("class:dim", f"  seat {seat}: empty"))
                continue
            me = " (you)" if chair.name == model.me else ""
            who = f"{chair.name} (bot)" if chair.bot else chair.name  # as the game names it
            ready = "ready" if chair.ready else "not ready"
            rating = None if chair.bot else ladder.rating(chair.name)
            rated = "" if rating is None else f" · rating {rating}"
            if cells(who) + len(rated) + len(me) + len(ready) + 4 > width:
                rated = ""  # a narrow panel: the name first
            who = middle_cut(who, max(4, width - len(me) - len(rated) - len(ready) - 4))
            line = f"  {who}{me}{rated}: {ready}"
            out.append(("class:turn" if chair.ready else "", line))
        return out

    def _seat_rows(self) -> list[SeatRow] | None:
        """The seats of the game as rows (None before a game, and after one once the
        chairs are no longer its seats: who sits there now, and who is ready, is then
        what the next game waits on)."""
        model, ladder = self.client.model, self.client.ladder
        table, public = model.table, model.public
        if table is None or public is None:
            return None
        if (
            public.phase is Phase.GAME_OVER
            and table.status != "playing"
            and tuple(chair.name for chair in table.chairs) != tuple(public.seating)
        ):
            # (a pass: the bots of the game left, a server bot came, and the screen kept
            # the old seats, one of them "away", while the game waited on an empty chair)
            return None
        return seat_rows(
            public,
            me=model.me,
            connected={chair.name: chair.connected for chair in table.chairs},
            rating=rating_column(table.chairs, ladder),
            skipped=skipped_seats(model.events, model.resumed),
        )

    def _seats_title(self) -> str:
        """The seats' frame says how many seats are out of view, if any are."""
        hidden = self._shown_seats()[1]
        return f"table (+{hidden} more)" if hidden else "table"

    def _shown_seats(self) -> tuple[list[list[tuple[str, str]]], int]:
        """The lines of seats that fit the panel, and how many seats are left out: when
        not all fit (12 at 60x16), the lines kept show whose turn it is and who played
        last (the turn first, if both cannot be in view)."""
        columns, height = self._seat_grid()
        lines = (
            [[line] for line in self._seat_lines()]
            if columns == 1
            else self._grid_lines(columns, height)
        )
        if len(lines) <= height:
            return lines, 0
        public = self.client.model.public
        # (a seat's cell is down each column in seat order: its line is seat mod lines)
        turn = None if public is None or public.turn is None else public.turn % len(lines)
        last = public.trick[-1][0] % len(lines) if public is not None and public.trick else None
        start = window_start(len(lines), height, [turn, last])
        shown = lines[start : start + height]
        hidden = sum(len(boxes) for boxes in lines) - sum(len(boxes) for boxes in shown)
        return shown, hidden

    def _seats(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        lines = self._shown_seats()[0]
        for number, boxes in enumerate(lines):
            turn = any(style == "class:turn" for style, _ in boxes)
            if turn and not any(f[0] == "[SetCursorPosition]" for f in out):
                out.append(("[SetCursorPosition]", ""))  # the window scrolls to show it
            for index, (style, text) in enumerate(boxes):
                last = index == len(boxes) - 1
                out.append((style, text.rstrip() if last else text))
            out.append(("", "\n" if number < len(lines) - 1 else ""))
        return out

    def _pile_line(self) -> StyleAndTextTuples:
        """The pile's line in the table's box (who played, the cards, the lock): the name
        cut in the middle so the cards and the lock stay (a long one pushed them out of
        the box, a newcomer's pass)."""
        width = self._seats_width()  # (the table's box, beside the log or across)
        pile = self._pile()
        if pile and pile[0][1].endswith(": "):
            who = pile[0][1][:-2]
            room = width - len(" pile  ") - len(": ") - sum(cells(t) for _, t, *_ in pile[1:])
            pile[0] = (pile[0][0], f"{middle_cut(who, max(6, room))}: ")
        return fit_fragments([("class:dim", " pile  "), *pile], width)

    def _pile(self) -> StyleAndTextTuples:
        return list(pile_line(self.client.model.public, self.client.model.me, card_style))

    def _notes(self) -> StyleAndTextTuples:
        """Beside the log on a wide screen: what is not an event (the exchange, the last
        hand's summary, the deal's check), then the table's rules."""
        screen = self.screen
        lines = [("class:message", screen.exchange_line)] if screen.exchange_line else []
        lines += [("", line) for line in screen.summary]
        deal = screen.deal_line()
        lines += [("class:dim", deal)] if deal else []
        if self.client.model.public is not None:
            rules = [("class:dim", line) for line in screen.rules_lines()]
            lines += [("", ""), *rules] if lines else rules
        width = self._left_width() - 2
        return [(style, part + "\n") for style, text in lines for part in wrap(text, width)]

    def _standings(self) -> str:
        size = self.app.output.get_size()
        rows = size.rows - 3 - self._status_height()  # the header, the frame, the status
        width = max(30, size.columns - 2)
        # as wide as its widest line, shown or not, so the box stays put as it scrolls
        widest = max((cells(line) for line in self.screen.standings(width)), default=0)
        shown = self.screen.standings(width, max(1, rows))
        return "\n".join(pad(line, widest) for line in shown)

    def _log(self) -> list[tuple[str, str]]:
        """The log's lines, oldest first: the rules before a game, then the events as they
        came; on a narrow screen the notes among them, when each came (beside the log on a
        wide one)."""
        lines: list[tuple[str, str]] = []
        if self.client.model.public is None:
            lines += [("", line) for line in self.screen.rules_lines()]
        here = "wide" if self._wide() else "narrow"
        lines += [(style, text) for where, style, text in self.screen.stream if where in ("", here)]
        return lines

    def _hand_rows(self) -> list[StyleAndTextTuples]:
        """My cards, each as a mark, its text and a mark, in rows of the hand's width."""
        screen = self.screen
        legal = screen.legal_ranks()
        width = self._columns() - 2
        rows: list[StyleAndTextTuples] = [[]]
        used = 0
        for index, card in enumerate(screen.hand()):
            text = card_text(card)
            if used and used + len(text) + 2 > width:
                rows.append([])
                used = 0
            style = card_style(card)
            if card.rank in legal:
                style += " class:legal"
            if index in screen.selected:
                style += " class:selected"
            here = index == screen.cursor
            rows[-1].append(("class:cursor", "[") if here else ("", " "))
            rows[-1].append((style, text, self._clicker(index)))
            rows[-1].append(("class:cursor", "]") if here else ("", " "))
            used += len(text) + 2
        return rows if rows[0] else []

    def _hand_title(self) -> str:
        """The hand's box: my cards, or the cards played I may take now (a take owed)."""
        taking = self.screen.taking()
        if not taking:  # (on my turn to play, what the underline means: the help had no
            # room; not in the exchange or owing a due, where every card may go)
            public = self.client.model.public
            playing = public is not None and public.phase is Phase.PLAY and public.due is None
            legal = playing and self.screen.legal_ranks()
            return "your hand: underlined cards can be played" if legal else "your hand"
        return (
            "name a rank: a card of each" if taking is RANK_CARDS else "the cards played: take one"
        )

    def _hand(self) -> StyleAndTextTuples:
        rows = self._hand_rows()
        if not rows:
            return [("class:dim", self._no_hand())]
        out: StyleAndTextTuples = []
        for number, row in enumerate(rows):
            out.extend(row)
            if number < len(rows) - 1:
                out.append(("", "\n"))
        return out

    def _no_hand(self) -> str:
        """What the hand's box says with no card in it: a watcher's, or mine before my
        sealed hand has come (the table's view, which counts my cards, may come a moment
        before it: back at my seat, or at a deal), or none left."""
        if self.client.model.slot is None:
            return "you are watching: every hand is private"
        return "your cards are coming..." if self.screen.cards_coming() else "no cards"

    def _clicker(self, index: int) -> Callable[[MouseEvent], None]:
        def click(event: MouseEvent) -> None:
            if event.event_type == MouseEventType.MOUSE_UP:
                self.screen.toggle(index)
                self.app.invalidate()

        return click

    def _status(self) -> StyleAndTextTuples:
        return [self.screen.status_line(self._columns() - 1)]


def create_key_bindings(table: TableApp) -> KeyBindings:
    """Every key of the table screen (the help overlay lists them)."""
    kb = KeyBindings()
    screen = table.screen
    # while the help is up, every key closes it and does nothing else
    playing = Condition(lambda: not table.typing and not screen.help)

    def later(coro: Awaitable[None]) -> None:
        table.log.follow()  # a move brings the log back to its newest line
        table.spawn(coro)

    add_help_keys(kb, screen, playing)
    add_play_keys(kb, table, playing)

    @kb.add("pageup", filter=playing)
    def _log_back(event: KeyPressEvent) -> None:
        table.log.page(1)

    @kb.add("pagedown", filter=playing)
    def _log_on(event: KeyPressEvent) -> None:
        table.log.page(-1)

    @kb.add("end", filter=playing)
    def _log_follow(event: KeyPressEvent) -> None:
        table.log.follow()

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
        # the table under the final standings, and back
        screen.standings_hidden = screen.game_over() and not screen.standings_hidden

    @kb.add("s", filter=playing)
    def _suggest(event: KeyPressEvent) -> None:
        screen.suggest()

    def staying() -> bool:
        """The key answers "press q again" with another key: it only says so."""
        if table.answering:
            screen.message = STAYING
        return table.answering

    @kb.add("enter", filter=playing)
    def _play(event: KeyPressEvent) -> None:
        if staying():
            return
        if screen.suggested_pass():  # (s suggested passing: enter takes it, as a play)
            _pass(event)
            return
        actions = screen.actions()
        if actions:
            later(table.send(*actions))

    @kb.add("p", filter=playing)
    def _pass(event: KeyPressEvent) -> None:
        if staying():
            return
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
        text, cut_short = typed_line(table.chat.text, m.CHAT_MOST)
        table.chat.text = ""
        table.chatting = False
        event.app.layout.focus(table.hand_window)
        if text:
            later(table.client.send(m.Chat(scope="table", text=text)))
        table.screen.message = cut_short

    @kb.add("escape", filter=Condition(lambda: table.chatting))
    def _unsay(event: KeyPressEvent) -> None:
        table.chat.text = ""
        table.chatting = False
        event.app.layout.focus(table.hand_window)

    @kb.add("o", filter=playing)
    def _close(event: KeyPressEvent) -> None:
        model = table.client.model
        if table.extras is not None:  # (`president play`: its own socket, no stranger)
            screen.message = "nobody else can come to this table: it needs no password"
        elif model.table is None or model.slot is None:
            screen.message = "a table's password is for its creator, at the table"
        elif table.client.version < m.TablePassword.SINCE:
            screen.message = (
                "this server is of an older version: a password is given when a table is made"
            )
        else:  # (the server says why not, if it will not: not its creator)
            table.closing = True
            event.app.layout.focus(table.secret)

    @kb.add("enter", filter=Condition(lambda: table.closing))
    def _closed(event: KeyPressEvent) -> None:
        text, table.secret.text = table.secret.text[: m.PASSWORD_MOST], ""
        table.closing = False
        event.app.layout.focus(table.hand_window)
        model = table.client.model
        if model.table is None:
            return
        screen.message = (
            "password set: tell it to the friends you wait for (who sits or watches from now on gives it)"
            if text
            else "password taken away: anyone may sit or watch"
        )
        later(table.client.send(m.TablePassword(table=model.table.name, password=text or None)))

    @kb.add("escape", filter=Condition(lambda: table.closing))
    def _unclosed(event: KeyPressEvent) -> None:
        table.secret.text = ""
        table.closing = False
        screen.message = ""
        event.app.layout.focus(table.hand_window)

    @kb.add("n", filter=playing)
    def _nudge(event: KeyPressEvent) -> None:
        if staying():
            return
        model = table.client.model
        if table.extras is not None:  # (`president play`: bots alone, no nudge in its help)
            screen.message = "nobody to nudge here: the bots never keep you waiting"
        elif model.slot is None:
            screen.message = "a nudge is for a player at the table"
        elif not model.playing:
            screen.message = "nobody to nudge: no hand is being played"
        elif table.client.version < m.Nudge.SINCE:
            screen.message = "this server is of an older version: it takes no nudges"
        else:  # (the server says why not, if it will not: a timer already runs, ...)
            later(table.client.send(m.Nudge(seen=model.seen)))

    @kb.add("r", filter=playing)
    def _ready(event: KeyPressEvent) -> None:
        model = table.client.model
        state = model.table
        if model.slot is None or state is None or state.status == "playing":
            screen.message = (
                "r starts another game once this one is over"
                if table.extras is not None  # (`president play`'s help says so)
                else "ready is for a seated player before a game"
            )
            return
        mine = state.chair_of(model.me)
        ready = not (mine is not None and mine.ready)
        screen.message = "ready: the game starts when every seat is ready" if ready else "not ready"
        later(table.client.send(m.Ready(ready=ready)))

    @kb.add("b", filter=playing)
    def _bot(event: KeyPressEvent) -> None:
        model = table.client.model
        if model.table is None or model.table.status == "playing":
            screen.message = "bots join between games"
            return
        screen.message = f"asked for a bot: {described(table.bots)}"
        later(table.client.send(m.AddBot(table=model.name, strategy=table.bots)))

    @kb.add("q", filter=playing)
    def _leave(event: KeyPressEvent) -> None:
        model = table.client.model
        in_game = model.slot is not None and model.playing
        if in_game and not table.leaving and screen.connection != "disconnected":
            asked = QUIT_AGAIN if table.extras is not None else LEAVE_AGAIN
            screen.message, screen.leave_asked = asked, True
            return
        table.leave()

    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        table.quit()

    return kb


class FinalStandings:
    """The final standings over the table: a screen of the shell's stack, drawn over the
    table's (its header and status line showing), with the table's keys and its own
    (which come first: they scroll the standings).  The table under it hears the server
    and the connection's state."""

    @property
    def while_small(self) -> str:
        return self.table.while_small

    def __init__(self, table: TableApp) -> None:
        self.table = table
        final = Frame(
            Window(
                FormattedTextControl(table._standings),
                # (the whole table's room, the header and status line aside: a box of its
                # own height over the table left pieces of the table around it)
                height=lambda: D.exact(max(1, table._rows() - 3 - table._status_height())),
            ),
            title=lambda: (
                "final standings (esc shows the table"
                + (", v its review)" if table.screen.can_review() else ")")
            ),
        )
        # (the help, `?`, is the table's float: the standings give way to it, or they hid it)
        over = ConditionalContainer(final, filter=Condition(lambda: not table.screen.help))
        self.container = FloatContainer(
            table.container, floats=[Float(over, top=1, left=0, right=0)]
        )
        self.bindings = merge_key_bindings([table.bindings, create_standings_bindings(table)])
        self.focus: Window = table.hand_window
        self.mouse = True

    async def on_message(self, message: m.Message) -> None:
        await self.table.on_message(message)

    def status(self, what: str) -> None:
        self.table.status(what)

    def key_pressed(self) -> None:
        self.table.key_pressed()

    def before_render(self) -> None:
        self.table.before_render()


def create_standings_bindings(table: TableApp) -> KeyBindings:
    """The keys that scroll the final standings (esc, the table's, puts them away)."""
    kb = KeyBindings()
    screen = table.screen
    playing = Condition(lambda: not table.typing and not screen.help)

    @kb.add("down", filter=playing)
    @kb.add("j", filter=playing)
    def _standings_on(event: KeyPressEvent) -> None:
        screen.scroll_standings(1)

    @kb.add("up", filter=playing)
    @kb.add("k", filter=playing)
    def _standings_back(event: KeyPressEvent) -> None:
        screen.scroll_standings(-1)

    @kb.add("pagedown", filter=playing)
    @kb.add("space", filter=playing)
    def _standings_page_on(event: KeyPressEvent) -> None:
        screen.scroll_standings(screen.standings_page)

    @kb.add("pageup", filter=playing)
    def _standings_page_back(event: KeyPressEvent) -> None:
        screen.scroll_standings(-screen.standings_page)

    return kb


def _short_state(state: str) -> str:
    """A connection's state in a few words: "server restarting — reconnecting (attempt
    3)" is "reconnecting (3)"."""
    found = re.search(r"reconnecting \(attempt (\d+)\)", state)
    if found:
        return f"reconnecting ({found.group(1)})"
    return state.split(" — ")[-1]

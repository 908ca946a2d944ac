"""Two keys of `president play` (issue 29), for a game against bots on this machine only:
`a` asks the coach (the search's play from your seat's view and its expected place,
beside the cheapest play that `s` chooses; a hand-over, a discard or a take owed, and
the cards to return in the exchange, too),
and once the game is over `v` opens its review in the replay viewer, each decision
judged.  The table screen (`app.py`) holds a
`PlayExtras` when `president play` gives it one, and calls `add_play_keys`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from president.bots.review import MORE_WORLDS, WORLDS, Advice, advise
from president.engine import Phase
from president.engine.record import NotARecord, loads
from president.protocol import messages as m
from prompt_toolkit.filters import Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from .replay import ReplayScreen
from .replay_app import ReplayApp, reviewed
from .review import action_text
from .shell import Shell
from .table import TableScreen, suggested

if TYPE_CHECKING:
    from ..connection import Client

#: Worlds the coach chooses its play in, and as many it measures both figures in: the
#: review's second look near a threshold (`review.MORE_WORLDS` times its 48).  At 48 the
#: same position's figure moved by about 0.09 of a place from one sample to the next (0.11
#: under `daifugo`); at 144 by 0.05 (0.07), answering in about half a second under
#: `daifugo` (the longest 1.4 s), at 192 hardly steadier (`scripts/bench_coach.py`).
COACH_WORLDS = WORLDS * MORE_WORLDS

COACH_KEY = "a"
REVIEW_KEY = "v"
#: The keys' lines in the table's help.
HELP = (
    (COACH_KEY, "the coach: the search's choice and its expected place, beside s's"),
    (REVIEW_KEY, "once the game is over: its review, each decision judged"),
)


@dataclass
class PlayExtras:
    """What `president play` gives its table screen: where the game's record is once
    written (None before), and who the player is (the review follows them)."""

    record: Callable[[], str | None]
    me: str
    worlds: int = COACH_WORLDS
    _tasks: set[asyncio.Future[None]] = field(default_factory=set)


class Table(Protocol):
    """What the keys need of the table screen (`app.TableApp`)."""

    screen: TableScreen
    shell: Shell
    extras: PlayExtras | None

    def ask_record(self) -> None:
        """Ask the server for the record of the game just ended (its review then opens)."""


def add_play_keys(kb: KeyBindings, table: Table, filter: Filter) -> None:
    """The coach's key and the review's, on a table that has `PlayExtras`."""

    @kb.add(COACH_KEY, filter=filter)
    def _coach(event: KeyPressEvent) -> None:
        ask_coach(table)

    @kb.add(REVIEW_KEY, filter=filter)
    def _review(event: KeyPressEvent) -> None:
        open_review(table)


def advice_text(advice: Advice, owed: int = 1) -> str:
    """The coach's word in one line.  `owed`: the cards owed now (a hand-over or a discard
    of several is weighed card by card: the coach names the first, and s's first)."""
    first = " first" if owed > 1 else ""
    chosen = action_text(advice.best) + (f" first of {owed}" if owed > 1 else "")
    best = f"coach: {chosen}, expected place {advice.expected:.1f}"
    if advice.other is None or advice.other_expected is None:
        return best
    if advice.other == advice.best:
        return f"{best} (as s suggests)"
    other = action_text(advice.other) + first
    if advice.other_expected <= advice.expected:  # (measured on worlds that did not choose)
        # (said the other way round: "Q♣ or s's 6♥: no clear difference (1.5, 1.1)" read as
        # the coach's pick with the worse figure, a user pass)
        # (and "s's return 4♥ is as good or better here (...; return 6♠: 2.5)" did not
        # say whose the second was, a newcomer's pass)
        # (and "as good here or better" was hard to parse, a newcomer's pass)
        return (
            f"coach: s suggests {other}, expected place {advice.other_expected:.1f}"
            f" (no worse than the search's own {chosen}: {advice.expected:.1f})"
        )
    return f"{best} · s: {other}, {advice.other_expected:.1f}"


def ask_coach(table: Table) -> None:
    """The search's play from this seat's view, weighed in the background; said on the
    status line when it comes (if it is still this turn)."""
    screen, extras = table.screen, table.extras
    if extras is None:
        screen.message = "the coach is for games against bots (president play)"
        return
    view = screen.seat_view()
    returning = view is not None and view.phase is Phase.EXCHANGE and view.return_size > 0
    playing = view is not None and view.phase is Phase.PLAY and screen.model.my_turn
    if view is None or not (returning or playing):
        screen.message = "the coach speaks when it is your turn to play or to return cards"
        return
    # a play, a pass, what a play owes (a hand-over, a discard, a take...) or a return of
    # the exchange: the search weighs the legal actions of the moment, whatever they are
    other = suggested(view)
    screen.message = "the coach is thinking ..."

    async def think() -> None:
        loop = asyncio.get_running_loop()
        advice = await loop.run_in_executor(None, advise, view, other, extras.worlds)
        if screen.seat_view() == view:  # (still the same moment)
            owed = view.due.size if view.due is not None and view.phase is Phase.PLAY else 1
            screen.message = advice_text(advice, owed)
            screen.kept_message = screen.message  # (until the next key: read at leisure)
            table.shell.invalidate()

    task = asyncio.ensure_future(think())
    extras._tasks.add(task)
    task.add_done_callback(extras._tasks.discard)


def open_review(table: Table) -> None:
    """The review of the game just played, in the replay viewer over the table (q comes
    back)."""
    screen, extras = table.screen, table.extras
    ended = screen.game_ended() if extras is None else screen.game_over()
    if not ended:
        screen.message = "the review opens once the game is over"
        return
    if extras is None:  # (a server's game, over or stopped: its record is the server's)
        table.ask_record()
        return
    path = extras.record()
    if path is None:
        screen.message = "the game's record is not written yet"
        return
    try:
        data = Path(path).read_bytes()  # (its own record, just written)
    except OSError as exc:
        screen.message = f"cannot read the record {path}: {exc}"
        return
    show_review(table, data, Path(path).name, extras.me)


class _Says(Protocol):
    message: str


class Viewing(Protocol):
    """What a review opens over: a screen with a message line, on a shell (the table's
    screen, or the lobby's: a player's last game, reviewed after leaving its table)."""

    @property
    def screen(self) -> _Says: ...

    @property
    def shell(self) -> Shell: ...


def show_review(table: Viewing, data: bytes, name: str, me: str) -> None:
    """A game's record (`data`, the file `name`) reviewed in the replay viewer over the
    table (or the lobby), following `me` (q comes back)."""
    _open(table, read_review(data, name), me)


async def show_review_soon(table: Viewing, data: bytes, name: str, me: str) -> None:
    """`show_review` for a record a server sent: read off the screen's loop (a long
    game's record of 3 MB took 9 s to read, the screen frozen, a hostile pass), the
    message line saying so meanwhile."""
    table.screen.message = f"reading the record {name} ..."
    read = await asyncio.to_thread(read_review, data, name)
    if table.screen.message == f"reading the record {name} ...":
        table.screen.message = ""
    _open(table, read, me)


def read_review(data: bytes, name: str) -> ReplayScreen | str:
    """A record's steps for the viewer, or why it shows none."""
    try:
        document = loads(data)
    except NotARecord as exc:
        return f"cannot read the record {name}: {exc}"
    replay = ReplayScreen.of(document, name)
    if not replay.steps:  # (a server's bytes: a hostile pass's record of no step ended
        # the table's screen, the viewer drawing a step it does not have)
        return f"the record {name} has nothing to show: {replay.verdict()}"
    return replay


def _open(table: Viewing, replay: ReplayScreen | str, me: str) -> None:
    """The viewer over `table` on what `read_review` gave (or its words on the line)."""
    if isinstance(replay, str):
        table.screen.message = replay
        return
    state, reviewer = reviewed(replay, focus=me)
    viewer = ReplayApp(replay, shell=table.shell, review=state, reviewer=reviewer)
    table.shell.push(viewer)


#: A kept record: (the table, the record's file name, its bytes), as `Client.game_record`.
Kept = tuple[str, str, bytes]


class RecordAsker:
    """`v` at a server (protocol 17), at its table or in the lobby: the record of a
    table's last game asked of the server, its review opened over `over` once it comes
    whole (`heard`), and kept, so that `v` again opens it (the server sends a key one
    record every few seconds)."""

    def __init__(
        self,
        client: Client,
        over: Viewing,
        me: Callable[[], str],
        send: Callable[[m.Message], object],
        opened: Callable[[], None] = lambda: None,
    ) -> None:
        self.client, self.over, self.me, self.send, self.opened = client, over, me, send, opened
        #: The table whose game's record was asked for, until it comes ("": none).
        self.asked = ""
        self.kept: Kept | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def ask(self, table: str, asking: str, wait: str = "") -> None:
        """`table`'s record: the kept one opened, or asked of the server (the message line
        saying `asking`), unless `wait` says why not now."""
        says = self.over.screen
        if self.client.version < m.GameRecord.SINCE:
            says.message = (
                "this server does not send a game's record (an older president): the host"
                " has it in the server's records/ folder"
            )
            return
        kept = self.kept
        if kept is not None and kept[0] == table:
            self.review(kept)
            return
        if wait:
            says.message = wait
            return
        self.client.game_record = None
        self.asked, says.message = table, asking
        self.send(m.RecordAsk(table=table))

    def heard(self, message: m.Message) -> None:
        """A server message: the record asked for, whole (its review opens), or dropped
        (the client says why), or refused (the screen says why)."""
        if isinstance(message, m.Error) and message.about == m.RecordAsk.TYPE:
            self.asked = ""
        if not isinstance(message, m.GameRecord):
            return
        came, self.client.game_record = self.client.game_record, None
        if came is not None:
            if came[0] == self.asked:
                self.asked, self.kept, self.over.screen.message = "", came, ""
                self.review(came)
        elif not message.more and self.asked:
            self.asked = ""
            self.over.screen.message = (
                f"the server's record could not be read: {self.client.record_dropped}"
            )

    def review(self, record: Kept) -> None:
        """The record's review over `over`, read off the screen's loop; `opened` after."""

        async def go() -> None:
            await show_review_soon(self.over, record[2], record[1], self.me())
            self.opened()

        task = asyncio.ensure_future(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

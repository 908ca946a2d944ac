"""One table: its chairs, its game, and what each member is sent.

The engine is the authority.  Every operation takes the table's lock, changes the table,
journals the change (before anything is sent), numbers what it sends, and sends each
member only what the engine allows it: the public view and public events to everyone
(`protocol.wire` maps them), each seat's own cards sealed to it.  The game itself is
driven by a `Driver` (driver.py); the chairs are `Chairs` (seats.py); the fair deal is
`DealSecret` (dealing.py)."""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from president.bots.strategies import Strategy
from president.engine import (
    Action,
    Card,
    Dealt,
    Event,
    Game,
    GameOver,
    Gave,
    HandedOver,
    HandOver,
    HandStarted,
    IllegalAction,
    NotYourTurn,
    Phase,
    Returned,
    Took,
)
from president.engine.record import action_to_json, last_step, to_record
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.errors import Code
from president.protocol.sealing import seal_hand

from .config import TableSettings, password_checks
from .dealing import DealSecret
from .driver import Driver
from .history import HandLog
from .journal import Entry, Journal, WriteFailed
from .ladder import Ratings, hand_result
from .ratings import HandResult, Record
from .seats import Chairs, Member, Slot, TableError, seat_gone

log = logging.getLogger("president.server")

Status = Literal["waiting", "playing", "finished"]
#: Deal checks are kept for this many of the latest hands (the one revealed last, and a
#: few before it for a slow client).
RECENT_CHECKS = 4
#: A chair taken back (by key, `join`, or by token, `resume`) waits until this long after
#: it was last taken back: a player back from a crash comes once, a loop of leave and
#: coming back (each a view to the whole table, the hand so far, and journal entries a
#: game with no timer never compacts) is slowed to one a second a chair
#: (scripts/attack_rejoin_journal.py).
REJOIN_SECONDS = 1.0
#: A table's view names this many of the people watching it (the first to come), and
#: counts them all (protocol 14).
WATCHERS_NAMED = 12
#: Seconds within which everyone at a table hears who came to watch or went (once for
#: however many did meanwhile).
WATCHERS_EVERY = 0.5
#: The shortest turn a seat whose time keeps running out with its person here is given
#: (`Table.turn_time`): time enough for a person back at the keyboard to move.
IDLE_FLOOR_SECONDS = 10.0
#: The part of a clock (the turn timer's, or a nudge's) a person's move may take and
#: cost its next turns nothing (`free_time`): half of it, or 10 s if that is more (the
#: whole of a clock of 10 s or less).  A quarter made a steady thinker who took 12 s of
#: every 30 time out from their tenth move on (a recheck's simulation): half leaves the
#: host's turn time to anyone none of whose moves takes more than half of it.
FREE_SHARE = 0.5
#: How long a chair freed for a person who did not say ready is kept for the table's own
#: players to fill with a bot (`Table.unseat_unready`; the ready time, if shorter): a
#: hostile pass took it again from a fresh address within a millisecond of its freeing,
#: before anyone could press `b`, and so held a table from starting for as long as it
#: had addresses.
KEPT_SECONDS = 15.0
#: How long a table remembers a person who held it up by not saying ready (by name):
#: sitting again within it goes on with the time they had (`Table.unseat_unready`).
UNREADY_MEMORY = 600.0
#: A game that moved within this long is under way for the connection cap: its players
#: are not evicted for a newcomer (`Table.moving`; a person may think a while, the turn
#: timer is at most 600 s, and a hand's end pauses a few seconds).
MOVING_SECONDS = 120.0
#: Called with a table's name and the record of a game that ended there: writes it, and
#: says where it went (None: nowhere a player may be sent it from).
OnRecord = Callable[[str, dict[str, Any]], "str | None"]

#: What a table's members are told when its journal cannot be written.
CANNOT_WRITE = "the server cannot write its journal (disk full?); the table is paused"
PAUSED = m.Error(code=Code.SERVER_ERROR, message=CANNOT_WRITE)


class Unseated(NamedTuple):
    """A person `Table.unseat_unready` freed a chair of: their name, the address they sat
    from, and their connection (None: they were away)."""

    name: str
    address: str
    member: Member | None


class Table:
    def __init__(
        self,
        settings: TableSettings,
        on_record: OnRecord,
        *,
        clock: Callable[[], float] = time.monotonic,
        journal: Journal | None = None,
        log_id: int | None = None,
        slots: list[Slot] | None = None,
        ratings: Ratings | None = None,
    ) -> None:
        """A table as created (`journal` given: it is written down from here) or as the
        journal holds it (`log_id` given too: see `restored`)."""
        self.settings = settings
        self.name = settings.name
        self.chairs = Chairs(slots or [Slot() for _ in range(settings.seats)], settings.name)
        self.wire_rules = wire.rules_to_wire(settings.preset, settings.rules)
        self.game: Game | None = None
        self.status: Status = "waiting"
        #: Told this table's name whenever its chairs change (the lobby's `changed`: the
        #: list went stale when a chair was freed after its grace, a newcomer's pass).
        self.on_seats: Callable[[str], None] = lambda name: None
        #: The number of the last event sent here (every event and sealed hand takes one).
        self.number = 0
        #: The public events of the hand in play, as sent: told to whoever comes mid-hand.
        self.hand_log = HandLog()
        #: The game's decisions the timeout rule made, and why, by hand and action (from
        #: 0, as its record counts them: written there, docs/records.md's `timeout`).
        self.timeouts: dict[tuple[int, int], m.TimeoutReason] = {}
        #: The number of the hand's first event, and of the last move the timeout rule
        #: made for each seat in it: an action chosen before either answers a turn that
        #: is gone (`act`; not kept across a restart, which drops every connection).  And
        #: of the last move anyone made (a nudge pressed before it is stale): moves, not
        #: `number`, which a snapshot sent to one member moves on unseen by the others.
        self._hand_began = self._last_move = 0
        self._timed_out: dict[int, int] = {}
        #: The game's ended hands as last sent with a snapshot (`_results_of`).
        self._results: tuple[Game, int, list[m.GameResults]] | None = None
        self.lock = asyncio.Lock()
        #: The view that will tell everyone here who watches (`_watchers_changed`).
        self._telling_watchers: asyncio.Task[None] | None = None
        self.on_record = on_record
        #: The record of the game that last ended here (where it was written, None if
        #: nowhere, or none since the server started), and the player keys (ids) of the
        #: people who played it, who may ask for it (`record_ask`): each dealt a hand of
        #: it (`dealt_keys`, this game's), those who left it too, and nobody who only sat
        #: in a chair freed during its last hand (a hostile pass had every hand so).
        self.record_file: str | None = None
        self.record_keys: frozenset[str] = frozenset()
        self.dealt_keys: set[str] = set()
        self.clock = clock
        #: Since when its maker has held tables without a break (`Lobby.held_since`; when
        #: it was made, or brought back by a restart, until the lobby says), which
        #: `Lobby.make_room` counts its age from.
        self.held_since = clock()
        self.deal_secret: DealSecret | None = None
        self.deal_checks: dict[int, dict[str, bool]] = {}
        self.driver = Driver(self, settings, clock)
        self._rng = random.Random(secrets.randbits(64))
        self._later: set[asyncio.Task[None]] = set()
        #: When each chair was last taken back by key (this table's clock).
        self._taken_back: dict[int, float] = {}
        #: Take-backs asked per chair, so far (`_wait_to_take_back`: the last one wins).
        self._take_back_asked: dict[int, int] = {}
        #: By name, how long each person in a chair has held up this full table by not
        #: saying ready while its creator was, and when they last did (`unseat_unready`).
        self._held_up: dict[str, tuple[float, float]] = {}
        #: Until when the chairs `unseat_unready` last freed are kept for a bot the
        #: table's own players add (`KEPT_SECONDS`; None: none kept).
        self._kept_until: float | None = None
        #: When its creator last changed its password (`lobby._table_password`).
        self.password_changed = float("-inf")
        #: The name and address of the person whose leaving kept the chair (empty if none).
        self._kept_from = ("", "")
        #: The ready time the lobby last looked with (`unseat_unready`'s `wait`).
        self._ready_wait = 0.0
        #: When `unseat_unready` last found the table held up (None: not at its last look).
        self._looked: float | None = None
        self.journal = journal
        self.log_id = log_id
        #: The ladder a finished hand here is counted on (None: not rated), and the id of
        #: the game in progress (journaled with it: a hand is counted once per game id).
        self.ratings = ratings
        self.game_id = ""
        #: Entries not yet written (the journal failed): while there are any the table is
        #: paused, and what it would send is held back with them.  An entry that ends a
        #: hand carries its result, counted on the ladder when the entry is written.
        self.unwritten: list[tuple[str, dict[str, Any], HandResult | None]] = []
        self._held: list[tuple[Member, m.Message]] = []
        self._paused_left: float | None = None
        #: When the game here last moved (an action, or its start): `moving`.
        self.moved_at = clock()
        #: The last game's record is written (or there was none): its rows may go.
        self._recorded = True
        if journal is not None and log_id is None:
            try:
                self.log_id = journal.open_table(self.name)
            except WriteFailed:
                log.error("table %s: not made: the journal cannot be written", self.name)
                raise TableError(
                    Code.SERVER_ERROR, "the server cannot write its journal (disk full?)"
                ) from None
            self.note("table", settings.entry())
            self.note_seats()

    @classmethod
    def restored(
        cls,
        settings: TableSettings,
        on_record: OnRecord,
        *,
        clock: Callable[[], float],
        slots: list[Slot],
        game: Game | None,
        status: Status,
        number: int,
        deal_secret: DealSecret | None,
        remaining: float | None,
        journal: Journal | None = None,
        log_id: int | None = None,
        ratings: Ratings | None = None,
        game_id: str = "",
        hand_log: HandLog | None = None,
        timeouts: Mapping[tuple[int, int], m.TimeoutReason] | None = None,
        dealt_keys: Iterable[str] = (),
        ended: tuple[str, frozenset[str]] | None = None,
    ) -> Table:
        """The table as its journal left it (restore.py replays the journal): a game in
        progress waits `resume_seconds` for its people, its turn timer held at what was
        left."""
        table = cls(
            settings,
            on_record,
            clock=clock,
            journal=journal,
            log_id=log_id,
            slots=slots,
            ratings=ratings,
        )
        table.game, table.status, table.game_id = game, status, game_id
        table.number, table.deal_secret = number, deal_secret
        # (a nudge pressed on a view from before the restart is stale: moves since then
        # may not have reached it)
        table._last_move = number
        table.hand_log = hand_log or HandLog()
        table.timeouts = dict(timeouts or {})
        table.dealt_keys = set(dealt_keys)
        if ended is not None:
            table.record_file, table.record_keys = ended
        table.driver.timer.resume_until = clock() + settings.resume_seconds
        if status == "playing":
            table.driver.timer.held = remaining
        return table

    def resume_after_restart(self) -> None:
        """Set a restored table going: its game driven again, or (no game on) nobody who
        is not back yet ready to start one."""
        if self.status == "playing":
            self.driver.start()
        else:
            self.chairs.unready_absent()

    # --- the journal ---------------------------------------------------------------------

    def note(self, kind: str, body: dict[str, Any], result: HandResult | None = None) -> None:
        """Write one entry of this table's journal (before what it records is sent), and
        with it, in one transaction, the `result` of the hand it ends on the ladder.  If
        it cannot be written, the table pauses (see `_pause`)."""
        if self.journal is None or self.log_id is None:
            self._count(result)
            return
        if self.unwritten:
            self.unwritten.append((kind, body, result))
            return
        try:
            self._write(kind, body, result)
        except WriteFailed as exc:
            self.unwritten.append((kind, body, result))
            self._pause(exc)

    def _write(self, kind: str, body: dict[str, Any], result: HandResult | None) -> None:
        journal, log_id = self.journal, self.log_id
        assert journal is not None and log_id is not None
        ratings = self.ratings
        records = None if result is None or ratings is None else self._rated(result)
        if result is None or ratings is None or records is None:
            journal.append(log_id, kind, body)
            return
        with journal.together():  # the hand's end and its count: both or neither
            journal.append(log_id, kind, body)
            ratings.write(result, records)
        ratings.take(result, records)

    def _rated(self, result: HandResult) -> list[Record] | None:
        """The ladder's new records for the hand `result` ends (None: none to write).  A
        fault of the ladder's leaves the hand unrated and the game going: its journal row
        is written all the same (the game in memory has moved on; a row missing would
        leave a journal that no longer rebuilds it)."""
        assert self.ratings is not None
        try:
            return self.ratings.changes(result)
        except Exception:
            log.exception(
                "the ladder could not count hand %d of %s: not rated", result.hand, result.game
            )
            return None

    def _count(self, result: HandResult | None) -> None:
        """No journal: the hand is counted on the ladder in memory only."""
        if result is not None and self.ratings is not None:
            records = self._rated(result)
            if records is not None:
                self.ratings.take(result, records)

    def note_seats(self) -> None:
        """The chairs changed: journaled, and the lobby told (`on_seats`)."""
        self.note("seats", {"seats": self.chairs.entries()})
        self.on_seats(self.name)

    @property
    def paused(self) -> bool:
        """The journal cannot be written: no move is made and nothing is sent here."""
        return bool(self.unwritten)

    @property
    def attended(self) -> bool:
        """A person is connected here, in a chair or watching (server bots are nobody):
        the game moves only then (`Driver._unattended`)."""
        chairs = self.chairs
        return bool(chairs.spectators) or any(slot.member is not None for slot in chairs.slots)

    def compacted_log(self) -> list[Entry]:
        """The entries that rebuild this table as it is, when no game is in progress."""
        return [
            Entry("table", self.settings.entry()),
            Entry("seats", {"seats": self.chairs.entries()}),
            Entry("end", self._end_entry()),
        ]

    def _end_entry(self) -> dict[str, Any]:
        """The journal's "end" entry: the status, and the record of the game that ended
        here with who may have it (`record_ask` after a restart: a pass was told "no game
        has ended at friday since the server started" beside that game's standings)."""
        entry: dict[str, Any] = {"status": self.status, "number": self.number}
        if self.record_file is not None:
            entry["record"] = self.record_file
            entry["keys"] = sorted(self.record_keys)
        return entry

    def _pause(self, exc: BaseException) -> None:
        """A journal write failed: hold back everything this table would send from here,
        stop the game (the turn timer too), tell the members (once), and try the write
        again every `journal_retry_seconds` until it goes in."""
        log.error(
            "table %s: the journal cannot be written (%s); the table is paused and tries "
            "again every %g s",
            self.name,
            exc,
            self.settings.journal_retry_seconds,
        )
        timer = self.driver.timer
        running = timer.deadline is not None or timer.idle_left is not None
        self._paused_left = timer.remaining() if running else None
        timer.deadline = timer.idle_left = None  # (the pause keeps the time now)
        for member in self.chairs.members():
            member.deliver(PAUSED)
        self.driver.wake()
        task = asyncio.get_running_loop().create_task(self._retry_journal())
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def _retry_journal(self) -> None:
        journal, log_id = self.journal, self.log_id
        assert journal is not None and log_id is not None
        while self.unwritten and not self.driver.suspended:  # (suspended: the server stops)
            await asyncio.sleep(self.settings.journal_retry_seconds)
            async with self.lock:
                if self.driver.suspended:
                    return
                try:
                    while self.unwritten:
                        self._write(*self.unwritten[0])
                        del self.unwritten[0]
                except WriteFailed:
                    continue
                self._go_on()

    def _go_on(self) -> None:
        """Every entry is written: send what was held back, in order, and play on."""
        log.warning("table %s: the journal is written again; the table goes on", self.name)
        held, self._held = self._held, []
        for member, message in held:
            member.deliver(message)
        if self._paused_left is not None and self.status == "playing":
            self.driver.timer.deadline = self.clock() + self._paused_left
        self._paused_left = None
        self.broadcast_view()
        self.driver.wake()

    def _writable(self) -> None:
        """Refuse a change while the journal cannot be written."""
        if self.unwritten:
            raise TableError(Code.SERVER_ERROR, CANNOT_WRITE)

    def _deliver(self, member: Member, message: m.Message) -> None:
        """The one way this table sends: held back while entries wait to be written."""
        if self.unwritten:
            self._held.append((member, message))
        else:
            member.deliver(message)

    # --- reading --------------------------------------------------------------------------

    @property
    def slots(self) -> list[Slot]:
        return self.chairs.slots

    def seat_of(self, member: Member) -> int | None:
        """The member's seat in the game's current seating (None if not playing)."""
        index = self.chairs.index_of(member)
        if index is None or self.game is None:
            return None
        name = self.chairs.slots[index].name
        return self.game.seating.index(name) if name in self.game.seating else None

    def members(self) -> list[Member]:
        return self.chairs.members()

    def info(self) -> m.TableInfo:
        changes = {k: v for k, v in self.wire_rules.items() if k != "preset"}
        return m.TableInfo(
            name=self.name,
            preset=self.settings.preset,
            changes=", ".join(f"{k}={v}" for k, v in changes.items())[:500],
            seats=self.settings.seats,
            players=tuple((f"bot:{s.strategy}" if s.bot else s.name)[:40] for s in self.chairs),
            status=self.status,
            password=self.settings.password is not None,
            turn_seconds=self.settings.turn_seconds,
            spectators=len(self.chairs.spectators),
        )

    def view(self) -> m.TableView:
        """The public state, after event `number`: what every member is sent."""
        left = self._time_left()
        game = self.game
        public = None
        if game is not None and game.hand >= 0:
            public = wire.public_view_to_wire(game.public_view())
        return m.TableView(
            table=self.name,
            number=self.number,
            status=self.status,
            rules=self.wire_rules,
            chairs=tuple(s.to_wire() for s in self.chairs),
            turn_deadline_ms=0 if left is None else int(min(left, 3600.0) * 1000),
            game=public,
            watchers=len(self.chairs.spectators),
            watching=tuple(w.name for w in self.chairs.spectators[:WATCHERS_NAMED]),
            kept_ms=int(min(self._kept_left(), 3600.0) * 1000),
            turn_seconds=self.settings.turn_seconds,
            turn_ms=self._turn_ms(),
            password=self.settings.password is not None,
        )

    def _turn_ms(self) -> int:
        """The whole time the running clock began with, in ms, as a view says (0: none
        runs, or not known after a restart)."""
        timer = self.driver.timer
        if timer.length is None or timer.remaining() is None or self.status != "playing":
            return 0
        return int(min(timer.length, 3600.0) * 1000)

    def _time_left(self) -> float | None:
        """Seconds until the timeout rule moves, as a view says: after a restart, while a
        seat owing a move is not back, what is left of the window for it; else the turn
        timer's (or a nudge's), or at a table with no turn timer what is left of the grace
        period of a seat the table waits for while it is away (None: nothing runs)."""
        timer, game = self.driver.timer, self.game
        left = timer.remaining()
        if game is None or self.status != "playing":
            return left
        if timer.resume_until is not None:  # restarted: the clock held while the window
            waits = self._away_waits(game)  # for the seats owing a move to come back runs
            if waits:  # (a pass saw 0s for a minute: the held time counted down, not this)
                return min(waits.values())
        if self.settings.turn_seconds:
            return left
        ends = [] if left is None else [left]  # (a nudge's clock, or the first wait to end)
        return min([*ends, *self._away_waits(game).values()], default=None)

    def _away_waits(self, game: Game) -> dict[int, float]:
        """At a table with no turn timer, each seat owing a move that is away: the seconds
        until the timeout rule moves for it, as the driver counts them."""
        waits = {seat: self.driver.away_wait(seat) for seat in game.actors}
        return {seat: wait for seat, wait in waits.items() if wait is not None}

    # --- members' operations (each under the table's lock) -------------------------------

    async def _check_password(self, password: str | None, member: Member) -> None:
        """Before the table's lock is taken: the check takes a while (scrypt, in a thread)
        and the game here goes on meanwhile."""
        want = self.settings.password
        address = getattr(member, "address", "")
        if want is not None and not await password_checks(want, password, address):
            raise TableError(
                Code.WRONG_PASSWORD, f"the password for table {self.name} does not match"
            )

    async def join(self, member: Member, seat: int | None, password: str | None) -> None:
        self.chairs.may_sit(member)  # (this very connection: no password to ask)
        held = self.chairs.held_by_key(member)
        if held is None:
            await self._check_password(password, member)
        else:  # (their own chair, by key: the password was given when they first sat)
            await self._wait_to_take_back(held)
        checked = held is None
        async with self.lock:
            self._writable()
            held = self.chairs.held_by_key(member)
            if held is not None:  # the same player, back by key: their own chair
                self._back_in(member, self.chairs.reclaim(member, held), held, new_token=True)
                log.info("table %s: %s took chair %d back by key", self.name, member.name, held)
                return
            if not checked and self.settings.password is not None:  # (gone meanwhile)
                raise TableError(
                    Code.WRONG_PASSWORD,
                    f"your chair at {self.name} is gone: give the password to sit again",
                )
            game = self.game
            if (
                self.status == "playing"
                and game is not None
                and member.name in game.seating
                and self.chairs.index_of(member) is None
            ):
                raise TableError(
                    Code.NOT_ALLOWED, f"{member.name} is still in the game at {self.name}"
                )
            left = self._kept_for(member)
            if left:
                raise TableError(
                    Code.NOT_ALLOWED,
                    f"a chair at {self.name} was just freed from a player who did not say"
                    " ready: its players may fill it with a bot first; try again in"
                    f" {math.ceil(left)} s",
                )
            slot = self.chairs.sit(member, seat)
            if self.status == "playing":
                slot.ready = (
                    True  # sits in from the next hand (docs/rules.md, "Players coming and going")
                )
            self.note_seats()
            self._deliver(
                member,
                m.Seated(table=self.name, seat=self.chairs.slots.index(slot), token=slot.token),
            )
            self.broadcast_view()
            self._snapshot(member)
            self.driver.wake()  # (a table nobody was at goes on)

    def _kept_for(self, member: Member) -> float:
        """Seconds the chair freed from a person who held the table up is still kept from
        `member` for the table's own bot (`KEPT_SECONDS`); 0 if it is not: none kept, the
        table filled meanwhile (a full table's refusal says it), or a game on; or
        `member` is at the creator's machine, or is the person who left, back (its time
        goes on, not afresh)."""
        left, creator, (name, address) = self._kept_left(), self.settings.creator, self._kept_from
        if (creator is not None and member.address == creator[0]) or member.name == name:
            return 0.0
        return 0.0 if member.address == address else left

    def _kept_left(self) -> float:
        """Seconds a chair freed from a person who held the table up is still kept for
        the table's own bot, as everyone there is told (`TableView.kept_ms`); 0 if none
        is: none kept, the table filled meanwhile, or a game on."""
        kept = self._kept_until
        if kept is None or not self.chairs.free() or self.status == "playing":
            return 0.0
        return max(0.0, kept - self.clock())

    async def set_password(self, stored: str | None) -> None:
        """Its creator's new password (its scrypt hash), or None: none.  Whoever sits down
        or comes to watch from now on gives it; who is here stays (journaled: a restart
        keeps it)."""
        async with self.lock:
            self.settings.password = stored
            self.note("password", {"password_scrypt": stored})
            self.broadcast_view()

    async def spectate(self, member: Member, password: str | None) -> None:
        self.chairs.may_watch(member)  # (this very connection: no password to ask)
        await self._check_password(password, member)
        async with self.lock:
            self.chairs.watch(member)
            self._watchers_changed()  # (everyone there is told who watches, soon)
            self._snapshot(member)
            if self.paused:  # what it shows now waits with the rest: say why
                member.deliver(PAUSED)
            self.driver.wake()  # (a table nobody was at goes on)

    async def leave(self, member: Member) -> None:
        """A member walks away.  Mid-game their seat is played by the timeout rule until
        the hand ends; then they leave the game (docs/rules.md, "Players coming and going")."""
        async with self.lock:
            if member in self.chairs.spectators:
                self.chairs.spectators.remove(member)
                self._watchers_changed()  # (no longer watching, as everyone there is told)
                self.driver.wake()  # (the last person gone: the game waits)
                return
            index = self.chairs.index_of(member)
            if index is None:
                raise TableError(Code.NOT_ALLOWED, f"you are not at {self.name}")
            slot = self.chairs.slots[index]
            if self._in_game(slot):
                slot.member, slot.leaving, slot.away_since = None, True, self.clock()
                self.driver.wake()  # if the seat owes a move, the timeout rule makes it now
            else:
                if not slot.ready and self._looked is not None:  # (it held the table up)
                    # (kept for the table's bot as a chair freed by the lobby is: a second
                    # pass left a second before its time was up, and the next address sat
                    # at once with all of it)
                    self._kept_until = self.clock() + min(KEPT_SECONDS, self._ready_wait)
                    # (its time goes on if it sits again, kept by name and address)
                    self._kept_from = (slot.name, slot.address)
                self.chairs.vacate(index)
            self.note_seats()
            self.broadcast_view()

    async def drop(self, member: Member) -> None:
        """The member's connection is gone: keep the seat for the grace period."""
        async with self.lock:
            if member in self.chairs.spectators:
                self.chairs.spectators.remove(member)
                self._watchers_changed()  # (no longer watching, as everyone there is told)
                self.driver.wake()  # (the last person gone: the game waits)
                return
            index = self.chairs.index_of(member)
            if index is None:
                return
            slot = self.chairs.slots[index]
            if self.status == "playing":
                slot.member, slot.away_since = None, self.clock()
                self._reckon_owed()
                self.driver.wake()  # with no turn timer, the wait for the seat is its grace
            else:
                self._hold_for_grace(slot)
                self.note_seats()
            self.broadcast_view()

    async def resume(self, member: Member, seat: int, token: bytes) -> None:
        self.chairs.check_token(seat, token)  # (only its owner's take-back waits its turn)
        await self._wait_to_take_back(seat)
        async with self.lock:
            slot = self.chairs.claim(member, seat, token)
            self._back_in(member, slot, seat, new_token=False)

    def _reckon_owed(self) -> None:
        """After anything that changes who is away or who owes a move (a drop, a seat
        taken back, a move, a deal; under the lock): each seat's time away while owing
        (`Slot.owed_away`) counted up to now, or to when nobody was left here (that time
        is nobody's: `excuse_absences`), and whether it runs on from now."""
        game = self.game
        if game is None or self.status != "playing":
            return
        unattended = self.driver.unattended_since
        now = self.clock() if unattended is None else unattended
        actors = game.actors
        for seat, name in enumerate(game.seating):
            slot = next((s for s in self.chairs.slots if s.name == name), None)
            if slot is None:
                continue
            owing = seat in actors and not slot.present and slot.bot is None
            if slot.owed_from is not None and not owing:
                slot.owed_away += max(0.0, now - slot.owed_from)
                slot.owed_from = None
            elif slot.owed_from is None and owing:
                slot.owed_from = now

    async def _wait_to_take_back(self, chair: int) -> None:
        """A chair taken back again within `REJOIN_SECONDS` of the last time waits for the
        rest of it (the first time back is at once). Of take-backs that wait together, the
        last asked wins: an older one still waiting is refused (two waiting ones woke in
        either order, and a client's resume from a connection already lost to a reset
        could land after the one from its new connection, and replace it: the client,
        told "replaced", stopped reconnecting; the flaky-network test caught it)."""
        ticket = self._take_back_asked[chair] = self._take_back_asked.get(chair, 0) + 1
        wait = self._taken_back.get(chair, -REJOIN_SECONDS) + REJOIN_SECONDS - self.clock()
        if wait > 0:
            await asyncio.sleep(min(wait, REJOIN_SECONDS))
        if self._take_back_asked.get(chair) != ticket:
            raise TableError(
                Code.NOT_ALLOWED, f"a newer connection is taking chair {chair} back at {self.name}"
            )

    def _back_in(self, member: Member, slot: Slot, seat: int, *, new_token: bool) -> None:
        """`member` has its chair back (by token or by key): it no longer leaves, and it
        is told where it sits and what the table is like (under the lock).  When is kept
        (`_wait_to_take_back`)."""
        self._taken_back[seat] = self.clock()
        slot.lapsed = False  # (back: its turns have their time again)
        self._reckon_owed()  # (what it was away owing is kept: `Slot.owed_away`)
        if slot.leaving or new_token:  # (the journal keeps the token's hash)
            slot.leaving = False
            self.note_seats()
        self._deliver(member, m.Seated(table=self.name, seat=seat, token=slot.token))
        if self.paused:
            member.deliver(PAUSED)
        self.broadcast_view()
        self._snapshot(member)
        self.driver.wake()

    async def add_bot(self, strategy: str, seat: int | None, added_by: str = "") -> None:
        async with self.lock:
            self._writable()
            if self.status == "playing":
                raise TableError(Code.NOT_ALLOWED, "bots join between games")
            self.chairs.add_bot(strategy, seat).added_by = added_by
            self.note_seats()
            self.broadcast_view()
            self._start_if_ready()

    async def remove_bot(self, seat: int) -> None:
        async with self.lock:
            self._writable()
            if self.status == "playing":
                raise TableError(Code.NOT_ALLOWED, "bots leave between games")
            self.chairs.remove_bot(seat)
            self.note_seats()
            self.broadcast_view()

    async def ready(self, member: Member, ready: bool) -> None:
        async with self.lock:
            self._writable()
            if self.chairs.set_ready(member, ready):
                self.note_seats()
            self._start_if_ready()
            self.broadcast_view()

    async def act(self, member: Member, action: Action, seen: int = 0) -> None:
        """A member's play, pass or return: checked by the engine for their own seat.
        `seen`, when said (protocol 13): the last event the member had when it chose; an
        answer to a turn the timeout rule has played since, or to an earlier hand, is
        refused as stale rather than taken for a turn it was not meant for."""
        async with self.lock:
            if self.driver.suspended:
                raise TableError(Code.SERVER_CLOSING, "the server is shutting down")
            self._writable()
            seat = self.seat_of(member)
            if self.game is None or seat is None or self.status != "playing":
                raise TableError(Code.NOT_ALLOWED, "you are not playing at a table")
            if seen:
                self._fresh(seat, seen)
            try:
                self.apply(seat, action)
            except NotYourTurn as exc:
                raise TableError(Code.NOT_YOUR_TURN, str(exc)) from None
            except IllegalAction as exc:
                raise TableError(Code.ILLEGAL, str(exc)) from None

    async def nudge(self, member: Member, seen: int = 0) -> None:
        """A seated player hurries the people owing a move at a table with no turn timer:
        the timer runs for them `nudge_seconds`, then the timeout rule moves for them (so
        a guest who never moves does not hold the table).  Once a turn: while a clock
        runs, there is nothing to hurry."""
        async with self.lock:
            if self.driver.suspended:
                raise TableError(Code.SERVER_CLOSING, "the server is shutting down")
            self._writable()
            seat, game = self.seat_of(member), self.game
            if game is None or seat is None or self.status != "playing":
                raise TableError(Code.NOT_ALLOWED, "you are not playing at a table")
            if self.settings.turn_seconds:
                raise TableError(Code.NOT_ALLOWED, "this table's turn timer hurries everyone")
            if seen and seen < self._last_move:
                raise TableError(Code.STALE, "the table has moved on since: look again")
            if seat in game.actors:
                raise TableError(Code.NOT_ALLOWED, "it is your move: nobody to nudge")
            if not game.actors:
                raise TableError(Code.NOT_ALLOWED, "nobody owes a move now")
            seats = tuple(s for s in game.actors if self.bot_for(s) is None)
            if not seats:
                raise TableError(Code.NOT_ALLOWED, "only a bot is to move: it needs no nudge")
            timer = self.driver.timer
            if timer.resume_until is not None:  # (restarted: the table waits for its players)
                raise TableError(Code.NOT_ALLOWED, "the table waits for its players to come back")
            away = [s for s in seats if self.away(s)]
            if away:  # (its grace period to come back: a nudge would cut it short)
                raise TableError(Code.NOT_ALLOWED, self._waiting_for(game, away))
            if timer.remaining() is not None:
                raise TableError(Code.NOT_ALLOWED, "the clock is already running")
            waited, floor = self.clock() - self.moved_at, self.settings.nudge_after_seconds
            if waited < floor:  # (a pass was nudged a second into its turn)
                who = " and ".join(game.seating[s] for s in seats)
                # (whole seconds down: 9.6 read "has had the turn 10 s: waits until 10 s")
                raise TableError(
                    Code.NOT_ALLOWED,
                    f"the table has waited {int(waited)} s for {who}: a nudge waits until"
                    f" {floor:g} s",
                )
            full = self.settings.nudge_seconds
            seconds = math.ceil(max(self.seat_time(seat, full, halved=False) for seat in seats))
            timer.start(seconds)
            told = m.Nudged(table=self.name, by=game.seating[seat], seats=seats, seconds=seconds)
            for other in self.chairs.members():
                if _version(other) >= m.Nudged.SINCE:
                    self._deliver(other, told)
            self.broadcast_view()
            self.driver.wake()

    def _waiting_for(self, game: Game, away: list[int]) -> str:
        """Why a nudge is not needed for seats that are away: the table waits for them,
        and how long is left of their grace period."""
        waits = self._away_waits(game)

        def told(seat: int) -> str:
            wait = max(0, int(waits.get(seat, 0.0) + 0.999))
            return f"{wait // 60}:{wait % 60:02d}"

        first, *others = sorted(away, key=lambda seat: waits.get(seat, 0.0))
        said = f"{game.seating[first]} is away: the table moves for them in {told(first)}"
        return "; ".join([said, *(f"{game.seating[s]} in {told(s)}" for s in others)])

    def _fresh(self, seat: int, seen: int) -> None:
        """Refuse, as stale, an action chosen at event `seen` whose turn is gone."""
        if seen < self._hand_began:
            raise TableError(
                Code.STALE,
                f"too late: a new hand began (event {self._hand_began}) after the event "
                f"your action answers ({seen})",
            )
        timed_out = self._timed_out.get(seat, 0)
        if seen < timed_out:
            raise TableError(
                Code.STALE,
                f"too late: the turn timer moved for you (event {timed_out}) after the "
                f"event your action answers ({seen})",
            )

    async def client_seed(self, member: Member, hand: int, seed: bytes) -> None:
        async with self.lock:
            secret, index = self.deal_secret, self.chairs.index_of(member)
            if secret is None or index is None:
                raise TableError(Code.BAD_DEAL_SEED, "no deal is waiting for that seed")
            secret.take(self.chairs.slots[index].name, hand, seed)
            self.driver.wake()

    async def deal_check(self, member: Member, hand: int, ok: bool) -> None:
        """A seat's report on a revealed deal: kept for the last `RECENT_CHECKS` hands
        dealt here to that seat, once per seat and hand (anything else is dropped: a
        made-up hand number neither grows memory nor writes a log line)."""
        async with self.lock:
            index, game = self.chairs.index_of(member), self.game
            if index is None or game is None or not 0 <= game.hand - hand < RECENT_CHECKS:
                return
            name = self.chairs.slots[index].name
            checks = self.deal_checks.setdefault(hand, {})
            if name in checks:
                return
            checks[name] = ok
            for old in [h for h in self.deal_checks if game.hand - h >= RECENT_CHECKS]:
                del self.deal_checks[old]
            if not ok:
                log.warning(
                    "table %s: %s reports the deal of hand %d did not check out",
                    self.name,
                    name,
                    hand,
                )

    async def unseat_unready(
        self, wait: float, is_creator: Callable[[Member], bool] = lambda member: False
    ) -> list[Unseated]:
        """Every chair taken, the table's creator in one of them ready (`is_creator`: the
        lobby knows its address and name; a majority could be made of one guest's many
        connections), and the game held up by people here who do not say ready: a person
        who has held it up for `wait` seconds in all, as the lobby looked, leaves the
        chair (told why, if connected), so that one guest cannot keep a table from ever
        starting (docs/hosting.md).  The time is kept by name, and by the address sat
        from (not the creator's), until the game starts, or for `UNREADY_MEMORY` seconds
        after a person last held the table up: saying ready a moment, or leaving and
        sitting again renamed, does not start it afresh; a person who has just sat from
        a machine of their own has all of it (the look that first finds them counts
        nothing).  The people who left (the lobby bars them from the table, and takes
        the connected ones back); none while a game is on, or with `wait` 0."""
        async with self.lock:
            now, looked = self.clock(), self._looked
            self._looked = None
            held = self._held_up
            for name in [n for n, (_, last) in held.items() if now - last > UNREADY_MEMORY]:
                del held[name]
            slots = self.chairs.slots
            if (
                wait <= 0
                or self.status == "playing"
                or self.chairs.free()
                or not any(s.member is not None and s.ready and is_creator(s.member) for s in slots)
            ):
                return []
            self._looked, self._ready_wait = now, wait
            gone: list[Unseated] = []
            creator = self.settings.creator
            for index, slot in enumerate(slots):
                # (a person away holds the table up too: dropping the connection and taking
                # the chair back by key between two looks must not stop the time)
                if not slot.name or slot.bot is not None or slot.ready:
                    continue
                # the time is kept by name and by the address sat from (a guest who left
                # just before it was up and sat again renamed started afresh every time),
                # but for the creator's address: friends on the host's own machine
                keys = [slot.name]
                if slot.address and (creator is None or slot.address != creator[0]):
                    keys.append(f"@{slot.address}")
                seen = [held[key][0] for key in keys if key in held]
                spent = max(seen, default=0.0)
                if looked is not None and seen:
                    # (seen holding the table up before: the time since the last look
                    # counts, though they said ready a moment between: two guests taking
                    # turns to be the one not ready were never moved)
                    spent += now - looked
                for key in keys:  # (kept when moved: sitting again is no reset)
                    held[key] = (spent, now)
                if spent < wait:
                    continue
                member, name, address = slot.member, slot.name, slot.address
                self.chairs.vacate(index)
                if member is not None:
                    member.deliver(
                        seat_gone(
                            f"you did not say ready within {wait:g} s while the others at "
                            f"{self.name} waited: your chair is free again"
                        )
                    )
                gone.append(Unseated(name, address, member))
            if gone:
                self._kept_until, self._kept_from = now + min(KEPT_SECONDS, wait), ("", "")
                self.note_seats()
                self.broadcast_view()
            return gone

    def moved_out(self, name: str, wait: float) -> bool:
        """Whether the person of this name was moved out of a chair here for not saying
        ready (`unseat_unready`) within `UNREADY_MEMORY`: they may not sit again so soon
        (a squatter sat again the moment it was moved, before anyone else could)."""
        entry = self._held_up.get(name)
        return (
            entry is not None and entry[0] >= wait > 0 and self.clock() - entry[1] <= UNREADY_MEMORY
        )

    async def free_unclaimed(self) -> bool:
        """After a restart's resume window: with no game on, free the chairs of people
        who did not come back; True if any was."""
        async with self.lock:
            if self.status == "playing" or not self.chairs.free_away():
                return False
            self.note_seats()
            self.broadcast_view()
            return True

    def _watchers_changed(self) -> None:
        """Someone came to watch or went: everyone here is sent the table's view within
        `WATCHERS_EVERY` seconds, once however many came and went meanwhile (a hostile
        pass: 19 connections watching and leaving in a loop sent a player 242 views a
        second).  A view sent meanwhile for a move says it already."""
        if self._telling_watchers is not None and not self._telling_watchers.done():
            return

        async def tell() -> None:
            await asyncio.sleep(WATCHERS_EVERY)
            async with self.lock:
                self.broadcast_view()

        self._telling_watchers = asyncio.get_running_loop().create_task(tell())

    async def stop(self) -> None:
        """End the game here: what was played goes into a record."""
        if self._telling_watchers is not None:
            self._telling_watchers.cancel()
        await self.driver.stop()

    async def suspend(self) -> None:
        """Stop driving the game without ending it (the server is shutting down)."""
        await self.driver.suspend()

    def _in_game(self, slot: Slot) -> bool:
        """The slot's person plays in the game on here: in the hand's seating, or, between
        hands, in the next one's (a newcomer seated for it, its deal perhaps committed: a
        fuzz run under load saw one leave while the deal waited for seeds, its chair freed
        at once, and the deal find a seat with no chair)."""
        game = self.game
        if self.status != "playing" or game is None:
            return False
        if slot.name in game.seating:
            return True
        return game.phase is Phase.BETWEEN_HANDS and slot.name in game.next_seating()

    def _start_if_ready(self) -> None:
        """Every chair taken and ready: begin a game, driven by a task of its own."""
        if self.status == "playing" or not self.chairs.all_ready():
            return
        if (
            self.game is not None
            and self._recorded
            and not self.unwritten
            and self.journal is not None
            and self.log_id is not None
        ):
            try:  # the last game is in its record: the log needs only the table as it is
                self.journal.compact(self.log_id, self.compacted_log())
                self.journal.checkpoint()
            except WriteFailed as exc:
                log.warning("table %s: the journal could not be compacted: %s", self.name, exc)
        names = [s.name for s in self.chairs]
        self.game = Game(self.settings.rules, names)
        for slot in self.chairs.slots:  # (a new game: every seat's turns have their time)
            slot.idle_turns, slot.behind = 0, 0.0
        self.timeouts = {}
        self.dealt_keys = set()  # (who is dealt a hand of this game: they may have its record)
        self.game_id = secrets.token_hex(16)
        self.status = "playing"
        self.moved_at = self.clock()
        self._held_up.clear()  # (the ready time starts afresh before the next game)
        self._looked = None
        self.deal_checks = {}
        self.note("game", {"players": names, "number": self.number, "game_id": self.game_id})
        self.driver.start()

    def _hold_for_grace(self, slot: Slot) -> None:
        """No game on and a person's connection is gone: their chair waits the grace
        period for them to resume (not ready meanwhile, so no game starts without them).
        The caller journals the chairs."""
        since = self.clock()
        slot.member, slot.ready, slot.away_since = None, False, since
        name = slot.name

        def free() -> None:
            task = asyncio.get_running_loop().create_task(self._free_if_away(name, since))
            self._later.add(task)
            task.add_done_callback(self._later.discard)

        asyncio.get_running_loop().call_later(self.settings.grace_seconds, free)

    async def _free_if_away(self, name: str, since: float) -> None:
        """The grace period from `since` is over: free the chair if that absence goes on."""
        async with self.lock:
            if self.status == "playing":
                return  # in a game, the grace rule between hands decides
            for index, slot in enumerate(self.chairs.slots):
                if slot.name == name and not slot.present and slot.away_since == since:
                    self.chairs.vacate(index)
                    self.note_seats()
                    self.broadcast_view()

    # --- what the driver asks (under the lock) -------------------------------------------

    def _slot_for_seat(self, seat: int) -> Slot:
        assert self.game is not None
        return self.chairs.named(self.game.seating[seat])

    def bot_for(self, seat: int) -> Strategy | None:
        return self._slot_for_seat(seat).bot

    def excuse_absences(self, seconds: float) -> None:
        """The game waited `seconds` with nobody here (`Driver._unattended`): the people
        away spent none of their grace period in it (nor, without a turn timer, of the
        wait for their seat)."""
        for slot in self.chairs.slots:
            if slot.away_since is not None and slot.member is None:
                slot.away_since += seconds
            if slot.owed_from is not None:
                slot.owed_from += seconds

    def away(self, seat: int) -> bool:
        return not self._slot_for_seat(seat).present

    def turn_time(self) -> float:
        """The time the seats owing a move now have for it: the fullest of the seats'
        (`seat_time`: an exchange's seats owe at once, and one who moves is not hurried
        for another who does not)."""
        full = self.settings.turn_seconds
        game = self.game
        if not full or game is None or not game.actors:
            return full
        return max(self.seat_time(seat, full) for seat in game.actors)

    def seat_time(self, seat: int, full: float, halved: bool = True) -> float:
        """A seat's time for a move out of a clock of `full` seconds (the turn timer's,
        or a nudge's): less what its person's moves took beyond the free time
        (`Slot.behind`; never less than the free time), and (`halved`: the turn timer's)
        halved for each turn in a row that ran out with its person here
        (`Slot.idle_turns`), down to `IDLE_FLOOR_SECONDS` (or the whole time, if
        shorter).  A nudge's time is not halved: its player is told nothing is."""
        slot = self._slot_for_seat(seat)
        time = full - min(slot.behind, full - free_time(full))
        if slot.idle_turns and halved:
            halved = max(min(full, IDLE_FLOOR_SECONDS), full / 2**slot.idle_turns)
            time = min(time, halved)
        return time

    def lapsed(self, seat: int) -> bool:
        """The seat is away, and the timeout rule has played for it since it went, at a
        table with a turn timer (`Slot.lapsed`): its turns are played for at once."""
        slot = self._slot_for_seat(seat)
        return slot.lapsed and not slot.present

    def left(self, seat: int) -> bool:
        """The seat's player walked away mid-game (not a dropped connection)."""
        slot = self._slot_for_seat(seat)
        return slot.leaving and not slot.present

    def away_since(self, seat: int) -> float | None:
        """When the seat's person went away, as its grace period counts: from when it
        has been away owing this move, earlier by the time it was so before since its
        last turn of its own (`Slot.owed_away`); None while here, and for bots."""
        slot = self._slot_for_seat(seat)
        if slot.present or slot.away_since is None:
            return None
        since = slot.away_since if slot.owed_from is None else slot.owed_from
        return since - slot.owed_away

    def apply(self, seat: int, action: Action, timeout: m.TimeoutReason = "") -> None:
        """One action through the engine; journaled, then sent (`timeout`: the timeout
        rule made it for the seat, and why: the players are told)."""
        assert self.game is not None
        name, paying = self.game.seating[seat], self.game.due is not None
        events = self.game.apply(seat, action)
        # a move of its own gives its grace back, but for a card of a due with more owed
        # (a due is paid a card at a time: one grace for it all); a clear that leads
        # again, a play that brings a due, are moves of its own (a re-check: a clearing
        # 2 and the lead after it shared one grace)
        more = paying and self.game.due is not None and seat in self.game.actors
        if not timeout and not more:
            for slot in self.chairs.slots:
                if slot.name == name:
                    slot.owed_away = 0.0
        self._reckon_owed()
        self.moved_at = self.clock()
        self._last_move = self.number + 1  # (the action's own event: the first)
        if timeout:
            self._timed_out[seat] = self._last_move
            self.timeouts[last_step(self.game)] = timeout
        slot = self.chairs.named(name)
        if timeout == "away" and self.settings.turn_seconds and not slot.present:
            slot.lapsed = True  # (its later turns: at once, until it is back)
        if timeout == "time" and slot.bot is None:
            # (its next turn: half the time; a due paid a card at a time is one turn)
            slot.idle_turns += 0 if more else 1
        elif not timeout:
            slot.idle_turns = 0  # (moved of its own: its whole time)
            if not more and slot.bot is None:  # (what it took of its clock: its next turns')
                full = self.settings.turn_seconds or self.settings.nudge_seconds
                behind = slot.behind + self.driver.timer.taken() - free_time(full)
                slot.behind = min(max(0.0, behind), full - free_time(full))
        # (why the timeout rule moved is journaled: a restart's hand history says it too)
        entry = {
            "action": action_to_json(seat, action),
            **({"timeout": timeout} if timeout else {}),
        }
        self._after(events, "act", entry, timeout)

    def stood_still(self) -> float:
        """Seconds since the game here last moved (0 with no game under way)."""
        return self.clock() - self.moved_at if self.status == "playing" else 0.0

    def moving(self) -> bool:
        """A game under way here that moved within `MOVING_SECONDS`: its players are not
        what a newcomer at the full server's cap evicts (server/admission.py).  (A hostile
        pass held every place with games of no turn timer where nobody moved, answering
        pings only: a game that stands still is no game to protect.)"""
        return self.status == "playing" and self.stood_still() <= MOVING_SECONDS

    def seat_changes(self) -> bool:
        """Between hands: players who left go, newcomers join; False if too few remain."""
        game = self.game
        assert game is not None
        left = False
        for index, slot in enumerate(self.chairs.slots):
            grace = self.settings.grace_seconds
            gone = slot.leaving or (
                slot.away_since is not None and self.clock() - slot.away_since > grace
            )
            if gone and slot.name in game.next_seating():
                game.leave(slot.name)
                self.note("leave", {"name": slot.name})
                self.chairs.vacate(index)
                left = True
        if left:
            self.note_seats()
        here = game.next_seating()
        for slot in self.chairs:
            if not slot.empty and slot.name not in here:
                game.join(slot.name)
                self.note("join", {"name": slot.name})
        return len(game.next_seating()) >= 3

    def _keys_dealt(self) -> set[str]:
        """The player keys of the people dealt the hand in play (its seating's)."""
        game = self.game
        if game is None or game.hand < 0:
            return set()
        dealt = set(game.seating)
        return {
            slot.player_id
            for slot in self.chairs.slots
            if slot.name in dealt and slot.bot is None and slot.player_id
        }

    def open_deal(self) -> list[str]:
        """Commit to the next hand's seed; the names of the people whose seeds are waited
        for: every person in the seating, connected or away (one who resumes while the
        deal is open gets the commit with the snapshot)."""
        game = self.game
        assert game is not None
        seating, dealer, start = game.plan_hand(self._rng)
        secret = self.deal_secret = DealSecret.fresh(game.hand + 1, seating, dealer, start)
        commit = secret.commit(self.name)
        waiting = []
        for name in seating:
            slot = self.chairs.named(name)
            if slot.member is not None:
                self._deliver(slot.member, commit)
            if slot.bot is None:
                waiting.append(name)
        return waiting

    def deal(self) -> None:
        """Cut the deck from the seeds that came in and deal the hand."""
        game, secret = self.game, self.deal_secret
        assert game is not None and secret is not None
        dealt = secret.cut(self.settings.rules)
        events = game.start_hand(seating=secret.order_names, dealer=secret.dealer, deal=dealt)
        keys = self._keys_dealt()
        self.dealt_keys |= keys
        entry = secret.entry(dealt)
        if keys:  # (journaled: one who leaves before a restart may still have the record)
            entry["keys"] = sorted(keys)
        self._hand_began = self._last_move = self.number + 1
        self.moved_at = self.clock()  # (a deal is the table's move: the hand's first turn
        # begins here, and a nudge waits from here, a hostile pass nudged it at once)
        self._timed_out = {}
        self._reckon_owed()  # (anything still counted, closed first)
        for slot in self.chairs.slots:  # (here at the deal: a hand of its own)
            if slot.present:
                slot.owed_away = 0.0
        self._after(events, "deal", entry)

    def finish(self) -> None:
        """The game is over (or stopped): its record, and the chairs ready for another."""
        game = self.game
        if game is None or self.status != "playing":
            return
        self.status = "finished" if game.phase is Phase.GAME_OVER else "waiting"
        self.driver.timer.clear()
        recorded = not game.history
        if game.history:
            try:
                record = to_record(game, self.settings.preset, self.timeouts)
                self.record_file = self.on_record(self.name, record)
                self.dealt_keys |= self._keys_dealt()  # (a hand dealt before a restart)
                self.record_keys = frozenset(self.dealt_keys)
                recorded = True
            except Exception as exc:
                log.error("table %s: could not write the game record: %s", self.name, exc)
        for index, slot in enumerate(self.chairs.slots):
            slot.ready = slot.bot is not None
            if not slot.present and not slot.empty:
                if slot.leaving:
                    self.chairs.vacate(index)
                else:  # away as the game ended: they may still come back to see it
                    self._hold_for_grace(slot)
        self.note("end", self._end_entry())
        self.note_seats()
        self.broadcast_view()
        self._recorded = recorded

    # --- sending ----------------------------------------------------------------------------

    def _after(
        self,
        events: list[Event],
        kind: str,
        entry: dict[str, Any],
        timeout: m.TimeoutReason = "",
    ) -> None:
        """Re-arm the turn timer, write the journal entry, then send what the events say
        to whom they concern.  Every event and every re-sealed hand takes a number; the
        first is the action's own (`timeout` says why the timeout rule made it)."""
        game = self.game
        assert game is not None
        # Cards that moved between two hands unseen by the rest (the exchange, a hand-over
        # under seven_pass): each of the two is sent its hand again, sealed to it.
        moved = [e for e in events if isinstance(e, (Gave, Returned, HandedOver))]
        # (a card taken from the cards played is public: only its receiver's hand changed)
        taken = {e.receiver for e in events if isinstance(e, Took)}
        resealed = sorted({seat for e in moved for seat in (e.giver, e.receiver)} | taken)
        reason = "handover" if any(isinstance(e, HandedOver) for e in moved) else "exchange"
        if taken and not moved:
            reason = "take"
        timer = self.driver.timer
        exchanging = game.phase is Phase.EXCHANGE and not any(
            isinstance(e, HandStarted) for e in events
        )
        timer.rearm(events, bool(game.actors), self.turn_time(), game.due is not None, exchanging)
        number = self.number
        self.number += len(events) + len(resealed)
        over = next((e for e in events if isinstance(e, HandOver)), None)
        ended = next((e for e in events if isinstance(e, GameOver)), None)
        result = None
        if over is not None and self.ratings is not None:  # where the ladder learns a result
            result = hand_result(game, self.chairs, self.game_id, over, ended)
        self.note(kind, {**entry, "number": self.number, "remaining": timer.remaining()}, result)
        for index, event in enumerate(events):
            number += 1
            if isinstance(event, Dealt):  # the hand as dealt: what the fair-deal check needs
                self._send_hand(event.seat, "deal", number, event.cards)
                continue
            message = wire.event_to_wire(self.name, number, event, "" if index else timeout)
            if message is not None:
                self.hand_log.add(message)
                self._broadcast(message)
            if isinstance(event, HandOver):
                self._reveal()
        for seat in resealed:
            number += 1
            self._send_hand(seat, reason, number)
        self.broadcast_view()
        self.driver.wake()

    def _send_hand(
        self, seat: int, reason: str, number: int, dealt: Sequence[Card] | None = None
    ) -> None:
        """Seat's own cards (as dealt, or as the game holds them now with its part of the
        exchange), sealed to its member's key: the one way a hand leaves the table."""
        game = self.game
        assert game is not None
        member = self._slot_for_seat(seat).member
        if member is None:
            return
        if dealt is None:
            view = game.view_for(seat)
            cards, exchange = view.hand, view.exchange
        else:
            cards, exchange = tuple(dealt), ()
        try:
            sealed = seal_hand(cards, exchange, member.hand_key, self.name, game.hand, seat, number)
        except ValueError as exc:  # keys are checked at hello: this is not meant to happen
            self._unsealable(seat, member, exc)
            return
        self._deliver(
            member,
            m.SealedHand(
                table=self.name,
                number=number,
                hand=game.hand,
                seat=seat,
                sealed=sealed,
                reason=reason,
            ),
        )

    def _unsealable(self, seat: int, member: Member, exc: Exception) -> None:
        """A hand that cannot be sealed to its member's key: that seat is away (played by
        the timeout rule, as a dropped player's: it can resume from a connection with a
        good key); nobody else is held up."""
        log.error("table %s: cannot seal %s's hand to their key: %s", self.name, member.name, exc)
        slot = self._slot_for_seat(seat)
        if slot.member is member:
            slot.member, slot.away_since = None, self.clock()
            self._reckon_owed()
        member.deliver(
            m.Error(
                code=Code.SERVER_ERROR,
                message="your hand cannot be sealed to your key: your seat is away; "
                "resume it from a connection with a good key",
            )
        )
        self.driver.wake()

    def tell_fault(self, sentence: str) -> None:
        """Tell everyone here that something went wrong at the table (the details are in
        the server's log only)."""
        self._broadcast(m.Error(code=Code.SERVER_ERROR, message=sentence[:500]))

    def _reveal(self) -> None:
        secret = self.deal_secret
        if secret is None:
            return
        reveal = secret.reveal(self.name)
        for slot in self.chairs:
            if slot.member is not None and slot.name in secret.order_names:
                self._deliver(slot.member, reveal)
        self.deal_secret = None

    def _broadcast(self, message: m.Message) -> None:
        for member in self.chairs.members():
            self._deliver(member, message)

    def broadcast_view(self) -> None:
        self._broadcast(self.view())

    def _snapshot(self, member: Member) -> None:
        """Everything a member needs after joining, watching or resuming: the game's
        ended hands while there is a game, and the hand's public history during the
        exchange or the play (each to a member whose version has it), then the view (a
        view follows the events it counts), an open deal's commit if the member's seed is
        still wanted, the member's hand."""
        game = self.game
        if game is not None and _version(member) >= m.GameResults.SINCE:
            for results in self._results_of(game):
                self._deliver(member, results)
        in_hand = game is not None and game.phase in (Phase.PLAY, Phase.EXCHANGE)
        if in_hand and _version(member) >= m.HandHistory.SINCE:
            for page in self.hand_log.pages(self.name):
                self._deliver(member, page)
        self._deliver(member, self.view())
        secret, index = self.deal_secret, self.chairs.index_of(member)
        if secret is not None and not secret.dealt and index is not None:
            name = self.chairs.slots[index].name
            if name in secret.order_names and name not in secret.seeds:
                self._deliver(member, secret.commit(self.name))
        seat = self.seat_of(member)
        if (
            seat is not None
            and self.game is not None
            and self.game.phase in (Phase.PLAY, Phase.EXCHANGE)
        ):
            self.number += 1
            self.note("snapshot", {"number": self.number})
            self._send_hand(seat, "snapshot", self.number)

    def _results_of(self, game: Game) -> list[m.GameResults]:
        """`game`'s ended hands as `game_results` pages, made again only when a hand has
        ended since (the same message objects: their frames are encoded once however
        many come, protocol.connection)."""
        kept = self._results
        if kept is None or kept[0] is not game or kept[1] != len(game.finishes):
            pages = wire.results_to_wire(self.name, game.hands_over())
            kept = self._results = (game, len(game.finishes), pages)
        return kept[2]


def free_time(full: float) -> float:
    """Of a clock of `full` seconds, what a move may take that its person's next turns
    do not lose (`Slot.behind`): the least time its turns ever have for a slow move."""
    return max(full * FREE_SHARE, min(full, IDLE_FLOOR_SECONDS))


def _version(member: Member) -> int:
    """The protocol version a member chose at hello (one without a connection, as in a
    test, speaks the newest)."""
    version = getattr(member, "version", None)
    return version if isinstance(version, int) else max(m.VERSIONS)

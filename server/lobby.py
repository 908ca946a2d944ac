"""The lobby: tables by name, and one handler per message type (a registry, not an
if-chain).  Every refusal is an `Error` with a code and a sentence; nothing a client
sends can touch another table.  The lobby is given what it needs (the configuration, the
journal, where records go); it knows a connection only as a `Guest`."""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from president.engine import Rules, RulesError, find_preset
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.errors import Code, RemoteProtocolError
from president.protocol.packing import pack_record

from . import thinking
from .chat import ChatBudget, ChatKept, line_problem
from .config import ServerConfig, TableSettings, password_hashed
from .guard import PasswordGuard
from .journal import Journal, WriteFailed
from .ladder import Ratings
from .players import looks, mixed_problem, name_problem
from .restore import RestoreError, compacted, rebuild
from .seats import Member, TableError, seat_gone
from .table import UNREADY_MEMORY, OnRecord, Table

log = logging.getLogger("president.server")


class Guest(Protocol):
    """A connection as the lobby sees it."""

    name: str
    role: str
    hand_key: bytes
    address: str
    table: Table | None
    #: The player key's id proven at hello ("" for a client without one).
    player_id: str

    @property
    def version(self) -> int:
        """The protocol version chosen at hello."""

    def deliver(self, message: m.Message) -> None: ...

    def goodbye(self, bye: m.Bye) -> None: ...

    def chat_allowed(self, now: float) -> bool: ...


#: Tables gone whose last game's record their players may still ask for (the latest).
ENDED_KEPT = 1000
#: Seconds between two changes of a table's password (`table_password`): a hostile pass
#: changed it 178 times a second, each a journal row and a view to everyone there.
PASSWORD_EVERY = 2.0
#: Seconds between two records sent under one player key: a player asks once a game,
#: and a crowd of connections under one key pulled 17 MB/s of them beside a friend's
#: table (a hostile pass: its bots' events fell from 700 to 300 a second).
RECORD_EVERY = 5.0
#: How many packed records the lobby keeps (`Lobby.packed_record`): the last few asked.
PACKED_KEPT = 8
#: Seconds an unstarted table with nobody at it has been seen so by the sweep before its
#: maker's next table may take its place at the maker's cap (`Lobby.spent`).
SPENT_SECONDS = 30.0

Handler = Callable[["Lobby", Guest, Any], Awaitable[None]]
HANDLERS: dict[type[m.Message], Handler] = {}


def handles(*kinds: type[m.Message]) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of each message type in `kinds`."""

    def register(func: Handler) -> Handler:
        for kind in kinds:
            HANDLERS[kind] = func
        return func

    return register


class Lobby:
    def __init__(
        self, config: ServerConfig, on_record: OnRecord, journal: Journal | None = None
    ) -> None:
        self.config = config

        def recorded(table: str, record: dict[str, Any]) -> str | None:
            there = self.tables.get(table)
            if there is not None and there.record_file is not None:  # (its last game's,
                # kept for its players as a gone table's is: a newer game there takes its
                # place at the table, not from them)
                self.keep_ended(table, there.record_file, there.record_keys)
            written = on_record(table, record)
            self.changed(table)  # the game there is over: the lobby hears of it
            return written

        self.on_record = recorded
        self.journal = journal
        #: The ladder every table's hands are counted on (on disk once the server
        #: attaches it to the journal's database).
        self.ratings = Ratings()
        self.tables: dict[str, Table] = {}
        #: The records of games no longer their table's last (its table gone, or a newer
        #: game there), by table name and record file: the keys of those who played it;
        #: the latest `ENDED_KEPT`.  A table goes a few seconds after its last player
        #: leaves it, and its players may ask for the record later (a hostile pass: "no
        #: such table" to a player back from the lobby); another table of the name, or
        #: another game there, takes none from them (a second pass: a guest's game at a
        #: table remade under the name took the first game's record from its players).
        self.ended: dict[tuple[str, str], frozenset[str]] = {}
        #: When a record was last sent under each player key (`RECORD_EVERY`).
        self.record_sent: dict[str, float] = {}
        #: Records packed lately, by file, its change time and size: (its size, packed).
        self._packed: dict[tuple[str, int, int], tuple[int, bytes]] = {}
        #: What each address and each room may still say this minute.
        self.chat_budget = ChatBudget(config.chat_per_address, config.chat_per_room)
        self.guests: set[Guest] = set()
        #: The lobby's last lines of chat: (when, who, what), for who comes later.
        self.chat_kept = ChatKept(m.CHAT_KEPT)
        #: Shutting down: every table stays as it is, for the next start.
        self.closing = False
        #: (table, address) -> when a person from that address was moved out of a chair
        #: there for not saying ready: not let sit there again within UNREADY_MEMORY.
        self.moved_out: dict[tuple[str, str], float] = {}
        #: Wrong passwords slow down per address (the server's and the tables').
        self.guard = PasswordGuard(
            config.password_wait, config.password_wait_max, config.password_forget_seconds
        )
        #: Tables whose news the lobby has not been told yet, and when it will be.
        self._changed: set[str] = set()
        self._telling: asyncio.TimerHandle | None = None
        #: Since when each table has held no person (no chair, no spectator).
        self._empty_since: dict[str, float] = {}
        #: By address, for one that has let go of the last table it made: since when it
        #: had held tables, and when it let go (`held_since`).
        self._let_go: dict[str, tuple[float, float]] = {}
        self._sweeping: asyncio.Task[None] | None = None
        #: Told each time a table comes or goes (the server's `Trimmer`: what a crowd's
        #: tables held, their games and bots, is given back once they have gone).
        self.on_tables: Callable[[], None] = lambda: None
        thinking.configure(config.bot_workers)

    def welcome(self, guest: Guest) -> None:
        """A connection said hello: it is in the lobby from now on."""
        self.guests.add(guest)

    async def handle(self, guest: Guest, message: m.Message) -> None:
        handler = HANDLERS.get(type(message))
        if self.closing and type(message) not in (m.Ping, m.Pong):
            guest.deliver(
                m.Error(
                    code=Code.SERVER_CLOSING,
                    message="the server is shutting down",
                    about=message.TYPE,
                )
            )
            return
        if handler is None:
            guest.deliver(
                m.Error(
                    code=Code.NOT_ALLOWED,
                    message=f"a server does not take {message.TYPE}",
                    about=message.TYPE,
                )
            )
            return
        try:
            await handler(self, guest, message)
        except (TableError, RemoteProtocolError) as error:
            guest.deliver(m.Error(code=error.code, message=error.message[:500], about=message.TYPE))
        except Exception:
            log.exception("%s: handling %s failed", guest.address, message.TYPE)
            guest.deliver(
                m.Error(
                    code=Code.SERVER_ERROR,
                    message="the server could not do that",
                    about=message.TYPE,
                )
            )

    async def disconnect(self, guest: Guest) -> None:
        self.guests.discard(guest)
        table = guest.table
        if table is not None and not self.closing:  # closing: the tables stay as they are
            await table.drop(guest)
            guest.table = None
            self.changed(table.name)

    def restore(self, journal: Journal) -> list[str]:
        """Rebuild every table the journal holds and set its game going again; a table
        whose journal does not rebuild is closed (its rows are kept) and named in the
        returned problems, and the others come back all the same."""
        problems = []
        for table_id, name, entries in journal.open_tables():
            try:
                if name in self.tables:
                    raise RestoreError("a table of that name is already open")
                table = rebuild(
                    entries,
                    self.config,
                    self.on_record,
                    time.monotonic,
                    journal=journal,
                    log_id=table_id,
                    ratings=self.ratings,
                )
            except RestoreError as exc:
                log.error("table %s: not restored: %s", name, exc)
                problems.append(f"table {name!r} could not be restored: {exc}")
                journal.close_table(table_id)
                continue
            table.resume_after_restart()
            if table.status != "playing":
                journal.compact(table_id, compacted(table))
            table.on_seats = self.changed
            self.tables[name] = table
        if self.tables:
            self._sweep_soon()
            asyncio.get_running_loop().call_later(
                self.config.resume_seconds, lambda: asyncio.ensure_future(self.free_unclaimed())
            )
        return problems

    async def free_unclaimed(self) -> None:
        """The resume window after a restart is over: chairs at tables with no game on
        whose people did not come back are freed (mid-game, the grace rule does it)."""
        for table in list(self.tables.values()):
            if await table.free_unclaimed():
                self.changed(table.name)

    def send_list(self, guest: Guest) -> None:
        """The whole table list to one guest, in pages that each fit a frame; then, to a
        guest at no table (version 12), the lobby's last lines of chat: who asked for the
        list, or is back from a table (left it, moved out, its table closed: an independent
        client's pass, a `leave` brought the list alone)."""
        for page in m.table_pages([t.info() for t in self.tables.values()]):
            guest.deliver(page)
        if self.chat_kept and guest.table is None and guest.version >= m.ChatHistory.SINCE:
            now = asyncio.get_running_loop().time()
            lines = tuple(
                m.ChatLine(sender, text, int(now - when)) for when, sender, text in self.chat_kept
            )
            guest.deliver(m.ChatHistory(lines=lines))

    def changed(self, name: str) -> None:
        """Table `name` is new, changed or gone: the lobby hears of it (one message for
        that table, not the whole list; changes within `lobby_update_seconds` merged)."""
        self._changed.add(name)
        if self._telling is None:
            self._telling = asyncio.get_running_loop().call_later(
                self.config.lobby_update_seconds, self._tell_lobby
            )

    def _tell_lobby(self) -> None:
        self._telling = None
        names, self._changed = self._changed, set()
        news: list[m.Message] = []
        for name in names:
            table = self.tables.get(name)
            news.append(m.TableGone(table=name) if table is None else m.TableChanged(table.info()))
        in_lobby = [guest for guest in self.guests if guest.table is None]
        for message in news:  # one message to every guest in turn: encoded once
            for guest in in_lobby:
                guest.deliver(message)

    # --- tables that nobody uses --------------------------------------------------------

    def _sweep_soon(self) -> None:
        if self._sweeping is None or self._sweeping.done():
            self._sweeping = asyncio.get_running_loop().create_task(self._sweep_loop())

    async def _sweep_loop(self) -> None:
        config = self.config
        every = min(30.0, config.idle_table_seconds / 4, config.ready_seconds / 4 or 30.0)
        while not self.closing:
            await asyncio.sleep(max(0.01, every))
            await self.sweep()

    async def sweep(self) -> None:
        """Remove the tables nobody uses: with no person there (nobody watching, nobody
        connected in a chair: a person away does not count, nor do bots) for
        `idle_table_seconds`, or finished and empty, or whose game has waited that long
        with no person connected.  Free the chairs of people who hold up a full table by not saying ready
        (`ready_seconds`: `Table.unseat_unready`): back in the lobby, they hear the table
        list."""
        now = time.monotonic()
        self.forget_moved_out()
        guests = {id(g): g for g in self.guests}  # (a table's members are these guests)
        for name, table in list(self.tables.items()):

            def is_creator(member: Member, name: str = name) -> bool:
                guest = guests.get(id(member))
                return guest is not None and self.created(guest, name)

            gone = await table.unseat_unready(self.config.ready_seconds, is_creator)
            for person in gone:
                # (away or not: one who dropped the connection and sat again under another
                # name from the same address was not barred)
                if person.address:
                    self.moved_out[name, person.address] = now
                guest = None if person.member is None else guests.get(id(person.member))
                if guest is not None and guest.table is table:
                    guest.table = None
                    self.send_list(guest)
            if gone:
                self.changed(name)  # (a chair freed of a person away too: the list was stale)
        idle = self.config.idle_table_seconds
        for name, table in list(self.tables.items()):
            if table.status == "playing":
                # a game waits while nobody is connected, a person away in a chair or not
                # (`Driver._unattended`, which knows since when: a visit between two
                # sweeps counts); so long, it goes
                self._empty_since.pop(name, None)
                driver = table.driver
                alone = driver.unattended_since
                if alone is not None and driver.clock() - alone >= idle:
                    await self.remove(name, "nobody there")
                continue
            if _holds_people(table, present=True):
                self._empty_since.pop(name, None)
                continue
            # (nobody here: empty, or only people away in their chairs; a table before its
            # game, or after it, that only people away held was never swept: a tinkerer's
            # killed bots held their address's three tables for good)
            since = self._empty_since.setdefault(name, now)
            empty = not _holds_people(table)
            if (empty and table.status == "finished") or now - since >= idle:
                why = "empty" if empty else "nobody there"
                await self.remove(
                    name, f"finished and {why}" if table.status == "finished" else why
                )

    def spent(self, table: Table) -> bool:
        """No person sits or watches at `table`, away or not, and its game is over, or it
        never started and the sweep has seen it so for `SPENT_SECONDS` (a table just
        made, its maker on the way to its chair, is not spent): at its maker's cap, its
        maker's next table takes its place (a tinkerer's killed bot runs left their
        tables unstarted, and each counted for 10 minutes)."""
        if _holds_people(table):
            return False
        if table.status == "finished":
            return True
        since = self._empty_since.get(table.name)
        return _unstarted(table) and since is not None and time.monotonic() - since >= SPENT_SECONDS

    def keep_ended(self, name: str, written: str, keys: frozenset[str]) -> None:
        """Keep a game's record for its players (`ended`), the latest last."""
        self.ended.pop((name, written), None)
        self.ended[(name, written)] = keys
        while len(self.ended) > ENDED_KEPT:
            del self.ended[next(iter(self.ended))]

    def records_of(self, name: str) -> list[tuple[str, frozenset[str]]]:
        """The records a player may ask for by the table's name, latest first: the live
        table's last game's, then those `ended` keeps."""
        found = [(written, keys) for (there, written), keys in self.ended.items() if there == name]
        found.reverse()
        table = self.tables.get(name)
        if table is not None and table.record_file is not None:
            found.insert(0, (table.record_file, table.record_keys))
        return found

    async def remove(self, name: str, why: str) -> None:
        """Take a table out of the lobby and out of the journal (it does not come back at
        the next start); a game still going there ends, with its record."""
        if self.closing:
            return
        table = self.tables.pop(name, None)
        if table is None:
            return
        self._empty_since.pop(name, None)
        maker = table.settings.creator
        if maker is not None and _unstarted(table) and not self._waiting_of(maker[0]):
            now = time.monotonic()
            self._let_go[maker[0]] = (table.held_since, now)
            if len(self._let_go) > 4096:  # (memory bounded by recent makers)
                wait = self.config.unstarted_table_seconds
                for address in [a for a, (_, at) in self._let_go.items() if now - at > wait]:
                    del self._let_go[address]
        await table.stop()  # a game still going has its record written here
        if table.record_file is not None:  # (its players may still ask for it)
            self.keep_ended(name, table.record_file, table.record_keys)
        if self.journal is not None and table.log_id is not None:
            # gone for good: its rows go too (close_table is for a table that did not
            # rebuild, whose rows wait to be set aside as damaged at the next start)
            try:
                self.journal.drop_table(table.log_id)
            except WriteFailed as exc:  # the disk: it comes back at the next start, whole
                log.warning("table %s: removed, but its journal rows stay: %s", name, exc)
        log.info("table %s: removed (%s)", name, why)
        self.changed(name)
        self.on_tables()

    async def packed_record(self, path: Path) -> tuple[int, bytes]:
        """The record at `path` packed for `game_record` (version 18): (its size, the
        packed bytes; none past `RECORD_UNPACKED`), read and packed off the event loop,
        once for each version of the file (a hostile pass: 50 keys asking for a 3.3 MB
        record at once took 2.1 s of CPU, each ask packing it again)."""
        known = path.stat()
        key = (str(path), known.st_mtime_ns, known.st_size)
        found = self._packed.get(key)
        if found is None:
            if known.st_size > m.RECORD_UNPACKED:  # (too long: not read)
                return known.st_size, b""
            found = await asyncio.to_thread(_read_and_pack, path)
            self._packed[key] = found
            while len(self._packed) > PACKED_KEPT:
                del self._packed[next(iter(self._packed))]
        return found

    async def make_room(self) -> bool:
        """At the table cap, room for a new table: remove the oldest table (creation
        order) that never started where no person is connected, in a chair or watching
        (after a restart, nobody is yet); else the oldest where no person sits or watches
        (server bots alone, playing or not: its game ends, with its record); else one
        that started where no person sits, however many watch (a finished game first,
        then the oldest); else the oldest that has not started `unstarted_table_seconds`
        after its maker began holding tables (`held_since`: many addresses, each holding
        its three tables where nobody says ready, once kept everyone from making one);
        else a game where nothing has moved for as long (`Table.stood_still`), the
        stillest first.  False if none is (server/admission.py's reasoning, for tables)."""
        tables = list(self.tables.items())
        unstarted = [(name, table) for name, table in tables if _unstarted(table)]
        for name, table in unstarted:
            if not table.chairs.spectators and all(slot.member is None for slot in table.slots):
                await self.remove(name, "never started and nobody there: room for a new table")
                return True
        for name, table in tables:
            if table.status != "finished" and not _holds_people(table):
                await self.remove(name, "bots alone and nobody watching: room for a new table")
                return True
        # (a game under way or over where no person sits, however many watch: a hostile
        # pass from many addresses filled the cap with bot tables it watched, finished
        # or playing, and nobody could make a table; the finished go first)
        for over in (True, False):
            for name, table in tables:
                if (table.status == "finished") is over and _bots_alone(table):
                    why = "its game is over" if over else "nobody plays there, only bots"
                    await self._close_for_room(name, table, why)
                    return True
        now, wait = time.monotonic(), self.config.unstarted_table_seconds
        for name, table in sorted(unstarted, key=lambda named: named[1].held_since):
            if now - table.held_since >= wait:
                await self._close_for_room(
                    name, table, f"no game had started there in time ({wait:g} s)"
                )
                return True
        # (a game under way where nothing has moved that long, the stillest first: a
        # hostile pass, 167 addresses each at 3 tables of its own with 2 bots and no turn
        # timer, said ready and never moved, and held the whole cap for good)
        playing = [(name, table) for name, table in tables if table.status == "playing"]
        for name, table in sorted(playing, key=lambda named: named[1].moved_at):
            if table.stood_still() >= wait:
                await self._close_for_room(
                    name, table, f"nothing had moved in its game for {wait:g} s"
                )
                return True
        return False

    async def _close_for_room(self, name: str, table: Table, why: str) -> None:
        """Remove `table` for a new one; the people there, seated or watching, are told
        why (as a chair freed is) and are back in the lobby."""
        there = [guest for guest in self.guests if guest.table is table]
        for guest in there:
            guest.deliver(
                seat_gone(f"{name} is closed: the server needed room for a new table, and {why}")
            )
            guest.table = None
        await self.remove(name, f"{why}: room for a new table")
        for guest in there:
            self.send_list(guest)

    def held_since(self, address: str) -> float:
        """Since when `address` has held tables it made that have not started, without a
        break as long as `unstarted_table_seconds` (now, for one that holds none): a table
        it makes counts as that old in `make_room`, so that a crowd remaking its tables,
        one emptied and another made in its place, does not make them young again (a
        recheck of the rule: every honest create refused so, for as long as the crowd
        went on).  A table whose game is on does not count: a host playing at one table
        who makes another has a young table."""
        now = time.monotonic()
        held = [table.held_since for table in self._waiting_of(address)]
        let_go = self._let_go.get(address)
        if let_go is not None and now - let_go[1] < self.config.unstarted_table_seconds:
            held.append(let_go[0])
        return min(held, default=now)

    def made_by(self, address: str) -> list[Table]:
        """The open tables `address` made."""
        return [
            table
            for table in self.tables.values()
            if table.settings.creator is not None and table.settings.creator[0] == address
        ]

    def _waiting_of(self, address: str) -> list[Table]:
        """The tables `address` made that have not started."""
        return [table for table in self.made_by(address) if _unstarted(table)]

    def created(self, guest: Guest, table: str) -> bool:
        """Whether `guest` created `table` (its address and name, kept in the journal)."""
        made = self.tables.get(table)
        if made is None or made.settings.creator != (guest.address, guest.name):
            return False
        key = made.settings.creator_key
        return not key or key == guest.player_id

    def forget_moved_out(self) -> None:
        """Drop the moves out older than `UNREADY_MEMORY` (memory bounded by recent ones)."""
        now = time.monotonic()
        for key in [k for k, at in self.moved_out.items() if now - at > UNREADY_MEMORY]:
            del self.moved_out[key]

    def seated_under(self, name: str, player_id: str) -> str | None:
        """A table where another person sits under `name`, or a name that looks like it
        (connected or away), or None: a name nobody's key has claimed in the book (used
        unclaimed) is still not another key's to take over from them (a hostile-guest pass
        locked seated players out so).  Only the same key, or a client without a key
        where the chair's person had none either (nothing tells them apart), is let in."""
        seen = looks(name)
        for table in self.tables.values():
            for slot in table.slots:
                if slot.bot is not None or not slot.name or not seen & slot.looks():
                    continue
                if slot.player_id and player_id:
                    if not hmac.compare_digest(slot.player_id, player_id):
                        return table.name
                elif slot.player_id or player_id:
                    return table.name
        return None

    def holds_seat(self, player_id: str, away: bool = False) -> bool:
        """Whether the person of this player key sits in a chair of a game under way
        (connected or away; only away, `away`: a chair waiting for them, which lets them in
        even when the server is full)."""
        if not player_id:
            return False
        return any(
            table.status == "playing"
            and any(
                slot.bot is None
                and slot.player_id
                and (not away or slot.member is None)
                and hmac.compare_digest(slot.player_id, player_id)
                for slot in table.slots
            )
            for table in self.tables.values()
        )

    def table_of(self, name: str) -> Table:
        table = self.tables.get(name)
        if table is None:
            raise TableError(Code.NO_SUCH_TABLE, f"there is no table called {name!r}")
        return table

    def seated_table(self, guest: Guest) -> Table:
        if guest.table is None:
            raise TableError(Code.NOT_ALLOWED, "you are not at a table")
        return guest.table

    async def close(self) -> None:
        """Stop driving every table; games in progress stay in the journal for the next
        start (with no journal, they end here and their records are written)."""
        self.closing = True
        if self._sweeping is not None:
            self._sweeping.cancel()
        if self._telling is not None:
            self._telling.cancel()
        keep = self.journal is not None
        await asyncio.gather(
            *(t.suspend() if keep else t.stop() for t in self.tables.values()),
            return_exceptions=True,
        )
        thinking.shutdown()


def _unstarted(table: Table) -> bool:
    """Its first game has not begun."""
    return table.status == "waiting" and table.game is None


def _read_and_pack(path: Path) -> tuple[int, bytes]:
    """A record's size and its bytes packed (in a worker thread: zlib, and the read);
    none past `RECORD_UNPACKED`."""
    with path.open("rb") as kept:
        data = kept.read(m.RECORD_UNPACKED + 1)
    return len(data), (pack_record(data) if data and len(data) <= m.RECORD_UNPACKED else b"")


def _bots_alone(table: Table) -> bool:
    """A game has begun at the table (over or not) and no person sits there, away or
    not: server bots alone, however many watch."""
    seated = any(not slot.empty and slot.bot is None for slot in table.chairs)
    return not _unstarted(table) and not seated


def _holds_people(table: Table, present: bool = False) -> bool:
    """A person sits at the table (connected or away; with `present`, connected) or
    watches it: bots do not count."""
    return bool(table.chairs.spectators) or any(
        not slot.empty and slot.bot is None and not (present and slot.away_since is not None)
        for slot in table.chairs
    )


def _may_change_bots(lobby: Lobby, guest: Guest, table: Table) -> None:
    """Only the table's own people change its bots: who sits there, or who created it."""
    if table.chairs.index_of(guest) is not None:
        return
    if lobby.created(guest, table.name):
        return
    raise TableError(
        Code.NOT_ALLOWED, f"only the players at {table.name} or its creator change its bots"
    )


async def _password_tried(
    lobby: Lobby,
    guest: Guest,
    table: Table,
    given: str | None,
    attempt: Coroutine[Any, Any, None],
) -> None:
    """Join or watch a table; at a table with a password, an address that gave wrong ones
    waits (a doubling delay) before its next one is checked.  No password given is no
    guess: refused as such, not checked, not counted (the lobby's question left empty
    counted as a wrong one, and held the next try behind the guessers' budget)."""
    if table.settings.password is None:
        await attempt
        return
    if not given:
        attempt.close()
        raise TableError(
            Code.WRONG_PASSWORD, f"table {table.name} has a password: give it to sit or watch"
        )
    # (a player key that opened this table before is not held by the budget wrong
    # guesses from many addresses share, `PasswordGuard.refusal`: known by the table's
    # password hash, salted afresh for every table made, not by its name, which a table
    # made again with another password has too)
    who = (table.settings.password, guest.player_id) if guest.player_id else None
    async with lobby.guard.turn(guest.address, "table"):  # (one check at a time an address)
        refusal = lobby.guard.refusal(guest.address, "table", who)
        if refusal is not None:
            attempt.close()
            raise TableError(Code.RATE_LIMITED, refusal)
        try:
            await attempt
        except TableError as error:
            if error.code == Code.WRONG_PASSWORD:
                lobby.guard.wrong(guest.address, "table")
            else:  # (checked and right, refused for another reason: a full table...)
                lobby.guard.spare(guest.address, "table")
            raise
        lobby.guard.spare(guest.address, "table")  # (the right password is no guess)
        if who is not None:
            lobby.guard.welcome("table", who)


@handles(m.Ping)
async def _ping(lobby: Lobby, guest: Guest, message: m.Ping) -> None:
    guest.deliver(m.Pong(nonce=message.nonce))


@handles(m.Pong)
async def _pong(lobby: Lobby, guest: Guest, message: m.Pong) -> None:
    return


@handles(m.ListTables)
async def _list(lobby: Lobby, guest: Guest, message: m.ListTables) -> None:
    lobby.guests.add(guest)
    lobby.send_list(guest)


async def _room_for(lobby: Lobby, guest: Guest, name: str) -> None:
    """Refused unless `guest` may open table `name` now: a name that shows as itself (as
    a player's must), and looks like no open table's (a guest's "Frid\u0430y", Cyrillic
    a, beside the host's "Friday")."""
    if name in lobby.tables:
        raise TableError(Code.NOT_ALLOWED, f"there is already a table called {name!r}")
    problem = name_problem(name)
    if problem is not None:
        raise TableError(
            Code.NOT_ALLOWED, f"table {name!r}: {problem.replace('a name', 'a table name', 1)}"
        )
    mixed = mixed_problem(name)
    if mixed is not None:
        raise TableError(Code.NOT_ALLOWED, mixed.replace("a name", "a table name", 1))
    seen = looks(name)
    alike = next((other for other in lobby.tables if seen & looks(other)), None)
    if alike is not None:
        raise TableError(
            Code.NOT_ALLOWED,
            f"the name {name!r} looks like table {alike!r}: choose a name that looks different",
        )
    config = lobby.config
    made = lobby.made_by(guest.address)
    if len(made) >= config.tables_per_address:
        # its own tables whose game is over and that nobody is at go now, not at the next
        # sweep (a bot writer's fourth quick run was refused until the sweep came); one
        # that someone is at still counts (a hostile pass held 6 tables under a cap of 2,
        # each finished, left, and sat at again)
        # (one that never started: only its maker's, under this name too; two people
        # behind one address share the cap, and one's table, waiting for friends, went
        # for the other's next, a hostile pass; a finished one: the address's, as a bot
        # writer's quick runs each name their bots)
        for table in made:
            own = table.status == "finished" or lobby.created(guest, table.name)
            if own and lobby.spent(table):  # (at its turn: a removal may wait on another)
                over = "finished" if table.status == "finished" else "not started"
                await lobby.remove(table.name, f"{over} and empty: room for its maker's next")
        made = lobby.made_by(guest.address)
    mine = len(made)
    if mine >= config.tables_per_address:
        raise TableError(
            Code.NOT_ALLOWED,
            f"your address already has {mine} tables open (at most"
            f" {config.tables_per_address}); a table with nobody at it closes after"
            f" {_minutes(config.idle_table_seconds)}; at this cap one that nobody is at"
            " makes room: at once if its game is over, and one you made that never started"
            f" {SPENT_SECONDS:g} s after it empties",
        )
    if len(lobby.tables) >= config.max_tables and not await lobby.make_room():
        wait = _minutes(config.unstarted_table_seconds)
        raise TableError(  # (when room may come: a recheck was told nothing of it)
            Code.NOT_ALLOWED,
            f"this server has as many tables as it takes ({config.max_tables}): a table"
            f" makes room once its game has not started or not moved for {wait}, or"
            " nobody is at it; sit at a table with a free chair, or try again later",
        )


@handles(m.CreateTable)
async def _create(lobby: Lobby, guest: Guest, message: m.CreateTable) -> None:
    config = lobby.config
    try:
        preset = message.preset.strip().lower()
        rules = find_preset(preset).replace(**dict(message.toggles))
        rules.check_players(message.seats)
        if rules.target > config.max_target:
            raise RulesError(
                f"target must be at most {config.max_target} points, not {rules.target}"
            )
        if message.turn_seconds > config.max_turn_seconds:
            raise RulesError(
                f"the turn timer must be at most {config.max_turn_seconds} s (0 for none), "
                f"not {message.turn_seconds}"
            )
    except (RulesError, TypeError) as exc:
        raise TableError(Code.BAD_RULES, str(exc).split("\n")[0][:500]) from None
    _knows_rules(guest, preset, rules, f"table {message.name}")
    # (after the rules are known good: at the cap, room is made by removing a table, and a
    # hostile pass's create with a preset that does not exist took a watched game so)
    await _room_for(lobby, guest, message.name)
    settings = TableSettings.on(
        lobby.config,
        name=message.name,
        preset=preset,
        rules=rules,
        seats=message.seats,
        password=None,
        turn_seconds=message.turn_seconds,
        creator=(guest.address, guest.name),
        creator_key=guest.player_id,
    )
    if message.password is not None:
        # (scrypt off the event loop, in turn with the checks; while it runs, the name
        # or the room may have been taken)
        settings.password = await password_hashed(message.password, guest.address)
        await _room_for(lobby, guest, message.name)
        if guest.player_id:  # (its creator knows it: not held by the guessers' budgets)
            lobby.guard.welcome("table", (settings.password, guest.player_id))
    made = Table(
        settings,
        lobby.on_record,
        clock=time.monotonic,  # (the lobby's: `held_since` and `make_room` compare with it)
        journal=lobby.journal,
        ratings=lobby.ratings,
    )
    made.held_since = lobby.held_since(guest.address)
    made.on_seats = lobby.changed
    lobby.tables[message.name] = made
    lobby.on_tables()
    lobby.changed(message.name)
    lobby._sweep_soon()


def _knows_rules(guest: Guest, preset: str, rules: Rules, where: str) -> None:
    """A client whose protocol version is older than a toggle (or the preset) the table's
    rules name cannot show or play them: it is not let create, sit at or watch that table
    (every other table is its), and is told which (`messages.RULES_SINCE`)."""
    unknown = m.rules_unknown(wire.rules_to_wire(preset, rules), guest.version)
    if unknown:
        raise TableError(
            Code.NOT_ALLOWED,
            f"{where} plays rules your client does not know ({', '.join(unknown)}): "
            "update president to play or watch there",
        )


def _enter(guest: Guest, table: Table) -> None:
    if guest.table is not None and guest.table is not table:
        raise TableError(Code.NOT_ALLOWED, f"you are at {guest.table.name}: leave it first")


@handles(m.Join)
async def _join(lobby: Lobby, guest: Guest, message: m.Join) -> None:
    if guest.role == "spectator":
        raise TableError(Code.NOT_ALLOWED, "a spectator's connection cannot take a seat")
    table = lobby.table_of(message.table)
    _enter(guest, table)
    table.chairs.may_sit(guest)  # (not asked the password it sat with)
    _knows_rules(guest, table.settings.preset, table.settings.rules, f"table {table.name}")
    # (moved out for not saying ready: not again so soon, under that name or from that
    # address, but for the creator's own address: friends behind one router with them)
    moved = lobby.moved_out.get((table.name, guest.address))
    creator = table.settings.creator
    from_there = (
        moved is not None
        and time.monotonic() - moved <= UNREADY_MEMORY
        and (creator is None or creator[0] != guest.address)
    )
    barred = from_there or table.moved_out(guest.name, lobby.config.ready_seconds)
    if barred and table.chairs.held_by_key(guest) is None:  # (a chair of their own: theirs)
        raise TableError(
            Code.NOT_ALLOWED,
            f"you were moved out of {table.name} for not saying ready: sit at another "
            f"table, or here again after {UNREADY_MEMORY / 60:g} minutes",
        )
    attempt = table.join(guest, message.seat, message.password)
    if table.chairs.held_by_key(guest) is not None:
        # their own chair, by the key they sat with (after the password): back without
        # it (a pass coming back to its seat mid-game was asked it again, and refused)
        await attempt
    else:
        await _password_tried(lobby, guest, table, message.password, attempt)
    guest.table = table
    lobby.changed(table.name)


@handles(m.Spectate)
async def _spectate(lobby: Lobby, guest: Guest, message: m.Spectate) -> None:
    table = lobby.table_of(message.table)
    _enter(guest, table)
    table.chairs.may_watch(guest)  # (not asked the password it came in with)
    _knows_rules(guest, table.settings.preset, table.settings.rules, f"table {table.name}")
    await _password_tried(
        lobby, guest, table, message.password, table.spectate(guest, message.password)
    )
    guest.table = table
    lobby.changed(table.name)


@handles(m.Leave)
async def _leave(lobby: Lobby, guest: Guest, message: m.Leave) -> None:
    table = lobby.seated_table(guest)
    await table.leave(guest)
    guest.table = None
    lobby.changed(table.name)
    lobby.send_list(guest)


@handles(m.AddBot)
async def _add_bot(lobby: Lobby, guest: Guest, message: m.AddBot) -> None:
    table = lobby.table_of(message.table)
    _may_change_bots(lobby, guest, table)
    config = lobby.config
    mine = sum(
        1
        for other in lobby.tables.values()
        for slot in other.chairs
        if slot.bot is not None and slot.added_by == guest.address
    )
    if mine >= config.bots_per_address:
        raise TableError(
            Code.NOT_ALLOWED,
            f"your address already has {mine} server bots at tables (the most one address may have)",
        )
    await table.add_bot(message.strategy, message.seat, added_by=guest.address)
    lobby.changed(table.name)


@handles(m.RemoveBot)
async def _remove_bot(lobby: Lobby, guest: Guest, message: m.RemoveBot) -> None:
    table = lobby.table_of(message.table)
    _may_change_bots(lobby, guest, table)
    slots = table.chairs.slots
    slot = slots[message.seat] if 0 <= message.seat < len(slots) else None
    added_by = "" if slot is None else slot.added_by
    known = added_by or table.settings.creator is not None  # (else a table from before)
    bot = slot is not None and slot.bot is not None
    if bot and known and added_by != guest.address and not lobby.created(guest, table.name):
        # (a guest in a chair took the creator's bots away to keep a chair free, so that
        # the ready time never applied: a bot is its adder's and the creator's, after a
        # restart too)
        raise TableError(
            Code.NOT_ALLOWED,
            f"only who added the bot in seat {message.seat}, or the creator of "
            f"{table.name}, may remove it",
        )
    await table.remove_bot(message.seat)
    lobby.changed(table.name)


@handles(m.Ready)
async def _ready(lobby: Lobby, guest: Guest, message: m.Ready) -> None:
    table = lobby.seated_table(guest)
    await table.ready(guest, message.ready)
    lobby.changed(table.name)


@handles(m.Resume)
async def _resume(lobby: Lobby, guest: Guest, message: m.Resume) -> None:
    if guest.role == "spectator":
        raise TableError(Code.NOT_ALLOWED, "a spectator's connection cannot take a seat")
    table = lobby.table_of(message.table)
    _enter(guest, table)
    _knows_rules(guest, table.settings.preset, table.settings.rules, f"table {table.name}")
    await table.resume(guest, message.seat, message.token)
    guest.table = table


@handles(m.Chat)
async def _chat(lobby: Lobby, guest: Guest, message: m.Chat) -> None:
    now = asyncio.get_running_loop().time()
    if not guest.chat_allowed(now):
        raise TableError(Code.RATE_LIMITED, "slow down: too many chat messages")
    table = lobby.seated_table(guest) if message.scope == "table" else None
    room = "lobby" if table is None else f"table {table.name}"
    problem = line_problem(message.text)
    if problem is not None:
        raise TableError(Code.NOT_ALLOWED, problem)
    refusal = lobby.chat_budget.refusal(guest.address, room, now)
    if refusal is not None:
        raise TableError(Code.RATE_LIMITED, refusal)
    said = m.Chat(scope=message.scope, text=message.text, sender=guest.name[:40])
    if table is not None:
        for member in table.members():
            member.deliver(said)
    else:  # everyone in the lobby: not at a table
        lobby.chat_kept.add(now, said.sender, said.text, guest.address)
        for other in list(lobby.guests):
            if other.table is None or other is guest:
                other.deliver(said)


@handles(*wire.ACTION_MESSAGES)
async def _act(lobby: Lobby, guest: Guest, message: wire.ActionMessage) -> None:
    """A play, a pass, a return, or a due paid: for the seat of this connection, never
    another (the engine says whether that seat may make it now), and for the turn it
    answers (`seen`: a turn the timer has played since is not another one's answer)."""
    table = lobby.seated_table(guest)
    await table.act(guest, wire.action_from_wire(message), message.seen)


@handles(m.Nudge)
async def _nudge(lobby: Lobby, guest: Guest, message: m.Nudge) -> None:
    await lobby.seated_table(guest).nudge(guest, message.seen)


@handles(m.ClientSeed)
async def _seed(lobby: Lobby, guest: Guest, message: m.ClientSeed) -> None:
    await lobby.seated_table(guest).client_seed(guest, message.hand, message.seed)


@handles(m.DealCheck)
async def _check(lobby: Lobby, guest: Guest, message: m.DealCheck) -> None:
    await lobby.seated_table(guest).deal_check(guest, message.hand, message.ok)


@handles(m.TablePassword)
async def _table_password(lobby: Lobby, guest: Guest, message: m.TablePassword) -> None:
    """Its creator gives a table a password, or takes it away (a hostile pass: guests
    from many addresses took turns in a table's last free chair, each moved out for not
    saying ready, and the friend it waited for never sat)."""
    table = lobby.table_of(message.table)
    if not lobby.created(guest, table.name):
        raise TableError(
            Code.NOT_ALLOWED, f"only the player who made {table.name} gives it a password"
        )
    if message.password is None and table.settings.password is None:
        return  # (no change: nothing written, nobody told)
    now = time.monotonic()
    wait = table.password_changed + PASSWORD_EVERY - now
    if wait > 0:  # (each change is a journal row, a view to everyone there, and an scrypt)
        raise TableError(
            Code.RATE_LIMITED,
            f"one password change every {PASSWORD_EVERY:g} s at a table: again in"
            f" {math.ceil(wait)} s",
        )
    table.password_changed = now
    stored = None
    if message.password is not None:  # (scrypt off the event loop, in turn with the checks)
        stored = await password_hashed(message.password, guest.address)
        if guest.player_id:  # (its creator knows it: not held by the guessers' budgets)
            lobby.guard.welcome("table", (stored, guest.player_id))
    if lobby.tables.get(table.name) is not table:  # (gone meanwhile)
        raise TableError(Code.NO_SUCH_TABLE, f"there is no table called {table.name!r}")
    await table.set_password(stored)
    lobby.changed(table.name)


# --- a game's record, for its players -------------------------------------------------


@handles(m.RecordAsk)
async def _record_ask(lobby: Lobby, guest: Guest, message: m.RecordAsk) -> None:
    """The record of the game that last ended at a table, to one of its players (by the
    player key they played it with), in pages (the answer's size is charged to the
    connection's rate, as a table list's is)."""
    name = message.table
    found = lobby.records_of(name)
    if name not in lobby.tables and not found:
        raise TableError(Code.NO_SUCH_TABLE, f"there is no table called {name!r}")
    if not lobby.config.share_records:
        raise TableError(
            Code.NOT_ALLOWED,
            "this server keeps its game records to itself (--private-records): ask the host",
        )
    if not found:
        raise TableError(Code.NOT_ALLOWED, f"no game has ended at {name} since the server started")
    # (the latest game at that name this player played: another's game there since, at
    # a table remade under the name, takes nothing from them)
    mine = [written for written, keys in found if guest.player_id and guest.player_id in keys]
    if not mine:
        raise TableError(
            Code.NOT_ALLOWED,
            f"only a game's players may have its record: none of the games that ended at"
            f" {name} was yours",
        )
    written = mine[0]
    now, sent = time.monotonic(), lobby.record_sent
    wait = sent.get(guest.player_id, -RECORD_EVERY) + RECORD_EVERY - now
    if wait > 0:
        raise TableError(
            Code.RATE_LIMITED,
            f"one record every {RECORD_EVERY:g} s: ask again in {math.ceil(wait)} s",
        )
    if len(sent) > 4096:  # (memory bounded by recent askers)
        for key in [key for key, at in sent.items() if now - at > RECORD_EVERY]:
            del sent[key]
    sent[guest.player_id] = now
    path = Path(written)
    most = m.RECORD_PAGE * m.RECORD_PAGES  # (on the wire)
    packed = guest.version >= 18  # (`GameRecord.packed`: a long game of 12 passed `most`)
    try:
        if packed:
            size, data = await lobby.packed_record(path)
        else:
            with path.open("rb") as kept:
                data = kept.read(most + 1)
            size = len(data)
    except OSError:
        size, data = 0, b""
    if not size:  # (gone past `--max-records`, or taken away: an answer all the same)
        raise TableError(
            Code.NOT_ALLOWED, f"the record of that game is not kept any more ({path.name})"
        )
    if len(data) > most or size > m.RECORD_UNPACKED:
        raise TableError(
            Code.NOT_ALLOWED,
            f"the record of that game is too long to send ({path.name}): ask the host for it",
        )
    pages = [data[at : at + m.RECORD_PAGE] for at in range(0, len(data), m.RECORD_PAGE)]
    for number, page in enumerate(pages):
        more = number < len(pages) - 1
        guest.deliver(m.GameRecord(name, path.name, number, more, page, packed))


# --- the ladder (issue 15) ------------------------------------------------------------


@handles(m.Leaderboard)
async def _leaderboard(lobby: Lobby, guest: Guest, message: m.Leaderboard) -> None:
    """A page of the ladder, or the named players' entries (the answer's size is charged
    to the connection's rate like a table list's)."""
    guest.deliver(lobby.ratings.answer(message))


def _minutes(seconds: float) -> str:
    """A wait in words: "10 minutes", "1 minute", "45 s"."""
    if seconds < 60:
        return f"{seconds:g} s"
    whole = round(seconds / 60)
    return f"{whole} minute{'s' if whole != 1 else ''}"

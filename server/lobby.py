"""The lobby: tables by name, and one handler per message type (a registry, not an
if-chain).  Every refusal is an `Error` with a code and a sentence; nothing a client
sends can touch another table."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from president.engine import RulesError, find_preset
from president.protocol import messages as m

from .journal import Journal
from .restore import RestoreError, compacted, rebuild
from .table import Table, TableError, TableSettings, parse_action

if TYPE_CHECKING:
    from .app import Server
    from .session import Session

log = logging.getLogger("president.server")

M = TypeVar("M", bound=m.Message)
Handler = Callable[["Lobby", "Session", Any], Awaitable[None]]
HANDLERS: dict[type[m.Message], Handler] = {}


def handles(kind: type[M]) -> Callable[[Callable[[Lobby, Session, M], Awaitable[None]]],
                                       Callable[[Lobby, Session, M], Awaitable[None]]]:
    def register(func: Callable[[Lobby, Session, M], Awaitable[None]]) -> Callable[[Lobby, Session, M], Awaitable[None]]:
        HANDLERS[kind] = func
        return func

    return register


class Lobby:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.config = server.config
        self.tables: dict[str, Table] = {}
        self.sessions: set[Session] = set()

    async def handle(self, session: Session, message: m.Message) -> None:
        handler = HANDLERS.get(type(message))
        if self.server.closing and type(message) not in (m.Ping, m.Pong):
            session.deliver(m.Error(code="server_closing", message="the server is shutting down",
                                    about=message.TYPE))
            return
        if handler is None:
            session.deliver(m.Error(code="not_allowed", message=f"a server does not take {message.TYPE}",
                                    about=message.TYPE))
            return
        try:
            await handler(self, session, message)
        except TableError as error:
            session.deliver(m.Error(code=error.code, message=error.message[:500], about=message.TYPE))
        except Exception:
            log.exception("%s: handling %s failed", session.address, message.TYPE)
            session.deliver(m.Error(code="not_allowed", message="the server could not do that",
                                    about=message.TYPE))

    async def disconnect(self, session: Session) -> None:
        self.sessions.discard(session)
        table = session.table
        if table is not None and not self.server.closing:  # closing: the tables stay as they are
            async with table.lock:
                table.drop(session)
                table.broadcast_view()
            session.table = None

    def restore(self, journal: Journal) -> list[str]:
        """Rebuild every table the journal holds and set its game going again; a table
        whose journal does not rebuild is closed (its rows are kept) and named in the
        returned problems, and the others come back all the same."""
        problems = []
        for table_id, name, entries in journal.open_tables():
            try:
                table = rebuild(entries, self.config, self.server.write_record, time.monotonic)
                if name in self.tables:
                    raise RestoreError("a table of that name is already open")
            except RestoreError as exc:
                log.error("table %s: not restored: %s", name, exc)
                problems.append(f"table {name!r} could not be restored: {exc}")
                journal.close_table(table_id)
                continue
            table.journal, table.log_id = journal, table_id
            if table.status != "playing":
                for slot in table.slots:  # nobody not back yet may start a game by being ready
                    slot.ready = slot.bot is not None
                journal.compact(table_id, compacted(table))
            self.tables[name] = table
            if table.status == "playing":
                table.drive()
        if self.tables:
            asyncio.get_running_loop().call_later(self.config.resume_seconds, self.free_unclaimed)
        return problems

    def free_unclaimed(self) -> None:
        """The resume window after a restart is over: seats at tables with no game on
        whose people did not come back are freed (mid-game, the grace rule does it)."""
        for table in self.tables.values():
            if table.status != "playing" and table.free_away_seats():
                table.broadcast_view()
        self.lobby_changed()

    def table_list(self) -> m.Tables:
        return m.Tables(tables=tuple(t.info() for t in self.tables.values())[:1024])

    def lobby_changed(self) -> None:
        listing = self.table_list()
        for session in list(self.sessions):
            if session.table is None:
                session.deliver(listing)

    def table_of(self, name: str) -> Table:
        table = self.tables.get(name)
        if table is None:
            raise TableError("no_such_table", f"there is no table called {name!r}")
        return table

    def seated_table(self, session: Session) -> Table:
        if session.table is None:
            raise TableError("not_allowed", "you are not at a table")
        return session.table

    async def close(self) -> None:
        """Stop driving every table; games in progress stay in the journal for the next
        start (with no journal, they end here and their records are written)."""
        keep = self.server.journal is not None
        await asyncio.gather(*(t.suspend() if keep else t.stop() for t in self.tables.values()),
                             return_exceptions=True)


@handles(m.Ping)
async def _ping(lobby: Lobby, session: Session, message: m.Ping) -> None:
    session.deliver(m.Pong(nonce=message.nonce))


@handles(m.Pong)
async def _pong(lobby: Lobby, session: Session, message: m.Pong) -> None:
    return


@handles(m.ListTables)
async def _list(lobby: Lobby, session: Session, message: m.ListTables) -> None:
    lobby.sessions.add(session)
    session.deliver(lobby.table_list())


@handles(m.CreateTable)
async def _create(lobby: Lobby, session: Session, message: m.CreateTable) -> None:
    if message.name in lobby.tables:
        raise TableError("not_allowed", f"there is already a table called {message.name!r}")
    if len(lobby.tables) >= lobby.config.max_tables:
        raise TableError("not_allowed", "this server has as many tables as it takes")
    try:
        preset = message.preset.strip().lower()
        rules = find_preset(preset).replace(**dict(message.toggles)) if message.toggles else find_preset(preset)
        rules.check_players(message.seats)
    except (RulesError, TypeError) as exc:
        raise TableError("bad_rules", str(exc).split("\n")[0][:500]) from None
    settings = TableSettings.on(lobby.config, name=message.name, preset=preset, rules=rules,
                                seats=message.seats, password=message.password,
                                turn_seconds=message.turn_seconds)
    lobby.tables[message.name] = Table(settings, lobby.server.write_record, journal=lobby.server.journal)
    lobby.lobby_changed()


async def _enter(lobby: Lobby, session: Session, table: Table) -> None:
    if session.table is not None and session.table is not table:
        raise TableError("not_allowed", f"you are at {session.table.name}: leave it first")
    session.table = table


@handles(m.Join)
async def _join(lobby: Lobby, session: Session, message: m.Join) -> None:
    if session.role == "spectator":
        raise TableError("not_allowed", "a spectator's connection cannot take a seat")
    table = lobby.table_of(message.table)
    await _enter(lobby, session, table)
    async with table.lock:
        try:
            seated = table.join(session, message.seat, message.password)
        except TableError:
            if table.slot_of(session) is None and session not in table.spectators:
                session.table = None
            raise
        session.deliver(seated)
        table.broadcast_view()
        table.snapshot(session)
    lobby.lobby_changed()


@handles(m.Spectate)
async def _spectate(lobby: Lobby, session: Session, message: m.Spectate) -> None:
    table = lobby.table_of(message.table)
    await _enter(lobby, session, table)
    async with table.lock:
        try:
            table.spectate(session, message.password)
        except TableError:
            session.table = None
            raise
        table.snapshot(session)
    lobby.lobby_changed()


@handles(m.Leave)
async def _leave(lobby: Lobby, session: Session, message: m.Leave) -> None:
    table = lobby.seated_table(session)
    async with table.lock:
        table.leave(session)
        table.broadcast_view()
    session.table = None
    lobby.lobby_changed()
    session.deliver(lobby.table_list())


@handles(m.AddBot)
async def _add_bot(lobby: Lobby, session: Session, message: m.AddBot) -> None:
    table = lobby.table_of(message.table)
    async with table.lock:
        table.add_bot(message.strategy, message.seat)
        table.broadcast_view()
        if table.status != "playing" and all(not s.empty and s.ready for s in table.slots):
            table.start()
    lobby.lobby_changed()


@handles(m.RemoveBot)
async def _remove_bot(lobby: Lobby, session: Session, message: m.RemoveBot) -> None:
    table = lobby.table_of(message.table)
    async with table.lock:
        table.remove_bot(message.seat)
        table.broadcast_view()
    lobby.lobby_changed()


@handles(m.Ready)
async def _ready(lobby: Lobby, session: Session, message: m.Ready) -> None:
    table = lobby.seated_table(session)
    async with table.lock:
        if table.set_ready(session, message.ready):
            table.start()
        table.broadcast_view()
    lobby.lobby_changed()


@handles(m.Resume)
async def _resume(lobby: Lobby, session: Session, message: m.Resume) -> None:
    table = lobby.table_of(message.table)
    if session.table is not None and session.table is not table:
        raise TableError("not_allowed", f"you are at {session.table.name}: leave it first")
    async with table.lock:
        seated = table.resume(session, message.seat, message.token)
        session.table = table
        session.deliver(seated)
        table.broadcast_view()
        table.snapshot(session)
        table.wake()


@handles(m.Chat)
async def _chat(lobby: Lobby, session: Session, message: m.Chat) -> None:
    if not session.chat_allowed(asyncio.get_running_loop().time()):
        raise TableError("rate_limited", "slow down: too many chat messages")
    said = m.Chat(scope=message.scope, text=message.text, sender=session.name[:40])
    if message.scope == "table":
        for member in lobby.seated_table(session).members():
            member.deliver(said)
    else:  # everyone in the lobby: not at a table
        for other in list(lobby.sessions):
            if other.table is None or other is session:
                other.deliver(said)


async def _act(lobby: Lobby, session: Session, message: m.Message) -> None:
    """A play, a pass or a return: for the seat of this connection, never another."""
    table = lobby.seated_table(session)
    await table.act(session, parse_action(message))


for _kind in (m.PlayCards, m.PassTurn, m.ReturnCards):
    HANDLERS[_kind] = _act


@handles(m.ClientSeed)
async def _seed(lobby: Lobby, session: Session, message: m.ClientSeed) -> None:
    table = lobby.seated_table(session)
    async with table.lock:
        table.client_seed(session, message.hand, message.seed)


@handles(m.DealCheck)
async def _check(lobby: Lobby, session: Session, message: m.DealCheck) -> None:
    table = lobby.seated_table(session)
    async with table.lock:
        table.deal_check(session, message.hand, message.ok)

"""The lobby: tables by name, and one handler per message type (a registry, not an
if-chain).  Every refusal is an `Error` with a code and a sentence; nothing a client
sends can touch another table.  The lobby is given what it needs (the configuration, the
journal, where records go); it knows a connection only as a `Guest`."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from president.engine import RulesError, find_preset
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.errors import Code, RemoteProtocolError

from .config import ServerConfig, TableSettings
from .journal import Journal
from .restore import RestoreError, compacted, rebuild
from .seats import TableError
from .table import OnRecord, Table

log = logging.getLogger("president.server")


class Guest(Protocol):
    """A connection as the lobby sees it."""

    name: str
    role: str
    hand_key: bytes
    address: str
    table: Table | None

    def deliver(self, message: m.Message) -> None: ...

    def chat_allowed(self, now: float) -> bool: ...


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
        self.on_record = on_record
        self.journal = journal
        self.tables: dict[str, Table] = {}
        self.guests: set[Guest] = set()
        #: Shutting down: every table stays as it is, for the next start.
        self.closing = False

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
                )
            except RestoreError as exc:
                log.error("table %s: not restored: %s", name, exc)
                problems.append(f"table {name!r} could not be restored: {exc}")
                journal.close_table(table_id)
                continue
            table.resume_after_restart()
            if table.status != "playing":
                journal.compact(table_id, compacted(table))
            self.tables[name] = table
        if self.tables:
            asyncio.get_running_loop().call_later(
                self.config.resume_seconds, lambda: asyncio.ensure_future(self.free_unclaimed())
            )
        return problems

    async def free_unclaimed(self) -> None:
        """The resume window after a restart is over: chairs at tables with no game on
        whose people did not come back are freed (mid-game, the grace rule does it)."""
        for table in list(self.tables.values()):
            await table.free_unclaimed()
        self.lobby_changed()

    def table_list(self) -> m.Tables:
        return m.Tables(tables=tuple(t.info() for t in self.tables.values())[:1024])

    def lobby_changed(self) -> None:
        listing = self.table_list()
        for guest in list(self.guests):
            if guest.table is None:
                guest.deliver(listing)

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
        keep = self.journal is not None
        await asyncio.gather(
            *(t.suspend() if keep else t.stop() for t in self.tables.values()),
            return_exceptions=True,
        )


@handles(m.Ping)
async def _ping(lobby: Lobby, guest: Guest, message: m.Ping) -> None:
    guest.deliver(m.Pong(nonce=message.nonce))


@handles(m.Pong)
async def _pong(lobby: Lobby, guest: Guest, message: m.Pong) -> None:
    return


@handles(m.ListTables)
async def _list(lobby: Lobby, guest: Guest, message: m.ListTables) -> None:
    lobby.guests.add(guest)
    guest.deliver(lobby.table_list())


@handles(m.CreateTable)
async def _create(lobby: Lobby, guest: Guest, message: m.CreateTable) -> None:
    if message.name in lobby.tables:
        raise TableError(Code.NOT_ALLOWED, f"there is already a table called {message.name!r}")
    if len(lobby.tables) >= lobby.config.max_tables:
        raise TableError(Code.NOT_ALLOWED, "this server has as many tables as it takes")
    try:
        preset = message.preset.strip().lower()
        rules = find_preset(preset).replace(**dict(message.toggles))
        rules.check_players(message.seats)
    except (RulesError, TypeError) as exc:
        raise TableError(Code.BAD_RULES, str(exc).split("\n")[0][:500]) from None
    settings = TableSettings.on(
        lobby.config,
        name=message.name,
        preset=preset,
        rules=rules,
        seats=message.seats,
        password=message.password,
        turn_seconds=message.turn_seconds,
    )
    lobby.tables[message.name] = Table(settings, lobby.on_record, journal=lobby.journal)
    lobby.lobby_changed()


def _enter(guest: Guest, table: Table) -> None:
    if guest.table is not None and guest.table is not table:
        raise TableError(Code.NOT_ALLOWED, f"you are at {guest.table.name}: leave it first")


@handles(m.Join)
async def _join(lobby: Lobby, guest: Guest, message: m.Join) -> None:
    if guest.role == "spectator":
        raise TableError(Code.NOT_ALLOWED, "a spectator's connection cannot take a seat")
    table = lobby.table_of(message.table)
    _enter(guest, table)
    await table.join(guest, message.seat, message.password)
    guest.table = table
    lobby.lobby_changed()


@handles(m.Spectate)
async def _spectate(lobby: Lobby, guest: Guest, message: m.Spectate) -> None:
    table = lobby.table_of(message.table)
    _enter(guest, table)
    await table.spectate(guest, message.password)
    guest.table = table
    lobby.lobby_changed()


@handles(m.Leave)
async def _leave(lobby: Lobby, guest: Guest, message: m.Leave) -> None:
    table = lobby.seated_table(guest)
    await table.leave(guest)
    guest.table = None
    lobby.lobby_changed()
    guest.deliver(lobby.table_list())


@handles(m.AddBot)
async def _add_bot(lobby: Lobby, guest: Guest, message: m.AddBot) -> None:
    await lobby.table_of(message.table).add_bot(message.strategy, message.seat)
    lobby.lobby_changed()


@handles(m.RemoveBot)
async def _remove_bot(lobby: Lobby, guest: Guest, message: m.RemoveBot) -> None:
    await lobby.table_of(message.table).remove_bot(message.seat)
    lobby.lobby_changed()


@handles(m.Ready)
async def _ready(lobby: Lobby, guest: Guest, message: m.Ready) -> None:
    await lobby.seated_table(guest).ready(guest, message.ready)
    lobby.lobby_changed()


@handles(m.Resume)
async def _resume(lobby: Lobby, guest: Guest, message: m.Resume) -> None:
    if guest.role == "spectator":
        raise TableError(Code.NOT_ALLOWED, "a spectator's connection cannot take a seat")
    table = lobby.table_of(message.table)
    _enter(guest, table)
    await table.resume(guest, message.seat, message.token)
    guest.table = table


@handles(m.Chat)
async def _chat(lobby: Lobby, guest: Guest, message: m.Chat) -> None:
    if not guest.chat_allowed(asyncio.get_running_loop().time()):
        raise TableError(Code.RATE_LIMITED, "slow down: too many chat messages")
    said = m.Chat(scope=message.scope, text=message.text, sender=guest.name[:40])
    if message.scope == "table":
        for member in lobby.seated_table(guest).members():
            member.deliver(said)
    else:  # everyone in the lobby: not at a table
        for other in list(lobby.guests):
            if other.table is None or other is guest:
                other.deliver(said)


@handles(m.PlayCards, m.PassTurn, m.ReturnCards)
async def _act(
    lobby: Lobby, guest: Guest, message: m.PlayCards | m.PassTurn | m.ReturnCards
) -> None:
    """A play, a pass or a return: for the seat of this connection, never another."""
    table = lobby.seated_table(guest)
    await table.act(guest, wire.action_from_wire(message))


@handles(m.ClientSeed)
async def _seed(lobby: Lobby, guest: Guest, message: m.ClientSeed) -> None:
    await lobby.seated_table(guest).client_seed(guest, message.hand, message.seed)


@handles(m.DealCheck)
async def _check(lobby: Lobby, guest: Guest, message: m.DealCheck) -> None:
    await lobby.seated_table(guest).deal_check(guest, message.hand, message.ok)

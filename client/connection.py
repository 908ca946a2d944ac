"""A client's link to a server: TLS 1.3 with the certificate pinned by fingerprint, the
protocol's handshake, and a `Client` that keeps a `TableModel` up to date — opening its
own sealed hand, contributing to each fair deal and checking it afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import socket
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.engine import Action
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.certs import fingerprint, normalise_fingerprint, same_fingerprint
from president.protocol.connection import Connection
from president.protocol.discovery import host_port
from president.protocol.errors import Code, RemoteProtocolError
from president.protocol.fairdeal import check_hand
from president.protocol.identity import (
    KEYLESS_VERSIONS,
    certificate_digest,
    player_id,
    public_bytes,
    sign_proof,
)
from president.protocol.packing import unpack_record
from president.protocol.sealing import SealError, open_hand, public_key_bytes

from .identity import IdentityError
from .model import Ladder, TableList, TableModel, let_go
from .pinning import KnownServers, PinError, PinMismatch

DEFAULT_PORT = 7766
#: Between reconnection attempts: the first wait, doubled after each failure up to the most.
RETRY_FIRST, RETRY_MOST = 0.5, 5.0


class ConnectFailed(Exception):
    """Could not reach the server, or it refused us; the message says why."""


class PasswordNeeded(ConnectFailed):
    """The server has a password and the hello gave none, or a wrong one (`wrong`)."""

    def __init__(self, message: str, *, wrong: bool) -> None:
        super().__init__(message)
        self.wrong = wrong


class CertificateRefused(ConnectFailed):
    """The server shows a certificate that is not the one pinned for it."""

    def __init__(self, message: str, where: str = "", shown: str = "") -> None:
        super().__init__(message)
        self.where, self.shown = where, shown


#: An address of a Unix socket: `unix:PATH` (`president play`'s own server).
UNIX_PREFIX = "unix:"


def split_address(text: str) -> tuple[str, int]:
    """HOST[:PORT] as (host, port): an IPv6 address takes a port only in brackets
    (`[fd00::2]:7766`; `fd00::2:1` is an address, as `cli.usage.address` reads it).
    `unix:PATH` stays whole, with no port."""
    if text.startswith(UNIX_PREFIX):
        return text, 0
    host, sep, port = text.rpartition(":")
    if sep and port.isdigit() and host and (":" not in host or host.startswith("[")):
        return host.strip("[]"), int(port)
    return text.strip("[]"), DEFAULT_PORT


def client_tls() -> ssl.SSLContext:
    """TLS 1.3; the certificate is checked by its pinned fingerprint, not by a CA."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


@dataclass
class Link:
    """An open, welcomed connection."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    conn: Connection
    key: X25519PrivateKey
    name: str
    fingerprint: str
    server: str
    #: The id of the player key proven at hello ("" when none was: an older server).
    player_id: str = ""

    async def send(self, message: m.Message) -> None:
        self.writer.write(self.conn.send(message))
        await self.writer.drain()

    async def receive(self) -> m.Message | None:
        """The next message; None when the server closed the connection."""
        while True:
            message = self.conn.next_event()
            if message is not None:
                return message
            data = await self.reader.read(65536)
            if not data:
                return None
            self.conn.receive_data(data)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


#: An IPv4 address with its port after a dot instead of a colon.
_PORT_AFTER_DOT = re.compile(r"((?:\d{1,3}\.){3}\d{1,3})\.(\d{1,5})")


async def _open_tls(
    host: str, port: int, timeout: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
    """A TLS connection and the fingerprint of the certificate the server showed."""
    try:
        if host.startswith(UNIX_PREFIX):
            opening = asyncio.open_unix_connection(
                host[len(UNIX_PREFIX) :], ssl=client_tls(), server_hostname="localhost"
            )
        else:
            opening = asyncio.open_connection(host, port, ssl=client_tls(), server_hostname=host)
        reader, writer = await asyncio.wait_for(opening, timeout)
    except (OSError, TimeoutError, ssl.SSLError, OverflowError, UnicodeError) as exc:
        # a name that does not resolve, or cannot be one (too long a label), a port out of range
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if isinstance(exc, TimeoutError):
            reason = f"no answer within {timeout:g} s"
        elif isinstance(exc, ConnectionRefusedError):  # (asyncio's "Connect call failed")
            reason = "connection refused: nothing listens on that " + (
                "socket" if host.startswith(UNIX_PREFIX) else "port"
            )
        elif isinstance(exc, ssl.SSLError):  # (a port of another service: no TLS 1.3 there)
            reason = f"no TLS 1.3 there ({exc.reason or exc}): is it a president server's port?"
        elif isinstance(exc, socket.gaierror):  # (a typo: "127.0.0.l", "frieday.local")
            reason = f"no machine is called {host!r} ({exc.strerror or exc}): is it typed right?"
        elif isinstance(exc, OSError) and reason.startswith("Connect call failed"):
            # (asyncio's words, with the address in Python's; the system's say why)
            reason = os.strerror(exc.errno) if exc.errno else "it did not answer"
            reason += ": is the address right, and that machine on this network?"
        meant = _PORT_AFTER_DOT.fullmatch(host)
        if meant is not None and isinstance(exc, OSError):  # ("192.168.1.20.7766")
            reason += f" (did you mean {meant[1]}:{meant[2]}?)"
        raise ConnectFailed(
            f"cannot reach a president server at {_where(host, port)}: {reason}"
        ) from None
    ssl_object = writer.get_extra_info("ssl_object")
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    if der is None:
        writer.close()
        raise ConnectFailed(f"{_where(host, port)} did not show a certificate")
    return reader, writer, fingerprint(der)


async def server_fingerprint(address: str, timeout: float = 10.0) -> tuple[str, str]:
    """(HOST:PORT, an IPv6 address in brackets; the fingerprint its certificate has),
    without saying hello: for showing a user the fingerprint before they trust it."""
    host, port = split_address(address)
    _, writer, shown = await _open_tls(host, port, timeout)
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return _where(host, port), shown


def _where(host: str, port: int) -> str:
    """The address as a person reads it (and as known servers are filed)."""
    return host if host.startswith(UNIX_PREFIX) else host_port(host, port)


async def resolve_pin(
    address: str,
    known: KnownServers,
    given: str | None,
    ask: Callable[[str], Awaitable[str]] | None,
    hint: str | None = None,
    warnings: Sequence[str] = (),
) -> str:
    """The fingerprint to hold a server to: the one given (`--fingerprint`), the one
    remembered for it (checked by the connection itself: no probe first), or the one it
    shows — if `ask`, putting the question to a person who compares it with what the host
    printed, gets "y".  Without `ask` (a bot cannot answer), a server never trusted before
    is refused.  Before the question, the `warnings` (from the LAN picker), and a warning
    if the server's LAN announcement claimed another certificate (`hint`) than the one it
    shows."""
    if given is not None:
        try:
            return normalise_fingerprint(given)
        except ValueError as exc:
            raise ConnectFailed(f"--fingerprint: {exc}") from None
    host, port = split_address(address)
    try:
        remembered = known.lookup(_where(host, port))
    except PinError as exc:
        raise ConnectFailed(str(exc)) from None
    if remembered is not None:  # (trusted before: the connection itself checks it, so no
        return remembered  # probe of its own, which a full server counts as a silent one)
    where, shown = await server_fingerprint(address)
    if ask is None:
        raise ConnectFailed(
            f"{where} is not a server you trusted before: pass --fingerprint with the fingerprint "
            f"its host printed (this server shows {shown}: compare it with what the host printed)"
        )
    cautions = list(warnings)
    if hint is not None and not same_fingerprint(hint, shown):
        cautions.append(
            f"Warning: this server's LAN announcement claimed the certificate {hint}, "
            "not the one it shows below: it may be pretending to be another server."
        )
    answer = await ask(
        "".join(caution + "\n" for caution in cautions)
        + f"First connection to {where}. Its certificate fingerprint (SHA-256) is\n"
        f"  {shown}\n"
        "Compare it with the fingerprint the host's `president server` printed.\n"
        "Is it the same? Trust this server and remember it [y/N]: "
    )
    if answer.strip().lower() not in ("y", "yes"):
        raise ConnectFailed(f"not connected: you did not trust {where}")
    return shown


def versions_offered(keyed: bool) -> tuple[int, ...]:
    """What `hello.versions` lists: with a player key, the newest `LISTED` versions this
    client speaks (`messages.OFFERED`: a server of an older version refuses a longer
    list); without one, only the versions before keys."""
    return m.VERSIONS[-m.LISTED :] if keyed else KEYLESS_VERSIONS


async def connect(
    address: str,
    name: str,
    *,
    role: str = "player",
    pin: str | None = None,
    known: KnownServers | None = None,
    trust: Callable[[str], bool] | None = None,
    password: str | None = None,
    timeout: float = 10.0,
    identity: Ed25519PrivateKey | Callable[[], Ed25519PrivateKey] | None = None,
) -> Link:
    """Open a link.  `pin` checks the fingerprint given; otherwise `known_servers` does,
    and a server never seen before is trusted if `trust(fingerprint)` says so (or, with
    no `trust`, always) and then remembered.  With an `identity` (the player's key, or
    what makes it when a server first asks: `identity.KeyFile`) the client offers
    version 4 and proves the key when the server challenges it; without one it speaks
    only the versions before keys."""
    host, port = split_address(address)
    if pin is not None:
        try:
            pin = normalise_fingerprint(pin)
        except ValueError as exc:
            raise ConnectFailed(str(exc)) from None
    reader, writer, shown = await _open_tls(host, port, timeout)
    where = _where(host, port)
    known = known or KnownServers()
    fresh = False  # (remembered once it answers hello as a president server does)
    try:
        if pin is not None:
            if not same_fingerprint(pin, shown):
                try:  # (the pin remembered for it: said in the known servers' words)
                    remembered = known.lookup(where)
                except PinError:  # (a file not the user's own: the pin was given, then)
                    remembered = None
                if remembered is not None and same_fingerprint(remembered, pin):
                    mismatch = PinMismatch(where, remembered, shown, known.path)
                    raise CertificateRefused(str(mismatch), where, shown)
                raise CertificateRefused(
                    f"the server at {where} shows the certificate {shown},\n"
                    f"not the {pin} you gave. Someone may be between you and the server, or the "
                    "fingerprint was copied wrong: ask the host what their server printed.",
                    where,
                    shown,
                )
            fresh = True
        elif not known.check(where, shown):
            if trust is not None and not trust(shown):
                raise ConnectFailed(f"you did not trust the server at {where} ({shown})")
            fresh = True
    except (PinError, ConnectFailed):
        writer.close()
        raise
    key = X25519PrivateKey.generate()
    conn = Connection("client")
    link = Link(reader, writer, conn, key, name, shown, "")
    versions = versions_offered(identity is not None)
    await link.send(
        m.Hello(
            versions=versions,
            name=name,
            role=role,  # type: ignore[arg-type]
            hand_key=public_key_bytes(key),
            password=password,
        )
    )
    try:
        answer = await asyncio.wait_for(link.receive(), timeout)
        if isinstance(answer, m.Challenge) and identity is not None:
            if answer.version not in versions:
                raise RemoteProtocolError(
                    Code.VERSION, f"the server chose version {answer.version}, not offered"
                )
            try:
                mine = identity if isinstance(identity, Ed25519PrivateKey) else identity()
            except IdentityError as exc:
                await link.close()
                raise ConnectFailed(str(exc)) from None
            signature = sign_proof(
                mine, answer.version, certificate_digest(shown), answer.challenge
            )
            await link.send(m.Proof(player_key=public_bytes(mine), signature=signature))
            link.player_id = player_id(public_bytes(mine))
            answer = await asyncio.wait_for(link.receive(), timeout)
    except (TimeoutError, RemoteProtocolError, OSError) as exc:
        await link.close()
        reason = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else str(exc)
        raise ConnectFailed(
            f"the server at {where} did not answer hello ({reason or type(exc).__name__}): "
            "is it a president server?"
        ) from None
    if answer is None:
        await link.close()
        raise ConnectFailed(
            f"the server at {where} closed the connection at hello: is it a president server?"
        )
    if fresh:  # a president server's answer: the certificate it showed is worth keeping
        try:
            known.remember(where, shown)
        except PinError as exc:  # (where anyone may write: not kept, and said)
            await link.close()
            raise ConnectFailed(str(exc)) from None
    if isinstance(answer, m.Welcome):
        link.server = answer.server
        return link
    await link.close()
    if isinstance(answer, m.Reject) and answer.reason in (m.NEEDS_PASSWORD, m.WRONG_PASSWORD):
        raise PasswordNeeded(
            f"the server at {where} refused: {answer.reason}",
            wrong=answer.reason == m.WRONG_PASSWORD,
        )
    if isinstance(answer, (m.Reject, m.Bye)):
        raise ConnectFailed(f"the server at {where} refused: {answer.reason}")
    raise ConnectFailed(f"the server at {where} answered hello with {answer!r}")


#: The most errors a client keeps (`Client.errors`: the last ones heard).
KEPT_ERRORS = 1000  # (test_abuse counts a flood of 500 refusals in them)
#: The most hands whose deal inputs (commit, seed, result) a client keeps.
KEPT_DEALS = 16


def _keep_last(kept: dict[int, Any], most: int) -> None:
    """Of `kept`, by hand, only the `most` highest hands."""
    if len(kept) > most:
        for old in sorted(kept)[: len(kept) - most]:
            del kept[old]


class Client:
    """Keeps a `TableModel` in step with the server and does the protocol's chores:
    answering pings, opening sealed hands, seeding and checking each deal."""

    def __init__(
        self, link: Link, on_message: Callable[[m.Message], Awaitable[None]] | None = None
    ) -> None:
        self.link = link
        self.model = TableModel(me=link.name)
        self.on_message = on_message
        #: The last errors heard (`KEPT_ERRORS`), and how many in all (`errors_heard`).
        self.errors: list[m.Error] = []
        self.errors_heard = 0
        self.received: list[m.Message] = []
        self.commits: dict[int, bytes] = {}
        self.seeds: dict[int, bytes] = {}
        #: The lobby's table list, kept up to date from `tables` pages and per-table news.
        self.lobby = TableList()
        #: The server's ladder as last heard (`leaderboard` answers).
        self.ladder = Ladder()
        self.bye: m.Bye | None = None
        #: The last game record asked for (`record_ask`) and heard whole: (the table, the
        #: record's file name, its JSON's bytes); the pages of one still coming.
        self.game_record: tuple[str, str, bytes] | None = None
        #: Why the last record's last page made no `game_record` ("" when it did).
        self.record_dropped = ""
        self._record_pages: list[m.GameRecord] = []
        self.keep = False  # keep every message in `received` (tests, debugging)
        #: Opens a new link to the same server (for taking the seat back after a drop).
        self.reconnect: Callable[[], Awaitable[Link]] | None = None
        #: Why `follow` stopped reconnecting (None while it goes on).
        self.gave_up: str | None = None
        #: The certificate refusal of the last try to reconnect (None once back): the
        #: server at the address is not the one this client trusted.
        self.refused: CertificateRefused | PinError | None = None
        #: The server's refusal to give the seat back after a reconnect (the table is gone,
        #: say): the client is no longer seated.
        self.seat_lost: m.Error | None = None
        #: The table this client watches, as it asked to (`spectate`, with its password):
        #: asked again after a reconnect, as a seat is taken back.  None: watching nothing.
        self.watching: m.Spectate | None = None
        #: Watching again after a reconnect, until the table answers: a refusal then
        #: (the table is gone, say) ends the watching as `seat_lost` ends a seat.
        self._rewatching = False

    @property
    def tables(self) -> tuple[m.TableInfo, ...] | None:
        """Every table in the lobby, as last heard (None before the first whole list)."""
        return self.lobby.tables

    async def send(self, message: m.Message) -> None:
        if isinstance(message, m.Spectate):
            self.watching = message
        elif isinstance(message, (m.Join, m.Leave, m.CreateTable, m.Resume)):
            # (moved on: a refusal of the watching asked again after a drop, if it comes
            # now, is no longer this client's state)
            self.watching, self._rewatching = None, False
        await self.link.send(message)

    def _keep(self, code: Code, text: str) -> None:
        """A problem with what the server sent, kept like an error it sent itself."""
        self._heard(m.Error(code=code, message=text[:500]))

    def _heard(self, error: m.Error) -> None:
        self.errors.append(error)
        self.errors_heard += 1
        let_go(self.errors, KEPT_ERRORS)  # (a hostile server's flood of errors)

    async def act(self, action: Action, seen: int | None = None) -> None:
        """Send `action`, chosen when the table's last event was `seen` (by default the
        last one heard now): the server refuses it as stale if the timer has moved for
        this seat since, instead of taking it for a later turn."""
        seen = self.model.seen if seen is None else seen
        await self.send(wire.action_to_wire(action, seen))

    async def run(self) -> None:
        """Read until the server closes the connection (or sends what ends it: a frame
        over the limit, after which nothing it sends can be read)."""
        while True:
            # (a read of a full buffer does not wait, so a flood of messages would hold the
            # event loop: a hostile server's froze the terminal's keys, q and Ctrl-C too)
            await asyncio.sleep(0)
            try:
                message = await self.link.receive()
            except RemoteProtocolError as error:
                self._keep(error.code, error.message)
                if self.link.conn.state == "closed":  # (it was left deaf, saying nothing)
                    return
                continue
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                return
            if message is None:
                return
            try:
                await self.handle(message)
            except (ConnectionError, OSError):  # an answer could not be sent: the link is gone
                return

    async def follow(
        self,
        on_status: Callable[[str], None],
        retry_seconds: float = RETRY_FIRST,
        give_up: float | None = None,
    ) -> None:
        """Read for as long as the caller wants.  When the connection drops, or the server
        says it is shutting down (a restart: it comes back with its tables), report it and
        reconnect with `reconnect`, waiting `retry_seconds` and twice as long after each
        failure (up to `RETRY_MOST`), then take the seat back with its token (or, away from
        a table, ask for the table list again).  A server whose certificate is not the
        pinned one is refused each time.  Returns when there is no way to reconnect, when
        the seat was taken back from another connection, or after `give_up` seconds
        without a connection (`gave_up` says why)."""
        loop = asyncio.get_running_loop()
        while True:
            await self.run()
            if self.reconnect is None or (self.bye is not None and self.bye.code == Code.REPLACED):
                on_status("disconnected")  # (replaced: taking the seat back would take turns)
                return
            closing = self.bye is not None and self.bye.code == Code.SERVER_CLOSING
            why = "server restarting" if closing else "connection lost"
            since, wait, attempt = loop.time(), retry_seconds, 0
            while True:
                attempt += 1
                on_status(f"{why} — reconnecting (attempt {attempt})")
                await asyncio.sleep(wait)
                try:
                    self.link = await self.reconnect()
                except (ConnectFailed, PinError, OSError) as exc:
                    if isinstance(exc, (CertificateRefused, PinError)):
                        self.refused = exc
                        why = "refused: the server shows a certificate that is not the pinned one"
                    if give_up is not None and loop.time() - since >= give_up:
                        last = " ".join(str(exc).split())
                        self.gave_up = f"gave up reconnecting after {give_up:g} s ({last})"
                        on_status("disconnected")
                        return
                    wait = min(wait * 2, max(RETRY_MOST, retry_seconds))
                    continue
                self.bye, self.refused = None, None
                model = self.model
                model.lost_touch()
                if model.slot is not None:
                    await self.send(m.Resume(table=model.name, seat=model.slot, token=model.token))
                elif self.watching is not None:  # watching: the table's snapshot again
                    self._rewatching = True
                    await self.send(self.watching)
                else:
                    await self.send(m.ListTables())
                on_status("reconnected")
                break

    async def handle(self, message: m.Message) -> None:
        model = self.model
        if self.keep:
            self.received.append(message)
        if isinstance(message, m.Ping):
            await self.send(m.Pong(nonce=message.nonce))
        elif isinstance(message, m.TableView):
            self._rewatching = False
            try:
                model.see(message)
            except RemoteProtocolError as error:
                self._keep(error.code, error.message)
            if message.status != "playing":
                self._forget_deal_inputs()
        elif isinstance(message, m.Seated):
            model.name, model.slot, model.token = message.table, message.seat, message.token
        elif isinstance(message, m.SealedHand):
            try:
                cards, exchange = open_hand(
                    message.sealed,
                    self.link.key,
                    message.table,
                    message.hand,
                    message.seat,
                    message.number,
                )
            except SealError as error:
                self._keep(Code.BAD_MESSAGE, str(error))
            else:
                model.hold(cards, exchange, message.hand, message.reason, message.seat)
        elif isinstance(message, m.TableEvent):
            try:
                model.note(message)
            except RemoteProtocolError as error:
                self._keep(error.code, error.message)
        elif isinstance(message, m.HandHistory):
            try:
                model.recall(message)
            except RemoteProtocolError as error:
                self._keep(error.code, error.message)
        elif isinstance(message, m.GameResults):
            try:
                model.tally(message)
            except RemoteProtocolError as error:
                self._keep(error.code, error.message)
        elif isinstance(message, m.DealCommit):
            self._forget_deals_from(message.hand)
            self.commits[message.hand] = message.digest
            seed = secrets.token_bytes(32)
            self.seeds[message.hand] = seed
            for kept in (self.commits, self.seeds, model.deal_results):  # (a hostile
                _keep_last(kept, KEPT_DEALS)  # server's commits for hands 0 to 199,999)
            await self.send(m.ClientSeed(hand=message.hand, seed=seed))
        elif isinstance(message, m.DealReveal):
            await self._check_deal(message)
        elif isinstance(message, m.Chat):
            model.said(message)
        elif isinstance(message, m.Nudged):
            model.nudged(message)
        elif isinstance(message, m.Error):
            self._heard(message)
            self.ladder.refused(message)
            unseated = message.about == m.Ready.TYPE and message.code == Code.TIMEOUT
            if (message.about == m.Resume.TYPE and model.slot is not None) or unseated:
                # (not given back after a drop; or freed for not saying ready in time, or
                # the table closed before its game began: a watcher is put out too)
                self.seat_lost, model.slot, model.token = message, None, b""
                self.watching = None  # (a watcher is put out so too: the table closed)
            if message.about == m.Spectate.TYPE:
                self.watching = None
                if self._rewatching:  # (not let watch again after a drop)
                    self.seat_lost, self._rewatching = message, False
        elif isinstance(message, (m.Tables, m.TableChanged, m.TableGone)):
            self.lobby.take(message)
        elif isinstance(message, m.Bye):
            self.bye = message
        elif isinstance(message, m.Ratings):
            self.ladder.take(message)
        elif isinstance(message, m.GameRecord):
            self._record_page(message)
        if self.on_message is not None:
            await self.on_message(message)

    def _record_page(self, page: m.GameRecord) -> None:
        """A page of a game's record: once its last is in, the record is `game_record`.
        A page out of its order drops the record's pages heard (the schema holds a record
        to `RECORD_PAGES` pages: a server cannot fill this client's memory with one)."""
        pages = self._record_pages
        if page.page == 0:
            pages.clear()
        elif not pages or (page.page, page.table, page.name) != (
            pages[-1].page + 1,
            pages[-1].table,
            pages[-1].name,
        ):
            pages.clear()
            self.record_dropped = "its pages came out of order"
            return
        pages.append(page)
        if not page.more:
            data = b"".join(p.data for p in pages)
            packed = {p.packed for p in pages}
            pages.clear()
            try:
                if len(packed) > 1:
                    raise RemoteProtocolError(
                        Code.BAD_MESSAGE, "game_record: its pages are packed and not packed"
                    )
                if page.packed:
                    data = unpack_record(data)
            except RemoteProtocolError as error:  # (dropped: said as the server's error)
                self._keep(error.code, error.message)
                self.record_dropped = error.message
                return
            self.game_record, self.record_dropped = (page.table, page.name, data), ""

    @property
    def version(self) -> int:
        """The protocol version spoken with the server (0 before the hello's answer)."""
        return self.link.conn.version or 0

    def _forget_deals_from(self, hand: int) -> None:
        """A commit for `hand` begins it: what is kept of that hand or a later one is an
        earlier game's (hand numbers start again with each game), and checked against
        this game's reveal it read as a failed deal; nor is its line this game's."""
        model = self.model
        for kept in (self.commits, self.seeds, model.dealt, model.deal_results):
            for old in [h for h in kept if h >= hand]:
                del kept[old]
        model.deals_missed.difference_update([h for h in model.deals_missed if h >= hand])

    def _forget_deal_inputs(self) -> None:
        """No game under way: every reveal of the last one has come (a hand's reveal comes
        before the view that follows its end), so its commits, seeds and dealt cards are
        of no more use, and kept they would be checked against the next game's reveal of
        the same hand number by a client that missed that hand's commit (it said ready,
        then dropped before the first deal and came back later in the game): a false
        alarm.  What the checks found stays for the notes until the next commit."""
        self.commits.clear()
        self.seeds.clear()
        self.model.dealt.clear()

    async def _check_deal(self, reveal: m.DealReveal) -> None:
        model = self.model
        dealt = model.dealt.get(reveal.hand)
        digest = self.commits.get(reveal.hand)
        seat = model.seat
        problem: str | None
        if dealt is None or digest is None or seat is None:
            # Joined or came back after the deal: nothing to check, and nothing wrong with
            # the deal to report (the server would log it as a failed check).
            model.deals_missed.add(reveal.hand)
            return
        mine = self.seeds.get(reveal.hand)
        if mine is not None and mine not in reveal.client_seeds:
            problem = "the reveal leaves out this client's seed"
        else:
            rules = model.rules()
            problem = check_hand(
                reveal.server_seed,
                digest,
                reveal.client_seeds,
                reveal.hand,
                reveal.players,
                reveal.start,
                seat,
                dealt,
                rules.decks if rules else 1,
                rules.jokers if rules else 0,
            )
        model.deal_results[reveal.hand] = problem
        await self.send(
            m.DealCheck(hand=reveal.hand, ok=problem is None, detail=(problem or "")[:500])
        )

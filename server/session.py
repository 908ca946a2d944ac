"""One client connection: a reader loop with deadlines and a rate limit, and a writer
fed from a bounded queue with a drain deadline, so a client that stops reading is
dropped instead of stalling its table."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import traceback
from collections.abc import Callable
from typing import Protocol

from president.protocol import messages as m
from president.protocol.connection import Connection, choose_version
from president.protocol.errors import Code, LocalProtocolError, RemoteProtocolError
from president.protocol.identity import IDENTITY_VERSION, player_id, proof_problem
from president.protocol.sealing import key_problem

from .config import ServerConfig, password_checks
from .guard import PasswordGuard
from .logs import LOG_BUDGET, LogBudget
from .players import NameBook
from .table import Table

log = logging.getLogger("president.server")

#: Bytes of answer that cost a connection one more token of its rate (docs/PROTOCOL.md).
ANSWER_BYTES_PER_TOKEN = 4096
#: What a message costs beyond its token, where its answer costs the server more than a
#: message's worth (as IRC servers charge a penalty per command): joining or watching a
#: table is answered with the whole table view, built and encoded for this connection
#: (a crowd asking to watch again and again in a loop kept a friend's hello waiting
#: 1.1-4.3 s at the p95: scripts/attack_password_guess.py).
#: Leaving a seat mid-game is a view to the whole table and a journal entry: as much;
#: so are saying ready or not, and adding or removing a bot (a hostile pass flipped
#: ready 2,000 times: 220 whole views a second to each friend at the table).
EXTRA_COST: dict[type[m.Message], float] = dict.fromkeys(
    (m.Join, m.Spectate, m.Leave, m.Ready, m.AddBot, m.RemoveBot), 16.0
)
#: However many connections share `queue_total`, each may queue this much (a few table
#: lists and views in a burst: a client that reads is not dropped while the server is busy).
QUEUE_FLOOR = 256 * 1024
#: A chat line joins a client's queue only while less than this waits there (a reader
#: that keeps up never has this much waiting; one behind misses chat, not the game).
CHAT_ROOM = 64 * 1024


class Handler(Protocol):
    """What a session hands its messages to (the lobby), passed in by the server."""

    guard: PasswordGuard

    def welcome(self, session: Session) -> None: ...

    def seated_under(self, name: str, player_id: str) -> str | None: ...

    def holds_seat(self, player_id: str) -> bool: ...

    async def handle(self, session: Session, message: m.Message) -> None: ...

    async def disconnect(self, session: Session) -> None: ...


class Inbound:
    """Bytes an address may send a second, over all its connections: a token bucket that
    makes its readers wait (TCP then holds the sender back), so frames built to be costly
    to decode (an array bomb at the size limit) from one address cannot take the CPU the
    tables beside need.  A game's messages are a few hundred bytes: never held."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.last = 0.0

    async def spend(self, size: int) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens -= size
        if self.tokens < 0:
            await asyncio.sleep(-self.tokens / self.rate)


class Session:
    def __init__(
        self,
        config: ServerConfig,
        handler: Handler,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        address: str,
        crowd: Callable[[], int] = lambda: 1,
        *,
        certificate: bytes,
        names: NameBook | None = None,
        admit: Callable[[Session], str | None] = lambda session: None,
        inbound: Inbound | None = None,
        log_budget: LogBudget | None = None,
    ) -> None:
        self.config = config
        self.handler = handler
        self.reader = reader
        self.writer = writer
        self.address = address
        #: How many connections are open (each takes its share of `rate_total`).
        self.crowd = crowd
        self.conn = Connection("server")
        self.name = ""
        self.role = "player"
        self.hand_key = b""
        #: SHA-256 of this server's certificate: what a player key's proof is bound to.
        self.certificate = certificate
        #: Which key owns each name here.
        self.names = names if names is not None else NameBook()
        #: Asked at hello whether a connection let in over the cap may stay (or why not).
        self.admit = admit
        #: What this connection's address may still send (shared by its connections).
        self.inbound = inbound
        #: The player key proven at hello (raw, 32 bytes) and its id, `identity.player_id`
        #: (b"" and "" for a client that speaks no version with keys).
        self.player_key = b""
        self.player_id = ""
        self.table: Table | None = None
        #: Its hello (and the proof of its key, when asked for) has come: what is left of
        #: its welcome is the server's own work (a password's check), not its to stall.
        self.answered = False
        #: A message came before its hello's deadline (a hello or not: it spoke).
        self.greeted = False
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(self.config.queue_size)
        #: Bytes queued and being written: bounded by `queue_bytes`, not only by count.
        self.queued_bytes = 0
        #: Bytes ever queued (what answering a message cost is charged to the sender).
        self.sent_bytes = 0
        # drain() waits once this much is buffered (the TLS transport's own default is far
        # higher), so the drain deadline catches a client that stopped reading.
        writer.transport.set_write_buffer_limits(high=self.config.write_buffer)
        self.closed = False
        #: Said hello and was welcomed (until then the connection may be evicted first).
        self.welcomed = False
        self._tokens = self.config.rate_burst
        self._last = asyncio.get_running_loop().time()
        #: When this connection last sent something other than a ping or a pong.
        self.last_active = self._last
        #: The log lines its address may still cause (shared by its connections).
        self.log_budget = log_budget or LogBudget(config.log_per_minute, config.log_per_minute)
        self._strikes = 0
        self._chat_times: list[float] = []
        #: Chat lines not sent to this client because it was behind.
        self.chat_dropped = 0

    @property
    def version(self) -> int:
        """The protocol version chosen at hello (0 before it)."""
        return self.conn.version or 0

    # --- sending ----------------------------------------------------------------------

    def deliver(self, message: m.Message) -> None:
        """Queue a message; a client whose queue is full is too slow and is dropped.
        A chat line is not queued at all for a client that is behind (`CHAT_ROOM`): chat
        is never the reason a reader is dropped, only the game it needs can be."""
        if self.closed:
            return
        if self.writer.transport.is_closing():  # the peer is gone: nothing reaches it now
            return
        try:
            data = self.conn.send(message)
        except LocalProtocolError:
            log.exception("%s: could not send %s", self.address, message.TYPE)
            return
        if type(message) is m.Chat and self.queued_bytes + len(data) > self.chat_room():
            self.chat_dropped += 1
            return
        if self.queued_bytes + len(data) > self.queue_cap():
            self.kill(Code.TOO_SLOW)
            return
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            self.kill(Code.TOO_SLOW)
            return
        self.queued_bytes += len(data)
        self.sent_bytes += len(data)

    @property
    def watching(self) -> bool:
        """Watching a table (not playing at it)."""
        return self.table is not None and self in self.table.chairs.spectators

    @property
    def playing(self) -> bool:
        """At a table whose game is under way and moving (`Table.moving`; seated or
        watching: `Admitted.playing` asks of the seated)."""
        return self.table is not None and self.table.moving()

    def chat_room(self) -> int:
        """Bytes that may wait in this client's queue for a chat line still to join them."""
        return min(CHAT_ROOM, self.queue_cap() // 4)

    def queue_cap(self) -> int:
        """Bytes this client's queue may hold: `queue_bytes`, or less when many
        connections share `queue_total`."""
        share = self.config.queue_total // max(1, self.crowd())
        return min(self.config.queue_bytes, max(QUEUE_FLOOR, share))

    def goodbye(self, bye: m.Bye) -> None:
        """Send `bye` after whatever is queued, then close the connection: nothing more
        is sent or read (the server is shutting down)."""
        if self.closed:
            return
        self.deliver(bye)
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    def kill(self, why: str) -> None:
        """Drop the connection now, without waiting for the queue."""
        if self.closed:
            return
        self.closed = True
        log.info("%s (%s): dropped: %s", self.address, self.name or "?", why)
        self.writer.transport.abort()

    async def _write_loop(self) -> None:
        transport = self.writer.transport
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty() and batch[-1] is not None:
                batch.append(self.queue.get_nowait())
            done = batch[-1] is None
            data = b"".join(b for b in batch if b is not None)
            self.writer.write(data)
            if transport.get_write_buffer_size() > self.config.write_buffer:
                try:  # the client is behind: give it the drain deadline to catch up
                    async with asyncio.timeout(self.config.drain_seconds):
                        await self.writer.drain()
                except (TimeoutError, ConnectionError, OSError):
                    self.kill(Code.TOO_SLOW)
                    return
            self.queued_bytes -= len(data)
            if done:  # the end: close once the last bytes are out (the reader then ends)
                transport.close()
                return

    # --- receiving --------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        nonce = 0
        while not self.closed:
            await asyncio.sleep(self.config.heartbeat_seconds)
            nonce += 1
            self.deliver(m.Ping(nonce=nonce))

    async def run(self) -> None:
        LOG_BUDGET.set(self.log_budget)  # what is logged in this task is charged to it
        loop = asyncio.get_running_loop()
        writer_task = loop.create_task(self._write_loop())
        heartbeat = loop.create_task(self._heartbeat())
        try:
            if await self._handshake():
                await self._read_loop()
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self.closed = True
            heartbeat.cancel()
            if self.welcomed:
                log.info("%s: %s disconnected", self.address, self.name)
            await self.handler.disconnect(self)
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            try:
                await asyncio.wait_for(writer_task, 1.0)
            except (TimeoutError, Exception):
                writer_task.cancel()
            self.writer.close()
            await self._forget_why()

    async def _forget_why(self) -> None:
        """The error that ended the connection (kept by its reader and its protocol)
        holds in its traceback the frames it passed through, this session's and its
        writer's among them: a cycle only the collector's full pass frees, rare on a
        quiet server, and with it every buffer of the connection (1,024 departed sessions
        still held after attack_backlog.py's crowds left: server/memory.py).  Once the
        transport is closed, that traceback's frames are cleared."""
        try:
            async with asyncio.timeout(1.0):
                await self.writer.wait_closed()
        except TimeoutError:
            return  # still closing (a peer that does not answer): the collector's, then
        except Exception as error:  # what ended the connection
            seen: set[int] = set()
            ended: BaseException | None = error
            while ended is not None and id(ended) not in seen:
                seen.add(id(ended))
                traceback.clear_frames(ended.__traceback__)
                ended.__traceback__ = None
                ended = ended.__context__ or ended.__cause__

    async def _next(self, timeout: float, *, fatal: bool = False) -> m.Message | None:
        """The next message, or None when the peer closed (or, if `fatal`, sent a bad
        one: it is rejected); raises TimeoutError."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                message = self.conn.next_event()
            except RemoteProtocolError as error:
                if fatal:
                    self.deliver(m.Reject(versions=m.OFFERED, reason=error.message[:500]))
                    self.closed = True
                    return None
                self._refuse(error)
                if self.closed:
                    return None
                continue
            if message is not None:
                return message
            if self.conn.state == "closed" or self.closed:
                return None
            async with asyncio.timeout_at(deadline):
                data = await self.reader.read(65536)
            if not data:
                return None
            if self.inbound is not None:
                await self.inbound.spend(len(data))
            self.conn.receive_data(data)

    def _refuse(self, error: RemoteProtocolError) -> None:
        self.deliver(m.Error(code=error.code, message=error.message[:500], about=error.about))
        self._strikes += 1
        if error.code is Code.FRAME_TOO_LARGE or self._strikes >= self.config.strikes:
            reason = (
                error.message[:500]
                if error.code is Code.FRAME_TOO_LARGE
                else "too many bad messages"
            )
            self.deliver(m.Bye(code=error.code, reason=reason))
            self.closed = True

    async def _handshake(self) -> bool:
        try:
            hello = await self._next(self.config.hello_seconds)
            self.greeted = hello is not None
        except TimeoutError:
            seconds = self.config.hello_seconds
            self.deliver(m.Bye(code=Code.TIMEOUT, reason=f"no hello within {seconds:g} s"))
            return False
        if not isinstance(hello, m.Hello):
            return False
        version = choose_version(hello.versions)
        if version is None:
            self.deliver(m.Reject(versions=m.OFFERED, reason="no protocol version in common"))
            return False
        password = self.config.password
        if password is not None and hello.password is None:  # not a guess: no wait after it
            self.deliver(m.Reject(versions=m.OFFERED, reason=m.NEEDS_PASSWORD))
            return False
        problem = key_problem(hello.hand_key)
        if problem is not None:
            self.deliver(m.Reject(versions=m.OFFERED, reason=problem))
            return False
        proven: bytes | None = None
        if version >= IDENTITY_VERSION:
            # (the key first: one that gave the right password before is not held by the
            # budget wrong guesses from many addresses share, `PasswordGuard.refusal`)
            proven = await self._proof(version)
            if proven is None:
                return False
        self.answered = True  # (server/admission.py: its reserve place is its own now)
        if password is not None:
            guard = self.handler.guard
            # (a key seated in a game here gave the right password before, perhaps before a
            # restart, which the welcomes do not outlive: not held by the budgets either)
            key = proven
            seated = None if key is None else lambda: self.handler.holds_seat(player_id(key))
            async with guard.turn(self.address, "server"):  # (one check at a time an address)
                if wait := guard.refusal(self.address, "server", proven, seated):
                    self.deliver(m.Reject(versions=m.OFFERED, reason=wait))  # not checked
                    return False
                if not await password_checks(password, hello.password, self.address):
                    guard.wrong(self.address, "server")
                    self.deliver(m.Reject(versions=m.OFFERED, reason=m.WRONG_PASSWORD))
                    return False
                # (the right password is no guess: its check is not counted against the
                # budgets; a crowd giving it, or a guest's reconnection loop, held every
                # newcomer out)
                guard.spare(self.address, "server")
                if proven is not None:
                    guard.welcome("server", proven)
        if proven is not None:
            self.player_key, self.player_id = proven, player_id(proven)
        # (a name used unclaimed, the book full or its address past its claims, is still
        # not another key's to claim while its person sits at a table under it: asked
        # before the book, which would write the claim)
        table = self.handler.seated_under(hello.name, self.player_id)
        if table is not None and self.names.first_alike(hello.name) is None:
            refusal: str | None = f"the name {hello.name} is another player's, who sits at {table}"
        else:  # (a name in the book: the book's verdict, which writes no claim then)
            # (a connection that may only watch claims no name: it can take no seat)
            watching = hello.role == "spectator"
            refusal = self.names.refusal(hello.name, self.player_id, self.address, not watching)
        if refusal is not None:
            log.info("%s: %s refused: %s", self.address, hello.name, refusal)
            self.deliver(m.Reject(versions=m.OFFERED, reason=refusal))
            return False
        if (full := self.admit(self)) is not None:
            self.deliver(m.Reject(versions=m.OFFERED, reason=full))
            return False
        self.name, self.role, self.hand_key = hello.name, hello.role, hello.hand_key
        self.welcomed = True
        log.info("%s: %s connected (%s)", self.address, self.name, self.role)
        self.deliver(m.Welcome(version=version, server=self.config.name[:32]))
        self.handler.welcome(self)  # in the lobby from now on
        return True

    async def _proof(self, version: int) -> bytes | None:
        """Challenge the client to prove its player key (version 4); the key, or None
        after a `reject` or `bye` saying why not."""
        challenge = secrets.token_bytes(32)
        self.deliver(m.Challenge(version=version, challenge=challenge))
        try:
            proof = await self._next(self.config.hello_seconds, fatal=True)
        except TimeoutError:
            seconds = self.config.hello_seconds
            self.deliver(m.Bye(code=Code.TIMEOUT, reason=f"no proof within {seconds:g} s"))
            return None
        if not isinstance(proof, m.Proof):
            return None
        problem = proof_problem(
            proof.player_key, proof.signature, version, self.certificate, challenge
        )
        if problem is not None:
            log.info("%s: player key refused: %s", self.address, problem)
            self.deliver(m.Reject(versions=m.OFFERED, reason=problem))
            return None
        return proof.player_key

    async def _read_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.closed:
            try:
                message = await self._next(self.config.idle_seconds)
            except TimeoutError:
                self.deliver(m.Bye(code=Code.TIMEOUT, reason="nothing heard for too long"))
                return
            if message is None:
                return
            if not isinstance(message, (m.Ping, m.Pong)):
                self.last_active = loop.time()
            if not await self._throttle(loop):
                return
            sent = self.sent_bytes
            await self.handler.handle(self, message)
            # a message whose answer is large (a table list) costs a token a 4 KiB more;
            # one answered with a whole table view, `EXTRA_COST`
            self._tokens -= (self.sent_bytes - sent) // ANSWER_BYTES_PER_TOKEN
            self._tokens -= EXTRA_COST.get(type(message), 0.0)

    async def _throttle(self, loop: asyncio.AbstractEventLoop) -> bool:
        """A token bucket: past the burst, this connection's messages wait their turn.
        Nothing is dropped and no other connection waits: each session reads alone.  Its
        rate is the smaller of `rate_per_second` and its share of `rate_total`.

        False once the peer is gone and its next message would wait: what it sent
        within its rate is handled (a client's last words, a `leave` before it closes),
        a backlog past it is not (512 connections that each sent 2,000 requests and left
        were held, with their buffers, for minutes: scripts/attack_backlog.py)."""
        now = loop.time()
        config = self.config
        rate = min(config.rate_per_second, config.rate_total / max(1, self.crowd()))
        burst = min(config.rate_burst, max(10.0, 2 * rate))
        self._tokens = min(burst, self._tokens + (now - self._last) * rate)
        self._last = now
        if self._tokens < 1:
            if self.writer.transport.is_closing():
                return False
            await asyncio.sleep((1 - self._tokens) / rate)
            self._tokens = 1.0
            self._last = loop.time()
        self._tokens -= 1
        return True

    def chat_allowed(self, now: float) -> bool:
        self._chat_times = [t for t in self._chat_times if now - t < 60]
        if len(self._chat_times) >= self.config.chat_per_minute:
            return False
        self._chat_times.append(now)
        return True

"""One table: its seats, its game, its turn timer and its fair deals.

The engine is the authority; the table applies actions one at a time under its lock,
numbers every outgoing event, and sends each seat only what `view_for(seat)` allows:
public events and the table view to everyone, each hand sealed to its own holder."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import random
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from president.bots.strategies import Strategy, make_strategy
from president.engine import (
    PASS,
    Action,
    Card,
    Dealt,
    Event,
    ExchangeDone,
    Game,
    GameOver,
    Gave,
    HandOver,
    HandStarted,
    IllegalAction,
    Passed,
    Phase,
    Play,
    Played,
    Return,
    Returned,
    Rules,
    Skipped,
    TrickEnded,
    WentOut,
    parse_cards,
)
from president.engine.record import action_to_json, to_record
from president.engine.rules import PRESETS
from president.protocol import messages as m
from president.protocol.fairdeal import commitment, deal, deck_order
from president.protocol.sealing import seal_hand

from .config import ServerConfig
from .journal import Journal

log = logging.getLogger("president.server")

#: The seed used for a seat that sent none in time (documented in PROTOCOL.md).
MISSING_SEED = bytes(32)


class Member(Protocol):
    """A connection as a table sees it."""

    name: str
    hand_key: bytes

    def deliver(self, message: m.Message) -> None: ...


@dataclass
class Slot:
    """A chair at the table: empty, a person (maybe away), or a server-side bot."""

    name: str = ""
    member: Member | None = None
    bot: Strategy | None = None
    strategy: str = ""
    token: bytes = b""
    ready: bool = False
    away_since: float | None = None
    leaving: bool = False

    @property
    def empty(self) -> bool:
        return not self.name

    def entry(self) -> dict[str, Any]:
        """What the journal keeps of a chair (the connection is not kept: see restore.py)."""
        return {"name": self.name, "strategy": self.strategy, "token": self.token.hex(),
                "ready": self.ready, "leaving": self.leaving}


@dataclass
class TableSettings:
    name: str
    preset: str
    rules: Rules
    seats: int
    password: str | None = None
    turn_seconds: int = 60
    grace_seconds: float = 120.0
    seed_seconds: float = 5.0
    bot_delay: float = 0.3
    pause_between_hands: float = 2.0
    #: After a restart: how long a table waits for its players before the timeout rule.
    resume_seconds: float = 120.0

    @classmethod
    def on(cls, config: ServerConfig, *, name: str, preset: str, rules: Rules, seats: int,
           password: str | None, turn_seconds: int) -> TableSettings:
        """A table as created (or restored), with the timings of this server's configuration."""
        return cls(name=name, preset=preset, rules=rules, seats=seats, password=password,
                   turn_seconds=turn_seconds, grace_seconds=config.grace_seconds,
                   seed_seconds=config.seed_seconds, bot_delay=config.bot_delay,
                   pause_between_hands=config.pause_between_hands,
                   resume_seconds=config.resume_seconds)

    def entry(self) -> dict[str, Any]:
        """What the journal keeps: the table as created (timings come from the server's
        configuration at each start)."""
        return {"name": self.name, "preset": self.preset,
                "toggles": self.rules.changes_from(PRESETS[self.preset]), "seats": self.seats,
                "password": self.password, "turn_seconds": self.turn_seconds}


@dataclass
class DealSecret:
    hand: int
    server_seed: bytes
    seeds: dict[str, bytes] = field(default_factory=dict)  # by player name
    order_names: list[str] = field(default_factory=list)
    dealer: int = 0
    start: int = 0
    #: The deck is cut: a seed arriving now would not be in it, so none is taken.
    dealt: bool = False


class Table:
    def __init__(self, settings: TableSettings, on_record: Callable[[Table, dict[str, Any]], None],
                 clock: Callable[[], float] = time.monotonic, journal: Journal | None = None) -> None:
        self.settings = settings
        self.name = settings.name
        self.slots = [Slot() for _ in range(settings.seats)]
        #: The toggles changed from the preset, and the rules as the wire carries them.
        self.changes = settings.rules.changes_from(PRESETS[settings.preset])
        self.wire_rules: dict[str, Any] = {"preset": settings.preset, **self.changes}
        self.spectators: list[Member] = []
        self.game: Game | None = None
        self.status: Literal["waiting", "playing", "finished"] = "waiting"
        self.number = 0
        self.lock = asyncio.Lock()
        self.on_record = on_record
        self.clock = clock
        self.deadline: float | None = None
        self.deal_secret: DealSecret | None = None
        self.deal_checks: dict[int, dict[str, bool]] = {}
        self._wake = asyncio.Event()
        self._driver: asyncio.Task[None] | None = None
        self._rng = random.Random(secrets.randbits(64))
        self._suspended = False
        #: After a restart: the turn time left, held until the seats owing a move are back,
        #: and when the table stops waiting for them.
        self.held: float | None = None
        self.resume_until: float | None = None
        self.journal = journal
        self.log_id: int | None = None
        if journal is not None:
            self.log_id = journal.open_table(self.name)
            self.note("table", settings.entry())
            self.note_seats()

    # --- the journal ---------------------------------------------------------------------

    def note(self, kind: str, body: dict[str, Any]) -> None:
        """Write one entry of this table's journal (before what it records is sent)."""
        if self.journal is None or self.log_id is None:
            return
        try:
            self.journal.append(self.log_id, kind, body)
        except sqlite3.Error:
            log.exception("table %s: could not write to the journal", self.name)

    def note_seats(self) -> None:
        self.note("seats", {"seats": [s.entry() for s in self.slots]})

    # --- who is here --------------------------------------------------------------------

    def slot_of(self, member: Member) -> int | None:
        for index, slot in enumerate(self.slots):
            if slot.member is member:
                return index
        return None

    def seat_of(self, member: Member) -> int | None:
        """The member's seat in the game's current seating (None if not playing)."""
        index = self.slot_of(member)
        if index is None or self.game is None:
            return None
        name = self.slots[index].name
        return self.game.seating.index(name) if name in self.game.seating else None

    def members(self) -> list[Member]:
        return [s.member for s in self.slots if s.member is not None] + list(self.spectators)

    def info(self) -> m.TableInfo:
        return m.TableInfo(
            name=self.name, preset=self.settings.preset,
            changes=", ".join(f"{k}={v}" for k, v in self.changes.items())[:500],
            seats=self.settings.seats,
            players=tuple((f"bot:{s.strategy}" if s.bot else s.name)[:40] for s in self.slots),
            status=self.status, password=self.settings.password is not None,
            turn_seconds=self.settings.turn_seconds, spectators=len(self.spectators),
        )

    # --- joining and leaving ----------------------------------------------------------

    def check_password(self, password: str | None) -> None:
        want = self.settings.password
        if want is not None and not hmac.compare_digest(
            (password or "").encode(), want.encode()
        ):
            raise TableError("wrong_password", f"the password for table {self.name} does not match")

    def join(self, member: Member, seat: int | None, password: str | None) -> m.Seated:
        self.check_password(password)
        if self.slot_of(member) is not None:
            raise TableError("not_allowed", f"you already sit at {self.name}")
        if any(s.name == member.name for s in self.slots):
            raise TableError("not_allowed", f"someone called {member.name} already sits at {self.name}")
        free = [i for i, s in enumerate(self.slots) if s.empty]
        if not free:
            raise TableError("table_full", f"every seat at {self.name} is taken")
        if seat is None:
            seat = free[0]
        elif not 0 <= seat < len(self.slots):
            raise TableError("not_allowed", f"{self.name} has seats 0 to {len(self.slots) - 1}")
        elif not self.slots[seat].empty:
            raise TableError("seat_taken", f"seat {seat} at {self.name} is taken")
        if self.status == "playing" and self.game is not None and member.name in self.game.seating:
            raise TableError("not_allowed", f"{member.name} is still in the game at {self.name}")
        token = secrets.token_bytes(32)
        self.slots[seat] = Slot(name=member.name, member=member, token=token)
        if member in self.spectators:
            self.spectators.remove(member)
        if self.status == "playing" and self.game is not None:
            self.slots[seat].ready = True  # sits in from the next hand (RULES.md §9)
        self.note_seats()
        return m.Seated(table=self.name, seat=seat, token=token)

    def free_away_seats(self) -> bool:
        """Free the seats of people not connected (no game on); True if any was."""
        freed = False
        for index, slot in enumerate(self.slots):
            if not slot.empty and slot.bot is None and slot.member is None:
                self.slots[index] = Slot()
                freed = True
        if freed:
            self.note_seats()
        return freed

    def spectate(self, member: Member, password: str | None) -> None:
        self.check_password(password)
        if self.slot_of(member) is not None:
            raise TableError("not_allowed", "you sit at this table; leave your seat to watch")
        if member not in self.spectators:
            self.spectators.append(member)

    def leave(self, member: Member) -> None:
        """A member walks away.  Mid-game their seat is played by the timeout rule until
        the hand ends; then they leave the game (RULES.md §9)."""
        if member in self.spectators:
            self.spectators.remove(member)
            return
        index = self.slot_of(member)
        if index is None:
            raise TableError("not_allowed", f"you are not at {self.name}")
        slot = self.slots[index]
        if self.status == "playing" and self.game is not None and slot.name in self.game.seating:
            slot.member, slot.leaving, slot.away_since = None, True, self.clock()
        else:
            self.slots[index] = Slot()
        self.note_seats()

    def drop(self, member: Member) -> None:
        """The member's connection is gone: keep the seat for the grace period."""
        if member in self.spectators:
            self.spectators.remove(member)
            return
        index = self.slot_of(member)
        if index is None:
            return
        slot = self.slots[index]
        if self.status == "playing":
            slot.member, slot.away_since = None, self.clock()
        else:
            self._hold_for_grace(slot)
            self.note_seats()

    def _hold_for_grace(self, slot: Slot) -> None:
        """No game on and a person's connection is gone: their seat waits the grace period
        for them to resume (not ready meanwhile, so no game starts without them).  The
        caller journals the seats."""
        since = self.clock()
        slot.member, slot.ready, slot.away_since = None, False, since
        asyncio.get_running_loop().call_later(self.settings.grace_seconds, self._free_if_away, slot.name, since)

    def _free_if_away(self, name: str, since: float) -> None:
        """The grace period from `since` is over: free the seat if that absence goes on."""
        if self.status == "playing":
            return  # in a game, the grace rule between hands decides
        for index, slot in enumerate(self.slots):
            if slot.name == name and slot.member is None and slot.bot is None and slot.away_since == since:
                self.slots[index] = Slot()
                self.note_seats()
                self.broadcast_view()

    def resume(self, member: Member, seat: int, token: bytes) -> m.Seated:
        if not 0 <= seat < len(self.slots):
            raise TableError("bad_token", "that seat token does not match")
        slot = self.slots[seat]
        if slot.bot is not None or slot.empty or not hmac.compare_digest(slot.token, token):
            raise TableError("bad_token", "that seat token does not match")
        if slot.member is not None and slot.member is not member:
            slot.member.deliver(m.Bye(code="not_allowed", reason="your seat was resumed from another connection"))
        if slot.leaving:
            slot.leaving = False
            self.note_seats()
        slot.member, slot.away_since = member, None
        if member.name != slot.name:
            member.name = slot.name
        return m.Seated(table=self.name, seat=seat, token=slot.token)

    def add_bot(self, strategy: str, seat: int | None) -> None:
        if self.status == "playing":
            raise TableError("not_allowed", "bots join between games")
        free = [i for i, s in enumerate(self.slots) if s.empty]
        if seat is None:
            if not free:
                raise TableError("table_full", f"every seat at {self.name} is taken")
            seat = free[0]
        if not 0 <= seat < len(self.slots) or not self.slots[seat].empty:
            raise TableError("seat_taken", f"seat {seat} is not free")
        try:
            bot = make_strategy(strategy, random.Random(secrets.randbits(64)))
        except ValueError as exc:
            raise TableError("not_allowed", str(exc)) from None
        taken = {s.name for s in self.slots}
        name = next(f"{strategy}-bot-{i}" for i in range(1, 99) if f"{strategy}-bot-{i}" not in taken)
        self.slots[seat] = Slot(name=name, bot=bot, strategy=strategy, ready=True)
        self.note_seats()

    def remove_bot(self, seat: int) -> None:
        if self.status == "playing":
            raise TableError("not_allowed", "bots leave between games")
        if not 0 <= seat < len(self.slots) or self.slots[seat].bot is None:
            raise TableError("not_allowed", f"there is no bot in seat {seat}")
        self.slots[seat] = Slot()
        self.note_seats()

    def set_ready(self, member: Member, ready: bool) -> bool:
        """Mark a seat ready; True when that makes a full table ready to start."""
        index = self.slot_of(member)
        if index is None:
            raise TableError("not_allowed", f"you do not sit at {self.name}")
        if self.slots[index].ready != ready:
            self.slots[index].ready = ready
            self.note_seats()
        return self.status != "playing" and all(not s.empty and s.ready for s in self.slots)

    # --- the game -----------------------------------------------------------------------

    def start(self) -> None:
        """Seats full and ready: begin a game, driven by a task of its own."""
        names = [s.name for s in self.slots]
        self.game = Game(self.settings.rules, names)
        self.status = "playing"
        self.deal_checks = {}
        self.note("game", {"players": names, "number": self.number})
        self.drive()

    def drive(self) -> None:
        """Run the game in a task of its own (also for a game restored from the journal)."""
        self._driver = asyncio.get_running_loop().create_task(self._drive(), name=f"table {self.name}")

    async def stop(self) -> None:
        """End the game here: what was played goes into a record."""
        if self._driver is not None:
            self._driver.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._driver
            self._driver = None

    async def suspend(self) -> None:
        """Stop driving the game without ending it (the server is shutting down): the
        journal keeps it, and the next start resumes it."""
        self._suspended = True
        await self.stop()

    def wake(self) -> None:
        self._wake.set()

    async def act(self, member: Member, action: Action) -> None:
        """A member's play, pass or return: checked by the engine for their own seat."""
        async with self.lock:
            game = self.game
            seat = self.seat_of(member)
            if self._suspended:
                raise TableError("server_closing", "the server is shutting down")
            if game is None or seat is None or self.status != "playing":
                raise TableError("not_allowed", "you are not playing at a table")
            try:
                self._apply(seat, action)
            except IllegalAction as exc:
                code = "not_your_turn" if "not your turn" in str(exc) else "illegal"
                raise TableError(code, str(exc)) from None

    def _apply(self, seat: int, action: Action) -> None:
        """One action through the engine; journaled, then sent."""
        assert self.game is not None
        events = self.game.apply(seat, action)
        self._after(events, "act", {"action": action_to_json(seat, action)})

    def client_seed(self, member: Member, hand: int, seed: bytes) -> None:
        secret = self.deal_secret
        index = self.slot_of(member)
        if secret is None or index is None or secret.hand != hand:
            raise TableError("bad_deal_seed", "no deal is waiting for that seed")
        if secret.dealt:
            raise TableError("bad_deal_seed", f"too late: hand {hand} is dealt without your seed")
        if self.slots[index].name in secret.seeds:
            raise TableError("bad_deal_seed", "your seed for this deal is already in")
        secret.seeds[self.slots[index].name] = seed
        self.wake()

    def deal_check(self, member: Member, hand: int, ok: bool) -> None:
        index = self.slot_of(member)
        if index is not None:
            self.deal_checks.setdefault(hand, {})[self.slots[index].name] = ok
            if not ok:
                log.warning("table %s: %s reports the deal of hand %d did not check out",
                            self.name, self.slots[index].name, hand)

    async def _drive(self) -> None:
        """Deal hands, wait for moves, play bots and the timeout rule, until the game ends."""
        game = self.game
        assert game is not None
        try:
            while not self._suspended:
                async with self.lock:
                    phase = game.phase
                if phase is Phase.GAME_OVER:
                    break
                if phase is Phase.BETWEEN_HANDS:
                    if game.hand >= 0 and self.settings.pause_between_hands:
                        await asyncio.sleep(self.settings.pause_between_hands)
                    async with self.lock:
                        if not self._seat_changes():
                            break
                    await self._deal()
                    continue
                await self._next_moves()
        finally:
            if not self._suspended:
                async with self.lock:
                    self._finish()

    async def _next_moves(self) -> None:
        game = self.game
        assert game is not None
        async with self.lock:
            self._wake.clear()  # before looking: a move made after this wakes the wait below
            actors = self._actors()
            now = self.clock()
            bots = [s for s in actors if self._slot_for_seat(s).bot is not None]
            away = [s for s in actors if self._slot_for_seat(s).member is None and s not in bots]
        if bots:
            if self.settings.bot_delay:
                await asyncio.sleep(self.settings.bot_delay)
            async with self.lock:
                for seat in bots:
                    if seat in self._actors():
                        slot = self._slot_for_seat(seat)
                        assert slot.bot is not None
                        self._apply(seat, slot.bot.choose(game.view_for(seat)))
            return
        if away and self.resume_until is not None:
            if now < self.resume_until:  # restarted: wait for the seats to come back
                await self._woken(self.resume_until - now)
                return
            self.resume_until = None
        if away:
            async with self.lock:
                self.held = None
                for seat in away:
                    if seat in self._actors():
                        self._apply(seat, game.timeout_action(seat))
            return
        if self.held is not None:  # everyone owing a move is back: their clock runs again
            async with self.lock:
                if self.settings.turn_seconds:
                    self.deadline = self.clock() + self.held
                self.held = None
                self.broadcast_view()
            return
        deadline = self.deadline
        timeout = None if deadline is None else max(0.0, deadline - now)
        if not await self._woken(timeout):
            async with self.lock:
                if self.deadline is not None and self.clock() >= self.deadline:
                    for seat in self._actors():
                        self._apply(seat, game.timeout_action(seat))

    async def _woken(self, timeout: float | None) -> bool:
        """Wait for `wake()` up to `timeout` seconds; False if the time ran out.
        (`asyncio.timeout`, not `wait_for`: on 3.11 `wait_for` can swallow a cancellation
        that arrives as the event is set, and the table would never stop.)"""
        try:
            async with asyncio.timeout(timeout):
                await self._wake.wait()
        except TimeoutError:
            return False
        return True

    def _actors(self) -> list[int]:
        game = self.game
        if game is None:
            return []
        if game.phase is Phase.PLAY and game.turn is not None:
            return [game.turn]
        if game.phase is Phase.EXCHANGE:
            return list(game.pending_returns)
        return []

    def _slot_for_seat(self, seat: int) -> Slot:
        assert self.game is not None
        name = self.game.seating[seat]
        return next(s for s in self.slots if s.name == name)

    def _seat_changes(self) -> bool:
        """Between hands: players who left go, newcomers join; False if too few remain."""
        game = self.game
        assert game is not None
        left = False
        for index, slot in enumerate(self.slots):
            grace = self.settings.grace_seconds
            gone = slot.leaving or (slot.away_since is not None and self.clock() - slot.away_since > grace)
            if gone and slot.name in game.next_seating():
                game.leave(slot.name)
                self.note("leave", {"name": slot.name})
                self.slots[index] = Slot()
                left = True
        if left:
            self.note_seats()
        here = game.next_seating()
        for slot in self.slots:
            if not slot.empty and slot.name not in here:
                game.join(slot.name)
                self.note("join", {"name": slot.name})
        return len(game.next_seating()) >= 3

    async def _deal(self) -> None:
        """Commit to a server seed, gather the seats' seeds, deal the deck they make."""
        game = self.game
        assert game is not None
        async with self.lock:
            seating, dealer, start = game.plan_hand(self._rng)
            secret = DealSecret(hand=game.hand + 1, server_seed=secrets.token_bytes(32),
                                order_names=seating, dealer=dealer, start=start)
            self.deal_secret = secret
            commit = m.DealCommit(table=self.name, hand=secret.hand,
                                  digest=commitment(secret.server_seed))
            waiting = []
            for name in seating:
                slot = next(s for s in self.slots if s.name == name)
                if slot.member is not None:
                    slot.member.deliver(commit)
                    waiting.append(name)
        end = self.clock() + self.settings.seed_seconds
        while any(name not in secret.seeds for name in waiting) and self.clock() < end:
            self._wake.clear()
            if not await self._woken(max(0.0, end - self.clock())):
                break
        async with self.lock:
            secret.dealt = True
            seeds = [secret.seeds.get(name, MISSING_SEED) for name in seating]
            rules = self.settings.rules
            order = deck_order(secret.server_seed, seeds, secret.hand, rules.decks, rules.jokers)
            dealt = deal(order, len(seating), start)
            events = game.start_hand(seating=seating, dealer=dealer, deal=dealt)
            self._after(events, "deal", {
                "hand": secret.hand, "seating": seating, "dealer": dealer, "start": start,
                "deal": [[str(c) for c in cards] for cards in dealt],
                "server_seed": secret.server_seed.hex(),
                "seeds": {name: seed.hex() for name, seed in secret.seeds.items()},
            })

    def _after(self, events: list[Event], kind: str, entry: dict[str, Any]) -> None:
        """Re-arm the turn timer, write the journal entry, then send what the events say
        to whom they concern.  Every event and every re-sealed hand takes a number."""
        game = self.game
        assert game is not None
        resealed = sorted({seat for e in events if isinstance(e, (Gave, Returned))
                           for seat in (e.giver, e.receiver)})
        if self._actors() and self.settings.turn_seconds:
            if any(isinstance(e, (Played, Passed, HandStarted, ExchangeDone, Returned)) for e in events):
                self.deadline = self.clock() + self.settings.turn_seconds
        else:
            self.deadline = None
        number = self.number
        self.number += len(events) + len(resealed)
        self.note(kind, {**entry, "number": self.number, "remaining": self._remaining()})
        for event in events:
            number += 1
            if isinstance(event, Dealt):  # the hand as dealt: what the fair-deal check needs
                self._send_hand(event.seat, "deal", number, event.cards)
                continue
            public = _public(event)
            if public is not None:
                name, data = public
                self._broadcast(m.GameEvent(table=self.name, number=number, kind=name, data=data))
            if isinstance(event, HandOver):
                self._reveal()
        for seat in resealed:
            number += 1
            self._send_hand(seat, "exchange", number)
        self.broadcast_view()
        self.wake()

    def _remaining(self) -> float | None:
        """Seconds left on the turn timer (held or running); None when none runs."""
        if self.held is not None:
            return self.held
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - self.clock())

    def _send_hand(self, seat: int, reason: str, number: int,
                   cards: Sequence[Card] | None = None) -> None:
        game = self.game
        assert game is not None
        slot = self._slot_for_seat(seat)
        if slot.member is None:
            return
        held = game.view_for(seat).hand if cards is None else cards  # the one per-seat path
        sealed = seal_hand(held, slot.member.hand_key, self.name, game.hand, seat, number)
        slot.member.deliver(m.SealedHand(table=self.name, number=number, hand=game.hand,
                                         seat=seat, sealed=sealed, reason=reason))

    def _reveal(self) -> None:
        secret = self.deal_secret
        if secret is None:
            return
        reveal = m.DealReveal(
            table=self.name, hand=secret.hand, server_seed=secret.server_seed,
            client_seeds=tuple(secret.seeds.get(n, MISSING_SEED) for n in secret.order_names),
            dealer=secret.dealer, start=secret.start, players=len(secret.order_names),
        )
        for slot in self.slots:
            if slot.member is not None and slot.name in secret.order_names:
                slot.member.deliver(reveal)
        self.deal_secret = None

    def _finish(self) -> None:
        game = self.game
        if game is None or self.status != "playing":
            return
        self.status = "finished" if game.phase is Phase.GAME_OVER else "waiting"
        self.deadline = self.held = self.resume_until = None
        if game.history:
            try:
                self.on_record(self, to_record(game, self.settings.preset))
            except Exception:
                log.exception("table %s: could not write the game record", self.name)
        for index, slot in enumerate(self.slots):
            slot.ready = slot.bot is not None
            if slot.member is None and slot.bot is None and not slot.empty:
                if slot.leaving:
                    self.slots[index] = Slot()
                else:  # away as the game ended: they may still come back to see it
                    self._hold_for_grace(slot)
        self.note("end", {"status": self.status, "number": self.number})
        self.note_seats()
        self.broadcast_view()

    # --- what members see ------------------------------------------------------------------

    def _broadcast(self, message: m.Message) -> None:
        for member in self.members():
            member.deliver(message)

    def view(self) -> m.TableView:
        game = self.game
        left = self._remaining()
        remaining = 0 if left is None else int(left * 1000)
        if game is None or game.hand < 0:
            seats = tuple(
                m.SeatInfo(name=(f"bot:{s.strategy}" if s.bot else s.name)[:40], cards=0, score=0,
                           title="", connected=s.member is not None or s.bot is not None,
                           ready=s.ready, passed=False)
                for s in self.slots
            )
            return m.TableView(table=self.name, number=self.number, phase=self.status, hand=-1,
                               rules=self.wire_rules, seats=seats, turn=None, dealer=None,
                               trick=(), revolution=False, turn_deadline_ms=remaining)
        public = game.view_for(0)
        titles = game.titles()
        by_name = {s.name: s for s in self.slots}
        seats = tuple(
            m.SeatInfo(
                name=name, cards=public.counts[i], score=game.scores[name],
                title=titles.get(name, ""),
                connected=(by_name.get(name) is not None
                           and (by_name[name].member is not None or by_name[name].bot is not None)),
                ready=by_name[name].ready if name in by_name else False,
                passed=public.passed[i] or public.locked[i],
            )
            for i, name in enumerate(game.seating)
        )
        return m.TableView(
            table=self.name, number=self.number, phase=game.phase.value, hand=game.hand,
            rules=self.wire_rules, seats=seats, turn=game.turn if game.phase is Phase.PLAY else None,
            dealer=game.dealer,
            trick=tuple((seat, tuple(str(c) for c in play.cards)) for seat, play in public.trick),
            revolution=game.revolution, turn_deadline_ms=remaining, opening=public.opening,
            owed=tuple((seat, size) for seat, (_, size) in game.pending_returns.items()),
            standing=tuple(game.standing or ()), hands_played=len(game.finishes),
        )

    def broadcast_view(self) -> None:
        self._broadcast(self.view())

    def snapshot(self, member: Member) -> None:
        """Everything a member needs after joining, watching or resuming."""
        member.deliver(self.view())
        seat = self.seat_of(member)
        if seat is not None and self.game is not None and self.game.phase in (Phase.PLAY, Phase.EXCHANGE):
            self.number += 1
            self.note("snapshot", {"number": self.number})
            self._send_hand(seat, "snapshot", self.number)


class TableError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_action(message: m.Message) -> Action:
    """The engine action a play/pass/return message asks for."""
    try:
        if isinstance(message, m.PlayCards):
            return Play(parse_cards(message.cards))
        if isinstance(message, m.ReturnCards):
            return Return(parse_cards(message.cards))
    except ValueError as exc:
        raise TableError("illegal", str(exc)) from None
    return PASS


def _public(event: Event) -> tuple[str, dict[str, Any]] | None:
    """The public face of an engine event: what every seat may know of it."""
    if isinstance(event, HandStarted):
        return "hand_started", {"hand": event.hand, "dealer": event.dealer, "seating": tuple(event.seating)}
    if isinstance(event, Gave):
        return "gave", {"giver": event.giver, "receiver": event.receiver, "count": len(event.cards)}
    if isinstance(event, Returned):
        return "returned", {"giver": event.giver, "receiver": event.receiver,
                            "count": len(event.cards), "automatic": event.automatic}
    if isinstance(event, ExchangeDone):
        return "exchange_done", {}
    if isinstance(event, Played):
        return "played", {"seat": event.seat, "cards": tuple(str(c) for c in event.cards),
                          "clears": event.clears, "revolution": event.revolution}
    if isinstance(event, Passed):
        return "passed", {"seat": event.seat, "automatic": event.automatic}
    if isinstance(event, Skipped):
        return "skipped", {"seat": event.seat}
    if isinstance(event, TrickEnded):
        return "trick_ended", {"winner": event.winner, "leader": event.leader}
    if isinstance(event, WentOut):
        return "went_out", {"seat": event.seat, "place": event.place}
    if isinstance(event, HandOver):
        return "hand_over", {"hand": event.hand, "finish": tuple(event.finish),
                             "points": tuple(p for _, p in event.points)}
    if isinstance(event, GameOver):
        return "game_over", {"winners": tuple(event.winners)}
    return None

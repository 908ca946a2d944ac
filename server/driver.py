"""The game driver of one table and its turn timer: deal each hand (waiting for the seats'
seeds), let bots move, play the timeout rule for a seat whose time ran out (a seat that is
away keeps its turn time to come back; one that left is played for at once), and end the
game.  One task per table; every change goes through the table, under the
table's lock, one at a time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from president.bots.strategies import Strategy
from president.engine import (
    Action,
    Bombed,
    Discarded,
    Event,
    ExchangeDone,
    Game,
    HandedOver,
    HandStarted,
    IllegalAction,
    Passed,
    Phase,
    Played,
    Returned,
    Took,
)
from president.protocol.messages import TimeoutReason

from .config import TableSettings
from .dealing import DealSecret
from .logs import LOG_BUDGET
from .thinking import think

log = logging.getLogger("president.server")

#: Faults in a row (with no step of the game in between) after which a table's game
#: ends rather than being tried again.
MAX_FAULTS = 3

#: Events after which the seat to act gets a whole turn's time.
_NEW_TURN = (Played, Passed, HandStarted, ExchangeDone, Returned)
#: A due's card paid (seven_pass, ten_discard, a take): a new turn once the due is paid whole; the
#: cards before the last are paid on the turn's own time (so the timeout rule, paying one
#: card at a time, pays the rest at once).
_PAID = (HandedOver, Discarded, Took, Bombed)


class Driven(Protocol):
    """What a driver needs of its table (all called under `lock`)."""

    lock: asyncio.Lock
    game: Game | None
    deal_secret: DealSecret | None

    @property
    def paused(self) -> bool: ...

    @property
    def attended(self) -> bool: ...

    def bot_for(self, seat: int) -> Strategy | None: ...

    def away(self, seat: int) -> bool: ...

    def left(self, seat: int) -> bool: ...

    def lapsed(self, seat: int) -> bool: ...

    def away_since(self, seat: int) -> float | None: ...

    def excuse_absences(self, seconds: float) -> None: ...

    def apply(self, seat: int, action: Action, timeout: TimeoutReason = "") -> None: ...

    def seat_changes(self) -> bool: ...

    def open_deal(self) -> list[str]: ...

    def deal(self) -> None: ...

    def finish(self) -> None: ...

    def broadcast_view(self) -> None: ...

    def tell_fault(self, sentence: str) -> None: ...


def _moves_made(game: Game) -> int:
    """How many decisions the hand in play has had (to tell whether a table moved on)."""
    return len(game.history[-1].actions) if game.history else 0


class TurnTimer:
    """The turn timer: a deadline while it runs; after a restart, the time that was left,
    held until the seats owing a move are back, and when the table stops waiting; while
    nobody is at the table, the time that was left (`idle_left`)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.deadline: float | None = None
        self.held: float | None = None
        self.resume_until: float | None = None
        #: Nobody is at the table: the time its running clock had (`Driver._unattended`).
        self.idle_left: float | None = None
        #: The whole time the running clock was started with (a turn's, or a nudge's):
        #: what a seat took of it counts against its next turns (`Table.turn_time`).
        #: None when none runs, and after a restart (its start is not journaled).
        self.length: float | None = None

    def stop(self) -> None:
        """Nobody is at the table: a running clock keeps the time it has."""
        if self.deadline is not None:
            self.idle_left = max(0.0, self.deadline - self.clock())
            self.deadline = None

    def rearm(
        self,
        events: Sequence[Event],
        someone_to_act: bool,
        turn_seconds: float,
        owing: bool = False,
        exchanging: bool = False,
    ) -> None:
        """After `events`: a whole turn's time for the seat to act if the turn is new
        (`owing`: a due is still being paid by the seat that owes it; `exchanging`: a
        seat returned its cards and others still owe theirs, who keep the clock that
        runs if it has more left, or a nudge's: a slow seat's own shorter time had cut
        it short the moment another returned, and at a table with no turn timer the
        other could nudge again at once for that shorter time, two rechecks)."""
        if exchanging and someone_to_act and self.deadline is not None:
            left = self.remaining()
            if left is not None and (not turn_seconds or left >= turn_seconds):
                return
        if someone_to_act and turn_seconds:
            if any(isinstance(e, _NEW_TURN) for e in events) or (
                not owing and any(isinstance(e, _PAID) for e in events)
            ):
                self.start(turn_seconds)
        else:
            self.deadline = self.length = None

    def start(self, seconds: float) -> None:
        """A clock of `seconds` from now (a turn's, or a nudge's)."""
        self.deadline, self.length = self.clock() + seconds, seconds

    def taken(self) -> float:
        """The seconds taken so far of the clock that runs (0 when none does, or when
        its start is not known: after a restart)."""
        left = self.remaining()
        if self.length is None or left is None:
            return 0.0
        return max(0.0, self.length - left)

    def remaining(self) -> float | None:
        """Seconds left (held, stopped for nobody, or running); None when no timer runs."""
        if self.held is not None:
            return self.held
        if self.idle_left is not None:
            return self.idle_left
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - self.clock())

    def clear(self) -> None:
        self.deadline = self.held = self.resume_until = self.idle_left = self.length = None


class Driver:
    """Drives the game at one table in a task of its own."""

    def __init__(
        self, table: Driven, settings: TableSettings, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.table = table
        self.settings = settings
        self.clock = clock
        self.timer = TurnTimer(clock)
        self.suspended = False
        #: `stop()` was asked: the game ends here.  A task cancelled otherwise (the event
        #: loop torn down by a crash of the server's main task) leaves the game as the
        #: journal has it, for the next start, rather than ending it.
        self._ending = False
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Since when no person has been connected while the game waits for one
        #: (`_unattended`; `clock`'s time), or None.
        self.unattended_since: float | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            self._drive(), name=f"table {self.settings.name}"
        )

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        """End the game here (what was played goes into a record)."""
        if self._task is not None:
            self._ending = True
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    async def suspend(self) -> None:
        """Stop driving without ending the game (the server is shutting down): the
        journal keeps it, and the next start resumes it."""
        self.suspended = True
        await self.stop()

    def away_wait(self, seat: int) -> float | None:
        """Seconds until the timeout rule moves for `seat` while its person is away: what
        is left of a restart's window for the players to come back, or at a table with no
        turn timer of the seat's grace period, counted over its time away owing a move
        (`Table.away_since`, `Slot.owed_away`; None: not away, or its turn time
        decides).  The one reckoning of that wait, for the driver and the view.  Only
        time with a person here counts: while nobody is, it stands still, and
        `_unattended` moves the window and the absences on by what it waited."""
        table, timer = self.table, self.timer
        if not table.away(seat):
            return None
        now = self.clock() if self.unattended_since is None else self.unattended_since
        if timer.resume_until is not None:  # (the table's window: whenever the seat went)
            return max(0.0, timer.resume_until - now)
        if self.settings.turn_seconds:  # (its turn time, once: then at once, `Slot.lapsed`)
            return 0.0 if table.lapsed(seat) else None
        since = table.away_since(seat)
        if since is None:
            return None
        return max(0.0, self.settings.grace_seconds - (now - since))

    # --- the loop ------------------------------------------------------------------------

    async def _drive(self) -> None:
        """Drive the game to its end.  An unexpected exception never stops the table
        silently: it is logged (its traceback once a game, in the log only), the players
        are told, and the game goes on; after `MAX_FAULTS` in a row it ends with its
        record written."""
        LOG_BUDGET.set(None)  # started from a connection's task: its lines are not its
        table, lock = self.table, self.table.lock
        game = table.game
        assert game is not None
        faults = logged = 0
        cancelled = False
        try:
            while not self.suspended:
                if table.paused:  # its journal cannot be written: no move until it can
                    self._wake.clear()
                    await self._woken(None)
                    continue
                try:
                    async with lock:
                        phase = game.phase
                    if phase is Phase.GAME_OVER:
                        break
                    if not table.attended:  # nobody here: no move until a person is back
                        await self._unattended()
                        continue
                    if phase is Phase.BETWEEN_HANDS:
                        if game.hand >= 0 and self.settings.pause_between_hands:
                            await asyncio.sleep(self.settings.pause_between_hands)
                            if not table.attended:  # (gone meanwhile: no deal for nobody)
                                continue
                        async with lock:
                            if not table.seat_changes():
                                break
                        await self._deal()
                        faults = 0
                        continue
                    await self._next_moves(game)
                    faults = 0
                except Exception as exc:
                    faults += 1
                    if not logged:
                        log.exception("table %s: the game's driver failed", self.settings.name)
                    else:
                        log.error("table %s: the driver failed again: %r", self.settings.name, exc)
                    logged += 1
                    ending = faults >= MAX_FAULTS
                    async with lock:
                        table.tell_fault(
                            "the server hit a fault at this table: the game ends here and its "
                            "record is kept"
                            if ending
                            else "the server hit a fault at this table; the game goes on"
                        )
                    if ending:
                        break
                    await asyncio.sleep(0)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            if not self.suspended and (self._ending or not cancelled):
                async with lock:
                    try:
                        table.finish()
                    except Exception:
                        log.exception("table %s: ending the game failed", self.settings.name)

    async def _unattended(self) -> None:
        """No person is connected to the table, in a chair or watching: no bot moves, no
        timeout rule plays and no hand is dealt, for nobody; the turn clock keeps the
        time it had, and so do a restart's window for the seats to come back and the
        grace of the people away.  The first person back (`Table` wakes the driver) sets
        it going again, each with that time (docs/reliability.md, "Nobody there, no
        move")."""
        table, timer, name = self.table, self.timer, self.settings.name
        since = self.clock()
        window = None if timer.resume_until is None else timer.resume_until - since
        log.info("table %s: nobody is here; the game waits for a person", name)
        self.unattended_since = since
        while True:
            self._wake.clear()  # (before looking: an arrival after this wakes the wait)
            if table.attended or self.suspended:
                break
            async with table.lock:  # (stopped again each time: a journal pause's end
                timer.stop()  # starts the clock it had kept)
            await self._woken(None)
        self.unattended_since = None
        async with table.lock:
            now = self.clock()
            table.excuse_absences(now - since)  # (no grace spent while nobody was here)
            if window is not None and timer.resume_until is not None:
                timer.resume_until = now + max(0.0, window)
            left, timer.idle_left = timer.idle_left, None
            if left is not None and timer.deadline is None and not table.paused:
                timer.deadline = now + left
            table.broadcast_view()
        log.info("table %s: a person is here; the game goes on", name)

    async def _deal(self) -> None:
        """Commit, wait up to `seed_seconds` for the seats' seeds, deal."""
        table = self.table
        async with table.lock:
            waiting = table.open_deal()
            secret = table.deal_secret
        assert secret is not None
        end = self.clock() + self.settings.seed_seconds
        while any(name not in secret.seeds for name in waiting) and self.clock() < end:
            self._wake.clear()
            if not await self._woken(max(0.0, end - self.clock())):
                break
        async with table.lock:
            table.deal()

    def _still(self) -> bool:
        """No move now, under the lock: the table's journal cannot be written, or no
        person is here (`_unattended`)."""
        return self.table.paused or not self.table.attended

    async def _next_moves(self, game: Game) -> None:
        table, timer, lock = self.table, self.timer, self.table.lock
        async with lock:
            self._wake.clear()  # before looking: a move made after this wakes the wait below
            actors = game.actors
            now = self.clock()
            bots = [s for s in actors if table.bot_for(s) is not None]
            away = [s for s in actors if s not in bots and table.away(s)]
            gone = [s for s in away if table.left(s)]
            waits = [wait for s in away if (wait := self.away_wait(s)) is not None]
        if bots:
            # (with no delay, still let the other tasks run: a table of bots never waits)
            await asyncio.sleep(self.settings.bot_delay)
            if table.attended:  # (gone meanwhile: no move for nobody)
                await self._bots_move(game, bots)
            return
        if away and timer.resume_until is not None:
            if (wait := min(waits, default=0.0)) > 0:  # restarted: wait for the seats to come back
                await self._woken(wait)
                return
            async with lock:  # the restart's window is over: who is not back is played for
                if self._still():  # (nobody: the loop waits for them)
                    return
                timer.held = timer.resume_until = None
                for seat in away:
                    if seat in game.actors:
                        self._time_out(game, seat, "away")
            return
        if (
            gone
        ):  # walked away: played for at once (docs/rules.md, "Networked play: the timeout rule")
            async with lock:
                if self._still():
                    return
                for seat in gone:
                    if seat in game.actors and table.left(seat):
                        self._time_out(game, seat, "left")
            # (let the connections' writers run between such moves: when 10 of 12 left at
            # once, the rest of the hand was played for them in one burst, and the two who
            # stayed were dropped as too slow, their queues full: a hostile pass)
            await asyncio.sleep(0)
            return
        if timer.resume_until is not None:  # everyone owing a move is back after a restart:
            async with lock:  # their clock runs again, and a later drop is an ordinary one
                if timer.held is not None and self.settings.turn_seconds:
                    timer.deadline = self.clock() + timer.held
                timer.held = timer.resume_until = None
                table.broadcast_view()
            return
        # A seat that is away (its connection dropped) keeps its turn time to come back;
        # with no turn timer it is waited for up to the grace period from when it went.
        if timer.deadline is not None:
            waits.append(timer.deadline - now)
        wait = min(waits, default=None)
        if not await self._woken(None if wait is None else max(0.0, wait)):
            async with lock:
                now = self.clock()
                if self._still():
                    return
                if timer.deadline is not None and now >= timer.deadline:
                    for seat in game.actors:
                        self._time_out(game, seat, "away" if table.away(seat) else "time")
                else:
                    for seat in game.actors:
                        if self.away_wait(seat) == 0.0:
                            self._time_out(game, seat, "away")

    def _time_out(self, game: Game, seat: int, why: TimeoutReason) -> None:
        """The timeout rule's move for `seat` (under the table's lock), said as such."""
        self.table.apply(seat, game.timeout_action(seat), why)

    async def _bots_move(self, game: Game, bots: list[int]) -> None:
        """Each bot owing a move chooses off the event loop (thinking.py), the table's lock
        free meanwhile; a choice is applied if its seat still owes a move of that hand.
        A choice the engine refuses in the very state the bot saw, or a bot that fails,
        gets the timeout rule's move instead: a broken strategy never stalls the table
        (asking it again would give the same answer) nor ends its game."""
        table = self.table
        async with table.lock:
            asked = [
                (seat, bot, game.view_for(seat))
                for seat in bots
                if (bot := table.bot_for(seat)) is not None and seat in game.actors
            ]
        hand, moves = game.hand, _moves_made(game)
        choices = await asyncio.gather(
            *(think(bot, view) for _, bot, view in asked), return_exceptions=True
        )
        async with table.lock:
            if self._still():  # (or everyone went while it thought)
                return
            for (seat, bot, _), action in zip(asked, choices, strict=True):
                if game.hand != hand or seat not in game.actors or table.bot_for(seat) is not bot:
                    continue
                if isinstance(action, BaseException):
                    if not isinstance(action, Exception):
                        raise action  # (a cancellation, an interrupt)
                    problem = f"failed ({action!r})"
                else:
                    try:
                        table.apply(seat, action)
                        continue
                    except IllegalAction as exc:
                        if _moves_made(game) != moves:
                            continue  # the table moved on meanwhile
                        problem = f"chose what the rules refuse ({exc})"
                log.warning("a bot at seat %d %s: the timeout rule moves for it", seat, problem)
                with contextlib.suppress(IllegalAction):
                    self._time_out(game, seat, "time")

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

"""Wrong passwords slow down per address: after each wrong one, the address waits a delay
that doubles (up to a cap) before its next password is even checked; an attempt during
the wait is refused with a sentence saying how long is left.  A burst of wrong passwords
is logged once, not a line per guess.

Guesses spread over many addresses are budgeted too, per kind of password: an address
that has guessed wrong lately (within `forget`) shares, with every other such address,
`shared_per_minute` checks a minute; an address with no wrong guess behind it shares,
with every other such address, `new_per_minute` (a friend typing the password for the
first time is held only while that many first tries a minute come from new addresses:
free first tries let a hostile pass with an address per guess check a 4-digit table
password in 25 s, 30 a second, and queue the host's own password table behind 17 s of
scrypt).  A check that finds the password right gives its place back (`spare`): the
budgets count guesses, not people who know the password.  A player key that gave the
right password before (`welcome`) is held by neither budget, nor by its address's wait:
a friend who mistyped once while others guess from many addresses is not locked out
with them (a key proves who holds it, and a guesser holds no key that was ever let in).  The welcomes live in memory: after a restart a key seated in a game
of the server (`refusal`'s `seated`) is not held by the budgets either, only by its
address's wait.

An address's checks of one kind are made one at a time (`turn`): many connections
guessing at once from one address wait for each other, each seeing the wait the one
before it earned (all were checked at once before: a hostile pass had 32 guesses an
address checked in its first wave)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass

log = logging.getLogger("president.server")

#: How many keys that gave a right password are kept per kind (the oldest go first).
MOST_WELCOMED = 4096


@dataclass
class _Record:
    wrong: int = 0
    last: float = 0.0
    until: float = 0.0


class PasswordGuard:
    """Per (address, what) backoff: `what` is "server" or "table" (table passwords
    share one count, so guessing at many tables is no faster than at one)."""

    def __init__(
        self,
        first: float,
        cap: float,
        forget: float,
        clock: Callable[[], float] = time.monotonic,
        shared_per_minute: int = 12,
        new_per_minute: int = 30,
    ) -> None:
        self.first = first
        self.cap = cap
        self.forget = forget
        self.clock = clock
        self.shared_per_minute = shared_per_minute
        self.new_per_minute = new_per_minute
        self._records: dict[tuple[str, str], _Record] = {}
        #: Per kind ("server", "table"): when each check of a repeat guesser was let through.
        self._shared: dict[str, deque[float]] = {}
        #: Per kind: when each first try (an address with no wrong guess lately) was.
        self._new: dict[str, deque[float]] = {}
        #: Per (address, kind) with a check let through and not yet found right or
        #: wrong: the budget it was counted in, and when (`spare` gives it back).
        self._counted: dict[tuple[str, str], tuple[deque[float], float]] = {}
        #: Per kind: who gave the right password before (`welcome`), oldest first.
        self._welcomed: dict[str, dict[Hashable, None]] = {}
        #: Per (address, kind) with a check under way or waiting: its lock and how many
        #: hold it or wait for it (gone when none do).
        self._turns: dict[tuple[str, str], tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def turn(self, address: str, what: str) -> AsyncIterator[None]:
        """This address's turn to have a password of kind `what` checked: ask `refusal`,
        check, and say `wrong` or `welcome` inside it, so that the next waiting
        connection of the address sees what this one earned."""
        key = (address, what)
        lock, users = self._turns.get(key) or self._turns.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._turns[key]

    def refusal(
        self,
        address: str,
        what: str,
        who: Hashable | None = None,
        seated: Callable[[], bool] | None = None,
    ) -> str | None:
        """Why this address may not try a password now (how long to wait), or None.
        `who` (a proven player key, with what it opens) is not held at all if it gave
        the right password before.  A key `seated` says sits in a game here (it gave the
        password before a restart, which the welcomes do not outlive) is not held by the
        budgets many addresses share, only by its own address's wait (asked only when a
        budget is reached: it looks through every table)."""
        if who is not None and who in self._welcomed.get(what, {}):
            # (it knows this password: nothing to guess, so no wait either; an address
            # is every local user's loopback, or a LAN's shared one, and another's
            # wrong guesses there held up a friend's reconnection)
            return None
        record = self._records.get((address, what))
        now = self.clock()
        if record is not None:
            left = record.until - now
            if left > 0:
                return f"too many wrong passwords: try again in {max(1, round(left))} s"
        if record is None or not record.wrong or now - record.last > self.forget:
            budget, most = self._new.setdefault(what, deque()), self.new_per_minute
            said = "too many password tries from new addresses (someone may be guessing)"
        else:
            budget, most = self._shared.setdefault(what, deque()), self.shared_per_minute
            said = "too many wrong passwords from many addresses"
        while budget and now - budget[0] >= 60:
            budget.popleft()
        if len(budget) >= most:
            if seated is not None and seated():
                return None  # (not counted: it knew the password before)
            return f"{said}: try again in {max(1, round(60 - (now - budget[0])))} s"
        budget.append(now)
        self._counted[(address, what)] = (budget, now)
        if len(self._counted) > MOST_WELCOMED:  # (checks never ended: a dropped link)
            del self._counted[next(iter(self._counted))]
        return None

    def spare(self, address: str, what: str) -> None:
        """The check `refusal` just let through from this address found the password
        right (or was never made): no guess, so not counted against the budget it took
        a place in.  (Right or wrong, nothing is said before the check: a place is
        given back only after it, so no password is answered beyond the budget.)"""
        counted = self._counted.pop((address, what), None)
        if counted is not None:
            budget, when = counted
            with contextlib.suppress(ValueError):
                budget.remove(when)

    def welcome(self, what: str, who: Hashable) -> None:
        """`who` (a proven player key, with what it opened) gave the right password."""
        welcomed = self._welcomed.setdefault(what, {})
        welcomed.pop(who, None)
        welcomed[who] = None
        if len(welcomed) > MOST_WELCOMED:
            del welcomed[next(iter(welcomed))]

    def wrong(self, address: str, what: str) -> None:
        """A wrong password: the address waits longer before its next try."""
        self._counted.pop((address, what), None)  # (its place in the budget is kept)
        now = self.clock()
        self._forget_old(now)
        record = self._records.setdefault((address, what), _Record())
        if record.wrong and now - record.last > self.forget:
            record.wrong = 0
        record.wrong += 1
        record.last = now
        wait = min(self.cap, self.first * 2 ** min(record.wrong - 1, 60))
        record.until = now + wait
        if record.wrong == 1:
            log.warning(
                "%s: a wrong %s password; each further one doubles the wait (up to %g s), "
                "not logged again for this burst",
                address,
                what,
                self.cap,
            )
        elif wait >= self.cap and self.first * 2 ** (record.wrong - 2) < self.cap:
            log.warning(
                "%s: %d wrong %s passwords in a row; now one try per %g s",
                address,
                record.wrong,
                what,
                self.cap,
            )

    def _forget_old(self, now: float) -> None:
        """Drop records quiet for longer than `forget` (memory bounded by recent guessers)."""
        if len(self._records) < 1024:
            return
        for key, record in list(self._records.items()):
            if now - record.last > self.forget and record.until <= now:
                del self._records[key]

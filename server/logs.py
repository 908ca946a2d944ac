"""What reaches the host's log from clients: every line escaped (a name or a sentence
from a client never puts a control or bidi character on the host's terminal), and the
lines an address causes rate-limited over all its connections, and after they close (a
hostile client cannot flood the log, not by opening connection after connection either).
One filter on the server's logger does both, so no log call has to remember to.

A session sets `LOG_BUDGET` (its address's) for its own task; whatever is logged while
handling its messages (in the lobby, at its table) is charged to it."""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from typing import Any

log = logging.getLogger("president.server")


def shown(text: str) -> str:
    """`text` with every unprintable character escaped as Python would write it
    (`\\x9b`, `\\u202e`, `\\n`); printable text, backslashes included, as it is."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


class LogBudget:
    """A token bucket of log lines for one address: `burst` at once, then
    `per_minute`; lines over it are dropped and counted, and the next line let through
    says how many were."""

    def __init__(self, per_minute: float, burst: float, clock: float | None = None) -> None:
        self.per_minute = per_minute
        self.burst = burst
        self.tokens = burst
        self.last = time.monotonic() if clock is None else clock
        self.dropped = 0

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.per_minute / 60)
        self.last = now
        if self.tokens < 1:
            self.dropped += 1
            return False
        self.tokens -= 1
        return True


class LogBudgets:
    """Each address's `LogBudget`, shared by its connections and kept after they close
    until it has filled again (without it, each new connection came with a fresh budget:
    656 hellos in 3 s from one address logged 626 lines).  At most `most` addresses are
    kept: past that, the full ones are forgotten, then the longest quiet."""

    def __init__(self, per_minute: float, burst: float, most: int = 4096) -> None:
        self.per_minute, self.burst, self.most = per_minute, burst, most
        self._budgets: dict[str, LogBudget] = {}

    def of(self, address: str, now: float | None = None) -> LogBudget:
        now = time.monotonic() if now is None else now
        budget = self._budgets.get(address)
        if budget is None:
            if len(self._budgets) >= self.most:
                self._forget(now)
            budget = self._budgets[address] = LogBudget(self.per_minute, self.burst, now)
        return budget

    def _forget(self, now: float) -> None:
        refill = 60 * self.burst / self.per_minute if self.per_minute > 0 else float("inf")
        budgets = self._budgets
        for address in [a for a, b in budgets.items() if now - b.last >= refill and not b.dropped]:
            del budgets[address]
        if len(budgets) >= self.most:  # every one of them busy: the quietest half goes
            by_last = sorted(budgets, key=lambda a: budgets[a].last)
            for address in by_last[: len(by_last) // 2 + 1]:
                del budgets[address]


#: The log budget of the address whose message is being handled (None elsewhere: the
#: server's own tasks, the tables' drivers).
LOG_BUDGET: ContextVar[LogBudget | None] = ContextVar("president_log_budget", default=None)


class ClientSafe(logging.Filter):
    """Escapes each record's message and traceback; drops what a connection logs past
    its budget."""

    def filter(self, record: logging.LogRecord) -> bool:
        budget = LOG_BUDGET.get()
        note = ""
        if budget is not None:
            dropped = budget.dropped
            if not budget.allow(time.monotonic()):
                return False
            if dropped:
                budget.dropped = 0
                note = f" ({dropped} earlier line(s) from this address were not logged)"
        record.msg = shown(record.getMessage()) + note
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = _traceback(record.exc_info)
        return True


def _traceback(exc_info: Any) -> str:
    """A traceback as the log shows it, each exception's own text escaped (a client's
    words in an exception cannot start a line of their own)."""
    text = logging.Formatter().formatException(exc_info)
    seen: set[int] = set()
    error = exc_info[1]
    while isinstance(error, BaseException) and id(error) not in seen:
        seen.add(id(error))
        said = str(error)
        if not said.isprintable():
            text = text.replace(said, shown(said))
        error = error.__cause__ or error.__context__
    return "\n".join(shown(line) for line in text.split("\n"))


def install() -> None:
    """Put the filter on the server's logger (once)."""
    if not any(isinstance(f, ClientSafe) for f in log.filters):
        log.addFilter(ClientSafe())

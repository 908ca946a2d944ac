"""What reaches the host's log from clients: every line escaped (a name or a sentence
from a client never puts a control or bidi character on the host's terminal), and the
lines a connection causes rate-limited per connection (a hostile client cannot flood the
log).  One filter on the server's logger does both, so no log call has to remember to.

A session sets `LOG_BUDGET` for its own task; whatever is logged while handling its
messages (in the lobby, at its table) is charged to it."""

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
    """A token bucket of log lines for one connection: `burst` at once, then
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


#: The log budget of the connection whose message is being handled (None elsewhere:
#: the server's own tasks, the tables' drivers).
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
                note = f" ({dropped} earlier line(s) from this connection were not logged)"
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

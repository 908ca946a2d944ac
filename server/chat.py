"""Chat budgets: how much one address, and one room (a table, or the lobby), may say in
a minute, on top of each connection's own `chat_per_minute`.

IRC servers limit flooding per host, not only per connection (a crowd of connections
from one machine is one speaker), and per channel; lichess rate-limits chat per user and
per room.  Here: an address may send `per_address` lines a minute however many
connections it holds, and a room hears at most `per_room` lines a minute from all
addresses together, no address taking more than its share of a busy room.  A line over
budget is refused to its sender (`rate_limited`); nobody else's connection is touched.
Readers are protected apart: a reader that is behind gets no chat until it catches up
(`Session.deliver`), so chat is never why a reader is dropped."""

from __future__ import annotations

import unicodedata
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from .players import IGNORABLE

#: The window the budgets count in, seconds.
WINDOW = 60.0
#: Marks one character may carry (accents, vowel signs): more than any script writes, and
#: few enough that a line cannot draw over the lines around it.
MARKS_PER_CHARACTER = 8


def line_problem(text: str) -> str | None:
    """Why a chat line is not said (one sentence), or None: it must show something, and
    no character may carry more than `MARKS_PER_CHARACTER` marks (a hostile pass said
    lines of zero-width spaces alone, and an "a" under 499 accents)."""
    shows = False
    marks = 0
    for ch in text:
        category = unicodedata.category(ch)
        if category[0] == "M":
            marks += 1
            if marks > MARKS_PER_CHARACTER:
                return f"a character in a chat line may carry {MARKS_PER_CHARACTER} marks at most"
            continue
        if ch in IGNORABLE or category == "Cf" or ch == "\u2800":
            continue  # draws nothing: marks after it stack on the character before
        marks = 0  # (a second hostile pass reset the count with a zero-width space)
        if category[0] in "LNPS":
            shows = True
    return None if shows else "a chat line must show something"


@dataclass
class ChatBudget:
    per_address: int = 60
    per_room: int = 240
    #: When each address last spoke, per address (the times within the window).
    _by_address: dict[str, deque[float]] = field(default_factory=dict)
    #: Per room: (time, address) of the lines heard within the window.
    _by_room: dict[str, deque[tuple[float, str]]] = field(default_factory=dict)

    def refusal(self, address: str, room: str, now: float) -> str | None:
        """Why `address` may not say a line in `room` now, or None (then it is counted)."""
        mine = self._by_address.setdefault(address, deque())
        while mine and now - mine[0] >= WINDOW:
            mine.popleft()
        if len(mine) >= self.per_address:
            return "slow down: your address has sent as many chat lines as a minute allows"
        heard = self._by_room.setdefault(room, deque())
        while heard and now - heard[0][0] >= WINDOW:
            heard.popleft()
        if len(heard) >= self.per_room:
            return "slow down: this room has heard as many chat lines as a minute allows"
        # once the room is half full, no address takes more than an equal share of it
        # with the others speaking now (a newcomer to the talk always gets a line)
        if len(heard) >= self.per_room // 2:
            speakers = Counter(who for _, who in heard)
            if len(speakers) > 1 and speakers[address] * len(speakers) >= len(heard):
                return "slow down: let the others here be heard"
        mine.append(now)
        heard.append((now, address))
        self._forget(now)
        return None

    def _forget(self, now: float) -> None:
        """Drop the windows of addresses and rooms that have been quiet a whole window
        (so a flood of addresses leaves nothing behind)."""
        if len(self._by_address) > 256:
            for key in [k for k, times in self._by_address.items() if now - times[-1] >= WINDOW]:
                del self._by_address[key]
        if len(self._by_room) > 256:
            for key in [k for k, times in self._by_room.items() if now - times[-1][0] >= WINDOW]:
                del self._by_room[key]


class ChatKept:
    """The lobby's last `size` lines of chat, (when, who, what), oldest first, for who
    comes later.  Once full, a new line pushes out the oldest line of the address holding
    the most of them (the new line counted as its address's): one talker alone keeps all
    of them, people talking in turn lose their oldest lines, and a flood keeps the
    others' last lines (one connection pushed every line of the others out within a
    minute; a second hostile pass did it with two addresses when the cap was half of the
    lines an address)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lines: deque[tuple[float, str, str, str]] = deque()

    def __bool__(self) -> bool:
        return bool(self._lines)

    def __iter__(self) -> Iterator[tuple[float, str, str]]:
        return ((when, who, what) for when, who, what, _ in self._lines)

    def add(self, when: float, who: str, what: str, address: str) -> None:
        lines = self._lines
        if len(lines) >= self.size:
            held = Counter(line[3] for line in lines)
            held[address] += 1
            most = max(held.values())
            del lines[next(i for i, line in enumerate(lines) if held[line[3]] == most)]
        lines.append((when, who, what, address))

"""Who makes room at the connection cap.  A server full of connections that do nothing
must still let a new player in, so at the cap a newcomer evicts, in this order:

1. a connection that has not said hello (its TLS handshake or its hello still pending):
   the newcomer's own address's oldest, else the oldest of the address holding the most
   of them; one from another address only if it has had `YOUNG` seconds to say hello or
   its address holds at least two more of them than the newcomer's (so a newcomer still
   in its own handshake is not what the next connection of a flood pushes out);
2. the lobby connection (at no table) or spectator idle longest, once it has sent
   nothing but pings and pongs for `evict_idle_seconds`;
3. the longest-idle lobby connection of the address holding the most lobby connections,
   when that address holds at least two more of them than the newcomer's (the cap is
   shared between addresses, not held by one).

Players seated at a table are never evicted; with nobody to evict the newcomer is
refused, as before.  The per-address cap is checked first and never bent."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

#: Seconds a connection has to say hello before a newcomer from elsewhere may take its
#: place (a TLS handshake and a hello take milliseconds; a slow machine, a second).
YOUNG = 2.0


class Visitor(Protocol):
    """What eviction needs to know of a session."""

    welcomed: bool
    last_active: float
    table: Any

    @property
    def watching(self) -> bool: ...


@dataclass(eq=False)
class Admitted:
    """One accepted connection, from its first byte (before TLS) to its close."""

    address: str
    since: float
    task: asyncio.Task[None] | None = None
    session: Visitor | None = None
    released: bool = False

    @property
    def in_lobby(self) -> bool:
        return self.session is not None and self.session.welcomed and self.session.table is None

    @property
    def watching(self) -> bool:
        return self.session is not None and self.session.welcomed and self.session.watching


def to_evict(
    admitted: Iterable[Admitted], newcomer: str, now: float, idle_seconds: float
) -> Admitted | None:
    """The connection a newcomer from `newcomer` evicts at the cap, or None."""
    everyone = list(admitted)
    waiting = [a for a in everyone if a.session is None or not a.session.welcomed]
    per_address = Counter(a.address for a in waiting)
    waiting = [
        a
        for a in waiting
        if now - a.since >= YOUNG
        or a.address == newcomer
        or per_address[a.address] >= per_address[newcomer] + 2
    ]
    if waiting:
        return min(waiting, key=lambda a: (a.address != newcomer, -per_address[a.address], a.since))
    lobby = [a for a in everyone if a.in_lobby]
    watchers = [a for a in everyone if a.watching]

    def idle_since(a: Admitted) -> float:
        assert a.session is not None
        return a.session.last_active

    idle = [a for a in lobby + watchers if now - idle_since(a) >= idle_seconds]
    if idle:
        return min(idle, key=idle_since)
    if not lobby:
        return None
    counts = Counter(a.address for a in lobby)
    heaviest = max({a.address for a in lobby}, key=lambda address: counts[address])
    if counts[heaviest] >= counts[newcomer] + 2:
        return min((a for a in lobby if a.address == heaviest), key=idle_since)
    return None

"""Who makes room at the connection cap.  A server full of connections that do nothing
must still let a new player in, so at the cap a newcomer evicts, in this order:

1. a connection that has not said hello (its TLS handshake or its hello still pending):
   the newcomer's own address's oldest, else the oldest of the address holding the most
   of them; one from another address only if it has had `YOUNG` seconds to say hello or
   its address holds at least two more of them than the newcomer's (so a newcomer still
   in its own handshake is not what the next connection of a flood pushes out);
2. the lobby connection (at no table) or spectator idle longest, once it has sent
   nothing but pings and pongs for `evict_idle_seconds`; else the oldest lobby
   connection or spectator, once it has been connected `STAY` seconds, however busy (a
   hostile pass held every place of a full server for good, one connection an address,
   each asking for the table list every 10 s: nobody was idle, and no address held more
   than the newcomer's).  Its age, not its time in the lobby: a review found the time
   since it last sat or watched reset by a spectate and a leave, so the crowd stayed
   young and honest people went in its place.  And before any of those, whatever its
   age, one of an address that opened `CHURN` connections in `CHURN_SECONDS` (a second
   pass: a crowd back every 100 s stayed young by reconnecting);
3. a connection of the address holding the most connections, when that address holds
   at least two more than the newcomer's (the cap is shared between addresses, not held
   by one): its longest-idle lobby connection, else spectator, else seated player (whose
   chair waits for them, as for any dropped connection); a player in a game under way
   that moved lately (`Table.moving`) only from an address holding more than
   `HOUSEHOLD` connections, and otherwise the next heaviest address's.  (A guest holding
   many addresses, two connections each, made the host's address, the host and three
   bots in one game, the heaviest, and pushed its players out of their game again and
   again; then, with that protection, a few addresses held every place with games of no
   turn timer where nobody moved.)

Only a connection that has not said hello goes for a newcomer that has not either: at
its TCP accept a newcomer evicts by rule 1 alone, and a person (rules 2 and 3) goes only
for a newcomer that has said hello, proved its key and given the password (a hostile
pass: one bare TCP connection, a port scan's, evicted the oldest watcher of a full
server).  So at the cap a newcomer with nobody silent to evict comes in over the cap on
one of `RESERVE` places (`RESERVE_EACH` an address, a household's bots at once), to say
hello; then a person goes for it by the rules above, or it stays if its player key holds
a chair in a game under way (it came to take it back); else it is told the server is
full.  With every reserve place taken (or its address's `RESERVE_EACH`), a
newcomer takes the one held longest by a connection that has had `RESERVE_YOUNG`
seconds and has not sent its hello (and its key's proof, when asked: then only the server's own work,
a password's check, is left); a hostile pass held all 16 with bare TCP connections that
never began TLS, each back as soon as its handshake's 10 s ran out, and a friend could
not get back to their game.  So a
crowd holding every place, seated or not, cannot keep a friend from their game.  The
per-address cap is checked first and never bent."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

#: Connections let in over the cap to say hello: see above.
RESERVE = 16

#: Connections from one address that may play in games under way and never make room
#: for a newcomer: a host and the bots they run on their machine (`president bot
#: --count 7`), or a family behind one router.
HOUSEHOLD = 8

#: Reserve places one address may hold at once (a host's `president bot --count 7` at a
#: full server: each bot waits on one for its hello to make room).
RESERVE_EACH = HOUSEHOLD

#: Seconds a connection has to say hello before a newcomer from elsewhere may take its
#: place (a TLS handshake and a hello take milliseconds; a slow machine, a second).
YOUNG = 2.0

#: Connections an address opened within `CHURN_SECONDS` from which its lobby
#: connections, spectators and silent reserve places make room whatever their age: a
#: crowd that reconnects to stay young (a hostile pass: squatters back every 100 s were
#: never the oldest, and reserve holders back every 1.5 s never old enough to take).
CHURN = 4
CHURN_SECONDS = 600.0

#: Seconds a connection on a reserve place has to say hello before a newcomer may take
#: its place (a TLS handshake, a hello and a key's proof take milliseconds on a LAN).
RESERVE_YOUNG = 1.0

#: Connections on reserve places an address's client closed before sending anything, or
#: that a newcomer took after `RESERVE_YOUNG` seconds of silence, within `CHURN_SECONDS`,
#: after which its silent reserve places are taken at once (a third hostile pass held
#: every place from 150 addresses, each back every 1.9 s, never `YOUNG`, and kept a
#: friend from her chair for a minute; a fourth let its own next connections take its
#: places, which no close counted).  Two: a client's first connection only asks the
#: certificate's fingerprint and closes, as every `president connect` does; a review
#: found one enough to strip the friend herself of her place.
QUIET = 2

#: A connection that comes back within this many seconds of its address's last (closed
#: by the client, not evicted) is as old as that one for `STAY`.
AGAIN_SECONDS = 300.0

#: Seconds connected after which a connection in the lobby (or watching), busy or not,
#: makes room at the cap for a newcomer (one who plays is at a table, where this never
#: reaches them).
STAY = 120.0


class Visitor(Protocol):
    """What eviction needs to know of a session."""

    welcomed: bool
    #: Its hello (and key's proof) came: the rest of its welcome is the server's work.
    answered: bool
    #: Its client sent something before its hello's deadline (a hello, answered or not).
    greeted: bool
    last_active: float
    table: Any

    @property
    def watching(self) -> bool: ...

    @property
    def playing(self) -> bool:
        """Seated at a table whose game is under way."""


@dataclass(eq=False)
class Admitted:
    """One accepted connection, from its first byte (before TLS) to its close."""

    address: str
    since: float
    task: asyncio.Task[None] | None = None
    session: Visitor | None = None
    released: bool = False
    #: Let in over the cap on a reserve place, until its hello says whether it stays.
    over: bool = False
    #: Let in over the cap at its hello to take back the chair this player id holds.
    back_for: str = ""
    #: Since when its address has been here, for `STAY`: its own start, or that of the
    #: address's connection it came back in place of (closed by the client within
    #: `AGAIN_SECONDS`, not evicted: a crowd back every 100 s stayed young, and the age
    #: rule took honest people in its place).  0: its own start.
    born: float = 0.0
    #: The rule of `to_evict` that chose it ("silent", "idle", "churn", "age",
    #: "address"), or "" (a silent reserve place, `reserve_victim`).
    evicted_for: str = ""
    #: Its task has begun (and closes its socket from then on).
    started: bool = False

    @property
    def greeted(self) -> bool:
        """Its client sent something: a hello, answered or refused (a connection that
        only asked the certificate's fingerprint, as a client does first, sent nothing)."""
        return self.session is not None and self.session.greeted

    @property
    def spoke(self) -> bool:
        """It sent its hello (and proof): it was not a connection that said nothing."""
        return self.session is not None and (self.session.welcomed or self.session.answered)

    @property
    def age_from(self) -> float:
        return self.born or self.since

    @property
    def in_lobby(self) -> bool:
        return self.session is not None and self.session.welcomed and self.session.table is None

    @property
    def watching(self) -> bool:
        return self.session is not None and self.session.welcomed and self.session.watching

    @property
    def seated(self) -> bool:
        return (
            self.session is not None
            and self.session.welcomed
            and self.session.table is not None
            and not self.session.watching
        )

    @property
    def playing(self) -> bool:
        return self.seated and self.session is not None and self.session.playing


def reserve_open(admitted: Iterable[Admitted], newcomer: str) -> bool:
    """Whether a newcomer from `newcomer` may come in over the cap to say hello (with
    every reserve place taken: once `reserve_victim` has made room)."""
    over = [a for a in admitted if a.over]
    return len(over) < RESERVE and sum(a.address == newcomer for a in over) < RESERVE_EACH


def reserve_victim(
    admitted: Iterable[Admitted],
    newcomer: str,
    now: float,
    opened: Mapping[str, int] = {},
    quiet: Collection[str] = (),
) -> Admitted | None:
    """The reserve place a newcomer from `newcomer` takes, when `reserve_open` says no:
    its own address's, if it holds `RESERVE_EACH`, else, every place taken, the one
    held longest; only by a connection that has not sent its hello and proof (one
    that has is being let in or told no) and has had `RESERVE_YOUNG` seconds to, or whose
    address opened `CHURN` connections lately (`opened`, by address), or closed `QUIET`
    silent ones on reserve places lately (`quiet`)."""
    over = [a for a in admitted if a.over]
    own = [a for a in over if a.address == newcomer]
    held = own if len(own) >= RESERVE_EACH else over if len(over) >= RESERVE else []
    silent = [
        a
        for a in held
        if not a.spoke
        and (
            now - a.since >= RESERVE_YOUNG
            or opened.get(a.address, 0) >= CHURN
            or a.address in quiet
        )
    ]
    return min(silent, key=lambda a: a.since, default=None)


def chosen(victim: Admitted, why: str) -> Admitted:
    """`victim`, marked with the rule that chose it (what it is told)."""
    victim.evicted_for = why
    return victim


def to_evict(
    admitted: Iterable[Admitted],
    newcomer: str,
    now: float,
    idle_seconds: float,
    opened: Mapping[str, int] = {},
    people: bool = True,
) -> Admitted | None:
    """The connection a newcomer from `newcomer` evicts at the cap, or None (`opened`: the
    connections each address opened lately, `CHURN`; `people` False: only one that has
    not said hello, for a newcomer of an address evicted lately)."""
    everyone = [a for a in admitted if not a.over]  # (their hello decides)
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
        first = min(
            waiting, key=lambda a: (a.address != newcomer, -per_address[a.address], a.since)
        )
        return chosen(first, "silent")
    if not people:
        return None
    lobby = [a for a in everyone if a.in_lobby]
    watchers = [a for a in everyone if a.watching]

    def idle_since(a: Admitted) -> float:
        assert a.session is not None
        return a.session.last_active

    idle = [a for a in lobby + watchers if now - idle_since(a) >= idle_seconds]
    if idle:
        return chosen(min(idle, key=idle_since), "idle")

    churning = [a for a in lobby + watchers if opened.get(a.address, 0) >= CHURN]
    if churning:  # (the address opening most first, then its oldest)
        return chosen(min(churning, key=lambda a: (-opened.get(a.address, 0), a.since)), "churn")
    stayed = [a for a in lobby + watchers if now - a.age_from >= STAY]
    if stayed:
        return chosen(min(stayed, key=lambda a: a.age_from), "age")
    by_address: dict[str, list[Admitted]] = {}
    for a in everyone:
        by_address.setdefault(a.address, []).append(a)
    own = len(by_address.get(newcomer, ()))
    for held, theirs in sorted(
        ((len(theirs), theirs) for theirs in by_address.values()), key=lambda x: -x[0]
    ):
        if held < own + 2:
            return None
        for kind in ("in_lobby", "watching", "seated"):
            picked = [
                a
                for a in theirs
                if getattr(a, kind) and (held > HOUSEHOLD or kind != "seated" or not a.playing)
            ]
            if picked:
                return chosen(min(picked, key=idle_since), "address")
    return None

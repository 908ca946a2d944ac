"""The chairs of one table and who sits in them: people (connected or away, with their
seat tokens), server-side bots, and the spectators.  No clock, no journal, no game: the
table asks and journals what changed."""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from president.bots.strategies import Strategy, make_strategy, strategy_name
from president.protocol import messages as m
from president.protocol.errors import Code, ProtocolError

from .players import looks


class TableError(ProtocolError):
    """A refusal at a table: its code (`errors.Code`) and a sentence for the person."""


def seat_gone(words: str) -> m.Error:
    """What a person is told whose chair (or watching place) the server took back before
    the game began: an error about `ready` with the code `timeout`, on which a client
    puts itself back in the lobby (client/connection.py's `seat_lost`)."""
    return m.Error(code=Code.TIMEOUT, message=words, about=m.Ready.TYPE)


class Member(Protocol):
    """A connection as a table sees it."""

    name: str
    hand_key: bytes
    #: The id of the key the connection proved at hello ("" for none: protocol/identity.py).
    player_id: str
    #: Where the connection comes from.
    address: str

    def deliver(self, message: m.Message) -> None: ...

    def goodbye(self, bye: m.Bye) -> None:
        """Send `bye` after what is queued, then close the connection."""


@dataclass
class Slot:
    """A chair: empty, a person (maybe away), or a server-side bot."""

    name: str = ""
    member: Member | None = None
    bot: Strategy | None = None
    strategy: str = ""
    #: The seat token as given to the person (empty after a restart until they resume).
    token: bytes = b""
    #: SHA-256 of the token: what the journal keeps, and what a resume is checked against.
    token_hash: bytes = b""
    ready: bool = False
    #: When the person's connection went (None while connected, and for bots).
    away_since: float | None = None
    #: With no turn timer, the seconds the seat was away while it owed a move, since its
    #: last move of its own (a card of a due with more owed aside) or a deal it was here
    #: for: its grace period is counted over them all, not afresh at each drop (a guest
    #: who came back for a moment and went again at each of its turns held a table for
    #: ever), and only over them (time away while others played costs nothing).
    #: `owed_from`: since when it has been so now (None while here, or owing nothing).
    #: `Table._reckon_owed` keeps both.
    owed_away: float = 0.0
    owed_from: float | None = None
    #: At a table with a turn timer, the timeout rule played for the seat while it was
    #: away: its later turns are played for at once until its person is back (a closed
    #: window made every one of its turns a full turn time's wait for the others, for
    #: the rest of the game: a game-night pass).  Not journaled: a restart's window
    #: waits for everyone again.
    lapsed: bool = False
    #: At a table with a turn timer, how many of the seat's turns in a row its time ran
    #: out with its person here ("time"): each halves its next turn's time, down to
    #: `Table.turn_time`'s floor, until the person moves of their own (a hostile pass
    #: sat, stayed connected and never moved: a full minute at every one of its turns,
    #: for a whole game).  Not journaled: a restart gives it its whole time again once.
    idle_turns: int = 0
    #: At a table with a clock (the turn timer, or a nudge's), the seconds the person's
    #: next turn lacks of the whole time: what its moves of its own took beyond
    #: `Table.free_time` comes off, and each such move gives that much back
    #: (`Table.turn_time`; a hostile pass moved a second before every deadline, and
    #: each of its turns cost the others the whole turn time).  Not journaled.
    behind: float = 0.0
    #: The person left mid-game: the chair is freed when the hand ends.
    leaving: bool = False
    #: The address that added this bot (bots count against it, and only it or the
    #: table's creator removes the bot: journaled, so that a restart keeps that).
    added_by: str = ""
    #: The player key's id (protocol/identity.py `player_id`) of the person who sat
    #: here ("" for a bot, or a client without a key): that key takes the chair back.
    player_id: str = ""
    #: The address the person last sat or came back from (not journaled): a person
    #: moved out while away is barred from it too (`Table.unseat_unready`).
    address: str = ""
    #: The name and its looks (`players.looks`) when last asked: each hello compares its
    #: name with every chair's, more chairs than the looks' own cache keeps (a hostile
    #: pass filled 4,206 chairs: every hello then worked out every skeleton again).
    _looked: tuple[str, frozenset[str]] = field(
        default=("", frozenset()), repr=False, compare=False
    )

    def looks(self) -> frozenset[str]:
        """The looks of the name in this chair (`players.looks`)."""
        name, seen = self._looked
        if name != self.name:
            seen = looks(self.name)
            self._looked = (self.name, seen)
        return seen

    @property
    def empty(self) -> bool:
        return not self.name

    @property
    def present(self) -> bool:
        """Someone who can act is here: a connected person or a bot."""
        return self.member is not None or self.bot is not None

    def entry(self) -> dict[str, Any]:
        """What the journal keeps of a chair (not the connection: see restore.py)."""
        return {
            "name": self.name,
            "strategy": self.strategy,
            "token_sha256": self.token_hash.hex(),
            "ready": self.ready,
            "leaving": self.leaving,
            "player_id": self.player_id,
            **({"added_by": self.added_by} if self.added_by else {}),
        }

    @classmethod
    def from_entry(cls, body: dict[str, Any], away_since: float) -> Slot:
        """A chair as the journal kept it: a bot gets a fresh strategy object, a person is
        away (nobody is connected after a restart)."""
        name, strategy = body["name"], body["strategy"]
        if not name:
            return cls()
        if strategy:
            return cls(
                name=name,
                bot=make_strategy(strategy, random.Random(secrets.randbits(64))),
                strategy=strategy,
                ready=body["ready"],
                added_by=str(body.get("added_by", "")),  # (none in a journal from before)
            )
        if "token_sha256" in body:
            token_hash = bytes.fromhex(body["token_sha256"])
        else:  # a journal from before hashes
            token_hash = hashlib.sha256(bytes.fromhex(body["token"])).digest()
        return cls(
            name=name,
            token_hash=token_hash,
            ready=body["ready"],
            leaving=body["leaving"],
            away_since=away_since,
            player_id=str(body.get("player_id", "")),  # (none in a journal from before keys)
        )

    def to_wire(self) -> m.Chair:
        return m.Chair(
            name=self.name[:40], bot=self.strategy[:40], connected=self.present, ready=self.ready
        )


class Chairs:
    """The table's chairs, in order, and its spectators."""

    def __init__(self, slots: list[Slot], table: str) -> None:
        self.slots = slots
        self.table = table
        self.spectators: list[Member] = []

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.slots)

    def __len__(self) -> int:
        return len(self.slots)

    def entries(self) -> list[dict[str, Any]]:
        return [slot.entry() for slot in self.slots]

    # --- who is where ----------------------------------------------------------------

    def index_of(self, member: Member) -> int | None:
        for index, slot in enumerate(self.slots):
            if slot.member is member:
                return index
        return None

    def named(self, name: str) -> Slot:
        return next(slot for slot in self.slots if slot.name == name)

    def members(self) -> list[Member]:
        """Everyone connected here: seated people and spectators."""
        return [s.member for s in self.slots if s.member is not None] + list(self.spectators)

    def all_ready(self) -> bool:
        return all(not s.empty and s.ready for s in self.slots)

    def free(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if s.empty]

    # --- changes -----------------------------------------------------------------------

    def sit(self, member: Member, seat: int | None) -> Slot:
        """Seat a person in `seat` (or the first free chair), with a fresh seat token."""
        self.may_sit(member)
        if any(s.name == member.name for s in self.slots):
            raise TableError(
                Code.NOT_ALLOWED, f"someone called {member.name} already sits at {self.table}"
            )
        bot = self._bot_like(member.name)
        if bot is not None:  # (a hostile pass sat and chatted as heuristic‐bot‐1 so)
            raise TableError(
                Code.NOT_ALLOWED,
                f"a bot at {self.table} is called {bot.name}: come with another name to sit here",
            )
        seen = looks(member.name)
        alike = next((s for s in self.slots if s.name and s.looks() & seen), None)
        if alike is not None:  # (a second pass sat one key four times: random-bot-I, -l...)
            raise TableError(
                Code.NOT_ALLOWED, f"someone called {alike.name} already sits at {self.table}"
            )
        free = self.free()
        if not free:
            raise TableError(Code.TABLE_FULL, f"every seat at {self.table} is taken")
        if seat is None:
            seat = free[0]
        elif not 0 <= seat < len(self.slots):
            raise TableError(Code.NOT_ALLOWED, f"{self.table} has seats 0 to {len(self.slots) - 1}")
        elif not self.slots[seat].empty:
            raise TableError(Code.SEAT_TAKEN, f"seat {seat} at {self.table} is taken")
        token = secrets.token_bytes(32)
        slot = self.slots[seat] = Slot(
            name=member.name,
            member=member,
            token=token,
            token_hash=hashlib.sha256(token).digest(),
            player_id=member.player_id,
            address=member.address,
        )
        if member in self.spectators:
            self.spectators.remove(member)
        return slot

    def may_sit(self, member: Member) -> None:
        """Refused if `member` sits here already: told so before any password is asked
        of it (a password asked again, and a wrong one counted as a guess)."""
        if self.index_of(member) is not None:
            raise TableError(Code.NOT_ALLOWED, f"you already sit at {self.table}")

    def may_watch(self, member: Member) -> None:
        """Refused if `member` sits here or watches already: told so before any password
        is asked of it (a password asked again, and a wrong one counted as a guess)."""
        if self.index_of(member) is not None:
            raise TableError(Code.NOT_ALLOWED, "you sit at this table; leave your seat to watch")
        if member in self.spectators:
            raise TableError(Code.NOT_ALLOWED, f"you already watch {self.table}")

    def watch(self, member: Member) -> None:
        self.may_watch(member)
        bot = self._bot_like(member.name)
        if bot is not None:
            # (a watcher's chat under a server bot's name read as the bot's: hostile
            # passes posed as heuristic-bot-2 so, and as heuristic‐bot‐1 with other
            # hyphens: names compared as they look, TR39)
            raise TableError(
                Code.NOT_ALLOWED,
                f"a bot at {self.table} is called {bot.name}: come with another name to watch",
            )
        if member not in self.spectators:
            self.spectators.append(member)

    def _bot_like(self, name: str) -> Slot | None:
        """A server bot's chair whose name looks like `name` (TR39: `players.looks`)."""
        seen = looks(name)
        return next((s for s in self.slots if s.bot is not None and s.looks() & seen), None)

    def check_token(self, seat: int, token: bytes) -> Slot:
        """Chair `seat`, if `token` is its seat token (else `BAD_TOKEN`)."""
        slot = self.slots[seat] if 0 <= seat < len(self.slots) else Slot()
        if (
            slot.bot is not None
            or slot.empty
            or not hmac.compare_digest(slot.token_hash, hashlib.sha256(token).digest())
        ):
            raise TableError(Code.BAD_TOKEN, "that seat token does not match")
        return slot

    def claim(self, member: Member, seat: int, token: bytes) -> Slot:
        """A person takes their chair back with its token (from any connection)."""
        slot = self.check_token(seat, token)
        if self.index_of(member) is not None:  # one chair a connection, and one resume
            raise TableError(Code.NOT_ALLOWED, f"this connection already sits at {self.table}")
        slot.token = token
        if slot.member is not None and slot.member is not member:
            slot.member.goodbye(  # and closed: it holds nothing here any more
                m.Bye(code=Code.REPLACED, reason="your seat was resumed from another connection")
            )
        slot.member, slot.away_since, slot.address = member, None, member.address
        if member in self.spectators:  # watching, then back in the chair: one or the other
            self.spectators.remove(member)
        if member.name != slot.name:
            member.name = slot.name
        return slot

    def held_by_key(self, member: Member) -> int | None:
        """The chair held under `member`'s name by `member`'s player key, from another
        connection (a client that restarted, or dropped, or left mid-game), or None."""
        if not member.player_id:
            return None
        for index, slot in enumerate(self.slots):
            if (
                slot.name == member.name
                and slot.bot is None
                and slot.member is not member
                and hmac.compare_digest(slot.player_id, member.player_id)
            ):
                return index
        return None

    def reclaim(self, member: Member, seat: int) -> Slot:
        """The person takes chair `seat` (`held_by_key`) back by key, with a fresh seat
        token; a connection still in it is told it was replaced."""
        if self.index_of(member) is not None:
            raise TableError(Code.NOT_ALLOWED, f"this connection already sits at {self.table}")
        slot = self.slots[seat]
        slot.token = secrets.token_bytes(32)
        slot.token_hash = hashlib.sha256(slot.token).digest()
        if slot.member is not None:
            slot.member.goodbye(  # and closed: it holds nothing here any more
                m.Bye(code=Code.REPLACED, reason="your seat was taken back by your key elsewhere")
            )
        slot.member, slot.away_since, slot.address = member, None, member.address
        if member in self.spectators:
            self.spectators.remove(member)
        return slot

    def add_bot(self, strategy: str, seat: int | None) -> Slot:
        free = self.free()
        if seat is None:
            if not free:
                raise TableError(Code.TABLE_FULL, f"every seat at {self.table} is taken")
            seat = free[0]
        if not 0 <= seat < len(self.slots) or not self.slots[seat].empty:
            raise TableError(Code.SEAT_TAKEN, f"seat {seat} is not free")
        try:
            bot = make_strategy(strategy, random.Random(secrets.randbits(64)))
        except ValueError as exc:
            raise TableError(Code.NOT_ALLOWED, str(exc)) from None
        strategy = strategy_name(strategy)  # a level (hard) is seated as its strategy (search)
        taken = {s.name for s in self.slots}
        # (no bot named like anyone here, seated or watching: a hostile pass sat as
        # heuristic‐bot‐1, with other hyphens, before the bot came)
        seen = frozenset().union(
            *(s.looks() for s in self.slots if s.bot is None and s.name),
            *(looks(w.name) for w in self.spectators),
        )
        name = next(
            (
                f"{strategy}-bot-{i}"
                for i in range(1, 1000)
                if f"{strategy}-bot-{i}" not in taken and not looks(f"{strategy}-bot-{i}") & seen
            ),
            None,
        )
        if name is None:  # (watchers holding every such name: not a crash)
            raise TableError(Code.NOT_ALLOWED, f"no name is free for a {strategy} bot here")
        slot = self.slots[seat] = Slot(name=name, bot=bot, strategy=strategy, ready=True)
        return slot

    def remove_bot(self, seat: int) -> None:
        if not 0 <= seat < len(self.slots) or self.slots[seat].bot is None:
            raise TableError(Code.NOT_ALLOWED, f"there is no bot in seat {seat}")
        self.slots[seat] = Slot()

    def set_ready(self, member: Member, ready: bool) -> bool:
        """True if that changed the chair."""
        index = self.index_of(member)
        if index is None:
            raise TableError(Code.NOT_ALLOWED, f"you do not sit at {self.table}")
        changed = self.slots[index].ready != ready
        self.slots[index].ready = ready
        return changed

    def vacate(self, index: int) -> None:
        self.slots[index] = Slot()

    def free_away(self) -> bool:
        """Free the chairs of people not connected; True if any was."""
        freed = False
        for index, slot in enumerate(self.slots):
            if not slot.empty and slot.bot is None and slot.member is None:
                self.slots[index] = Slot()
                freed = True
        return freed

    def unready_absent(self) -> None:
        """Nobody who is not here may start a game by being ready (after a restart)."""
        for slot in self.slots:
            slot.ready = slot.bot is not None

"""Every message of protocol version 1: a frozen dataclass with a `type` tag,
`to_wire()` and `from_wire()`.  docs/PROTOCOL.md shows each with an example."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from .errors import RemoteProtocolError
from .schema import Items, Range, Scalar, Size, Text, from_fields, to_fields

#: Protocol versions this build speaks, newest last.
VERSIONS: tuple[int, ...] = (1,)

Name = Annotated[str, Text(1, 32)]
TableName = Annotated[str, Text(1, 40)]
Word = Annotated[str, Text(1, 40)]
Sentence = Annotated[str, Text(0, 500)]
ChatText = Annotated[str, Text(1, 500)]
Password = Annotated[str, Text(1, 64)]
CardText = Annotated[str, Text(2, 3)]
Cards = Annotated[tuple[CardText, ...], Items(0, 108)]
Key = Annotated[bytes, Size(32)]
Seed = Annotated[bytes, Size(32)]
Token = Annotated[bytes, Size(32)]
Sealed = Annotated[bytes, Size(1, 256)]
Seat = Annotated[int, Range(0, 11)]
Count = Annotated[int, Range(0, 2**31)]
Number = Annotated[int, Range(0, 2**53)]
Role = Literal["player", "bot", "spectator"]

MessageT = TypeVar("MessageT", bound="Message")
REGISTRY: dict[str, type[Message]] = {}


class Message:
    """A protocol message; subclasses are frozen dataclasses registered by `type`."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        fields: dict[str, Any] = to_fields(self)
        return {"type": self.TYPE, **fields}

    @staticmethod
    def from_wire(value: Any) -> Message:
        """The message a wire map holds; `RemoteProtocolError` if it is not a valid one."""
        if type(value) is not dict:
            raise RemoteProtocolError("bad_message", "a message is a map with a type")
        kind = value.get("type")
        cls = REGISTRY.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise RemoteProtocolError("unknown_message", f"there is no message type {kind!r}")
        message: Message = from_fields(cls, value, cls.TYPE)
        return message


def message(tag: str) -> Callable[[type[MessageT]], type[MessageT]]:
    def register(cls: type[MessageT]) -> type[MessageT]:
        cls.TYPE = tag
        REGISTRY[tag] = cls
        return cls

    return register


# --- records inside messages ----------------------------------------------------------


@dataclass(frozen=True)
class TableInfo:
    """One table in the lobby list."""

    name: TableName
    preset: Word
    #: The toggles changed from the preset, in words ("twos clear, bombs").
    changes: Sentence
    seats: Annotated[int, Range(3, 12)]
    #: Who sits in each seat ("" for an empty seat); bots are named "bot:STRATEGY".
    players: Annotated[tuple[Annotated[str, Text(0, 40)], ...], Items(3, 12)]
    status: Literal["waiting", "playing", "finished"]
    password: bool
    turn_seconds: Annotated[int, Range(0, 3600)]
    spectators: Count


@dataclass(frozen=True)
class SeatInfo:
    """One seat at a table, as every seat may see it.  During a game the seats are listed
    in this hand's seating order (RULES.md: seats may move between hands)."""

    name: Annotated[str, Text(0, 40)]
    cards: Annotated[int, Range(0, 108)]
    score: Count
    title: Annotated[str, Text(0, 20)]
    connected: bool
    ready: bool
    passed: bool


# --- the handshake --------------------------------------------------------------------


@message("hello")
@dataclass(frozen=True)
class Hello(Message):
    """Client to server, first: the versions it speaks, its name and role, and the
    X25519 public key its hand is sealed to."""

    versions: Annotated[tuple[Annotated[int, Range(1, 255)], ...], Items(1, 16)]
    name: Name
    role: Role
    hand_key: Key
    #: The server's password, when it has one.
    password: Password | None = None


@message("welcome")
@dataclass(frozen=True)
class Welcome(Message):
    version: Annotated[int, Range(1, 255)]
    server: Name


@message("reject")
@dataclass(frozen=True)
class Reject(Message):
    versions: Annotated[tuple[Annotated[int, Range(1, 255)], ...], Items(0, 16)]
    reason: Sentence


# --- either way -----------------------------------------------------------------------


@message("ping")
@dataclass(frozen=True)
class Ping(Message):
    nonce: Number


@message("pong")
@dataclass(frozen=True)
class Pong(Message):
    nonce: Number


@message("chat")
@dataclass(frozen=True)
class Chat(Message):
    """Client to server: say something; server to client: someone said it."""

    scope: Literal["lobby", "table"]
    text: ChatText
    sender: Annotated[str, Text(0, 40)] = ""


# --- lobby: client to server ----------------------------------------------------------


@message("list_tables")
@dataclass(frozen=True)
class ListTables(Message):
    pass


@message("create_table")
@dataclass(frozen=True)
class CreateTable(Message):
    name: TableName
    preset: Word
    toggles: Annotated[dict[Word, Scalar], Items(0, 32)]
    seats: Annotated[int, Range(3, 12)]
    password: Password | None = None
    turn_seconds: Annotated[int, Range(0, 3600)] = 60


@message("join")
@dataclass(frozen=True)
class Join(Message):
    table: TableName
    seat: Seat | None = None
    password: Password | None = None


@message("spectate")
@dataclass(frozen=True)
class Spectate(Message):
    table: TableName
    password: Password | None = None


@message("leave")
@dataclass(frozen=True)
class Leave(Message):
    pass


@message("add_bot")
@dataclass(frozen=True)
class AddBot(Message):
    table: TableName
    strategy: Word
    seat: Seat | None = None


@message("remove_bot")
@dataclass(frozen=True)
class RemoveBot(Message):
    table: TableName
    seat: Seat


@message("ready")
@dataclass(frozen=True)
class Ready(Message):
    ready: bool = True


@message("resume")
@dataclass(frozen=True)
class Resume(Message):
    """Take a seat back after a dropped connection, with its token."""

    table: TableName
    seat: Seat
    token: Token


# --- play: client to server -----------------------------------------------------------


@message("play")
@dataclass(frozen=True)
class PlayCards(Message):
    cards: Annotated[tuple[CardText, ...], Items(1, 12)]


@message("pass")
@dataclass(frozen=True)
class PassTurn(Message):
    pass


@message("return")
@dataclass(frozen=True)
class ReturnCards(Message):
    cards: Annotated[tuple[CardText, ...], Items(1, 2)]


@message("client_seed")
@dataclass(frozen=True)
class ClientSeed(Message):
    """A client's contribution to the next deal (after the server's commitment)."""

    hand: Number
    seed: Seed


@message("deal_check")
@dataclass(frozen=True)
class DealCheck(Message):
    """What a client found when it recomputed the deal from the revealed seeds."""

    hand: Number
    ok: bool
    detail: Sentence = ""


# --- server to client -----------------------------------------------------------------


@message("error")
@dataclass(frozen=True)
class Error(Message):
    code: Word
    message: Sentence
    #: The type of the message it answers, when there is one.
    about: Annotated[str, Text(0, 40)] = ""


@message("tables")
@dataclass(frozen=True)
class Tables(Message):
    tables: Annotated[tuple[TableInfo, ...], Items(0, 1024)]


@message("seated")
@dataclass(frozen=True)
class Seated(Message):
    """You sit in `seat` at `table`; keep `token` to take the seat back after a drop."""

    table: TableName
    seat: Seat
    token: Token


@message("table")
@dataclass(frozen=True)
class TableView(Message):
    """The public state of a table, after event `number`: what everyone there sees."""

    table: TableName
    number: Number
    phase: Word
    hand: Annotated[int, Range(-1, 2**31)]
    rules: Annotated[dict[Word, Scalar], Items(0, 32)]
    seats: Annotated[tuple[SeatInfo, ...], Items(3, 12)]
    turn: Seat | None
    dealer: Seat | None
    #: The plays of the trick in progress: (seat, cards), oldest first.
    trick: Annotated[tuple[tuple[Annotated[int, Range(0, 11)], Cards], ...], Items(0, 200)]
    revolution: bool
    #: Milliseconds left on the turn timer (0: no timer running).
    turn_deadline_ms: Annotated[int, Range(0, 3_600_000)]
    #: The next play must hold the 3C (the game's opening play).
    opening: bool = False
    #: Exchange returns still owed: (seat, number of cards).
    owed: Annotated[tuple[tuple[Annotated[int, Range(0, 11)], Annotated[int, Range(1, 2)]], ...], Items(0, 2)] = ()
    #: Names by place from the last hand (empty in the first hand).
    standing: Annotated[tuple[Annotated[str, Text(0, 40)], ...], Items(0, 12)] = ()
    hands_played: Count = 0


@message("event")
@dataclass(frozen=True)
class GameEvent(Message):
    """Something public happened at a table: a play, a pass, a trick won, a player out,
    the end of a hand or of the game.  `data` holds the event's fields."""

    table: TableName
    number: Number
    kind: Word
    data: Annotated[dict[Word, Scalar | tuple[Scalar, ...]], Items(0, 16)]


@message("hand")
@dataclass(frozen=True)
class SealedHand(Message):
    """Your cards, sealed to your hand key: after the deal, after the exchange, in a
    snapshot.  Only your key opens it, and only for this table, hand, seat and event."""

    table: TableName
    number: Number
    hand: Number
    seat: Seat
    sealed: Sealed
    #: Why it was sent: "deal", "exchange" or "snapshot".
    reason: Word


@message("commit")
@dataclass(frozen=True)
class DealCommit(Message):
    """SHA-256 of the server's seed for hand `hand`, before any client seed is sent."""

    table: TableName
    hand: Number
    digest: Seed


@message("reveal")
@dataclass(frozen=True)
class DealReveal(Message):
    """After the hand: the server's seed and every seed that went into the deal."""

    table: TableName
    hand: Number
    server_seed: Seed
    client_seeds: Annotated[tuple[Seed, ...], Items(0, 12)]
    dealer: Seat
    start: Seat
    players: Annotated[int, Range(3, 12)]


@message("bye")
@dataclass(frozen=True)
class Bye(Message):
    """The server is closing this connection, and why."""

    code: Word
    reason: Sentence

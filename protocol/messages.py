"""Every message of the protocol (versions 2 to 5): a frozen dataclass with a `type` tag,
`to_wire()` and `from_wire()`.  docs/PROTOCOL.md shows each with an example."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Final, Literal, TypeVar

from .codec import pack
from .errors import Code, RemoteProtocolError
from .schema import Items, Range, Scalar, Since, Size, Tagged, Text, from_fields, hints, to_fields

#: Protocol versions this build speaks, newest last.  Version 2 carries each game event
#: as a message of its own type and the table's public view as the engine's; version 3
#: adds `timeout` to `played`, `passed` and `returned` (`Connection.send` leaves it out
#: for a peer that speaks version 2 only: a field it does not know is an error to it).
#: Version 4 adds player keys: the server answers `hello` with a `challenge`, the client
#: proves its key with a `proof`, then `welcome` (protocol/identity.py).
#: Version 5 adds the variant rules (issue 16): the `handover` and `discard` actions, the
#: `handed_over`, `discarded` and `fell` events, and the fields of `TopPlay` and
#: `GameView` after `places`.  Version 6 adds the toggle nines_clear, version 7 the
#: toggle sixes_clear, version 8 the peers' local rules of issue 28 (sandstorm,
#: two_back, coup, nanasan_revolution, joker_revolution, assassination,
#: spade_two_return, queen_release, down_number, great_revolution, lucky_seven,
#: five_cut, six_cut, seven_cut, six_return, gekokujou, catastrophe, omen, step_lock,
#: colour_lock); version 9 the direction of play (the toggles nine_reverse,
#: queen_reverse, king_reverse and `GameView.backwards`), the toggles scaled_exchange
#: (exchanges of up to six cards and six pairs), emperor and four_stop, `hand_history`
#: (issue 27: the hand's public events so far, sent with a snapshot), and the preset
#: japanese; version 10 the dues that take a card of the cards played back into a hand
#: (the toggles salvage, kings_march and zombie, the `take` action, the `took` event,
#: `Due.cards`, `GameView.taken`) and the toggle queen_bomber (the `bomb` action, the
#: `bombed` event); version 11 `RatingEntry.provisional` (a player the ladder lists after
#: the established ones, whose rating is not yet settled); version 12 `game_results`
#: (the ended hands of the game, sent with a snapshot) and `chat_history` (the lobby's
#: last lines of chat, sent with the table list); version 13 `seen` on every action (the
#: event the client had seen when it chose: an answer to a turn the timer has since
#: played is refused as `stale`, not taken for the seat's next turn) and `nudge` /
#: `nudged` (a table with no turn timer is not held by a seat that never moves); version
#: 14 `TableView.watchers` and `TableView.watching` (who watches the table: everyone there
#: is told, as at a real table); version 15 `TableView.kept_ms` (a chair freed from
#: a person who held the table up is kept a while for the table's own bot: its players
#: are told so, and for how long); version 16 `TableView.turn_seconds` and
#: `TableView.turn_ms` (the table's turn time, and the running turn's: a player whose
#: turn has less is told why); version 17 `record_ask` / `game_record` (the record of a
#: game that has ended, for its players: was it the cards or the play, asked of a
#: server's game as of `president play`'s); version 18 `GameRecord.packed` (the record
#: sent compressed: a long game of twelve passed the pages' limit raw); version 19
#: `table_password` and `TableView.password` (a table's creator gives it a password, or
#: takes it away, at any time: a guest with many addresses sat in its last free chair
#: again and again, and kept the friend it waited for out).  A field or a
#: message type newer than version 2
#: says so where it is declared (`Since`, `SINCE`); a toggle or a preset, in
#: `RULES_SINCE`.  A peer never gets what its version lacks,
#: and is never let sit at or watch a table whose rules it does not know.
VERSIONS: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
#: The versions a peer lists (`hello.versions`, `reject.versions`, a LAN announcement's
#: `proto`): its newest 16, the most those lists hold, as a peer of every earlier version
#: reads them (a client offering all 17 of version 18 was refused by a server of 17:
#: "hello.versions: 17 items is outside 1..16").  It speaks the older ones when offered.
LISTED = 16
OFFERED: tuple[int, ...] = VERSIONS[-LISTED:]

Name = Annotated[str, Text(1, 32)]
TableName = Annotated[str, Text(1, 40)]
Word = Annotated[str, Text(1, 40)]
Sentence = Annotated[str, Text(0, 500)]
#: The most characters a line of chat holds.
CHAT_MOST = 500
ChatText = Annotated[str, Text(1, CHAT_MOST)]
#: The most characters a password holds.
PASSWORD_MOST = 64
Password = Annotated[str, Text(1, PASSWORD_MOST)]
CardText = Annotated[str, Text(2, 3)]
#: The cards of one play: a set holds at most 12 (two decks' naturals and jokers), a
#: sequence at most 13 (3 to 2 in one suit).
PlayedCards = Annotated[tuple[CardText, ...], Items(1, 13)]
#: A due's cards: as many as the 7s or 10s of the play that made it (at most 12).
DueCards = Annotated[tuple[CardText, ...], Items(1, 12)]
#: A suit: 0 clubs, 1 diamonds, 2 hearts, 3 spades.
Suit = Annotated[int, Range(0, 3)]
Cards = Annotated[tuple[CardText, ...], Items(0, 108)]
Key = Annotated[bytes, Size(32)]
Seed = Annotated[bytes, Size(32)]
Token = Annotated[bytes, Size(32)]
Sealed = Annotated[bytes, Size(1, 256)]
Seat = Annotated[int, Range(0, 11)]
SeatName = Annotated[str, Text(0, 40)]
Names = Annotated[tuple[Annotated[str, Text(1, 40)], ...], Items(0, 12)]
Count = Annotated[int, Range(0, 2**31)]
Number = Annotated[int, Range(0, 2**53)]
#: Version 13, on every action: the `number` of the last table event or view the client
#: had when it chose the action (0: not said, as a client of an older version).  The
#: server refuses it as `stale` if the timeout rule moved for the seat after that event,
#: or a new hand began: the turn it answered is gone.
Seen = Annotated[int, Range(0, 2**53), Since(13)]
Role = Literal["player", "bot", "spectator"]
#: Why the timeout rule made a move for a seat: "" it did not (the seat's own move, or
#: one a rule such as auto_pass made); "time" the turn timer ran out with its player at
#: the table; "away" its player's connection was gone past the turn time (or the grace
#: period); "left" its player left the table.
TimeoutReason = Literal["", "time", "away", "left"]

MessageT = TypeVar("MessageT", bound="Message")
REGISTRY: dict[str, type[Message]] = {}


class Message:
    """A protocol message; subclasses are frozen dataclasses registered by `type`."""

    TYPE: ClassVar[str] = ""
    #: The protocol version this type of message arrived in (1: from the start).
    SINCE: ClassVar[int] = 1

    def to_wire(self) -> dict[str, Any]:
        fields: dict[str, Any] = to_fields(self)
        return {"type": self.TYPE, **fields}

    @staticmethod
    def from_wire(value: Any) -> Message:
        """The message a wire map holds; `RemoteProtocolError` if it is not a valid one."""
        if type(value) is not dict:
            raise RemoteProtocolError(Code.BAD_MESSAGE, "a message is a map with a type")
        kind = value.get("type")
        if kind is None:
            raise RemoteProtocolError(Code.BAD_MESSAGE, "a message is a map with a type")
        cls = REGISTRY.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise RemoteProtocolError(Code.UNKNOWN_MESSAGE, f"there is no message type {kind!r}")
        try:
            message: Message = from_fields(cls, value, cls.TYPE)
        except RemoteProtocolError as error:
            error.about = cls.TYPE
            raise
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
    #: The toggles changed from the preset, for display: "toggle=value, ..." in the order
    #: of `table.rules` (e.g. "clear_rank=8, bombs=True").  Not to be parsed: read
    #: `table.rules` for the values.
    changes: Sentence
    seats: Annotated[int, Range(3, 12)]
    #: Who sits in each seat ("" for an empty seat); bots are named "bot:STRATEGY".
    players: Annotated[tuple[Annotated[str, Text(0, 40)], ...], Items(3, 12)]
    status: Literal["waiting", "playing", "finished"]
    password: bool
    turn_seconds: Annotated[int, Range(0, 3600)]
    spectators: Count


@dataclass(frozen=True)
class Chair:
    """One chair at a table as everyone there sees it, in the table's chair order."""

    #: Who sits there ("" for an empty chair).
    name: SeatName
    #: The strategy of a server-side bot ("" for a person or an empty chair).
    bot: Annotated[str, Text(0, 40)]
    connected: bool
    ready: bool


@dataclass(frozen=True)
class TopPlay:
    """The play to beat: its owner's seat and its shape."""

    owner: Seat
    rank: Annotated[int, Range(0, 13)]
    size: Annotated[int, Range(1, 13)]
    jokers: Annotated[int, Range(0, 4)]
    #: A sequence: `rank` is its lowest rank, `size` its length.
    run: Annotated[bool, Since(5)] = False
    #: The suits of its natural cards, sorted (filled under variant rules only).
    suits: Annotated[tuple[Suit, ...], Items(0, 13), Since(5)] = ()


@dataclass(frozen=True)
class Due:
    """What the seat whose turn it is owes before play goes on (version 5): `size` more
    cards to hand over (seven_pass) or to discard (ten_discard), paid one at a time; from
    version 10, to take from `cards`, the cards played that are out of play face up
    (salvage, kings_march, zombie), or `size` ranks to name (queen_bomber: "bomb")."""

    kind: Literal["handover", "discard", "salvage", "march", "zombie", "bomb"]
    size: Annotated[int, Range(1, 12)]
    cards: Annotated[Cards, Since(10)] = ()


@dataclass(frozen=True)
class GameView:
    """The game as everyone at the table sees it: the engine's `PublicView` on the wire
    (protocol/wire.py maps one to the other).  Seats are this hand's seating order."""

    hand: Annotated[int, Range(-1, 2**31)]
    phase: Literal["between_hands", "exchange", "play", "game_over"]
    seating: Annotated[tuple[Annotated[str, Text(1, 40)], ...], Items(3, 12)]
    dealer: Seat | None
    counts: Annotated[tuple[Annotated[int, Range(0, 108)], ...], Items(3, 12)]
    turn: Seat | None
    top: TopPlay | None
    #: The plays of the trick in progress: (seat, cards), oldest first.
    trick: Annotated[tuple[tuple[Seat, Cards], ...], Items(0, 200)]
    #: Every card played this hand, in order.
    played: Cards
    revolution: bool
    #: The next play must hold the 3C (the game's opening play).
    opening: bool
    passed: Annotated[tuple[bool, ...], Items(3, 12)]
    #: Seats out of this trick under passing = "locked".
    locked: Annotated[tuple[bool, ...], Items(3, 12)]
    finish_order: Annotated[tuple[Seat, ...], Items(0, 12)]
    #: Names by place from the last hand (empty in the first hand).
    standing: Names
    #: Each seat's score, by seat.
    scores: Annotated[tuple[Annotated[int, Range(-(2**31), 2**31)], ...], Items(3, 12)]
    #: Exchange returns still owed: (seat, number of cards); up to six pairs of up to six
    #: cards under scaled_exchange (version 9), one or two pairs of 1 or 2 before.
    owed: Annotated[tuple[tuple[Seat, Annotated[int, Range(1, 6)]], ...], Items(0, 6)]
    hands_played: Count
    winners: Names
    #: Per seat, the place it took this hand (0 = first), nil while it holds cards.
    places: Annotated[tuple[Annotated[int, Range(0, 11)] | None, ...], Items(3, 12)]
    #: A jack has reversed the order until the trick ends (jack_back).
    jack_back: Annotated[bool, Since(5)] = False
    #: The suits this trick is locked to, sorted; empty when it is not.
    lock: Annotated[tuple[Suit, ...], Items(0, 13), Since(5)] = ()
    #: What the seat whose turn it is owes before play goes on, or nil.
    due: Annotated[Due | None, Since(5)] = None
    #: Play goes anticlockwise for the rest of the hand (nine_reverse, queen_reverse,
    #: king_reverse turned it); clockwise when false.
    backwards: Annotated[bool, Since(9)] = False
    #: Version 10: the cards taken back into a hand this hand (salvage...), in order.
    taken: Annotated[Cards, Since(10)] = ()


# --- the handshake --------------------------------------------------------------------


@message("hello")
@dataclass(frozen=True)
class Hello(Message):
    """Client to server, first: the versions it speaks, its name and role, and the
    X25519 public key its hand is sealed to."""

    versions: Annotated[tuple[Annotated[int, Range(1, 255)], ...], Items(1, LISTED)]
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
    versions: Annotated[tuple[Annotated[int, Range(1, 255)], ...], Items(0, LISTED)]
    reason: Sentence


#: A `reject`'s reason when the server has a password and the `hello` gave none (a client
#: with a person at it asks for one) ...
NEEDS_PASSWORD = "this server needs a password"
#: ... and when the one given is not it.
WRONG_PASSWORD = "wrong server password"


# --- player keys (version 4): between hello and welcome --------------------------------


@message("challenge")
@dataclass(frozen=True)
class Challenge(Message):
    """Server to client, answering a `hello` that offered version 4 or later: the version
    chosen (the `welcome` to come says it again) and fresh random bytes for the client to
    sign with its player key (protocol/identity.py says what is signed)."""

    version: Annotated[int, Range(4, 255)]
    challenge: Annotated[bytes, Size(32)]


@message("proof")
@dataclass(frozen=True)
class Proof(Message):
    """Client to server, answering `challenge`: its Ed25519 public key (raw, 32 bytes)
    and its signature of the challenge bound to the server's certificate."""

    player_key: Key
    signature: Annotated[bytes, Size(64)]


#: A `reject`'s reason when the name of the `hello` belongs to another player's key here.
def name_taken(name: str) -> str:
    return (
        f"the name {name} belongs to another player on this server (another key claimed "
        "it first): choose another name, or connect with that player's identity file"
    )


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


#: The most lines of lobby chat a server keeps for who comes to the lobby later.
CHAT_KEPT = 20


@dataclass(frozen=True)
class ChatLine:
    """A line of lobby chat said before: who said it, and how long ago (whole seconds)."""

    sender: Annotated[str, Text(0, 40)]
    text: ChatText
    ago: Count


@message("chat_history")
@dataclass(frozen=True)
class ChatHistory(Message):
    """Version 12: the lobby's last lines of chat (at most `CHAT_KEPT`), oldest first,
    sent with the table list (`list_tables`) to a connection at no table: who comes to
    the lobby, or back to it from a table, reads what was said there meanwhile."""

    SINCE = 12

    lines: Annotated[tuple[ChatLine, ...], Items(0, CHAT_KEPT)]


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
    cards: PlayedCards
    seen: Seen = 0


@message("pass")
@dataclass(frozen=True)
class PassTurn(Message):
    seen: Seen = 0


@message("return")
@dataclass(frozen=True)
class ReturnCards(Message):
    cards: Annotated[tuple[CardText, ...], Items(1, 6)]
    seen: Seen = 0


@message("handover")
@dataclass(frozen=True)
class HandoverCards(Message):
    """Pay a due `handover` (version 5, seven_pass): these cards go to the next seat
    holding cards."""

    SINCE = 5

    cards: DueCards
    seen: Seen = 0


@message("discard")
@dataclass(frozen=True)
class DiscardCards(Message):
    """Pay a due `discard` (version 5, ten_discard): these cards leave the game face up."""

    SINCE = 5

    cards: DueCards
    seen: Seen = 0


@message("take")
@dataclass(frozen=True)
class TakeCards(Message):
    """Pay a due `salvage`, `march` or `zombie` (version 10): this card of the due's
    `cards` goes into a hand (the next seat's for `zombie`), face up for everyone."""

    SINCE = 10

    cards: DueCards
    seen: Seen = 0


@message("bomb")
@dataclass(frozen=True)
class BombRank(Message):
    """Pay a due `bomb` (version 10, queen_bomber): name this rank (0 the 3s ... 12 the
    2s); every seat still holding cards discards all its cards of it, face up."""

    SINCE = 10

    rank: Annotated[int, Range(0, 12)]
    seen: Seen = 0


@message("nudge")
@dataclass(frozen=True)
class Nudge(Message):
    """Version 13: at a table with no turn timer, hurry the seats that owe a move (not
    your own): the timer runs for them for the server's nudge time, then the timeout
    rule moves for them.  Everyone at the table is told (`nudged`).  `seen`: the last
    event the client had (0: not said); if the table has moved since, the nudge is
    refused rather than hurrying a seat the player did not see waited for."""

    SINCE = 13

    seen: Number = 0


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
    #: One of the codes in `errors.Code` (docs/PROTOCOL.md lists them).
    code: Word
    message: Sentence
    #: The type of the message it answers, when there is one.
    about: Annotated[str, Text(0, 40)] = ""


@message("tables")
@dataclass(frozen=True)
class Tables(Message):
    """One page of the lobby's table list (the answer to `list_tables`): page 0 starts
    the list afresh, `more` says another page follows.  Each page is cut to
    `PAGE_BYTES`, so no number of tables makes a frame too large."""

    tables: Annotated[tuple[TableInfo, ...], Items(0, 1024)]
    page: Count = 0
    more: bool = False


@message("table_info")
@dataclass(frozen=True)
class TableChanged(Message):
    """One table of the lobby list is new or has changed (sent to the lobby)."""

    info: TableInfo


@message("table_gone")
@dataclass(frozen=True)
class TableGone(Message):
    """A table has been removed from the lobby list."""

    table: TableName


#: The most bytes of table entries one `tables` page carries (a frame holds 64 KiB).
PAGE_BYTES = 16 * 1024


def table_pages(infos: Sequence[TableInfo]) -> list[Tables]:
    """The table list as `tables` pages, each under `PAGE_BYTES` of entries (always at
    least one page, so an empty list is said too)."""
    pages: list[list[TableInfo]] = [[]]
    size = 0
    for info in infos:
        cost = len(pack(to_fields(info)))
        if pages[-1] and size + cost > PAGE_BYTES:
            pages.append([])
            size = 0
        pages[-1].append(info)
        size += cost
    return [
        Tables(tables=tuple(page), page=index, more=index < len(pages) - 1)
        for index, page in enumerate(pages)
    ]


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
    status: Literal["waiting", "playing", "finished"]
    #: The rules: {"preset": NAME, toggle: value, ...} for the toggles changed.
    rules: Annotated[dict[Word, Scalar], Items(1, 33)]
    chairs: Annotated[tuple[Chair, ...], Items(3, 12)]
    #: Milliseconds left on the turn timer (0: no timer running).
    turn_deadline_ms: Annotated[int, Range(0, 3_600_000)]
    #: The game, once one has started at this table.
    game: GameView | None = None
    #: Version 14: how many people watch the table, and the names of the first twelve of
    #: them to come (the oldest first).
    watchers: Annotated[Count, Since(14)] = 0
    watching: Annotated[Names, Since(14)] = ()
    #: Version 15: milliseconds left while a chair just freed from a person who held the
    #: table up (not ready in time, or gone while not ready) is kept for a bot the
    #: table's own players add: meanwhile a newcomer from another machine is refused
    #: (0: no chair kept).
    kept_ms: Annotated[int, Range(0, 3_600_000), Since(15)] = 0
    #: Version 16: the table's turn time in seconds (0: no turn timer).  A seat's turn
    #: may have less (`turn_deadline_ms`): its time ran out, or its moves took long.
    turn_seconds: Annotated[int, Range(0, 3600), Since(16)] = 0
    #: Version 16: the whole time in milliseconds the running clock began with (the
    #: turn's, or a nudge's: what `turn_deadline_ms` counts down from; 0 when none runs,
    #: or when it is not known, after a restart).
    turn_ms: Annotated[int, Range(0, 3_600_000), Since(16)] = 0
    #: Version 19: whoever sits down or comes to watch gives a password
    #: (`table_password` may give the table one, or take it away, after it is made).
    password: Annotated[bool, Since(19)] = False


@message("nudged")
@dataclass(frozen=True)
class Nudged(Message):
    """Version 13: `by` hurried `seats` at `table`: they have `seconds` to move (the
    `table`'s `turn_deadline_ms` counts them down), then the timeout rule moves for them."""

    SINCE = 13

    table: TableName
    by: Annotated[str, Text(1, 40)]
    seats: Annotated[tuple[Seat, ...], Items(1, 12)]
    seconds: Annotated[int, Range(1, 3600)]


# --- game events: server to client, one type each (the engine's events, public face) ---


@dataclass(frozen=True)
class TableEvent(Message):
    """Something public happened at a table; `number` orders it among the table's events."""

    table: TableName
    number: Number


@message("hand_started")
@dataclass(frozen=True)
class HandStarted(TableEvent):
    hand: Number
    seating: Annotated[tuple[Annotated[str, Text(1, 40)], ...], Items(3, 12)]
    dealer: Seat


@message("gave")
@dataclass(frozen=True)
class Gave(TableEvent):
    """The exchange's forced give; the cards are only in the two seats' sealed hands."""

    giver: Seat
    receiver: Seat
    size: Annotated[int, Range(0, 6)]


@message("returned")
@dataclass(frozen=True)
class Returned(TableEvent):
    giver: Seat
    receiver: Seat
    size: Annotated[int, Range(0, 6)]
    automatic: bool
    timeout: Annotated[TimeoutReason, Since(3)] = ""


@message("exchange_done")
@dataclass(frozen=True)
class ExchangeDone(TableEvent):
    pass


@message("played")
@dataclass(frozen=True)
class Played(TableEvent):
    seat: Seat
    cards: PlayedCards
    clears: bool
    revolution: bool
    #: The timeout rule played for the seat, and why (version 3).
    timeout: Annotated[TimeoutReason, Since(3)] = ""


@message("passed")
@dataclass(frozen=True)
class Passed(TableEvent):
    """A pass: chosen, or made for the seat (`automatic`: by the auto_pass rule;
    `timeout`: by the timeout rule, and why)."""

    seat: Seat
    automatic: bool
    timeout: Annotated[TimeoutReason, Since(3)] = ""


@message("skipped")
@dataclass(frozen=True)
class Skipped(TableEvent):
    seat: Seat


@message("trick_ended")
@dataclass(frozen=True)
class TrickEnded(TableEvent):
    winner: Seat
    leader: Seat


@message("went_out")
@dataclass(frozen=True)
class WentOut(TableEvent):
    seat: Seat
    #: 0 = first out.
    place: Annotated[int, Range(0, 11)]


@message("handed_over")
@dataclass(frozen=True)
class HandedOver(TableEvent):
    """Version 5 (seven_pass): a seat paid its due by handing `size` cards to the next
    seat holding cards; which cards, only the two seats' sealed hands say."""

    SINCE = 5

    giver: Seat
    receiver: Seat
    size: Annotated[int, Range(1, 12)]
    timeout: TimeoutReason = ""


@message("discarded")
@dataclass(frozen=True)
class Discarded(TableEvent):
    """Version 5 (ten_discard): a seat paid its due by discarding these cards, face up."""

    SINCE = 5

    seat: Seat
    cards: DueCards
    timeout: TimeoutReason = ""


@message("took")
@dataclass(frozen=True)
class Took(TableEvent):
    """Version 10 (salvage, kings_march, zombie): `seat` paid its due by taking these
    cards of the cards played (public) into `receiver`'s hand (its own; under zombie the
    next seat's)."""

    SINCE = 10

    seat: Seat
    receiver: Seat
    cards: DueCards
    timeout: TimeoutReason = ""


@message("bombed")
@dataclass(frozen=True)
class Bombed(TableEvent):
    """Version 10 (queen_bomber): `seat` named `rank`; the `discarded` that follow are
    every seat's cards of it."""

    SINCE = 10

    seat: Seat
    rank: Annotated[int, Range(0, 12)]
    timeout: TimeoutReason = ""


@message("fell")
@dataclass(frozen=True)
class Fell(TableEvent):
    """Version 5 (capital_fall): the President did not go out first and takes `place`,
    the lowest free one, at once; its cards are out of play for the hand."""

    SINCE = 5

    seat: Seat
    place: Annotated[int, Range(0, 11)]


@message("hand_over")
@dataclass(frozen=True)
class HandOver(TableEvent):
    hand: Number
    #: Names by place.
    finish: Annotated[tuple[Annotated[str, Text(1, 40)], ...], Items(3, 12)]
    #: Points by place.
    points: Annotated[tuple[Annotated[int, Range(-(2**31), 2**31)], ...], Items(3, 12)]


@message("game_over")
@dataclass(frozen=True)
class GameOver(TableEvent):
    winners: Names


#: The most events one `hand_history` page carries (a long hand takes several pages),
#: and the most pages of one hand: a hand has at most a few thousand public events (108
#: cards, each played at most twice as a card comes back once a hand, one play at a
#: time, each answered by up to 11 passes, and the dues they leave), 64 pages hold
#: 8,192.  A client drops a history of more pages.
HISTORY_PAGE = 128
HISTORY_PAGES = 64


@message("hand_history")
@dataclass(frozen=True)
class HandHistory(Message):
    """Version 9: what was public of hand `hand` before a snapshot: its events so far,
    each the very message that was sent, with its number (a page of them: page 0 starts
    the history afresh, the last has `more` false).  Sent with a snapshot (join, watch,
    resume) during the exchange or the play, before its `table`."""

    SINCE = 9

    table: TableName
    hand: Number
    page: Count
    more: bool
    events: Annotated[tuple[Annotated[TableEvent, Tagged(REGISTRY)], ...], Items(0, HISTORY_PAGE)]


#: The most hands one `game_results` page carries (each at most about 2 KB: twelve names
#: of forty characters, which may take four bytes each), and the most a table sends: the
#: latest hands of a longer game are sent, the earlier ones are not.
RESULTS_PAGE = 24
RESULTS_PAGES = 5
RESULTS_SENT = RESULTS_PAGES * RESULTS_PAGE


@dataclass(frozen=True)
class HandResult:
    """One ended hand of the game, as its `hand_over` said it (without its number)."""

    hand: Number
    #: Names by place.
    finish: Annotated[tuple[Annotated[str, Text(1, 40)], ...], Items(3, 12)]
    #: Points by place.
    points: Annotated[tuple[Annotated[int, Range(-(2**31), 2**31)], ...], Items(3, 12)]


@message("game_results")
@dataclass(frozen=True)
class GameResults(Message):
    """Version 12: the hands of the table's game that have ended, oldest first, sent with
    a snapshot (join, watch, resume) while a game is there (in play, between hands or
    over), before the hand's history and the `table`: so who comes in late knows every
    hand's places and points, as those there were told them by `hand_over`.  A page of
    them: page 0 starts the game's results afresh (they replace any held), the last has
    `more` false; a game with no hand ended yet sends one empty page.  Only the latest
    `RESULTS_SENT` hands are sent."""

    SINCE = 12

    table: TableName
    page: Count
    more: bool
    hands: Annotated[tuple[HandResult, ...], Items(0, RESULTS_PAGE)]


#: The most bytes of a record one `game_record` page carries (a bin value's most, on the
#: wire: protocol/codec.py), and the most pages of one record: a longer record stays with
#: the host (one answer does not fill a connection's queue).  A classic game to 11 points
#: is about 40 KB.
RECORD_PAGE = 4096
RECORD_PAGES = 48
#: The most bytes of a record sent `packed` (version 18), unpacked: a client unpacks no
#: more (a hostile server's few kilobytes that would unpack to gigabytes; and a record
#: of 3.3 MB, a game of twelve to 100 points, took 9 s and 420 MB to view).
RECORD_UNPACKED = 2 * 1024 * 1024


@message("record_ask")
@dataclass(frozen=True)
class RecordAsk(Message):
    """Version 17, client to server: the record of the game that last ended at `table`
    (docs/records.md), for one of its players; answered with `game_record` pages, or an
    error that says why not."""

    SINCE = 17

    table: TableName


@message("table_password")
@dataclass(frozen=True)
class TablePassword(Message):
    """Version 19, client to server: the creator of `table` gives it this password, or
    with none takes its password away, at any time; whoever sits down or comes to watch
    from then on gives the password (those there already stay, and a player takes their
    own chair back by their key, as ever).  Answered by the `table` view (`password`)."""

    SINCE = 19

    table: TableName
    password: Password | None = None


@message("game_record")
@dataclass(frozen=True)
class GameRecord(Message):
    """Version 17: a page of the record asked for with `record_ask`, its JSON's UTF-8
    bytes (page 0 first, the last has `more` false); `name` is the record's file name in
    the host's `records/`.  A client drops a record of more than `RECORD_PAGES` pages.
    `packed` (version 18, the same on every page): the pages' bytes, joined, are the
    record compressed by zlib (RFC 1950), at most `RECORD_UNPACKED` bytes unpacked."""

    SINCE = 17

    table: TableName
    name: Annotated[str, Text(1, 200)]
    page: Annotated[int, Range(0, RECORD_PAGES - 1)]
    more: bool
    data: Annotated[bytes, Size(1, RECORD_PAGE)]
    packed: Annotated[bool, Since(18)] = False


def pages_most(kind: type[HandHistory | GameResults]) -> int:
    """The most pages a server sends of one `hand_history` or `game_results`."""
    return HISTORY_PAGES if kind is HandHistory else RESULTS_PAGES


#: The protocol version each toggle and preset of the rules arrived in: a peer of an
#: older version is never let sit at or watch a table whose wire rules name a newer one
#: (docs/PROTOCOL.md, "What a new toggle owes the protocol").  Every toggle and preset
#: of the engine is here (a test holds them equal): a new one takes the next version.
RULES_SINCE: dict[str, int] = {
    # version 2: the base game's toggles and the five presets of the rulebooks
    "decks": 2,
    "jokers": 2,
    "joker_mode": 2,
    "dealer": 2,
    "deal_from_president": 2,
    "seat_order": 2,
    "passing": 2,
    "auto_pass": 2,
    "twos_clear": 2,
    "clear_rank": 2,
    "bombs": 2,
    "revolution": 2,
    "equal_plays": 2,
    "must_beat": 2,
    "two_finish_penalty": 2,
    "exchange": 2,
    "auto_return": 2,
    "first_lead": 2,
    "later_lead": 2,
    "scoring": 2,
    "target": 2,
    "rounds": 2,
    "title_scum": 2,
    "classic": 2,
    "full": 2,
    "house": 2,
    "sheet": 2,
    "table": 2,
    # version 5: the variants and the Daifugo family (issue 16)
    "transparent_threes": 5,
    "suit_ranking": 5,
    "one_time_around": 5,
    "sequences": 5,
    "suit_lock": 5,
    "jack_back": 5,
    "five_skip": 5,
    "seven_pass": 5,
    "ten_discard": 5,
    "spade_three": 5,
    "capital_fall": 5,
    "forbidden_finishes": 5,
    "daifugo": 5,
    # version 6
    "nines_clear": 6,
    # version 7
    "sixes_clear": 7,
    # version 8 (issue 28: the peers' local rules)
    "sandstorm": 8,
    "two_back": 8,
    "coup": 8,
    "nanasan_revolution": 8,
    "joker_revolution": 8,
    "assassination": 8,
    "spade_two_return": 8,
    "queen_release": 8,
    "down_number": 8,
    "great_revolution": 8,
    "lucky_seven": 8,
    "five_cut": 8,
    "six_cut": 8,
    "seven_cut": 8,
    "six_return": 8,
    "gekokujou": 8,
    "catastrophe": 8,
    "omen": 8,
    "step_lock": 8,
    "colour_lock": 8,
    # version 9 (issue 28: the direction of play, the scaled exchange, emperor, 4-stop)
    "nine_reverse": 9,
    "queen_reverse": 9,
    "king_reverse": 9,
    "scaled_exchange": 9,
    "emperor": 9,
    "four_stop": 9,
    "japanese": 9,  # the preset of the Daifugo apps' common set
    # version 10 (issue 28: the dues that take a card of the cards played)
    "salvage": 10,
    "kings_march": 10,
    "zombie": 10,
    "queen_bomber": 10,
}


def rules_unknown(wired: dict[str, Any], version: int) -> list[str]:
    """The toggles and the preset of a table's wire rules (`{"preset": NAME, toggle:
    value...}`) that a peer of `version` does not know, in the order they are named."""
    names = [wired.get("preset", "classic"), *(k for k in wired if k != "preset")]
    # (a name the protocol does not list is newer than every version)
    return [name for name in names if RULES_SINCE.get(name, max(VERSIONS) + 1) > version]


#: Per record type: (field, the version it arrived in, the record type inside it, if any).
_PLANS: dict[type, list[tuple[str, int, type | None]]] = {}


def _plan(cls: type) -> list[tuple[str, int, type | None]]:
    plan = _PLANS.get(cls)
    if plan is None:
        plan = []
        for name, hint in hints(cls).items():
            if name in ("TYPE", "SINCE"):
                continue
            since = max((x.version for x in _extras(hint) if isinstance(x, Since)), default=1)
            plan.append((name, since, _record_in(hint)))
        _PLANS[cls] = plan = [step for step in plan if step[1] > 1 or step[2] is not None]
    return plan


def _extras(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) is typing.Annotated:
        return typing.get_args(hint)[1:]
    return ()


def _record_in(hint: Any) -> type | None:
    """The record (a dataclass) a field holds, alone, optional or in a tuple."""
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return hint
    for arg in typing.get_args(hint):
        found = _record_in(arg)
        if found is not None:
            return found
    return None


def for_version(wired: dict[str, Any], cls: type, version: int) -> dict[str, Any]:
    """A record's wire map as a peer of `version` reads it: without the fields newer
    than its version, in the record and every record inside it (changed in place)."""
    for name, since, inner in _plan(cls):
        if since > version:
            wired.pop(name, None)
            continue
        value = wired.get(name)
        if inner is None or value is None:
            continue
        if isinstance(value, dict):
            for_version(value, _tagged_as(value, inner), version)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, dict):
                    for_version(item, _tagged_as(item, inner), version)
    return wired


def _tagged_as(wired: dict[str, Any], inner: type) -> type:
    """The type of a record inside a message: a message inside one (a `hand_history`'s
    events) is the type its tag names."""
    if issubclass(inner, Message):
        return REGISTRY.get(wired.get("type", ""), inner)
    return inner


def is_versioned(cls: type) -> bool:
    """Whether some field of the record (or of one inside it) is newer than version 2."""
    return any(
        since > 2 or (inner is not None and any(map(is_versioned, _kinds(inner))))
        for _, since, inner in _plan(cls)
    )


def _kinds(inner: type) -> list[type]:
    """The record types a field of type `inner` may hold: a message type, any of its
    registered subclasses (told apart by their tags)."""
    if issubclass(inner, Message):
        return [kind for kind in REGISTRY.values() if issubclass(kind, inner)]
    return [inner]


@message("hand")
@dataclass(frozen=True)
class SealedHand(Message):
    """Your cards and your part of the exchange, sealed to your hand key: after the deal,
    after the exchange, in a snapshot.  Only your key opens it, and only for this table,
    hand, seat and event."""

    table: TableName
    number: Number
    hand: Number
    seat: Seat
    sealed: Sealed
    #: Why it was sent: "deal", "exchange", "handover" or "snapshot".
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


# --- the ladder (issue 15): ratings and the leaderboard ----------------------------------

Signed = Annotated[int, Range(-(2**31), 2**31)]


@dataclass(frozen=True)
class Office:
    """A title on a player's record: hands begun holding it, and of those, hands that
    ended with it again."""

    title: Word
    held: Count
    kept: Count


#: A player no hand has rated yet, as the wire gives it (mu, sigma: OpenSkill's defaults
#: times 60, server/ratings.py's): the shown rating, mu - 3 sigma, is 0, which a screen
#: says as "unrated", not as a rating of zero (a player's pass read "rating 0?" at their
#: seat, among server bots, which rate nobody, as "you are rated zero").
UNRATED: Final = (1500, 500)


@dataclass(frozen=True)
class RatingEntry:
    """One player on the server's ladder."""

    name: Annotated[str, Text(1, 40)]
    #: The place on the ladder, from 1.
    place: Count
    #: The shown rating: mu - 3 sigma, rounded.
    rating: Signed
    mu: Signed
    sigma: Count
    hands: Count
    games: Count
    wins: Count
    #: Hands finished in each place: first, second, ...
    places: Annotated[tuple[Count, ...], Items(0, 12)]
    points: Signed
    offices: Annotated[tuple[Office, ...], Items(0, 16)]
    #: Not yet established (docs/ratings.md): listed after every established player, and
    #: its rating not settled.  Version 11.
    provisional: Annotated[bool, Since(11)] = False

    @property
    def unrated(self) -> bool:
        """No hand has rated the player yet (`UNRATED`): provisional, at the newcomer's
        mu and sigma."""
        return self.provisional and (self.mu, self.sigma) == UNRATED


@message("leaderboard")
@dataclass(frozen=True)
class Leaderboard(Message):
    """Client to server: `count` entries of the ladder from place `start + 1`, or, with
    `players`, the entries of the players of those names."""

    start: Count = 0
    count: Annotated[int, Range(1, 50)] = 20
    players: Names = ()


@message("ratings")
@dataclass(frozen=True)
class Ratings(Message):
    """The answer to `leaderboard`: `total` players are on the ladder."""

    start: Count
    total: Count
    entries: Annotated[tuple[RatingEntry, ...], Items(0, 50)]
    #: The `players` asked for (empty: this is a page of the ladder).
    players: Names = ()

"""`Connection`: one side of a protocol conversation, without I/O (after h11).
Feed it bytes with `receive_data`, take messages with `next_event`, turn messages into
bytes with `send`.  It enforces framing, limits, the schema, who may send what, and
the handshake (`hello` first, then `welcome` or `reject`; from version 4 the server may
first send one `challenge`, which the client answers with one `proof`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

from . import messages as m
from .codec import pack, unpack
from .errors import Code, LocalProtocolError, RemoteProtocolError
from .framing import MAX_FRAME, FrameReader, encode_frame

Side = Literal["client", "server"]

#: What each side may send once the handshake is done.
CLIENT_SENDS: frozenset[type[m.Message]] = frozenset(
    {
        m.Ping,
        m.Pong,
        m.Chat,
        m.ListTables,
        m.CreateTable,
        m.Join,
        m.Spectate,
        m.Leave,
        m.AddBot,
        m.RemoveBot,
        m.Ready,
        m.Resume,
        m.PlayCards,
        m.PassTurn,
        m.ReturnCards,
        m.HandoverCards,  # the variant rules (version 5)
        m.DiscardCards,
        m.TakeCards,  # the takes (version 10)
        m.BombRank,
        m.Nudge,  # a table with no turn timer (version 13)
        m.ClientSeed,
        m.DealCheck,
        m.Leaderboard,  # the ladder (issue 15)
        m.RecordAsk,  # a game's record, for its players (version 17)
        m.TablePassword,  # a table's password, from its creator (version 19)
    }
)
SERVER_SENDS: frozenset[type[m.Message]] = frozenset(
    {
        m.Ping,
        m.Pong,
        m.Chat,
        m.Error,
        m.Tables,
        m.TableChanged,
        m.TableGone,
        m.Seated,
        m.TableView,
        m.SealedHand,
        m.DealCommit,
        m.DealReveal,
        m.Bye,
        m.Ratings,  # the ladder (issue 15)
        m.HandHistory,  # a hand's events so far, with a snapshot (version 9)
        m.GameResults,  # the game's ended hands, with a snapshot (version 12)
        m.ChatHistory,  # the lobby's last lines of chat, with the table list (version 12)
        m.Nudged,  # a nudge, told to the table (version 13)
        m.GameRecord,  # a game's record, for its players (version 17)
        *(kind for kind in m.REGISTRY.values() if issubclass(kind, m.TableEvent)),
    }
)


def choose_version(offered: Sequence[int], supported: Sequence[int] = m.VERSIONS) -> int | None:
    """The newest version both sides speak, or None."""
    common = set(offered) & set(supported)
    return max(common) if common else None


#: The message types whose wire form depends on the version chosen: some of their fields
#: are newer than some versions (`messages.Since`), and are left out for those.
_VERSIONED = frozenset(cls for cls in m.REGISTRY.values() if m.is_versioned(cls))
#: The last few messages encoded, and their frames by the version they were made for: a
#: broadcast sends one message object to many connections, and a table sends the same
#: `hand_history` pages to each member who comes mid-hand (messages are immutable).  By
#: the message's id, the message kept with its frames (so the id is not reused).
_recent: dict[int, tuple[m.Message, dict[int, bytes]]] = {}
RECENT_FRAMES = 16


def _wire_for(message: m.Message, version: int) -> dict[str, object]:
    """`message.to_wire()` as a peer of `version` reads it: without the fields that
    version does not have."""
    return m.for_version(message.to_wire(), type(message), version)


def _encoded(message: m.Message, limit: int, version: int | None) -> bytes:
    """A message's frame in `version` (a peer gets no field newer than its version)."""
    era = max(m.VERSIONS) if version is None or type(message) not in _VERSIONED else version
    known = _recent.get(id(message))
    if known is None or known[0] is not message:
        if len(_recent) >= RECENT_FRAMES:
            del _recent[next(iter(_recent))]  # the oldest
        known = _recent[id(message)] = (message, {})
    frames = known[1]
    frame = frames.get(era)
    if frame is None:
        frame = frames[era] = encode_frame(pack(_wire_for(message, era)), limit)
    return frame


class Connection:
    """One end of a conversation: `Connection("server")` or `Connection("client")`."""

    def __init__(self, side: Side, limit: int = MAX_FRAME) -> None:
        self.side = side
        self.state: Literal["handshake", "open", "closed"] = "handshake"
        self.version: int | None = None
        self._reader = FrameReader(limit)
        self._limit = limit
        self._hello_seen = False
        self._hello_sent = False
        #: The player-key exchange (version 4): challenge sent or received, proof sent
        #: or received.
        self._challenged = False
        self._proved = False

    # --- receiving --------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Take bytes from the peer.  They are kept as they came and decoded one message
        at a time by `next_event`, so a read of many tiny frames is never decoded at
        once (the caller paces them); problems surface from `next_event`, in order."""
        if self.state == "closed":
            return
        self._reader.add(data)

    def next_event(self) -> m.Message | None:
        """The next message received, None when there is none yet; raises
        `RemoteProtocolError` for a bad one (the ones after it are still there)."""
        try:
            body = self._reader.next_body()
        except RemoteProtocolError:
            self.state = "closed"
            raise
        if body is None:
            return None
        message = m.Message.from_wire(unpack(body))
        try:
            return self._accept(message)
        except RemoteProtocolError as error:
            error.about = message.TYPE
            raise

    @property
    def pending(self) -> int:
        """Bytes received and not yet taken as messages."""
        return self._reader.pending

    def events(self) -> Iterator[m.Message]:
        while (event := self.next_event()) is not None:
            yield event

    def _accept(self, message: m.Message) -> m.Message:
        kind = type(message)
        if self.side == "server":
            if kind is m.Hello:
                if self._hello_seen:
                    raise RemoteProtocolError(Code.HANDSHAKE, "hello was already said")
                self._hello_seen = True
                return message
            if not self._hello_seen:
                raise RemoteProtocolError(Code.HANDSHAKE, f"say hello first, not {message.TYPE}")
            if kind is m.Proof or (self._challenged and not self._proved):
                if kind is not m.Proof or not self._challenged or self._proved:
                    raise RemoteProtocolError(
                        Code.HANDSHAKE, f"answer the challenge with one proof, not {message.TYPE}"
                    )
                self._proved = True
                return message
            if kind not in CLIENT_SENDS:
                raise RemoteProtocolError(
                    Code.NOT_ALLOWED, f"a client does not send {message.TYPE}"
                )
            return self._in_version(message)
        if self.state == "handshake":
            if kind is m.Welcome:
                self.state = "open"
                self.version = message.version  # type: ignore[attr-defined]
            elif kind is m.Reject:
                self.state = "closed"
            elif kind is m.Challenge and not self._challenged:
                self._challenged = True
            elif kind not in (m.Error, m.Bye):
                raise RemoteProtocolError(Code.HANDSHAKE, f"expected welcome, not {message.TYPE}")
            return message
        if kind not in SERVER_SENDS:
            raise RemoteProtocolError(Code.NOT_ALLOWED, f"a server does not send {message.TYPE}")
        return self._in_version(message)

    def _in_version(self, message: m.Message) -> m.Message:
        """`message`, if it is in the version agreed (a peer of an older one may not send
        what that version does not have, as this side never sends it one)."""
        if self.version is not None and self.version < type(message).SINCE:
            raise RemoteProtocolError(
                Code.NOT_ALLOWED, f"{message.TYPE} is not in protocol version {self.version}"
            )
        return message

    # --- sending ----------------------------------------------------------------------

    def send(self, message: m.Message) -> bytes:
        """The bytes that carry `message` to the peer."""
        kind = type(message)
        if self.state == "closed" and kind not in (m.Error, m.Bye, m.Reject):
            raise LocalProtocolError(Code.HANDSHAKE, "the conversation is over")
        if self.side == "client":
            if kind is m.Hello:
                if self._hello_sent:
                    raise LocalProtocolError(Code.HANDSHAKE, "hello was already sent")
                self._hello_sent = True
            elif not self._hello_sent:
                raise LocalProtocolError(Code.HANDSHAKE, "send hello first")
            elif kind is m.Proof:
                if not self._challenged or self._proved or self.state != "handshake":
                    raise LocalProtocolError(Code.HANDSHAKE, "a proof answers one challenge")
                self._proved = True
            elif kind not in CLIENT_SENDS:
                raise LocalProtocolError(Code.NOT_ALLOWED, f"a client does not send {message.TYPE}")
            elif self._challenged and not self._proved:
                raise LocalProtocolError(Code.HANDSHAKE, "answer the challenge with proof first")
        else:
            if kind is m.Welcome:
                if not self._hello_seen or self.state != "handshake":
                    raise LocalProtocolError(Code.HANDSHAKE, "welcome answers one hello")
                if self._challenged and not self._proved:
                    raise LocalProtocolError(Code.HANDSHAKE, "welcome waits for the proof")
                self.state = "open"
                self.version = message.version  # type: ignore[attr-defined]
            elif kind is m.Reject:
                self.state = "closed"
            elif kind is m.Challenge:
                if not self._hello_seen or self.state != "handshake" or self._challenged:
                    raise LocalProtocolError(Code.HANDSHAKE, "a challenge answers one hello")
                self._challenged = True
            elif kind not in SERVER_SENDS:
                raise LocalProtocolError(Code.NOT_ALLOWED, f"a server does not send {message.TYPE}")
            elif self.state == "handshake" and kind not in (m.Error, m.Bye):
                raise LocalProtocolError(Code.HANDSHAKE, "answer hello with welcome first")
        if self.version is not None and self.version < kind.SINCE:
            raise LocalProtocolError(
                Code.NOT_ALLOWED, f"{message.TYPE} is not in protocol version {self.version}"
            )
        return _encoded(message, self._limit, self.version)

    def close(self) -> None:
        self.state = "closed"

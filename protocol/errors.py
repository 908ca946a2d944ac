"""Protocol errors and the one table of error codes.

Every refusal on the wire carries a `Code` (docs/PROTOCOL.md lists each with its
meaning; a test keeps the two the same).  The peer's mistakes are `RemoteProtocolError`
(they get an `Error` message with the code); our own misuse is `LocalProtocolError` (a
bug here)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final


class Code(StrEnum):
    """An error code as sent in `error.code` and `bye.code`."""

    FRAME_TOO_LARGE = "frame_too_large"
    BAD_MSGPACK = "bad_msgpack"
    UNKNOWN_MESSAGE = "unknown_message"
    BAD_MESSAGE = "bad_message"
    HANDSHAKE = "handshake"
    VERSION = "version"
    RATE_LIMITED = "rate_limited"
    NOT_ALLOWED = "not_allowed"
    NO_SUCH_TABLE = "no_such_table"
    TABLE_FULL = "table_full"
    SEAT_TAKEN = "seat_taken"
    WRONG_PASSWORD = "wrong_password"
    BAD_TOKEN = "bad_token"
    BAD_RULES = "bad_rules"
    ILLEGAL = "illegal"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    BAD_DEAL_SEED = "bad_deal_seed"
    SERVER_CLOSING = "server_closing"
    SERVER_ERROR = "server_error"
    TOO_SLOW = "too_slow"
    TIMEOUT = "timeout"
    REPLACED = "replaced"


#: What each code means, as docs/PROTOCOL.md shows it.
MEANINGS: Final[Mapping[Code, str]] = {
    Code.FRAME_TOO_LARGE: "a frame declared more bytes than the limit (the connection is closed)",
    Code.BAD_MSGPACK: "a frame's body is not one msgpack object within the limits",
    Code.UNKNOWN_MESSAGE: "a message type this version does not have",
    Code.BAD_MESSAGE: "a message with a missing, extra or ill-typed field",
    Code.HANDSHAKE: "a message before the handshake finished, or a second hello",
    Code.VERSION: "no protocol version in common",
    Code.RATE_LIMITED: "too many chat messages, or wrong passwords, too fast",
    Code.NOT_ALLOWED: "not something this connection may do now",
    Code.NO_SUCH_TABLE: "there is no table of that name",
    Code.TABLE_FULL: "every seat at that table is taken",
    Code.SEAT_TAKEN: "that seat is taken",
    Code.WRONG_PASSWORD: "the table's password does not match",
    Code.BAD_TOKEN: "the seat token does not match",
    Code.BAD_RULES: "the rules asked for make no sense (the message names the toggle)",
    Code.ILLEGAL: "the rules do not allow that action now (the message says why)",
    Code.NOT_YOUR_TURN: "it is another seat's turn, or this seat sits out the trick",
    Code.STALE: "the action answers a turn that is gone: the timeout rule moved for the seat, "
    "or a new hand began, after the event its `seen` names; a `nudge`: the table moved after "
    "it (version 13)",
    Code.BAD_DEAL_SEED: "a deal seed out of turn, a second one, or one after the deal",
    Code.SERVER_CLOSING: "the server is shutting down",
    Code.SERVER_ERROR: "the server failed to do it (a bug, logged there); nothing changed",
    Code.TOO_SLOW: "the connection did not keep up and was dropped",
    Code.TIMEOUT: "the connection was silent too long; about `ready`: the chair was freed, its "
    "person having not said ready while a full table waited",
    Code.REPLACED: "the seat was taken back from another connection",
}


class ProtocolError(Exception):
    """Something on the wire was wrong."""

    def __init__(self, code: Code, message: str, about: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: The type of the message refused, when it is one the protocol has ("" for a
        #: frame that is not a message, or of a type there is not).
        self.about = about


class RemoteProtocolError(ProtocolError):
    """The peer sent something wrong; answer with an `Error` carrying `code`."""


class LocalProtocolError(ProtocolError):
    """We tried to send something the protocol does not allow."""

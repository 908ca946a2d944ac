"""Protocol errors.  The peer's mistakes are `RemoteProtocolError` (they get an `Error`
message with the code); our own misuse is `LocalProtocolError` (a bug here)."""

from __future__ import annotations

from typing import Final

#: Error codes sent on the wire, each with what it means.
CODES: Final[dict[str, str]] = {
    "frame_too_large": "a frame declared more bytes than the limit",
    "bad_msgpack": "a frame's body is not one msgpack object within the limits",
    "unknown_message": "a message type this version does not have",
    "bad_message": "a message with a missing, extra or ill-typed field",
    "handshake": "a message before the handshake finished, or a second hello",
    "version": "no protocol version in common",
    "rate_limited": "too many messages too fast",
    "not_allowed": "that is not something this connection may do now",
    "no_such_table": "there is no table of that name",
    "table_full": "every seat at that table is taken",
    "seat_taken": "that seat is taken",
    "wrong_password": "the table's password does not match",
    "bad_token": "the seat token does not match",
    "bad_rules": "the rules asked for make no sense",
    "illegal": "the rules do not allow that action now",
    "not_your_turn": "it is another seat's turn",
    "bad_deal_seed": "a deal seed out of turn or of the wrong size",
    "server_closing": "the server is shutting down",
    "too_slow": "the connection did not keep up and was dropped",
    "timeout": "the connection was idle or silent too long",
}


class ProtocolError(Exception):
    """Something on the wire was wrong."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RemoteProtocolError(ProtocolError):
    """The peer sent something wrong; answer with an `Error` carrying `code`."""


class LocalProtocolError(ProtocolError):
    """We tried to send something the protocol does not allow."""

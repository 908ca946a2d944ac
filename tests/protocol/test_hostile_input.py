"""What a hostile peer may not put on the wire or make us hold: text with control or bidi
characters (they would reach a terminal or a log), a hand key no hand can be sealed to,
and a read of thousands of tiny frames decoded all at once."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.protocol import connection
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.connection import Connection
from president.protocol.errors import RemoteProtocolError
from president.protocol.framing import encode_frame
from president.protocol.sealing import public_key_bytes

KEY = public_key_bytes(X25519PrivateKey.generate())
FORBIDDEN = [
    "\x00",
    "\n",
    "\x1b",
    "\x7f",
    "\x80",
    "\x85",
    "\x9b",
    "\x9f",
    "\u061c",
    "\u200e",
    "\u200f",
    "\u2028",
    "\u2029",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
]


@pytest.mark.parametrize("ch", FORBIDDEN)
@pytest.mark.parametrize(
    "wire",
    [
        lambda s: {"type": "hello", "versions": [2], "name": s, "role": "player", "hand_key": KEY},
        lambda s: {
            "type": "create_table",
            "name": s,
            "preset": "classic",
            "toggles": {},
            "seats": 4,
        },
        lambda s: {"type": "add_bot", "table": "T", "strategy": s},
        lambda s: {"type": "chat", "scope": "lobby", "text": s},
        lambda s: {"type": "chat", "scope": "lobby", "text": "hi", "sender": s},
    ],
    ids=["player name", "table name", "bot name", "chat text", "chat sender"],
)
def test_text_with_control_or_bidi_characters_is_refused(ch: str, wire: object) -> None:
    value = wire(f"ann{ch}x")  # type: ignore[operator]
    with pytest.raises(RemoteProtocolError) as info:
        m.Message.from_wire(value)
    assert info.value.code == "bad_message"
    assert f"control characters are not allowed in text (U+{ord(ch):04X})" in info.value.message
    assert m.Message.from_wire(wire("Zoë محمد\t🂡"))  # type: ignore[operator]  # only unusual


def test_a_low_order_hand_key_is_named_and_a_real_one_passes() -> None:
    from president.protocol.sealing import key_problem

    assert key_problem(KEY) is None
    for point in (bytes(32), b"\x01" + bytes(31)):  # the zero point and the identity
        assert "not a usable X25519 public key" in (key_problem(point) or "")


def test_a_read_of_tiny_frames_is_decoded_one_message_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded = [0]
    real = connection.unpack

    def counting(body: bytes) -> object:
        decoded[0] += 1
        return real(body)

    monkeypatch.setattr(connection, "unpack", counting)
    server = Connection("server")
    hello = m.Hello(versions=m.OFFERED, name="Ann", role="player", hand_key=KEY)
    ping = encode_frame(pack(m.Ping(nonce=1).to_wire()))
    server.receive_data(encode_frame(pack(hello.to_wire())) + ping * 5000)
    assert decoded == [0]  # nothing decoded until asked for
    assert server.next_event() == hello and decoded == [1]
    assert server.next_event() == m.Ping(nonce=1) and decoded == [2]
    assert sum(1 for _ in server.events()) == 4999 and decoded == [5001]
    assert server.pending == 0

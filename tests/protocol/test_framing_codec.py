"""Frames and msgpack limits: oversize refused at the header, bombs refused cheaply."""

from __future__ import annotations

import struct
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st
from president.protocol.codec import MAX_DEPTH, pack, unpack
from president.protocol.errors import LocalProtocolError, RemoteProtocolError
from president.protocol.framing import MAX_FRAME, FrameReader, encode_frame


@given(st.lists(st.binary(max_size=300), max_size=8), st.data())
def test_frames_survive_any_split(bodies: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(b) for b in bodies)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    reader, got, last = FrameReader(), [], 0
    for cut in [*cuts, len(stream)]:
        got += reader.feed(stream[last:cut])
        last = cut
    assert got == bodies and reader.pending == 0


def test_an_oversize_frame_is_refused_at_its_header() -> None:
    reader = FrameReader()
    with pytest.raises(RemoteProtocolError) as info:
        reader.feed(struct.pack(">I", MAX_FRAME + 1))
    assert info.value.code == "frame_too_large"
    assert reader.pending <= 4  # the header alone: nothing of the body was kept
    with pytest.raises(LocalProtocolError):
        encode_frame(b"x" * (MAX_FRAME + 1))
    assert "begins" not in str(info.value)


def test_text_where_a_frame_should_be_is_said_to_be_text() -> None:
    """A game-night pass reached an HTTP server: "a frame of 1213486160 bytes is over the
    65536-byte limit" was all it said (those bytes are "HTTP")."""
    with pytest.raises(RemoteProtocolError) as info:
        FrameReader().feed(b"HTTP/1.1 400 Bad Request\r\n")
    assert "it begins 'HTTP', as text does: not this protocol" in str(info.value)


def test_a_partial_frame_is_pending() -> None:
    reader = FrameReader()
    assert reader.feed(encode_frame(b"hello")[:6]) == []
    assert reader.pending == 6


@pytest.mark.parametrize(
    "body",
    [
        b"".join(b"\xdc\xff\xff" for _ in range(21000))[:MAX_FRAME],  # nested array16 headers
        b"\xdf\xff\xff\xff\xff",  # map32 of 4 billion
        b"\xdb\x00\x01\x00\x00" + b"x" * 10,  # str32 longer than the cap
        b"\xc6\x00\x01\x00\x00",  # bin32 longer than the cap
        b"\x91" * (MAX_DEPTH + 5) + b"\xc0",  # nests too deep
        pack(1) + pack(2),  # two objects in one frame
        b"\xc1",  # never used
        b"\xd4\x01\x00",  # an ext type
        b"\xc7\x00\x05",  # an empty ext (within max_ext_len 0: a hostile pass's)
        pack({1: "int key"}),
        pack({b"type": "ping"}),  # a bin key ("there is no message type None" before)
        b"\x82\xa5nonce\x01\xa5nonce\x02",  # a key twice (the last one won)
        pack({"type": "x", "inner": [{"k": 1, b"k": 2}]}),  # deeper in
    ],
)
def test_hostile_msgpack_is_refused_without_allocating(body: bytes) -> None:
    tracemalloc.start()
    with pytest.raises(RemoteProtocolError) as info:
        unpack(body)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert info.value.code == "bad_msgpack"
    assert peak < 2 * 1024 * 1024, f"refusing it cost {peak} bytes"


def test_values_round_trip() -> None:
    value = {"type": "x", "list": [1, "a", b"\x00", None, True], "map": {"k": 1.5}}
    assert unpack(pack(value)) == {
        "type": "x",
        "list": (1, "a", b"\x00", None, True),
        "map": {"k": 1.5},
    }

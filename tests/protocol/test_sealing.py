"""Sealed hands: open only with the right key for the right place; fixed length."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.engine import deck
from president.protocol.sealing import (
    SEALED_BYTES,
    SealError,
    decode_hand,
    encode_hand,
    open_hand,
    public_key_bytes,
    seal_hand,
)

PLACE = ("Friday", 3, 1, 42)


def test_round_trip_and_fixed_length() -> None:
    key = X25519PrivateKey.generate()
    rng = random.Random(1)
    sizes = set()
    for size in (0, 1, 6, 13, 26, 54):
        cards = rng.sample(deck(2, 2), size)
        sealed = seal_hand(cards, public_key_bytes(key), *PLACE)
        sizes.add(len(sealed))
        assert sorted(open_hand(sealed, key, *PLACE)) == sorted(cards)
    assert sizes == {SEALED_BYTES}  # the length says nothing about the hand


@pytest.mark.parametrize("place", [
    ("Saturday", 3, 1, 42), ("Friday", 4, 1, 42), ("Friday", 3, 2, 42), ("Friday", 3, 1, 43),
])
def test_a_copy_delivered_elsewhere_does_not_open(place: tuple[str, int, int, int]) -> None:
    key = X25519PrivateKey.generate()
    sealed = seal_hand(deck()[:13], public_key_bytes(key), *PLACE)
    with pytest.raises(SealError):
        open_hand(sealed, key, *place)


def test_another_key_or_a_tampered_byte_does_not_open() -> None:
    key, other = X25519PrivateKey.generate(), X25519PrivateKey.generate()
    sealed = seal_hand(deck()[:13], public_key_bytes(key), *PLACE)
    with pytest.raises(SealError):
        open_hand(sealed, other, *PLACE)
    for index in (0, 40, len(sealed) - 1):
        tampered = bytearray(sealed)
        tampered[index] ^= 1
        with pytest.raises(SealError):
            open_hand(bytes(tampered), key, *PLACE)


def test_hand_encoding() -> None:
    cards = deck()[:5]
    assert decode_hand(encode_hand(cards)) == cards
    with pytest.raises(SealError):
        decode_hand(b"\x00" * 10)

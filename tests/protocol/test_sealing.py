"""Sealed hands: open only with the right key for the right place; their length says
nothing about the cards."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.engine import Gave, Returned, deck, parse_cards
from president.protocol.codec import pack
from president.protocol.sealing import (
    SUITE,
    SealError,
    open_hand,
    public_key_bytes,
    seal_hand,
    seal_info,
)

PLACE = ("Friday", 3, 1, 42)


def exchange_of(given: str, returned: str) -> tuple[Gave | Returned, ...]:
    give, back = parse_cards(given.split()), parse_cards(returned.split())
    return (Gave(3, 1, len(give), give), Returned(1, 3, len(back), back, False))


def test_round_trip_and_a_length_that_depends_on_no_card() -> None:
    key = X25519PrivateKey.generate()
    rng = random.Random(1)
    sizes: dict[int, set[int]] = {}
    for size in (0, 1, 6, 13, 26, 54):
        for _ in range(5):
            cards = rng.sample(deck(2, 2), size)
            sealed = seal_hand(cards, (), public_key_bytes(key), *PLACE)
            sizes.setdefault(0, set()).add(len(sealed))
            held, exchange = open_hand(sealed, key, *PLACE)
            assert sorted(held) == sorted(cards) and exchange == ()
    for given, back in (("2S AS", "3C 4D"), ("10H 10S", "10C 10D"), ("JK 2S", "3C 3D")):
        exchange = exchange_of(given, back)
        sealed = seal_hand(deck()[:13], exchange, public_key_bytes(key), *PLACE)
        sizes.setdefault(2, set()).add(len(sealed))
        assert open_hand(sealed, key, *PLACE) == (tuple(deck()[:13]), exchange)
    # one length for any hand, one for any two-card give and return: never the cards
    assert all(len(lengths) == 1 for lengths in sizes.values()), sizes


@pytest.mark.parametrize(
    "place",
    [
        ("Saturday", 3, 1, 42),
        ("Friday", 4, 1, 42),
        ("Friday", 3, 2, 42),
        ("Friday", 3, 1, 43),
    ],
)
def test_a_copy_delivered_elsewhere_does_not_open(place: tuple[str, int, int, int]) -> None:
    key = X25519PrivateKey.generate()
    sealed = seal_hand(deck()[:13], (), public_key_bytes(key), *PLACE)
    with pytest.raises(SealError):
        open_hand(sealed, key, *place)


def test_another_key_or_a_tampered_byte_does_not_open() -> None:
    key, other = X25519PrivateKey.generate(), X25519PrivateKey.generate()
    sealed = seal_hand(deck()[:13], (), public_key_bytes(key), *PLACE)
    with pytest.raises(SealError):
        open_hand(sealed, other, *PLACE)
    for index in (0, 40, len(sealed) - 1):
        tampered = bytearray(sealed)
        tampered[index] ^= 1
        with pytest.raises(SealError):
            open_hand(bytes(tampered), key, *PLACE)


@pytest.mark.parametrize(
    "plain",
    [
        b"\x00" * 10,
        pack([b"\x00" * 10, []]),
        pack([b"\x09" * 53, []]),
        pack([b"\x00" * 53]),
        pack([b"\x00" * 53, [[False, 0, 1, False, [53]]]]),
        pack([b"\x00" * 53, [[False, -1, 1, False, [3]]]]),
        # (a pair moves at most 6 cards: scaled_exchange at 12 players)
        pack([b"\x00" * 53, [[False, 0, 1, False, [1, 2, 3, 4, 5, 6, 7]]]]),
        pack([b"\x00" * 53, [[False, 0, 1]]]),
    ],
)
def test_a_sealed_plaintext_that_is_not_a_hand_is_refused(plain: bytes) -> None:
    """Properly sealed to us, but not a hand: a clear error, not a crash."""
    key = X25519PrivateKey.generate()
    sealed = SUITE.encrypt(plain, key.public_key(), info=seal_info(*PLACE))
    with pytest.raises(SealError):
        open_hand(sealed, key, *PLACE)

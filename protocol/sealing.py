"""Sealed hands: each player's cards are encrypted to that player's own X25519 key with
HPKE (RFC 9180; `cryptography`'s suite X25519 / HKDF-SHA256 / ChaCha20-Poly1305), bound by
`info` to one table, hand, seat and event, so a copy delivered anywhere else does not
open.  A hand is encoded in a fixed 53 bytes (a count per card kind), so the length of
the ciphertext says nothing about the cards."""

from __future__ import annotations

from collections.abc import Iterable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hpke, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from president.engine import CARDS, Card

from .codec import pack

SUITE = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)
HAND_BYTES = len(CARDS)  # 53: one count per card kind
SEALED_BYTES = HAND_BYTES + 32 + 16  # the encapsulated key and the AEAD tag
_DOMAIN = b"president hand/1\x00"


class SealError(ValueError):
    """A sealed hand did not open: not ours, tampered with, or for another place."""


def encode_hand(cards: Iterable[Card]) -> bytes:
    counts = bytearray(HAND_BYTES)
    for card in cards:
        counts[card.id] += 1
    return bytes(counts)


def decode_hand(data: bytes) -> list[Card]:
    if len(data) != HAND_BYTES or any(n > 8 for n in data):
        raise SealError("a sealed hand held something that is not a hand")
    return [CARDS[i] for i, n in enumerate(data) for _ in range(n)]


def seal_info(table: str, hand: int, seat: int, number: int) -> bytes:
    """The HPKE `info` that binds a sealed hand to its place."""
    return _DOMAIN + pack([table, hand, seat, number])


def public_key_bytes(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def seal_hand(cards: Iterable[Card], public_key: bytes, table: str, hand: int, seat: int,
              number: int) -> bytes:
    """`cards` encrypted to the holder of the private half of `public_key` (32 bytes)."""
    recipient = X25519PublicKey.from_public_bytes(public_key)
    return SUITE.encrypt(encode_hand(cards), recipient, info=seal_info(table, hand, seat, number))


def open_hand(sealed: bytes, key: X25519PrivateKey, table: str, hand: int, seat: int,
              number: int) -> list[Card]:
    """The cards in a sealed hand; `SealError` if it was not sealed to us for this place."""
    try:
        plain = SUITE.decrypt(sealed, key, info=seal_info(table, hand, seat, number))
    except (InvalidTag, ValueError) as exc:
        raise SealError(f"the sealed hand does not open here ({type(exc).__name__})") from None
    return decode_hand(plain)

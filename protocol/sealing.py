"""Sealed hands: each player's own cards (and its own part of the exchange) are
encrypted to that player's X25519 key with HPKE (RFC 9180; `cryptography`'s suite
X25519 / HKDF-SHA256 / ChaCha20-Poly1305), bound by `info` to one table, hand, seat and
event, so a copy delivered anywhere else does not open.  The hand is encoded as a fixed
53 bytes (a count per card kind; `wire.private_to_bytes`), so the length of the
ciphertext says nothing about the cards."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hpke, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from president.engine import Card, Gave, Returned

from .codec import pack
from .errors import RemoteProtocolError
from .wire import private_from_bytes, private_to_bytes

SUITE = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)
_DOMAIN = b"president hand/2\x00"


class SealError(ValueError):
    """A sealed hand did not open: not ours, tampered with, or for another place."""


def seal_info(table: str, hand: int, seat: int, number: int) -> bytes:
    """The HPKE `info` that binds a sealed hand to its place."""
    return _DOMAIN + pack([table, hand, seat, number])


def public_key_bytes(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_problem(public_key: bytes) -> str | None:
    """Why hands cannot be sealed to `public_key`, or None if they can.  A low-order
    X25519 point (32 zero bytes, say) is a valid public key to `cryptography`, yet no key
    agreement with it works: a trial agreement finds it when the key arrives, not when
    the first hand is sealed."""
    try:
        X25519PrivateKey.generate().exchange(X25519PublicKey.from_public_bytes(public_key))
    except ValueError:
        return "hand_key is not a usable X25519 public key (a low-order point?)"
    return None


def seal_hand(
    cards: Iterable[Card],
    exchange: Sequence[Gave | Returned],
    public_key: bytes,
    table: str,
    hand: int,
    seat: int,
    number: int,
) -> bytes:
    """`cards` and `exchange` encrypted to the holder of the private half of
    `public_key` (32 bytes)."""
    recipient = X25519PublicKey.from_public_bytes(public_key)
    plain = private_to_bytes(cards, exchange)
    return SUITE.encrypt(plain, recipient, info=seal_info(table, hand, seat, number))


def open_hand(
    sealed: bytes, key: X25519PrivateKey, table: str, hand: int, seat: int, number: int
) -> tuple[tuple[Card, ...], tuple[Gave | Returned, ...]]:
    """(cards, exchange) from a sealed hand; `SealError` if it was not sealed to us for
    this place or holds something that is not a hand."""
    try:
        plain = SUITE.decrypt(sealed, key, info=seal_info(table, hand, seat, number))
    except (InvalidTag, ValueError) as exc:
        raise SealError(f"the sealed hand does not open here ({type(exc).__name__})") from None
    try:
        return private_from_bytes(plain)
    except RemoteProtocolError as exc:
        raise SealError(exc.message) from None

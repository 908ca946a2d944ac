"""Player keys: a player is known to a server by an Ed25519 key (`cryptography`), proven
at hello by signing the server's fresh challenge bound to that server's certificate, so
a proof made for one server is worthless at another.  Pure: bytes in, bytes out.

What is signed (docs/PROTOCOL.md, "Player keys"):

    PROOF_CONTEXT || version (1 byte) || SHA-256 of the server's certificate (32 bytes)
                  || the challenge (32 bytes)

Every part has a fixed length, so no two different inputs sign the same bytes."""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .certs import normalise_fingerprint
from .messages import VERSIONS

#: The first protocol version with player keys (`challenge` and `proof` in the handshake).
IDENTITY_VERSION = 4
#: The versions a client without a key offers (the server then asks for no proof).
KEYLESS_VERSIONS = tuple(v for v in VERSIONS if v < IDENTITY_VERSION)
#: What a proof signs first: no signature made for anything else can pass for one.
PROOF_CONTEXT = b"president player key proof\x00"
CHALLENGE_SIZE = 32
SIGNATURE_SIZE = 64

_P = 2**255 - 19
#: The y coordinate of an Ed25519 point of order 8 (the other is P minus it).
_Y8 = 0x05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826
#: The y of every point of small order (the 8-point torsion group: the identity, the
#: point of order 2, the two of order 4 (y = 0), the four of order 8), with the other
#: encodings of y = 0 and y = 1 (y + P still fits in 255 bits).  OpenSSL accepts such a
#: key, and a signature under it can be made without any private key (R a small-order
#: point, S = 0), so such a key proves nothing: it is refused.  tests/protocol/
#: test_identity.py forges a signature under each, through `cryptography` itself.
_SMALL_ORDER_Y = frozenset({0, 1, _P - 1, _P, _P + 1, _Y8, _P - _Y8})


def player_id(public_bytes: bytes) -> str:
    """The stable id of the player who holds this key: the hex SHA-256 of the raw 32-byte
    Ed25519 public key (64 lowercase hex digits).  What a server keys what it remembers
    of a player by."""
    return hashlib.sha256(public_bytes).hexdigest()


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    """The raw 32-byte public key of a private key."""
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def certificate_digest(fingerprint: str) -> bytes:
    """The 32 bytes of a certificate's SHA-256 fingerprint written "AB:CD:..." (as
    `certs.fingerprint` gives it and people read it)."""
    return bytes.fromhex(normalise_fingerprint(fingerprint).replace(":", ""))


def proof_bytes(version: int, certificate: bytes, challenge: bytes) -> bytes:
    """The bytes a player signs to answer `challenge` from the server whose certificate's
    SHA-256 is `certificate`, in protocol `version`."""
    if not 0 < version < 256 or len(certificate) != 32 or len(challenge) != CHALLENGE_SIZE:
        raise ValueError("a proof binds a version (1 byte), a 32-byte digest and challenge")
    return PROOF_CONTEXT + bytes([version]) + certificate + challenge


def sign_proof(key: Ed25519PrivateKey, version: int, certificate: bytes, challenge: bytes) -> bytes:
    """The 64-byte signature that answers `challenge` (see `proof_bytes`)."""
    return key.sign(proof_bytes(version, certificate, challenge))


def proof_problem(
    key: bytes, signature: bytes, version: int, certificate: bytes, challenge: bytes
) -> str | None:
    """Why `signature` does not prove that the holder of `key` answered `challenge` at
    this server (a sentence for a `reject`), or None if it does."""
    if len(key) != 32:
        return "player_key is not an Ed25519 public key (32 bytes)"
    if int.from_bytes(key, "little") & ((1 << 255) - 1) in _SMALL_ORDER_Y:
        return "player_key is a small-order Ed25519 point, which proves nothing: make a new key"
    if len(signature) != SIGNATURE_SIZE:
        return "the proof's signature is not an Ed25519 signature (64 bytes)"
    try:
        public = Ed25519PublicKey.from_public_bytes(key)
    except ValueError:
        return "player_key is not an Ed25519 public key"
    try:
        public.verify(signature, proof_bytes(version, certificate, challenge))
    except InvalidSignature:
        return (
            "the proof's signature does not match player_key for this server's challenge "
            "and certificate"
        )
    return None

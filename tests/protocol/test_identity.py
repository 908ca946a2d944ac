"""Player keys (protocol/identity.py): what a proof signs, what verifies, and what does
not — another server's fingerprint, another challenge or version, another key, a key of
small order (checked by forging a signature under each through `cryptography` itself)."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from president.protocol import identity
from president.protocol.certs import fingerprint

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
HERE = hashlib.sha256(b"this server's certificate").digest()
THERE = hashlib.sha256(b"another server's certificate").digest()
CHALLENGE = bytes(range(100, 132))


def proof(key: Ed25519PrivateKey = KEY, cert: bytes = HERE, challenge: bytes = CHALLENGE) -> bytes:
    return identity.sign_proof(key, 4, cert, challenge)


def problem(signature: bytes, key: bytes | None = None, **changes: object) -> str | None:
    args: dict[str, object] = {"version": 4, "certificate": HERE, "challenge": CHALLENGE}
    args.update(changes)
    return identity.proof_problem(
        identity.public_bytes(KEY) if key is None else key,
        signature,
        args["version"],  # type: ignore[arg-type]
        args["certificate"],  # type: ignore[arg-type]
        args["challenge"],  # type: ignore[arg-type]
    )


def test_a_proof_verifies_where_it_was_made_and_nowhere_else() -> None:
    assert problem(proof()) is None
    assert "does not match" in (problem(proof(cert=THERE)) or "")  # relayed from elsewhere
    assert "does not match" in (problem(proof(), certificate=THERE) or "")
    assert "does not match" in (problem(proof(), challenge=bytes(32)) or "")  # replayed
    assert "does not match" in (problem(proof(), version=5) or "")
    other = Ed25519PrivateKey.generate()
    assert "does not match" in (problem(proof(other)) or "")  # not this key's
    flipped = bytearray(proof())
    flipped[10] ^= 1
    assert "does not match" in (problem(bytes(flipped)) or "")


def test_the_signed_bytes_are_the_context_the_version_the_certificate_and_the_challenge() -> None:
    signed = identity.proof_bytes(4, HERE, CHALLENGE)
    assert signed == b"president player key proof\x00" + b"\x04" + HERE + CHALLENGE
    Ed25519PublicKey.from_public_bytes(identity.public_bytes(KEY)).verify(proof(), signed)
    with pytest.raises(ValueError):
        identity.proof_bytes(4, HERE[:31], CHALLENGE)
    with pytest.raises(ValueError):
        identity.proof_bytes(256, HERE, CHALLENGE)


def test_the_certificate_digest_is_the_fingerprint_people_read() -> None:
    der = b"any certificate bytes"
    assert identity.certificate_digest(fingerprint(der)) == hashlib.sha256(der).digest()


def test_malformed_keys_and_signatures_are_named() -> None:
    assert "32 bytes" in (problem(proof(), key=b"\x01" * 31) or "")
    assert "64 bytes" in (problem(proof()[:63]) or "")
    # 32 bytes that are no point on the curve: refused, never an exception
    assert problem(proof(), key=b"\xff" * 31 + b"\x7f") is not None
    assert problem(bytes(64), key=bytes.fromhex("02" + "00" * 31)) is not None


def small_order_keys() -> list[bytes]:
    """Every encoding of a point of small order: the y values `identity` refuses, each
    with either sign bit."""
    keys = []
    for y in identity._SMALL_ORDER_Y:
        for sign in (0, 1):
            encoded = bytearray(y.to_bytes(32, "little"))
            encoded[31] |= sign << 7
            keys.append(bytes(encoded))
    return keys


def test_a_small_order_key_is_refused_because_anyone_can_sign_for_it() -> None:
    """OpenSSL (through `cryptography`) takes a small-order public key, and a signature
    (R a small-order point, S = 0) under it verifies for some message without any
    private key: each refused key is shown forgeable here, and each is refused."""
    keys = small_order_keys()
    assert len(set(keys)) == 14
    for key in keys:
        public = Ed25519PublicKey.from_public_bytes(key)
        forged = None
        for attempt in range(64):
            message = identity.proof_bytes(4, HERE, attempt.to_bytes(32, "big"))
            for r in keys:
                try:
                    public.verify(r + bytes(32), message)
                except InvalidSignature:
                    continue
                forged = (r + bytes(32), attempt.to_bytes(32, "big"))
                break
            if forged:
                break
        assert forged is not None, key.hex()
        signature, challenge = forged
        assert "small-order" in (problem(signature, key=key, challenge=challenge) or "")
    assert problem(proof()) is None  # an ordinary key is not among them


def test_a_player_id_is_the_hex_sha256_of_the_raw_public_key() -> None:
    raw = identity.public_bytes(KEY)
    assert identity.player_id(raw) == hashlib.sha256(raw).hexdigest()
    assert len(identity.player_id(raw)) == 64
    assert identity.player_id(raw) != identity.player_id(
        identity.public_bytes(Ed25519PrivateKey.generate())
    )

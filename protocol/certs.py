"""The server's self-signed certificate and its fingerprint (TLS 1.3 carries the channel;
clients pin the fingerprint on first use).  Pure: bytes in, bytes out."""

from __future__ import annotations

import datetime
import hashlib
import hmac

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def make_certificate(
    name: str, now: datetime.datetime | None = None, days: int = 3650
) -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM) for a new self-signed ECDSA P-256 certificate."""
    key = ec.generate_private_key(ec.SECP256R1())
    # (a common name holds 64 bytes of UTF-8, not characters: a server named in 22 kanji
    # or more failed to start, told its certificate was unusable)
    common = name.encode()[:64].decode(errors="ignore")
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common or "president")])
    start = now or datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start - datetime.timedelta(days=1))
        .not_valid_after(start + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def fingerprint(cert_der: bytes) -> str:
    """SHA-256 of a DER certificate, as people read it: "AB:CD:...", 32 pairs."""
    return ":".join(f"{b:02X}" for b in hashlib.sha256(cert_der).digest())


def pem_to_der(cert_pem: bytes) -> bytes:
    return x509.load_pem_x509_certificate(cert_pem).public_bytes(serialization.Encoding.DER)


def normalise_fingerprint(text: str) -> str:
    """Accept a fingerprint with or without colons, any case; `ValueError` if it is not one."""
    digits = "".join(ch for ch in text if ch not in ": ").upper()
    if len(digits) != 64 or any(ch not in "0123456789ABCDEF" for ch in digits):
        raise ValueError(f"{text!r} is not a SHA-256 fingerprint (64 hex digits)")
    return ":".join(digits[i : i + 2] for i in range(0, 64, 2))


def same_fingerprint(a: str, b: str) -> bool:
    return hmac.compare_digest(normalise_fingerprint(a), normalise_fingerprint(b))

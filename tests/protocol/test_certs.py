"""The server certificate: TLS 1.3 with it works, and its fingerprint pins it."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.oid import NameOID
from president.protocol.certs import (
    fingerprint,
    make_certificate,
    normalise_fingerprint,
    pem_to_der,
    same_fingerprint,
)


def handshake(cert: Path, key: Path) -> tuple[str | None, bytes | None]:
    """A TLS handshake in memory (MemoryBIO): the negotiated version and the server's
    certificate as the client saw it."""
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    server_ctx.load_cert_chain(cert, key)
    client_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client_ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    client_ctx.check_hostname = False
    client_ctx.verify_mode = ssl.CERT_NONE  # the pin is checked on the fingerprint
    c_in, c_out, s_in, s_out = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
    client = client_ctx.wrap_bio(c_in, c_out, server_side=False)
    server = server_ctx.wrap_bio(s_in, s_out, server_side=True)
    done = {"c": False, "s": False}
    for _ in range(10):
        for name, end in (("c", client), ("s", server)):
            if not done[name]:
                try:
                    end.do_handshake()
                    done[name] = True
                except ssl.SSLWantReadError:
                    pass
        s_in.write(c_out.read())
        c_in.write(s_out.read())
        if all(done.values()):
            break
    return client.version(), client.getpeercert(binary_form=True)


def test_tls13_with_the_certificate_and_its_fingerprint(tmp_path: Path) -> None:
    cert_pem, key_pem = make_certificate("kitchen")
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    (tmp_path / "key.pem").write_bytes(key_pem)
    version, der = handshake(tmp_path / "cert.pem", tmp_path / "key.pem")
    assert version == "TLSv1.3"
    assert der == pem_to_der(cert_pem)
    printed = fingerprint(pem_to_der(cert_pem))
    assert len(printed) == 95 and printed.count(":") == 31
    assert same_fingerprint(printed, printed.replace(":", "").lower())
    other, _ = make_certificate("kitchen")
    assert not same_fingerprint(printed, fingerprint(pem_to_der(other)))


@pytest.mark.parametrize("bad", ["", "AB:CD", "ZZ" * 32, "A" * 65])
def test_a_fingerprint_must_be_one(bad: str) -> None:
    with pytest.raises(ValueError, match="not a SHA-256 fingerprint"):
        normalise_fingerprint(bad)


def test_a_server_named_past_64_bytes_of_utf8_has_a_certificate() -> None:
    """A common name holds 64 bytes, not characters: `president server --name` of 32
    kanji (the server's own limit is 32 characters, 96 bytes here) would not start, and
    said its certificate (not there yet) was unusable."""
    name = "寿限無寿限無五劫の擦り切れ海砂利水魚の水行末雲来末風来末食う寝る"
    cert_pem, _ = make_certificate(name)
    cert = x509.load_pem_x509_certificate(cert_pem)
    common = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    assert isinstance(common, str) and name.startswith(common) and len(common.encode()) <= 64
    assert len(common) == 21  # (whole characters only: 63 bytes)

"""The server's data directory: its certificate and key, the tables' journal, and the
finished games' records."""

from __future__ import annotations

import datetime
import os
import re
from pathlib import Path
from typing import Any

from president.engine.record import dumps
from president.protocol.certs import fingerprint, make_certificate, pem_to_der


class Storage:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.records = root / "records"
        self.journal = root / "tables.sqlite3"

    def prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.records.mkdir(exist_ok=True)

    def certificate(self, name: str) -> tuple[Path, Path, str]:
        """(cert file, key file, SHA-256 fingerprint): made on first start, kept after."""
        cert, key = self.root / "cert.pem", self.root / "key.pem"
        if not (cert.exists() and key.exists()):
            cert_pem, key_pem = make_certificate(name)
            _write(key, key_pem, mode=0o600)
            _write(cert, cert_pem, mode=0o644)
        return cert, key, fingerprint(pem_to_der(cert.read_bytes()))

    def write_record(self, table: str, record: dict[str, Any]) -> Path:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", table)[:40] or "table"
        path = self.records / f"{stamp}-{safe}.json"
        n = 1
        while path.exists():
            n += 1
            path = self.records / f"{stamp}-{safe}-{n}.json"
        _write(path, dumps(record).encode(), mode=0o644)
        return path


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write whole or not at all: a temporary file, flushed, then renamed into place."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)

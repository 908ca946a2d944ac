"""The file of trusted server certificates (`client/pinning.py`) when several processes
write it at once: a script that starts its bots together (`president bot --count` from
several shells, or the ladder test's six processes) made each write one shared temporary
name, and every process whose file another had already moved away exited with
"known_servers.tmp: No such file or directory"."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from president.client.pinning import KnownServers

from ..harness.processes import Process

FINGERPRINT = ":".join(["AB"] * 32)

WRITER = """
import sys
from pathlib import Path
from president.client.pinning import KnownServers
known = KnownServers(Path(sys.argv[1]))
for round in range(40):
    known.remember(f"10.0.0.{sys.argv[2]}:7766", sys.argv[3])
"""


@pytest.mark.slow
def test_processes_remembering_servers_at_once_all_succeed(tmp_path: Path) -> None:
    path = tmp_path / "config" / "president" / "known_servers"
    writers = [
        Process(["-c", WRITER, str(path), str(i), FINGERPRINT], command=[sys.executable])
        for i in range(8)
    ]
    codes = [w.wait(60) for w in writers]
    assert codes == [0] * 8, [w.errors() for w in writers]
    known = KnownServers(path).load()
    assert known and all(fp == FINGERPRINT for fp in known.values())  # whole, never torn
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.listdir(path.parent) == ["known_servers"]  # no temporary file left behind


def test_an_ipv6_address_is_kept_in_brackets_and_an_older_line_read_so(tmp_path: Path) -> None:
    """Lines written before brackets (`fd00::2:7766`: host and port run together) are
    the same address as `[fd00::2]:7766`, which is what is written now."""
    path = tmp_path / "known_servers"
    path.write_text(f"# president\nfd00::2:7766 {FINGERPRINT}\n10.0.0.1:7766 {FINGERPRINT}\n")
    known = KnownServers(path)
    assert known.load() == {"[fd00::2]:7766": FINGERPRINT, "10.0.0.1:7766": FINGERPRINT}
    assert known.check("[fd00::2]:7766", FINGERPRINT)
    known.remember("[::1]:7000", FINGERPRINT)
    lines = path.read_text().splitlines()[1:]
    assert lines == [
        f"10.0.0.1:7766 {FINGERPRINT}",
        f"[::1]:7000 {FINGERPRINT}",
        f"[fd00::2]:7766 {FINGERPRINT}",
    ]

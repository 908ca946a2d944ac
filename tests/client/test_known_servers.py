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


def test_made_under_umask_000_the_folders_are_private(tmp_path: Path) -> None:
    """Under `umask 000` the config folder (and any parent it made) came out open to
    every user (the host pass: 777), where another user could rewrite the servers
    trusted; now each folder made is 0700, the file 0600."""
    path = tmp_path / "config" / "president" / "known_servers"
    old = os.umask(0)
    try:
        KnownServers(path).remember("10.0.0.1:7766", FINGERPRINT)
    finally:
        os.umask(old)
    for made in (path.parent, path.parent.parent):
        assert os.stat(made).st_mode & 0o777 == 0o700, made
    assert os.stat(path).st_mode & 0o777 == 0o600


@pytest.mark.parametrize("which", ["file", "folder"])
def test_servers_remembered_where_anyone_may_write_are_not_trusted(
    tmp_path: Path, which: str
) -> None:
    from president.client.pinning import UntrustedPins

    path = tmp_path / "president" / "known_servers"
    known = KnownServers(path)
    known.remember("10.0.0.1:7766", FINGERPRINT)
    (path if which == "file" else path.parent).chmod(0o777 if which == "folder" else 0o666)
    with pytest.raises(UntrustedPins, match=r"open to other users' writing .* chmod go-w"):
        known.check("10.0.0.1:7766", FINGERPRINT)
    with pytest.raises(UntrustedPins):
        known.remember("10.0.0.2:7766", FINGERPRINT)
    (path if which == "file" else path.parent).chmod(0o600 if which == "file" else 0o700)
    assert known.check("10.0.0.1:7766", FINGERPRINT)


def test_the_file_read_is_the_file_checked_never_a_link_nor_a_fifo(tmp_path: Path) -> None:
    """A hostile local user's pass: the file was read by its path and checked by its path
    again, so a swap between the two let another's pins in; and a FIFO in its place hung
    the client.  One descriptor now, opened without following a link."""
    from president.client.pinning import UntrustedPins

    folder = tmp_path / "president"
    folder.mkdir(mode=0o700)
    theirs = tmp_path / "theirs"
    theirs.write_text(f"10.0.0.1:7766 {FINGERPRINT}\n")
    path = folder / "known_servers"
    path.symlink_to(theirs)
    with pytest.raises(UntrustedPins, match="is a symlink"):
        KnownServers(path).load()
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(UntrustedPins, match="is not a file"):
        KnownServers(path).load()


def test_a_groups_writing_is_trusted_only_where_the_group_is_the_users_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where users share a primary group, its writing is another user's (a hostile local
    user's pass); a user private group (named as the user, nobody else in it) is not."""
    import grp
    import pwd
    import stat
    from types import SimpleNamespace

    from president.bots.files import others_may_write

    me = SimpleNamespace(pw_name="ann", pw_gid=1000)
    groups = {
        1000: SimpleNamespace(gr_name="ann", gr_mem=[]),
        100: SimpleNamespace(gr_name="users", gr_mem=["ann", "mallory"]),
        1001: SimpleNamespace(gr_name="ann", gr_mem=["mallory"]),
    }
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: me)
    monkeypatch.setattr(grp, "getgrgid", lambda gid: groups[gid])

    def folder(mode: int, gid: int) -> os.stat_result:
        return os.stat_result((stat.S_IFDIR | mode, 0, 0, 1, os.geteuid(), gid, 0, 0, 0, 0))

    assert not others_may_write(folder(0o775, 1000))
    assert others_may_write(folder(0o775, 100))
    assert others_may_write(folder(0o775, 1001))  # (not the user's primary group)
    assert others_may_write(folder(0o757, 1000))
    assert not others_may_write(folder(0o755, 100))


def test_a_first_server_is_not_remembered_into_a_folder_anyone_may_write(tmp_path: Path) -> None:
    """The key-edge pass: an empty config folder open to everyone took the first trust
    without a word, and only the next run refused it."""
    from president.client.pinning import UntrustedPins

    folder = tmp_path / "president"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(UntrustedPins, match="open to other users' writing"):
        KnownServers(folder / "known_servers").remember("10.0.0.1:7766", FINGERPRINT)
    assert not (folder / "known_servers").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="gives a file to another user")
def test_servers_remembered_in_another_users_file_are_not_trusted(tmp_path: Path) -> None:
    from president.client.pinning import UntrustedPins

    path = tmp_path / "known_servers"
    path.write_text(f"10.0.0.1:7766 {FINGERPRINT}\n")
    os.chown(path, 65534, 65534)
    with pytest.raises(UntrustedPins, match="belongs to user 65534, not to you"):
        KnownServers(path).load()

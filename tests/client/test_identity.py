"""The player's key file (client/identity.py), like an SSH identity: made on first use
0600 in a 0700 directory, the same key after, and one clear line for a file that cannot
be trusted or read — never through a symlink."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from president.client import identity
from president.client.identity import IdentityError, load_or_create
from president.protocol.identity import public_bytes


def test_a_key_is_made_on_first_use_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "config" / "president" / "identity"
    key = load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public_bytes(load_or_create(path)) == public_bytes(key)
    assert [p.name for p in path.parent.iterdir()] == ["identity"]  # no temporary left


def test_the_default_places_follow_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    assert identity.default_identity() == tmp_path / "c" / "president" / "identity"
    assert (
        identity.bot_identity("greedy-1") == tmp_path / "s" / "president" / "bots" / "greedy-1.key"
    )
    assert identity.bot_identity("../../x").parent == tmp_path / "s" / "president" / "bots"
    # names the file's name cannot keep have keys of their own (Анна and Иван were both
    # ____.key: one player to the server; the key-edge pass)
    names = ["Анна", "Иван", "ψ", "rob!", "rob?", "rob_", "____"]
    files = [identity.bot_identity(name) for name in names]
    assert len(set(files)) == len(names), files
    assert all(f.parent == tmp_path / "s" / "president" / "bots" for f in files)
    assert identity.bot_identity("rob_").name == "rob_.key"  # (kept as it was)
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert identity.default_identity() == Path.home() / ".config" / "president" / "identity"


def test_a_key_open_to_others_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    load_or_create(path)
    path.chmod(0o644)
    with pytest.raises(IdentityError) as caught:
        load_or_create(path)
    assert "open to other users (mode 644)" in str(caught.value)
    assert f"chmod 600 {path}" in str(caught.value) and "\n" not in str(caught.value)


def test_a_key_in_a_folder_others_may_write_in_is_refused(tmp_path: Path) -> None:
    """Another user who may write in the key's folder, or one above it, could not read
    the key nor have theirs taken for it, but could delete it (and the names it holds on
    servers), or rename the folder away and put one of theirs there (a hostile local
    user's pass).  As ssh's StrictModes: refused, in one line; a sticky folder, as /tmp,
    is fine."""
    shared = tmp_path / "shared"
    path = shared / "president" / "identity"
    load_or_create(path)
    shared.chmod(0o777)
    for make in (load_or_create, lambda p: identity.KeyFile(p).check()):
        with pytest.raises(IdentityError) as caught:
            make(path)
        told = str(caught.value)
        assert f"{shared} is writable by other users (mode 777)" in told, told
        assert f"chmod go-w {shared}" in told and "\n" not in told
    shared.chmod(0o1777)  # sticky: nobody renames or deletes what is not theirs
    assert load_or_create(path) is not None
    shared.chmod(0o700)
    (path.parent).chmod(0o757)
    with pytest.raises(IdentityError, match=r"president is writable by other users \(mode 757\)"):
        load_or_create(path)
    path.unlink()
    with pytest.raises(IdentityError):  # (not made there either)
        load_or_create(path)
    assert not path.exists()


def test_a_symlinked_key_is_not_followed(tmp_path: Path) -> None:
    real = tmp_path / "real"
    load_or_create(real)
    link = tmp_path / "identity"
    link.symlink_to(real)
    with pytest.raises(IdentityError, match="is a symlink"):
        load_or_create(link)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(IdentityError, match="is a symlink"):
        load_or_create(dangling)
    assert not (tmp_path / "nowhere").exists()  # nothing written through it


def test_a_file_that_is_not_a_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"not a key\n")
    os.close(fd)
    with pytest.raises(IdentityError, match="not an unencrypted Ed25519 private key"):
        load_or_create(path)
    assert path.read_bytes() == b"not a key\n"  # left as it was


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    load_or_create(path)
    path.chmod(0o000)
    with pytest.raises(IdentityError, match="cannot read the key file"):
        load_or_create(path)


def test_a_directory_in_the_keys_place_is_refused(tmp_path: Path) -> None:
    (tmp_path / "identity").mkdir(mode=0o700)
    with pytest.raises(IdentityError, match="is not a file"):
        load_or_create(tmp_path / "identity")


def test_a_key_path_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    """(As root every file reads: a path through a file cannot, for anyone.)"""
    (tmp_path / "file").write_text("")
    with pytest.raises(IdentityError, match=r"cannot read the key file .*: Not a directory"):
        load_or_create(tmp_path / "file" / "identity")


def test_a_key_file_is_checked_at_once_but_made_only_when_asked_for(tmp_path: Path) -> None:
    """A command checks its key before connecting, and makes it only when a server asks
    for a proof: a command that fails before that leaves nothing behind."""
    path = tmp_path / "president" / "identity"
    key_file = identity.KeyFile(path).check()
    assert not path.parent.exists()
    made = key_file()
    assert path.exists() and key_file() is made
    path.chmod(0o640)
    with pytest.raises(IdentityError, match="open to other users"):
        identity.KeyFile(path).check()


def test_a_fifo_in_the_keys_place_is_refused_not_waited_on(tmp_path: Path) -> None:
    """Opening a FIFO for reading waits for a writer: the key's open must not."""
    path = tmp_path / "identity"
    os.mkfifo(path, 0o600)
    with pytest.raises(IdentityError, match="is not a file"):
        identity.load(path)


def test_the_servers_trusted_are_remembered_in_a_private_file(tmp_path: Path) -> None:
    from president.client.pinning import KnownServers

    known = KnownServers(tmp_path / "president" / "known_servers")
    known.remember("192.0.2.7:7777", "AB" * 32)
    assert stat.S_IMODE(known.path.stat().st_mode) == 0o600
    assert known.lookup("192.0.2.7:7777") is not None

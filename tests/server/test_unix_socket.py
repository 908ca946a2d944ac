"""A server on a Unix socket (`ServerConfig.unix_socket`, what `president play` listens
on): only its owner may open it, a folder open to others is refused, and a client
reaches it as `unix:PATH`."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
from president.client.connection import ConnectFailed, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.server.app import UNIX, ListenError, listen_unix

from ..harness.servers import make_table, running_server
from ..harness.waiting import wait_for

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")


def private(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    folder.mkdir(mode=0o700)
    return folder


async def test_a_client_plays_through_the_socket_and_it_goes_with_the_server(
    tmp_path: Path,
) -> None:
    path = private(tmp_path) / "server"
    async with running_server(tmp_path, unix_socket=path) as server:
        assert server.port == 0
        assert path.stat().st_mode & 0o777 == 0o600
        await make_table(f"unix:{path}", server.fingerprint, tmp_path)  # (a visit)
        known = KnownServers(tmp_path / "known")
        ann = await connect(f"unix:{path}", "ann", known=known)
        await ann.send(m.Join(table="T", seat=0))
        await wait_for(lambda: server.lobby.tables["T"].slots[0].name == "ann", 10)
        assert [s.address for s in server.sessions] == [UNIX]
        assert known.load() == {f"unix:{path}": server.fingerprint}
        await ann.close()
    assert not path.exists()


async def test_a_socket_whose_folder_others_may_enter_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o755)
    with pytest.raises(ListenError, match="open to other users"):
        listen_unix(folder / "server")
    assert not (folder / "server").exists()


async def test_a_socket_already_there_is_left_alone(tmp_path: Path) -> None:
    path = private(tmp_path) / "server"
    with listen_unix(path):
        with pytest.raises(ListenError, match=f"cannot listen on {path}: Address already in use"):
            listen_unix(path)
        assert path.exists()  # (the other's socket: not removed)


async def test_no_socket_is_said_in_words(tmp_path: Path) -> None:
    path = private(tmp_path) / "gone"
    with pytest.raises(ConnectFailed) as failed:
        await connect(f"unix:{path}", "zed", known=KnownServers(tmp_path / "known"))
    assert str(failed.value) == (
        f"cannot reach a president server at unix:{path}: No such file or directory"
    )
    with listen_unix(path):
        pass  # (closed: nothing listens, the file stays)
    with pytest.raises(ConnectFailed) as failed:
        await connect(f"unix:{path}", "zed", known=KnownServers(tmp_path / "known"))
    assert str(failed.value).endswith("connection refused: nothing listens on that socket")
    os.unlink(path)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="abstract names are Linux's")
async def test_peers_that_name_themselves_share_the_one_address(tmp_path: Path) -> None:
    """A peer may bind itself any name before it connects: filed under it, each was an
    address of its own, and one process held 100 connections past the cap of 32."""
    path = private(tmp_path) / "server"
    async with running_server(tmp_path, unix_socket=path, max_per_address=2) as server:
        peers = []
        try:
            for n in range(3):
                peer = socket.socket(socket.AF_UNIX)
                peer.bind(f"\0president-test-{os.getpid()}-{n}")
                peer.connect(str(path))
                peer.setblocking(False)
                peers.append(peer)
            await wait_for(lambda: server._per_address == {UNIX: 2}, 10)
            # the third was closed at once: it reads the end
            peers[2].setblocking(True)
            peers[2].settimeout(10)
            assert peers[2].recv(1) == b""
        finally:
            for peer in peers:
                peer.close()


async def test_a_client_coming_back_writes_no_known_servers_file(tmp_path: Path) -> None:
    """Each reconnection with a pin rewrote it: with the folder's disk full (another user
    filled a shared /tmp's inodes) `president play`'s client could not come back."""
    path = private(tmp_path) / "server"
    async with running_server(tmp_path, unix_socket=path) as server:
        known = KnownServers(tmp_path / "known")
        link = await connect(f"unix:{path}", "ann", known=known, pin=server.fingerprint)
        await link.close()
        written = known.path.stat().st_ino
        link = await connect(f"unix:{path}", "ann", known=known, pin=server.fingerprint)
        await link.close()
        assert known.path.stat().st_ino == written  # (a write replaces the file)
        assert known.load() == {f"unix:{path}": server.fingerprint}

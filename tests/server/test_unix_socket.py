"""A server on a Unix socket (`ServerConfig.unix_socket`, what `president play` listens
on): only its owner may open it, a folder open to others is refused, and a client
reaches it as `unix:PATH`."""

from __future__ import annotations

import os
import socket
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

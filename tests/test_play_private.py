"""`president play` as a person runs it, in a real terminal, against a hostile local user:
the README says its embedded server lets nobody else in (loopback is every local
user's: a hostile pass listed its tables, watched the game and chatted at its table);
and closing the terminal keeps the game's record (the hangup ended the process at once,
the record lost)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys
import tempfile
from pathlib import Path

import pytest
from president.client.connection import ConnectFailed, connect
from president.client.pinning import KnownServers

from .harness.processes import PRESIDENT, environment, president
from .harness.terminal import Terminal
from .harness.waiting import wait_for

pytestmark = pytest.mark.slow

#: Shown only once the game is on and waits for ann (the table before the deal names
#: "ann (you)" too, unmarked, and q there leaves without asking: a run pressed it then).
TURN_SHOWN = "▶ ann (you)"


def sockets_of(pid: int) -> set[str]:
    """The inodes of the sockets process `pid` holds open (found in /proc)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def listening_ports(pid: int) -> list[int]:
    """The TCP ports process `pid` listens on."""
    inodes = sockets_of(pid)
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # (0A: listening)
                    ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def listening_paths(pid: int) -> list[str]:
    """The paths of the Unix sockets process `pid` listens on."""
    inodes = sockets_of(pid)
    paths = []
    with open("/proc/net/unix") as lines:
        next(lines)
        for line in lines:
            fields = line.split()
            # (flags 00010000: accepting connections; the path, when bound to one, last)
            if len(fields) == 8 and fields[3] == "00010000" and fields[6] in inodes:
                paths.append(fields[7])
    return paths


def connect_as(uid: int, path: str) -> str:
    """What a process of user `uid` meets connecting to the Unix socket at `path`."""
    child = os.fork()
    if child == 0:  # (only system calls here, then out: no Python state is touched)
        code = 3
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            with socket.socket(socket.AF_UNIX) as sock:
                sock.connect(path)
            code = 0
        except PermissionError:
            code = 1
        except BaseException:
            code = 2
        os._exit(code)
    _, status = os.waitpid(child, 0)
    return {0: "connected", 1: "permission denied"}.get(os.waitstatus_to_exitcode(status), "?")


def play(tmp_path: Path, temporary: Path | None = None) -> Terminal:
    """`president play` in a terminal, its home in `tmp_path`; with `temporary` as its
    TMPDIR (and no XDG_RUNTIME_DIR: the game's folder goes there, if a socket fits)."""
    env = environment(tmp_path)
    if temporary is not None:
        env["TMPDIR"] = str(temporary)
        env.pop("XDG_RUNTIME_DIR", None)
    command = [*PRESIDENT, "play", "--name", "ann", "--bots", "random", "--bot-delay", "0"]
    return Terminal(command, env, rows=24, columns=80, stderr_apart=True)


@pytest.mark.skipif(not Path("/proc/net/unix").exists(), reason="needs Linux's /proc")
async def test_another_local_user_cannot_reach_the_game(tmp_path: Path) -> None:
    """Its server listens on no port (loopback is every local user's: one of them could
    also fill the connections an address may hold, and the player could not come back
    after a drop), only on a Unix socket its user alone may open; and that asks a
    password, which only the game's own client has."""
    ann = play(tmp_path)
    try:
        await ann.shows(TURN_SHOWN, 60)
        assert listening_ports(ann.proc.pid) == []
        paths = listening_paths(ann.proc.pid)
        assert len(paths) == 1, paths
        path = Path(paths[0])
        assert path.stat().st_mode & 0o777 == 0o600
        folder = path.parent.stat()
        assert folder.st_uid == os.getuid() and folder.st_mode & 0o777 == 0o700
        if os.getuid() == 0:  # (as root, another user can be tried: nobody's uid)
            assert await asyncio.to_thread(connect_as, 65534, str(path)) == "permission denied"
        known = KnownServers(tmp_path / "eve-known")  # (a client of ann's own, no password)
        for password in (None, "local", "ann"):
            with pytest.raises(ConnectFailed) as refused:
                await connect(f"unix:{path}", "eve", known=known, password=password)
            said = str(refused.value)
            assert "password" in said, said
        assert ann.proc.poll() is None and TURN_SHOWN in ann.text()
        ann.proc.send_signal(signal.SIGTERM)
        assert await ann.exits(30) == 0, ann.errors()
        assert not path.parent.exists()  # (gone with the game)
    finally:
        ann.close()


async def test_closing_the_terminal_keeps_the_games_record(tmp_path: Path) -> None:
    ann = play(tmp_path)
    records = tmp_path / "share" / "president" / "local" / "records"
    try:
        await ann.shows(TURN_SHOWN, 60)
        await asyncio.sleep(1)  # (the bots play on: a game under way)
        # the terminal window closed: its side of the terminal goes, the kernel hangs up
        os.close(ann.master)
        shown, ann.shown.fd = ann.shown.fd, -1
        os.close(shown)
        assert await asyncio.to_thread(ann.proc.wait, 30) == 0, ann.errors()
        saved = list(records.glob("*.json"))
        assert len(saved) == 1 and '"format": "president-record/1"' in saved[0].read_text()
    finally:
        if ann.proc.poll() is None:
            ann.proc.send_signal(signal.SIGKILL)
        ann.close()


@pytest.mark.parametrize("how", ["q twice", "ctrl-c", "sigterm"])
async def test_a_game_left_early_keeps_its_record(how: str, tmp_path: Path) -> None:
    """The README: a game left early is recorded too (q asked twice, Ctrl-C, SIGTERM;
    the terminal closed, above)."""
    ann = play(tmp_path)
    records = tmp_path / "share" / "president" / "local" / "records"
    try:
        await ann.shows(TURN_SHOWN, 60)
        if how == "q twice":
            ann.send("q")
            await ann.shows("press q again", 10)  # (mid-game it asks again)
            ann.send("q")
        elif how == "ctrl-c":
            ann.ctrl_c()
        else:
            ann.proc.send_signal(signal.SIGTERM)
        assert await ann.exits(30) == 0, ann.errors()
        await wait_for(lambda: list(records.glob("*.json")), 10)
        assert "game record: " in ann.output()
        # and where to see every game's: `president stats`, which reads them
        assert "the ladder of all your games here: president stats\r\n" in ann.output()
        (kept,) = records.glob("*.json")  # (and was it the cards: `analyze`, a newcomer's pass)
        assert f"was it the cards or you: president analyze {kept}\r\n" in ann.output()
        ladder = president("stats", env=environment(tmp_path))
        assert ladder.stdout.startswith(f"Ladder of the 1 game record in {records}:"), ladder
    finally:
        ann.close()


@pytest.mark.skipif(not Path("/proc/net/unix").exists(), reason="needs Linux's /proc")
async def test_a_game_killed_leaves_a_folder_the_next_game_sweeps_away(tmp_path: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="p-"))  # (short: a socket's path fits)
    first = play(tmp_path, scratch)
    try:
        await first.shows(TURN_SHOWN, 60)
        left = Path(listening_paths(first.proc.pid)[0]).parent
        first.proc.send_signal(signal.SIGKILL)
        assert await first.exits(30) == -signal.SIGKILL
    finally:
        first.close()
    assert left.parent == scratch and (left / "server").exists()
    os.utime(left, (left.stat().st_mtime - 120,) * 2)  # (a minute and more ago)
    second = play(tmp_path, scratch)
    try:
        await second.shows(TURN_SHOWN, 60)
        await wait_for(lambda: not left.exists(), 10)  # (swept beside the game)
        assert [p.parent for p in map(Path, listening_paths(second.proc.pid))] == [
            *scratch.iterdir()
        ]
    finally:
        second.close()
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.skipif(not Path("/proc/net/unix").exists(), reason="needs Linux's /proc")
async def test_a_temporary_folder_too_long_for_a_socket_is_passed_over(tmp_path: Path) -> None:
    """A test runner's TMPDIR (over a hundred bytes) sent the game to loopback."""
    long = tmp_path / ("x" * 100)
    long.mkdir()
    ann = play(tmp_path, long)
    try:
        await ann.shows(TURN_SHOWN, 60)
        assert listening_ports(ann.proc.pid) == []
        paths = listening_paths(ann.proc.pid)
        assert len(paths) == 1 and Path(paths[0]).parent.parent == Path("/tmp"), paths
        ann.proc.send_signal(signal.SIGTERM)
        assert await ann.exits(30) == 0, ann.errors()
        assert not Path(paths[0]).parent.exists()
    finally:
        ann.close()


def test_the_hints_name_the_command_as_it_was_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README's first command runs `.venv/bin/president`, with no `president` on the
    PATH: the hints' `president stats` was not found (a newcomer's pass)."""
    from president.cli.play import invoked_as

    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    ran = venv / "president"
    ran.write_text("#!/bin/sh\n")
    ran.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(ran), "play"])
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert invoked_as() == str(ran)
    monkeypatch.setenv("PATH", str(venv))  # (activated: its own `president` is found)
    assert invoked_as() == "president"
    monkeypatch.setattr(sys, "argv", ["/x/president/cli/__main__.py"])  # (python -m)
    assert invoked_as() == "president"

"""The one way the scripts start a real `president server`: on loopback, its stdout read up
to the line that says it is ready (then drained, so a full pipe never blocks it), its
port and certificate fingerprint taken from what it printed.  The tests' harness builds
its processes' environment here too (`environment`), so a script and a test keep their
`president` processes out of the real home the same way.

    from servers import start_server, stop_server
    server = start_server(args.python, data, "--pause", "0")
    ... connect(server.address, name, pin=server.pin) ...
    stop_server(server.proc)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO


def _environ() -> dict[str, str]:
    """A copy of os.environ as it is now.  (Copying reads each variable's name, then its
    value: a variable removed in between by another thread is a KeyError.  pytest sets
    and removes PYTEST_CURRENT_TEST on its own thread while a test's threads start
    processes: then the copy is taken again.)"""
    while True:
        try:
            return dict(os.environ)
        except KeyError:
            continue


def environment(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment for a `president` process, with no password of ours
    (PRESIDENT_*) and its home, keys, known servers and data under `home`, never the
    real ones."""
    env = {k: v for k, v in _environ().items() if not k.startswith("PRESIDENT_")}
    env.update(
        HOME=str(home / "home"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "share"),
        **extra,
    )
    return env


def port_and_pin(head: str) -> tuple[int, str]:
    """The port and the certificate fingerprint a server on 127.0.0.1 printed as it
    started."""
    port = re.search(r"listening on 127\.0\.0\.1:(\d+)", head)
    pin = re.search(r"SHA-256\): ([0-9A-F:]{95})", head)
    if port is None or pin is None:
        raise RuntimeError("the server did not say its port and fingerprint:\n" + head)
    return int(port.group(1)), pin.group(1)


@dataclass(frozen=True)
class Started:
    """A server started and ready: its process, port and certificate fingerprint, and
    what it printed up to then."""

    proc: subprocess.Popen[str]
    port: int
    pin: str
    head: str

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def start_process(
    command: list[str],
    until: str,
    env: dict[str, str] | None = None,
    stderr: IO[str] | int | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """`command` started, its stdout read line by line up to one holding `until`, then
    drained in a thread: the process and what it printed up to there."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
    assert proc.stdout is not None
    head = ""
    while until not in head:
        line = proc.stdout.readline()
        if not line:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"{command[:4]} ended before saying {until!r}:\n{head}")
        head += line
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, head


def start_server(
    python: str,
    data: Path,
    *extra: str,
    port: int = 0,
    env: dict[str, str] | None = None,
    stderr: IO[str] | int | None = None,
    announce: bool = False,
) -> Started:
    """`president server` run by `python` (another checkout's venv for a "before"
    figure) on 127.0.0.1:`port` (0: a free one) with `data` and the `extra` options,
    once it is ready: after "Ctrl-C", or, with `announce`, once it says whether it is
    announced on the LAN (an error if it is not).  Its stderr goes to `stderr` (a log
    file, DEVNULL; None: this process's)."""
    command = [python, "-m", "president.cli", "server", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data", str(data)]
    command += [*extra] if announce else ["--no-announce", *extra]
    until = "announced on the LAN" if announce else "Ctrl-C"
    proc, head = start_process(command, until, env=env, stderr=stderr)
    if announce and "not announced" in head:
        stop_server(proc)
        raise RuntimeError("the server was not announced:\n" + head)
    try:
        port, pin = port_and_pin(head)
    except RuntimeError:
        stop_server(proc)
        raise
    return Started(proc, port, pin, head)


def stop_server(
    proc: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout: float = 10
) -> int | None:
    """`sig` (SIGTERM; SIGINT is Ctrl-C) to a server, and its exit status once it exits,
    or None if it had to be killed after `timeout` seconds."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


class LoggedServer:
    """A real `president server` for an attack script (scripts/attack_*.py): in a home
    folder of its own (`environment`), its stderr kept in `home/server.log`;
    `restart()` runs it again on the same data, `stop()` stops it and prints the log's
    size, its tracebacks and the command that ran it.

        server = LoggedServer(args.python, "president-flood-", "--pause", "0")
        try:
            ... connect(server.address, name, pin=server.pin) ...
        finally:
            tracebacks = server.stop()
    """

    def __init__(self, python: str, prefix: str, *options: str) -> None:
        self.python, self.options = python, options
        self.home = Path(tempfile.mkdtemp(prefix=prefix))
        self.data = self.home / "server"
        self.env = environment(self.home)
        self.log_path = self.home / "server.log"
        self._log = self.log_path.open("w")
        self.started = self.start()

    def start(self) -> Started:
        """Run it (again, once stopped) on its data."""
        self.started = start_server(
            self.python, self.data, *self.options, env=self.env, stderr=self._log
        )
        return self.started

    @property
    def address(self) -> str:
        return self.started.address

    @property
    def pin(self) -> str:
        return self.started.pin

    @property
    def proc(self) -> subprocess.Popen[str]:
        return self.started.proc

    def restart(self, sig: int = signal.SIGTERM) -> None:
        """Stop it with `sig` and start it again on the same data."""
        stop_server(self.started.proc, sig)
        self.start()

    def stop(self) -> int:
        """Stop it; print the log's lines and tracebacks and the command; the number of
        tracebacks."""
        stop_server(self.started.proc)
        self._log.close()
        text = self.log_path.read_text()
        tracebacks = text.count("Traceback")
        print(f"server log: {len(text.splitlines())} lines, {tracebacks} tracebacks")
        print(f"server: {self.python} (command: python {' '.join(sys.argv)})")
        return tracebacks

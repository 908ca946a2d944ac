"""`president` commands as processes, as a host, a player or a script runs them: their
output read as it comes (a full pipe would block them), their environment kept inside
the test's own directories."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# the environment of a `president` process, kept out of the real home: the scripts' own
from scripts.servers import environment as environment
from scripts.servers import port_and_pin

from .ports import free_port
from .terminal import Stream
from .waiting import wait_for

#: The command, as the installed package runs it (`president` is the same entry point).
PRESIDENT = (sys.executable, "-m", "president.cli")


def president(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60,
    encoding: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`president ARGS` run to its end, no terminal, nothing on stdin: its status and
    output (read in `encoding`, the locale's if None)."""
    return subprocess.run(
        [*PRESIDENT, *args],
        capture_output=True,
        text=True,
        encoding=encoding,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def _hangup_as_a_terminal_gives_it() -> None:
    """In the child: SIGHUP at its default, whatever the test runner's (a run under
    `nohup` ignored it, and the test of a host's closed terminal failed on correct
    code: the server, as under `nohup`, rightly kept running)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class Process:
    """`command` (by default `president ARGS`) running, its stdout read as it comes, and
    its stderr too (or, with `merge_stderr`, into stdout).  With `stdout_apart`, stdout
    is left to the test (`proc.stdout`: a pipe it may read, or close as `tee` would)."""

    def __init__(
        self,
        args: Sequence[str],
        env: dict[str, str] | None = None,
        *,
        merge_stderr: bool = False,
        stdout_apart: bool = False,
        command: Sequence[str] = PRESIDENT,
    ) -> None:
        self.proc = subprocess.Popen(
            [*command, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            env=env,
            text=stdout_apart,
            preexec_fn=_hangup_as_a_terminal_gives_it,  # (async-signal-safe calls only)
        )
        self.out = Stream(os.open(os.devnull, os.O_RDONLY))
        if not stdout_apart:
            self.out = self._stream(self.proc.stdout)
        self.err = self._stream(self.proc.stderr) if self.proc.stderr is not None else None

    def _stream(self, pipe: object) -> Stream:
        fd = os.dup(pipe.fileno())  # type: ignore[attr-defined]
        pipe.close()  # type: ignore[attr-defined]
        return Stream(fd)

    # --- what it said ------------------------------------------------------------------

    def text(self) -> str:
        """Its stdout so far."""
        return self.out.text()

    def errors(self) -> str:
        """Its stderr so far."""
        return self.err.text() if self.err is not None else ""

    def lines(self) -> list[str]:
        return self.text().splitlines(keepends=True)

    def count(self, words: str, since: int = 0) -> int:
        """Lines from line `since` on that hold `words`."""
        return sum(words in line for line in self.lines()[since:])

    def _said(self) -> str:
        return f"exit {self.proc.poll()}; stdout:\n{self.text()}stderr:\n{self.errors()}"

    async def said(self, words: str, times: int = 1, since: int = 0, timeout: float = 20) -> None:
        """Until `times` lines from line `since` on hold `words`; fails at once if the
        process ends first."""

        def enough() -> bool:
            if self.count(words, since) >= times:
                return True
            assert self.proc.poll() is None, f"ended before {times} × {words!r}: {self._said()}"
            return False

        await wait_for(enough, timeout, lambda: f"never {times} × {words!r}: {self._said()}")

    def expect(self, words: str, timeout: float = 60) -> str:
        """For code that is not a coroutine (a fixture, a thread): block until its stdout
        holds `words`, as each piece arrives; its stdout then.  Fails if it ends first."""
        with self.out.arrived:
            self.out.arrived.wait_for(lambda: words in self.text() or self.out.ended, timeout)
        text = self.text()
        assert words in text, f"never said {words!r}: {self._said()}"
        return text

    # --- what is done to it ------------------------------------------------------------

    def send_signal(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)

    def wait(self, timeout: float = 30) -> int:
        """Its exit status once it exits, with all it wrote read."""
        code = self.proc.wait(timeout)
        self.out.close()
        if self.err is not None:
            self.err.close()
        return code

    async def exits(self, timeout: float = 30) -> int:
        return await asyncio.to_thread(self.wait, timeout)

    def stop(self, sig: signal.Signals = signal.SIGINT, timeout: float = 30) -> int:
        """`sig` (Ctrl-C's SIGINT by default) and its exit status; killed if it does not
        exit within `timeout`."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.wait(timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        """SIGKILL if it still runs; its streams closed."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.out.close()
        if self.err is not None:
            self.err.close()


class ServerProcess(Process):
    """`president server` as a host runs it, on loopback, with no pauses, started and
    listening: its port, the fingerprint it printed, and what it printed up to
    "Ctrl-C" (`head`).  Port 0 is a free one of this worker's (`ports.free_port`), so
    that a restart finds it free.  Not announced on the LAN unless `announce` (the tests
    of discovery): other tests' servers would be listed beside theirs."""

    def __init__(
        self,
        data: Path,
        port: int = 0,
        *extra: str,
        env: dict[str, str] | None = None,
        stdout_apart: bool = False,
        announce: bool = False,
    ) -> None:
        self.data = data
        self.extra = extra
        self.announce = announce
        quiet = () if announce or "--no-announce" in extra else ("--no-announce",)
        port = port or free_port()
        super().__init__(
            [
                *("server", "--host", "127.0.0.1", "--port", str(port), "--data", str(data)),
                *("--pause", "0", "--bot-delay", "0", *quiet, *extra),
            ],
            env,
            stdout_apart=stdout_apart,
        )
        self.env = env
        try:
            self.head = self._head() if stdout_apart else self.expect("Ctrl-C")
        except AssertionError:
            self.kill()
            raise
        self.port, self.pin = port_and_pin(self.head)

    def _head(self) -> str:
        """Its stdout's lines up to "Ctrl-C", read from the pipe left to the test."""
        assert self.proc.stdout is not None
        head = ""
        while "Ctrl-C" not in head:
            line = self.proc.stdout.readline()
            assert line, f"ended before saying Ctrl-C: {head}{self.errors()}"
            head += line
        return head

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @classmethod
    async def started(
        cls,
        data: Path,
        port: int = 0,
        *extra: str,
        env: dict[str, str] | None = None,
        announce: bool = False,
    ) -> ServerProcess:
        """Started from a coroutine (the start blocks a thread, not the event loop)."""
        return await asyncio.to_thread(lambda: cls(data, port, *extra, env=env, announce=announce))

    async def again(self, data: Path | None = None) -> ServerProcess:
        """Another server on this one's port (and data, unless `data`), once this one has
        stopped: a restart."""
        return await ServerProcess.started(
            data or self.data, self.port, *self.extra, env=self.env, announce=self.announce
        )


def bot_process(
    server: ServerProcess, env: dict[str, str], *args: str, merge_stderr: bool = False
) -> Process:
    """`president bot` at `server`, its certificate pinned as a script passes it."""
    return Process(
        ["bot", server.address, "--fingerprint", server.pin, *args], env, merge_stderr=merge_stderr
    )


def stop(*processes: Process | None) -> None:
    """Kill whatever of `processes` still runs (a test's `finally`)."""
    for process in processes:
        if process is not None:
            process.kill()


class _Written(io.StringIO):
    """Output caught as a terminal or file of `encoding` takes it (a StringIO says none)."""

    def __init__(self, encoding: str | None) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str | None:  # type: ignore[override]
        return self._encoding


def president_here(*args: str, encoding: str | None = None) -> subprocess.CompletedProcess[str]:
    """`president ARGS` run in this process (`president.cli.main`), its output caught: the
    same status and words as the command, for what a process adds nothing to; its stdout
    says `encoding` (none by default: a command shows what any encoding can)."""
    from president.cli import main

    out, err = _Written(encoding), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # (argparse's --help and --version)
            code = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(["president", *args], code, out.getvalue(), err.getvalue())

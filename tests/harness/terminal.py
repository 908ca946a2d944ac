"""A program in a pseudo-terminal, as a person runs it: the terminal is its controlling
terminal (Ctrl-C is a SIGINT, a password prompt reads from it), its screen is kept up to
date as it draws, and a test types keys and reads what is shown."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fcntl
import os
import struct
import subprocess
import termios
import threading
from collections.abc import Callable, Sequence

from .screen import Screen
from .waiting import wait_for


class Stream:
    """What a process writes to a file descriptor, read as it comes by a thread (a full
    pipe or terminal would block the process); `on_text` sees each piece (under `lock`),
    and `arrived` is notified after it (and at the end)."""

    def __init__(self, fd: int, on_text: Callable[[str], None] | None = None) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        self.arrived = threading.Condition()
        self._text: list[str] = []
        self._on_text = on_text
        #: The other end is closed: nothing more will come.
        self.ended = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # a terminal whose other end is gone: EIO
                data = b""
            text = decoder.decode(data, final=not data)
            with self.lock:
                self._text.append(text)
                if self._on_text is not None:
                    self._on_text(text)
                self.ended = not data
            with self.arrived:
                self.arrived.notify_all()
            if not data:
                return

    def text(self) -> str:
        with self.lock:
            return "".join(self._text)

    def close(self) -> None:
        """Once what was written is read (or after 5 s), the descriptor closed (once)."""
        self.thread.join(5)
        fd, self.fd = self.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


def _controlling_terminal() -> None:
    """In the child: a session of its own, with its stdin (the terminal) as the session's
    controlling terminal, as a login shell gives one."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """`command` running in a `rows` × `columns` pseudo-terminal.  Its stderr goes to the
    terminal too, or, with `stderr_apart`, to a pipe of its own (`errors()`)."""

    def __init__(
        self,
        command: Sequence[str],
        env: dict[str, str],
        rows: int = 30,
        columns: int = 100,
        *,
        stderr_apart: bool = False,
        screen: Screen | None = None,
        cwd: str | os.PathLike[str] | None = None,
        term: str = "xterm",
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.screen = screen or Screen(rows, columns)
        self.master = master
        self.proc = subprocess.Popen(
            list(command),
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE if stderr_apart else slave,
            env={**env, "TERM": term, "COLUMNS": str(columns), "LINES": str(rows)},
            cwd=cwd,
            preexec_fn=_controlling_terminal,  # (async-signal-safe calls only)
        )
        os.close(slave)
        self.shown = Stream(os.dup(master), self.screen.feed)
        self.err: Stream | None = None
        if self.proc.stderr is not None:
            self.err = Stream(os.dup(self.proc.stderr.fileno()))
            self.proc.stderr.close()

    # --- what it shows ---------------------------------------------------------------

    def text(self) -> str:
        """The screen, as it is now."""
        with self.shown.lock:
            return self.screen.text()

    def output(self) -> str:
        """Everything written to the terminal so far, control sequences and all."""
        return self.shown.text()

    def errors(self) -> str:
        """What it wrote to its stderr (with `stderr_apart`)."""
        return self.err.text() if self.err is not None else ""

    def _gone(self, what: str) -> str:
        return f"{what}; exit {self.proc.poll()}; the screen:\n{self.text()}\nstderr: {self.errors()!r}"

    async def shows(self, words: str, timeout: float = 20) -> str:
        """The screen once it shows `words`; fails at once if the program ends first."""

        def shown() -> str:
            text = self.text()
            if words in text:
                return text
            assert self.proc.poll() is None, self._gone(f"ended before showing {words!r}")
            return ""

        return await wait_for(shown, timeout, lambda: self._gone(f"never showed {words!r}"))

    async def said(self, words: str, times: int = 1, timeout: float = 20) -> None:
        """Until `words` has been written (to the terminal or stderr) `times` times: for a
        prompt, which a screen may no longer show once it scrolls or is answered."""

        def enough() -> bool:
            if (self.output() + self.errors()).count(words) >= times:
                return True
            assert self.proc.poll() is None, self._gone(f"ended before {times} × {words!r}")
            return False

        await wait_for(enough, timeout, lambda: self._gone(f"never {times} × {words!r}"))

    async def settled(self, at_most: float) -> None:
        """The pause after keys sent: until the screen has changed and then stayed the
        same for 50 ms (the keys handled, and whatever answers at once has answered), or
        `at_most` seconds if it does not.  Not a check: what follows reads the screen."""
        loop = asyncio.get_running_loop()
        screen, changed = [self.text()], [0.0]  # (the screen; when it changed: not yet)

        def still() -> bool:
            if (text := self.text()) != screen[0]:
                screen[0], changed[0] = text, loop.time()
            return bool(changed[0]) and loop.time() - changed[0] >= 0.05

        with contextlib.suppress(AssertionError):  # (`at_most` passed: go on as it is)
            await wait_for(still, at_most)

    # --- what is done to it ----------------------------------------------------------

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def ctrl_c(self) -> None:
        """Ctrl-C typed at the terminal (a SIGINT, unless the program reads keys raw)."""
        self.send("\x03")

    async def exits(self, timeout: float = 20) -> int:
        """Its exit status, once it has exited."""
        await wait_for(
            lambda: self.proc.poll() is not None, timeout, lambda: self._gone("never exited")
        )
        self.shown.thread.join(5)  # what it wrote last is read
        if self.err is not None:
            self.err.thread.join(5)
        return self.proc.returncode

    def wait(self, timeout: float = 30) -> int | None:
        """For a thread that runs a command to its end: its exit status once it exits
        (None if it never did and was killed), with all it wrote read."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout)
        if self.proc.poll() is None:
            self.close()
            return None
        self.shown.thread.join(5)
        if self.err is not None:
            self.err.thread.join(5)
        return self.proc.returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        with contextlib.suppress(OSError):
            os.close(self.master)
        self.shown.close()
        if self.err is not None:
            self.err.close()

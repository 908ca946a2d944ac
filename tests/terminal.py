"""A program in a pseudo-terminal, and the text of its screen: enough of a VT100 to read
what a prompt_toolkit full-screen application shows (cursor moves, erases, text), so a
test can run `president connect` as a person does and read its screen."""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import re
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Sequence

#: A control sequence: CSI with its parameters and final byte, OSC up to BEL or ST,
#: or a two-byte escape.
_ESCAPE = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[()][0-9A-Za-z]"
    r"|\x1b[=>78DEHM]"
)


class Screen:
    """The characters on a `rows` × `columns` screen, as the output drew them."""

    def __init__(self, rows: int, columns: int) -> None:
        self.rows, self.columns = rows, columns
        self.cells = [[" "] * columns for _ in range(rows)]
        self.row = self.column = 0
        self._pending = ""  # the start of a control sequence the next read completes

    def text(self) -> str:
        return "\n".join("".join(line).rstrip() for line in self.cells)

    def feed(self, data: str) -> None:
        data, self._pending = self._pending + data, ""
        cut = data.rfind("\x1b")
        if cut >= 0 and len(data) - cut < 64 and not _ESCAPE.match(data, cut):
            data, self._pending = data[:cut], data[cut:]
        at = 0
        for found in _ESCAPE.finditer(data):
            self._write(data[at : found.start()])
            if found.group(2):
                self._control(found.group(1), found.group(2))
            at = found.end()
        self._write(data[at:])

    def _control(self, params: str, final: str) -> None:
        numbers = [int(p) if p.isdigit() else 0 for p in params.lstrip("?").split(";")]
        n = max(numbers[0], 1)
        if final in "Hf":
            self.row = min(max(numbers[0], 1), self.rows) - 1
            column = numbers[1] if len(numbers) > 1 else 1
            self.column = min(max(column, 1), self.columns) - 1
        elif final == "A":
            self.row = max(self.row - n, 0)
        elif final == "B":
            self.row = min(self.row + n, self.rows - 1)
        elif final == "C":
            self.column = min(self.column + n, self.columns - 1)
        elif final == "D":
            self.column = max(self.column - n, 0)
        elif final == "K" and not params.startswith("?"):
            start = {0: self.column, 1: 0, 2: 0}.get(numbers[0], self.column)
            end = self.column + 1 if numbers[0] == 1 else self.columns
            self.cells[self.row][start:end] = [" "] * (end - start)
        elif final == "J" and not params.startswith("?"):
            if numbers[0] == 2:
                self.cells = [[" "] * self.columns for _ in range(self.rows)]
            elif numbers[0] == 0:
                self.cells[self.row][self.column :] = [" "] * (self.columns - self.column)
                for r in range(self.row + 1, self.rows):
                    self.cells[r] = [" "] * self.columns

    def _write(self, text: str) -> None:
        for char in text:
            if char == "\r":
                self.column = 0
            elif char == "\n":
                self.row = min(self.row + 1, self.rows - 1)
            elif char == "\b":
                self.column = max(self.column - 1, 0)
            elif char >= " ":
                if self.column >= self.columns:
                    self.column = 0
                    self.row = min(self.row + 1, self.rows - 1)
                self.cells[self.row][self.column] = char
                self.column += 1


class Terminal:
    """`command` running in a pseudo-terminal of `rows` × `columns`; its screen kept up
    to date by a reader thread."""

    def __init__(
        self,
        command: Sequence[str],
        env: dict[str, str],
        rows: int = 30,
        columns: int = 100,
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.screen = Screen(rows, columns)
        self.lock = threading.Lock()
        self.master = master
        self.proc = subprocess.Popen(
            list(command),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm", "COLUMNS": str(columns), "LINES": str(rows)},
            start_new_session=True,
        )
        os.close(slave)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.screen.feed(decoder.decode(data))

    def text(self) -> str:
        with self.lock:
            return self.screen.text()

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait_for(self, words: str, timeout: float = 20.0) -> str:
        """The screen once it shows `words`; `AssertionError` with the screen if it never does."""
        end = time.monotonic() + timeout
        while True:
            shown = self.text()
            if words in shown:
                return shown
            if time.monotonic() > end or self.proc.poll() is not None:
                raise AssertionError(f"the screen never showed {words!r}:\n{shown}")
            time.sleep(0.05)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        with contextlib.suppress(OSError):
            os.close(self.master)

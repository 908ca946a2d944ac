"""What a terminal shows: enough of a VT100 to read what a prompt_toolkit application or
a prompt draws (cursor moves, erases, text, the colours and weight of each character)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

#: A control sequence: CSI with its parameters and final byte, OSC up to BEL or ST,
#: or a two-byte escape.
_ESCAPE = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[()][0-9A-Za-z]"
    r"|\x1b[=>78DEHM]"
)


@dataclass(frozen=True)
class Pen:
    """How a character is drawn: its colours as the SGR codes that set them ("91",
    "38;5;196"; "" for the terminal's own) and its attributes."""

    fg: str = ""
    bg: str = ""
    bold: bool = False
    underline: bool = False
    reverse: bool = False


class Screen:
    """The characters on a `rows` × `columns` screen, as the output drew them, and the
    pen each was drawn with."""

    def __init__(self, rows: int, columns: int) -> None:
        self.rows, self.columns = rows, columns
        self.cells = [[" "] * columns for _ in range(rows)]
        self.pens = [[Pen()] * columns for _ in range(rows)]
        self.pen = Pen()
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
        if final == "m" and not params.startswith(("?", ">", "<", "=")):
            self._sgr([int(p) if p.isdigit() else 0 for p in params.split(";")])
            return
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
            self.pens[self.row][start:end] = [Pen()] * (end - start)
        elif final == "J" and not params.startswith("?"):
            if numbers[0] == 2:
                self.cells = [[" "] * self.columns for _ in range(self.rows)]
                self.pens = [[Pen()] * self.columns for _ in range(self.rows)]
            elif numbers[0] == 0:
                self.cells[self.row][self.column :] = [" "] * (self.columns - self.column)
                self.pens[self.row][self.column :] = [Pen()] * (self.columns - self.column)
                for r in range(self.row + 1, self.rows):
                    self.cells[r] = [" "] * self.columns
                    self.pens[r] = [Pen()] * self.columns

    def _sgr(self, codes: list[int]) -> None:
        pen = self.pen
        at = 0
        while at < len(codes):
            code = codes[at]
            if code == 0:
                pen = Pen()
            elif code in (1, 22):
                pen = replace(pen, bold=code == 1)
            elif code in (4, 24):
                pen = replace(pen, underline=code == 4)
            elif code in (7, 27):
                pen = replace(pen, reverse=code == 7)
            elif code in (38, 48):  # 38;5;N or 38;2;R;G;B
                size = 3 if codes[at + 1 : at + 2] == [5] else 5
                colour = ";".join(str(c) for c in codes[at : at + size])
                pen = replace(pen, **{"fg" if code == 38 else "bg": colour})
                at += size - 1
            elif code == 39 or 30 <= code <= 37 or 90 <= code <= 97:
                pen = replace(pen, fg="" if code == 39 else str(code))
            elif code == 49 or 40 <= code <= 47 or 100 <= code <= 107:
                pen = replace(pen, bg="" if code == 49 else str(code))
            at += 1
        self.pen = pen

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
                self.pens[self.row][self.column] = self.pen
                self.column += 1


class MainScreen(Screen):
    """A screen with what a full-screen application's end brings back: leaving the
    alternate screen restores the main one and its cursor, and text written on the last
    row scrolls up (a question printed after a picker has gone)."""

    saved: tuple[list[list[str]], int, int] | None = None

    def _control(self, params: str, final: str) -> None:
        if params == "?1049" and final == "h":
            self.saved = ([row[:] for row in self.cells], self.row, self.column)
        elif params == "?1049" and final == "l" and self.saved is not None:
            cells, self.row, self.column = self.saved
            self.cells = [row[:] for row in cells]
        else:
            super()._control(params, final)

    def _write(self, text: str) -> None:
        for char in text:
            if char == "\n" and self.row == self.rows - 1:
                self.cells = [*self.cells[1:], [" "] * self.columns]
                self.pens = [*self.pens[1:], [Pen()] * self.columns]
            else:
                super()._write(char)

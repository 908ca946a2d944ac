"""A prompt_toolkit application in this process, drawing through its real VT100 output
into a virtual terminal of a fixed size, its keys typed through a pipe as a terminal
would send them: what a person at that terminal sees and types, without a process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

from president.client.connection import Client
from president.client.tui.app import TableApp
from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.output import DummyOutput, Output
from prompt_toolkit.output.vt100 import Vt100_Output

from .screen import Screen
from .waiting import wait_for


def key_presses(keys: str) -> int:
    """How many key presses a terminal's `keys` are (an arrow's escape sequence is one)."""
    found: list[KeyPress] = []
    parser = Vt100Parser(found.append)
    parser.feed(keys)
    parser.flush()
    return len(found)


class AppTerminal:
    """A `rows` × `columns` terminal: `output` for the application to draw on (read into
        `screen` as it is written), `keys` its input.  `start(app)` runs the application;
        `press` types and returns the screen once the keys were handled and drawn.  Once the
    application is done, the screen keeps its last frame (not what leaving erases)."""

    encoding = "utf-8"

    def __init__(self, rows: int, columns: int, keys: PipeInput) -> None:
        self.screen = Screen(rows, columns)
        self.written: list[str] = []
        self.output = Vt100_Output(
            self,  # type: ignore[arg-type]
            lambda: Size(rows=rows, columns=columns),
            term="xterm",
            enable_cpr=False,
        )
        self.keys = keys
        self.app: Application[None] | None = None
        self.running: asyncio.Task[None] | None = None
        #: Renders done, and key presses handled, since `start`.
        self.renders = 0
        self.pressed = 0

    # (the output's stream)
    def write(self, data: str) -> int:
        self.written.append(data)
        if self.app is None or not self.app.is_done:  # (the screen keeps the last frame)
            self.screen.feed(data)
        return len(data)

    def flush(self) -> None:
        pass

    def _rendered(self, _: object) -> None:
        self.renders += 1

    def _handled(self, _: object) -> None:
        self.pressed += 1

    def watch(self, app: Application[None]) -> None:
        """Count `app`'s renders and handled keys (before it runs)."""
        self.app = app
        app.after_render += self._rendered
        app.key_processor.after_key_press += self._handled

    async def start(self, app: Application[None]) -> str:
        """Run `app`; the screen once it has drawn."""
        self.watch(app)
        self.running = asyncio.create_task(app.run_async())
        return await self.drawn(0)

    async def drawn(self, since: int) -> str:
        """The screen once a render after render number `since` is done."""
        await wait_for(lambda: self.renders > since, what=self.text)
        return self.text()

    async def redraw(self) -> str:
        """The screen drawn again now (what changed meanwhile shows)."""
        assert self.app is not None
        since = self.renders
        self.app.invalidate()
        return await self.drawn(since)

    def type(self, keys: str) -> int:
        """Type `keys` without waiting; the count of key presses to wait for."""
        expected = self.pressed + key_presses(keys)
        self.keys.send_text(keys)
        return expected

    async def handled(self, expected: int) -> None:
        await wait_for(lambda: self.pressed >= expected, what=self.text)

    async def step(self, keys: str, times: int = 1) -> None:
        """Type `keys` `times` times, each time until the application has handled them
        (it draws between them as for a person), without reading the screen: the way to a
        screen that `press` then reads."""
        for _ in range(times):
            await self.handled(self.type(keys))

    async def press(self, keys: str) -> str:
        """Type `keys`; the screen once the application has handled them all and drawn."""
        await self.handled(self.type(keys))
        return await self.redraw()

    async def left(self, keys: str = "") -> None:
        """Type `keys` (if any), then until the application has ended."""
        assert self.running is not None
        if keys:
            self.keys.send_text(keys)
        await wait_for(self.running.done, what=self.text)
        await self.running  # (its exception, if it failed)

    async def stop(self) -> None:
        """End the application (if it has not ended) and wait for it."""
        assert self.app is not None and self.running is not None
        if not self.running.done() and self.app.is_running and not self.app.is_done:
            self.app.exit()
        await wait_for(self.running.done, what=self.text)

    def text(self) -> str:
        return self.screen.text()

    def lines(self) -> list[str]:
        return self.screen.text().split("\n")

    def all_output(self) -> str:
        """Everything the application wrote, control sequences and all."""
        return "".join(self.written)


@contextlib.contextmanager
def app_terminal(rows: int, columns: int) -> Iterator[AppTerminal]:
    """A virtual terminal with its key pipe, closed after."""
    with create_pipe_input() as keys:
        yield AppTerminal(rows, columns, keys)


@contextlib.asynccontextmanager
async def table_app(
    client: Client, output: Output | None = None
) -> AsyncIterator[tuple[TableApp, PipeInput]]:
    """`client`'s table screen running in this process, reading from its server, its keys
    typed through a pipe (drawn nowhere, or on `output`); stopped at the end."""
    with create_pipe_input() as keys:
        table = TableApp(client, input=keys, output=output or DummyOutput())
        network = asyncio.create_task(table.network())
        running = asyncio.create_task(table.app.run_async())
        try:
            yield table, keys
        finally:
            network.cancel()
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)


async def my_turn_by_keys(table: TableApp, keys: PipeInput) -> None:
    """One turn of mine played by keys, as a person following `s` would: the suggested
    play and enter, or a pass; back once the server has told of it."""
    model, screen = table.client.model, table.screen
    # (the turn can be told before the cards sealed to me are: s then suggests nothing,
    # a CI run)
    await wait_for(lambda: bool(model.hand) or not model.my_turn, 30)
    if not model.my_turn:
        return
    since, viewed = len(model.events), model.seen
    screen.message = ""
    keys.send_text("s")
    await wait_for(lambda: bool(screen.selected or screen.message))
    keys.send_text("\r" if screen.selected else "p")
    # (back once the move is told, and the view after it too: my own play's event comes
    # before the view that ends my turn, and a next turn taken from the view before it,
    # stale, pressed s on a turn that was not mine: a CI run hung on correct code)
    await wait_for(
        lambda: (len(model.events) > since and model.seen > viewed) or screen.game_over(), 30
    )

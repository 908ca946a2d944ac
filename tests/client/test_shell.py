"""One application for every screen: a stack of screens on one prompt_toolkit
`Application`, the top one drawing, taking the keys and hearing the server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from president.client.tui.shell import Shell
from president.protocol import messages as m
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, Window
from prompt_toolkit.output import DummyOutput

from ..harness.waiting import wait_for


@dataclass(eq=False)
class Note:
    """A screen that shows its name, notes its keys and messages, and leaves with q."""

    shell: Shell
    name: str
    keys: list[str] = field(default_factory=list)
    heard: list[m.Message] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    mouse: bool = False

    def __post_init__(self) -> None:
        self.window = Window(FormattedTextControl(self.name, focusable=True))
        self.container = self.window
        self.focus = self.window
        self.bindings = KeyBindings()

        @self.bindings.add("<any>")
        def _key(event: KeyPressEvent) -> None:
            self.keys.append(event.data)

        @self.bindings.add("q")
        def _leave(event: KeyPressEvent) -> None:
            self.shell.pop(self)

    async def on_message(self, message: m.Message) -> None:
        self.heard.append(message)

    def status(self, what: str) -> None:
        self.states.append(what)

    def key_pressed(self) -> None:
        pass

    def before_render(self) -> None:
        pass


async def test_screens_come_and_go_on_one_application() -> None:
    with create_pipe_input() as keys:
        shell = Shell(input=keys, output=DummyOutput())
        lobby, table = Note(shell, "lobby"), Note(shell, "table")
        shown: list[str] = []

        async def driver() -> None:
            shell.push(lobby)
            await wait_for(lambda: shell.app.is_running)
            shown.append("lobby")
            await shell.show(table)  # until q leaves it
            shown.append("back")
            await shell.show(Note(shell, "standings"))

        driving = asyncio.create_task(shell.hold(driver))
        await wait_for(lambda: shown == ["lobby"] and shell.top is table)
        app = shell.app
        keys.send_text("x")
        await wait_for(lambda: table.keys == ["x"])
        await shell.on_message(m.Ping(nonce=1))
        shell.status("reconnecting (attempt 1)")
        assert table.heard == [m.Ping(nonce=1)] and lobby.heard == []
        assert table.states == ["reconnecting (attempt 1)"] and lobby.states == []
        keys.send_text("q")  # the table leaves: the lobby is on top again
        await wait_for(lambda: shown == ["lobby", "back"])
        assert shell.stack[0] is lobby and shell.app is app and app.is_running
        keys.send_text("q")  # the standings leave; the driver returns, the application ends
        await asyncio.wait_for(driving, 10)
        assert not app.is_running and lobby.keys == [] and table.keys == ["x"]


@contextlib.asynccontextmanager
async def alone() -> AsyncIterator[tuple[Shell, Note, PipeInput]]:
    """A shell running with one screen of its own on it; q leaves it, and ends it."""
    with create_pipe_input() as keys:
        shell = Shell(input=keys, output=DummyOutput())
        note = Note(shell, "alone")
        shell.push(note)
        running = asyncio.create_task(shell.app.run_async())
        await wait_for(lambda: shell.app.is_running)
        yield shell, note, keys
        keys.send_text("q")
        await asyncio.wait_for(running, 10)


async def test_a_screen_of_its_own_ends_the_application_when_it_leaves() -> None:
    async with alone() as (shell, _, _):
        pass
    assert not shell.stack


async def test_a_driver_that_fails_before_any_screen_starts_no_application() -> None:
    with create_pipe_input() as keys:
        shell = Shell(input=keys, output=DummyOutput())

        async def driver() -> None:
            raise ConnectionError("refused")

        try:
            await shell.hold(driver)
        except ConnectionError as exc:
            assert str(exc) == "refused"
        else:
            raise AssertionError("the driver's failure was not raised")
        assert not shell.app.is_running and shell._running is None


async def test_ctrl_z_suspends_to_the_shell_on_any_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal pass: Ctrl-Z did nothing (and in a chat line typed a ^Z the server
    refused); now it suspends, as other terminal programs do, before the screen's own
    keys see it."""
    from prompt_toolkit.application import Application

    suspended: list[bool] = []
    monkeypatch.setattr(
        Application, "suspend_to_background", lambda self, *a, **k: suspended.append(True)
    )
    async with alone() as (_, note, keys):
        keys.send_text("\x1a")
        await wait_for(lambda: suspended == [True])
        keys.send_text("x")
        await wait_for(lambda: note.keys == ["x"])  # (the ^Z never reached the screen)

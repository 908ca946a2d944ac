"""One prompt_toolkit application for every screen of the client, with a stack of
screens (server picker → lobby → table; the replay viewer), as Textual's `App` and
pyvim's editor keep theirs: the screen on top draws (a `DynamicContainer`), takes the
keys (`DynamicKeyBindings`), hears the server (`on_message`) and shows the connection's
state (`status`).  Screens come and go with `push` and `pop` (`show` pushes one and
waits until it is popped), so nothing swaps callbacks and no screen misses what came
before it opened: each reads the client model, which heard it."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import textwrap
from collections.abc import Awaitable, Callable
from typing import Protocol

from president.protocol import messages as m
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase
from prompt_toolkit.key_binding.key_bindings import (
    ConditionalKeyBindings,
    DynamicKeyBindings,
    merge_key_bindings,
)
from prompt_toolkit.key_binding.key_processor import KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.containers import AnyContainer, Container, to_container
from prompt_toolkit.layout.layout import FocusableElement
from prompt_toolkit.output import Output

from .glyphs import terminal_output
from .theme import color_depth, style_for

#: The smallest terminal the screens are made for (docs: every screen is tried from
#: 60x16 to 120x40); a smaller one is told so.
MIN_COLUMNS, MIN_ROWS = 60, 16


class Screen(Protocol):
    """What the shell needs of a screen."""

    @property
    def container(self) -> AnyContainer:
        """What it draws."""

    @property
    def bindings(self) -> KeyBindingsBase:
        """Its keys."""

    @property
    def focus(self) -> FocusableElement | None:
        """What has the focus when it comes on top."""

    @property
    def mouse(self) -> bool:
        """Whether it takes the mouse."""

    async def on_message(self, message: m.Message) -> None: ...

    def status(self, what: str) -> None: ...

    def key_pressed(self) -> None: ...

    def before_render(self) -> None: ...


def shell_for(
    screen: Screen,
    shell: Shell | None,
    theme: str,
    input: Input | None,
    output: Output | None,
) -> Shell:
    """The shell `screen` is drawn on: `shell` (whoever passed it pushes the screen), or
    a shell of its own with `screen` on it."""
    if shell is not None:
        return shell
    own = Shell(theme, input, output, refresh_interval=None)
    own.push(screen)
    return own


#: The terminal's title at a table (`Shell.turn`).
TITLE = "president"
TURN_TITLE = "president: your turn"
#: xterm's title stack (kept by xterm, VTE, kitty and others; ignored elsewhere): the
#: terminal's own title saved before ours, and shown again after.
PUSH_TITLE, POP_TITLE = "\x1b[22;0t", "\x1b[23;0t"


def _titles(output: Output) -> bool:
    """The output is a terminal that takes titles (prompt_toolkit writes none to the
    Linux console, nor to Emacs' terminal)."""
    term = getattr(output, "term", None)
    return isinstance(term, str) and term not in ("linux", "eterm-color")


class Shell:
    """The application and its stack of screens.  With nothing holding it (`hold`), the
    application ends when its last screen is popped."""

    def __init__(
        self,
        theme: str = "dark",
        input: Input | None = None,
        output: Output | None = None,
        *,
        refresh_interval: float | None = 0.5,
    ) -> None:
        self.stack: list[Screen] = []
        #: A driver holds the shell while it has more screens to show.
        self.held = False
        self._ends: dict[int, asyncio.Future[None]] = {}
        self._running: asyncio.Future[None] | None = None
        self._driving: asyncio.Future[None] | None = None
        self._blank = Window()
        self._small = Window()
        self._wrapped: tuple[Container, Container] | None = None
        #: The top screen's keys, and what the shell makes of them (`_bindings`).
        self._keys: tuple[KeyBindingsBase, KeyBindingsBase] | None = None
        self.app: Application[None] = Application(
            layout=Layout(DynamicContainer(self._container)),
            key_bindings=DynamicKeyBindings(self._bindings),
            style=style_for(theme),
            color_depth=color_depth(theme),
            full_screen=True,
            mouse_support=Condition(lambda: bool(self.stack) and self.stack[-1].mouse),
            # (the table's turn timer counts down; the lobby's list is kept fresh)
            refresh_interval=refresh_interval,
            # (at most 50 redraws a second, however many messages come: a hostile server's
            # flood of table news was a redraw each)
            min_redraw_interval=0.02,
            input=input,
            # (a terminal that cannot show every character: drawn in what it can)
            output=output if output is not None else terminal_output(),
        )
        self.app.ttimeoutlen = self.app.timeoutlen = 0.05  # esc acts at once
        #: Ring the terminal's bell when my turn comes (`--bell`).
        self.bell = False
        #: The terminal's title says whose turn it is (`turn`); set back when the
        #: application ends.
        self._titled = False
        self.app.key_processor.before_key_press += lambda _: self._top(lambda s: s.key_pressed())
        self.app.before_render += lambda _: self._top(lambda s: s.before_render())

    # --- the stack ------------------------------------------------------------------

    @property
    def top(self) -> Screen | None:
        return self.stack[-1] if self.stack else None

    def push(self, screen: Screen) -> None:
        """`screen` on top: it draws, takes the keys and hears the server."""
        self.stack.append(screen)
        self._focus()
        if self.held:
            self._start()

    def pop(self, screen: Screen) -> None:
        """`screen` leaves the stack (the one under it is on top again); the last one
        leaving ends the application, unless a driver holds it."""
        if screen not in self.stack:
            return
        self.stack.remove(screen)
        end = self._ends.pop(id(screen), None)
        if end is not None and not end.done():
            end.set_result(None)
        if not self.stack and not self.held:
            self.exit()
        else:
            self._focus()

    async def show(self, screen: Screen) -> None:
        """Push `screen` and wait until it is popped."""
        end: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._ends[id(screen)] = end
        self.push(screen)
        await end

    def exit(self) -> None:
        if self.app.is_running and self.app.future is not None and not self.app.is_done:
            self.app.exit()

    def invalidate(self) -> None:
        self.app.invalidate()

    async def run(self, driver: Callable[[], Awaitable[None]]) -> None:
        """`driver` shows its screens on this shell: at once if the shell is already
        held by a driver (this one's caller), else holding it (`hold`)."""
        if self.held:
            await driver()
        else:
            await self.hold(driver)

    async def hold(self, driver: Callable[[], Awaitable[None]]) -> None:
        """Run `driver`, which shows its screens on this shell one after another: the
        application starts with the first screen shown (so what fails before any, or a
        question asked before, is on the terminal as it is) and ends when the driver
        returns or fails; the driver is stopped if the application ends.  The driver
        runs as the application's own code (`get_app()` is it: `in_terminal` sets the
        screen aside for a question on the terminal)."""
        self.held = True
        try:
            with set_app(self.app):
                driving = asyncio.ensure_future(driver())
            self._driving = driving
            await asyncio.wait({driving})
        finally:
            self.held = False
            self._driving = None
            self.untitle()
            if not driving.done():
                driving.cancel()
            running = self._running
            if running is not None:
                if self.app.is_running and self.app.future is not None:
                    self.exit()
                else:
                    running.cancel()
                await asyncio.gather(running, driving, return_exceptions=True)
            self._running = None
        if not driving.cancelled():
            driving.result()  # (what the driver raised, raised here)
        elif running is not None and not running.cancelled():
            running.result()  # (the application's own failure)

    def _start(self) -> None:
        """The application, running from the first screen shown on a held shell."""
        if self._running is not None:
            return
        # (ctrl-c is a key while a screen is up; at a question on the terminal, it is
        # SIGINT, stopping the command as it does without the shell)
        self._running = asyncio.ensure_future(self.app.run_async(handle_sigint=False))
        self._running.add_done_callback(self._ended)

    def turn(self, mine: bool) -> None:
        """My turn came (`mine`) or went: the terminal's title says so (a player in
        another window on game night sees it in the task bar or the tab), and with
        `bell`, the bell rings as it comes.  In ASCII: a table's name is not there (a
        terminal's title takes what its encoding has).  A terminal gone takes nothing (a
        recheck: the window closed on my turn, and leaving the table failed here)."""
        output = self.app.output
        with contextlib.suppress(OSError):
            if not self._titled and _titles(output):
                output.write_raw(PUSH_TITLE)  # (the terminal's own kept, where it can)
            output.set_title(TURN_TITLE if mine else TITLE)
            self._titled = True
            if mine and self.bell:
                output.bell()
            output.flush()

    def untitle(self) -> None:
        """The application ended: the title set back (the terminal's own shows again, or
        none; a terminal gone takes nothing)."""
        if self._titled:
            self._titled = False
            output = self.app.output
            with contextlib.suppress(OSError):
                output.clear_title()
                if _titles(output):
                    output.write_raw(POP_TITLE)
                output.flush()

    def _ended(self, running: asyncio.Future[None]) -> None:
        """The application ended on its own (its input closed, say): the driver stops."""
        self.untitle()
        if self.held and self._driving is not None and not self._driving.done():
            self._driving.cancel()

    # --- what the top screen gets ---------------------------------------------------

    async def on_message(self, message: m.Message) -> None:
        """A server message, after the client model took it: the screen on top hears it
        (one under it reads the model when it is on top again)."""
        top = self.top
        if top is not None:
            await top.on_message(message)

    def status(self, what: str) -> None:
        top = self.top
        if top is not None:
            top.status(what)

    def _container(self) -> Container:
        top = self.top
        if top is None:
            return self._blank
        container = to_container(top.container)
        if self._wrapped is None or self._wrapped[0] is not container:
            # (the screen stays in the layout, hidden, so that what it focuses is there)
            small = Condition(self._too_small)
            self._wrapped = (
                container,
                HSplit(
                    [
                        ConditionalContainer(container, filter=~small),
                        ConditionalContainer(self._small, filter=small),
                    ]
                ),
            )
        return self._wrapped[1]

    def _too_small(self) -> bool:
        """Whether the terminal is smaller than the screens are made for; if so the
        words that say so (prompt_toolkit's own "Window too small..." says neither how
        small nor what would do)."""
        size = self.app.output.get_size()
        if size.columns >= MIN_COLUMNS and size.rows >= MIN_ROWS:
            return False
        words = (
            f"president needs a terminal of at least {MIN_COLUMNS}x{MIN_ROWS}; this one is "
            f"{size.columns}x{size.rows}: make it bigger"
        )
        # (what goes on meanwhile, where something does: a screen's `while_small`; a
        # replay viewer said "the game goes on")
        going_on: str = getattr(self.top, "while_small", "")
        if going_on:
            words += f" ({going_on})"
        self._small.content = FormattedTextControl(textwrap.fill(words, max(size.columns, 10)))
        return True

    def _bindings(self) -> KeyBindingsBase | None:
        top = self.top
        if top is None:
            return None
        if self._keys is None or self._keys[0] is not top.bindings:
            self._keys = (top.bindings, unseen_keys_stop(top.bindings, Condition(self._too_small)))
        return self._keys[1]

    def _top(self, hook: Callable[[Screen], None]) -> None:
        top = self.top
        if top is not None:
            hook(top)

    def _focus(self) -> None:
        top = self.top
        if top is not None and top.focus is not None:
            self.app.layout.focus(top.focus)
        self.app.invalidate()


class MessageAge:
    """How long a screen's message line has said what it says now, by the redraws that
    ask (an old message goes: `TableApp`'s after a few seconds, `LobbyApp`'s refusal
    after more); a message set again after `restart` is new."""

    def __init__(self) -> None:
        self._message: str | None = None
        self._since = 0.0

    def of(self, message: str, now: float) -> float:
        if message != self._message:
            self._message, self._since = message, now
        return now - self._since

    def restart(self) -> None:
        self._message = None


def unseen_keys_stop(bindings: KeyBindingsBase, small: Filter) -> KeyBindingsBase:
    """A screen's keys while it is drawn; while the terminal is too small to draw it, only
    its Ctrl-C (a terminal pass: `p` passed, unseen, at 45x12, and `q` asked a question
    nobody saw)."""
    leaving = KeyBindings()
    for binding in bindings.get_bindings_for_keys((Keys.ControlC,)):
        leaving.add(Keys.ControlC, filter=binding.filter, eager=binding.eager)(binding.handler)
    return merge_key_bindings(
        [
            ConditionalKeyBindings(bindings, ~small),
            ConditionalKeyBindings(leaving, small),
            SUSPENDING,
        ]
    )


#: Ctrl-Z suspends to the shell on every screen, as in other terminal programs (a
#: terminal pass found it did nothing, and in a chat line typed a ^Z the server refused);
#: `fg` brings the screen back.
SUSPENDING = KeyBindings()


@SUSPENDING.add("c-z", filter=Condition(lambda: hasattr(signal, "SIGTSTP")))
def _suspend(event: KeyPressEvent) -> None:
    event.app.suspend_to_background()

"""The server picker in prompt_toolkit: the servers announced on the LAN, live, to choose
with the arrows, or an address typed.  It ends with the address to connect to (then
the certificate is checked as for any address) or nothing if the user quits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from president.protocol import messages as m
from president.protocol.discovery import Announcement
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame, TextArea

from ..discovery import DiscoveryFailed, ServerFinder
from .fit import cut, help_lines, status_fragments, status_lines, wrap
from .servers import ServersScreen
from .shell import Shell, shell_for
from .theme import add_help_keys, help_box_of

#: The keys and what they do, as the help overlay shows them.
SERVERS_HELP = (
    ("", " keys"),
    ("↑/↓  k/j", "choose a server (the list follows the announcements as they come and go)"),
    ("enter", "connect to it (the first time, you are asked about its certificate)"),
    ("a", "type an address instead (HOST or HOST:PORT; enter connects, esc cancels)"),
    ("?", "this help (esc closes it)"),
    ("q  ctrl-c", "quit"),
)


class ServersApp:
    """The picker over a `ServersScreen`; `chosen` is the address to connect to, or None."""

    def __init__(
        self,
        screen: ServersScreen,
        check: Callable[[str], str | None],
        *,
        input: Input | None = None,
        output: Output | None = None,
        theme: str = "dark",
        shell: Shell | None = None,
    ) -> None:
        """The picker on `shell` (the caller shows it); without one, on a shell of its
        own, shown at once (the application ends when a server is chosen)."""
        self.screen = screen
        #: A typed address's problem in words, or None if it will do.
        self.check = check
        self.chosen: str | None = None
        #: The announcement chosen (None for a typed address).
        self.announced: Announcement | None = None
        self.asking = False
        self.line = TextArea(height=1, multiline=False)
        self.container = self._layout()
        self.bindings = create_servers_bindings(self)
        self.focus: Window = self.list_window
        self.mouse = True
        self.shell = shell_for(self, shell, theme, input, output)
        self.app: Application[None] = self.shell.app

    def leave(self) -> None:
        self.shell.pop(self)

    async def on_message(self, message: m.Message) -> None:
        pass  # (no server yet)

    def status(self, what: str) -> None:
        pass

    def key_pressed(self) -> None:
        pass

    def before_render(self) -> None:
        pass

    def found(self, finder: ServerFinder) -> None:
        """The finder's list changed: show it."""
        self.screen.update(finder.listing(), finder.ignored)
        self.app.invalidate()

    def choose(self, address: str, announced: Announcement | None = None) -> None:
        self.chosen, self.announced = address, announced
        self.leave()

    def ask(self) -> None:
        self.asking = True
        self.line.text = ""
        self.app.layout.focus(self.line)

    def answered(self) -> None:
        text = self.line.text.strip()
        problem = self.check(text) if text else "type HOST or HOST:PORT (esc goes back)"
        if problem:
            self.screen.message = problem
            return
        self.screen.message = ""
        self.choose(text)

    def stop_asking(self) -> None:
        self.asking = False
        self.line.text = ""
        self.app.layout.focus(self.list_window)

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> FloatContainer:
        header = Window(FormattedTextControl(self._header), height=1)
        self.list_window = Window(FormattedTextControl(self._servers, focusable=True))
        listing = Frame(self.list_window, title="servers on the LAN", height=self._list_height)
        details = Frame(Window(FormattedTextControl(self._details)), title="server")
        asking = ConditionalContainer(
            VSplit(
                [
                    Window(
                        FormattedTextControl(lambda: [("class:turn", "address: ")]),
                        width=10,
                        height=1,
                    ),
                    self.line,
                ]
            ),
            filter=Condition(lambda: self.asking),
        )
        status = Window(FormattedTextControl(self._status), height=self._status_height)
        help_box = help_box_of(self.screen, self._help_lines, self._help_width)
        screen = self.screen
        return FloatContainer(
            HSplit([header, listing, details, asking, status]),
            floats=[Float(ConditionalContainer(help_box, filter=Condition(lambda: screen.help)))],
        )

    def _columns(self) -> int:
        return get_app().output.get_size().columns

    def _rows(self) -> int:
        return get_app().output.get_size().rows

    def _list_height(self) -> D:
        # the list takes what it needs up to half the screen; the details get the rest
        room = max(3, self._rows() // 2)
        wanted = min(max(1, len(self.screen.servers)), room - 2) + 2
        return D(min=3, preferred=wanted, max=wanted)

    def _help_width(self) -> int:
        return max(20, min(80, self._columns() - 4))

    def _help_lines(self) -> list[str]:
        return help_lines(SERVERS_HELP, self._help_width())

    # --- what each part shows ---------------------------------------------------------

    def _header(self) -> StyleAndTextTuples:
        s = self.screen
        count = len(s.servers)
        state = "[LAN not searched]" if s.trouble else f"[{count} found, looking]"
        width = self._columns() - 1
        title = " president: choose a server"
        return [("class:title", cut(title, width - len(state) - 2) + "  " + state)]

    def _servers(self) -> StyleAndTextTuples:
        s = self.screen
        width = self._columns() - 4  # the frame's borders, the marker
        if not s.servers:
            words = s.trouble or "looking for servers on this network…"
            return [("class:dim", "\n".join(wrap(words, width + 2)))]
        out: StyleAndTextTuples = []
        for index, server in enumerate(s.servers):
            here = index == s.cursor
            if here:
                out.append(("[SetCursorPosition]", ""))  # the list scrolls to show it
            mark = "▶ " if here else "  "
            out.append(("class:selected" if here else "", mark + s.line(server, width) + "\n"))
        return out

    def _details(self) -> StyleAndTextTuples:
        width = self._columns() - 2
        lines = [part for line in self.screen.details() for part in wrap(line, width)]
        if self.screen.ignored:
            lines += wrap(f"({self.screen.ignored} announcement(s) left out)", width)
        return [("", "\n".join(lines))]

    def _status_text(self) -> tuple[str, str]:
        s = self.screen
        if s.message:
            return "class:message", s.message
        if self.asking:
            return "class:dim", "HOST or HOST:PORT · enter connects · esc goes back"
        return "class:dim", "↑/↓ choose · enter connects · a types an address · ? help · q quits"

    def _status_lines(self) -> list[tuple[str, str]]:
        style, text = self._status_text()
        return status_lines(style, text, self._columns() - 2, bool(self.screen.message))

    def _status_height(self) -> int:
        return len(self._status_lines())

    def _status(self) -> StyleAndTextTuples:
        return status_fragments(self._status_lines())  # type: ignore[return-value]


def create_servers_bindings(picker: ServersApp) -> KeyBindings:
    """Every key of the picker (the help overlay lists them)."""
    kb = KeyBindings()
    screen = picker.screen
    browsing = Condition(lambda: not picker.asking and not screen.help)
    asking = Condition(lambda: picker.asking)

    add_help_keys(kb, screen, browsing)

    @kb.add("up", filter=browsing)
    @kb.add("k", filter=browsing)
    def _up(event: KeyPressEvent) -> None:
        screen.message = ""
        screen.move(-1)

    @kb.add("down", filter=browsing)
    @kb.add("j", filter=browsing)
    def _down(event: KeyPressEvent) -> None:
        screen.message = ""
        screen.move(1)

    @kb.add("enter", filter=browsing)
    def _connect(event: KeyPressEvent) -> None:
        server = screen.selected()
        if server is None:
            screen.message = "no server found yet: wait, or press a to type an address"
            return
        picker.choose(server.address, server)

    @kb.add("a", filter=browsing)
    def _type(event: KeyPressEvent) -> None:
        screen.message = ""
        picker.ask()

    @kb.add("q", filter=browsing)
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        picker.chosen = None
        picker.leave()

    @kb.add("enter", filter=asking)
    def _answer(event: KeyPressEvent) -> None:
        picker.answered()

    @kb.add("escape", filter=asking)
    def _cancel(event: KeyPressEvent) -> None:
        screen.message = ""
        picker.stop_asking()

    return kb


async def pick_server(
    screen: ServersScreen,
    check: Callable[[str], str | None],
    *,
    interface: str | None = None,
    input: Input | None = None,
    output: Output | None = None,
    theme: str = "dark",
    shell: Shell | None = None,
) -> Picked | None:
    """Look for servers on the LAN while the picker is up; the address chosen or typed,
    with what was announced for it and the warnings to show before trusting it, or None
    if the user quit.  If the LAN cannot be searched, the picker says why and an address
    can still be typed.  On `shell`, the picker is a screen shown on it; without one,
    the picker is an application of its own."""
    picker = ServersApp(screen, check, input=input, output=output, theme=theme, shell=shell)
    finder = ServerFinder(lambda: picker.found(finder), interface=interface)
    try:
        await finder.start()
    except DiscoveryFailed as exc:
        screen.trouble = f"{exc}: press a to type an address"
    try:
        if shell is None:
            await picker.app.run_async()
        else:
            await shell.show(picker)
    finally:
        await finder.close()
    if picker.chosen is None:
        return None
    announced = picker.announced
    return Picked(
        picker.chosen,
        None if announced is None else announced.fingerprint,
        [] if announced is None else screen.warnings(announced),
    )


@dataclass(frozen=True)
class Picked:
    """A server picked: its address, the certificate fingerprint its announcement
    claimed (a hint, checked against the real one at the first connection), and what to
    tell the user before they trust it."""

    address: str
    hint: str | None = None
    warnings: list[str] = field(default_factory=list)

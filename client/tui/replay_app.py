"""The replay viewer in prompt_toolkit: the table screen's layout (header, seats, pile,
log) with every seat's hand face up, drawn from a `ReplayScreen`; keys step through the
record.  Input and output are injectable for tests."""

from __future__ import annotations

from collections.abc import Callable

from president.engine import Phase
from prompt_toolkit.application import Application, get_app_or_none
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import fragment_list_width
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame

from .replay import ReplayScreen, SeatRow, Step, place_text, wrap
from .table import card_text
from .theme import card_style, style_for

#: From this many columns the log stands beside the table instead of under it.
WIDE = 100

HELP = """\
 →  l  space   next step
 ←  h          step back
 ↓  n  PgDn    next hand (its deal)
 ↑  p  PgUp    this hand's deal; again: the hand before
 Home  g       the first step      End  G   the last
 ?             this help (any key closes it)
 q  ctrl-c     quit
 ▶ whose turn (or who owes a return in the exchange)
 underlined: cards got in this hand's exchange
 highlighted in the log: what this step did"""

Lines = list[StyleAndTextTuples]


class Panel(UIControl):
    """Lines drawn for the width and height the window has (so they can be cut to fit
    at word boundaries); its preferred height is the number of lines it draws."""

    def __init__(self, draw: Callable[[int, int], Lines]) -> None:
        self.draw = draw

    def create_content(self, width: int, height: int) -> UIContent:
        lines = self.draw(width, height)
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines), show_cursor=False)

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: object
    ) -> int:
        return len(self.draw(width, max_available_height))


def _rule(title: str) -> Window:
    """A section's title on a line of its own: cheaper than a frame on a small screen."""
    return Window(
        FormattedTextControl([("class:title", f"─ {title} ")]),
        height=1,
        char="─",
        style="class:dim",
    )


def _fit(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Fragments cut to `width` columns (the last one ends in …)."""
    if fragment_list_width(fragments) <= width:
        return fragments
    out: StyleAndTextTuples = []
    room = width - 1
    for style, text, *_ in fragments:
        if room <= 0:
            break
        out.append((style, text[:room]))
        room -= len(text[:room])
    out.append(("", "…"))
    return out


class ReplayApp:
    """The application around one `ReplayScreen`."""

    def __init__(
        self,
        screen: ReplayScreen,
        *,
        theme: str = "dark",
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.screen = screen
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=create_key_bindings(screen),
            style=style_for(theme),
            full_screen=True,
            input=input,
            output=output,
        )

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> Layout:
        header = Window(Panel(self._header), height=1)
        status = Window(Panel(self._status), height=1)
        seats = Window(Panel(self._seats), dont_extend_height=True)
        pile = Window(Panel(self._pile), dont_extend_height=True)
        # the log takes what the table leaves, never a row the table needs
        log = Window(Panel(self._log), height=Dimension(min=1, preferred=1, weight=1))
        table = HSplit([_rule("table"), seats, _rule("pile"), pile])
        stacked = HSplit([table, _rule("log"), log])
        beside = VSplit(
            [
                HSplit([table, Window()], width=Dimension(weight=3)),
                Window(width=1, char="│", style="class:dim"),
                HSplit([_rule("log"), log], width=Dimension(weight=2)),
            ]
        )

        def body() -> Container:
            app = get_app_or_none()
            wide = app is not None and app.output.get_size().columns >= WIDE
            return beside if wide else stacked

        help_box = Frame(Window(FormattedTextControl(HELP + self._rules_line())), title="keys")
        return Layout(
            FloatContainer(
                HSplit([header, DynamicContainer(body), status]),
                floats=[
                    Float(
                        ConditionalContainer(help_box, filter=Condition(lambda: self.screen.help))
                    )
                ],
            )
        )

    def _rules_line(self) -> str:
        return f"\n rules: {self.screen.rules}" if self.screen.rules else ""

    def _header(self, width: int, height: int) -> Lines:
        screen = self.screen
        step = screen.step
        where = screen.position()
        phase = step.view.phase
        extra = "" if phase is Phase.PLAY else " · " + phase.value.replace("_", " ")
        extra += " · REVOLUTION" if step.view.revolution else ""
        right = "  ? help"
        for left in (
            f" {screen.name} · {screen.rules} · {where}{extra}",
            f" {screen.rules} · {where}{extra}",
            f" {where}{extra}",
        ):
            if len(left) + len(right) <= width:
                break
        pad = max(0, width - len(left) - len(right))
        return [_fit([("class:title", left), ("", " " * pad), ("class:dim", right)], width)]

    def _status(self, width: int, height: int) -> Lines:
        screen = self.screen
        if screen.fault is not None or screen.index == len(screen.steps) - 1:
            style = "class:message" if screen.fault is not None else "class:turn"
            return [_fit([(style, " " + screen.verdict())], width)]
        keys = " ←/→ step  ↑/↓ hand  Home/End  ? help  q quit"
        return [_fit([("class:dim", keys)], width)]

    # --- the seats ------------------------------------------------------------------

    def _seat_label(self, row: SeatRow, names: int, titles: int) -> StyleAndTextTuples:
        mark = "▶ " if row.turn else "  "
        if row.place is not None:
            state = f"out {place_text(row.place)}"
        elif row.owes:
            state = f"owes {row.owes}"
        elif row.passed:
            state = "passed"
        else:
            state = ""
        style = "class:turn" if row.turn else "class:title" if row.acted else ""
        title = (row.title or "").ljust(titles)
        return [
            (style, f"{mark}{row.name.ljust(names)} "),
            ("class:dim", f"{title} " if titles else ""),
            (style, f"{row.score:>3} pt{'s' if row.score != 1 else ' '} {state:<8}"),
        ]

    def _cards(self, row: SeatRow) -> Lines:
        """Each card of the seat as fragments (its colour; underlined if received)."""
        got = list(row.received)
        out: Lines = []
        for card in row.cards:
            style = card_style(card)
            if card in got:
                got.remove(card)
                style += " class:legal"
            out.append([(style, card_text(card))])
        return out

    def _seat_lines(self, step: Step, width: int) -> Lines:
        rows = step.seats()
        names = max(len(r.name) for r in rows)
        titles = max(len(r.title or "") for r in rows)
        labels = [self._seat_label(r, names, titles) for r in rows]
        label_width = max(fragment_list_width(label) for label in labels)
        # One line a seat when the biggest hand of this hand's deal fits beside the label,
        # so the layout stays put while the cards go.
        deal = self.screen.steps[self.screen.hands[step.hand].start]
        widest = max(len(" ".join(card_text(c) for c in cards)) for cards in deal.cards)
        beside = label_width + 1 + widest <= width
        indent = "    " if 4 + widest <= width else "  "
        lines: Lines = []
        for row, label in zip(rows, labels):
            cards = self._cards(row)
            if beside:
                line = [*label, ("", " ")]
                for card in cards:
                    line += [*card, ("", " ")]
                lines.append(_fit(line, width))
                continue
            lines.append(_fit(label, width))
            line, used = [("", indent)], len(indent)
            for card in cards:
                size = fragment_list_width(card)
                if used + size > width and used > len(indent):
                    lines.append(line)
                    line, used = [("", indent)], len(indent)
                size += 1
                line += [*card, ("", " ")]
                used += size
            lines.append(line)
        seated = set(step.view.seating)
        gone = [f"{name} {points}" for name, points in step.scores if name not in seated]
        if gone:
            lines.append(_fit([("class:dim", "  not seated: " + ", ".join(gone))], width))
        return lines

    def _seats(self, width: int, height: int) -> Lines:
        return self._seat_lines(self.screen.step, width)

    # --- the pile -------------------------------------------------------------------

    def _pile(self, width: int, height: int) -> Lines:
        step = self.screen.step
        view = step.view
        plays = step.pile()
        if plays:
            parts: list[StyleAndTextTuples] = []
            for n, (name, play) in enumerate(plays):
                last = n == len(plays) - 1
                part: StyleAndTextTuples = [("" if last else "class:dim", f"{name} ")]
                for card in play.cards:
                    part.append((card_style(card) if last else "class:dim", card_text(card) + " "))
                parts.append(part)
            # the newest plays that fit, the top of the pile last
            line: StyleAndTextTuples = []
            for part in reversed(parts):
                if fragment_list_width(part) + fragment_list_width(line) + 8 > width and line:
                    line = [("class:dim", "… "), *line]
                    break
                line = part + ([("class:dim", "· ")] if line else []) + line
            pile = [("", " "), *line]
        elif view.phase is Phase.GAME_OVER:
            pile = [("class:turn", f" game over: {' and '.join(view.winners)} won")]
        elif view.phase is Phase.BETWEEN_HANDS:
            pile = [("class:dim", " the hand is over")]
        elif view.phase is Phase.EXCHANGE:
            pile = [("class:dim", " the exchange: returns are owed")]
        else:
            leader = view.seating[view.turn] if view.turn is not None else "?"
            pile = [("class:dim", f" empty: {leader} leads")]
        lines = [_fit(pile, width)]
        if step.exchange:
            moves = " · ".join(
                f"{s.giver}→{s.receiver} {' '.join(card_text(c) for c in s.cards)}"
                for s in step.exchange
            )
            text = f"exchange: {moves}"
        else:
            text = "exchange: none" + (" in hand 1" if step.hand == 0 else "")
        lines += [[("class:dim", " " + part)] for part in wrap(text, width - 1)[:2]]
        return lines

    # --- the log --------------------------------------------------------------------

    def _log(self, width: int, height: int) -> Lines:
        return [
            [("class:selected" if now else "", " " + line)]
            for line, now in self.screen.log(width - 1, height)
        ]


def create_key_bindings(screen: ReplayScreen) -> KeyBindings:
    """Every key of the viewer (the help box lists them)."""
    kb = KeyBindings()
    browsing = Condition(lambda: not screen.help)
    moves: dict[tuple[str, ...], Callable[[], None]] = {
        ("right", "l", "space"): screen.forward,
        ("left", "h"): screen.back,
        ("down", "n", "pagedown"): screen.next_hand,
        ("up", "p", "pageup"): screen.previous_hand,
        ("home", "g"): screen.first,
        ("end", "G"): screen.last,
    }
    for keys, move in moves.items():
        for key in keys:
            kb.add(key, filter=browsing)(lambda event, move=move: move())

    @kb.add("?", filter=browsing)
    def _help(event: KeyPressEvent) -> None:
        screen.help = True

    @kb.add("<any>", filter=Condition(lambda: screen.help))
    def _close_help(event: KeyPressEvent) -> None:
        screen.help = False

    @kb.add("q")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    return kb


def run_viewer(screen: ReplayScreen, theme: str) -> None:
    """Show the record in the terminal until q."""
    ReplayApp(screen, theme=theme).app.run()

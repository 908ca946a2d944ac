"""The replay viewer in prompt_toolkit: the table screen's layout (header, seats, pile,
log) with every seat's hand face up, drawn from a `ReplayScreen`; keys step through the
record.  Input and output are injectable for tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from president.engine import Phase, RulesError, rules_from
from president.engine.scoring import titles
from president.protocol import messages as m
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
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.output import Output

from .fit import cells, fit_fragments, middle_cut, pad
from .narrator import card_text, lock_text, place_text
from .replay import ReplayScreen, Step, Swap, wrap
from .review import Reviewer, ReviewState
from .seats import SeatRow
from .shell import Shell, shell_for
from .theme import add_help_keys, card_style, help_box_of

#: From this many columns the log stands beside the table instead of under it.
WIDE = 100


def _exchange_moves(swaps: Sequence[Swap]) -> list[str]:
    """The exchange as the pile's lines say it: each give with what came back for it
    ("ann→bob 2♠ 2♣, back 4♠ 6♥"), so that a give and a return on one row are told
    apart (a pass read two gives there); a return of no give shown, as it is."""

    def cards(swap: Swap) -> str:
        return " ".join(card_text(c) for c in swap.cards)

    backs = {(s.giver, s.receiver): s for s in swaps if s.returned}
    gives = {(s.receiver, s.giver) for s in swaps if not s.returned}  # (as its back is)
    moves = []
    for swap in swaps:
        if swap.returned and (swap.giver, swap.receiver) in gives:
            continue  # (said with its give)
        back = None if swap.returned else backs.get((swap.receiver, swap.giver))
        moves.append(
            f"{swap.giver}→{swap.receiver} {cards(swap)}"
            + (f", back {cards(back)}" if back is not None else "")
        )
    return moves


def title_initials(title: str) -> str:
    """A title as a crowded screen shows it: "VP" for Vice-President."""
    return "".join(part[:1] for part in title.split("-"))


#: The titles' initials in the help, as the base game names them.
CLASSIC_INITIALS = "P, VP, C, VS, S"
HELP = """\
 →  l  space   next step
 ←  h          step back
 ↓  n  PgDn    next hand (its deal)
 ↑  p  PgUp    this hand's deal; again: the hand before
 Home  g       the first step      End  G   the last
 ?             this help (esc closes it)
 q  ctrl-c     quit
 ▶ whose turn (or who owes a return in the exchange)
 crowded: · passed, titles by initials (P, VP, C, VS, S)
 underlined: got in the exchange · +N: N cards not shown
 highlighted in the log: what this step did"""

#: The review's keys (under the others in the help, when the viewer has a review).
REVIEW_HELP = """
 ]  [          next / previous mistake (followed player)
 f             follow the next player
 review: the action's expected place (1 = first), the
 best's, the places lost (both figures over the worlds
 that measured it), the label; the sparkline: expected
 place by decision, a tall bar nearer 1st
 its title: accuracy (0-100); how many blunders,
 mistakes and inaccuracies (blu, mis, ina where the
 line is narrow); then over the
 game in places (+ for better): cards, what the cards
 were worth; play, the decisions against the normal
 bot's (president analyze says more, in words)"""
#: Lines the review panel takes: its title, the decision, the sparkline.
REVIEW_LINES = 3
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


class ReplayApp:
    """The application around one `ReplayScreen`."""

    def __init__(
        self,
        screen: ReplayScreen,
        *,
        theme: str = "dark",
        input: Input | None = None,
        output: Output | None = None,
        shell: Shell | None = None,
        review: ReviewState | None = None,
        reviewer: Reviewer | None = None,
    ) -> None:
        """The viewer on `shell` (the caller shows it); without one, on a shell of its
        own, shown at once (the application ends with q).  With a `review`, a panel
        judges each decision (`reviewer` fills it in the background, from the first
        drawing of the screen)."""
        self.screen = screen
        self.review = review
        self.reviewer = reviewer
        #: The seats' layout per (hand, width, rows, columns): worked out once.
        self._layouts: dict[tuple[int, int, int, int], str] = {}
        #: Seats drawn for a step at a width, in a layout: a screen asks more than once.
        self._drawn: dict[tuple[str, int, int, str], Lines] = {}
        self.container = self._layout()
        self.bindings = create_key_bindings(self)
        self.focus = None
        self.mouse = False
        self.shell = shell_for(self, shell, theme, input, output)
        self.app: Application[None] = self.shell.app

    def leave(self) -> None:
        if self.reviewer is not None:
            self.reviewer.stop()
        self.shell.pop(self)

    async def on_message(self, message: m.Message) -> None:
        pass  # (a record: no server)

    def status(self, what: str) -> None:
        pass

    def key_pressed(self) -> None:
        if self.review is not None:
            self.review.message = ""

    def before_render(self) -> None:
        if self.reviewer is not None and self.reviewer.task is None:
            self.reviewer.changed = self.shell.invalidate
            self.reviewer.start()

    # --- layout ---------------------------------------------------------------------

    def _layout(self) -> FloatContainer:
        header = Window(Panel(self._header), height=1)
        status = Window(Panel(self._status), dont_extend_height=True)
        seats = Window(Panel(self._seats), dont_extend_height=True)
        pile = Window(Panel(self._pile), dont_extend_height=True)
        review = ConditionalContainer(
            Window(Panel(self._review), height=REVIEW_LINES),
            Condition(lambda: self.review is not None),
        )
        # the log takes what the table leaves, never a row the table needs
        log = Window(Panel(self._log), height=Dimension(min=1, preferred=1, weight=1))
        # a crowded screen (many seats, many cards, few rows) gives its titles to the seats
        roomy = Condition(lambda: not self._crowded())
        table = HSplit(
            [
                ConditionalContainer(_rule("table"), roomy),
                seats,
                ConditionalContainer(_rule("pile"), roomy),
                pile,
                review,
            ]
        )
        stacked = HSplit([table, _rule("log"), log])
        sheet = Window(Panel(self._sheet), dont_extend_height=True)
        beside = VSplit(
            [
                HSplit(
                    [
                        table,
                        ConditionalContainer(
                            HSplit([_rule("score sheet"), sheet]),
                            Condition(self._sheet_fits),
                        ),
                        Window(),
                    ],
                    width=Dimension(weight=3),
                ),
                Window(width=1, char="│", style="class:dim"),
                HSplit([_rule("log"), log], width=Dimension(weight=2)),
            ]
        )

        def body() -> Container:
            return beside if self._columns() >= WIDE else stacked

        help_text = (
            HELP.replace(CLASSIC_INITIALS, self._initials())
            + (REVIEW_HELP if self.review is not None else "")
            + self._rules_line()
        )
        help_box = help_box_of(self.screen, help_text.splitlines, title="keys")
        return FloatContainer(
            HSplit([header, DynamicContainer(body), status]),
            floats=[
                Float(ConditionalContainer(help_box, filter=Condition(lambda: self.screen.help)))
            ],
        )

    def _initials(self) -> str:
        """The titles' initials as a crowded screen shows them, under the record's rules
        ("P, VP, C, VB, B" where the last is the Beggar)."""
        document = self.screen.document or {}
        try:
            rules = rules_from(document.get("rules", "classic"))
        except (RulesError, TypeError, ValueError):
            return CLASSIC_INITIALS  # (a record whose rules are not: the replay says so)
        named = dict.fromkeys(titles(rules, 5))  # each title once, first to last
        return ", ".join(title_initials(title) for title in named)

    def _rules_line(self) -> str:
        width = max(len(line) for line in HELP.splitlines()) - 1
        return "".join(f"\n {line}" for line in wrap(self.screen.rules_in_full, width))

    def _header(self, width: int, height: int) -> Lines:
        screen = self.screen
        step = screen.step
        where = screen.position()
        phase = step.view.phase
        extra = "" if phase is Phase.PLAY else " · " + phase.value.replace("_", " ")
        extra += " · REVOLUTION" if step.view.revolution else ""
        extra += " · JACK BACK" if step.view.jack_back else ""
        extra += f" · {lock_text(step.view.lock)}" if step.view.lock else ""
        right = "  ? help"
        for left in (
            f" {screen.name} · {screen.rules} · {where}{extra}",
            f" {screen.rules} · {where}{extra}",
            f" {where}{extra}",
        ):
            if len(left) + len(right) <= width:
                break
        pad = max(0, width - len(left) - len(right))
        return [
            fit_fragments([("class:title", left), ("", " " * pad), ("class:dim", right)], width)
        ]

    def _status(self, width: int, height: int) -> Lines:
        screen = self.screen
        if screen.fault is not None or screen.index == len(screen.steps) - 1:
            style = "class:message" if screen.fault is not None else "class:turn"
            verdict = wrap(screen.verdict(), width - 1)
            if len(verdict) > 2:  # the checker's line is whole in `president replay`
                verdict = [verdict[0], verdict[1] + " …"]
            return [fit_fragments([(style, " " + line)], width) for line in verdict]
        keys = " ←/→ step  ↑/↓ hand  Home/End  ? help  q quit"
        if self.review is not None:
            keys = " ←/→ step  ↑/↓ hand  ]/[ mistake  ? help  q quit"
        return [fit_fragments([("class:dim", keys)], width)]

    # --- the seats ------------------------------------------------------------------

    def _seat_label(
        self, row: SeatRow, names: int, titles: int, short: bool = False
    ) -> StyleAndTextTuples:
        style = "class:turn" if row.turn else "class:title" if row.acted else ""
        if short:  # one line a seat on a crowded screen: the title's initials, no state
            mark = "▶ " if row.turn else "· " if row.passed and row.place is None else "  "
            initials = title_initials(row.title or "")
            return [
                (style, f"{mark}{pad(middle_cut(row.name, names), names)} "),
                ("class:dim", f"{initials:<2} " if titles else ""),
                (style, f"{row.points:>2} pt{'s' if row.points != 1 else ' '} "),
            ]
        mark = "▶ " if row.turn else "  "
        if row.place is not None:
            state = f"out {place_text(row.place)}"
        elif row.owes:
            state = f"owes {row.owes}"
        elif row.passed:
            state = "skipped" if row.skipped else "passed"
        else:
            state = ""
        title = (row.title or "").ljust(titles)
        return [
            (style, f"{mark}{pad(middle_cut(row.name, names), names)} "),
            ("class:dim", f"{title} " if titles else ""),
            (style, f"{row.points:>3} pt{'s' if row.points != 1 else ' '} {state:<8}"),
        ]

    def _cards(self, row: SeatRow, grouped: bool = False) -> Lines:
        """The seat's cards as fragments, one list a card (or, grouped, one a rank:
        3♣♦), each in its suit's colour, underlined if got in the exchange."""
        got = list(row.received)
        out: Lines = []
        for card in row.cards:
            style = card_style(card)
            if card in got:
                got.remove(card)
                style += " class:legal"
            text = card_text(card)
            if grouped and out and not card.is_joker and out[-1][0][1] == text[:-1]:
                out[-1].append((style, text[-1]))
            elif grouped and not card.is_joker:
                out.append([(style, text[:-1]), (style, text[-1])])
            else:
                out.append([(style, text)])
        return out

    def _seat_lines(self, step: Step, width: int, layout: str) -> Lines:
        """The seats in one of four layouts: each seat's cards `beside` its name, `under`
        it, or on a crowded screen `compact` (short labels, cards grouped by rank), or
        `tight` (so, on one line a seat: "+3", the cards past its end)."""
        key = ("seats", id(step), width, layout)
        if key not in self._drawn:
            if len(self._drawn) > 256:  # a screen needs a handful: keep the newest
                self._drawn.clear()
            self._drawn[key] = self._draw_seats(step, width, layout)
        return self._drawn[key]

    def _draw_seats(self, step: Step, width: int, layout: str) -> Lines:
        rows = step.seats()
        # (a long name cut in the middle, not the seat's points and cards pushed off)
        names = min(max(cells(r.name) for r in rows), max(12, width // 2))
        titles = max(len(r.title or "") for r in rows)
        short = layout in ("compact", "tight")
        labels = [self._seat_label(r, names, titles, short) for r in rows]
        deal = self.screen.steps[self.screen.hands[step.hand].start]
        widest = max(len(" ".join(card_text(c) for c in cards)) for cards in deal.cards)
        indent = "    " if 4 + widest <= width else "  "
        lines: Lines = []
        for row, label in zip(rows, labels):
            cards = self._cards(row, grouped=short)
            if layout == "beside":
                line = [*label]
                for card in cards:
                    line += [*card, ("", " ")]
                lines.append(fit_fragments(line, width))
                continue
            if short:  # the cards beside the label, and on under them if they must
                line, used = [*label], fragment_list_width(label)
                indent = " " * min(used, width // 3)
                if row.place is not None:
                    line.append(("class:dim", f"out {place_text(row.place)} "))
            else:
                lines.append(fit_fragments(label, width))
                if not cards:  # out with none left: no empty line, the log gets the row
                    continue
                line, used = [("", indent)], len(indent)
            on_line = 0
            for at, card in enumerate(cards):
                size = fragment_list_width(card)
                if layout == "tight":  # one line a seat: the cards past it counted
                    # (a rank's group is its rank and a suit a card: 7♣♦ is two)
                    left = sum(max(1, len(group) - 1) for group in cards[at:])
                    more = len(f"+{left} ") if at < len(cards) - 1 else 0
                    if used + size + more > width and on_line:
                        line.append(("class:dim", f"+{left}"))
                        break
                elif used + size > width and on_line:
                    lines.append(line)
                    line, used, on_line = [("", indent)], len(indent), 0
                line += [*card, ("", " ")]
                used += size + 1
                on_line += 1
            lines.append(line)
        seated = set(step.view.seating)
        gone = [f"{name} {points}" for name, points in step.scores if name not in seated]
        if gone:
            lines.append(fit_fragments([("class:dim", "  not seated: " + ", ".join(gone))], width))
        return lines

    def _seat_layout(self, step: Step, width: int) -> str:
        """The first layout whose seats fit, judged on this hand's deal (the most cards),
        so the screen stays put while the hand is played."""
        rows = self._rows()
        key = (step.hand, width, rows, self._columns())
        if key not in self._layouts:
            self._layouts[key] = self._first_fit(step, width, rows)
        return self._layouts[key]

    def _first_fit(self, step: Step, width: int, rows: int) -> str:
        deal = self.screen.steps[self.screen.hands[step.hand].start]
        # what the other parts need: header, status, section titles, the pile and the
        # exchange (at their longest in this hand), and (stacked) three lines of log
        end = self.screen.steps[self.screen.hands[step.hand][-1]]
        pile = len(self._pile_lines(end, width, 3 + (rows >= 30)))
        room = rows - pile - (4 if self._columns() >= WIDE else 8) - self._review_lines()
        for layout in ("beside", "under"):
            lines = self._seat_lines(deal, width, layout)
            # and the hand's end: the titles its finish gives widen the names
            drawn = [*lines, *self._seat_lines(end, width, layout)]
            wide_enough = all(fragment_list_width(line) <= width for line in drawn) and not any(
                line and line[-1][1] == "…" for line in drawn
            )
            if wide_enough and (not rows or len(lines) <= room):
                return layout
        # (compact, a seat's cards may take two lines: where they do not fit either, one
        # line a seat, or the last seat's second line went unseen, a user pass at 60x16)
        # (stacked and crowded, the table's and the pile's titles go: two lines more)
        room += 2 if self._columns() < WIDE else 0
        fits = not rows or len(self._seat_lines(deal, width, "compact")) <= room
        return "compact" if fits else "tight"

    def _crowded(self) -> bool:
        columns = self._columns()
        step = self.screen.step
        return columns < WIDE and self._seat_layout(step, columns) in ("compact", "tight")

    def _rows(self) -> int:
        app = get_app_or_none()
        return app.output.get_size().rows if app is not None else 0

    def _columns(self) -> int:
        app = get_app_or_none()
        return app.output.get_size().columns if app is not None else 0

    def _seats(self, width: int, height: int) -> Lines:
        step = self.screen.step
        return self._seat_lines(step, width, self._seat_layout(step, width))

    # --- the pile -------------------------------------------------------------------

    def _pile(self, width: int, height: int) -> Lines:
        return self._pile_lines(self.screen.step, width, self._pile_most(width))

    def _pile_most(self, width: int) -> int:
        """The pile's lines: three (four on a tall screen, two on a crowded one); but
        stacked, the exchange gives the log what it needs to show this step's lines
        whole, down to a line of its own."""
        rows = self._rows()
        crowded = self._crowded()
        most = 3 + (rows >= 30) - crowded
        if not rows:
            return most
        if self._columns() >= WIDE:
            return self._pile_beside(width, most)
        screen = self.screen
        need = len(screen.log_lines(screen.index, width - 1))
        titles = 1 if crowded else 3  # of the table, the pile and the log
        room = rows - 1 - len(self._status(width, 1)) - titles - len(self._seats(width, rows))
        room -= self._review_lines()
        while most > 2 and room - len(self._pile_lines(screen.step, width, most)) < need:
            most -= 1
        return most

    def _pile_beside(self, width: int, most: int) -> int:
        """Beside the log, the pile's lines grow to show the whole exchange where its
        column has the rows left, the score sheet's kept first if it fits: at 100x30 a
        fourth move of the exchange was cut to "…" above empty rows."""
        step = self.screen.step
        whole = len(self._pile_lines(step, width, len(step.exchange) + 2))
        if whole <= most:
            return most
        spare = self._spare_beside(most)
        sheet = len(step.scores) + 1
        return most + max(0, min(whole - most, spare - (sheet if spare >= sheet else 0)))

    def _spare_beside(self, pile: int) -> int:
        """The rows the table's column beside the log leaves under its seats, a pile of
        `pile` lines and the review, its titles and the header and status counted."""
        step = self.screen.step
        width = self._columns() * 3 // 5
        seats = self._seat_lines(step, width, self._seat_layout(step, width))
        return self._rows() - 5 - len(seats) - pile - self._review_lines()

    def _pile_lines(self, step: Step, width: int, most: int) -> Lines:
        """The trick in progress, then the exchange: `most` lines in all."""
        view = step.view
        plays = step.pile()
        if plays:
            parts: list[StyleAndTextTuples] = []
            for n, (name, play) in enumerate(plays):
                last = n == len(plays) - 1
                cards = cells("".join(card_text(card) + " " for card in play.cards))
                # (a long name cut in the middle, not the cards played after it)
                name = middle_cut(name, max(6, width - 4 - cards))
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
        lines = [fit_fragments(pile, width)]
        if step.exchange:
            moves = _exchange_moves(step.exchange)
        else:
            moves = ["none" + (" in hand 1" if step.hand == 0 else "")]
        # one move of the exchange is never cut in two; a third line is for tall screens
        text = " exchange: "
        for move in moves:
            if len(text) + len(move) + 3 > width and text.strip():
                lines.append([("class:dim", text.rstrip(" ·"))])
                text = "   "
            text += move + " · "
        lines.append([("class:dim", text.rstrip(" ·"))])
        if len(lines) > most:
            lines = [*lines[: most - 1], [*lines[most - 1], ("class:dim", " …")]]
        return [fit_fragments(line, width) for line in lines]

    # --- the score sheet ------------------------------------------------------------

    def _sheet_fits(self) -> bool:
        """Whether the rows the table leaves in its column hold the score sheet."""
        step = self.screen.step
        width = self._columns() * 3 // 5
        pile = self._pile_lines(step, width, self._pile_most(width))
        return self._spare_beside(len(pile)) >= len(step.scores) + 1

    def _sheet(self, width: int, height: int) -> Lines:
        """Players down, hands across: each one's score after each finished hand (the
        hand's President highlighted), as many of the latest hands as fit."""
        rows = self.screen.sheet()
        if not rows:
            return [[("class:dim", " no hand finished yet")]]
        players = list(rows[-1][2])
        names = max(cells(name) for name in players) + 2
        cell = max(3, max(len(str(points)) for points in rows[-1][2].values()) + 1)
        shown = rows[-max(1, (width - names) // cell) :]
        lines: Lines = [
            [("class:dim", " " * names + "".join(f"{hand + 1:>{cell}}" for hand, _, _ in shown))]
        ]
        for name in players:
            line: StyleAndTextTuples = [("", pad(f" {name}", names))]
            for _, finish, scores in shown:
                points = f"{scores[name]:>{cell}}" if name in scores else " " * cell
                line.append(("class:turn" if finish[:1] == (name,) else "", points))
            lines.append(fit_fragments(line, width))
        return lines

    # --- the review -----------------------------------------------------------------

    def _review_lines(self) -> int:
        return 0 if self.review is None else REVIEW_LINES

    def _review(self, width: int, height: int) -> Lines:
        """The review of the step shown: a title line (whose, how far, the figures), the
        decision judged, the sparkline of expected place."""
        review = self.review
        if review is None:
            return []
        style, title = review.title(width - 4)
        head: StyleAndTextTuples = [("class:dim", "─ "), (style, title), ("class:dim", " ")]
        rest = width - fragment_list_width(head)
        head = [*head, ("class:dim", "─" * rest)] if rest > 0 else head
        return [
            fit_fragments(head, width),
            fit_fragments(review.decision(self.screen, width), width),
            fit_fragments(review.spark(self.screen, width), width),
        ]

    # --- the log --------------------------------------------------------------------

    def _log(self, width: int, height: int) -> Lines:
        return [
            [("class:selected" if now else "", " " + line)]
            for line, now in self.screen.log(width - 1, height)
        ]


def create_key_bindings(viewer: ReplayApp) -> KeyBindings:
    """Every key of the viewer (the help box lists them)."""
    kb = KeyBindings()
    screen = viewer.screen
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

    add_help_keys(kb, screen, browsing)
    review = viewer.review
    if review is not None:
        kb.add("]", filter=browsing)(lambda event: review.jump(screen, forward=True))
        kb.add("[", filter=browsing)(lambda event: review.jump(screen, forward=False))
        kb.add("f", filter=browsing)(lambda event: review.next_focus())

    @kb.add("q")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        viewer.leave()

    return kb


def reviewed(
    screen: ReplayScreen, focus: str | None = None, jobs: int | None = None
) -> tuple[ReviewState | None, Reviewer | None]:
    """A review of the screen's record, following `focus` (the first player if None), and
    the reviewer that will fill it; none for a record that does not replay whole."""
    document = screen.document
    if document is None or screen.fault is not None or not screen.steps:
        return None, None
    players = [str(p) for p in document.get("players", [])]
    if not players:
        return None, None
    state = ReviewState(players, focus if focus in players else players[0])
    return state, Reviewer(state, document, jobs=jobs)


def run_viewer(screen: ReplayScreen, theme: str, review: bool = True) -> None:
    """Show the record in the terminal until q, reviewed in the background."""
    state, reviewer = reviewed(screen) if review else (None, None)
    ReplayApp(screen, theme=theme, review=state, reviewer=reviewer).app.run()

"""What the lobby screen shows and what its keys do, as plain Python: the table list, the
selected table in words, lobby chat, and the create-table form.  No prompt_toolkit here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from president.engine import PRESETS, TOGGLES, Rules, RulesError, find_preset
from president.engine.describe import suited, toggle_words, value_word
from president.engine.rulefile import RuleSet
from president.engine.rules import SUGGESTED_PLAYERS, toggle_choices
from president.protocol import messages as m

from ..model import Ladder, TableList, shown
from .fit import HelpPages, cells, head, middle_cut, pad, said

#: The form's rows before the toggles: (key, label).
FIELDS = (
    ("name", "table name"),
    ("preset", "preset"),
    ("seats", "seats"),
    ("turn_seconds", "turn timer"),
    ("password", "password"),
)
TEXT_FIELDS = ("name", "password")
TURN_SECONDS = (0, 15, 30, 45, 60, 90, 120, 180, 300)
#: The most characters a table's name has (the protocol's `TableName`).
NAME_MOST = 40


@dataclass
class TableForm:
    """The create-table form: a row per setting and per toggle, each changed in place."""

    name: str = ""
    preset: str = "classic"
    seats: int = 4
    turn_seconds: int = 60
    password: str = ""
    toggles: dict[str, Any] = field(default_factory=dict)  # changed from the preset
    row: int = 0
    #: The rule sets saved in the config folder, by name (cli: `saved_rule_sets`), and the
    #: one the rules were taken from ("" for a preset): the preset row offers them too.
    saved: dict[str, RuleSet] = field(default_factory=dict, repr=False)
    chosen: str = ""
    #: The name is the lobby's suggestion, not typed: the first key typed there replaces
    #: it, backspace clears it (typing added to it: "ann's tablefriday").
    suggested: bool = False
    #: What was typed on rows of choices since the last move: the row found by it.
    finding: str = ""
    #: The server's refusal of this form as it was sent, and what was sent: said under
    #: the form until a setting changes (a pass lost every setting to a lookalike name).
    refused: tuple[str, m.CreateTable] | None = field(default=None, repr=False)

    def refuse(self, reason: str, sent: m.CreateTable) -> None:
        """The server refused the table as sent: the form shows why, on the name's row
        when the reason is its name."""
        self.refused = (reason, sent)
        if repr(sent.name) in reason or "table name" in reason:
            self.row, self.finding = 0, ""

    def said(self) -> str:
        """The line under the form: what is wrong, the server's refusal while nothing has
        changed since, or that enter creates the table."""
        problem = self.problem()
        if problem is not None:
            return problem
        if self.refused is not None and self.refused[1] == self.request():
            return f"{self.refused[0]} (change it and press enter again)"
        return "ready: enter creates the table and sits you down"

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key, _ in FIELDS) + TOGGLES

    @property
    def key(self) -> str:
        return self.keys[self.row]

    def base(self) -> Rules:
        return find_preset(self.preset)

    def value(self, key: str) -> Any:
        if key in TOGGLES:
            return self.toggles.get(key, getattr(self.base(), key))
        return getattr(self, key)

    def rules(self) -> Rules:
        """The rules as set; `RulesError` saying what is wrong with them."""
        return self.base().replace(**self.toggles)

    def problem(self) -> str | None:
        """Why the table cannot be created as set, or None."""
        if not self.name.strip():
            return "give the table a name"
        try:
            self.rules().check_players(self.seats)
        except RulesError as exc:
            return str(exc)
        return None

    def rows(self) -> list[tuple[str, str, str]]:
        """(label, value, the setting in words) for every row."""
        try:
            rules = self.rules()
        except RulesError:
            rules = self.base()
        out = [
            (
                "table name",
                self.name or "—",
                "type one to replace it"
                if self.suggested
                else (
                    f"{NAME_MOST} characters: the most a table's name has"  # (a pass typed
                    if len(self.name) >= NAME_MOST  # on and saw its name cut, unsaid)
                    else f"type it (up to {NAME_MOST} characters)"
                ),
            ),
            (
                ("preset", f"{self.chosen} (saved)", f"the preset {self.preset} and its changes")
                if self.chosen
                else (
                    "preset",
                    self.preset,
                    f"suggested for {SUGGESTED_PLAYERS[self.preset]} players"
                    + (
                        f"; ←/→ also your {len(self.saved)} saved rule "
                        + ("set" if len(self.saved) == 1 else "sets")
                        if self.saved
                        else ""
                    ),
                )
            ),
            ("seats", str(self.seats), f"up to {rules.max_players} with decks = {rules.decks}"),
            (
                "turn timer",
                f"{self.turn_seconds}s" if self.turn_seconds else "off",
                "then the timeout rule plays for the seat"
                if self.turn_seconds
                else "nobody is hurried until a player nudges (n)",
            ),
            (
                "password",
                "*" * len(self.password) if self.password else "none",
                "type it (empty: anyone may join)",
            ),
        ]
        for name in TOGGLES:
            value = self.value(name)
            shown = value_word(value)
            if name in self.toggles:
                shown += " *"
            out.append((name, shown, suited(toggle_words(name, value, rules))))
        return out

    def move(self, step: int) -> None:
        self.row = (self.row + step) % len(self.keys)
        self.finding = ""

    def find(self, text: str) -> None:
        """Letters typed on a row of choices: to the row of choices whose label starts
        with what was typed since the last move (from this row on, round to the top); a
        letter that leads nowhere on from there starts again ("t" again: the next row
        from "t").  A user pressed ↓ forty times to reach "target".  Never to the name's
        or the password's row, where what is typed next would go in ("pa" on the way to
        "passing" stopped on the password, and "ssing" became the table's password)."""
        labels = [label.lower() for label, _, _ in self.rows()]
        count = len(labels)
        for wanted, start in ((self.finding + text.lower(), 0), (text.lower(), 1)):
            for step in range(start, count):
                at = (self.row + step) % count
                if labels[at].startswith(wanted) and self.keys[at] not in TEXT_FIELDS:
                    self.row, self.finding = at, wanted
                    return

    def hint(self) -> str:
        """What the keys do on this row (the status line under the form; a narrow screen
        drops the last parts first)."""
        key = self.key
        if key in TEXT_FIELDS:
            what = "type the " + ("name" if key == "name" else "password")
        elif self._numeric(key):
            what = "←/→ or digits: the number · letters go to a setting"
        else:
            what = "←/→ values · letters go to a setting"
        return f"{what} · ↑/↓ rows · enter creates · esc"

    def number(self, digit: str) -> None:
        """A digit typed on a row of a whole number (target, rounds): the first replaces
        the value, the next ones follow it (as far as the number may go)."""
        key = self.key
        typed = self.finding if self.finding.isdigit() else ""
        self._set(key, int(typed + digit))
        self.finding = str(self.value(key))

    @staticmethod
    def _numeric(key: str) -> bool:
        """A toggle that takes a whole number (target, rounds), not one of some choices."""
        return key in TOGGLES and toggle_choices(key) is None

    def _set(self, key: str, value: Any) -> None:
        """A toggle's new value (a whole number kept within 1 to 99): kept as a change
        from the rules the form starts from, or dropped where it is theirs."""
        if self._numeric(key):
            value = min(99, max(1, int(value)))
        if value == getattr(self.base(), key):
            self.toggles.pop(key, None)
        else:
            self.toggles[key] = value

    def change(self, step: int) -> None:
        """Left/right on the current row: the previous/next value."""
        self.finding = ""
        key = self.key
        if key == "preset":
            names = [("", name) for name in PRESETS] + [(saved, "") for saved in self.saved]
            at = names.index((self.chosen, "" if self.chosen else self.preset))
            self.chosen, preset = names[(at + step) % len(names)]
            rule_set = self.saved[self.chosen] if self.chosen else RuleSet(preset)
            self.preset, self.toggles = rule_set.preset, dict(rule_set.changes)
        elif key == "seats":
            self.seats = min(12, max(3, self.seats + step))
        elif key == "turn_seconds":
            index = (
                TURN_SECONDS.index(self.turn_seconds) if self.turn_seconds in TURN_SECONDS else 4
            )
            self.turn_seconds = TURN_SECONDS[(index + step) % len(TURN_SECONDS)]
        elif key in TOGGLES:
            choices = toggle_choices(key)
            value = self.value(key)
            if choices is None:
                self._set(key, int(value) + step)
            else:
                self._set(key, choices[(choices.index(value) + step) % len(choices)])

    def type(self, text: str) -> None:
        key = self.key
        if key == "name":
            name = "" if self.suggested else self.name
            self.name, self.suggested = (name + text)[:NAME_MOST], False
        elif key == "password":
            self.password = (self.password + text)[:64]
        elif text.isdigit() and self._numeric(key):
            self.number(text)
        else:
            self.find(text)

    def backspace(self) -> None:
        if self.key == "name":
            self.name, self.suggested = ("" if self.suggested else self.name[:-1]), False
        elif self.key == "password":
            self.password = self.password[:-1]

    def request(self) -> m.CreateTable:
        return m.CreateTable(
            name=self.name.strip(),
            preset=self.preset,
            toggles=dict(self.toggles),
            seats=self.seats,
            password=self.password or None,
            turn_seconds=self.turn_seconds,
        )


@dataclass
class LobbyScreen:
    """The lobby's own state: the tables as the server last listed them, the cursor,
    lobby chat, the message line, and the form when it is open."""

    me: str
    server: str = ""
    address: str = ""
    fingerprint: str = ""
    tables: tuple[m.TableInfo, ...] = ()
    cursor: int = 0
    chat: list[str] = field(default_factory=list)
    message: str = ""
    form: TableForm | None = None
    help: bool = False
    help_pages: HelpPages = field(default_factory=HelpPages, repr=False)
    connection: str = "connected"
    listing: TableList = field(default_factory=TableList, repr=False)
    #: The server's ladder (the client's, shared) and whether the pane beside the table
    #: list shows it instead of the chosen table.
    ladder: Ladder = field(default_factory=Ladder, repr=False)
    showing_ladder: bool = False
    #: The rule sets saved in the config folder, offered by the create-table form; and
    #: what reads them again each time the form opens (a set saved while connected: the
    #: form offered it only after a restart), with a line for each that cannot be offered.
    saved: dict[str, RuleSet] = field(default_factory=dict, repr=False)
    read_saved: Callable[[], tuple[dict[str, RuleSet], list[str]]] | None = field(
        default=None, repr=False
    )
    #: The tables where a seat of ours was found waiting in a game (said once each).
    told: set[str] = field(default_factory=set, repr=False)
    #: The server's last refusal, while it is the message: it goes after a while
    #: (`LobbyApp`; a recheck read "try again in 11 s" minutes after the wait was over).
    refusal: str = ""
    #: The table of the last game this client played here (dealt a hand in it, over or
    #: left), whose record `v` asks of the server; and that record once it came (table,
    #: file name, bytes: `v` again opens it, the server sends a key one every few seconds).
    last_game: str = ""
    last_record: tuple[str, str, bytes] | None = field(default=None, repr=False)
    #: That game was under way when this client left it.
    left_under_way: bool = False

    def selected(self) -> m.TableInfo | None:
        return self.tables[self.cursor] if 0 <= self.cursor < len(self.tables) else None

    def move(self, step: int) -> None:
        if self.tables:
            self.cursor = (self.cursor + step) % len(self.tables)

    def record(self, message: m.Message) -> None:
        if isinstance(message, (m.Tables, m.TableChanged, m.TableGone)):
            chosen = self.selected()
            if not self.listing.take(message):
                return
            self.tables = self.listing.tables or ()
            names = [t.name for t in self.tables]
            if chosen is not None and chosen.name in names:
                self.cursor = names.index(chosen.name)
            self.cursor = min(self.cursor, max(0, len(self.tables) - 1))
            self._tell_of_a_waiting_seat()
        elif isinstance(message, m.Chat) and message.scope == "lobby":
            self.chat.append(said(message.sender, message.text))
            del self.chat[:-100]
        elif isinstance(message, m.ChatHistory) and message.lines:
            # (the server's last lines: what this client heard of them, or nothing if it
            # was at a table meanwhile, is replaced)
            first = message.lines[0].ago
            since = f" (from {ago_words(first)})" if first >= 60 else ""
            self.chat = [f"— earlier in the lobby{since} —"]
            self.chat += [said(line.sender, line.text) for line in message.lines]
        elif isinstance(message, m.Error):
            if message.about == m.Leaderboard.TYPE or "leaderboard" in message.message:
                return  # an older server: the ladder is simply not shown
            self.message = self.refusal = message.message

    def waiting_seat(self) -> m.TableInfo | None:
        """A table with a game under way, or waiting for one, where a seat is ours (by our
        name, which the server keeps for our key): after a crash or a quit, the way back
        (a pass came back to a table that had not started, and the cursor was on
        another's)."""
        return next(
            (t for t in self.tables if t.status in ("playing", "waiting") and self.me in t.players),
            None,
        )

    def _tell_of_a_waiting_seat(self) -> None:
        """The first time a seat of ours is seen waiting: the cursor on its table and a
        line saying `enter` goes back to it."""
        info = self.waiting_seat()
        if info is None or info.name in self.told or self.form is not None:
            return
        self.told.add(info.name)
        self.cursor = self.tables.index(info)
        under_way = ", a game under way" if info.status == "playing" else ""
        self.message = f"your seat at {info.name} is waiting{under_way}: enter takes you back"

    def line(self, info: m.TableInfo, width: int = 50) -> str:
        """A table's line in the list, in `width`: its name as whole as the room allows
        (cut in the middle only past it, never below 18), preset, seats taken, status."""
        rest = _facts(info)
        longest = max((cells(t.name) for t in self.tables), default=cells(info.name))
        # (the room left by the longest facts of any table: "finished" is a letter longer
        # than "playing", and the presets stood a column apart, a newcomer's pass)
        facts = max((len(_facts(t)) for t in self.tables), default=len(rest))
        room = max(18, min(longest, width - 1 - facts))
        return f"{pad(middle_cut(info.name, room), room)} {rest}"

    def details(self, width: int | None = None) -> list[str]:
        """The selected table in words: its rules, its seats, how it is set.  A seat's
        rating is left out where its line would not fit in `width` (the name first), and
        a name too long for it is cut in the middle: a seat is one line."""
        info = self.selected()
        if info is None:
            return ["choose a table to see it here"]
        # (who sits there before the rest; a name too long for its line cut in the middle,
        # not broken mid-word)
        name = info.name
        if width is not None:
            name = middle_cut(name, max(8, width - len(f" — {info.status}")))
        out = [f"{name} — {info.status}", "seats:"]
        for seat, player in enumerate(info.players, 1):  # (counted as people count)
            rating = self.ladder.rating(player) if player else None
            you = " (you)" if player == self.me else ""
            line = f"  {seat}: {player or '(empty)'}{you}"
            if width is not None and cells(line) > width:
                room = width - len(f"  {seat}: {you}")
                line = head(f"  {seat}: {middle_cut(player, room)}{you}", width)
            fits = width is None or cells(line) + len(_rated(rating)) <= width
            out.append(line + (_rated(rating) if fits else ""))
        # (each change in words after these lines, `rules_words`; here only where those
        # cannot be said: a pass saw "changed: target = 8" and "8 points to win" both)
        worded = bool(self.rules_words())
        out += [
            f"preset {info.preset}"
            + (f", changed: {changes_shown(info.changes)}" if info.changes and not worded else ""),
            f"turn timer {info.turn_seconds}s" if info.turn_seconds else "no turn timer",
            "password needed" if info.password else "open to anyone",
            f"{info.spectators} watching" if info.spectators else "",
        ]
        return [line for line in out if line]

    def rated_players(self) -> tuple[str, ...]:
        """The people seated at the chosen table (server bots are not rated)."""
        info = self.selected()
        if info is None:
            return ()
        return tuple(p for p in info.players if p and not p.startswith("bot:"))[:12]

    def ladder_lines(self, width: int = 80) -> list[str]:
        """The ladder's page in `width`: what it is, the columns' names, then a line a
        player (place, rating, name, hands played), then what a `?` means; a name is cut,
        in the middle, only when the line cannot hold it."""
        head, places, foot = self.ladder_parts(width)
        return [*head, *places, *foot]

    def ladder_parts(self, width: int = 80) -> tuple[list[str], list[str], list[str]]:
        """`ladder_lines` in its three parts: the head (what it is, the columns' names),
        the places (a line a player: the part the lobby's pane scrolls), the foot."""
        ladder = self.ladder
        if ladder.unsupported:
            return ["this server keeps no ladder (an older version)"], [], []
        if not ladder.heard:
            return ["asking the server for its ladder ..."], [], []
        if not ladder.board:
            return (
                ["nobody is rated here yet: players are rated after every hand they finish"],
                [],
                [],
            )
        board = ladder.board
        rating_w = max(len("rating"), *(len(shown(e)) for e in board))
        hands_w = max(len("hands"), *(len(str(e.hands)) for e in board))
        name_w = max(4, min(max(cells(e.name) for e in board), width - rating_w - hands_w - 7))
        head = [
            f"{ladder.total} rated (rating = mu - 3 sigma)",
            f"{'#':>3} {'rating':>{rating_w}}  {'name':<{name_w}} {'hands':>{hands_w}}",
        ]
        places = [
            f"{e.place:>3} {shown(e):>{rating_w}}  {pad(middle_cut(e.name, name_w), name_w)}"
            f" {e.hands:>{hands_w}}"
            for e in board
        ]
        foot = (
            [middle_cut("? not settled yet: listed after the settled ones", width)]
            if any(e.provisional for e in board)
            else []
        )
        return head, places, foot

    def ladder_width(self) -> int:
        """The width the ladder's lines need for every name whole."""
        board = self.ladder.board
        if not board:
            return 40
        rating_w = max(len("rating"), *(len(shown(e)) for e in board))
        hands_w = max(len("hands"), *(len(str(e.hands)) for e in board))
        return max(cells(e.name) for e in board) + rating_w + hands_w + 7

    def rules_words(self) -> list[str]:
        """The selected table's changed toggles, each as `president rules` and the create
        form name it, then in words (docs/rules.md's terms)."""
        info = self.selected()
        if info is None or not info.changes:
            return []
        try:
            base = find_preset(info.preset)
            changes = dict(_parse_change(part) for part in info.changes.split(", "))
            rules = base.replace(**changes)
        except (RulesError, ValueError, TypeError):
            return []
        return [
            f"{name} = {value_word(getattr(rules, name))}: "
            + suited(toggle_words(name, getattr(rules, name), rules))
            for name in changes
        ]


def _rated(rating: str | None) -> str:
    return "" if rating is None else f"  rating {rating}"


def _facts(info: m.TableInfo) -> str:
    """A table's line after its name: preset, seats taken, status, and "password" (not
    "locked": at a daifugo table a pass read it as the suit lock)."""
    taken = sum(1 for p in info.players if p)
    lock = " password" if info.password else ""
    # (a changed toggle marked as the table's own header marks it: "daifugo+")
    preset = f"{info.preset}{'+' if info.changes else ''}"
    return f"{preset:<8} {taken}/{info.seats} {info.status}{lock}"


def changes_shown(changes: str) -> str:
    """The server's `k=v, ...` (Python's words: True, None) as `president rules` and the
    create form say them: `k = true`."""
    shown = []
    for part in changes.split(", "):
        name, value = _parse_change(part)
        shown.append(f"{name} = {value_word(value)}" if name else part)
    return ", ".join(shown)


def _parse_change(text: str) -> tuple[str, Any]:
    name, _, raw = text.partition("=")
    value: Any = raw
    if raw in ("True", "False"):
        value = raw == "True"
    elif raw == "None":
        value = None
    elif raw.isdigit():
        value = int(raw)
    return name, value


def ago_words(seconds: int) -> str:
    """How long ago, in the words a person uses: "5 min ago", "2 h ago"."""
    if seconds < 3600:
        return f"{max(1, seconds // 60)} min ago"
    return f"{seconds // 3600} h ago"

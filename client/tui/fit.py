"""Text fitted to a terminal's width, as plain Python: lines wrapped at words, hint lines
shortened by whole parts, names cut in the middle, the seats as aligned columns, the help
as two columns.  The screens call these with the width they have.  Widths are a
terminal's columns (`cells`: a wide character, as in 山田, takes two, a combining mark
none), as prompt_toolkit draws them: its measure is the one thing taken from it here."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from president.protocol.schema import CONTROLS
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from .seats import SeatRow

ELLIPSIS = "…"


def cells(text: str) -> int:
    """The columns `text` takes on a terminal (a name 山田 four, not two: the seats'
    columns of a table of Japanese names were pushed apart by the difference)."""
    return len(text) if text.isascii() else get_cwidth(text)


def narrow(text: str) -> bool:
    """Whether each character of `text` takes one column (so `len` measures it)."""
    return text.isascii() or all(get_cwidth(ch) == 1 for ch in text)


def fit_fragments(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Styled fragments cut to `width` columns (the last one ends in …), never inside a
    wide character (one across a box's edge left the edge undrawn, a newcomer's pass)."""
    if sum(cells(text) for _, text, *_ in fragments) <= width:
        return fragments
    out: StyleAndTextTuples = []
    room = width - 1
    for style, text, *_ in fragments:
        if room <= 0:
            break
        kept = head(text, room)
        out.append((style, kept))
        room -= cells(kept)
    out.append(("", "…"))
    return out


def pad(text: str, width: int) -> str:
    """`text` and spaces to `width` columns (`f"{text:<{width}}"`, by columns)."""
    return text + " " * (width - cells(text))


def head(text: str, width: int) -> str:
    """The longest start of `text` within `width` columns (with the marks on its last
    character)."""
    if narrow(text):
        return text[: max(0, width)]
    used = 0
    for at, ch in enumerate(text):
        used += get_cwidth(ch)
        if used > width:
            return text[:at]
    return text


def tail(text: str, width: int) -> str:
    """The longest end of `text` within `width` columns."""
    if narrow(text):
        return text[len(text) - max(0, width) :] if width > 0 else ""
    used = 0
    for at in range(len(text) - 1, -1, -1):
        used += get_cwidth(text[at])
        if used > width:
            start = at + 1  # (not the marks of the character cut: they sat on the "…")
            while start < len(text) and get_cwidth(text[start]) == 0:
                start += 1
            return text[start:]
    return text


#: The spaces a line is not broken at, where what they join fits a line: after a place
#: ("3. greedy-3"), then before points ("greedy-3 +1"), so a hand's finish reads one
#: player at a time. (Each made a character textwrap does not break at, as wide.)
_GLUED = ((re.compile(r"(?<=\d\.) (?=\S)"), "\0"), (re.compile(r"(?<=\S) (?=\+\d)"), "\1"))


def glued_wrap(text: str, width: int, **options: Any) -> list[str]:
    """`textwrap.wrap` of `text`, but not at the spaces of `_GLUED` where the words they
    join fit a line after its indent (where they do not, as `textwrap.wrap` cuts them)."""
    lead = len(text) - len(text.lstrip(" "))
    room = width - max(lead, len(options.get("subsequent_indent", "")))
    for spaces, glue in _GLUED:
        words = spaces.sub(glue, text).split(" ")
        text = " ".join(word if len(word) <= room else word.replace(glue, " ") for word in words)
    lines = textwrap.wrap(text, width, **options)
    return [line.replace("\0", " ").replace("\1", " ") for line in lines]


def wrap(text: str, width: int, hanging: int = 0) -> list[str]:
    """`text` as lines of at most `width`, broken at spaces (a word longer than a line is
    cut), not between a place and its player where both fit a line (`glued_wrap`); a
    line's leading indent is kept on its continuation lines, which are indented `hanging`
    at least (so that no continuation looks like a line of its own)."""
    width = max(1, width)
    if cells(text) <= width:
        return [text]
    indent = " " * min(max(len(text) - len(text.lstrip(" ")), hanging), width // 2)
    if not narrow(text):
        return _wrap_cells(text, width, indent)
    return glued_wrap(
        text,
        width,
        subsequent_indent=indent,
        break_on_hyphens=False,
        replace_whitespace=False,
    ) or [""]


def _wrap_cells(text: str, width: int, indent: str) -> list[str]:
    """`wrap` where some character is not one column wide (a chat line in Japanese, a
    name 山田): greedily at spaces by columns, a word no line holds cut where the columns
    run out (Japanese has no spaces to break at), runs of spaces one."""
    lead = min(len(text) - len(text.lstrip(" ")), width // 2)  # (a line's own indent too)
    text = text[len(text) - len(text.lstrip(" ")) - lead :]
    room = width - max(lead, len(indent))
    for spaces, _ in _GLUED:  # (as `glued_wrap`: "3. 山田" kept on one line, by NBSPs)
        words = spaces.sub(_HELD, text[lead:]).split(" ")
        text = text[:lead] + " ".join(
            w if cells(w) <= room else w.replace(_HELD, " ") for w in words
        )
    lines: list[str] = []
    line = text[:lead]
    for word in (w for w in text[lead:].split(" ") if w):
        while word:
            gap = " " if line.strip(" ") else ""
            if cells(line) + len(gap) + cells(word) <= width:
                line += gap + word
                break
            room = width - cells(line) - len(gap)
            if line.strip(" ") and (cells(word) <= width - len(indent) or room < 2):
                lines.append(line)
                line = indent
                continue
            line += gap if room > 0 else ""  # (a word no line holds begins here: 日本語 ...)
            part = head(word, width - cells(line)) or word[0]  # (a line holds one at least)
            if len(part) > 1 and word[len(part) : len(part) + 1] in NOT_FIRST:
                part = part[:-1]  # (kinsoku: "す" goes down with its "。", not "。" alone)
            lines.append(line + part)
            word, line = word[len(part) :], indent
    if line.strip(" "):
        lines.append(line)
    return [line.replace(_HELD, " ") for line in lines] or [""]


#: What a line of Japanese never begins with (kinsoku shori: closing marks, the small
#: kana, the long vowel mark): `_wrap_cells` takes the character before down with it (a
#: newcomer's pass read "。" alone at the start of a chat line).
NOT_FIRST = frozenset(
    "、。，．・：；？！゛゜ヽヾゝゞ々ー）〕］｝〉》」』】〙〗〟｠"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ…‥"
)

#: A space `_wrap_cells` does not break at (one column, as the space it stands for).
_HELD = "\u00a0"


def fitted(question: str, width: int) -> str:
    """A question in lines shorter than `width` (a terminal breaks a long line inside a
    word: "cer" at the end of one row, "tificate" on the next): each line broken at
    spaces, a fingerprint into rows of as many whole bytes each; the end (the space
    after the question) kept."""
    width = max(20, width - 1)  # (a line as wide as the terminal may wrap once more)
    body = question.rstrip(" ")
    out: list[str] = []
    for line in body.split("\n"):
        word = line.strip()
        if len(line) <= width or " " in word or ":" not in word:
            out += wrap(line, width)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        parts = word.split(":")
        fit = max(1, (width - len(indent)) // 3)  # "AB:" a byte; a row goes on after ":"
        rows = -(-len(parts) // fit)
        each = -(-len(parts) // rows)
        starts = range(0, len(parts), each)
        out.append(":\n".join(indent + ":".join(parts[at : at + each]) for at in starts))
    return "\n".join(out) + question[len(body) :]


def said(sender: str, text: str) -> str:
    """A line of chat as the screens show it: `<sender> text`, each run of spaces (of any
    kind) in the text one space, so that no gap in it can push words to the start of a
    row of their own (a hostile line's 420 spaces, then "<ann> ...")."""
    return f"<{sender}> {' '.join(text.split())}"


def typed_line(text: str, most: int) -> tuple[str, str]:
    """A line typed to be sent (chat): without the characters a message may not hold
    (a terminal pass: Ctrl-Z typed in the line was sent as ^Z, the server refused the
    whole line and it was lost), a tab a space, cut to `most` characters; and what to
    tell its sender if it was cut ("": nothing; a long paste's end went unsaid)."""
    kept = "".join(" " if ch == "\t" else ch for ch in text if ch not in CONTROLS).strip()
    if not kept and text.strip():  # (a recheck: dropped unsaid, the last line's note on)
        return "", "nothing sent: the line held only characters a message may not hold"
    if len(kept) <= most:
        return kept, ""
    return kept[:most].rstrip(), f"only its first {most} characters were sent"


def cut(text: str, width: int) -> str:
    """`text` cut to `width` at a word boundary, with an ellipsis if anything went."""
    if cells(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = head(text, width - 1)
    space = room.rstrip().rfind(" ")
    if text[len(room)] != " " and space > width // 3:
        room = room[:space]  # not in the middle of a word
    return room.rstrip(" ,;:·—") + ELLIPSIS


def middle_cut(name: str, width: int) -> str:
    """`name` in `width` columns, cut in the middle so the start and the end stay
    (`random-bot-1` and `random-bot-2` remain told apart)."""
    if cells(name) <= width:
        return name
    if width <= 2:
        return head(name, width)
    end = (width - 1) // 2
    return head(name, width - 1 - end) + ELLIPSIS + tail(name, end)


def shorten(text: str, width: int, separators: Sequence[str] = (" · ", ", ")) -> str:
    """A line of parts ("a: x, y, z" or "x · y · z") fitted by dropping whole parts from
    the end (a part starting with "?", the way to the help, is kept the longest), then by
    cutting at a word."""
    if cells(text) <= width:
        return text
    for separator in separators:
        parts = text.split(separator)
        if len(parts) < 2:
            continue
        while len(parts) > 1 and cells(separator.join(parts)) > width:
            droppable = [i for i in range(1, len(parts)) if not parts[i].lstrip().startswith("?")]
            del parts[droppable[-1] if droppable else len(parts) - 1]
        text = separator.join(parts)
        if cells(text) <= width:
            return text
    return cut(text, width)


def fit_parts(parts: Sequence[tuple[int, str]], width: int, separator: str) -> list[int]:
    """Which of `parts` (priority, text) fit on one line of `width` joined by
    `separator`: the least important (highest number) go first.  Their indexes, in order."""
    kept = list(range(len(parts)))

    def length() -> int:
        return sum(cells(parts[i][1]) for i in kept) + cells(separator) * max(0, len(kept) - 1)

    while len(kept) > 1 and length() > width:
        kept.remove(max(kept, key=lambda i: (parts[i][0], i)))
    return kept


def seat_lines(rows: Sequence[SeatRow], width: int) -> list[str]:
    """The seats as aligned columns in `width`: the marker, the name, the rating, the
    title, the cards, the points, the flags.  The numbers and the flags are never cut;
    names are kept whole as long as anything else can give way: first the numbers lose
    their words ("13c 0p"), then the ratings go, then the titles are cut (to 6), and
    only then is a name cut, in the middle.  Where the name is cut does not change from
    one move to the next: room is kept for two digits of cards and of points and for
    "passed" (more only while more is shown)."""
    if not rows:
        return []
    title_w = max(len(r.title) for r in rows)
    cards_w = max(len(str(r.count)) for r in rows)
    points_w = max(len(str(r.points)) for r in rows)
    flags_w = max(len(r.flags) for r in rows)
    name_w = max(cells(r.name) for r in rows)
    rating_w = max(len(r.rating) for r in rows)
    words = True

    def fixed() -> int:
        """The columns besides the name's, as wide as they may get during a game."""
        cards, points, flags = max(cards_w, 2), max(points_w, 2), max(flags_w, len("passed"))
        numbers = (cards + 6 + 2 + points + 4) if words else (cards + 2 + points + 2)
        rating = rating_w + (1 if title_w else 2) if rating_w else 0
        return 2 + rating + (title_w + 1 if title_w else 0) + 1 + numbers + flags + 1

    if fixed() + name_w > width:
        words = False  # "13c 0p": the numbers in 9 fewer columns
    if rating_w and fixed() + name_w > width:
        rating_w = 0  # the ratings go before the titles are cut
    while title_w > 6 and fixed() + min(name_w, 8) > width:
        title_w -= 1
    name_w = max(4, min(name_w, width - fixed()))
    out = []
    for r in rows:
        mark = "▶ " if r.turn else "  "
        title = f"{middle_cut(r.title, title_w):<{title_w}} " if title_w else ""
        if words:
            cards = "card " if r.count == 1 else "cards"
            points = "pt " if r.points == 1 else "pts"
            numbers = f"{r.count:>{cards_w}} {cards}  {r.points:>{points_w}} {points}"
        else:
            numbers = f"{r.count:>{cards_w}}c {r.points:>{points_w}}p"
        flags = f" {r.flags}" if r.flags else ""
        # (two spaces before the numbers: "rating 757 11 cards" read as one figure, a
        # newcomer's pass; a title's column parts them otherwise)
        gap = " " if title_w else "  "
        rating = f"{r.rating:<{rating_w}}{gap}" if rating_w else ""
        name = pad(middle_cut(r.name, name_w), name_w)
        out.append(f"{mark}{name} {rating}{title}{numbers}{flags}".rstrip())
    return out


#: The narrowest a seat's compact cell may be ("▶ ann (you) 13c 10p passed").
COMPACT_CELL = 26

#: Flags in a compact cell.
_SHORT_FLAGS = {
    "passed": "pass",
    "passed · away": "pass·away",
    "skipped": "skip",
    "skipped · away": "skip·away",
    "fell · away": "fell·away",
}


def compact_seats(rows: Sequence[SeatRow], width: int) -> list[str]:
    """The seats as compact cells of `width` (several side by side on a short screen):
    the marker, the name (cut in the middle if it must be), cards and points, the flags;
    no title or rating (the log says who gives to whom)."""
    cards_w = max(2, *(len(str(r.count)) for r in rows))
    points_w = max(2, *(len(str(r.points)) for r in rows))
    flags = [_SHORT_FLAGS.get(r.flags, r.flags) for r in rows]
    # room kept for "pass" (more only while more is shown): names stay put as turns go
    flags_w = max(len("pass"), *(len(f) for f in flags))
    room = max(4, width - 2 - 1 - (cards_w + 2 + points_w + 1) - 1 - flags_w)
    out = []
    for r, flag in zip(rows, flags):
        numbers = f"{r.count:>{cards_w}}c {r.points:>{points_w}}p"
        name = pad(middle_cut(r.name, room), room)
        out.append(f"{'▶ ' if r.turn else '  '}{name} {numbers} {flag}".rstrip())
    return out


def window_start(lines: int, height: int, wanted: Sequence[int | None]) -> int:
    """The first of `height` lines to show of `lines`, so the wanted lines are in view
    (those that are known; the first wanted, if they cannot all be)."""
    known = [line for line in wanted if line is not None]
    start = 0
    if known:
        low, high = min(known), max(known)
        start = high - height + 1 if high - low < height else known[0]
    return max(0, min(start, lines - height))


def seats_width(rows: Sequence[SeatRow]) -> int:
    """The width `seat_lines` needs to show every name, rating and title whole, with the
    numbers in words (and room for the flags a game may show)."""
    if not rows:
        return 0
    cards = max(2, *(len(str(r.count)) for r in rows))
    points = max(2, *(len(str(r.points)) for r in rows))
    flags = max(len("passed"), *(len(r.flags) for r in rows))
    rating = max(len(r.rating) for r in rows)
    title = max(len(r.title) for r in rows)
    name = max(cells(r.name) for r in rows)
    numbers = cards + 6 + 2 + points + 4
    return (
        2
        + name
        + 1
        + (rating + (1 if title else 2) if rating else 0)
        + (title + 1 if title else 0)
        + (numbers + flags + 1)
    )


def help_lines(entries: Sequence[tuple[str, str]], width: int) -> list[str]:
    """The keys and what they do as two columns in `width`, the words wrapped under
    their own column."""
    key_w = min(max(len(k) for k, _ in entries), max(4, width // 3))
    out = []
    for keys, words in entries:
        if not keys:
            out.append(words)
            continue
        lines = wrap(words, max(8, width - key_w - 3))
        out.append(f" {keys:<{key_w}}  {lines[0]}")
        out.extend(" " * (key_w + 3) + line for line in lines[1:])
    return out


#: A help overlay's line that starts a new page where the overlay has more than one.
PAGE_BREAK = "\f"


@dataclass
class HelpPages:
    """Which page of a help overlay shows, where the screen is too short for all of it
    (`page_of`), and how many pages it made when last drawn."""

    page: int = 0
    pages: int = 1

    def page_of(self, lines: Sequence[str], height: int) -> list[str]:
        """The lines of the page shown in `height`: all of them where they fit; else up
        to `height - 1` of them, an entry's wrapped lines kept on one page, a new page
        at each `PAGE_BREAK` (a section of its own: the table's rules after its keys),
        and a last line saying how to see the next page."""
        plain = [line for line in lines if line != PAGE_BREAK]
        if len(plain) <= height or height < 2:
            self.pages = 1
            return plain
        per = height - 1
        pages: list[list[str]] = []
        section: list[str] = []
        for line in [*lines, PAGE_BREAK]:
            if line != PAGE_BREAK:
                section.append(line)
                continue
            start = 0  # where each page begins: at an entry's first line where it can
            while len(section) - start > per:
                end = start + per
                while end > start + 1 and section[end].startswith("    "):
                    end -= 1  # (a wrapped entry's later lines are indented)
                pages.append(section[start:end])
                start = end
            if section[start:]:
                pages.append(section[start:])
            section = []
        self.pages = len(pages)
        self.page = min(self.page, self.pages - 1)
        shown = pages[self.page]
        where = f"{self.page + 1}/{self.pages}"
        more = self.page + 1 < self.pages
        hint = f" ? or space: more ({where})" if more else f" ({where}) any key closes"
        return [*shown, *[""] * (per - len(shown)), hint]

    def next(self) -> bool:
        """On to the next page; False after the last (the overlay closes)."""
        if self.page + 1 < self.pages:
            self.page += 1
            return True
        self.page = 0
        return False


def status_lines(style: str, text: str, width: int, message: bool) -> list[tuple[str, str]]:
    """A screen's status line in `width`: hints lose their last parts; a message (when
    `message`) wraps onto two lines, the second cut."""
    if not message:
        return [(style, shorten(text, width))]
    lines = wrap(text, width)
    if len(lines) > 2:
        lines = [lines[0], cut(" ".join(lines[1:]), width)]
    return [(style, line) for line in lines]


def status_fragments(lines: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Those lines as styled text, each after a space."""
    return [
        (style, " " + text + ("\n" if i < len(lines) - 1 else ""))
        for i, (style, text) in enumerate(lines)
    ]

"""Which player's key each name belongs to on this server: the first key to say hello
with a name claims it, and from then on only that key may use it, or any name that looks
like it.  Kept in `DIR/names.sqlite3` (private like the rest of the data directory, under
its lock); a server without a journal (`president play`'s) keeps them in memory only.

A name must show what it is (`name_problem`): no character that draws nothing or a blank
(zero-width and format characters, Hangul fillers, the braille blank, other spaces), no
space at either end or twice in a row, no control, private-use or unassigned character.
Names are then compared by their look (`looks`): the Unicode TR39 confusable skeleton, so
a Cyrillic "соре" or a "c0pe" is "cope" and is refused while another key holds "cope";
and a name that mixes Latin, Cyrillic or Greek letters is refused outright.

Claims cannot lock anyone out: an address claims at most `CLAIMS_PER_HOUR` new names
an hour, and past that, or once the book holds `MAX_NAMES`, a new name is used
unclaimed (as by a client without a key) rather than refused."""

from __future__ import annotations

import contextlib
import datetime
import functools
import hmac
import logging
import os
import re
import sqlite3
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from pathlib import Path

import disarm
from president.protocol.messages import name_taken

from .storage import StorageError

log = logging.getLogger("president.server")

#: The most names a server remembers: past it, a new name is used without being claimed
#: (a flood of fresh keys cannot grow the file without end, nor lock newcomers out).
MAX_NAMES = 100_000
#: New names one address may claim in an hour (past it: used, not claimed).
CLAIMS_PER_HOUR = 30
#: Alphabets whose letters look alike: a name may use one of them, not several.
LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})
#: What the stored looks were computed by: `looks` (this module's first way) over the
#: library's keys; a book written under another is looked at again when opened.
LOOKS_VERSION = f"1 disarm-keys-{disarm.KEY_SCHEMA_VERSION}"

#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), which `unicodedata`
#: lacks: what a renderer that does not know them shows as nothing.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
IGNORABLE = frozenset(chr(c) for low, high in DEFAULT_IGNORABLE for c in range(low, high + 1))
#: General categories no name may hold, and why.
REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible format character",
    "Co": "a private-use character, which has no agreed look",
    "Cs": "half of a surrogate pair",
    "Cn": "not a character this server knows",
    "Zl": "a line break",
    "Zp": "a paragraph break",
    "Zs": "a space other than the ordinary one",
}
#: How the lobby names a server's bot in a table's list ("bot:greedy"): no person's name
#: begins so, in any case or width.
BOT_PREFIX = "bot:"
#: The words the screens call this client's own seat by ("you pass", "ann (you)"): a
#: player so named spoke in each viewer's own voice (a hostile pass named itself "you":
#: "you deal", "you pass", its moves read as the viewer's).  Compared by their looks.
VIEWER_WORDS = frozenset({"you", "your", "yours", "yourself"})
#: Variation selectors 15 and 16 (text or emoji style), welcome right after a symbol:
#: a heart is often typed "❤️", U+2764 U+FE0F.
PRESENTATION = frozenset("\ufe0e\ufe0f")


def name_key(name: str) -> str:
    """`name` as it is compared: NFKC, without case, without invisible (format)
    characters.  (The key of the claims kept on disk: it does not change.)"""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFKC", text)


def skeleton(text: str) -> str:
    """`text`'s confusable skeleton (Unicode TR39, by disarm, digits folded too: "c0pe"
    is "cope"); lower case, blanks collapsed."""
    return disarm.skeleton_key(text, digit_policy="tr39")


@functools.lru_cache(maxsize=4096)
def looks(name: str) -> frozenset[str]:
    """The skeletons of `name` as written and in lower case: a claim is the name in any
    case, and "Ivan" looks like "lvan" where "ivan" looks like a Cyrillic "іvan".  Two
    names look alike when these sets meet.  Kept for the names met last (each table made
    is compared with every open table's name)."""
    return frozenset(filter(None, (skeleton(name), skeleton(name_key(name)))))


#: Characters terminals draw otherwise than they measure them (prompt_toolkit counts a
#: flag's two regional indicators four columns, tmux draws two): a name holding one
#: shifted every line after it on the others' screens (a pass: "99 cards 99 pts" of
#: stale digits).  The regional indicators and the skin tones' modifiers.
MISDRAWN = frozenset(
    [chr(c) for c in range(0x1F1E6, 0x1F200)]
    + [chr(c) for c in range(0x1F3FB, 0x1F400)]
    # (and, a hostile pass: the Arabic ligatures counted one column that fonts draw 4-12
    # wide, ﷽ U+FDFD the longest, and cuneiform, as wide)
    + [chr(c) for c in range(0xFDFA, 0xFDFE)]
    + [chr(c) for c in range(0x12000, 0x12550)]
)
#: The most combining marks a name may stack on one character: past it they draw over
#: the lines above and below (a hostile pass's "y" and 30 marks left stray digits in
#: others' logs).  Vietnamese, Thai and Devanagari need two.
MOST_MARKS = 3


def _unseen(ch: str, previous: str) -> str | None:
    """Why `ch` (after `previous`) does not show as itself in a name, or None if it does."""
    if " " <= ch <= "~" or (ch in PRESENTATION and unicodedata.category(previous or " ") == "So"):
        return None  # printable ASCII shows as itself
    why = REFUSED_CATEGORIES.get(unicodedata.category(ch))
    if why is not None:
        return why
    if ch in IGNORABLE:
        return "it shows as nothing"
    if ch in MISDRAWN:
        return (
            "terminals draw it wider or narrower than they count it (a flag, a skin tone, a"
            " long ligature)"
        )
    if ch in BLOCK_LINES:
        return "the screens draw their own lines with such strokes"
    if unicodedata.category(ch) == "Me":  # (U+20DD, U+0489: a ring or rays on a letter)
        return "an enclosing mark, which draws over the characters beside it"
    if not skeleton(ch):  # the braille blank and the like: drawn, but as nothing
        return "it shows as a blank"
    return None


#: The dashes the screens set their own lines between ("— eve is watching —"), the
#: strokes that look like them, and the box-drawing lines the screens draw their boxes
#: with: a name holding one could pass for such a line ("pat stopped watching — —
#: server ...", then with U+2500 "─", a second hostile pass, the dashes refused).
FRAME_DASHES = frozenset(
    "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u23af\u23e4\u2e1a\u2e3a\u2e3b"
    + "".join(chr(c) for c in range(0x2500, 0x2580))
)


#: The block elements and the legacy computers' line pieces: drawn as lines as the box
#: drawing's are (a hostile pass set its watcher's name between "▁▁").
BLOCK_LINES = frozenset(
    [chr(c) for c in range(0x2580, 0x25A0)] + [chr(c) for c in range(0x1FB00, 0x1FC00)]
)
#: The looks (`skeleton`) of strokes that belong in names ("ラーメン", "一郎", "R2-D2",
#: "斎藤 一") but, framing a name or two in a row, set it between lines as the screens
#: set theirs: "ㅡ you are back at your seat ㅡ", "ーー the game so far ーー" (a hostile
#: pass); with the letters and signs drawn as such a stroke that a second pass found
#: (ㄧ, ᐨ, ـ, ˉ, ˍ; the scan lines ⎺ ⎻ ⎼, ⚊, ≡).
STROKE_LOOKS = frozenset("-_~=≡—─ᅳー一㇐▬▔⎽〜ㄧᐨـˉˍ⎺⎻⎼⚊⚋")
#: Ranges of signs drawn as dots and lines: braille's patterns, the counting rods.
LINE_SIGNS = ((0x2800, 0x28FF), (0x1D360, 0x1D37F))


def _stroke(ch: str) -> bool:
    """`ch` draws as a stroke (a dash, a line, a row of dots)."""
    return (
        unicodedata.category(ch) == "Pd"
        or skeleton(ch) in STROKE_LOOKS
        or any(low <= ord(ch) <= high for low, high in LINE_SIGNS)
    )


def _strokes_in(word: str) -> int | None:
    """How many strokes `word` holds if, its marks aside, it holds nothing but strokes and
    punctuation (None if it holds a letter, a digit or another sign)."""
    shown = [ch for ch in word if not unicodedata.category(ch).startswith("M")]
    if not shown or not all(_stroke(ch) or unicodedata.category(ch)[0] == "P" for ch in shown):
        return None
    return sum(map(_stroke, shown))


def _stroke_word(text: str) -> str | None:
    """A word of strokes that sets `text` between lines, or None: a name of strokes
    alone; strokes two or more at either end ("ーー the game", "ann --", "ーー."); or
    strokes at both ends ("ㅡ you are back ㅡ", "一 sam 一").  A stroke at one end alone
    is a name's ("斎藤 一", "ann -"), and so is punctuation ("ann !", "ann :)")."""
    words = text.split(" ")
    counted = [_strokes_in(word) for word in words]
    if all(n for n in counted):
        return words[0]
    for word, n in ((words[0], counted[0]), (words[-1], counted[-1])):
        if n is not None and n >= 2:
            return word
    if len(words) > 1 and counted[0] and counted[-1]:
        return words[0]
    return None


#: Hangul's vowel and final jamo: drawn on the syllable before them, as marks are
#: (a second pass stacked 19 on one syllable).
JAMO_ON = ((0x1160, 0x11FF), (0xD7B0, 0xD7FF))
#: The most marks of every kind one character may carry, spacing ones included (a
#: second pass put 20 of U+093E on one letter, which the terminal and prompt_toolkit
#: count differently); Burmese writes four on one consonant (ကျော် "Kyaw").
MOST_MARKS_IN_ALL = 6


def _stacked(text: str) -> bool:
    """`text` stacks more than `MOST_MARKS` marks drawn over or under one character
    (nonspacing and enclosing marks, and Hangul's joining jamo), or more than
    `MOST_MARKS_IN_ALL` marks of every kind, counted on the text decomposed (a precomposed
    ǖ carries two already)."""
    thin = every = 0
    for ch in unicodedata.normalize("NFD", text):
        category = unicodedata.category(ch)
        jamo = any(low <= ord(ch) <= high for low, high in JAMO_ON)
        if category.startswith("M") or jamo:
            every += 1
            thin += category in ("Mn", "Me") or jamo
        else:
            thin = every = 0
        if thin > MOST_MARKS or every > MOST_MARKS_IN_ALL:
            return True
    return False


def name_problem(name: str) -> str | None:
    """Why `name` cannot be anyone's name here (one line), whoever has claimed what, or
    None: each character shows as itself (words parted by single ordinary spaces), as
    written and in NFKC.  Spaces at the ends are refused, not stripped: the server never
    rewrites a name, so the one a client sent is the one every seat sees."""
    normal = unicodedata.normalize("NFKC", name)
    for text in (name, normal) if normal != name else (name,):
        for at, ch in enumerate(text):
            why = _unseen(ch, text[at - 1] if at else "")
            if why is not None:
                called = unicodedata.name(ch, "").title()
                return (
                    f"a name may not hold U+{ord(ch):04X}{f' ({called})' if called else ''}: {why}"
                )
        if not text.strip(" "):
            return "a name needs a letter, digit or sign that shows, not only spaces"
        if text != text.strip(" "):
            return "a name may not begin or end with a space"
        if "  " in text:
            return "a name may not hold two spaces in a row"
        if unicodedata.category(text[0]).startswith("M"):
            return "a name may not begin with a combining mark (it would sit on what comes before)"
        dash = next((ch for ch in text if ch in FRAME_DASHES), None)
        if dash is not None:
            return (
                f"a name may not hold {dash} (U+{ord(dash):04X}): the screens draw their own"
                " lines and boxes with such strokes (a hyphen, -, is fine)"
            )
        strokes = _stroke_word(text)
        if strokes is not None:
            return (
                f"a name may not begin or end with {strokes!r}: dashes or strokes at both"
                " ends, or two at one, set a name between lines as the screens set theirs"
                " (one at one end is fine)"
            )
        if _stacked(text):
            return (
                f"a name may not stack more than {MOST_MARKS} marks on one letter: they would"
                " draw over the lines around it"
            )
    return None


def viewer_word(name: str) -> str | None:
    """The word of `name` that reads as one of `VIEWER_WORDS`, its accents aside (a second
    pass: "yọu"), where the name is that word alone (or such words alone) or holds it in
    brackets as the screens mark a viewer's own seat ("lee (you)"); None otherwise: "You"
    is a surname too (游, 유: "You Si-kun"), and the narrator says "you" by seat."""
    bare = "".join(
        ch
        for ch in unicodedata.normalize("NFD", name_key(name))
        if not unicodedata.category(ch).startswith("M")
    )
    words = [w for w in re.split(r"[\W_]+", bare) if w]
    if words and all(skeleton(w) in VIEWER_WORDS for w in words):
        return words[0]
    bracketed: list[str] = re.findall(r"[(\[{<]\s*([^)\]}>]*?)\s*[)\]}>]", bare)
    return next((inside for inside in bracketed if skeleton(inside) in VIEWER_WORDS), None)


def mixed_scripts(name: str) -> list[str]:
    """The lookalike alphabets `name`'s letters come from, if more than one."""
    scripts = set(alphabets(name)) & LOOKALIKE_SCRIPTS
    return sorted(scripts) if len(scripts) > 1 else []


def mixed_problem(name: str) -> str | None:
    """Why `name` may not be used for mixing lookalike alphabets, or None."""
    mixed = mixed_scripts(name)
    if not mixed:
        return None
    return (
        f"a name may not mix {' and '.join(s.title() for s in mixed)} letters "
        "(they look alike): choose a name in one alphabet"
    )


def alphabets(name: str) -> list[str]:
    """The alphabets (scripts, as Unicode names them) of `name`'s letters."""
    return sorted({unicodedata.name(ch, "").split(" ")[0] for ch in name if ch.isalpha()})


def looks_taken(name: str, claimed: str) -> str:
    """The reason a name is refused for looking like `claimed`, another key's name."""
    own, theirs = alphabets(name), alphabets(claimed)
    written = "" if own == theirs else f" ({' and '.join(a.title() for a in own)} letters)"
    return (
        f"the name {name}{written} looks like {claimed}, which belongs to another player on "
        "this server (another key claimed it first): choose a name that looks different, or "
        "connect with that player's identity file"
    )


class NamesError(StorageError):
    """The names file cannot be used; the message (one line) says why."""


class NameBook:
    """Names and the player ids (protocol/identity.py `player_id`) that own them, with the
    looks of each name: whoever claimed a look first owns every name that has it."""

    def __init__(
        self, path: Path | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.path = path
        self.clock = clock
        #: Per address, when it claimed its recent names (the last hour's).
        self._claims: dict[str, deque[float]] = {}
        self.db: sqlite3.Connection | None = None
        try:
            if path is not None:
                if path.is_symlink():
                    raise NamesError(f"{path} is a symlink; the server does not follow one")
                with contextlib.suppress(FileExistsError):  # 0600 before SQLite opens it
                    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                    os.close(os.open(path, flags, 0o600))
            self.db = sqlite3.connect(
                ":memory:" if path is None else path, isolation_level=None, check_same_thread=False
            )
            if path is not None:
                # (a claim is written on the event loop, at hello: with a rollback journal
                # each was two fsyncs, 1-14 ms here and far more on a slow disk, while a
                # burst of hellos from many addresses held every table; a write-ahead log
                # syncs at its checkpoints, and a claim lost with the machine's power is
                # made again at the key's next hello.  Its -wal and -shm files take the
                # main file's mode.)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS names (folded TEXT PRIMARY KEY, name TEXT NOT NULL,"
                " player TEXT NOT NULL, claimed TEXT NOT NULL)"
            )
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS looks (look TEXT NOT NULL, folded TEXT NOT NULL,"
                " PRIMARY KEY (look, folded)) WITHOUT ROWID"
            )
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS facts (fact TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            self._look_again()
        except (sqlite3.Error, OSError) as exc:
            if self.db is not None:
                self.db.close()
            raise NamesError(f"the names file {path} cannot be used: {exc}") from None

    def _look_again(self) -> None:
        """Compute every claim's looks anew if they were computed another way (a book from
        before looks were kept, or from another version of the library).  A claimed name
        that is no longer a name (`name_problem`) keeps its claim but owns no look."""
        assert self.db is not None
        row = self.db.execute("SELECT value FROM facts WHERE fact = 'looks'").fetchone()
        if row is not None and row[0] == LOOKS_VERSION:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("DELETE FROM looks")
            for folded, name in self.db.execute("SELECT folded, name FROM names").fetchall():
                if name_problem(name) is None:
                    self._add_looks(folded, name)
            self.db.execute("INSERT OR REPLACE INTO facts VALUES ('looks', ?)", (LOOKS_VERSION,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _add_looks(self, folded: str, name: str) -> None:
        assert self.db is not None
        self.db.executemany(
            "INSERT OR IGNORE INTO looks VALUES (?, ?)", [(look, folded) for look in looks(name)]
        )

    def owner(self, name: str) -> str | None:
        """The player id that claimed `name` itself (as `name_key` reads it), or None."""
        if self.db is None:
            return None
        row = self.db.execute(
            "SELECT player FROM names WHERE folded = ?", (name_key(name),)
        ).fetchone()
        return None if row is None else str(row[0])

    def first_alike(self, name: str) -> tuple[str, str, str] | None:
        """The first claim of `name` or of a name that looks like it, as (its `name_key`,
        the name as claimed, the player id), or None if there is none."""
        if self.db is None:
            return None
        seen = sorted(looks(name))
        marks = ", ".join("?" * len(seen))
        row = self.db.execute(
            "SELECT folded, name, player FROM names WHERE folded = ? OR folded IN"
            f" (SELECT folded FROM looks WHERE look IN ({marks})) ORDER BY claimed, rowid LIMIT 1",
            (name_key(name), *seen),
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]))

    def refusal(self, name: str, player: str, address: str = "", claim: bool = True) -> str | None:
        """Why `player` (a player id, "" for a client without a key) may not use `name`
        here, or None if it may: a name that does not show as itself, or mixes lookalike
        alphabets, is nobody's; a name is its first claimer's, and so is every name that
        looks like it; a key claims a name nobody has (a client without a key uses one,
        claiming nothing, and so does one that only watches, `claim` False: `president
        stats` claimed its user's login name for good).  A claim that cannot be written,
        or is past the limits, is logged and the name is used unclaimed for now (claimed
        at a later hello)."""
        problem = name_problem(name)
        if problem is not None:
            return problem
        mixed = mixed_problem(name)
        if mixed is not None:
            return mixed
        if name_key(name).startswith(BOT_PREFIX):
            return (
                f'a name may not begin with "{BOT_PREFIX}": the lobby shows the server\'s bots so'
            )
        viewer = viewer_word(name)
        if viewer is not None:
            return (
                f"a name may not be, or hold in brackets, the word {viewer!r}: the screens"
                " call each player's own seat so"
            )
        if set("<>") & set(unicodedata.normalize("NFKC", name)):
            # ("t2ann> hi <t2bob" spoke in the chat as two people: "<t2ann> hi <t2bob> ...")
            return "a name may not hold < or >: the chat shows who speaks as <name>"
        if self.db is None:
            return "the server is closing"
        folded = name_key(name)
        first = self.first_alike(name)
        if first is not None:
            return self._verdict(name, folded, first, player)
        if not player or not claim:
            return None
        if self.count() >= MAX_NAMES:
            log.warning("names: %d names kept, the most; %r used unclaimed", MAX_NAMES, name)
            return None
        if not self._may_claim(address):
            log.warning(
                "names: %s claimed %d names this hour; %r used unclaimed",
                address,
                CLAIMS_PER_HOUR,
                name,
            )
            return None
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                added = self.db.execute(
                    "INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)", (folded, name, player, now)
                ).rowcount
                if added:
                    self._add_looks(folded, name)
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            log.warning("names: %r could not be written: %s", name, exc)
            return None
        first = self.first_alike(name)
        return None if first is None else self._verdict(name, folded, first, player)

    @staticmethod
    def _verdict(name: str, folded: str, first: tuple[str, str, str], player: str) -> str | None:
        """`refusal`'s answer when `first` is the first claim alike."""
        claimed_folded, claimed, owner = first
        if player and hmac.compare_digest(owner, player):
            return None
        return name_taken(name) if claimed_folded == folded else looks_taken(name, claimed)

    def _may_claim(self, address: str) -> bool:
        """Count a claim against `address`'s hour, if it has room left."""
        now = self.clock()
        if len(self._claims) > 4096:  # forget addresses quiet for an hour
            for old in [a for a, times in self._claims.items() if now - times[-1] > 3600]:
                del self._claims[old]
        times = self._claims.setdefault(address, deque())
        while times and now - times[0] > 3600:
            times.popleft()
        if len(times) >= CLAIMS_PER_HOUR:
            return False
        times.append(now)
        return True

    def count(self) -> int:
        if self.db is None:
            return 0
        return int(self.db.execute("SELECT count(*) FROM names").fetchone()[0])

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

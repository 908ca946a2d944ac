"""The documents hold: docs/rules.md is the engine's rules (every toggle with its values and
default, the preset tables, the worked examples, the tests it cites); docs/records.md is the
record format `engine.record` reads and writes (its example replays, its key tables and the
outputs it shows are the code's); and no markdown file, nor any Python source of the folders
checked, points outside the repository."""

from __future__ import annotations

import functools
import itertools
import json
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from president.engine import (
    PASS,
    PRESETS,
    TOGGLES,
    Action,
    Discard,
    Due,
    Fell,
    Game,
    Gave,
    HandedOver,
    Handover,
    IllegalAction,
    Play,
    Return,
    Rules,
    Skipped,
    TrickEnded,
    WentOut,
    parse_cards,
    rules_from,
)
from president.engine.record import dumps, loads, replay, to_record
from president.engine.rules import PRESET_KINDS, SUGGESTED_PLAYERS, toggle_choices

from .engine.helpers import finish_hand_low, full_deal
from .harness.processes import president_here

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"
RECORDS_DOC = ROOT / "docs" / "records.md"

#: http(s) links a markdown file may keep (none: the project's documents are all here).
ALLOWED_URLS: frozenset[str] = frozenset()


def shown(value: object) -> str:
    """A toggle value as records, `--set` and the docs write it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def sections(text: str, level: int) -> dict[str, str]:
    """The body under each heading of `level` (#, ##, ...), up to the next heading of that
    level or above; keyed by the heading's text."""
    found: dict[str, str] = {}
    heading: str | None = None
    lines: list[str] = []
    for line in [*strip_fences(text).splitlines(), "#" * level + " end"]:
        match = re.match(r"(#{1,6}) (.*)", line)
        if match and len(match.group(1)) <= level:
            if heading is not None:
                found[heading] = "\n".join(lines)
            heading = match.group(2).strip() if len(match.group(1)) == level else None
            lines = []
        else:
            lines.append(line)
    return found


def strip_fences(text: str) -> str:
    """The text with each line of a fenced code block (its fences too) made blank."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        fence = line.lstrip().startswith("```")
        out.append("" if fenced or fence else line)
        fenced ^= fence
    return "\n".join(out)


def tables(text: str) -> list[list[list[str]]]:
    """Every markdown table in `text`: rows of cells as written, the header first, the
    rule left out."""
    found: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif rows:
            found.append(rows)
            rows = []
    return found


def plain(cell: str) -> str:
    """A table cell without emphasis or code marks."""
    return cell.replace("**", "").replace("`", "").strip()


DOC = RULES_DOC.read_text(encoding="utf-8")
TOGGLE_SECTIONS = sections(sections(DOC, 2).get("Toggles", ""), 3)


# --- (a) every toggle and every preset is in the rules ------------------------------------


@pytest.mark.parametrize("name", TOGGLES)
def test_every_toggle_has_a_section_with_its_values_and_default(name: str) -> None:
    body = TOGGLE_SECTIONS.get(f"`{name}`")
    assert body is not None, f"docs/rules.md has no '### `{name}`' under '## Toggles'"
    for value in toggle_choices(name) or ():
        assert f"`{shown(value)}`" in body, f"the section on {name} does not name `{shown(value)}`"
    default = shown(getattr(Rules(), name))
    assert f"`{default}` (default)" in body, f"the section on {name} does not say its default"


def test_the_toggle_sections_are_the_engines_toggles() -> None:
    assert sorted(TOGGLE_SECTIONS) == sorted(f"`{name}`" for name in TOGGLES)


# --- (b) the preset tables are the engine's -----------------------------------------------


def preset_tables() -> list[list[list[str]]]:
    return tables(sections(DOC, 2).get("Presets", ""))


def test_the_preset_table_holds_every_toggle_of_every_preset_as_the_engine_does() -> None:
    table = next((t for t in preset_tables() if plain(t[0][0]) == "toggle"), None)
    assert table is not None, "docs/rules.md '## Presets' has no table headed 'toggle'"
    header, *rows = table
    assert [plain(cell) for cell in header[1:]] == list(PRESETS)
    assert [plain(row[0]) for row in rows] == list(TOGGLES)
    wrong = []
    for row in rows:
        name = plain(row[0])
        for (preset, rules), cell in zip(PRESETS.items(), row[1:]):
            value = getattr(rules, name)
            if plain(cell) != shown(value):
                wrong.append(f"{preset}.{name}: the doc says {cell}, the engine {shown(value)}")
            elif cell.startswith("**") != (value != getattr(PRESETS["classic"], name)):
                wrong.append(f"{preset}.{name}: bold is for the values that differ from classic")
    assert not wrong, "\n".join(wrong)


def test_every_preset_is_named_with_its_suggested_players() -> None:
    table = next((t for t in preset_tables() if plain(t[0][0]) == "preset"), None)
    assert table is not None, "docs/rules.md '## Presets' has no table headed 'preset'"
    named = {plain(row[0]).split()[0]: plain(row[-1]) for row in table[1:]}
    assert named == SUGGESTED_PLAYERS
    kinds = {plain(row[0]).split()[0]: plain(row[1]) for row in table[1:]}
    assert kinds == PRESET_KINDS, "the kind of table each preset is: as `president rules` says"


# --- the tests the rules cite exist -------------------------------------------------------


CITED = sorted(set(re.findall(r"`(tests/[\w/]+\.py)::(test_\w+)`", DOC)))


def test_the_rules_cite_tests() -> None:
    assert len(CITED) >= len(TOGGLES), "every toggle and ruling names the test that pins it"


@pytest.mark.parametrize(("path", "name"), CITED, ids=[f"{p}::{n}" for p, n in CITED])
def test_every_cited_test_exists(path: str, name: str) -> None:
    source = ROOT / path
    assert source.is_file(), f"docs/rules.md cites {path}, which does not exist"
    assert re.search(rf"^(async )?def {name}\(", source.read_text(), re.MULTILINE), (
        f"docs/rules.md cites {path}::{name}, which is not there"
    )


# --- the worked examples replay -----------------------------------------------------------


EXAMPLES = re.findall(r"^```game\n(.*?)^```", DOC, re.MULTILINE | re.DOTALL)


def test_the_rules_have_worked_examples() -> None:
    assert len(EXAMPLES) >= 3


def toggle_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "none":
        return None
    return int(text) if text.isdigit() else text


def example_rules(text: str) -> Rules:
    preset, *changes = [part.strip() for part in text.split(",")]
    toggles = {}
    for change in changes:
        name, _, value = (part.strip() for part in change.partition("="))
        # `none` is a word of its own for `exchange`, and the absence of a value elsewhere.
        word = value == "none" and "none" in (toggle_choices(name) or ())
        toggles[name] = value if word else toggle_value(value)
    return rules_from({"preset": preset, **toggles})


class Example:
    """A worked example's lines, carried out on a `Game` one by one."""

    def __init__(self) -> None:
        self.settings: dict[str, str] = {}
        self.holds: dict[str, str] = {}
        self.game: Game | None = None
        self.events: list[object] = []

    def seat(self, name: str) -> int:
        assert self.game is not None
        return self.game.seating.index(name)

    def deal(self) -> Game:
        if self.game is not None:
            return self.game
        rules = example_rules(self.settings["rules"])
        players = self.settings["players"].split()
        game = Game(rules, players)
        before = re.fullmatch(r"dealt by (\w+), finished (.*)", self.settings.get("hand 1", ""))
        if before:  # hand 1 is played out with the lowest cards first, seat 0 going out first
            dealer = players.index(before.group(1))
            game.start_hand(
                dealer=dealer, deal=full_deal(rules, len(players), (dealer + 1) % len(players), {})
            )
            finish_hand_low(game)
            assert game.finishes[-1] == before.group(2).split(), "hand 1 finished otherwise"
        deal = [self.holds[name].split() for name in game.next_seating()]
        self.game = game
        self.events = game.start_hand(dealer=players.index(self.settings["dealer"]), deal=deal)
        return game

    def act(self, name: str, action: Action) -> None:
        game = self.deal()
        self.events = game.apply(self.seat(name), action)

    def refused(self, name: str, action: Action, words: str) -> None:
        game = self.deal()
        with pytest.raises(IllegalAction) as refusal:
            game.check(self.seat(name), action)
        assert words in str(refusal.value)

    def line(self, text: str) -> None:
        setting = re.fullmatch(r"(rules|players|dealer|hand 1): (.*)", text)
        holds = re.fullmatch(r"(\w+) holds (.*)", text)
        if setting:
            self.settings[setting.group(1)] = setting.group(2)
        elif holds:
            self.holds[holds.group(1)] = holds.group(2)
        elif m := re.fullmatch(r"(\w+) plays (.*)", text):
            self.act(m.group(1), Play(parse_cards(m.group(2))))
        elif m := re.fullmatch(r"(\w+) passes", text):
            self.act(m.group(1), PASS)
        elif m := re.fullmatch(r"(\w+) returns (.*)", text):
            self.act(m.group(1), Return(parse_cards(m.group(2))))
        elif m := re.fullmatch(r"(\w+) may not pass: (.*)", text):
            self.refused(m.group(1), PASS, m.group(2))
        elif m := re.fullmatch(r"(\w+) may not play (.*?): (.*)", text):
            self.refused(m.group(1), Play(parse_cards(m.group(2))), m.group(3))
        elif m := re.fullmatch(r"(\w+) gives (.*) to (\w+)", text):
            self.deal()
            gives = [e for e in self.events if isinstance(e, Gave)]
            want = (self.seat(m.group(1)), self.seat(m.group(3)), sorted(m.group(2).split()))
            assert want in [(g.giver, g.receiver, sorted(map(str, g.cards))) for g in gives]
        elif m := re.fullmatch(r"turn: (\w+)", text):
            assert self.deal().turn == self.seat(m.group(1))
        elif m := re.fullmatch(r"trick ends: (\w+) leads", text):
            ended = [e for e in self.events if isinstance(e, TrickEnded)]
            assert ended and ended[-1].leader == self.seat(m.group(1))
        elif m := re.fullmatch(r"revolution: (on|off)", text):
            assert self.deal().revolution is (m.group(1) == "on")
        elif m := re.fullmatch(r"jack back: (on|off)", text):
            assert self.deal().jack_back is (m.group(1) == "on")
        elif m := re.fullmatch(r"lock: (none|[CDHS](?: [CDHS])*)", text):
            want = (
                () if m.group(1) == "none" else tuple("CDHS".index(s) for s in m.group(1).split())
            )
            assert self.deal().lock == want
        elif m := re.fullmatch(r"(\w+) owes a (handover|discard) of (\d+) cards?", text):
            assert self.deal().turn == self.seat(m.group(1))
            assert self.deal().due == Due(m.group(2), int(m.group(3)))  # type: ignore[arg-type]
        elif m := re.fullmatch(r"(\w+) hands over (.*) to (\w+)", text):
            self.act(m.group(1), Handover(parse_cards(m.group(2))))
            handed = [e for e in self.events if isinstance(e, HandedOver)]
            want = (self.seat(m.group(1)), self.seat(m.group(3)), sorted(m.group(2).split()))
            assert want in [(h.giver, h.receiver, sorted(map(str, h.cards))) for h in handed]
        elif m := re.fullmatch(r"(\w+) discards (.*)", text):
            self.act(m.group(1), Discard(parse_cards(m.group(2))))
        elif m := re.fullmatch(r"(\w+) is skipped", text):
            assert Skipped(self.seat(m.group(1))) in self.events
        elif m := re.fullmatch(r"(\w+) (goes out|falls to) (\d+)(?:st|nd|rd|th)", text):
            kind = WentOut if m.group(2) == "goes out" else Fell
            assert kind(self.seat(m.group(1)), int(m.group(3)) - 1) in self.events
        else:
            raise AssertionError(f"a worked example has a line the test cannot read: {text!r}")


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_every_worked_example_replays(example: str) -> None:
    game = Example()
    for number, text in enumerate(example.strip().splitlines(), 1):
        try:
            game.line(text.strip())
        except (AssertionError, IllegalAction, ValueError, KeyError) as exc:
            raise AssertionError(f"line {number} ({text.strip()!r}): {exc!r}") from exc


# --- (c) nothing links outside the repository ---------------------------------------------


def markdown_files() -> list[Path]:
    """Every markdown file of the repository: git's (tracked and new, not ignored), or,
    outside a git checkout, every *.md but in the folders git ignores."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
        files = [ROOT / name for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "build", "dist", ".hypothesis", ".pytest_cache", ".mypy_cache"}
        files = [
            p
            for p in ROOT.rglob("*.md")
            if not skip & set(p.relative_to(ROOT).parts) and ".egg-info" not in str(p)
        ]
    return sorted({p for p in files if p.is_file()})


MARKDOWN = markdown_files()


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    """The headings' anchors of `path` (read once a run: docs/rules.md links to its own
    sections a hundred times)."""
    seen: dict[str, int] = {}
    found = set()
    for line in strip_fences(path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6} (.*)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
HTML = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
URL = re.compile(r"\b(?:https?|ftp)://[^\s)>\]`'\"]+|\bmailto:[^\s)>\]`'\"]+")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
MD_MENTION = re.compile(r"(?<![\w./-])((?:\.{1,2}/)*(?:[\w.-]+/)*[\w-]+\.md)\b")


def link_problems(path: Path) -> Iterator[str]:
    """Why each pointer in `path` leads outside the repository or nowhere."""
    text = strip_fences(path.read_text(encoding="utf-8"))
    spans = [m.group(2).strip() for m in CODE_SPAN.finditer(text)]
    prose = CODE_SPAN.sub(" ", text)
    tracked = {p.name for p in MARKDOWN}
    for url in URL.findall(text):
        if url not in ALLOWED_URLS:
            yield f"links outside the repository: {url}"
    targets = INLINE_LINK.findall(prose) + REFERENCE.findall(prose) + HTML.findall(prose)
    for target in targets:
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # a URL: judged above
        file_part, _, anchor = target.partition("#")
        where = (path.parent / file_part).resolve() if file_part else path
        if not where.is_relative_to(ROOT):
            yield f"links outside the repository: {target}"
        elif not where.exists():
            yield f"links to {target}, which does not exist"
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            yield f"links to {target}, which has no heading #{anchor}"
    for span in spans:
        for word in span.split():
            up = ".." in word.split("/")
            if up and not (path.parent / word).resolve().is_relative_to(ROOT):
                yield f"points outside the repository: {word}"
    for mention in MD_MENTION.findall(prose) + [m for s in spans for m in MD_MENTION.findall(s)]:
        places = [(ROOT / mention).resolve(), (path.parent / mention).resolve()]
        inside = [p for p in places if p.is_relative_to(ROOT)]
        if not inside:
            yield f"points outside the repository: {mention}"
        elif not any(p.is_file() for p in inside) and not (
            "/" not in mention and mention in tracked
        ):
            yield f"names {mention}, which is not in the repository"


def test_the_repository_has_its_markdown_files() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in MARKDOWN}
    assert {"README.md", "CONTRIBUTING.md", "docs/rules.md"} <= names


@pytest.mark.parametrize("path", MARKDOWN, ids=[p.relative_to(ROOT).as_posix() for p in MARKDOWN])
def test_no_markdown_file_links_outside_the_repository(path: Path) -> None:
    problems = sorted(set(link_problems(path)))
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


# --- (d) docs/records.md is the format engine.record reads and writes -----------------------


RECORDS_TEXT = RECORDS_DOC.read_text(encoding="utf-8")
#: Each fenced block of docs/records.md: (its language, its text).
BLOCKS: list[tuple[str, str]] = re.findall(
    r"^```(\w*)\n(.*?)^```", RECORDS_TEXT, re.MULTILINE | re.DOTALL
)


def json_block(test: Callable[[Any], bool], what: str) -> tuple[str, Any]:
    """The one ```json block of docs/records.md whose value passes `test`: its text and value."""
    found = []
    for language, text in BLOCKS:
        if language == "json":
            value = json.loads(text)
            if isinstance(value, dict) and test(value):
                found.append((text, value))
    assert len(found) == 1, f"docs/records.md should show {what} once, not {len(found)} times"
    return found[0]


def text_block(start: str) -> str:
    found = [text for language, text in BLOCKS if language == "text" and text.startswith(start)]
    assert len(found) == 1, f"docs/records.md should show one output starting {start!r}"
    return found[0]


def example() -> tuple[str, dict[str, Any]]:
    return json_block(lambda value: "format" in value, "the example record")


def key_table(section: str, first: str) -> list[str]:
    """The first column of the table headed `first` under '## section', code marks removed."""
    body = sections(RECORDS_TEXT, 2).get(section)
    assert body is not None, f"docs/records.md has no '## {section}'"
    table = next((t for t in tables(body) if plain(t[0][0]) == first), None)
    assert table is not None, f"docs/records.md '## {section}' has no table headed {first!r}"
    return [plain(row[0]) for row in table[1:]]


def president_replay(
    path: Path, *options: str, encoding: str | None = None
) -> tuple[int, str, str]:
    """`president replay` run in this process: (exit status, stdout, stderr)."""
    done = president_here("replay", str(path), *options, encoding=encoding)
    return done.returncode, done.stdout, done.stderr


def test_the_example_record_replays_and_is_written_as_president_writes_it() -> None:
    text, document = example()
    result = replay(loads(text))
    assert result.ok, f"the example record does not replay: {result.to_json()}"
    assert result.game is not None
    assert dumps(to_record(result.game, document["rules"]["preset"])) == text


def test_the_example_shows_every_key_and_every_kind_of_action() -> None:
    _, document = example()
    hands = document["hands"]
    assert sorted(document) == sorted(key_table("The document", "key"))
    assert all(sorted(hand) == sorted(key_table("A hand", "key")) for hand in hands)
    kinds = {key for hand in hands for step in hand["actions"] for key in step if key != "seat"}
    assert kinds == {"play", "pass", "return"}
    assert any(
        set(hand["seating"]) - set(before["seating"]) for before, hand in itertools.pairwise(hands)
    ), "the example should show a player joining"


def test_the_json_output_shown_is_the_examples(tmp_path: Path) -> None:
    text, _ = example()
    path = tmp_path / "example.json"
    path.write_text(text, encoding="utf-8")
    _, shown = json_block(lambda value: value.get("ok") is True, "a legal record's output")
    status, out, _ = president_replay(path, "--json")
    assert (status, json.loads(out)) == (0, shown)
    assert list(shown) == key_table("`president replay`", "key")


def test_the_text_output_shown_is_the_examples(tmp_path: Path) -> None:
    text, _ = example()
    path = tmp_path / "example.json"
    path.write_text(text, encoding="utf-8")
    shown = text_block("ok:")
    assert president_replay(path, encoding="utf-8") == (0, shown, "")
    # where the output cannot show a suit's symbol, the record's own letters
    letters = re.sub(r"(10|[2-9JQKA])([♣♦♥♠])", lambda c: c[1] + "CDHS"["♣♦♥♠".index(c[2])], shown)
    assert letters != shown and president_replay(path, encoding="ascii") == (0, letters, "")


def test_the_fault_shown_is_the_one_the_change_makes(tmp_path: Path) -> None:
    change = re.search(r"Change hand (\d+)'s action (\d+) to `(\{.*?\})`", RECORDS_TEXT)
    assert change, "docs/records.md should show a fault made by changing one action"
    _, document = example()
    hand, action = int(change.group(1)), int(change.group(2))
    document["hands"][hand]["actions"][action] = json.loads(change.group(3))
    path = tmp_path / "fault.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    _, shown = json_block(lambda value: value.get("ok") is False, "a fault's output")
    assert shown["hand"] == hand and shown["action"] == action
    status, out, _ = president_replay(path, "--json")
    assert (status, json.loads(out)) == (1, shown)
    assert president_replay(path) == (1, text_block("illegal"), "")


def test_not_a_record_is_exit_2_and_one_line_on_stderr_only(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"format": "something else"}', encoding="utf-8")
    assert "| `2` |" in RECORDS_TEXT
    status, out, err = president_replay(path, "--json")
    assert (status, out, err.count("\n")) == (2, "", 1)


# --- no Python source names a document outside the repository --------------------------------

#: The folders checked so far; server/, client/ and cli/ join them once theirs are fixed.
SOURCE_FOLDERS = ("engine", "protocol", "bots", "server", "client", "cli", "scripts", "tests")
#: The rules and the record format used to live beside the repository, as these two files.
OUTSIDE_DOCUMENT = re.compile(r"\b(?:RULES|RECORD)\.md\b|\.\./shared/")


def test_no_python_source_cites_a_document_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in SOURCE_FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_DOCUMENT.search(line)
    ]
    assert not found, "cite docs/rules.md or docs/records.md instead:\n" + "\n".join(found)

"""`president`: one command, a subcommand for each thing you do with the game."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Collection, Iterable, Sequence
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from president.engine import PRESETS, Rules, RulesError, rules_from
from president.engine.cards import parse_cards
from president.engine.describe import SECTIONS, describe, value_word
from president.engine.house import HOUSE_RULES
from president.engine.record import CutShort, NotARecord, loads, replay
from president.engine.rulefile import RuleSet, format_rule_file
from president.engine.rules import PRESET_KINDS, SUGGESTED_PLAYERS
from president.protocol.schema import shown

from .usage import (
    PRESET_NAMES,
    Parser,
    UsageError,
    add_theme,
    before_the_cut,
    chosen_rules,
    is_set_name,
    json_text,
    need_screen,
    preset,
    read_record,
    read_rule_file,
    rules_dir,
    saved_rule_sets,
)
from .usage import say_shown as say  # (a line made from a record)

# --- president rules --------------------------------------------------------------------


def cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None and not args.set and args.rules is None and args.save is None:
        print("Presets (`president rules NAME` shows one in words):")
        for name in PRESETS:
            print(f"  {name:8} {PRESET_KINDS[name]}; suggested players {SUGGESTED_PLAYERS[name]}")
        print("\nAny toggle can be set on top of a preset: --set NAME=VALUE.")
        print(
            "Rules saved with --save NAME (kept in the folder below) or --save FILE are loaded "
            "with --rules NAME or FILE (play, sim, bot, replay)."
        )
        saved, problems = saved_rule_sets()
        print(shown(f"Saved in {rules_dir()}: {', '.join(saved) if saved else 'none yet'}."))
        for problem in problems:
            print(shown(f"Not a rules file: {problem}"))
        return 0
    chosen = chosen_rules(args)
    name, rules, changed = chosen.preset, chosen.rules, chosen.changes
    if args.save is not None:
        return save_rules(args, chosen)
    if args.json:
        print(json.dumps({"preset": name, **rules.to_dict()}, indent=1))
        return 0
    title = f"Preset {name}" + (" with " + ", ".join(changed) + " changed" if changed else "")
    if args.rules is not None:
        title = f"{args.rules}: {title[0].lower()}{title[1:]}"
    columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    heading = f"{title} ({PRESET_KINDS[name]}; suggested players {SUGGESTED_PLAYERS[name]}):"
    print("\n".join(heading_lines(heading, columns)))
    listing = "\n".join(rules_listing(rules, changed, every=args.all, columns=columns))
    if shows_suits():  # (the 3♠ as the game shows it, where the rules said the 3S)
        from president.engine.describe import suited

        listing = suited(listing)
    print(listing)
    return 0


def heading_lines(heading: str, columns: int | None) -> list[str]:
    """`president rules`' first line: on a terminal of `columns`, broken between words as
    the listing is (a pass at 60 columns saw it broken mid-word); into a pipe, one line."""
    return textwrap.wrap(heading, columns - 1) if columns else [heading]


def rules_listing(
    rules: Rules, changed: Collection[str], *, every: bool = False, columns: int | None = None
) -> list[str]:
    """The toggles in words under their sections (a changed one marked `*`); the house
    rules not played only named, on one wrapped paragraph, unless `every`.  In `columns`
    (a terminal's width; None: lines whole, for a pipe) each toggle's words wrap under
    their column (at 80 a newcomer's pass saw them broken mid-word)."""
    rows = {name: (value, words) for name, value, words in describe(rules)}
    listed = [name for name in HOUSE_RULES if every or getattr(rules, name) or name in changed]
    width = max(len(name) + len(rows[name][0]) for name in rows) + 3
    lines: list[str] = []

    def section(title: str, names: Iterable[str]) -> None:
        lines.extend(["", title])
        for name in names:
            value, words = rows[name]
            mark = "*" if name in changed else " "
            head = f"  {mark}{name} = {value}".ljust(width + 3) + "  "
            if columns is None or len(words) <= columns - 1 - len(head):
                lines.append(head + words)
                continue
            wide = columns - 1 - len(head) >= 30  # (else the words under the toggle)
            indent = " " * (len(head) if wide else 6)
            if not wide:
                lines.append(head.rstrip())
            lines.extend(
                textwrap.wrap(
                    words,
                    columns - 1,
                    initial_indent=head if wide else indent,
                    subsequent_indent=indent,
                    break_on_hyphens=False,
                )
            )

    for title, names in SECTIONS:
        section(title, names)
    section("House rules" if listed else "House rules: none played", listed)
    unplayed = [name for name in HOUSE_RULES if name not in listed]
    if unplayed:
        lines += [
            "",
            f"Not played ({len(unplayed)}; --set NAME=on plays one, --all says each in words):",
            *textwrap.wrap(
                ", ".join(unplayed),
                min(columns or 100, 100) - 1,
                initial_indent="  ",
                subsequent_indent="  ",
            ),
        ]
    return lines


def save_rules(args: argparse.Namespace, chosen: RuleSet) -> int:
    """`--save FILE`: the rules as a commented TOML file (written whole or not at all)."""
    if args.json:
        raise UsageError("--save and --json do not go together: choose one")
    kept = is_set_name(args.save)  # a set's name: kept in the rules folder, found by it
    path = rules_dir() / f"{args.save}.toml" if kept else Path(args.save).expanduser()
    if not args.save.strip() or path.is_dir():
        raise UsageError(f"--save takes a file's name, not {args.save!r} (e.g. friday.toml)")
    if path.exists() and not args.force:
        raise UsageError(
            f"{path if kept else args.save} is there already: give --force to write over it, "
            "or another name"
        )
    command = " ".join(["president rules", *sys.argv[2:]]) if sys.argv[1:2] == ["rules"] else ""
    text = format_rule_file(chosen, made_by=command)
    from president.bots.files import write_whole  # (rules stays quick)

    try:
        if kept:  # (the config folder, beside the player's key: private)
            from president.client.identity import private_folder

            private_folder(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        umask = os.umask(0o077)  # (read, and put back: a file of the user's, as any)
        os.umask(umask)
        write_whole(path, text, 0o600 if kept else 0o666 & ~umask)
    except OSError as exc:
        raise UsageError(f"cannot write {args.save}: {exc.strerror or exc}") from None
    count = len(chosen.changes)
    where = (
        "the lobby's create-table form lists it"
        if kept
        else f"--save NAME keeps a set in {rules_dir()}, found by its name"
    )
    print(
        f"saved {path}: the preset {chosen.preset} with {count} toggle"
        f"{'' if count == 1 else 's'} changed (load it with --rules {args.save}; {where})"
    )
    return 0


# --- president replay -------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        document = loads(read_record(args.file))
    except OSError as exc:
        say(f"president replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except CutShort as exc:
        if args.json:  # (docs/records.md: status 2 prints nothing, a line on stderr)
            say(
                f"president replay: {args.file}: {exc}: {before_the_cut(exc.whole)}",
                file=sys.stderr,
            )
            return 2
        # (what is before the cut, replayed as usual: a copy stopped short lost nothing
        # of it, a pass)
        replay_document(args, exc.whole, cut=True)
        said = f"{before_the_cut(exc.whole)}, replayed {'in the viewer' if args.view else 'above'}"
        say(f"president replay: {args.file}: {exc}: {said}", file=sys.stderr)
        return 2
    except NotARecord as exc:
        say(f"president replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    return replay_document(args, document)


def replay_document(args: argparse.Namespace, document: dict[str, Any], cut: bool = False) -> int:
    """`president replay` of a document read: checked (`--json`, or in words) or viewed
    (`cut`: the whole part of a record cut short)."""
    if args.rules is not None:
        other = other_rules(document, read_rule_file(args.rules))
        if other:  # (a check that failed, told as an illegal step is: stdout, status 1)
            error = f"played by other rules than {args.rules}: {other}"
            if args.json:
                fault = {"ok": False, "hand": None, "action": None, "error": error}
                print(json_text(fault))
            else:
                say(f"{args.file} was {error}")
            return 1
    if args.view:
        return view_replay(args, document)
    result = replay(document)
    if args.json:
        print(json_text(result.to_json()))
        return 0 if result.ok else 1
    if result.fault is not None:
        say(result.fault.told())
        return 1
    summary = result.to_json()
    hands = len(summary["hands"])
    replayed = f"{hands} hand{'' if hands == 1 else 's'}"
    if cut:
        say(f"cut short: {replayed} before the cut replayed, every step legal")
    else:
        say(f"ok: {replayed} replayed, every step legal")
    for number, hand in enumerate(summary["hands"], start=1):  # as the screens count them
        back = {(r["from"], r["to"]): r["cards"] for r in hand["returns"]}
        lines = [
            f"exchange: {give['from']} gave {give['to']} {cards_shown(give['cards'])}"
            + (
                f", back {cards_shown(back[give['to'], give['from']])}"
                if (give["to"], give["from"]) in back
                else ""
            )
            for give in hand["gives"]
        ]
        lines.append("places: " + ", ".join(hand["finish"]) if hand["complete"] else "not finished")
        head = f"hand {number}  "
        for index, line in enumerate(lines):
            say((head if index == 0 else " " * len(head)) + line)
    say("scores: " + ", ".join(f"{name} {points}" for name, points in summary["scores"].items()))
    if summary["game_over"]:
        say("game over: " + " and ".join(summary["winners"]) + " won")
    else:
        say("the game is not over")
    return 0


def shows_suits() -> bool:
    """Whether stdout can show a suit's symbol (not an ASCII-only one)."""
    try:
        "♣♦♥♠".encode(getattr(sys.stdout, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def cards_shown(cards: Sequence[str]) -> str:
    """A record's cards as the screens show them (Q♠ 10♦) where stdout can show a suit's
    symbol; else in the record's own letters (QS 10D)."""
    try:
        parsed = parse_cards(cards) if shows_suits() else None
    except ValueError:
        parsed = None
    if parsed is None:
        return " ".join(cards)
    from president.client.tui.narrator import cards_text

    return cards_text(parsed)


def other_rules(document: dict[str, Any], expected: RuleSet) -> str:
    """How the rules a record names differ from `expected`, toggle by toggle ("" when
    they are the same, or when the record's own rules are not rules: the replay says
    that)."""
    try:
        played = rules_from(document.get("rules", "classic"))
    except (RulesError, TypeError):
        return ""
    wanted = expected.rules
    return ", ".join(
        f"{name} = {value_word(getattr(played, name))} (the file: "
        f"{value_word(getattr(wanted, name))})"
        for name in played.changes_from(wanted)
    )


def view_replay(args: argparse.Namespace, document: dict[str, Any]) -> int:
    """`president replay FILE --view`: the record in the terminal, step by step; exits as
    the check would (0 every step legal, 1 an illegal step), 2 without a terminal."""
    if args.json:
        raise UsageError("--view and --json do not go together: choose one")
    need_screen("--view needs a terminal (for scripts: president replay FILE --json)")
    from president.client.tui.background import ask_background
    from president.client.tui.replay import ReplayScreen
    from president.client.tui.replay_app import run_viewer
    from president.client.tui.theme import choose_theme

    screen = ReplayScreen.of(document, os.path.basename(args.file))
    if not screen.steps:
        say(f"president replay: {screen.verdict()}: nothing to view", file=sys.stderr)
        return 0 if screen.fault is None else 1
    run_viewer(
        screen, choose_theme(args.theme, os.environ, ask_background), review=not args.no_review
    )
    return 0 if screen.fault is None else 1


# --- the parser -------------------------------------------------------------------------


def installed_version() -> str:
    """The installed package's version (its metadata), as `president --version` shows it."""
    try:
        return importlib.metadata.version("president")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def compiled_modules() -> list[str]:
    """The modules of the engine and the bots that run compiled (the optional build:
    setup.py), as "engine.state"...; none in the default, pure-Python install."""
    found = []
    for package in ("engine", "bots"):
        spec = importlib.util.find_spec(f"president.{package}")
        for folder in (spec and spec.submodule_search_locations) or ():
            for path in Path(folder).iterdir():
                suffix = next((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), None)
                if suffix and (path.parent / (path.name[: -len(suffix)] + ".py")).exists():
                    found.append(f"{package}.{path.name[: -len(suffix)]}")
    return sorted(found)


def version_line() -> str:
    """What `president --version` prints: the version, and whether it runs compiled."""
    compiled = compiled_modules()
    kind = f"compiled by mypyc: {', '.join(compiled)}" if compiled else "pure Python"
    return f"president {installed_version()} ({kind})"


class ShowVersion(argparse.Action):
    """`--version`: `version_line()` as it is (argparse's own action would wrap it to the
    terminal's width), looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str) -> None:
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(version_line())
        parser.exit()


#: The other subcommands: each one's module and its line in `president --help`.  A module
#: is imported only when its command runs (or shows its own help), so `president rules`
#: does not load the server, the client and the terminal library.
COMMANDS: dict[str, tuple[str, str]] = {
    "sim": ("president.cli.sim", "play whole games offline between bots"),
    "play": ("president.cli.play", "play against bots right now (no server to start)"),
    "server": ("president.cli.serve", "run a lobby server for the LAN"),
    "connect": (
        "president.cli.connect",
        "join a president server on the LAN (the lobby, then a table)",
    ),
    "bot": ("president.cli.bot", "run headless bots at a server's table"),
    "servers": ("president.cli.servers", "list the president servers announced on the LAN"),
    "stats": ("president.cli.stats", "print a server's ladder: ratings, places, offices"),
    "analyze": (
        "president.cli.analyze",
        "judge every decision of a game record from the seat that made it",
    ),
}


def build_parser(argv: Sequence[str] = ()) -> Parser:
    """The parser, with the options of the subcommand `argv` names."""
    parser = Parser(
        prog="president",
        description="President (Scum, Daifugo): the card game, for LAN play.",
    )
    parser.add_argument("-V", "--version", action=ShowVersion, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    rules = sub.add_parser(
        "rules",
        help="show a preset's rules in words",
        description="Show a preset's toggles in words, or list the presets; --save writes "
        "them to a rules file, --rules shows a file's.",
    )
    rules.add_argument(
        "preset",
        nargs="?",
        type=preset,
        help=f"one of {PRESET_NAMES}; without one, the list of presets",
    )
    rules.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a toggle on top of the preset (repeatable)",
    )
    rules.add_argument(
        "--rules",
        metavar="FILE",
        help="the rules of a file written with --save, in place of a preset; or a saved set's name",
    )
    rules.add_argument("--json", action="store_true", help="print the toggles as JSON")
    rules.add_argument(
        "--all", action="store_true", help="say every house rule in words, the ones not played too"
    )
    rules.add_argument(
        "--save",
        metavar="NAME|FILE",
        help="write the rules as commented TOML, to load with --rules: a NAME of letters, "
        f"digits, - and _ is kept in {rules_dir()}/NAME.toml, found by its name "
        "and listed by the lobby's create-table form; a FILE such as friday.toml or a path "
        "is written there",
    )
    rules.add_argument(
        "--force", action="store_true", help="with --save: write over a file that is there"
    )
    rules.set_defaults(handler=cmd_rules)

    rep = sub.add_parser(
        "replay",
        help="check a game record and show how it went",
        description="Replay a president-record/1 file through the engine. Exit status: 0 every "
        "step legal, 1 an illegal or malformed step, 2 not a record.",
    )
    rep.add_argument("file", help="the record (JSON)")
    rep.add_argument(
        "--json", action="store_true", help="print the result as JSON (docs/records.md)"
    )
    rep.add_argument(
        "--view",
        action="store_true",
        help="step through the game in the terminal, every hand face up (exits as the check)",
    )
    rep.add_argument(
        "--rules",
        metavar="FILE",
        help="also check that the game was played by the rules of FILE, exit 1 if not; a "
        "record carries its own rules and replays without one",
    )
    rep.add_argument(
        "--no-review",
        action="store_true",
        help="with --view: no review of the decisions (it runs in the background on every "
        "core but one; docs/analysis.md)",
    )
    add_theme(rep, "--view")
    rep.set_defaults(handler=cmd_replay)

    wanted = next((arg for arg in argv if not arg.startswith("-")), None)
    for name, (module, line) in COMMANDS.items():
        command = sub.add_parser(name, help=line)
        if name == wanted:
            importlib.import_module(module).configure(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` (the process's arguments by default); its exit status:
    0 done, 2 a mistake (one line on stderr: never a traceback), 130 Ctrl-C."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = "president"
    for stream in (sys.stdout, sys.stderr):
        # a name the terminal's encoding cannot show is shown escaped (Zo\xeb), not a
        # failure of the command (an ASCII-only stdout refused a record's names)
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        parser = build_parser(argv)
        args = parser.parse_command(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        command = f"president {args.command}"
        code: int = args.handler(args)
        return code
    except (UsageError, RulesError, ValueError) as exc:
        # (shown: a rules file's or a record's text in it cannot act on the terminal; a
        # hostile file's preset cleared the screen and wrote the clipboard, a pass)
        print(shown(f"{command}: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if sys.stderr.isatty():  # the line Ctrl-C was typed on (a prompt, the ^C) is left open
            print(file=sys.stderr)
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("president."):
            raise
        # (an editable install older than a module a pulled commit added: `president
        # server --help` was a traceback to a helper's pass; CONTRIBUTING.md)
        print(
            f"{command}: this install has no {exc.name}: install the project again (pip"
            " install -e '.[test]' --config-settings editable_mode=strict, CONTRIBUTING.md)",
            file=sys.stderr,
        )
        return 2
    except (ConnectionResetError, ConnectionAbortedError) as exc:
        # (a watcher's Ctrl-C as its server went down read "Connection lost", asyncio's
        # own words alone, a game-night pass)
        print(f"{command}: the connection to the server was lost ({exc})", file=sys.stderr)
        return 2
    except OSError as exc:  # what no command foresaw: still one line
        where = f"{exc.filename}: " if exc.filename else ""
        print(shown(f"{command}: {where}{exc.strerror or exc}"), file=sys.stderr)
        return 2

"""`president`: one command, a subcommand for each thing you do with the game."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any, TextIO

from president.engine import PRESETS, RulesError
from president.engine.describe import describe
from president.engine.record import NotARecord, loads, replay
from president.engine.rules import PRESET_KINDS, SUGGESTED_PLAYERS

from .usage import PRESET_NAMES, Parser, UsageError, add_theme, preset, rules_for

# --- president rules --------------------------------------------------------------------


def cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None and not args.set:
        print("Presets (`president rules NAME` shows one in words):")
        for name in PRESETS:
            print(f"  {name:8} {PRESET_KINDS[name]}; suggested players {SUGGESTED_PLAYERS[name]}")
        print("\nAny toggle can be set on top of a preset: --set NAME=VALUE.")
        return 0
    name = args.preset or "classic"
    rules = rules_for(name, args.set)
    if args.json:
        print(json.dumps({"preset": name, **rules.to_dict()}, indent=1))
        return 0
    changed = rules.changes_from(PRESETS[name])
    title = f"Preset {name}" + (" with " + ", ".join(changed) + " changed" if changed else "")
    print(f"{title} ({PRESET_KINDS[name]}; suggested players {SUGGESTED_PLAYERS[name]}):")
    width = max(len(name) + len(value) for name, value, _ in describe(rules)) + 3
    for name, value, words in describe(rules):
        mark = "*" if name in changed else " "
        print(f" {mark}{name} = {value}".ljust(width + 2) + f"  {words}")
    return 0


# --- president replay -------------------------------------------------------------------


def say(line: str, file: TextIO | None = None) -> None:
    """Print a line made from a record: a record is anyone's file, so its names and words
    are shown with their control characters escaped (protocol.schema.shown)."""
    from president.protocol.schema import shown

    print(shown(line), file=file)


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        print(f"president replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        document = loads(data)
    except NotARecord as exc:
        say(f"president replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    if args.view:
        return view_replay(args, document)
    result = replay(document)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0 if result.ok else 1
    if result.fault is not None:
        say(
            f"illegal in {fault_place(result.fault.hand, result.fault.action)}: {result.fault.error}"
        )
        return 1
    summary = result.to_json()
    hands = len(summary["hands"])
    say(f"ok: {hands} hand{'' if hands == 1 else 's'} replayed, every step legal")
    for number, hand in enumerate(summary["hands"], start=1):  # as the screens count them
        lines = [
            f"exchange: {give['from']} gave {give['to']} {' '.join(give['cards'])}"
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


def fault_place(hand: int | None, action: int | None) -> str:
    """Where a record goes wrong, counted from 1 as the screens count (the replay viewer
    says the same), then where that is in the record, counted from 0 as its lists are."""
    if hand is None:
        return "the header"
    if action is None:
        return f"hand {hand + 1}'s deal (the record's hands[{hand}])"
    return f"hand {hand + 1}, action {action + 1} (the record's hands[{hand}].actions[{action}])"


def view_replay(args: argparse.Namespace, document: dict[str, Any]) -> int:
    """`president replay FILE --view`: the record in the terminal, step by step; exits as
    the check would (0 every step legal, 1 an illegal step), 2 without a terminal."""
    if args.json:
        raise UsageError("--view and --json do not go together: choose one")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("--view needs a terminal (for scripts: president replay FILE --json)")
    from president.client.tui.background import ask_background
    from president.client.tui.replay import ReplayScreen
    from president.client.tui.replay_app import run_viewer
    from president.client.tui.theme import choose_theme

    screen = ReplayScreen.of(document, os.path.basename(args.file))
    if not screen.steps:
        say(f"president replay: {screen.verdict()}: nothing to view", file=sys.stderr)
        return 0 if screen.fault is None else 1
    run_viewer(screen, choose_theme(args.theme, os.environ, ask_background))
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


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
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
        description="Show a preset's toggles in words, or list the presets.",
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
    rules.add_argument("--json", action="store_true", help="print the toggles as JSON")
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
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        command = f"president {args.command}"
        code: int = args.handler(args)
        return code
    except (UsageError, RulesError, ValueError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if sys.stderr.isatty():  # the line Ctrl-C was typed on (a prompt, the ^C) is left open
            print(file=sys.stderr)
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # what no command foresaw: still one line
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{command}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2

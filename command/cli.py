"""`president`: one command, a subcommand for each thing you do with the game."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from president.engine import PRESETS, TOGGLES, Rules, RulesError, find_preset
from president.engine.describe import describe
from president.engine.record import NotARecord, loads, replay
from president.engine.rules import PRESET_SOURCES, SUGGESTED_PLAYERS


class UsageError(Exception):
    """A mistake on the command line: printed as one line, exit status 2."""


def parse_toggle(text: str) -> tuple[str, Any]:
    """`NAME=VALUE` from `--set`: true/false, none, whole numbers, or words."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise UsageError(f"--set takes NAME=VALUE, not {text!r}")
    if name not in TOGGLES:
        raise UsageError(f"there is no toggle {name!r}: the toggles are {', '.join(TOGGLES)}")
    raw = raw.strip()
    value: Any
    if raw.lower() in ("true", "on", "yes"):
        value = True
    elif raw.lower() in ("false", "off", "no"):
        value = False
    elif raw.lower() in ("none", "null"):
        value = None
    elif raw.lstrip("-").isdigit():
        value = int(raw)
    else:
        value = raw
    return name, value


def rules_for(preset: str, toggles: Sequence[str]) -> Rules:
    rules = find_preset(preset)
    changes = dict(parse_toggle(t) for t in toggles)
    return rules.replace(**changes) if changes else rules


# --- president rules --------------------------------------------------------------------


def cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None and not args.set:
        print("Presets (one per source rulebook; `president rules NAME` shows one in words):")
        for name in PRESETS:
            print(f"  {name:8} {PRESET_SOURCES[name]}; suggested players {SUGGESTED_PLAYERS[name]}")
        print("\nAny toggle can be set on top of a preset: --set NAME=VALUE.")
        return 0
    preset = args.preset or "classic"
    rules = rules_for(preset, args.set)
    if args.json:
        print(json.dumps({"preset": preset, **rules.to_dict()}, indent=1))
        return 0
    changed = rules.changes_from(PRESETS[preset])
    title = f"Preset {preset.lower()}" + (" with " + ", ".join(changed) + " changed" if changed else "")
    print(f"{title} ({PRESET_SOURCES[preset.lower()]}; suggested players "
          f"{SUGGESTED_PLAYERS[preset.lower()]}):")
    width = max(len(name) + len(value) for name, value, _ in describe(rules)) + 3
    for name, value, words in describe(rules):
        mark = "*" if name in changed else " "
        print(f" {mark}{name} = {value}".ljust(width + 2) + f"  {words}")
    return 0


# --- president replay -------------------------------------------------------------------


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
        print(f"president replay: {args.file}: {exc}", file=sys.stderr)
        return 2
    result = replay(document)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0 if result.ok else 1
    if result.fault is not None:
        where = "in the header" if result.fault.hand is None else f"in hand {result.fault.hand}"
        if result.fault.action is not None:
            where += f", action {result.fault.action}"
        print(f"illegal {where} (0-based): {result.fault.error}")
        return 1
    summary = result.to_json()
    print(f"ok: {len(summary['hands'])} hand(s) replayed, every step legal")
    for number, hand in enumerate(summary["hands"]):
        status = ", ".join(hand["finish"]) if hand["complete"] else "not finished"
        print(f"hand {number}: {status}")
        for give in hand["gives"]:
            print(f"  {give['from']} gave {give['to']} {' '.join(give['cards'])}")
    print("scores: " + ", ".join(f"{name} {points}" for name, points in summary["scores"].items()))
    if summary["game_over"]:
        print("game over: " + " and ".join(summary["winners"]) + " won")
    else:
        print("the game is not over")
    return 0


# --- president sim ----------------------------------------------------------------------


def cmd_sim(args: argparse.Namespace) -> int:
    from president.client.strategies import strategy_problem
    from president.sim import default_processes, progress_bar, report, run, speed_line

    rules = rules_for(args.preset, args.set)
    bots = [b.strip().lower() for b in args.bots.split(",") if b.strip()]
    if not bots:
        raise UsageError("--bots needs at least one strategy")
    problems = [p for p in map(strategy_problem, bots) if p]
    if problems:
        raise UsageError(problems[0])
    players = args.players if args.players is not None else (len(bots) if len(bots) > 1 else 4)
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise UsageError(f"--bots names {len(bots)} strategies for {players} players")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    processes = args.jobs if args.jobs is not None else default_processes()
    if processes < 1:
        raise UsageError("--jobs must be at least 1")
    if args.record:
        from pathlib import Path

        try:
            Path(args.record).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make {args.record}: {exc.strerror or exc}") from None
    options = search_options(args)
    show = progress_bar() if (sys.stderr.isatty() and not args.quiet) else None
    result = run(rules, bots, args.games, args.seed, rotate=not args.fixed_seats, processes=processes,
                 record=args.record, preset=args.preset, progress=show, options=options)
    if args.json:
        print(json.dumps({"preset": args.preset, "seed": args.seed, "rules": rules.changes_from(
            find_preset(args.preset)), "rotated": not args.fixed_seats, **result.to_json()}))
        return 0
    changed = rules.changes_from(find_preset(args.preset))
    title = (f"preset {args.preset}" + "".join(f", {k}={v}" for k, v in changed.items())
             + f", {players} players, seed {args.seed}, "
             + ("seats rotated each game" if not args.fixed_seats else "seats fixed"))
    print("\n".join(report(result, title)))
    print(speed_line(result), file=sys.stderr)
    return 0


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if getattr(args, "playouts", None) is not None:
        if args.playouts < 1:
            raise UsageError("--playouts must be at least 1")
        options["playouts"] = args.playouts
    if getattr(args, "think", None) is not None:
        if args.think <= 0:
            raise UsageError("--think must be more than 0 seconds")
        options["seconds"] = args.think
    return options


# --- the parser -------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="president",
        description="President (Scum, Daifugo): the card game, for LAN play.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    rules = sub.add_parser("rules", help="show a preset's rules in words",
                           description="Show a preset's toggles in words, or list the presets.")
    rules.add_argument("preset", nargs="?", help="classic, full, house, sheet or table")
    rules.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="change a toggle on top of the preset (repeatable)")
    rules.add_argument("--json", action="store_true", help="print the toggles as JSON")
    rules.set_defaults(handler=cmd_rules)

    rep = sub.add_parser(
        "replay", help="check a game record and show how it went",
        description="Replay a president-record/1 file through the engine. Exit status: 0 every "
        "step legal, 1 an illegal or malformed step, 2 not a record.")
    rep.add_argument("file", help="the record (JSON)")
    rep.add_argument("--json", action="store_true", help="print the result as JSON (RECORD.md)")
    rep.set_defaults(handler=cmd_replay)

    sim = sub.add_parser(
        "sim", help="play whole games offline between bots",
        description="Play whole games between bots and report their average finishing place. "
        "The same seed gives the same output (the speed goes to stderr).")
    sim.add_argument("--preset", default="classic", help="rules preset (default classic)")
    sim.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                     help="change a toggle on top of the preset (repeatable)")
    sim.add_argument("--players", type=int, default=None, help="table size (default 4)")
    sim.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    sim.add_argument("--seed", type=int, default=1, help="seed for deals and bots (default 1)")
    sim.add_argument("--bots", default="random",
                     help="the line-up: one strategy per chair, comma-separated (rotated round the seats each game), or one for every chair (default random)")
    sim.add_argument("--json", action="store_true", help="print the result as JSON")
    sim.add_argument("--record", metavar="DIR", help="write each game's record into DIR")
    sim.add_argument("--jobs", type=int, metavar="N", help="processes to use (default: every core)")
    sim.add_argument("--fixed-seats", action="store_true",
                     help="keep each strategy in its chair (default: rotate the line-up each game)")
    sim.add_argument("--playouts", type=int, metavar="N", help="search bot: playouts per decision")
    sim.add_argument("--think", type=float, metavar="SECONDS",
                     help="search bot: thinking time per decision (instead of a playout count)")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(handler=cmd_sim)

    from president.bot import add_parser as add_bot
    from president.connect import add_parser as add_connect
    from president.play import add_parser as add_play
    from president.serve import add_parser as add_server

    add_play(sub)
    add_server(sub)
    add_connect(sub)
    add_bot(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        code: int = args.handler(args)
        return code
    except (UsageError, RulesError, ValueError) as exc:
        print(f"president {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"president {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0

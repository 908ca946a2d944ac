"""`president sim`: whole games offline between bots (the library is `president.bots.sim`)."""

from __future__ import annotations

import argparse
import json
import sys

from president.bots.sim import default_processes, progress_bar, report, run, speed_line
from president.bots.strategies import strategy_problem
from president.engine import find_preset

from .usage import UsageError, rules_for, search_options


def cmd_sim(args: argparse.Namespace) -> int:
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
    result = run(
        rules,
        bots,
        args.games,
        args.seed,
        rotate=not args.fixed_seats,
        processes=processes,
        record=args.record,
        preset=args.preset,
        progress=show,
        options=options,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "preset": args.preset,
                    "seed": args.seed,
                    "rules": rules.changes_from(find_preset(args.preset)),
                    "rotated": not args.fixed_seats,
                    **result.to_json(),
                }
            )
        )
        return 0
    changed = rules.changes_from(find_preset(args.preset))
    title = (
        f"preset {args.preset}"
        + "".join(f", {k}={v}" for k, v in changed.items())
        + f", {players} players, seed {args.seed}, "
        + ("seats rotated each game" if not args.fixed_seats else "seats fixed")
    )
    print("\n".join(report(result, title)))
    print(speed_line(result), file=sys.stderr)
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Play whole games between bots and report their average finishing place. "
        "The same seed gives the same output (the speed goes to stderr)."
    )
    parser.add_argument("--preset", default="classic", help="rules preset (default classic)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a toggle on top of the preset (repeatable)",
    )
    parser.add_argument("--players", type=int, default=None, help="table size (default 4)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed for deals and bots (default 1)")
    parser.add_argument(
        "--bots",
        default="random",
        help="the line-up: one strategy per chair, comma-separated (rotated round the seats each game), or one for every chair (default random)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--record", metavar="DIR", help="write each game's record into DIR")
    parser.add_argument(
        "--jobs", type=int, metavar="N", help="processes to use (default: every core)"
    )
    parser.add_argument(
        "--fixed-seats",
        action="store_true",
        help="keep each strategy in its chair (default: rotate the line-up each game)",
    )
    parser.add_argument(
        "--playouts", type=int, metavar="N", help="search bot: playouts per decision"
    )
    parser.add_argument(
        "--think",
        type=float,
        metavar="SECONDS",
        help="search bot: thinking time per decision (instead of a playout count)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=cmd_sim)

"""`president sim`: whole games offline between bots (the library is `president.bots.sim`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from president.bots.sim import (
    SimResult,
    default_processes,
    progress_bar,
    report,
    run,
    speed_line,
)
from president.bots.strategies import (
    BotMistake,
    Interrupted,
    WorkerLost,
    strategy_name,
)
from president.client.tui.narrator import plural
from president.engine import Rules, RulesError, find_preset
from president.protocol.schema import shown

from .usage import (
    PLAYOUTS,
    STRATEGY_HELP,
    THINK,
    UsageError,
    add_rules,
    check_budget,
    chosen_rules,
    search_options,
    whole,
)


def cmd_sim(args: argparse.Namespace) -> int:
    chosen = chosen_rules(args)  # --preset or --rules, then --set
    args.preset, rules = chosen.preset, chosen.rules
    named = args.bots.split(",")
    if any(b.strip() for b in named) and not all(b.strip() for b in named):  # (one was
        # dropped unsaid; none at all is "needs at least one strategy" below)
        raise UsageError(
            f"--bots {args.bots!r} has an empty name: two commas together, or one at an end"
        )
    bots = [strategy_name(b) for b in named if b.strip()]
    if not bots:
        raise UsageError("--bots needs at least one strategy")
    players = args.players if args.players is not None else (len(bots) if len(bots) > 1 else 4)
    if args.players is None and len(bots) > 1:
        try:  # (a line-up of 2 was told "needs at least 3 players, not 2": it asked for none)
            rules.check_players(players)
        except RulesError as exc:
            raise UsageError(
                f"--bots names {len(bots)} strategies, one for each chair: {exc} (name one "
                "strategy for every chair, or one alone and --players N)"
            ) from None
    rules.check_players(players)
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise UsageError(f"--bots names {len(bots)} strategies for {players} players")
    check_budget(args, bots)
    if args.scheduler and (args.jobs is not None or args.record):
        flag = "--jobs" if args.jobs is not None else "--record"
        raise UsageError(f"{flag} is for a run on this machine, not with --scheduler")
    processes = args.jobs if args.jobs is not None else default_processes()
    made = record_folder(args.record) if args.record else None
    started = time.time()
    try:
        return simulate(args, rules, bots, players, processes)
    except BaseException as exc:  # Ctrl-C, a full disk: no part of a record is left
        # (the result's reader gone, `| head -1` or a pager quit early, as it is printed:
        # the games were played and their records are whole; they were all deleted)
        stopped = exc.__context__ if isinstance(exc, BrokenPipeError) else exc
        if isinstance(exc, BrokenPipeError) and not isinstance(stopped, Interrupted):
            raise
        # after Ctrl-C, the records of the games its result counts, and of no other
        kept = stopped.result.games if isinstance(stopped, Interrupted) else 0
        if made is not None and not kept:  # a folder this run made goes altogether
            shutil.rmtree(made, ignore_errors=True)
        elif args.record:
            for part in Path(args.record).glob(".*.json.part"):
                part.unlink(missing_ok=True)
            if isinstance(stopped, Interrupted):
                drop_records(Path(args.record), args.preset, args.seed, kept, started)
        if isinstance(exc, (BotMistake, WorkerLost)):  # (not the command's mistake: 1)
            print(f"president sim: {exc}", file=sys.stderr)
            return 1
        if isinstance(stopped, Interrupted) and stopped is not exc:
            raise stopped from None  # (stopped by Ctrl-C: 130, whatever the pipe did)
        raise


def drop_records(folder: Path, preset: str, seed: int, kept: int, since: float) -> None:
    """The records this run wrote (since `since`) of its games from number `kept` on: a
    run stopped by Ctrl-C keeps those of the games its result counts (every game before
    the first still out: games that finished after a gap are not in it)."""
    for path in folder.glob(f"{preset}-seed{seed}-game*.json"):
        number = path.name[len(f"{preset}-seed{seed}-game") : -len(".json")]
        with contextlib.suppress(ValueError, OSError):
            if int(number) >= kept and path.stat().st_mtime >= since:
                path.unlink()


def record_folder(folder: str) -> Path | None:
    """Make sure records can be written into `folder`: the topmost folder this made
    (None if it was there), to remove again if the run does not finish."""
    path = Path(folder)
    made = next((p for p in reversed((path, *path.parents)) if not p.exists()), None)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        raise UsageError(f"cannot write records into {folder}: {exc.strerror or exc}") from None
    return made


def simulate(
    args: argparse.Namespace, rules: Rules, bots: list[str], players: int, processes: int
) -> int:
    options = search_options(args)
    show = progress_bar() if (sys.stderr.isatty() and not args.quiet) else None
    if show is not None and not args.scheduler:
        show(0, args.games)  # (at once: slow bots' first games were a blank screen)
    try:
        if args.scheduler:
            from president.bots.cluster import ClusterError

            try:
                result = on_cluster(args, rules, bots, show)
            except ClusterError as exc:  # (a peer's own words in it: escapes shown, not
                # acted on, a hostile pass's peer set the title and cleared the screen)
                print(shown(f"president sim: {exc}"), file=sys.stderr)
                return 2
        else:
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
    except (BotMistake, WorkerLost):
        if show is not None:
            print(file=sys.stderr)  # (off the progress bar's line)
        raise
    except Interrupted as stop:  # Ctrl-C: the games done so far, then "interrupted"
        if stop.result.games:
            if show is not None:
                print(file=sys.stderr)  # (off the progress bar's line)
            print(
                f"stopped after {stop.result.games:,} of {stop.asked:,} games: the result "
                f"of those (the same as --games {stop.result.games})",
                file=sys.stderr,
            )
            tell(args, rules, players, stop.result, interrupted=True)
        raise
    tell(args, rules, players, result)
    return 0


def tell(
    args: argparse.Namespace,
    rules: Rules,
    players: int,
    result: SimResult,
    interrupted: bool = False,
) -> None:
    """The result, as a table or (--json) a JSON line (`"interrupted": true` for the
    first games of a run stopped by Ctrl-C); the speed on stderr."""
    if args.json:
        print(
            json.dumps(
                {
                    "preset": args.preset,
                    "seed": args.seed,
                    "rules": rules.changes_from(find_preset(args.preset)),
                    "rotated": not args.fixed_seats,
                    **result.to_json(),
                    **({"interrupted": True} if interrupted else {}),
                }
            )
        )
        return
    changed = rules.changes_from(find_preset(args.preset))
    title = (
        f"preset {args.preset}"
        + "".join(f", {k}={v}" for k, v in changed.items())
        + f", {players} players, seed {args.seed}, "
        + ("seats rotated each game" if not args.fixed_seats else "seats fixed")
    )
    print("\n".join(report(result, title)), flush=True)  # (then the speed: after it, in
    print(speed_line(result), file=sys.stderr)  # a file both go to; it was in the table)


def on_cluster(
    args: argparse.Namespace, rules: Rules, bots: list[str], show: Callable[[int, int], None] | None
) -> SimResult:
    """The games on the Dask cluster whose scheduler is at `--scheduler`."""
    from president.bots.cluster import connect, run_on, threads

    client = connect(args.scheduler)
    try:
        workers = threads(client)
        if not args.quiet:
            print(
                f"scheduler {args.scheduler}: {plural(len(client.nthreads()), 'worker')}, "
                f"{plural(workers, 'thread')}"
                + ("" if workers else "; the games wait for a `dask worker` to join"),
                file=sys.stderr,
            )
        return run_on(
            client,
            rules,
            bots,
            args.games,
            args.seed,
            rotate=not args.fixed_seats,
            preset=args.preset,
            progress=show,
            options=search_options(args),
            warn=lambda line: print(f"president sim: {line}", file=sys.stderr, flush=True),
        )
    finally:
        client.close()


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, options and handler."""
    parser.description = (
        "Play whole games between bots and report their average finishing place. "
        "The same seed gives the same output (the speed goes to stderr)."
    )
    add_rules(parser, "the games")
    parser.add_argument(
        "--players",
        type=whole(),
        default=None,
        help="table size (default: as many as --bots names, else 4)",
    )
    parser.add_argument(
        "--games", type=whole(1, 1_000_000), default=100, help="games to play (default 100)"
    )
    parser.add_argument(
        "--seed", type=whole(), default=1, help="seed for deals and bots (default 1)"
    )
    parser.add_argument(
        "--bots",
        default="random",
        help="the line-up: one strategy per chair, comma-separated (rotated round the seats "
        f"each game), or one for every chair (default random); {STRATEGY_HELP}",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--record", metavar="DIR", help="write each game's record into DIR")
    parser.add_argument(
        "--jobs", type=whole(1, 256), metavar="N", help="processes to use (default: every core)"
    )
    parser.add_argument(
        "--fixed-seats",
        action="store_true",
        help="keep each strategy in its chair (default: rotate the line-up each game)",
    )
    parser.add_argument(
        "--playouts", type=PLAYOUTS, metavar="N", help="search bot: playouts per decision"
    )
    parser.add_argument(
        "--think",
        type=THINK,
        metavar="SECONDS",
        help="search bot: thinking time per decision (instead of a playout count)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play the games on a Dask cluster: its scheduler's address, tcp://HOST:8786 "
        "(the extra `cluster`; docs/cluster.md)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=cmd_sim)

"""`president analyze RECORD [--seat NAME] [--json] [--jobs N] [--playouts N]`: every
decision of a game record judged from the seat that made it, and what each hand's cards
were worth (`president.bots.review`; docs/analysis.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from president.bots.review import THRESHOLDS, WORLDS, Review, review
from president.engine.record import NotARecord, loads
from president.protocol.schema import shown

from .usage import UsageError, whole


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Judge every decision of a president-record/1 game from the seat that made it "
        "(its view then, never the hidden hands): each weighed action's expected place, "
        "the chosen one's loss against the best, labelled "
        + ", ".join(f"{name} (>= {limit} places)" for name, limit in THRESHOLDS)
        + "; and what each hand's cards were worth. Exit status: 0 done, 2 not a record "
        "or one that does not replay."
    )
    parser.add_argument("file", help="the record (JSON)")
    parser.add_argument(
        "--seat",
        action="append",
        default=[],
        metavar="NAME",
        help="judge this player's decisions only (repeatable; default: everyone)",
    )
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument(
        "--jobs", type=whole(1), default=1, metavar="N", help="processes to share the work"
    )
    parser.add_argument(
        "--playouts",
        type=whole(2),
        default=WORLDS,
        metavar="N",
        help=f"worlds each weighed action is played out in (default {WORLDS})",
    )
    parser.add_argument("--seed", type=int, default=1, help="the worlds' seed (default 1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    try:
        document = loads(data)
    except NotARecord as exc:
        print(shown(f"president analyze: {args.file}: {exc}"), file=sys.stderr)
        return 2
    unknown = [name for name in args.seat if name not in document["players"]]
    if unknown:
        raise UsageError(f"{unknown[0]!r} is not a player of this record")
    bar = Bar() if sys.stderr.isatty() and not args.json else None
    started = time.monotonic()
    try:
        result = review(
            document,
            seats=args.seat or None,
            worlds=args.playouts,
            luck_worlds=2 * args.playouts,
            jobs=args.jobs,
            seed=args.seed,
            progress=bar.show if bar else None,
        )
    except NotARecord as exc:
        if bar:
            bar.done()
        print(shown(f"president analyze: {args.file}: {exc}"), file=sys.stderr)
        return 2
    if bar:
        bar.done()
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0
    for line in report(result, len(document.get("hands", [])), args.playouts):
        print(shown(line))
    print(f"({time.monotonic() - started:.1f} s)")
    return 0


def report(result: Review, hands: int, worlds: int) -> list[str]:
    """The review in lines: each player's figures, each hand's cards and decisions, the
    worst decisions."""
    lines = [
        f"{len(result.judged)} decisions with a choice judged over {worlds} worlds each"
        f" ({hands} hands); places: 1 is first; the cards and the decisions against the"
        " heuristic's play (the cards with it playing every seat, each decision against"
        " its choice there)"
    ]
    for summary in result.summaries():
        counts = ", ".join(f"{n} {plural(name, n)}" for name, n in summary.labels.items())
        lines.append(
            f"{summary.name}: accuracy {summary.accuracy:.0f}, {summary.decisions} decisions"
            f" ({counts}), {round(summary.gaps, 1) or 0.0:+.1f} places lost to the best found"
            f" ({summary.mean_loss:.3f} a decision floored); over {summary.hands} hands,"
            f" the cards {summary.cards:+.1f} places, the decisions {summary.gained:+.1f}"
        )
    gained = result.gained()
    for luck in result.luck:
        if not luck.place:
            continue
        decisions = gained.get((luck.hand, luck.name), 0.0)
        lines.append(
            f"hand {luck.hand + 1}, {luck.name}: {ordinal(luck.place)}: the cards"
            f" {luck.cards:+.1f} places, the decisions {decisions:+.1f}"
        )
    worst = sorted((j for j in result.judged if j.label), key=lambda j: -j.loss)[:10]
    if worst:
        lines.append("the costliest decisions:")
    for judged in worst:
        chosen, best = judged.places()
        lines.append(
            f"  hand {judged.hand + 1}, action {judged.number + 1}, {judged.name}:"
            f" {judged.chosen} (expected place {chosen:.2f}); best"
            f" {judged.best} ({best:.2f}): {judged.label}"
        )
    return lines


def plural(word: str, count: int) -> str:
    if count == 1:
        return word
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


def ordinal(place: int) -> str:
    return f"{place}{'st' if place == 1 else 'nd' if place == 2 else 'rd' if place == 3 else 'th'}"


class Bar:
    """A progress bar on stderr (a terminal only)."""

    def __init__(self) -> None:
        self.width = 30

    def show(self, done: int, total: int) -> None:
        filled = self.width * done // max(1, total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\r" + " " * (self.width + 24) + "\r")
        sys.stderr.flush()

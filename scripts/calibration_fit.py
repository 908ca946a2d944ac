#!/usr/bin/env python3
"""Could a fitted map make the review's expected places calibrated?  A cross-check of
issue 29's calibration figure on rows that `bench_review --rows FILE` wrote: a
piecewise-linear map from the prediction to the place taken, through the means of
`--bins` equal-count bins, fitted on the first half of the rows (the first half of the
games: a game's rows are together) and checked on the other half by decile, each decile
with the 95% interval of its place taken.

    python -m scripts.calibration_fit ROWS.json [ROWS.json ...] [--bins 5]
    python -m scripts.calibration_fit ROWS.json --against OTHER.json

Several runs' rows are pooled: first their calibration as `bench_review` prints it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
from collections.abc import Callable, Sequence

from scripts.bench_review import equal_parts, print_calibration

Row = Sequence[float]  # (expected, the same again, place taken, hand)


def knots(rows: Sequence[Row], bins: int) -> list[tuple[float, float]]:
    """(mean prediction, mean place taken) of `bins` equal-count bins of the prediction."""
    ordered = sorted((row[0], row[2]) for row in rows)
    return [
        (statistics.fmean(p for p, _ in part), statistics.fmean(t for _, t in part))
        for part in equal_parts(ordered, bins)
    ]


def through(points: list[tuple[float, float]]) -> Callable[[float], float]:
    """The piecewise-linear map through `points`, its end segments carried on."""

    segments = list(itertools.pairwise(points))

    def f(x: float) -> float:
        # the first segment reaching x, or the last one carried on
        (x0, y0), (x1, y1) = next((s for s in segments if x <= s[1][0]), segments[-1])
        return y0 + (x - x0) * (y1 - y0) / (x1 - x0)

    return f


def by_decile(name: str, f: Callable[[float], float], rows: Sequence[Row], column: int) -> None:
    ordered = sorted(rows, key=lambda row: row[column])
    worst, missed, cells = 0.0, 0, []
    for part in equal_parts(ordered):
        predicted = statistics.fmean(f(row[column]) for row in part)
        taken = statistics.fmean(row[2] for row in part)
        half = 1.96 * statistics.stdev(row[2] for row in part) / math.sqrt(len(part))
        worst = max(worst, abs(predicted - taken))
        missed += abs(predicted - taken) > half
        cells.append(f"{predicted:.3f} vs {taken:.3f} +- {half:.3f}")
    print(f"{name}: largest gap {worst:.3f}; {missed} of 10 deciles' intervals miss")
    for decile, cell in enumerate(cells, 1):
        print(f"  decile {decile}: {cell}")


def against(first: Sequence[Row], second: Sequence[Row]) -> None:
    """Two runs' predictions of the same games (the rows pair one to one: the same seat-
    hands, the same places taken) on the same deciles, those of the first run's first
    evaluation: each run's second evaluation against the place taken, by decile."""
    if len(first) != len(second) or any(
        a[2:4] != b[2:4] for a, b in zip(first, second, strict=True)
    ):
        raise SystemExit("--against: the two runs' rows are not of the same games")
    order = sorted(range(len(first)), key=lambda i: first[i][0])
    gaps: list[tuple[float, float]] = []
    for part in equal_parts(order):
        taken = statistics.fmean(first[i][2] for i in part)
        gaps.append(
            (
                statistics.fmean(first[i][1] for i in part) - taken,
                statistics.fmean(second[i][1] for i in part) - taken,
            )
        )
    print("the same deciles (the first run's first evaluation), prediction - place taken:")
    for decile, (one, two) in enumerate(gaps, 1):
        print(f"  decile {decile}: first {one:+.3f}, second {two:+.3f}")
    for which, name in ((0, "first"), (1, "second")):
        sizes = [abs(gap[which]) for gap in gaps]
        print(f"  {name} run: largest gap {max(sizes):.3f}, mean gap {statistics.fmean(sizes):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", help="one or more runs' rows, pooled")
    parser.add_argument("--bins", type=int, default=5)
    parser.add_argument(
        "--against",
        metavar="ROWS",
        help="another run's rows of the same games (as ROWS, one run): both runs'"
        " predictions on the same deciles, and nothing else",
    )
    args = parser.parse_args()
    if args.against:
        with open(args.rows[0]) as one, open(args.against) as two:
            against(json.load(one), json.load(two))
        return
    rows: list[Row] = []
    for path in args.rows:
        with open(path) as source:
            rows += json.load(source)
    print(f"{len(rows)} seat-hands of {len(args.rows)} run(s), as bench_review reads them:")
    print_calibration(list(rows))
    fitted, held = rows[: len(rows) // 2], rows[len(rows) // 2 :]
    print(f"{len(rows)} seat-hands: the map fitted on {len(fitted)}, checked on {len(held)}")
    mapped = through(knots(fitted, args.bins))
    by_decile("held-out half, as measured (no map)", lambda x: x, held, 0)
    by_decile(f"held-out half, through the map of {args.bins} bins", mapped, held, 0)
    by_decile("the same, on the independent second evaluation", mapped, held, 1)


if __name__ == "__main__":
    main()

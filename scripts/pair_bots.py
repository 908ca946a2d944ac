"""Two settings of the first chair's bot on the same games (same deals, same seats, same
opponents' randomness): the paired difference of its average place, with a 95% CI over
games, and each setting's time per decision.  How the search's variants were compared.

    python scripts/pair_bots.py --games 300 --bots search,heuristic,heuristic,heuristic \\
        --a '{"method": "flat"}' --b '{"method": "ismcts"}' [--preset classic] [--jobs 2]

Options are the strategy's keyword arguments (JSON), given to every chair (greedy and
heuristic ignore them)."""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import sys
from pathlib import Path

from president.bots.sim import SimResult, Tally, default_processes, run
from president.engine import Rules, RulesError, find_preset


def paired(a: Tally, b: Tally) -> tuple[float, float]:
    """B's average place minus A's over the games both played, and its 95% half-width
    (each game's ratio-estimator residuals, differenced)."""
    games = sorted(set(a.per_game) & set(b.per_game))
    mean_a, mean_b = a.average, b.average
    bar_a = sum(a.per_game[g][0] for g in games) / len(games)
    bar_b = sum(b.per_game[g][0] for g in games) / len(games)
    residuals = []
    for g in games:
        (na, ya), (nb, yb) = a.per_game[g], b.per_game[g]
        residuals.append((yb - mean_b * nb) / bar_b - (ya - mean_a * na) / bar_a)
    spread = sum(r * r for r in residuals) / max(1, len(games) - 1)
    return mean_b - mean_a, 1.96 * math.sqrt(spread / len(games))


def _code() -> str:
    """A digest of the bots' and the engine's source: a cached setting is taken only for
    the same code (`{}` means whatever the defaults are when it runs)."""
    import president.bots
    import president.engine

    digest = hashlib.sha256()
    for package in (president.bots, president.engine):
        for source in sorted(Path(package.__file__).parent.glob("*.py")):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


def _first_chair(
    rules: Rules,
    bots: list[str],
    games: int,
    seed: int,
    jobs: int,
    options: dict[str, object],
    cache: str | None,
) -> Tally:
    key = json.dumps([rules.to_dict(), bots, games, seed, options, _code()], sort_keys=True)
    path = (
        Path(cache) / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.pickle" if cache else None
    )
    if path is not None and path.exists():
        tally: Tally = pickle.loads(path.read_bytes())
        return tally
    result: SimResult = run(
        rules, bots, games, seed, processes=jobs, options=options, keep_games=True
    )
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(result.entrants[0]))
    return result.entrants[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bots", default="search,heuristic,heuristic,heuristic")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=default_processes())
    parser.add_argument("--a", default="{}", help="options of setting A (JSON)")
    parser.add_argument("--b", default="{}", help="options of setting B (JSON)")
    parser.add_argument(
        "--cache",
        help="a folder where each setting's games are kept, and taken from when the same "
        "setting (the same code) is asked again",
    )
    args = parser.parse_args()
    try:
        rules = find_preset(args.preset)
        settings = [json.loads(args.a), json.loads(args.b)]
    except (RulesError, json.JSONDecodeError) as exc:
        sys.exit(f"pair_bots: {exc}")
    bots = args.bots.split(",")
    first = [
        _first_chair(rules, bots, args.games, args.seed, args.jobs, options, args.cache)
        for options in settings
    ]
    for label, options, tally in zip("AB", settings, first):
        print(
            f"{label} {json.dumps(options)}: {bots[0]} avg place {tally.average:.3f} "
            f"± {tally.interval():.3f} over {tally.hands} hands; "
            f"decisions {tally.decisions.summary()}; with a choice {tally.choices.summary()}"
        )
    diff, half = paired(first[0], first[1])
    print(
        f"B - A: {diff:+.3f} ± {half:.3f} (95%, paired over {args.games} games of "
        f"{args.preset}, {','.join(bots)}, seed {args.seed})"
    )


if __name__ == "__main__":
    main()

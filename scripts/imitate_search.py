"""Imitating the search (issue 25's experiments, docs/bots.md "The search under
Daifugo"): record the decisions the search bot searches, fit a linear policy (a
conditional logit over the search's own candidates) to its choices, and measure that
policy as a bot, and as the search's own continuation in its playouts, each paired on
the same games against 3 heuristic bots.

    python scripts/imitate_search.py collect --games 400 --seed 11 --out d11.jsonl
    python scripts/imitate_search.py train d11.jsonl d12.jsonl --out policy.json
    python scripts/imitate_search.py bot --policy policy.json --games 1000 --seed 1
    python scripts/imitate_search.py continuation --policy policy.json --games 400 --seed 2

`train` needs numpy (the `test` or `rl` extra).  The workers are forked (Linux, macOS):
the strategies this script adds, and the playouts' continuation, reach them that way.
A research tool, not a bot anyone may field: its policy is fitted to one table."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from president.bots import playout as playouts
from president.bots import strategies
from president.bots.heuristic import Facts, power, rank_counts, unseen_counts
from president.bots.playout import game_facts, game_policy
from president.bots.search import SearchBot
from president.bots.sim import play_game, run
from president.bots.simple import HeuristicBot
from president.cli.main import compiled_modules
from president.engine import Action, Game, Phase, Play, SeatView, find_preset, judge_for
from president.engine.cards import JOKER_RANK

from scripts.pair_bots import paired

#: Ranks with an effect under daifugo (the rank index: 3 is 0).
FIVE, SEVEN, EIGHT, TEN, JACK = 2, 4, 5, 7, 8
NAMED = (("five", FIVE), ("seven", SEVEN), ("eight", EIGHT), ("ten", TEN), ("jack", JACK))
#: A candidate as the features see it: None for the pass, else (power in the order in
#: force, count, jokers, sequence, whole, precious, boss, rank).
Described = tuple[int, int, int, bool, bool, bool, bool, int] | None


def describe(action: Action, facts: Facts) -> Described:
    if not isinstance(action, Play):
        return None
    strength = power(action, facts.order)
    whole, precious, boss = facts.whole(action), facts.precious(action), facts.boss(action)
    return (
        strength,
        action.count,
        action.jokers,
        action.rank < 0,
        whole,
        precious,
        boss,
        action.rank,
    )


def features(
    described: Sequence[Described],
    prior: int,
    held: Sequence[int],
    counts: Sequence[int],
    seat: int,
    top_power: int | None,
) -> list[dict[str, float]]:
    """Each candidate's features: what the play is (its strength, size, whether it breaks
    a set, spends a 2 or a joker, cannot be beaten, has an effect), where it stands among
    the candidates, whether it is the heuristic's choice, and the hand around it."""
    lead = top_power is None
    side = "L" if lead else "F"
    left = counts[seat]
    threat = min([n for s, n in enumerate(counts) if s != seat and n] or [99])
    sets_left = sum(1 for n in held if n)
    strengths = sorted({d[0] for d in described if d is not None})
    found = []
    for index, play in enumerate(described):
        f: dict[str, float] = {}
        if index == prior:
            f["prior"] = f[side + "prior"] = 1.0
        if play is None:
            f["pass"] = 1.0
            f["pass_threat"] = 1.0 if threat <= 2 else 0.0
            f["pass_left"] = left / 13
            f["pass_toppow"] = (top_power or 0) / 13
            found.append(f)
            continue
        strength, count, jokers, run_, whole, precious, boss, rank = play
        f[side + "bias"] = 1.0
        f[side + "pow"] = strength / 13
        f[side + "pow2"] = (strength / 13) ** 2
        f[side + f"c{min(count, 4)}"] = 1.0
        f[side + "run"] = float(run_)
        f[side + "broken"] = float(not whole)
        f[side + "prec"] = float(precious)
        f[side + "boss"] = float(boss)
        f[side + "jok"] = float(jokers > 0)
        f["out"] = float(count == left)
        f[side + "after"] = (left - count) / 13
        for name, named in NAMED:
            f[side + name] = float(rank == named)
        f[side + "quad"] = float(rank >= 0 and count >= 4)
        if threat <= 2:
            f[side + f"threat_c{min(count, 3)}"] = 1.0
        if rank >= 0 and not whole:
            f[side + "brk_left"] = (held[rank] - count) / 4
        f[side + "sets_left"] = sets_left / 10
        f[side + "pow_x_left"] = strength / 13 * left / 13
        if top_power is not None:
            f["F_gap"] = (strength - top_power) / 13
        place = strengths.index(strength)
        f[side + "lowest"] = float(place == 0)
        f[side + "highest"] = float(place == len(strengths) - 1)
        f[side + "relpos"] = place / max(1, len(strengths) - 1)
        found.append(f)
    return found


def pile_power(view_top: Any, order: Sequence[int]) -> int | None:
    if view_top is None:
        return None
    return order[view_top.rank] if view_top.rank >= 0 else 0


# --- recording the search ------------------------------------------------------------

#: The decisions recorded in this process since the last game was taken.
RECORDED: list[dict[str, Any]] = []


class RecordingSearch(SearchBot):
    """The search bot, recording each decision it searches: the candidates, the
    heuristic's choice among them and its own."""

    def _race(self, view: SeatView, actions: list[Action], prior: Action) -> Action:
        choice = super()._race(view, actions, prior)
        held = rank_counts(view.rows)
        facts = Facts(
            view.rules, view.seat, held, view.top, view.reversed, view.counts, unseen_counts(view)
        )
        RECORDED.append(
            {
                "held": held,
                "counts": list(view.counts),
                "seat": view.seat,
                "top_power": pile_power(view.top, facts.order),
                "candidates": [describe(a, facts) for a in actions],
                "prior": actions.index(prior) if prior in actions else -1,
                "choice": actions.index(choice),
            }
        )
        return choice


def _recording(rng: random.Random, **options: Any) -> Any:
    from president.bots.belief import Believer
    from president.bots.search import Believed

    return RecordingSearch(rng, sampler=Believed(Believer().belief), **options)


def _collect_games(job: tuple[str, int, tuple[int, ...], dict[str, Any]]) -> list[dict[str, Any]]:
    preset, seed, numbers, options = job
    rules = find_preset(preset)
    found = []
    for number in numbers:
        RECORDED.clear()
        play_game(
            rules, ["recording", "heuristic", "heuristic", "heuristic"], seed, number, True, options
        )
        found += RECORDED
    return found


def collect(
    preset: str, games: int, seed: int, jobs: int, out: Path, options: dict[str, Any]
) -> int:
    import multiprocessing

    chunks = [
        (preset, seed, tuple(range(i, min(games, i + 5))), options) for i in range(0, games, 5)
    ]
    written = 0
    with multiprocessing.get_context("fork").Pool(jobs) as pool, out.open("w") as file:
        for records in pool.imap(_collect_games, chunks):
            for record in records:
                file.write(json.dumps(record) + "\n")
                written += 1
    return written


# --- fitting ---------------------------------------------------------------------------


def fit(
    records: list[dict[str, Any]], steps: int = 1500, decay: float = 1e-3, seed: int = 0
) -> tuple[dict[str, float], dict[str, float]]:
    """A conditional logit on the search's choices (Adam on the full batch), fitted on a
    random half of `records`; the weights, and on the other half how often the model and
    the heuristic pick what the search picked."""
    import numpy as np

    rows = []
    names: dict[str, int] = {}
    for record in records:
        found = features(
            record["candidates"],
            record["prior"],
            record["held"],
            record["counts"],
            record["seat"],
            record["top_power"],
        )
        for f in found:
            for name in f:
                names.setdefault(name, len(names))
        rows.append((found, record["choice"], record["prior"]))
    random.Random(seed).shuffle(rows)
    half = len(rows) // 2
    train, test = rows[:half], rows[half:]
    width = len(names)
    arms = max(len(found) for found, _, _ in rows)

    def tensor(part: list[Any]) -> tuple[Any, Any, Any]:
        x = np.zeros((len(part), arms, width))
        mask = np.full((len(part), arms), -1e9)
        y = np.zeros(len(part), int)
        for i, (found, choice, _) in enumerate(part):
            for j, f in enumerate(found):
                mask[i, j] = 0.0
                for name, value in f.items():
                    x[i, j, names[name]] = value
            y[i] = choice
        return x, mask, y

    x, mask, y = tensor(train)
    w = np.zeros(width)
    m = np.zeros(width)
    v = np.zeros(width)
    at = np.arange(len(train))
    for step in range(1, steps + 1):
        s = x @ w + mask
        s -= s.max(1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(1, keepdims=True)
        grad = -(x[at, y] - np.einsum("ik,ikd->id", p, x)).mean(0) + decay * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    xt, mask_t, yt = tensor(test)
    picked = (xt @ w + mask_t).argmax(1)
    priors = np.array([prior for _, _, prior in test])
    agreement = {
        "model": float((picked == yt).mean()),
        "heuristic": float((priors == yt).mean()),
        "held_out": float(len(test)),
    }
    return {name: float(w[i]) for name, i in names.items()}, agreement


# --- the policy ------------------------------------------------------------------------

#: The fitted weights the strategies below play by (set before the games are forked).
WEIGHTS: dict[str, float] = {}


def pick(found: list[dict[str, float]], weights: dict[str, float]) -> int:
    scores = [sum(weights.get(k, 0.0) * value for k, value in f.items()) for f in found]
    return max(range(len(found)), key=lambda i: (scores[i], -i))


#: The search whose candidates the policy picks among (it asks no randomness for them).
CANDIDATES = SearchBot(random.Random(0))


class ImitatingBot:
    """The heuristic, but where the search would search, the fitted policy's pick among
    the search's candidates."""

    def __init__(self, weights: dict[str, float]) -> None:
        self.weights = weights
        self.heuristic = HeuristicBot()

    def choose(self, view: SeatView) -> Action:
        prior = self.heuristic.choose(view)
        if view.phase is not Phase.PLAY or view.due is not None:
            return prior
        actions = view.legal_actions()
        if len(actions) == 1:
            return actions[0]
        candidates = CANDIDATES.candidates(view, actions, prior)
        if len(candidates) == 1:
            return candidates[0]
        held = rank_counts(view.rows)
        facts = Facts(
            view.rules, view.seat, held, view.top, view.reversed, view.counts, unseen_counts(view)
        )
        found = features(
            [describe(a, facts) for a in candidates],
            candidates.index(prior),
            held,
            view.counts,
            view.seat,
            pile_power(view.top, facts.order),
        )
        return candidates[pick(found, self.weights)]


def continuation(game: Game, seat: int, weights: dict[str, float]) -> Action:
    """The fitted policy as a seat's move in a playout: the heuristic's (uncounted, as the
    playouts play it) where the search would not search, else the policy's pick, the
    cards counted off the world (what the seat would know: per rank, the copies in the
    others' hands)."""
    actions = game.legal_actions(seat)
    if game.due is not None or len(actions) == 1:
        return game_policy(game, seat)
    prior = game_policy(game, seat)
    candidates = CANDIDATES.candidates(game.view_for(seat), actions, prior)
    if len(candidates) == 1:
        return candidates[0]
    unseen = [0] * (JOKER_RANK + 1)
    for other in range(len(game.seating)):
        if other != seat:
            for rank, row in enumerate(game.rows(other)):
                unseen[rank] += len(row)
    facts = game_facts(game, seat, unseen)
    found = features(
        [describe(a, facts) for a in candidates],
        candidates.index(prior),
        facts.held,
        game.card_counts(),
        seat,
        pile_power(game.top, facts.order),
    )
    return candidates[pick(found, weights)]


#: Whether the search's own moves in its playouts are the policy's (set per game).
IMITATED = {"on": False}
_PLAYOUT = playouts.game_playout


def imitated_playout(
    game: Game,
    me: int,
    epsilon: float = 0.0,
    rng: random.Random | None = None,
    greedy: int = 0,
    counting: bool = False,
) -> float:
    """`playout.game_playout`, my own moves the fitted policy's (under the variants)."""
    if not IMITATED["on"] or not judge_for(game.rules).suits_matter():
        return _PLAYOUT(game, me, epsilon, rng, greedy, counting)
    policy = playouts.counted_policy if counting else game_policy
    place = game.place_of(me)
    while place is None:
        seat: int = game.turn  # type: ignore[assignment]
        action = continuation(game, me, WEIGHTS) if seat == me else policy(game, seat)
        game.apply(seat, action, checked=False)
        place = game.place_of(me)
    return 1.0 - place / (len(game.seating) - 1)


def _imitating(rng: random.Random, **options: Any) -> Any:
    return ImitatingBot(WEIGHTS)


def _search(rng: random.Random, **options: Any) -> Any:
    IMITATED["on"] = bool(options.pop("imitated", False))
    return _SEARCH(rng, **options)


_SEARCH = strategies.STRATEGIES["search"]


def install() -> None:
    """Register the strategies this script adds, and the search that may take the
    policy as its own continuation (inherited by the forked workers)."""
    if "bots.playout" in compiled_modules():
        # (compiled, the playouts call their own `game_playout`, whatever this sets)
        raise SystemExit(
            "imitate_search: the compiled build's playouts take no other continuation;"
            " run it on the interpreted build (pip install . without PRESIDENT_COMPILE)"
        )
    strategies.STRATEGIES.update(recording=_recording, imitating=_imitating, search=_search)
    playouts.game_playout = imitated_playout


def compare(
    preset: str,
    bots: tuple[list[str], list[str]],
    options: tuple[dict[str, Any], dict[str, Any]],
    games: int,
    seed: int,
    jobs: int,
) -> str:
    rules = find_preset(preset)
    a = run(rules, bots[0], games, seed, processes=jobs, options=options[0]).entrants[0]
    b = run(rules, bots[1], games, seed, processes=jobs, options=options[1]).entrants[0]
    difference, half = paired(a, b)
    return (
        f"A {a.average:.3f}  B {b.average:.3f}  B - A {difference:+.3f} +- {half:.3f} "
        f"({b.hands:,} hands; median decision with a choice A {a.choices.quantile(0.5) * 1e3:.2f} ms, "
        f"B {b.choices.quantile(0.5) * 1e3:.2f} ms)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("collect", help="record the decisions the search searches")
    c.add_argument("--out", type=Path, required=True)
    t = commands.add_parser("train", help="fit the policy to recorded decisions")
    t.add_argument("records", nargs="+", type=Path)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--steps", type=int, default=1500)
    for name in ("bot", "continuation"):
        m = commands.add_parser(name, help=f"measure the policy as a {name}, paired")
        m.add_argument("--policy", type=Path, required=True)
    for sub in (c, *(commands.choices[n] for n in ("bot", "continuation"))):
        sub.add_argument("--games", type=int, default=400)
        sub.add_argument("--seed", type=int, default=1)
        sub.add_argument("--jobs", type=int, default=2)
        sub.add_argument("--preset", default="daifugo")
    c.add_argument("--playouts", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        # (a file missing or not this script's: JSON lines of `collect`, a policy of
        # `train`; a preset unknown)
        parser.error(f"{type(exc).__name__}: {exc}")
    except ImportError as exc:
        parser.error(f"{exc}: `train` needs numpy (pip install '.[test]')")


def _run(args: argparse.Namespace) -> int:
    install()
    if args.command == "collect":
        options = {"playouts": args.playouts} if args.playouts else {}
        count = collect(args.preset, args.games, args.seed, args.jobs, args.out, options)
        print(f"{count:,} decisions searched, in {args.out}")
    elif args.command == "train":
        records = [json.loads(line) for path in args.records for line in path.open()]
        if len(records) < 2:
            raise ValueError("fewer than two decisions to fit on")
        weights, agreement = fit(records, args.steps)
        args.out.write_text(json.dumps(weights, indent=1, sort_keys=True) + "\n")
        print(
            f"{len(records):,} decisions; on the held-out half ({agreement['held_out']:,.0f}) "
            f"the search's choice picked by the model {agreement['model']:.1%}, by the "
            f"heuristic {agreement['heuristic']:.1%}; weights in {args.out}"
        )
    else:
        weights = json.loads(args.policy.read_text())
        if not isinstance(weights, dict) or not all(
            isinstance(v, (int, float)) for v in weights.values()
        ):
            raise ValueError(f"{args.policy} is not a policy: a JSON object of weights")
        WEIGHTS.update(weights)
        heuristic = ["heuristic"] * 3
        if args.command == "bot":
            line = compare(
                args.preset,
                (["heuristic", *heuristic], ["imitating", *heuristic]),
                ({}, {}),
                args.games,
                args.seed,
                args.jobs,
            )
        else:
            line = compare(
                args.preset,
                (["search", *heuristic], ["search", *heuristic]),
                ({}, {"imitated": True}),
                args.games,
                args.seed,
                args.jobs,
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

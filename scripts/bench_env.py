#!/usr/bin/env python3
"""Environment steps per second against the simulator's decisions per second (issue 30
§2), same run, one process: PettingZoo's AEC loop over `president.env.env` (`last()`,
a random action among the masked ones, from a stream of uniform numbers drawn once,
`step`) against `president sim`'s own loop with random bots
(`president.bots.sim.play_game`), taking turns in slices of a quarter of a second.  Target: the environment >= 0.50 of the simulator.

It also runs the floor (`FloorLoop`): the same engine and agent with only what any
environment of this observation must do each step, and nothing it does to know the
table (no observation kept up to date: one array gathered as is, no info, no rewards,
no PettingZoo): the legal actions listed and numbered, their mask copied, an observation
of the same size gathered, the agent's pick.  What the environment could reach at best.

It also runs `Tables` (`TablesLoop`): `--tables` tables stepped a call, the same agent
at each (its pick from the list of legal indices beside the mask).

    python -m scripts.bench_env [--preset classic] [--players 4] [--seconds 5] [--repeats 3] [--tables 64]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import numpy as np
from president.bots.sim import play_game
from president.engine import Game, Phase, find_preset
from president.env import Tables, env, raw_env
from president.env.table import Masks

SLICE = 0.25
TARGET = 0.50
DRAWS = 1 << 16


class EnvLoop:
    def __init__(self, preset: str, players: int, seed: int, wrapped: bool = True) -> None:
        self.table = (env if wrapped else raw_env)(preset=preset, players=players)
        # The random agent's draws, made once (a stream of uniform numbers gone through
        # in turn): its choice costs an index, as the simulator's random bot's costs
        # one `random.Random` draw.
        self.draws = np.random.default_rng(seed).random(DRAWS).tolist()
        self.drawn = 0
        self.seed = seed
        self.table.reset(seed=seed)

    def run(self, seconds: float) -> int:
        table, draws, drawn = self.table, self.draws, self.drawn
        steps = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            for _ in range(64):
                observation, _, terminated, truncated, _ = table.last()
                if terminated or truncated:
                    table.step(None)
                    if not table.agents:
                        self.seed += 1
                        table.reset(seed=self.seed)
                    continue
                legal = observation["action_mask"].nonzero()[0]
                table.step(int(legal[int(draws[drawn] * len(legal))]))
                drawn = (drawn + 1) % DRAWS
                steps += 1
        self.drawn = drawn
        return steps


class FloorLoop:
    """The floor: the engine's game played by the same agent through the legal actions'
    indices and mask and an observation of the environment's size (its numbers left as
    they are: nothing follows the table)."""

    def __init__(self, preset: str, players: int, seed: int) -> None:
        self.table = raw_env(preset=preset, players=players)
        self.table.reset(seed=seed)
        self.rules = self.table.rules
        self.names = self.table.possible_agents
        self.rng = random.Random(seed)
        self.draws = np.random.default_rng(seed).random(DRAWS).tolist()
        self.drawn = 0
        catalog = self.table.catalog
        self.known, self.indices = catalog._known, catalog.indices
        self.masks = Masks(len(catalog))
        self.values = self.table.tracker.values
        self.gathers = self.table.tracker._gather
        self.game = self._new_game()

    def _new_game(self) -> Game:
        game = Game(self.rules, self.names)
        game.start_hand(rng=self.rng)
        return game

    def run(self, seconds: float) -> int:
        draws, drawn, known, masks = self.draws, self.drawn, self.known, self.masks
        values, gathers = self.values, self.gathers
        steps = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            for _ in range(64):
                game = self.game
                phase = game.phase
                if phase is Phase.GAME_OVER:
                    self.game = self._new_game()
                    continue
                if phase is Phase.BETWEEN_HANDS:
                    game.start_hand(rng=self.rng)
                    continue
                actor = game.turn if phase is Phase.PLAY else game.actors[0]
                legal = game.legal_actions(actor)  # type: ignore[arg-type]
                try:
                    indices = tuple(map(known.__getitem__, map(id, legal)))
                except KeyError:
                    indices = self.indices(legal)
                observation: dict[str, Any] = {
                    "observation": values[gathers[actor]],  # type: ignore[index]
                    "action_mask": masks[indices].copy(),
                }
                chosen = observation["action_mask"].nonzero()[0]
                index = int(chosen[int(draws[drawn] * len(chosen))])
                game.apply(actor, legal[indices.index(index)], checked=False)  # type: ignore[arg-type]
                drawn = (drawn + 1) % DRAWS
                steps += 1
        self.drawn = drawn
        return steps


class TablesLoop:
    """`Tables`: `count` tables a call, the same agent's pick at each (a uniform number
    a table from the stream drawn once, an index among the table's legal ones)."""

    def __init__(self, preset: str, players: int, seed: int, count: int = 64) -> None:
        self.tables = Tables(preset=preset, players=players, count=count)
        self.moment = self.tables.reset(seed=seed)
        self.draws = np.random.default_rng(seed).random((DRAWS // count, count))
        self.drawn = 0

    def run(self, seconds: float) -> int:
        tables, moment, draws, drawn = self.tables, self.moment, self.draws, self.drawn
        steps = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            for _ in range(8):
                starts = moment.legal_start
                where = starts[:-1] + (draws[drawn] * np.diff(starts)).astype(np.int64)
                moment = tables.step(moment.legal[where])
                drawn = (drawn + 1) % len(draws)
                steps += tables.count
        self.moment, self.drawn = moment, drawn
        return steps


class SimLoop:
    def __init__(self, preset: str, players: int, seed: int) -> None:
        self.rules = find_preset(preset)
        self.bots = ["random"] * players
        self.seed = seed
        self.number = 0

    def run(self, seconds: float) -> int:
        decisions = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            game, _, _ = play_game(self.rules, self.bots, self.seed, self.number, rotate=True)
            self.number += 1
            decisions += sum(len(hand.actions) for hand in game.history)
        return decisions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", type=int, default=64, help="tables a call (Tables)")
    args = parser.parse_args()
    ratios: list[float] = []
    raw_ratios: list[float] = []
    floor_ratios: list[float] = []
    tables_ratios: list[float] = []
    for run in range(args.repeats):
        loops: list[EnvLoop | SimLoop | FloorLoop | TablesLoop] = [
            EnvLoop(args.preset, args.players, args.seed + run),
            EnvLoop(args.preset, args.players, args.seed + run, wrapped=False),
            SimLoop(args.preset, args.players, args.seed + run),
            FloorLoop(args.preset, args.players, args.seed + run),
            TablesLoop(args.preset, args.players, args.seed + run, args.tables),
        ]
        counts = [0] * len(loops)
        times = [0.0] * len(loops)
        while times[0] < args.seconds:
            for index, loop in enumerate(loops):
                start = time.perf_counter()
                counts[index] += loop.run(SLICE)
                times[index] += time.perf_counter() - start
        wrapped, raw, sim, floor, batch = (n / t for n, t in zip(counts, times))
        ratios.append(wrapped / sim)
        raw_ratios.append(raw / sim)
        floor_ratios.append(floor / sim)
        tables_ratios.append(batch / sim)
        print(
            f"run {run + 1}: env() {wrapped:,.0f} steps/s, raw_env {raw:,.0f} steps/s,"
            f" simulator {sim:,.0f} decisions/s, floor {floor:,.0f} steps/s,"
            f" Tables ({args.tables} tables) {batch:,.0f} steps/s; ratios {ratios[-1]:.2f},"
            f" {raw_ratios[-1]:.2f}, {floor_ratios[-1]:.2f} and {tables_ratios[-1]:.2f}"
        )
    for name, found in (
        ("env() (PettingZoo's wrappers)", ratios),
        ("raw_env", raw_ratios),
        (f"Tables ({args.tables} tables a call)", tables_ratios),
    ):
        median = statistics.median(found)
        verdict = "meets" if median >= TARGET else "MISSES"
        print(
            f"{name} / simulator: {median:.2f} ({verdict} the target {TARGET:.2f};"
            f" preset {args.preset}, {args.players} players, median of {args.repeats} runs)"
        )
    print(
        f"floor / simulator: {statistics.median(floor_ratios):.2f} (the legal actions"
        " numbered, the mask, an observation gathered and the agent's pick, nothing else:"
        " the most an environment of this observation could reach)"
    )
    print(
        "command: python -m scripts.bench_env --preset"
        f" {args.preset} --players {args.players} --seconds {args.seconds:g}"
        f" --repeats {args.repeats} --tables {args.tables}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

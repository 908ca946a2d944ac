"""One seat learning against bots, as a Gymnasium environment: the other seats are played
by built-in strategies (`greedy`, `heuristic`, `search`, ...) or any strategy registered
through `president.bots.sdk`; the reward is the learning seat's (see `table.raw_env`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from numpy.typing import NDArray
from president.bots.strategies import Strategy, make_strategy
from president.engine import Rules

from .table import as_index, not_an_index, raw_env

Observation = dict[str, NDArray[Any]]


class SingleSeat(gymnasium.Env[Observation, np.int64]):
    """`gymnasium.make`-free: `SingleSeat(preset="daifugo", opponents="heuristic")`.
    `opponents`: one strategy for every other seat, or one name per other seat."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's own attribute)

    def __init__(
        self,
        preset: str = "classic",
        players: int = 4,
        opponents: str | Sequence[str] = "heuristic",
        seat: int = 0,
        rules: Rules | dict[str, Any] | None = None,
        hands: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.table = raw_env(preset, players, rules, hands, render_mode)
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"{players - 1} opponents are needed, not {len(names)}")
        for name in names:
            make_strategy(name, random.Random(0))  # (an unknown name: its error, at once)
        self.opponent_names = names
        at = as_index(seat)
        if at is None or not 0 <= at < players:  # (a pass: 4 was an IndexError; -1 taken)
            raise ValueError(f"seat is a seat of the {players}, 0 to {players - 1}, not {seat!r}")
        self.me = self.table.possible_agents[at]
        self.observation_space = self.table.observation_space(self.me)
        self.action_space = self.table.action_space(self.me)
        self.render_mode = render_mode
        self._bots: dict[str, Strategy] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        table = self.table
        table.reset(seed=seed)
        rng = random.Random(seed)
        others = [agent for agent in table.possible_agents if agent != self.me]
        self._bots = {
            agent: make_strategy(name, random.Random(rng.getrandbits(64)))
            for agent, name in zip(others, self.opponent_names)
        }
        reward = self._others()
        del reward  # (nothing is won before the first move)
        return table.observe(self.me), dict(table.infos[self.me])

    def step(self, action: np.int64 | int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        table = self.table
        if not hasattr(table, "agent_selection"):
            raise RuntimeError("reset() the environment before its first step")
        if table.terminations[self.me]:
            raise RuntimeError("the episode is over: reset() starts another")
        problem = not_an_index(action)  # (before `int`, which takes "1" and 1.0)
        if problem:
            raise ValueError(problem)
        table.step(int(action))
        reward = table.rewards.get(self.me, 0.0) + self._others()
        done = table.terminations[self.me]
        return table.observe(self.me), reward, done, False, dict(table.infos[self.me])

    def _others(self) -> float:
        """The bots play until it is this seat's turn or the episode ends; what this seat
        won meanwhile."""
        table = self.table
        won = 0.0
        while not table.terminations[self.me] and table.agent_selection != self.me:
            agent = table.agent_selection
            view = table.infos[agent]["view"]
            chosen = self._bots[agent].choose(view)
            table.step(table.catalog.index[table.catalog.key(chosen)])
            won += table.rewards.get(self.me, 0.0)
        return won

    def render(self) -> str | None:
        return self.table.render()

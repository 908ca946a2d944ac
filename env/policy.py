"""A trained policy as a bot: `PolicyBot(policy)` chooses as the SDK asks (`choose(view)`),
so it plays in `president sim`, at a server through `president bot`, and against a person
in `president play` (`register` it, then `president.cli.bot_script`).

`policy(observation, action_mask) -> index` is given what the environment gives a seat
(the same `Observer` and `Catalog`), from the seat's view alone."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from president.bots import sdk
from president.engine import Action, Rules, SeatView

from .actions import Catalog
from .observe import Observer
from .table import as_index, not_an_index

Policy = Callable[[NDArray[np.float32], NDArray[np.int8]], int]


class PolicyBot:
    """Chooses the legal action of the index `policy` answers (the first legal one if it
    answers an index the mask does not allow: a policy's mistake is not an illegal move)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._catalogs: dict[Rules, Catalog] = {}
        self._observers: dict[tuple[Rules, int], Observer] = {}
        #: Answers outside the mask so far.
        self.mistakes = 0

    def choose(self, view: SeatView) -> Action:
        rules = view.rules
        catalog = self._catalogs.get(rules) or self._catalogs.setdefault(rules, Catalog(rules))
        players = len(view.counts)
        observer = self._observers.get((rules, players)) or self._observers.setdefault(
            (rules, players), Observer(rules, players)
        )
        legal = view.legal_actions()
        by_index = dict(zip(catalog.indices(legal), legal))
        mask = np.zeros(len(catalog), dtype=np.int8)
        mask[list(by_index)] = 1
        answer = self.policy(observer(view), mask)
        index = as_index(answer)  # (a pass: 2.7 was taken as 2, None a TypeError)
        if index is None:
            raise ValueError(f"the policy answered wrong: {not_an_index(answer)}")
        chosen = by_index.get(index)
        if chosen is None:
            self.mistakes += 1
            return legal[0]
        return chosen


def register(name: str, make_policy: Callable[[random.Random], Policy]) -> None:
    """Make a policy a strategy by `name` (`president.bots.sdk.register`)."""

    def make(rng: random.Random) -> Any:
        return PolicyBot(make_policy(rng))

    sdk.register(name, make)

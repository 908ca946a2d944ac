"""The table as a PettingZoo AEC environment (`raw_env`; `env` wraps it as PettingZoo's
own classic environments are): one agent per player, taking turns as the engine says
(in the exchange, each seat that owes a return in turn), every action from the fixed
`Catalog` with an action mask, observations from each seat's view alone (`Observer`), and
the engine's `SeatView` in `infos[agent]["view"]` for rule-based agents.

Rewards come at the end of each hand: 1 for first place down to -1 for last, evenly
spaced.  An episode is a whole game of the preset (its own end: a target or a number of
rounds), or `hands` hands."""

from __future__ import annotations

import operator
import random
import warnings
from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from president.engine import Action, Event, Game, Phase, Rules, find_preset, rules_from

from .actions import Catalog
from .info import UNSHARED, SeatInfo, getrefcount
from .observe import Observer
from .track import Tracker

#: The phases after an action that ended a hand, and the phase of play.
_BETWEEN_HANDS, _GAME_OVER, _PLAY = Phase.BETWEEN_HANDS, Phase.GAME_OVER, Phase.PLAY

#: What `last()` gives: the observation, the reward, the two ends, the info.
Last = tuple[Any, float, bool, bool, dict[str, Any]]

#: How many masks `raw_env` keeps, one per set of legal actions, before it starts again.
_MASKS = 1 << 12


def table_rules(preset: str, rules: Rules | dict[str, Any] | None) -> Rules:
    """The rules a table is made with: `rules` if a `Rules`; toggles by name on top of
    `preset` (as `--preset X --set T=V` means; a "preset" among them names its own); else
    the preset's.  (A researcher's `preset="daifugo", rules={"nines_clear": True}` played
    classic rules with nines_clear.)"""
    if isinstance(rules, Rules):
        return rules
    return rules_from({"preset": preset, **rules}) if rules is not None else find_preset(preset)


def not_an_index(action: object) -> str | None:
    """Why `action` is not an index of the action mask (an int, of any integer type:
    not a bool, a float or a string), or None if it is one."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return None
    return f"an action is an index of the action mask (an int), not {action!r}"


def as_index(value: object) -> int | None:
    """`value` as an index: any whole number that says it is one (an int, numpy's, a 0-d
    array or tensor of one: `logits.argmax()`), not a bool; else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def episode_hands(hands: int | None) -> int | None:
    """An episode's length in hands as given (None: a whole game); ValueError for one
    that is not a whole number from 1."""
    if hands is not None and (type(hands) is not int or hands < 1):
        raise ValueError(f"hands is an episode's hands, a whole number from 1, not {hands!r}")
    return hands


def hand_rewards(finish: Sequence[str]) -> Iterator[tuple[str, float]]:
    """Each player's reward for a hand finished in this order: 1 for first place down to
    -1 for last, evenly spaced."""
    last = max(1, len(finish) - 1)
    for place, name in enumerate(finish):
        yield name, 1.0 - 2.0 * place / last


def env(**kwargs: Any) -> AECEnv:
    """`raw_env(**kwargs)` as PettingZoo's classic environments are wrapped: an illegal
    action ends the game with -1 for its agent; an action out of range is an error; the
    API's order is enforced."""
    table: AECEnv = raw_env(**kwargs)
    table = TerminateIllegal(table, illegal_reward=-1)
    table = AssertOutOfBounds(table)
    return OrderEnforcing(table)


def _direct(name: str) -> property:
    return property(attrgetter(f"_raw_env.{name}"))


class Direct:
    """What every step reads (`last()`, the wrappers' own checks), read from the raw
    environment in one hop: PettingZoo's wrappers forward each attribute through
    `__getattr__`, one layer at a time (30 calls a step under three wrappers)."""

    _raw_env: raw_env

    agent_selection = _direct("agent_selection")
    agents = _direct("agents")
    rewards = _direct("rewards")
    terminations = _direct("terminations")
    truncations = _direct("truncations")
    infos = _direct("infos")
    _cumulative_rewards = _direct("_cumulative_rewards")


class TerminateIllegal(Direct, wrappers.TerminateIllegalWrapper):
    """PettingZoo's `TerminateIllegalWrapper`, its reads in one hop."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw_env = env.unwrapped


class AssertOutOfBounds(Direct, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's `AssertOutOfBoundsWrapper`, its reads in one hop, and a plain `int`
    in range let through without asking the space."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw_env = env.unwrapped
        self._actions = len(self._raw_env.catalog)

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._actions:
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcing(Direct, wrappers.OrderEnforcingWrapper):
    """PettingZoo's `OrderEnforcingWrapper`, its reads in one hop once reset (before,
    they raise as its own do: `_raw_env` is not there yet).  Over `env()`'s own layers,
    a legal `int` action and an observation go to the raw environment in one hop, doing
    what the three layers would (the order noted, `TerminateIllegal`'s last observation
    kept or let go); anything else goes through them."""

    _judge: TerminateIllegal | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._raw_env = self.env.unwrapped
        inner = self.env
        self._judge = (
            inner.env
            if type(inner) is AssertOutOfBounds
            and type(inner.env) is TerminateIllegal
            and inner.env.env is self._raw_env
            else None
        )

    def last(self, observe: bool = True) -> Last:
        judge = self._judge
        if judge is None:
            found: Last = super().last(observe)
            return found
        raw = self._raw_env
        found = raw.last(observe)
        if observe:  # (what `TerminateIllegal.observe` keeps of the agent to act)
            judge._prev_obs = found[0]
            judge._prev_info = found[4]
        return found

    def observe(self, agent: str) -> Any:
        judge = self._judge
        if judge is None:
            return super().observe(agent)
        raw = self._raw_env
        seen = raw.observe(agent)
        if agent == raw.agent_selection:  # (what `TerminateIllegal.observe` keeps)
            judge._prev_obs = seen
            judge._prev_info = raw.infos.get(agent, {})
        return seen

    def step(self, action: Any) -> None:
        judge = self._judge
        if judge is not None and type(action) is int:
            raw = self._raw_env
            agent = raw.agent_selection
            if action in raw._legal and not (raw.terminations[agent] or raw.truncations[agent]):
                self._has_updated = True
                judge._prev_obs = judge._prev_info = None
                raw._act(agent, action)
                return
        super().step(action)


class Masks(dict[tuple[int, ...], NDArray[np.int8]]):
    """The action mask of each set of legal indices met, made when first asked for
    (`()`: no legal action)."""

    def __init__(self, actions: int) -> None:
        super().__init__()
        self.actions = actions

    def __missing__(self, indices: tuple[int, ...]) -> NDArray[np.int8]:
        if len(self) >= _MASKS:
            self.clear()
        mask = self[indices] = np.zeros(self.actions, dtype=np.int8)
        mask[list(indices)] = 1
        return mask


class raw_env(AECEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "president_v0",
        "is_parallelizable": False,
        "render_modes": ["ansi"],
    }

    def __init__(
        self,
        preset: str = "classic",
        players: int = 4,
        rules: Rules | dict[str, Any] | None = None,
        hands: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            # (a researcher's pass: "human" was taken, and render() showed nothing)
            raise ValueError(
                f"render_mode {render_mode!r} is not one of this environment's: 'ansi' (the"
                " table as text, every hand shown), or None"
            )
        self.rules = table_rules(preset, rules)
        self.players = players
        self.hands = episode_hands(hands)
        self.render_mode = render_mode
        self.catalog = Catalog(self.rules)
        self.observer = Observer(self.rules, players)
        #: Every seat's observation, kept up to date step by step (what `observer`
        #: makes afresh from a view: tests/env holds the two equal).
        self.tracker = Tracker(self.observer)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        size = self.observer.layout.size
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, self.observer.high, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (len(self.catalog),), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(len(self.catalog)) for agent in self.possible_agents
        }
        self.game = Game(self.rules, self.possible_agents)
        self._rng = random.Random()
        #: The legal actions of the agent to act, as the engine listed them, and their
        #: indices in the same order.
        self._actions: list[Action] = []
        self._legal: tuple[int, ...] = ()
        #: A mask per set of legal indices met; the agent to act's.
        self._masks = Masks(len(self.catalog))
        self._mask = self._masks[()]
        #: The last observation made, by agent, until the next step.
        self._seen: tuple[str, dict[str, NDArray[Any]]] | None = None
        #: The info of the last agent to act (the only one not {}).
        self._informed: SeatInfo | None = None
        #: Each agent's info of its last turn (`_next`).
        self._kept: dict[str, SeatInfo] = {}
        self._actor = 0
        #: The rewards hold a hand's end (to be set back to none at the next step).
        self._rewarded = False
        #: The last step was a common one (`_act`): the agent to act is not terminated,
        #: its observation is the tracker's and its mask `_mask` (what `last` reads).
        self._fresh = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- the episode ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game(self.rules, self.possible_agents)
        self._seen = None
        self._fresh = False
        self.played_hands = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if self._informed is not None:
            self._informed.close()
        self._informed = None
        self.agent_selection = self.agents[0]  # (until `_next` says who acts)
        self.game.start_hand(rng=self._rng)
        self.tracker.start(self.game)
        self._next()

    def _next(self, events: list[Event] | None = None) -> None:
        """The agent to act now (the game's first actor), its legal actions by index and
        their mask, its info (the view made when read), and the observations brought up
        to date (with the `events` of a step that went on with the hand, if given)."""
        game = self.game
        acted = self.agent_selection
        actor: int = game.turn if game.phase is _PLAY else game.actors[0]  # type: ignore[assignment]
        self._actor = actor
        agent = self.agent_selection = game.seating[actor]
        self._actions = legal = game.legal_actions(actor)
        self._legal = indices = self.catalog.indices(legal)
        self._mask = self._masks[indices]
        infos = self.infos
        informed = self._informed
        if informed is not None and infos.get(acted) is informed:
            infos[acted] = {}  # (the only other agent whose info is not {})
        # The agent's info of its last turn, made again if nobody else holds it (a
        # program that kept it sees it as it was), else a new one.
        informed = self._kept.get(agent)
        if informed is not None and getrefcount(informed) == UNSHARED:
            if dict.__len__(informed):  # (`renew`, written out)
                dict.clear(informed)
            informed._source = (game, actor)
        else:
            informed = self._kept[agent] = SeatInfo.of(game, actor)
        self._informed = infos[agent] = informed
        tracker = self.tracker
        if tracker.game is not game:  # (a game put in its place from outside)
            tracker.start(game)
            return
        if events is not None:
            tracker.follow(events)
        tracker.step(game, actor)

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        seen = self._seen
        if seen is not None and seen[0] == agent:
            return seen[1]  # (asked again before a step: last(), a wrapper)
        tracker = self.tracker
        if (
            agent == self.agent_selection
            and tracker.game is self.game
            and not self.terminations[agent]
        ):  # (the agent to act: its return is set in `_next`)
            made: dict[str, NDArray[Any]] = {
                "observation": tracker.observe(self._actor),
                "action_mask": self._mask.copy(),
            }
            self._seen = (agent, made)
            return made
        made = self._observe_other(agent)
        self._seen = (agent, made)
        return made

    def _observe_other(self, agent: str) -> dict[str, NDArray[Any]]:
        """The observation of an agent not to act (or of any, in a game put in place
        from outside): no legal action, its return as the game says."""
        game, tracker = self.game, self.tracker
        if tracker.game is not game:
            tracker.start(game)
        seat = game.seating.index(agent)
        if agent == self.agent_selection and not self.terminations[agent]:
            mask = self._mask.copy()
        else:
            mask = self._masks[()].copy()
            pending = game.pending_returns
            tracker.set_return(seat, pending[seat][1] if seat in pending else 0)
        return {"observation": tracker.observe(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        try:
            agent = self.agent_selection
        except AttributeError:
            raise RuntimeError("reset() the environment before its first step") from None
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int and (problem := not_an_index(action)):
            raise ValueError(problem)
        if action not in self._legal:
            raise ValueError(f"action {action!r} is not legal for {agent} now")
        self._act(agent, action)

    def _act(self, agent: str, action: int) -> None:
        """The step of the agent to act, `action` one of its legal indices."""
        game = self.game
        chosen = self._actions[self._legal.index(action)]
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # (the rewards of the hand just over: back to none)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewarded = False
        self._seen = None
        self._fresh = False
        informed = self._informed
        if informed is not None:  # (its view, if not read by now, is not to be: `close`)
            informed._source = None
        tracker = self.tracker
        # An action listed for this game at this moment (`_next`) needs no second check;
        # a game put in place from outside since is checked.
        ours = tracker.game is game
        events = game.apply(self._actor, chosen, checked=not ours)
        phase = game.phase
        if ours and phase is not _BETWEEN_HANDS and phase is not _GAME_OVER:
            # the common step: the hand goes on (no reward, nobody's end), the tracker
            # brought up to date with the agent to act, in one call
            self._next(events)
            self._fresh = True
            return
        tracker.follow(events)
        if phase is _BETWEEN_HANDS or phase is _GAME_OVER:
            self._hand_over()
        if not self.terminations[agent]:  # (a hand's end ends every agent or none)
            self._next()
        if self._rewarded:  # (otherwise every reward is 0: nothing to add)
            self._accumulate_rewards()

    def last(self, observe: bool = True) -> Last:
        agent = self.agent_selection
        if observe and self._seen is None and self._fresh and self.tracker.game is self.game:
            # (`observe`'s first case, written out: the agent to act after a common step)
            seen: Any = {
                "observation": self.tracker.observe(self._actor),
                "action_mask": self._mask.copy(),
            }
            self._seen = (agent, seen)
        else:
            seen = self.observe(agent) if observe else None
        return (
            seen,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _hand_over(self) -> None:
        game = self.game
        self.rewards.update(hand_rewards(game.finishes[-1]))
        self._rewarded = True
        self.played_hands += 1
        if game.phase is Phase.GAME_OVER or (
            self.hands is not None and self.played_hands >= self.hands
        ):
            self.terminations = dict.fromkeys(self.agents, True)
            for agent in self.agents:
                self.infos[agent] = {}
            self.tracker.step(game, self._actor)  # (the table as it ends)
            return
        self.tracker.follow(game.start_hand(rng=self._rng))

    def action_mask(self, agent: str) -> NDArray[np.int8]:
        return self.observe(agent)["action_mask"]

    def action_of(self, index: int) -> Action | None:
        """The legal action of this index for the agent to act now, or None."""
        legal = self._legal
        return self._actions[legal.index(index)] if index in legal else None

    def index_of(self, action: Action) -> int:
        """The catalog index of an action (a rule-based agent's choice from the view in
        `infos[agent]["view"]`: what `step` takes), as `Tables.index_of`."""
        return self.catalog.index[self.catalog.key(action)]

    def render(self) -> str | None:
        if self.render_mode != "ansi":  # (None, said as PettingZoo's own envs say it: a
            # researcher's pass got None back without a word)
            warnings.warn(
                "render() without a render_mode returns nothing: make the environment with"
                " render_mode='ansi'",
                stacklevel=2,
            )
            return None
        game = self.game
        lines = [f"hand {game.hand + 1}, {game.phase.name.lower()}"]
        for seat, name in enumerate(game.seating):
            cards = " ".join(str(c) for c in game.hand_of(seat))
            mark = ">" if name == self.agent_selection else " "
            lines.append(f"{mark} {name}: {cards}")
        if game.top is not None and game.log:
            lines.append(f"pile: {game.log[-1][1]}")
        return "\n".join(lines)

    def close(self) -> None:
        pass

"""Many tables stepped at once (`Tables`): for training loops that batch their policy
(one forward pass for many tables), and faster a step than `raw_env` (docs/rl.md,
"Speed").  The API is that of
vectorised turn-based game environments such as pgx: every call takes one action for
each table, the action of its player to act, and returns every table's next moment as
arrays, a table whose game ended starting a new one at once.

The observation, the action mask, the catalog of actions and the rewards are those of
`raw_env` (tests/env/test_batch.py holds every table's observation and mask equal to
those made afresh from its view, and one table equal to `raw_env`); the numbers of every table lie in one array (each table's `Tracker` writes
its own row), so a batch's observations are gathered from one array a block at a time
(`_Gathering`)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray
from president.engine import Action, Game, Phase, Rules, SeatView

from .actions import Catalog
from .observe import Observer
from .table import episode_hands, hand_rewards, not_an_index, table_rules
from .track import Tracker, marks_row

_BETWEEN_HANDS, _GAME_OVER, _PLAY = Phase.BETWEEN_HANDS, Phase.GAME_OVER, Phase.PLAY

#: How many sets of marks `_Marks` keeps before it starts again.
_MARKS = 1 << 14


@dataclass(frozen=True)
class Moment:
    """Every table at one moment: row `t` of each array is table `t`'s.

    - `observation` (tables, size): the observation of the player to act (`raw_env`'s);
    - `action_mask` (tables, actions): its legal actions;
    - `actor` (tables,): which player acts (the `i` of `player_i`);
    - `rewards` (tables, players): what each player won by the last step (at a hand's
      end, 1 for first place down to -1 for last, as `raw_env`), by player;
    - `terminated` (tables,): the last step ended that table's game (an episode); the
      table has started a new game, whose first moment the other arrays show;
    - `legal`, `legal_start`: the legal actions' indices, table `t`'s at
      `legal[legal_start[t] : legal_start[t + 1]]` (what the mask holds, as a list).
    """

    observation: NDArray[np.float32]
    action_mask: NDArray[np.int8]
    actor: NDArray[np.int64]
    rewards: NDArray[np.float32]
    terminated: NDArray[np.bool_]
    legal: NDArray[np.int64]
    legal_start: NDArray[np.int64]


class Tables:
    """`count` tables of the same rules and players, each playing games one after
    another (an episode: a whole game of the preset, or `hands` hands).

        tables = Tables(preset="daifugo", players=4, count=64)
        moment = tables.reset(seed=1)
        while ...:
            moment = tables.step(choose(moment))   # one legal index per table
    """

    def __init__(
        self,
        preset: str = "classic",
        players: int = 4,
        count: int = 64,
        rules: Rules | dict[str, Any] | None = None,
        hands: int | None = None,
    ) -> None:
        if count < 1:
            raise ValueError("at least one table")
        self.rules = table_rules(preset, rules)
        self.players, self.count, self.hands = players, count, episode_hands(hands)
        self.catalog = Catalog(self.rules)
        self.observer = Observer(self.rules, players)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._player = {name: i for i, name in enumerate(self.possible_agents)}
        self._tables = np.arange(count, dtype=np.intp)
        trackers = [Tracker(self.observer) for _ in range(count)]
        size = len(trackers[0].values)
        #: Every table's numbers, a row each (each tracker writes its own, but for the
        #: marks: `_Marks` writes every table's at once).
        self._values: NDArray[np.float32] = np.zeros((count, size), dtype=np.float32)
        piles: dict[tuple[int, int], Any] = {}
        for row, tracker in zip(self._values, trackers):
            tracker.place_in(row, piles)
        self._trackers = trackers
        self._plan = _Gathering(np.stack(trackers[0]._gather), trackers[0].seat_blocks(), count)
        self._marks = _Marks(players, trackers[0].marks_at())
        self.games: list[Game] = []
        self._rngs: list[random.Random] = []
        self._hands = [0] * count
        #: Each table's seat to act, and its turn + 1 (0 outside play: the exchange).
        self._actors = [0] * count
        self._turns = [0] * count
        #: Each table's legal actions, as the engine listed them.
        self._actions: list[list[Action]] = [[] for _ in range(count)]
        #: Where each table's legal action of each catalog index lies in its list (-1:
        #: not legal), as of the last moment, and where those lie in it (to be set
        #: back to -1 at the next).
        self._slot = np.full((count, len(self.catalog)), -1, dtype=np.int32)
        self._slotted: tuple[Any, Any] = ((), ())

    @property
    def size(self) -> int:
        """The numbers in one observation."""
        return self.observer.layout.size

    def reset(self, seed: int | None = None) -> Moment:
        """Every table starts a game (table `t`'s deals from `seed` and `t`)."""
        base = random.Random(seed).getrandbits(64) if seed is not None else None
        self._rngs = [
            random.Random(None if base is None else base + table) for table in range(self.count)
        ]
        self.games = [self._new_game(table) for table in range(self.count)]
        return self._moment(
            np.zeros((self.count, self.players), dtype=np.float32),
            np.zeros(self.count, dtype=np.bool_),
        )

    def _new_game(self, table: int) -> Game:
        """Table `table`'s next game (an episode), its first hand dealt."""
        self._hands[table] = 0
        game = Game(self.rules, self.possible_agents)
        game.start_hand(rng=self._rngs[table])
        self._trackers[table].start(game)
        self._next(table, game)
        return game

    def _next(self, table: int, game: Game) -> None:
        """Table `table`'s player to act and its legal actions, and its numbers."""
        turn = game.turn
        actor: int = turn if game.phase is _PLAY else game.actors[0]  # type: ignore[assignment]
        self._actors[table] = actor
        self._turns[table] = 0 if turn is None else turn + 1
        self._actions[table] = game.legal_actions(actor)
        self._trackers[table].step(game, actor)

    def step(self, actions: NDArray[np.integer[Any]] | list[int]) -> Moment:
        """Each table's player to act takes its action (a catalog index, one per table);
        a `ValueError` naming the first table whose action is not legal, before any
        table moves."""
        if not self.games:
            raise RuntimeError("reset() the tables before the first step")
        places = self._places(actions)
        rewards = np.zeros((self.count, self.players), dtype=np.float32)
        ended = np.zeros(self.count, dtype=np.bool_)
        games, trackers, actors, listed = self.games, self._trackers, self._actors, self._actions
        turns = self._turns
        for table, place in enumerate(places):
            game = games[table]
            tracker = trackers[table]
            events = game.apply(actors[table], listed[table][place], checked=False)
            phase = game.phase
            if phase is _PLAY:  # (`_next`, written out: most steps)
                actor: int = game.turn  # type: ignore[assignment]
                actors[table] = actor
                turns[table] = actor + 1
                listed[table] = game.legal_actions(actor)
                tracker.follow(events)
                tracker.step(game, actor)
                continue
            if phase is _BETWEEN_HANDS or phase is _GAME_OVER:
                tracker.follow(events)
                if self._hand_over(table, game, rewards[table]):
                    ended[table] = True
                    games[table] = self._new_game(table)
                    continue
                events = game.start_hand(rng=self._rngs[table])
            tracker.follow(events)
            self._next(table, game)
        return self._moment(rewards, ended)

    def _places(self, actions: NDArray[np.integer[Any]] | list[int]) -> list[int]:
        """Where each table's action lies in its list of legal actions; a `ValueError`
        naming the first table whose action is not legal (or not an index at all)."""
        chosen: NDArray[Any]
        if isinstance(actions, np.ndarray):
            chosen, given = actions, None
        else:
            given = list(actions)
            try:
                chosen = np.asarray(given)
            except ValueError:  # (not one number a table: refused below)
                chosen = np.zeros(0)
        if chosen.shape == (self.count,) and chosen.dtype.kind in "iu":
            # (in the catalog: as unsigned numbers, the negative ones are out of it too)
            unsigned = chosen.astype(np.uint64, copy=False) if chosen.dtype.kind == "i" else chosen
            if unsigned.max() < self._slot.shape[1]:
                places = self._slot[self._tables, chosen]
                if places.min() >= 0:
                    return places.tolist()  # type: ignore[no-any-return]
        self._refuse(chosen.tolist() if given is None else given)

    def _refuse(self, chosen: list[Any]) -> NoReturn:
        if len(chosen) != self.count:
            raise ValueError(f"{self.count} actions are needed, one a table, not {len(chosen)}")
        for table, index in enumerate(chosen):
            problem = not_an_index(index)
            if problem:
                raise ValueError(f"{problem} (table {table})")
        table = next(t for t, index in enumerate(chosen) if self.action_of(t, index) is None)
        raise ValueError(f"action {chosen[table]!r} is not legal at table {table} now")

    def _hand_over(self, table: int, game: Game, rewards: NDArray[np.float32]) -> bool:
        """The hand's rewards written into `rewards`; whether the episode is over."""
        for name, reward in hand_rewards(game.finishes[-1]):
            rewards[self._player[name]] = reward
        self._hands[table] += 1
        return game.phase is _GAME_OVER or (
            self.hands is not None and self._hands[table] >= self.hands
        )

    def _moment(self, rewards: NDArray[np.float32], ended: NDArray[np.bool_]) -> Moment:
        """Every table's moment: the legal actions numbered for all tables at once, the
        marks written, the observations gathered."""
        actors = np.array(self._actors, dtype=np.int64)
        listed = self._actions
        counts = np.fromiter(map(len, listed), dtype=np.int64, count=self.count)
        starts = np.zeros(self.count + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        total = int(starts[-1])
        flat = np.array(self.catalog.indices_of_all(listed), dtype=np.int64)
        rows = np.repeat(self._tables, counts)
        slot = self._slot
        slot[self._slotted] = -1
        slot[rows, flat] = np.arange(total) - starts[rows]
        self._slotted = (rows, flat.copy())
        mask = np.zeros((self.count, len(self.catalog)), dtype=np.int8)
        mask[rows, flat] = 1
        self._marks.write(self._values, self._turns, self.games)
        return Moment(
            self._plan.observations(self._values, actors),
            mask,
            self._player_of(actors),
            rewards,
            ended,
            flat,
            starts,
        )

    def _player_of(self, actors: NDArray[np.int64]) -> NDArray[np.int64]:
        """Each table's actor as a player (the `i` of `player_i`), from its seat."""
        if self.rules.seat_order == "fixed":  # (the seats never move)
            return actors
        return np.array(
            [self._player[game.seating[seat]] for game, seat in zip(self.games, actors.tolist())],
            dtype=np.int64,
        )

    def view(self, table: int) -> SeatView:
        """The `SeatView` of table `table`'s player to act (for rule-based agents)."""
        return self.games[table].view_for(self._actors[table])

    def action_of(self, table: int, index: Any) -> Action | None:
        """Table `table`'s legal action of this index now, or None."""
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self._slot.shape[1]:
            return None
        place = int(self._slot[table, index])
        return self._actions[table][place] if place >= 0 else None

    def index_of(self, action: Action) -> int:
        """The catalog index of an action (a bot's choice, say)."""
        return self.catalog.index[self.catalog.key(action)]


class _Marks:
    """Every table's marks (its turn, and who passed and who is locked out of the
    trick: the blocks `marks_at` of its row, in that order), written at once: each
    table's marks as one number (`track.marks_key`, made here from its game's
    `mark_bits` and the turn kept by `Tables`), the numbers' blocks kept as rows of one
    array as they are met, taken by index."""

    def __init__(self, players: int, at: tuple[int, int]) -> None:
        self.start, self.stop = at
        self.players = players
        #: The row of each set of marks met (by key), and the rows.
        self.row_of: dict[int, int] = {}
        self.rows = np.zeros((64, 3 * players), dtype=np.float32)

    def write(self, values: NDArray[np.float32], turns: list[int], games: list[Game]) -> None:
        """`turns`: each table's turn + 1 (0: nobody's)."""
        keys = [bits << 4 | turn for bits, turn in zip(map(Game.mark_bits, games), turns)]
        try:
            index = list(map(self.row_of.__getitem__, keys))
        except KeyError:  # (marks not met before)
            if len(self.row_of) + len(keys) > _MARKS:  # (never in the middle of a call)
                self.row_of.clear()
            index = list(map(self.row_for, keys))
        values[:, self.start : self.stop] = self.rows[index]

    def row_for(self, key: int) -> int:
        """The row of the marks of this key, made if new."""
        found = self.row_of.get(key)
        if found is not None:
            return found
        found = self.row_of[key] = len(self.row_of)
        if found == len(self.rows):
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
        self.rows[found] = marks_row(self.players, key)
        return found


class _Gathering:
    """Every table's observation of its player to act, from the tables' rows: for each
    table `t`, `values[t][gather[actors[t]]]`, made a block at a time (a third of the
    cost of gathering number by number).

    Each seat's gather (`gather`: seats x observation) is cut once into three kinds of
    numbers: those every seat reads from the same place (the public blocks: a slice of
    every row copied at once); those a seat reads from its own block of the row, the
    seats' blocks lying `stride` apart from `base` (its cards, its part of the exchange,
    its return: each table's block of its actor taken at once, then sliced); and the rest
    (the numbers by seat, turned to start at the seat), gathered number by number."""

    def __init__(self, gather: NDArray[np.intp], blocks: tuple[int, int], count: int) -> None:
        self.seats, self.size = gather.shape
        self.count = count
        self.base, self.stride = blocks
        public = (gather == gather[0]).all(axis=0)
        shifted = (gather - gather[0] == (np.arange(self.seats) * self.stride)[:, None]).all(axis=0)
        own = ~public & shifted & (gather[0] >= self.base) & (gather[0] < self.base + self.stride)
        self.public = _runs(np.flatnonzero(public), gather[0])
        self.own = _runs(np.flatnonzero(own), gather[0] - self.base)
        self.rest = np.flatnonzero(~(public | own))
        self.rest_gather = gather[:, self.rest]
        self.tables = np.arange(count, dtype=np.intp)
        #: Where each table's row begins in the rows' numbers (once their width is met).
        self._row_starts: tuple[int, NDArray[np.intp]] = (0, self.tables[:, None])

    def observations(
        self, values: NDArray[np.float32], actors: NDArray[np.int64]
    ) -> NDArray[np.float32]:
        found = np.empty((self.count, self.size), dtype=np.float32)
        for at, stop, source in self.public:
            found[:, at:stop] = values[:, source : source + stop - at]
        blocks = values[:, self.base : self.base + self.stride * self.seats]
        chunk = blocks.reshape(self.count, self.seats, self.stride)[self.tables, actors]
        for at, stop, source in self.own:
            found[:, at:stop] = chunk[:, source : source + stop - at]
        if len(self.rest):
            width, starts = self._row_starts
            if width != values.shape[1]:
                width, starts = values.shape[1], self.tables[:, None] * values.shape[1]
                self._row_starts = (width, starts)
            where = self.rest_gather[actors]
            where += starts
            found[:, self.rest] = np.take(values, where)
        return found


def _runs(positions: NDArray[np.intp], sources: NDArray[np.intp]) -> list[tuple[int, int, int]]:
    """The positions as runs (start, stop, first source) whose sources follow on."""
    runs: list[tuple[int, int, int]] = []
    for position in positions.tolist():
        source = int(sources[position])
        if runs and runs[-1][1] == position and runs[-1][2] + position - runs[-1][0] == source:
            runs[-1] = (runs[-1][0], position + 1, runs[-1][2])
        else:
            runs.append((position, position + 1, source))
    return runs

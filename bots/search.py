"""The search bot: determinized Monte Carlo.  For each decision it deals the cards it
cannot see in ways consistent with what it has seen (cards played, the passes it saw under
`must_beat`, what it gave and got in the exchange), rebuilds the hand in each such world
(`Game.from_view`), races its candidate actions on common worlds (dropping those that
fall behind; or a UCB1 bandit at the root, or ISMCTS, by option), plays each world out
on the engine's `Game` with the heuristic for every seat (where suits matter, its own
next two decisions by a small tree of its own moves: `bots.own_moves`), and picks the
action that finished best.
With few cards left everywhere it searches the worlds exhaustively instead (the endgame
solver).  Its budget per decision is a playout count or a time, set by options."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from president.engine import (
    CARDS,
    Action,
    Card,
    Pass,
    Phase,
    Play,
    SeatView,
    counts_of,
    judge_for,
)
from president.engine.cards import KINDS, TWO
from president.engine.events import Gave, Returned

from .belief import unseen_copies
from .heuristic import Facts, naturals, rank_counts
from .limits import until
from .own_moves import Tree, shortlist, tree_playout
from .playout import World, game_playout, game_policy, make_world
from .simple import HeuristicBot

#: The heuristic on a `Game` (the playouts' policy).
policy = game_policy
playout = game_playout

#: Rejection sampling tries this many deals before giving up a constraint it cannot meet.
MAX_TRIES = 20
#: The default budget: playouts per lead (a follow gets `follow_share` of it), the race's
#: cap, where suits do not matter.  384: the race stops early on a plain decision, so its
#: median decision with a choice under classic rules took 4.1-4.3 ms against 12.7-14.3
#: for the flat bandit's 192 on the `Game` (what the compact playout state used to play),
#: and scored level: -0.050 +- 0.082 of a place against 3 greedy, -0.014 +- 0.096
#: against 3 heuristic (`scripts/pair_bots.py --games 150 --jobs 1`, seed 1).  Over 4,000
#: hands (`scripts/bench_bots.py --only "search vs 3 greedy" --hands 4000 --jobs 1`, and
#: the same for heuristic): 1.614 +- 0.041 and 1.796 +- 0.046, median 3.9 and 4.0 ms.
PLAYOUTS = 384
#: The same under the variants, where a playout costs ~2.5 times more: twice it measured
#: no better under daifugo (+0.030 +- 0.129 against 3 heuristic, 80 paired games).
VARIANT_PLAYOUTS = 192
#: A follow's share of the budget: 0.45, not 0.5, keeps the median decision with a choice
#: under 10 ms of CPU (0.5 measured 10.1 ms against 3 greedy bots, 4,000 hands).
FOLLOW_SHARE = 0.45
#: The race (`SearchBot._race`): worlds before an action may drop out, the standard
#: errors behind the leader that drop it, and worlds of identical results that do.
RACE_MIN = 6
RACE_Z = 1.5
RACE_SAME = 8
#: The race's playouts where suits matter: my next two decisions with a choice by a tree
#: of my own moves (`bots.own_moves`), the rest by the heuristic.  Under daifugo against 3
#: heuristic bots, paired over 400 games a seed (`scripts/pair_bots.py --games 400 --seed
#: S --preset daifugo --bots search,heuristic,heuristic,heuristic --a '{"tree_depth": 0}'
#: --b '{}'`): -0.091, -0.034, -0.064, -0.080 of a place (seeds 2 to 5, each +- 0.06),
#: the median decision with a choice 3.7-3.9 ms against 2.8-2.9; depth 3 or 4, wider
#: nodes or twice the budget measured the same (docs/bots.md).
TREE_DEPTH = 2
#: A `limit` below this is no time for a search (a round of candidates in one world
#: under daifugo, its belief made first, took 2.5 ms of CPU a decision, pure Python): the
#: heuristic's choice (0.05 ms) instead.
LEAST_THINK = 0.003


#: Deals every seat's hand in one possible world (the viewer's own as held, the others'
#: by `view.counts`): `deal_unseen`, or a belief's `sample`.
Sampler = Callable[[SeatView, random.Random], list[list[Card]]]


class Believed:
    """A sampler over a belief built once per decision: `make(view)` gives an object
    whose `sample(rng)` deals every seat's hand (as `bots.belief.belief_of` does).
    Picklable when `make` is a module-level function (server bots think in a worker)."""

    def __init__(self, make: Callable[[SeatView], Any]) -> None:
        self.make = make
        self.view: SeatView | None = None
        self.belief: Any = None

    def __call__(self, view: SeatView, rng: random.Random) -> list[list[Card]]:
        if view is not self.view:
            self.view, self.belief = view, self.make(view)
        hands: list[list[Card]] = self.belief.sample(rng)
        return hands


class SearchBot:
    #: A ceiling on a decision's thinking, seconds, whatever its budget: a server under a
    #: crowd sets it for a move (`server/thinking.py`).  Past it the search stops after
    #: the round of worlds in hand; under `LEAST_THINK` it does not search.
    limit: float | None = None

    def __init__(
        self,
        rng: random.Random,
        playouts: int | None = None,
        seconds: float | None = None,
        exploration: float = 0.5,
        endgame_cards: int = 8,
        sampler: Sampler | None = None,
        method: str | None = None,
        follow_share: float = FOLLOW_SHARE,
        epsilon: float = 0.1,
        shortcut: bool = True,
        model: str = "heuristic",
        race_z: float = RACE_Z,
        tree_depth: int | None = None,
    ) -> None:
        self.rng = rng
        #: Playouts per lead; None: `PLAYOUTS`, or `VARIANT_PLAYOUTS` where suits matter.
        self.playouts = playouts
        self._budget = playouts or PLAYOUTS
        self.seconds = seconds
        self.exploration = exploration
        self.endgame_cards = endgame_cards
        #: Where the worlds come from (see `Sampler`).
        self.sample: Sampler = sampler or deal_unseen
        #: "race" (successive elimination on common worlds, `_race`: the default),
        #: "flat" (UCB1 at the root over determinized worlds) or "ismcts" (single-observer
        #: information-set MCTS, `bots.ismcts`).
        self.method = method or "race"
        #: A follow's part of the budget (a lead gets all of it).
        self.follow_share = follow_share
        #: In playouts, how often a seat plays a random legal move instead of the heuristic.
        self.epsilon = epsilon
        #: Play the heuristic's cheapest whole answer unsearched when nobody is near the end.
        self.shortcut = shortcut
        #: How the others play in playouts: "heuristic", "greedy", "mixed" (each
        #: opponent either, drawn per world) or "counting" (the heuristic counting the
        #: cards, every seat).
        self.model = model
        #: (`model` "counting", asked once per playout: `playout.counted_policy`.)
        self.counting = model == "counting"
        #: The race's margin: standard errors behind the leader that drop an action.
        self.race_z = race_z
        #: The race's playouts: my next decisions with a choice played by a tree of my
        #: own moves (`bots.own_moves`), this many of them; None: `TREE_DEPTH` where
        #: suits matter, none elsewhere.  Its playouts make no random move (`epsilon`)
        #: and play the others by the heuristic whatever `model` says but "counting".
        self.tree_depth = tree_depth
        self._depth = 0
        self.fallback = HeuristicBot()
        #: How many legal actions the last decision had (for the simulator's timing).
        self.choices = 0

    def choose(self, view: SeatView) -> Action:
        if view.phase is not Phase.PLAY or view.due is not None:
            # the exchange's return, a handover or a discard: the heuristic's cheapest
            self.choices = 1
            return self.fallback.choose(view)
        actions = view.legal_actions()
        self.choices = len(actions)
        if len(actions) == 1:
            return actions[0]
        suits = judge_for(view.rules).suits_matter()
        self._budget = self.playouts or (VARIANT_PLAYOUTS if suits else PLAYOUTS)
        depth = TREE_DEPTH if suits else 0
        self._depth = depth if self.tree_depth is None else self.tree_depth
        others = sum(n for s, n in enumerate(view.counts) if s != view.seat)
        if others + len(view.hand) <= self.endgame_cards:
            return self._endgame(view, actions)
        prior = self.fallback.choose(view)
        if self.limit is not None and self.limit < LEAST_THINK:
            return prior  # (no time for a round of worlds: the heuristic's own choice)
        candidates = self.candidates(view, actions, prior)
        if len(candidates) == 1:
            return candidates[0]
        if self.method == "ismcts":
            from .ismcts import ismcts

            share = 1.0 if view.top is None else self.follow_share
            return ismcts(
                view,
                candidates,
                prior,
                self.sample,
                self.rng,
                max(len(candidates), int(self._budget * share)),
                self.seconds * share if self.seconds else None,
                self.exploration,
                self.limit,
            )
        if self.method == "flat":
            return self._bandit(view, candidates, prior)
        return self._race(view, candidates, prior)

    def candidates(self, view: SeatView, actions: list[Action], prior: Action) -> list[Action]:
        """The actions worth a playout: sets kept whole (jokers alone or not at all), the
        cheapest few broken ones when following, passing, and the heuristic's own choice
        `prior`.  Fewer arms, more playouts each."""
        facts = Facts(
            view.rules, view.seat, rank_counts(view.rows), None, view.reversed, view.counts, None
        )
        chosen = shortlist(facts, actions, view.top is not None)
        fewest = min((n for s, n in enumerate(view.counts) if s != view.seat and n), default=99)
        if (
            self.shortcut
            and view.top is not None
            and isinstance(prior, Play)
            and prior == chosen[0]
            and facts.whole(prior)
            and prior.rank < TWO
            and fewest > 3
        ):
            return [prior]  # the cheapest whole answer, nobody near the end: nothing to search
        if prior not in chosen:
            chosen.append(prior)
        return chosen or actions

    # --- the bandit ------------------------------------------------------------------

    def _bandit(self, view: SeatView, actions: list[Action], prior: Action) -> Action:
        """UCB1 over the actions; an action's n-th try is played in the n-th world dealt,
        so the actions are compared on the same deals (common random numbers): the luck of
        the deal, the biggest noise there is, cancels out between them."""
        arms = len(actions)
        totals = [0.0] * arms
        visits = [0] * arms
        worlds: list[World] = []
        greedy: list[int] = []  # per world, the seats that play greedy in its playouts
        me = view.seat
        budget, deadline = self._bounds(view, arms)
        done = 0
        exploration = self.exploration
        while done < budget:
            if deadline is not None and done >= arms and time.perf_counter() > deadline:
                if len(worlds) < RACE_MIN and prior in actions:
                    return prior  # (too few worlds to tell the actions apart: `_race`)
                break
            if done < arms:
                arm = done
            else:
                log_n = math.log(done)
                arm = max(
                    range(arms),
                    key=lambda a: (
                        totals[a] / visits[a] + exploration * math.sqrt(log_n / visits[a])
                    ),
                )
            n = visits[arm]
            if n == len(worlds):
                worlds.append(make_world(view, self.sample(view, self.rng)))
                greedy.append(self._greedy_seats(me, len(view.counts)))
            world = worlds[n].copy()
            world.apply(me, actions[arm])
            totals[arm] += world.playout(me, self.epsilon, self.rng, greedy[n], self.counting)
            visits[arm] += 1
            done += 1
        best = max(
            range(arms),
            key=lambda a: (totals[a] / visits[a] if visits[a] else -1.0, actions[a] == prior),
        )
        return actions[best]

    def _bounds(self, view: SeatView, arms: int) -> tuple[int, float | None]:
        """A decision's playouts and the clock's end (`until`): a lead shapes the whole
        trick, so it gets the full budget, a follow `follow_share` of it; a time budget
        (`seconds`) in place of a playout count; `limit` over either."""
        share = 1.0 if view.top is None else self.follow_share
        deadline = until(self.seconds and self.seconds * share, self.limit)
        return (max(arms, int(self._budget * share)) if not self.seconds else 1 << 30), deadline

    def _race(self, view: SeatView, actions: list[Action], prior: Action) -> Action:
        """Successive elimination on common worlds: every action still in the race is
        played in the n-th world dealt; from `RACE_MIN` worlds on, an action behind the
        leader by `race_z` standard errors of their paired differences drops out, and so
        does one that finished exactly as the leader did in every one of `RACE_SAME`
        worlds or more (nothing tells them apart: the leader is the prior at a tie).  It
        stops with one action left or the budget spent, so a decision whose answer is
        plain costs a few worlds, and a close one the whole budget."""
        arms = len(actions)
        alive = list(range(arms))
        results: list[list[float]] = [[] for _ in range(arms)]
        me = view.seat
        budget, deadline = self._bounds(view, arms)
        favoured = actions.index(prior) if prior in actions else -1
        spent = 0
        z2 = self.race_z * self.race_z
        depth = self._depth
        trees: list[Tree] = [{} for _ in range(arms)]
        while len(alive) > 1 and (spent == 0 or spent + len(alive) <= budget):
            if deadline is not None and spent and time.perf_counter() > deadline:
                if len(results[alive[0]]) < RACE_MIN and favoured >= 0:
                    # stopped by the clock before any action could fall out: a world or
                    # two say less than the heuristic's own choice
                    return prior
                break
            world = make_world(view, self.sample(view, self.rng))
            greedy = self._greedy_seats(me, len(view.counts))
            for arm in alive:
                trial = world.copy()
                trial.apply(me, actions[arm])
                results[arm].append(
                    tree_playout(trial.game, me, trees[arm], depth, self.counting)
                    if depth
                    else trial.playout(me, self.epsilon, self.rng, greedy, self.counting)
                )
            spent += len(alive)
            n = len(results[alive[0]])
            if n < RACE_MIN:
                continue
            leader = max(alive, key=lambda a: (sum(results[a]), a == favoured))
            ahead = results[leader]
            kept = [leader]
            for arm in alive:
                if arm == leader:
                    continue
                gaps = [x - y for x, y in zip(ahead, results[arm])]
                mean = sum(gaps) / n
                spread = sum((g - mean) ** 2 for g in gaps) / (n - 1)
                if spread == 0.0:
                    if mean > 0 or n >= RACE_SAME:
                        continue
                elif mean > 0 and mean * mean * n >= z2 * spread:
                    continue
                kept.append(arm)
            alive = kept
        best = max(alive, key=lambda a: (sum(results[a]) / max(1, len(results[a])), a == favoured))
        return actions[best]

    def _greedy_seats(self, me: int, players: int) -> int:
        if self.model == "greedy":
            return ((1 << players) - 1) & ~(1 << me)
        if self.model == "mixed":
            return self.rng.getrandbits(players) & ~(1 << me)
        return 0

    # --- the endgame -----------------------------------------------------------------

    def _endgame(self, view: SeatView, actions: list[Action]) -> Action:
        """Few cards left: every action against the same worlds, each played out by a
        small exact search (max over my moves, the heuristic for the others)."""
        count = max(8, self._budget // max(1, len(actions)) // 4)
        deadline = until(None, self.limit)
        players = len(view.counts)
        scores = [0.0] * len(actions)
        for _ in range(count):  # (every action in each world: the same worlds for all)
            world = make_world(view, self.sample(view, self.rng))
            for index, action in enumerate(actions):
                trial = world.copy()
                trial.apply(view.seat, action)
                scores[index] += solve(trial, view.seat, players, depth=10)
            if deadline is not None and time.perf_counter() > deadline:
                break
        return actions[max(range(len(actions)), key=lambda a: scores[a])]


def known_cards(view: SeatView) -> dict[int, list[Card]]:
    """Cards this seat knows to be in another hand: what it gave (or returned) in the
    exchange that has not been played since, nor come back to it (a 7-pass hands cards
    on: one may even come back)."""
    known: dict[int, list[Card]] = {}
    played = [*view.played, *view.hand]
    for event in view.exchange:
        if isinstance(event, (Gave, Returned)) and event.giver == view.seat:
            for card in event.cards:
                if card in played:
                    played.remove(card)
                else:
                    known.setdefault(event.receiver, []).append(card)
    return known


def deal_unseen(view: SeatView, rng: random.Random) -> list[list[Card]]:
    """Every seat's hand in one possible world: mine as it is, the known cards where they
    are, the rest shuffled out by card counts; a seat that passed this trick under
    `must_beat` gets no play that beats the pile (tried a few times, then let go)."""
    seats = len(view.counts)
    left = unseen_copies(view)
    # (a seat holds no more known cards than it has: a 7-pass may have handed them on)
    known = {seat: cards[: view.counts[seat]] for seat, cards in known_cards(view).items()}
    for cards in known.values():
        for card in cards:
            left[card.id] -= 1
    unseen = [CARDS[i] for i in range(KINDS) for _ in range(max(0, left[i]))]
    # who passed on the pile as it is: under must_beat they hold nothing that beats it;
    # otherwise they most likely hold no cheap set that answers it whole
    passers = (
        [s for s, p in enumerate(view.passed) if p and s != view.seat and view.counts[s]]
        if view.top is not None
        else []
    )
    strict = view.rules.must_beat
    for _ in range(MAX_TRIES):
        rng.shuffle(unseen)
        hands: list[list[Card]] = []
        at = 0
        for seat in range(seats):
            if seat == view.seat:
                hands.append(list(view.hand))
                continue
            mine = known.get(seat, [])[: view.counts[seat]]
            need = view.counts[seat] - len(mine)
            hands.append(mine + unseen[at : at + need])
            at += need
        if not passers or all(not _beats(view, hands[s], strict) for s in passers):
            return hands
    return hands


def _beats(view: SeatView, hand: Sequence[Card], any_play: bool) -> bool:
    """Whether `hand` answers the pile: with any play, or (`any_play` false) with a set
    it holds whole that is neither a 2 nor a joker."""
    top = view.top
    assert top is not None
    judge = judge_for(view.rules)
    rows = judge.rows_of(counts_of(hand))
    plays = judge.legal_plays(rows, view.judged())
    if any_play:
        return bool(plays)
    if not judge.suits_matter():
        return any(p.jokers == 0 and p.rank < 12 and p.count == len(rows[p.rank]) for p in plays)
    # under the variants (suits, locks and sequences decide what answers: the judge
    # listed it), a set or a sequence held whole, neither a joker nor, in the ordinary
    # order, a 2: what the heuristic would answer with
    ordinary = not view.reversed
    for play in plays:
        if play.jokers:
            continue
        if play.rank >= 0:
            if play.count == len(rows[play.rank]) and not (ordinary and play.rank >= TWO):
                return True
        else:
            ranks = naturals(play)
            if all(len(rows[r]) == 1 for r in ranks) and not (ordinary and TWO in ranks):
                return True
    return False


def solve(world: World, me: int, players: int, depth: int) -> float:
    """My best result from here: I try every move, the others play the heuristic; past
    `depth` of my own moves the heuristic plays me too."""
    place = world.place(me)
    while place is None:
        seat = world.turn
        if seat != me:
            world.apply(seat, world.policy(seat))
            place = world.place(me)
            continue
        actions = world.actions(seat)
        if len(actions) == 1 or depth <= 0 or not isinstance(actions[0], (Play, Pass)):
            # forced, deep enough, or a handover or discard owed (the heuristic pays it)
            world.apply(seat, actions[0] if len(actions) == 1 else world.policy(seat))
            place = world.place(me)
            continue
        best = 0.0
        for action in actions:
            trial = world.copy()
            trial.apply(seat, action)
            best = max(best, solve(trial, me, players, depth - 1))
            if best >= 1.0:
                break
        return best
    return 1.0 - place / (players - 1)

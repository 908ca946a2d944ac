"""The search bot: determinized Monte Carlo.  For each decision it deals the cards it
cannot see in ways consistent with what it has seen (cards played, the passes it saw under
`must_beat`, what it gave and got in the exchange), rebuilds the hand in each such world
(`Game.from_view`), tries its candidate actions with a UCB1 bandit at the root, plays each
world out with the heuristic for every seat, and picks the action that finished best.
With few cards left everywhere it searches the worlds exhaustively instead (the endgame
solver).  Its budget per decision is a playout count or a time, set by options."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from president.engine import (
    CARDS,
    PASS,
    Action,
    Card,
    Game,
    IllegalAction,
    Phase,
    Play,
    SeatView,
    counts_of,
    deck,
)
from president.engine.cards import JOKER_RANK, KINDS, TWO
from president.engine.events import Gave, Returned
from president.engine.moves import legal_plays, rows_of

from .heuristic import ORDER, Facts, HeuristicBot, heuristic_choice, rank_counts

#: Rejection sampling tries this many deals before giving up a constraint it cannot meet.
MAX_TRIES = 20


class SearchBot:
    def __init__(
        self,
        rng: random.Random,
        playouts: int = 128,
        seconds: float | None = None,
        exploration: float = 0.5,
        endgame_cards: int = 8,
    ) -> None:
        self.rng = rng
        self.playouts = playouts
        self.seconds = seconds
        self.exploration = exploration
        self.endgame_cards = endgame_cards
        self.fallback = HeuristicBot()

    def choose(self, view: SeatView) -> Action:
        if view.phase is not Phase.PLAY:
            return self.fallback.choose(view)
        actions = view.legal_actions()
        if len(actions) == 1:
            return actions[0]
        others = sum(n for s, n in enumerate(view.counts) if s != view.seat)
        if others + len(view.hand) <= self.endgame_cards:
            return self._endgame(view, actions)
        prior = self.fallback.choose(view)
        candidates = self.candidates(view, actions, prior)
        if len(candidates) == 1:
            return candidates[0]
        return self._bandit(view, candidates, prior)

    def candidates(self, view: SeatView, actions: list[Action], prior: Action) -> list[Action]:
        """The actions worth a playout: sets kept whole (jokers alone or not at all), the
        cheapest few broken ones when following, passing, and the heuristic's own choice
        `prior`.  Fewer arms, more playouts each."""
        held = rank_counts(view.rows)
        order = ORDER[view.revolution]
        plays = [a for a in actions if isinstance(a, Play)]
        whole = [
            p for p in plays if p.rank == JOKER_RANK or (not p.jokers and p.count == held[p.rank])
        ]
        broken = sorted(
            (p for p in plays if p not in whole), key=lambda p: (order[p.rank], p.jokers)
        )
        ordered = sorted(whole, key=lambda p: order[p.rank])
        chosen: list[Action]
        if view.top is not None:
            chosen = [*ordered[:3], *broken[:1]]
            if PASS in actions:
                chosen.append(PASS)
        else:  # a lead: the low sets to shed, and the high ones that take the lead back
            chosen = [*ordered[:4], *ordered[4:][-2:]]
        fewest = min((n for s, n in enumerate(view.counts) if s != view.seat and n), default=99)
        if (
            view.top is not None
            and isinstance(prior, Play)
            and whole
            and prior == chosen[0]
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
        worlds: list[list[list[Card]]] = []
        # a lead shapes the whole trick: it gets the full budget, a follow half of it
        share = 1.0 if view.top is None else 0.5
        deadline = time.perf_counter() + self.seconds * share if self.seconds else None
        budget = max(arms, int(self.playouts * share)) if deadline is None else 1 << 30
        done = 0
        while done < budget:
            if deadline is not None and done >= arms and time.perf_counter() > deadline:
                break
            if done < arms:
                arm = done
            else:
                log_n = math.log(done)
                arm = max(
                    range(arms),
                    key=lambda a: (
                        totals[a] / visits[a] + self.exploration * math.sqrt(log_n / visits[a])
                    ),
                )
            n = visits[arm]
            if n == len(worlds):
                worlds.append(deal_unseen(view, self.rng))
            world = Game.from_view(view, worlds[n])
            totals[arm] += self._playout(world, view.seat, actions[arm])
            visits[arm] += 1
            done += 1
        best = max(
            range(arms),
            key=lambda a: (totals[a] / visits[a] if visits[a] else -1.0, actions[a] == prior),
        )
        return actions[best]

    # --- the endgame -----------------------------------------------------------------

    def _endgame(self, view: SeatView, actions: list[Action]) -> Action:
        """Few cards left: every action against the same worlds, each played out by a
        small exact search (max over my moves, the heuristic for the others)."""
        worlds = [
            self._world(view) for _ in range(max(8, self.playouts // max(1, len(actions)) // 4))
        ]
        scores = []
        for action in actions:
            total = 0.0
            for world in worlds:
                game = _copy(world)
                game.apply(view.seat, action)
                total += _solve(game, view.seat, depth=10)
            scores.append(total)
        return actions[max(range(len(actions)), key=lambda a: scores[a])]

    # --- worlds ---------------------------------------------------------------------

    def _world(self, view: SeatView) -> Game:
        """A deal of the unseen cards consistent with what this seat has seen."""
        hands = deal_unseen(view, self.rng)
        return Game.from_view(view, hands)

    def _playout(self, world: Game, me: int, action: Action) -> float:
        world.apply(me, action)
        return playout(world, me)


def known_cards(view: SeatView) -> dict[int, list[Card]]:
    """Cards this seat knows to be in another hand: what it gave (or returned) in the
    exchange that has not been played since."""
    known: dict[int, list[Card]] = {}
    played = list(view.played)
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
    left = [0] * KINDS
    for card in deck(view.rules.decks, view.rules.jokers):
        left[card.id] += 1
    known = known_cards(view)
    for card in [*view.played, *view.hand, *(c for cards in known.values() for c in cards)]:
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
    rows = rows_of(counts_of(hand))
    plays = legal_plays(view.rules, rows, top, view.revolution, False)
    if any_play:
        return bool(plays)
    return any(p.jokers == 0 and p.rank < 12 and p.count == len(rows[p.rank]) for p in plays)


def _facts(game: Game, seat: int) -> Facts:
    return Facts(
        game.rules,
        seat,
        rank_counts(game.rows(seat)),
        game.top,
        game.revolution,
        game.card_counts(),
        None,
    )


def policy(game: Game, seat: int) -> Action:
    """The heuristic, on the rebuilt game's own state (no view to build)."""
    actions = game.legal_actions(seat)
    if len(actions) == 1:
        return actions[0]
    plays = [a for a in actions if type(a) is Play]
    can_pass = actions[-1] is PASS or PASS in actions
    top = game.top
    if top is not None:
        # the heuristic's commonest answer, found without weighing everything: a play
        # that goes out, else the cheapest set held whole that is not precious
        rows = game.rows(seat)
        left = game.card_counts()[seat]
        revolution = game.revolution
        order = ORDER[revolution]
        penalty = game.rules.two_finish_penalty
        best: Play | None = None
        for play in plays:
            rank = play.rank
            if play.count == left and not (penalty and rank == TWO):
                best = None
                break
            if play.jokers or (rank >= TWO and not revolution) or play.count != len(rows[rank]):
                continue
            if best is None or order[rank] < order[best.rank]:
                best = play
        if best is not None:
            return best
    action = heuristic_choice(_facts(game, seat), plays, can_pass)
    if action is PASS and not can_pass:
        return plays[0]
    return action


def playout(game: Game, me: int) -> float:
    """Play the hand out with the heuristic everywhere, until my place is known; my
    result in [0, 1] (1 = first)."""
    players = len(game.seating)
    place = game.place_of(me)
    while place is None:
        seat = game.turn
        assert seat is not None
        game.apply(seat, policy(game, seat), checked=False)
        place = game.place_of(me)
    return 1.0 - place / (players - 1)


def _copy(game: Game) -> Game:
    """A cheap copy of a rebuilt world, for trying several moves in it."""
    view = game.view_for(0)
    hands = [game.hand_of(s) for s in range(len(game.seating))]
    return Game.from_view(view, hands)


def _solve(game: Game, me: int, depth: int) -> float:
    """My best result from here: I try every move, the others play the heuristic; past
    `depth` of my own moves the heuristic plays me too."""
    while game.place_of(me) is None:
        seat = game.turn
        assert seat is not None
        if seat != me:
            game.apply(seat, policy(game, seat))
            continue
        actions = game.legal_actions(seat)
        if len(actions) == 1 or depth <= 0:
            game.apply(seat, actions[0] if len(actions) == 1 else policy(game, seat))
            continue
        best = 0.0
        for action in actions:
            trial = _copy(game)
            try:
                trial.apply(seat, action)
            except IllegalAction:
                continue
            best = max(best, _solve(trial, me, depth - 1))
            if best >= 1.0:
                break
        return best
    place = game.place_of(me)
    assert place is not None
    return 1.0 - place / (len(game.seating) - 1)

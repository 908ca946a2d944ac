"""A hand in play as small mutable lists, for the search bot's playouts: per seat how many
cards of each rank it holds (suits never matter once the opening play is made), the pile,
the turn, who passed, the revolution, the places.  It plays the engine's rules (`Game`'s
`_play`, `_pass`, `_auto_pass`, `_end_trick`, `_go_out`) for every toggle except wild
jokers, the opening 3C lead and every rule of the variants and the Daifugo family
(`Rules.variants`: suits matter, plays have effects), where `compact_world` says no and
the search plays the engine itself (`EngineWorld`).  Copying one is a few list copies: a search copies a world
per playout instead of rebuilding a `Game`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from president.engine import (
    PASS,
    Action,
    Card,
    Game,
    Pass,
    Phase,
    Play,
    Rules,
    SeatView,
    Top,
    judge_for,
)
from president.engine.actions import play_of
from president.engine.cards import JOKER_ID, JOKER_RANK, THREE, TWO

from .heuristic import (
    ORDER,
    SPADE_THREE,
    Facts,
    costly_ranks,
    greedy_choice,
    heuristic_choice,
    naturals,
    pay_due,
    rank_counts,
    top_power,
)

#: A move inside a world: a play or the pass, as the engine's own objects.
Move = Play | Pass
RANKS = 14
_new = tuple.__new__  # builds a `Top` without its Python-level __new__ (the hot path)


def _canonical() -> tuple[tuple[Play, ...], ...]:
    """Per rank, the plays of 1..8 natural cards (lowest suits first, as many decks as it
    takes) and of 1..4 jokers: one `Play` object per shape."""
    rows: list[tuple[Play, ...]] = []
    for rank in range(13):
        ids = [rank * 4 + suit for _ in range(2) for suit in range(4)]
        rows.append(tuple(play_of(tuple(sorted(ids[:n]))) for n in range(1, 9)))
    rows.append(tuple(play_of((JOKER_ID,) * n) for n in range(1, 5)))
    return tuple(rows)


#: PLAYS[rank][count - 1]: the compact state's one play of that shape.
PLAYS = _canonical()


#: ABOVE[revolution][bar]: the ranks, lowest first, whose strength is at least `bar`.
ABOVE = tuple(
    tuple(tuple(r for r in range(RANKS) if ORDER[rev][r] >= bar) for bar in range(16))
    for rev in (False, True)
)


def supports(rules: Rules) -> bool:
    """Whether the compact state plays these rules: not wild jokers, and none of the
    variants (sequences, locks, dues, skips... are the engine's alone)."""
    return not judge_for(rules).suits_matter() and (rules.joker_mode != "wild" or rules.jokers == 0)


class Table:
    """What a hand's rules fix, shared by every copy of a world."""

    __slots__ = (
        "auto_pass",
        "bombs",
        "clearing",
        "clockwise",
        "locks",
        "margin",
        "must_beat",
        "penalty",
        "plain",
        "players",
        "revolts",
        "rules",
        "skips",
    )

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.clearing = tuple(judge_for(rules).clears(rank, 1) for rank in range(RANKS))
        self.bombs = rules.bombs
        self.revolts = rules.revolution
        self.locks = rules.passing == "locked"
        self.skips = rules.equal_plays == "skip"
        self.margin = rules.follow_margin
        self.must_beat = rules.must_beat
        self.auto_pass = rules.auto_pass
        self.penalty = rules.two_finish_penalty
        #: Only the trick's count of a higher rank answers a pile (`Rules.plain_follow`).
        self.plain = not (rules.bombs or rules.twos_clear or rules.clear_rank is not None)
        self.clockwise = tuple(
            tuple((s + step) % players for step in range(1, players)) for s in range(players)
        )

    def may_play(self, top: Top, revolution: bool, rank: int, count: int) -> bool:
        """`moves.may_play` for a pile that is there (the engine's one legality test)."""
        if self.clearing[rank] or (self.bombs and count >= 4):
            return True
        if count != top.size:
            return False
        order = ORDER[revolution]
        mine, theirs = order[rank], order[top.rank]
        return mine > theirs or (mine == theirs and self.margin == 0)


class Hand:
    """The hand in play: `held[seat][rank]` cards of each rank, `left[seat]` in all."""

    __slots__ = (
        "answered",
        "held",
        "holding",
        "left",
        "locked",
        "next_bottom",
        "next_top",
        "over",
        "place_of",
        "revolution",
        "table",
        "top",
        "turn",
    )

    table: Table
    held: list[list[int]]
    left: list[int]
    turn: int
    top: Top | None
    revolution: bool
    answered: int
    locked: int
    holding: int
    place_of: list[int | None]
    next_top: int
    next_bottom: int
    over: bool

    def copy(self) -> Hand:
        new = Hand.__new__(Hand)
        new.table = self.table
        new.held = [row[:] for row in self.held]
        new.left = self.left[:]
        new.turn, new.top, new.revolution = self.turn, self.top, self.revolution
        new.answered, new.locked, new.holding = self.answered, self.locked, self.holding
        new.place_of = self.place_of[:]
        new.next_top, new.next_bottom, new.over = self.next_top, self.next_bottom, self.over
        return new

    # --- legality ---------------------------------------------------------------------

    def plays(self, seat: int) -> list[Play]:
        """`moves.legal_plays` for this seat, in the engine's order (rank, then count)."""
        held = self.held[seat]
        top = self.top
        if top is None:
            return [PLAYS[rank][n] for rank in range(RANKS) for n in range(held[rank])]
        table = self.table
        index = top.size - 1
        out: list[Play] = []
        revolution = self.revolution
        if table.plain:
            return [
                PLAYS[rank][index]
                for rank in ABOVE[revolution][ORDER[revolution][top.rank] + table.margin]
                if held[rank] > index
            ]
        for rank in range(RANKS):
            for n in range(held[rank]):
                if table.may_play(top, revolution, rank, n + 1):
                    out.append(PLAYS[rank][n])
        return out

    def actions(self, seat: int) -> list[Move]:
        """`Game.legal_actions` for the seat to play: its plays, then the pass."""
        plays: list[Move] = list(self.plays(seat))
        if self.top is not None and not (plays and self.table.must_beat):
            plays.append(PASS)
        return plays

    # --- applying ---------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        """Carry out a legal action (unchecked: only ever pass one `actions` listed, or
        the engine's own play of the same shape)."""
        if type(action) is Play:
            self._play(seat, action.rank, action.count, action.jokers)
        else:
            self._pass(seat)
        if self.table.auto_pass:
            while not self.over and self.top is not None:
                if self.plays(self.turn):
                    break
                self._pass(self.turn)

    def _play(self, seat: int, rank: int, count: int, jokers: int) -> None:
        table = self.table
        self.held[seat][rank] -= count - (jokers if rank != JOKER_RANK else 0)
        if jokers and rank != JOKER_RANK:
            self.held[seat][JOKER_RANK] -= jokers
        left = self.left[seat] - count
        self.left[seat] = left
        cleared = table.clearing[rank] or (count >= 4 and table.bombs)
        if count >= 4 and table.revolts:
            self.revolution = not self.revolution
        top = self.top
        skip = table.skips and top is not None and top.rank == rank and not cleared
        if not left:
            self.holding &= ~(1 << seat)
            self._go_out(seat, rank)
            if self.over:
                return
        if cleared:
            self._end_trick(seat)
            return
        self.top = _new(Top, (seat, rank, count, jokers, False, ()))
        self.answered = answered = 0
        able = self.holding & ~self.locked
        turn = -1
        for nxt in table.clockwise[seat]:
            if able >> nxt & 1:
                turn = nxt
                break
        if turn >= 0 and skip:
            self.answered = answered = 1 << turn
            turn = self._next_in_trick(turn)
        if turn < 0 or not able & ~(answered | 1 << seat):
            self._end_trick(seat)
        else:
            self.turn = turn

    def _pass(self, seat: int) -> None:
        answered = self.answered | 1 << seat
        self.answered = answered
        if self.table.locks:
            self.locked |= 1 << seat
        top = self.top
        assert top is not None
        owner = top.owner
        if not self.holding & ~(answered | self.locked | 1 << owner):
            self._end_trick(owner)
        else:
            self.turn = self._next_in_trick(seat)

    def _next_in_trick(self, seat: int) -> int:
        able = self.holding & ~self.locked
        for nxt in self.table.clockwise[seat]:
            if able >> nxt & 1:
                return nxt
        return -1

    def _end_trick(self, winner: int) -> None:
        leader = winner
        holding = self.holding
        if not holding >> winner & 1:
            leader = next(s for s in self.table.clockwise[winner] if holding >> s & 1)
        self.top, self.answered, self.locked = None, 0, 0
        self.turn = leader

    def _go_out(self, seat: int, rank: int) -> None:
        if self.table.penalty and rank == TWO:
            place = self.next_bottom
            self.next_bottom -= 1
        else:
            place = self.next_top
            self.next_top += 1
        self.place_of[seat] = place
        still = [s for s, n in enumerate(self.left) if n]
        if len(still) == 1:
            self.place_of[still[0]] = self.next_top
            self.over = True
            self.top = None
            self.turn = -1

    # --- the heuristic ----------------------------------------------------------------

    def policy(self, seat: int) -> Move:
        """`game_policy` (the heuristic with its fast path) on this state."""
        top = self.top
        if top is None:
            return self._lead(seat)
        plays = self.plays(seat)
        if not plays:
            return PASS
        table = self.table
        can_pass = not table.must_beat
        if len(plays) == 1 and not can_pass:
            return plays[0]
        held = self.held[seat]
        left = self.left[seat]
        revolution = self.revolution
        order = ORDER[revolution]
        penalty = table.penalty
        best: Play | None = None
        for play in plays:
            rank = play.rank
            count = play.count
            if count == left and not (penalty and rank == TWO):
                best = None
                break
            if play.jokers or (rank >= TWO and not revolution) or count != held[rank]:
                continue
            if best is None or order[rank] < order[best.rank]:
                best = play
        if best is not None:
            return best
        facts = Facts(table.rules, seat, held, top, revolution, self.left, None)
        action = heuristic_choice(facts, plays, can_pass)
        if action is PASS and not can_pass:
            return plays[0]
        return action  # type: ignore[return-value]

    def _lead(self, seat: int) -> Play:
        """`heuristic._lead` (and its going out first) without listing every play: on a
        lead the heuristic only weighs whole sets, one per rank (any number of jokers)."""
        held = self.held[seat]
        left = self.left[seat]
        penalty = self.table.penalty
        for rank in range(RANKS):
            if held[rank] == left:  # one rank holds every card: go out on it
                if not (penalty and rank == TWO) or left == 1:
                    return PLAYS[rank][left - 1]
                break
        whole = [PLAYS[rank][held[rank] - 1] for rank in range(13) if held[rank]]
        jokers = held[JOKER_RANK]
        whole += PLAYS[JOKER_RANK][:jokers]
        if penalty and held[TWO] and len(whole) - max(0, jokers - 1) == 2:
            return PLAYS[TWO][held[TWO] - 1]  # do not end on a 2
        order = ORDER[self.revolution]
        counts = self.left
        threat = min([n for s, n in enumerate(counts) if n and s != seat], default=99)
        if threat <= 2:
            big = [p for p in whole if p.count > threat]
            if big:
                return min(big, key=lambda p: order[p.rank])
        revolution = self.revolution
        cheap = [p for p in whole if not (p.jokers or (p.rank >= TWO and not revolution))]
        if cheap:
            return cheap[-1] if revolution else cheap[0]
        low = min(order[p.rank] for p in whole)
        return max((p for p in whole if order[p.rank] == low), key=lambda p: p.count)

    def place(self, seat: int) -> int | None:
        return self.place_of[seat]

    def finished(self) -> bool:
        return self.over

    def playout(
        self,
        me: int,
        epsilon: float = 0.0,
        rng: random.Random | None = None,
        greedy: int = 0,
    ) -> float:
        """Play on with the heuristic everywhere until my place is known; my result in
        [0, 1] (1 = first).  With probability `epsilon` a seat plays a random legal move
        instead; the seats in the bitmask `greedy` play the greedy bot."""
        place_of = self.place_of
        if (epsilon and rng is not None) or greedy:
            while place_of[me] is None:
                seat = self.turn
                if epsilon and rng is not None and rng.random() < epsilon:
                    self.apply(seat, rng.choice(self.actions(seat)))
                elif greedy >> seat & 1:
                    plays = self.plays(seat)
                    self.apply(seat, greedy_choice(plays, self.top, self.revolution))
                else:
                    self.apply(seat, self.policy(seat))
        policy, apply = self.policy, self.apply
        while place_of[me] is None:
            seat = self.turn
            apply(seat, policy(seat))
        return 1.0 - place_of[me] / (self.table.players - 1)  # type: ignore[operator]


def compact_world(view: SeatView, hands: Sequence[Sequence[Card]]) -> Hand | None:
    """The hand in play as `view` sees it with every seat's cards as given (`Game.from_view`
    as a `Hand`), or None where the compact state does not play these rules (wild jokers)
    or this moment (the opening play, which must hold the 3C)."""
    if view.opening or not supports(view.rules) or view.turn is None:
        return None
    players = len(view.seating)
    hand = Hand.__new__(Hand)
    hand.table = _table(view.rules, players)
    held = [[0] * RANKS for _ in range(players)]
    for seat, cards in enumerate(hands):
        row = held[seat]
        for card in cards:
            row[card.rank] += 1
    hand.held = held
    hand.left = list(view.counts)
    hand.turn, hand.top, hand.revolution = view.turn, view.top, view.revolution
    hand.answered = sum(1 << s for s, p in enumerate(view.passed) if p)
    hand.locked = sum(1 << s for s, p in enumerate(view.locked) if p)
    hand.holding = sum(1 << s for s, n in enumerate(view.counts) if n)
    places: list[int | None] = list(view.places) if view.places else [None] * players
    hand.place_of = places
    taken = {p for p in places if p is not None}
    hand.next_top = next((p for p in range(players) if p not in taken), 0)
    hand.next_bottom = next((p for p in range(players - 1, -1, -1) if p not in taken), players - 1)
    hand.over = False
    return hand


_TABLES: dict[tuple[Rules, int], Table] = {}


def _table(rules: Rules, players: int) -> Table:
    table = _TABLES.get((rules, players))
    if table is None:
        if len(_TABLES) > 64:
            _TABLES.clear()
        table = _TABLES[(rules, players)] = Table(rules, players)
    return table


class World(Protocol):
    """A possible world a search plays in: the compact `Hand` or the engine's `Game`."""

    @property
    def turn(self) -> int: ...

    def copy(self) -> World: ...
    def actions(self, seat: int) -> list[Move]: ...
    def apply(self, seat: int, action: Action) -> None: ...
    def policy(self, seat: int) -> Move: ...
    def playout(
        self, me: int, epsilon: float = 0.0, rng: random.Random | None = None, greedy: int = 0
    ) -> float: ...
    def place(self, seat: int) -> int | None: ...
    def finished(self) -> bool: ...


class EngineWorld:
    """The engine's `Game` behind the `World` interface: for the rules `Hand` does not
    play, so the search stays legal everywhere."""

    __slots__ = ("game", "view")

    def __init__(self, game: Game, view: SeatView) -> None:
        self.game = game
        self.view = view

    @property
    def turn(self) -> int:
        turn = self.game.turn
        return -1 if turn is None else turn

    def copy(self) -> EngineWorld:
        return EngineWorld(self.game.clone(), self.view)

    def actions(self, seat: int) -> list[Move]:
        return self.game.legal_actions(seat)  # type: ignore[return-value]

    def apply(self, seat: int, action: Action) -> None:
        self.game.apply(seat, action, checked=False)

    def policy(self, seat: int) -> Move:
        return game_policy(self.game, seat)  # type: ignore[return-value]

    def playout(
        self, me: int, epsilon: float = 0.0, rng: random.Random | None = None, greedy: int = 0
    ) -> float:
        # (deterministic: a random move in ten measured no better under daifugo, 2.163
        # against 2.131 +- 0.09 on the same 405 hands; the others play the heuristic)
        return game_playout(self.game, me)

    def place(self, seat: int) -> int | None:
        return self.game.place_of(seat)

    def finished(self) -> bool:
        return self.game.phase is not Phase.PLAY


def _facts(game: Game, seat: int) -> Facts:
    rows = game.rows(seat)
    return Facts(
        game.rules,
        seat,
        rank_counts(rows),
        game.top,
        game.revolution != game.jack_back,
        game.card_counts(),
        None,
        # the cards of mine the advice reads: the 3S (spade_three), so the 3s will do
        rows[THREE][-1].cards if game.rules.spade_three and rows[THREE] else (),
    )


def game_policy(game: Game, seat: int) -> Action:
    """The heuristic, on the rebuilt game's own state (no view to build)."""
    actions = game.legal_actions(seat)
    if len(actions) == 1:
        return actions[0]
    variants = judge_for(game.rules).suits_matter()
    if variants and game.due is not None:
        return pay_due(
            actions,
            game.hand_of(seat),
            rank_counts(game.rows(seat)),
            game.revolution != game.jack_back,
            game.rules,
            game.due.kind == "zombie",
        )
    plays = [a for a in actions if type(a) is Play]
    can_pass = actions[-1] is PASS or PASS in actions
    top = game.top
    if top is not None and not variants:
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
    elif top is not None:
        answer = _variant_follow(game, seat, plays, can_pass)
        if answer is not None:
            return answer
    action = heuristic_choice(_facts(game, seat), plays, can_pass)
    if action is PASS and not can_pass:
        return plays[0]
    return action


def _variant_follow(game: Game, seat: int, plays: Sequence[Play], can_pass: bool) -> Move | None:
    """The heuristic's answer under the variants (`heuristic._follow`) without building
    its facts, when no play goes out and none of its special advice applies (a 3S kept for
    a joker, a rank kept to go out on, a lone 3 kept for a 2, four 2s); None: ask the
    heuristic.  The cards are not counted in playouts (`Facts.unseen` None): nothing but
    a 2 or a joker is precious."""
    rules = game.rules
    if rules.assassination or rules.great_revolution:
        return None
    rows = game.rows(seat)
    reversed_ = game.revolution != game.jack_back
    if (
        rules.spade_three
        and rows[THREE]
        and SPADE_THREE in rows[THREE][-1].ids
        and rules.jokers * rules.decks > len(rows[JOKER_RANK])
    ):
        return None
    if rules.forbidden_finishes or rules.two_finish_penalty:
        costly = costly_ranks(rules, reversed_)
        held = [rank for rank in range(RANKS) if rows[rank]]
        if len(held) > 1 and sum(1 for rank in held if not costly[rank]) == 1:
            return None
    counts = game.card_counts()
    left = counts[seat]
    order = ORDER[reversed_]
    top = game.top
    assert top is not None
    # the cheapest answer that keeps its set whole, cheap ones before precious ones; and
    # the cheapest of all, for when the seat must answer
    best: Play | None = None
    best_key = (2, 99, 99)
    cheapest: Play | None = None
    cheapest_key = (2, 99, 99)
    for play in plays:
        count = play.count
        if count == left:
            return None  # it may go out: the heuristic weighs the finish
        rank = play.rank
        jokers = play.jokers
        if rank >= 0:
            power = order[rank]
            precious = jokers > 0 or (rank >= TWO and not reversed_)
            whole = rank == JOKER_RANK or (not jokers and count == len(rows[rank]))
        else:
            ranks = naturals(play)
            power = min([order[r] for r in ranks])
            precious = jokers > 0 or (TWO in ranks and not reversed_)
            whole = not jokers and all(len(rows[r]) == 1 for r in ranks)
        if whole:
            key = (precious, power, count)
            if key < best_key:
                best, best_key = play, key
        key = (precious, power, jokers)
        if key < cheapest_key:
            cheapest, cheapest_key = play, key
    threat = min([n for s, n in enumerate(counts) if n and s != seat], default=99)
    pressing = threat <= 2 or (top.owner != seat and left <= 3)
    if best is not None:
        if not best_key[0]:
            return best
        if pressing or left <= 4 or top_power(top, order) >= order[11] - 1:
            return best
        if best.rank >= 0 and judge_for(rules).clears(best.rank, best.count) and left <= 6:
            return best
    if pressing or not can_pass:
        return cheapest
    return PASS


def game_playout(game: Game, me: int) -> float:
    """Play the hand out with the heuristic everywhere, until my place is known; my
    result in [0, 1] (1 = first)."""
    players = len(game.seating)
    place = game.place_of(me)
    while place is None:
        seat = game.turn
        assert seat is not None
        game.apply(seat, game_policy(game, seat), checked=False)
        place = game.place_of(me)
    return 1.0 - place / (players - 1)


def make_world(view: SeatView, hands: Sequence[Sequence[Card]]) -> World:
    """The fastest world that plays this moment by the rules: compact when it can."""
    world = compact_world(view, hands)
    if world is not None:
        return world
    return EngineWorld(Game.from_view(view, hands), view)

"""The greedy, heuristic and hoarder bots, and the decision core they share with the
search bot's playouts.  The core works on plain facts (the legal plays, how many of each
rank a seat holds, the pile, the others' card counts), so it runs on a `SeatView` online
and on a rebuilt `Game` inside a search alike.

The heuristic is the advice of seeds 000 and 004 as code: shed low cards when you hold
the lead, keep sets whole, return junk singles that break nothing, count the 2s and the
dead ranks, spend a 2 when it is the cheapest answer, press the player closest to going
out."""

from __future__ import annotations

from collections.abc import Sequence

from president.engine import PASS, Action, Phase, Play, Return, Rules, SeatView
from president.engine.cards import JOKER_RANK, TWO, deck
from president.engine.moves import Row, Top, clears, strength


def rank_counts(rows: Sequence[Row]) -> list[int]:
    """How many cards of each rank (jokers last) a seat holds."""
    return list(map(len, rows))


#: Rank order for beating, by revolution (see `moves.strength`), as lookups.
ORDER = (tuple(strength(r, False) for r in range(14)), tuple(strength(r, True) for r in range(14)))


def cheapest_return(
    returns: Sequence[Return], held: Sequence[int], revolution: bool = False
) -> Return:
    """Junk singles: the lowest cards that break no set of mine and make no set for the
    receiver; a 2 or a joker only when nothing else is left."""

    def cost(ret: Return) -> int:
        total = 0
        ranks = [card.rank for card in ret.cards]
        for rank in set(ranks):
            given = ranks.count(rank)
            total += strength(rank, revolution) * given
            if held[rank] > given:
                total += 20  # breaks a pair or more of mine
            if given > 1:
                total += 8  # hands the receiver a pair
            if rank in (TWO, JOKER_RANK):
                total += 40
        return total

    return min(returns, key=cost)


def greedy_choice(plays: Sequence[Play], top: Top | None, revolution: bool) -> Action:
    """The lowest play that beats; on the lead, the lowest rank with all its copies."""
    if not plays:
        return PASS
    if top is None:
        low = min(strength(p.rank, revolution) for p in plays)
        return max(
            (p for p in plays if strength(p.rank, revolution) == low),
            key=lambda p: (p.count - p.jokers, -p.jokers),
        )
    return min(plays, key=lambda p: (strength(p.rank, revolution), p.jokers, p.count))


class Facts:
    """What the heuristic weighs, computed once per decision."""

    __slots__ = ("held", "left", "order", "revolution", "rules", "seat", "threat", "top", "unseen")

    def __init__(
        self,
        rules: Rules,
        seat: int,
        held: Sequence[int],
        top: Top | None,
        revolution: bool,
        counts: Sequence[int],
        unseen: Sequence[int] | None,
    ) -> None:
        self.rules, self.seat, self.held, self.top, self.revolution = (
            rules,
            seat,
            held,
            top,
            revolution,
        )
        self.order = ORDER[revolution]
        self.left = counts[seat]
        #: The fewest cards an opponent still holds (99 when none does).
        self.threat = min(filter(None, [*counts[:seat], *counts[seat + 1 :]]), default=99)
        #: Per rank, how many copies may still be in other hands (None: not counted).
        self.unseen = unseen

    def strength(self, rank: int) -> int:
        return self.order[rank]

    def whole(self, play: Play) -> bool:
        """The play takes every natural of its rank (it breaks no set) and no joker."""
        if play.rank == JOKER_RANK:
            return True
        return play.jokers == 0 and play.count == self.held[play.rank]

    def precious(self, play: Play) -> bool:
        """A 2, a joker, or a play nobody left can beat: the cards that buy the lead."""
        if play.rank >= TWO and not self.revolution:
            return True
        return play.jokers > 0 or (self.unseen is not None and self.boss(play))

    def boss(self, play: Play) -> bool:
        """Nobody else can beat this set (every higher rank is played out or mine)."""
        unseen = self.unseen
        if unseen is None:
            return False
        mine = self.strength(play.rank)
        for rank in range(14):
            if self.strength(rank) > mine and unseen[rank] >= play.count:
                return False
        return not (unseen[JOKER_RANK] and self.rules.joker_mode == "wild")


def unseen_counts(view: SeatView) -> list[int]:
    """Per rank, the copies not in my hand and not yet played this hand."""
    counts = [0] * 14
    for card in deck(view.rules.decks, view.rules.jokers):
        counts[card.rank] += 1
    for card in view.played:
        counts[card.rank] -= 1
    for card in view.hand:
        counts[card.rank] -= 1
    return [max(0, n) for n in counts]


def heuristic_choice(
    facts: Facts, plays: Sequence[Play], can_pass: bool, hoard: bool = False
) -> Action:
    """Seeds 000 and 004's advice.  `hoard`: never play a 2 while holding anything else."""
    if not plays:
        return PASS
    held, rules = facts.held, facts.rules
    if hoard and facts.left > held[TWO]:
        kept = [p for p in plays if p.rank != TWO]
        if not kept and can_pass:
            return PASS
        plays = kept or plays
    penalty = rules.two_finish_penalty
    # Go out when one play empties the hand (not on a 2 when that costs the place).
    for play in plays:
        if play.count == facts.left and not (penalty and play.rank == TWO):
            return play
    if facts.top is None:
        return _lead(facts, plays)
    return _follow(facts, plays, can_pass)


def _lead(facts: Facts, plays: Sequence[Play]) -> Action:
    whole = [p for p in plays if facts.whole(p)] or list(plays)
    held = facts.held
    sets_left = sum(1 for n in held if n)
    bosses = [p for p in whole if facts.boss(p)]
    if facts.rules.two_finish_penalty and held[TWO] and sets_left == 2:
        twos = [p for p in whole if p.rank == TWO]
        if twos:
            return twos[0]  # do not end on a 2
    if sets_left <= 2 and bosses:
        return max(bosses, key=lambda p: p.count)  # win the lead back, then go out
    if facts.threat <= 2:
        # the next player may go out on a cheap lead: lead a set they cannot match in size
        big = [p for p in whole if p.count > facts.threat]
        if big:
            return min(big, key=lambda p: facts.strength(p.rank))
    cheap = [p for p in whole if not facts.precious(p)] or whole
    low = min(facts.strength(p.rank) for p in cheap)
    return max((p for p in cheap if facts.strength(p.rank) == low), key=lambda p: p.count)


def _follow(facts: Facts, plays: Sequence[Play], can_pass: bool) -> Action:
    top = facts.top
    assert top is not None
    order, held, left = facts.order, facts.held, facts.left
    pressing = facts.threat <= 2 or (top.owner != facts.seat and left <= 3)
    # the cheapest answer that keeps its set whole, cheap ones before precious ones
    best: Play | None = None
    best_key = (2, 99, 99)
    for play in plays:
        rank = play.rank
        if rank != JOKER_RANK and (play.jokers or play.count != held[rank]):
            continue
        key = (facts.precious(play), order[rank], play.count)
        if key < best_key:
            best, best_key = play, key
    if best is not None:
        if not best_key[0]:
            return best
        # a 2 (or another card that buys the lead) is worth it as the cheapest answer
        # to a high pile, near the end, or against a player about to go out
        if pressing or left <= 4 or order[top.rank] >= order[11] - 1:
            return best
        if clears(facts.rules, best.rank, best.count) and left <= 6:
            return best
    if pressing or not can_pass:
        return min(plays, key=lambda p: (facts.precious(p), order[p.rank], p.jokers))
    return PASS


def view_facts(view: SeatView, rows: Sequence[Row] | None = None, count: bool = True) -> Facts:
    rows = rows if rows is not None else view.rows
    return Facts(
        view.rules,
        view.seat,
        rank_counts(rows),
        view.top,
        view.revolution,
        view.counts,
        unseen_counts(view) if count else None,
    )


class GreedyBot:
    """The lowest play that beats; lead the lowest rank with all its copies."""

    def choose(self, view: SeatView) -> Action:
        actions = view.legal_actions()
        if view.phase is Phase.EXCHANGE:
            return cheapest_return(
                [a for a in actions if isinstance(a, Return)],
                rank_counts(view.rows),
                view.revolution,
            )
        return greedy_choice([a for a in actions if isinstance(a, Play)], view.top, view.revolution)


class HeuristicBot:
    """Seeds 000 and 004's advice (see the module's docstring)."""

    hoard = False

    def choose(self, view: SeatView) -> Action:
        actions = view.legal_actions()
        rows = view.rows
        if view.phase is Phase.EXCHANGE:
            return cheapest_return(
                [a for a in actions if isinstance(a, Return)], rank_counts(rows), view.revolution
            )
        plays = [a for a in actions if isinstance(a, Play)]
        can_pass = PASS in actions
        action = heuristic_choice(view_facts(view, rows), plays, can_pass, self.hoard)
        if action is PASS and not can_pass:
            return min(plays, key=lambda p: strength(p.rank, view.revolution))
        return action


class HoarderBot(HeuristicBot):
    """Seed 004's bot that will not play a 2 while it holds anything else."""

    hoard = True

"""The decision core of the greedy, heuristic and hoarder bots (the bots themselves,
`GreedyBot`, `HeuristicBot` and `HoarderBot`, are in `bots/simple.py`), which the search
bot's playouts share.  The core works on plain facts (the legal plays, how many of each
rank a seat holds, the pile, the others' card counts), so it runs on a `SeatView` online
and on a rebuilt `Game` inside a search alike.

The heuristic is the advice of seeds 000 and 004 as code: shed low cards when you hold
the lead, keep sets whole, return junk singles that break nothing, count the 2s and the
dead ranks, spend a 2 when it is the cheapest answer, press the player closest to going
out.

Under the variants and the Daifugo family (`Rules.variants`) the same advice holds, with
what those rules add: the order in force is `view.reversed` (a jack back turns it for the
trick); a sequence is weighed by its weakest card and led when it sheds three or more
cards that belong to no set; a cheap set of 10s or 7s is led before a slightly lower one
(it sheds a discard or a handover too); a handover or a discard owed is paid with the
least useful cards (`pay_due`); a finish the rules punish is put off while a safe last play remains;
the 3S waits for a lone joker under `spade_three`, and a lone 3 for a single 2 under
`assassination`; four 2s that win at once under `great_revolution` are played."""

from __future__ import annotations

from collections.abc import Sequence

from president.engine import (
    PASS,
    Action,
    Bomb,
    Card,
    Discard,
    Handover,
    Play,
    Return,
    Row,
    Rules,
    SeatView,
    Take,
    Top,
    judge_for,
    strength,
)
from president.engine.cards import EIGHT, JOKER_ID, JOKER_RANK, TEN, THREE, TWO, deck

#: The 3S's card id (rank 0, suit 3): it beats a lone joker under spade_three.
SPADE_THREE = THREE * 4 + 3
#: The rank of the 7s (seven_pass).
SEVEN = 4


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


def naturals(play: Play) -> list[int]:
    """The ranks of a play's natural cards."""
    return [card.rank for card in play.cards if card.id != JOKER_ID]


def power(play: Play, order: Sequence[int]) -> int:
    """How strong a play is in the order `order` (`ORDER[reversed]`): its rank's, or for a
    sequence (`rank` -1) its weakest natural card's, which is what a follow must beat."""
    if play.rank >= 0:
        return order[play.rank]
    return min(order[rank] for rank in naturals(play))


def greedy_choice(plays: Sequence[Play], top: Top | None, revolution: bool) -> Action:
    """The lowest play that beats; on the lead, the lowest rank with all its copies.
    `revolution`: the order in force is reversed (a revolution or a jack back)."""
    if not plays:
        return PASS
    order = ORDER[revolution]
    if top is None:
        low = min(power(p, order) for p in plays)
        return max(
            (p for p in plays if power(p, order) == low),
            key=lambda p: (p.count - p.jokers, -p.jokers),
        )
    return min(plays, key=lambda p: (power(p, order), p.jokers, p.count))


def runs_held(cards: Sequence[Card]) -> set[int]:
    """The ids of my natural cards that belong to a sequence I hold (three or more of one
    suit in a row, no wrap-around): the cards a sequence lead would shed."""
    suits: dict[int, set[int]] = {}
    for card in cards:
        if card.id != JOKER_ID:
            suits.setdefault(card.suit, set()).add(card.rank)
    found: set[int] = set()
    for suit, ranks in suits.items():
        for rank in ranks:
            if (
                {rank - 1, rank - 2} <= ranks
                or {rank - 1, rank + 1} <= ranks
                or {
                    rank + 1,
                    rank + 2,
                }
                <= ranks
            ):
                found.add(rank * 4 + suit)
    return found


def due_cost(
    pay: Sequence[Card],
    held: Sequence[int],
    reversed_: bool,
    rules: Rules,
    in_runs: set[int],
    handover: bool,
) -> int:
    """What giving away `pay` (a handover or a discard) costs me: the strength of the
    cards, more for a set broken, a sequence broken, a card that wins tricks (a joker, the
    strongest rank, a clearing rank, the 3S kept for a joker), and for a handover a
    pair handed to the next player."""
    order = ORDER[reversed_]
    strongest = THREE if reversed_ else TWO
    total = 0
    ranks = [card.rank for card in pay]
    for rank in set(ranks):
        given = ranks.count(rank)
        total += order[rank] * given
        if rank in (JOKER_RANK, strongest):
            total += 40 * given
        elif rules.clear_floors[rank]:  # a rank that clears (2s, 8s, a pair of 9s...)
            total += 25 * given
        if rank != JOKER_RANK and held[rank] > given:
            total += 20  # breaks a set of mine
        if handover and given > 1:
            total += 8  # hands the next player a pair
    for card in pay:
        if card.id in in_runs:
            total += 15
        if card.id == SPADE_THREE and rules.spade_three and rules.jokers:
            total += 30
    return total


def take_value(card: Card, held: Sequence[int], reversed_: bool, rules: Rules) -> int:
    """What a card of the cards played is worth in a hand (a take: salvage, kings_march,
    zombie): its strength, more for a card that wins tricks (a joker, the strongest
    rank, a clearing rank) and for one that joins a set held."""
    order = ORDER[reversed_]
    rank = card.rank
    value = order[rank]
    if rank in (JOKER_RANK, THREE if reversed_ else TWO):
        value += 40
    elif rules.clear_floors[rank]:
        value += 25
    if rank != JOKER_RANK:
        value += 10 * held[rank]
    return value


def bomb_value(rank: int, held: Sequence[int], reversed_: bool) -> int:
    """What naming `rank` is worth to me (queen_bomber: everyone still in discards all of
    it): a rank I hold sheds my cards, the weaker the better (strong ones I keep to win
    tricks); a rank I do not hold takes the others' cards of it, the stronger the
    better (their winners gone)."""
    strength_now = ORDER[reversed_][rank]
    if held[rank]:
        return held[rank] * (14 - strength_now)
    return strength_now - 13  # (below any rank I hold: shedding mine comes first)


def pay_due(
    actions: Sequence[Action],
    cards: Sequence[Card],
    held: Sequence[int],
    reversed_: bool,
    rules: Rules,
    giving: bool = False,
) -> Action:
    """The cheapest handover or discard among `actions` (the seat's legal actions while it
    owes one): the least useful cards, as `due_cost` weighs them.  A take (of the cards
    played): the card worth most in my hand (`take_value`), or, `giving` it to the next
    seat (zombie), the one worth least to anyone."""
    bombs = [a for a in actions if isinstance(a, Bomb)]
    if bombs:
        return max(bombs, key=lambda a: bomb_value(a.rank, held, reversed_))
    takes = [a for a in actions if isinstance(a, Take)]
    if takes:
        if giving:
            return min(takes, key=lambda a: take_value(a.cards[0], [0] * 14, reversed_, rules))
        return max(takes, key=lambda a: take_value(a.cards[0], held, reversed_, rules))
    payments = [a for a in actions if isinstance(a, (Handover, Discard))]
    in_runs = runs_held(cards) if rules.sequences else set()
    return min(
        payments,
        key=lambda a: due_cost(a.cards, held, reversed_, rules, in_runs, isinstance(a, Handover)),
    )


def lowest_payment(actions: Sequence[Action], reversed_: bool) -> Action:
    """The greedy bot's payment: the cards lowest in the order in force."""
    order = ORDER[reversed_]
    bombs = [a for a in actions if isinstance(a, Bomb)]
    if bombs:  # the lowest rank in the order
        return min(bombs, key=lambda a: order[a.rank])
    payments = [a for a in actions if isinstance(a, (Handover, Discard, Take))]
    return min(payments, key=lambda a: sorted((order[c.rank] for c in a.cards), reverse=True))


class Facts:
    """What the heuristic weighs, computed once per decision."""

    __slots__ = (
        "cards",
        "held",
        "left",
        "order",
        "revolution",
        "rules",
        "seat",
        "threat",
        "top",
        "unseen",
    )

    def __init__(
        self,
        rules: Rules,
        seat: int,
        held: Sequence[int],
        top: Top | None,
        revolution: bool,
        counts: Sequence[int],
        unseen: Sequence[int] | None,
        cards: Sequence[Card] = (),
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
        #: My cards (only the variants' advice reads them: suits, the 3S).
        self.cards = cards

    def strength(self, rank: int) -> int:
        return self.order[rank]

    def power(self, play: Play) -> int:
        """The play's strength in the order in force (a sequence's weakest card's)."""
        return power(play, self.order)

    def whole(self, play: Play) -> bool:
        """The play takes every natural of its rank (it breaks no set) and no joker; a
        sequence: no joker, and no card of a rank I hold more of."""
        if play.rank == JOKER_RANK:
            return True
        if play.rank < 0:
            return play.jokers == 0 and all(self.held[r] == 1 for r in naturals(play))
        return play.jokers == 0 and play.count == self.held[play.rank]

    def precious(self, play: Play) -> bool:
        """A 2, a joker, or a play nobody left can beat: the cards that buy the lead."""
        if play.rank < 0:
            return play.jokers > 0 or (TWO in naturals(play) and not self.revolution)
        if play.rank >= TWO and not self.revolution:
            return True
        return play.jokers > 0 or (self.unseen is not None and self.boss(play))

    def costly_finish(self, play: Play) -> bool:
        """Going out on this play costs the place: a 2 under two_finish_penalty; under
        forbidden_finishes a joker, the strongest rank, a clearing rank, the 3S on a
        lone joker."""
        rules = self.rules
        if rules.two_finish_penalty and play.rank == TWO:
            return True
        if not rules.forbidden_finishes:
            return False
        if play.jokers or play.rank == JOKER_RANK:
            return True
        ranks = naturals(play)
        if (THREE if self.revolution else TWO) in ranks:
            return True
        if rules.clear_rank is not None and (EIGHT if rules.clear_rank == 8 else TEN) in ranks:
            return True
        return play.ids == (SPADE_THREE,) and lone_joker(self.top)

    def costly_rank(self, rank: int) -> bool:
        """Going out on a set of this rank costs the place (`costly_finish` by rank)."""
        rules = self.rules
        if rules.two_finish_penalty and rank == TWO:
            return True
        if not rules.forbidden_finishes:
            return False
        clearing = {8: EIGHT, 10: TEN}.get(rules.clear_rank or 0)
        return rank in (JOKER_RANK, THREE if self.revolution else TWO, clearing)

    def last_safe(self) -> int | None:
        """The one rank left I may go out on without losing the place, while I hold
        ranks I may not: keep it for the last play (None when there is nothing to keep)."""
        rules = self.rules
        if not (rules.forbidden_finishes or rules.two_finish_penalty):
            return None
        costly = costly_ranks(rules, self.revolution)
        held = self.held
        safe = None
        ranks = 0
        for rank in range(14):
            if held[rank]:
                ranks += 1
                if not costly[rank]:
                    if safe is not None:
                        return None  # two ranks to go out on: nothing to keep
                    safe = rank
        return safe if ranks > 1 else None

    def keeps_spade_three(self) -> bool:
        """Under spade_three, I hold the 3S and a joker may be in another hand: the 3S is
        kept to beat it."""
        if not self.rules.spade_three or not any(c.id == SPADE_THREE for c in self.cards):
            return False
        if self.unseen is not None:
            return self.unseen[JOKER_RANK] > 0
        return self.rules.jokers * self.rules.decks > self.held[JOKER_RANK]

    def keeps_assassin(self) -> bool:
        """Under assassination, in the ordinary order, I hold one 3 and a 2 may still come
        from another hand: the lone 3 is kept to kill a single 2."""
        if not self.rules.assassination or self.revolution or self.held[THREE] != 1:
            return False
        return self.unseen is None or self.unseen[TWO] > 0

    def boss(self, play: Play) -> bool:
        """Nobody else can beat this set (every higher rank is played out or mine)."""
        unseen = self.unseen
        if unseen is None or play.rank < 0:
            return False
        mine = self.strength(play.rank)
        for rank in range(14):
            if self.strength(rank) > mine and unseen[rank] >= play.count:
                return False
        return not (unseen[JOKER_RANK] and self.rules.joker_mode == "wild")


_COSTLY: dict[int, tuple[Rules, tuple[tuple[bool, ...], ...]]] = {}


def costly_ranks(rules: Rules, revolution: bool) -> tuple[bool, ...]:
    """Per rank, whether going out on a set of it costs the place (`Facts.costly_rank`),
    in the order in force: a table kept per rules object (a playout asks at every move)."""
    entry = _COSTLY.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_COSTLY) > 64:
            _COSTLY.clear()
        tables = tuple(
            tuple(
                Facts(rules, 0, [0] * 14, None, reversed_, [0], None).costly_rank(rank)
                for rank in range(14)
            )
            for reversed_ in (False, True)
        )
        entry = _COSTLY[id(rules)] = (rules, tables)
    return entry[1][revolution]


def lone_joker(top: Top | None) -> bool:
    """The pile is one joker alone (what the 3S beats under spade_three)."""
    return top is not None and top.size == 1 and top.rank == JOKER_RANK and not top.run


def top_power(top: Top, order: Sequence[int]) -> int:
    """The pile's strength in the order in force (a sequence's weakest card's)."""
    if top.run:
        return min(order[top.rank], order[top.rank + top.size - 1])
    return order[top.rank]


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
    if rules.spade_three and lone_joker(facts.top):
        # a lone joker on the pile: the 3S takes it (not as my last card, which would be a
        # forbidden finish there), even when that joker was the last one out (the cards
        # counted say no joker is left unseen: this one is on the pile)
        spade = [p for p in plays if p.ids == (SPADE_THREE,)]
        if spade and (facts.left > 1 or not rules.forbidden_finishes):
            return spade[0]
    if facts.keeps_spade_three():
        # the 3S waits for a lone joker
        kept = [p for p in plays if SPADE_THREE not in p.ids]
        if not kept and can_pass:
            return PASS
        plays = kept or plays
    if facts.keeps_assassin():
        # a lone 3 waits for a single 2, and kills it (clearing the pile) when it comes
        top = facts.top
        if top is not None and top.size == 1 and not top.run and top.rank == TWO:
            three = [p for p in plays if p.rank == THREE and p.count == 1]
            if three:
                return three[0]
        plays = [p for p in plays if p.rank != THREE] or plays
    if rules.great_revolution:
        # four 2s (or more) win at once: nothing else is worth as much
        wins = [p for p in plays if p.rank == TWO and p.count >= 4]
        if wins:
            return wins[0]
    # Go out when one play empties the hand (not when that costs the place).
    for play in plays:
        if play.count == facts.left and not facts.costly_finish(play):
            return play
    if facts.top is None:
        return _lead(facts, plays)
    return _follow(facts, plays, can_pass)


def _lead(facts: Facts, plays: Sequence[Play]) -> Action:
    whole = [p for p in plays if facts.whole(p)] or list(plays)
    held = facts.held
    sets_left = sum(1 for n in held if n)
    safe = facts.last_safe()
    if safe is not None:
        # keep the one rank I may go out on for the end: lead the others first
        whole = [p for p in whole if p.rank != safe] or whole
        if sets_left == 2:
            return max(whole, key=lambda p: p.count)  # do not end on a costly play
    bosses = [p for p in whole if facts.boss(p)]
    if sets_left <= 2 and bosses:
        return max(bosses, key=lambda p: p.count)  # win the lead back, then go out
    if facts.threat <= 2:
        # the next player may go out on a cheap lead: lead a set they cannot match in size
        big = [p for p in whole if p.count > facts.threat]
        if big:
            return min(big, key=lambda p: facts.power(p))
    if facts.rules.emperor:
        # an emperor sheds four cards and keeps the lead (only an emperor answers it),
        # and turns the order over: led when the cards left are stronger after that
        emperors = [p for p in plays if is_emperor(p)]
        if emperors and revolution_helps(facts, emperors[0]):
            return min(emperors, key=lambda p: facts.power(p))
        whole = [p for p in whole if not is_emperor(p)] or whole
    runs = [p for p in whole if p.rank < 0 and not facts.precious(p)]
    if runs:
        # a sequence sheds three cards or more that belong to no set: the longest, lowest
        return max(runs, key=lambda p: (p.count, -facts.power(p)))
    cheap = [p for p in whole if not facts.precious(p)] or whole
    low = min(facts.power(p) for p in cheap)
    rules = facts.rules
    if (rules.ten_discard or rules.seven_pass) and facts.left > 3:
        # 10s and 7s shed more than they hold (a discard, a handover): worth a little rank
        named = {TEN} if rules.ten_discard else set()
        named |= {SEVEN} if rules.seven_pass else set()
        shedders = [p for p in cheap if facts.power(p) <= low + 3 and named & set(naturals(p))]
        if shedders:
            return min(shedders, key=lambda p: facts.power(p))
    return max((p for p in cheap if facts.power(p) == low), key=lambda p: p.count)


def is_emperor(play: Play) -> bool:
    """Four natural cards of four suits that are not one set: under `emperor` the only
    such play is an emperor (a sequence is of one suit)."""
    return (
        play.rank < 0
        and play.count == 4
        and not play.jokers
        and len({card.suit for card in play.cards}) == 4
    )


def revolution_helps(facts: Facts, play: Play) -> bool:
    """Whether the cards left after `play` are stronger, all told, in the order a
    revolution would bring than in the order in force (jokers aside)."""
    held = list(facts.held)
    for card in play.cards:
        held[card.rank] -= 1
    now, after = ORDER[facts.revolution], ORDER[not facts.revolution]
    return sum((after[rank] - now[rank]) * held[rank] for rank in range(13)) > 0


#: With two sets left, follow with one nobody can beat, and lead the other out.
BOSS_FINISH = True


def _follow(facts: Facts, plays: Sequence[Play], can_pass: bool) -> Action:
    top = facts.top
    assert top is not None
    order, left = facts.order, facts.left
    pressing = facts.threat <= 2 or (top.owner != facts.seat and left <= 3)
    safe = facts.last_safe()
    if safe is not None:
        # keep the one rank I may go out on for the end
        kept = [p for p in plays if p.rank != safe]
        if not kept and can_pass:
            return PASS
        plays = kept or plays
    held = facts.held
    if BOSS_FINISH and sum(1 for n in held if n) == 2:
        # two sets left: one nobody can beat takes the trick, and the other then goes
        # out as a lead (a newcomer's pass: the normal bot put its ace on a jack, holding
        # a 2 none could beat, and the 2 that beat the ace came last)
        for play in plays:
            if play.rank >= 0 and facts.whole(play) and facts.boss(play):
                rest = [r for r in range(14) if held[r] and r != play.rank]
                if len(rest) == 1 and not facts.costly_rank(rest[0]):
                    return play
    # the cheapest answer that keeps its set whole, cheap ones before precious ones
    best: Play | None = None
    best_key = (2, 99, 99)
    for play in plays:
        if not facts.whole(play):
            continue
        key = (facts.precious(play), facts.power(play), play.count)
        if key < best_key:
            best, best_key = play, key
    if best is not None:
        if not best_key[0]:
            return best
        # a 2 (or another card that buys the lead) is worth it as the cheapest answer
        # to a high pile, near the end, or against a player about to go out
        if pressing or left <= 4 or top_power(top, order) >= order[11] - 1:
            return best
        if best.rank >= 0 and judge_for(facts.rules).clears(best.rank, best.count) and left <= 6:
            return best
    if pressing or not can_pass:
        return min(plays, key=lambda p: (facts.precious(p), facts.power(p), p.jokers))
    return PASS


def view_facts(view: SeatView, rows: Sequence[Row] | None = None, count: bool = True) -> Facts:
    rows = rows if rows is not None else view.rows
    return Facts(
        view.rules,
        view.seat,
        rank_counts(rows),
        view.top,
        view.reversed,
        view.counts,
        unseen_counts(view) if count else None,
        view.hand if judge_for(view.rules).suits_matter() else (),
    )

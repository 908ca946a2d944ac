"""The belief: where the cards this seat cannot see are likely to be, from everything
public to it, and worlds (every seat's hand) sampled from it for a search.

What it uses:

- card counts, the cards out (`played`) and its own hand;
- the exchange: what it gave or returned (the receiver holds those until they are
  played), and what the rules force: a give is the giver's best cards
  (`seating.highest_first`), so a seat that gave me cards holds nothing above the lowest
  of them; an automatic return is the returner's lowest cards (`lowest_first`), so a seat
  that returned to me automatically holds nothing below the highest of them;
- every play and pass of the hand (`view.history`), replayed publicly (`public_steps`)
  to know the pile each one faced, and weighed by a soft opponent model (`Model`): the
  heuristic and greedy bots' habits as penalties, not certainties (passing with a cheap
  whole answer in hand, leading above a rank still held, breaking a set), since an
  opponent may be any bot or a person.  Under `must_beat` a pass is a hard constraint.

Every piece of evidence bears on one seat's count of one rank at one moment, and that
count is the seat's count now plus what it played since (known), so the whole belief is
a table of log-weights per (seat, rank, count) plus per-(seat, card) bans.  Worlds are
drawn from it by a Metropolis chain of card swaps between opponents (`Belief.sample`);
`Believer` keeps the evidence and the chain from one decision of a hand to the next.
`scripts/bench_belief.py` measures it against uniform dealing (docs/bots.md, "The
belief")."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from president.engine import (
    CARDS,
    Card,
    Gave,
    Pass,
    Play,
    Rules,
    SeatView,
    Top,
    Trick,
    deck,
    judge_for,
)
from president.engine.cards import JOKER_RANK, KINDS, SEVEN, SIX, TWO
from president.engine.seating import highest_first, lowest_first

from .heuristic import ORDER

#: The log-weight of breaking a rule of the game (an exchange cap, a pass under
#: `must_beat`): large enough that a chain leaves such worlds at once, finite so that it
#: can start in one.
HARD = 40.0

#: The chain's swaps per unknown card: before the first world of a decision (a quarter
#: of it when the chain starts from the last decision's world), and between two worlds.
BURN = 30.0
THIN = 1.0

#: A card's rank, by card id.
RANK = tuple(card.rank for card in CARDS)


@dataclass(frozen=True)
class Model:
    """The opponent model: the log-likelihood penalty of each habit broken (0: no
    evidence).  The defaults are set by hand from what the heuristic and greedy bots
    do, and checked on recorded games: twice them loses (docs/bots.md, "The belief")."""

    #: A lead while holding a lower rank that is neither a 2 nor a joker.
    lead_lower: float = 2.0
    #: A lead that breaks its set (plays fewer than the rank's cards held).
    broken: float = 2.5
    #: A follow that breaks its set (the greedy bot does, the heuristic bot does not).
    broken_follow: float = 1.5
    #: A follow above a cheaper rank held whole that would have answered.
    cheaper_whole: float = 2.0
    #: A follow above a cheaper rank that would have answered broken.
    cheaper_broken: float = 0.5
    #: A pass holding a rank (neither a 2 nor a joker) whole that answers.
    pass_whole: float = 2.0
    #: A pass holding an answer only by breaking a set, or a 2 or a joker.
    pass_any: float = 0.8


#: The model of an opponent that may do anything legal: only the rules' own constraints.
RULES_ONLY = Model(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
MODEL = Model()


# --- the public replay of the hand ---------------------------------------------------


class Step:
    """One move of the hand and the table it faced: the pile, the order in force
    (`revolution`: reversed by a revolution or a jack), whether it was the game's opening
    play, and whether what answers the pile is a matter of rank and size alone (`plain`:
    no suit, step or colour lock, no sequence on the pile)."""

    __slots__ = ("action", "opening", "plain", "revolution", "seat", "top")

    def __init__(
        self,
        seat: int,
        action: Play | Pass,
        top: Top | None,
        revolution: bool,
        opening: bool,
        plain: bool = True,
    ) -> None:
        self.seat, self.action, self.top = seat, action, top
        self.revolution, self.opening, self.plain = revolution, opening, plain


class PublicTrick:
    """The engine's trick bookkeeping (`Game._play`, `Game._pass`) without any hand:
    from the card counts at the start of the play, which pile each move faced."""

    def __init__(self, rules: Rules, counts: Sequence[int], opening: bool) -> None:
        self.rules = rules
        players = len(counts)
        self.held = list(counts)
        self.holding = sum(1 << s for s, n in enumerate(counts) if n)
        self.clockwise = [
            tuple((s + i) % players for i in range(1, players)) for s in range(players)
        ]
        self.top: Top | None = None
        self.revolution = False
        self.opening = opening
        self.answered = 0
        self.locked = 0

    def step(self, seat: int, action: Play | Pass) -> Step:
        step = Step(seat, action, self.top, self.revolution, self.opening)
        if type(action) is Play:
            self._play(seat, action)
        elif self.top is not None:
            self._pass(seat, self.top)
        return step

    def _play(self, seat: int, play: Play) -> None:
        rules = self.rules
        rank, count = play.rank, play.count
        self.held[seat] -= count
        self.opening = False
        cleared = judge_for(rules).clears(rank, 1) or (count >= 4 and rules.bombs)
        if count >= 4 and rules.revolution:
            self.revolution = not self.revolution
        top = self.top
        skip = rules.equal_plays == "skip" and top is not None and top.rank == rank and not cleared
        if not self.held[seat]:
            self.holding &= ~(1 << seat)
        if cleared:
            self._end()
            return
        self.top = Top(seat, rank, count, play.jokers)
        self.answered = 0
        able = self.holding & ~self.locked
        turn: int | None = next((s for s in self.clockwise[seat] if able >> s & 1), None)
        if turn is not None and skip:
            self.answered = 1 << turn
            turn = next((s for s in self.clockwise[turn] if able >> s & 1), None)
        if turn is None or not able & ~(self.answered | 1 << seat):
            self._end()

    def _pass(self, seat: int, top: Top) -> None:
        self.answered |= 1 << seat
        if self.rules.passing == "locked":
            self.locked |= 1 << seat
        if not self.holding & ~(self.answered | self.locked | 1 << top.owner):
            self._end()

    def _end(self) -> None:
        self.top, self.answered, self.locked = None, 0, 0


class VariantTrick:
    """`PublicTrick` where suits matter or plays have effects (`Judge.suits_matter`):
    what each play does is the judge's answer (`Judge.effects_of`: the clear, the
    revolution, the jack, the lock, the pile, the skips, the direction), and the
    bookkeeping around it the engine's (`Game._play_variant`, `_resume`, `_pass`,
    `_end_trick`), without hands.  Hand-overs and discards change card counts out of
    sight, so who still holds cards is not counted but read from the hand's end: `exits`
    maps a move's index to the seat that went out with it (its last play, its count now
    0); going out at once (great_revolution, lucky_seven) and a President's fall
    (capital_fall) the replay finds itself."""

    def __init__(self, view: SeatView, opening: bool) -> None:
        rules = self.rules = view.rules
        self.judge = judge_for(rules)
        players = self.players = len(view.counts)
        self.holding = (1 << players) - 1
        self.exits = exits_of(view)
        self.places = view.places
        #: Seats out this hand not at the bottom (the next such one's place).
        self.normal = 0
        standing = view.standing
        self.president = (
            view.seating.index(standing[0])
            if rules.capital_fall and standing and standing[0] in view.seating
            else None
        )
        self.top: Top | None = None
        self.revolution = self.jack = self.backwards = self.omened = False
        self.lock: tuple[int, ...] = ()
        self.opening = opening
        self.answered = self.locked = 0
        self.locks = rules.passing == "locked" or rules.one_time_around
        #: The plays of the trick in progress.
        self.plays: list[tuple[int, Play]] = []
        self.moves = 0
        self.first_out = False
        #: A seat whose last play owed a due that emptied its hand (`_play`).
        self._due_out: int | None = None
        #: Seats handed cards this hand (seven_pass): what the exchange said of their
        #: hands holds no more.
        self.received: set[int] = set()

    def trick(self) -> Trick:
        """What the next move is judged against (`Game._trick`)."""
        rules, judge = self.rules, self.judge
        reversed_ = self.revolution != self.jack
        step = rules.step_lock and judge.stepped(self.plays, reversed_)
        colour = judge.coloured(self.plays) if rules.colour_lock else -1
        return Trick(self.top, reversed_, self.lock, self.opening, step, colour)

    def step(self, seat: int, action: Play | Pass) -> Step:
        trick = self.trick()
        top = trick.top
        plain = not (trick.lock or trick.step or trick.colour >= 0 or (top and top.run))
        step = Step(seat, action, top, trick.reversed, self.opening, plain)
        index = self.moves
        self.moves += 1
        if type(action) is Play:
            self._play(seat, action, trick, self.exits.get(index) == seat)
        elif top is not None:
            self._pass(seat, top)
        return step

    def _play(self, seat: int, play: Play, trick: Trick, out: bool) -> None:
        rules = self.rules
        effects = self.judge.effects_of(seat, play, trick, out)
        if out and effects.bottom and not effects.wins:
            # its last play, but perhaps not its last cards: a play holding 7s or 10s
            # owes a handover or a discard, and paying it can empty the hand (out of
            # sight); then it went out by the due, at the top of the free places, not on
            # the play at the bottom (a hypothesis example: a 7 and a joker, then the
            # last two cards handed over, first, and the President fell)
            owing = self.judge.effects_of(seat, play, trick, False)
            place = self.places[seat] if self.places else None
            if owing.dues and place == self.normal:
                effects, out = owing, False
                self._due_out = seat
        self.opening = False
        if effects.revolt and not self.omened:
            self.revolution = not self.revolution
        if rules.omen and play.rank == SIX and play.count >= 3:
            self.omened = True
        if effects.unreverses and self.jack:
            self.jack = False
        elif effects.jack:
            self.jack = not self.jack
        if effects.turns:
            self.backwards = not self.backwards
        self.lock, self.top = effects.lock, effects.pile
        self.plays.append((seat, play))
        if any(kind == "handover" for kind, _ in effects.dues):
            # (`Game._pay_due`: to the next seat holding cards, out of sight)
            receiver = next((s for s in self._after(seat) if self.holding >> s & 1), None)
            if receiver is not None:
                self.received.add(receiver)
        if rules.one_time_around:
            self.locked |= 1 << seat
        if out or effects.wins:
            self._out(seat, effects.bottom and not effects.wins)
        elif self._due_out == seat:  # (gone by the due it paid: `Game._pay_due`)
            self._due_out = None
            self._out(seat, False)
        if effects.cleared:
            self._end(seat)
            return
        able = self.holding & ~self.locked
        others = [other for other in self._after(seat) if able >> other & 1]
        skips = effects.skips
        self.answered = 0
        for other in others[:skips]:
            self.answered |= 1 << other
            if rules.one_time_around:
                self.locked |= 1 << other
        if len(others) <= skips:
            self._end(seat)

    def _pass(self, seat: int, top: Top) -> None:
        self.answered |= 1 << seat
        if self.locks:
            self.locked |= 1 << seat
        if not self.holding & ~(self.answered | self.locked | 1 << top.owner):
            self._end(top.owner)

    def _after(self, seat: int) -> list[int]:
        """The other seats in the direction of play, from `seat`."""
        way = -1 if self.backwards else 1
        return [(seat + way * i) % self.players for i in range(1, self.players)]

    def _out(self, seat: int, bottom: bool) -> None:
        self.holding &= ~(1 << seat)
        if not bottom:
            self.normal += 1
        if bottom or self.first_out:
            return
        self.first_out = True
        fallen = self.president
        if fallen is not None and fallen != seat and self.holding >> fallen & 1:
            self.holding &= ~(1 << fallen)

    def _end(self, winner: int) -> None:
        plays = self.plays
        if self.rules.lucky_seven and self.holding >> winner & 1 and plays:
            owner, last = plays[-1]
            if owner == winner and last.rank == SEVEN and last.count >= 3:
                self._out(winner, False)
        self.top, self.answered, self.locked = None, 0, 0
        self.jack, self.lock = False, ()
        self.plays = []


def exits_of(view: SeatView) -> dict[int, int]:
    """By the index of a move in `view.history`, the seat that went out with it: the last
    play of each seat that has a place and no cards left."""
    last: dict[int, int] = {}
    for at, (seat, action) in enumerate(view.history):
        if type(action) is Play:
            last[seat] = at
    places, counts = view.places, view.counts
    return {
        at: seat
        for seat, at in last.items()
        if places and places[seat] is not None and not counts[seat]
    }


def start_counts(view: SeatView) -> list[int] | None:
    """Each seat's card count when the play began, or None if `history` does not hold
    the whole hand (a client that joined mid-hand) or could not be this hand's (a seat
    beyond the table, a play that is not one set, plays that are not `played`)."""
    counts = list(view.counts)
    if not _sound(view.history, len(counts)):
        return None
    cards: list[Card] = []
    for seat, action in view.history:
        if type(action) is Play:
            counts[seat] += action.count
            cards += action.cards
    return counts if tuple(cards) == view.played else None


def _sound(history: Sequence[tuple[int, Play | Pass]], seats: int) -> bool:
    """Every move of `history` names a seat of the table and a play of one set."""
    return all(
        0 <= seat < seats and (type(action) is not Play or action.rank >= 0)
        for seat, action in history
    )


def public_trick(view: SeatView) -> PublicTrick | VariantTrick | None:
    """The public replay of `view`'s hand from its start (a `VariantTrick` where the judge
    says suits matter), or None if `history` does not hold the whole hand or the rules
    let a card played come back into a hand."""
    if view.rules.takes:
        return None  # a card played may come back into a hand (salvage...): not followed
    if judge_for(view.rules).suits_matter():
        return VariantTrick(view, _opening(view)) if whole_hand(view) else None
    counts = start_counts(view)
    return None if counts is None else PublicTrick(view.rules, counts, _opening(view))


def whole_hand(view: SeatView) -> bool:
    """Under the variants: whether `history` holds the whole hand, every move naming a
    seat of the table and the plays' cards, in order, among the cards out (`played`,
    which holds the discards too: ten_discard)."""
    seats = len(view.counts)
    shown = iter(view.played)
    for seat, action in view.history:
        if not 0 <= seat < seats:
            return False
        if type(action) is Play and not all(card in shown for card in action.cards):
            return False
    return sum(a.count for _, a in view.history if type(a) is Play) == len(view.played) or bool(
        view.rules.ten_discard
    )


def public_steps(view: SeatView) -> list[Step] | None:
    """Every move of `view.history` with the pile it faced; None without the whole hand."""
    trick = public_trick(view)
    if trick is None:
        return None
    return [trick.step(seat, action) for seat, action in view.history]


def _opening(view: SeatView) -> bool:
    return not view.standing and view.rules.first_lead == "three_of_clubs"


# --- the evidence ----------------------------------------------------------------------


def copies_of(rules: Rules) -> list[int]:
    """How many cards of each rank the deck holds."""
    copies = [0] * 14
    for card in deck(rules.decks, rules.jokers):
        copies[card.rank] += 1
    return copies


class Evidence:
    """Per opponent seat and rank, log-weights over the count of that rank the seat held
    when the play began (`start[seat][rank][count]`); moves are added one at a time, so
    a `Believer` adds only the new ones at each decision."""

    def __init__(self, view: SeatView, model: Model) -> None:
        self.model = model
        self.rules = view.rules
        self.me = view.seat
        self.copies = copies_of(view.rules)
        seats = len(view.counts)
        self.start = [[[0.0] * (n + 1) for n in self.copies] for _ in range(seats)]
        #: Per seat and rank, the cards played so far in the moves added.
        self.played = [[0] * 14 for _ in range(seats)]
        trick = public_trick(view)
        self.complete = trick is not None
        self.trick = trick or PublicTrick(view.rules, view.counts, _opening(view))
        self.moves = 0

    def add(self, history: Sequence[tuple[int, Play | Pass]], view: SeatView | None = None) -> None:
        """Weigh the moves of `history` (`view.history`, when the view is given) not added
        yet."""
        if not self.complete:
            return
        trick = self.trick
        fresh = history[self.moves :]
        if type(trick) is VariantTrick:
            if view is not None:
                trick.exits = exits_of(view)  # who went out with the moves added now
            sound = all(0 <= seat < len(self.start) for seat, _ in fresh)
        else:
            sound = _sound(fresh, len(self.start))
        if not sound:
            self.complete = False  # not this table's hand: no evidence
            return
        for seat, action in fresh:
            step = trick.step(seat, action)
            if seat != self.me:
                self._weigh(step)
            if type(action) is Play:
                done = self.played[seat]
                for card in action.cards:
                    done[card.rank] += 1
        self.moves = len(history)

    def holds_bans(self, seat: int, view: SeatView) -> bool:
        """Whether what the exchange rules out of `seat`'s hand still holds: not once it
        may have been handed cards (seven_pass; without the replay, once any 7 is out)."""
        if not self.rules.seven_pass:
            return True
        trick = self.trick
        if type(trick) is VariantTrick and self.complete:
            return seat not in trick.received
        return not sevens_played(view)

    def _weigh(self, step: Step) -> None:
        table, done = self.start[step.seat], self.played[step.seat]
        for rank, penalty in self._penalties(step):
            row, offset = table[rank], done[rank]
            for held, cost in enumerate(penalty):
                if cost and held + offset < len(row):
                    row[held + offset] = min(row[held + offset], -cost)

    def _penalties(self, step: Step) -> tuple[tuple[int, tuple[float, ...]], ...]:
        """(rank, penalty by the count of the rank held just before the move)."""
        top, action = step.top, step.action
        if type(action) is Play and action.rank < 0:
            return ()  # a sequence: what it says of the hand is not modelled
        shape = None if top is None else (top.rank, top.size, top.jokers)
        play = (action.rank, action.count, action.jokers) if type(action) is Play else None
        return _penalties(
            self.rules, self.model, shape, step.revolution, step.opening, play, step.plain
        )


@functools.lru_cache(maxsize=1 << 16)
def _penalties(
    rules: Rules,
    model: Model,
    shape: tuple[int, int, int] | None,
    revolution: bool,
    opening: bool,
    play: tuple[int, int, int] | None,
    plain: bool = True,
) -> tuple[tuple[int, tuple[float, ...]], ...]:
    """A move's penalties, (rank, penalty by the count of the rank held just before it):
    a play of `play` = (rank, count, jokers) or a pass, on a pile of `shape` = (rank,
    size, jokers) or a lead; `plain`: what answers the pile is a matter of rank and size
    alone (`Step.plain`), else only a broken set is weighed.  The same few shapes recur
    all game: cached."""
    return tuple(
        (rank, tuple(row))
        for rank, row in _penalty_rows(rules, model, shape, revolution, opening, play, plain)
    )


def _penalty_rows(
    rules: Rules,
    model: Model,
    shape: tuple[int, int, int] | None,
    revolution: bool,
    opening: bool,
    play: tuple[int, int, int] | None,
    plain: bool = True,
) -> list[tuple[int, list[float]]]:
    copies = copies_of(rules)
    top = None if shape is None else Top(0, *shape)
    order = ORDER[revolution]
    out: list[tuple[int, list[float]]] = []

    def precious(rank: int) -> bool:
        return rank == JOKER_RANK or (rank == TWO and not revolution)

    if play is not None:
        rank, count, jokers = play
        cost = model.broken if top is None else model.broken_follow
        if rank != JOKER_RANK and not jokers and cost:
            out.append((rank, [cost if n > count else 0.0 for n in range(copies[rank] + 1)]))
        if top is not None and not plain:
            return out
        if top is None:
            if opening or not model.lead_lower:
                return out
            for other in range(13):
                if other != rank and not precious(other) and order[other] < order[rank]:
                    out.append(
                        (
                            other,
                            [model.lead_lower if n else 0.0 for n in range(copies[other] + 1)],
                        )
                    )
            return out
        for other in range(13):
            if other == rank or precious(other):
                continue
            if not precious(rank) and order[other] >= order[rank]:
                continue
            sizes = _sizes(rules, top, revolution, other, copies[other])
            if sizes:
                least = sizes[0]
                out.append(
                    (
                        other,
                        [
                            model.cheaper_whole
                            if n in sizes
                            else (model.cheaper_broken if n >= least else 0.0)
                            for n in range(copies[other] + 1)
                        ],
                    )
                )
        return out
    if top is None or not plain:
        return out
    for rank in range(14):
        sizes = _sizes(rules, top, revolution, rank, copies[rank])
        if not sizes:
            continue
        least = sizes[0]
        if rules.must_beat:
            out.append((rank, [HARD if n >= least else 0.0 for n in range(copies[rank] + 1)]))
        elif precious(rank):
            if model.pass_any:
                out.append(
                    (
                        rank,
                        [model.pass_any if n >= least else 0.0 for n in range(copies[rank] + 1)],
                    )
                )
        else:
            out.append(
                (
                    rank,
                    [
                        model.pass_whole if n in sizes else (model.pass_any if n >= least else 0.0)
                        for n in range(copies[rank] + 1)
                    ],
                )
            )
    return out


def _sizes(rules: Rules, top: Top, revolution: bool, rank: int, most: int) -> list[int]:
    """The set sizes of `rank` (naturals alone, or jokers alone) that may answer `top`."""
    judge = judge_for(rules)
    return [n for n in range(1, most + 1) if judge.beats(top, revolution, rank, n)]


def unseen_copies(view: SeatView) -> list[int]:
    """Per card kind (`Card.id`), the copies of the deck neither in this seat's hand nor
    out this hand (played or discarded)."""
    left = [0] * KINDS
    for card in deck(view.rules.decks, view.rules.jokers):
        left[card.id] += 1
    for card in (*view.hand, *view.played):
        left[card.id] -= 1
    return left


def sevens_played(view: SeatView) -> set[int]:
    """Under seven_pass, the seats that have played 7s this hand: each may have handed
    cards on, out of sight (`VariantTrick.received` says to whom, where the hand is
    replayed)."""
    if not view.rules.seven_pass:
        return set()
    return {
        seat
        for seat, action in view.history
        if type(action) is Play and any(card.rank == SEVEN for card in action.cards)
    }


def known_cards(view: SeatView) -> dict[int, list[Card]]:
    """Cards this seat knows to be in another hand: what it gave or returned in the
    exchange, less what came back to it (a return may hand back a card just given, a
    7-pass one just returned: seven_pass) and what has been played since (as many
    copies as are left).  A seat that
    has played 7s under seven_pass may have handed its known cards on, out of sight:
    they are known no more."""
    known: dict[int, list[Card]] = {}
    for event in view.exchange:
        if event.giver == view.seat:
            known.setdefault(event.receiver, []).extend(event.cards)
        elif event.receiver == view.seat:
            mine = known.get(event.giver, [])
            for card in event.cards:
                if card in mine:
                    mine.remove(card)
    for seat in sevens_played(view):
        known.pop(seat, None)
    left = unseen_copies(view)  # what is in my hand or out is not in theirs
    for cards in known.values():
        kept = []
        for card in cards:
            if left[card.id] > 0:
                left[card.id] -= 1
                kept.append(card)
        cards[:] = kept
    return {seat: cards for seat, cards in known.items() if cards}


def banned_cards(view: SeatView) -> dict[int, set[int]]:
    """Per seat, the card kinds the exchange rules out of its hand: above the lowest card
    it gave me (gives are the giver's best cards), below the highest card it returned to
    me automatically (automatic returns are the returner's lowest)."""
    banned: dict[int, set[int]] = {}
    for event in view.exchange:
        if event.receiver != view.seat or event.giver == view.seat or not event.cards:
            continue
        if isinstance(event, Gave):
            cap = max(highest_first(card) for card in event.cards)
            out = {c.id for c in CARDS if highest_first(c) < cap}
        elif event.automatic:
            floor = max(lowest_first(card) for card in event.cards)
            out = {c.id for c in CARDS if lowest_first(c) < floor}
        else:
            continue
        banned.setdefault(event.giver, set()).update(out)
    return banned


# --- worlds ------------------------------------------------------------------------------


class Belief:
    """The cards this seat cannot see, weighed by what it has seen; `sample` deals one
    world from it.  Made by `belief_of` (from scratch) or a `Believer` (carried over
    from the last decision of the hand)."""

    def __init__(
        self,
        view: SeatView,
        evidence: Evidence,
        start: dict[int, list[int]] | None = None,
        burn: float = BURN,
        thin: float = THIN,
    ) -> None:
        seats = len(view.counts)
        self.view = view
        me = view.seat
        self.mine = list(view.hand)
        known = known_cards(view)
        self.known = {s: cards[: view.counts[s]] for s, cards in known.items()}
        left = unseen_copies(view)
        for cards in self.known.values():
            for card in cards:
                left[card.id] -= 1
        #: The cards nobody is known to hold, and how many each seat holds of them.
        self.unknown = [i for i in range(KINDS) for _ in range(max(0, left[i]))]
        self.room = [
            0 if s == me else view.counts[s] - len(self.known.get(s, ())) for s in range(seats)
        ]
        self.seats = [s for s in range(seats) if self.room[s] > 0]
        # log-weights by the count held now: the count at the start less what was played
        self.weights: list[list[list[float]]] = []
        for s in range(seats):
            table = evidence.start[s]
            done = evidence.played[s]
            if evidence.complete:
                self.weights.append([table[r][done[r] :] or [0.0] for r in range(14)])
            else:
                self.weights.append([[0.0] * (n + 1) for n in evidence.copies])
        self._pad()
        self.bans = [[0.0] * KINDS for _ in range(seats)]
        for s, out in banned_cards(view).items():
            if not evidence.holds_bans(s, view):
                continue
            for card_id in out:
                self.bans[s][card_id] = -HARD
        if not evidence.complete:
            self._current_trick_passes()
        self.burn = burn
        self.thin = thin
        self._state: tuple[list[int], list[int], list[list[int]]] | None = None
        self._start = start

    def _pad(self) -> None:
        """Tables long enough for any count (a seat can never hold more than the deck's
        copies, so the padding is never weighed)."""
        for table in self.weights:
            for r in range(14):
                row = table[r]
                if len(row) < 9:
                    row.extend([row[-1]] * (9 - len(row)))

    def _current_trick_passes(self) -> None:
        """Without the hand's history: who passed on the pile as it is holds no play
        that beats it under `must_beat` (the rules' own constraint)."""
        view = self.view
        if view.top is None or not view.rules.must_beat:
            return
        copies = copies_of(view.rules)
        for s, passed in enumerate(view.passed):
            if not passed or s == view.seat:
                continue
            for rank in range(14):
                sizes = _sizes(view.rules, view.top, view.revolution, rank, copies[rank])
                if sizes:
                    row = self.weights[s][rank]
                    for n in range(sizes[0], len(row)):
                        row[n] -= HARD

    # --- the chain ---

    def _fresh(self, rng: random.Random) -> tuple[list[int], list[int], list[list[int]]]:
        """A first assignment, card by card (the most banned first), each to a seat with
        room drawn by its room times the weight the card adds there: a start near the
        belief, which the chain's burn-in then forgets."""
        room = list(self.room)
        bans, weights = self.bans, self.weights
        cards = list(self.unknown)
        rng.shuffle(cards)
        cards.sort(key=lambda c: sum(1 for s in self.seats if bans[s][c]), reverse=True)
        held = self._known_held()
        owner: list[int] = []
        for card in cards:
            rank = RANK[card]
            free = [s for s in self.seats if room[s]]
            gains = [
                bans[s][card]
                + weights[s][rank][held[s][rank] + 1]
                - weights[s][rank][held[s][rank]]
                for s in free
            ]
            best = max(gains)
            seat = rng.choices(free, [room[s] * math.exp(g - best) for s, g in zip(free, gains)])[0]
            room[seat] -= 1
            held[seat][rank] += 1
            owner.append(seat)
        return self._counted(cards, owner)

    def _carried(
        self, start: dict[int, list[int]], rng: random.Random
    ) -> tuple[list[int], list[int], list[list[int]]]:
        """The last decision's assignment, less the cards played since, topped up with
        the cards left over at random."""
        left: dict[int, int] = {}
        for card in self.unknown:
            left[card] = left.get(card, 0) + 1
        cards: list[int] = []
        owner: list[int] = []
        room = list(self.room)
        for seat in self.seats:
            for card in start.get(seat, ()):
                if room[seat] and left.get(card, 0):
                    left[card] -= 1
                    room[seat] -= 1
                    cards.append(card)
                    owner.append(seat)
        rest = [card for card, n in left.items() for _ in range(n)]
        rng.shuffle(rest)
        at = 0
        for seat in self.seats:
            for card in rest[at : at + room[seat]]:
                cards.append(card)
                owner.append(seat)
            at += room[seat]
        return self._counted(cards, owner)

    def _known_held(self) -> list[list[int]]:
        """Per seat and rank, the known cards it holds."""
        held = [[0] * 14 for _ in self.room]
        for seat, known in self.known.items():
            for known_card in known:
                held[seat][known_card.rank] += 1
        return held

    def _counted(
        self, cards: list[int], owner: list[int]
    ) -> tuple[list[int], list[int], list[list[int]]]:
        held = self._known_held()
        for card, seat in zip(cards, owner):
            held[seat][RANK[card]] += 1
        return cards, owner, held

    def _walk(self, rng: random.Random, swaps: int) -> None:
        """`swaps` Metropolis steps: two cards of two opponents trade places."""
        assert self._state is not None
        cards, owner, held = self._state
        n = len(cards)
        if n < 2 or len(self.seats) < 2:
            return
        weights, bans = self.weights, self.bans
        rand, exp = rng.random, math.exp
        for _ in range(swaps):
            i = int(rand() * n)
            j = int(rand() * n)
            a, b = owner[i], owner[j]
            if a == b:
                continue
            ci, cj = cards[i], cards[j]
            ba, bb = bans[a], bans[b]
            delta = ba[cj] + bb[ci] - ba[ci] - bb[cj]
            ri, rj = RANK[ci], RANK[cj]
            if ri != rj:
                ha, hb = held[a], held[b]
                wa, wb = weights[a], weights[b]
                x, y = ha[ri], ha[rj]
                delta += wa[ri][x - 1] - wa[ri][x] + wa[rj][y + 1] - wa[rj][y]
                x, y = hb[rj], hb[ri]
                delta += wb[rj][x - 1] - wb[rj][x] + wb[ri][y + 1] - wb[ri][y]
                if delta < 0 and rand() >= exp(delta):
                    continue
                ha[ri] -= 1
                ha[rj] += 1
                hb[rj] -= 1
                hb[ri] += 1
            elif delta < 0 and rand() >= exp(delta):
                continue
            cards[i], cards[j] = cj, ci

    def sample(self, rng: random.Random) -> list[list[Card]]:
        """Every seat's hand in one world drawn from the belief: mine as I hold it, the
        known cards where they are, each seat's count as `view.counts` says."""
        unknown = len(self.unknown)
        if self._state is None:
            if self._start is not None:
                self._state = self._carried(self._start, rng)
                self._walk(rng, int(self.burn * unknown / 4) + 1)
            else:
                self._state = self._fresh(rng)
                self._walk(rng, int(self.burn * unknown) + 1)
        else:
            self._walk(rng, int(self.thin * unknown) + 1)
        cards, owner, _ = self._state
        hands: list[list[Card]] = [list(self.known.get(s, ())) for s in range(len(self.room))]
        hands[self.view.seat] = list(self.mine)
        for card, seat in zip(cards, owner):
            hands[seat].append(CARDS[card])
        return hands

    def assignment(self) -> dict[int, list[int]]:
        """The chain's last world, by seat (card ids), for the next decision to start from."""
        out: dict[int, list[int]] = {}
        if self._state is not None:
            cards, owner, _ = self._state
            for card, seat in zip(cards, owner):
                out.setdefault(seat, []).append(card)
        return out

    def log_weight(self, hands: Sequence[Sequence[Card]]) -> float:
        """The belief's log-weight of a world (up to a constant): for importance sampling."""
        total = 0.0
        for seat in self.seats:
            held = [0] * 14
            bans = self.bans[seat]
            for card in hands[seat]:
                held[card.rank] += 1
                total += bans[card.id]
            table = self.weights[seat]
            total += sum(table[r][held[r]] for r in range(14))
        return total


def belief_of(view: SeatView, model: Model = MODEL) -> Belief:
    """The belief of `view`'s seat, from scratch."""
    evidence = Evidence(view, model)
    evidence.add(view.history, view)
    return Belief(view, evidence)


class Believer:
    """A seat's belief carried through a hand: the evidence of the moves seen so far is
    kept (only new moves are weighed), and each decision's chain starts from the last
    one's world.  Keep one per seat for the game; it starts over at each hand."""

    def __init__(self, model: Model = MODEL, burn: float = BURN, thin: float = THIN) -> None:
        self.model, self.burn, self.thin = model, burn, thin
        self._key: tuple[object, ...] | None = None
        self._seen: tuple[tuple[int, Play | Pass], ...] = ()
        self._evidence: Evidence | None = None
        self._last: Belief | None = None

    def belief(self, view: SeatView) -> Belief:
        key = (view.hand_number, view.seat, view.seating, view.exchange)
        evidence = self._evidence
        history = view.history
        if (
            key != self._key
            or evidence is None
            or evidence.moves > len(history)
            or history[: evidence.moves] != self._seen
            or (evidence.complete and public_trick(view) is None)
        ):
            evidence = self._evidence = Evidence(view, self.model)
            self._key, self._last = key, None
        evidence.add(history, view)
        self._seen = history
        start = self._last.assignment() if self._last is not None else None
        belief = Belief(view, evidence, start=start or None, burn=self.burn, thin=self.thin)
        self._last = belief
        return belief


def uniform_log_likelihood(view: SeatView, hands: Sequence[Sequence[Card]]) -> tuple[float, int]:
    """The log-likelihood of the true `hands` under dealing the unknown cards uniformly
    by counts (each unknown card is in a seat with probability its room / all unknown),
    summed over the unknown cards, and their number."""
    belief = Belief(view, Evidence(view, RULES_ONLY))
    total = len(belief.unknown)
    if not total:
        return 0.0, 0
    known = belief.known
    score = 0.0
    count = 0
    for seat in belief.seats:
        held = list(hands[seat])
        for card in known.get(seat, ()):
            held.remove(card)
        for _ in held:
            score += math.log(belief.room[seat] / total)
            count += 1
    return score, count


__all__ = [
    "MODEL",
    "RULES_ONLY",
    "Belief",
    "Believer",
    "Evidence",
    "Model",
    "PublicTrick",
    "Step",
    "VariantTrick",
    "banned_cards",
    "belief_of",
    "known_cards",
    "public_steps",
    "public_trick",
    "start_counts",
]

"""The whole game, written plainly: the `Game` a newcomer reads, top to bottom.

`PlainGame` plays exactly the game `Game` plays, and says it as simply as it can: each
hand is a list of cards, nothing is cached, and every question of what may be played
and what a play does is put to the table's judge (`judge_for(rules)`, engine/judge.py,
over engine/tricks.py and engine/moves.py), where each such rule is stated once.  This
module only puts the rules in order: the deal, the exchange, the tricks and their
passes, what a play leaves its player owing (hand-overs, discards, takes, bombs), going
out, places and points, the next hand.

`Game` (engine/state.py) is the same game made fast; tests/engine/test_plain.py holds
the two equal action by action, under every preset and random toggles: the same legal
actions, the same events, the same sentences for an illegal action, the same public
and seat views.  A new rule is stated in the judge's modules; where it is a step of the
game's sequence (when a trick ends, who goes out) it is written here first, plainly,
and then in `Game` for speed.

Left out of `Game`'s interface: what only a searching bot or the view caches use
(`from_view`, `clone`, `listing`, `cards_played`, `cards_held`).
`copy.deepcopy` copies a plain game; `apply` always checks (`checked` is accepted and
ignored)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import cast

from . import flow
from . import seating as seats
from .actions import (
    PASS,
    Action,
    Bomb,
    Discard,
    Due,
    Handover,
    Pass,
    Play,
    Return,
    Take,
)
from .cards import CARDS, Card, counts_of
from .errors import IllegalAction
from .events import (
    Bombed,
    Dealt,
    Discarded,
    Event,
    ExchangeDone,
    Fell,
    Gave,
    HandedOver,
    HandOver,
    HandStarted,
    Passed,
    Played,
    Returned,
    Skipped,
    Took,
    TrickEnded,
    WentOut,
)
from .judge import Judge, Trick, judge_for
from .moves import Row, Top
from .phase import Phase
from .rules import Rules
from .scoring import hand_points, titles_by_name
from .state import HandHistory
from .tricks import Effects
from .view import PublicView, SeatView

__all__ = ["PlainGame"]

#: The 3C, which the game's first play must hold under first_lead = "three_of_clubs".
THREE_OF_CLUBS = CARDS[0]


class PlainGame:
    """A game of President at one table, from the first deal to the winner, as plainly
    as it can be said.  The same interface as `Game` (see the module's docstring)."""

    def __init__(self, rules: Rules, players: Sequence[str]) -> None:
        names = list(players)
        seats.check_names(names)
        rules.check_players(len(names))
        self.rules = rules
        #: What may be played on what, and what a play does: asked, never restated here.
        self.judge: Judge = judge_for(rules)
        #: Everyone who ever sat, in the order they joined.
        self.players = list(names)
        self.scores = {name: 0 for name in names}
        self.phase = Phase.BETWEEN_HANDS
        #: 0-based number of the current (or last) hand; -1 before the first deal.
        self.hand = -1
        self.seating = list(names)
        self.dealer: int | None = None
        #: Names by place for this hand (last hand's finish, adjusted); None in hand 1.
        self.standing: list[str] | None = None
        self.finishes: list[list[str]] = []
        self.winners: list[str] = []
        self.history: list[HandHistory] = []
        #: Who is at the table for the next hand, and who joined since the last one.
        self.present = list(names)
        self.joined: list[str] = []
        #: Grows at each deal, each seat coming or going and each action: whenever
        #: anything may have changed (`Game` leaves it be after a plain play or pass,
        #: which moves only the cards, the pile, the passes and the turn).
        self.changes = 0
        self._start_afresh(0)

    def _start_afresh(self, players: int) -> None:
        """Everything a new hand starts without."""
        #: Each seat's cards, lowest first.
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        #: Each seat's place this hand (0 = first), None while it is still in the hand.
        self.places: list[int | None] = [None] * players
        self.turn: int | None = None
        self.top: Top | None = None
        self.revolution = False
        self.jack_back = False  # a jack reversed the order until the trick ends
        self.backwards = False  # play goes anticlockwise (nine_reverse...)
        self.lock: tuple[int, ...] = ()  # the suits this trick is locked to (suit_lock)
        self.opening = False  # the next play is the game's first: it holds the 3C
        self.omened = False  # an omen was played: no more revolutions this hand (omen)
        #: What the seat whose turn it is owes now, the dues after it, and what the play
        #: that made them does once they are paid.
        self.due: Due | None = None
        self.dues: list[tuple[str, int]] = []
        self.owing: tuple[int, Effects] | None = None
        self.passed: set[int] = set()  # passed (or were skipped) since the last play
        self.locked_out: set[int] = set()  # out of this trick (passing = "locked"...)
        #: Every play of this hand, (seat, play), and where the trick in progress starts.
        self.log: list[tuple[int, Play]] = []
        self.trick_start = 0
        #: Every play and pass (auto passes too), and every action taken, this hand.
        self.moves: list[tuple[int, Play | Pass]] = []
        self.actions: list[tuple[int, Action]] = []
        #: The cards out of play face up (played, discarded) in order, less those taken
        #: back; the cards taken back (salvage, kings_march, zombie).
        self.out: list[Card] = []
        self.taken: list[Card] = []
        self.exchanges: list[Gave | Returned] = []
        self.pending_returns: dict[int, tuple[int, int]] = {}  # receiver -> (giver, size)

    # --- between hands ---------------------------------------------------------------

    def join(self, name: str) -> None:
        """A newcomer sits down for the next hand, below everyone."""
        self._between_hands("join")
        self.changes += 1
        seats.check_names([name])
        if name in self.present:
            raise IllegalAction(f"{name} is already at the table")
        self.rules.check_players(len(self.present) + 1)
        self.present.append(name)
        if self.hand >= 0:
            self.joined.append(name)
        if name not in self.players:
            self.players.append(name)
        self.scores[name] = 0

    def leave(self, name: str) -> None:
        """A player leaves before the next hand; nobody replaces them."""
        self._between_hands("leave")
        self.changes += 1
        if name not in self.present:
            raise IllegalAction(f"{name} is not at the table")
        self.present.remove(name)
        if name in self.joined:
            self.joined.remove(name)

    def next_seating(self) -> list[str]:
        """The seating the rules give for the next hand."""
        standing = self._next_standing() if self.hand >= 0 else None
        return seats.seating_for(self.rules, self.present, self.seating, standing)

    def plan_hand(self, rng: random.Random) -> tuple[list[str], int, int]:
        """(seating, dealer, first seat dealt) for the next hand."""
        self._between_hands("deal")
        standing = self._next_standing() if self.hand >= 0 else None
        return seats.planned_hand(
            self.rules, self.present, self.seating, self.dealer, standing, rng
        )

    def start_hand(
        self,
        *,
        seating: Sequence[str] | None = None,
        dealer: int | None = None,
        deal: Sequence[Sequence[Card | str]] | None = None,
        rng: random.Random | None = None,
    ) -> list[Event]:
        """Deal the next hand (from `rng`, or as given), then the exchange's gives."""
        self._between_hands("deal")
        self.changes += 1
        standing = self._next_standing() if self.hand >= 0 else None
        seating, dealer, dealt_ids = seats.next_deal(
            self.rules,
            self.present,
            self.seating,
            self.dealer,
            standing,
            seating,
            dealer,
            deal,
            rng,
        )
        rules = self.rules
        players = len(seating)

        # The hand begins: nothing below can fail.
        self.hand += 1
        self.seating, self.standing, self.dealer = list(seating), standing, dealer
        self.joined = []
        self._start_afresh(players)
        self.hands = [[CARDS[i] for i in sorted(ids)] for ids in dealt_ids]
        dealt = tuple(tuple(card.id for card in hand) for hand in self.hands)
        self.history.append(HandHistory(tuple(seating), dealer, dealt, self.actions))
        events: list[Event] = [HandStarted(self.hand, tuple(seating), dealer)]
        events += [Dealt(seat, tuple(hand)) for seat, hand in enumerate(self.hands)]
        # The game's first play holds the 3C (first_lead = "three_of_clubs").
        self.opening = standing is None and rules.first_lead == "three_of_clubs"
        if standing is not None and rules.exchange != "none":
            self.phase = Phase.EXCHANGE
            events += self._exchange_gives(standing)
            if self.pending_returns:
                return events
        events += self._begin_play()
        return events

    # --- the exchange ----------------------------------------------------------------

    def _exchange_gives(self, standing: list[str]) -> list[Event]:
        """The Scum gives the President their best cards (and the Vice-Scum the Vice-
        President, under exchange = "two_one"); each receiver then owes a return."""
        rules = self.rules
        events: list[Event] = []
        # who gives whom how many: the Scum the President, then as the rules pair them
        for giver, receiver, count in seats.exchange_pairs(rules, self.seating, standing):
            hand = self.hands[giver]
            if rules.catastrophe and seats.spared(card.rank for card in hand):
                continue  # nothing above a 10: this pair exchanges nothing (catastrophe)
            best = sorted(hand, key=lambda card: card.id, reverse=True)[:count]
            self._move_cards(giver, receiver, best)
            give = Gave(giver, receiver, len(best), tuple(best))
            self.exchanges.append(give)
            events.append(give)
            self.pending_returns[receiver] = (giver, count)
        if rules.auto_return:  # each receiver returns its lowest cards at once
            for receiver, (_, count) in list(self.pending_returns.items()):
                lowest = self.hands[receiver][:count]
                events += self._return(receiver, Return(lowest), automatic=True)
        return events

    def _return(self, seat: int, back: Return, automatic: bool = False) -> list[Event]:
        """A receiver returns cards of its choice; the last return starts the play."""
        giver, _ = self.pending_returns.pop(seat)
        self._move_cards(seat, giver, back.cards)
        returned = Returned(seat, giver, len(back.cards), back.cards, automatic)
        self.exchanges.append(returned)
        events: list[Event] = [returned]
        if not self.pending_returns and self.phase is Phase.EXCHANGE and not automatic:
            events += self._begin_play()
        return events

    def _begin_play(self) -> list[Event]:
        """Play begins: in hand 1 left of the dealer (or whoever holds the 3C); later the
        President leads (or the Scum, under later_lead = "scum")."""
        events: list[Event] = []
        if self.phase is Phase.EXCHANGE:
            events.append(ExchangeDone())
        self.phase = Phase.PLAY
        assert self.dealer is not None
        self.turn = seats.first_leader(
            self.rules,
            self.seating,
            self.dealer,
            self.standing,
            lambda seat: THREE_OF_CLUBS in self.hands[seat],
        )
        return events

    # --- legality: the judge decides --------------------------------------------------

    def rows(self, seat: int) -> list[Row]:
        """The seat's hand as the judge reads it: its sets by rank (`rows[rank][n - 1]` is
        its set of n cards of that rank)."""
        return self.judge.rows_of(counts_of(self.hands[seat]))

    def trick(self) -> Trick:
        """What a play is judged against now: the pile, the order in force, the lock,
        the opening, and the locks the trick's last plays make (step_lock, colour_lock)."""
        reversed_ = self.revolution != self.jack_back
        plays = self.log[self.trick_start :]
        step = self.judge.stepped(plays, reversed_)
        colour = self.judge.coloured(plays)
        return Trick(self.top, reversed_, self.lock, self.opening, step, colour)

    def check(self, seat: int, action: object) -> None:
        """Raise `IllegalAction` with a sentence a player understands if `action` is
        illegal for `seat` now."""
        if self.phase is Phase.PLAY:
            if seat != self.turn:
                self._not_your_turn(seat)
            problem = self.judge.problem(self.rows(seat), self.trick(), self.due, action)
            if problem:
                raise IllegalAction(problem)
            return
        if self.phase is Phase.EXCHANGE:
            if type(action) is not Return:
                raise IllegalAction(flow.not_a_return(action))
            if seat not in self.pending_returns:
                flow.not_returning(self.seating, self.pending_returns)
            _, size = self.pending_returns[seat]
            problem = self.judge.return_problem(self.rows(seat), size, action)
            if problem:
                raise IllegalAction(problem)
            return
        flow.no_hand_in_play(self.phase)

    def is_legal(self, seat: int, action: object) -> bool:
        try:
            self.check(seat, action)
        except IllegalAction:
            return False
        return True

    def legal_actions(self, seat: int) -> list[Action]:
        """Every distinct action `check` accepts for `seat` now."""
        if self.phase is Phase.PLAY and seat == self.turn:
            return self.judge.legal_actions(self.rows(seat), self.trick(), self.due)
        if self.phase is Phase.EXCHANGE and seat in self.pending_returns:
            _, size = self.pending_returns[seat]
            returns: list[Action] = list(self.judge.legal_returns(self.rows(seat), size))
            return returns
        return []

    def timeout_action(self, seat: int) -> Action:
        """What the table does for a seat whose time ran out (`flow.timeout_action`)."""
        phase, pending = self.phase, self.pending_returns
        return flow.timeout_action(
            self.rules,
            seat,
            self.hands[seat],
            pending[seat][1] if phase is Phase.EXCHANGE and seat in pending else None,
            self.due if seat == self.turn and phase is Phase.PLAY else None,
            self.legal_actions(seat),
            self.top is None,
            self.revolution != self.jack_back,
        )

    # --- carrying out an action -------------------------------------------------------

    def apply(self, seat: int, action: object, *, checked: bool = True) -> list[Event]:
        """Check `action`, carry it out, and return the events it caused."""
        self.check(seat, action)
        taken = cast(Action, action)  # (`check` refuses anything but an action)
        self.actions.append((seat, taken))
        self.changes += 1
        if isinstance(taken, Return):
            return self._return(seat, taken)
        events: list[Event] = []
        if isinstance(taken, Play):
            self._play(seat, taken, events)
        elif isinstance(taken, Pass):
            self._pass(seat, events)
        else:
            self._pay_due(seat, taken, events)
        if self.rules.auto_pass:
            self._auto_pass(events)
        return events

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        """A play, in the order of docs/rules.md ("How toggles combine"): judged against
        the trick before it; the revolution, the jack and the lock; then the dues it makes;
        once they are paid, going out, the clear, the skips, the next turn (`_resume`)."""
        trick = self.trick()
        self._remove_cards(seat, play.cards)
        self.out += play.cards
        self.log.append((seat, play))
        self.moves.append((seat, play))
        self.opening = False
        effects = self.judge.effects_of(seat, play, trick, not self.hands[seat])
        revolt = effects.revolt and not self.omened
        if revolt:
            self.revolution = not self.revolution
        if self.rules.omen and flow.is_omen(play):
            self.omened = True  # three 6s or more: the hand's last revolution (omen)
        if effects.unreverses and self.jack_back:
            self.jack_back = False  # six_return ends a jack back
        elif effects.jack:
            self.jack_back = not self.jack_back
        if effects.turns:
            self.backwards = not self.backwards  # nine_reverse...
        self.lock = effects.lock
        self.top = effects.pile
        events.append(Played(seat, play.cards, effects.cleared, revolt))
        if self.rules.one_time_around:
            self.locked_out.add(seat)  # one turn per seat per trick
        self.owing = (seat, effects)
        self.dues = list(effects.dues)
        if self._next_due(seat):
            self.passed = set()  # passed since the last play: none, while its due is paid
        else:
            self._resume(events)

    def _resume(self, events: list[Event]) -> None:
        """The rest of a play's effects, once its dues are paid: going out, the clear,
        the skips, the next turn."""
        assert self.owing is not None
        seat, effects = self.owing
        self.owing = None
        if not self.hands[seat] or effects.wins:
            self._go_out(seat, effects.bottom, events)
            if self.phase is not Phase.PLAY:
                return
        if effects.cleared:
            self._end_trick(seat, events)
            return
        able = [
            other
            for other in self._others(seat)
            if self._in_hand(other) and other not in self.locked_out
        ]
        skipped = able[: effects.skips]
        for other in skipped:
            events.append(Skipped(other))
            if self.rules.one_time_around:
                self.locked_out.add(other)
        self.passed = set(skipped)
        if len(able) <= effects.skips:
            self._end_trick(seat, events)
        else:
            self.turn = able[effects.skips]

    def _pass(self, seat: int, events: list[Event], automatic: bool = False) -> None:
        """A pass: the seat sits out the rest of the trick under passing = "locked" (or
        one_time_around); when nobody is left to answer the pile, its owner wins it."""
        events.append(Passed(seat, automatic))
        self.moves.append((seat, PASS))
        self.passed.add(seat)
        if self.rules.passing == "locked" or self.rules.one_time_around:
            self.locked_out.add(seat)
        assert self.top is not None
        owner = self.top.owner
        waiting = [
            other
            for other in range(len(self.seating))
            if self._in_hand(other)
            and other not in self.passed
            and other not in self.locked_out
            and other != owner
        ]
        if waiting:
            self.turn = self._next_in_trick(seat)
        else:
            self._end_trick(owner, events)

    def _auto_pass(self, events: list[Event]) -> None:
        """auto_pass: a seat with no play that may go on the pile passes at once."""
        while self.phase is Phase.PLAY and self.top is not None and self.due is None:
            assert self.turn is not None
            if self.judge.legal_plays(self.rows(self.turn), self.trick()):
                return
            self._pass(self.turn, events, automatic=True)

    def _end_trick(self, winner: int, events: list[Event]) -> None:
        """Nobody answered `winner`'s pile (or it cleared): the trick ends and `winner`
        leads the next one (the next seat in the hand, if `winner` went out)."""
        if self.rules.lucky_seven and self._in_hand(winner) and self.log:
            owner, last = self.log[-1]
            if owner == winner and flow.lucky_sevens(last):
                # lucky_seven: three 7s or more that nobody answered win at once
                self._go_out(winner, False, events)
                if self.phase is not Phase.PLAY:
                    return
        leader = winner if self._in_hand(winner) else self._next_in_hand(winner)
        self.top, self.passed, self.locked_out = None, set(), set()
        self.jack_back, self.lock = False, ()
        self.trick_start = len(self.log)
        self.turn = leader
        events.append(TrickEnded(winner, leader))  # type: ignore[arg-type]
        if self.rules.salvage and leader == winner and self.log:
            owner, last = self.log[-1]
            if owner == winner and flow.salvaging(last):
                # salvage: a trick a 3 ended lets its player take back a card played
                pool = self._pool()
                if pool:
                    self.due = Due("salvage", 1, pool)

    # --- what a play leaves its player owing --------------------------------------------

    def _next_due(self, seat: int) -> bool:
        """Make the next of the play's dues the one owed (as many cards as it asks, or as
        many as there are); False when none is left."""
        self.due = due = flow.next_due(self.dues, len(self.hands[seat]), self._pool)
        return due is not None

    def _pool(self) -> tuple[Card, ...]:
        """The cards a take may take, lowest first: those out of play face up this hand,
        not the trick in progress's, nor one taken back before (it comes back once)."""
        pool = list(self.out)
        for _, play in self.log[self.trick_start :]:
            for card in play.cards:
                pool.remove(card)
        for card in self.taken:
            if card in pool:
                pool.remove(card)
        return tuple(sorted(pool, key=seats.lowest_first))

    def _pay_due(
        self, seat: int, action: Handover | Discard | Take | Bomb, events: list[Event]
    ) -> None:
        """One card (or rank) of the due paid; then the next due, or the play goes on."""
        due = self.due
        assert due is not None
        if isinstance(action, Handover):  # to the next seat still in the hand
            receiver = self._next_in_hand(seat)
            assert receiver is not None
            self._move_cards(seat, receiver, action.cards)
            events.append(HandedOver(seat, receiver, len(action.cards), action.cards))
        elif isinstance(action, Bomb):
            if self._bomb(seat, action.rank, events):
                self.due, self.dues, self.owing = None, [], None  # that ended the hand
                return
        elif isinstance(action, Discard):
            self._remove_cards(seat, action.cards)
            self.out += action.cards
            events.append(Discarded(seat, action.cards))
        else:  # a take: into the taker's own hand, or the next seat's (zombie)
            taker = self._next_in_hand(seat) if due.kind == "zombie" else seat
            assert taker is not None
            self.hands[taker] = sorted(self.hands[taker] + list(action.cards))
            for card in action.cards:
                self.out.remove(card)
            self.taken += action.cards
            events.append(Took(seat, taker, action.cards))
        held = len(self.hands[seat])
        owed = due.size - 1
        if isinstance(action, Take):
            pool = self._pool()
            if owed and pool:
                self.due = Due(due.kind, min(owed, len(pool)), pool)
                return
            if due.kind == "salvage":  # owed at a trick's end: the lead is next
                self.due = None
                return
        elif held and owed:  # (a bomb names its ranks whatever the hand holds)
            self.due = Due(due.kind, owed if isinstance(action, Bomb) else min(owed, held))
            return
        if held and self._next_due(seat):
            return
        self.due, self.dues = None, []
        self._resume(events)

    def _bomb(self, seat: int, rank: int, events: list[Event]) -> bool:
        """queen_bomber: every seat still in the hand, the bomber first, discards its
        natural cards of `rank`; a seat left with none goes out (the bomber once its dues
        are paid).  True if that ended the hand."""
        events.append(Bombed(seat, rank))
        for other in (seat, *self._others(seat)):
            if not self._in_hand(other):
                continue
            cards = tuple(card for card in self.hands[other] if card.rank == rank)
            if not cards:
                continue
            self._remove_cards(other, cards)
            self.out += cards
            events.append(Discarded(other, cards))
            if other != seat and not self.hands[other]:
                self._go_out(other, False, events)
                if self.phase is not Phase.PLAY:
                    return True
        return False

    # --- going out, places, points ------------------------------------------------------

    def _go_out(self, seat: int, bottom: bool, events: list[Event]) -> None:
        """The seat leaves the hand (no cards left, or a win at once): it takes the best
        free place, or the worst when `bottom` (a finish the rules punish).  When one seat
        is left, it takes the last place and the hand is over."""
        place = self._free_place(worst=bottom)
        self.places[seat] = place
        events.append(WentOut(seat, place))
        if place == 0 and self.rules.capital_fall:
            self._capital_fall(seat, events)
        still = [other for other in range(len(self.seating)) if self._in_hand(other)]
        if len(still) <= 1:
            for last in still:
                place = self._free_place(worst=False)
                self.places[last] = place
                events.append(WentOut(last, place))
            self._finish_hand(events)

    def _capital_fall(self, first: int, events: list[Event]) -> None:
        """capital_fall: someone else went out first, so the President, still holding
        cards, falls to the worst free place at once."""
        president = flow.falling(self.standing, self.seating, first)
        if president is None or not self._in_hand(president):
            return
        place = self._free_place(worst=True)
        self.places[president] = place
        events.append(Fell(president, place))

    def _finish_hand(self, events: list[Event]) -> None:
        """Every seat has its place: points by place, and the game ends or goes on."""
        by_place = sorted(
            (place, seat) for seat, place in enumerate(self.places) if place is not None
        )
        finish = [self.seating[seat] for _, seat in by_place]
        points = hand_points(self.rules, len(finish))
        ended, winners = flow.finish_hand(
            self.rules, self.hand, self.seating, finish, points, self.scores, self.finishes
        )
        events += ended
        self.turn = None
        self.top = None
        if winners is not None:
            self.phase = Phase.GAME_OVER
            self.winners = winners
        else:
            self.phase = Phase.BETWEEN_HANDS

    # --- reading the state ------------------------------------------------------------

    @property
    def actor(self) -> int | None:
        """The seat asked to act now: the turn in play, the first seat owing a return."""
        actors = self.actors
        return actors[0] if actors else None

    @property
    def actors(self) -> list[int]:
        """Every seat asked to act now: the turn in play, each seat owing a return."""
        if self.phase is Phase.PLAY:
            return [] if self.turn is None else [self.turn]
        if self.phase is Phase.EXCHANGE:
            return list(self.pending_returns)
        return []

    def hand_of(self, seat: int) -> list[Card]:
        """Seat's cards, lowest first.  Only for that seat (or a record): see `view_for`."""
        return list(self.hands[seat])

    def card_counts(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def place_of(self, seat: int) -> int | None:
        """The place (0 = first) the seat took this hand; None while it holds cards."""
        return self.places[seat]

    @property
    def finish_order(self) -> list[int]:
        """Seats that have gone out this hand, by place."""
        return [
            seat
            for _, seat in sorted(
                (place, seat) for seat, place in enumerate(self.places) if place is not None
            )
        ]

    def seat_marks(
        self,
    ) -> tuple[tuple[bool, ...], tuple[bool, ...], tuple[int | None, ...]]:
        """Each seat's public marks now, as every view shows them: `passed`, `locked`,
        `places`."""
        view = self.public_view()
        return view.passed, view.locked, view.places

    def mark_bits(self) -> int:
        """`passed` and `locked` of `seat_marks` as one number's bits: bit s for seat s
        passed, bit 16 + s for seat s locked."""
        passed, locked, _ = self.seat_marks()
        return sum(1 << seat for seat, mark in enumerate(passed) if mark) + sum(
            1 << 16 + seat for seat, mark in enumerate(locked) if mark
        )

    def titles(self) -> dict[str, str]:
        """Each seated player's title from the last finish (empty in hand 1)."""
        return titles_by_name(self.rules, self.standing or ())

    def hands_over(self) -> list[HandOver]:
        """Every hand of this game that has ended, as its `HandOver` said it."""
        return flow.hands_over(self.rules, self.finishes)

    def public_view(self) -> PublicView:
        """What everyone at the table may see now: counts, never the cards in a hand."""
        seats_here = range(len(self.hands))
        return PublicView(
            rules=self.rules,
            hand_number=self.hand,
            phase=self.phase,
            seating=tuple(self.seating),
            dealer=self.dealer,
            counts=tuple(self.card_counts()),
            turn=self.turn,
            top=self.top,
            trick=tuple(self.log[self.trick_start :]),
            played=tuple(self.out),
            revolution=self.revolution,
            opening=self.opening,
            passed=tuple(seat in self.passed for seat in seats_here),
            locked=tuple(seat in self.locked_out for seat in seats_here),
            finish_order=tuple(self.finish_order),
            standing=tuple(self.standing or ()),
            scores=tuple((name, self.scores[name]) for name in self.seating),
            owed=tuple((seat, size) for seat, (_, size) in self.pending_returns.items()),
            hands_played=len(self.finishes),
            winners=tuple(self.winners),
            places=tuple(self.places),
            jack_back=self.jack_back,
            lock=self.lock,
            due=self.due,
            backwards=self.backwards,
            taken=tuple(self.taken),
        )

    def view_for(self, seat: int) -> SeatView:
        """What `seat` may see: the public view, its own cards, its own part of the
        exchange, and the plays and passes of this hand."""
        mine = [e for e in self.exchanges if seat in (e.giver, e.receiver)]
        return SeatView.of(self.public_view(), seat, self.hands[seat], mine, history=self.moves)

    # --- small helpers ----------------------------------------------------------------

    def _in_hand(self, seat: int) -> bool:
        """The seat is still in this hand (it has no place yet)."""
        return self.places[seat] is None

    def _others(self, seat: int) -> list[int]:
        """The other seats, in the direction of play from `seat`."""
        players = len(self.seating)
        step = -1 if self.backwards else 1
        return [(seat + step * n) % players for n in range(1, players)]

    def _next_in_hand(self, seat: int) -> int | None:
        """The next seat in the direction of play still in the hand."""
        return next((other for other in self._others(seat) if self._in_hand(other)), None)

    def _next_in_trick(self, seat: int) -> int | None:
        """The next seat in the direction of play still in the hand and in the trick."""
        return next(
            (
                other
                for other in self._others(seat)
                if self._in_hand(other) and other not in self.locked_out
            ),
            None,
        )

    def _free_place(self, worst: bool) -> int:
        """The best (or worst) place nobody has taken this hand."""
        free = [place for place in range(len(self.seating)) if place not in self.places]
        return free[-1] if worst else free[0]

    def _remove_cards(self, seat: int, cards: Sequence[Card]) -> None:
        for card in cards:
            self.hands[seat].remove(card)

    def _move_cards(self, giver: int, receiver: int, cards: Sequence[Card]) -> None:
        self._remove_cards(giver, cards)
        self.hands[receiver] = sorted(self.hands[receiver] + list(cards))

    def _between_hands(self, what: str) -> None:
        flow.check_between_hands(self.phase, what)

    def _next_standing(self) -> list[str]:
        return seats.next_standing(
            self.rules, self.finishes[-1], self.standing, self.present, self.joined
        )

    def _not_your_turn(self, seat: int) -> None:
        here = 0 <= seat < len(self.seating)
        flow.not_your_turn(
            seat,
            self.seating,
            self.turn,
            out=here and not self.hands[seat],
            fell=here and self.places[seat] is not None,
            locked=seat in self.locked_out,
            once=self.rules.one_time_around,
        )

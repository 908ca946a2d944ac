"""The whole game across hands: deal, exchange, tricks, scoring, the end of the game.

`Game` is the one authority on what is legal.  `check` says why an action is
illegal, `legal_actions` lists what `check` accepts, `apply` checks and then
changes the state, returning the events it caused.  Hidden information leaves
only through `view_for(seat)`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any, Final, cast

from . import flow, tricks
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
from .cards import CARDS, JOKER_RANK, TWO, Card
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
from .fast_tricks import due_choices_held
from .judge import Steady, judge_for
from .moves import (
    CARD_STEP,
    ROW_TABLE,
    PatternCounts,
    Row,
    Top,
    clears,
    row_for,
)
from .phase import Phase
from .rules import Rules
from .scoring import hand_points, titles_by_name
from .view import LazySeatView, ListedSeatView, PublicView, SeatView, taken_of, with_discards


@dataclass(frozen=True)
class HandHistory:
    """What a record keeps of one hand: who sat where, the deal, and every decision."""

    seating: tuple[str, ...]
    dealer: int
    #: Each seat's card ids as dealt, before the exchange.
    deal: tuple[tuple[int, ...], ...]
    actions: list[tuple[int, Action]]

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt through __init__ (a frozen class compiled by mypyc cannot be unpickled
        # field by field)
        return (HandHistory, (self.seating, self.dealer, self.deal, self.actions))


_PLAY: Final = Phase.PLAY
_EXCHANGE: Final = Phase.EXCHANGE
_new: Final = tuple.__new__  # builds the hot path's named tuples without a Python-level __new__
_chain: Final = chain.from_iterable


#: Every field of a `Game`, sorted: its slots (`Game.clone` reads and sets them all).
_FIELDS: Final = (
    "_actions", "_answered", "_auto", "_before", "_bombs", "_clearing", "_clockwise",
    "_colour_lock", "_discarded", "_dues", "_held", "_holding", "_joined", "_judge",
    "_lasting", "_lean", "_listed", "_listing", "_locked", "_locks", "_lucky", "_margin",
    "_moves", "_must_beat", "_next_bottom", "_next_seat", "_next_top", "_omen", "_omened",
    "_once", "_opening", "_pass_events", "_pass_moves", "_patterns", "_pending",
    "_place_of", "_places", "_plain", "_played", "_points", "_present", "_revolts", "_rows",
    "_salvage", "_seen_hands", "_skips", "_steadies", "_step_lock", "_suit_lock", "_tabled",
    "_tops", "_trick_start", "_variants", "_wild", "actor", "backwards", "changes", "dealer",
    "due", "exchanges", "finishes", "hand", "history", "jack_back", "lock", "log",
    "pending_returns", "phase", "players", "revolution", "rules", "scores", "seating",
    "standing", "top", "turn", "winners",
)  # fmt: skip


class Game:
    """A game of President at one table, from the first deal to the winner."""

    # Every field named once (`_FIELDS`): interpreted, an instance of so many fields would
    # keep them in a plain dict, each read a lookup; in slots each is read in its place.
    __slots__ = _FIELDS

    def __init__(self, rules: Rules, players: Sequence[str]) -> None:
        names = list(players)
        seats.check_names(names)
        rules.check_players(len(names))
        self.rules = rules
        #: Everyone who ever sat, in the order they joined.
        self.players: list[str] = list(names)
        self.scores: dict[str, int] = {name: 0 for name in names}
        self.phase = Phase.BETWEEN_HANDS
        #: 0-based number of the current (or last) hand; -1 before the first deal.
        self.hand = -1
        self.seating: list[str] = list(names)
        self.dealer: int | None = None
        #: Names by place for this hand (last hand's finish, adjusted); None in hand 1.
        self.standing: list[str] | None = None
        self.finishes: list[list[str]] = []
        self.winners: list[str] = []
        #: Every hand dealt so far, for records.
        self.history: list[HandHistory] = []
        self._actions: list[tuple[int, Action]] = []
        #: Every play and pass of this hand, (seat, Play or PASS), auto passes included.
        self._moves: list[tuple[int, Play | Pass]] = []
        self._present: list[str] = list(names)
        self._joined: list[str] = []
        self._patterns: list[list[int]] = []
        self._rows: list[list[Row]] = []
        self._held: list[int] = []
        self._holding = 0  # bitmask of seats holding cards
        #: Per seat, the other seats in the direction of play (clockwise unless a
        #: "direction" trigger turned it: nine_reverse...).
        self._clockwise: list[tuple[int, ...]] = []
        #: The next seat in the direction of play from `seat` among the seats of bitmask
        #: `able`, at `able << 4 | seat` (None if none); a seat's pass event and move
        #: (`_seat_tables`, `_anticlockwise`).
        self._next_seat: list[int | None] = []
        self._pass_events: tuple[Passed, ...] = ()
        self._pass_moves: tuple[tuple[int, Pass], ...] = ()
        #: The pile after a seat's canonical play, at `seat << 8 | rank << 4 | count`.
        self._tops: list[Top | None] = []
        #: A seat that passes (or, one time around, acts) sits out the rest of the trick.
        self._locks = rules.passing == "locked" or rules.one_time_around
        #: Any rule of the variants: plays are judged by `tricks`, and have effects.
        self._variants = rules.variants
        #: What may be played on what, and why not (`judge.Judge`): the general judgement
        #: behind the lean paths below.
        self._judge = judge_for(rules)
        #: The judge's tables of plays (`Judge.listing`), asked first.
        self._listing = self._judge.listing
        #: The tables answer every trick past the opening (`Listing.answers`).
        self._tabled = self._listing.answers
        self._steadies = self._judge.steadies
        self._once = rules.one_time_around
        self._suit_lock = rules.suit_lock
        self._lucky = rules.lucky_seven
        self._step_lock = rules.step_lock
        self._colour_lock = rules.colour_lock
        self._omen = rules.omen
        #: An omen was played this hand: no more revolutions (omen).
        self._omened = False
        self._clearing = _clearing(rules)
        self._points: dict[int, tuple[int, ...]] = {}  # `_hand_points` by table size
        self._bombs = rules.bombs
        #: No special play can answer a pile, and no wild joker (see `legal_plays`).
        self._plain = rules.plain_follow
        self._margin = rules.follow_margin
        self._skips = rules.equal_plays == "skip"
        self._revolts = rules.revolution
        self._wild = rules.joker_mode == "wild" and rules.jokers > 0
        self._must_beat = rules.must_beat
        self._auto = rules.auto_pass
        #: Nothing clears the pile, reverses the order or skips a seat (see `apply`).
        self._lean = self._plain and not rules.revolution and not self._skips
        #: Grows whenever anything but the cards, the pile, the passes and the turn may
        #: have changed (the phase, the trick's flags, the places, the returns owed, the
        #: seating): at each deal, each seat coming or going, each action but a plain
        #: play or pass (one that moves only those), and wherever one of those moves
        #: more (a trick's end that ends its flags or makes a due, a seat going out).
        #: An observer that follows the table step by step reads the rest again only
        #: when it grew.
        self.changes = 0
        self.turn: int | None = None
        #: The seat asked to act now: the turn in play, a seat owing a return in the
        #: exchange (the first of them); None between hands and after the game.  Kept
        #: beside `turn` and the returns owed wherever they change.
        self.actor: int | None = None
        self.top: Top | None = None
        self.revolution = False
        #: A jack reversed the order until this trick ends (jack_back).
        self.jack_back = False
        #: Play goes anticlockwise for the rest of the hand (nine_reverse, queen_reverse,
        #: king_reverse); clockwise at every deal.
        self.backwards = False
        #: The suits this trick is locked to, sorted; () when it is not (suit_lock).
        self.lock: tuple[int, ...] = ()
        #: What the seat whose turn it is owes before play goes on (seven_pass, ten_discard).
        self.due: Due | None = None
        #: The dues still to come after `due`, and what the play that made them does once
        #: they are paid (see `_play_variant`).
        self._dues: list[tuple[str, int]] = []
        self._pending: tuple[int, Play, bool, int, bool, bool] | None = None
        #: Cards discarded face up this hand (ten_discard), in order, each with how many
        #: plays the hand had then (`view.with_discards` puts them among the plays); a
        #: card taken back (salvage, kings_march, zombie) with ~ that many: it leaves them.
        self._discarded: tuple[tuple[int, tuple[Card, ...]], ...] = ()
        #: The cards out of play face up before `log` begins (a game rebuilt from a view
        #: mid-hand: `from_view`); () in a game played from the deal.
        self._before: tuple[Card, ...] = ()
        self._salvage = rules.salvage
        #: Every play of this hand, (seat, play), in order; the trick in progress is the tail.
        self.log: list[tuple[int, Play]] = []
        self._trick_start = 0
        self.exchanges: list[Gave | Returned] = []
        self.pending_returns: dict[int, tuple[int, int]] = {}  # receiver -> (giver, size)
        self._answered = 0  # seats that passed or were skipped since the last play
        self._locked = 0  # seats out of this trick under passing = "locked"
        self._opening = False
        self._place_of: list[int | None] = []
        self._places: list[int | None] = []
        self._next_top = 0
        self._next_bottom = 0
        # What the views keep from one to the next (see `view_for`): the fields that
        # change only now and then, by what they depend on; the cards played so far, by
        # the log and its length; each seat's cards, by its rows.
        self._lasting: tuple[Any, ...] | None = None
        self._played: tuple[list[tuple[int, Play]], int, tuple[Card, ...]] = ([], 0, ())
        self._seen_hands: dict[int, tuple[tuple[Row, ...], tuple[Card, ...]]] = {}
        #: The last listing `legal_actions` made by the judge: (the hand's actions list,
        #: its length then, the seat, the actions).  While the game has not moved on, an
        #: action from it is legal: `apply` need not judge it again.
        self._listed: tuple[list[tuple[int, Action]], int, int, tuple[Action, ...]] | None = None

    # A copy or a pickle holds the game, not the views' caches nor the tables shared by
    # every game of its size or rules (12 seats' next-seat table alone is 65,536 entries).
    _SHARED = (
        "_clockwise", "_next_seat", "_pass_events", "_pass_moves", "_tops", "_listing",
        "_steadies",
    )  # fmt: skip

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (self.rules, self.__getstate__()))

    def __getstate__(self) -> dict[str, Any]:
        # (compiled by mypyc, the class lists its fields in __mypyc_attrs__)
        names = getattr(type(self), "__mypyc_attrs__", None) or _FIELDS
        state = {
            name: getattr(self, name)
            for name in names
            if name not in self._SHARED and name != "_SHARED" and hasattr(self, name)
        }
        state["_lasting"], state["_seen_hands"] = None, {}
        state["_played"], state["_listed"] = ([], 0, ()), None
        return state

    def clone(self) -> Game:
        """An independent copy of the game as it stands (a bot's world to play out): each
        list and map of its state copied two levels down, the tables shared by every
        game of its size shared, the views' caches left behind."""
        # (the fields are read in one call, the game's own lists and maps copied by what
        # they hold, and all set in one statement on a bare game)
        values: list[Any] = list(_read_fields(self))
        for at in _NESTED:
            values[at] = [item[:] for item in values[at]]
        for at in _FLAT:
            value = values[at]
            if value is not None:
                values[at] = value[:]
        for at in _MAPS:
            values[at] = values[at].copy()
        where = _FIELD_AT
        values[where["_lasting"]], values[where["_seen_hands"]] = None, {}
        values[where["_played"]], values[where["_listed"]] = ([], 0, ()), None
        self._own_record(values[where["history"]], values[where["_actions"]])
        # (compiled by mypyc, a game is made only through its __init__: any three seats
        # will do, every field is set again)
        game: Game = Game(self.rules, _SEATS) if _COMPILED else object.__new__(type(self))
        _fill_fields(game, values)
        return game

    def _own_record(self, history: list[HandHistory], actions: list[tuple[int, Action]]) -> None:
        """A copy's `history` (copied) with the hand in play's record holding the copy's
        own `actions`."""
        if history and history[-1].actions is self._actions:
            last = history[-1]
            history[-1] = HandHistory(last.seating, last.dealer, last.deal, actions)

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        players = len(self._held)
        self._clockwise = _clockwise(players) if players else []
        self._next_seat, self._pass_events, self._pass_moves, self._tops = (
            _seat_tables(players) if players else ([], (), (), [])
        )
        if players and self.backwards:
            self._next_seat, self._clockwise = _anticlockwise(players)
        self._listing = judge_for(self.rules).listing

    # --- between hands ---------------------------------------------------------------

    def join(self, name: str) -> None:
        """A newcomer sits down for the next hand, below everyone (docs/rules.md, "Players
        coming and going")."""
        self._between_hands("join")
        self.changes += 1
        seats.check_names([name])
        if name in self._present:
            raise IllegalAction(f"{name} is already at the table")
        self.rules.check_players(len(self._present) + 1)
        self._present.append(name)
        if self.hand >= 0:
            self._joined.append(name)
        if name not in self.players:
            self.players.append(name)
        self.scores[name] = 0
        self._lasting = None  # the scores a view shows

    def leave(self, name: str) -> None:
        """A player leaves before the next hand; nobody replaces them (docs/rules.md,
        "Players coming and going")."""
        self._between_hands("leave")
        self.changes += 1
        if name not in self._present:
            raise IllegalAction(f"{name} is not at the table")
        self._present.remove(name)
        if name in self._joined:
            self._joined.remove(name)
        self._lasting = None

    def next_seating(self) -> list[str]:
        """The seating the rules give for the next hand."""
        standing = self._next_standing() if self.hand >= 0 else None
        return seats.seating_for(self.rules, self._present, self.seating, standing)

    def plan_hand(self, rng: random.Random) -> tuple[list[str], int, int]:
        """(seating, dealer, first seat dealt) for the next hand, as the rules give them
        (the first dealer drawn from `rng`): what a server needs to deal a deck it shuffled
        itself, before calling `start_hand(seating=..., dealer=..., deal=...)`."""
        self._between_hands("deal")
        standing = self._next_standing() if self.hand >= 0 else None
        return seats.planned_hand(
            self.rules, self._present, self.seating, self.dealer, standing, rng
        )

    def start_hand(
        self,
        *,
        seating: Sequence[str] | None = None,
        dealer: int | None = None,
        deal: Sequence[Sequence[Card | str]] | None = None,
        rng: random.Random | None = None,
    ) -> list[Event]:
        """Deal the next hand, from `rng` or as given (records), and make the exchange gives."""
        self._between_hands("deal")
        self.changes += 1
        standing = self._next_standing() if self.hand >= 0 else None
        seating, dealer, hands = seats.next_deal(
            self.rules,
            self._present,
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

        # Committed: nothing below can fail.
        self._lasting = None
        self.hand += 1
        self.seating = list(seating)
        self.standing = standing
        self.dealer = dealer
        self._joined = []
        self._patterns, self._rows = _holdings(hands, rules.decks == 1)
        self._held = [len(hand) for hand in hands]
        self._holding = (1 << players) - 1
        self._clockwise = _clockwise(players)
        self._next_seat, self._pass_events, self._pass_moves, self._tops = _seat_tables(players)
        self.log, self._trick_start, self.exchanges = [], 0, []
        self.top, self.revolution, self._answered, self._locked = None, False, 0, 0
        self.jack_back, self.lock, self.due, self._dues, self._pending = False, (), None, [], None
        self._discarded, self._before = (), ()
        self._omened = False
        self.backwards = False
        self._place_of = [None] * players
        self._places = [None] * players
        self._next_top, self._next_bottom = 0, players - 1
        self._actions, self._moves = [], []
        dealt = [tuple(sorted(hand)) for hand in hands]
        self.history.append(HandHistory(tuple(seating), dealer, tuple(dealt), self._actions))
        events: list[Event] = [_new(HandStarted, (self.hand, tuple(seating), dealer))]
        events += [_new(Dealt, (seat, _cards_of(ids))) for seat, ids in enumerate(dealt)]
        self._opening = standing is None and rules.first_lead == "three_of_clubs"
        self.pending_returns = {}
        if standing is not None and rules.exchange != "none":
            self.phase = Phase.EXCHANGE
            events += self._make_gives(standing)
            if self.pending_returns:
                self.actor = next(iter(self.pending_returns))
                return events
        events += self._begin_play()
        return events

    # --- legality -------------------------------------------------------------------

    def check(self, seat: int, action: object) -> None:
        """Raise `IllegalAction` with a sentence a player understands if `action` is illegal."""
        phase = self.phase
        if phase is _PLAY:
            if seat != self.turn:
                self._not_your_turn(seat)
            problem = self._judge.problem(
                self._rows[seat],
                self._trick(),
                self.due,
                action,
                PatternCounts(self._patterns[seat]),
            )
            if problem:
                raise IllegalAction(problem)
            return
        if phase is _EXCHANGE:
            if type(action) is not Return:
                raise IllegalAction(flow.not_a_return(action))
            pending = self.pending_returns.get(seat)
            if pending is None:
                flow.not_returning(self.seating, self.pending_returns)
            problem = self._judge.return_problem(
                self._rows[seat], pending[1], action, PatternCounts(self._patterns[seat])
            )
            if problem:
                raise IllegalAction(problem)
            return
        flow.no_hand_in_play(phase)

    def is_legal(self, seat: int, action: object) -> bool:
        try:
            self.check(seat, action)
        except IllegalAction:
            return False
        return True

    def legal_actions(self, seat: int) -> list[Action]:
        """Every distinct action `check` accepts for `seat` now: one play per shape (which
        suits go is not a choice; `check` accepts any cards of a listed shape)."""
        if seat == self.turn and self.phase is _PLAY:
            top: Top | None = self.top
            plays: list[Action]
            if self._variants:
                if self.due is None:  # (`Judge.legal_actions`, the due aside, inlined)
                    patterns = self._patterns[seat]
                    # the judge's tables asked directly where they answer every trick (a
                    # listing per decision); elsewhere the judge, on the trick made
                    found: list[Play] | None
                    if not self._tabled or self._opening:
                        found = self._judge.plays_by_patterns(patterns, self._trick())
                    elif top is None:
                        found = self._listing.leads(patterns)
                    else:
                        reversed_ = self.revolution != self.jack_back
                        found = self._listing.follows(patterns, top, reversed_, self.lock)
                        if found is None:
                            found = self._judge.plays_by_patterns(patterns, self._trick())
                    plays = found  # type: ignore[assignment]
                    if top is not None and not (plays and self._must_beat):
                        plays.append(PASS)
                else:  # (a due's choices: the trick plays no part)
                    plays = due_choices_held(self._patterns[seat], self.due)  # type: ignore[assignment]
                self._listed = (self._actions, len(self._actions), seat, tuple(plays))
                return plays
            if top is None:
                if self._opening or self._wild:
                    return self._judge.legal_plays(self._rows[seat], self._trick())  # type: ignore[return-value]
                # A lead, inlined from `legal_plays`: every canonical play held.
                return [*_chain(self._rows[seat])]
            if self._plain and not self.revolution:
                # The common follow, inlined from `legal_plays` (the same rows, the same
                # bound): the trick's count, of a rank above the pile's (or equal).
                # (loops, not comprehensions: a comprehension is a call of its own, dear
                # beside the few plays a follow finds)
                index = top.size - 1
                plays = []
                if index:
                    for row in self._rows[seat][top.rank + self._margin :]:
                        if len(row) > index:
                            plays.append(row[index])
                else:
                    for row in self._rows[seat][top.rank + self._margin :]:
                        if row:
                            plays.append(row[0])
            else:
                rows = self._rows[seat]
                if not (self._wild and rows[JOKER_RANK]):  # (by the pile's shapes)
                    plays = self._judge.follows(rows, top, self.revolution)  # type: ignore[assignment]
                else:
                    plays = self._judge.legal_plays(rows, self._trick())  # type: ignore[assignment]
                if not (plays and self._must_beat):
                    plays.append(PASS)
                self._listed = (self._actions, len(self._actions), seat, tuple(plays))
                return plays
            if not (plays and self._must_beat):
                plays.append(PASS)
            return plays
        if self.phase is _EXCHANGE and seat in self.pending_returns:
            returns = self._judge.legal_returns(self._rows[seat], self.pending_returns[seat][1])
            # (listed, as the variants' plays are: judging a return again is dear)
            self._listed = (self._actions, len(self._actions), seat, tuple(returns))
            return returns  # type: ignore[return-value]
        return []

    def _plays(self, seat: int) -> list[Play]:
        return self._judge.legal_plays(self._rows[seat], self._trick(), self._patterns[seat])

    def timeout_action(self, seat: int) -> Action:
        """What the table does for a seat whose time ran out (`flow.timeout_action`)."""
        phase, pending, due = self.phase, self.pending_returns, self.due
        return flow.timeout_action(
            self.rules,
            seat,
            self.hand_of(seat),
            pending[seat][1] if phase is Phase.EXCHANGE and seat in pending else None,
            due if seat == self.turn and phase is _PLAY else None,
            self.legal_actions(seat),
            self.top is None,
            self.revolution != self.jack_back,
        )

    # --- applying -------------------------------------------------------------------

    def apply(self, seat: int, action: object, *, checked: bool = True) -> list[Event]:
        """Check `action`, carry it out, and return the events it caused.  `checked=False`
        skips the check, for callers that only ever pass an action from `legal_actions`
        (a bot's playouts); anything else then corrupts the game."""
        kind = type(action)
        if seat == self.turn and self.phase is _PLAY:
            top = self.top
            if kind is Play:
                play: Play = action  # type: ignore[assignment]
                # The lean path: the hand's own canonical play of a shape (from its rows:
                # held, one rank, no wild joker) that leads, or follows with the trick's
                # count of a higher rank, under rules where nothing clears, reverses or
                # skips.  These few tests prove it legal; anything else goes to `check`,
                # which has the sentence.
                if self._lean:  # (under the variants a play takes the general path below)
                    rank, count = play.rank, play.count
                    rows = self._rows[seat]
                    row = rows[rank]
                    if (
                        0 < count <= len(row)
                        and row[count - 1] is play
                        and not self._opening
                        and (top is None or (count == top.size and rank >= top.rank + self._margin))
                    ):
                        held = self._held[seat] - count
                        move = (seat, play)
                        self._actions.append(move)
                        if not held:  # the seat goes out: the whole path
                            events: list[Event] = []
                            self._play(seat, play, events)
                        else:
                            patterns = self._patterns[seat]
                            pattern = patterns[rank] - play.step
                            patterns[rank] = pattern
                            new_row = ROW_TABLE[rank << 7 | pattern]
                            rows[rank] = row_for(rank, pattern) if new_row is None else new_row
                            self._held[seat] = held
                            self.log.append(move)
                            self._moves.append(move)
                            self.top = self._tops[seat << 8 | rank << 4 | count]
                            self._answered = 0
                            events = [_new(Played, (seat, play.cards, False, False))]
                            turn = self._next_seat[(self._holding & ~self._locked) << 4 | seat]
                            if turn is None:
                                self._end_trick(seat, events)
                            else:
                                self.turn = self.actor = turn
                        if self._auto:
                            self._auto_pass(events)
                        return events
            elif kind is Pass and top is not None and not self._must_beat and self.due is None:
                # The lean pass: legal whenever the seat follows, unless it must beat or
                # owes a due.
                pass_move = self._pass_moves[seat]
                self._actions.append(pass_move)
                self._moves.append(pass_move)
                events = [self._pass_events[seat]]
                answered = self._answered | 1 << seat
                self._answered = answered
                locked = self._locked
                if self._locks:
                    self._locked = locked = locked | 1 << seat
                holding = self._holding
                if holding & ~(answered | locked | 1 << top.owner):
                    self.turn = self.actor = self._next_seat[(holding & ~locked) << 4 | seat]
                else:
                    self._end_trick(top.owner, events)
                if self._auto:
                    self._auto_pass(events)
                return events
        if checked:
            listed = self._listed
            if (
                listed is not None
                and listed[0] is self._actions
                and listed[1] == len(self._actions)
                and listed[2] == seat
            ):
                # listed by `legal_actions` since the game last moved: legal, if it is one
                # of those actions itself (by identity: `==` is dear; `_listed_among`,
                # inlined)
                for other in listed[3]:
                    if other is action:
                        break
                else:
                    self.check(seat, action)
            else:
                self.check(seat, action)
        self._actions.append((seat, action))  # type: ignore[arg-type]  # (checked: an action)
        self.changes += 1
        if kind is Return:
            return self._return(seat, action)  # type: ignore[arg-type]
        events = []
        if kind is Play:
            if self._variants:
                play = action  # type: ignore[assignment]
                steady: Steady | None = None
                if not self._opening:
                    try:  # (`Judge.steady`, as known so far, without its call)
                        steady = self._steadies[play.ids]
                    except KeyError:
                        steady = self._judge.steady(play)
                if steady is None:
                    self._play_variant(seat, play, events)
                elif self._held[seat] == play.count:  # (its last cards: going out)
                    self._steady_play(seat, play, steady[0], steady[1], events, True)
                elif steady[2]:
                    self._quiet_play(seat, play, steady[1], events)
                else:
                    self._steady_play(seat, play, steady[0], steady[1], events)
            else:
                self._play(seat, action, events)  # type: ignore[arg-type]
        elif kind is Pass:
            self._pass(seat, events)
        else:
            self._pay_due(seat, action, events)  # type: ignore[arg-type]
        if self._auto:
            self._auto_pass(events)
        return events

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        rank, count = play.rank, play.count
        patterns, rows = self._patterns[seat], self._rows[seat]
        pattern = patterns[rank] - play.step
        patterns[rank] = pattern
        row = ROW_TABLE[rank << 7 | pattern]
        rows[rank] = row_for(rank, pattern) if row is None else row
        if play.jokers and rank != JOKER_RANK:
            patterns[JOKER_RANK] -= play.jokers
            rows[JOKER_RANK] = row_for(JOKER_RANK, patterns[JOKER_RANK])
        held = self._held[seat] - count
        self._held[seat] = held
        self.log.append((seat, play))
        self._moves.append((seat, play))
        self._opening = False
        cleared = self._clearing[rank] or (count >= 4 and self._bombs)
        revolt = count >= 4 and self._revolts
        if revolt:
            self.revolution = not self.revolution
        events.append(_new(Played, (seat, play.cards, cleared, revolt)))
        skip = self._skips and self.top is not None and self.top.rank == rank and not cleared
        if not held:
            self._holding &= ~(1 << seat)
            self._go_out(seat, self.rules.two_finish_penalty and rank == TWO, events)
            if self.phase is not _PLAY:
                return
        if cleared:
            self._end_trick(seat, events)
            return
        self.top = _new(Top, (seat, rank, count, play.jokers, False, ()))
        self._answered = answered = 0
        able = self._holding & ~self._locked
        turn = -1
        for turn in self._clockwise[seat]:
            if able >> turn & 1:
                break
        else:
            turn = -1
        if turn >= 0 and skip:
            events.append(Skipped(turn))
            self._answered = answered = 1 << turn
            after = self._next_in_trick(turn)
            turn = -1 if after is None else after
        if turn < 0 or not able & ~(answered | 1 << seat):
            self._end_trick(seat, events)
        else:
            self.turn = self.actor = turn

    def _pass(self, seat: int, events: list[Event], automatic: bool = False) -> None:
        events.append(_new(Passed, (seat, True)) if automatic else self._pass_events[seat])
        self._moves.append(self._pass_moves[seat])
        answered = self._answered | 1 << seat
        self._answered = answered
        if self._locks:
            self._locked |= 1 << seat
        owner = self.top.owner  # type: ignore[union-attr]
        if not self._holding & ~(answered | self._locked | 1 << owner):
            self._end_trick(owner, events)
        else:
            self.turn = self.actor = self._next_in_trick(seat)

    def _auto_pass(self, events: list[Event]) -> None:
        self.changes += 1
        while self.phase is Phase.PLAY and self.top is not None and self.due is None:
            seat = self.turn
            assert seat is not None
            if self._plays(seat):
                return
            self._pass(seat, events, automatic=True)

    # --- the variants (docs/rules.md, "Variants" and "The Daifugo family") -----------

    def _trick(self) -> tricks.Trick:
        """What a play is judged against now."""
        reversed_ = self.revolution != self.jack_back
        step = self._step_lock and tricks.stepped(
            self.rules, self.log[self._trick_start :], reversed_
        )
        colour = (
            tricks.coloured(self.rules, self.log[self._trick_start :]) if self._colour_lock else -1
        )
        return _new(tricks.Trick, (self.top, reversed_, self.lock, self._opening, step, colour))

    def _take(self, seat: int, ids: Sequence[int]) -> None:
        """The cards of these ids leave the seat's hand."""
        patterns, rows = self._patterns[seat], self._rows[seat]
        for card_id in ids:
            rank = card_id >> 2  # the joker's id >> 2 is its rank
            pattern = patterns[rank] - CARD_STEP[card_id]
            patterns[rank] = pattern
            rows[rank] = ROW_TABLE[rank << 7 | pattern] or row_for(rank, pattern)
        self._held[seat] -= len(ids)

    def _add(self, seat: int, ids: Sequence[int]) -> None:
        """The cards of these ids join the seat's hand (a take: salvage, zombie...)."""
        patterns, rows = self._patterns[seat], self._rows[seat]
        for card_id in ids:
            rank = card_id >> 2  # the joker's id >> 2 is its rank
            pattern = patterns[rank] + CARD_STEP[card_id]
            patterns[rank] = pattern
            rows[rank] = ROW_TABLE[rank << 7 | pattern] or row_for(rank, pattern)
        self._held[seat] += len(ids)

    def _play_variant(self, seat: int, play: Play, events: list[Event]) -> None:
        """A play under rules with variants, in the order of docs/rules.md ("How toggles
        combine"): judged in the order before it; then the revolution, the jack and the
        lock; then the dues it makes (`_next_due`); then, once they are paid, going out,
        the clear, the skips and the next turn (`_resume`)."""
        trick = self._trick()
        self._take(seat, play.ids)
        held = self._held[seat]
        self.log.append((seat, play))
        self._moves.append((seat, play))
        self._opening = False
        effects = self._judge.effects_of(seat, play, trick, not held)
        revolt = effects.revolt and not self._omened
        if revolt:
            self.revolution = not self.revolution
        if self._omen and flow.is_omen(play):
            self._omened = True  # the omen's own revolution is the hand's last
        if effects.unreverses and self.jack_back:
            self.jack_back = False  # six_return: over, whatever else the play holds
        elif effects.jack:
            self.jack_back = not self.jack_back
        if effects.turns:  # nine_reverse...: the turns from here on go the other way
            self._turn_round()
        self.lock = effects.lock
        self.top = effects.pile
        events.append(_new(Played, (seat, play.cards, effects.cleared, revolt)))
        if self._once:
            self._locked |= 1 << seat
        self._pending = (
            seat,
            play,
            effects.cleared,
            effects.skips,
            effects.bottom,
            effects.wins,
        )
        self._dues = list(effects.dues)
        if self._next_due(seat):
            self._answered = 0  # (passed since the last play: none, while its due is paid)
        else:
            self._resume(events)

    def _turn_round(self) -> None:
        """The direction of play turns round for the rest of the hand (nine_reverse...)."""
        self.backwards = not self.backwards
        players = len(self._held)
        if self.backwards:
            self._next_seat, self._clockwise = _anticlockwise(players)
        else:
            self._next_seat, self._clockwise = _seat_tables(players)[0], _clockwise(players)

    def _steady_play(
        self,
        seat: int,
        play: Play,
        facts: tricks.Facts,
        suits: tuple[int, ...],
        events: list[Event],
        going_out: bool = False,
    ) -> None:
        """`_play_variant` for a set whose effects are its cards' alone
        (`Judge.steady_facts`: daifugo's 5s, 7s, 8s, 10s, Js and 3s), not the opening:
        the same steps in the same order, with the pile and the lock made as `_quiet_play`
        makes them, instead of a `Trick` and `effects_of` (a play in five under daifugo
        goes this way).  `going_out`: the set is its player's last cards, which owe no
        dues and may be a punished finish (`effects_of`)."""
        rank, jokers = play.rank, play.jokers
        patterns, rows = self._patterns[seat], self._rows[seat]
        pattern = patterns[rank] - play.step
        patterns[rank] = pattern
        row = ROW_TABLE[rank << 7 | pattern]
        rows[rank] = row_for(rank, pattern) if row is None else row
        if jokers and rank != JOKER_RANK:
            pattern = patterns[JOKER_RANK] - jokers
            patterns[JOKER_RANK] = pattern
            rows[JOKER_RANK] = row_for(JOKER_RANK, pattern)
        self._held[seat] -= play.count
        move = (seat, play)
        self.log.append(move)
        self._moves.append(move)
        top = self.top
        bottom = going_out and not facts.wins and self._punished(play)
        if (  # (`tricks.lock_after`)
            self._suit_lock
            and not self.lock
            and top is not None
            and not top.jokers
            and not jokers
            and suits == top.suits
        ):
            self.lock = suits
        revolt = facts.revolt and not self._omened
        if revolt:
            self.revolution = not self.revolution
        if self._omen and flow.is_omen(play):
            self._omened = True
        if facts.unreverses and self.jack_back:
            self.jack_back = False
        elif facts.jack:
            self.jack_back = not self.jack_back
        if facts.turns:
            self._turn_round()
        self.top = _new(Top, (seat, rank, play.count, jokers, False, suits))
        events.append(_new(Played, (seat, play.cards, facts.cleared, revolt)))
        if self._once:
            self._locked |= 1 << seat
        self._pending = (seat, play, facts.cleared, facts.skips, bottom, facts.wins)
        if facts.dues and not going_out:
            self._dues = list(facts.dues)
            if self._next_due(seat):
                self._answered = 0  # (as `_play_variant`)
                return
        else:
            self._dues = []
            self.due = None
        self._resume(events)

    def _punished(self, play: Play) -> bool:
        """`tricks.punished_finish` for this play on the trick as it finds it (before it
        is made; not the opening)."""
        reversed_ = self.revolution != self.jack_back
        trick = _new(tricks.Trick, (self.top, reversed_, self.lock, False, False, -1))
        return tricks.punished_finish(self.rules, play, trick)

    def _quiet_play(
        self, seat: int, play: Play, suits: tuple[int, ...], events: list[Event]
    ) -> None:
        """`_play_variant` for a play that only goes on the pile (`Judge.is_quiet`), not
        its player's last cards nor the opening: what `tricks.quiet_effects` says, done.
        `suits`: the play's (`Judge.steady`)."""
        rank, jokers = play.rank, play.jokers
        patterns, rows = self._patterns[seat], self._rows[seat]
        pattern = patterns[rank] - play.step
        patterns[rank] = pattern
        row = ROW_TABLE[rank << 7 | pattern]
        rows[rank] = row_for(rank, pattern) if row is None else row
        if jokers and rank != JOKER_RANK:
            pattern = patterns[JOKER_RANK] - jokers
            patterns[JOKER_RANK] = pattern
            rows[JOKER_RANK] = row_for(JOKER_RANK, pattern)
        self._held[seat] -= play.count
        move = (seat, play)
        self.log.append(move)
        self._moves.append(move)
        top = self.top
        if (
            self._suit_lock
            and not self.lock
            and top is not None
            and not top.jokers
            and not jokers
            and suits == top.suits
        ):
            self.lock = suits
        self.top = _new(Top, (seat, rank, play.count, jokers, False, suits))
        events.append(_new(Played, (seat, play.cards, False, False)))
        locked = self._locked
        if self._once:
            self._locked = locked = locked | 1 << seat
        self._answered = 0
        turn = self._next_seat[(self._holding & ~locked) << 4 | seat]
        if turn is None:
            self._end_trick(seat, events)
        else:
            self.turn = self.actor = turn

    def _next_due(self, seat: int) -> bool:
        """Make the next of the play's dues the one owed (as many cards as it asks, or
        all the seat has left); False when none is left."""
        self.due = due = flow.next_due(self._dues, self._held[seat], self._pool)
        return due is not None

    def _pool(self) -> tuple[Card, ...]:
        """The cards a take may take (salvage, kings_march, zombie), lowest first: every
        card out of play face up this hand (played in a finished trick, discarded), not
        the trick in progress's, nor a card taken back before (played again, it stays
        out: every take uses up a card, so a hand always ends)."""
        out = list(with_discards(self.log, len(self.log), self._discarded, self._before))
        for _, play in self.log[self._trick_start :]:
            for card in play.cards:
                out.remove(card)
        # a card comes back once a hand: played again, it stays out (so a hand ends)
        for card in taken_of(self._discarded):
            if card in out:
                out.remove(card)
        return tuple(sorted(out, key=seats.lowest_first))

    def _pay_due(
        self, seat: int, action: Handover | Discard | Take | Bomb, events: list[Event]
    ) -> None:
        cards = action.cards
        due = self.due
        assert due is not None
        kind = type(action)
        if kind is Handover:
            receiver = self._next_seat[self._holding << 4 | seat]
            assert receiver is not None  # a seat holding cards owes only while another does
            self._move(seat, receiver, cards)
            events.append(_new(HandedOver, (seat, receiver, len(cards), cards)))
        elif kind is Bomb:
            if self._bomb(seat, action.rank, events):  # type: ignore[union-attr]
                self.due, self._dues, self._pending = None, [], None  # the hand is over
                return
        elif kind is Discard:
            self._take(seat, action.ids)  # type: ignore[union-attr]
            self._discarded += ((len(self.log), cards),)
            events.append(_new(Discarded, (seat, cards)))
        else:
            taker: int | None = seat
            if due.kind == "zombie":  # (the next seat holding cards: one does, or the
                taker = self._next_seat[self._holding << 4 | seat]  # hand would be over)
            assert taker is not None
            self._add(taker, action.ids)  # type: ignore[union-attr]
            self._discarded += ((~len(self.log), cards),)
            events.append(_new(Took, (seat, taker, cards)))
        held = self._held[seat]
        owed = due.size - 1
        if kind is Take:
            pool = self._pool()
            if owed and pool:
                self.due = Due(due.kind, min(owed, len(pool)), pool)
                return
            if due.kind == "salvage":  # (owed at a trick's end: the turn is the lead)
                self.due = None
                return
        elif held and owed:  # (a bomb names its ranks whatever the hand holds)
            self.due = Due(due.kind, owed if kind is Bomb else min(owed, held))
            return
        if held and self._next_due(seat):
            return
        self.due, self._dues = None, []
        self._resume(events)

    def _bomb(self, seat: int, rank: int, events: list[Event]) -> bool:
        """`seat` names `rank` (queen_bomber): every seat still holding cards, from it on
        in the direction of play, discards all its natural cards of the rank, face up; a
        seat left with none goes out (the bomber once its dues are paid: `_resume`).
        True if that ended the hand."""
        events.append(_new(Bombed, (seat, rank)))
        for other in (seat, *self._clockwise[seat]):
            if not self._holding >> other & 1:
                continue
            row = self._rows[other][rank]
            if not row:
                continue
            cards = row[-1].cards  # (every natural card of the rank held)
            self._take(other, [card.id for card in cards])
            self._discarded += ((len(self.log), cards),)
            events.append(_new(Discarded, (other, cards)))
            if other != seat and not self._held[other]:
                self._holding &= ~(1 << other)
                self._go_out(other, False, events)
                if self.phase is not _PLAY:
                    return True
        return False

    def _resume(self, events: list[Event]) -> None:
        """The rest of a play's effects, once its dues are paid: going out, the clear,
        the skips, the next turn."""
        assert self._pending is not None
        seat, _, cleared, skips, bottom, wins = self._pending
        self._pending = None
        if not self._held[seat] or wins:  # (a win at once: its cards are out of play)
            self._holding &= ~(1 << seat)
            self._go_out(seat, bottom, events)
            if self.phase is not _PLAY:
                return
        if cleared:
            self._end_trick(seat, events)
            return
        able = self._holding & ~self._locked
        if not skips:  # (the common case: the next seat able, as `_quiet_play` finds it)
            self._answered = 0
            turn = self._next_seat[able << 4 | seat]
            if turn is None:
                self._end_trick(seat, events)
            else:
                self.turn = self.actor = turn
            return
        others = []  # (a loop: a comprehension would make `able` a cell at every call)
        for other in self._clockwise[seat]:
            if able >> other & 1:
                others.append(other)
        answered = 0
        for other in others[:skips]:
            events.append(_new(Skipped, (other,)))
            answered |= 1 << other
            if self._once:
                self._locked |= 1 << other
        self._answered = answered
        if len(others) <= skips:
            self._end_trick(seat, events)
        else:
            self.turn = self.actor = others[skips]

    def _capital_fall(self, first: int, events: list[Event]) -> None:
        """`first` took the top place: a President still holding cards falls to the
        lowest free place at once (capital_fall)."""
        president = flow.falling(self.standing, self.seating, first)
        if president is None or not self._holding >> president & 1:
            return
        self._holding &= ~(1 << president)
        place = self._next_bottom
        self._next_bottom -= 1
        self._places[place] = president
        self._place_of[president] = place
        events.append(_new(Fell, (president, place)))

    def _next_in_trick(self, seat: int) -> int | None:
        """The next seat in the direction of play that holds cards and is not locked out
        of the trick."""
        return self._next_seat[(self._holding & ~self._locked) << 4 | seat]

    def _end_trick(self, winner: int, events: list[Event]) -> None:
        if self.jack_back or self.lock:
            self.changes += 1  # (the trick's flags end with it)
        if self._lucky and self._holding >> winner & 1 and self.log:
            owner, last = self.log[-1]
            if owner == winner and flow.lucky_sevens(last):
                # lucky_seven: the 7s nobody answered win: their player goes out at once
                self._holding &= ~(1 << winner)
                self._go_out(winner, False, events)
                if self.phase is not _PLAY:
                    return
        leader: int | None = winner
        if not self._holding >> winner & 1:
            leader = self._next_seat[self._holding << 4 | winner]
        self.top, self._answered, self._locked = None, 0, 0
        self.jack_back, self.lock = False, ()
        self._trick_start = len(self.log)
        self.turn = self.actor = leader
        events.append(_new(TrickEnded, (winner, leader)))
        if self._salvage and leader == winner and self.log:
            owner, last = self.log[-1]
            if owner == winner and flow.salvaging(last):
                # salvage: the 3 that ended the trick takes a card played back, first
                pool = self._pool()
                if pool:
                    self.due = Due("salvage", 1, pool)
                    self.changes += 1

    def _go_out(self, seat: int, bottom: bool, events: list[Event]) -> None:
        """The seat has no cards left (or wins at once, its cards out of play:
        great_revolution, lucky_seven): it takes the next place from the top, or the
        lowest free place when `bottom` (a finish the rules penalise)."""
        self._lasting = None
        self.changes += 1
        if bottom:
            place = self._next_bottom
            self._next_bottom -= 1
        else:
            place = self._next_top
            self._next_top += 1
        self._places[place] = seat
        self._place_of[seat] = place
        events.append(_new(WentOut, (seat, place)))
        if place == 0 and self.rules.capital_fall:
            self._capital_fall(seat, events)
        holding = self._holding
        if not holding & (holding - 1):  # one seat still holds cards
            if holding:  # (none when a capital fall placed the last one: `_capital_fall`)
                last = holding.bit_length() - 1
                place = self._next_top
                self._places[place] = last
                self._place_of[last] = place
                events.append(_new(WentOut, (last, place)))
            self._finish_hand(events)

    def _finish_hand(self, events: list[Event]) -> None:
        self._lasting = None
        finish = [self.seating[s] for s in self._places if s is not None]
        points = self._points.get(len(finish))
        if points is None:
            points = self._points[len(finish)] = _hand_points(self.rules, len(finish))
        ended, winners = flow.finish_hand(
            self.rules, self.hand, self.seating, finish, points, self.scores, self.finishes
        )
        events += ended
        self.turn = self.actor = None
        self.top = None
        if winners is not None:
            self.phase = Phase.GAME_OVER
            self.winners = winners
        else:
            self.phase = Phase.BETWEEN_HANDS

    # --- the exchange ----------------------------------------------------------------

    def _make_gives(self, standing: list[str]) -> list[Event]:
        rules = self.rules
        events: list[Event] = []
        for giver, receiver, count in seats.exchange_pairs(rules, self.seating, standing):
            rows = self._rows[giver]
            if rules.catastrophe and seats.spared(r for r in range(len(rows)) if rows[r]):
                continue  # nothing above 10: this pair exchanges nothing (catastrophe)
            cards = self._extreme_cards(giver, count, highest=True)
            self._move(giver, receiver, cards)
            give = _new(Gave, (giver, receiver, len(cards), tuple(cards)))
            self.exchanges.append(give)
            events.append(give)
            self.pending_returns[receiver] = (giver, count)
        if rules.auto_return:
            for receiver, (_, count) in list(self.pending_returns.items()):
                cards = self._extreme_cards(receiver, count, highest=False)
                events += self._return(receiver, Return(cards), automatic=True)
        return events

    def _extreme_cards(self, seat: int, count: int, *, highest: bool) -> list[Card]:
        """The seat's `count` highest cards in the order of `seats.highest_first` (card ids
        downwards: the joker, then by rank and suit), or its lowest in the order of
        `seats.lowest_first` (card ids upwards)."""
        cards: list[Card] = []
        for row in reversed(self._rows[seat]) if highest else self._rows[seat]:
            if row:
                held = row[-1].cards
                cards += reversed(held) if highest else held
                if len(cards) >= count:
                    break
        return cards[:count]

    def _return(self, seat: int, action: Return, automatic: bool = False) -> list[Event]:
        self._lasting = None
        giver, _ = self.pending_returns.pop(seat)
        self._move(seat, giver, action.cards)
        back = _new(Returned, (seat, giver, len(action.cards), action.cards, automatic))
        self.exchanges.append(back)
        events: list[Event] = [back]
        if self.pending_returns:
            self.actor = next(iter(self.pending_returns))
        elif self.phase is Phase.EXCHANGE and not automatic:
            events += self._begin_play()
        return events

    def _move(self, giver: int, receiver: int, cards: Sequence[Card]) -> None:
        gives, gets = self._patterns[giver], self._patterns[receiver]
        for card in cards:
            card_id = card.id
            rank, step = card_id >> 2, CARD_STEP[card_id]  # the joker's id >> 2 is its rank
            gives[rank] = give = gives[rank] - step
            gets[rank] = get = gets[rank] + step
            base = rank << 7
            self._rows[giver][rank] = ROW_TABLE[base | give] or row_for(rank, give)
            self._rows[receiver][rank] = ROW_TABLE[base | get] or row_for(rank, get)
        self._held[giver] -= len(cards)
        self._held[receiver] += len(cards)

    def _begin_play(self) -> list[Event]:
        self._lasting = None
        events: list[Event] = []
        if self.phase is Phase.EXCHANGE:
            events.append(_new(ExchangeDone, ()))
        self.phase = Phase.PLAY
        assert self.dealer is not None
        patterns = self._patterns
        leader = seats.first_leader(
            self.rules,
            self.seating,
            self.dealer,
            self.standing,
            lambda seat: bool(patterns[seat][0] % 3),  # holds the 3C (see `row_for`)
        )
        self.turn = self.actor = leader
        return events

    # --- reading the state ------------------------------------------------------------

    def hand_of(self, seat: int) -> list[Card]:
        """Seat's cards, lowest first.  Only for that seat (or a record): see `view_for`."""
        return [card for row in self._rows[seat] if row for card in row[-1].cards]

    @property
    def actors(self) -> list[int]:
        """Every seat asked to act now: the turn in play, each seat owing a return."""
        if self.phase is _PLAY:
            return [] if self.turn is None else [self.turn]
        if self.phase is _EXCHANGE:
            return list(self.pending_returns)
        return []

    def place_of(self, seat: int) -> int | None:
        """The place (0 = first) the seat took this hand; None while it holds cards."""
        return self._place_of[seat]

    def rows(self, seat: int) -> list[Row]:
        """Seat's canonical plays by rank (`rows[rank][n - 1]` is its set of n of that rank;
        `len(rows[rank])` is how many it holds).  Read-only: for bots that search."""
        return self._rows[seat]

    def card_counts(self) -> list[int]:
        return list(self._held)

    @property
    def finish_order(self) -> list[int]:
        """Seats that have gone out this hand, in order of going out."""
        placed = [(p, s) for s, p in enumerate(self._place_of) if p is not None]
        return [s for _, s in sorted(placed)] if self._places else []

    def titles(self) -> dict[str, str]:
        """Each seated player's title from the last finish (empty in hand 1)."""
        return titles_by_name(self.rules, self.standing or ())

    def hands_over(self) -> list[HandOver]:
        """Every hand of this game that has ended, as its `HandOver` said it."""
        return flow.hands_over(self.rules, self.finishes)

    def public_view(self) -> PublicView:
        """What everyone at the table may see now: counts, never the cards in a hand."""
        return _new(PublicView, self._public_fields())

    def view_for(self, seat: int) -> SeatView:
        """What `seat` may see: the public view, its own cards and its own part of the
        exchange (what `SeatView.of` makes of the same parts, which a client uses).

        Made per decision, so made cheaply: it fills the fields that every choice reads
        (those `SeatView.legal_actions` needs, and the card counts) and leaves the rest
        to be built from a snapshot when first read (`view.Snapshot`): the fields that
        change only now and then (the seating, the scores...) are kept from one view to
        the next while they stay the same, `played` grows from the last one's, and the
        seat's cards are read from its rows again only when they changed."""
        lasting = self._lasting or self._keep_lasting()
        head = lasting[0]
        pending = self.pending_returns
        log, moves, exchanges = self.log, self._moves, self.exchanges
        view = (ListedSeatView if self._variants else LazySeatView)(
            head[0],
            head[2],
            tuple(self._held),
            self.turn,
            self.top,
            self.revolution,
            self._opening,
            self.jack_back,
            self.lock,
            self.due,
            self.backwards,
            seat,
            pending[seat][1] if seat in pending else 0,
            tuple(self._rows[seat]),
            # A `Snapshot`'s fields; the view makes it one when a field is first read (a
            # plain tuple is quicker to make).
            (
                self,
                lasting,
                log,
                self._trick_start,
                len(log),
                self._answered,
                self._locked,
                moves,
                len(moves),
                exchanges,
                len(exchanges),
                self._discarded,
            ),
        )
        if self._variants:  # (the seat's listing made with its view: `ListedSeatView`)
            if seat == self.turn and self.phase is _PLAY:
                view._fresh = self.legal_actions(seat)  # type: ignore[attr-defined]
                view._listed = self._listed[3]  # type: ignore[attr-defined, index]
            else:
                view._fresh = view._listed = None  # type: ignore[attr-defined]
        return view

    @property
    def opening(self) -> bool:
        """The hand's opening play is still to come (what every view's `opening` says)."""
        return self._opening

    def seat_marks(
        self,
    ) -> tuple[tuple[bool, ...], tuple[bool, ...], tuple[int | None, ...]]:
        """The public marks of each seat now, as every view shows them: `passed`,
        `locked` and `places`, without making a view (for an observer that follows the
        table step by step).  The tuples are shared and never changed: one that is the
        same object as before holds the same marks."""
        lasting = self._lasting or self._keep_lasting()
        flags = lasting[2]
        return flags[self._answered], flags[self._locked], lasting[1][6]

    def mark_bits(self) -> int:
        """`passed` and `locked` of `seat_marks` as one number's bits: bit s for seat s
        passed, bit 16 + s for seat s locked (what an observer of many tables reads to
        write the marks of all of them at once)."""
        return self._answered | self._locked << 16

    def cards_played(self, log: Sequence[tuple[int, Play]], upto: int) -> tuple[Card, ...]:
        """Every card of `log[:upto]` in order (for a view's `played`): grown from the
        last answer when the same log only grew since."""
        shown, made, played = self._played
        if shown is log and made == upto:
            return played
        if shown is log and made < upto:
            if made == upto - 1:
                played += log[made][1].cards
            else:
                played += tuple([card for _, play in log[made:upto] for card in play.cards])
        else:
            played = tuple([card for _, play in log[:upto] for card in play.cards])
        if log is self.log:
            self._played = (log, upto, played)
        return played

    def cards_held(self, seat: int, rows: tuple[Row, ...]) -> tuple[Card, ...]:
        """The cards of `rows` (seat's rows at some moment), lowest first: kept per seat
        while its rows stay the same."""
        known = self._seen_hands.get(seat)
        if known is not None and known[0] == rows:
            return known[1]
        hand: tuple[Card, ...] = sum([row[-1].cards for row in rows if row], ())
        self._seen_hands[seat] = (rows, hand)
        return hand

    def _public_fields(self) -> tuple[Any, ...]:
        """`PublicView`'s fields in order (`view_for` lists them again, inlined)."""
        lasting = self._lasting or self._keep_lasting()
        flags = lasting[2]
        return (
            *lasting[0],
            tuple(self._held),
            self.turn,
            self.top,
            tuple(self.log[self._trick_start :]),
            with_discards(self.log, len(self.log), self._discarded)
            if self._discarded
            else self.cards_played(self.log, len(self.log)),
            self.revolution,
            self._opening,
            flags[self._answered],
            flags[self._locked],
            *lasting[1],
            self.jack_back,
            self.lock,
            self.due,
            self.backwards,
            taken_of(self._discarded) if self._discarded else (),
        )

    def _keep_lasting(self) -> tuple[Any, ...]:
        lasting: tuple[Any, ...] = self._lasting_fields()
        self._lasting = lasting
        return lasting

    def _lasting_fields(self) -> tuple[tuple[Any, ...], tuple[Any, ...], list[tuple[bool, ...]]]:
        """(rules, hand_number, phase, seating, dealer), (finish_order, standing, scores,
        owed, hands_played, winners, places) and the flags of `passed` and `locked` by
        bitmask: what changes only at a deal, in the exchange, when a seat goes out and
        at the end of a hand (where `_lasting` is dropped)."""
        return (
            (self.rules, self.hand, self.phase, tuple(self.seating), self.dealer),
            (
                tuple([seat for seat in self._places if seat is not None]),
                tuple(self.standing or ()),
                tuple([(name, self.scores[name]) for name in self.seating]),
                tuple([(seat, size) for seat, (_, size) in self.pending_returns.items()]),
                len(self.finishes),
                tuple(self.winners),
                tuple(self._place_of),
            ),
            _seat_flags(len(self._held)),
        )

    @classmethod
    def from_view(cls, view: SeatView, hands: Sequence[Sequence[Card]]) -> Game:
        """The hand in play as `view` sees it, with every seat's cards as given (the
        viewer's own among them): a possible world for a bot that searches.  Only the
        rest of this hand can be played in it (its history is not there)."""
        if view.phase is not _PLAY:
            raise IllegalAction("only a hand in play can be rebuilt from a view")
        players = len(view.seating)
        if len(hands) != players or any(len(h) != n for h, n in zip(hands, view.counts)):
            raise IllegalAction("the hands must match the view's card counts")
        game = cls(view.rules, view.seating)
        game.scores = dict(view.scores)
        # Earlier hands' finishes are not in a view, only how many there were, which is
        # what the end of a game by rounds depends on.
        game.finishes = [[] for _ in range(view.hands_played)]
        game.hand, game.phase, game.dealer = view.hand_number, _PLAY, view.dealer
        game.standing = list(view.standing) if view.standing else None
        game._patterns, game._rows = _holdings(
            [[card.id for card in hand] for hand in hands], view.rules.decks == 1
        )
        game._held = list(view.counts)
        # (A President fallen under capital_fall has a place and still has cards.)
        game._holding = sum(
            1 << s
            for s, n in enumerate(view.counts)
            if n and (not view.places or view.places[s] is None)
        )
        game._clockwise = _clockwise(players)
        game._next_seat, game._pass_events, game._pass_moves, game._tops = _seat_tables(players)
        game.backwards = view.backwards
        if view.backwards:
            game._next_seat, game._clockwise = _anticlockwise(players)
        game.log, game._trick_start = list(view.trick), 0
        if view.rules.takes:  # (the cards out of play a take may take: `_pool`)
            out = list(view.played)
            for _, play in view.trick:
                for card in play.cards:
                    if card in out:
                        out.remove(card)
            if view.taken:  # (the cards that came back this hand, out of `played` once
                # already: their mark takes them out of `_before` as it did of the hand's
                # cards, and none may come back again)
                out += view.taken
                game._discarded = ((~0, view.taken),)
            game._before = tuple(out)
        game._moves = list(view.history)
        game.top, game.revolution = view.top, view.revolution
        game._omened = view.rules.omen and any(
            isinstance(action, Play) and flow.is_omen(action) for _, action in view.history
        )
        game.jack_back, game.lock, game.due = view.jack_back, view.lock, view.due
        if view.due is not None and view.trick:
            # What the play that made the due still does once it is paid (as
            # `_play_variant` keeps it): its clear, its skips; never a forbidden finish
            # (the seat still holds cards).
            seat, play = view.trick[-1]
            rules = view.rules
            before = tricks.Trick(None, view.reversed, (), False)
            covered = None  # the pile the last play beat, rebuilt from the trick
            for owner, earlier in view.trick[:-1]:
                covered = tricks.pile_of(rules, owner, earlier, before._replace(top=covered))
            effects = tricks.effects_of(rules, seat, play, before._replace(top=covered), False)
            game._pending = (seat, play, effects.cleared, effects.skips, False, False)
            # the dues after the one owed now (they come in the order of the triggers)
            kinds = [kind for kind, _ in effects.dues]
            after = kinds.index(view.due.kind) + 1 if view.due.kind in kinds else len(kinds)
            game._dues = list(effects.dues[after:])
        game.turn = game.actor = view.turn
        game._answered = sum(1 << s for s, p in enumerate(view.passed) if p)
        game._locked = sum(1 << s for s, p in enumerate(view.locked) if p)
        game._opening = view.opening
        places: list[int | None] = list(view.places) if view.places else [None] * players
        game._place_of = places
        game._places = [None] * players
        for seat, place in enumerate(places):
            if place is not None:
                game._places[place] = seat
        taken = [p for p in places if p is not None]
        game._next_top = next((p for p in range(players) if p not in taken), 0)
        game._next_bottom = next(
            (p for p in range(players - 1, -1, -1) if p not in taken), players - 1
        )
        return game

    @classmethod
    def before_deal(cls, view: SeatView) -> Game:
        """The game as `view` saw it just before its hand was dealt (the scores, the
        standing its exchange follows, who deals): a game in which a possible deal of that
        hand is made again with `start_hand(seating=view.seating, dealer=view.dealer,
        deal=...)`, the exchange's gives following, as a bot weighing its return does.
        Only a hand after the first (one with a standing) has one; earlier hands' history
        is not in it."""
        if view.hand_number < 1 or not view.standing or view.dealer is None:
            raise IllegalAction("only a hand after the first is dealt from a standing")
        game = cls(view.rules, view.seating)
        game.scores = dict(view.scores)
        game.winners = list(view.winners)
        # The standing is what the last finish gives (`_next_standing`: leavers out,
        # newcomers below), so the last finish *is* the standing, turned over already if
        # gekokujou turned it (no standing before it to turn it again).
        game.finishes = [[] for _ in range(view.hands_played - 1)] + [list(view.standing)]
        game.hand = view.hand_number - 1
        players = len(view.seating)
        if view.rules.dealer != "scum":  # the deal rotates: the last dealer sat on the right
            game.dealer = (view.dealer - 1) % players
        else:
            game.dealer = view.dealer
        return game

    # --- small helpers ----------------------------------------------------------------

    def _between_hands(self, what: str) -> None:
        flow.check_between_hands(self.phase, what)

    def _next_standing(self) -> list[str]:
        return seats.next_standing(
            self.rules, self.finishes[-1], self.standing, self._present, self._joined
        )

    def _not_your_turn(self, seat: int) -> None:
        here = 0 <= seat < len(self.seating)
        places = self._place_of
        flow.not_your_turn(
            seat,
            self.seating,
            self.turn,
            out=here and not self._held[seat],
            fell=here and self.phase is _PLAY and bool(places) and places[seat] is not None,
            locked=here and bool(self._locked >> seat & 1),
            once=self._once,
        )


def _holdings(
    hands: Sequence[Sequence[int]], one_deck: bool
) -> tuple[list[list[int]], list[list[Row]]]:
    """Each seat's suit patterns by rank (see `moves.row_for`) and rows, from its card ids
    (of one deck: rows all in `ROW_TABLE` already)."""
    all_patterns, all_rows = [], []
    table, steps = ROW_TABLE, CARD_STEP
    for hand in hands:
        patterns = [0] * 14
        for card_id in hand:
            patterns[card_id >> 2] += steps[card_id]  # the joker's id >> 2 is its rank
        if one_deck:
            rows = [table[base | pattern] for base, pattern in zip(_RANK_BASES, patterns)]
        else:
            rows = [row_for(rank, pattern) for rank, pattern in enumerate(patterns)]
        all_patterns.append(patterns)
        all_rows.append(rows)
    return all_patterns, all_rows  # type: ignore[return-value]


def _cards_of(ids: Sequence[int]) -> tuple[Card, ...]:
    """The cards of these ids, in their order (one C call for the deal's events)."""
    if len(ids) < 2:
        return tuple([CARDS[i] for i in ids])
    return itemgetter(*ids)(CARDS)  # type: ignore[no-any-return]


#: A rank's suit pattern (`moves.row_for`: base 3, a digit per suit) as its count of each
#: suit, C D H S.

#: Each rank's offset in `ROW_TABLE`.
_RANK_BASES = tuple(rank << 7 for rank in range(14))


#: All of a game's fields read in one call, and where each is in what it reads.
_read_fields: Final = attrgetter(*_FIELDS)
_FIELD_AT: Final = {name: index for index, name in enumerate(_FIELDS)}
#: What a clone copies of the game's own, by where `_read_fields` has it: its lists of
#: lists two levels down, its other lists (or None) and its maps one level; every other
#: field holds what is never changed in place, or the tables shared by every game of its
#: size (`Game._SHARED`), or a view's cache (reset).  A field that holds a list or a map
#: belongs here (tests/engine/test_fast_paths.py checks that a clone shares none).
_NESTED: Final = tuple(_FIELD_AT[name] for name in ("_patterns", "_rows", "finishes"))
_FLAT: Final = tuple(
    _FIELD_AT[name]
    for name in (
        "_actions", "_dues", "_held", "_joined", "_moves", "_place_of", "_places", "_present",
        "exchanges", "history", "log", "players", "seating", "standing", "winners",
    )
)  # fmt: skip
_MAPS: Final = tuple(_FIELD_AT[name] for name in ("_points", "pending_returns", "scores"))
#: Compiled by mypyc (which lists a class's fields in __mypyc_attrs__).
_COMPILED: Final = hasattr(Game, "__mypyc_attrs__")


def _filler() -> Callable[[Game, Iterable[Any]], None]:
    """`fill(game, values)`: every field of a bare game set from `values` in `_FIELDS`'
    order, in one statement (made here from the slots' names, as `dataclasses` makes
    its methods: 75 `setattr` calls cost a clone half again)."""
    targets = "".join(f"game.{name}, " for name in _FIELDS)
    namespace: dict[str, Any] = {}
    exec(f"def fill(game, values):\n    {targets}= values\n", namespace)
    return cast(Callable[[Game, Iterable[Any]], None], namespace["fill"])


_fill_fields: Final = _filler()


#: The seats a game is first made with before it is given another's state.
_SEATS: Final = ("a", "b", "c")


def _rebuilt(rules: Rules, state: dict[str, Any]) -> Game:
    """An unpickled game: made as a new one (a class compiled by mypyc is made only
    through its __init__; any three seats will do), then given all of its state."""
    game = Game(rules, _SEATS)
    game.__setstate__(state)
    return game


@functools.lru_cache(maxsize=512)  # (by rules: bounded, as `judge_for`'s judges are)
def _hand_points(rules: Rules, players: int) -> tuple[int, ...]:
    return tuple(hand_points(rules, players))


@functools.lru_cache(maxsize=512)  # (by rules: bounded, as `judge_for`'s judges are)
def _clearing(rules: Rules) -> tuple[bool, ...]:
    """By rank, whether a single card of it clears the pile."""
    return tuple(clears(rules, rank, 1) for rank in range(14))


@functools.cache
def _seat_tables(
    players: int,
) -> tuple[list[int | None], tuple[Passed, ...], tuple[tuple[int, Pass], ...], list[Top | None]]:
    """For a table of `players` (at most 16): the next seat clockwise from each seat among
    each set of seats (a bitmask), at `able << 4 | seat`; each seat's pass event and its
    move (seat, PASS); the pile a seat's canonical play makes (`moves.row_for`: no wild
    joker, so a set of jokers alone is all jokers), at `seat << 8 | rank << 4 | count`.
    Shared between games (never changed): the hot path's lookups."""
    after: list[int | None] = [None] * ((1 << players) << 4)
    for able in range(1 << players):
        for seat in range(players):
            after[able << 4 | seat] = next(
                (
                    nxt % players
                    for nxt in range(seat + 1, seat + players)
                    if able >> nxt % players & 1
                ),
                None,
            )
    passes = tuple(_new(Passed, (seat, False)) for seat in range(players))
    moves = tuple((seat, PASS) for seat in range(players))
    tops: list[Top | None] = [None] * (players << 8)
    for seat in range(players):
        for rank in range(JOKER_RANK + 1):
            for count in range(1, 16):
                jokers = count if rank == JOKER_RANK else 0
                tops[seat << 8 | rank << 4 | count] = _new(
                    Top, (seat, rank, count, jokers, False, ())
                )
    return after, passes, moves, tops


@functools.cache
def _anticlockwise(players: int) -> tuple[list[int | None], list[tuple[int, ...]]]:
    """`_seat_tables`' next seat and `_clockwise`, the other way round the table: the
    next seat anticlockwise from `seat` among the seats of bitmask `able`, at
    `able << 4 | seat`, and per seat the other seats anticlockwise (shared: never
    changed)."""
    before: list[int | None] = [None] * ((1 << players) << 4)
    for able in range(1 << players):
        for seat in range(players):
            before[able << 4 | seat] = next(
                (
                    (seat - step) % players
                    for step in range(1, players)
                    if able >> (seat - step) % players & 1
                ),
                None,
            )
    order = [tuple((s - step) % players for step in range(1, players)) for s in range(players)]
    return before, order


@functools.cache
def _seat_flags(players: int) -> list[tuple[bool, ...]]:
    """For each bitmask of seats, the flag of each seat as a tuple (`passed`, `locked`)."""
    return [
        tuple([bool(mask >> seat & 1) for seat in range(players)]) for mask in range(1 << players)
    ]


@functools.cache
def _clockwise(players: int) -> list[tuple[int, ...]]:
    """Per seat, the other seats clockwise (shared: never changed)."""
    return [tuple((s + step) % players for step in range(1, players)) for s in range(players)]

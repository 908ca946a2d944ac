"""What a seat may see (its own cards, only how many everyone else holds), decided here
and nowhere else.

`PublicView` is what everyone at the table may see: a spectator's whole view, and the
server's public message.  `SeatView` is that plus one seat's own cards and its own part
of the exchange; `SeatView.of` is the one way to make one, so a client that holds a
table's public view and its own cards builds exactly the view `Game.view_for` gives.
Bots choose from a `SeatView`; the server sends nothing else."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, ClassVar, NamedTuple, Protocol

from .actions import PASS, Action, Due, Pass, Play, Return
from .cards import JOKER_RANK, Card, counts_of
from .events import Event, Gave, HandStarted, Passed, Played, Returned
from .flow import not_a_return, timeout_action
from .judge import Trick, judge_for
from .moves import Row, Top, rows_of
from .phase import Phase
from .rules import Rules
from .scoring import titles_by_name

_PLAY, _EXCHANGE = Phase.PLAY, Phase.EXCHANGE
_chain = chain.from_iterable


class PublicView(NamedTuple):
    """The table as everyone there sees it: card counts, never cards in a hand."""

    rules: Rules
    #: 0-based number of the current (or last) hand; -1 before the first deal.
    hand_number: int
    phase: Phase
    seating: tuple[str, ...]
    dealer: int | None
    #: How many cards each seat holds.
    counts: tuple[int, ...]
    #: The seat to play (None outside the play).
    turn: int | None
    #: The play to beat (None when the turn is a lead).
    top: Top | None
    #: The plays of the trick in progress, (seat, play), oldest first.
    trick: tuple[tuple[int, Play], ...]
    #: Every card played this hand, in order, and discarded (ten_discard); not one taken
    #: back into a hand since (salvage, kings_march, zombie).
    played: tuple[Card, ...]
    revolution: bool
    #: The next play must contain the 3C (the first play of the game).
    opening: bool
    #: Seats that passed (or were skipped) since the last play.
    passed: tuple[bool, ...]
    #: Seats out of this trick under passing = "locked".
    locked: tuple[bool, ...]
    #: Seats that went out this hand, in finishing order.
    finish_order: tuple[int, ...]
    #: Names by place from the last hand (empty in hand 1).
    standing: tuple[str, ...]
    scores: tuple[tuple[str, int], ...]
    #: Exchange returns still owed: (seat, number of cards).
    owed: tuple[tuple[int, int], ...]
    hands_played: int
    winners: tuple[str, ...]
    #: Per seat, the place it took this hand (0 = first), None while it holds cards.
    places: tuple[int | None, ...]
    #: A jack has reversed the order until this trick ends (jack_back).
    jack_back: bool = False
    #: The suits every play of this trick must have, sorted; () when unlocked (suit_lock).
    lock: tuple[int, ...] = ()
    #: What the seat whose turn it is owes before play goes on (seven_pass, ten_discard).
    due: Due | None = None
    #: Play goes anticlockwise (a "direction" trigger turned it this hand: nine_reverse,
    #: queen_reverse, king_reverse); clockwise when False.
    backwards: bool = False
    #: The cards taken back into a hand this hand (salvage, kings_march, zombie), in
    #: order: a card comes back once a hand (played again, it stays out).
    taken: tuple[Card, ...] = ()

    @property
    def reversed(self) -> bool:
        """Whether the rank order is reversed now: by a revolution or a jack, not both."""
        return self.revolution != self.jack_back

    def titles(self) -> dict[str, str]:
        """Each player's title from the last finish (empty in hand 1)."""
        return titles_by_name(self.rules, self.standing)

    def next_holding(self, seat: int) -> int | None:
        """The next seat after `seat` in the direction of play that still holds cards:
        the one a hand-over from `seat` goes to (seven_pass); None if there is none."""
        players = len(self.seating)
        step = -1 if self.backwards else 1
        for n in range(1, players):
            other = (seat + step * n) % players
            if self.places[other] is None and self.counts[other] > 0:
                return other
        return None

    def last_finish(self) -> tuple[str, ...]:
        """Names by place in the hand that ended last: once a hand is over (every seat
        placed), its own finish; during a hand, `standing` (the finish before, which
        changes only at the next deal)."""
        places = self.places
        if places and self.phase in (Phase.BETWEEN_HANDS, Phase.GAME_OVER) and None not in places:
            order = sorted((place or 0, seat) for seat, place in enumerate(places))
            return tuple(self.seating[seat] for _, seat in order)
        return self.standing

    def titles_won(self) -> dict[str, str]:
        """The titles as they stand: once a hand is over, the ones its finish gives;
        during a hand, the ones held (`titles`).  What a screen shows between hands and
        at the end of the game."""
        return titles_by_name(self.rules, self.last_finish())


#: What a seat sees beyond `PublicView`, in order (declared here once: `SeatView`'s
#: annotations, slots, `__init__` and properties are held to these names and
#: `PublicView`'s by tests/engine/test_views.py).
_OWN_FIELDS = ("seat", "hand", "exchange", "return_size", "rows", "history")
#: `SeatView`'s fields in order: `PublicView`'s, then the seat's own.
_SEAT_FIELDS = (*PublicView._fields, *_OWN_FIELDS)


#: The fields `Game.view_for` fills at once: those every decision reads.
_EAGER_FIELDS = (
    "rules",
    "phase",
    "counts",
    "turn",
    "top",
    "revolution",
    "opening",
    "jack_back",
    "lock",
    "due",
    "backwards",
    "seat",
    "return_size",
    "rows",
)
#: The fields filled when first read (each a property, kept in a slot of its name with
#: a `_` before it).
_LAZY_FIELDS = tuple(name for name in _SEAT_FIELDS if name not in _EAGER_FIELDS)


class SeatView:
    """What one seat may see: `PublicView`'s fields and then the seat's own.  Read-only
    (every field is an immutable value: a view kept shows the moment it was made).

    Bots and the simulator make one per decision, so `Game.view_for` fills only the
    fields every decision needs (the phase, the turn, the pile, the seat's rows...) and
    keeps a snapshot for the rest, each built the first time it is read: a bot that does
    not look at a field does not pay for it.  `SeatView.of` (a client's view, from a
    public view and its own cards) fills every field at once.  It behaves as the named
    tuple it once was where that is asked of it: `_fields`, `_replace`, `_asdict`,
    iteration in field order, equality and hashing by fields, pickling."""

    __slots__ = (*_EAGER_FIELDS, *[f"_{name}" for name in _LAZY_FIELDS], "_at")

    # filled by `Game.view_for` (every decision reads them)
    rules: Rules
    phase: Phase
    counts: tuple[int, ...]
    turn: int | None
    top: Top | None
    revolution: bool
    opening: bool
    jack_back: bool
    lock: tuple[int, ...]
    due: Due | None
    backwards: bool
    seat: int
    #: Cards this seat must return in the exchange now (0 if none).
    return_size: int
    #: This seat's canonical plays by rank, derived from `hand` (see `moves.row_for`).
    rows: tuple[Row, ...]
    # filled when first read (the properties below), or by `__init__`
    _hand_number: int
    _seating: tuple[str, ...]
    _dealer: int | None
    _trick: tuple[tuple[int, Play], ...]
    _played: tuple[Card, ...]
    _passed: tuple[bool, ...]
    _locked: tuple[bool, ...]
    _finish_order: tuple[int, ...]
    _standing: tuple[str, ...]
    _scores: tuple[tuple[str, int], ...]
    _owed: tuple[tuple[int, int], ...]
    _hands_played: int
    _winners: tuple[str, ...]
    _places: tuple[int | None, ...]
    _taken: tuple[Card, ...]
    _hand: tuple[Card, ...]
    _exchange: tuple[Gave | Returned, ...]
    _history: tuple[tuple[int, Play | Pass], ...]
    #: What the fields not yet filled are built from (a `Snapshot`, or its fields as a
    #: plain tuple), or None.
    _at: Snapshot | tuple[Any, ...] | None

    _fields: ClassVar[tuple[str, ...]] = _SEAT_FIELDS
    _field_defaults: ClassVar[dict[str, Any]] = {"history": ()}

    def __init__(
        self,
        rules: Rules,
        hand_number: int,
        phase: Phase,
        seating: tuple[str, ...],
        dealer: int | None,
        counts: tuple[int, ...],
        turn: int | None,
        top: Top | None,
        trick: tuple[tuple[int, Play], ...],
        played: tuple[Card, ...],
        revolution: bool,
        opening: bool,
        passed: tuple[bool, ...],
        locked: tuple[bool, ...],
        finish_order: tuple[int, ...],
        standing: tuple[str, ...],
        scores: tuple[tuple[str, int], ...],
        owed: tuple[tuple[int, int], ...],
        hands_played: int,
        winners: tuple[str, ...],
        places: tuple[int | None, ...],
        jack_back: bool,
        lock: tuple[int, ...],
        due: Due | None,
        backwards: bool,
        taken: tuple[Card, ...],
        seat: int,
        hand: tuple[Card, ...],
        exchange: tuple[Gave | Returned, ...],
        return_size: int,
        rows: tuple[Row, ...],
        history: tuple[tuple[int, Play | Pass], ...] = (),
    ) -> None:
        self.rules, self._hand_number, self.phase = rules, hand_number, phase
        self._seating, self._dealer, self.counts = seating, dealer, counts
        self.turn, self.top, self._trick, self._played = turn, top, trick, played
        self.revolution, self.opening = revolution, opening
        self._passed, self._locked, self._finish_order = passed, locked, finish_order
        self._standing, self._scores, self._owed = standing, scores, owed
        self._hands_played, self._winners, self._places = hands_played, winners, places
        self.jack_back, self.lock, self.due, self.backwards = jack_back, lock, due, backwards
        self._taken = taken
        self.seat, self._hand, self._exchange = seat, hand, exchange
        self.return_size, self.rows, self._history = return_size, rows, history
        self._at = None

    def _fill(self, name: str) -> Any:
        """A field not filled yet: built from the snapshot, kept, returned."""
        at = self._at
        if type(at) is tuple:  # as `Game.view_for` left it
            self._at = at = Snapshot._make(at)
        value = _FILLS[name](self, at)  # type: ignore[arg-type]
        setattr(self, f"_{name}", value)
        return value

    @property
    def hand_number(self) -> int:
        try:
            return self._hand_number
        except AttributeError:
            return self._fill("hand_number")  # type: ignore[no-any-return]

    @property
    def seating(self) -> tuple[str, ...]:
        try:
            return self._seating
        except AttributeError:
            return self._fill("seating")  # type: ignore[no-any-return]

    @property
    def dealer(self) -> int | None:
        try:
            return self._dealer
        except AttributeError:
            return self._fill("dealer")  # type: ignore[no-any-return]

    @property
    def trick(self) -> tuple[tuple[int, Play], ...]:
        try:
            return self._trick
        except AttributeError:
            return self._fill("trick")  # type: ignore[no-any-return]

    @property
    def played(self) -> tuple[Card, ...]:
        try:
            return self._played
        except AttributeError:
            return self._fill("played")  # type: ignore[no-any-return]

    @property
    def passed(self) -> tuple[bool, ...]:
        try:
            return self._passed
        except AttributeError:
            return self._fill("passed")  # type: ignore[no-any-return]

    @property
    def locked(self) -> tuple[bool, ...]:
        try:
            return self._locked
        except AttributeError:
            return self._fill("locked")  # type: ignore[no-any-return]

    @property
    def finish_order(self) -> tuple[int, ...]:
        try:
            return self._finish_order
        except AttributeError:
            return self._fill("finish_order")  # type: ignore[no-any-return]

    @property
    def standing(self) -> tuple[str, ...]:
        try:
            return self._standing
        except AttributeError:
            return self._fill("standing")  # type: ignore[no-any-return]

    @property
    def scores(self) -> tuple[tuple[str, int], ...]:
        try:
            return self._scores
        except AttributeError:
            return self._fill("scores")  # type: ignore[no-any-return]

    @property
    def owed(self) -> tuple[tuple[int, int], ...]:
        try:
            return self._owed
        except AttributeError:
            return self._fill("owed")  # type: ignore[no-any-return]

    @property
    def hands_played(self) -> int:
        try:
            return self._hands_played
        except AttributeError:
            return self._fill("hands_played")  # type: ignore[no-any-return]

    @property
    def winners(self) -> tuple[str, ...]:
        try:
            return self._winners
        except AttributeError:
            return self._fill("winners")  # type: ignore[no-any-return]

    @property
    def places(self) -> tuple[int | None, ...]:
        try:
            return self._places
        except AttributeError:
            return self._fill("places")  # type: ignore[no-any-return]

    @property
    def taken(self) -> tuple[Card, ...]:
        try:
            return self._taken
        except AttributeError:
            return self._fill("taken")  # type: ignore[no-any-return]

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's own cards, lowest first."""
        try:
            return self._hand
        except AttributeError:
            return self._fill("hand")  # type: ignore[no-any-return]

    @property
    def exchange(self) -> tuple[Gave | Returned, ...]:
        """The exchange gives and returns this seat made or received this hand, with cards."""
        try:
            return self._exchange
        except AttributeError:
            return self._fill("exchange")  # type: ignore[no-any-return]

    @property
    def history(self) -> tuple[tuple[int, Play | Pass], ...]:
        """Every play and pass of this hand this seat has seen, (seat, Play or PASS), oldest first; a pass the rules made for a seat with no play (auto_pass) included.  The engine's view holds the whole hand; online it holds what the client saw since it joined (a client that joins mid-hand misses the start: `played` is complete)."""
        try:
            return self._history
        except AttributeError:
            return self._fill("history")  # type: ignore[no-any-return]

    @classmethod
    def _make(cls, fields: Iterable[Any]) -> SeatView:
        return cls(*fields)

    def _asdict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._fields}

    def _replace(self, **changes: Any) -> SeatView:
        fields = self._asdict()
        unknown = set(changes) - set(fields)
        if unknown:
            raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
        fields.update(changes)
        return SeatView(**fields)

    def __iter__(self) -> Iterator[Any]:
        return (getattr(self, name) for name in self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeatView):
            return NotImplemented
        return tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return "SeatView(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        return (SeatView._make, (tuple(self),))

    @classmethod
    def of(
        cls,
        public: PublicView,
        seat: int,
        hand: Sequence[Card],
        exchange: Sequence[Gave | Returned],
        rows: Sequence[Row] | None = None,
        history: Sequence[tuple[int, Play | Pass]] = (),
    ) -> SeatView:
        """`public` seen from `seat`, holding `hand`, with its own part of the exchange
        and the plays and passes of this hand it saw (`history`).  `rows` (the hand's
        `rows_of`), when already known, stand for `hand`."""
        rows = tuple(rows_of(counts_of(hand)) if rows is None else rows)
        mine = tuple([card for row in rows if row for card in row[-1].cards])
        owed = 0
        for debtor, size in public.owed:
            if debtor == seat:
                owed = size
        return cls(*public, seat, mine, tuple(exchange), owed, rows, tuple(history))

    def public(self) -> PublicView:
        """What everyone else at the table sees of the same moment."""
        return PublicView._make([getattr(self, name) for name in PublicView._fields])

    @property
    def my_turn(self) -> bool:
        return self.phase is Phase.PLAY and self.turn == self.seat

    @property
    def reversed(self) -> bool:
        """Whether the rank order is reversed now: by a revolution or a jack, not both."""
        return self.revolution != self.jack_back

    def titles(self) -> dict[str, str]:
        return titles_by_name(self.rules, self.standing)

    def legal_actions(self) -> list[Action]:
        """The same list `Game.legal_actions(seat)` gives, from what this seat can see."""
        phase = self.phase
        if phase is not _PLAY or self.turn != self.seat:
            if phase is _EXCHANGE and self.return_size:
                return judge_for(self.rules).legal_returns(  # type: ignore[return-value]
                    self.rows, self.return_size
                )
            return []
        top, rows, rules = self.top, self.rows, self.rules
        if not rules.variants:  # the judge's own fast forms, inlined (a view per decision)
            if top is None:
                if not self.opening and (rules.joker_mode != "wild" or not rows[JOKER_RANK]):
                    return [*_chain(rows)]  # a lead: every canonical play held
            elif rules.plain_follow and not self.revolution:
                # the common follow: the trick's count, of a higher rank (or an equal one)
                # (loops, not comprehensions, as `Game.legal_actions` lists it: a
                # comprehension is a call of its own, dear beside the few plays found)
                index = top.size - 1
                low = top.rank + rules.follow_margin
                plays: list[Action] = []
                if index:
                    for row in rows[low:]:
                        if len(row) > index:
                            plays.append(row[index])
                else:
                    for row in rows[low:]:
                        if row:
                            plays.append(row[0])
                if not (rules.must_beat and plays):
                    plays.append(PASS)
                return plays
            elif rules.joker_mode != "wild" or not rows[JOKER_RANK]:
                # a follow where some sets clear (2s, 8s...) or bomb: by the pile's shapes
                plays = judge_for(rules).follows(rows, top, self.reversed)  # type: ignore[assignment]
                if not (rules.must_beat and plays):
                    plays.append(PASS)
                return plays
        return judge_for(rules).legal_actions(rows, self.judged(), self.due)

    def judged(self) -> Trick:
        """What a play is judged against now: the pile, the order in force, the lock and
        whether this is the game's opening play."""
        reversed_ = self.revolution != self.jack_back
        judge, rules = judge_for(self.rules), self.rules
        step = rules.step_lock and judge.stepped(self.trick, reversed_)
        colour = judge.coloured(self.trick) if rules.colour_lock else -1
        return Trick(self.top, reversed_, self.lock, self.opening, step, colour)

    def timeout_action(self) -> Action:
        """What the table's turn timer does for this seat now (`flow.timeout_action`, as
        `Game.timeout_action`): the lowest cards it owes in the exchange, a due paid with
        its lowest card, a pass where it may pass, else its cheapest play.  Raises
        `IllegalAction` when the seat has nothing to do."""
        owed = self.return_size if self.phase is _EXCHANGE and self.return_size else None
        return timeout_action(
            self.rules,
            self.seat,
            self.hand,
            owed,
            self.due if self.my_turn else None,
            self.legal_actions(),
            self.top is None,
            self.reversed,
        )

    def problem(self, action: object) -> str | None:
        """Why this seat may not take `action` now, in the engine's words (what
        `Game.check` would say); None when it may."""
        judge = judge_for(self.rules)
        if self.phase is _EXCHANGE and self.return_size:
            if type(action) is Return:
                return judge.return_problem(self.rows, self.return_size, action)
            return not_a_return(action)
        if not self.my_turn:
            return "it is not your turn"
        return judge.problem(self.rows, self.judged(), self.due, action)


class LazySeatView(SeatView):
    """A `SeatView` as `Game.view_for` makes it: the fields every decision reads, and
    the snapshot the others are built from when first read (`SeatView`'s properties)."""

    __slots__ = ()

    def __init__(
        self,
        rules: Rules,
        phase: Phase,
        counts: tuple[int, ...],
        turn: int | None,
        top: Top | None,
        revolution: bool,
        opening: bool,
        jack_back: bool,
        lock: tuple[int, ...],
        due: Due | None,
        backwards: bool,
        seat: int,
        return_size: int,
        rows: tuple[Row, ...],
        at: tuple[Any, ...],
    ) -> None:
        self.rules, self.phase, self.counts, self.turn, self.top = rules, phase, counts, turn, top
        self.revolution, self.opening, self.jack_back = revolution, opening, jack_back
        self.lock, self.due, self.backwards = lock, due, backwards
        self.seat, self.return_size = seat, return_size
        self.rows, self._at = rows, at


class ListedSeatView(LazySeatView):
    """A `LazySeatView` made with its seat's listing, when it is the seat's turn in play:
    the game's own (`Game.view_for` under rules with variants, where judging is dear), so
    that the game knows an action chosen from it is legal without judging it again while
    it has not moved on.  A view kept longer lists what its own moment allowed."""

    __slots__ = ("_fresh", "_listed")

    #: The game's listing (`Game.legal_actions`, which keeps it as `_listed`), for the
    #: first caller; each later one gets a copy of `_listed`.
    _fresh: list[Action] | None
    _listed: tuple[Action, ...] | None

    def legal_actions(self) -> list[Action]:
        fresh = self._fresh
        if fresh is not None:
            self._fresh = None
            return fresh
        listed = self._listed
        if listed is None:
            return SeatView.legal_actions(self)
        return [*listed]


class ViewSource(Protocol):
    """The game a lazy view was made from, for the fields it keeps caches of."""

    def cards_played(self, log: Sequence[tuple[int, Play]], upto: int) -> tuple[Card, ...]:
        """Every card of `log[:upto]`, in order."""

    def cards_held(self, seat: int, rows: tuple[Row, ...]) -> tuple[Card, ...]:
        """The cards of `rows` (the seat's), lowest first."""


class Snapshot(NamedTuple):
    """What `Game.view_for` keeps for the fields of a view it does not fill at once.
    Everything here stays as it was when the view was made: the lists are the game's
    own, but the game only ever appends to them (and starts new ones at a deal), so the
    first `logged`, `moved` and `exchanged` entries do not change."""

    source: ViewSource
    #: `Game._lasting`: (rules, hand_number, phase, seating, dealer), (finish_order,
    #: standing, scores, owed, hands_played, winners, places), flags by bitmask.
    lasting: tuple[Any, ...]
    log: list[tuple[int, Play]]
    trick_start: int
    logged: int
    answered: int
    locked: int
    moves: list[tuple[int, Play | Pass]]
    moved: int
    exchanges: list[Gave | Returned]
    exchanged: int
    #: The cards discarded so far this hand (ten_discard), each with how many plays the
    #: hand had then (see `with_discards`).
    discarded: tuple[tuple[int, tuple[Card, ...]], ...]


def _fill_exchange(view: SeatView, at: Snapshot) -> tuple[Gave | Returned, ...]:
    seat = view.seat
    return tuple([e for e in at.exchanges[: at.exchanged] if seat in (e.giver, e.receiver)])


def _lasting(group: int, index: int) -> Callable[[SeatView, Snapshot], Any]:
    return lambda view, at: at.lasting[group][index]


#: How each field a lazy view leaves unfilled is built from its snapshot.
_FILLS: dict[str, Callable[[SeatView, Snapshot], Any]] = {
    "hand_number": _lasting(0, 1),
    "seating": _lasting(0, 3),
    "dealer": _lasting(0, 4),
    "trick": lambda view, at: tuple(at.log[at.trick_start : at.logged]),
    "played": lambda view, at: (
        with_discards(at.log, at.logged, at.discarded)
        if at.discarded
        else at.source.cards_played(at.log, at.logged)
    ),
    "passed": lambda view, at: at.lasting[2][at.answered],
    "locked": lambda view, at: at.lasting[2][at.locked],
    "finish_order": _lasting(1, 0),
    "standing": _lasting(1, 1),
    "scores": _lasting(1, 2),
    "owed": _lasting(1, 3),
    "hands_played": _lasting(1, 4),
    "winners": _lasting(1, 5),
    "places": _lasting(1, 6),
    "taken": lambda view, at: taken_of(at.discarded),
    "hand": lambda view, at: at.source.cards_held(view.seat, view.rows),
    "exchange": _fill_exchange,
    "history": lambda view, at: tuple(at.moves[: at.moved]),
}


def with_discards(
    log: Sequence[tuple[int, Play]],
    upto: int,
    discarded: Sequence[tuple[int, tuple[Card, ...]]],
    before: Sequence[Card] = (),
) -> tuple[Card, ...]:
    """Every card out face up this hand, in order: `before` (those out before `log`
    begins: a game rebuilt mid-hand), the cards of `log[:upto]`, with each discard
    (ten_discard) after the plays made before it, and without the cards taken back since
    (salvage, kings_march, zombie: marked with ~ the number of plays then)."""
    shown: list[Card] = list(before)
    marks = list(discarded)
    for made, (_, play) in enumerate(log[:upto]):
        while marks and (marks[0][0] if marks[0][0] >= 0 else ~marks[0][0]) <= made:
            _settle(shown, *marks.pop(0))
        shown += play.cards
    for at, cards in marks:
        _settle(shown, at, cards)
    return tuple(shown)


def taken_of(discarded: Sequence[tuple[int, tuple[Card, ...]]]) -> tuple[Card, ...]:
    """The cards taken back this hand, in order: the marks of `with_discards` below 0."""
    return tuple([card for at, cards in discarded if at < 0 for card in cards])


def _settle(shown: list[Card], at: int, cards: tuple[Card, ...]) -> None:
    """A discard's cards join the cards out face up; a take's (`at` < 0) leave them."""
    if at >= 0:
        shown += cards
        return
    for card in cards:
        if card in shown:  # (a game rebuilt mid-hand shows only the trick: `from_view`)
            shown.remove(card)


def moves_seen(
    events: Sequence[Event], hand: int, players: int | None = None
) -> list[tuple[int, Play | Pass]]:
    """`SeatView.history` from the public events a seat saw, oldest first: the plays and
    passes since hand `hand` was dealt, or since the first event if its deal is not among
    them (a client that joined mid-hand); nothing if a later deal is, or if a move names
    a seat beyond a table of `players` (events that cannot be this hand's)."""
    start = 0
    for at in range(len(events) - 1, -1, -1):
        event = events[at]
        if isinstance(event, HandStarted):
            if event.hand != hand:
                return []
            start = at + 1
            break
    moves: list[tuple[int, Play | Pass]] = []
    for event in events[start:]:
        if isinstance(event, Played):
            moves.append((event.seat, Play(event.cards)))
        elif isinstance(event, Passed):
            moves.append((event.seat, PASS))
    if players is not None and any(not 0 <= seat < players for seat, _ in moves):
        return []
    return moves

"""One judge per table: what may be played on what, and why not, under one table's rules.

`judge_for(rules)` chooses it once.  The game, every seat's view, the terminal client and
the bots all ask the same object (docs/rules.md, "A trick", "Special plays" and the
toggles' sections), so a rule is decided in one place: nobody outside the engine asks
which family of rules a table plays.  Behind it, `moves` (the base rules' fast tables)
and `tricks` (every toggle, suits and effects) are the engine's own.

A hand is given as its rows (`rows[rank][n - 1]` is the seat's set of n cards of that
rank, as `Game.rows` and `SeatView.rows` hold it); the trick as a `Trick` (the pile, the
order in force, the lock, the opening)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from . import fast_tricks, moves, tricks
from .actions import (
    DUE_ACTIONS,
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
from .moves import Row, Top
from .rules import Rules
from .tricks import Trick

__all__ = ["Judge", "Trick", "judge_for", "strength"]

strength = moves.strength

#: A steady play's facts, its suits and whether it is quiet (`Judge.steady`).
Steady = tuple[tricks.Facts, tuple[int, ...], bool]

_NOTHING_OWED = (
    "nothing is owed now: cards are handed over after a play of 7s (seven_pass)"
    " and discarded after a play of 10s (ten_discard), and the cards played are taken"
    " back only as salvage, kings_march or zombie allow; ranks are named only after a play"
    " holding Qs (queen_bomber)"
)


class Judge:
    """The rules of one table as questions: what is legal, why an action is refused, how
    strong a rank is now, what clears the pile.  Made by `judge_for`, one per `Rules`."""

    __slots__ = ("_facts", "_general", "_listing", "_quiet", "_shapes", "_steady", "rules")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        #: Suits may matter or plays have effects: the general judgement of `tricks`.
        self._general = rules.variants
        self._listing = fast_tricks.Listing(rules)
        #: `tricks.is_quiet` by the play's card ids, as first asked.
        self._quiet: dict[tuple[int, ...], bool] = {}
        #: `tricks.facts_of` by the play's card ids, as first asked.
        self._facts: dict[tuple[int, ...], tricks.Facts] = {}
        #: `steady` by the play's card ids, as first asked.
        self._steady: dict[tuple[int, ...], Steady | None] = {}
        #: `moves.follow_shapes` by `rank << 5 | size << 1 | reversed`, as first asked.
        self._shapes: dict[int, moves.Shapes] = {}

    def __repr__(self) -> str:
        return f"judge_for({self.rules!r})"

    @property
    def steadies(self) -> dict[tuple[int, ...], Steady | None]:
        """`steady` by the play's card ids, as asked so far (for a caller that asks it per
        play: a play not in it is asked of `steady`)."""
        return self._steady

    @property
    def listing(self) -> fast_tricks.Listing:
        """The tables behind `plays_by_patterns` (`fast_tricks.Listing`), for a caller
        that asks them per decision: they answer None where that asks `tricks`."""
        return self._listing

    def __reduce__(self) -> tuple[object, ...]:
        return (judge_for, (self.rules,))

    # --- the order of ranks and the shapes of sets ---------------------------------------

    @staticmethod
    def strength(rank: int, reversed: bool) -> int:
        """Rank order for beating: reversed by a revolution (or a jack back), jokers
        always on top."""
        return moves.strength(rank, reversed)

    def clears(self, rank: int, count: int) -> bool:
        """Whether a set of this shape clears the pile at once."""
        return moves.clears(self.rules, rank, count)

    def beats(self, top: Top | None, reversed: bool, rank: int, count: int) -> bool:
        """Whether a set of `count` cards of `rank` may go on `top` by rank and size alone
        (suits, locks and sequences aside): the shape test a bot weighs unseen hands by."""
        return moves.may_play(self.rules, top, reversed, rank, count)

    def suits_matter(self) -> bool:
        """Whether which cards of a rank a seat holds can change what it may do (suit
        locks, sequences, the 3S...), so a hand is more than a count per rank."""
        return self._general

    def stepped(self, plays: Sequence[tuple[int, Play]], reversed: bool) -> bool:
        """Whether a trick with these plays is locked to the next rank (step_lock)."""
        return tricks.stepped(self.rules, plays, reversed)

    def coloured(self, plays: Sequence[tuple[int, Play]]) -> int:
        """The colour a trick with these plays is locked to, or -1 (colour_lock)."""
        return tricks.coloured(self.rules, plays)

    # --- what a seat may do on its turn ---------------------------------------------------

    def legal_plays(
        self, rows: Sequence[Row], trick: Trick, patterns: Sequence[int] | None = None
    ) -> list[Play]:
        """One play of every distinct shape the hand may make on this trick (by ranks and
        counts; by cards where suits matter).  `patterns` (the same hand's suit patterns
        by rank, `moves.row_for`) may stand in for the rows."""
        if self._general:
            if patterns is None:
                patterns = moves.patterns_of(rows)
            return self.plays_by_patterns(patterns, trick)
        top, reversed, opening = trick.top, trick.reversed, trick.opening
        # (the pile's shapes where `moves.legal_plays` reads them: a follow, not the
        # opening, where some sets clear or bomb)
        shapes = None
        if top is not None and not opening and not self.rules.plain_follow:
            shapes = self._follow_shapes(top, reversed)
        return moves.legal_plays(self.rules, rows, top, reversed, opening, shapes)

    def follows(self, rows: Sequence[Row], top: Top, reversed: bool) -> list[Play]:
        """`legal_plays` for a follow on a set pile under the base rules (not the
        variants), from a hand holding no wild joker: the sets of the shapes that answer
        the pile (`moves.follow_shapes`), read off the rows."""
        return moves.plays_of_shapes(rows, self._follow_shapes(top, reversed))

    def _follow_shapes(self, top: Top, reversed: bool) -> moves.Shapes:
        key = top.rank << 5 | top.size << 1 | reversed  # (a set pile: at most 8 cards)
        shapes = self._shapes.get(key)
        if shapes is None:
            shapes = self._shapes[key] = moves.follow_shapes(self.rules, top, reversed)
        return shapes

    def plays_by_patterns(self, patterns: Sequence[int], trick: Trick) -> list[Play]:
        """`legal_plays` under the general rules for a hand given as its suit patterns by
        rank (`moves.row_for`): from the tables of `fast_tricks` where they answer."""
        plays = self._listing.legal_plays(patterns, trick)
        if plays is None:
            counts = fast_tricks.kind_counts_of(patterns)
            return tricks.legal_plays(self.rules, counts, trick)
        return plays

    def legal_actions(
        self,
        rows: Sequence[Row],
        trick: Trick,
        due: Due | None,
        patterns: Sequence[int] | None = None,
    ) -> list[Action]:
        """Everything the seat whose turn it is may do: pay the due it owes, or play, or
        pass (when following, unless must_beat and a play beats).  `patterns` (the same
        hand's suit patterns by rank, `moves.row_for`) may stand in for the rows."""
        if due is not None:
            return self.due_choices(rows, due)  # type: ignore[return-value]
        plays: list[Action] = self.legal_plays(rows, trick, patterns)  # type: ignore[assignment]
        if trick.top is not None and not (plays and self.rules.must_beat):
            plays.append(PASS)
        return plays

    @staticmethod
    def due_choices(rows: Sequence[Row], due: Due) -> list[Handover | Discard | Take | Bomb]:
        """Every action that pays the next card of `due` from this hand (one per card
        kind held, or that may be taken; every rank, for a bomb), lowest first."""
        return fast_tricks.due_choices_held(moves.patterns_of(rows), due)

    def problem(
        self,
        rows: Sequence[Row],
        trick: Trick,
        due: Due | None,
        action: object,
        counts: moves.KindCounts | None = None,
    ) -> str | None:
        """Why the seat whose turn it is may not take `action` now, in a sentence a
        player understands; None when it may.  `counts` (the same hand's) may stand in
        for the rows where a check looks up cards."""
        held = _counts(rows) if counts is None else counts
        kind = type(action)
        if due is not None:
            if kind is not DUE_ACTIONS[due.kind]:
                return f"first {moves.due_words(due)}, then play goes on"
            return moves.due_problem(held, due, action)  # type: ignore[arg-type]
        if kind is Play:
            return self.play_problem(rows, trick, action, held)  # type: ignore[arg-type]
        if kind is Pass:
            if trick.top is None:
                return "the leader may not pass: lead any card or set"
            if self.rules.must_beat and self.legal_plays(rows, trick):
                return "you hold a play that beats the pile, so you may not pass (must_beat)"
            return None
        if kind is Return:
            return "the exchange is over: returns are made before the first lead"
        if kind in (Handover, Discard, Take, Bomb):
            return _NOTHING_OWED
        return f"{action!r} is not an action"

    def play_problem(
        self,
        rows: Sequence[Row],
        trick: Trick,
        play: Play,
        counts: moves.KindCounts | None = None,
    ) -> str | None:
        """Why `play` may not go on this trick from this hand, or None."""
        held = _counts(rows) if counts is None else counts
        if self._general:
            return tricks.play_problem(self.rules, held, trick, play)
        top, reversed, opening = trick.top, trick.reversed, trick.opening
        return moves.play_problem(self.rules, held, top, reversed, opening, play, rows)

    # --- what a play does ---------------------------------------------------------------

    def is_quiet(self, play: Play) -> bool:
        """Whether this set, legal on a trick, does nothing there but go on the pile (and
        lock it) unless it is its player's last cards or the opening (`tricks.is_quiet`)."""
        quiet = self._quiet.get(play.ids)
        if quiet is None:
            quiet = self._quiet[play.ids] = tricks.is_quiet(self.rules, play)
        return quiet

    def steady_facts(self, play: Play) -> tricks.Facts | None:
        """What this set does on a trick where it is legal, unless it is its player's last
        cards or the opening, when that is what its cards do whatever the trick
        (`tricks.is_steady`): its `tricks.facts_of`, the pile its own set, the lock as
        `tricks.lock_after` makes it; None when the trick matters (ask `effects_of`)."""
        steady = self.steady(play)
        return None if steady is None else steady[0]

    def steady(self, play: Play) -> Steady | None:
        """`steady_facts`, with the play's suits (`tricks.suits_of`) and whether it is
        quiet (`is_quiet`): what the game asks of a play once, in one look-up."""
        try:
            return self._steady[play.ids]
        except KeyError:  # (first asked: None is an answer, so no `get`)
            steady = self._steady[play.ids] = (
                (self._facts_of(play), tricks.suits_of(play), self.is_quiet(play))
                if tricks.is_steady(self.rules, play)
                else None
            )
            return steady

    def turns_direction(self, play: Play) -> bool:
        """Whether `play` turns the direction of play round (nine_reverse, queen_reverse,
        king_reverse; a play holding two such ranks turns it twice, so not at all)."""
        return self._facts_of(play).turns

    def beats_a_lone_joker(self, play: Play, top: Top | None, reversed: bool) -> str | None:
        """The toggle by which `play` on the pile `top` answers a lone joker (the 3S under
        spade_three, the 2S under spade_two_return), or None: what a log says of it."""
        return tricks.beats_a_lone_joker(self.rules, play, top, reversed)

    def lock_after(self, play: Play, top: Top | None, lock: tuple[int, ...]) -> tuple[int, ...]:
        """The suits the trick is locked to once `play` goes on the pile `top` under the
        lock `lock` (suit_lock; () for none): what a log says of a lock begun or lifted."""
        return tricks.lock_after(self.rules, Trick(top, False, lock, False), play)

    def dues_of(self, play: Play) -> tuple[tuple[str, int], ...]:
        """The dues (kind, cards) `play` leaves its player unless it is their last cards
        (seven_pass's hand-over, ten_discard's discard...): what a log says of a play."""
        return self._facts_of(play).dues

    def effects_of(self, seat: int, play: Play, trick: Trick, going_out: bool) -> tricks.Effects:
        """What `seat`'s legal `play` on `trick` does (`tricks.effects_of`): what it does
        whatever the trick (`tricks.facts_of`) is kept by its cards, as first asked."""
        facts = self._facts.get(play.ids)  # (`_facts_of` inline: a hot path)
        if facts is None:
            facts = self._facts_of(play)
        return tricks.effects_of(self.rules, seat, play, trick, going_out, facts)

    def _facts_of(self, play: Play) -> tricks.Facts:
        facts = self._facts.get(play.ids)
        if facts is None:
            if len(self._facts) >= FACTS_KEPT:  # (a client's judge hears a hostile
                self._facts.clear()  # server's plays: ever new cards grew it for good)
            facts = self._facts[play.ids] = tricks.facts_of(self.rules, play)
        return facts

    # --- the exchange ---------------------------------------------------------------------

    def legal_returns(self, rows: Sequence[Row], size: int) -> list[Return]:
        """Every distinct return of `size` cards: by ranks, or by cards where suits matter."""
        if self._general:
            returns = moves.returns_held(rows, size)
            return moves.returns_by_cards(_kind_counts(rows), size) if returns is None else returns
        return moves.legal_returns(rows, size)

    def return_problem(
        self, rows: Sequence[Row], size: int, ret: Return, counts: moves.KindCounts | None = None
    ) -> str | None:
        """Why `ret` is not a return of `size` cards from this hand, or None."""
        return moves.return_problem(_counts(rows) if counts is None else counts, size, ret)

    @staticmethod
    def rows_of(counts: Sequence[int]) -> list[Row]:
        """A hand's rows from its count of each card kind (`counts_of(cards)`)."""
        return moves.rows_of(counts)


def _counts(rows: Sequence[Row]) -> moves.PatternCounts:
    """A hand's count of each card kind, looked up when asked."""
    return moves.PatternCounts(moves.patterns_of(rows))


def _kind_counts(rows: Sequence[Row]) -> list[int]:
    """Every card kind's count in a hand given as rows."""
    return fast_tricks.kind_counts_of(moves.patterns_of(rows))


#: The judges made, by the identity of their rules (a `Rules` hashes all its fields:
#: too slow to ask per decision), each beside the rules it judges.
_JUDGES: dict[int, tuple[Rules, Judge]] = {}
#: The most plays a judge keeps the facts of (`Judge._facts_of`): a game's plays are a
#: few thousand kinds at most, two decks and their runs included.
FACTS_KEPT = 1 << 15


def judge_for(rules: Rules) -> Judge:
    """The judge of a table playing `rules` (one per rules: asking again is free)."""
    known = _JUDGES.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    if len(_JUDGES) >= 512:  # (rules made afresh again and again: keep the newest)
        _JUDGES.clear()
    judge = _by_value(rules)
    _JUDGES[id(rules)] = (rules, judge)
    return judge


@functools.lru_cache(maxsize=512)  # (bounded: a guest may start games under ever new rules)
def _by_value(rules: Rules) -> Judge:
    return Judge(rules)

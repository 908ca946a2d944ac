"""`tricks.legal_plays` from tables: the same list, in the same order, for the common
moments of a game under the variants (a lead; a follow on a set, locked or not; a follow
on a sequence), read off per-rank tables instead of testing every choice of cards.

The readable statement stays `tricks.legal_plays`; this module answers only where its
tables are exact and says None otherwise (the opening play, the 2S on a lone joker, the
3S on one where 3s clear or are transparent, a single 2 or 3 under assassination, a
single under down_number, a trick locked to the next rank or to a colour, suit_ranking,
bombs, a lock naming a suit twice), and the judge then asks `tricks`.
tests/engine/test_judge.py holds the two equal on random hands, piles and rules.

A hand is given as its suit patterns by rank (`patterns[rank]`: the count of each suit
in base 3, as `moves.row_for` reads them; for the joker rank, the jokers held)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import chain
from typing import Final

from .actions import TAKES, Bomb, Discard, Due, Handover, Play, Take, play_of
from .cards import JOKER_ID, JOKER_RANK, THREE, TWO
from .moves import _PAID, Top, due_choices, strength
from .rules import Rules
from .tricks import THREE_OF_SPADES, Trick, _choices, _Entry, _set_beats, add_runs_held

#: A sort entry (`tricks._Entry`) with its play.
_Led = tuple[int, int, int, tuple[int, ...], Play]
_RANKS: Final = range(JOKER_RANK)
_JOKER_TAIL: Final = tuple((JOKER_ID,) * n for n in range(9))
#: The sets of jokers alone, of 1 to 8 jokers (interned: `play_of`).
_JOKER_SETS: Final = tuple(play_of(_JOKER_TAIL[count]) for count in range(1, 9))
#: A suit pattern's count of each suit.
_DIGITS: Final = tuple(tuple(pattern // 3**suit % 3 for suit in range(4)) for pattern in range(81))
#: Whether a suit pattern holds each suit.
_HAS: Final = tuple(tuple(digit > 0 for digit in digits) for digits in _DIGITS)
#: `_LOCKED[pattern][mask]`: what of the pattern a trick locked to the suits of the 4-bit
#: `mask` lets go: one card of each of those suits at most (`tricks._fits`).
_LOCKED: Final = tuple(
    tuple(
        sum(min(_DIGITS[pattern][suit], 1) * 3**suit for suit in range(4) if mask >> suit & 1)
        for mask in range(16)
    )
    for pattern in range(81)
)

#: A suit pattern's suits held, as bits 13 apart (suit s at bit 13 * s), so that a hand's
#: `sum(_SPREAD[pattern] << rank)` holds each suit's ranks in 13 bits of their own.
_SPREAD: Final = tuple(
    sum(1 << 13 * suit for suit in range(4) if _HAS[pattern][suit]) for pattern in range(81)
)


def _lead_runs(rules: Rules, key: int) -> tuple[tuple[_Led, ...], ...]:
    """The sequences a suit holding these ranks leads, for each of the four suits, as
    sort entries with their plays, by `(ranks held << 3 | wild jokers)` (a suit's ranks
    held are 13 bits): which suit it is changes only the cards, so one key serves four."""
    held, wild = key >> 3, key & 7
    found: list[_Entry] = []
    by_suit = [[False] * 13 for _ in range(4)]
    by_suit[0] = [bool(held >> rank & 1) for rank in range(13)]
    add_runs_held(rules, by_suit, None, False, (), False, wild, found.append)
    found.sort()  # (another suit's cards keep this order: its ids differ by the suit alone)
    return tuple(
        tuple(
            (low, kind, size, ids, play_of(ids))
            for low, kind, size, ids in (
                (low, kind, size, tuple(i + suit if i != JOKER_ID else i for i in ids))
                for low, kind, size, ids in found
            )
        )
        for suit in range(4)
    )


#: `_SPREAD_AT[rank][pattern]`: `_SPREAD[pattern] << rank`.
_SPREAD_AT: Final = tuple(tuple(spread << rank for spread in _SPREAD) for rank in _RANKS)
_getitem: Final = operator.getitem
_chain: Final = chain.from_iterable

#: `_REACH[wild]`: how far apart two natural cards of a sequence may be, with this many
#: wild jokers to fill the ranks between them.
_REACH: Final = tuple(range(1, wild + 2) for wild in range(9))
#: The ranks that may start three in a row within their suit (3 to the king), as bits
#: 13 apart: a hand's bits ANDed with themselves shifted by one and two keep only ranks
#: that start three of a suit in a row, where these bits are kept.
_STARTS: Final = sum(0x7FF << 13 * suit for suit in range(4))


#: An action that pays a card of a due.
_Paid = Handover | Discard | Take | Bomb
#: `_DUES[kind][rank][pattern]`: the actions that pay one card of a due of this kind
#: from a rank held in this suit pattern, one per card kind, lowest first (`_PAID`'s);
#: for the joker rank, by the jokers held.  Made on first use.
_DUES: Final[dict[str, tuple[tuple[tuple[_Paid, ...], ...], ...]]] = {}


def due_choices_held(patterns: Sequence[int], due: Due) -> list[_Paid]:
    """`moves.due_choices` for a hand given as suit patterns (what the game lists, and
    the judge from a hand's rows): each rank's card kinds held, read off a table per
    rank, without counting every card kind."""
    tables = _DUES.get(due.kind)
    if tables is None:
        if due.kind == "bomb" or due.kind in TAKES:  # (the hand plays no part)
            return due_choices((), due)
        tables = _DUES[due.kind] = _due_tables(_PAID[due.kind])
    return list(_chain(map(_getitem, tables, patterns)))


def _due_tables(paid: Sequence[_Paid]) -> tuple[tuple[tuple[_Paid, ...], ...], ...]:
    """`due_choices_held`'s tables for one kind of due (apart: so that no call of it
    makes a cell for `paid`)."""
    natural = tuple(
        tuple(
            tuple(paid[rank << 2 | suit] for suit in range(4) if _HAS[pattern][suit])
            for pattern in range(81)
        )
        for rank in range(JOKER_RANK)
    )
    jokers = tuple((paid[JOKER_ID],) if held else () for held in range(9))
    return (*natural, jokers)


#: The sets of one rank a hand may make, in the listing's order (by size, then ids), by
#: `rank << 10 | pattern << 3 | wild jokers`.  Filled on first use.
_SETS: Final[dict[int, tuple[Play, ...]]] = {}


def _sets(key: int) -> tuple[Play, ...]:
    rank, pattern, wild = key >> 10, key >> 3 & 127, key & 7
    found: list[tuple[int, tuple[int, ...]]] = []
    for ids, _ in _choices(rank, _DIGITS[pattern]):
        for jokers in range(wild + 1):
            found.append((len(ids) + jokers, ids + _JOKER_TAIL[jokers]))
    found.sort()
    sets = _SETS[key] = tuple(play_of(ids) for _, ids in found)
    return sets


#: `_FILTERED[rank, wild, floor, size]`: per suit pattern held (0 to 80), the sets of
#: `_sets` that answer a set pile of `size` cards a rank beats (0: it does not), or clears
#: (floor: that many of the rank clear, 0 if none do), in the listing's order; each
#: entry made on first use (`_fill`; None until then).
_FILTERED: Final[dict[tuple[int, int, int, int], list[tuple[Play, ...] | None]]] = {}
#: A rank answering a set pile: its rank, its `_FILTERED` table and that table's key.
_Answer = tuple[int, list[tuple[Play, ...] | None], tuple[int, int, int, int]]
#: What of each suit pattern a lock lets go, by the lock's mask (`_LOCKED`'s other way).
_LOCKED_BY_MASK: Final = tuple(
    tuple(_LOCKED[pattern][mask] for pattern in range(81)) for mask in range(16)
)
#: The 4-bit mask of each lock (sorted suits, each once); a lock naming a suit twice is
#: not here.
_MASKS: Final = {tuple(suit for suit in range(4) if mask >> suit & 1): mask for mask in range(16)}


def _filtered(which: tuple[int, int, int, int]) -> list[tuple[Play, ...] | None]:
    table: list[tuple[Play, ...] | None] = [None] * 81
    table[0] = ()
    _FILTERED[which] = table
    return table


def _fill(which: tuple[int, int, int, int], pattern: int) -> tuple[Play, ...]:
    rank, wild, floor, size = which
    key = rank << 10 | pattern << 3 | wild
    found = _FILTERED[which][pattern] = tuple(
        play
        for play in _SETS.get(key) or _sets(key)
        if (floor and play.count >= floor) or play.count == size
    )
    return found


#: `_LEAD_SETS[wild][rank][pattern]`: the sets of `_sets` by rank and suit pattern held,
#: for this many wild jokers (13 tables of 81, made on first use).
_LEAD_SETS: Final[dict[int, tuple[tuple[tuple[Play, ...], ...], ...]]] = {}


def _lead_sets(wild: int) -> tuple[tuple[tuple[Play, ...], ...], ...]:
    tables = _LEAD_SETS[wild] = tuple(
        tuple(_sets(rank << 10 | pattern << 3 | wild) if pattern else () for pattern in range(81))
        for rank in _RANKS
    )
    return tables


def _jokers_beating(rules: Rules, top: Top, rev: bool, jokers: int) -> tuple[Play, ...]:
    """The sets of jokers alone, of up to `jokers`, that beat a set pile (`Listing`'s
    table of them; apart, so that no call of `Listing.follows` makes cells for it)."""
    return tuple(
        play_of(_JOKER_TAIL[count])
        for count in range(1, jokers + 1)
        if _set_beats(rules, top, rev, JOKER_RANK, count, ())
    )


def kind_counts_of(patterns: Sequence[int]) -> list[int]:
    """Every card kind's count, from suit patterns."""
    counts = [n for pattern in patterns[:JOKER_RANK] for n in _DIGITS[pattern]]
    counts.append(patterns[JOKER_RANK])
    return counts


def clear_floors(rules: Rules) -> tuple[int, ...]:
    """Per rank, the fewest cards of it that clear the pile (`moves.clears`), or 0 when
    none do (bombs aside: the fast listing leaves them to `tricks`)."""
    return rules.clear_floors


#: A single pile the tables answer as any other (`_single_piles`).
_PLAIN: Final = 0
#: A single pile only `tricks` answers.
_TRICKS: Final = 1
#: A lone joker the 3S answers, first (spade_three), and the tables the rest.
_SPADE: Final = 2


def _single_piles(rules: Rules, floors: Sequence[int]) -> tuple[int, ...]:
    """By the rank of a single pile, what answers it apart from the tables."""
    piles = []
    for rank in range(JOKER_RANK + 1):
        if (
            rules.down_number  # (the card one rank weaker in the pile's suit)
            or (rules.assassination and rank in (TWO, THREE))  # (a 3 on a 2, a 2 on a 3)
            or (rank == JOKER_RANK and rules.spade_two_return)  # (the 2S on a lone joker)
            # (the 3S on a lone joker where other sets of 3s may answer it beside it)
            or (
                rank == JOKER_RANK
                and rules.spade_three
                and (floors[THREE] or rules.transparent_threes)
            )
        ):
            piles.append(_TRICKS)
        elif rank == JOKER_RANK and rules.spade_three:
            # the 3S on a lone joker, whatever the lock, before everything else (no other
            # set of 3s answers it when 3s neither clear nor are transparent)
            piles.append(_SPADE)
        else:
            piles.append(_PLAIN)
    return tuple(piles)


class Listing:
    """The tables of one table's rules: which ranks answer a set pile of each rank, in
    each order, and how (by beating it at its size, or by clearing it)."""

    __slots__ = (
        "_answers",
        "_floors",
        "_follows",
        "_jokers_beating",
        "_lead_runs",
        "_singles",
        "_whole",
        "_wild",
        "answers",
        "rules",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        floors = self._floors = clear_floors(rules)
        #: The tables answer under these rules (bombs, suit_ranking and the emperor are
        #: `tricks`').
        self._whole = not (rules.bombs or rules.suit_ranking or rules.emperor or rules.four_stop)
        #: `leads` and `follows` answer every trick past the opening (no step or colour
        #: lock either: `plays` asks of those per trick).
        self.answers = self._whole and not (rules.step_lock or rules.colour_lock)
        #: Jokers are wild: a hand's jokers join its sets and sequences.
        self._wild = rules.joker_mode == "wild"
        #: By rank, what answers a single card of it apart (`_single_piles`).
        self._singles = _single_piles(rules, self._floors)
        #: `_follow_answers` by its key, as first asked.
        self._follows: dict[int, tuple[_Answer, ...]] = {}
        #: `_lead_runs` by its key, as first asked (at most 2**13 * 9).
        self._lead_runs: dict[int, tuple[tuple[_Led, ...], ...]] = {}
        #: The sets of jokers alone that beat a set pile, by `(rank << 5 | size << 1 |
        #: reversed) << 4 | jokers held` (at most 2 decks of 2), as first asked.
        self._jokers_beating: dict[int, tuple[Play, ...]] = {}
        margin = 0 if rules.equal_plays != "off" else 1
        #: `_answers[reversed][pile rank]`: (rank, beats at the pile's size, clear floor)
        #: for every rank that may answer such a pile somehow.
        self._answers = tuple(
            tuple(
                tuple(
                    (rank, beats, floors[rank])
                    for rank in range(13)
                    if (
                        beats := strength(rank, rev) >= strength(pile, rev) + margin
                        or (rules.transparent_threes and rank == THREE)
                    )
                    or floors[rank]
                )
                for pile in range(14)
            )
            for rev in (False, True)
        )

    def _follow_answers(self, key: int) -> tuple[_Answer, ...]:
        """For a set pile of this rank and size, the order and the wild jokers (`key`:
        `rank << 10 | size << 5 | wild << 1 | reversed`), every rank that may answer it,
        with its table of answers by suit pattern held (`_FILTERED`) and that table's
        key."""
        pile, size, wild, rev = key >> 10, key >> 5 & 31, key >> 1 & 15, key & 1
        answers = []
        for rank, beats, floor in self._answers[rev][pile]:
            # (a floor of 1 lets every set of the rank go: the size plays no part)
            which = (rank, wild, floor, size if beats and floor != 1 else 0)
            answers.append((rank, _FILTERED.get(which) or _filtered(which), which))
        found = self._follows[key] = tuple(answers)
        return found

    def leads(self, patterns: Sequence[int]) -> list[Play]:
        """Every lead (not the opening) where `answers`: the sets of each rank, then the
        sequences from it, then the jokers alone."""
        wild = patterns[JOKER_RANK] if self._wild else 0
        runs: list[_Led] = []
        if self.rules.sequences:
            lead_runs = self._lead_runs
            bits = sum(map(_getitem, _SPREAD_AT, patterns))
            if wild or bits & bits >> 1 & bits >> 2 & _STARTS:
                # only ranks with another of their suit held within reach of the jokers
                # make runs (a bit shifted into the next suit keeps a card that makes
                # none: the same runs, one more key)
                near = 0
                for apart in _REACH[wild]:
                    near |= bits << apart | bits >> apart
                bits &= near
            else:
                bits = 0  # (no joker and no three of a suit in a row: no sequence)
            suits = 0
            for suit in range(4 if bits else 0):
                held = bits >> 13 * suit & 0x1FFF
                if held:
                    key = held << 3 | wild
                    known = lead_runs.get(key)
                    if known is None:
                        known = lead_runs[key] = _lead_runs(self.rules, key)
                    if known[suit]:
                        runs += known[suit]
                        suits += 1
            if suits > 1:
                runs.sort()
        # every rank's sets read off its table in one pass, each rank's sequences after them
        tables = _LEAD_SETS.get(wild) or _lead_sets(wild)
        if not runs:
            plays = list(_chain(map(_getitem, tables, patterns)))
        else:
            by_rank = list(map(_getitem, tables, patterns))
            plays = []
            done = 0  # the ranks whose sets are in
            for entry in runs:
                low = entry[0]
                if low >= done:
                    plays += _chain(by_rank[done : low + 1])
                    done = low + 1
                plays.append(entry[4])
            plays += _chain(by_rank[done:])
        jokers = patterns[JOKER_RANK]
        if jokers:
            plays += _JOKER_SETS[:jokers]
        return plays

    def legal_plays(self, patterns: Sequence[int], trick: Trick) -> list[Play] | None:
        """`tricks.legal_plays` for a hand given as suit patterns, or None where the
        tables do not answer (see the module's words)."""
        return self.plays(patterns, *trick)

    def plays(
        self,
        patterns: Sequence[int],
        top: Top | None,
        rev: bool,
        lock: tuple[int, ...],
        opening: bool,
        step: bool = False,
        colour: int = -1,
    ) -> list[Play] | None:
        """`legal_plays` on the trick of these fields (`Trick`'s, unmade)."""
        if opening or step or colour >= 0 or not self._whole:
            return None
        if top is None:
            return self.leads(patterns)
        return self.follows(patterns, top, rev, lock)

    def follows(
        self, patterns: Sequence[int], top: Top, rev: bool, lock: tuple[int, ...]
    ) -> list[Play] | None:
        """`plays` on a pile, past the opening, where `answers` (no step or colour lock),
        or None where the tables do not answer."""
        jokers = patterns[JOKER_RANK]
        wild = jokers if self._wild else 0
        mask = _MASKS.get(lock, -1)
        if mask < 0:
            return None  # (two decks: a suit locked twice)
        size = top.size
        if top.run:
            return self._on_run(patterns, top, rev, lock, mask, wild)
        plays: list[Play] = []
        if size == 1:
            single = self._singles[top.rank]
            if single:
                if single == _TRICKS:
                    return None
                if _HAS[patterns[THREE]][3]:  # (_SPADE)
                    plays.append(play_of((THREE_OF_SPADES,)))
        if size > 15:
            return None
        key = top.rank << 10 | size << 5 | wild << 1 | rev
        answers = self._follows.get(key) or self._follow_answers(key)
        # each answering rank's sets read off its table by the suit pattern held (the
        # lock's part of it), made once per pattern
        if mask:
            locked = _LOCKED_BY_MASK[mask]
            for rank, table, which in answers:
                pattern = locked[patterns[rank]]
                if pattern:
                    sets = table[pattern]
                    plays += _fill(which, pattern) if sets is None else sets
        else:
            for rank, table, which in answers:
                pattern = patterns[rank]
                if pattern:
                    sets = table[pattern]
                    plays += _fill(which, pattern) if sets is None else sets
        if jokers:
            key = (top.rank << 5 | size << 1 | rev) << 4 | jokers
            beating = self._jokers_beating.get(key)
            if beating is None:
                beating = self._jokers_beating[key] = _jokers_beating(self.rules, top, rev, jokers)
            plays += beating
        return plays

    def _on_run(
        self,
        patterns: Sequence[int],
        top: Top,
        rev: bool,
        lock: tuple[int, ...],
        mask: int,
        wild: int,
    ) -> list[Play]:
        """`plays` on a sequence: the sets that clear, each rank's before the sequences
        from it that beat the pile."""
        runs: list[_Entry] = []
        if self.rules.sequences:
            held_by_suit = list(zip(*map(_HAS.__getitem__, patterns[:JOKER_RANK])))
            add_runs_held(self.rules, held_by_suit, top, rev, lock, False, wild, runs.append)
            runs.sort()
        plays: list[Play] = []
        more = plays.extend
        floors = self._floors
        at, last = 0, len(runs)
        for rank in range(13):
            floor = floors[rank]
            if floor:
                pattern = _LOCKED[patterns[rank]][mask] if mask else patterns[rank]
                if pattern:
                    key = rank << 10 | pattern << 3 | wild
                    more([p for p in _SETS.get(key) or _sets(key) if p.count >= floor])
            while at < last and runs[at][0] == rank:
                plays.append(play_of(runs[at][3]))
                at += 1
        return plays

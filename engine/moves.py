"""Which sets may be played: one predicate, used by `Game.check`, `Game.legal_actions`
and `SeatView.legal_actions` alike (docs/rules.md, "A trick" and "Special plays")."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final, NamedTuple, Protocol

from .actions import DUE_ACTIONS, TAKES, Bomb, Discard, Due, Handover, Play, Return, Take, play_of
from .cards import CARDS, JOKER_ID, JOKER_RANK, KINDS, THREE, describe_set
from .rules import Rules

#: Card id of the 3♣, which must be in the opening play under first_lead = "three_of_clubs".
THREE_OF_CLUBS = 0


class KindCounts(Protocol):
    """A hand as a count per card kind, `counts[card_id]` (a list, or one read on demand)."""

    def __getitem__(self, card_id: int, /) -> int: ...


class Top(NamedTuple):
    """The play to beat: its owner and shape.  Under transparent_threes a set of 3s
    keeps the rank it covered, so `rank` is the rank to beat, not always the cards'."""

    owner: int
    rank: int
    #: How many cards each play of this trick holds.
    size: int
    jokers: int
    #: A sequence (sequences): `rank` is then its lowest rank, `size` its length.
    run: bool = False
    #: The suits of the play's natural cards, sorted (for suit_lock and suit_ranking).
    suits: tuple[int, ...] = ()


def strength(rank: int, revolution: bool) -> int:
    """Rank order for beating: reversed by a revolution, jokers always on top."""
    if revolution and rank != JOKER_RANK:
        return 12 - rank
    return rank


def clears(rules: Rules, rank: int, count: int) -> bool:
    """Whether a set of this shape clears the pile at once (twos, eights/tens, a house
    rule's "clear" trigger such as two or more 9s, bombs)."""
    return 0 < rules.clear_floors[rank] <= count or (rules.bombs and count >= 4)


def may_play(rules: Rules, top: Top | None, revolution: bool, rank: int, count: int) -> bool:
    """Whether a well-formed set of this shape may be played now: the one legality test."""
    if top is None or clears(rules, rank, count):
        return True
    if count != top.size:
        return False
    mine, theirs = strength(rank, revolution), strength(top.rank, revolution)
    return mine > theirs or (mine == theirs and rules.equal_plays != "off")


def set_problem(
    rules: Rules, top: Top | None, revolution: bool, rank: int, count: int, jokers: int
) -> str | None:
    """Why a well-formed set of this shape may not be played now, or None if it may."""
    if may_play(rules, top, revolution, rank, count):
        return None
    assert top is not None
    beaten = describe_set(top.rank, top.size, top.jokers)
    play = describe_set(rank, count, jokers)
    if count != top.size:
        cards = f"{top.size} card{'s' if top.size > 1 else ''}"
        return f"{beaten} cannot be beaten by {play}: every play in this trick has {cards}"
    if rank == top.rank:
        return f"{beaten} cannot be beaten by {play}: equal ranks never beat (equal_plays is off)"
    note = " (a revolution has reversed the order)" if revolution else ""
    return f"{beaten} cannot be beaten by {play}{note}"


def play_problem(
    rules: Rules,
    counts: KindCounts,
    top: Top | None,
    revolution: bool,
    opening: bool,
    play: Play,
    rows: Sequence[Row] | None = None,
) -> str | None:
    """Why `play` is not legal for a hand with card-kind `counts`, or None if it is.
    `rows` (the same hand's, optional) lets a canonical play skip counting its cards."""
    ids = play.ids
    if not ids:
        return "a play needs at least one card"
    if rows is not None and not play.jokers and play.rank >= 0:
        row = rows[play.rank]
        if len(row) >= play.count and row[play.count - 1] is play:
            # The hand's own canonical play of this shape: held, one rank, no jokers.
            if opening and THREE_OF_CLUBS not in ids:
                return (
                    "the first play of the game must contain the 3C (first_lead = 'three_of_clubs')"
                )
            if top is None or may_play(rules, top, revolution, play.rank, play.count):
                return None
            return set_problem(rules, top, revolution, play.rank, play.count, 0)
    for card_id in ids:
        if not counts[card_id] or (play.repeats and counts[card_id] < ids.count(card_id)):
            card = play.cards[ids.index(card_id)]
            need = ids.count(card_id)
            return f"you do not hold {card}" if need == 1 else f"you do not hold {need} of {card}"
    rank = play.rank
    if rank < 0:
        if play.jokers and rules.joker_mode == "high":
            return "a joker is its own rank above the 2s and cannot join other cards (joker_mode = 'high')"
        return "a play must be one rank: a single card or a set of equal cards"
    if play.jokers and rank != JOKER_RANK and rules.joker_mode != "wild":
        return "jokers are not wild here (joker_mode = 'high')"
    if opening and THREE_OF_CLUBS not in ids:
        return "the first play of the game must contain the 3C (first_lead = 'three_of_clubs')"
    if top is None or may_play(rules, top, revolution, rank, play.count):
        return None
    return set_problem(rules, top, revolution, rank, play.count, play.jokers)


#: A seat's cards of one rank as one number: the count of each suit in base 3
#: (two decks hold at most two copies); for the joker rank, the number of jokers.
CARD_RANK: Final = tuple(JOKER_RANK if i == JOKER_ID else i >> 2 for i in range(KINDS))
CARD_STEP: Final = tuple(1 if i == JOKER_ID else 3 ** (i & 3) for i in range(KINDS))

#: Per seat and rank, the canonical plays of 1, 2, ... cards of that rank.
Row = tuple[Play, ...]
_ROWS: dict[int, Row] = {}
#: The same rows in a list indexed by `rank << 7 | pattern` (a suit pattern is below 81,
#: a joker count below 5), filled as they are first asked for: the hot path's lookup.
ROW_TABLE: Final[list[Row | None]] = [None] * (14 << 7)
_RETURNS: dict[tuple[int, ...], Return] = {}


def row_for(rank: int, pattern: int) -> Row:
    """The plays of 1..n cards of `rank` from a hand with this suit pattern, each taking
    the lowest suits first (which suits go is not a choice: suits never matter)."""
    row = ROW_TABLE[rank << 7 | pattern]
    return _new_row(rank, pattern) if row is None else row


def _new_row(rank: int, pattern: int) -> Row:
    """`row_for` where it is not made yet (apart: so that a call of `row_for` makes no
    cells for its comprehensions)."""
    if rank == JOKER_RANK:
        ids = [JOKER_ID] * pattern
    else:
        ids = [rank * 4 + suit for suit in range(4) for _ in range(pattern // 3**suit % 3)]
    row = tuple(play_of(tuple(ids[:n])) for n in range(1, len(ids) + 1))
    ROW_TABLE[rank << 7 | pattern] = _ROWS[rank << 8 | pattern] = row
    return row


# Every row one deck can hold (each suit at most once, at most two jokers) is in
# `ROW_TABLE` from the start, so a deal of one deck finds its rows there without a test.
for _rank in range(13):
    for _suits in range(16):
        row_for(_rank, sum(3**suit for suit in range(4) if _suits >> suit & 1))
for _jokers in range(3):
    row_for(JOKER_RANK, _jokers)


def rows_of(counts: Sequence[int]) -> list[Row]:
    """Every rank's row for a hand given as card-kind counts."""
    patterns = [0] * 14
    for card_id, n in enumerate(counts):
        patterns[CARD_RANK[card_id]] += n * CARD_STEP[card_id]
    return [row_for(rank, patterns[rank]) for rank in range(14)]


def patterns_of(rows: Sequence[Row]) -> list[int]:
    """A hand's suit pattern per rank (see `row_for`), read off its rows."""
    return [row[-1].step if row else 0 for row in rows]


class PatternCounts:
    """A hand's count of each card kind (`counts[card_id]`), read from its suit patterns
    when asked: what `play_problem` and `return_problem` look up for the few cards of an
    action, without a count per kind kept up to date on every play."""

    __slots__ = ("patterns",)

    def __init__(self, patterns: Sequence[int]) -> None:
        self.patterns = patterns

    def __getitem__(self, card_id: int) -> int:
        pattern = self.patterns[card_id >> 2]  # the joker's id >> 2 is its rank
        return pattern if card_id == JOKER_ID else pattern // CARD_STEP[card_id] % 3

    def __len__(self) -> int:
        return KINDS


def _with_jokers(play: Play, jokers: int) -> Play:
    return play_of(play.ids + (JOKER_ID,) * jokers)


#: The shapes that answer a set pile (`follow_shapes`): each rank that may (lowest first,
#: the jokers last) with the counts of it that may, lowest first.
Shapes = tuple[tuple[int, tuple[int, ...]], ...]


def follow_shapes(rules: Rules, top: Top, revolution: bool) -> Shapes:
    """The shapes of natural sets (and of jokers alone) that `may_play` lets answer a set
    pile of `top`'s rank and size: what `legal_plays` lists from a hand holding no wild
    joker, by its rows, without asking `may_play` of every set held."""
    shapes = []
    for rank in range(JOKER_RANK + 1):
        counts = tuple(
            count for count in range(1, 9) if may_play(rules, top, revolution, rank, count)
        )
        if counts:
            shapes.append((rank, counts))
    return tuple(shapes)


def plays_of_shapes(rows: Sequence[Row], shapes: Shapes) -> list[Play]:
    """The sets of these shapes (`follow_shapes`) a hand holds, from its rows: its own
    play of each, in the shapes' order."""
    plays = []
    for rank, counts in shapes:
        row = rows[rank]
        if row:
            for count in counts:  # (lowest first: none past the row's length)
                if count > len(row):
                    break
                plays.append(row[count - 1])
    return plays


def legal_plays(
    rules: Rules,
    rows: Sequence[Row],
    top: Top | None,
    revolution: bool,
    opening: bool,
    shapes: Shapes | None = None,
) -> list[Play]:
    """One play of every distinct shape (rank, naturals, jokers) that `may_play` allows.
    `shapes`: `follow_shapes` of this pile, when known."""
    jokers_held = len(rows[JOKER_RANK])
    wild = jokers_held if rules.joker_mode == "wild" else 0
    if opening:
        # The opening must hold the 3C (the lowest suit of the lowest rank, so every
        # canonical set of 3s has it); wild jokers may join.
        plays = list(rows[THREE])
        for play in rows[THREE]:
            plays.extend(_with_jokers(play, j) for j in range(1, wild + 1))
        return plays
    if not wild:
        if top is None:
            return [play for row in rows for play in row]
        if rules.plain_follow:
            # The common follow: the trick's count, of a higher rank (or an equal one).
            index = top.size - 1
            beat = top.rank if not revolution or top.rank == JOKER_RANK else 12 - top.rank
            low = beat + rules.follow_margin
            if not revolution:  # rows run low to high, jokers last
                return [row[index] for row in rows[low:] if len(row) > index]
            plays = [row[index] for row in rows[: max(0, 13 - low)] if len(row) > index]
            if jokers_held > index and low <= JOKER_RANK:
                plays.append(rows[JOKER_RANK][index])
            return plays
        # a follow where some sets clear (2s, 8s...) or bomb
        return plays_of_shapes(rows, shapes or follow_shapes(rules, top, revolution))
    plays = []
    for rank in range(13):
        for naturals, play in enumerate(rows[rank], 1):
            for jokers in range(wild + 1):
                if may_play(rules, top, revolution, rank, naturals + jokers):
                    plays.append(_with_jokers(play, jokers) if jokers else play)
    for jokers, play in enumerate(rows[JOKER_RANK], 1):
        if may_play(rules, top, revolution, JOKER_RANK, jokers):
            plays.append(play)
    return plays


def return_of(ids: tuple[int, ...]) -> Return:
    ret = _RETURNS.get(ids)
    if ret is None:
        ret = _RETURNS[ids] = Return(CARDS[i] for i in ids)
    return ret


#: The return of two single cards of different ranks: `_PAIRS[low_id][high_id]` (filled
#: on first use: 1,378 returns).
_PAIRS: Final[list[list[Return]]] = []
#: The return of one card, by its id.
_SINGLES: Final = tuple(return_of((card_id,)) for card_id in range(KINDS))


def legal_returns(rows: Sequence[Row], size: int) -> list[Return]:
    """One return of every distinct multiset of ranks of `size` (1 or 2) cards: by rank
    upwards, a rank's pair before its single with each higher rank's."""
    held = [row for row in rows if row]
    if size == 1:
        return [return_of(row[0].ids) for row in held]
    pairs = _PAIRS or _fill_pairs()
    lowest = [row[0].ids[0] for row in held]
    returns: list[Return] = []
    for i, row in enumerate(held):
        if len(row) >= 2:
            returns.append(return_of(row[1].ids))
        returns += map(pairs[lowest[i]].__getitem__, lowest[i + 1 :])
    return returns


def _fill_pairs() -> list[list[Return]]:
    unused = return_of((JOKER_ID, JOKER_ID))  # (a placeholder: never read)
    table = [[unused] * KINDS for _ in range(KINDS)]
    for low in range(KINDS):
        for high in range(low + 1, KINDS):
            table[low][high] = return_of((low, high))
    _PAIRS[:] = table
    return _PAIRS


def return_problem(counts: KindCounts, size: int, ret: Return) -> str | None:
    if len(ret.ids) != size:
        return f"the return is {size} card{'s' if size > 1 else ''}, not {len(ret.ids)}"
    held: dict[int, int] = {}
    for card_id in ret.ids:
        held[card_id] = held.get(card_id, 0) + 1
        if counts[card_id] < held[card_id]:
            return f"you do not hold {ret.cards[ret.ids.index(card_id)]}"
    return None


# --- dues: the cards owed after a play of 7s or 10s (seven_pass, ten_discard), a take --


def due_words(due: Due) -> str:
    """What `due` asks, in words: "hand over 2 cards, one at a time, to the next player
    (seven_pass)"."""
    if due.kind == "bomb":
        ranks = "a rank" if due.size == 1 else f"{due.size} ranks, one at a time,"
        return (
            f"name {ranks} for your Qs (queen_bomber): everyone still holding cards"
            " discards all of it"
        )
    cards = "a card" if due.size == 1 else f"{due.size} cards, one at a time,"
    if due.kind == "handover":
        return f"hand over {cards} to the next player (seven_pass)"
    if due.kind == "discard":
        return f"discard {cards.rstrip(',')} (ten_discard)"
    if due.kind == "zombie":
        return f"give the next player {cards.rstrip(',')} of the cards played (zombie)"
    rule = "salvage" if due.kind == "salvage" else "kings_march"
    return f"take {cards} of the cards played back into your hand ({rule})"


def due_problem(counts: KindCounts, due: Due, paid: Handover | Discard | Take | Bomb) -> str | None:
    """Why `paid` does not pay (the next card of) `due` for a hand with card-kind
    `counts`, or None.  A due is paid one card at a time: the choices stay as few as the
    kinds of card held (or played, for a take), however many cards are owed."""
    if isinstance(paid, Bomb):  # (any rank may be named)
        return None
    if len(paid.ids) != 1:
        return f"{due_words(due)}: one card at a time, not {len(paid.ids)}"
    if due.kind in TAKES:
        if paid.cards[0] not in due.cards:
            return f"{paid.cards[0]} is not among the cards played that may be taken"
        return None
    if not counts[paid.ids[0]]:
        return f"you do not hold {paid.cards[0]}"
    return None


def due_choices(counts: Sequence[int], due: Due) -> list[Handover | Discard | Take | Bomb]:
    """Every card that may pay the next card of `due` (one per card kind held, or per
    card kind that may be taken), lowest first; every rank, for a bomb."""
    if due.kind == "bomb":
        return list(_BOMBS)
    paid = _PAID[due.kind]
    if due.kind in TAKES:
        return [paid[card_id] for card_id in sorted({card.id for card in due.cards})]
    return [paid[card_id] for card_id, n in enumerate(counts) if n]


#: Each card paid for a due, one action per kind of due and card (made once).
_PAID: Final = {
    kind: tuple(action((card,)) for card in CARDS)  # type: ignore[arg-type]
    for kind, action in DUE_ACTIONS.items()
    if action is not Bomb
}
#: Every rank a bomb may name, 3 to 2 (made once).
_BOMBS: Final = tuple(Bomb(rank) for rank in range(13))


def returns_by_cards(counts: Sequence[int], size: int) -> list[Return]:
    """Every distinct return (by card kinds) of `size` cards: under the variants, where
    suits may matter, which cards go back is a choice."""
    if size == 2 and max(counts) == 1:  # (the usual: no card twice, so no repeats)
        pairs = _PAIRS or _fill_pairs()
        held = [card_id for card_id, n in enumerate(counts) if n]
        return [pairs[low][high] for at, low in enumerate(held) for high in held[at + 1 :]]
    return [return_of(ids) for ids in card_sets(counts, size)]


def returns_held(rows: Sequence[Row], size: int) -> list[Return] | None:
    """`returns_by_cards(counts, size)` for a hand given as its rows, for a return of one
    card, or of two from a hand that holds no card twice (two decks, two jokers); None
    otherwise.  The exchange under the variants: some 90 returns a decision, made from
    the rows without counting every card kind: a rank's last set holds every card of it
    held, so the rows give the cards held, lowest first."""
    held = [card_id for row in rows if row for card_id in row[-1].ids]
    if size == 1:
        return list(map(_SINGLES.__getitem__, dict.fromkeys(held)))
    if size != 2 or len(set(held)) < len(held):
        return None
    pairs = _PAIRS or _fill_pairs()
    returns: list[Return] = []
    for at, low in enumerate(held):
        returns += map(pairs[low].__getitem__, held[at + 1 :])
    return returns


def card_sets(counts: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Every distinct multiset of `size` card ids from a hand with these counts, as
    sorted ids, lowest first."""
    ids = [card_id for card_id, n in enumerate(counts) for _ in range(n)]
    seen: dict[tuple[int, ...], None] = {}
    for combo in combinations(ids, size):
        seen.setdefault(combo)
    return list(seen)

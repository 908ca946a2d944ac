"""What may be played on what under rules with variants (docs/rules.md, "Variants", "The
Daifugo family" and the toggles' sections): sequences, transparent 3s, suit ranking, the
spade 3 and the suit lock, on top of every older toggle.  The same tests (`_set_beats`,
`_run_beats`, `_fits`) serve `play_problem` and `legal_plays`, so what is listed is exactly
what is accepted; then what a legal play does to the trick: its pile, the lock, a clear, a
revolution, a forbidden finish."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations, permutations
from typing import Final, NamedTuple

from . import moves
from .actions import Play, play_of
from .cards import EIGHT, JOKER_ID, JOKER_RANK, RANK_NAMES, TEN, THREE, TWO, describe_set
from .moves import THREE_OF_CLUBS, KindCounts, Top, strength
from .rules import Rules

#: Card id of the 3♠ (spade_three).
THREE_OF_SPADES: Final = 3
#: Card id of the 2♠ (spade_two_return).
TWO_OF_SPADES: Final = TWO * 4 + 3
#: Rank index of the queens (queen_release).
QUEEN: Final = 9
#: Rank index of the 4s (four_stop).
FOUR: Final = 1
SUIT_WORDS: Final = ("clubs", "diamonds", "hearts", "spades")
_JOKER_TAIL: Final = tuple((JOKER_ID,) * n for n in range(9))


class Trick(NamedTuple):
    """What a play is judged against."""

    #: The pile (None = a lead).
    top: Top | None
    #: The rank order is reversed now (revolution != jack_back).
    reversed: bool
    #: The locked suit pattern, sorted; () = none.
    lock: tuple[int, ...]
    #: The game's opening play (must hold the 3C).
    opening: bool
    #: The trick is locked to the next rank (step_lock: `stepped`).
    step: bool = False
    #: The colour the trick is locked to: 0 black, 1 red, -1 none (colour_lock: `coloured`).
    colour: int = -1


# --- the shapes -------------------------------------------------------------------------


def run_of(rules: Rules, play: Play) -> tuple[int, int, int] | None:
    """(lowest rank, highest rank, suit) of a well-formed sequence under `rules` (sequences
    on), else None; an emperor (emperor on) is a sequence of its own, of suit -1."""
    if play.rank >= 0 or play.count < 3:
        return None
    if rules.emperor and play.count == 4:
        shape = _emperor_shape(play)
        if shape is not None:
            return shape
    if not rules.sequences:
        return None
    if play.jokers and rules.joker_mode != "wild":
        return None
    return _run_shape(play)


def _run_shape(play: Play) -> tuple[int, int, int] | None:
    """The sequence's (lowest, highest, suit) if the cards make one (jokers taken as wild)."""
    ids = play.ids
    naturals = len(ids) - play.jokers
    if naturals < 2:
        return None
    suit = ids[0] & 3
    low, high = ids[0] >> 2, ids[naturals - 1] >> 2
    if high - low + 1 != len(ids):
        return None
    previous = -1
    for card_id in ids[:naturals]:
        rank = card_id >> 2
        if card_id & 3 != suit or rank == previous:
            return None
        previous = rank
    return low, high, suit


def _emperor_shape(play: Play) -> tuple[int, int, int] | None:
    """(lowest, highest, -1) when the cards are an emperor: four natural cards of four
    ranks in a row, one of each suit (rich-rich-daifugo's エンペラー)."""
    ids = play.ids
    if len(ids) != 4 or play.jokers:
        return None
    low = ids[0] >> 2
    for at, card_id in enumerate(ids):
        if card_id >> 2 != low + at:
            return None
    if len({card_id & 3 for card_id in ids}) != 4:
        return None
    return low, low + 3, -1


def is_emperor_pile(top: Top) -> bool:
    """Whether the pile is an emperor (four ranks in a row, all four suits)."""
    return top.run and top.size == 4 and len(set(top.suits)) == 4


def cut_waits(rules: Rules, top: Top | None) -> bool:
    """Whether an 8-cut waits on the pile for a stop (four_stop): under four_stop and
    clear_rank = 8 a set of 8s never stays on the pile but while it waits."""
    return (
        rules.four_stop
        and rules.clear_rank == 8
        and top is not None
        and not top.run
        and top.rank == EIGHT
    )


def _is_stop(play: Play, top: Top) -> bool:
    """Whether the play is a stop of the waiting 8-cut: natural 4s as many as its 8s."""
    return play.rank == FOUR and not play.jokers and play.count == top.size


def _shape_fault(rules: Rules, play: Play) -> str:
    """Why cards of several ranks are neither a set nor a sequence."""
    if play.jokers and rules.joker_mode == "high":
        return (
            "a joker is its own rank above the 2s and cannot join other cards (joker_mode = 'high')"
        )
    if not rules.sequences:
        return "a play must be one rank: a single card or a set of equal cards"
    ids = play.ids
    naturals = ids[: len(ids) - play.jokers]
    if len(ids) < 3:
        why = "a sequence has at least 3 cards"
    elif len({card_id & 3 for card_id in naturals}) > 1:
        why = "a sequence's cards are all of one suit"
    elif len({card_id >> 2 for card_id in naturals}) < len(naturals):
        why = "a sequence holds one card of each rank"
    else:
        why = "a sequence's cards follow each other in rank, 3 up to 2 with no wrap-around" + (
            ", wild jokers filling gaps inside it" if rules.joker_mode == "wild" else ""
        )
    return f"a play must be one rank (a set) or a sequence (sequences): {why}"


def count_of(play: Play, rank: int) -> int:
    """How many cards of `rank` the play holds, for the effects of 5s, 7s, 10s and Js: a set
    of that rank: its size (wild jokers included); a sequence: its natural cards of that
    rank; else 0."""
    if play.rank == rank:
        return play.count
    if play.rank >= 0:
        return 0
    return sum(1 for card_id in play.ids if card_id != JOKER_ID and card_id >> 2 == rank)


#: `suits_of` by the play's ids, kept as they are first asked for.
_SUITS: dict[tuple[int, ...], tuple[int, ...]] = {}


def suits_of(play: Play) -> tuple[int, ...]:
    """The sorted suits of the play's natural cards."""
    suits = _SUITS.get(play.ids)
    if suits is None:
        suits = tuple(sorted(card_id & 3 for card_id in play.ids if card_id != JOKER_ID))
        _SUITS[play.ids] = suits
    return suits


def stepped(rules: Rules, plays: Sequence[tuple[int, Play]], rev: bool) -> bool:
    """Whether a trick with these plays (so far, in order) is locked to the next rank
    (step_lock): its last two plays are sets of one size, the last exactly one rank
    stronger than the one before it in the order in force now."""
    if not rules.step_lock or len(plays) < 2:
        return False
    before, last = plays[-2][1], plays[-1][1]
    return (
        before.rank >= 0
        and last.rank >= 0
        and before.count == last.count
        and strength(last.rank, rev) == strength(before.rank, rev) + 1
    )


#: Each suit's colour: clubs and spades black (0), diamonds and hearts red (1).
COLOURS: Final = (0, 1, 1, 0)
COLOUR_WORDS: Final = ("black (clubs and spades)", "red (hearts and diamonds)")


def _colour_of(ids: tuple[int, ...]) -> int | None:
    """The one colour of the play's natural cards: 0 black, 1 red; -1 when they are of both;
    None when it has none (jokers alone)."""
    colours = {COLOURS[card_id & 3] for card_id in ids if card_id != JOKER_ID}
    if not colours:
        return None
    return colours.pop() if len(colours) == 1 else -1


def coloured(rules: Rules, plays: Sequence[tuple[int, Play]]) -> int:
    """The colour a trick with these plays (so far, in order) is locked to (colour_lock),
    or -1: its last two plays that have a colour (jokers alone have none) are all of one
    colour, the same."""
    if not rules.colour_lock:
        return -1
    found: list[int] = []
    for _, play in reversed(plays):
        colour = _colour_of(play.ids)
        if colour is not None:
            found.append(colour)
            if len(found) == 2:
                break
    return found[0] if len(found) == 2 and found[0] == found[1] >= 0 else -1


def _fits_colour(colour: int, ids: tuple[int, ...]) -> bool:
    """Every natural card of the play is of the locked colour (jokers fit any)."""
    return all(COLOURS[card_id & 3] == colour for card_id in ids if card_id != JOKER_ID)


def _steps(top: Top, rev: bool, rank: int, count: int) -> bool:
    """A set of `count` cards of `rank` is the next rank up from the pile (step_lock)."""
    return not top.run and count == top.size and strength(rank, rev) == strength(top.rank, rev) + 1


# --- the one structural test ------------------------------------------------------------


def _is_spade_three(rules: Rules, ids: tuple[int, ...], top: Top | None) -> bool:
    """The single 3S on a pile that is a single joker (spade_three)."""
    return (
        rules.spade_three
        and top is not None
        and ids == (THREE_OF_SPADES,)
        and not top.run
        and top.rank == JOKER_RANK
        and top.size == 1
    )


def _is_spade_two(rules: Rules, ids: tuple[int, ...], top: Top | None, rev: bool) -> bool:
    """The single 2S on a pile that is a single joker, the order reversed
    (spade_two_return)."""
    return (
        rules.spade_two_return
        and rev
        and top is not None
        and ids == (TWO_OF_SPADES,)
        and not top.run
        and top.rank == JOKER_RANK
        and top.size == 1
    )


def beats_a_lone_joker(rules: Rules, play: Play, top: Top | None, rev: bool) -> str | None:
    """The rule by which `play` answers a lone joker where nothing else of its rank would:
    "spade_three" (the 3S), "spade_two_return" (the 2S, the order reversed), else None."""
    if _is_spade_three(rules, play.ids, top):
        return "spade_three"
    if _is_spade_two(rules, play.ids, top, rev):
        return "spade_two_return"
    return None


def _is_down_number(rules: Rules, ids: tuple[int, ...], top: Top | None, rev: bool) -> bool:
    """A single natural card of the pile's suit, one rank weaker in the order in force, on a
    single natural card (down_number)."""
    if not rules.down_number or top is None or len(ids) != 1 or ids[0] == JOKER_ID:
        return False
    if top.size != 1 or top.run or top.jokers or top.rank == JOKER_RANK or not top.suits:
        return False
    return ids[0] & 3 == top.suits[0] and ids[0] >> 2 == top.rank + (1 if rev else -1)


def _assassinates(rules: Rules, top: Top, rev: bool, rank: int, count: int) -> bool:
    """A single of the weakest rank on a single of the strongest, in the order in force:
    a 3 on a 2, or a 2 on a 3 when reversed (assassination)."""
    return (
        rules.assassination
        and count == 1
        and top.size == 1
        and not top.run
        and (rank, top.rank) == ((TWO, THREE) if rev else (THREE, TWO))
    )


def _set_beats(
    rules: Rules, top: Top, rev: bool, rank: int, count: int, suits: tuple[int, ...]
) -> bool:
    """Whether a well-formed set beats the pile (leads, the lock and the opening aside)."""
    if moves.clears(rules, rank, count):
        return True  # clearing plays go on any pile
    if top.run or count != top.size:
        return False
    if _assassinates(rules, top, rev, rank, count):
        return True
    if rank == THREE and rules.transparent_threes:
        return True
    mine, theirs = strength(rank, rev), strength(top.rank, rev)
    if mine > theirs or (mine == theirs and rules.equal_plays != "off"):
        return True
    return (
        rules.suit_ranking
        and mine == theirs
        and bool(suits and top.suits)
        and suits[-1] > top.suits[-1]
    )


def _run_beats(
    rules: Rules, top: Top, rev: bool, low: int, high: int, count: int, emperor: bool = False
) -> bool:
    """Whether a well-formed sequence beats the pile: a sequence of the same length whose
    weakest card is stronger than the pile's weakest (an emperor only an emperor, and
    only an emperor one)."""
    if not top.run or count != top.size:
        return False
    if emperor != is_emperor_pile(top):
        return False
    if rev:
        mine, theirs = 12 - high, 12 - (top.rank + top.size - 1)
    else:
        mine, theirs = low, top.rank
    return mine > theirs or (mine == theirs and rules.equal_plays != "off")


def _fits(lock: tuple[int, ...], suits: tuple[int, ...]) -> bool:
    """Whether the natural suits fit inside the locked pattern (as multisets)."""
    if len(suits) > len(lock):
        return False
    rest = list(lock)
    for suit in suits:
        if suit not in rest:
            return False
        rest.remove(suit)
    return True


# --- play_problem -----------------------------------------------------------------------


def play_problem(rules: Rules, counts: KindCounts, trick: Trick, play: Play) -> str | None:
    """Why `play` is illegal for a hand with these card-kind counts, or None.  The sentences
    of `moves.play_problem` where the same fault applies; a new fault names its toggle."""
    ids = play.ids
    if not ids:
        return "a play needs at least one card"
    for card_id in ids:
        if not counts[card_id] or (play.repeats and counts[card_id] < ids.count(card_id)):
            card = play.cards[ids.index(card_id)]
            need = ids.count(card_id)
            return f"you do not hold {card}" if need == 1 else f"you do not hold {need} of {card}"
    run = None
    if play.rank < 0:
        run = run_of(rules, play)
        if run is None:
            return _shape_fault(rules, play)
    elif play.jokers and play.rank != JOKER_RANK and rules.joker_mode != "wild":
        return "jokers are not wild here (joker_mode = 'high')"
    if trick.opening and THREE_OF_CLUBS not in ids:
        return "the first play of the game must contain the 3C (first_lead = 'three_of_clubs')"
    top = trick.top
    rev = trick.reversed
    if top is not None and cut_waits(rules, top):
        if _is_stop(play, top):
            return None
        fours = describe_set(FOUR, top.size, 0)
        return (
            f"the 8-cut waits (four_stop): only {fours}, with no joker, can stop it;"
            " pass to let it clear"
        )
    if top is None or _is_spade_three(rules, ids, top) or _is_spade_two(rules, ids, top, rev):
        return None
    if trick.step and (run is not None or not _steps(top, rev, play.rank, play.count)):
        nxt = describe_set(_next_rank(top.rank, rev), top.size, 0)
        return f"the trick is locked to the next rank (step_lock): only {nxt} may follow"
    suits = suits_of(play)
    if run is not None:
        if not _run_beats(rules, top, rev, run[0], run[1], play.count, run[2] < 0):
            return _run_fault(rules, top, rev, run, play)
    elif not _set_beats(rules, top, rev, play.rank, play.count, suits) and not (
        _is_down_number(rules, ids, top, rev)
    ):
        return _set_fault(rules, top, rev, play, suits)
    if trick.lock and not _fits(trick.lock, suits):
        wild = ", wild jokers standing for missing suits" if rules.joker_mode == "wild" else ""
        return (
            f"the trick is locked to {_pattern_words(trick.lock)} (suit_lock):"
            f" every card played must take one of those suits{wild}"
        )
    if trick.colour >= 0 and not _fits_colour(trick.colour, ids):
        return (
            f"the trick is locked to {COLOUR_WORDS[trick.colour]} (colour_lock):"
            " every card played must be of that colour"
        )
    return None


def _next_rank(rank: int, rev: bool) -> int:
    """The rank one step stronger than `rank` in the order (the jokers above the 2s; past
    the strongest, none: shown as the jokers)."""
    order = sorted(range(JOKER_RANK + 1), key=lambda r: strength(r, rev))
    at = order.index(rank)
    return order[at + 1] if at + 1 < len(order) else JOKER_RANK


def _describe_pile(top: Top) -> str:
    if top.run and is_emperor_pile(top):
        return f"the emperor {RANK_NAMES[top.rank]} to {RANK_NAMES[top.rank + 3]}"
    if top.run:
        return _describe_run(top.rank, top.rank + top.size - 1, top.suits[0] if top.suits else -1)
    return describe_set(top.rank, top.size, top.jokers)


def _describe_run(low: int, high: int, suit: int) -> str:
    if suit < 0:
        return f"the emperor {RANK_NAMES[low]} to {RANK_NAMES[high]}"
    of = f" of {SUIT_WORDS[suit]}" if suit >= 0 else ""
    return f"the sequence {RANK_NAMES[low]} to {RANK_NAMES[high]}{of}"


def _pattern_words(pattern: tuple[int, ...]) -> str:
    if len(set(pattern)) == 1:
        return SUIT_WORDS[pattern[0]]
    words = [SUIT_WORDS[suit] for suit in pattern]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _reversed_note(rules: Rules, rev: bool) -> str:
    if not rev:
        return ""
    if rules.jack_back:
        return " (the order is reversed now: a revolution or a jack back)"
    return " (a revolution has reversed the order)"


def _set_fault(rules: Rules, top: Top, rev: bool, play: Play, suits: tuple[int, ...]) -> str:
    beaten = _describe_pile(top)
    mine = describe_set(play.rank, play.count, play.jokers)
    if top.run:
        return (
            f"{beaten} cannot be beaten by {mine}: only a sequence of {top.size} cards"
            " answers a sequence (sequences)"
        )
    if play.count != top.size:
        cards = f"{top.size} card{'s' if top.size > 1 else ''}"
        return f"{beaten} cannot be beaten by {mine}: every play in this trick has {cards}"
    if play.rank == top.rank:
        if rules.suit_ranking:
            if not (suits and top.suits):
                why = "a play or pile with no natural card has no suit"
            else:
                why = f"the highest suit must be above {SUIT_WORDS[top.suits[-1]]}"
            return (
                f"{beaten} cannot be beaten by {mine}: an equal rank beats only in a higher"
                f" suit (suit_ranking), and {why}"
            )
        return f"{beaten} cannot be beaten by {mine}: equal ranks never beat (equal_plays is off)"
    return f"{beaten} cannot be beaten by {mine}{_reversed_note(rules, rev)}"


def _run_fault(rules: Rules, top: Top, rev: bool, run: tuple[int, int, int], play: Play) -> str:
    beaten = _describe_pile(top)
    mine = _describe_run(*run)
    if not top.run:
        return (
            f"{beaten} cannot be beaten by {mine}: a sequence answers only a sequence (sequences)"
        )
    if play.count != top.size:
        return (
            f"{beaten} cannot be beaten by {mine}:"
            f" every play in this trick is a sequence of {top.size} cards"
        )
    if is_emperor_pile(top) != (run[2] < 0):
        return f"{beaten} cannot be beaten by {mine}: only an emperor answers an emperor (emperor)"
    if rev:
        why = "its highest card must be below the pile's highest" + _reversed_note(rules, rev)
    else:
        why = "its lowest card must be above the pile's lowest"
    if rules.equal_plays == "off" and (run[0] == top.rank):
        why += " (equal_plays is off)"
    return f"{beaten} cannot be beaten by {mine}: {why}"


# --- legal_plays ------------------------------------------------------------------------

#: Per rank and per suit-count pattern (4 counts), every distinct nonempty choice of that
#: rank's natural cards as (ids, suits), ordered by size, then ids.
_CHOICES: dict[tuple[int, int, int, int, int], list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}


def _choices(
    rank: int, held: tuple[int, int, int, int]
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    key = (rank, *held)
    found = _CHOICES.get(key)
    if found is None:
        picks: list[tuple[int, ...]] = [()]
        for suit, n in enumerate(held):
            picks = [pick + (suit,) * k for pick in picks for k in range(n + 1)]
        found = [
            (tuple(rank * 4 + suit for suit in suits), suits)
            for suits in sorted((p for p in picks if p), key=lambda p: (len(p), p))
        ]
        _CHOICES[key] = found
    return found


#: A listed play's sort key and ids: (rank or lowest rank, 0 set / 1 sequence, size, ids).
_Entry = tuple[int, int, int, tuple[int, ...]]


def legal_plays(rules: Rules, counts: Sequence[int], trick: Trick) -> list[Play]:
    """Every distinct card set (by card kinds; suits matter) that `play_problem` accepts,
    ordered by rank (a sequence's lowest), sets before sequences, then size, then ids."""
    top, rev, lock, opening, _, _ = trick
    if top is not None and cut_waits(rules, top):  # only the stops (four_stop)
        base = FOUR * 4
        held4 = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        return [play_of(ids) for ids, _ in _choices(FOUR, held4) if len(ids) == top.size]
    if top is None:
        lock = ()
    jokers_held = counts[JOKER_ID]
    wild = jokers_held if rules.joker_mode == "wild" else 0
    found: list[_Entry] = []
    add = found.append
    spade = rules.spade_three and _is_spade_three(rules, (THREE_OF_SPADES,), top)
    if spade and counts[THREE_OF_SPADES]:
        add((THREE, 0, 1, (THREE_OF_SPADES,)))
    down = rules.down_number and top is not None and top.size == 1
    spade_two = _is_spade_two(rules, (TWO_OF_SPADES,), top, rev)
    if spade_two and counts[TWO_OF_SPADES]:
        add((TWO, 0, 1, (TWO_OF_SPADES,)))
    # Sets of a natural rank, wild jokers joining.
    for rank in range(1 if opening else 13):
        base = rank * 4
        held = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
        if held == (0, 0, 0, 0):
            continue
        for ids, suits in _choices(rank, held):
            if opening and ids[0] != THREE_OF_CLUBS:
                continue
            if lock and not _fits(lock, suits):
                continue
            for jokers in range(wild + 1):
                count = len(ids) + jokers
                if top is not None:
                    if spade and ids == (THREE_OF_SPADES,) and not jokers:
                        continue  # listed above
                    if spade_two and ids == (TWO_OF_SPADES,) and not jokers:
                        continue  # listed above
                    if not _set_beats(rules, top, rev, rank, count, suits) and not (
                        down and not jokers and _is_down_number(rules, ids, top, rev)
                    ):
                        continue
                add((rank, 0, count, ids + _JOKER_TAIL[jokers]))
    # Sets of jokers alone.
    if not opening:
        for jokers in range(1, jokers_held + 1):
            if top is None or _set_beats(rules, top, rev, JOKER_RANK, jokers, ()):
                add((JOKER_RANK, 0, jokers, _JOKER_TAIL[jokers]))
    if rules.sequences and (top is None or top.run):
        held_by_suit = [[counts[rank * 4 + suit] > 0 for rank in range(13)] for suit in range(4)]
        add_runs_held(rules, held_by_suit, top, rev, lock, opening, wild, add)
    if rules.emperor and (top is None or top.run):
        _add_emperors(rules, counts, top, rev, lock, opening, add)
    if (trick.step or trick.colour >= 0) and top is not None:
        special = {(THREE_OF_SPADES,)} if spade else set()
        if spade_two:
            special.add((TWO_OF_SPADES,))
        colour, step = trick.colour, trick.step
        found = [
            e
            for e in found
            if e[3] in special
            or (
                (not step or (e[1] == 0 and _steps(top, rev, e[0], e[2])))
                and (colour < 0 or _fits_colour(colour, e[3]))
            )
        ]
    found.sort()
    return [play_of(entry[3]) for entry in found]


def add_runs_held(
    rules: Rules,
    held_by_suit: Sequence[Sequence[bool]],
    top: Top | None,
    rev: bool,
    lock: tuple[int, ...],
    opening: bool,
    wild: int,
    add: Callable[[_Entry], None],
) -> None:
    """Every sequence the hand can make that beats `top` (or leads), added as sort entries:
    each suit's runs from a held lowest card to a held highest one, wild jokers filling the
    missing ranks inside (or standing in for held ones: a different card set).  The hand
    is given as, per suit, whether it holds each rank."""
    length = top.size if top is not None else 0
    for suit in range(1 if opening else 4):
        if lock and suit not in lock:
            continue
        held = held_by_suit[suit]
        if sum(held) + wild < 3:
            continue
        for low in range(1 if opening else 11):
            if not held[low]:
                continue
            missing = 0  # ranks strictly between `low` and `high` not held
            for high in range(low + 1, 13):
                size = high - low + 1
                if (
                    size >= 3
                    and held[high]
                    and (not length or size == length)
                    and (top is None or _run_beats(rules, top, rev, low, high, size))
                ):
                    inside = [rank for rank in range(low + 1, high) if held[rank]]
                    for spare in range(min(wild - missing, len(inside)) + 1):
                        for jokered in combinations(inside, spare):
                            ranks = [low, *(r for r in inside if r not in jokered), high]
                            if lock and not _fits(lock, (suit,) * len(ranks)):
                                continue
                            ids = tuple(rank * 4 + suit for rank in ranks)
                            add((low, 1, size, ids + _JOKER_TAIL[missing + spare]))
                if length and size >= length:
                    break
                if not held[high]:
                    missing += 1
                    if missing > wild:
                        break


def _add_emperors(
    rules: Rules,
    counts: Sequence[int],
    top: Top | None,
    rev: bool,
    lock: tuple[int, ...],
    opening: bool,
    add: Callable[[_Entry], None],
) -> None:
    """Every emperor the hand holds that beats `top` (or leads), as sort entries: four
    ranks in a row, each suit taken once, in every way the hand allows."""
    for low in range(1 if opening else 10):
        if top is not None and not _run_beats(rules, top, rev, low, low + 3, 4, True):
            continue
        for suits in permutations(range(4)):
            ids = tuple((low + at) * 4 + suit for at, suit in enumerate(suits))
            if not all(counts[card_id] for card_id in ids):
                continue
            if opening and THREE_OF_CLUBS not in ids:
                continue
            if lock and not _fits(lock, tuple(sorted(suits))):
                continue
            add((low, 1, 4, ids))


# --- what a legal play does to the trick ------------------------------------------------


def is_transparent(rules: Rules, play: Play, trick: Trick) -> bool:
    """Whether this legal play is transparent 3s: a set of 3s of the trick's size on a set
    pile (transparent_threes), not the 3S on a lone joker.  Such a play keeps the pile's
    rank and never triggers equal_plays = "skip"."""
    top = trick.top
    return (
        rules.transparent_threes
        and play.rank == THREE
        and top is not None
        and not top.run
        and play.count == top.size
        and not _is_spade_three(rules, play.ids, top)
    )


def pile_of(rules: Rules, seat: int, play: Play, trick: Trick) -> Top:
    """The pile after this legal play, owned by `seat`.  Transparent 3s keep the covered
    pile's rank and jokers count (with the 3s' suits); the 3S on a lone joker is a single 3."""
    suits = suits_of(play) if rules.variants else ()
    top = trick.top
    if play.rank < 0:
        run = run_of(rules, play)
        assert run is not None, "pile_of takes a legal play"
        return Top(seat, run[0], play.count, play.jokers, True, suits)
    if top is not None and is_transparent(rules, play, trick):
        return Top(seat, top.rank, play.count, top.jokers, False, suits)
    return Top(seat, play.rank, play.count, play.jokers, False, suits)


def lock_after(rules: Rules, trick: Trick, play: Play) -> tuple[int, ...]:
    """The lock after this legal play (suit_lock): the trick's lock if any; else the shared
    pattern when a follow and the pile both have no joker and the same sorted suits."""
    if not rules.suit_lock:
        return ()
    if trick.lock:
        if rules.queen_release and count_of(play, QUEEN):
            return ()  # a queen lifts the lock (queen_release)
        return trick.lock
    top = trick.top
    if top is None or top.jokers or play.jokers:
        return ()
    suits = suits_of(play)
    return suits if suits == top.suits else ()


def clears(rules: Rules, play: Play, trick: Trick) -> bool:
    """Whether this legal play clears the pile: `moves.clears` for sets, or by the pile it
    goes on (`clears_pile`); a sequence holding a natural card of a rank that clears in
    sequences (`Rules.run_clear_ranks`).  (The 3S on a joker does not clear.)"""
    if play.rank >= 0:
        return moves.clears(rules, play.rank, play.count) or clears_pile(rules, play, trick)
    return any(count_of(play, rank) for rank in rules.run_clear_ranks)


def clears_pile(rules: Rules, play: Play, trick: Trick) -> bool:
    """Whether this legal play clears the pile it goes on, which it would not clear as such:
    a single 3 on a single 2 (assassination), the 2S on a lone joker (spade_two_return)."""
    top = trick.top
    if top is None or play.count != 1:
        return False
    return _assassinates(rules, top, trick.reversed, play.rank, 1) or _is_spade_two(
        rules, play.ids, top, trick.reversed
    )


def revolts(rules: Rules, play: Play) -> bool:
    """revolution on and (a set of 4+ cards, or a sequence of 5+).  (The house rules'
    "revolution" triggers, coup and the like, are added by `facts_of`.)"""
    if rules.emperor and play.rank < 0 and _emperor_shape(play) is not None:
        return True  # an emperor starts (or ends) a revolution by itself
    return rules.revolution and play.count >= (4 if play.rank >= 0 else 5)


def forbidden_finish(rules: Rules, play: Play, trick: Trick) -> bool:
    """forbidden_finishes on and going out with this play is forbidden: it holds a joker, a
    natural of the strongest natural rank in the order before the play (2; 3 when reversed),
    a natural of clear_rank (when set), or it is the 3S on a lone joker (spade_three)."""
    if not rules.forbidden_finishes:
        return False
    if play.jokers:
        return True
    strongest = THREE if trick.reversed else TWO
    named = {strongest}
    if rules.clear_rank is not None:
        named.add(EIGHT if rules.clear_rank == 8 else TEN)
    if any(card_id >> 2 in named for card_id in play.ids):
        return True
    return _is_spade_three(rules, play.ids, trick.top) or _is_spade_two(
        rules, play.ids, trick.top, trick.reversed
    )


def punished_finish(rules: Rules, play: Play, trick: Trick) -> bool:
    """Going out with this legal play sends its player to the bottom: a forbidden finish,
    or a 2 under two_finish_penalty (a win at once aside: `effects_of`)."""
    return forbidden_finish(rules, play, trick) or (rules.two_finish_penalty and play.rank == TWO)


# --- what a legal play does, found before any of it is done ------------------------------


class Effects(NamedTuple):
    """Every effect of one legal play under the table's rules (docs/rules.md, "How toggles
    combine"): a pure answer, which `Game` then carries out in that order."""

    #: The play ends the trick at once (a clearing rank, 2s, 9s, a bomb...).
    cleared: bool
    #: It turns the order over (revolution; a "revolution" trigger: coup...).
    revolt: bool
    #: It reverses the order until the trick ends, or ends that (jack_back, two_back).
    jack: bool
    #: The trick's lock after it (suit_lock).
    lock: tuple[int, ...]
    #: The pile after it.
    pile: Top
    #: How many seats after it are skipped (five_skip, equal_plays = "skip").
    skips: int
    #: The dues it leaves its player, in order: (its kind, cards): "handover", "discard",
    #: "march", "zombie", "bomb".
    dues: tuple[tuple[str, int], ...]
    #: Going out with it takes the lowest free place (forbidden_finishes, the 2s penalty).
    bottom: bool
    #: Its player goes out at once, whatever they still hold (great_revolution).
    wins: bool = False
    #: A jack back on before it is over after it (six_return): `Game` knows whether one was.
    unreverses: bool = False
    #: It turns the direction of play round for the rest of the hand (nine_reverse...).
    turns: bool = False


def is_quiet(rules: Rules, play: Play) -> bool:
    """Whether this set, legal on some trick, does nothing there but go on the pile (and
    lock it to its suits, suit_lock), whatever the trick, when it is not the player's
    last cards nor the game's opening play: no clear, no revolution, no trigger, not
    transparent 3s nor the 3S, no skip for an equal play: `effects_of` finds for it no
    clear, revolution, jack, skip, due nor bottom place, and the pile its own set."""
    return (
        is_steady(rules, play)
        and not (play.rank == THREE and rules.spade_three)
        and facts_of(rules, play) == _NO_FACTS
    )


def is_steady(rules: Rules, play: Play) -> bool:
    """Whether what this set does on a trick where it is legal, when it is not the
    player's last cards nor the game's opening play, is what its cards do whatever the
    trick (`facts_of`), with its own set as the pile and the lock as `lock_after` makes
    it: `effects_of` finds no clear by the pile it goes on nor by the order in force (a
    cut), no 8s waiting for a stop (four_stop), no skip for an equal play, no
    transparent 3s, and no queen lifting a lock (queen_release)."""
    rank = play.rank
    return (
        rank >= 0
        and rules.equal_plays != "skip"
        and not (rank == THREE and rules.transparent_threes)
        and not (play.count == 1 and rank in (THREE, TWO) and rules.assassination)
        and not (play.ids == (TWO_OF_SPADES,) and rules.spade_two_return)
        and not (rank == QUEEN and rules.queen_release)
        and not (rank == EIGHT and rules.four_stop and rules.clear_rank == 8)
        and not facts_of(rules, play).cuts
    )


_NO_FACTS: Final = (False, False, False, 0, (), False, False, False, False)


def equal_play(rules: Rules, play: Play, trick: Trick) -> bool:
    """Whether `play` (legal on `trick`) is equal to the pile it beats, for equal_plays =
    "skip": a set of its rank (not transparent 3s), or a sequence from the same rank."""
    top = trick.top
    if top is None or is_transparent(rules, play, trick):
        return False
    if top.run:
        run = run_of(rules, play)
        return run is not None and run[0] == top.rank
    return top.rank == play.rank


class Facts(NamedTuple):
    """What a play does whatever the trick it goes on (`facts_of`): the part of its
    `Effects` that depends on its cards alone."""

    cleared: bool
    revolt: bool
    jack: bool
    #: Seats skipped by its triggers (five_skip...), before equal_plays = "skip".
    skips: int
    #: The dues it leaves its player unless it is their last cards.
    dues: tuple[tuple[str, int], ...]
    #: Its player goes out at once (a "win" trigger: great_revolution).
    wins: bool = False
    #: It clears the pile if the order is reversed before it (a "cut": five_cut...).
    cuts: bool = False
    #: It ends a jack back that was on before it (six_return).
    unreverses: bool = False
    #: It turns the direction of play round (a "direction" trigger: nine_reverse...).
    turns: bool = False


def facts_of(rules: Rules, play: Play) -> Facts:
    """What `play` does under `rules` whatever the trick (see `effects_of`)."""
    skips = 0
    reverse = False
    revolt = revolts(rules, play)
    wins = cuts = unreverses = turns = False
    dues: tuple[tuple[str, int], ...] = ()
    for trigger in rules.play_triggers:
        cards = count_of(play, trigger.rank)
        if cards < trigger.at_least or (trigger.sets_only and play.rank < 0):
            continue
        effect = trigger.effect
        if effect == "skip":
            skips += cards
        elif effect == "reverse":
            reverse = not reverse  # a J and a 2 in one sequence (two_back): both, so none
        elif effect == "revolution":
            revolt = True  # (four 9s under revolution and coup: one revolution)
        elif effect == "win":
            wins = True
        elif effect == "cut":
            cuts = True
        elif effect == "unreverse":
            unreverses = True
        elif effect == "direction":
            turns = not turns  # a 9 and a Q in one sequence: turned twice, so not at all
        else:  # a due: as many cards as the rank's, but a zombie's one card
            dues += ((effect, 1 if effect == "zombie" else cards),)
    return Facts(
        clears(rules, play, Trick(None, False, (), False)),
        revolt,
        reverse,
        skips,
        () if wins else dues,
        wins,
        cuts,
        unreverses,
        turns,
    )


def effects_of(
    rules: Rules,
    seat: int,
    play: Play,
    trick: Trick,
    going_out: bool,
    facts: Facts | None = None,
) -> Effects:
    """What `seat`'s legal `play` on `trick` does; `going_out`: it is the seat's last
    cards.  `facts`: `facts_of(rules, play)`, when known."""
    cleared, revolt, reverse, skips, dues, wins, cuts, unreverses, turns = facts or facts_of(
        rules, play
    )
    if cleared and rules.four_stop and rules.clear_rank == 8 and play.rank == EIGHT:
        # four_stop: a set of 8s waits on the pile for a stop (unless it is a bomb)
        cleared = rules.bombs and play.count >= 4
    if not cleared and (
        (cuts and trick.reversed) or (rules.pile_clears and clears_pile(rules, play, trick))
    ):
        cleared, skips = True, 0  # (a clear skips nobody)
    if rules.equal_plays == "skip" and not cleared and equal_play(rules, play, trick):
        skips += 1
    return Effects(
        cleared,
        revolt,
        reverse,
        lock_after(rules, trick, play),
        pile_of(rules, seat, play, trick),
        skips,
        () if going_out else dues,
        going_out
        and not wins  # (a win at once is never a punished finish)
        and punished_finish(rules, play, trick),
        wins,
        unreverses,
        turns,
    )

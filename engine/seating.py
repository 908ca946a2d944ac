"""Between hands: who sits where, who deals, where the deal starts and who exchanges with
whom (docs/rules.md, "Players, seats and the deal", "Players coming and going" and "The
exchange")."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence

from .cards import CARDS, TEN, Card, deck, parse_cards
from .errors import IllegalAction, RulesError
from .rules import Rules


def standing_after(
    finish: Sequence[str], present: Sequence[str], join_order: Sequence[str]
) -> list[str]:
    """Places for the coming hand: last finish order less leavers, newcomers at the bottom
    in the order they joined (the last to join is the Scum)."""
    stay = [name for name in finish if name in present]
    return stay + [name for name in join_order if name in present and name not in stay]


def next_standing(
    rules: Rules,
    finish: Sequence[str],
    standing: Sequence[str] | None,
    present: Sequence[str],
    join_order: Sequence[str],
) -> list[str]:
    """Places for the coming hand: the last `finish` (turned over when the Scum of
    `standing`, the places it was played from, went out first: gekokujou), less leavers,
    newcomers at the bottom (`standing_after`)."""
    if rules.gekokujou and standing and finish and finish[0] == standing[-1]:
        finish = finish[::-1]  # every title turns over
    return standing_after(finish, present, join_order)


def expected_seating(rules: Rules, previous: Sequence[str], standing: Sequence[str]) -> list[str]:
    """The seating the rules give: by rank, or the old seats with newcomers appended."""
    if rules.seat_order == "by_rank":
        return list(standing)
    stay = [name for name in previous if name in standing]
    return stay + [name for name in standing if name not in stay]


def check_seating(
    rules: Rules, previous: Sequence[str], standing: Sequence[str], seating: Sequence[str]
) -> None:
    if rules.seat_order == "by_rank":
        if list(seating) != list(standing):
            raise IllegalAction(
                "seats go by rank (seat_order = 'by_rank'): the seating must be "
                + ", ".join(standing)
            )
        return
    stay = [name for name in seating if name in previous]
    if stay != [name for name in previous if name in seating]:
        raise IllegalAction(
            "seats never move (seat_order = 'fixed'): players who stay must keep their order"
        )


def chosen_seating(
    rules: Rules,
    present: Sequence[str],
    previous: Sequence[str],
    standing: Sequence[str] | None,
    seating: Sequence[str],
) -> list[str]:
    """A seating given for the next hand, checked: everyone at the table named once, and
    seated as the rules seat them after the last hand (`check_seating`)."""
    seating = list(seating)
    if sorted(seating) != sorted(present) or len(set(seating)) != len(seating):
        raise IllegalAction(
            "the seating must name everyone at the table once: " + ", ".join(present)
        )
    if standing is not None:
        check_seating(rules, previous, standing, seating)
    return seating


def chosen_dealer(
    rules: Rules, dealer: int | None, due: int | None, players: int, first: bool
) -> int:
    """The dealer of the next hand: `dealer` if given (checked against `due`, the seat the
    rules say deals, after the first hand), else `due`."""
    if dealer is None:
        if due is None:
            raise IllegalAction("the first dealer is chosen at random: give an rng or a dealer")
        return due
    if not 0 <= dealer < players:
        raise IllegalAction(f"there is no seat {dealer} at a table of {players}")
    if due is not None and dealer != due and not first:
        why = "the Scum deals" if rules.dealer == "scum" else "the deal rotates to the left"
        raise IllegalAction(
            f"seat {due} deals this hand (dealer = '{rules.dealer}': {why}), not seat {dealer}"
        )
    return dealer


def next_dealer(
    rules: Rules,
    previous: Sequence[str],
    last_dealer: int | None,
    seating: Sequence[str],
    standing: Sequence[str] | None,
    rng: random.Random | None,
) -> int | None:
    """Who deals the next hand: the first dealer is drawn (None without an rng); then the
    Scum deals (dealer = "scum"), or whoever sat on the last dealer's left in `previous`
    (the next one still here)."""
    if last_dealer is None or standing is None:
        return rng.randrange(len(seating)) if rng is not None else None
    if rules.dealer == "scum":
        return list(seating).index(standing[-1])
    for step in range(1, len(previous) + 1):
        name = previous[(last_dealer + step) % len(previous)]
        if name in seating:
            return list(seating).index(name)
    return 0


def check_names(names: Sequence[str]) -> None:
    """Each player's name some text, and no two alike."""
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"a player's name must be some text, not {name!r}")
    if len(set(names)) != len(names):
        raise RulesError("players' names must be unique")


def deal_start(
    rules: Rules, dealer: int, seating: Sequence[str], standing: Sequence[str] | None
) -> int:
    if rules.deal_from_president and standing:
        return seating.index(standing[0])
    return (dealer + 1) % len(seating)


def first_leader(
    rules: Rules,
    seating: Sequence[str],
    dealer: int,
    standing: Sequence[str] | None,
    holds_three_of_clubs: Callable[[int], bool],
) -> int:
    """Who leads the hand's first trick: in hand 1 the seat left of the dealer (or, under
    first_lead = "three_of_clubs", the first from there that holds the 3C); later the
    President (or the Scum, under later_lead = "scum")."""
    players = len(seating)
    if standing is None:
        leader = (dealer + 1) % players
        if rules.first_lead == "three_of_clubs":
            return next(
                seat % players
                for seat in range(leader, leader + players)
                if holds_three_of_clubs(seat % players)
            )
        return leader
    return list(seating).index(standing[0] if rules.later_lead == "president" else standing[-1])


def spared(ranks: Iterable[int]) -> bool:
    """A giver whose cards (their `ranks`) are some, none above a 10 (no J, Q, K, A, 2
    nor joker), gives nothing in the exchange under catastrophe."""
    held = list(ranks)
    return bool(held) and all(rank <= TEN for rank in held)


def exchange_pairs(
    rules: Rules, seating: Sequence[str], standing: Sequence[str]
) -> list[tuple[int, int, int]]:
    """Who gives whom how many cards in the exchange: (giver, receiver, count) by seat,
    the Scum's give first."""
    seat_of = {name: seat for seat, name in enumerate(seating)}
    players = len(seating)
    if rules.scaled_exchange:
        # (wecraw/daifugo: the i-th from the bottom gives the i-th from the top n // 2 - i
        # cards; the middle seat of an odd table sits out)
        half = players // 2
        return [(seat_of[standing[-1 - i]], seat_of[standing[i]], half - i) for i in range(half)]
    size = 1 if rules.exchange == "one" else 2
    pairs = [(seat_of[standing[-1]], seat_of[standing[0]], size)]
    if rules.exchange == "two_one" and players >= 4:
        pairs.append((seat_of[standing[-2]], seat_of[standing[1]], 1))
    return pairs


def seating_for(
    rules: Rules, present: Sequence[str], previous: Sequence[str], standing: Sequence[str] | None
) -> list[str]:
    """The seating the rules give for the next hand (`standing` None before the first)."""
    return list(present) if standing is None else expected_seating(rules, previous, standing)


def planned_hand(
    rules: Rules,
    present: Sequence[str],
    previous: Sequence[str],
    last_dealer: int | None,
    standing: Sequence[str] | None,
    rng: random.Random | None,
) -> tuple[list[str], int, int]:
    """(seating, dealer, first seat dealt) of the next hand as the rules give them
    (`standing` None before the first hand, whose dealer is drawn from `rng` whatever
    `last_dealer` says)."""
    seating = seating_for(rules, present, previous, standing)
    dealer = next_dealer(rules, previous, last_dealer, seating, standing, rng)
    assert dealer is not None
    return seating, dealer, deal_start(rules, dealer, seating, standing)


def next_deal(
    rules: Rules,
    present: Sequence[str],
    previous: Sequence[str],
    last_dealer: int | None,
    standing: Sequence[str] | None,
    seating: Sequence[str] | None,
    dealer: int | None,
    deal: Sequence[Sequence[Card | str]] | None,
    rng: random.Random | None,
) -> tuple[list[str], int, list[list[int]]]:
    """The next hand's seating, dealer and each seat's card ids: as the rules give them,
    or as given (`seating`, `dealer`, `deal`: checked against the rules), the cards
    shuffled from `rng` if not given (`standing` None before the first hand)."""
    if len(present) < 3:
        raise IllegalAction(f"President needs at least 3 players, and {len(present)} are here")
    if seating is None:
        seating = seating_for(rules, present, previous, standing)
    else:
        seating = chosen_seating(rules, present, previous, standing, seating)
    players = len(seating)
    due = next_dealer(rules, previous, last_dealer, seating, standing, rng)
    dealer = chosen_dealer(rules, dealer, due, players, first=standing is None)
    start = deal_start(rules, dealer, seating, standing)
    if deal is None:
        if rng is None:
            raise IllegalAction("a hand is dealt from an rng or given explicitly")
        return list(seating), dealer, shuffled_deal(rules, players, start, rng)
    if len(deal) != players:
        raise IllegalAction(f"the deal has {len(deal)} hands for {players} seats")
    try:
        hands = [[c.id for c in parse_cards([str(c) for c in hand])] for hand in deal]
    except (ValueError, TypeError) as exc:
        raise IllegalAction(f"the deal holds a card that is not one: {exc}") from None
    check_deal(rules, hands, start)
    return list(seating), dealer, hands


def shuffled_deal(rules: Rules, players: int, start: int, rng: random.Random) -> list[list[int]]:
    """Shuffle the deck and deal it one card at a time from seat `start`, clockwise.
    Returns each seat's card ids."""
    order = list(_deck_ids(rules.decks, rules.jokers))
    rng.shuffle(order)
    return [order[(seat - start) % players :: players] for seat in range(players)]


@functools.cache
def _deck_ids(decks: int, jokers: int) -> tuple[int, ...]:
    """The card ids of `deck(decks, jokers)`, in its order."""
    return tuple(card.id for card in deck(decks, jokers))


def check_deal(rules: Rules, hands: Sequence[Sequence[int]], start: int) -> None:
    """A given deal (card ids) must be the whole deck, with the extra cards at the seats
    dealt first."""
    players = len(hands)
    whole = sorted(c.id for c in deck(rules.decks, rules.jokers))
    dealt = sorted(card_id for hand in hands for card_id in hand)
    if dealt != whole:
        missing = _multiset_minus(whole, dealt)
        extra = _multiset_minus(dealt, whole)
        what = []
        if missing:
            what.append("missing " + " ".join(str(CARDS[i]) for i in missing[:6]))
        if extra:
            what.append("extra " + " ".join(str(CARDS[i]) for i in extra[:6]))
        raise IllegalAction(f"the deal is not the whole deck ({'; '.join(what)})")
    size, extra_cards = divmod(len(whole), players)
    for seat in range(players):
        want = size + (1 if (seat - start) % players < extra_cards else 0)
        if len(hands[seat]) != want:
            raise IllegalAction(
                f"seat {seat} should be dealt {want} cards, not {len(hands[seat])} "
                f"(the deal starts at seat {start})"
            )


def _multiset_minus(a: Sequence[int], b: Sequence[int]) -> list[int]:
    rest = list(b)
    out = []
    for x in a:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out


def highest_first(card: Card) -> tuple[int, int]:
    """Order of forced gives: highest rank (jokers top), then the highest suit (♠ before ♣)."""
    return (-card.rank, -card.suit)


def lowest_first(card: Card) -> tuple[int, int]:
    """Order of automatic returns: lowest rank, then the lowest suit (♣ first)."""
    return (card.rank, card.suit)

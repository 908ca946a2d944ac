"""The provably fair deal: reproducible from the seeds, changed by any seed, checkable."""

from __future__ import annotations

import hashlib
from collections import Counter

from president.engine import deck
from president.protocol.fairdeal import check_hand, commitment, deal, deck_order

SERVER = bytes(range(32))
CLIENTS = [bytes([i]) * 32 for i in range(1, 5)]


def test_the_same_seeds_deal_the_same_deck() -> None:
    order = deck_order(SERVER, CLIENTS, 0)
    assert order == deck_order(SERVER, CLIENTS, 0)
    assert sorted(order) == sorted(deck())
    assert order != deck()


def test_every_seed_and_the_hand_number_change_the_deck() -> None:
    base = deck_order(SERVER, CLIENTS, 0)
    assert deck_order(SERVER, CLIENTS, 1) != base
    assert deck_order(bytes(32), CLIENTS, 0) != base
    for seat in range(4):
        changed = list(CLIENTS)
        changed[seat] = b"\xff" * 32
        assert deck_order(SERVER, changed, 0) != base
    assert deck_order(SERVER, list(reversed(CLIENTS)), 0) != base  # seat order counts


def test_two_decks_and_jokers() -> None:
    order = deck_order(SERVER, CLIENTS, 3, decks=2, jokers=2)
    assert sorted(order) == sorted(deck(2, 2))


def test_a_client_checks_its_own_hand() -> None:
    order = deck_order(SERVER, CLIENTS, 5)
    hands = deal(order, 4, start=1)
    assert [len(h) for h in hands] == [13] * 4 and hands[1][0] == order[0]
    digest = commitment(SERVER)
    assert digest == hashlib.sha256(SERVER).digest()
    for seat in range(4):
        assert check_hand(SERVER, digest, CLIENTS, 5, 4, 1, seat, hands[seat]) is None
    cheat = list(hands[2])
    cheat[0] = hands[3][0]
    assert "not the cards the seeds deal" in (
        check_hand(SERVER, digest, CLIENTS, 5, 4, 1, 2, cheat) or ""
    )
    assert "commitment" in (check_hand(bytes(32), digest, CLIENTS, 5, 4, 1, 2, hands[2]) or "")


def test_a_reveal_that_does_not_fit_the_table_is_a_failed_check_not_a_crash() -> None:
    """A hostile server's reveal: fewer seats than ours, or seeds that do not add up."""
    digest = commitment(SERVER)
    hands = deal(deck_order(SERVER, CLIENTS, 5), 4, 1)
    for players, start, seat, seeds in (
        (3, 1, 3, CLIENTS[:3]),
        (4, 9, 2, CLIENTS),
        (4, 1, 2, CLIENTS[:2]),
    ):
        problem = check_hand(SERVER, digest, seeds, 5, players, start, seat, hands[2])
        assert problem is not None and "not this table's" in problem


def test_the_shuffle_is_not_visibly_biased() -> None:
    """Where the 3C lands over 2,600 deals: each of 52 places about 50 times."""
    places = Counter(
        deck_order(SERVER, [i.to_bytes(32, "big")], 0).index(deck()[0]) for i in range(2600)
    )
    expected = 2600 / 52
    chi2 = sum((places[p] - expected) ** 2 / expected for p in range(52))
    assert chi2 < 100, chi2  # 51 degrees of freedom: p < 0.0001 above ~95

"""Card notation, exactly as docs/rules.md writes it ("The cards")."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from president.engine import (
    CARDS,
    JOKER,
    Bomb,
    Card,
    Discard,
    Handover,
    Play,
    Return,
    Take,
    deck,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("3C", "3C"),
        ("10H", "10H"),
        ("QS", "QS"),
        ("2D", "2D"),
        ("JK", "JK"),
        ("TD", "10D"),
        ("td", "10D"),
        ("10h", "10H"),
        ("q♠", "QS"),
        ("3♣", "3C"),
        ("A♦", "AD"),
        ("K♥", "KH"),
        ("jk", "JK"),
        (" 7s ", "7S"),
    ],
)
def test_parse_and_format(text: str, shown: str) -> None:
    assert str(Card.parse(text)) == shown


@pytest.mark.parametrize("bad", ["", "1C", "11H", "3X", "JKK", "C3", "10", "♠", "joker"])
def test_bad_notation_is_a_clear_error(bad: str) -> None:
    with pytest.raises(ValueError, match="is not a card"):
        Card.parse(bad)


@given(st.sampled_from(CARDS))
def test_round_trip_and_repr(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert eval(repr(card), {"Card": Card}) is card
    assert pickle.loads(pickle.dumps(card)) is card


def test_ranks_and_order() -> None:
    assert [str(c) for c in parse_cards("3C 4C 10S 2S JK")] == ["3C", "4C", "10S", "2S", "JK"]
    three, two = Card.parse("3C"), Card.parse("2S")
    assert three.rank == 0 and two.rank == 12 and JOKER.rank == 13 and JOKER.is_joker
    assert sorted(parse_cards("2S 3C JK 10H")) == list(parse_cards("3C 10H 2S JK"))
    with pytest.raises(AttributeError):
        three.rank = 5  # type: ignore[misc]


def test_cards_and_actions_are_immutable() -> None:
    """Shared by every game and bot (interned), so no field is set again, deleted or
    added (compiled too: tests/test_compiled_build.py)."""
    made = [
        Card.parse("3C"),
        Play.parse("4C 4D"),
        Return.parse("5S"),
        Handover.parse("6H"),
        Discard.parse("7C"),
        Take.parse("8D"),
        Bomb.parse("9"),
    ]
    for thing in made:
        name = "rank" if isinstance(thing, Card | Play | Bomb) else "cards"
        kept = getattr(thing, name)
        with pytest.raises(AttributeError):
            setattr(thing, name, kept)
        with pytest.raises(AttributeError):
            delattr(thing, name)
        with pytest.raises(AttributeError):
            thing.extra = 1  # type: ignore[union-attr]
        assert getattr(thing, name) == kept


def test_decks() -> None:
    assert len(deck()) == 52 and len(set(deck())) == 52
    assert len(deck(2, 2)) == 108 and deck(2, 2).count(JOKER) == 4


def test_actions_compare_by_cards() -> None:
    assert Play.parse("7H 7C") == Play.parse("7C 7H")
    assert Play.parse("7C") != Return.parse("7C")
    assert repr(Play.parse("7C 7H")) == "Play.parse('7C 7H')"
    assert eval(repr(Play.parse("10S JK")), {"Play": Play}) == Play.parse("10S JK")
    mixed = Play.parse("7C 8C")
    assert mixed.rank == -1


def test_games_copy_and_pickle() -> None:
    import copy
    import random

    from president.engine import Game, find_preset

    game = Game(find_preset("classic"), ["A", "B", "C", "D"])
    game.start_hand(rng=random.Random(1))
    seat = game.turn
    assert seat is not None
    game.apply(seat, game.legal_actions(seat)[0])
    for twin in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert twin.hand_of(1) == game.hand_of(1) and twin.turn == game.turn
        nxt = twin.turn
        assert nxt is not None
        twin.apply(nxt, twin.legal_actions(nxt)[-1])
        assert twin.card_counts() != game.card_counts() or twin.turn != game.turn
    assert pickle.loads(pickle.dumps(Play.parse("7C 7D"))) == Play.parse("7C 7D")

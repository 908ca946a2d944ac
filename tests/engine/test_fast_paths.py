"""The engine's view caches and copies against the game as it stands.

`Game.view_for` keeps fields from one view to the next, `Game.clone` and `Game.from_view`
make worlds for a search: here their views are compared with views built field by field
from the game's state (`eager_view`).  The fast `Game` against the plain one
(engine/plain.py), action by action: tests/engine/test_plain.py."""

from __future__ import annotations

import random
from typing import Any

import pytest
from president.engine import (
    Game,
    Phase,
    PublicView,
    Rules,
    SeatView,
    find_preset,
)
from president.engine.state import _FIELDS
from president.engine.view import with_discards


def eager_public(game: Game) -> PublicView:
    """`Game.public_view` built afresh from the game's state, every field every time."""
    players = len(game.card_counts())
    answered, locked = game._answered, game._locked
    return PublicView(
        rules=game.rules,
        hand_number=game.hand,
        phase=game.phase,
        seating=tuple(game.seating),
        dealer=game.dealer,
        counts=tuple(game.card_counts()),
        turn=game.turn,
        top=game.top,
        trick=tuple(game.log[game._trick_start :]),
        played=with_discards(game.log, len(game.log), game._discarded),
        revolution=game.revolution,
        opening=game._opening,
        passed=tuple([bool(answered >> s & 1) for s in range(players)]),
        locked=tuple([bool(locked >> s & 1) for s in range(players)]),
        finish_order=tuple(game.finish_order),
        standing=tuple(game.standing or ()),
        scores=tuple([(name, game.scores[name]) for name in game.seating]),
        owed=tuple([(seat, size) for seat, (_, size) in game.pending_returns.items()]),
        hands_played=len(game.finishes),
        winners=tuple(game.winners),
        places=tuple(game.place_of(s) for s in range(players)),
        jack_back=game.jack_back,
        lock=game.lock,
        due=game.due,
        backwards=game.backwards,
        taken=tuple(c for at, cs in game._discarded if at < 0 for c in cs),
    )


def eager_view(game: Game, seat: int) -> SeatView:
    """`Game.view_for(seat)` built afresh: the public view, the seat's cards as
    `hand_of` lists them, its part of the exchange, through `SeatView.of`."""
    exchange = [e for e in game.exchanges if seat in (e.giver, e.receiver)]
    return SeatView.of(eager_public(game), seat, game.hand_of(seat), exchange, history=game._moves)


def same_view(view: tuple[Any, ...], truth: tuple[Any, ...], where: str) -> None:
    differ = [name for name, a, b in zip(type(truth)._fields, view, truth) if a != b]  # type: ignore[attr-defined]
    assert not differ, (where, differ)
    assert view == truth


def check_every_view(game: Game, where: str, seats: list[int] | None = None) -> None:
    same_view(game.public_view(), eager_public(game), where)
    for seat in range(len(game.card_counts())) if seats is None else seats:
        same_view(game.view_for(seat), eager_view(game, seat), f"{where}, seat {seat}")


def test_a_view_kept_shows_the_moment_it_was_made() -> None:
    """Views share what did not change with the views before them; a view a bot keeps
    must still show its own moment after the game has moved on, hands later."""
    rng = random.Random(5)
    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    kept: list[tuple[SeatView, SeatView, PublicView, PublicView]] = []
    while game.phase is not Phase.GAME_OVER and len(game.finishes) < 3:
        game.start_hand(rng=rng)
        while game.phase in (Phase.PLAY, Phase.EXCHANGE):
            seat = game.actor
            assert seat is not None
            for who in {seat, (seat + 1) % 4}:
                kept.append(
                    (
                        game.view_for(who),
                        eager_view(game, who),
                        game.public_view(),
                        eager_public(game),
                    )
                )
            game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert len({view.hand_number for view, *_ in kept}) == 3
    for view, truth, public, public_truth in kept:
        same_view(view, truth, "kept")
        same_view(public, public_truth, "kept")
        assert view.public() == public_truth


def test_a_kept_view_lists_the_actions_of_its_own_moment() -> None:
    """Under the variants a view is made with the game's own listing (`ListedSeatView`);
    kept until the game has moved on (later in the hand, in later hands), it lists what
    its own moment allowed, as a view built afresh then does.  Each call gives a list of
    its own: what a caller does to one (a bot that takes the pass out) is not in the next."""
    rng = random.Random(8)
    game = Game(find_preset("daifugo"), ["a", "b", "c", "d"])
    kept: list[tuple[SeatView, list[object]]] = []
    while game.phase is not Phase.GAME_OVER and len(game.finishes) < 3:
        game.start_hand(rng=rng)
        while game.phase in (Phase.PLAY, Phase.EXCHANGE):
            seat = game.actor
            assert seat is not None
            view = game.view_for(seat)
            listed = view.legal_actions()
            assert listed == SeatView.legal_actions(eager_view(game, seat))
            kept.append((view, [*listed]))
            action = rng.choice(listed)
            listed.append(listed[0])  # (a caller's own list, to do with as it likes)
            listed.reverse()
            assert view.legal_actions() == kept[-1][1]
            game.apply(seat, action)
    assert len(kept) > 100
    for view, listed in kept:
        assert view.legal_actions() == listed


def test_a_rebuilt_world_views_like_one_built_afresh() -> None:
    rng = random.Random(11)
    game = Game(find_preset("full"), ["a", "b", "c", "d", "e"])
    game.start_hand(rng=rng)
    while game.phase is not Phase.PLAY:
        seat = game.actor
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    for _ in range(30):
        seat = game.actor
        if seat is None:
            break
        world = Game.from_view(game.view_for(seat), [game.hand_of(s) for s in range(5)])
        check_every_view(world, "rebuilt")
        action = rng.choice(world.legal_actions(seat))
        assert world.apply(seat, action) == game.apply(seat, action)
        check_every_view(world, "rebuilt, after a move")


def test_the_deals_events_hold_the_cards_dealt() -> None:
    """`Dealt` events are made with one `itemgetter` call per seat: each holds the seat's
    cards as dealt (the record's ids, lowest first), as the card-by-card lookup made them,
    under every preset and with two decks and jokers, at every table size."""
    from president.engine.cards import CARDS
    from president.engine.events import Dealt
    from president.engine.state import _cards_of

    assert _cards_of(()) == ()
    assert _cards_of((7,)) == (CARDS[7],)
    assert _cards_of((3, 9)) == (CARDS[3], CARDS[9])
    rng = random.Random(14)
    rulebooks = [find_preset(name) for name in ("classic", "full", "house", "sheet", "table")]
    rulebooks.append(Rules(decks=2, jokers=2))
    for rules in rulebooks:
        for players in (3, 4, 6, 8) if rules.decks == 1 else (6, 9, 12):
            game = Game(rules, [f"P{i}" for i in range(players)])
            for _ in range(3):
                if game.phase is Phase.GAME_OVER:
                    break
                events = game.start_hand(rng=rng)
                dealt = [event for event in events if type(event) is Dealt]
                deal = game.history[-1].deal
                assert [event.seat for event in dealt] == list(range(players))
                for event, ids in zip(dealt, deal):
                    assert event.cards == tuple(map(CARDS.__getitem__, ids))
                    assert [card.id for card in event.cards] == sorted(ids)
                seat = game.actor
                while seat is not None:
                    game.apply(seat, rng.choice(game.legal_actions(seat)))
                    seat = game.actor


def assert_shares_nothing_changeable(game: Game, twin: Game) -> None:
    """No list or map of the game's own, nor a list in one, is the clone's too (the
    tables shared by every game of a size aside): a field that holds one and that
    `Game.clone` does not copy fails here."""
    for name in _FIELDS:
        value = getattr(game, name)
        if type(value) not in (list, dict) or name in game._SHARED:
            continue
        copy = getattr(twin, name)
        assert copy is not value, name
        if type(value) is list:
            for item, copied in zip(value, copy):
                assert type(item) is not list or copied is not item, name


@pytest.mark.parametrize("preset", ["classic", "house", "daifugo"])
def test_a_clone_plays_on_alone_and_as_the_game_would(preset: str) -> None:
    """`Game.clone` (a search's world): the clone and the game, given the same moves,
    make the same events and views; moves made in the clone leave the game as it was."""
    rng = random.Random(5)
    game = Game(find_preset(preset).replace(target=4, rounds=2), ["a", "b", "c", "d"])
    cloned = 0
    while game.phase is not Phase.GAME_OVER:
        game.start_hand(rng=random.Random(rng.random()))
        while game.actor is not None:
            if rng.random() < 0.1:
                before = [game.view_for(s) for s in range(4)], game.public_view()
                twin, stray = game.clone(), game.clone()
                assert_shares_nothing_changeable(game, twin)
                # the stray plays on alone: the game does not see it
                for _ in range(5):
                    if stray.actor is None:
                        break
                    stray.apply(stray.actor, rng.choice(stray.legal_actions(stray.actor)))
                assert ([game.view_for(s) for s in range(4)], game.public_view()) == before
                check_every_view(twin, "cloned")
                for _ in range(8):
                    seat = game.actor
                    if seat is None:
                        break
                    action = rng.choice(game.legal_actions(seat))
                    assert twin.legal_actions(seat) == game.legal_actions(seat)
                    assert twin.apply(seat, action) == game.apply(seat, action)
                check_every_view(twin, "cloned, after moves")
                assert twin.history[-1].actions == game.history[-1].actions
                cloned += 1
            seat = game.actor
            if seat is not None:
                game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert cloned >= 5  # (seeded: the same every run)

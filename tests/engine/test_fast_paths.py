"""The engine's fast paths against the plain ones they stand for.

`Game.apply` takes a lean path for the common play and pass, and `Game.view_for` keeps
fields from one view to the next; here, on random games under random rules, each is
compared with the way it was done before: the checked generic path of `apply`, and views
built field by field from the game as it stands."""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from president.engine import (
    PASS,
    Action,
    Game,
    IllegalAction,
    Pass,
    Phase,
    Play,
    PublicView,
    Return,
    Rules,
    SeatView,
    find_preset,
)
from president.engine import state as state_module
from president.engine.view import with_discards

from ..strategies import tables
from .test_properties import candidates

#: A game compiled by mypyc (the optional build) takes no interpreted subclass: there
#: the fast paths are checked against pure Python's games by tests/test_compiled_build.py.
COMPILED = not state_module.__file__.endswith(".py")
plain_game_allowed = pytest.mark.skipif(COMPILED, reason="Game is compiled (mypyc)")


class PlainGame(Game):
    """A game whose `apply` always checks with `check` and carries out the action with
    the generic `_play` and `_pass`: `apply` as it was before the lean paths."""

    def apply(self, seat: int, action: Action, *, checked: bool = True) -> list[Any]:
        if checked:
            self.check(seat, action)
        self._actions.append((seat, action))
        if type(action) is Return:
            return self._return(seat, action)
        events: list[Any] = []
        if type(action) is Play:
            if self.rules.variants:
                self._play_variant(seat, action, events)
            else:
                self._play(seat, action, events)
        elif type(action) is Pass:
            self._pass(seat, events)
        else:
            self._pay_due(seat, action, events)  # type: ignore[arg-type]
        if self.rules.auto_pass:
            self._auto_pass(events)
        return events


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


def check_apply_agrees_with_check(game: Game, seat: int, rng: random.Random) -> None:
    """Every candidate action: `apply` refuses it with `check`'s sentence, or takes it
    exactly when `check` does, with the events and the state of the generic path."""
    # The lean path's own candidates: every canonical play of every seat's rows (of
    # every rank and size, held or not by `seat`), and the checked ones of `candidates`.
    canonical = [play for s in range(len(game.seating)) for row in game.rows(s) for play in row]
    for action in [*candidates(game, seat, rng, limit=8), *canonical, PASS]:
        try:
            game.check(seat, action)
            why = None
        except IllegalAction as exc:
            why = str(exc)
        # the seat's own view asks the same judge, and says the same sentence
        assert game.view_for(seat).problem(action) == why, action
        fast, plain = copy.deepcopy(game), copy.deepcopy(game)
        plain.__class__ = PlainGame
        try:
            events = fast.apply(seat, action)
        except IllegalAction as exc:
            assert str(exc) == why, (action, str(exc), why)
            continue
        assert why is None, (action, why)
        assert events == plain.apply(seat, action), action
        check_every_view(fast, f"after {action!r}")
        assert [fast.view_for(s) for s in range(len(fast.seating))] == [
            plain.view_for(s) for s in range(len(plain.seating))
        ]


def play(rules: Rules, players: int, seed: int, deep_hands: int = 1) -> None:
    """A whole game (players coming and going) played twice with the same choices, by
    the lean `apply` and the plain one: the same events at every step, and every view
    the same as one built afresh; in the first hands, every candidate action put to
    `apply` against `check`."""
    rng, probe = random.Random(seed), random.Random(~seed)
    names = [f"P{i}" for i in range(players)]
    game, plain = Game(rules, names), PlainGame(rules, names)
    newcomer = itertools.count()
    while game.phase is not Phase.GAME_OVER:
        assert len(game.finishes) < 300, "the game did not end"
        if game.finishes and rng.random() < 0.2:
            here = game.next_seating()
            name = f"N{next(newcomer)}"
            if rng.random() < 0.5 and len(here) < rules.max_players:
                game.join(name)
                plain.join(name)
            elif len(here) > 3:
                leaver = rng.choice(here)
                game.leave(leaver)
                plain.leave(leaver)
        deal = rng.random()
        assert game.start_hand(rng=random.Random(deal)) == plain.start_hand(rng=random.Random(deal))
        check_every_view(game, f"hand {game.hand} dealt")
        while game.phase in (Phase.PLAY, Phase.EXCHANGE):
            seat = game.actor
            assert seat is not None
            if len(game.finishes) < deep_hands and probe.random() < 0.2:
                check_apply_agrees_with_check(game, seat, probe)
            legal = game.legal_actions(seat)
            assert legal == plain.legal_actions(seat)
            action = rng.choice(legal)
            assert game.apply(seat, action) == plain.apply(seat, action)
            # The next actor's view always (the one a bot asks for), every seat's at times.
            every = probe.random() < 0.2 or game.actor is None
            seats = None if every else [game.actor]  # type: ignore[list-item]
            check_every_view(game, f"hand {game.hand} after {action!r}", seats)
        assert game.finishes == plain.finishes and game.scores == plain.scores
    assert game.winners == plain.winners


#: Each example is a whole game checked at every step (seconds under many toggles): 3 of
#: them, in the slow tier (long matches); the presets are played below, in the fast one,
#: and HYPOTHESIS_PROFILE=thorough draws 187.
@pytest.mark.slow
@plain_game_allowed
@settings(
    max_examples=max(1, settings.default.max_examples // 8),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tables(most_players=6))
def test_the_fast_paths_do_what_the_plain_ones_do(table: tuple[Rules, int, int]) -> None:
    play(*table)


@plain_game_allowed
@pytest.mark.parametrize(
    "preset",
    # the base rules and the variants in the fast tier; the other rulebooks in the slow one
    ["classic"]
    + [pytest.param(p, marks=pytest.mark.slow) for p in ("full", "house", "table")]
    + ["daifugo"],
)
def test_the_fast_paths_under_each_preset_at_four_and_six(preset: str) -> None:
    for players in (4, 6):
        rules = find_preset(preset).replace(target=4, rounds=2)
        play(rules, players, seed=players * 31 + len(preset))


@pytest.mark.slow  # (a whole game checked at every step: seconds)
@plain_game_allowed
def test_the_fast_paths_when_the_direction_of_play_turns() -> None:
    """nine_reverse, queen_reverse and king_reverse under daifugo (skips, hand-overs and
    every view go the way of play), with scaled_exchange, emperor, four_stop, salvage,
    kings_march, zombie and queen_bomber (dues of the cards played, bombs): one short
    game at six, fast == plain."""
    rules = find_preset("daifugo").replace(
        nine_reverse=True,
        queen_reverse=True,
        king_reverse=True,
        scaled_exchange=True,
        emperor=True,
        four_stop=True,
        salvage=True,
        kings_march=True,
        zombie=True,
        queen_bomber=True,
        target=4,
        rounds=2,
    )
    play(rules, 6, seed=9)


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

"""The engine's two projections: what everyone at the table sees, and what one seat sees
on top of it."""

from __future__ import annotations

import random

import pytest
from president.engine import (
    Dealt,
    Game,
    Gave,
    Phase,
    Played,
    PublicView,
    Returned,
    SeatView,
    find_preset,
    parse_cards,
    public_event,
)


def test_a_seat_view_is_the_public_view_and_then_the_seats_own() -> None:
    assert SeatView._fields[: len(PublicView._fields)] == PublicView._fields
    assert SeatView._fields[len(PublicView._fields) :] == (
        "seat",
        "hand",
        "exchange",
        "return_size",
        "rows",
        "history",
    )


def test_every_spelling_of_the_view_fields_is_held_to_the_declared_names() -> None:
    """The fields are declared once (`PublicView` and the seat's own); what a compiled
    `SeatView` must spell out again (its `__init__`, annotations, slots, a property per
    field filled when first read, how each is filled; the lazy view's eager arguments and
    its snapshot) is checked here by name, so a field added to one place and not
    another fails."""
    import inspect
    import typing

    from president.engine import view as view_module

    if not str(view_module.__file__).endswith(".py"):
        # compiled by mypyc, the class shows neither its signature nor its annotations:
        # what this reads is the source's, which the pure-Python run checks
        pytest.skip("compiled: the spellings are checked in pure Python")
    fields = SeatView._fields
    assert tuple(inspect.signature(SeatView.__init__).parameters)[1:] == fields
    eager, lazy = view_module._EAGER_FIELDS, view_module._LAZY_FIELDS
    assert set(eager) | set(lazy) == set(fields) and not set(eager) & set(lazy)
    annotated = set(typing.get_type_hints(SeatView))
    assert {*eager, *(f"_{name}" for name in lazy)} <= annotated
    assert set(SeatView.__slots__) == {*eager, *(f"_{name}" for name in lazy), "_at"}
    for name in lazy:  # (a property; compiled by mypyc, a descriptor of its own)
        assert inspect.isdatadescriptor(inspect.getattr_static(SeatView, name)), name
    assert set(view_module._FILLS) == set(lazy)
    made = tuple(inspect.signature(view_module.LazySeatView.__init__).parameters)[1:]
    assert made[:-1] == tuple(name for name in fields if name in eager), made


def test_a_view_made_by_the_game_fills_every_field_as_one_made_afresh() -> None:
    """Each field of the lazy view (from its snapshot) equals that of a view made whole;
    compiled or not."""
    fields = SeatView._fields
    game = Game(find_preset("daifugo"), ["a", "b", "c", "d"])
    game.start_hand(rng=random.Random(3))
    seat = game.actors[0]
    game.apply(seat, game.legal_actions(seat)[0])
    for seat in range(4):
        lazy_view = game.view_for(seat)
        whole = SeatView.of(
            game.public_view(),
            seat,
            game.hand_of(seat),
            [e for e in game.exchanges if seat in (e.giver, e.receiver)],
            history=game._moves,
        )
        for name in fields:
            assert getattr(lazy_view, name) == getattr(whole, name), name


def test_a_seats_history_is_every_play_and_pass_of_the_hand_in_order() -> None:
    """The plays of `history` are `played` card for card and the trick is its tail; its
    passes are the table's (auto passes included); a rebuilt world keeps it."""
    from president.engine import PASS, Passed, Play

    for preset in ("classic", "house", "full"):
        game = Game(find_preset(preset), ["a", "b", "c", "d", "e"])
        rng = random.Random(7)
        passes = 0
        checked = 0
        while not game.finishes:
            if game.phase is Phase.BETWEEN_HANDS:
                game.start_hand(rng=rng)
                continue
            seat = game.actors[0]
            events = game.apply(seat, rng.choice(game.legal_actions(seat)))
            passes += sum(type(e) is Passed for e in events)
            if game.phase is not Phase.PLAY:
                continue
            view = game.view_for(game.actors[0])
            history = view.history
            cards = [c for _, move in history if type(move) is Play for c in move.cards]
            assert tuple(cards) == view.played
            plays = [(s, move) for s, move in history if type(move) is Play]
            assert tuple(plays[len(plays) - len(view.trick) :]) == view.trick
            assert sum(move is PASS for _, move in history) == passes, preset
            rebuilt = Game.from_view(view, [game.hand_of(s) for s in range(5)])
            assert rebuilt.view_for(view.seat).history == history
            checked += 1
        assert checked > 20 and passes > 5


def test_every_seat_sees_the_same_public_view_and_only_its_own_cards() -> None:
    game = Game(find_preset("house"), ["a", "b", "c", "d"])
    rng = random.Random(3)
    while not game.finishes or game.phase is not Phase.PLAY:
        if game.phase is Phase.BETWEEN_HANDS:
            game.start_hand(rng=rng)
            continue
        seat = game.actors[0]
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    for seat in range(4):
        view = game.view_for(seat)
        assert view.public() == game.public_view()
        assert list(view.hand) == game.hand_of(seat)
        assert view == SeatView.of(game.public_view(), seat, game.hand_of(seat), view.exchange)


def test_the_public_face_of_an_event_shows_no_card_in_a_hand() -> None:
    cards = parse_cards(["2S", "AS"])
    assert public_event(Dealt(0, cards)) is None
    assert public_event(Gave(3, 0, 2, cards)) == Gave(3, 0, 2, ())
    assert public_event(Returned(0, 3, 2, cards, True)) == Returned(0, 3, 2, (), True)
    played = Played(1, cards[:1], False, False)
    assert public_event(played) is played  # played in the open


def test_titles_won_are_the_last_finishs_between_hands_and_at_the_end_of_the_game() -> None:
    """`titles` are the ones held in the hand being played (from the hand before); once a
    hand is over, `titles_won` are the ones its finish gave, so a screen at the end of the
    game names the last player the Scum even if they were the Vice-Scum in that hand."""
    from .helpers import finish_hand_random

    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    rng = random.Random(11)
    seen_over = 0
    while game.phase is not Phase.GAME_OVER:
        game.start_hand(rng=rng)
        finish_hand_random(game, rng)
        public = game.public_view()
        order = sorted(range(4), key=lambda seat: public.places[seat] or 0)
        finish = [public.seating[seat] for seat in order]
        won = public.titles_won()
        assert won[finish[0]] == "President" and won[finish[-1]] == "Scum", (finish, won)
        assert (
            won["a"] == dict(zip(finish, ["President", "Vice-President", "Vice-Scum", "Scum"]))["a"]
        )
        if public.hands_played > 1 and won != public.titles():
            seen_over += 1
    assert seen_over, "no hand changed the titles: the test shows nothing"
    # during a hand, the titles won are the titles held
    public = Game(find_preset("classic"), ["a", "b", "c", "d"]).public_view()
    assert public.titles_won() == public.titles() == {}


def test_a_leave_and_rejoin_between_hands_shows_the_score_reset() -> None:
    """Views keep the fields that change only now and then: a rejoin is one of those."""
    from .helpers import finish_hand_random

    game = Game(find_preset("classic"), ["a", "b", "c", "d"])
    rng = random.Random(5)
    game.start_hand(rng=rng)
    finish_hand_random(game, rng)
    winner = game.finishes[-1][0]
    assert dict(game.public_view().scores)[winner] > 0
    game.leave(winner)
    game.join(winner)
    assert game.scores[winner] == 0
    assert dict(game.public_view().scores)[winner] == 0


def test_a_copied_game_leaves_the_shared_tables_behind_and_plays_on_the_same() -> None:
    import copy
    import pickle

    rules = find_preset("classic").replace(decks=2)
    names = [f"p{i}" for i in range(12)]
    game = Game(rules, names)
    rng = random.Random(8)
    game.start_hand(rng=rng)
    for _ in range(30):
        seat = game.actors[0]
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    blob = pickle.dumps(game)
    assert len(blob) < 20_000, len(blob)  # the 12-seat next-seat table is 65,536 entries
    twins = [pickle.loads(blob), copy.deepcopy(game)]
    moves = 0
    while game.phase is Phase.PLAY and moves < 60:
        seat = game.actors[0]
        for twin in twins:
            assert twin.view_for(seat) == game.view_for(seat)
        action = rng.choice(game.legal_actions(seat))
        events = game.apply(seat, action)
        for twin in twins:
            assert twin.apply(seat, action) == events
        moves += 1
    assert moves == 60


def test_a_view_read_late_shows_the_moment_it_was_made() -> None:
    """`view_for` leaves most fields to be built when first read.  A view whose fields are
    read only after the game moved on (later plays, the exchange, the next deal) shows
    exactly what a view read at once showed, and what `SeatView.of` builds from the
    public view and the seat's own parts; pickling and `_replace` keep every field."""
    import pickle

    for preset in ("classic", "house", "full"):
        game = Game(find_preset(preset), ["a", "b", "c", "d"])
        rng = random.Random(3)
        kept: list[tuple[SeatView, tuple[object, ...]]] = []
        while game.phase is not Phase.GAME_OVER and len(game.finishes) < 3:
            if game.phase is Phase.BETWEEN_HANDS or game.hand < 0:
                game.start_hand(rng=rng)
                continue
            seat = game.actors[0]
            if rng.random() < 0.3:
                now = game.view_for(seat)
                eager = SeatView.of(
                    game.public_view(),
                    seat,
                    game.hand_of(seat),
                    [e for e in game.exchanges if seat in (e.giver, e.receiver)],
                    history=now.history,
                )
                assert now == eager and tuple(now) == tuple(eager), preset
                kept.append((game.view_for(seat), tuple(eager)))
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert len({view.hand_number for view, _ in kept}) >= 2
        for late, fields in kept:
            differ = [
                name for name, a, b in zip(SeatView._fields, late, fields, strict=True) if a != b
            ]
            assert not differ, (preset, differ)
        view, fields = kept[len(kept) // 2]
        assert tuple(pickle.loads(pickle.dumps(view))) == fields
        assert tuple(view._replace(seat=view.seat)) == fields
        assert hash(view) == hash(SeatView._make(fields))


def test_the_seat_marks_are_the_views_passes_locks_and_places() -> None:
    """`Game.seat_marks` gives what a view made at the same moment shows as `passed`,
    `locked` and `places`, at every step of hands with passes, locks (`passing =
    "locked"`) and seats going out."""
    for preset in ("classic", "daifugo"):
        game = Game(find_preset(preset).replace(passing="locked"), ["a", "b", "c", "d"])
        rng = random.Random(5)
        seen: set[tuple[bool, ...]] = set()
        locks: set[tuple[bool, ...]] = set()
        while len(game.finishes) < 2 and game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.BETWEEN_HANDS or game.hand < 0:
                game.start_hand(rng=rng)
            seat = game.actors[0] if game.actors else 0
            view = game.view_for(seat)
            assert game.seat_marks() == (view.passed, view.locked, view.places), preset
            seen.add(view.passed)
            locks.add(view.locked)
            if game.actors:
                game.apply(seat, rng.choice(game.legal_actions(seat)))
        assert len(seen) > 2 and len(locks) > 1, preset

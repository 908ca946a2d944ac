"""The fast `Game` against the plain one (engine/plain.py): the same game.

Random games under every preset and random toggles, played action by action on both:
the same legal actions, the same events, the same sentence for every action put to
`check` (and `apply` takes exactly what `check` accepts, on the lean paths too), the
same timeout action, the same public view and the same seat views.  A difference is a
bug in one of them: the plain game states the rules once, by asking the judge."""

from __future__ import annotations

import ast
import copy
import itertools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from president.engine import (
    CARDS,
    PASS,
    PRESETS,
    Action,
    Event,
    Game,
    HandOver,
    IllegalAction,
    Phase,
    PlainGame,
    PublicView,
    Rules,
    SeatView,
    find_preset,
    rules_from,
)
from president.engine import plain as plain_module
from president.engine.record import action_from_json, loads, replay, to_record
from president.engine.seating import shuffled_deal

from ..strategies import tables
from .test_properties import candidates


def sentence(game: Game | PlainGame, seat: int, action: Action) -> str | None:
    try:
        game.check(seat, action)
    except IllegalAction as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def same_views(game: Game, plain: PlainGame, where: str, seats: list[int]) -> None:
    fast, slow = game.public_view(), plain.public_view()
    assert fast == slow, (where, [n for n, a, b in zip(fast._fields, fast, slow) if a != b])
    for seat in seats:
        mine, truth = tuple(game.view_for(seat)), tuple(plain.view_for(seat))
        if mine != truth:
            differ = [n for n, a, b in zip(SeatView._fields, mine, truth) if a != b]
            raise AssertionError((where, seat, differ))


def probe(game: Game, plain: PlainGame, seat: int, rng: random.Random) -> None:
    """Actions legal and not, put to both games: the same sentence from `check` (and from
    the seat's own view); the fast `apply` (whose lean paths judge some plays without
    `check`) refuses exactly what `check` refuses, changing nothing, and carries out a
    legal one as the plain game does."""
    # canonical plays of every seat's rows (held by `seat` or not), for the lean path
    canonical = [play for s in range(len(game.seating)) for row in game.rows(s) for play in row]
    tried = [*candidates(game, seat, rng, limit=6), *rng.sample(canonical, min(8, len(canonical)))]
    for action in [*tried, PASS]:
        why = sentence(plain, seat, action)
        assert sentence(game, seat, action) == why, action
        if game.phase is Phase.PLAY and game.turn == seat:
            view_why = game.view_for(seat).problem(action)
            assert view_why == (None if why is None else why.split(": ", 1)[1]), action
        if why is not None:
            with pytest.raises(IllegalAction) as refused:
                game.apply(seat, action)
            assert why.endswith(str(refused.value)), (action, why)
            continue
        # (the rules and the judge are immutable: shared, not copied)
        shared = {id(game.rules): game.rules, id(plain.judge): plain.judge}
        fast, twin = copy.deepcopy(game, dict(shared)), copy.deepcopy(plain, dict(shared))
        assert fast.apply(seat, action) == twin.apply(seat, action), action
        same_views(fast, twin, f"probed {action!r}", list(range(len(fast.seating))))
    # (the refusals changed nothing)
    same_views(game, plain, "after the refusals", list(range(len(game.seating))))


def lockstep(rules: Rules, players: int, seed: int, most_hands: int = 1000) -> None:
    """A game (players coming and going between hands) played on both with the same
    choices, compared after every action; in the first hand, now and then, a probe."""
    rng, prober = random.Random(seed), random.Random(~seed)
    names = [f"P{i}" for i in range(players)]
    game, plain = Game(rules, names), PlainGame(rules, names)
    newcomer = itertools.count()
    ended: list[HandOver] = []  # each hand's end as it was told
    while game.phase is not Phase.GAME_OVER and len(game.finishes) < most_hands:
        assert len(game.finishes) < 300, "the game did not end"
        if game.finishes and rng.random() < 0.3:
            here = game.next_seating()
            name = f"N{next(newcomer)}"
            if rng.random() < 0.5 and len(here) < rules.max_players:
                game.join(name)
                plain.join(name)
            elif len(here) > 3:
                leaver = rng.choice(here)
                game.leave(leaver)
                plain.leave(leaver)
        assert game.next_seating() == plain.next_seating()
        deal = rng.random()
        if rng.random() < 0.5:
            assert game.start_hand(rng=random.Random(deal)) == plain.start_hand(
                rng=random.Random(deal)
            )
        else:  # as a server deals: the plan, then a deck it shuffled itself
            plan = game.plan_hand(random.Random(deal))
            assert plain.plan_hand(random.Random(deal)) == plan
            seating, dealer, first = plan
            ids = shuffled_deal(rules, len(seating), first, random.Random(deal))
            hands = [[str(CARDS[i]) for i in hand] for hand in ids]
            given = {"seating": seating, "dealer": dealer, "deal": hands}
            assert game.start_hand(**given) == plain.start_hand(**given)  # type: ignore[arg-type]
        same_views(game, plain, f"hand {game.hand} dealt", list(range(len(game.seating))))
        while game.phase in (Phase.PLAY, Phase.EXCHANGE):
            seat = game.actor
            assert seat is not None and seat == plain.actor and game.actors == plain.actors
            if not game.finishes and prober.random() < 0.1:
                probe(game, plain, seat, prober)
            legal = game.legal_actions(seat)
            assert legal == plain.legal_actions(seat), seat
            assert game.timeout_action(seat) == plain.timeout_action(seat)
            # what a bot's view says the timer does (its fallback for a refused action)
            assert game.view_for(seat).timeout_action() == game.timeout_action(seat)
            action = rng.choice(legal)
            where = f"hand {game.hand} after {seat}: {action!r}"
            changes, lasting = game.changes, the_rest(game)
            events = game.apply(seat, action)
            assert events == plain.apply(seat, action), where
            ended += [event for event in events if isinstance(event, HandOver)]
            assert (game.phase, game.turn) == (plain.phase, plain.turn), where
            assert game.seat_marks() == plain.seat_marks(), where
            assert game.mark_bits() == plain.mark_bits(), where
            # `changes` left as it was: nothing but the cards, pile, passes and turn moved
            assert game.changes > changes or the_rest(game) == lasting, where
            if game.actor is not None:
                assert game.rows(game.actor) == plain.rows(game.actor), where
            # the next actor's view always (the one a bot asks for), every seat's at times
            every = prober.random() < 0.2 or game.actor is None
            seats = list(range(len(game.seating))) if every else [game.actor]
            same_views(game, plain, where, seats)  # type: ignore[arg-type]
        assert game.finishes == plain.finishes and game.scores == plain.scores
        assert game.hands_over() == plain.hands_over() == ended  # what came in late is told
        assert [game.place_of(s) for s in range(len(game.seating))] == plain.places
    assert game.winners == plain.winners
    # the same record (the deals, seatings and actions of every hand)
    assert to_record(plain) == to_record(game)  # type: ignore[arg-type]


def the_rest(game: Game) -> tuple[object, ...]:
    """What a game's `changes` answers for: all but the cards, the pile, the passes
    and the turn."""
    return (
        game.phase,
        game.revolution,
        game.jack_back,
        game.backwards,
        game.opening,
        game.due,
        game.lock,
        game.seat_marks()[2],
        dict(game.pending_returns),
        tuple(game.seating),
        game.hand,
    )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_fast_and_plain_play_the_same_hands_under_each_preset(preset: str) -> None:
    """Each preset's first two hands (a first lead, then an exchange), at a table size
    drawn from its name: the same game action by action (whole games: the slow tier)."""
    players = 4 + len(preset) % 3
    lockstep(find_preset(preset), players, seed=len(preset), most_hands=2)


#: Each example plays two hands under a preset with random toggles: 0.1-0.3 s an example;
#: the slow tier plays 5 whole games (HYPOTHESIS_PROFILE=thorough: 300).
@settings(
    max_examples=max(3, settings.default.max_examples // 8),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tables(most_players=6))
def test_fast_and_plain_play_the_same_hands_under_random_toggles(
    table: tuple[Rules, int, int],
) -> None:
    lockstep(*table, most_hands=2)


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_fast_and_plain_play_the_same_whole_game_under_each_preset(preset: str) -> None:
    players = 4 + len(preset) % 3
    lockstep(find_preset(preset).replace(target=3, rounds=2), players, seed=len(preset))


@pytest.mark.slow
@settings(
    max_examples=max(1, settings.default.max_examples // 5),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tables(most_players=7))
def test_fast_and_plain_play_the_same_whole_games_under_random_toggles(
    table: tuple[Rules, int, int],
) -> None:
    lockstep(*table)


@pytest.mark.slow  # (a whole game at six, every toggle that turns or owes: a second)
def test_fast_and_plain_when_the_direction_turns_and_dues_are_owed() -> None:
    """nine_reverse, queen_reverse and king_reverse under daifugo (skips, hand-overs and
    every view go the way of play), with scaled_exchange, emperor, four_stop, salvage,
    kings_march, zombie and queen_bomber (dues of the cards played, bombs)."""
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
    lockstep(rules, 6, seed=9)


def test_the_plain_game_refuses_what_the_game_refuses_between_hands() -> None:
    """Between hands and after the game: the same refusals, in the same words."""
    names = ["a", "b", "c", "d"]
    game, plain = Game(find_preset("classic"), names), PlainGame(find_preset("classic"), names)
    assert sentence(game, 0, PASS) == sentence(plain, 0, PASS) is not None
    for twin in (game, plain):
        with pytest.raises(IllegalAction, match="chosen at random"):
            twin.start_hand()
        with pytest.raises(IllegalAction, match="already at the table"):
            twin.join("a")
    assert game.start_hand(rng=random.Random(1)) == plain.start_hand(rng=random.Random(1))
    for twin in (game, plain):
        with pytest.raises(IllegalAction, match="only between hands"):
            twin.join("e")
    assert [sentence(game, s, PASS) for s in range(4)] == [
        sentence(plain, s, PASS) for s in range(4)
    ]


def test_anything_but_an_action_is_refused_in_words() -> None:
    """A value that is no action (a bot's typo, a string, None) is an illegal action, in
    the exchange and in play, with a sentence: never a TypeError (the compiled build,
    where actions are native classes, included: tests/test_compiled_build.py)."""
    names = ["a", "b", "c", "d"]
    rules = find_preset("classic")
    game, plain = Game(rules, names), PlainGame(rules, names)
    for hand in range(2):  # (the second hand opens with the exchange)
        for twin in (game, plain):
            twin.start_hand(rng=random.Random(hand))
        assert game.phase is (Phase.EXCHANGE if hand else Phase.PLAY)
        seat = next(iter(game.pending_returns)) if hand else game.turn
        for junk in ("pass", None, 3, ("3C",), PASS.__class__):
            said = sentence(game, seat, junk)  # type: ignore[arg-type]
            assert said == f"IllegalAction: {junk!r} is not an action"
            assert sentence(plain, seat, junk) == said  # type: ignore[arg-type]
            for twin in (game, plain):
                with pytest.raises(IllegalAction, match="is not an action"):
                    twin.apply(seat, junk)
            assert game.view_for(seat).problem(junk) == said.split(": ", 1)[1]
        while game.phase is not Phase.BETWEEN_HANDS:
            actor = game.actor
            assert actor is not None
            action = game.legal_actions(actor)[0]
            assert game.apply(actor, action) == plain.apply(actor, action)


RECORDS = sorted(
    path
    for path in (Path(__file__).parent / "records").glob("*.json")
    if not path.name.endswith(".expected.json")
)


@pytest.mark.slow  # (50 whole games, a second or two in all)
@pytest.mark.parametrize("path", RECORDS, ids=lambda path: path.stem)
def test_the_records_play_alike(path: Path) -> None:
    """Every whole-game record the engine's tests keep (one or more per toggle), replayed
    by `Game` and played again on a plain game: the same events at every step, the same
    public view after it."""
    document = loads(path.read_text())
    steps: list[tuple[list[Event], PublicView]] = []
    replayed = replay(
        document, lambda game, h, n, events: steps.append((events, game.public_view()))
    )
    assert replayed.fault is None
    rules = rules_from(document.get("rules", "classic"))
    players = document["players"]
    plain: PlainGame | None = None
    made: list[tuple[list[Event], PublicView]] = []
    for hand in document["hands"]:
        seating = hand.get("seating", players if plain is None else None)
        if plain is None:
            plain = PlainGame(rules, seating)
        elif seating is not None:  # leavers leave, newcomers join (in the players' order)
            here = plain.next_seating()
            for name in here:
                if name not in seating:
                    plain.leave(name)
            for name in players:
                if name in seating and name not in here:
                    plain.join(name)
        deal = plain.start_hand(seating=seating, dealer=hand["dealer"], deal=hand["deal"])
        made.append((deal, plain.public_view()))
        for step in hand.get("actions", []):
            seat, action = action_from_json(step)
            made.append((plain.apply(seat, action), plain.public_view()))
    assert len(made) == len(steps)
    for number, (mine, truth) in enumerate(zip(made, steps)):
        assert mine == truth, (path.stem, number)


def test_no_module_of_the_fast_game_imports_the_plain_one() -> None:
    """The plain game stands beside the fast one, never under it: only the package's
    __init__ (which exports it) imports engine/plain.py."""
    engine = Path(plain_module.__file__).parent
    importers = []
    for path in sorted(engine.glob("*.py")):
        if path.name in ("__init__.py", "plain.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (
                node.module == "plain" or any(alias.name == "plain" for alias in node.names)
            ):
                importers.append(path.name)
    assert importers == []

"""The search's playouts run on the engine's `Game`: their policy (`game_policy`, with
its shortcuts) chooses what the heuristic chooses; and the search variants stay legal."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from president.bots.heuristic import (
    heuristic_choice,
    pay_due,
    rank_counts,
    view_facts,
)
from president.bots.playout import counted_policy
from president.bots.search import policy
from president.bots.simple import HeuristicBot
from president.engine import (
    PASS,
    VARIANTS,
    Action,
    Card,
    Game,
    Phase,
    Play,
    Rules,
    SeatView,
    find_preset,
)

from ..strategies import TOGGLE_VALUES, tables

#: Tables where suits do not matter (no variant): the policy's plain shortcuts (a lead
#: read off the rows, the cheapest whole answer) play there.
PLAIN_TABLES = st.tuples(
    st.sampled_from([find_preset(name) for name in ("classic", "house", "table", "full")]),
    st.fixed_dictionaries(
        {}, optional={k: v for k, v in TOGGLE_VALUES.items() if k not in VARIANTS}
    ),
    st.integers(3, 6),
    st.integers(),
)


def shape(action: Action) -> tuple[int, int, int] | None:
    """What a move is, whichever object stands for it: (rank, count, jokers); None: pass."""
    if action is PASS or action == PASS:
        return None
    return (action.rank, action.count, action.jokers)  # type: ignore[union-attr]


def a_moment(rules: Rules, players: int, seed: int, steps: int) -> Game | None:
    """A game played at random for a while, stopped in a hand in play (None if the game
    ended first)."""
    rng = random.Random(seed)
    game = Game(rules, [f"p{i}" for i in range(players)])
    done = 0
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.BETWEEN_HANDS:
            game.start_hand(rng=rng)
        seat = game.actor
        assert seat is not None
        if game.phase is Phase.PLAY and done >= steps:
            return game
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        done += 1
    return None


def heuristic_without_counting(game: Game, seat: int) -> Action:
    """The heuristic bot's choice from the seat's view, the cards not counted (as in a
    playout: `Facts.unseen` None), and a must-answer pass turned into the first play."""
    view = game.view_for(seat)
    actions = view.legal_actions()
    if len(actions) == 1:
        return actions[0]
    if view.due is not None:  # (as the bot pays it: a zombie's take goes to the next seat)
        giving = view.due.kind == "zombie"
        return pay_due(
            actions, view.hand, rank_counts(view.rows), view.reversed, view.rules, giving
        )
    plays = [a for a in actions if isinstance(a, Play)]
    can_pass = PASS in actions
    action = heuristic_choice(view_facts(view, count=False), plays, can_pass)
    return plays[0] if action is PASS and not can_pass else action


@settings(max_examples=6, deadline=None)
@given(
    st.one_of(
        st.tuples(st.just(find_preset("daifugo")), st.integers(3, 6), st.integers()), tables()
    ),
    st.integers(0, 40),
)
def test_the_playout_policy_on_a_game_is_the_heuristic(
    table: tuple[Rules, int, int], steps: int
) -> None:
    """`game_policy`'s shortcuts (the plain lead and follow, the variants' follow) choose
    what the heuristic itself chooses, at every move to the end of a hand."""
    rules, players, seed = table
    policy_is_the_heuristic(rules, players, seed, steps)


@settings(max_examples=10, deadline=None)
@given(PLAIN_TABLES, st.integers(0, 40))
def test_the_plain_playout_policy_is_the_heuristic(
    table: tuple[Rules, dict[str, object], int, int], steps: int
) -> None:
    """The same where suits do not matter (what the compact playout state, retired, used
    to play): jokers, bombs, clearing ranks, skips, revolutions, locked passing..."""
    base, toggles, players, seed = table
    try:
        rules = base.replace(**toggles)
    except ValueError:
        return
    policy_is_the_heuristic(rules, min(players, rules.max_players), seed, steps)


@settings(max_examples=10, deadline=None)
@given(
    st.one_of(
        st.tuples(
            st.sampled_from([find_preset("daifugo"), find_preset("classic")]),
            st.integers(3, 6),
            st.integers(),
        ),
        tables(),
    ),
    st.integers(0, 40),
)
def test_the_counting_playout_policy_is_the_heuristic_bot(
    table: tuple[Rules, int, int], steps: int
) -> None:
    """`counted_policy` (the cards counted from the others' hands in the world) chooses
    what a heuristic bot chooses from the seat's view (the cards counted from those out),
    at every move to the end of a hand."""
    rules, players, seed = table
    game = a_moment(rules, players, seed, steps)
    if game is None:
        return
    bot = HeuristicBot()
    for _ in range(40):
        turn = game.turn
        if turn is None or game.phase is not Phase.PLAY:
            break
        action = counted_policy(game, turn)
        assert action == bot.choose(game.view_for(turn))
        game.apply(turn, action)


def policy_is_the_heuristic(rules: Rules, players: int, seed: int, steps: int) -> None:
    game = a_moment(rules, players, seed, steps)
    if game is None:
        return
    for _ in range(40):  # (to the end of the hand, or 40 moves)
        turn = game.turn
        if turn is None or game.phase is not Phase.PLAY:
            break
        action = policy(game, turn)
        assert action == heuristic_without_counting(game, turn)
        game.apply(turn, action)


def test_ismcts_takes_a_sure_win_the_prior_would_miss() -> None:
    """33 or the 2 first goes out first whatever the three lone cards are; the 3 alone
    lets any of them out first.  The search is handed the 3 as its prior."""
    from president.bots.ismcts import ismcts
    from president.bots.search import SearchBot, deal_unseen

    from .test_strategies import view_with

    view = view_with("3C 3D 2S", counts=(3, 1, 1, 1))
    actions = view.legal_actions()
    three = next(a for a in actions if shape(a) == (0, 1, 0))
    wins = [a for a in actions if shape(a) in ((0, 2, 0), (12, 1, 0))]
    for seed in range(3):
        rng = random.Random(seed)
        assert ismcts(view, actions, three, deal_unseen, rng, 200, None, 0.5) in wins
    bot = SearchBot(random.Random(1), playouts=200, method="ismcts", endgame_cards=0)
    assert bot.choose(view) in wins


@settings(max_examples=12, deadline=None)
@given(tables(most_players=6), st.sampled_from(["race", "flat", "ismcts", "tree"]))
def test_the_search_stays_legal_under_random_toggles(
    table: tuple[Rules, int, int], method: str
) -> None:
    from president.bots.sim import play_game

    rules, players, seed = table
    line_up = ["search"] + ["heuristic", "greedy"] * players
    options: dict[str, object] = {"playouts": 6, "method": method}
    if method == "tree":  # the race with a tree of my own later moves, under any rules
        options.update(method="race", tree_depth=2)
    game, _, _ = play_game(rules, line_up[:players], seed, 0, True, options)
    assert game.phase is Phase.GAME_OVER  # every action was legal: `apply` checks each


def test_the_search_deals_its_worlds_through_its_sampler() -> None:
    """Every world comes from `sample(view, rng)`, the one place a belief plugs in."""
    from president.bots.search import SearchBot, deal_unseen

    from .test_strategies import view_with

    asked: list[int] = []

    def sample(view: SeatView, rng: random.Random) -> list[list[Card]]:
        asked.append(view.seat)
        return deal_unseen(view, rng)

    view = view_with("3C 5D 7S 9C JD KH 2S")
    bot = SearchBot(random.Random(1), playouts=40, sampler=sample)
    assert bot.choose(view) in view.legal_actions()
    assert asked and set(asked) == {0}


def test_the_hard_bot_reads_the_table_and_travels_to_a_worker() -> None:
    """`search` (the hard level) deals its worlds from the belief, and survives the
    pickling that sends a server's bot to its thinking process."""
    import pickle

    from president.bots.search import Believed, SearchBot
    from president.bots.strategies import make_strategy

    from .test_strategies import view_with

    bot = make_strategy("hard", random.Random(3), playouts=16)
    assert isinstance(bot, SearchBot) and isinstance(bot.sample, Believed)
    view = view_with("3C 5D 7S 9C JD KH 2S", counts=(7, 15, 15, 15))
    assert bot.choose(view) in view.legal_actions()
    again = pickle.loads(pickle.dumps(bot))
    assert again.choose(view) in view.legal_actions()


def test_the_race_takes_the_sure_win_and_stops_early() -> None:
    """The same table as above: the race keeps a winning action, and once the others
    fall behind on every world it stops, far inside its budget of 200 playouts."""
    from president.bots.search import RACE_MIN, SearchBot, deal_unseen

    from .test_strategies import view_with

    view = view_with("3C 3D 2S", counts=(3, 1, 1, 1))
    actions = view.legal_actions()
    three = next(a for a in actions if shape(a) == (0, 1, 0))
    wins = [a for a in actions if shape(a) in ((0, 2, 0), (12, 1, 0))]
    dealt = []

    def sample(view: SeatView, rng: random.Random) -> list[list[Card]]:
        dealt.append(1)
        return deal_unseen(view, rng)

    bot = SearchBot(random.Random(1), playouts=200, method="race", sampler=sample)
    assert bot._race(view, actions, three) in wins
    # the 3 alone falls out after RACE_MIN worlds; the two wins, level on every world,
    # part after RACE_SAME at the latest (a few worlds of 4 actions, not 50)
    assert RACE_MIN <= len(dealt) <= 12


def counting(dealt: list[int], **options: Any) -> Any:
    """A search bot of 400 playouts whose worlds are counted in `dealt` as it deals them."""
    from president.bots.search import SearchBot, deal_unseen

    def sample(view: SeatView, rng: random.Random) -> list[list[Card]]:
        dealt.append(1)
        return deal_unseen(view, rng)

    return SearchBot(random.Random(1), playouts=400, sampler=sample, **options)


@pytest.mark.parametrize("method", ["race", "flat", "ismcts"])
def test_a_limit_ends_the_thinking_after_one_round_whatever_the_budget(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`SearchBot.limit` (what a crowded server sets) stops a decision by the clock on
    top of its playout budget: at 0 s, one round of its candidates, where its budget of
    400 playouts deals many more worlds; back to None, the budget again.  (Under
    `LEAST_THINK`, set to 0 here, it does not search at all: the next test.)"""
    from president.bots import search
    from president.bots.search import SearchBot

    from .test_strategies import view_with

    monkeypatch.setattr(search, "LEAST_THINK", 0.0)
    view = view_with("3C 5D 7S 9C JD KH 2S", counts=(7, 15, 15, 15))
    dealt: list[int] = []
    bot = counting(dealt, method=method)
    bot.limit = 0.0
    assert bot.choose(view) in view.legal_actions()
    # (ISMCTS tries each candidate once first, a world each; the race and the bandit
    # try them all in the first world)
    actions = view.legal_actions()
    prior = bot.fallback.choose(view)
    tried = len(bot.candidates(view, actions, prior))
    assert len(dealt) == (tried if method == "ismcts" else 1)
    limited = len(dealt)
    dealt.clear()
    bot.limit = None
    bot.choose(view)
    assert len(dealt) > 5 * limited
    if method != "ismcts":
        # stopped before the race could drop anything, the heuristic's choice: one world
        # alone picks otherwise for 5 of these 10 generators
        for seed in range(10):
            limited_bot = SearchBot(random.Random(seed), playouts=400, method=method)
            limited_bot.limit = 0.0
            assert limited_bot.choose(view) == prior


@pytest.mark.parametrize("method", ["race", "flat", "ismcts"])
def test_a_limit_too_short_for_a_search_is_the_heuristics_choice(method: str) -> None:
    from president.bots.search import LEAST_THINK

    from .test_strategies import view_with

    view = view_with("3C 5D 7S 9C JD KH 2S", counts=(7, 15, 15, 15))
    dealt: list[int] = []
    bot = counting(dealt, method=method)
    bot.limit = LEAST_THINK / 2
    assert bot.choose(view) == bot.fallback.choose(view)
    assert not dealt


def test_a_limit_ends_the_endgame_solver_after_one_world() -> None:

    from .test_strategies import view_with

    view = view_with("3C 9C 2S", counts=(3, 1, 1, 1))
    dealt: list[int] = []
    bot = counting(dealt)
    bot.limit = 0.0
    assert bot.choose(view) in view.legal_actions()
    assert len(dealt) == 1
    dealt.clear()
    bot.limit = None
    bot.choose(view)
    assert len(dealt) == 400 // len(view.legal_actions()) // 4

"""The search's tree of its own later moves (`bots.own_moves`): it chooses from what the
searching seat sees and nothing else, tries the heuristic's choice first, widens a node
as its visits grow, and at depth 0 is the heuristic's own playout."""

from __future__ import annotations

import math
import random

import pytest
from president.bots.ismcts import Key, key_of
from president.bots.own_moves import WIDEN, Tree, own_candidates, tree_playout
from president.bots.playout import game_playout, game_policy, make_world
from president.bots.search import SearchBot, deal_unseen
from president.engine import PASS, Game, Play, SeatView, find_preset

from .test_playout import a_moment
from .test_strategies import view_with

DAIFUGO = find_preset("daifugo")


def moments(count: int) -> list[tuple[SeatView, Game]]:
    """Seats to move in daifugo hands in play (no due owed), with the true game."""
    found = []
    for seed in range(200):
        game = a_moment(DAIFUGO, 4, seed, 5 + seed % 30)
        if game is None or game.due is not None or game.turn is None:
            continue
        found.append((game.view_for(game.turn), game))
        if len(found) == count:
            break
    return found


def test_a_seats_candidates_in_a_world_are_what_it_sees() -> None:
    """However the others' cards are dealt, the tree's moves at the seat's decision are
    the same: nothing it keys or chooses on comes from a hand it cannot see."""
    for view, _ in moments(12):
        lists = []
        for k in range(4):
            world = make_world(view, deal_unseen(view, random.Random(k)))
            me = view.seat
            lists.append(own_candidates(world.game, me, game_policy(world.game, me)))
        assert all(moves == lists[0] for moves in lists)
        assert lists[0][0] == game_policy(world.game, me)  # the heuristic's choice first
        assert set(lists[0]) <= set(view.legal_actions())


def test_one_move_to_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 3S the heuristic chose and a 3C the shortlist names are one move of the tree
    (`key_of` is a set's shape): two would be counted twice as available at a visit, and
    the later one would win every comparison (seen under spade_three with two decks)."""
    from president.bots import own_moves

    _, game = moments(1)[0]
    three_spades, three_clubs = Play.parse("3S"), Play.parse("3C")
    monkeypatch.setattr(own_moves, "shortlist", lambda *_: [three_clubs, PASS])
    assert own_candidates(game, 0, three_spades) == [three_spades, PASS]
    node: dict[Key, list[float]] = {}
    for _ in range(12):
        move = own_moves._choose(node, [three_spades, PASS], 0.3, 0.5)
        node[key_of(move)][0] += 1
        node[key_of(move)][1] += 0.5
    assert all(stats[2] >= stats[0] for stats in node.values())


def test_at_depth_0_the_tree_is_the_heuristics_playout() -> None:
    for view, game in moments(8):
        world = make_world(view, [game.hand_of(s) for s in range(4)])
        tree: Tree = {}
        mine = tree_playout(world.copy().game, view.seat, tree, 0)
        assert mine == game_playout(world.copy().game, view.seat)
        assert tree == {}


def heuristic_line(game: Game, me: int, depth: int) -> list[object]:
    """My first `depth` decisions with a choice when the heuristic plays every seat."""
    keys: list[object] = []
    while game.place_of(me) is None and len(keys) < depth:
        seat = game.turn
        assert seat is not None
        move = game_policy(game, seat)
        if seat == me and game.due is None and len(own_candidates(game, me, move)) > 1:
            keys.append(key_of(move))
        game.apply(seat, move, checked=False)
    return keys


def test_the_first_playout_tries_the_heuristics_choices() -> None:
    for view, game in moments(8):
        world = make_world(view, [game.hand_of(s) for s in range(4)])
        tree: Tree = {}
        tree_playout(world.copy().game, view.seat, tree, 2)
        line = heuristic_line(world.copy().game, view.seat, 2)
        assert {path: list(node) for path, node in tree.items()} == {
            tuple(line[:i]): [line[i]] for i in range(len(line))
        }


def test_a_node_widens_as_its_visits_grow() -> None:
    """In one world the seat's first decision is the same every playout: after 100, its
    node has tried 1 + WIDEN * sqrt(99) moves (or all it has), 100 times in all, each
    counted as available at least as often as it was chosen."""
    checked = 0
    for view, game in moments(10):
        world = make_world(view, [game.hand_of(s) for s in range(4)])
        tree: Tree = {}
        for _ in range(100):
            tree_playout(world.copy().game, view.seat, tree, 1)
        if () not in tree:
            continue  # (no decision with a choice before the hand ended for the seat)
        node = tree[()]
        probe = world.copy().game
        me = view.seat
        while probe.turn != me or probe.due is not None:
            probe.apply(probe.turn, game_policy(probe, probe.turn), checked=False)  # type: ignore[arg-type]
        moves = own_candidates(probe, me, game_policy(probe, me))
        assert len(node) == min(len(moves), 1 + int(WIDEN * math.sqrt(99)))
        assert sum(stats[0] for stats in node.values()) == 100
        assert all(stats[2] >= stats[0] for stats in node.values())
        checked += 1
    assert checked >= 5


def test_the_tree_is_the_default_where_suits_matter() -> None:
    classic = view_with("3C 5D 7S 9C JD KH 2S")
    daifugo = moments(1)[0][0]
    bot = SearchBot(random.Random(1), playouts=24)
    bot.choose(daifugo)
    assert bot._depth == 2
    bot.choose(classic)
    assert bot._depth == 0
    again = SearchBot(random.Random(1), playouts=24, tree_depth=0)
    again.choose(daifugo)
    assert again._depth == 0


def test_the_race_with_a_tree_takes_the_sure_win() -> None:
    """33 or the 2 first goes out first whatever the three lone cards are (as in
    tests/bots/test_playout.py), with the tree playing my later moves."""
    view = view_with("3C 3D 2S", counts=(3, 1, 1, 1))
    actions = view.legal_actions()
    three = next(a for a in actions if key_of(a) == (0, 1, 0))
    wins = [a for a in actions if key_of(a) in ((0, 2, 0), (12, 1, 0))]
    bot = SearchBot(random.Random(1), playouts=200, tree_depth=2, endgame_cards=0)
    bot._depth = 2
    assert bot._race(view, actions, three) in wins

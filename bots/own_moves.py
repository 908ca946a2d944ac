"""The search's own later moves (issue 25).  A playout of the race plays every seat by
the heuristic; here the searching seat's next few decisions in it are a small tree of
its own: each root candidate has one, keyed by the seat's own moves since the root and
nothing else (the others' moves in between are not part of the key: what the tree
learns is what the seat itself could choose, never what the world shows it), its moves
the search's own kind of candidates in that world with the heuristic's choice first,
tried one more as a node's visits grow (progressive widening) and chosen by UCB1 counted
against how often each could have been chosen (availability: a move legal in one world
may not be in the next).  So a candidate is scored by what the seat's best later moves
make of it (as far as its playouts learn them), not by what the heuristic's would.

Under `daifugo` against 3 heuristic bots (`scripts/pair_bots.py --games 400 --preset
daifugo --bots search,heuristic,heuristic,heuristic --a '{"tree_depth": 0}' --b '{}'`,
seeds 2 to 5): -0.091, -0.034, -0.064 and -0.080 of a place, each +- 0.06 (docs/bots.md)."""

from __future__ import annotations

import math

from president.engine import PASS, Action, Game, Play

from .heuristic import Facts, power
from .ismcts import Key, key_of
from .playout import counted_policy, game_facts, game_policy

#: A move at a node: [times chosen, their results' total, times it could have been].
Stats = list[float]
#: A root candidate's tree: by the seat's own moves since the root, each node's moves.
Tree = dict[tuple[Key, ...], dict[Key, Stats]]

#: UCB1's exploration at a node (results in [0, 1]).
EXPLORATION = 0.3
#: A node with n visits tries its first 1 + WIDEN * sqrt(n) moves.
WIDEN = 0.5


def shortlist(facts: Facts, actions: list[Action], following: bool) -> list[Action]:
    """The actions worth a playout, from what a seat sees (`facts`: its own hand, the
    trick, the counts): sets kept whole (jokers alone or not at all), a lead's four
    lowest and two highest (the low sets to shed, the high ones that take the lead
    back), a follow's three cheapest, its cheapest broken one and the pass."""
    order = facts.order
    plays = [a for a in actions if type(a) is Play]
    whole = [p for p in plays if facts.whole(p)]
    ordered = sorted(whole, key=lambda p: power(p, order))
    if not following:
        return [*ordered[:4], *ordered[4:][-2:]]
    broken = sorted((p for p in plays if p not in whole), key=lambda p: (power(p, order), p.jokers))
    chosen: list[Action] = [*ordered[:3], *broken[:1]]
    if PASS in actions:
        chosen.append(PASS)
    return chosen


def own_candidates(game: Game, seat: int, prior: Action) -> list[Action]:
    """The search's candidates (`shortlist`) in a world, the heuristic's choice `prior`
    first, one move to a key (`key_of`: a set by its shape, so a 3S the heuristic
    breaks a pair for and the shortlist's cheapest broken 3C are one move of the tree)."""
    more = shortlist(game_facts(game, seat), game.legal_actions(seat), game.top is not None)
    chosen, keys = [prior], {key_of(prior)}
    for action in more:
        key = key_of(action)
        if key not in keys:
            chosen.append(action)
            keys.add(key)
    return chosen


def tree_playout(
    game: Game,
    me: int,
    tree: Tree,
    depth: int,
    counting: bool = False,
    exploration: float = EXPLORATION,
    widen: float = WIDEN,
) -> float:
    """Play the hand out from `game` (the root candidate made), my next `depth`
    decisions with a choice by `tree`, every other move (the others', my dues and my
    later decisions) by the heuristic (`counting`: the one that counts the cards); my
    result in [0, 1] (1 = first), credited to the tree's moves on the way."""
    players = len(game.seating)
    policy = counted_policy if counting else game_policy
    apply, place_of = game.apply, game.place_of
    history: tuple[Key, ...] = ()
    path: list[Stats] = []
    place = place_of(me)
    while place is None:
        seat: int = game.turn  # type: ignore[assignment]
        if seat != me or game.due is not None or len(history) >= depth:
            apply(seat, policy(game, seat), checked=False)
        else:
            prior = policy(game, seat)
            moves = own_candidates(game, seat, prior)
            if len(moves) == 1:
                apply(seat, prior, checked=False)
            else:
                node = tree.get(history)
                if node is None:
                    node = tree[history] = {}
                move = _choose(node, moves, exploration, widen)
                key = key_of(move)
                path.append(node[key])
                history = (*history, key)
                apply(seat, move, checked=False)
        place = place_of(me)
    result = 1.0 - place / (players - 1)
    for stats in path:
        stats[0] += 1
        stats[1] += result
    return result


def _choose(
    node: dict[Key, Stats], moves: list[Action], exploration: float, widen: float
) -> Action:
    """The first move of the allowed ones never tried here, or the best by UCB1 with
    availability; every allowed move already in the node counts one more availability."""
    tried = sum(stats[0] for stats in node.values())
    allowed = moves[: 1 + int(widen * math.sqrt(tried))]
    keys = [key_of(move) for move in allowed]
    fresh = next((i for i, key in enumerate(keys) if key not in node), None)
    best, pick = -1.0, 0
    for i, key in enumerate(keys):
        stats = node.get(key)
        if stats is None:
            continue
        stats[2] += 1
        if fresh is None:
            score = stats[1] / stats[0] + exploration * math.sqrt(math.log(stats[2]) / stats[0])
            if score > best:
                best, pick = score, i
    if fresh is not None:
        node[keys[fresh]] = [0.0, 0.0, 1.0]
        pick = fresh
    return allowed[pick]

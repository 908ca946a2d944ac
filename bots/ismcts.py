"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012): one tree
over the searching seat's information set.  Each iteration deals a fresh world from the
sampler, walks down the tree choosing among the moves legal in that world (UCB1 with
availability counts: a move is scored against how often it could have been chosen),
adds one node, plays the hand out with the heuristic, and credits every node on the way
with the place of the seat that moved into it."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from president.engine import PASS, Action, Bomb, Card, Play, SeatView

from .limits import until
from .playout import Move, make_world

Key = tuple[int, ...]
#: The pass, as a move's key.
PASS_KEY: Key = (-1, 0, 0)


def key_of(move: Action) -> Key:
    """A move by its shape, whichever object stands for it (the engine's or the world's);
    a sequence, and a card paid for a due (the variants), by its cards."""
    if move is PASS or move == PASS:
        return PASS_KEY
    if type(move) is Bomb:  # (a rank named: queen_bomber)
        return (-4, move.rank)
    if type(move) is not Play:
        return (-2, *move.ids)  # type: ignore[union-attr]
    if move.rank < 0:
        return (-3, *move.ids)
    return (move.rank, move.count, move.jokers)


class Node:
    """A move in the tree: how often it was tried, could have been, and the mover's
    total result over its tries."""

    __slots__ = ("available", "children", "total", "visits")

    def __init__(self) -> None:
        #: By (seat, *move key): the seat to move is part of it, as forced moves are
        #: not nodes and different worlds may hand the turn on differently.
        self.children: dict[tuple[int, ...], Node] = {}
        self.visits = 0
        self.available = 1
        self.total = 0.0


def ismcts(
    view: SeatView,
    candidates: Sequence[Action],
    prior: Action,
    sample: Callable[[SeatView, random.Random], list[list[Card]]],
    rng: random.Random,
    iterations: int,
    seconds: float | None,
    exploration: float,
    limit: float | None = None,
) -> Action:
    """The candidate the search tried most, after `iterations` (or `seconds`), or once
    `limit` seconds are up whichever budget it has (`SearchBot.limit`)."""
    players = len(view.counts)
    at_root: dict[tuple[int, ...], Action] = {(view.seat, *key_of(a)): a for a in candidates}
    root = Node()
    budget = iterations if not seconds else 1 << 30
    deadline = until(seconds, limit)
    done = 0
    while done < budget:
        if deadline is not None and done >= len(candidates) and time.perf_counter() > deadline:
            break
        done += 1
        world = make_world(view, sample(view, rng))
        path: list[tuple[Node, int]] = []
        node = root
        expanded = False
        while not world.finished():
            seat = world.turn
            moves: list[Move] | list[Action]
            if node is root:
                moves = list(candidates)
            else:
                moves = world.actions(seat)
            if len(moves) == 1:
                world.apply(seat, moves[0])
                continue
            untried = [m for m in moves if (seat, *key_of(m)) not in node.children]
            if untried:
                policy = world.policy(seat) if node is not root else prior
                pick = next((m for m in untried if key_of(m) == key_of(policy)), None)
                move = pick if pick is not None else rng.choice(untried)
                for m in moves:
                    child = node.children.get((seat, *key_of(m)))
                    if child is not None:
                        child.available += 1
                child = node.children[(seat, *key_of(move))] = Node()
                world.apply(seat, move)
                path.append((child, seat))
                expanded = True
                break
            log_avail = 0.0
            best_score, best_move, best_child = -1.0, moves[0], root
            for m in moves:
                child = node.children[(seat, *key_of(m))]
                child.available += 1
                log_avail = math.log(child.available)
                score = child.total / child.visits + exploration * math.sqrt(
                    log_avail / child.visits
                )
                if score > best_score:
                    best_score, best_move, best_child = score, m, child
            world.apply(seat, best_move)
            path.append((best_child, seat))
            node = best_child
        if expanded:
            while not world.finished():
                seat = world.turn
                world.apply(seat, world.policy(seat))
        for child, seat in path:
            child.visits += 1
            child.total += 1.0 - (world.place(seat) or 0) / (players - 1)
    best = max(root.children.items(), key=lambda item: (item[1].visits, item[1].total))
    return at_root[best[0]]

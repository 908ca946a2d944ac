"""The greedy, heuristic and hoarder bots: the advice of `bots/heuristic.py` as
strategies (`choose(view) -> action`).  Kept apart from that module, which the compiled
build compiles, and left interpreted as `bots/strategies.py` is, so that a bot may
subclass them (compiled there, a bot of `class Mine(HeuristicBot)` could not be made:
"interpreted classes cannot inherit from compiled"; tests/test_compiled_build.py)."""

from __future__ import annotations

from president.engine import PASS, Action, Phase, Play, Return, SeatView

from .heuristic import (
    ORDER,
    cheapest_return,
    greedy_choice,
    heuristic_choice,
    lowest_payment,
    pay_due,
    power,
    rank_counts,
    view_facts,
)


class GreedyBot:
    """The lowest play that beats; lead the lowest rank with all its copies."""

    def choose(self, view: SeatView) -> Action:
        actions = view.legal_actions()
        if view.phase is Phase.EXCHANGE:
            return cheapest_return(
                [a for a in actions if isinstance(a, Return)],
                rank_counts(view.rows),
                view.revolution,
            )
        if view.due is not None:
            return lowest_payment(actions, view.reversed)
        return greedy_choice([a for a in actions if isinstance(a, Play)], view.top, view.reversed)


class HeuristicBot:
    """Seeds 000 and 004's advice (`bots/heuristic.py`'s docstring)."""

    hoard = False

    def choose(self, view: SeatView) -> Action:
        actions = view.legal_actions()
        rows = view.rows
        if view.phase is Phase.EXCHANGE:
            return cheapest_return(
                [a for a in actions if isinstance(a, Return)], rank_counts(rows), view.revolution
            )
        if view.due is not None:
            giving = view.due.kind == "zombie"
            return pay_due(actions, view.hand, rank_counts(rows), view.reversed, view.rules, giving)
        plays = [a for a in actions if isinstance(a, Play)]
        can_pass = PASS in actions
        action = heuristic_choice(view_facts(view, rows), plays, can_pass, self.hoard)
        if action is PASS and not can_pass:
            return min(plays, key=lambda p: power(p, ORDER[view.reversed]))
        return action


class HoarderBot(HeuristicBot):
    """Seed 004's bot that will not play a 2 while it holds anything else."""

    hoard = True

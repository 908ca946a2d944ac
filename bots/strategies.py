"""Bot strategies: each is a pure `choose(view) -> action` over the engine's per-seat
view, so the same object plays offline in `president sim` and online at a table."""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable
from typing import Any, Protocol

from president.engine import Action, Game, SeatView


class Strategy(Protocol):
    """A bot: given what its seat can see, the action to take (a play, a pass, or the
    exchange return when its seat owes one)."""

    def choose(self, view: SeatView) -> Action: ...


class RandomBot:
    """Uniform among the distinct legal actions: one per play shape (a rank and a count;
    which suits go is not a choice), plus pass when passing is legal."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView) -> Action:
        return self.rng.choice(view.legal_actions())


def _random(rng: random.Random, **options: Any) -> Strategy:
    return RandomBot(rng)


def _greedy(rng: random.Random, **options: Any) -> Strategy:
    from .simple import GreedyBot

    return GreedyBot()


def _heuristic(rng: random.Random, **options: Any) -> Strategy:
    from .simple import HeuristicBot

    return HeuristicBot()


def _hoarder(rng: random.Random, **options: Any) -> Strategy:
    from .simple import HoarderBot

    return HoarderBot()


def _search(rng: random.Random, **options: Any) -> Strategy:
    from .search import Believed, SearchBot

    # sampler="belief" (the default): worlds weighed by what the table has shown
    # (bots/belief.py, one Believer per seat carried through the hand); "uniform": the
    # unseen cards dealt by counts (search.deal_unseen)
    sampler = options.pop("sampler", "belief")
    if sampler == "belief":
        from .belief import Believer

        options["sampler"] = Believed(Believer().belief)
    elif sampler != "uniform":
        options["sampler"] = sampler
    return SearchBot(rng, **options)


#: Strategy name -> factory(rng, **options); options (e.g. the search budget) that a
#: strategy has no use for are ignored.
STRATEGIES: dict[str, Callable[..., Strategy]] = {
    "random": _random,
    "greedy": _greedy,
    "heuristic": _heuristic,
    "hoarder": _hoarder,
    "search": _search,
}
#: The strategies this package makes (the others a script registered: `sdk.register`).
BUILT_IN: frozenset[str] = frozenset(STRATEGIES)


#: The levels a player picks opponents by (`--bots easy|normal|hard`): each is a strategy.
LEVELS: dict[str, str] = {"easy": "greedy", "normal": "heuristic", "hard": "search"}


def described(strategy: str) -> str:
    """A strategy as a player picks it: "normal (heuristic)" for a level's, else its name."""
    level = next((name for name, bot in LEVELS.items() if bot == strategy), None)
    return f"{level} ({strategy})" if level else strategy


def strategy_name(name: str) -> str:
    """The strategy `name` means: a strategy's name or a level's, in any case;
    `ValueError` naming the choices if it is neither."""
    wanted = name.strip().lower()
    wanted = LEVELS.get(wanted, wanted)
    if wanted not in STRATEGIES:
        close = difflib.get_close_matches(wanted, [*LEVELS, *STRATEGIES], n=1)
        raise ValueError(
            f"there is no bot strategy {name!r}"
            + (f" (did you mean {close[0]}?)" if close else "")
            + f": choose one of {', '.join(LEVELS)} or {', '.join(STRATEGIES)}"
            # (a tinkerer named the bot their script registers: only the script knows it)
            + (
                "; a bot of your own plays through its script (python mybot.py sim ...,"
                " docs/bots.md)"
                if not close
                else ""
            )
        )
    return wanted


class BotMistake(ValueError):
    """A bot's choice in a run went wrong (it raised, or the rules refuse it): said with
    the bot, the game (the run's seed and the game's number, as `--record` names its
    file) and the hand, so that it can be played again.  (Here, not in the simulator: a
    module the compiled build leaves alone, so that it crosses to and from worker
    processes as any exception does.)"""

    @classmethod
    def of(cls, game: Game, seat: int, seed: int, number: int, what: str) -> BotMistake:
        where = f"{game.seating[seat]} (seed {seed}, game {number}, hand {game.hand + 1})"
        if what.startswith("Traceback"):
            return cls(f"{where}: its strategy failed:\n{what.rstrip()}")
        return cls(f"{where}: {what}")


class WorkerLost(RuntimeError):
    """A worker process of a run ended in the middle of its games (killed, out of memory,
    a crash, a bot that ended its own process): its games are lost, so the run stops.
    (Here for `BotMistake`'s reason.)"""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run of the simulator, with the result of its first games
    (`result.games` of `asked`, a `sim.SimResult`): still a `KeyboardInterrupt` to
    whoever does not look.  (Here for `BotMistake`'s reason, and because a compiled
    class may not inherit from it.)"""

    def __init__(self, result: Any, asked: int) -> None:
        super().__init__()
        self.result = result
        self.asked = asked


def strategy_problem(name: str) -> str | None:
    """Why `name` is not a strategy or a level (naming the choices), or None if it is one."""
    try:
        strategy_name(name)
    except ValueError as exc:
        return str(exc)
    return None


def make_strategy(name: str, rng: random.Random, **options: Any) -> Strategy:
    made: Strategy = STRATEGIES[strategy_name(name)](rng, **options)
    if not callable(getattr(made, "choose", None)):  # (a script's factory: `sdk.register`)
        raise ValueError(f"the bot strategy {name!r} made {made!r}, which has no choose(view)")
    return made

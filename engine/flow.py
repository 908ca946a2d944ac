"""The parts of a hand's course that `Game` (engine/state.py) and `PlainGame`
(engine/plain.py) share, stated once: the refusals of an action out of turn or out of
phase, which of a play's dues is owed next, the end of a hand, and the timeout rule
(docs/rules.md, "Networked play: the timeout rule").  Both
games put their own state into these functions; neither writes the sentences or the
rule out again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NoReturn

from . import tricks
from .actions import (
    DUE_ACTIONS,
    PASS,
    TAKES,
    Action,
    Bomb,
    Discard,
    Due,
    Handover,
    Pass,
    Play,
    Return,
    Take,
)
from .cards import JOKER_RANK, SEVEN, SIX, THREE, Card
from .errors import IllegalAction, NotYourTurn
from .events import Event, GameOver, HandOver
from .moves import strength
from .phase import Phase
from .rules import Rules
from .scoring import game_result, hand_points
from .seating import lowest_first


def is_omen(play: Play) -> bool:
    """omen: a set of three or more 6s; its revolution, if it makes one, is the hand's
    last."""
    return play.rank == SIX and play.count >= 3


def lucky_sevens(play: Play) -> bool:
    """lucky_seven: three or more 7s that nobody answered win their player the hand at
    once (the trick's last play, by its winner)."""
    return play.rank == SEVEN and play.count >= 3


def salvaging(play: Play) -> bool:
    """salvage: a trick that a play holding a 3 ended lets its player take back a card
    played (the trick's last play, by its winner)."""
    return any(card.rank == THREE for card in play.cards)


def falling(standing: Sequence[str] | None, seating: Sequence[str], first: int) -> int | None:
    """capital_fall: when `first` takes the top place, the President of the last hand
    (`standing[0]`) falls to the lowest free place if it still holds cards: its seat, or
    None if there is no such President here or it is `first`."""
    if not standing or standing[0] not in seating:
        return None
    president = list(seating).index(standing[0])
    return None if president == first else president


def check_between_hands(phase: Phase, what: str) -> None:
    """Players join, leave or deal only between hands (`what`: "join", "leave", "deal")."""
    if phase is Phase.GAME_OVER:
        raise IllegalAction("the game is over")
    if phase is not Phase.BETWEEN_HANDS:
        raise IllegalAction(
            f"players {what} only between hands"
            if what != "deal"
            else "the hand in progress is not over"
        )


def no_hand_in_play(phase: Phase) -> NoReturn:
    """The refusal of any action when no hand is in play (`phase` neither the exchange
    nor play)."""
    if phase is Phase.GAME_OVER:
        raise IllegalAction("the game is over")
    raise IllegalAction("the hand is over: the next hand has not been dealt")


def not_a_return(action: object) -> str:
    """Why `action`, not a return, may not be taken in the exchange, in a sentence."""
    if type(action) in (Play, Pass, Handover, Discard, Take, Bomb):
        return "the exchange comes first: nobody plays until the returns are made"
    return f"{action!r} is not an action"


def not_returning(seating: Sequence[str], returning: Iterable[int]) -> NoReturn:
    """The refusal of a return by a seat that owes none."""
    names = " and ".join(seating[s] for s in returning)
    raise IllegalAction(f"only {names} make a return in this exchange")


def not_your_turn(
    seat: int,
    seating: Sequence[str],
    turn: int | None,
    *,
    out: bool,
    fell: bool,
    locked: bool,
    once: bool,
) -> NoReturn:
    """Why `seat` may not act now when it is not its turn: no such seat, out of the
    hand, fallen (capital_fall), sitting out the trick (passing = "locked", or
    one_time_around), or simply someone else's turn."""
    if not 0 <= seat < len(seating):
        raise IllegalAction(f"there is no seat {seat}")
    if out:
        raise NotYourTurn("you are out of this hand")
    if fell:
        raise NotYourTurn("you fell (capital_fall): you are out of this hand")
    if locked:
        if once:
            raise NotYourTurn(
                "you have had your turn in this trick: it goes round once (one_time_around)"
            )
        raise NotYourTurn("you passed, so you sit out until the trick clears (passing = 'locked')")
    raise NotYourTurn(f"it is not your turn: seat {turn} ({seating[turn or 0]}) is to play")


def timeout_action(
    rules: Rules,
    seat: int,
    hand: Sequence[Card],
    return_size: int | None,
    due: Due | None,
    actions: Sequence[Action],
    leading: bool,
    reversed_: bool,
) -> Action:
    """What the table does for a seat whose time ran out: return the lowest cards
    (`return_size`: what it owes in the exchange, None if nothing); pay a due with the
    lowest card held, or of those it may take (a bomb: the rank of the lowest card held,
    the 3s if it holds only jokers); pass when it may (`actions`: its legal actions);
    else the cheapest play, in the order in force (leading: the fewest cards first)."""
    if return_size is not None:
        return Return(sorted(hand, key=lowest_first)[:return_size])
    if due is not None:
        cheapest = min(due.cards or hand, key=lowest_first)
        if due.kind == "bomb":
            return Bomb(cheapest.rank if cheapest.rank < JOKER_RANK else 0)
        return DUE_ACTIONS[due.kind]((cheapest,))  # type: ignore[arg-type]
    if not actions:
        raise IllegalAction(f"seat {seat} has nothing to do now")
    if PASS in actions:
        return PASS

    def lowest(play: Play) -> int:
        run = tricks.run_of(rules, play) if play.rank < 0 else None
        return strength(play.rank if run is None else run[1 if reversed_ else 0], reversed_)

    return min(
        (a for a in actions if isinstance(a, Play)),
        key=lambda p: (p.count if leading else 0, lowest(p), p.jokers, p.count),
    )


def next_due(
    dues: list[tuple[str, int]], held: int, pool: Callable[[], tuple[Card, ...]]
) -> Due | None:
    """The next of a play's `dues` that is owed, taken from the list: as many cards as it
    asks, or as many as there are (in the hand: `held`; for a take, among `pool()`, the
    cards it may take); None when none is left."""
    while dues:
        kind, wanted = dues.pop(0)
        if kind in TAKES:
            cards = pool()
            if wanted and cards:
                return Due(kind, min(wanted, len(cards)), cards)  # type: ignore[arg-type]
            continue
        size = wanted if kind == "bomb" else min(wanted, held)
        if size:
            return Due(kind, size)  # type: ignore[arg-type]
    return None


def finish_hand(
    rules: Rules,
    hand: int,
    seating: Sequence[str],
    finish: list[str],
    points: Sequence[int],
    scores: dict[str, int],
    finishes: list[list[str]],
) -> tuple[list[Event], list[str] | None]:
    """Every seat has its place (`finish`, first to last): each player's `points` by
    place added to `scores`, the finish kept in `finishes`.  The hand's events, and the
    game's winners if it is over (None if it goes on)."""
    for name, gain in zip(finish, points):
        scores[name] += gain
    finishes.append(finish)
    events: list[Event] = [hand_over(hand, finish, points)]
    over, winners = game_result(rules, scores, seating, len(finishes), finish)
    if not over:
        return events, None
    events.append(GameOver(tuple(winners)))
    return events, winners


def hand_over(hand: int, finish: Sequence[str], points: Sequence[int]) -> HandOver:
    """A hand's end: names by place, each with the points its place gained."""
    return HandOver(hand, tuple(finish), tuple(zip(finish, points)))


def hands_over(rules: Rules, finishes: Sequence[Sequence[str]]) -> list[HandOver]:
    """Every ended hand of a game as its `HandOver` said it, from the finishes kept (a
    hand's points are its places' under `rules`): what a table tells someone who comes
    in after those hands."""
    return [
        hand_over(hand, finish, hand_points(rules, len(finish)))
        for hand, finish in enumerate(finishes)
    ]

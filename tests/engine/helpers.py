"""Building fixed deals and scenarios for engine tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from president.engine import PASS, Action, Game, Phase, Play, Return, Rules, deck, parse_cards
from president.engine.moves import strength


def full_deal(rules: Rules, players: int, start: int, given: Mapping[int, str]) -> list[list[str]]:
    """A whole-deck deal in which seat s holds the cards `given[s]` (space separated);
    the rest of the deck fills the other places, lowest cards first, seat by seat."""
    size, extra = divmod(rules.deck_size, players)
    want = [size + (1 if (seat - start) % players < extra else 0) for seat in range(players)]
    rest = [str(c) for c in deck(rules.decks, rules.jokers)]
    hands: list[list[str]] = [[] for _ in range(players)]
    for seat, cards in given.items():
        for card in cards.split():
            card = str(parse_cards([card])[0])
            rest.remove(card)
            hands[seat].append(card)
    for seat in range(players):
        while len(hands[seat]) < want[seat]:
            hands[seat].append(rest.pop(0))
        assert len(hands[seat]) == want[seat], f"seat {seat} was given too many cards"
    return hands


def game_with(
    rules: Rules,
    given: Mapping[int, str],
    players: int = 4,
    dealer: int = 3,
    names: Sequence[str] | None = None,
) -> Game:
    """Hand 1 of a game, dealt as `full_deal` says, the deal starting left of `dealer`."""
    game = Game(rules, list(names or "ABCDEFGHIJKL"[:players]))
    start = (dealer + 1) % players
    game.start_hand(dealer=dealer, deal=full_deal(rules, players, start, given))
    return game


def play(game: Game, *steps: str) -> list[object]:
    """Apply steps written like "0 6C 6D", "1 pass", "2 return 3C": seat first."""
    events: list[object] = []
    for step in steps:
        seat_text, _, rest = step.partition(" ")
        seat = int(seat_text)
        action: Action
        if rest == "pass":
            action = PASS
        elif rest.startswith("return "):
            action = Return(parse_cards(rest[7:]))
        else:
            action = Play(parse_cards(rest))
        events += game.apply(seat, action)
    return events


def acting_seat(game: Game) -> int:
    seat = game.actor
    assert seat is not None
    return seat


def finish_hand_low(game: Game) -> None:
    """Play the current hand out: every seat plays its lowest legal play, or passes
    when it can (deterministic, and quick)."""
    while game.phase in (Phase.PLAY, Phase.EXCHANGE):
        seat = acting_seat(game)
        actions = game.legal_actions(seat)
        plays = [a for a in actions if isinstance(a, Play)]
        if game.phase is Phase.EXCHANGE:
            game.apply(seat, actions[0])
        elif game.top is None or PASS not in actions:
            game.apply(
                seat, min(plays, key=lambda p: (strength(p.rank, game.revolution), -p.count))
            )
        else:
            game.apply(seat, PASS)


def finish_hand_random(game: Game, rng: random.Random) -> None:
    while game.phase in (Phase.PLAY, Phase.EXCHANGE):
        seat = acting_seat(game)
        game.apply(seat, rng.choice(game.legal_actions(seat)))

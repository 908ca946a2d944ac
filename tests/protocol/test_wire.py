"""The engine <-> wire mapping round-trips every kind of value through real msgpack
bytes, for random games under every preset and random toggles: events (their public
face), the public view, actions, and each seat's sealed private part; and what a client
rebuilds from them is exactly `Game.view_for`."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from president.engine import (
    PASS,
    Bomb,
    Bombed,
    Dealt,
    Discard,
    Discarded,
    Due,
    Event,
    Fell,
    Game,
    Gave,
    HandedOver,
    Handover,
    Passed,
    Phase,
    Play,
    Played,
    PublicView,
    Return,
    Returned,
    SeatView,
    Take,
    Took,
    Top,
    find_preset,
    moves_seen,
    parse_cards,
    public_event,
)
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.codec import pack, unpack
from president.protocol.errors import RemoteProtocolError

from ..strategies import tables
from ..views import a_public_view


def through_bytes(message: m.Message) -> Any:
    """What the peer decodes from the bytes of `message`."""
    return m.Message.from_wire(unpack(pack(message.to_wire())))


def check_public(game: Game, preset: str) -> PublicView:
    public = game.public_view()
    rules = wire.rules_from_wire(wire.rules_to_wire(preset, game.rules))
    view = m.TableView(
        table="T",
        number=1,
        status="playing",
        rules=wire.rules_to_wire(preset, game.rules),
        chairs=tuple(m.Chair(n, "", True, True) for n in game.seating),
        turn_deadline_ms=0,
        game=wire.public_view_to_wire(public),
    )
    again = through_bytes(view)
    assert again == view
    back = wire.public_view_from_wire(again.game, rules)
    assert back == public, [f for f in PublicView._fields if getattr(back, f) != getattr(public, f)]
    return back


def check_events(events: list[Event], seen_online: list[Event] | None = None) -> int:
    """Each event through the wire and back as its public face; the faces are added to
    `seen_online` (what a client keeps)."""
    seen = 0
    for number, event in enumerate(events, 1):
        message = wire.event_to_wire("T", number, event)
        if isinstance(event, Dealt):
            assert message is None  # a deal is nobody else's business
            continue
        assert message is not None
        back = wire.event_from_wire(through_bytes(message))
        assert back == public_event(event)
        if seen_online is not None:
            seen_online.append(back)
        if isinstance(event, (Gave, Returned)):
            assert "cards" not in message.to_wire() and public_event(event).cards == ()  # type: ignore[union-attr]
        seen += 1
    return seen


# (a whole game an example, each step through the wire: half the profile's examples, 12
# of the suite's 25, 750 under HYPOTHESIS_PROFILE=thorough)
@settings(max_examples=max(1, settings.default.max_examples // 2))
@given(tables())
def test_every_event_view_action_and_hand_round_trips_and_rebuilds_view_for(
    table: tuple[Any, int, int],
) -> None:
    rules, players, seed = table
    preset = "classic"
    rng = random.Random(seed)
    game = Game(rules, [f"P{i}" for i in range(players)])
    events = 0
    steps = 0
    online: list[Event] = []  # the public events as a client receives them
    while game.phase is not Phase.GAME_OVER and steps < 400:
        if game.phase is Phase.BETWEEN_HANDS:
            events += check_events(game.start_hand(rng=rng), online)
            continue
        public = check_public(game, preset)
        first_hands = game.hand < 2
        history = moves_seen(online, public.hand_number) if first_hands else []
        for seat in range(players) if first_hands else ():  # every seat, in the first hands
            truth = game.view_for(seat)
            assert truth.public() == game.public_view()
            data = wire.private_to_bytes(game.hand_of(seat), truth.exchange)
            hand, exchange = wire.private_from_bytes(data)
            assert SeatView.of(public, seat, hand, exchange, history=history) == truth
        seat = game.actors[0]
        action = rng.choice(game.legal_actions(seat))
        assert wire.action_from_wire(through_bytes(wire.action_to_wire(action))) == action
        events += check_events(game.apply(seat, action), online)
        steps += 1
    check_public(game, preset)
    assert events > 0


def test_actions_round_trip() -> None:
    for action in (PASS, Play(parse_cards(["7C", "7D"])), Return(parse_cards(["3C"]))):
        assert wire.action_from_wire(through_bytes(wire.action_to_wire(action))) == action


PLAIN = wire.public_view_to_wire(a_public_view(("a", "b", "c")))


@pytest.mark.parametrize(
    "game",
    [
        dataclasses.replace(PLAIN, counts=(1, 2)),  # a count missing
        dataclasses.replace(PLAIN, turn=7),  # a seat beyond the seating
        dataclasses.replace(PLAIN, played=("ZZ",)),  # not a card
    ],
)
def test_a_game_view_the_engine_cannot_take_is_a_bad_message(game: m.GameView) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        wire.public_view_from_wire(game, wire.rules_from_wire({"preset": "classic"}))
    assert info.value.code == "bad_message"


def test_rules_that_are_not_rules_are_a_bad_message() -> None:
    with pytest.raises(RemoteProtocolError):
        wire.rules_from_wire({"preset": "classic", "decks": 3})
    with pytest.raises(RemoteProtocolError):
        wire.rules_from_wire({"preset": "poker"})


def test_why_the_timeout_rule_moved_rides_on_the_moves_own_message() -> None:
    """The engine's events do not know the turn timer: the server says why it moved for
    a seat, the message carries it, and the engine's event read back is the same."""
    cases = [
        (Passed(2, False), m.Passed("T", 5, 2, False, "time")),
        (Played(1, tuple(parse_cards("3C")), False, False), None),
        (Returned(0, 3, 1, tuple(parse_cards("4D")), False), None),
    ]
    for event, expected in cases:
        message = wire.event_to_wire("T", 5, event, "away")
        assert message is not None and through_bytes(message) == message
        assert message.timeout == "away"  # type: ignore[attr-defined]
        assert wire.event_from_wire(message) == public_event(event)
        plain = wire.event_to_wire("T", 5, event)
        assert plain is not None and plain.timeout == ""  # type: ignore[attr-defined]
        if expected is not None:
            assert wire.event_to_wire("T", 5, event, "time") == expected


def test_the_variant_actions_events_and_view_round_trip() -> None:
    """Issue 16's values: the two dues' actions, the hand-over (its cards never on the
    wire), the discard (face up), the fall, and a view with a sequence on the pile, a
    lock, jack back and a due owed; a sequence of all 13 ranks fits a play."""
    cards = tuple(parse_cards("7C 9D"))
    for action in (Handover(cards), Discard(cards[:1]), Take(cards[:1]), Bomb(4)):
        assert wire.action_from_wire(through_bytes(wire.action_to_wire(action))) == action
    for event in (
        HandedOver(0, 1, 2, cards),
        Discarded(1, cards[:1]),
        Fell(2, 3),
        Took(1, 1, cards[:1]),  # (salvage: a card of the cards played, face up)
        Bombed(2, 4),  # (queen_bomber: the 7s named)
    ):
        message = wire.event_to_wire("T", 7, event, "time")
        assert message is not None and through_bytes(message) == message
        assert wire.event_from_wire(message) == public_event(event)
        if not isinstance(event, Fell):  # (a `bombed` has its timeout too)
            assert message.timeout == "time"  # type: ignore[attr-defined]
    handed = wire.event_to_wire("T", 7, HandedOver(0, 1, 2, cards))
    assert handed is not None
    assert "cards" not in handed.to_wire()
    assert b"7C" not in pack(handed.to_wire()) and b"9D" not in pack(handed.to_wire())
    run = Play(parse_cards("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2H"))
    assert wire.action_from_wire(through_bytes(wire.action_to_wire(run))) == run
    played = Played(2, run.cards, False, True)
    message = wire.event_to_wire("T", 8, played)
    assert message is not None and wire.event_from_wire(through_bytes(message)) == played
    daifugo = find_preset("daifugo")
    seating = ("a", "b", "c", "d")
    jokered = Play(parse_cards("5S JK 7S"))
    for top, due in (
        (Top(1, 2, 3, 1, True, (3, 3)), Due("handover", 1)),
        (Top(1, 2, 3, 1, True, (3, 3)), Due("discard", 2)),
        (Top(1, 2, 3, 1, True, (3, 3)), Due("salvage", 1, cards[:1])),
        (Top(0, 7, 1, 0, False, (3,)), None),
    ):
        public = a_public_view(
            seating,
            rules=daifugo,
            top=top,
            trick=((1, jokered),),
            played=jokered.cards,
            turn=1,
            jack_back=True,
            lock=(3, 3),
            due=due,
        )
        wired = wire.public_view_to_wire(public)
        chairs = tuple(m.Chair(name, "", True, True) for name in seating)
        view = m.TableView("T", 1, "playing", {"preset": "daifugo"}, chairs, 0, wired)
        again = m.Message.from_wire(unpack(pack(view.to_wire())))
        assert isinstance(again, m.TableView) and again.game is not None
        assert wire.public_view_from_wire(again.game, daifugo) == public

"""A table that hits a fault never stops silently: a hand that cannot be sealed to its
seat's key leaves that seat away and the others play; an exception in the game's driver
is logged once, told to everyone at the table, and the game goes on, or ends with its
record when the fault keeps coming.  Deal checks for hands never dealt are dropped."""

from __future__ import annotations

import logging
import random

import pytest
from president.bots import strategies
from president.engine import JOKER, Phase, Play, find_preset
from president.protocol import messages as m
from president.protocol.errors import Code
from president.server import seats

from ..harness.waiting import wait_for
from .test_table import Member, all_ready, game_of, play_until, seated, table


class BadKeyMember(Member):
    """A member whose hand key is a low-order point (what the hello check now refuses)."""

    @property
    def hand_key(self) -> bytes:
        return bytes(32)


def server_errors(member: Member) -> list[m.Error]:
    return [x for x in member.of(m.Error) if isinstance(x, m.Error) and x.code == Code.SERVER_ERROR]


async def test_a_hand_that_cannot_be_sealed_leaves_that_seat_away_and_the_others_play() -> None:
    t, _ = table(seats=3, grace_seconds=0.2)  # no turn timer: an away seat waits the grace
    eve = BadKeyMember("eve")
    await t.join(eve, None, None)
    bob, cat = await seated(t, "bob", "cat")
    await all_ready(t, [eve, bob, cat])  # the hand is dealt and comes to the play
    game = game_of(t)
    for member in (bob, cat):  # the broadcast went on past eve
        assert list(member.cards()) == game.hand_of(game.seating.index(member.name))
    assert not eve.of(m.SealedHand)
    assert "cannot be sealed" in server_errors(eve)[0].message
    assert t.away(game.seating.index("eve"))
    # eve's seat is away like a dropped player's: once its time is up the timeout rule
    # plays for it and the game goes on past it
    seen = [False]

    def past_eve() -> bool:
        on_eve = game.actor == game.seating.index("eve")
        seen[0] = seen[0] or on_eve
        return seen[0] and not on_eve

    await play_until(t, [bob, cat], past_eve)


async def test_a_fault_in_the_driver_is_logged_once_told_and_the_game_goes_on(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    deal, faults = t.deal, [0]

    def deal_once_failing() -> None:
        if not faults[0]:
            faults[0] += 1
            raise RuntimeError("a planted fault")
        deal()

    monkeypatch.setattr(t, "deal", deal_once_failing)
    with caplog.at_level(logging.ERROR, logger="president.server"):
        for member in members:
            await t.ready(member, True)
        await wait_for(lambda: game_of(t).phase is Phase.PLAY)
    assert t.status == "playing" and faults == [1]
    for member in [*members, watcher]:
        assert [e.message for e in server_errors(member)] == [
            "the server hit a fault at this table; the game goes on"
        ]
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 1 and "a planted fault" in caplog.text


async def test_a_fault_that_keeps_coming_ends_the_game_with_its_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t, records = table(seats=3)
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    deal = t.deal

    def deal_then_fail() -> None:  # the first hand deals; every later deal fails
        if game_of(t).hand >= 0:
            raise RuntimeError("a planted fault")
        deal()

    monkeypatch.setattr(t, "deal", deal_then_fail)
    for strategy in ("random", "greedy", "random"):
        await t.add_bot(strategy, None)
    await wait_for(lambda: t.status != "playing", 30)
    assert t.status == "waiting" and len(records) == 1  # what was played is kept
    said = [e.message for e in server_errors(watcher)]
    assert len(said) == 3 and "the game ends here" in said[-1]
    assert t.driver._task is None or t.driver._task.done()


async def test_deal_checks_for_hands_never_dealt_here_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    t, _ = table(seats=3)
    members = await seated(t, "ann", "bob", "cat")
    await all_ready(t, members)
    with caplog.at_level(logging.WARNING, logger="president.server"):
        for hand in range(1000):
            await t.deal_check(members[0], 10**6 + hand, False)
        await t.deal_check(members[0], 0, False)  # the hand dealt: kept, said once
        await t.deal_check(members[0], 0, False)
    assert list(t.deal_checks) == [0] and t.deal_checks[0] == {"ann": False}
    assert len(caplog.records) == 1 and "hand 0" in caplog.records[0].getMessage()


class _Refused:
    """A strategy that always plays a joker (there are none: always refused)."""

    def choose(self, view: object) -> object:
        return Play([JOKER])


class _Failing:
    """A strategy that fails on every choice."""

    def choose(self, view: object) -> object:
        raise ValueError("min() arg is an empty sequence")


@pytest.mark.parametrize("broken", [_Refused, _Failing])
async def test_a_bot_whose_choice_is_refused_or_fails_is_played_for_and_the_game_ends(
    broken: type, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A strategy that answers what the rules refuse (asking it again gives the same
    answer) or raises gets the timeout rule's move: the table neither spins on it nor
    ends its game for a fault."""
    made = strategies.make_strategy

    def make(name: str, rng: random.Random, **options: object) -> object:
        return broken() if name == "greedy" else made(name, rng, **options)

    monkeypatch.setattr(seats, "make_strategy", make)
    t, records = table(seats=3, rules=find_preset("classic").replace(target=2))
    watcher = Member("watcher")
    await t.spectate(watcher, None)
    with caplog.at_level(logging.WARNING, logger="president.server"):
        for strategy in ("random", "greedy", "random"):
            await t.add_bot(strategy, None)
        await wait_for(lambda: bool(records), 30)
    assert records[0]["hands"] and not server_errors(watcher)
    assert "the timeout rule moves for it" in caplog.text

"""Password checks under a crowd (issue 26): scrypt turns are taken by address, so a crowd
of checks from a few addresses puts a newcomer behind at most one check each; the right
password again costs nothing; and wrong guesses spread over many addresses share one
budget, and first tries from new addresses another, neither holding a key that gave the
right password before."""

from __future__ import annotations

import asyncio
import threading

import pytest
from president.server import config
from president.server.config import hash_password, password_checks
from president.server.guard import PasswordGuard


async def test_a_newcomer_waits_for_one_check_per_address_not_for_the_crowd(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order: list[str] = []
    gate = threading.Event()

    def matches(stored: str, given: str | None) -> bool:
        gate.wait(30)  # the crowd's checks all queue while the first one runs
        order.append(given or "")
        return False

    monkeypatch.setattr(config, "password_matches", matches)
    stored = hash_password("sesame")
    crowd = [
        asyncio.create_task(password_checks(stored, f"guess {a}-{k}", f"10.6.6.{a}"))
        for a in range(8)
        for k in range(32)
    ]
    await asyncio.sleep(0)
    friend = asyncio.create_task(password_checks(stored, "friend", "10.0.0.7"))
    for _ in range(20):
        await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(*crowd, friend)
    assert len(order) == 8 * 32 + 1
    # ahead of the friend: the check running, then one waiting per crowd address
    assert order.index("friend") <= 8
    # (one lock per address while it has checks: none left behind)
    assert not config._ADDRESS_TURNS


async def test_the_right_password_again_costs_no_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str | None] = []
    real = config.password_matches

    def counted(stored: str, given: str | None) -> bool:
        calls.append(given)
        return real(stored, given)

    monkeypatch.setattr(config, "password_matches", counted)
    stored = hash_password("sesame")
    assert [await password_checks(stored, "sesame", "10.0.0.1") for _ in range(20)] == [True] * 20
    assert calls == ["sesame"]
    assert not await password_checks(stored, "sesame!", "10.0.0.1")  # a wrong one is checked
    assert calls == ["sesame", "sesame!"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_wrong_guesses_from_many_addresses_share_one_budget() -> None:
    """An address a guess (a hostile pass checked a 4-digit table password in 25 s so,
    each new address's first try free): first tries from new addresses share a budget of
    their own, and the addresses that guessed wrong share another."""
    clock = Clock()
    guard = PasswordGuard(1.0, 60.0, 3600.0, clock, shared_per_minute=12, new_per_minute=30)
    addresses = [f"10.6.{i // 250}.{i % 250}" for i in range(100)]
    first = [guard.refusal(address, "table") for address in addresses]
    assert sum(r is None for r in first) == 30  # the first tries' budget, not 100
    assert all(
        r is None or r.startswith("too many password tries from new addresses") for r in first
    )
    for address, refused in zip(addresses, first):
        if refused is None:
            guard.wrong(address, "table")
    # a new address (a friend, or the next guesser) waits with them, for this kind only
    assert (guard.refusal("10.0.0.7", "table") or "").startswith("too many password tries")
    assert guard.refusal("10.0.0.7", "server") is None
    clock.now += 1.5  # every address's own wait (1 s) is over
    again = [guard.refusal(address, "table") for address in addresses[:30]]
    assert sum(r is None for r in again) == 12  # the shared budget, not 30
    assert all(
        r is None or r.startswith("too many wrong passwords from many addresses") for r in again
    )
    clock.now += 61  # a minute on: both budgets are back
    assert guard.refusal(addresses[50], "table") is None
    assert guard.refusal("10.0.0.7", "table") is None
    assert guard.refusal(addresses[29], "table") is None


def test_a_key_that_gave_the_right_password_before_is_not_held_by_the_shared_budget() -> None:
    """A friend who mistyped once while others guess from many addresses: its key (proven
    at hello) is not locked out with the guessers, nor held by its address's wait (an
    address may be shared: every local user's loopback); a key never let in, or none,
    is."""
    clock = Clock()
    guard = PasswordGuard(1.0, 60.0, 3600.0, clock, shared_per_minute=12)
    friend, key = "10.0.0.7", b"k" * 32
    guard.welcome("server", key)  # last week, the right password
    guard.wrong(friend, "server")  # today, a typo
    for i in range(100):
        address = f"10.6.0.{i}"
        guard.refusal(address, "server")
        guard.wrong(address, "server")
    clock.now += 1.5
    for i in range(12):  # the guessers use up the minute's shared checks
        assert guard.refusal(f"10.6.0.{i}", "server") is None
    assert guard.refusal(friend, "server", key) is None
    for who in (None, b"x" * 32):
        refused = guard.refusal(friend, "server", who)
        assert refused is not None and "from many addresses" in refused
    guard.wrong(friend, "server")  # another typo: its address waits, its key does not
    assert (guard.refusal(friend, "server", None) or "").startswith("too many wrong passwords: ")
    assert (guard.refusal(friend, "server", b"x" * 32) or "").startswith("too many wrong")
    assert guard.refusal(friend, "server", key) is None  # (it knows the password already)


def test_a_check_found_right_gives_its_place_back() -> None:
    """At hello as at a table: a right password is no guess, so the place its check
    took in a budget is given back (`spare`); a wrong one keeps it."""
    clock = Clock()
    guard = PasswordGuard(1.0, 60.0, 3600.0, clock, shared_per_minute=12, new_per_minute=3)
    for i in range(10):  # ten newcomers with the right password
        assert guard.refusal(f"10.5.0.{i}", "server") is None
        guard.spare(f"10.5.0.{i}", "server")
    for i in range(3):  # three guessers take the minute's first tries
        assert guard.refusal(f"10.6.0.{i}", "server") is None
        guard.wrong(f"10.6.0.{i}", "server")
        guard.spare(f"10.6.0.{i}", "server")  # (too late: found wrong, its place is kept)
    assert (guard.refusal("10.5.1.1", "server") or "").startswith("too many password tries")


def test_a_seated_key_skips_the_budgets_not_its_addresss_wait() -> None:
    """A key seated in a game at the server (its password given before a restart) is not
    held by the budgets many addresses share; its own address's wrong guesses hold it."""
    clock = Clock()
    guard = PasswordGuard(1.0, 60.0, 3600.0, clock, shared_per_minute=12, new_per_minute=3)
    for i in range(3):  # guessers take the minute's first tries
        assert guard.refusal(f"10.6.0.{i}", "server") is None
        guard.wrong(f"10.6.0.{i}", "server")
    assert (guard.refusal("10.0.0.7", "server", b"k" * 32) or "").startswith("too many password")
    assert guard.refusal("10.0.0.7", "server", b"k" * 32, seated=lambda: True) is None
    guard.wrong("10.0.0.7", "server")
    assert (guard.refusal("10.0.0.7", "server", b"k" * 32, lambda: True) or "").startswith(
        "too many wrong passwords: try again in"
    )

"""Who makes room at the connection cap (server/admission.py), on made-up connections:
the flood's own waiting connections first, an idle spectator as an idle lobby connection,
then the address holding the most (its lobby, spectators, then seats): a crowd cannot
hold the server, seated or not; and the reserve places a player comes back on."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from president.server.admission import (
    CHURN,
    HOUSEHOLD,
    RESERVE,
    RESERVE_EACH,
    RESERVE_YOUNG,
    STAY,
    YOUNG,
    Admitted,
    reserve_open,
    reserve_victim,
    to_evict,
)


@dataclass
class Visitor:
    welcomed: bool = True
    #: Its hello (and key's proof) came.
    answered: bool = False
    greeted: bool = False
    last_active: float = 0.0
    table: Any = None
    watching: bool = False
    #: At a table whose game is under way.
    playing: bool = False


def admitted(address: str, since: float, session: Visitor | None = None) -> Admitted:
    return Admitted(address, since, session=session)


def test_a_waiting_newcomer_is_not_pushed_out_by_a_flood_from_elsewhere() -> None:
    now = 100.0
    newcomer = admitted("10.0.0.7", now - YOUNG / 2)  # still in its handshake
    flood = [admitted("10.0.0.66", now - 0.1 * i) for i in range(3)]
    seated = [admitted(f"10.0.1.{i}", 0.0, Visitor(table="T")) for i in range(5)]
    everyone = [newcomer, *flood, *seated]
    # the flood's next connection pushes out the flood's own oldest
    assert to_evict(everyone, "10.0.0.66", now, 30.0) is flood[-1]
    # a connection from a third address takes a flood connection, never the newcomer
    assert to_evict(everyone, "10.0.0.9", now, 30.0) in flood
    # with the flood gone, the lone newcomer is safe from elsewhere while it is young
    assert to_evict([newcomer, *seated], "10.0.0.9", now, 30.0) is None


def test_players_of_a_fair_share_stay_but_idle_watchers_and_lobby_hogs_go() -> None:
    now = 100.0
    players = [admitted(f"10.0.0.1{i}", 0.0, Visitor(table="T")) for i in range(4)]
    watcher = admitted("10.0.0.2", 0.0, Visitor(table="T", watching=True, last_active=50.0))
    assert to_evict([*players, watcher], "10.0.0.3", now, 30.0) is watcher  # idle 50 s
    watcher.session.last_active = 90.0  # type: ignore[union-attr]
    assert to_evict([*players, watcher], "10.0.0.3", now, 30.0) is None  # active, or playing
    hogs = [admitted("10.0.0.4", 0.0, Visitor(last_active=95.0 + i)) for i in range(3)]
    assert to_evict([*players, watcher, *hogs], "10.0.0.3", now, 30.0) is hogs[0]
    assert to_evict([*players, watcher, *hogs], "10.0.0.4", now, 30.0) is None  # its own share


def test_a_crowd_seated_from_few_addresses_makes_room_seats_last() -> None:
    """The attack of issue 26: every place held by connections seated at tables, from
    few addresses.  A newcomer takes the place of one of the address holding the most:
    its lobby connection first, then its spectator, then its longest-idle seated one."""
    now = 100.0
    crowd = [  # (each address more than a household: even their games make room)
        admitted(f"10.6.6.{i % 4}", 0.0, Visitor(table=f"T{i}", last_active=50.0 + i, playing=True))
        for i in range(40)
    ]
    assert HOUSEHOLD < 40 // 4
    friend = admitted("10.0.0.5", 0.0, Visitor(table="F", last_active=99.0))
    everyone = [*crowd, friend]
    victim = to_evict(everyone, "10.0.0.7", now, 30.0)
    assert victim is crowd[0]  # the longest-idle seat of (one of) the heaviest address
    lobby = admitted("10.6.6.0", 0.0, Visitor(last_active=99.0))
    watcher = admitted("10.6.6.0", 0.0, Visitor(table="T", watching=True, last_active=99.0))
    assert to_evict([*everyone, watcher], "10.0.0.7", now, 30.0) is watcher
    assert to_evict([*everyone, watcher, lobby], "10.0.0.7", now, 30.0) is lobby
    # the friend's own address holds one: never the heaviest, never evicted for a crowd
    assert all(to_evict(everyone, f"10.6.6.{i}", now, 30.0) is not friend for i in range(4))
    # addresses holding as many as the newcomer's (+1) keep theirs: a fair share stays
    even = [admitted(f"10.1.1.{i}", 0.0, Visitor(table="T")) for i in range(10)]
    assert to_evict(even, "10.0.0.7", now, 30.0) is None


def test_a_household_in_a_game_stays_while_a_crowd_of_many_addresses_comes() -> None:
    """A hostile pass filled the cap two connections an address, then came from fresh
    addresses: each newcomer pushed a player of the host's game out (the host and three
    bots run from one machine, the heaviest address), over and over.  Players in a game
    under way make room only from an address holding more than a household."""
    now = 100.0
    host = [
        admitted("10.0.0.40", 0.0, Visitor(table="F", last_active=99.0, playing=True))
        for _ in range(4)
    ]
    crowd = [admitted(f"10.6.{i // 2}.1", 0.0, Visitor(last_active=99.0)) for i in range(20)]
    victim = to_evict([*host, *crowd], "10.9.9.9", now, 30.0)
    assert victim is crowd[0]  # an active lobby connection of the next heaviest address
    # the crowd seated too (at tables waiting to start): theirs go before the game's
    waiting = [
        admitted(f"10.6.{i // 2}.1", 0.0, Visitor(table="W", last_active=99.0)) for i in range(20)
    ]
    assert to_evict([*host, *waiting], "10.9.9.9", now, 30.0) is waiting[0]
    # the crowd in games of its own, two an address: nobody goes (the reserve places let
    # a player back to their chair), and never the host's players
    playing = [
        admitted(f"10.6.{i // 2}.1", 0.0, Visitor(table="G", playing=True)) for i in range(20)
    ]
    assert to_evict([*host, *playing], "10.9.9.9", now, 30.0) is None
    # the same household at a table not under way makes room as before (seats last)
    idle = [admitted("10.0.0.40", 0.0, Visitor(table="F", last_active=60.0 + i)) for i in range(4)]
    assert to_evict([*idle, *playing], "10.9.9.9", now, 30.0) is idle[0]
    # more than a household in games from one address: its longest-idle player makes room
    many = [
        admitted("10.0.0.40", 0.0, Visitor(table="F", last_active=60.0 + i, playing=True))
        for i in range(HOUSEHOLD + 1)
    ]
    assert to_evict([*many, *playing], "10.9.9.9", now, 30.0) is many[0]


def test_the_reserve_is_reserve_each_places_an_address_and_no_more_than_reserve() -> None:
    over = [Admitted(f"10.0.0.{i}", 0.0, over=True) for i in range(RESERVE - RESERVE_EACH)]
    assert reserve_open(over, "10.0.0.200")
    household = [Admitted("10.0.0.3", 0.0, over=True)] * (RESERVE_EACH - 2)
    assert reserve_open([*over, *household], "10.0.0.3")  # (a host's bots, at once)
    assert not reserve_open([*over, *household, over[3]], "10.0.0.3")  # its last taken
    full = [*over, *(Admitted("10.0.0.99", 0.0, over=True) for _ in range(RESERVE_EACH))]
    assert not reserve_open(full, "10.0.0.200")
    # connections on reserve places are never what a newcomer evicts (their hello decides)
    assert to_evict(full, "10.0.0.200", 100.0, 30.0) is None


def test_a_busy_crowd_one_connection_an_address_makes_room_once_it_has_stayed() -> None:
    """A hostile pass: one connection from each of 60 addresses in the lobby, each asking
    for the table list every 10 s, held a full server for good (nobody idle, no address
    holding more than the newcomer's).  The oldest in the lobby (or watching) goes, once
    connected `STAY` seconds; nobody at a table is ever asked to.  By its age, which
    nothing it sends resets (a review: the time since it last sat or watched was reset by
    a spectate and a leave, and an honest person went in the crowd's place)."""
    now = 1000.0
    crowd = [
        admitted(f"10.9.0.{i}", now - STAY + 10 + i / 10, Visitor(last_active=now - 5))
        for i in range(60)
    ]
    assert to_evict(crowd, "10.0.0.5", now, 30.0) is None  # none connected two minutes
    later = now + 10.5
    for a in crowd:
        a.session.last_active = later - 5  # type: ignore[union-attr]
    assert to_evict(crowd, "10.0.0.5", later, 30.0) is crowd[0]  # the oldest
    watcher = admitted("10.9.1.1", 0.0, Visitor(table="T", watching=True, last_active=later))
    assert to_evict([*crowd, watcher], "10.0.0.5", later, 30.0) is watcher  # older still
    players = [
        admitted(f"10.8.0.{i}", 0.0, Visitor(table="G", last_active=later, playing=True))
        for i in range(60)
    ]
    assert to_evict(players, "10.0.0.5", later, 30.0) is None  # seated: never for age


def test_a_reserve_place_held_in_silence_goes_to_a_newcomer() -> None:
    """A hostile pass held all 16 reserve places with bare TCP connections that never
    began TLS, each back as its handshake's 10 s ran out: a friend could not get back to
    their game.  A newcomer takes the place held longest in silence, once it has had
    `RESERVE_YOUNG` seconds; one whose hello and proof came (being let in, or told no, perhaps
    after a password's check) is never taken, nor another address's place while places
    are free (a review)."""
    now = 100.0
    silent = [Admitted(f"10.7.0.{i}", now - 5 - i, over=True) for i in range(RESERVE)]
    assert not reserve_open(silent, "10.0.0.5")
    assert reserve_victim(silent, "10.0.0.5", now) is silent[-1]  # the oldest
    fresh = [Admitted(f"10.7.0.{i}", now - RESERVE_YOUNG / 2, over=True) for i in range(RESERVE)]
    assert reserve_victim(fresh, "10.0.0.5", now) is None  # each still has time to say hello
    spoken = [Admitted(f"10.7.0.{i}", 0.0, session=Visitor(), over=True) for i in range(RESERVE)]
    assert reserve_victim(spoken, "10.0.0.5", now) is None
    checked = [  # (its hello and proof came: the server checks its password)
        Admitted(f"10.7.0.{i}", 0.0, session=Visitor(welcomed=False, answered=True), over=True)
        for i in range(RESERVE)
    ]
    assert reserve_victim(checked, "10.0.0.5", now) is None
    hello_only = [replace(a, session=Visitor(welcomed=False)) for a in checked]
    assert reserve_victim(hello_only, "10.0.0.5", now) is hello_only[0]  # (no proof: stalls)
    # the newcomer's own address's places first, where it holds all it may ...
    own = [
        *silent[RESERVE_EACH:],
        *(Admitted("10.0.0.5", now - 3 - i, over=True) for i in range(RESERVE_EACH)),
    ]
    assert reserve_victim(own, "10.0.0.5", now) is own[-1]
    # ... and only them: its own too young, no other address's place goes, free or not
    mine = [Admitted("10.0.0.5", now - 0.5, over=True) for _ in range(RESERVE_EACH)]
    young = [Admitted("10.7.0.1", now - 9, over=True), *mine]
    assert not reserve_open(young, "10.0.0.5")
    assert reserve_victim(young, "10.0.0.5", now) is None
    assert reserve_victim([*silent[RESERVE_EACH:], *mine], "10.0.0.5", now) is None


def test_a_crowd_that_reconnects_to_stay_young_makes_room_first() -> None:
    """A second hostile pass: squatters back every 100 s were never the oldest, so the
    age rule took honest people; reserve holders back every 1.5 s were never old enough
    to take.  An address that opened (and closed again) `CHURN` connections lately makes
    room first, its lobby connections and spectators whatever their age, its silent
    reserve places at once; a seat is never taken for it."""
    now = 1000.0
    honest = admitted("10.1.0.1", now - STAY - 50, Visitor(last_active=now - 1))
    squatters = [admitted(f"10.9.0.{i}", now - 30, Visitor(last_active=now - 1)) for i in range(5)]
    churned = {f"10.9.0.{i}": CHURN + i for i in range(5)}
    assert to_evict([honest, *squatters], "10.0.0.5", now, 30.0) is honest  # (by age alone)
    assert to_evict([honest, *squatters], "10.0.0.5", now, 30.0, churned) is squatters[-1]
    assert squatters[-1].evicted_for == "churn" and honest.evicted_for == "age"  # (told so)
    seated = [admitted(f"10.9.0.{i}", 0.0, Visitor(table="T", playing=True)) for i in range(5)]
    assert to_evict([honest, *seated], "10.0.0.5", now, 30.0, churned) is honest
    holders = [Admitted(f"10.7.0.{i}", now - 0.9, over=True) for i in range(RESERVE)]
    assert reserve_victim(holders, "10.0.0.5", now) is None  # (young: under RESERVE_YOUNG)
    assert reserve_victim(holders, "10.0.0.5", now, {"10.7.0.3": CHURN}) is holders[3]
    # a third pass: 150 addresses, each back every 1.9 s, never churning within the
    # minute it kept a friend out: an address whose client closed `QUIET` silent reserve
    # places lately has no `RESERVE_YOUNG` seconds for its silent reserve places
    assert reserve_victim(holders, "10.0.0.5", now, {}, {"10.7.0.5"}) is holders[5]


def test_a_connection_back_in_place_of_its_addresss_last_is_as_old_as_it() -> None:
    """A second hostile pass: squatters back every 100 s were never the oldest (each
    connection's age began again), so the age rule took honest people.  A connection
    that comes back in its address's place is as old as the one before (`born`)."""
    now = 1000.0
    honest = admitted("10.1.0.1", now - STAY - 50, Visitor(last_active=now - 1))
    back = admitted("10.9.0.1", now - 30, Visitor(last_active=now - 1))
    assert to_evict([honest, back], "10.0.0.5", now, 30.0) is honest
    back.born = now - STAY - 90  # (its address's first came before the honest one)
    assert to_evict([honest, back], "10.0.0.5", now, 30.0) is back

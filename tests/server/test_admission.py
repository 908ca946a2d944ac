"""Who makes room at the connection cap (server/admission.py), on made-up connections:
the flood's own waiting connections first, never a seated player, an idle spectator as an
idle lobby connection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from president.server.admission import YOUNG, Admitted, to_evict


@dataclass
class Visitor:
    welcomed: bool = True
    last_active: float = 0.0
    table: Any = None
    watching: bool = False


def admitted(address: str, since: float, session: Visitor | None = None) -> Admitted:
    return Admitted(address, since, session=session)


def test_a_waiting_newcomer_is_not_pushed_out_by_a_flood_from_elsewhere() -> None:
    now = 100.0
    newcomer = admitted("10.0.0.7", now - YOUNG / 2)  # still in its handshake
    flood = [admitted("10.0.0.66", now - 0.1 * i) for i in range(3)]
    seated = [admitted("10.0.0.66", 0.0, Visitor(table="T")) for _ in range(5)]
    everyone = [newcomer, *flood, *seated]
    # the flood's next connection pushes out the flood's own oldest
    assert to_evict(everyone, "10.0.0.66", now, 30.0) is flood[-1]
    # a connection from a third address takes a flood connection, never the newcomer
    assert to_evict(everyone, "10.0.0.9", now, 30.0) in flood
    # with the flood gone, the lone newcomer is safe from elsewhere while it is young
    assert to_evict([newcomer, *seated], "10.0.0.9", now, 30.0) is None


def test_players_are_never_evicted_but_idle_watchers_and_lobby_hogs_are() -> None:
    now = 100.0
    players = [admitted("10.0.0.1", 0.0, Visitor(table="T")) for _ in range(4)]
    watcher = admitted("10.0.0.2", 0.0, Visitor(table="T", watching=True, last_active=50.0))
    assert to_evict([*players, watcher], "10.0.0.3", now, 30.0) is watcher  # idle 50 s
    watcher.session.last_active = 90.0  # type: ignore[union-attr]
    assert to_evict([*players, watcher], "10.0.0.3", now, 30.0) is None  # active, or playing
    hogs = [admitted("10.0.0.4", 0.0, Visitor(last_active=95.0 + i)) for i in range(3)]
    assert to_evict([*players, watcher, *hogs], "10.0.0.3", now, 30.0) is hogs[0]
    assert to_evict([*players, watcher, *hogs], "10.0.0.4", now, 30.0) is None  # its own share

"""Many leave a hand at once: the table plays for them at once (docs/rules.md, "Networked
play: the timeout rule"), and those who stay are not dropped for it (a hostile pass: when
10 of 12 left mid-hand, the rest of the hand was played for them in one burst with no
pause for the connections' writers, and the two who stayed were dropped as too slow, in
two runs of three; here in two of three before the driver let the writers run)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president.engine import Phase
from president.protocol import messages as m

from ..harness.servers import running_server, table_of_bots
from ..harness.waiting import wait_for


async def test_those_who_stay_when_ten_of_twelve_leave_at_once_are_not_dropped(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path, seed_seconds=120) as server:
        toggles = {"decks": 2, "target": 50}
        clients, _bots, tasks = await table_of_bots(server, tmp_path, players=12, toggles=toggles)

        def playing() -> bool:
            return all(
                c.model.public is not None and c.model.public.phase is Phase.PLAY for c in clients
            )

        await wait_for(playing, 60)
        await asyncio.gather(*(c.send(m.Leave()) for c in clients[2:]))
        table = server.lobby.tables["T"]
        game = table.game
        assert game is not None
        hand = game.hand
        await wait_for(lambda: game.hand > hand or table.status != "playing", 60)  # (played out)
        here = {s.name for s in server.sessions if not s.closed}
        assert {"bot0", "bot1"} <= here, here
        for task in tasks:
            task.cancel()

"""Server-side search bots think in a worker process, off the event loop, and choose there
exactly what they would have chosen on it (their random generator carried back)."""

from __future__ import annotations

import asyncio
import os
import pickle
import random
import signal
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from president.bots.search import SearchBot
from president.bots.strategies import RandomBot
from president.client.connection import Client
from president.client.headless import BotPlayer
from president.protocol import messages as m
from president.server import thinking

from ..bots.test_strategies import view_with
from ..harness.processes import ServerProcess
from ..harness.servers import dialer, sit_among_server_bots
from ..harness.waiting import wait_for


async def client_at(address: str, name: str, folder: Path, **kwargs: object) -> Client:
    return Client(await dialer(address, name, folder, **kwargs)())


async def test_a_search_bot_chooses_in_a_worker_as_it_would_at_home() -> None:
    views = [view_with("3C 5D 7S 9C JD KH 2S"), view_with("4C 4D 8S 10C QD AH")]
    at_home = SearchBot(random.Random(7), playouts=24)
    expected = [at_home.choose(view) for view in views]
    away = SearchBot(random.Random(7), playouts=24)
    try:
        chosen = [await thinking.think(away, view) for view in views]
        assert thinking._pool is not None  # the worker was used
    finally:
        thinking.shutdown()
    assert chosen == expected  # the second choice went on from the first one's state
    # (kept as the worker's bytes: a crowd's bots, their state brought home unpickled at
    # each move, made full collections that held the event loop seconds at a time)
    kept = thinking._states[away]
    assert isinstance(kept, bytes)
    assert pickle.loads(kept).rng.getstate() == at_home.rng.getstate()
    assert away.rng.getstate() == random.Random(7).getstate()  # (the server's copy: as made)


@pytest.mark.slow  # (it starts worker processes and kills one)
async def test_a_dead_worker_is_replaced_for_the_next_move() -> None:
    """A hostile pass killed the worker of a server: from then on every search move was
    played by the timeout rule, for good.  The move it broke fails (the driver plays the
    timeout rule for it); the next one thinks in a new worker."""
    view = view_with("3C 5D 7S 9C JD KH 2S")
    bot = SearchBot(random.Random(7), playouts=8)
    try:
        await thinking.think(bot, view)
        pool = thinking._pool
        assert pool is not None
        for process in list(pool._processes.values()):  # type: ignore[attr-defined]
            os.kill(process.pid, signal.SIGKILL)
        await wait_for(lambda: pool._broken)  # type: ignore[attr-defined]
        with pytest.raises(BrokenProcessPool):
            await thinking.think(bot, view)
        assert thinking._pool is None
        assert await thinking.think(bot, view) in view.legal_actions()
        assert thinking._pool is not None and thinking._pool is not pool
    finally:
        thinking.shutdown()


async def test_cheap_strategies_choose_at_once() -> None:
    bot = RandomBot(random.Random(1))
    view = view_with("3C 5D 7S")
    assert await thinking.think(bot, view) in view.legal_actions()
    assert thinking._pool is None


def test_the_crowd_limit_shares_a_round_between_the_moves_waiting() -> None:
    assert thinking.crowd_limit(1, 1) is None  # a worker for each: its own budget
    assert thinking.crowd_limit(2, 2) is None
    assert thinking.crowd_limit(2, 1) == thinking.CROWD_ROUND / 2
    assert thinking.crowd_limit(200, 1) == thinking.CROWD_ROUND / 200
    assert thinking.crowd_limit(300, 3) == thinking.CROWD_ROUND / 100


async def test_under_a_crowd_each_search_move_thinks_less(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four tables' search moves at once with one worker: the first thinks to its own
    budget, each later one to its share of the round, and the worker's bot goes back to
    no limit (the state carried home has none)."""
    from concurrent.futures import ThreadPoolExecutor

    limits: list[float | None] = []
    choose = thinking._choose

    def recording(bot: SearchBot, view: object, limit: float | None) -> object:
        limits.append(limit)
        return choose(bot, view, limit)  # type: ignore[arg-type]

    monkeypatch.setattr(thinking, "_choose", recording)
    monkeypatch.setattr(thinking, "_pool", ThreadPoolExecutor(1))  # (a thread: shared memory)
    monkeypatch.setattr(thinking, "_workers", 1)
    bots = [SearchBot(random.Random(seed), playouts=8) for seed in range(4)]
    view = view_with("3C 5D 7S 9C JD KH 2S")
    try:
        chosen = await asyncio.gather(*(thinking.think(bot, view) for bot in bots))
    finally:
        thinking.shutdown()
    assert all(action in view.legal_actions() for action in chosen)
    round_ = thinking.CROWD_ROUND
    assert limits == [None, round_ / 2, round_ / 3, round_ / 4]
    assert all(bot.limit is None for bot in bots)
    assert thinking._asked == 0


def _children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (from /proc; zombies are not live)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
async def test_a_bot_worker_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    """Issue 26: `kill -9` of a server whose search bots had started a worker left the
    worker running for ever; now it sees its server gone and ends."""
    server = await ServerProcess.started(tmp_path / "data")
    try:
        ann = await client_at(server.address, "ann", tmp_path, pin=server.pin)
        ann.keep = True
        # (ann plays too: holding the 3C she leads, one deal in three, and until she did
        # no search bot had a turn)
        BotPlayer(ann, RandomBot(random.Random(1)))
        task = asyncio.create_task(ann.run())
        await sit_among_server_bots(ann, seats=3, strategy="search")
        await ann.send(m.Ready())

        def errors() -> list[m.Message]:
            return [x for x in ann.received if isinstance(x, m.Error)]

        await wait_for(lambda: _children(server.proc.pid), 60, errors)
        workers = _children(server.proc.pid)
        server.kill()  # SIGKILL: the server cannot stop them itself
        await wait_for(lambda: not any(_alive(pid) for pid in workers), 60, "workers ended")
        task.cancel()
    finally:
        server.kill()

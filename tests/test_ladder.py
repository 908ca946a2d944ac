"""The ladder with real processes: `president bot` processes of three strategies play a
game at a `president server`, and `president stats --json` shows each of them rated as
the game's record says, field for field; a server SIGKILLed at random moments and
started again loses no hand and counts none twice (the ladder equals what the games'
records give); `president stats` from a script never waits on a question; `president
stats --records` makes the same ladder from the server's records alone.

Whether the ladder orders players by strength is tested offline on the server's own
`Ladder`, seeded, with its false-failure arithmetic (tests/server/test_ladder_order.py;
docs/ratings.md, "The ordering test"): read at one moment, two players as close as the
heuristic and greedy bots swap places now and then after any number of hands, so a
real-process test of their order would fail on correct code."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.engine import find_preset
from president.engine.record import loads, replay
from president.engine.scoring import hand_points, titles_by_name
from president.protocol import messages as m
from president.server.ratings import Finisher, HandResult, Ladder

from .harness.processes import Process, ServerProcess, bot_process, environment, president, stop
from .harness.servers import dialer, make_table

pytestmark = pytest.mark.slow


def stats(server: ServerProcess, env: dict[str, str]) -> dict[str, Any]:
    """`president stats --json` as a script runs it (no terminal: --fingerprint)."""
    args = ("stats", server.address, "--json", "--fingerprint", server.pin, "--top", "50")
    done = president(*args, env=env, timeout=30)
    assert done.returncode == 0 and not done.stderr, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


async def fewest_hands(server: ServerProcess, folder: Path, names: list[str]) -> int:
    """The fewest hands any of `names` has on the ladder (0 if the server does not
    answer: it is being restarted)."""
    try:
        link = await dialer(server.address, "watch", folder, pin=server.pin)()
    except OSError:
        return 0
    try:
        await link.send(m.Leaderboard(players=tuple(names)))
        while not isinstance(answer := await asyncio.wait_for(link.receive(), 20), m.Ratings):
            pass
    except (OSError, TimeoutError, asyncio.IncompleteReadError):
        return 0
    finally:
        await link.close()
    hands = {e.name: e.hands for e in answer.entries}
    return min(hands.get(name, 0) for name in names)


def expected_from_records(folder: Path) -> Ladder:
    """The ladder the finished games' records give, worked out from the rules (titles,
    points, winners), game after game in the order they were written."""
    rules = find_preset("classic")
    ladder = Ladder()
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    for game, path in enumerate(files):
        summary = replay(loads(path.read_bytes())).to_json()
        finishes = [hand["finish"] for hand in summary["hands"]]
        for number, finish in enumerate(finishes):
            held = titles_by_name(rules, finishes[number - 1]) if number else {}
            titles = titles_by_name(rules, finish)
            points = hand_points(rules, len(finish))
            over = number == len(finishes) - 1 and summary["game_over"]
            result = HandResult(
                game=str(game),
                hand=number,
                finish=tuple(
                    Finisher(name, name, held.get(name, ""), titles[name], points[place])
                    for place, name in enumerate(finish)
                ),
                game_over=over,
                winners=tuple(summary["winners"]) if over else (),
            )
            records = ladder.after(result)
            assert records is not None
            ladder.take(result, records)
    return ladder


def assert_rated_as_recorded(shown: dict[str, Any], records: Path, names: list[str]) -> None:
    """Every player `president stats --json` shows is rated as the games' records give,
    field for field: hands, places, points, games, wins, offices, mu and sigma."""
    want = expected_from_records(records)
    players = {p["name"]: p for p in shown["players"]}
    assert set(players) == set(names) == set(want.records), (players, want.records)
    for name, record in want.records.items():
        got = players[name]
        assert (got["hands"], tuple(got["places"]), got["points"]) == (
            record.hands,
            record.places,
            record.points,
        ), name
        assert (got["games"], got["wins"]) == (record.games, record.wins), name
        offices = {t: {"held": n, "kept": record.kept.get(t, 0)} for t, n in record.held.items()}
        assert got["offices"] == offices, name
        assert (got["mu"], got["sigma"]) == (round(record.mu), round(record.sigma)), name
        # (said since protocol 11: stats connects with the user's key to speak it)
        assert got["provisional"] is not record.established, name
        assert sum(got["places"]) == got["hands"] > 0
        assert abs(got["rating"] - (got["mu"] - 3 * got["sigma"])) <= 2  # (rounding)
    assert sorted(p["place"] for p in shown["players"]) == list(range(1, len(names) + 1))


STRATEGIES = ["heuristic", "greedy", "random"]


async def test_bots_of_three_strategies_are_rated_as_their_records_say(tmp_path: Path) -> None:
    """One `president bot` process per strategy, as players on a LAN would run them, play
    one game (to 5 points) at table T; then the ladder is what the record says."""
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    env = environment(tmp_path)
    bots: list[Process] = []
    try:
        await make_table(server.address, server.pin, tmp_path, toggles={"target": 5}, seats=3)
        for strategy in STRATEGIES:
            bots.append(
                bot_process(
                    server,
                    env,
                    *("--table", "T", "--strategy", strategy, "--name", strategy),
                    *("--games", "1", "--give-up", "30"),
                )
            )
        for bot in bots:
            assert await bot.exits(180) == 0, bot.text() + bot.errors()
        shown = await asyncio.to_thread(stats, server, env)
    finally:
        stop(server, *bots)
    assert len(list((data / "records").glob("*.json"))) == 1
    assert_rated_as_recorded(shown, data / "records", STRATEGIES)
    # the same ladder from the records alone, with no server (`--records`)
    local = president("stats", "--records", str(data / "records"), "--json", env=env)
    assert local.returncode == 0 and not local.stderr, local.stderr
    assert_rated_as_recorded(json.loads(local.stdout), data / "records", STRATEGIES)


async def test_a_server_killed_at_random_moments_loses_no_hand_and_counts_none_twice(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    env = environment(tmp_path)
    names = [f"g-{i}" for i in range(1, 5)]
    bots: Process | None = None
    rng = random.Random()
    try:
        await make_table(server.address, server.pin, tmp_path, toggles={"target": 8})
        bots = bot_process(
            server,
            env,
            *("--table", "T", "--count", "4", "--strategy", "greedy", "--name", "g"),
            *("--games", "1", "--give-up", "60"),
            merge_stderr=True,
        )
        for at_least in (1, 3):  # then SIGKILL at a moment nobody chose
            async with asyncio.timeout(120):
                while await fewest_hands(server, tmp_path, names) < at_least:
                    assert bots.proc.poll() is None, bots.text()
                    await asyncio.sleep(0.05)
            await asyncio.sleep(rng.uniform(0, 0.3))
            server.stop(signal.SIGKILL)
            server = await server.again()
        assert await bots.exits(120) == 0, bots.text()
        shown = await asyncio.to_thread(stats, server, env)
    finally:
        stop(bots, server)
    assert len(list((data / "records").glob("*.json"))) == 1, bots.text() + json.dumps(shown)
    assert_rated_as_recorded(shown, data / "records", names)


async def test_stats_from_a_script_never_waits_on_the_fingerprint_question(
    tmp_path: Path,
) -> None:
    """No terminal and no --fingerprint: refused at once in one line that says what to
    pass (a prompt nobody can answer would hold a script for ever); a wrong fingerprint is
    refused too; with the right one the (empty) ladder is printed."""
    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    wrong = ":".join(["AB"] * 32)

    def run(*extra: str) -> Any:
        return president("stats", server.address, *extra, env=env, timeout=20)

    try:
        # one after the other: the run with the right fingerprint remembers the server
        unknown = await asyncio.to_thread(run)
        mismatch = await asyncio.to_thread(run, "--fingerprint", wrong)
        text = await asyncio.to_thread(run, "--fingerprint", server.pin)
        asked = await asyncio.to_thread(run, "--fingerprint", server.pin, "--player", "nobody")
        # another player's key holds the user's login name there: the ladder is still
        # shown (a host's pass: refused, "the name root belongs to another player")
        held = await dialer(
            server.address, "zoe", tmp_path, pin=server.pin, identity=Ed25519PrivateKey.generate()
        )()
        env["LOGNAME"] = env["USER"] = "zoe"
        taken = await asyncio.to_thread(run, "--fingerprint", server.pin)
        named = await asyncio.to_thread(run, "--fingerprint", server.pin, "--name", "zoe")
        await held.close()
    finally:
        stop(server)
    assert taken.returncode == 0 and "0 players rated" in taken.stdout, taken
    assert named.returncode == 2 and "the name zoe belongs to another player" in named.stderr
    assert unknown.returncode == 2 and not unknown.stdout, unknown
    assert unknown.stderr.count("\n") == 1 and "pass --fingerprint" in unknown.stderr
    assert mismatch.returncode == 2 and "shows the certificate" in mismatch.stderr, mismatch
    assert "Traceback" not in unknown.stderr + mismatch.stderr
    assert text.returncode == 0 and "0 players rated" in text.stdout, text
    assert "nobody has finished a hand here yet" in text.stdout
    # (a pass missed the game's winner, a bot of the server's, and was told nothing)
    assert "not rated:\nthe server's own bots (b at a table)" in text.stdout, text.stdout
    # a name asked for that the ladder does not hold is said so, not "nobody has ..."
    assert asked.returncode == 0, asked
    assert "not on this ladder (no hand finished here by that name): nobody" in asked.stdout
    assert "nobody has finished" not in asked.stdout


async def test_the_lobby_ladder_scrolls_in_a_small_terminal(tmp_path: Path) -> None:
    """README: in the lobby `l` shows the ladder's top twenty, ↑/↓ scrolling it where it is
    cut.  Eight bots rated at a real server; `president connect` in a 60x16 terminal (a
    newcomer's pass saw four of twenty, and "a taller window shows them")."""
    from .harness.processes import PRESIDENT
    from .harness.terminal import Terminal

    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    bots = [
        bot_process(
            server,
            env,
            *("--table", table, "--count", "4", "--name", table, "--games", "1"),
            *("--strategy", "random", "--set", "target=2"),
        )
        for table in ("ann", "bob")
    ]
    ann = None
    try:
        for bot in bots:
            assert await bot.exits(180) == 0, bot.text() + bot.errors()
        command = [*PRESIDENT, "connect", server.address, "--name", "zed"]
        ann = Terminal([*command, "--fingerprint", server.pin], env, rows=16, columns=60)
        await ann.shows("you are zed")
        ann.send("l")
        first = await ann.shows("of 8 · ↑/↓ scroll")
        assert "places 1-" in first and "8 rated" in first, first
        for _ in range(10):
            ann.send("j")
        last = await ann.shows("-8 of 8 · ↑/↓ scroll")
        assert "places 1-" not in last, last
        ann.send("qq")  # (the lobby's q asks once)
        assert await ann.exits() == 0
    finally:
        if ann is not None:
            ann.close()
        stop(server, *bots)

"""`president bot` and the twenty-line example bot of docs/bots.md: `run_bots` (the
command's core) fills a table at a real server in this process and says what it did and
what it was refused; the example script runs offline and online as a process."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import signal
import sys
from pathlib import Path

import pytest
from president.client.connection import Client
from president.protocol import messages as m
from president.server.app import Server

from .harness.processes import Process, environment
from .harness.servers import client, running_server
from .harness.waiting import wait_for


def bot_args(server: Server, **changes: object) -> argparse.Namespace:
    """`president bot`'s options as `cmd_bot` hands them to `run_bots`: four greedy bots
    for table T (preset `table`, 30 s a turn), with `changes`."""
    args = argparse.Namespace(
        address=f"127.0.0.1:{server.port}",
        strategy="greedy",
        count=4,
        table="T",
        name=None,
        games=1,
        fingerprint=None,
        password=None,
        table_password=None,
        preset="table",
        seats=4,
        turn_seconds=30,
        delay=0.0,
        playouts=None,
        think=None,
        seed=3,
        give_up=300.0,
    )
    for name, value in changes.items():
        setattr(args, name, value)
    return args


async def test_a_bots_refusals_say_how_to_mend_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game-night pass: `--table Friday` beside the host's friday was refused as a
    lookalike name, with nothing saying that `--table friday` sits there; and a table's
    password refused said nothing of how a bot gives it."""
    from president.cli.bot import BotFailed, run_bots

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    async with running_server(tmp_path) as server:
        host = await client(server, "host", tmp_path)
        await host.send(
            m.CreateTable(name="friday", preset="classic", toggles={}, seats=4, password="tacos")
        )
        await wait_for(lambda: "friday" in server.lobby.tables)
        args = bot_args(
            server, count=1, table="Friday", fingerprint=server.fingerprint, preset="classic"
        )
        said: list[str] = []
        with pytest.raises(BotFailed) as lookalike:
            await run_bots(args, said.append)
        assert str(lookalike.value).endswith(
            "looks like table 'friday': choose a name that looks different"
            " (--table=friday sits at it)"
        ), lookalike.value
        args.table = "friday"
        with pytest.raises(BotFailed) as locked:
            await run_bots(args, said.append)
        assert str(locked.value).endswith(
            "table friday has a password: give it to sit or watch"
            " (--table-password-prompt or $PRESIDENT_TABLE_PASSWORD)"
        ), locked.value
        # a name a letter off another's makes a table, and says the other is there (a pass
        # typed 'revo nite' for 'revo night'); a series ('friday 2') does not
        args.table, args.count, args.seats, args.toggles = "fridya", 3, 3, {"target": 1}
        assert await run_bots(args, said.append) == 0
        made = next(line for line in said if "created table fridya" in line)
        assert made.endswith("; table friday is there too: --table=friday sits at it"), made
        args.table = "friday 2"
        assert await run_bots(args, said.append) == 0
        made = next(line for line in said if "created table friday 2" in line)
        assert "is there too" not in made, made
        await host.link.close()


async def test_president_bot_fills_a_table_and_plays_a_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from president.cli.bot import BotFailed, run_bots

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    async with running_server(tmp_path) as server:
        args = bot_args(server)
        said: list[str] = []
        with pytest.raises(BotFailed, match="not a server you trusted before"):
            await run_bots(args, said.append)  # a bot cannot ask: it needs --fingerprint
        args.fingerprint = server.fingerprint
        other = await client(server, "other", tmp_path)  # a table someone else made
        await other.send(m.CreateTable(name="E", preset="classic", toggles={"target": 1}, seats=4))
        await other.link.close()
        await wait_for(lambda: "E" in server.lobby.tables)
        args.table = "E"
        assert await run_bots(args, said.append) == 0
        # joined, and said so (a guest who made it first to hold the host's bots there
        # made its rules and its timer too)
        assert (
            "greedy-bot-1: table E was already there: it plays classic, target=1, 4 seats,"
            " 60 s a turn, as it was made (--preset, --rules, --set, --seats and"
            " --turn-seconds shape a new table only)"
        ) in said, said
        said.clear()
        # made as this command would have made it: said, with no warning
        other = await client(server, "other", tmp_path)
        await other.send(
            m.CreateTable(name="M", preset="table", toggles={}, seats=4, turn_seconds=30)
        )
        await other.link.close()
        await wait_for(lambda: "M" in server.lobby.tables)
        args.table = "M"
        assert await run_bots(args, said.append) == 0
        assert "greedy-bot-1: table M was already there (table, 4 seats, 30 s a turn)" in said
        assert not any("not this command's" in line for line in said), said
        said.clear()
        args.table = "T"
        assert await run_bots(args, said.append) == 0
        assert "greedy-bot-1: created table T (table, 4 seats, 30 s a turn)" in said
        assert not any("already there" in line for line in said)
        assert len([line for line in said if ": game 1 over" in line]) == 4
        assert said[-1].startswith("all bots: ")
        await wait_for(lambda: bool(server.records))
        host = await client(server, "host", tmp_path)
        for table in ("A", "B", "C"):  # this address's cap on open tables: 3
            await host.send(m.CreateTable(name=table, preset="classic", toggles={}, seats=4))
        await host.link.close()
        args.table, args.count = "F", 5  # five bots cannot sit at a table of four: said first
        with pytest.raises(BotFailed, match="5 bots need a table of 5 seats or more: --seats 5"):
            await run_bots(args, said.append)
        assert "F" not in server.lobby.tables
        args.table, args.count = "D", 1  # refused: said so, not "created", then "no such table"
        with pytest.raises(BotFailed, match="could not create D: your address already has"):
            await run_bots(args, said.append)
        assert not any("created table D" in line for line in said)
        args.fingerprint = "AB" * 32  # not the server's: refused
        with pytest.raises(BotFailed, match=r"not the .* you gave"):
            await run_bots(args, said.append)


EXAMPLE = Path(__file__).resolve().parents[1] / "scripts" / "example_bot.py"


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "daifugo"])
def test_the_twenty_line_example_bot_runs_offline(preset: str, tmp_path: Path) -> None:
    args = [str(EXAMPLE), "sim", "--games", "4", "--jobs", "1", "--json", "--preset", preset]
    example = Process(args, environment(tmp_path), command=[sys.executable])
    assert example.wait(120) == 0, example.errors()
    assert "lowball" in {t["strategy"] for t in json.loads(example.text())["entrants"]}


@pytest.mark.slow
async def test_the_twenty_line_example_bot_runs_online(tmp_path: Path) -> None:
    """Three copies of the example bot, one process, at a real server: a whole game."""
    async with running_server(tmp_path) as server:
        address = f"127.0.0.1:{server.port}"
        example = Process(
            [
                *(str(EXAMPLE), "bot", address, "--fingerprint", server.fingerprint),
                *("--table", "T", "--count", "3", "--seats", "3", "--games", "1"),
            ],
            environment(tmp_path),
            command=[sys.executable],
        )
        assert await example.exits(120) == 0, example.text() + example.errors()
        text = example.text()
        assert "lowball-bot-1: created table T (classic, 3 seats, 60 s a turn)" in text
        assert text.count(": game 1 over") == 3
        await wait_for(lambda: bool(server.records))


@pytest.mark.slow
async def test_president_bot_games_n_plays_exactly_n_games(tmp_path: Path) -> None:
    """`president bot --games 3`, four bots at one table of a real server: three games
    played, three records written, each bot saying each game's end once (a game's end
    came twice before: its game_over event, then a "finished" view after a "playing"
    one, so --games 3 stopped after two games)."""
    from .harness.processes import ServerProcess, bot_process, stop
    from .harness.servers import make_table

    data = tmp_path / "data"
    server = await ServerProcess.started(data)
    env = environment(tmp_path)
    bots = None
    try:  # short games (to 3 points), so three of them take seconds
        await make_table(server.address, server.pin, tmp_path, toggles={"target": 3})
        bots = bot_process(
            server, env, *("--table", "T", "--count", "4", "--strategy", "greedy", "--games", "3")
        )
        assert await bots.exits(180) == 0, bots.text() + bots.errors()
        text = bots.text()
        for bot in range(1, 5):
            for game in (1, 2, 3):
                assert text.count(f"greedy-bot-{bot}: game {game} over") == 1, text
            assert f"greedy-bot-{bot}: game 4 over" not in text
        records = data / "records"
        await wait_for(
            lambda: len(list(records.iterdir())) >= 3,
            30,
            lambda: f"three records: {sorted(records.iterdir())}\n{text}",
        )
        assert len(list(records.iterdir())) == 3
    finally:
        stop(bots)
        server.stop()


@pytest.mark.slow
async def test_quick_runs_one_after_another_each_make_their_table(tmp_path: Path) -> None:
    """A bot writer's fourth quick run, each making its own table (`--table eN`), was
    refused ("your address already has 3 tables open"): the three before had finished and
    their bots had left, but their tables counted toward the address's 3 until the
    server's sweep came (up to 30 s).  A finished game nobody is at counts no more."""
    from .harness.processes import ServerProcess, bot_process, stop

    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    bots = None
    try:
        for run in range(5):  # (the default cap: 3 tables an address)
            bots = bot_process(
                server,
                env,
                *("--table", f"e{run}", "--count", "4", "--strategy", "greedy"),
                *("--set", "target=1", "--name", f"r{run}"),
            )
            assert await bots.exits(120) == 0, bots.text() + bots.errors()
            assert f"r{run}-1: game 1 over" in bots.text(), bots.text()
    finally:
        stop(bots)
        server.stop()


@pytest.mark.slow
async def test_more_bots_than_free_seats_fill_them_and_play(tmp_path: Path) -> None:
    """A game-night pass: `president bot --count 2` at a table with one free seat said
    the second could not sit, and the first left again, unsaid (the command failed).  The
    free seats are filled, said so, and the game is played."""
    from .harness.processes import ServerProcess, bot_process, stop

    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    first = more = None
    try:
        first = bot_process(
            server, env, *("--table", "T", "--seats", "3", "--name", "host", "--games", "1")
        )
        await first.said("host: seated at T", timeout=60)
        # (alone there: said how the others come, not a silent wait)
        await first.said("T: the game starts when its 2 other seats are taken", timeout=60)
        more = bot_process(server, env, *("--table", "T", "--count", "3", "--games", "1"))
        assert await more.exits(180) == 0, more.text() + more.errors()
        text = more.text()
        assert "heuristic-bot-3 could not sit at T: every seat at T is taken: 2 of the 3 bots" in (
            text
        ), text
        # (a newcomer's pass: "heuristic-bot-3: connection lost — reconnecting (attempt
        # 1)" came first, the link closed under its reader)
        assert "reconnecting" not in text + more.errors(), text + more.errors()
        for bot in (1, 2):
            assert f"heuristic-bot-{bot}: game 1 over" in text, text
        assert await first.exits(60) == 0, first.text() + first.errors()
    finally:
        stop(first, more)
        server.stop()


@pytest.mark.slow
async def test_sigterm_stops_the_bots_as_ctrl_c_does_with_their_summary(tmp_path: Path) -> None:
    """A tinkerer's pass: `president bot --games 0` (for good) stopped by SIGTERM printed
    nothing, and by Ctrl-C no closing summary.  Both leave the table and say the games."""
    from .harness.processes import ServerProcess, bot_process, stop

    server = await ServerProcess.started(tmp_path / "data")
    env = environment(tmp_path)
    bots = None
    try:
        for sig, code, words in (
            (signal.SIGTERM, 143, "president bot: stopped (SIGTERM)"),
            (signal.SIGINT, 130, "president bot: interrupted"),
        ):
            table = ("--table", f"T{code}", "--count", "3", "--seats", "3", "--set", "target=1")
            bots = bot_process(server, env, *table, "--games", "0", "--strategy", "random")
            await bots.said(": game 1 over", timeout=120)
            bots.send_signal(sig)
            assert await bots.exits(60) == code, bots.text() + bots.errors()
            assert "all bots: " in bots.text(), bots.text()
            assert words in bots.errors() and "Traceback" not in bots.errors(), bots.errors()
        # a server that stopped answering (a hostile pass froze it: each bot's close then
        # waited 30 s for its answer, so three took 90): the bots leave together and
        # their connections drop after a few seconds; 60 s bounds only a hang here
        table = ("--table", "frozen", "--count", "3", "--seats", "3", "--set", "target=1")
        bots = bot_process(server, env, *table, "--games", "0", "--strategy", "random")
        await bots.said(": game 1 over", timeout=120)
        server.proc.send_signal(signal.SIGSTOP)
        try:
            bots.send_signal(signal.SIGTERM)
            assert await bots.exits(60) == 143, bots.text() + bots.errors()
        finally:
            server.proc.send_signal(signal.SIGCONT)
        assert "all bots: " in bots.text(), bots.text()
    finally:
        stop(bots)
        server.stop()


@pytest.mark.slow
async def test_a_squatter_at_a_real_server_is_moved_out_and_the_game_is_played(
    tmp_path: Path,
) -> None:
    """`president server --ready-seconds 1`: the table's creator sits, ready, with a
    `president bot` process; a guest takes the last chair and never says ready; its chair
    is freed (it is told why), a second bot takes it, and the game is played."""
    from president.bots.strategies import RandomBot
    from president.client.headless import BotPlayer

    from .harness.processes import ServerProcess, bot_process, stop
    from .harness.servers import dialer

    server = await ServerProcess.started(tmp_path / "data", 0, "--ready-seconds", "1")
    env = environment(tmp_path)
    bot = second = None
    try:
        host = Client(await dialer(server.address, "host", tmp_path, pin=server.pin)())
        player = BotPlayer(host, RandomBot(random.Random(1)))  # (the host plays its turns)
        hosting = asyncio.create_task(host.run())
        create = m.CreateTable(name="T", preset="classic", toggles={"target": 1}, seats=3)
        await host.send(create)
        await host.send(m.Join(table="T"))
        await wait_for(lambda: host.model.slot is not None)
        await host.send(m.Ready())
        bot = bot_process(server, env, *("--table", "T", "--games", "1", "--name", "first-bot"))
        squatter = Client(await dialer(server.address, "sly", tmp_path, pin=server.pin)())
        squatting = asyncio.create_task(squatter.run())
        await wait_for(lambda: "first-bot: seated" in bot.text(), 60, bot.text)
        await squatter.send(m.Join(table="T"))
        await wait_for(lambda: squatter.seat_lost is not None, 60, bot.text)
        assert squatter.seat_lost is not None
        assert "you did not say ready within 1 s" in squatter.seat_lost.message
        second = bot_process(server, env, *("--table", "T", "--games", "1", "--name", "next-bot"))
        assert await second.exits(120) == 0, second.text() + second.errors()
        assert await bot.exits(120) == 0, bot.text() + bot.errors()
        assert "next-bot: game 1 over" in second.text(), second.text()
        assert player.game_over.is_set()
        hosting.cancel()
        squatting.cancel()
    finally:
        stop(bot, second)
        server.stop()


#: A home-made bot that goes wrong: `raise` raises on its first turn, `pass` always
#: passes (refused on a lead), `none` chooses None.
BAD_BOT = """\
import sys
from president.bots import sdk
from president.cli import bot_script
from president.engine import PASS

HOW = sys.argv[1]


class Bad:
    def choose(self, view):
        if HOW == "raise":
            raise RuntimeError("oops, my bot broke")
        return PASS if HOW == "pass" else None


if __name__ == "__main__":
    sdk.register("bad", lambda rng: Bad())
    raise SystemExit(bot_script("bad", sys.argv[2:]))
"""


def three_bad_bots(tmp_path: Path, server: Server, how: str, *table: str) -> Process:
    """Three of `BAD_BOT` (going wrong `how`) at table T of three seats of `server`, made
    with these options."""
    script = tmp_path / "bad.py"
    script.write_text(BAD_BOT)
    return Process(
        [
            *(str(script), how, "bot", f"127.0.0.1:{server.port}"),
            *("--fingerprint", server.fingerprint, "--table", "T", "--count", "3"),
            *("--seats", "3", *table),
        ],
        environment(tmp_path),
        command=[sys.executable],
    )


@pytest.mark.slow
@pytest.mark.parametrize("how", ["raise", "none", "pass"])
async def test_a_home_made_bot_that_goes_wrong_online_says_how(how: str, tmp_path: Path) -> None:
    """Online as offline, a bot's mistake is said: a strategy that raises stops the bot
    with its traceback, one that chooses no action stops it saying what it chose (both
    once said "the server went away"), and an action the server refuses is said with the
    server's reason as it happens (it was dropped without a word)."""
    async with running_server(tmp_path) as server:
        bots = three_bad_bots(tmp_path, server, how, "--turn-seconds", "30")
        try:
            if how == "pass":  # the leader's pass is refused (and played for: the next test)
                await bots.said("the server refused its pass: the leader may not pass", 1, 0, 60)
                assert bots.proc.poll() is None
                return
            assert await bots.exits(60) == 1, bots.text() + bots.errors()
        finally:
            bots.kill()
    errors = bots.errors()
    assert "its strategy failed, so it stops:" in errors, errors
    assert "went away" not in errors
    if how == "raise":
        assert "Traceback" in errors and "RuntimeError: oops, my bot broke" in errors, errors
    else:
        assert "it chose None, which is not an action" in errors, errors


@pytest.mark.slow
async def test_bots_whose_moves_are_refused_at_a_table_with_no_timer_still_finish(
    tmp_path: Path,
) -> None:
    """Three bots that always pass, at a table with no turn timer: each refused lead is
    said, then the bot plays what the turn timer would in its place, so the game goes
    on to its end and the bots leave (a user pass: the table waited on them for ever)."""
    async with running_server(tmp_path) as server:
        bots = three_bad_bots(tmp_path, server, "pass", "--turn-seconds", "0", "--set", "target=2")
        try:
            # (the timeout only ends a wait that would hang: the game takes seconds)
            assert await bots.exits(120) == 0, bots.text() + bots.errors()
        finally:
            bots.kill()
    said = bots.text() + bots.errors()
    assert "the server refused its pass: the leader may not pass" in said, said
    assert re.search(r"in its place, as the turn timer would: \S", said), said
    assert "game over" in said or "games played" in said or "average place" in said, said


@pytest.mark.slow
@pytest.mark.parametrize("how", ["raise", "none", "pass"])
def test_a_home_made_bot_that_goes_wrong_offline_is_named_with_its_game(
    how: str, tmp_path: Path
) -> None:
    """Offline, over two worker processes: which bot, which game of which seed and hand,
    and what (the strategy's own traceback, once; not the pool's around it twice); exit 1,
    as `president bot`'s (a bot's failure is not a mistake in the command).  The game
    named is the run's earliest that failed, whichever worker finished first (a user
    pass saw game 0, then game 3, then 3 again for the same command)."""
    script = tmp_path / "bad.py"
    script.write_text(BAD_BOT)
    run = Process(
        [str(script), how, "sim", "--games", "4", "--jobs", "2"],
        environment(tmp_path),
        command=[sys.executable],
    )
    assert run.wait(120) == 1, run.text() + run.errors()
    errors = run.errors()
    assert re.match(r"president sim: bad-\d \(seed 1, game \d, hand \d+\): ", errors), errors
    alone = Process(
        [str(script), how, "sim", "--games", "4", "--jobs", "1"],
        environment(tmp_path),
        command=[sys.executable],
    )
    assert alone.wait(120) == 1, alone.text() + alone.errors()
    assert alone.errors().splitlines()[0] == errors.splitlines()[0], (alone.errors(), errors)
    assert "RemoteTraceback" not in errors and errors.count("Traceback") <= 1, errors
    if how == "raise":
        assert "its strategy failed:\nTraceback" in errors, errors
        assert errors.rstrip().endswith("RuntimeError: oops, my bot broke"), errors
    elif how == "none":
        assert errors.rstrip().endswith("it chose None: None is not an action"), errors
    else:
        assert "it chose PASS: the leader may not pass" in errors, errors


#: A home-made bot, three to a process, the first of which to come to its third decision
#: answers it only once the test has seen the turn timer play for it (the file `go`).
SLOW_BOT = """\
import pathlib
import sys
import time

from president.bots import sdk
from president.cli import bot_script

FOLDER = pathlib.Path(sys.argv[1])
HELD = []


class Slow:
    def __init__(self):
        self.decisions = 0

    def choose(self, view):
        self.decisions += 1
        if self.decisions == 3 and not HELD:
            HELD.append(view.seat)
            (FOLDER / "choosing").write_text(view.seating[view.seat])
            while not (FOLDER / "go").exists():
                time.sleep(0.02)
        return view.legal_actions()[0]


if __name__ == "__main__":
    sdk.register("slow", lambda rng: Slow())
    raise SystemExit(bot_script("slow", sys.argv[2:]))
"""


@pytest.mark.slow
async def test_a_bot_slower_than_the_timer_says_so_and_sends_nothing_late(tmp_path: Path) -> None:
    """`president bot` from a script whose `choose` is slower than the turn timer: the
    timer plays for the seat, and the answer that comes after is not taken but said (a
    user pass: a bot sleeping past a 2 s timer had 109 answers refused, some taken at
    later turns, its deal seeds late every hand); the game ends and the bots exit 0."""
    script = tmp_path / "slow.py"
    script.write_text(SLOW_BOT)
    async with running_server(tmp_path) as server:
        bots = Process(
            [
                *(str(script), str(tmp_path), "bot", f"127.0.0.1:{server.port}"),
                *("--fingerprint", server.fingerprint, "--table", "T", "--count", "3"),
                *("--seats", "3", "--turn-seconds", "2", "--set", "target=1"),
            ],
            environment(tmp_path),
            command=[sys.executable],
        )
        try:
            await wait_for(lambda: (tmp_path / "choosing").exists(), 60, bots.errors)
            table = server.lobby.tables["T"]
            asked = table.number
            await wait_for(lambda: table.number > asked, 30)  # (the timer's move: its turn)
            (tmp_path / "go").write_text("")
            assert await bots.exits(120) == 0, bots.text() + bots.errors()
        finally:
            bots.kill()
    said = bots.text() + bots.errors()
    # Dropped by the bot if it had heard the timer's move by then; else sent, and refused
    # by the server as an answer to a turn gone (protocol 13's `seen`): both are the late
    # answer not taken (a CI run sent it: the bot's loop had not read the move yet).
    # Only the held bot's is counted: another's answer later than 2 s on a machine
    # stalled that long would be late too, and rightly said so (an audit).
    held = re.escape((tmp_path / "choosing").read_text())
    dropped = rf"{held}: too slow: the table moved on while it chose \S"
    stale = rf"{held}: the server refused its play: too late: the turn timer moved for you"
    late = re.findall(rf"{dropped}|{stale}", said)
    assert len(late) == 1, said
    assert re.search(rf"{held}: .*\b1 chosen too late for its turn", said), said
    # (said as it happened, once, where the bot heard the timer's move while its strategy
    # still chose, as when its answer is dropped; not where the answer went first and was
    # refused as stale: a CI run. A `choose` stuck for good said nothing until the end.)
    still = rf"{held}: still choosing: the turn timer moved for it while its choose ran \(\d+\.\d s"
    assert len(re.findall(still, said)) == len(re.findall(dropped, said)), said
    # (and the move the timer made for it: a `choose` stuck for good said nothing of it)
    assert re.search(rf"{held}: .*; [1-9]\d* of its moves made by the turn timer", said), said
    stale = r"slow-bot-\d: the server refused its play: too late: the turn timer moved for you"
    refusals = [line for line in said.splitlines() if "refused" in line]
    assert all(re.search(stale, line) for line in refusals), said  # (no mistake refused)


def test_a_factory_that_makes_no_bot_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    from president.bots import sdk, strategies

    monkeypatch.setitem(strategies.STRATEGIES, "nochoose", strategies.STRATEGIES["random"])
    sdk.register("nochoose", lambda rng: object())
    with pytest.raises(ValueError, match=r"the bot strategy 'nochoose' made <object .*>, which"):
        strategies.make_strategy("nochoose", random.Random(1))


def test_a_factory_that_raises_and_a_name_taken_or_unlisted_are_said(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tinkerer's pass: a factory that raised was a traceback through the simulator's
    workers; `register("greedy", ...)` took every greedy seat (the opponents too),
    `register("easy", ...)` was never played, and "a,b" or "Bad Name!" were taken."""
    from president.bots import sdk, strategies
    from president.cli import bot_script

    monkeypatch.setitem(strategies.STRATEGIES, "boomer", strategies.STRATEGIES["random"])
    sdk.register("boomer", lambda rng: 1 // 0)  # type: ignore[arg-type, return-value]
    with pytest.raises(ValueError, match="the bot 'boomer' could not be made: its factory"):
        strategies.make_strategy("boomer", random.Random(1))
    for jobs in ("1", "2"):  # (in this process, and in the simulator's workers)
        assert bot_script("boomer", ["sim", "--games", "2", "--jobs", jobs]) == 2
        said = capsys.readouterr().err
        assert said.strip() == (
            "president sim: the bot 'boomer' could not be made: its factory raised"
            " ZeroDivisionError: integer division or modulo by zero"
        ), said
    for taken in ("greedy", "Easy", "hard"):
        with pytest.raises(ValueError, match="is the name of a built-in bot"):
            sdk.register(taken, lambda rng: strategies.RandomBot(rng))
    for unlisted in ("", "a,b", "Bad Name!", "x" * 33):
        with pytest.raises(ValueError, match="a bot's name is 1 to 32 letters"):
            sdk.register(unlisted, lambda rng: strategies.RandomBot(rng))
    assert strategies.STRATEGIES["greedy"] is not strategies.STRATEGIES["boomer"]


def test_a_bot_script_gives_its_bot_unless_the_line_up_is_named_in_any_form(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python mybot.py sim` plays the script's bot against greedy ones, in every seat but
    one at any table size; a line-up named as argparse takes it (`--bots=X`, `--bot X`)
    is played as named (`--bots=heuristic` was overridden by the script's line-up)."""
    from president.bots import sdk, strategies
    from president.cli import bot_script

    monkeypatch.setitem(strategies.STRATEGIES, "mine", strategies.STRATEGIES["random"])
    sdk.register("mine", lambda rng: strategies.RandomBot(rng))
    run = ["sim", "--games", "2", "--jobs", "1"]
    for more, line_up in (
        ([], ["mine", "greedy", "greedy", "greedy"]),
        (["--players", "5"], ["mine", "greedy", "greedy", "greedy", "greedy"]),
        (["--players=3"], ["mine", "greedy", "greedy"]),
        (["--bots=heuristic"], ["heuristic"] * 4),
        (["--bot", "random,greedy,greedy"], ["random", "greedy", "greedy"]),
    ):
        assert bot_script("mine", [*run, *more]) == 0
        out, err = capsys.readouterr()
        entrants = re.findall(r"^([a-z]+)-\d+ ", out, re.MULTILINE)
        assert entrants == line_up, more
        # (a line-up without the script's bot is said: a pass's went unnoticed)
        assert ("names no mine (this script's bot)" in err) == ("mine" not in line_up), err
    assert bot_script("mine", ["--help"]) == 0
    assert "usage:" in capsys.readouterr().out
    # a command's help says what the script's default is (argparse's says president's)
    for asked in ("--help", "-h", "--he"):
        with pytest.raises(SystemExit):
            bot_script("mine", ["sim", asked])
        said = capsys.readouterr().out
        assert ": president sim, with --bots mine,greedy,greedy,greedy by default" in said
    with pytest.raises(SystemExit):
        bot_script("mine", ["bot", "--help"])
    assert "with --strategy mine by default" in capsys.readouterr().out
    assert bot_script("mine", ["simm"]) == 2
    assert "choose sim, bot or play, not 'simm'; did you mean sim?" in capsys.readouterr().err


async def test_president_bot_waits_out_password_checks_held_by_guessers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second hostile pass: while guessers had used up the minute's password checks
    at the server, `president bot --count 3` said "could not sit" and quit, whatever its
    --give-up.  It says the wait and tries again within --give-up, as a person would."""
    import argparse

    from president.cli import bot

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(bot, "AGAIN", 0.2)
    async with running_server(tmp_path) as server:
        guard = server.lobby.guard
        now = [1000.0]
        guard.clock = lambda: now[0]
        host = await client(server, "host", tmp_path)
        await host.send(
            m.CreateTable(name="P", preset="classic", toggles={"target": 1}, seats=3, password="s")
        )
        await wait_for(lambda: "P" in server.lobby.tables)
        for i in range(guard.new_per_minute):  # guessers take the minute's first tries
            assert guard.refusal(f"10.6.0.{i}", "table") is None
            guard.wrong(f"10.6.0.{i}", "table")
        args = argparse.Namespace(
            address=f"127.0.0.1:{server.port}", strategy="greedy", count=3, table="P",
            name=None, games=1, fingerprint=server.fingerprint, password=None,
            table_password="s", preset="classic", seats=3, turn_seconds=30, delay=0.0,
            playouts=None, think=None, seed=3, give_up=60.0,
        )  # fmt: skip
        said: list[str] = []
        bots = asyncio.create_task(bot.run_bots(args, said.append))
        await wait_for(lambda: any("(waiting)" in line for line in said) or bots.done(), 20)
        assert not bots.done(), said
        assert any("too many password tries" in line for line in said), said
        now[0] += 61  # the minute is over: the checks are back
        assert await asyncio.wait_for(bots, 60) == 0, said
        assert any("greedy-bot-1: seated at P" in line for line in said), said
        await host.link.close()


async def test_a_connection_lost_between_the_seat_and_the_ready_is_reconnected_not_fatal() -> None:
    """A CI run: the server went just after the bot sat, its `ready` found the connection
    gone, and the bot ended at once with "president bot: Connection lost", status 2,
    where it reconnects (its seat taken back says ready again) or gives up, status 1."""
    from president.bots.strategies import RandomBot
    from president.cli.bot import BotFailed, RunningBot, play_games
    from president.client.headless import BotPlayer
    from president.client.model import TableModel

    class Gone:
        """A client whose connection has just dropped, and whose reader gives up."""

        model = TableModel(me="bot")
        seat_lost = bye = None
        gave_up = "gave up reconnecting after 20 s"
        on_message = None

        async def send(self, message: m.Message) -> None:
            raise ConnectionError("Connection lost")

    gone = Gone()
    player = BotPlayer(gone, RandomBot(random.Random(1)))  # type: ignore[arg-type]
    reader = asyncio.ensure_future(asyncio.sleep(0))  # (the reader: it has given up)
    bot = RunningBot("bot", gone, player, reader)  # type: ignore[arg-type]
    with pytest.raises(BotFailed, match="bot: gave up reconnecting after 20 s"):
        await play_games(bot, 1, print)


@pytest.mark.slow
async def test_a_player_away_past_the_hosts_grace_is_out_of_the_game_from_the_next_hand(
    tmp_path: Path,
) -> None:
    """`president server --grace-seconds 1` (README: a seat waits the host's grace
    period; a pass found it promised "for as long as the game lasts", and 2 minutes
    away cost a seat): ann's bot process is killed once her table is full, and the three
    others play the game to its end without her from the next hand on."""
    from .harness.processes import ServerProcess, bot_process, stop

    data = tmp_path / "data"
    server = await ServerProcess.started(data, 0, "--grace-seconds", "1")
    env = environment(tmp_path)
    ann = others = None
    try:
        ann = bot_process(
            server,
            env,
            *("--table", "T", "--name", "ann", "--strategy", "greedy", "--turn-seconds", "1"),
            *("--set", "target=4"),
        )
        await ann.said("ann: seated at T")
        others = bot_process(
            server, env, *("--table", "T", "--count", "3", "--name", "b", "--strategy", "greedy")
        )
        await others.said("seated at T", 3)
        ann.kill()  # (no goodbye: her chair is away)
        assert await others.exits(120) == 0, others.text() + others.errors()
        (record,) = [json.loads(p.read_text()) for p in (data / "records").iterdir()]
        assert "ann" not in record["hands"][-1]["seating"], record["hands"][-1]["seating"]
    finally:
        stop(ann, others)
        server.stop()

"""Every mistake is one line (issue 13, step 5): each subcommand run as a real process
with bad input, in a sandbox of its own, says what is wrong in exactly one line on
stderr, exits 2 (130 for Ctrl-C; `president replay` keeps its 0/1/2), never shows a
traceback and leaves nothing behind.  The matrix runs its processes a few at a time."""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import random
import re
import signal
import socket
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from president.bots.strategies import LEVELS, make_strategy, strategy_name
from president.cli.main import COMMANDS, build_parser, compiled_modules

from .harness.processes import PRESIDENT, ServerProcess, environment, president, president_here
from .harness.screen import Screen
from .harness.terminal import Terminal
from .harness.waiting import wait_for

RECORD = Path(__file__).parent / "engine" / "records" / "game_classic.json"
#: Permissions mean nothing to root: the read-only cases run for other users only.
ROOT_USER = os.geteuid() == 0
#: A port something listens on, and one nothing does (both on loopback): the second is
#: held bound but not listening for as long as the tests run, so that no other server
#: (another worker's) can take it and a connection to it is always refused.
_busy = socket.create_server(("127.0.0.1", 0))
BUSY = _busy.getsockname()[1]
_closed = socket.socket()
_closed.bind(("127.0.0.1", 0))
CLOSED = _closed.getsockname()[1]


@dataclass(frozen=True)
class Case:
    """`president ARGS` and what it must say: `words` on its one stderr line (or, with
    code 0, in its output).  `tty`: stdin and stdout are a terminal (stderr stays a pipe)."""

    args: tuple[str, ...]
    words: str
    code: int = 2
    tty: bool = False
    read_only: bool = False  # needs a directory its user cannot write in
    env: tuple[tuple[str, str], ...] = ()  # added to the sandbox's environment


def case(
    *args: str,
    words: str,
    code: int = 2,
    tty: bool = False,
    ro: bool = False,
    env: dict[str, str] | None = None,
) -> Case:
    return Case(args, words, code, tty, ro, tuple((env or {}).items()))


LONG = "x" * 65
CASES: dict[str, Case] = {
    # rules: a preset in any case; unknown ones, in any case, refused
    "rules-upper": case("rules", "CLASSIC", words="Preset classic", code=0),
    "rules-mixed-json": case("rules", "House", "--json", words='"preset": "house"', code=0),
    "rules-unknown": case("rules", "poker", words="no preset 'poker'"),
    "rules-unknown-upper": case("rules", "POKER", words="no preset 'POKER'"),
    "rules-set-shape": case("rules", "classic", "--set", "bombs", words="NAME=VALUE"),
    "rules-set-unknown": case("rules", "sheet", "--set", "nope=1", words="no toggle 'nope'"),
    "rules-set-typo": case(
        "rules",
        *("--set", "nine_clear=on"),
        words="there is no toggle 'nine_clear' (did you mean nines_clear?)",
    ),
    "no-such-command": case("deal", words="invalid choice: 'deal'"),
    "command-typo": case("srever", words="; did you mean server? (see president --help)"),
    "bot-typo": case(
        *("sim", "--bots", "random,randm,random", "--games", "1"),
        words="no bot strategy 'randm' (did you mean random?)",
    ),
    # replay: 2 for anything that is not a record
    "replay-random-bytes": case("replay", "{garbage}", words="not a game record: not JSON"),
    # (a game-night pass: --rules classic meant the preset; --rules "" read the folder)
    "replay-rules-a-preset": case(
        "replay", str(RECORD), "--rules", "classic", words="(classic is a preset: --rules takes"
    ),
    "sim-rules-empty": case("sim", "--rules", "", words="--rules names a rules file or a saved"),
    "replay-truncated": case("replay", "--json", "{truncated}", words="truncated.json"),
    "replay-empty": case("replay", "{empty}", words="empty.json"),
    "replay-nested": case("replay", "{nested}", words="JSON nested too deeply"),
    "replay-view-nested": case("replay", "--view", "{nested}", words="JSON nested too deeply"),
    "analyze-nested": case("analyze", "{nested}", words="JSON nested too deeply"),
    "replay-brackets": case("replay", "{brackets}", words="far more JSON arrays and objects"),
    "analyze-brackets": case("analyze", "{brackets}", words="far more JSON arrays and objects"),
    "analyze-jobs-huge": case(
        "analyze", "{record}", "--jobs", "100000", words="--jobs: must be 1 to 256"
    ),
    "replay-directory": case("replay", "{dir}", words="cannot read"),
    "replay-missing": case("replay", "{missing}", words="No such file"),
    "replay-under-a-file": case("replay", "{file}/x", words="Not a directory"),
    "replay-unreadable": case("replay", "{unreadable}", words="Permission denied", ro=True),
    # sim
    "sim-preset-upper": case(
        "sim", "--preset", "HOUSE", "--games", "1", "--jobs", "1", words="preset house", code=0
    ),
    "sim-levels": case(
        "sim",
        *("--bots", "EASY,normal,Hard,random", "--playouts", "4", "--games", "1", "--jobs", "1"),
        words="search-2",
        code=0,
    ),
    "sim-preset-unknown": case("sim", "--preset", "Poker", words="no preset 'Poker'"),
    "sim-players-word": case("sim", "--players", "four", words="not a whole number: 'four'"),
    "sim-players-0": case("sim", "--players", "0", words="at least 3 players"),
    "sim-players-negative": case("sim", "--players", "-3", words="at least 3 players"),
    "sim-players-100": case("sim", "--players", "100", words="at most 8 players"),
    "sim-games-0": case("sim", "--games", "0", words="--games: must be 1 to 1000000"),
    "sim-games-huge": case("sim", "--games", "1" + "0" * 30, words="must be 1 to 1000000"),
    "sim-games-fraction": case("sim", "--games", "1.5", words="not a whole number"),
    "sim-seed-word": case("sim", "--seed", "abc", words="--seed: not a whole number"),
    "sim-jobs-0": case("sim", "--jobs", "0", words="--jobs: must be 1 to 256"),
    "sim-jobs-huge": case("sim", "--jobs", "100000", words="--jobs: must be 1 to 256"),
    "sim-playouts-0": case("sim", "--playouts", "0", words="--playouts: must be 1 to"),
    # a budget no bot of the line-up uses (the search's, with no search bot)
    "sim-playouts-unused": case(
        "sim", "--playouts", "50", words="--playouts is the search bot's budget (hard)"
    ),
    "sim-think-unused": case(
        "sim", "--bots", "easy,normal,random", "--think", "0.1", words="no bot here searches"
    ),
    "sim-think-and-playouts": case(
        "sim", "--bots", "search", "--think", "0.1", "--playouts", "9", words="give one"
    ),
    # (the bot command took a budget no strategy of its used, a tinkerer's pass)
    "bot-playouts-unused": case(
        "bot",
        "127.0.0.1:9",
        "--strategy",
        "greedy",
        "--playouts",
        "5",
        words="--playouts is the search bot's budget (hard), and no bot here searches",
    ),
    "sim-think-nan": case("sim", "--think", "nan", words="--think: must be more than 0"),
    "sim-think-inf": case("sim", "--think", "inf", words="--think: must be more than 0"),
    "sim-think-negative": case("sim", "--think", "-1", words="--think: must be more than 0"),
    "sim-bots-unknown": case(
        "sim", "--bots", "genius", words="a bot of your own plays through its script"
    ),
    "sim-bots-empty": case("sim", "--bots", ",,", words="at least one strategy"),
    "sim-record-a-file": case("sim", "--games", "1", "--record", "{file}", words="cannot write"),
    "sim-record-under-a-file": case(
        "sim", "--games", "1", "--record", "{file}/r", words="Not a directory"
    ),
    "sim-record-read-only": case(
        "sim", "--games", "1", "--record", "{ro}", words="Permission denied", ro=True
    ),
    "sim-record-under-read-only": case(
        "sim", "--games", "1", "--record", "{ro}/new/r", words="Permission denied", ro=True
    ),
    "sim-record-then-mistake": case(
        "sim", "--record", "{new}/r", "--players", "3", "--bots", "a,b", words="no bot strategy"
    ),
    # play: the options, then (in a terminal) its data directory
    "play-preset-upper": case("play", "--preset", "TABLE", words="needs a terminal"),
    "play-preset-unknown": case("play", "--preset", "POKER", words="no preset 'POKER'"),
    "play-players-2": case("play", "--players", "2", words="at least 3 players"),
    "play-players-word": case("play", "--players", "x", words="not a whole number"),
    "play-bots-unknown": case("play", "--bots", "genius", words="no bot strategy 'genius'"),
    "play-bots-level": case("play", "--bots", "HARD", words="needs a terminal"),
    # a name its own server refuses: one line (it was a traceback), the server gone with it
    "play-name-bot": case(
        "play", "--name", "bot:x", words="--name 'bot:x' cannot play: a name may not", tty=True
    ),
    "play-name-angle": case("play", "--name", "a<b", words="may not hold < or >", tty=True),
    # (a terminal pass: the full screen drawn on TERM=dumb without a word)
    "play-term-dumb": case("play", words="TERM=dumb says", tty=True, env={"TERM": "dumb"}),
    "connect-term-dumb": case(
        "connect", "127.0.0.1:1", words="TERM=dumb says", tty=True, env={"TERM": "dumb"}
    ),
    "replay-view-term-dumb": case(
        "replay", "{record}", "--view", words="TERM=dumb says", tty=True, env={"TERM": "dumb"}
    ),
    # the byte of a Latin-1 terminal's é under a UTF-8 locale (it was "may not hold
    # U+DCE9: half of a surrogate pair")
    "play-name-bytes": case(
        "play", "--name", "Jos\udce9", words="--name: a name is not utf-8 text", tty=True
    ),
    "bot-table-bytes": case(
        "bot", "127.0.0.1:1", "--table", "\udcff", words="--table: a table name is not utf-8 text"
    ),
    # (a password's bytes are not shown: a recheck saw `--password p\xe9` on the screen)
    "bot-password-bytes": case(
        "bot", "127.0.0.1:1", "--password", "p\udce9", words="a password is not utf-8 text"
    ),
    "bot-password-variable-bytes": case(
        "bot",
        "127.0.0.1:1",
        words="a password is not utf-8 text",
        env={"PRESIDENT_PASSWORD": "p\udce9"},
    ),
    "analyze-seat-bytes": case(
        "analyze", "{file}", "--seat", "\udce9", words="--seat: a name is not utf-8 text"
    ),
    "stats-player-bytes": case(
        "stats", "--records", "{dir}", "--player", "\udce9", words="is not utf-8 text"
    ),
    "play-bot-delay-negative": case("play", "--bot-delay", "-1", words="--bot-delay: must be"),
    "play-bot-delay-nan": case("play", "--bot-delay", "nan", words="--bot-delay: must be"),
    "play-pause-inf": case("play", "--pause", "inf", words="--pause: must be"),
    "play-name-empty": case("play", "--name", "", words="1 to 32 characters"),
    "play-name-long": case("play", "--name", LONG, words="1 to 32 characters"),
    "play-data-a-file": case("play", "--data", "{file}", words="is not a directory", tty=True),
    "play-data-under-a-file": case(
        "play", "--data", "{file}/d", words="cannot make the data directory", tty=True
    ),
    "play-data-read-only": case(
        "play", "--data", "{ro}", words="Permission denied", tty=True, ro=True
    ),
    "play-data-read-only-used": case(
        "play", "--data", "{used}", words="cannot keep the certificate", tty=True, ro=True
    ),
    "play-data-under-read-only": case(
        "play", "--data", "{ro}/d", words="Permission denied", tty=True, ro=True
    ),
    # server
    "server-port-huge": case("server", "--port", "99999", words="a port is 0 to 65535"),
    "server-port-negative": case("server", "--port", "-1", words="a port is 0 to 65535"),
    "server-port-word": case("server", "--port", "http", words="not a port number"),
    "server-port-in-use": case(
        "server",
        *("--host", "127.0.0.1", "--port", str(BUSY), "--data", "{new}/data"),
        words=f"cannot listen on 127.0.0.1:{BUSY}: Address already in use (another server or "
        "program listens there: stop it, or give --port)",
    ),
    "server-host-unknown": case(
        "server", "--host", "nosuchhost.invalid", "--port", "0", "--data", "{new}", words="listen"
    ),
    "server-host-garbage": case(
        "server",
        "--host",
        "no such host",
        "--port",
        "0",
        "--data",
        "{new}",
        words="--host: not an address or host name: 'no such host'",
    ),
    "server-host-with-port": case(
        "server",
        *("--host", "127.0.0.1:80", "--data", "{new}"),
        words="--host: not an address or host name: '127.0.0.1:80' (a port goes in --port: --port 80)",
    ),
    "server-option-typo": case(
        "server",
        *("--prot", "7766"),
        words="president server: unrecognized arguments: --prot 7766; did you mean --port? "
        "(see president server --help)",
    ),
    "server-address-as-connect-takes-it": case(
        "server",
        "127.0.0.1:18209",
        words="president server: unrecognized arguments: 127.0.0.1:18209; this command takes"
        " the address as --host 127.0.0.1 --port 18209 (see president server --help)",
    ),
    "sim-word-left-over": case(
        "sim", "--games", "1", "extra", words="president sim: unrecognized arguments: extra"
    ),
    "server-data-empty": case(
        "server", "--data", "", words="--data: an empty directory name (leave the option out"
    ),
    "server-data-a-file": case("server", "--data", "{file}", words="is not a directory"),
    "server-data-under-a-file": case(
        "server", "--data", "{file}/d", words="cannot make the data directory"
    ),
    "server-data-read-only": case(
        "server", "--port", "0", "--data", "{ro}", words="Permission denied", ro=True
    ),
    "server-data-read-only-used": case(
        "server", "--port", "0", "--data", "{used}", words="cannot keep the certificate", ro=True
    ),
    "server-data-under-read-only": case(
        "server", "--port", "0", "--data", "{ro}/d", words="Permission denied", ro=True
    ),
    "server-pause-negative": case("server", "--pause", "-1", words="--pause: must be"),
    "server-bot-delay-nan": case("server", "--bot-delay", "nan", words="--bot-delay: must be"),
    "server-bot-delay-negative": case(
        "server", "--bot-delay", "-1", words="--bot-delay: must be 0 to 60 seconds, not '-1'"
    ),
    "server-password-env-long": case(
        "server",
        words="PRESIDENT_PASSWORD: a password must be 1 to 64",
        env={"PRESIDENT_PASSWORD": LONG},
    ),
    "server-cap-0": case("server", "--max-connections", "0", words="must be 1 to"),
    "server-cap-word": case("server", "--bot-workers", "two", words="not a whole number"),
    "server-name-empty": case("server", "--name", "", words="1 to 32 characters"),
    "server-password-empty": case("server", "--password", "", words="1 to 64 characters"),
    "server-password-long": case("server", "--password", LONG, words="1 to 64 characters"),
    # connect: the options, then (in a terminal) the address
    "connect-address-garbage": case("connect", "no such host", words="not HOST[:PORT]"),
    "connect-address-empty": case("connect", "", words="not HOST[:PORT]"),
    "connect-port-huge": case("connect", "localhost:99999", words="a port is 1 to 65535"),
    "connect-port-word": case("connect", "localhost:http", words="a port is 1 to 65535"),
    "connect-port-none": case("connect", "127.0.0.1:", words="no port after the colon"),
    "connect-bots-unknown": case("connect", "x", "--bots", "genius", words="no bot strategy"),
    "connect-name-empty": case("connect", "x", "--name", "", words="1 to 32 characters"),
    "connect-name-space": case(
        "connect",
        "127.0.0.1:1",
        "--name",
        " ann",
        words="may not begin or end with a space",
        tty=True,
    ),
    "connect-password-long": case("connect", "x", "--password", LONG, words="1 to 64"),
    "connect-host-unknown": case(
        "connect", "nosuchhost.invalid", words="cannot reach a president server", tty=True
    ),
    "connect-port-closed": case(
        "connect", f"127.0.0.1:{CLOSED}", words="cannot reach a president server", tty=True
    ),
    "connect-fingerprint-garbage": case(
        "connect", "127.0.0.1", "--fingerprint", "zz", words="not a SHA-256", tty=True
    ),
    # bot
    "bot-address-garbage": case("bot", "host:port:x", words="not HOST[:PORT]"),
    "bot-port-0": case("bot", "localhost:0", words="a port is 1 to 65535"),
    "bot-count-0": case("bot", "x", "--count", "0", words="--count: must be 1 to 12"),
    # an empty key path meant the default key without a word (the key-edge pass)
    "bot-identity-empty": case("bot", "x", "--identity", "", words="--identity: an empty path"),
    "connect-identity-empty": case(
        "connect", "x", "--identity", " ", words="--identity: an empty path"
    ),
    "bot-count-13": case("bot", "x", "--count", "13", words="--count: must be 1 to 12"),
    "bot-games-negative": case("bot", "x", "--games", "-1", words="--games: must be at least 0"),
    "bot-seats-2": case("bot", "x", "--seats", "2", words="--seats: must be 3 to 12"),
    "bot-seats-9": case("bot", "x", "--seats", "9", words="at most 8 players"),
    "bot-preset-unknown": case("bot", "x", "--preset", "Poker", words="no preset 'Poker'"),
    "bot-turn-negative": case("bot", "x", "--turn-seconds", "-5", words="must be 0 to 3600"),
    "bot-turn-huge": case("bot", "x", "--turn-seconds", "3601", words="must be 0 to 3600"),
    "bot-delay-nan": case("bot", "x", "--delay", "nan", words="--delay: must be"),
    "bot-give-up-0": case("bot", "x", "--give-up", "0", words="--give-up: must be more than 0"),
    "bot-give-up-inf": case("bot", "x", "--give-up", "inf", words="--give-up: must be"),
    "bot-seed-word": case("bot", "x", "--seed", "x", words="--seed: not a whole number"),
    "bot-strategy-unknown": case("bot", "x", "--strategy", "genius", words="no bot strategy"),
    "bot-playouts-0": case("bot", "x", "--playouts", "0", words="--playouts: must be"),
    "bot-think-0": case("bot", "x", "--think", "0", words="--think: must be more than 0"),
    "bot-name-long": case("bot", "x", "--name", "n" * 33, words="1 to 32 characters"),
    "bot-name-numbered": case(
        "bot", "x", "--name", "n" * 30, "--count", "2", words="at most 29 characters"
    ),
    "bot-table-long": case("bot", "x", "--table", "t" * 41, words="1 to 40 characters"),
    "bot-table-password-empty": case("bot", "x", "--table-password", "", words="1 to 64"),
    "bot-table-password-env-long": case(
        "bot",
        "x",
        words="PRESIDENT_TABLE_PASSWORD: a password must be 1 to 64",
        env={"PRESIDENT_TABLE_PASSWORD": LONG},
    ),
    "bot-prompt-without-terminal": case(
        "bot", "x", "--password-prompt", words="needs a terminal to ask in"
    ),
    "bot-password-twice": case(
        "bot", "x", "--password", "a", "--password-prompt", words="not both"
    ),
    "bot-host-unknown": case("bot", "nosuchhost.invalid", words="cannot reach a president"),
    "bot-port-closed": case("bot", f"127.0.0.1:{CLOSED}", words="cannot reach a president"),
    "bot-accepts-any-case": case(
        "bot",
        *(f"127.0.0.1:{CLOSED}", "--preset", "CLASSIC", "--strategy", "Hard"),
        words="cannot reach a president",
    ),
    "bot-fingerprint-garbage": case("bot", "127.0.0.1", "--fingerprint", "zz", words="SHA-256"),
}


def sandbox(root: Path) -> dict[str, str]:
    """A case's own folder: files to point at, and the paths it names."""
    root.mkdir()
    (root / "afile").write_text("not a directory\n")
    (root / "adir").mkdir()
    (root / "garbage.json").write_bytes(random.Random(13).randbytes(2000))
    record = RECORD.read_bytes()
    (root / "truncated.json").write_bytes(record[: len(record) // 2])
    (root / "empty.json").write_bytes(b"")
    (root / "nested.json").write_text('{"a":' * 2000 + "1" + "}" * 2000)  # (4 KB)
    brackets = '{"format": "president-record/1", "hands": [' + "[]," * 5000 + "[]]}"
    (root / "brackets.json").write_text(brackets)  # (15 KB; 200 MB of it took 5 GB)
    (root / "unreadable.json").write_bytes(record)
    (root / "unreadable.json").chmod(0)
    (root / "ro").mkdir(mode=0o500)
    used = root / "used"  # a server's data directory, made read-only after a first start
    (used / "records").mkdir(mode=0o700, parents=True)
    (used / "lock").write_bytes(b"")
    (used / "lock").chmod(0o600)
    used.chmod(0o500)
    return {
        "file": str(root / "afile"),
        "dir": str(root / "adir"),
        "garbage": str(root / "garbage.json"),
        "truncated": str(root / "truncated.json"),
        "empty": str(root / "empty.json"),
        "nested": str(root / "nested.json"),
        "brackets": str(root / "brackets.json"),
        "record": str(RECORD),
        "unreadable": str(root / "unreadable.json"),
        "missing": str(root / "missing.json"),
        "ro": str(root / "ro"),
        "new": str(root / "new"),
        "used": str(used),
    }


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    before: set[str]
    after: set[str]


#: The commands whose cases (a mistake told in one line, before any server listens or
#: any screen opens) also run in this process (`president_here`, the fast tier): all
#: but the first two of each, which run as processes with the cases that need a
#: terminal or an environment of their own.  A process costs ~1.3 s of CPU: 112 of
#: them were the slow tier's largest part.
HERE_COMMANDS = ("rules", "replay", "sim", "bot", "play", "deal", "server", "connect")


def _here(name: str, case: Case) -> bool:
    """Whether a case runs in this process: a command of `HERE_COMMANDS`, no terminal,
    no environment of its own, and not among its command's first two."""
    command = case.args[0]
    if command not in HERE_COMMANDS or case.tty or case.env:
        return False
    firsts = [n for n, c in CASES.items() if c.args[0] == command][:2]
    return name not in firsts


def run_case(root: Path, case: Case) -> Outcome:
    paths = sandbox(root)
    before = tree(root)
    args = [arg.format(**paths) for arg in case.args]
    if case.tty:
        code, out, err = in_terminal(args, root, dict(case.env))
    else:
        done = president(*args, env=environment(root, **dict(case.env)), cwd=root, timeout=30)
        code, out, err = done.returncode, done.stdout, done.stderr
    return Outcome(code, out, err, before, tree(root))


def in_terminal(args: list[str], root: Path, env: dict[str, str]) -> tuple[int | None, str, str]:
    """stdin and stdout a terminal, stderr a pipe of its own."""
    term = env.get("TERM", "xterm")  # (the harness's, unless the case says another)
    terminal = Terminal(
        [*PRESIDENT, *args], environment(root, **env), stderr_apart=True, cwd=root, term=term
    )
    try:
        code = terminal.wait(30)
        return code, terminal.output(), terminal.errors()
    finally:
        terminal.close()


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Outcome]]]:
    """The cases of the matrix this run selected, started at once, four processes at a
    time."""
    selected = {
        item.callspec.params["name"]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_a_mistake_is_one_line"
    }
    base = tmp_path_factory.mktemp("cases")
    with ThreadPoolExecutor(4) as pool:
        yield {
            name: pool.submit(run_case, base / name, case)
            for name, case in CASES.items()
            if name in selected and not (case.read_only and ROOT_USER)
        }
    for path in base.rglob("*"):  # let pytest clean up the unreadable and read-only ones
        with contextlib.suppress(OSError):
            path.chmod(0o700)


# (one worker runs the whole matrix: its fixture starts every selected case)
@pytest.mark.slow
@pytest.mark.xdist_group("cli-matrix")
@pytest.mark.parametrize("name", [name for name, case in CASES.items() if not _here(name, case)])
def test_a_mistake_is_one_line(name: str, outcomes: dict[str, Future[Outcome]]) -> None:
    case = CASES[name]
    if case.read_only and ROOT_USER:
        pytest.skip("permissions do not stop root")
    check_outcome(case, outcomes[name].result())


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if _here(name, case)])
def test_a_mistake_is_one_line_here(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same matrix's cases that are told before anything starts, in this process:
    the sandbox's home and XDG folders, its folder as the working one."""
    case = CASES[name]
    if case.read_only and ROOT_USER:
        pytest.skip("permissions do not stop root")
    root = tmp_path / "case"
    paths = sandbox(root)
    before = tree(root)
    for key, value in environment(root).items():
        if key in ("HOME",) or key.startswith("XDG_"):
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(root)
    done = president_here(*[arg.format(**paths) for arg in case.args])
    try:
        check_outcome(case, Outcome(done.returncode, done.stdout, done.stderr, before, tree(root)))
    finally:
        for path in root.rglob("*"):  # (pytest removes it: the unreadable ones too)
            with contextlib.suppress(OSError):
                path.chmod(0o700)


def check_outcome(case: Case, result: Outcome) -> None:
    said = f"exit {result.code}\nstdout: {result.out!r}\nstderr: {result.err!r}"
    assert "Traceback" not in result.out + result.err, said
    assert result.code == case.code, said
    if case.code == 0:
        assert case.words in result.out, said
    else:
        assert result.err.endswith("\n") and result.err.count("\n") == 1, said
        assert case.words in result.err and result.err.startswith("president"), said
        assert result.after == result.before, f"left behind: {result.after - result.before}"


# --- prompts: Ctrl-C, and the passwords ------------------------------------------------------


@contextlib.contextmanager
def prompted(
    args: list[str], env: dict[str, str], *, stderr_too: bool = False, columns: int = 100
) -> Iterator[Terminal]:
    """`president ARGS` in a terminal that is its controlling terminal (so Ctrl-C is a
    SIGINT, as for a person), its stderr apart (or, `stderr_too`, on the terminal)."""
    terminal = Terminal([*PRESIDENT, *args], env, columns=columns, stderr_apart=not stderr_too)
    try:
        yield terminal
    finally:
        terminal.close()


async def interrupted(terminal: Terminal, question: str) -> None:
    """At `question`, Ctrl-C: exit 130, one line on stderr."""
    await terminal.said(question)
    before = len(terminal.errors())
    terminal.ctrl_c()
    code = await terminal.exits()
    err = terminal.errors()[before:]
    assert code == 130 and err.count("\n") == 1 and "interrupted" in err, (code, err)
    assert "Traceback" not in err + terminal.output()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server whose password (sesame) comes from its environment: (address, pin)."""
    base = tmp_path_factory.mktemp("guarded")
    server = ServerProcess(base / "data", env=environment(base, PRESIDENT_PASSWORD="sesame"))
    try:
        yield server.address, server.pin
    finally:
        server.stop(signal.SIGTERM)


@pytest.mark.slow
async def test_ctrl_c_at_the_trust_question(guarded: tuple[str, str], tmp_path: Path) -> None:
    address, _ = guarded
    with prompted(["connect", address, "--name", "ann"], environment(tmp_path)) as terminal:
        await interrupted(terminal, "Trust this server and remember it [y/N]")
    assert not (tmp_path / "config").exists()  # nothing remembered
    # answered, the question leads on to the password the server wants, then the lobby
    with prompted(["connect", address, "--name", "ann"], environment(tmp_path)) as terminal:
        await terminal.said("Trust this server and remember it [y/N]")
        terminal.send("y\r")
        await terminal.said(f"the password for {address} (not shown): ")
        terminal.send("sesame\r")
        await terminal.said("tables")
        terminal.send("qq")  # (the lobby's q asks once)
        assert await terminal.exits() == 0
    assert address in (tmp_path / "config" / "president" / "known_servers").read_text()


@pytest.mark.slow
async def test_the_trust_question_is_broken_at_words_in_a_narrow_terminal(
    guarded: tuple[str, str], tmp_path: Path
) -> None:
    """At 70 columns the question's lines end at words (the terminal broke "certificate"
    across two rows), and the fingerprint is in two rows of 16 whole bytes."""
    address, pin = guarded
    args = ["connect", address, "--name", "ann"]
    with prompted(args, environment(tmp_path), columns=70) as terminal:
        await terminal.said("Trust this server and remember it [y/N]")
        rows = [row.rstrip() for row in terminal.text().splitlines() if row.strip()]
        words = " ".join(rows).split()
        assert "certificate" in words and "printed." in words, rows
        assert all(len(row) < 70 for row in rows), rows
        hexes = pin.replace(":", "").upper()
        shown = [row.strip() for row in rows if row.startswith("  ")]
        assert [len(row) for row in shown] == [48, 47], rows  # 16 bytes, then 16
        assert "".join(shown).replace(":", "").upper() == hexes, rows
        terminal.ctrl_c()
        assert await terminal.exits() == 130


@pytest.mark.slow
async def test_connect_asks_for_the_password_the_server_wants(
    guarded: tuple[str, str], tmp_path: Path
) -> None:
    address, pin = guarded
    # (a name of its own: the server is shared, and "ann" is another test's key's there)
    args = ["connect", address, "--name", "pat", "--fingerprint", pin]
    with prompted(args, environment(tmp_path)) as terminal:
        await terminal.said(f"the password for {address} (not shown): ")
        terminal.send("\r")  # nothing typed: asked again
        await terminal.said(f"nothing typed: the password for {address} (not shown): ")
        terminal.send("sesame\r")
        await terminal.said("tables")  # the lobby
        terminal.send("qq")  # (the lobby's q asks once)
        assert await terminal.exits() == 0
        assert "sesame" not in terminal.output() + terminal.errors()
    # a wrong one (from the environment) is asked again, saying so; Ctrl-C there
    env = environment(tmp_path, PRESIDENT_PASSWORD="open")
    with prompted(args, env) as terminal:
        await interrupted(terminal, "that password is wrong. The password for")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "question"),
    [
        (["connect", "127.0.0.1:1", "--password-prompt"], "the server's password: "),
        (["bot", "127.0.0.1:1", "--password-prompt"], "the server's password: "),
        (["bot", "127.0.0.1:1", "--table-password-prompt"], "the table's password: "),
        (
            ["server", "--port", "0", "--data", "{data}", "--password-prompt"],
            "the password every client must give: ",
        ),
    ],
)
async def test_ctrl_c_at_a_password_prompt(args: list[str], question: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with prompted([a.format(data=data) for a in args], environment(tmp_path)) as terminal:
        await interrupted(terminal, question)
        assert not data.exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "question"),
    [
        (["connect", "127.0.0.1:1", "--password-prompt"], "the server's password: "),
        (["bot", "127.0.0.1:1", "--password-prompt"], "the server's password: "),
        (["server", "--port", "0", "--data", "{data}", "--password-prompt"], "must give: "),
    ],
)
async def test_ctrl_c_at_a_prompt_says_so_on_a_line_of_its_own(
    args: list[str], question: str, tmp_path: Path
) -> None:
    """stderr a terminal too: "interrupted" starts a line, not the prompt's end."""
    data = tmp_path / "data"
    argv = [a.format(data=data) for a in args]
    with prompted(argv, environment(tmp_path), stderr_too=True) as terminal:
        await terminal.said(question)
        terminal.ctrl_c()
        code = await terminal.exits()
        screen = Screen(10, 100)
        screen.feed(terminal.output())
        lines = screen.text().splitlines()
    command = f"president {args[0]}: interrupted"
    assert code == 130 and command in lines, (code, lines)
    assert lines[lines.index(command) - 1].endswith(question.strip()), lines


@pytest.mark.slow
async def test_the_server_asks_for_its_password_twice(tmp_path: Path) -> None:
    """An empty answer or two that differ are asked again; the host is told a password
    is in force, and where it came from, never what it is."""
    args = ["server", "--host", "127.0.0.1", "--port", "0", "--data", str(tmp_path / "data")]
    with prompted([*args, "--password-prompt"], environment(tmp_path)) as terminal:
        await terminal.said("the password every client must give: ")
        terminal.send("\r")
        await terminal.said("nothing typed: the password every client must give: ")
        terminal.send("sesame\r")
        await terminal.said("the same again, to confirm: ")
        terminal.send("sesane\r")
        await terminal.said("the two differ: the password every client must give: ")
        terminal.send("sesame\r")
        await terminal.said("the same again, to confirm: ", times=2)
        terminal.send("sesame\r")
        await terminal.said("Ctrl-C stops the server")
        shown = terminal.output()
        assert "clients must give a password (set at the prompt)" in shown
        assert "sesame" not in shown + terminal.errors()
        terminal.proc.send_signal(signal.SIGINT)
        assert await terminal.exits() == 0


@pytest.mark.slow
async def test_the_server_gives_up_after_three_wrong_answers(tmp_path: Path) -> None:
    args = ["server", "--port", "0", "--data", str(tmp_path / "data"), "--password-prompt"]
    with prompted(args, environment(tmp_path)) as terminal:
        await terminal.said("the password every client must give: ")
        terminal.send("\r")
        await terminal.said("nothing typed: ")
        terminal.send("a\r")
        await terminal.said("the same again, to confirm: ")
        terminal.send("b\r")
        await terminal.said("the two differ: ")
        terminal.send("x" * 65 + "\r")
        assert await terminal.exits() == 2
        err = terminal.errors()
    assert err.count("\n") == 1 and "--password-prompt: no password after 3 tries" in err, err
    assert "1 to 64 characters" in err and not (tmp_path / "data").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", ["connect", "bot"])
async def test_a_guest_is_asked_again_after_an_empty_password(command: str, tmp_path: Path) -> None:
    """Once is enough for a password that exists; an empty answer is asked again."""
    args = [command, f"127.0.0.1:{CLOSED}", "--password-prompt"]
    with prompted(args, environment(tmp_path)) as terminal:
        await terminal.said("the server's password: ")
        terminal.send("\r")
        await terminal.said("nothing typed: the server's password: ")
        terminal.send("sesame\r")
        assert await terminal.exits() == 2
    assert "cannot reach a president server" in terminal.errors()
    assert "the same again" not in terminal.output()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "env", "source"),
    [
        (["--password", "sesame"], {}, "set with --password"),
        ([], {"PRESIDENT_PASSWORD": "sesame"}, "set in PRESIDENT_PASSWORD"),
    ],
)
def test_the_server_says_a_password_is_in_force(
    extra: list[str], env: dict[str, str], source: str, tmp_path: Path
) -> None:
    server = ServerProcess(tmp_path / "data", 0, *extra, env=environment(tmp_path, **env))
    head = server.head
    server.stop(signal.SIGTERM)
    assert f"clients must give a password ({source})" in head and "sesame" not in head, head


def test_every_option_is_said_in_a_sentence() -> None:
    """No option's help puts a parenthesis in the middle of its sentence."""
    for name in ("rules", "replay", *COMMANDS):
        parser = build_parser([name])
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for action in sub.choices[name]._actions:
            words = action.help or ""
            assert not re.search(r"\) \w", words), (
                f"president {name} {action.option_strings}: {words}"
            )


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
async def test_ctrl_c_in_a_long_sim_leaves_whole_records(jobs: str, tmp_path: Path) -> None:
    """Interrupted, `president sim` stops its workers without their tracebacks, and
    leaves each record whole or not at all.  (Which records stay, those of the games its
    result counts, none here when no job came back: tests/test_sim.py.)"""
    records = tmp_path / "records"
    records.mkdir()
    args = ["sim", "--games", "100000", "--jobs", jobs, "--record", str(records)]
    with prompted(args, environment(tmp_path)) as terminal:
        await wait_for(lambda: len(list(records.iterdir())) >= 3, 60)
        terminal.ctrl_c()
        code = await terminal.exits()
        err = terminal.errors()
        assert code == 130 and err.rstrip().endswith("president sim: interrupted"), (code, err)
        assert "Traceback" not in err, err
    written = list(records.iterdir())
    assert all(p.suffix == ".json" and not p.name.startswith(".") for p in written)
    for path in written:
        assert json.loads(path.read_text())["format"] == "president-record/1"


@pytest.mark.slow
def test_the_password_is_read_from_the_environment(
    guarded: tuple[str, str], tmp_path: Path
) -> None:
    """`president bot` without --password: refused; with $PRESIDENT_PASSWORD: let in (and
    then told there is no table to sit at).  Both are one line, exit 2."""
    address, pin = guarded
    args = ["bot", address, "--fingerprint", pin]
    shut = president(*args, env=environment(tmp_path))
    assert shut.returncode == 2 and shut.stderr.count("\n") == 1, shut.stderr
    assert "refused: this server needs a password" in shut.stderr
    # how a bot gives it (a game-night pass had to look it up)
    assert "(give it with --password-prompt or $PRESIDENT_PASSWORD)" in shut.stderr
    env = environment(tmp_path, PRESIDENT_PASSWORD="sesame")
    let_in = president(*args, env=env)
    assert let_in.returncode == 2 and let_in.stderr.count("\n") == 1, let_in.stderr
    assert "no table has a free seat" in let_in.stderr


@pytest.mark.slow
def test_a_known_servers_file_that_cannot_be_written(
    guarded: tuple[str, str], tmp_path: Path
) -> None:
    address, pin = guarded
    (tmp_path / "config" / "president" / "known_servers").mkdir(parents=True)
    env = environment(tmp_path, PRESIDENT_PASSWORD="sesame")
    out = president("bot", address, "--fingerprint", pin, env=env)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "known_servers" in out.stderr and "Traceback" not in out.stderr


# --- conventions and opponents ----------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag: str) -> None:
    out = president_here(flag)
    assert out.returncode == 0
    version = importlib.metadata.version("president")
    compiled = compiled_modules()  # (none in the default install; see test_compiled_build)
    kind = f"compiled by mypyc: {', '.join(compiled)}" if compiled else "pure Python"
    assert out.stdout == f"president {version} ({kind})\n"


def test_levels_are_strategies() -> None:
    assert LEVELS == {"easy": "greedy", "normal": "heuristic", "hard": "search"}
    assert [strategy_name(n) for n in ("EASY", " Normal", "hard", "Greedy")] == [
        "greedy",
        "heuristic",
        "search",
        "greedy",
    ]
    assert type(make_strategy("hard", random.Random(1))).__name__ == "SearchBot"
    with pytest.raises(ValueError, match="easy, normal, hard"):
        strategy_name("expert")


@pytest.mark.parametrize(
    ("argv", "field", "wanted"),
    [
        (["play"], "bots", "heuristic"),
        (["play", "--bots", "Easy"], "bots", "greedy"),
        (["play", "--bots", "hard"], "bots", "search"),
        (["connect", "host"], "bots", "heuristic"),
        (["connect", "host", "--bots", "NORMAL"], "bots", "heuristic"),
        (["bot", "host"], "strategy", "heuristic"),
        (["bot", "host", "--strategy", "hard"], "strategy", "search"),
        (["play", "--preset", "HOUSE"], "preset", "house"),
    ],
)
def test_what_the_options_mean(argv: list[str], field: str, wanted: str) -> None:
    args = build_parser(argv).parse_args(argv)
    assert getattr(args, field) == wanted


def test_the_readme_stays_in_the_repository() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert "Python >= 3.11" in readme or "Python 3.11" in readme
    assert "../" not in readme and "http://" not in readme and "https://" not in readme
    for option in ("--version", "--password-prompt", "PRESIDENT_PASSWORD", "easy|normal|hard"):
        assert option in readme

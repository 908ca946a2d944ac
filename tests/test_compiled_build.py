"""The optional compiled build (setup.py, issue 14 §4), built for real as a user builds
it: pip, the project's own build backend and a C compiler, on a copy of this checkout.

`PRESIDENT_COMPILE=1 pip install .` compiles the hot modules of the engine and the
simulator with mypyc from the same source; the games it plays are the pure-Python
games, move for move.  Asked without a working compiler, it says why and builds the
pure-Python package all the same.  The default install never compiles anything."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .harness.processes import Process
from .harness.processes import president as president_process

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
#: What setup.py compiles, as `president --version` names it.
COMPILED = (
    "bots.heuristic, bots.playout, bots.sim, engine.actions, engine.cards, engine.events,"
    " engine.fast_tricks, engine.flow, engine.judge, engine.moves, engine.scoring,"
    " engine.seating, engine.state, engine.tricks, engine.view"
)
#: A string handed to `Game.apply` where an action belongs, and a play's rank set and
#: deleted: what is raised, printed.
REFUSE_A_STRING = """
import random
from president.engine import Game, find_preset
game = Game(find_preset("classic"), ["a", "b", "c", "d"])
game.start_hand(rng=random.Random(1))
try:
    game.apply(game.turn, "pass")
except Exception as exc:
    print(f"{type(exc).__name__}: {exc}")
play = game.legal_actions(game.turn)[0]
for meddle in (lambda: setattr(play, "rank", 0), lambda: delattr(play, "rank")):
    try:
        meddle()
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}")
"""
#: A bot of one's own built on the built-in ones, compiled build or not: compiled (in
#: bots/heuristic.py), making one of `class Mine(HeuristicBot)` raised "interpreted classes
#: cannot inherit from compiled" (mypyc's check is in the compiled class's `__new__`, so
#: the class statement alone passes); they are in bots/simple.py and bots/strategies.py,
#: not compiled.
SUBCLASS_A_BOT = """
import random
from president.bots.simple import GreedyBot, HeuristicBot
from president.bots.strategies import RandomBot
for base, made_with in ((RandomBot, (random.Random(1),)), (GreedyBot, ()), (HeuristicBot, ())):
    type("Mine", (base,), {})(*made_with)
print("subclassed")
"""
SKIP = ("build", "dist", ".git", ".venv", "*.egg-info", "__pycache__", ".hypothesis", ".*_cache")


def build_wheel(tmp_path: Path, **env: str) -> tuple[Path, str]:
    """A wheel of a copy of this checkout, built by pip with `env` added: (the wheel,
    what the build printed on stderr)."""
    source, out = tmp_path / "source", tmp_path / "wheels"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*SKIP))
    pip = Process(
        ["wheel", "--no-deps", "-v", "-w", str(out), str(source)],
        {**os.environ, **env},
        command=[sys.executable, "-m", "pip"],
    )
    assert pip.wait(900) == 0, (pip.text() + pip.errors())[-6000:]
    (wheel,) = out.glob("president-*.whl")
    return wheel, pip.text() + pip.errors()


def unpacked(wheel: Path, into: Path) -> dict[str, str]:
    """The wheel's files unpacked into `into`; an environment that imports them first."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(into)
    return {**os.environ, "PYTHONPATH": str(into), "NO_COLOR": "1"}


def president(env: dict[str, str], *args: str) -> str:
    """`president ARGS` run by the package `env` imports first: its output."""
    done = president_process(*args, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def places(env: dict[str, str], *args: str) -> list[tuple[str, int, float, float]]:
    """Each entrant's hands, average place and share of presidencies in a `president sim`
    run (its timings apart: they differ from run to run)."""
    report = json.loads(president(env, "sim", "--json", "--jobs", "1", *args))
    return [
        (entry["strategy"], entry["hands"], entry["average_place"], entry["president_rate"])
        for entry in report["entrants"]
    ]


def test_the_compiled_build_plays_the_same_games_as_pure_python(tmp_path: Path) -> None:
    """Compiled by mypyc with the C compiler's optimisation off (MYPYC_OPT_LEVEL=0, as
    setup.py allows), which halves the build (26 s against 50 here): the C that mypyc
    writes, what this test is about, is the same at every level."""
    wheel, said = build_wheel(tmp_path / "compiled", PRESIDENT_COMPILE="1", MYPYC_OPT_LEVEL="0")
    assert " -O0 " in said, said[-3000:]  # (mypyc passed the level on to the compiler)
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("engine/state", "engine/view", "engine/moves", "bots/sim", "bots/playout"):
        assert any(n.startswith(f"president/{module}.") and n.endswith(".so") for n in names)
        assert f"president/{module}.py" in names  # the source is installed beside it
    assert any(n.startswith("president__mypyc.") for n in names)  # mypyc's shared part
    compiled = unpacked(wheel, tmp_path / "compiled" / "site")
    assert president(compiled, "--version").endswith(f"(compiled by mypyc: {COMPILED})\n")
    # the default build, beside it: pure Python, whatever this suite runs on
    plain, _ = build_wheel(tmp_path / "pure", PRESIDENT_COMPILE="0")
    assert plain.name.endswith("-py3-none-any.whl")
    assert not [n for n in zipfile.ZipFile(plain).namelist() if n.endswith(".so")]
    pure = unpacked(plain, tmp_path / "pure" / "site")
    assert president(pure, "--version").endswith("(pure Python)\n")
    # what a bot hands the engine that is no action is refused in words, compiled too
    # (an action there is a native class: a parameter declared as one would raise
    # TypeError)
    for env in (compiled, pure):
        refused = subprocess.run(
            [sys.executable, "-c", REFUSE_A_STRING], env=env, capture_output=True, text=True
        )
        assert refused.stdout == (
            "IllegalAction: 'pass' is not an action\n"
            + "AttributeError: actions are immutable\n" * 2
        ), refused
    for env in (compiled, pure):
        made = subprocess.run(
            [sys.executable, "-c", SUBCLASS_A_BOT], env=env, capture_output=True, text=True
        )
        assert made.stdout == "subclassed\n", made
    for run in (
        ("--games", "8", "--seed", "5", "--bots", "heuristic,greedy,random,random"),
        ("--preset", "daifugo", "--games", "4", "--seed", "2", "--bots", "heuristic,random,greedy"),
        ("--preset", "full", "--games", "1", "--seed", "3", "--bots", "search,heuristic,greedy"),
    ):
        assert places(compiled, *run) == places(pure, *run), run


def test_asked_to_compile_without_a_compiler_it_builds_pure_python(tmp_path: Path) -> None:
    wheel, said = build_wheel(tmp_path, PRESIDENT_COMPILE="1", CC=str(tmp_path / "no-cc"))
    assert "president: no working C compiler" in said, said[-3000:]
    assert "pure Python build" in said
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith(".so")], names
    assert "president/engine/state.py" in names
    env = unpacked(wheel, tmp_path / "site")
    assert president(env, "--version").endswith("(pure Python)\n")
    assert "average" in president(env, "sim", "--games", "2", "--bots", "random")

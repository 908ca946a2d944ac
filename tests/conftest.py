"""Hypothesis profiles: `ci` (the default) keeps the suite quick; set
HYPOTHESIS_PROFILE=thorough for a long hunt.

Two tiers (CONTRIBUTING.md): a test that starts a process, builds a wheel or plays a
long match is marked `slow`; `pytest -m "not slow"` is the developer's loop.  A test not
so marked that starts a process fails, saying so, so the fast tier stays fast.

The tests run the *installed* `president` (the folders install as `president.<folder>`,
so the checkout itself is not importable).  Before anything runs, the installed copy is
checked against this checkout: a copy installed before an edit is refused with what to
do, instead of passing on code that is no longer there (CONTRIBUTING.md)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# No deadline and no "too slow" health check: both time the examples, and a loaded
# machine is slow (a test must not fail on correct code).
# 25 examples a property by default (the suite on two cores in its time budget:
# CONTRIBUTING.md, "Two tiers"); `HYPOTHESIS_PROFILE=thorough` draws 1,500.
settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
#: The code folders, each installed as president.<folder>.
FOLDERS = ("engine", "protocol", "bots", "server", "client", "cli")


def stale_install() -> str | None:
    """Why the installed `president` is not this checkout's code, or None if it is."""
    for folder in FOLDERS:
        spec = importlib.util.find_spec(f"president.{folder}")
        if spec is None or not spec.submodule_search_locations:
            return f"president.{folder} is not installed"
        installed = Path(next(iter(spec.submodule_search_locations))).resolve()
        source = ROOT / folder
        if installed == source:
            continue  # an editable install of this checkout
        ours = {p.relative_to(source) for p in source.rglob("*.py")}
        theirs = {p.relative_to(installed) for p in installed.rglob("*.py")}
        for name in sorted(ours ^ theirs):
            where = "not installed" if name in ours else "installed but gone from the checkout"
            return f"{folder}/{name} is {where}"
        for name in sorted(ours):
            if (source / name).read_bytes() != (installed / name).read_bytes():
                return f"{folder}/{name} differs from the installed copy in {installed}"
    return None


#: Free room a tmpfs must have to take the runs' temporary folders (pytest keeps the last
#: three runs'; a whole run leaves some tens of MB, mostly test_compiled_build's copies).
SHM_ROOM = 1 << 30


def memory_for_temporary_folders(config: pytest.Config) -> None:
    """pytest's temporary folders (`tmp_path`: a run makes some 8,000 files and folders)
    in /dev/shm where it is a tmpfs with room, unless a folder was chosen (--basetemp,
    PYTEST_DEBUG_TEMPROOT).  Each run deletes the run's from three runs before at its
    end, in one process, while both workers wait: on a disk mounted with `discard` that
    took 17 s of a run here (2 ms a file), on a tmpfs well under a second.  What the
    tests check is the same on both (modes, locks, SQLite's WAL, a process killed)."""
    if config.option.basetemp or "PYTEST_DEBUG_TEMPROOT" in os.environ:
        return
    try:
        room = os.statvfs("/dev/shm")
    except OSError:
        return
    if os.access("/dev/shm", os.W_OK) and room.f_bavail * room.f_frsize >= SHM_ROOM:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = "/dev/shm"


def bytecode_once_a_run(config: pytest.Config) -> None:
    """The processes the tests start (some 300 `president` commands, servers, bots and
    sims) compile each module once a run, into a folder of the run's own, instead of once
    a process.  Under PYTHONDONTWRITEBYTECODE (set on machines here, CI's among them) and
    an install without bytecode (`.ci/run`: pip --no-compile), every process compiled all
    it imports from source: `president connect --help` took 1.3 s of CPU, 0.4 s with
    bytecode, and the slow tier's processes spent minutes of the run's CPU so.  The
    folder is the cache prefix (PYTHONPYCACHEPREFIX): nothing is written beside the
    sources, as the variable asks; it goes at the run's end."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or "PYTHONPYCACHEPREFIX" in os.environ:
        return  # (bytecode is written where Python writes it, or a prefix was chosen)
    if hasattr(config, "workerinput"):
        return  # (a worker of pytest-xdist: its controller chose, see below)
    prefix = tempfile.mkdtemp(prefix="president-pyc-")
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    del os.environ["PYTHONDONTWRITEBYTECODE"]  # (for the processes started from here on)
    config.add_cleanup(lambda: shutil.rmtree(prefix, ignore_errors=True))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the README's command, `.ci/run`): two workers a core, at most one a
    block of ports (`harness/ports.py`).  The suite waits on processes, sockets and
    screens more than it computes: on 2 cores, the whole suite with 4 workers took 205 s
    against 282-290 s with 2 (CONTRIBUTING.md, "Two tiers").  `-n N` and
    PYTEST_XDIST_AUTO_NUM_WORKERS still choose for themselves."""
    if config.option.numprocesses != "auto" or os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    from .harness.ports import BLOCKS

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(2 * (cores or 1), BLOCKS))


def pytest_configure(config: pytest.Config) -> None:
    # A run started in the background of a script (`cmd &` without job control, as some
    # CI runners and nohup'd shells do) inherits Ctrl-C ignored, and so would every
    # process a test starts: the tests that press Ctrl-C at a prompt would then fail on
    # correct code.  A person's terminal delivers it, so the processes get it again.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    memory_for_temporary_folders(config)
    bytecode_once_a_run(config)
    problem = stale_install()
    if problem is not None:
        raise pytest.UsageError(
            f"the installed president is not this checkout's code: {problem}.\n"
            "Reinstall it (pip install '.[test]'), or install it editable once for development "
            "(pip install -e '.[test]': CONTRIBUTING.md)."
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tier first, each tier in its own order: pytest-xdist hands the tests out
    in this order, one at a time, so the long ones (processes, wheels: up to tens of
    seconds each) start while there is plenty left for the other worker, and the run
    ends on short tests instead of one worker alone on a long one."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _own_xdg_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test makes a player key or remembers a server in the real home: the XDG config
    and state directories are a fresh temporary one (a test may point them elsewhere)."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(base / "state"))


@pytest.fixture(autouse=True)
def _no_process_in_the_fast_tier(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test outside the `slow` tier may not start a Python process (a `president`
    command, a script, a wheel build: subprocess, asyncio's subprocesses, a
    pseudo-terminal's program): it fails at the start, saying so.  (What a library runs
    for itself, such as `ldconfig -p` when zeroconf is first imported, is let be.)"""
    if request.node.get_closest_marker("slow") is not None:
        return
    name = request.node.nodeid
    start = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def refuse(self: subprocess.Popen[bytes], args: Any, *rest: Any, **named: Any) -> None:
        program = os.path.basename(str(args if isinstance(args, (str, bytes)) else args[0]))
        if program.startswith(("python", "president", "pip")):
            raise AssertionError(
                f"{name} starts a process ({args!r}): mark it @pytest.mark.slow "
                "(the acceptance tier), or test it in-process"
            )
        start(self, args, *rest, **named)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)


@pytest.fixture
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passwords hashed with scrypt at n = 16 (the server's is 2**13, ~27 ms a hash): for
    a test that makes hundreds of password tables for what the lobby lists, not for what
    hashing costs a guesser (a stored hash names its own cost, so checks still match)."""
    from president.server import config

    monkeypatch.setattr(config, "SCRYPT_N", 16)

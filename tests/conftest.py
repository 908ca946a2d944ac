"""Hypothesis profiles: `ci` (the default) keeps the suite quick; set
HYPOTHESIS_PROFILE=thorough for a long hunt.

The tests run the *installed* `president` (the folders install as `president.<folder>`,
so the checkout itself is not importable).  Before anything runs, the installed copy is
checked against this checkout: a copy installed before an edit is refused with what to
do, instead of passing on code that is no longer there (CONTRIBUTING.md)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=40, deadline=None)
settings.register_profile("thorough", max_examples=1500, deadline=None)
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


def pytest_configure(config: pytest.Config) -> None:
    problem = stale_install()
    if problem is not None:
        raise pytest.UsageError(
            f"the installed president is not this checkout's code: {problem}.\n"
            "Reinstall it (pip install '.[test]'), or install it editable once for development "
            "(pip install -e '.[test]': CONTRIBUTING.md)."
        )


@pytest.fixture(autouse=True)
def _own_xdg_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test makes a player key or remembers a server in the real home: the XDG config
    and state directories are a fresh temporary one (a test may point them elsewhere)."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(base / "state"))

"""Before anything of president.env: the optional extra it needs, said by name where it
is missing (a pass met a bare "No module named 'numpy'", with no word of the extra)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

#: What the extra `rl` installs that president.env imports.
NEEDED = ("numpy", "gymnasium", "pettingzoo")


def missing(find: Callable[[str], Any] = importlib.util.find_spec) -> list[str]:
    """The modules of `NEEDED` that are not installed."""
    return [name for name in NEEDED if find(name) is None]


def problem(names: list[str]) -> str:
    return (
        f"president.env needs the optional extra rl ({', '.join(names)} not installed):"
        " pip install '.[rl]' in the project's folder"
    )


if gone := missing():
    raise ModuleNotFoundError(problem(gone), name=gone[0])

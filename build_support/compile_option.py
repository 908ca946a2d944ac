"""The build backend: setuptools' own, which also asks for mypyc (in mypy) when the
optional compiled build is asked for (`PRESIDENT_COMPILE=1 pip install .`, see
setup.py).  The default install needs setuptools alone."""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (the rest of the backend, as it is)

MYPYC = "mypy>=1.10"


def _compiling() -> bool:
    return os.environ.get("PRESIDENT_COMPILE", "").strip().lower() in {"1", "yes", "true"}


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    needs = build_meta.get_requires_for_build_wheel(config_settings)
    return [*needs, MYPYC] if _compiling() else needs

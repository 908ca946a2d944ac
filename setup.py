"""The optional compiled build (issue 14 §4).  Everything about the project is in
pyproject.toml; this file only adds, when asked, the hot modules of the engine and the
simulator compiled by mypyc from the same source:

    PRESIDENT_COMPILE=1 pip install .

The default install is pure Python and never runs this.  Asked, a build that cannot
compile (no mypyc, no C compiler, a compiler error) says why on stderr and installs the
pure-Python package all the same; `president --version` says which build is installed.
The .py files are installed either way, beside the compiled modules.  MYPYC_OPT_LEVEL,
as for the `mypyc` command, sets the C compiler's optimisation (default 3; 0 builds in
about half the time, with the C left unoptimised)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: What is compiled: the engine's whole game loop and the simulator's (a bot that does
#: not look at a field must not pay for it, compiled or not), and the heuristic's advice
#: and the search's playouts (the search's time is its playouts).  The strategies
#: themselves (`bots/strategies.py`, `bots/simple.py`) stay interpreted: a bot may
#: subclass them, and a compiled class takes no interpreted subclass.
COMPILED = [
    "engine/cards.py",
    "engine/actions.py",
    "engine/events.py",
    "engine/moves.py",
    "engine/tricks.py",
    "engine/fast_tricks.py",
    "engine/judge.py",
    "engine/seating.py",
    "engine/scoring.py",
    "engine/flow.py",
    "engine/state.py",
    "engine/view.py",
    "bots/heuristic.py",
    "bots/playout.py",
    "bots/sim.py",
]
STAGE = Path("build") / "mypyc-stage"


def wanted() -> bool:
    """Asked for, and this run of setup.py builds (not one that only writes metadata)."""
    asked = os.environ.get("PRESIDENT_COMPILE", "").strip().lower() in {"1", "yes", "true"}
    return asked and any(c in sys.argv for c in ("bdist_wheel", "build", "build_ext", "install"))


def say(text: str) -> None:
    print(f"president: {text}", file=sys.stderr)


def compiler_problem() -> str:
    """Why no extension module can be compiled here (no C compiler, no Python headers),
    found by compiling one line that includes Python.h; "" if one can."""
    import sysconfig
    import tempfile
    from distutils.ccompiler import new_compiler  # (setuptools' own copy)
    from distutils.sysconfig import customize_compiler

    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "probe.c"
        probe.write_text("#include <Python.h>\nint president_probe(void) { return 0; }\n")
        compiler = new_compiler()
        customize_compiler(compiler)
        try:
            compiler.compile(
                [str(probe)], output_dir=scratch, include_dirs=[sysconfig.get_paths()["include"]]
            )
        except Exception as error:
            return str(error).strip().splitlines()[-1] if str(error).strip() else repr(error)
    return ""


def compiled_extensions() -> list[Any]:
    """mypyc's extensions for COMPILED, or none (said why) if they cannot be made."""
    if not wanted():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        say("PRESIDENT_COMPILE is set but mypyc is not installed: pure Python build")
        return []
    problem = compiler_problem()
    if problem:
        say(f"no working C compiler ({problem}): pure Python build")
        return []
    # mypyc names a module by its path: stage the two folders as president/<folder>
    # (an __init__.py for `president` only here, so that mypy sees the package)
    # nothing an earlier build left goes in (an editable install's build/__editable__
    # stays: it is the developer's own)
    for old in [*Path("build").glob("lib.*"), *Path("build").glob("temp.*"), STAGE]:
        shutil.rmtree(old, ignore_errors=True)
    for folder in ("engine", "bots"):
        shutil.copytree(folder, STAGE / "president" / folder)
    (STAGE / "president" / "__init__.py").touch()
    (STAGE / "mypy.ini").write_text("[mypy]\n")  # not the project's config: its targets
    paths = [str(STAGE / "president" / name) for name in COMPILED]
    try:
        return list(
            mypycify(
                ["--config-file", str(STAGE / "mypy.ini"), *paths],
                group_name="president",
                opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"),
                multi_file=True,  # a C file per module: compiled side by side
            )
        )
    except BaseException as error:  # mypyc exits on a type error (SystemExit)
        say(f"mypyc could not compile ({error!r}): pure Python build")
        return []


class BuildOrFallBack(build_ext):
    """Build the compiled modules, a C file per core at once; if the compiler fails,
    install without any of them (a module compiled alone would not import)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            say(f"compiling failed ({error}): pure Python build")
            for built in self.get_outputs():
                Path(built).unlink(missing_ok=True)
            self.extensions = []
            self.distribution.ext_modules = []

    def get_outputs(self) -> list[str]:
        return super().get_outputs() if self.extensions else []


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": BuildOrFallBack})

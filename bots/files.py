"""Files written whole or not at all: a record of the simulator's, a rules file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_whole(path: Path, text: str, mode: int = 0o600) -> None:
    """`text` into `path`, whole or not at all (Ctrl-C, a full disk): a fresh file of a
    name nobody could have chosen before (`mkstemp`'s O_EXCL: a link planted in a folder
    others may write in is never followed, as a fixed `.NAME.part` was, a hostile local
    user's pass), given `mode`, then renamed into place (a rename replaces a link, it does
    not follow it).  Its name is `.STEM-XXXX.SUFFIX.part` (what a run stopped midway
    leaves, and its cleaning up looks for)."""
    fd, part = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.stem}-", suffix=f"{path.suffix}.part"
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), mode)
            out.write(text)
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise

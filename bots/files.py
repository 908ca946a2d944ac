"""Files written whole or not at all (a record of the simulator's, a rules file), and
whether a user other than this one may write in a folder."""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import stat
import tempfile
from pathlib import Path
from typing import NamedTuple


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


def others_may_write(info: os.stat_result) -> bool:
    """Whether a directory of that mode may be written by a user other than this one: by
    everyone, or by its group unless that group is this user's own (a user private
    group, as Debian makes: named as the user, nobody else in it)."""
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o002:
        return True
    if not mode & 0o020:
        return False
    try:
        group = grp.getgrgid(info.st_gid)
        user = pwd.getpwuid(os.geteuid())
    except KeyError:
        return True
    return not (
        info.st_gid == user.pw_gid
        and group.gr_name == user.pw_name
        and not set(group.gr_mem) - {user.pw_name}
    )


class Foreign(NamedTuple):
    """A folder another user could change, why, and the command that mends it ("" where
    only another folder will do: one that is another user's)."""

    place: Path
    why: str
    fix: str


def foreign_folder(folder: Path) -> Foreign | None:
    """The first of `folder` (its real path, where it exists) and the folders above it
    that a user other than this one could put something of their own in place of what
    it holds ("belongs to user 1001", "is writable by other users (mode 777)": `chmod
    go-w` it): one that belongs to another user (but root), or that others may write in
    and is not sticky (as /tmp is); None if there is none (as ssh's StrictModes asks of a
    key's folders)."""
    real = Path(os.path.realpath(folder))
    for place in (real, *real.parents):
        try:
            info = os.lstat(place)
        except OSError:
            continue  # (not made yet)
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid not in (0, os.geteuid()):
            return Foreign(place, f"belongs to user {info.st_uid}", "")
        if mode & 0o022 and not mode & stat.S_ISVTX and others_may_write(info):
            return Foreign(
                place, f"is writable by other users (mode {mode:o})", f"chmod go-w {place}"
            )
    return None

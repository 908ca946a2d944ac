"""`--identity FILE`: which player key a command proves at the servers it connects to
(client/identity.py keeps the keys; a key that cannot be used is one line, exit 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from president.client.identity import IdentityError, KeyFile, default_identity

from .usage import UsageError


def add_identity(parser: argparse.ArgumentParser, default: str = "") -> None:
    """`--identity`, its default said as this machine has it (`XDG_CONFIG_HOME`
    respected: the help said ~/.config where the key went elsewhere)."""
    parser.add_argument(
        "--identity",
        type=key_path,
        metavar="FILE",
        help="the player key to use (made there on first use; default "
        f"{default or default_identity()})",
    )


def key_path(text: str) -> str:
    """`--identity`'s value: a path (an empty one meant the default key without a word)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: name the key's file, or leave it out")
    return text


def player_key(path: Path) -> KeyFile:
    """The key in `path` (made when a server first asks for it); `UsageError` (one line)
    if a file is there that cannot be used."""
    try:
        return KeyFile(path).check()
    except IdentityError as exc:
        raise UsageError(str(exc)) from None

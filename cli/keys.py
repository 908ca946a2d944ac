"""`--identity FILE`: which player key a command proves at the servers it connects to
(client/identity.py keeps the keys; a key that cannot be used is one line, exit 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.client.identity import IdentityError, load_or_create

from .usage import UsageError


def add_identity(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--identity",
        metavar="FILE",
        help=f"the player key to use (made there on first use; default {default})",
    )


def player_key(path: Path) -> Ed25519PrivateKey:
    """The key in `path`, made on first use; `UsageError` (one line) if it cannot be used."""
    try:
        return load_or_create(path)
    except IdentityError as exc:
        raise UsageError(str(exc)) from None

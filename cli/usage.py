"""What every subcommand shares: command-line mistakes, toggles from `--set`, the
search bot's budget."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from president.engine import TOGGLES, Rules, find_preset


class UsageError(Exception):
    """A mistake on the command line: printed as one line, exit status 2."""


def parse_toggle(text: str) -> tuple[str, Any]:
    """`NAME=VALUE` from `--set`: true/false, none, whole numbers, or words."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise UsageError(f"--set takes NAME=VALUE, not {text!r}")
    if name not in TOGGLES:
        raise UsageError(f"there is no toggle {name!r}: the toggles are {', '.join(TOGGLES)}")
    raw = raw.strip()
    value: Any
    if raw.lower() in ("true", "on", "yes"):
        value = True
    elif raw.lower() in ("false", "off", "no"):
        value = False
    elif raw.lower() in ("none", "null"):
        value = None
    elif raw.lstrip("-").isdigit():
        value = int(raw)
    else:
        value = raw
    return name, value


def rules_for(preset: str, toggles: Sequence[str]) -> Rules:
    rules = find_preset(preset)
    changes = dict(parse_toggle(t) for t in toggles)
    return rules.replace(**changes) if changes else rules


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if getattr(args, "playouts", None) is not None:
        if args.playouts < 1:
            raise UsageError("--playouts must be at least 1")
        options["playouts"] = args.playouts
    if getattr(args, "think", None) is not None:
        if args.think <= 0:
            raise UsageError("--think must be more than 0 seconds")
        options["seconds"] = args.think
    return options

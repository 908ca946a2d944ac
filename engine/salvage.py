"""The whole part of a record cut short (a copy stopped, a disk full): its JSON up to the
last action or hand written whole, closed as it stood, so that what it holds is not lost
(docs/records.md, "A record cut short")."""

from __future__ import annotations

import json
import re
from typing import Any

#: A JSON string, a string with no end (the cut is in it), or one of the characters that
#: shape the document.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|"|[\[\]{},:]', re.S)
_CLOSER = {"[": "]", "{": "}"}


def whole_part(text: str) -> dict[str, Any] | None:
    """The document `text` would be if it ended after its last whole hand or action, or
    None when no such end makes it JSON (the fault is not a cut, or it is before the
    first hand)."""
    stack: list[tuple[str, str | None]] = []  # (a bracket, the key it is the value of)
    key: str | None = None  # (the string just read, until a ':' makes it a key)
    named: str | None = None  # (the key whose value comes next)
    cut: tuple[int, str] | None = None  # (where, the closers then)
    for token in _TOKEN.finditer(text):
        kind = token.group()
        if kind == '"':
            break  # (a string begun and never ended: the cut is in it)
        if kind[0] == '"':
            key = kind
            continue
        if kind == ":":
            named, key = _key(key), None
            continue
        if kind in "[{":
            stack.append((kind, named))
            if _between_items(stack):
                cut = token.end(), _closers(stack)
        elif kind in "]}":
            if not stack:
                return None
            stack.pop()
            if _between_items(stack):
                cut = token.end(), _closers(stack)  # (a hand or an action just ended)
        elif kind == "," and _between_items(stack):
            cut = token.start(), _closers(stack)
        named = key = None
    if cut is None:
        return None
    try:
        document = json.loads(text[: cut[0]] + cut[1])
    except (ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def _between_items(stack: list[tuple[str, str | None]]) -> bool:
    """Whether `stack` is inside the document's `hands`, or inside a hand's `actions`,
    and nowhere else: a list of that name deeper in (a hostile pass cut a file in
    `"x": {"actions": [...` and its `hands` was a number) is no record's, and a cut is
    never deeper than four brackets (one made at every comma of a deep one took time in
    proportion to its depth)."""
    depth = len(stack)
    if depth not in (2, 4) or stack[0] != ("{", None) or stack[1] != ("[", "hands"):
        return False
    return depth == 2 or (stack[2][0] == "{" and stack[3] == ("[", "actions"))


def _key(token: str | None) -> str | None:
    """The key a JSON string token names (None for none, or one that is not a string)."""
    if token is None:
        return None
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _closers(stack: list[tuple[str, str | None]]) -> str:
    """What closes every array and object open on `stack`, innermost first."""
    return "".join(_CLOSER[bracket] for bracket, _ in reversed(stack))

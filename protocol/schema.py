"""Checking wire values against a message's annotations: every field present, of its
type and within its limits; nothing extra.  Limits ride on the annotations:
`Annotated[str, Text(1, 32)]`, `Annotated[bytes, Size(32)]`, `Annotated[int, Range(0, 12)]`,
`Annotated[tuple[...], Items(0, 108)]`."""

from __future__ import annotations

import dataclasses
import enum
import reprlib
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from .errors import Code, RemoteProtocolError


@dataclass(frozen=True)
class Text:
    low: int
    high: int


@dataclass(frozen=True)
class Size:
    low: int
    high: int | None = None  # exact when None


@dataclass(frozen=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True)
class Items:
    low: int
    high: int


@dataclass(frozen=True, eq=False)
class Tagged:
    """A record of one of several message types, told apart by its `type` (as a message
    is): `types` maps each tag to its type (read when a value is checked, so it may be
    filled after this is made); only subclasses of the annotated type are accepted."""

    types: dict[str, type]


@dataclass(frozen=True)
class Since:
    """The protocol version a field arrived in (a field without one is in every version):
    a peer that chose an older version never gets it (`messages.for_version`)."""

    version: int


#: No text on the wire is longer (the codec's own limit on strings).
MAX_TEXT = 4096

#: Characters no text on the wire may hold: C0 controls but tab, DEL, C1 controls, the
#: line and paragraph separators, and the bidirectional controls (which reorder what a
#: terminal or a log shows after them).
CONTROLS = frozenset(
    [chr(c) for c in range(32) if chr(c) != "\t"]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029"]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
)


def control_in(value: str) -> str | None:
    """The first character of `value` that `CONTROLS` forbids, or None."""
    if value.isprintable():  # fast: every forbidden character is unprintable
        return None
    return next((ch for ch in value if ch in CONTROLS), None)


def shown(value: str) -> str:
    """`value` as it may be put on a terminal: each character `CONTROLS` forbids written
    as its escape (an ESC as \\x1b, a right-to-left override as \\u202e), so text from a
    file cannot move the cursor, retitle the window or reorder what follows."""
    if value.isprintable():
        return value
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if ch in CONTROLS else ch for ch in value
    )


#: Scalar values a rules toggle may take on the wire.
Scalar = Union[bool, int, str, None]  # noqa: UP007 - a runtime type for the checker

_HINTS: dict[type, dict[str, Any]] = {}
#: Per dataclass: its fields (name, checker, default) and the keys a wire map may hold.
_SPECS: dict[type, tuple[list[tuple[str, Checker, Any]], frozenset[str]]] = {}


def hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls, include_extras=True)
    return found


def bad(path: str, why: str) -> RemoteProtocolError:
    return RemoteProtocolError(Code.BAD_MESSAGE, f"{path}: {why}")


Checker = Callable[[Any, str], Any]
_CHECKERS: dict[Any, Checker] = {}


def _checker(kind: Any) -> Checker:
    checker = _CHECKERS.get(kind)
    if checker is None:
        checker = _CHECKERS[kind] = _compile(kind)
    return checker


def _compile(kind: Any) -> Checker:
    """A checker for one annotation, built once: the annotations are read here, not on
    every message."""
    limits: tuple[Any, ...] = ()
    if typing.get_origin(kind) is typing.Annotated:
        kind, *extra = typing.get_args(kind)
        limits = tuple(extra)
    tagged = [limit for limit in limits if isinstance(limit, Tagged)]
    if tagged:
        return _tagged(kind, tagged[0])
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        options = typing.get_args(kind)
        nullable = type(None) in options
        real = [o for o in options if o is not type(None)]
        checks = [_compile(o if not limits else typing.Annotated[(o, *limits)]) for o in real]
        # a scalar's own type picks its checker at once (bool before int: True is an int)
        by_type = {o: c for o, c in zip(real, checks) if o in (bool, int, str, bytes)}

        def union(value: Any, path: str) -> Any:
            if value is None and nullable:
                return None
            if len(checks) == 1:  # an optional field: say what is wrong with the value itself
                return checks[0](value, path)
            check = by_type.get(type(value))
            if check is not None:
                return check(value, path)
            for check in checks:
                try:
                    return check(value, path)
                except RemoteProtocolError:
                    continue
            raise bad(path, f"{_shown(value)} is none of the allowed types")

        return union
    if origin is typing.Literal:
        allowed = typing.get_args(kind)

        def literal(value: Any, path: str) -> Any:
            if type(value) is bool or value not in allowed:
                raise bad(path, f"{_shown(value)} is not one of {', '.join(map(repr, allowed))}")
            return value

        return literal
    if kind is bool:

        def boolean(value: Any, path: str) -> Any:
            if type(value) is not bool:
                raise bad(path, f"expected true or false, not {_shown(value)}")
            return value

        return boolean
    if kind is int:
        ranges = [limit for limit in limits if isinstance(limit, Range)]

        def integer(value: Any, path: str) -> Any:
            if type(value) is not int:
                raise bad(path, f"expected a whole number, not {_shown(value)}")
            for limit in ranges:
                if not limit.low <= value <= limit.high:
                    raise bad(path, f"{value} is outside {limit.low}..{limit.high}")
            return value

        return integer
    if kind is str:
        texts = [limit for limit in limits if isinstance(limit, Text)]
        shortest = max([limit.low for limit in texts], default=0)
        longest = min([limit.high for limit in texts], default=MAX_TEXT)

        def text(value: Any, path: str) -> Any:
            if type(value) is not str:
                raise bad(path, f"expected text, not {_shown(value)}")
            if not shortest <= len(value) <= longest:
                raise bad(path, f"text of {len(value)} characters is outside {shortest}..{longest}")
            found = control_in(value)
            if found is not None:
                raise bad(path, f"control characters are not allowed in text (U+{ord(found):04X})")
            return value

        return text
    if kind is bytes:
        sizes = [limit for limit in limits if isinstance(limit, Size)]

        def binary(value: Any, path: str) -> Any:
            if type(value) is not bytes:
                raise bad(path, f"expected bytes, not {_shown(value)}")
            for limit in sizes:
                high = limit.low if limit.high is None else limit.high
                if not limit.low <= len(value) <= high:
                    want = limit.low if limit.high is None else f"{limit.low}..{limit.high}"
                    raise bad(path, f"expected {want} bytes, not {len(value)}")
            return value

        return binary
    if kind is type(None):

        def nil(value: Any, path: str) -> Any:
            if value is not None:
                raise bad(path, f"expected nil, not {_shown(value)}")
            return None

        return nil
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _compile(args[0])

            def many(value: Any, path: str) -> Any:
                if type(value) not in (tuple, list):
                    raise bad(path, f"expected a list, not {_shown(value)}")
                _check_items(value, limits, path)
                try:
                    return tuple([item(v, path) for v in value])
                except (
                    RemoteProtocolError
                ):  # again, naming the item (no paths made when all is well)
                    for i, v in enumerate(value):
                        item(v, f"{path}[{i}]")
                    raise

            return many
        parts = [_compile(a) for a in args]

        def fixed(value: Any, path: str) -> Any:
            if type(value) not in (tuple, list):
                raise bad(path, f"expected a list, not {_shown(value)}")
            if len(value) != len(parts):
                raise bad(path, f"expected a list of {len(parts)}, not {len(value)}")
            try:
                return tuple([p(v, path) for v, p in zip(value, parts)])
            except RemoteProtocolError:
                for i, (v, p) in enumerate(zip(value, parts)):
                    p(v, f"{path}[{i}]")
                raise

        return fixed
    if origin is dict:
        key_kind, value_kind = typing.get_args(kind)
        key_check, value_check = _compile(key_kind), _compile(value_kind)

        def mapping(value: Any, path: str) -> Any:
            if type(value) is not dict:
                raise bad(path, f"expected a map, not {_shown(value)}")
            _check_items(value, limits, path)
            return {
                key_check(k, f"{path} key"): value_check(v, f"{path}.{k}") for k, v in value.items()
            }

        return mapping
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        record = kind
        return lambda value, path: from_fields(record, value, path)
    raise TypeError(f"no wire form for {kind!r}")  # our own schema is wrong


def _tagged(base: type, tagged: Tagged) -> Checker:
    """A checker for a record of a subclass of `base`, chosen by its `type`."""

    def record(value: Any, path: str) -> Any:
        if type(value) is not dict:
            raise bad(path, f"expected a map, not {_shown(value)}")
        tag = value.get("type")
        kind = tagged.types.get(tag) if isinstance(tag, str) else None
        if kind is None or not issubclass(kind, base):
            raise bad(path, f"{_shown(tag)} is not a type allowed here")
        return from_fields(kind, value, path)

    return record


def from_fields(cls: type, value: Any, path: str) -> Any:
    """A dataclass from a wire map, every field checked."""
    if type(value) is not dict:
        raise bad(path, f"expected a map, not {_shown(value)}")
    found = _SPECS.get(cls)
    if found is None:
        fields = hints(cls)
        specs = [(f.name, _checker(fields[f.name]), f.default) for f in dataclasses.fields(cls)]
        found = _SPECS[cls] = (specs, frozenset(name for name, _, _ in specs) | {"type"})
    specs, allowed = found
    if not allowed.issuperset(value):
        extra = [key for key in value if key not in allowed]
        raise bad(path, f"unexpected field {sorted(map(str, extra))[0]!r}")
    args = {}
    for name, check, default in specs:
        if name in value:
            try:
                args[name] = check(value[name], path)
            except RemoteProtocolError:  # again, naming the field
                check(value[name], f"{path}.{name}")
                raise
        elif default is not dataclasses.MISSING:
            args[name] = default
        else:
            raise bad(path, f"missing field {name!r}")
    return cls(**args)


_SCALARS = frozenset({str, int, bool, bytes, float, type(None)})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
#: Per dataclass: its `type` tag on the wire ("" for a record that has none: only a
#: message has one, kept when a message travels inside another).
_TAGS: dict[type, str] = {}


def to_fields(value: Any) -> Any:
    """A message or record as plain wire values."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, enum.Enum):  # an error code
        return value.value
    names = _FIELD_NAMES.get(kind)
    if names is None and dataclasses.is_dataclass(kind):
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
        _TAGS[kind] = getattr(kind, "TYPE", "")
    if names is not None:
        fields = {name: to_fields(getattr(value, name)) for name in names}
        tag = _TAGS[kind]
        return {"type": tag, **fields} if tag else fields
    if isinstance(value, (tuple, list)):
        return [to_fields(v) for v in value]
    if isinstance(value, dict):
        return {k: to_fields(v) for k, v in value.items()}
    return value


def _check_items(value: Any, limits: tuple[Any, ...], path: str) -> None:
    for limit in limits:
        if isinstance(limit, Items) and not limit.low <= len(value) <= limit.high:
            raise bad(path, f"{len(value)} items is outside {limit.low}..{limit.high}")


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 30, 30


def _shown(value: Any) -> str:
    """A bad value, shortly (never deep: a hostile value may nest as deep as msgpack lets)."""
    text = _REPR.repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

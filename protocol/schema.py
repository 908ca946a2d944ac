"""Checking wire values against a message's annotations: every field present, of its
type and within its limits; nothing extra.  Limits ride on the annotations:
`Annotated[str, Text(1, 32)]`, `Annotated[bytes, Size(32)]`, `Annotated[int, Range(0, 12)]`,
`Annotated[tuple[...], Items(0, 108)]`."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, Union

from .errors import RemoteProtocolError


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


#: Scalar values a rules toggle may take on the wire.
Scalar = Union[bool, int, str, None]  # noqa: UP007 - a runtime type for the checker

_HINTS: dict[type, dict[str, Any]] = {}


def hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls, include_extras=True)
    return found


def bad(path: str, why: str) -> RemoteProtocolError:
    return RemoteProtocolError("bad_message", f"{path}: {why}")


def convert(value: Any, kind: Any, path: str) -> Any:
    """`value` as `kind`, or `RemoteProtocolError("bad_message")` naming the field."""
    limits: tuple[Any, ...] = ()
    if typing.get_origin(kind) is typing.Annotated:
        kind, *extra = typing.get_args(kind)
        limits = tuple(extra)
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        real = [o if not limits else typing.Annotated[(o, *limits)] for o in options
                if o is not type(None)]
        if len(real) == 1:  # an optional field: say what is wrong with the value itself
            return convert(value, real[0], path)
        for option in real:
            try:
                return convert(value, option, path)
            except RemoteProtocolError:
                continue
        raise bad(path, f"{_shown(value)} is none of the allowed types")
    if origin is typing.Literal:
        if value not in typing.get_args(kind) or type(value) is bool:
            choices = ", ".join(map(repr, typing.get_args(kind)))
            raise bad(path, f"{_shown(value)} is not one of {choices}")
        return value
    if kind is bool:
        if type(value) is not bool:
            raise bad(path, f"expected true or false, not {_shown(value)}")
        return value
    if kind is int:
        if type(value) is not int:
            raise bad(path, f"expected a whole number, not {_shown(value)}")
        for limit in limits:
            if isinstance(limit, Range) and not limit.low <= value <= limit.high:
                raise bad(path, f"{value} is outside {limit.low}..{limit.high}")
        return value
    if kind is str:
        if type(value) is not str:
            raise bad(path, f"expected text, not {_shown(value)}")
        for limit in limits:
            if isinstance(limit, Text) and not limit.low <= len(value) <= limit.high:
                raise bad(path, f"text of {len(value)} characters is outside {limit.low}..{limit.high}")
        if any(ord(ch) < 32 and ch not in "\t" for ch in value):
            raise bad(path, "control characters are not allowed in text")
        return value
    if kind is bytes:
        if type(value) is not bytes:
            raise bad(path, f"expected bytes, not {_shown(value)}")
        for limit in limits:
            if isinstance(limit, Size):
                high = limit.low if limit.high is None else limit.high
                if not limit.low <= len(value) <= high:
                    want = limit.low if limit.high is None else f"{limit.low}..{limit.high}"
                    raise bad(path, f"expected {want} bytes, not {len(value)}")
        return value
    if kind is type(None):
        if value is not None:
            raise bad(path, f"expected nil, not {_shown(value)}")
        return None
    if origin is tuple:
        if type(value) not in (tuple, list):
            raise bad(path, f"expected a list, not {_shown(value)}")
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            _check_items(value, limits, path)
            return tuple(convert(v, args[0], f"{path}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise bad(path, f"expected a list of {len(args)}, not {len(value)}")
        return tuple(convert(v, a, f"{path}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if origin is dict:
        key_kind, value_kind = typing.get_args(kind)
        if type(value) is not dict:
            raise bad(path, f"expected a map, not {_shown(value)}")
        _check_items(value, limits, path)
        return {convert(k, key_kind, f"{path} key"): convert(v, value_kind, f"{path}.{k}")
                for k, v in value.items()}
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return from_fields(kind, value, path)
    raise TypeError(f"no wire form for {kind!r}")  # our own schema is wrong


def from_fields(cls: type, value: Any, path: str) -> Any:
    """A dataclass from a wire map, every field checked."""
    if type(value) is not dict:
        raise bad(path, f"expected a map, not {_shown(value)}")
    fields = hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    extra = sorted(set(value) - set(names) - {"type"})
    if extra:
        raise bad(path, f"unexpected field {extra[0]!r}")
    args = {}
    for field in dataclasses.fields(cls):
        if field.name in value:
            args[field.name] = convert(value[field.name], fields[field.name], f"{path}.{field.name}")
        elif field.default is not dataclasses.MISSING:
            args[field.name] = field.default
        else:
            raise bad(path, f"missing field {field.name!r}")
    return cls(**args)


def to_fields(value: Any) -> Any:
    """A message or record as plain wire values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_fields(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [to_fields(v) for v in value]
    if isinstance(value, dict):
        return {k: to_fields(v) for k, v in value.items()}
    return value


def _check_items(value: Any, limits: tuple[Any, ...], path: str) -> None:
    for limit in limits:
        if isinstance(limit, Items) and not limit.low <= len(value) <= limit.high:
            raise bad(path, f"{len(value)} items is outside {limit.low}..{limit.high}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

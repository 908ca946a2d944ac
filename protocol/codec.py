"""msgpack on untrusted input, with every limit explicit (NOTES.md: the defaults let one
64 KiB frame of nested array headers allocate ~67 MiB)."""

from __future__ import annotations

from typing import Any, Final

import msgpack

from .errors import Code, RemoteProtocolError

MAX_STR: Final = 4096
MAX_BIN: Final = 4096
MAX_ARRAY: Final = 1024
MAX_MAP: Final = 64
MAX_DEPTH: Final = 8


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(body: bytes) -> Any:
    """One msgpack object from a frame body, within the limits; anything else is a
    `RemoteProtocolError(Code.BAD_MSGPACK)`."""
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=False,
            max_str_len=MAX_STR,
            max_bin_len=MAX_BIN,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_ext_len=0,
            ext_hook=_no_ext,
            object_pairs_hook=_text_keyed_map,
        )
    except msgpack.ExtraData:
        raise RemoteProtocolError(Code.BAD_MSGPACK, "a frame holds more than one object") from None
    except (ValueError, msgpack.UnpackException, TypeError, RecursionError) as exc:
        why = str(exc) or type(exc).__name__
        raise RemoteProtocolError(
            Code.BAD_MSGPACK, f"not msgpack within the limits: {why}"
        ) from None
    if _depth(value) > MAX_DEPTH:
        raise RemoteProtocolError(Code.BAD_MSGPACK, "the message nests too deep")
    return value


def _no_ext(code: int, data: bytes) -> Any:
    """msgpack's ext types, refused (the protocol has none; an empty one passes
    `max_ext_len`)."""
    raise ValueError(f"an ext value (type {code}): the protocol has none")


def _text_keyed_map(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    """A map whose keys are text, each once (a key sent twice would mean what the last
    one says to one reader and the first to another)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError("a map holds a key twice")
    for key in value:
        if type(key) is not str:
            raise ValueError(f"a map key is text, not {type(key).__name__}")
    return value


def _depth(value: Any) -> int:
    """How many containers nest in `value` (counted to just past MAX_DEPTH), level by
    level: only containers are visited."""
    depth = 0
    level = [value] if type(value) in _CONTAINERS else []
    while level and depth <= MAX_DEPTH:
        depth += 1
        inner: list[Any] = []
        for container in level:
            items = container.values() if type(container) is dict else container
            inner += [v for v in items if type(v) in _CONTAINERS]
        level = inner
    return depth


_CONTAINERS: Final = frozenset({tuple, dict})

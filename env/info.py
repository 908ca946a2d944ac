"""The info of the agent to act: `{"view": its SeatView}`, with the view made only when
the info is first read (`SeatInfo`).  An agent that learns from the observation never
reads it, and a view is a good part of a step's cost."""

from __future__ import annotations

import sys
from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView
from typing import Any

from president.engine import Game

_new = dict.__new__

#: How many references an info the environment keeps has when nobody else holds it
#: (its place, a name for it, `getrefcount`'s own argument), where the references are
#: counted (CPython); elsewhere every info is new.
UNSHARED = 3
getrefcount: Callable[[object], int] = getattr(sys, "getrefcount", lambda _: 0)


class SeatInfo(dict[str, Any]):
    """`{"view": game.view_for(seat)}` as a dict, the view made when the info is first
    read (by any means: a key, `in`, `get`, iterating, `len`, `dict(...)`, `==`...).

    The view is of the moment the info was made, so it must be read before the agent's
    step: the environment closes the info then, and an info not read by then holds
    nothing (`{}`, as PettingZoo's infos of the agents not to act)."""

    __slots__ = ("_source",)
    _source: tuple[Game, int] | None

    @classmethod
    def of(cls, game: Game, seat: int) -> SeatInfo:
        """`seat`'s info, its view to be made from `game` as it stands now."""
        info = _new(cls)
        info._source = (game, seat)
        return info

    def renew(self, game: Game, seat: int) -> None:
        """Made again for `seat` now: only for an info nobody else holds (see
        `unshared`), so that none sees it change."""
        if dict.__len__(self):
            dict.clear(self)
        self._source = (game, seat)

    def close(self) -> None:
        """The game moves on: a view not made yet will not be."""
        self._source = None

    def _filled(self) -> SeatInfo:
        source = self._source
        if source is not None:
            self._source = None
            dict.__setitem__(self, "view", source[0].view_for(source[1]))
        return self

    def __getitem__(self, key: str) -> Any:
        return dict.__getitem__(self._filled(), key)

    def get(self, key: str, default: Any = None) -> Any:
        return dict.get(self._filled(), key, default)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._filled(), key)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self._filled())

    def __len__(self) -> int:
        return dict.__len__(self._filled())

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        return dict.keys(self._filled())

    def values(self) -> ValuesView[Any]:  # type: ignore[override]
        return dict.values(self._filled())

    def items(self) -> ItemsView[str, Any]:  # type: ignore[override]
        return dict.items(self._filled())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SeatInfo):
            other._filled()
        return dict.__eq__(self._filled(), other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return dict.__repr__(self._filled())

    def __bool__(self) -> bool:
        return bool(dict.__len__(self._filled()))

    def copy(self) -> dict[str, Any]:
        return dict(self._filled())

    def __reduce__(self) -> tuple[Any, ...]:  # (a copy or a pickle is a plain dict)
        return (dict, (dict(self._filled()),))

    def pop(self, key: str, *default: Any) -> Any:
        return dict.pop(self._filled(), key, *default)

    def popitem(self) -> tuple[str, Any]:
        return dict.popitem(self._filled())

    def setdefault(self, key: str, default: Any = None) -> Any:
        return dict.setdefault(self._filled(), key, default)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self._filled(), key)

    def clear(self) -> None:
        self._source = None
        dict.clear(self)

    def __or__(self, other: Any) -> Any:
        return dict(self._filled()) | other

    def __ror__(self, other: Any) -> Any:
        return other | dict(self._filled())

"""scripts/pair_bots.py's cache: a setting's games are taken from it only for the same
code (an options object of `{}` means whatever the defaults are when it runs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from president.engine import find_preset

from scripts import pair_bots


def test_a_cached_setting_is_taken_only_for_the_same_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = find_preset("classic")
    bots = ["greedy", "heuristic", "heuristic", "heuristic"]
    first = pair_bots._first_chair(rules, bots, 2, 1, 1, {}, str(tmp_path))
    played: list[int] = []
    real_run = pair_bots.run

    def counted(*args: object, **kwargs: object) -> object:
        played.append(1)
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pair_bots, "run", counted)
    again = pair_bots._first_chair(rules, bots, 2, 1, 1, {}, str(tmp_path))
    assert played == [] and again.hands == first.hands  # the same code: from the cache
    monkeypatch.setattr(pair_bots, "_code", lambda: "other code", raising=False)
    pair_bots._first_chair(rules, bots, 2, 1, 1, {}, str(tmp_path))
    assert played == [1]  # the defaults may have changed: played again
    assert len(list(tmp_path.iterdir())) == 2

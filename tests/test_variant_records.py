"""A whole game under each variant toggle, and under the `daifugo` preset, kept as a
record (written by scripts/variant_records.py): `president replay` replays each to the
outcome kept beside it, and the replay shows the rule at work."""

from __future__ import annotations

import json

import pytest
from president.engine import VARIANTS, rules_from
from president.engine.record import loads

from scripts.variant_records import TABLES, acts_in

from .harness.processes import president_here as president
from .test_cli import RECORDS

NAMES = [*VARIANTS, "daifugo"]


def test_every_variant_and_the_daifugo_preset_has_a_record() -> None:
    assert set(TABLES) == set(NAMES)
    missing = [name for name in NAMES if not (RECORDS / f"game_{name}.json").exists()]
    assert not missing, f"run scripts/variant_records.py: no record for {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_the_record_replays_with_president_replay(name: str) -> None:
    record = RECORDS / f"game_{name}.json"
    out = president("replay", "--json", str(record))
    assert out.returncode == 0, out.stdout + out.stderr
    shown = json.loads(out.stdout)
    assert shown == json.loads((RECORDS / f"game_{name}.expected.json").read_text())
    assert shown["ok"] and shown["game_over"] and shown["winners"]
    assert all(hand["complete"] for hand in shown["hands"])


@pytest.mark.parametrize("name", NAMES)
def test_the_record_shows_its_rule_at_work(name: str) -> None:
    document = loads((RECORDS / f"game_{name}.json").read_text())
    rules = rules_from(document["rules"])
    seen = acts_in(document)
    if name == "daifugo":
        assert rules == rules_from("daifugo")
        assert {"sequences", "suit_lock", "jack_back", "seven_pass"} <= seen, seen
    else:
        assert getattr(rules, name) is True
        assert name in seen, seen

"""docs/PROTOCOL.md is the protocol: every message type with an example that decodes as
written, every error code with its meaning, the version this build speaks."""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.engine import Phase, deck
from president.protocol import messages as m
from president.protocol.codec import pack, unpack
from president.protocol.errors import MEANINGS, Code
from president.protocol.schema import hints
from president.protocol.sealing import public_key_bytes, seal_hand

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()


def real(value: Any) -> Any:
    """An example's value with each "<N bytes>" placeholder made N bytes."""
    if isinstance(value, str) and (found := re.fullmatch(r"<(\d+) bytes>", value)):
        return bytes(int(found.group(1)))
    if isinstance(value, dict):
        return {k: real(v) for k, v in value.items()}
    if isinstance(value, list):
        return [real(v) for v in value]
    return value


def test_every_message_type_is_documented_with_examples_that_decode() -> None:
    documented = set(re.findall(r"^#### `(\w+)`$", DOC, re.M))
    assert documented == set(m.REGISTRY)
    examples = re.findall(r"```json\n(.*?)\n```", DOC, re.S)
    seen = set()
    for text in examples:
        message = m.Message.from_wire(unpack(pack(real(json.loads(text)))))
        seen.add(type(message))
    assert seen == set(m.REGISTRY.values())


def test_every_error_code_is_in_the_table_with_its_meaning() -> None:
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", DOC, re.M))
    assert set(MEANINGS) == set(Code)
    for code in Code:
        assert rows.get(code.value) == MEANINGS[code], code


def test_the_version_and_the_sealed_size_are_as_documented() -> None:
    assert f"version {max(m.VERSIONS)}" in DOC.splitlines()[0]
    key = X25519PrivateKey.generate()
    sealed = seal_hand(deck()[:13], (), public_key_bytes(key), "T", 0, 0, 1)
    assert f"a hand alone seals to {len(sealed)} bytes" in " ".join(DOC.split())


def test_every_table_status_and_game_phase_is_documented() -> None:
    """A client written from the document waited for a phase "finished" that never
    comes: each value a `table` message can carry is listed (as `"value"`)."""
    statuses = typing.get_args(hints(m.TableView)["status"])
    phases = typing.get_args(hints(m.GameView)["phase"])
    for value in (*statuses, *phases):
        assert f'| `"{value}"` |' in DOC, value
    assert set(phases) == {phase.value for phase in Phase}


def test_the_optional_fields_are_exactly_the_fields_with_defaults() -> None:
    rows = set(re.findall(r"^\| `(\w+)` \| `(\w+)` \| .+ \|$", DOC, re.M))
    optional = {
        (cls.TYPE, f.name)
        for cls in m.REGISTRY.values()
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.default is not dataclasses.MISSING
    }
    assert rows == optional


def test_every_byte_field_is_named_as_msgpack_bin() -> None:
    section = DOC[DOC.index("## Values on the wire") : DOC.index("## Error codes")]
    text = " ".join(section.split())
    for cls in m.REGISTRY.values():
        for name, kind in hints(cls).items():
            if "bytes" in str(kind):
                assert f"`{cls.TYPE}.{name}`" in text, f"{cls.TYPE}.{name}"

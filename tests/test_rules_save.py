"""`president rules --save FILE` never writes over a file without `--force`."""

from __future__ import annotations

from pathlib import Path

from .harness.processes import president_here as president


def test_save_refuses_to_write_over_a_file_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "friday.toml"
    first = president("rules", "daifugo", "--set", "jokers=2", "--save", str(path))
    assert first.returncode == 0, first.stderr
    kept = path.read_text(encoding="utf-8")
    again = president("rules", "classic", "--save", str(path))
    assert again.returncode == 2 and again.stdout == ""
    (line,) = again.stderr.strip().splitlines()
    assert "is there already" in line and "--force" in line
    assert path.read_text(encoding="utf-8") == kept  # nothing lost
    forced = president("rules", "classic", "--save", str(path), "--force")
    assert forced.returncode == 0, forced.stderr
    assert path.read_text(encoding="utf-8") != kept
    assert 'preset = "classic"' in path.read_text(encoding="utf-8")

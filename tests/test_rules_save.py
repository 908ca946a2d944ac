"""`president rules --save FILE` never writes over a file without `--force`."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_a_set_saved_by_name_under_umask_000_keeps_the_config_folder_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--save NAME` keeps the set in the config folder beside the player's key: made
    under `umask 000` it came out 777 (the host pass), and another user could then
    rewrite the servers trusted there."""
    import os

    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    old = os.umask(0)
    try:
        saved = president("rules", "daifugo", "--save", "friday")
    finally:
        os.umask(old)
    assert saved.returncode == 0, saved.stderr
    assert (config / "president" / "rules" / "friday.toml").exists()
    for folder in (config, config / "president", config / "president" / "rules"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder

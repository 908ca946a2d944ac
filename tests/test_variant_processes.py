"""Issue 16's promise with real processes: `president bot` processes play a whole game at
a `daifugo` table of a `president server` (7s handed over, 10s discarded, through the
protocol's version 5), and the record the server writes replays with `president replay`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from .server.helpers import server_process

COMMAND = [sys.executable, "-m", "president.cli"]


def test_bots_play_a_whole_daifugo_game_and_its_record_replays(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    proc, port, pin, _ = server_process(data)
    try:
        bots = subprocess.run(
            [
                *COMMAND,
                *("bot", f"127.0.0.1:{port}", "--fingerprint", pin),
                *("--table", "D", "--preset", "daifugo", "--seats", "4", "--count", "4"),
                *("--strategy", "random", "--seed", "5", "--games", "1", "--give-up", "10"),
            ],
            capture_output=True,
            text=True,
            timeout=180,
            env=env,
        )
        said = bots.stdout + bots.stderr
        assert bots.returncode == 0, said
        assert said.count("game 1 over") == 4, said
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert "1 game record(s) written" in out, out + err
    (path,) = list(data.rglob("*.json"))
    record = json.loads(path.read_text())
    assert record["rules"]["preset"] == "daifugo", record["rules"]
    decisions = [step for hand in record["hands"] for step in hand["actions"]]
    kinds = {key for step in decisions for key in step if key != "seat"}
    assert {"handover", "discard"} <= kinds, kinds  # 7s and 10s were played and paid
    checked = subprocess.run(
        [*COMMAND, "replay", "--json", str(path)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["ok"] is True, checked.stdout

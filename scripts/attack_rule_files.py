#!/usr/bin/env python3
"""Rules files a hostile friend might hand you (under the 64 KiB a rules file may be):
deeply nested arrays, a 5,000-digit number, odd values.  Each is put in a scratch rules
folder (what the create-table form reads: `cli.usage.saved_rule_sets`) and given to
`president rules --rules FILE`; a traceback, or an exception other than the one-line
refusal, is a problem.

    cd scripts && ../.venv/bin/python attack_rule_files.py

Exit status 1 if any file makes a traceback or escapes saved_rule_sets."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

FILES = {
    "deep": "target = " + "[" * 3000 + "]" * 3000 + "\n",
    "digits": "target = " + "1" * 5000 + "\n",
    "scaled": 'preset = "japanese"\nscaled_exchange = "yes"\n',
    "big_float": "target = 1e999\n",
    "nul": "preset = 'classic'\x00\n",
    "good": 'preset = "japanese"\nscaled_exchange = true\nnine_reverse = true\n',
}


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="president-rulefiles-"))
    folder = home / "config" / "president" / "rules"
    folder.mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
    env = {k: v for k, v in env.items() if not k.startswith("PRESIDENT_")}
    python = str(Path(sys.executable))
    bad = 0
    for name, text in FILES.items():
        path = folder / f"{name}.toml"
        path.write_text(text)
        run = subprocess.run(
            [python, "-m", "president.cli", "rules", "--rules", str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        said = (run.stderr.strip().splitlines() or run.stdout.strip().splitlines() or [""])[-1]
        traceback = "Traceback" in run.stderr
        bad += traceback
        print(
            f"president rules --rules {name}.toml: exit {run.returncode}, "
            f"{'TRACEBACK: ' if traceback else ''}{said[:130]}"
        )
    form = subprocess.run(
        [
            python,
            "-c",
            "from president.cli.usage import saved_rule_sets as s; f, p = s();"
            " print(len(f), 'read,', len(p), 'refused')",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    escaped = "Traceback" in form.stderr
    bad += escaped
    last = (form.stderr.strip().splitlines() or form.stdout.strip().splitlines() or [""])[-1]
    print(f"the create-table form's saved_rule_sets(): {'RAISES ' if escaped else ''}{last[:130]}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

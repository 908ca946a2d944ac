"""The `president` command as a user runs it: exit statuses, outputs, never a traceback.
Most cases run the command in this process (`president_here`: the same `main`, the same
words); the ones marked slow run it as the process a user starts, for what only a
process shows (the installed script, exit statuses, worker processes, what is loaded)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pytest
from president.cli.servers import interface_address
from president.cli.usage import address, listen_host
from president.client.connection import DEFAULT_PORT, split_address

from .harness.processes import Process
from .harness.processes import president as president_process
from .harness.processes import president_here as president

RECORDS = Path(__file__).parent / "engine" / "records"


@pytest.mark.slow
def test_the_console_script_is_installed() -> None:
    exe = shutil.which("president", path=str(Path(sys.executable).parent))
    assert exe, "pip install should put `president` beside the interpreter"
    script = Process(["--help"], command=[exe])
    assert script.wait() == 0 and "replay" in script.text() and "sim" in script.text()


@pytest.mark.parametrize(
    "command", ["rules", "replay", "sim", "play", "server", "connect", "bot", "servers"]
)
def test_every_subcommand_has_help(command: str) -> None:
    out = president(command, "--help")
    assert out.returncode == 0 and "usage: president " + command in out.stdout


def test_the_help_names_this_machines_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer's pass: `--identity` said its default was ~/.config/president/identity
    where XDG_CONFIG_HOME put the key elsewhere (as `--data` above it already said); so
    did `--rules` and `--save` of the saved rule sets."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for command in ("play", "connect", "stats", "bot", "sim", "rules"):
        said = "".join(president(command, "--help").stdout.split())  # (paths wrap anywhere)
        assert "~/." not in said, said
        if command == "bot":
            assert f"defaultoneperbotnamein{tmp_path}/state/president/bots/" in said, said
        elif command not in ("sim", "rules"):
            assert f"default{tmp_path}/cfg/president/identity)" in said, said
        if command not in ("connect", "stats"):
            assert f"{tmp_path}/cfg/president/rules/" in said, said


def test_no_subcommand_prints_help() -> None:
    out = president()
    assert out.returncode == 2 and "COMMAND" in out.stdout


def test_rules_in_words() -> None:
    out = president("rules", "house")
    assert out.returncode == 0
    assert "twos_clear = true" in out.stdout and "clears it" in out.stdout
    listing = president("rules")
    assert all(name in listing.stdout for name in ("classic", "full", "house", "sheet", "table"))
    # each preset said as a kind of table, not as the file in the project it was drawn from
    assert "seed" not in listing.stdout.lower() and "essay" not in listing.stdout, listing.stdout
    changed = president("rules", "classic", "--set", "bombs=on")
    assert "*bombs = true" in changed.stdout
    bad = president("rules", "classic", "--set", "joker_mode=wild")
    assert bad.returncode == 2 and "joker_mode" in bad.stderr and "Traceback" not in bad.stderr
    # "none" is the word where a toggle has it (exchange), no value where not (clear_rank)
    words = president("rules", "classic", "--set", "exchange=none", "--set", "clear_rank=none")
    assert words.returncode == 0 and "*exchange = none" in words.stdout, words.stderr


def test_rules_are_shown_under_sections_and_the_house_rules_not_played_only_named() -> None:
    """A pass read 68 toggles in one list to learn what `daifugo` plays: the toggles are
    under sections, the house rules in force said in words, the others only named
    (`--all` says them too); a changed one is said whatever its value."""
    out = president("rules", "daifugo", "--set", "jack_back=off").stdout
    for title in ("The cards and the deal", "Leads and turns", "The exchange", "House rules"):
        assert f"\n{title}\n" in out, out
    assert "sequences = true" in out and "*jack_back = false" in out
    unplayed = out.split("Not played (35;")[1]
    assert "nines_clear," in unplayed and "9s never clear" not in out, out
    assert "sequences" not in unplayed
    every = president("rules", "daifugo", "--all").stdout
    assert "nines_clear = false" in every and "9s never clear" in every
    assert "Not played" not in every
    classic = president("rules", "classic").stdout
    assert "House rules: none played" in classic and "Not played (44;" in classic


def test_on_a_terminal_the_rules_words_wrap_under_their_column() -> None:
    """A newcomer's pass at 80 columns saw a toggle's words broken mid-word by the
    terminal.  On a terminal they wrap under their column (under the toggle where the
    column is too narrow); into a pipe each stays one line, for grep."""
    from president.cli.main import rules_listing
    from president.engine import find_preset

    rules = find_preset("daifugo")
    whole = rules_listing(rules, (), every=True)
    for columns in (120, 80, 60):
        lines = rules_listing(rules, (), every=True, columns=columns)
        assert all(len(line) < columns for line in lines), (columns, lines)
        # the same words, only broken between them
        assert " ".join(" ".join(lines).split()) == " ".join(" ".join(whole).split())
    assert any(len(line) > 120 for line in whole)
    # the first line too (it broke mid-word at 60: "8-cu" / "t")
    from president.cli.main import heading_lines

    heading = "Preset daifugo (Japanese Daifugo: sequences, suit lock, 8-cut, jack back, 5-7-10"
    assert heading_lines(heading, None) == [heading]
    lines = heading_lines(heading, 60)
    assert (
        len(lines) == 2
        and all(len(line) < 60 for line in lines)
        and "8-cut," in lines[0] + lines[1]
    )


def test_every_word_of_every_toggle_is_taken_by_set() -> None:
    """A toggle's own words win over the boolean spellings: `equal_plays=off` is its word
    `off` (it was turned into false and refused), in any case; on/off still mean true/false
    for a toggle of true and false."""
    from president.engine.rules import TOGGLES, toggle_choices

    for name in TOGGLES:
        for word in toggle_choices(name) or ():
            if isinstance(word, str):
                for spelled in (word, word.upper()):
                    out = president(
                        "rules", "--json", "--set", "jokers=1", "--set", f"{name}={spelled}"
                    )
                    assert out.returncode == 0, (name, spelled, out.stderr)
                    assert json.loads(out.stdout)[name] == word
    off = president("rules", "classic", "--set", "equal_plays=allow", "--set", "bombs=off")
    assert "*equal_plays = allow" in off.stdout and " bombs = false" in off.stdout


def test_a_toggle_of_on_and_off_says_the_words_it_takes() -> None:
    """A pass wrote `--set nines_clear=maybe` and was told "must be true or false",
    where the README writes nines_clear=on."""
    from president.cli.usage import UsageError, parse_toggle

    assert parse_toggle("nines_clear=on") == ("nines_clear", True)
    assert parse_toggle("nines_clear=No") == ("nines_clear", False)
    with pytest.raises(
        UsageError, match=r"nines_clear is on or off \(true/false, yes/no\), not 'maybe'"
    ):
        parse_toggle("nines_clear=maybe")
    assert parse_toggle("equal_plays=skip") == ("equal_plays", "skip")  # a toggle of words


def test_the_presets_are_the_engines_in_rules_help() -> None:
    from president.engine import PRESETS

    for command in ("rules", "sim", "play", "bot"):
        shown = " ".join(president(command, "--help").stdout.split())
        assert ", ".join(PRESETS) in shown, (command, shown)


@pytest.mark.slow
def test_set_takes_a_toggles_own_word_off_in_the_real_command(tmp_path: Path) -> None:
    """`--set equal_plays=off` through the `president` a user runs: `rules` shows it,
    `sim` plays with it (both refused it before); `rules --help` names every preset."""
    from president.engine import PRESETS

    shown = president_process("rules", "daifugo", "--set", "equal_plays=off")
    assert shown.returncode == 0 and "equal_plays = off" in shown.stdout, shown.stderr
    sim = president_process(
        *("sim", "--preset", "house", "--set", "equal_plays=off", "--set", "equal_plays=skip"),
        *("--games", "1", "--jobs", "1", "--json", "--bots", "greedy"),
    )
    assert sim.returncode == 0, sim.stderr
    assert json.loads(sim.stdout)["rules"]["equal_plays"] == "skip"
    sim = president_process(
        *("sim", "--set", "equal_plays=off", "--games", "1", "--jobs", "1", "--json"),
    )
    assert sim.returncode == 0, sim.stderr
    helped = " ".join(president_process("rules", "--help").stdout.split())
    assert ", ".join(PRESETS) in helped and "daifugo" in helped


def test_replay_ok_and_json() -> None:
    record = RECORDS / "game_classic.json"
    out = president("replay", "--json", str(record))
    assert out.returncode == 0
    assert json.loads(out.stdout) == json.loads(
        (RECORDS / "game_classic.expected.json").read_text()
    )
    text = president("replay", str(record))
    assert text.returncode == 0 and text.stdout.startswith("ok:") and "game over" in text.stdout


def test_replay_illegal_step_exit_1(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "example_1_seed000.json").read_text())
    record["hands"][0]["actions"][2] = {"seat": 2, "play": ["10C"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    out = president("replay", "--json", str(path))
    assert out.returncode == 1
    assert json.loads(out.stdout) == {
        "ok": False,
        "hand": 0,
        "action": 2,
        "error": "a pair of 6s cannot be beaten by a single 10: every play in this trick has 2 cards",
    }
    text = president("replay", str(path))
    assert (
        text.returncode == 1
        and "hand 1, action 3 (the record's hands[0].actions[2])" in text.stdout
    )


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe garbage",
        b"[]",
        b'{"format": "x"}',
        b'{"format": "president-record/1", "hands": [',
    ],
)
def test_replay_not_a_record_exit_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    out = president("replay", "--json", str(path))
    assert out.returncode == 2
    assert out.stdout == "" and len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_replay_refuses_a_document_of_brackets_and_a_file_too_big_unparsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record file that would take gigabytes to parse (200 MB of `[],` took 5 GB) is
    refused before it is parsed, and a file over the cap, or a device that never ends,
    before it is read whole."""
    from president.cli import usage

    brackets = tmp_path / "brackets.json"
    brackets.write_text('{"format": "president-record/1", "hands": [' + "[]," * 5000 + "[]]}")
    for command in (("replay",), ("replay", "--json"), ("analyze",)):
        out = president(*command, str(brackets))
        assert out.returncode == 2 and not out.stdout, (command, out)
        assert "far more JSON arrays and objects" in out.stderr and "Traceback" not in out.stderr
    real = RECORDS / "game_classic.json"
    monkeypatch.setattr(usage, "RECORD_BYTES", real.stat().st_size - 1)
    for path in (real, Path("/dev/zero")):
        out = president("replay", str(path))
        assert out.returncode == 2 and "MiB, not a president record" in out.stderr, out
    monkeypatch.setattr(usage, "RECORD_BYTES", real.stat().st_size)
    assert president("replay", str(real)).returncode == 0


def test_a_records_names_never_act_on_the_terminal(tmp_path: Path) -> None:
    """A hostile pass: names holding ESC ] 0, OSC 52, a right-to-left override and a C1
    CSI went raw to the terminal from `analyze --seat` (not a player: "its players: ..."),
    and the C1 and bidi ones from `replay --json` and `analyze --json`; a record whose
    players are not a list of names was a traceback from `analyze --seat`."""
    evil = ["\x1b]0;PWNED\x07red", "\u202eevil", "\x9b31mc1", "\x1b]52;c;cHduZWQ=\x07osc"]
    text = (RECORDS / "game_classic.json").read_text()
    for old, new in zip(json.loads(text)["players"], evil, strict=False):
        text = text.replace(json.dumps(old), json.dumps(new, ensure_ascii=False))
    hostile = tmp_path / "names.json"
    hostile.write_text(text)
    for argv in (
        ("analyze", str(hostile), "--seat", "zed"),
        ("replay", str(hostile), "--json"),
        ("analyze", str(hostile), "--json", "--playouts", "2", "--seat", evil[1]),
    ):
        out = president(*argv)
        said = out.stdout + out.stderr
        assert not any(ch in said for ch in "\x1b\x07\x9b\u202e"), (argv, said)
        assert "\\u202e" in said or "\\u202eevil" in said, (argv, said)
        if argv[-1] != "zed":
            assert out.returncode == 0 and json.loads(out.stdout), out.stderr
    from president.cli.usage import json_text

    assert json_text(["\x7f"]) == '["\\u007f"]'  # (DEL too, in an all-ASCII text)
    document = json.loads(text)
    for players in (7, [1, 2, 3], None):
        if players is None:
            del document["players"]
        else:
            document["players"] = players
        hostile.write_text(json.dumps(document))
        out = president("analyze", str(hostile), "--seat", "zed")
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert "players must be a list of names" in out.stderr


def test_a_line_up_too_short_for_a_table_says_so() -> None:
    """A tinkerer's pass: `sim --bots heuristic,greedy` was told "President needs at least
    3 players, not 2", who had asked for no number of players."""
    out = president("sim", "--bots", "heuristic,greedy")
    assert out.returncode == 2 and out.stderr.startswith(
        "president sim: --bots names 2 strategies, one for each chair: "
    ), out.stderr
    empty = president("sim", "--bots", "heuristic,,greedy")
    assert empty.returncode == 2 and "has an empty name: two commas together" in empty.stderr
    assert "--players N" in out.stderr
    helped = " ".join(president("sim", "--help").stdout.split())
    assert "table size (default: as many as --bots names, else 4)" in helped


def test_the_servers_fingerprint_breaks_only_between_its_pairs() -> None:
    """A host's pass at 120 columns read the fingerprint as "...:FB:9" and "C:13:...":
    the terminal broke its line.  On a terminal too narrow, it is broken between bytes
    (connect's `fitted`); into a log or a pipe it stays one line, for a script."""
    from president.cli.serve import fingerprint_lines

    fingerprint = ":".join(f"{n:02X}" for n in range(32))
    assert fingerprint_lines(fingerprint, None) == [
        f"certificate fingerprint (SHA-256): {fingerprint}"
    ]
    for width in (40, 60, 80, 120):
        lines = fingerprint_lines(fingerprint, width)
        assert all(len(line) < width for line in lines), (width, lines)
        # (rows of whole bytes, each but the last ending on its ":", as connect's)
        assert "".join(line.strip() for line in lines[1:]) == fingerprint, lines


def test_a_certificate_changed_under_a_client_says_what_to_do() -> None:
    """Leaving a server that came back with another certificate: what it may mean, and
    what to do, by where the trusted fingerprint came from (a review: the known servers'
    line was to be removed where the user had given --fingerprint)."""
    from president.cli.connect import refusal_words
    from president.client.connection import CertificateRefused

    refused = CertificateRefused("x", "192.168.1.20:7766", "AB:CD")
    known = refusal_words(refused, "192.168.1.20:7766")
    assert known.startswith("the server at 192.168.1.20:7766 came back with another")
    assert "remove the line for 192.168.1.20:7766 from" in known
    given = refusal_words(refused, "192.168.1.20:7766", given=True)
    assert given.endswith("if it is the new one, connect with it (--fingerprint).")
    assert "remove the line" not in given


def test_replay_missing_file_exit_2(tmp_path: Path) -> None:
    out = president("replay", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr


@pytest.mark.slow
def test_replay_as_a_process_exits_0_1_or_2(tmp_path: Path) -> None:
    """The statuses docs/records.md promises a script, from the process itself."""
    bad = json.loads((RECORDS / "example_1_seed000.json").read_text())
    bad["hands"][0]["actions"][2] = {"seat": 2, "play": ["10C"]}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "other.json").write_text('{"format": "x"}')
    for path, code in ((RECORDS / "game_classic.json", 0), (tmp_path / "bad.json", 1)):
        out = president_process("replay", "--json", str(path))
        assert out.returncode == code and json.loads(out.stdout)["ok"] is (code == 0), out
    out = president_process("replay", "--json", str(tmp_path / "other.json"))
    assert out.returncode == 2 and not out.stdout and out.stderr.count("\n") == 1, out


@pytest.mark.slow
def test_a_name_an_ascii_terminal_cannot_show_is_escaped_not_a_failure(tmp_path: Path) -> None:
    """On a stdout that encodes ASCII only, a record's player named Zoë♠ is shown as
    Zo\\xeb\\u2660 and the check still says ok, exit 0 (it said "'ascii' codec can't
    encode", exit 2: "not a record")."""
    import os

    record = (RECORDS / "game_classic.json").read_text()
    first = json.loads(record)["players"][0]
    path = tmp_path / "named.json"
    path.write_text(record.replace(json.dumps(first), json.dumps("Zoë♠")), encoding="utf-8")
    out = president_process("replay", str(path), env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert out.returncode == 0 and out.stdout.startswith("ok:"), out
    assert "Zo\\xeb\\u2660" in out.stdout and not out.stderr
    # and `--json` stays JSON where the stream cannot write a name (a terminal pass: a
    # Latin-1 locale's `\U0001f0a1`, Python's escape, no JSON reader took)
    path.write_text(record.replace(json.dumps(first), json.dumps("Zoë 🂡")), encoding="utf-8")
    for encoding in ("latin-1", "ascii"):
        environ = {**os.environ, "PYTHONIOENCODING": encoding}
        out = president_process("replay", "--json", str(path), env=environ, encoding=encoding)
        assert out.returncode == 0 and not out.stderr, out
        assert "Zoë 🂡" in json.dumps(json.loads(out.stdout), ensure_ascii=False), out.stdout
        assert out.stdout.isascii(), out.stdout  # (as UTF-8 reads it too: a recheck's ë)


@pytest.mark.slow
def test_sim_same_seed_same_output(tmp_path: Path) -> None:
    args = (
        "sim",
        "--preset",
        "table",
        "--players",
        "5",
        "--games",
        "3",
        "--seed",
        "11",
        "--bots",
        "random",
    )

    def figures(out: str) -> list[str]:  # every column but the thinking time
        return [
            line.rsplit(None, 1)[0] if line.startswith(("random-", "all ")) else line
            for line in out.splitlines()
        ]

    first = president_process(*args, "--jobs", "1")
    second = president_process(*args, "--jobs", "2")
    assert first.returncode == 0 and figures(first.stdout) == figures(second.stdout)
    assert "hands/s" in first.stderr
    other = president_process(
        "sim", "--preset", "table", "--players", "5", "--games", "3", "--seed", "12"
    )
    assert figures(other.stdout) != figures(first.stdout)
    lines = first.stdout.splitlines()
    assert (
        lines[1].startswith("3 games, ") and len([x for x in lines if x.startswith("random-")]) == 5
    )
    assert "seats rotated" in lines[0]


def test_sim_json_and_records(tmp_path: Path) -> None:
    out = president(
        "sim", "--games", "2", "--seed", "3", "--json", "--jobs", "1", "--record", str(tmp_path)
    )
    assert out.returncode == 0
    summary = json.loads(out.stdout)
    assert summary["games"] == 2 and len(summary["entrants"]) == 4
    places = [entrant["average_place"] for entrant in summary["entrants"]]
    assert abs(sum(places) - 10) < 1e-3  # 1+2+3+4 every hand (each rounded to 4 places)
    written = sorted(tmp_path.glob("*.json"))
    assert len(written) == 2
    for path in written:
        assert president("replay", str(path)).returncode == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--players", "9"), "decks = 1 serves at most 8"),
        (("--bots", "genius"), "no bot strategy 'genius'"),
        (("--bots", "random,random"), "2 strategies for 4 players"),
        (("--preset", "poker"), "no preset"),
        (("--set", "nonsense"), "NAME=VALUE"),
        (("--games", "0"), "--games: must be 1 to"),
    ],
)
def test_sim_bad_arguments(args: tuple[str, ...], words: str) -> None:
    out = (
        president("sim", "--jobs", "1", "--players", "4", *args)
        if "--players" not in args
        else president("sim", "--jobs", "1", *args)
    )
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_rules_and_replay_start_without_the_server_or_the_terminal_library() -> None:
    """Each subcommand loads only what it needs: `president rules` stays quick."""
    code = (
        "import sys; from president.cli import main; main(['rules', 'house']); "
        "loaded = [m for m in ('prompt_toolkit', 'president.server', 'president.client', 'asyncio') "
        "if m in sys.modules]; print('LOADED', loaded)"
    )
    fresh = Process(["-c", code], command=[sys.executable])
    assert fresh.wait() == 0 and "LOADED []" in fresh.text(), fresh.text() + fresh.errors()


def test_replay_shows_a_records_names_without_their_control_characters(tmp_path: Path) -> None:
    """A record is anyone's file: a player called ESC ]0;... BEL ESC [2J (retitle the
    window, clear the screen) or with a right-to-left override must not reach the
    terminal as those characters; the check prints them escaped, and says the same."""
    text = (RECORDS / "game_classic.json").read_text()
    name = json.loads(text)["players"][0]
    evil = "ev\x1b]0;pwned\x07\x1b[2J\u202eil"
    path = tmp_path / "evil.json"
    path.write_text(text.replace(json.dumps(name), json.dumps(evil)))
    out = president("replay", str(path))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout and "\u202e" not in out.stdout
    assert "ev\\x1b]0;pwned\\x07\\x1b[2J\\u202eil" in out.stdout


def test_the_theme_option_names_the_themes_the_screens_have() -> None:
    from president.cli.usage import THEME_NAMES
    from president.client.tui.theme import THEMES

    assert THEME_NAMES == THEMES


README = Path(__file__).parent.parent / "README.md"


def test_the_readme_starts_with_the_two_commands_and_a_game_night() -> None:
    """What a newcomer reads first (issue 27): the two commands (the ones CI's fresh
    install runs), the Python it needs and Debian's python3-venv, then a game night in
    four steps whose commands `president` takes as written, and where records go."""
    import re

    from president.cli.main import build_parser
    from president.engine import PRESETS

    text = README.read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    assert blocks[:2] == [
        "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/president play\n",
        "python3 -m venv .venv && .venv/bin/pip install -q '.[test]' && "
        ".venv/bin/python -m pytest -n auto\n",
    ]
    sections = re.findall(r"^## (.*)$", text, re.M)
    assert sections[:2] == ["Two commands", "A game night in four steps"], sections
    assert "Python >= 3.11" in text and "python3-venv" in text
    night = text.split("## A game night in four steps")[1].split("\n## ")[0]
    steps = re.findall(r"^(\d)\. \*\*", night, re.M)
    assert steps == ["1", "2", "3", "4"], night
    commands = [c.strip() for c in re.findall(r"```sh\n(.*?)```", night, re.S)]
    assert len(commands) == 3, commands  # the server, a friend's connect, bots
    for command in commands:
        argv = command.split()[1:]
        argv = ["F" * 64 if word.endswith("...") else word for word in argv]
        assert command.startswith("president ") and build_parser(argv).parse_args(argv)
    assert "records/" in night and "docs/hosting.md" in night
    # the presets, as many as the engine has, each named
    numbers = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
    ]
    assert f"the {numbers[len(PRESETS)]} presets" in text
    assert all(f"`{name}`" in text for name in PRESETS)


@pytest.mark.parametrize(("flags", "reviewed"), [((), True), (("--no-review",), False)])
def test_replay_view_reviews_unless_told_not_to(
    flags: tuple[str, ...], reviewed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`replay --view` judges the decisions in the background (worker processes);
    `--no-review` shows the record alone."""
    from president.cli.main import main
    from president.client.tui import replay_app

    asked: list[bool] = []
    monkeypatch.setattr(
        replay_app, "run_viewer", lambda screen, theme, review: asked.append(review)
    )
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    record = Path(__file__).parent / "engine" / "records" / "game_classic.json"
    assert main(["replay", str(record), "--view", "--theme", "dark", *flags]) == 0
    assert asked == [reviewed]


@pytest.mark.parametrize(
    ("typed", "host"),
    [
        ("0.0.0.0", "0.0.0.0"),
        (" 192.168.1.20 ", "192.168.1.20"),
        ("::", "::"),
        ("[::1]", "::1"),
        ("fe80::1%eth0", "fe80::1%eth0"),
        ("localhost", "localhost"),
        ("game-night.local", "game-night.local"),
    ],
)
def test_the_server_listens_on_an_address_or_a_host_name(typed: str, host: str) -> None:
    assert listen_host(typed) == host


@pytest.mark.parametrize("typed", ["no such host", "", " ", "a/b", "[::1", "::1::2", "host:7766"])
def test_a_server_host_that_names_no_machine_is_refused_before_any_lookup(typed: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not an address or host name"):
        listen_host(typed)


@pytest.mark.parametrize(
    ("typed", "port"), [("127.0.0.1:80", "80"), ("[::1]:7766", "7766"), ("localhost:7000", "7000")]
)
def test_a_server_host_with_a_port_is_told_where_the_port_goes(typed: str, port: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        listen_host(typed)
    assert str(refused.value) == (
        f"not an address or host name: {typed!r} (a port goes in --port: --port {port})"
    )


@pytest.mark.parametrize("typed", ["no such host", "a/b:80", "host:http", "::1::2"])
def test_only_a_host_and_a_port_are_told_where_the_port_goes(typed: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        listen_host(typed)
    assert "--port" not in str(refused.value)


@pytest.mark.parametrize(
    ("typed", "host", "port"),
    [
        ("127.0.0.1", "127.0.0.1", DEFAULT_PORT),
        ("127.0.0.1:7000", "127.0.0.1", 7000),
        ("game-night.local:7000", "game-night.local", 7000),
        ("::1", "::1", DEFAULT_PORT),
        ("[::1]", "::1", DEFAULT_PORT),  # (as the server writes it, with no port)
        ("[::1]:7000", "::1", 7000),
        ("fd00::2:1", "fd00::2:1", DEFAULT_PORT),  # an address: a port needs brackets
        ("[fd00::2]:1", "fd00::2", 1),
    ],
)
def test_a_server_address_as_the_server_writes_it_is_taken(
    typed: str, host: str, port: int
) -> None:
    assert address(typed) == typed
    assert split_address(typed) == (host, port)


@pytest.mark.parametrize(
    ("typed", "address"), [("127.0.0.1", "127.0.0.1"), ("[::1]", "::1"), (" ::1 ", "::1")]
)
def test_an_mdns_interface_is_an_address_as_a_client_writes_it(typed: str, address: str) -> None:
    assert interface_address(typed) == address


@pytest.mark.parametrize("typed", ["[::1", "localhost", "[127.0.0.1]:80", ""])
def test_an_mdns_interface_that_is_no_address_is_refused(typed: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not an IP address"):
        interface_address(typed)


def test_a_data_directory_given_in_quotes_with_a_tilde_is_under_home() -> None:
    """`--data '~/x'` (quoted, so the shell left the ~) made a folder called ~ where the
    command ran (a newcomer pass); an empty one was taken as the default without a word."""
    from president.cli.usage import directory

    assert directory("~/x") == Path.home() / "x"
    assert directory("/srv/president") == Path("/srv/president")
    with pytest.raises(argparse.ArgumentTypeError, match="an empty directory name"):
        directory("  ")


def test_the_rules_in_words_show_cards_as_the_game_does_where_stdout_can() -> None:
    """A pass read "the 3S" in `president rules` where the game shows 3♠; an ASCII-only
    stdout keeps the letters."""
    from .harness.processes import president_here

    shown = president_here("rules", "daifugo", "--all", encoding="utf-8")
    assert "the 3♠ played alone beats a lone joker" in shown.stdout, shown.stdout
    assert "the holder of the 3♣ leads" in shown.stdout and "3S" not in shown.stdout
    plain = president_here("rules", "daifugo", "--all", encoding="ascii")
    assert "the 3S played alone beats a lone joker" in plain.stdout, plain.stdout


@pytest.mark.slow
async def test_analyze_on_a_terminal_wraps_its_lines_at_words(tmp_path: Path) -> None:
    """A newcomer's pass: `president analyze` left its long lines to the terminal, which
    broke them inside words ("…: 2nd: t" / "he cards"); on a terminal they wrap at words
    now, under their indent (into a pipe each stays one line, for a script)."""
    from .harness.processes import PRESIDENT, environment
    from .harness.terminal import Terminal

    record = RECORDS / "game_classic.json"
    command = [*PRESIDENT, "analyze", str(record), "--playouts", "2"]
    terminal = Terminal(command, environment(tmp_path), rows=200, columns=60, stderr_apart=True)
    try:
        assert await terminal.exits(120) == 0
        lines = [line for line in terminal.output().replace("\r", "").split("\n") if line]
    finally:
        terminal.close()
    judged = lines
    assert any(line.startswith("hand 1, ") for line in judged), lines
    assert all(len(line) <= 59 for line in judged), [x for x in judged if len(x) > 59]
    assert any(
        line.startswith("  against the best") or line.startswith("  the ") for line in judged
    )
    piped = president("analyze", str(record), "--playouts", "2")
    assert max(len(line) for line in piped.stdout.splitlines()) > 60  # (whole, into a pipe)
    # `replay`'s check too ("heuri" / "stic-bot-1" at 80 columns, a newcomer's pass)
    terminal = Terminal([*PRESIDENT, "replay", str(record)], environment(tmp_path), 100, 40)
    try:
        assert await terminal.exits(60) == 0
        lines = [line for line in terminal.output().replace("\r", "").split("\n") if line]
    finally:
        terminal.close()
    assert lines[0].startswith("ok: ") and all(len(line) <= 39 for line in lines), lines
    assert max(len(line) for line in president("replay", str(record)).stdout.splitlines()) > 40


def test_a_toggle_set_that_plays_no_part_is_noted(capsys: pytest.CaptureFixture[str]) -> None:
    """A game-night pass: `president bot --preset classic --set rounds=1` made a table that
    played to 11 points (top_two scoring reads target, not rounds), and nothing said so."""
    from president.cli.usage import chosen_rules
    from president.engine import find_preset

    args = argparse.Namespace(preset="classic", rules=None, set=["rounds=1"])
    assert chosen_rules(args).rules.rounds == 1  # (kept: a later --set scoring may read it)
    assert capsys.readouterr().err == (
        "note: --set rounds=1 plays no part: scoring = top_two ends the game at target = 11"
        " points\n"
    )
    args = argparse.Namespace(preset="house", rules=None, set=["target=3", "rounds=2"])
    chosen_rules(args)
    assert capsys.readouterr().err == (
        "note: --set target=3 plays no part: scoring = positional ends the game after"
        " rounds = 2 hands\n"
    )
    chosen_rules(argparse.Namespace(preset="classic", rules=None, set=["target=3"]))
    assert capsys.readouterr().err == ""
    assert find_preset("classic").idle().keys() == {"rounds"}
    assert find_preset("daifugo").idle().keys() == {"target"}


def test_a_module_the_install_lacks_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A helper's pass: an editable install older than a pulled commit's new module made
    `president server --help` a traceback (ModuleNotFoundError: president.protocol...)."""
    import importlib

    cli_main = importlib.import_module("president.cli.main")
    missing = "president.protocol.packing"
    raised: list[BaseException] = [ModuleNotFoundError(f"No module {missing!r}", name=missing)]

    def failing(args: argparse.Namespace) -> int:
        raise raised[0]

    real = cli_main.build_parser

    def build(argv: list[str]) -> argparse.ArgumentParser:
        parser = real(argv)
        parse = parser.parse_command  # type: ignore[attr-defined]

        def parse_failing(argv: list[str]) -> argparse.Namespace:
            args: argparse.Namespace = parse(argv)
            args.handler = failing
            return args

        parser.parse_command = parse_failing  # type: ignore[attr-defined]
        return parser

    monkeypatch.setattr(cli_main, "build_parser", build)
    assert cli_main.main(["rules"]) == 2
    assert capsys.readouterr().err.startswith(
        f"president rules: this install has no {missing}: install the project again"
    )
    # and a stream dropped under a command says so in words (a game-night pass read
    # asyncio's "Connection lost" alone)
    raised[0] = ConnectionResetError("Connection lost")
    assert cli_main.main(["rules"]) == 2
    assert capsys.readouterr().err == (
        "president rules: the connection to the server was lost (Connection lost)\n"
    )

"""Rules as files (issue 28, item 3): `president rules ... --save FILE` writes a commented
TOML file, `--rules FILE` loads it in `rules`, `play`, `sim`, `bot` and `replay`, the
lobby's create-table form offers the saved sets, and a file that is not rules is one line
naming the file, the line and the toggle.  And the `japanese` preset (item 2) plays
whole games that replay legal."""

from __future__ import annotations

import json
import os
import random
import stat
from pathlib import Path

import pytest
from president.engine import PRESETS, TOGGLES, RulesError
from president.engine.rulefile import RuleFileError, RuleSet, format_rule_file, parse_rule_file
from president.engine.rules import toggle_choices

from .harness.processes import PRESIDENT, Process, ServerProcess, bot_process, environment, stop
from .harness.processes import president as president_process
from .harness.processes import president_here as president
from .harness.records import replayed
from .harness.terminal import Terminal

RECORDS = Path(__file__).parent / "engine" / "records"


# --- the text: written, read back ------------------------------------------------------------


def test_every_preset_with_changes_round_trips_through_the_text() -> None:
    """Each preset, with a few toggles changed at random (seeded), is read back from its
    file as the same rules and the same changes; the file names every toggle, the changed
    ones as lines, the others commented out."""
    rng = random.Random(28)
    for name, base in PRESETS.items():
        for _ in range(2):
            rules = base
            for toggle in rng.sample(TOGGLES, 6):
                choices = toggle_choices(toggle) or (1, 3, 7)
                try:
                    rules = rules.replace(**{toggle: rng.choice(choices)})
                except RulesError:
                    continue  # (a value that does not go with the others)
            rule_set = RuleSet.of(rules, name)
            text = format_rule_file(rule_set, made_by="a test")
            assert parse_rule_file(text) == rule_set and parse_rule_file(text).rules == rules
            for toggle in TOGGLES:
                commented = f"\n# {toggle} = " in text
                assert commented != (toggle in rule_set.changes), (toggle, text)
                assert (f"\n{toggle} = " in text) == (toggle in rule_set.changes), toggle


def test_a_file_of_words_in_any_case_and_none_reads_as_the_toggles_take_them() -> None:
    text = 'preset = "Daifugo"\nexchange = "NONE"\nclear_rank = "none"\n# bombs = true\n'
    read = parse_rule_file(text)
    assert read.preset == "daifugo"
    assert read.changes == {"exchange": "none", "clear_rank": None}
    assert parse_rule_file('preset = "classic"').rules == PRESETS["classic"]


@pytest.mark.parametrize("text", ["", "# a comment\n", "nines_clear = true\n"])
def test_a_file_that_names_no_preset_is_refused(text: str) -> None:
    """The host pass: a saved daifugo file cut short above its preset line (comments
    left), an empty one, or one of toggles alone read as classic rules without a word;
    the file names its preset (docs/rules.md), so one that does not is refused."""
    with pytest.raises(
        RuleFileError, match=r'^f.toml: it names no preset: add a line preset = "NAME" \(classic, '
    ):
        parse_rule_file(text, "f.toml")


# --- mistakes: one line, the file, the line, the toggle ---------------------------------------

MISTAKES = {
    "unknown": ('preset = "daifugo"\n\nnine_clear = true\n', "line 3: there is no toggle "),
    "value": ("# jokers\njokers = 3\n", "line 2: jokers must be one of 0, 1, 2, not 3"),
    "type": ("bombs = 1\n", "line 1: bombs must be true or false, not 1"),
    "word": ('exchange = "three"\n', 'line 1: exchange must be one of "none", "one"'),
    "range": ("rounds = 0\n", "line 1: rounds must be between 1 and 99"),
    "toml": ("bombs = true\njokers = \n", "line 2: not TOML"),
    "table": ("[toggles]\nbombs = true\n", "line 1: toggles is a table"),
    "preset": ('bombs = true\npreset = "poker"\n', 'line 2: preset = "poker" is not a preset'),
    "together": ('bombs = true\njoker_mode = "wild"\n', "line 2: joker_mode = 'wild' needs jokers"),
}


@pytest.mark.parametrize("case", MISTAKES)
def test_each_mistake_in_a_rules_file_is_one_line(case: str, tmp_path: Path) -> None:
    text, words = MISTAKES[case]
    with pytest.raises(RuleFileError, match="^f.toml, " + words.replace("(", r"\(")):
        parse_rule_file(text, "f.toml")
    path = tmp_path / "f.toml"
    path.write_text(text)
    for command in (("sim", "--games", "1"), ("rules",), ("play",), ("bot", "127.0.0.1:1")):
        out = president(*command, "--rules", str(path))
        assert out.returncode == 2 and out.stdout == "", (command, out)
        assert out.stderr.count("\n") == 1 and f"{path}, {words}" in out.stderr, out.stderr
    assert "did you mean nines_clear?" in president("rules", "--rules", str(path)).stderr or (
        case != "unknown"
    )


def test_a_file_that_cannot_be_rules_is_one_line_too(tmp_path: Path) -> None:
    (tmp_path / "bytes.toml").write_bytes(b"\xff\xfe bombs = true\n")
    (tmp_path / "big.toml").write_text("# " + "x" * 70_000 + "\n")
    for name, words in (
        ("bytes.toml", "not UTF-8 text"),
        ("big.toml", "over 64 KiB"),
        ("missing.toml", "cannot read the rules file"),
    ):
        out = president("sim", "--rules", str(tmp_path / name))
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr
    both = president("sim", "--preset", "house", "--rules", str(tmp_path / "bytes.toml"))
    assert both.returncode == 2 and "give a preset or --rules, not both" in both.stderr


def test_a_hostile_file_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """Arrays nested 3,000 deep (tomllib recurses) and a 5,000-digit number (past
    Python's int limit) are refused by name, as any other file that is not rules; the
    create form's listing of saved sets names them refused (scripts/attack_rule_files.py)."""
    for name, text in (
        ("deep.toml", "target = " + "[" * 3000 + "]" * 3000 + "\n"),
        ("digits.toml", "target = " + "9" * 5000 + "\n"),
    ):
        with pytest.raises(RuleFileError, match=f"^{name}: not rules"):
            parse_rule_file(text, name)
        (tmp_path / name).write_text(text)
        out = president("rules", "--rules", str(tmp_path / name))
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert "Traceback" not in out.stderr and name in out.stderr


def test_a_files_escape_sequences_never_reach_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile pass: a file's preset of ESC ] 0 ; ... BEL, ESC [ 2J and OSC 52 retitled
    the window, cleared the screen and wrote the clipboard, in every command taking
    --rules and in `president rules`' listing of the saved sets.  Shown escaped now."""
    osc = r"\u001b]0;PWNED\u0007\u001b[2J\u001b]52;c;cHduZWQ=\u0007\u202e\u009b31m"
    (tmp_path / "preset.toml").write_text(f'preset = "{osc}"\n')
    (tmp_path / "value.toml").write_text(f'preset = "classic"\ntarget = "{osc}"\n')
    for name in ("preset.toml", "value.toml"):
        file = str(tmp_path / name)
        for argv in (
            ("rules", "--rules", file),
            ("sim", "--rules", file, "--games", "1"),
            ("play", "--rules", file),
            ("bot", "127.0.0.1:9", "--rules", file),
            ("replay", str(RECORDS / "game_classic.json"), "--rules", file),
        ):
            out = president(*argv)
            assert out.returncode == 2 and out.stderr.count("\n") == 1, (argv, out.stderr)
            assert out.stderr.isprintable() or out.stderr[:-1].isprintable(), (argv, out.stderr)
            assert "\\x1b]0;PWNED\\x07" in out.stderr, (argv, out.stderr)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / "cfg" / "president" / "rules").mkdir(parents=True)
    (tmp_path / "cfg" / "president" / "rules" / "friday.toml").write_text(f'preset = "{osc}"\n')
    listing = president("rules").stdout
    assert "Not a rules file: " in listing and "friday.toml, line 1" in listing, listing
    assert "\x1b" not in listing and "\\x1b]0;PWNED" in listing, listing
    # a good set under a hostile file name: named escaped among the saved sets (a review)
    (tmp_path / "cfg" / "president" / "rules" / "a\x1b]0;PWN\x07b.toml").write_text(
        'preset = "classic"\n'
    )
    listing = president("rules").stdout
    assert "\x1b" not in listing and "a\\x1b]0;PWN\\x07b" in listing, listing


def test_a_toggle_there_is_not_is_named_as_such() -> None:
    """What a create_table with an unknown toggle is told (it was Python's words:
    "Rules.__init__() got an unexpected keyword argument")."""
    with pytest.raises(RulesError, match=r"^there is no toggle 'no_such_rule'$"):
        PRESETS["classic"].replace(bombs=True, no_such_rule=True)


def test_a_set_past_the_wires_32_changes_is_said_from_the_closest_preset() -> None:
    """`create_table` carries at most 32 toggles changed: a file that changes more from
    its own preset makes its table from the closest preset, as the same rules."""
    from president.cli.usage import WIRE_TOGGLES, wire_rules

    rules = PRESETS["japanese"]
    for name in TOGGLES:  # more toggles on, one at a time, until 33 differ from classic
        if len(rules.changes_from(PRESETS["classic"])) > WIRE_TOGGLES:
            break
        if toggle_choices(name) == (False, True) and not getattr(rules, name):
            try:
                rules = rules.replace(**{name: True})
            except RulesError:
                continue
    far = RuleSet.of(rules, "classic")
    assert len(far.changes) == WIRE_TOGGLES + 1
    near = wire_rules(far)
    assert near.preset == "japanese" and near.rules == rules
    assert wire_rules(near) is near  # (within the cap: as it is)


# --- the commands, in this process ------------------------------------------------------------


def test_save_then_rules_sim_and_replay_take_the_file(tmp_path: Path) -> None:
    path = tmp_path / "friday.toml"
    saved = president(
        "rules", "daifugo", "--set", "nines_clear=on", "--set", "rounds=1", "--save", str(path)
    )
    assert saved.returncode == 0 and "the preset daifugo with 2 toggles changed" in saved.stdout
    assert parse_rule_file(path.read_text()) == RuleSet(
        "daifugo", {"rounds": 1, "nines_clear": True}
    )
    shown = president("rules", "--rules", str(path))
    assert shown.returncode == 0 and "*nines_clear = true" in shown.stdout
    assert " jack_back = true" in shown.stdout  # the preset's, unchanged
    on_top = president("rules", "--rules", str(path), "--set", "bombs=on", "--json")
    assert json.loads(on_top.stdout)["bombs"] is True
    assert json.loads(on_top.stdout)["nines_clear"] is True
    records = tmp_path / "records"
    args = ("--games", "1", "--jobs", "1", "--bots", "greedy", "--record", str(records))
    sim = president("sim", "--rules", str(path), "--json", *args)
    assert sim.returncode == 0, sim.stderr
    assert json.loads(sim.stdout)["preset"] == "daifugo"
    [record] = records.iterdir()
    document = json.loads(record.read_text())
    assert document["rules"] == {"preset": "daifugo", "rounds": 1, "nines_clear": True}
    assert replayed(record)["ok"]
    assert president("replay", str(record)).returncode == 0  # no file needed
    assert president("replay", str(record), "--rules", str(path)).returncode == 0
    other = tmp_path / "other.toml"
    president("rules", "japanese", "--save", str(other))
    out = president("replay", str(record), "--rules", str(other))
    assert out.returncode == 1 and out.stdout.count("\n") == 1 and not out.stderr
    assert "jokers = 1 (the file: 2)" in out.stdout and "nines_clear" not in out.stdout
    # (the check's answer, as an illegal step's is: `{"ok": false, ...}` under --json)
    out = president("replay", str(record), "--rules", str(other), "--json")
    fault = json.loads(out.stdout)
    assert out.returncode == 1 and (fault["ok"], fault["hand"], fault["action"]) == (
        False,
        None,
        None,
    )
    assert fault["error"].startswith(f"played by other rules than {other}: ")


def test_save_never_writes_through_a_link_planted_beside_the_file(tmp_path: Path) -> None:
    """A hostile local user's pass: a link at `.NAME.part` (the fixed name the file was
    written under first) in a folder others may write in had `--save` write over a file
    of the user's.  The file is the user's as any they make (their umask)."""
    victim = tmp_path / "notes.txt"
    victim.write_text("precious")
    (tmp_path / ".friday.toml.part").symlink_to(victim)
    saved = president("rules", "daifugo", "--save", str(tmp_path / "friday.toml"))
    assert saved.returncode == 0, saved.stderr
    assert victim.read_text() == "precious"
    assert parse_rule_file((tmp_path / "friday.toml").read_text()).preset == "daifugo"
    mode = stat.S_IMODE(os.stat(tmp_path / "friday.toml").st_mode)
    assert mode == 0o666 & ~current_umask(), oct(mode)


def current_umask() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def test_a_saved_set_is_found_by_name_and_offered_by_the_create_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from president.cli.connect import table_rule_sets
    from president.client.tui.lobby import TableForm

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "config" / "president" / "rules"
    saved = president("rules", "house", "--set", "bombs=on", "--save", str(folder / "friday.toml"))
    assert saved.returncode == 0, saved.stderr
    (folder / "broken.toml").write_text("bombs = maybe\n")
    listing = president("rules")
    assert f"Saved in {folder}: friday." in listing.stdout
    assert f"Not a rules file: {folder / 'broken.toml'}, line 1: not TOML" in listing.stdout
    assert "*bombs = true" in president("rules", "--rules", "friday").stdout

    sets, problems = table_rule_sets()
    assert sets == {"friday": RuleSet("house", {"bombs": True})}
    assert len(problems) == 1 and "broken.toml, line 1: not TOML" in problems[0]
    form = TableForm(name="T", saved=sets)
    form.row = form.keys.index("preset")
    offered = []
    for _ in range(len(PRESETS) + 1):
        form.change(1)
        offered.append(form.rows()[1][1])
    assert offered[-2:] == ["friday (saved)", "classic"]
    form.change(-1)  # back to the saved set
    request = form.request()
    assert (request.preset, request.toggles) == ("house", {"bombs": True})
    assert form.rules() == PRESETS["house"].replace(bombs=True)


# --- the commands as processes: the round trip (slow) -----------------------------------------


@pytest.mark.slow
async def test_a_rules_file_round_trips_through_play_bot_sim_and_replay(tmp_path: Path) -> None:
    env = environment(tmp_path)
    path = tmp_path / "friday.toml"
    rules = ("rules", "daifugo", "--set", "nines_clear=on", "--set", "rounds=1")
    assert president(*rules, "--save", str(path)).returncode == 0  # (the same file)
    wanted = {"preset": "daifugo", "rounds": 1, "nines_clear": True}
    # sim: its record carries the rules, and replays with and without the file
    records = tmp_path / "sim"
    args = ("--games", "1", "--jobs", "1", "--record", str(records))
    sim = president_process("sim", "--rules", str(path), *args, env=env)
    assert sim.returncode == 0, sim.stderr
    [record] = records.iterdir()
    assert json.loads(record.read_text())["rules"] == wanted
    assert president("replay", str(record)).stdout.startswith("ok: 1 hand replayed")
    out = president_process("replay", str(record), "--rules", str(path), env=env)
    assert out.returncode == 0 and out.stdout.startswith("ok: 1 hand replayed"), out
    # bot: the table it creates plays by the file; the server's record says so
    server = ServerProcess(tmp_path / "data", env=env)
    bots: Process | None = None
    try:
        table = ("--table", "friday", "--seats", "3", "--count", "3", "--games", "1")
        bots = bot_process(server, env, "--rules", str(path), *table, "--strategy", "greedy")
        assert bots.wait(120) == 0, bots.errors()
        assert "created table friday (daifugo, 3 seats, 60 s a turn)" in bots.text()
    finally:
        stop(bots)
        server.stop()
    [played] = (tmp_path / "data" / "records").glob("*.json")
    assert json.loads(played.read_text())["rules"] == wanted
    assert president("replay", str(played), "--rules", str(path)).returncode == 0
    # play: the table says the file's rules
    ann = Terminal(
        [
            *PRESIDENT,
            *("play", "--rules", str(path), "--players", "3", "--bots", "random"),
            *("--name", "ann", "--bot-delay", "0", "--pause", "0"),
        ],
        env,
        rows=40,
        columns=140,
    )
    try:
        await ann.shows("rules: daifugo, changed:", 60)
        await ann.shows("two or more 9s", 10)
    finally:
        ann.close()


@pytest.mark.slow
def test_the_japanese_preset_plays_a_whole_game_with_every_kind_of_bot(tmp_path: Path) -> None:
    """Issue 28, item 2: a whole game under `japanese` between the search, heuristic,
    greedy and random bots, recorded by `president sim`, replays legal."""
    records = tmp_path / "records"
    bots = ("--bots", "search,heuristic,greedy,random", "--playouts", "20")
    args = ("--games", "1", "--jobs", "1", "--record", str(records), "--quiet")
    out = president_process("sim", "--preset", "japanese", *bots, *args, env=environment(tmp_path))
    assert out.returncode == 0, out.stderr
    [record] = records.iterdir()
    assert json.loads(record.read_text())["rules"] == {"preset": "japanese"}
    result = replayed(record)
    assert result["ok"] and result["game_over"], result
    assert len(result["hands"]) == PRESETS["japanese"].rounds
    assert all(hand["complete"] for hand in result["hands"])


def test_a_set_saved_by_its_name_is_kept_in_the_rules_folder_and_found_by_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--save friday` (a name, as the README's example): in the rules folder, not the
    current one; `--save friday.toml` is that file, where the command runs."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "config" / "president" / "rules"
    missing = president("rules", "--rules", "friday")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert f"nor is a set of that name saved in {folder}" in missing.stderr
    saved = president("rules", "daifugo", "--set", "nines_clear=on", "--save", "friday")
    assert saved.returncode == 0, saved.stderr
    assert f"saved {folder / 'friday.toml'}" in saved.stdout and "--rules friday;" in saved.stdout
    assert not (tmp_path / "friday").exists() and not (tmp_path / "friday.toml").exists()
    assert "*nines_clear = true" in president("rules", "--rules", "friday").stdout
    assert f"Saved in {folder}: friday." in president("rules").stdout
    again = president("rules", "classic", "--save", "friday")
    assert again.returncode == 2 and f"{folder / 'friday.toml'} is there already" in again.stderr
    as_file = president("rules", "classic", "--save", "friday.toml")
    assert as_file.returncode == 0 and (tmp_path / "friday.toml").is_file()
    assert "--save NAME keeps a set in" in as_file.stdout
    assert "*nines_clear = true" in president("rules", "--rules", "friday").stdout  # kept


def test_save_to_a_folder_or_where_nothing_can_be_written_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    for target, words in (
        (str(tmp_path), "--save takes a file's name"),
        ("", "--save takes a file's name"),
        (str(tmp_path / "a-file" / "x.toml"), "cannot write"),
    ):
        out = president("rules", "house", "--save", target)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr
    assert not list(tmp_path.glob(".*.part"))

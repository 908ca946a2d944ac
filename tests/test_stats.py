"""`president stats` against a server that never answers; and without a server, the ladder of a folder of game records (`president
play`'s by default), every seat rated by its name.  That it equals a server's own ladder
of the same games is tests/test_ladder.py's (real processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from president.bots.sim import play_game
from president.engine import find_preset
from president.engine.record import dumps, to_record

from .harness.processes import president_here as president

BOTS = ["heuristic", "heuristic", "greedy", "greedy"]
NAMES = {"heuristic-0", "heuristic-1", "greedy-2", "greedy-3"}


def write_games(folder: Path, games: int, seed: int = 1) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rules = find_preset("daifugo")
    for number in range(games):  # (seated as heuristic-0, heuristic-1, greedy-2, greedy-3)
        game, _, _ = play_game(rules, BOTS, seed, number, rotate=True)
        (folder / f"2026120{number}-local.json").write_text(dumps(to_record(game, "daifugo")))


def test_the_ladder_of_a_folder_of_records_counts_every_finished_hand(tmp_path: Path) -> None:
    write_games(tmp_path / "records", 3)
    out = president("stats", "--records", str(tmp_path / "records"), "--json")
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    assert shown["games"] == 3 and shown["total"] == 4 and shown["problems"] == []
    players = {p["name"]: p for p in shown["players"]}
    assert set(players) == NAMES
    for player in players.values():  # daifugo: 5 hands a game, every seat in each
        assert player["hands"] == 15 and sum(player["places"]) == 15 and player["games"] == 3
    assert sum(p["wins"] for p in players.values()) >= 3  # (a tie counts each winner)
    words = president("stats", "--records", str(tmp_path / "records")).stdout
    assert words.startswith(f"Ladder of the 3 game records in {tmp_path / 'records'}: 4 ")
    assert "every seat rated by name (bots too)" in words


def test_a_file_that_is_not_a_record_is_named_and_a_faulty_one_counts_its_hands_before(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "records"
    write_games(folder, 1)
    record = json.loads(next(folder.glob("*.json")).read_text())
    (folder / "20261209-junk.json").write_text("{not json")
    second = record["hands"][1]["actions"]
    second[len(second) // 2] = {"seat": 0, "play": ["5H", "5H"]}  # an illegal step mid-hand
    (folder / "20261208-cut.json").write_text(json.dumps(record))
    first = next(folder.glob("2026120*-local.json"))
    (folder / f"{first.stem} (1).json").write_bytes(first.read_bytes())  # a copy: once
    out = president("stats", "--records", str(folder), "--json")
    shown = json.loads(out.stdout)
    assert shown["games"] == 2, shown  # the good one, and the faulty one's hand 1
    copies = {first.name, f"{first.stem} (1).json"}  # (whichever name sorts first counts)
    assert any(
        p.split(" left out: the same game as ")[1:]
        and set(p.split(" left out: the same game as ")) == copies
        for p in shown["problems"]
    ), shown["problems"]
    # (a game cut short by a fault counts its hands and not the game, and says so on its
    # own line, not as a game left before its end: a newcomer's pass read a record of
    # illegal rules, whose hands were none, as a game left early)
    assert not any("left before the end" in p for p in shown["problems"]), shown
    assert [p["hands"] for p in shown["players"]] == [6, 6, 6, 6], shown
    problems = shown["problems"]
    assert any(p.startswith("20261209-junk.json left out: ") for p in problems), problems
    assert any(
        p.startswith("20261208-cut.json: only the hands before this counted: illegal in hand 2")
        for p in problems
    ), problems


def test_without_a_server_or_a_game_of_play_it_says_where_play_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    out = president("stats")
    assert out.returncode == 0 and out.stdout.startswith("No games of `president play` yet")
    shown = json.loads(president("stats", "--json").stdout)  # (a script reads JSON)
    assert shown["games"] == 0 and shown["players"] == [], shown
    assert str(tmp_path / "president" / "local" / "records") in out.stdout
    write_games(tmp_path / "president" / "local" / "records", 1)
    out = president("stats", "--player", "greedy-2")
    assert out.returncode == 0 and " greedy-2  " in out.stdout, out.stdout
    assert "heuristic-0" not in out.stdout
    # a name in any case, as a server claims one (a pass asked for Root, and was told
    # root was not on the ladder)
    out = president("stats", "--player", "Greedy-2")
    assert " greedy-2  " in out.stdout and "not on this ladder" not in out.stdout, out.stdout
    refused = president("stats", "127.0.0.1", "--records", str(tmp_path))
    assert refused.returncode == 2 and "--records" in refused.stderr
    missing = president("stats", "--records", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr  # (no such folder)


async def test_a_server_that_only_pings_is_given_up_on_in_the_time_asked() -> None:
    """A hostile pass: against a server that only pinged, `president stats` waited for
    ever (its 10 s deadline began again at every message)."""
    import asyncio

    from president.cli.stats import fetch
    from president.protocol import messages as m

    class Pinging:
        def __init__(self) -> None:
            self.sent: list[m.Message] = []

        async def send(self, message: m.Message) -> None:
            self.sent.append(message)

        async def receive(self) -> m.Message:
            await asyncio.sleep(0.01)
            return m.Ping(nonce=1)

    link = Pinging()
    asking = asyncio.create_task(fetch(link, 20, (), 0.3))  # type: ignore[arg-type]
    await asyncio.wait([asking], timeout=10)  # (far past the 0.3 s asked: a hang is seen)
    assert asking.done(), "still waiting"
    assert isinstance(asking.exception(), TimeoutError)
    assert any(isinstance(sent, m.Pong) for sent in link.sent)  # (each ping answered)


def test_records_of_other_rules_or_versions_are_left_out_whole_each_said_why(
    tmp_path: Path,
) -> None:
    """A newcomer's pass: a record whose rules were illegal was said to be "left before
    the end" with "only the hands before this counted" (it had none); one naming a toggle
    of a newer version was called illegal (and `replay` said status 1); a record cut
    short said only "not JSON"."""
    folder = tmp_path / "records"
    write_games(folder, 1)
    good = next(folder.glob("*.json"))
    record = json.loads(good.read_text())
    (folder / "bad-rules.json").write_text(json.dumps({**record, "rules": {"decks": 7}}))
    newer = {**record, "rules": {"preset": "classic", "future_toggle": True}}
    (folder / "newer.json").write_text(json.dumps(newer))
    (folder / "cut.json").write_text(good.read_text()[:5000])
    out = president("stats", "--records", str(folder), "--json")
    shown = json.loads(out.stdout)
    assert shown["games"] == 1, shown
    problems = shown["problems"]
    assert "bad-rules.json left out: illegal in the header: rules: decks must be" in " ".join(
        problems
    ), problems
    assert not any("left before the end" in p or "hands before this" in p for p in problems)
    assert any(
        p.startswith(
            "newer.json left out: illegal in the header: rules: there is no toggle "
            "'future_toggle' (a newer president's?)"
        )
        for p in problems
    ), problems
    # (cut short beside the whole record: its hands are that game's, counted once)
    assert f"cut.json left out: the same game as {good.name}" in problems, problems
    # (docs/records.md: a fault in the header is status 1, `hand` null; status 2 is for a file
    # that is not JSON or not this format, which a toggle's name does not make it)
    replayed = president("replay", "--json", str(folder / "newer.json"))
    assert replayed.returncode == 1, replayed.stderr
    fault = json.loads(replayed.stdout)
    assert (fault["ok"], fault["hand"], fault["action"]) == (False, None, None)
    assert "no toggle 'future_toggle' (a newer president's?)" in fault["error"]


@pytest.mark.slow
def test_the_ladders_columns_line_up_where_a_name_is_written_escaped(tmp_path: Path) -> None:
    """A terminal pass: under a Latin-1 locale 李雷 was written as \\u674e\\u96f7 in a
    column padded for two wide letters, and its row ran 8 columns on."""
    import os

    from .harness.processes import president as president_process

    write_games(tmp_path / "records", 1)
    for path in (tmp_path / "records").glob("*.json"):
        text = path.read_text().replace('"heuristic-0"', '"李雷"')  # (and one cut: a recheck)
        text = text.replace('"heuristic-1"', '"李雷🃏-and-a-long-tail"')
        path.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    out = president_process(
        "stats", "--records", str(tmp_path / "records"), env=env, encoding="latin-1"
    )
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == 4 and any("\\u674e\\u96f7" in row for row in rows), out.stdout
    assert len({len(row) for row in rows}) == 1, out.stdout  # (every column right-aligned)


def test_a_record_cut_short_counts_its_whole_hands_once(tmp_path: Path) -> None:
    """A pass: a record whose copy stopped short (two whole hands and most of a third,
    one action a line) was "not JSON" to `stats`, `replay` and `analyze`, and nothing of
    it counted; beside the whole record, a cut copy is the same game."""
    folder = tmp_path / "records"
    write_games(folder, 1)
    good = next(folder.glob("*.json"))
    text = good.read_text()
    record = json.loads(text)
    third = json.dumps(record["hands"][2]["actions"][3])  # (a line of its own)
    cut = text[: text.index(third) + len(third) + 1]  # (after the action's comma)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "cut.json").write_text(cut[:-40])  # (in the deal of hand 3: 2 whole hands)
    shown = json.loads(president("stats", "--records", str(alone), "--json").stdout)
    assert shown["games"] == 1, shown
    assert not any("left before the end" in p for p in shown["problems"]), shown
    assert [p["hands"] for p in shown["players"]] == [2, 2, 2, 2], shown
    assert any(
        p.startswith("cut.json: only the hands before the cut counted: not JSON (it ends too")
        for p in shown["problems"]
    ), shown["problems"]
    # beside the whole record, in either order of names: counted once, the whole one's
    for name in ("0-cut.json", "z-cut.json"):
        (folder / name).write_text(cut)
        shown = json.loads(president("stats", "--records", str(folder), "--json").stdout)
        assert shown["games"] == 1, shown
        assert [p["hands"] for p in shown["players"]] == [5, 5, 5, 5], shown
        assert f"{name} left out: the same game as {good.name}" in shown["problems"], shown
        (folder / name).unlink()
    # replay: the whole part replayed and said, status 2 (not JSON: docs/records.md), and with
    # --json nothing on stdout
    (folder / "cut.json").write_text(cut)
    replayed = president("replay", str(folder / "cut.json"))
    assert replayed.returncode == 2
    assert replayed.stdout.startswith("cut short: 3 hands before the cut replayed"), replayed
    assert "hand 3  " in replayed.stdout and "not finished" in replayed.stdout
    assert replayed.stderr.startswith(f"president replay: {folder / 'cut.json'}: not JSON")
    assert "before the cut, 3 hands (4 actions of the last), replayed above" in replayed.stderr
    scripted = president("replay", "--json", str(folder / "cut.json"))
    assert (scripted.returncode, scripted.stdout) == (2, ""), scripted
    assert "before the cut, 3 hands (4 actions of the last)" in scripted.stderr
    # analyze: that part reviewed, and said
    judged = president("analyze", str(folder / "cut.json"), "--playouts", "2", "--jobs", "1")
    assert judged.returncode == 0, judged.stderr
    assert judged.stderr.endswith("before the cut, 3 hands (4 actions of the last), reviewed\n")
    assert "(3 hands); places" in judged.stdout, judged.stdout

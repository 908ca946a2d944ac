"""Records (docs/records.md): every fault found, named by hand and action, never a traceback."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from president.engine import Game, find_preset
from president.engine.record import CutShort, NotARecord, dumps, loads, replay, to_record

from .helpers import finish_hand_low, full_deal

RECORDS = Path(__file__).parent / "records"
PRESET_GAMES = sorted(RECORDS.glob("game_*.expected.json"))


@pytest.mark.parametrize("expected", PRESET_GAMES, ids=lambda p: p.name.split(".")[0])
def test_a_whole_game_of_every_preset_replays_as_written(expected: Path) -> None:
    record = loads((RECORDS / expected.name.replace(".expected", "")).read_text())
    result = replay(record).to_json()
    assert result == json.loads(expected.read_text())
    assert result["ok"] is True and result["game_over"] is True and result["winners"]
    assert all(
        hand["complete"] and len(hand["finish"]) == len(record["players"])
        for hand in result["hands"]
    )
    assert list(result) == ["ok", "hands", "scores", "game_over", "winners"]
    for hand in result["hands"]:  # each give answered by its receiver, as many cards back
        gives = sorted((g["to"], g["from"], len(g["cards"])) for g in hand["gives"])
        assert sorted((r["from"], r["to"], len(r["cards"])) for r in hand["returns"]) == gives


def two_hands() -> dict[str, Any]:
    rules = find_preset("classic").replace(first_lead="dealer_left")
    game = Game(rules, ["A", "B", "C", "D"])
    game.start_hand(dealer=3, deal=full_deal(rules, 4, 0, {}))
    finish_hand_low(game)
    game.start_hand(dealer=0, deal=full_deal(rules, 4, 1, {}))
    finish_hand_low(game)
    return to_record(game)


def fault(record: dict[str, Any]) -> tuple[int | None, int | None, str]:
    result = replay(record)
    assert result.fault is not None, "the record should not replay"
    return result.fault.hand, result.fault.action, result.fault.error


def test_two_hands_replay() -> None:
    result = replay(two_hands())
    assert result.ok
    assert result.hands[0]["gives"] == [] and len(result.hands[1]["gives"]) == 2
    assert result.to_json()["scores"] == {"A": 4, "B": 2, "C": 0, "D": 0}


def test_a_record_may_stop_mid_hand() -> None:
    record = two_hands()
    del record["hands"][1]["actions"][10:]
    out = replay(record).to_json()
    hand = out["hands"][1]
    assert out["ok"] and hand == {
        "complete": False,
        "gives": hand["gives"],
        "returns": hand["returns"],
    }
    assert out["scores"] == {"A": 2, "B": 1, "C": 0, "D": 0}


def mutate(where: str, value: Any) -> dict[str, Any]:
    record = copy.deepcopy(two_hands())
    target: Any = record
    *path, last = where.split("/")
    for key in path:
        target = target[int(key)] if key.isdigit() else target[key]
    if value is DELETE:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return record


DELETE = object()


@pytest.mark.parametrize(
    ("where", "value", "hand", "action", "words"),
    [
        ("rules", {"preset": "nope"}, None, None, "no preset 'nope'"),
        ("rules", {"preset": "classic", "jokers": 7}, None, None, "jokers"),
        ("players", "ABCD", None, None, "players must be a list"),
        ("players", ["A", "A", "C", "D"], None, None, "unique"),
        ("hands", {}, None, None, "hands must be a list"),
        ("hands/0/dealer", DELETE, 0, None, "no dealer"),
        ("hands/1/dealer", 2, 1, None, "seat 0 deals this hand"),
        ("hands/0/deal/0/0", "3X", 0, None, "not a card"),
        ("hands/0/deal/0", ["3C"], 0, None, "not the whole deck"),
        (
            "hands/1/seating",
            ["A", "B", "C", "Z"],
            1,
            None,
            "Z sits down but is not among the players",
        ),
        ("hands/1/seating", ["B", "A", "C", "D"], 1, None, "keep their order"),
        ("hands/0/actions/0", {"seat": 0}, 0, 0, "one of play, pass, return, handover or discard"),
        ("hands/0/actions/0", {"play": ["3C"]}, 0, 0, "needs the seat"),
        ("hands/0/actions/0", {"seat": 0, "pass": False}, 0, 0, '"pass": true'),
        ("hands/0/actions/0", {"seat": 0, "play": "3C"}, 0, 0, "must be a list of cards"),
        ("hands/0/actions/0", {"seat": 1, "pass": True}, 0, 0, "not your turn"),
        ("hands/0/actions/0", {"seat": 0, "pass": True}, 0, 0, "leader may not pass"),
        ("hands/0/actions/1", {"seat": 1, "play": ["2S"]}, 0, 1, "you do not hold 2S"),
        ("hands/1/actions/0", {"seat": 0, "play": ["3C"]}, 1, 0, "exchange comes first"),
        ("hands/1/actions/0", {"seat": 0, "return": ["3C", "3D", "3H"]}, 1, 0, "return is 2 cards"),
        ("hands/1/actions/0", {"seat": 2, "return": ["3C"]}, 1, 0, "only A and B make a return"),
    ],
)
def test_faults_are_named_by_hand_and_action(
    where: str, value: Any, hand: int | None, action: int | None, words: str
) -> None:
    got_hand, got_action, error = fault(mutate(where, value))
    assert (got_hand, got_action) == (hand, action), error
    assert words in error


def test_a_refused_action_is_told_with_who_made_it() -> None:
    """The engine's sentence speaks to the seat ("you do not hold 2S"): in a replay it
    is said with whose action it was (a user pass: "there is no 'you' in a replay")."""
    result = replay(mutate("hands/0/actions/1", {"seat": 1, "play": ["2S"]}))
    assert result.fault is not None and result.fault.by == "B (seat 1)"
    assert result.fault.told() == (
        "illegal in hand 1, action 2 (the record's hands[0].actions[1]): B (seat 1) was told"
        ' "you do not hold 2S"'
    )
    assert result.fault.to_json() == {
        "ok": False,
        "hand": 0,
        "action": 1,
        "error": "you do not hold 2S",
    }  # (the JSON as docs/records.md has it: who is the record's own seat)
    deal = replay(mutate("hands/0/deal/0", ["3C"])).fault
    assert deal is not None and not deal.by and deal.told().startswith("illegal in hand 1's deal")


def test_a_long_game_of_players_named_with_brackets_replays() -> None:
    """The check that refuses a document of brackets before parsing it (200 MB of `[],`
    took 5 GB) counts the brackets outside strings: players called "[[[[..." are not
    arrays, and their game's record, however long, still replays."""
    names = ["[" * 300, "{" * 300, "[{" * 150, "]" * 300]  # (a record's names: any length)
    rules = find_preset("classic").replace(target=1000)
    game = Game(rules, names)
    rng = random.Random(5)
    for _ in range(20):
        game.start_hand(rng=rng)
        finish_hand_low(game)
    text = dumps(to_record(game))
    assert text.count("[") + text.count("{") > len(text) // 8  # (the raw count alone refuses it)
    assert replay(loads(text)).ok and replay(loads(text.encode())).ok
    with pytest.raises(NotARecord, match="far more JSON arrays and objects"):
        loads('{"format": "president-record/1", "hands": [' + "[]," * 5000 + "[]]}")


def test_a_first_hands_seating_of_null_is_left_out() -> None:
    record = two_hands()
    record["hands"][0]["seating"] = None
    assert replay(record).to_json() == replay(two_hands()).to_json()


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a record's JSON (a hand's later actions and a deal's later cards
    aside: they are as the first ones)."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            found += _paths(inner, (*path, index))
    return found


WRONG: list[Any] = [None, True, 0, -1, 10**30, 1.5, "", "x", [], [None], {}, {"a": 1}]


def test_any_field_of_any_type_is_a_fault_not_a_crash() -> None:
    """Every field of a record replaced by a value of each JSON type: a fault named in
    words (or a legal record), never an exception (a null seating crashed once)."""
    base = two_hands()
    tried = 0
    for path in _paths(base):
        for value in WRONG:
            record = copy.deepcopy(base)
            target: Any = record
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            result = replay(record)  # (an exception fails the test)
            assert result.fault is None or result.fault.error, (path, value)
            tried += 1
    assert tried > 800


def test_an_action_after_the_hand_is_over() -> None:
    record = two_hands()
    record["hands"][0]["actions"].append({"seat": 0, "pass": True})
    assert fault(record)[:2] == (0, len(record["hands"][0]["actions"]) - 1)


def test_a_hand_after_the_game_is_over() -> None:
    record = two_hands()
    record["rules"] = {"preset": "classic", "first_lead": "dealer_left", "target": 2}
    assert fault(record) == (1, None, "the game is over: no hand may follow")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[1, 2]",
        '{"format": "pgn"}',
        '{"hands": []}',
        dumps(two_hands())[:300],  # truncated
        '{"a":' * 2000 + "1" + "}" * 2000,  # nested past the decoder's recursion
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_not_a_record(text: str) -> None:
    with pytest.raises(NotARecord):
        loads(text)


def test_written_records_are_stable_json() -> None:
    record = two_hands()
    text = dumps(record)
    assert loads(text) == record
    assert json.loads(text) == record
    assert text.count("\n") > len(record["hands"][0]["actions"])  # one action a line


@pytest.mark.parametrize("name", ["game_classic.json", "game_daifugo.json"])
def test_a_record_cut_anywhere_keeps_every_whole_action_before_the_cut(name: str) -> None:
    """docs/records.md, "A record cut short": cut at any byte (a copy stopped, a disk
    full), a record is still not JSON (`NotARecord`, status 2), and `CutShort.whole` is the
    record up to its last action written whole: it replays with no fault (hands cut mid-way
    are not finished), every hand before the last is the written one, the last the written
    one's first actions, and nothing whole is left out."""
    text = (RECORDS / name).read_text()
    record = json.loads(text)
    decoder, ends = json.JSONDecoder(), []  # (where each action's object ends)
    at = text.find('{"seat"')
    while at >= 0:
        ends.append(decoder.raw_decode(text, at)[1])
        at = text.find('{"seat"', ends[-1])
    assert len(ends) == sum(len(hand["actions"]) for hand in record["hands"])
    for cut in range(len(text.rstrip()) - 1, 0, -199):  # (a prime: any offset in a line)
        with pytest.raises(NotARecord) as raised:
            loads(text[:cut])
        if not isinstance(raised.value, CutShort):
            assert cut < text.index('"actions"'), cut  # (no hand's actions begun yet)
            continue
        whole = raised.value.whole
        hands = whole["hands"]
        if not hands:  # (cut before the first hand's actions: the players, no hand)
            assert whole["players"] == record["players"] and cut < ends[0], cut
            continue
        assert hands[:-1] == record["hands"][: len(hands) - 1], cut
        last, written = hands[-1], record["hands"][len(hands) - 1]
        assert last["actions"] == written["actions"][: len(last["actions"])], cut
        assert {k: v for k, v in last.items() if k != "actions"} == {
            k: v for k, v in written.items() if k != "actions"
        }
        told = sum(len(hand["actions"]) for hand in hands)
        assert told == sum(1 for end in ends if end <= cut), cut  # (each whole one kept)
        if cut % 3 == 0:  # (a third of them: each replay takes its time)
            assert replay(whole).fault is None, cut


HEAD = '{"format": "president-record/1", "rules": "classic", "players": ["A", "B", "C"], '


def test_a_cut_is_made_only_between_hands_or_a_hands_actions() -> None:
    """A recheck: a list named `actions` anywhere was a place to cut, so a file whose
    `hands` was a number came back as a record with that number (a traceback in `replay`),
    and a cut at every comma of a list 900 brackets deep took 35 s for 2 MiB."""
    with pytest.raises(NotARecord) as raised:
        loads(HEAD + '"hands": 5, "x": {"actions": [1, 2, ')
    assert not isinstance(raised.value, CutShort)
    deep = HEAD + '"hands": [' + '{"a": ' * 900 + '{"actions": [' + "1, " * 1000 + "1"
    with pytest.raises(CutShort) as cut:
        loads(deep)
    assert cut.value.whole["hands"] == []  # (nothing whole in it: the cut is after its "[")


def test_a_string_with_no_end_runs_to_the_end_of_the_text() -> None:
    """A recheck: tried again at each escaped quote of a string with no end, the regular
    expression that sets strings aside took 19 s for 80 KB; it now takes the string to
    the end of the text, as JSON would."""
    from president.engine.record import _STRING

    assert _STRING.sub("", '[1, "a\\"b\\"c') == "[1, "
    assert _STRING.sub("", '[1, "a\\"b", "c\\') == "[1, , "
    with pytest.raises(CutShort) as cut:
        loads(HEAD + '"hands": [{"x": 1}, {"seating": ["' + 'ab\\"' * 2000)
    assert cut.value.whole["hands"] == [{"x": 1}]


def test_actions_read_again_are_the_same_and_a_hostile_record_keeps_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record's actions are read once and kept (`president stats` reads every record of
    a folder), each the action the cards say however often it comes, and no more are
    kept than `PARSED_KEPT`, whatever new cards a record writes at each step."""
    from president.engine import record
    from president.engine.actions import Discard, Play

    monkeypatch.setattr(record, "_PARSED", {})
    monkeypatch.setattr(record, "PARSED_KEPT", 5)
    first = record.action_from_json({"seat": 1, "play": ["3C", "3D"]})
    again = record.action_from_json({"seat": 2, "play": ["3C", "3D"]})
    assert first == (1, Play.parse("3C 3D")) and again == (2, Play.parse("3C 3D"))
    assert record.action_from_json({"seat": 0, "discard": ["3C", "3D"]}) == (
        0,
        Discard.parse("3C 3D"),
    )
    cards = [f"{rank}{suit}" for rank in ("4", "5", "6", "10") for suit in "CDHS"]
    for card in cards:
        assert record.action_from_json({"seat": 0, "play": [card]}) == (0, Play.parse(card))
    assert len(record._PARSED) == 5
    with pytest.raises(ValueError, match="not a card"):
        record.action_from_json({"seat": 0, "play": ["3X"]})
    # a card as no game writes it (padded: a hostile record's, each padding a new key,
    # held 1.3 GB in stats) is read, and not kept
    monkeypatch.setattr(record, "_PARSED", {})
    padded = "3S" + " " * 1000
    assert record.action_from_json({"seat": 0, "play": [padded]}) == (0, Play.parse("3S"))
    assert record._PARSED == {}

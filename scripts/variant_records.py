"""Write tests/engine/records/game_<toggle>.json for each variant toggle and for the
`daifugo` preset: a whole game of `president sim` bots in which the rule visibly acts
(`acts_in`), and its `president replay --json` output beside it (.expected.json).

    python scripts/variant_records.py [--out tests/engine/records] [--bots heuristic]

Each record is the first game, by seed, whose replay shows the rule at work."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from president.engine import (
    VARIANTS,
    Bombed,
    Discarded,
    Event,
    Fell,
    Game,
    Gave,
    HandedOver,
    Played,
    Skipped,
    Took,
    TrickEnded,
    WentOut,
)
from president.engine.house import HOUSE_FIELDS, Trigger
from president.engine.record import loads, replay

#: Per record name: (preset, toggles set on top of it).
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    name: ("classic", {name: "on", "jokers": "1", "joker_mode": "wild", "revolution": "on"})
    for name in VARIANTS
}
TABLES["suit_ranking"] = ("classic", {"suit_ranking": "on"})
TABLES["joker_revolution"] = ("classic", {**TABLES["joker_revolution"][1], "jokers": "2"})
TABLES["spade_two_return"] = ("classic", {**TABLES["spade_two_return"][1], "jack_back": "on"})
TABLES["six_return"] = ("classic", {**TABLES["six_return"][1], "jack_back": "on"})
# (at 8 a seat holds 6 or 7 cards, so a poor hand with nothing above 10 comes up)
TABLES["catastrophe"] = ("classic", {**TABLES["catastrophe"][1], "players": "8"})
# (at 6 the exchange scales to 3, 2 and 1 cards: at 4 it is two_one's)
TABLES["scaled_exchange"] = ("classic", {**TABLES["scaled_exchange"][1], "players": "6"})
TABLES["four_stop"] = ("classic", {**TABLES["four_stop"][1], "clear_rank": "8"})
TABLES["queen_release"] = ("classic", {**TABLES["queen_release"][1], "suit_lock": "on"})
TABLES["daifugo"] = ("daifugo", {})


#: The house rules whose trigger clears the pile, by name.
CLEARING: dict[str, Trigger] = {
    field.name: field.metadata["trigger"]
    for field in HOUSE_FIELDS
    if field.metadata["trigger"] is not None and field.metadata["trigger"].effect == "clear"
}
#: The house rules whose trigger cuts the trick while the order is reversed: five_cut...
CUTTING: dict[str, Trigger] = {
    field.name: field.metadata["trigger"]
    for field in HOUSE_FIELDS
    if field.metadata["trigger"] is not None and field.metadata["trigger"].effect == "cut"
}
#: The house rules whose trigger turns the order over (for the trick or for the hand):
#: jack_back, two_back, coup...
TURNING: dict[str, Trigger] = {
    field.name: field.metadata["trigger"]
    for field in HOUSE_FIELDS
    if field.metadata["trigger"] is not None
    and field.metadata["trigger"].effect in ("reverse", "revolution")
}
#: The house rules whose trigger turns the direction of play: nine_reverse...
DIRECTING: dict[str, Trigger] = {
    field.name: field.metadata["trigger"]
    for field in HOUSE_FIELDS
    if field.metadata["trigger"] is not None and field.metadata["trigger"].effect == "direction"
}


#: The toggle whose due a `Took` pays, by the due's kind.
TAKEN_BY = {"salvage": "salvage", "march": "kings_march", "zombie": "zombie"}


class Watch:
    """What a replay shows of each rule at work."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.top: Any = None
        self.jack = False
        self.lock: tuple[int, ...] = ()
        self.reversed = False
        self.backwards = False
        self.tops = 0
        #: The kind of the due owed after the last step (what a `Took` paid).
        self.due = ""

    def __call__(self, game: Game, hand: int, action: int | None, events: list[Event]) -> None:
        if action is None:
            self.tops = 0
            standing, finishes = game.standing, game.finishes
            if standing and finishes and standing != finishes[-1] == standing[::-1]:
                self.seen.add("gekokujou")  # the titles turned over
            gave = {e.giver for e in events if isinstance(e, Gave)}
            if any(isinstance(e, Gave) and e.size >= 3 for e in events):
                self.seen.add("scaled_exchange")  # three cards or more: the scaled exchange
            if standing and game.rules.exchange != "none":
                scum = game.seating.index(standing[-1])
                if scum not in gave:
                    self.seen.add("catastrophe")  # the Scum gave nothing
        before, self.top = self.top, game.top
        jack, self.jack = self.jack, game.jack_back
        lock, self.lock = self.lock, game.lock
        reversed_, self.reversed = self.reversed, game.revolution != game.jack_back
        backwards, self.backwards = self.backwards, game.backwards
        for event in events:
            if isinstance(event, Played):
                ranks = {c.rank for c in event.cards if not c.is_joker}
                if len(ranks) > 1:
                    self.seen.add("sequences")
                for name, trigger in CLEARING.items():  # nines_clear, sixes_clear...
                    shape = ranks == {trigger.rank} and len(event.cards) >= trigger.at_least
                    if event.clears and shape:
                        self.seen.add(name)
                for name, trigger in CUTTING.items():  # five_cut, six_cut, seven_cut
                    held = sum(1 for c in event.cards if c.rank == trigger.rank)
                    if event.clears and reversed_ and held:
                        self.seen.add(name)
                for name, trigger in TURNING.items():  # two_back, coup...
                    held = sum(1 for c in event.cards if c.rank == trigger.rank)
                    shape = held >= trigger.at_least and not (trigger.sets_only and len(ranks) > 1)
                    flipped = jack != self.jack and not event.clears  # (a clear ends a flip)
                    turned = event.revolution if trigger.effect == "revolution" else flipped
                    if shape and turned:
                        self.seen.add(name)
                for name, trigger in DIRECTING.items():  # nine_reverse...
                    held = any(c.rank == trigger.rank and not c.is_joker for c in event.cards)
                    if held and backwards != game.backwards:
                        self.seen.add(name)
                if ranks == {1} and before is not None and not before.run and before.rank == 5:
                    self.seen.add("four_stop")  # 4s on a set of 8s: the cut stopped
                suits = {c.suit for c in event.cards if not c.is_joker}
                if len(event.cards) == 4 and len(ranks) == 4 and len(suits) == 4:
                    self.seen.add("emperor")  # four ranks in a row, four suits
                shown = [str(c) for c in event.cards]
                single = before is not None and before.size == 1 and not before.run
                if event.clears and single and len(shown) == 1 and before is not None:
                    if {before.rank, event.cards[0].rank} == {0, 12}:
                        self.seen.add("assassination")  # a 3 on a 2, a 2 on a 3
                    if shown == ["2S"] and before.rank == 13:
                        self.seen.add("spade_two_return")
                judged = game.view_for(event.seat).judged() if game.top is not None else None
                if judged is not None and judged.step:
                    self.seen.add("step_lock")  # one rank up: locked to the next rank
                if judged is not None and judged.colour >= 0:
                    self.seen.add("colour_lock")  # two plays of one colour
                if jack and not self.jack and 3 in ranks and not event.clears:
                    self.seen.add("six_return")  # a 6 ended the jack back
                if lock and not game.lock and 9 in ranks and not event.clears:
                    self.seen.add("queen_release")
                if single and len(shown) == 1 and before is not None and before.suits:
                    step = 1 if game.revolution != game.jack_back else -1
                    card = event.cards[0]
                    if card.suit == before.suits[0] and card.rank == before.rank + step:
                        self.seen.add("down_number")  # one rank weaker, the pile's suit
                if ranks == {0} and before is not None and game.top and game.top.rank != 0:
                    self.seen.add("transparent_threes")
                if (
                    before is not None
                    and game.top is not None
                    and game.top.owner == event.seat
                    and not game.top.run
                    and before.rank == game.top.rank == next(iter(ranks), -1)
                ):
                    self.seen.add("suit_ranking")
                if (
                    [str(c) for c in event.cards] == ["3S"]
                    and before is not None
                    and before.rank == 13
                    and before.size == 1
                    and game.top is not None
                    and game.top.rank == 0  # (a transparent 3 would keep the joker's rank)
                ):
                    self.seen.add("spade_three")
                if (
                    not event.clears
                    and any(isinstance(e, TrickEnded) for e in events)
                    and not any(isinstance(e, Skipped) for e in events)
                    and sum(1 for n in game.card_counts() if n) >= 3
                ):
                    self.seen.add("one_time_around")
            elif isinstance(event, Skipped):
                self.seen.add("five_skip")
            elif isinstance(event, HandedOver):
                self.seen.add("seven_pass")
            elif isinstance(event, Discarded):
                self.seen.add("ten_discard")
            elif isinstance(event, Fell):
                self.seen.add("capital_fall")
            elif isinstance(event, Took):  # a card of the cards played taken: by the due
                self.seen.add(TAKEN_BY.get(self.due, self.due))
            elif isinstance(event, Bombed):
                self.seen.add("queen_bomber")
            elif isinstance(event, WentOut):
                kept = game.card_counts()[event.seat] > 0  # out with cards: a win at once
                sevens = before is not None and not before.run and before.rank == 4
                if kept and sevens and before.size >= 3:
                    self.seen.add("lucky_seven")
                if event.place == self.tops:
                    self.tops += 1
                else:
                    self.seen.add("forbidden_finishes")
        self.due = game.due.kind if game.due is not None else ""
        if game.lock:
            self.seen.add("suit_lock")
        if game.jack_back:
            self.seen.add("jack_back")


def acts_in(document: dict[str, Any]) -> set[str]:
    """The variant rules seen at work when the record is replayed."""
    watch = Watch()
    result = replay(document, watch)
    if not result.ok:
        raise SystemExit(f"a record did not replay: {result.fault}")
    return watch.seen


def one_game(preset: str, toggles: dict[str, str], seed: int, bots: str, folder: Path) -> Path:
    command = [sys.executable, "-m", "president.cli", "sim", "--preset", preset, "--games", "1"]
    toggles = dict(toggles)
    players = int(toggles.pop("players", "0"))  # (a table size of its own: catastrophe)
    if players:
        line_up = bots.split(",")
        bots = ",".join(line_up[i % len(line_up)] for i in range(players))
        command += ["--players", str(players)]
    for name, value in toggles.items():
        command += ["--set", f"{name}={value}"]
    command += ["--seed", str(seed), "--bots", bots, "--record", str(folder), "--quiet"]
    command += ["--jobs", "1", "--playouts", "24"]
    subprocess.run(command, check=True, capture_output=True)
    (path,) = folder.glob("*.json")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="tests/engine/records")
    parser.add_argument("--bots", default="heuristic,greedy,search,random")
    parser.add_argument("--only", nargs="*", help="record names (default: all)")
    args = parser.parse_args()
    out = Path(args.out)
    for name, (preset, toggles) in TABLES.items():
        if args.only and name not in args.only:
            continue
        needs = set(VARIANTS) & {name} if name != "daifugo" else {"sequences", "suit_lock"}
        for seed in range(1, 200):
            with tempfile.TemporaryDirectory() as tmp:
                path = one_game(preset, toggles, seed, args.bots, Path(tmp))
                text = path.read_text()
            seen = acts_in(loads(text))
            if needs <= seen:
                break
        else:
            print(f"{name}: no game in 200 seeds shows it at work", file=sys.stderr)
            return 1
        target = out / f"game_{name}.json"
        target.write_text(text)
        shown = subprocess.run(
            [sys.executable, "-m", "president.cli", "replay", "--json", str(target)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (out / f"game_{name}.expected.json").write_text(
            json.dumps(json.loads(shown), indent=1) + "\n"
        )
        print(f"{name}: seed {seed}, {sorted(seen)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

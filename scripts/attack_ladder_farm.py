"""The farming attack on the ladder (issue 26, item 5), in-process through the server's own
`Ladder`: a farmer sits with throwaway player keys that lose to him on purpose.  The same
hands are rated twice: by the ladder, and as the ladder rated them before it knew
established players (`Unguarded`: everyone rated against everyone at the table, one list
by rating).

    python scripts/attack_ladder_farm.py [--seed 0] [--hour 1800]

The story, one step after another (docs/ratings.md, "Throwaway keys"):

1. an honest game: hana, ari, bo and cy play 10 hands (hana the strongest);
2. the attack of 7 hands: fred, new, and two new keys that finish behind him every hand;
3. hana beats them all: one hand with fred and both keys, then 10 at her table with fred;
4. an hour of it: fred and a new pair of keys every 10 hands, `--hour` hands in all (the
   server pauses 2 s between hands, so one table plays at most 1,800 in an hour).

Then what the ladder does not resist, each going on from step 3, `--hour` hands each:

5. keys that play honest hands first: each new pair loses at hana's table until
   established (10 hands), then loses 10 to fred;
6. real friends: ari and bo, established, lose to fred on purpose;
7. a second real key: fred's second key plays 10 honest hands at hana's table (and is
   established), then it and fred establish each new pair of keys (10 hands, fred first),
   which then lose 10 more to fred.
"""

from __future__ import annotations

import argparse
import copy
import random
from collections.abc import Iterable, Sequence

from president.server import ratings
from president.server.ratings import Finisher, HandResult, Ladder, Record

HONEST = ("hana", "ari", "bo", "cy")
#: The Plackett-Luce worths of the honest hands' draws: hana first about half the time.
WORTH = {"hana": 4.0, "ari": 2.0, "bo": 1.5, "cy": 1.0, "fred": 1.5, "fred-2": 1.5}
HOUR = 1800
GAME = 10  # hands: a game at the default target, and a pair of keys' share


class Unguarded(Ladder):
    """The ladder as it was before established players: every rated player rated against
    every other at the table, and one list by shown rating, then hands, then id."""

    def after(self, result: HandResult) -> list[Record] | None:
        self.founded = False  # nobody established: everyone counts for everyone
        return super().after(result)

    def order(self) -> list[str]:
        records = self.records
        return sorted(records, key=lambda p: (-records[p].rating, -records[p].hands, p))


class Story:
    """The hands of the attack, rated on both ladders at once."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ladders: dict[str, Ladder] = {"as before": Unguarded(), "now": Ladder()}
        self.games = 0
        self.keys = 0

    def drawn(self, players: Sequence[str]) -> list[str]:
        """A finishing order drawn by the Plackett-Luce model from the players' worths."""
        left, order = list(players), []
        while left:
            pick = self.rng.choices(left, weights=[WORTH.get(p, 1.0) for p in left])[0]
            left.remove(pick)
            order.append(pick)
        return order

    def new_keys(self) -> list[str]:
        self.keys += 2
        return [f"key-{self.keys - 1}", f"key-{self.keys}"]

    def play(self, orders: Iterable[Sequence[str]]) -> None:
        """One game of these hands (finishing orders, first to last) on both ladders."""
        self.games += 1
        for number, order in enumerate(orders):
            result = HandResult(
                game=f"game-{self.games}",
                hand=number,
                finish=tuple(Finisher(p, p, "", "", 0) for p in order),
            )
            for ladder in self.ladders.values():
                records = ladder.after(result)
                assert records is not None
                ladder.take(result, records)

    def honest_game(self) -> None:
        self.play(self.drawn(HONEST) for _ in range(GAME))

    def farm(self, hands: int, keys: list[str]) -> None:
        """fred first, then the keys, in every one of `hands` hands."""
        self.play(["fred", *keys] for _ in range(hands))

    def hana_beats_them_all(self) -> None:
        """hana first, fred and the last pair of keys after her; then 10 hands at her
        table, hana first, where fred is established."""
        self.play([["hana", "fred", f"key-{self.keys - 1}", f"key-{self.keys}"]])
        self.play(["hana", *self.drawn(("ari", "bo", "fred"))] for _ in range(GAME))

    def hour(self, hands: int) -> None:
        for _ in range(hands // GAME):
            self.farm(GAME, self.new_keys())

    def keys_hour(self, hands: int) -> None:
        """Each new pair loses to hana and ari until established, then 10 hands to fred."""
        honest = -(-ratings.ESTABLISHED_AFTER // 2)  # each hand, both meet hana and ari
        for _ in range(hands // (honest + GAME)):
            keys = self.new_keys()
            self.play(["hana", "ari", *keys] for _ in range(honest))
            self.farm(GAME, keys)

    def friends_hour(self, hands: int) -> None:
        self.farm(hands, ["ari", "bo"])

    def second_key_hour(self, hands: int) -> None:
        """fred-2 plays a game at hana's table; then, per new pair, fred and fred-2 meet
        it for 10 hands (fred first, fred-2 second), and fred beats it for 10 more."""
        self.play(self.drawn(("hana", "ari", "bo", "fred-2")) for _ in range(GAME))
        for _ in range((hands - GAME) // (2 * GAME)):
            keys = self.new_keys()
            self.play(["fred", "fred-2", *keys] for _ in range(GAME))
            self.farm(GAME, keys)

    def standing(self, player: str) -> dict[str, str]:
        """Per ladder, the player's place, shown rating and status, in words."""
        out = {}
        for label, ladder in self.ladders.items():
            record = ladder.records.get(player)
            if record is None:
                out[label] = "not on it"
                continue
            place = ladder.order().index(player) + 1
            provisional = not record.established and not isinstance(ladder, Unguarded)
            status = " provisional" if provisional else ""
            out[label] = f"#{place} of {len(ladder)} {record.rating:5.0f}{status}"
        return out

    def report(self, step: str) -> list[str]:
        lines = [step]
        for label in self.ladders:
            hana, fred = self.standing("hana")[label], self.standing("fred")[label]
            lines.append(f"  {label:<9}  hana {hana:<28} fred {fred}")
        return lines


def story(seed: int, hour: int) -> list[str]:
    """Steps 1 to 7, and the two ladders after each."""
    told = Story(seed)
    told.honest_game()
    lines = told.report("1. an honest game: hana, ari, bo, cy play 10 hands")
    told.farm(7, told.new_keys())
    lines += told.report("2. fred and two new keys, 7 hands, fred first in each")
    told.hana_beats_them_all()
    lines += told.report("3. hana beats fred and the keys, then 10 hands at her table")
    after_three = copy.deepcopy(told)
    told.hour(hour)
    lines += told.report(f"4. an hour: {hour} hands, fred and a new pair of keys every 10")
    lines.append(f"Not resisted, each going on from 3, {hour} hands:")
    for step, plays in (
        ("5. each new pair loses at hana's table until established, then to fred", Story.keys_hour),
        ("6. ari and bo, established, lose to fred", Story.friends_hour),
        ("7. fred's second key and fred establish new keys", Story.second_key_hour),
    ):
        going_on = copy.deepcopy(after_three)
        plays(going_on, hour)
        lines += going_on.report(step)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="the honest hands' draws")
    parser.add_argument("--hour", type=int, default=HOUR, help="the hands of an hour")
    args = parser.parse_args()
    print("\n".join(story(args.seed, args.hour)))


if __name__ == "__main__":
    main()

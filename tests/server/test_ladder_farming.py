"""Throwaway keys cannot farm the ladder (issue 26, item 5): the attack of
scripts/attack_ladder_farm.py on the server's own `Ladder`, in-process and seeded; and
how honest players become established (docs/ratings.md, "Throwaway keys")."""

from __future__ import annotations

from collections.abc import Sequence

from president.server.ratings import (
    ESTABLISHED_AFTER,
    FROM_ONE,
    MU,
    SIGMA,
    Finisher,
    HandResult,
    Ladder,
    Record,
    rate,
)

from scripts import attack_ladder_farm as attack

SEED = 0


def play(ladder: Ladder, orders: Sequence[Sequence[str]], game: str) -> None:
    for number, order in enumerate(orders):
        result = HandResult(game, number, tuple(Finisher(p, p, "", "", 0) for p in order))
        records = ladder.after(result)
        assert records is not None
        ladder.take(result, records)


def below_every_honest_player(ladder: Ladder, player: str) -> bool:
    order = ladder.order()
    return all(order.index(p) < order.index(player) for p in attack.HONEST)


def test_seven_hands_against_two_new_keys_no_longer_put_the_farmer_first() -> None:
    """As the issue found it, the unguarded ladder puts fred first at 1053 after 7 hands
    (hana, the best honest player, at 638); now fred is where he began: provisional, 1500
    +- 500, below every honest player."""
    story = attack.Story(SEED)
    story.honest_game()
    story.farm(7, story.new_keys())
    unguarded, ladder = story.ladders["as before"], story.ladders["now"]
    assert unguarded.order()[:2] == ["fred", "hana"]
    assert round(unguarded.records["fred"].rating) == 1053
    assert round(unguarded.records["hana"].rating) == 638
    fred = ladder.records["fred"]
    assert (fred.mu, fred.sigma, fred.established, fred.hands) == (MU, SIGMA, False, 7)
    assert ladder.order()[0] == "hana" and below_every_honest_player(ladder, "fred")


def test_an_hour_of_new_keys_gives_a_provisional_farmer_nothing() -> None:
    """1,800 hands, a new pair of keys every 10 (the unguarded ladder puts fred first):
    fred and every key stay provisional at 1500 +- 500, below the honest players."""
    story = attack.Story(SEED)
    story.honest_game()
    story.hour(attack.HOUR)
    unguarded, ladder = story.ladders["as before"], story.ladders["now"]
    assert unguarded.order()[0] == "fred"
    assert unguarded.records["fred"].rating > 2 * unguarded.records["hana"].rating > 0
    keys = [ladder.records[p] for p in ladder.records if p.startswith("key-")]
    assert len(keys) == 2 * attack.HOUR // attack.GAME
    for record in [ladder.records["fred"], *keys]:
        assert (record.mu, record.sigma, record.established) == (MU, SIGMA, False)
    assert below_every_honest_player(ladder, "fred")


def test_an_hour_of_new_keys_gives_an_established_farmer_nothing_once_hana_beat_them_all() -> None:
    """fred is established by 10 hands at hana's table, where she beat him (and, once,
    him and both keys); then 1,800 hands with new keys: not a point more, and every key
    provisional, met by fred alone (at most FROM_ONE of its hands count)."""
    story = attack.Story(SEED)
    story.honest_game()
    story.farm(7, story.new_keys())
    story.hana_beats_them_all()
    ladder = story.ladders["now"]
    before = ladder.records["fred"]
    assert before.established and ladder.order().index("hana") < ladder.order().index("fred")
    story.hour(attack.HOUR)
    assert story.ladders["as before"].order()[0] == "fred"
    fred = ladder.records["fred"]
    assert (fred.mu, fred.sigma, fred.hands) == (before.mu, before.sigma, before.hands + 1800)
    assert ladder.order()[0] == "hana"
    keys = [ladder.records[p] for p in ladder.records if p.startswith("key-")]
    assert not any(k.established for k in keys)
    assert all(k.met == {"fred": FROM_ONE} for k in keys if k.player not in ("key-1", "key-2"))
    assert all(ladder.order().index(k.player) > ladder.order().index("fred") for k in keys)


def test_the_first_players_found_the_ladder_together_as_it_rated_them_before() -> None:
    """On a ladder with nobody established, everyone counts for everyone: three players
    are established together after ESTABLISHED_AFTER / 2 hands (each meets two), rated
    exactly as the Plackett-Luce update of every hand's whole order."""
    ladder = Ladder()
    orders = [["ann", "ben", "cat"], ["ben", "cat", "ann"], ["ann", "cat", "ben"]] * 5
    hands = ESTABLISHED_AFTER // 2
    play(ladder, orders[: hands - 1], "g")
    assert not any(r.established for r in ladder.records.values())
    play(ladder, orders[hands - 1 : hands], "h")
    assert all(r.established and not r.met for r in ladder.records.values())
    play(ladder, orders[hands:], "i")
    worked = {p: Record(player=p, name=p) for p in ("ann", "ben", "cat")}
    for order in orders:
        for player, (mu, sigma) in zip(order, rate([worked[p] for p in order]), strict=True):
            worked[player] = Record(player=player, name=player, mu=mu, sigma=sigma)
    assert {p: (r.mu, r.sigma) for p, r in ladder.records.items()} == {
        p: (r.mu, r.sigma) for p, r in worked.items()
    }


def test_a_newcomer_is_rated_against_the_established_and_gives_them_nothing() -> None:
    """dan, new, wins every hand at a table with two established players: his rating
    moves against theirs, theirs move against each other only; after ESTABLISHED_AFTER /
    2 hands (each meets him once a hand) he is established and listed among them."""
    ladder = Ladder()
    play(ladder, [["ann", "ben", "cat"], ["cat", "ben", "ann"]] * 5, "found")
    assert all(r.established for r in ladder.records.values())
    without = Ladder(ladder.records.values())
    hands = ESTABLISHED_AFTER // 2
    play(ladder, [["dan", "ann", "ben"]] * (hands - 1), "g")
    play(without, [["ann", "ben"]] * (hands - 1), "g")
    dan = ladder.records["dan"]
    assert not dan.established and dan.met == {"ann": hands - 1, "ben": hands - 1}
    assert dan.mu > MU and dan.sigma < SIGMA
    for p in ("ann", "ben"):
        assert (ladder.records[p].mu, ladder.records[p].sigma) == (
            without.records[p].mu,
            without.records[p].sigma,
        )
    assert ladder.order()[-1] == "dan"
    play(ladder, [["dan", "ann", "ben"]], "h")
    assert ladder.records["dan"].established and ladder.order()[0] == "dan"


def test_provisional_players_among_themselves_move_nobody() -> None:
    """Once the ladder is founded, a table with no established player rates nobody
    (their hands, places and points still count), however long they play: what keeps a
    farmer's keys from counting, and what keeps a new group that never meets an
    established player provisional."""
    ladder = Ladder()
    play(ladder, [["ann", "ben", "cat"]] * (ESTABLISHED_AFTER // 2), "found")
    play(ladder, [["eve", "fay", "gil"]] * 200, "new")
    for player in ("eve", "fay", "gil"):
        record = ladder.records[player]
        assert (record.mu, record.sigma, record.established, record.hands) == (
            MU,
            SIGMA,
            False,
            200,
        )
    assert ladder.records["eve"].places == (200,)
    assert ladder.order()[:3] == ["ann", "ben", "cat"]


def test_one_established_player_cannot_establish_anyone() -> None:
    """ann alone meets key in every hand: she counts in FROM_ONE of them, never more."""
    ladder = Ladder()
    play(ladder, [["ann", "ben", "cat"]] * (ESTABLISHED_AFTER // 2), "found")
    play(ladder, [["ann", "key", "other"]] * 100, "farm")
    key = ladder.records["key"]
    assert not key.established and key.met == {"ann": FROM_ONE}
    ann = ladder.records["ann"]
    assert ann.hands == ESTABLISHED_AFTER // 2 + 100

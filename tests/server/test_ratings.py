"""The ladder's pure core (server/ratings.py): what a finished hand counts for each
player, the rating update, the order of the ladder, counting each hand once."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from president.protocol import messages as m
from president.server.ladder import Ratings
from president.server.ratings import MU, SIGMA, Finisher, HandResult, Ladder, Record, rate


def hand(
    order: Sequence[str | None],
    *,
    game: str = "g",
    number: int = 0,
    held: dict[str, str] | None = None,
    over: bool = False,
    winners: tuple[str, ...] = (),
) -> HandResult:
    """A hand finished in `order` (None: an unrated seat, a server bot), titles and points
    as a 4-player classic table gives them."""
    titles = ["President", "Vice-President", "Vice-Scum", "Scum"]
    points = [2, 1, 0, 0]
    finish = tuple(
        Finisher(
            player=p,
            name=p or f"bot{place}",
            held=(held or {}).get(p or "", ""),
            title=titles[place],
            points=points[place],
        )
        for place, p in enumerate(order)
    )
    return HandResult(game=game, hand=number, finish=finish, game_over=over, winners=winners)


def play(ladder: Ladder, result: HandResult) -> None:
    records = ladder.after(result)
    assert records is not None
    ladder.take(result, records)


def test_a_hand_counts_places_points_and_moves_ratings_by_the_finishing_order() -> None:
    ladder = Ladder()
    play(ladder, hand(["ann", "ben", "cat", "dan"]))
    ann, ben, cat, dan = (ladder.records[p] for p in ("ann", "ben", "cat", "dan"))
    assert ann.mu > ben.mu > cat.mu > dan.mu
    assert ann.mu > MU > dan.mu and all(r.sigma < SIGMA for r in (ann, ben, cat, dan))
    assert (ann.hands, ann.places, ann.points) == (1, (1,), 2)
    assert (dan.places, dan.points) == ((0, 0, 0, 1), 0)
    assert ann.games == 0 and not ann.held  # no title held in a game's first hand


def test_offices_held_and_kept() -> None:
    ladder = Ladder()
    last = {"ann": "President", "ben": "Vice-President", "cat": "Vice-Scum", "dan": "Scum"}
    play(ladder, hand(["ann", "ben", "cat", "dan"], number=0))
    play(ladder, hand(["ann", "cat", "ben", "dan"], number=1, held=last))
    ann, ben, cat, dan = (ladder.records[p] for p in ("ann", "ben", "cat", "dan"))
    assert ann.held == {"President": 1} and ann.kept == {"President": 1}
    assert ben.held == {"Vice-President": 1} and ben.kept == {}
    assert cat.held == {"Vice-Scum": 1} and cat.kept == {}
    assert dan.held == {"Scum": 1} and dan.kept == {"Scum": 1}


def test_a_hand_is_counted_once() -> None:
    ladder = Ladder()
    first = hand(["ann", "ben", "cat", "dan"], number=3)
    play(ladder, first)
    before = dict(ladder.records)
    assert ladder.after(first) is None
    assert ladder.after(hand(["dan", "cat", "ben", "ann"], number=2)) is None  # an older hand
    assert ladder.records == before
    assert ladder.after(hand(["dan", "cat", "ben", "ann"], number=3, game="other")) is not None


def test_unrated_seats_leave_the_others_rated_by_their_own_order() -> None:
    """A server bot between two players changes nothing between them: the Plackett-Luce
    model of the rated players' sub-order."""
    with_bot, without = Ladder(), Ladder()
    play(with_bot, hand(["ann", None, "ben", None]))
    play(without, hand(["ann", "ben"]))
    assert set(with_bot.records) == set(without.records) == {"ann", "ben"}
    for p in ("ann", "ben"):
        mine, theirs = with_bot.records[p], without.records[p]
        assert (mine.mu, mine.sigma) == (theirs.mu, theirs.sigma)
    assert with_bot.records["ben"].places == (0, 0, 1)  # its place at the table, bots counted


def test_a_player_key_in_two_chairs_is_not_rated_for_that_hand() -> None:
    """Two people on one computer account share its player key: a hand they both play
    rates the others as if those two chairs were bots' (the ladder raised "a player
    finished twice" and the hand's end failed: the host pass)."""
    shared, without = Ladder(), Ladder()
    play(shared, hand(["cat", "ann", "cat", "ben"]))
    play(without, hand([None, "ann", None, "ben"]))
    assert set(shared.records) == {"ann", "ben"} and shared.counted == {"g": 0}
    for p in ("ann", "ben"):
        assert shared.records[p] == without.records[p]


def test_the_game_over_counts_a_game_for_everyone_and_a_win_for_the_winners() -> None:
    ladder = Ladder()
    play(ladder, hand(["ann", "ben", "cat", "dan"], over=True, winners=("ann",)))
    assert [(r.games, r.wins) for r in ladder.records.values()] == [(1, 1), (1, 0), (1, 0), (1, 0)]


def test_the_ladder_orders_by_mu_minus_three_sigma_not_by_mu() -> None:
    """One lucky hand gives a newcomer the highest mu; steady play over many hands gives
    a smaller sigma and the better shown rating."""
    ladder = Ladder()
    regulars = ["w", "x", "y", "z"]
    for number in range(40):  # each regular finishes ten times in each place
        turn = number % 4
        play(ladder, hand(regulars[turn:] + regulars[:turn], game="a", number=number))
    play(ladder, hand(["lucky", "x", "y", "z"], game="b"))
    lucky = ladder.records["lucky"]
    assert lucky.mu == max(r.mu for r in ladder.records.values())
    assert ladder.order()[-1] == "lucky"
    assert all(ladder.records[p].rating > lucky.rating for p in regulars)
    assert [place for place, _ in ladder.board(0, 3)] == [1, 2, 3]
    assert [r.player for _, r in ladder.board(1, 2)] == ladder.order()[1:3]
    assert ladder.named(["lucky"]) == [(5, lucky)]


def test_a_record_goes_to_json_and_back_and_a_bad_row_is_refused() -> None:
    ladder = Ladder()
    last = {"ann": "President", "ben": "Vice-President", "cat": "Vice-Scum", "dan": "Scum"}
    play(ladder, hand(["ann", "ben", "cat", "dan"]))
    play(
        ladder, hand(["ann", "ben", "cat", "dan"], number=1, held=last, over=True, winners=("ann",))
    )
    ann = ladder.records["ann"]
    assert ann.met and not ann.established
    assert Record.from_json("ann", ann.to_json()) == ann
    established = replace(ann, established=True, met={})
    assert Record.from_json("ann", established.to_json()) == established
    # A row written before the ladder knew established players: provisional, nobody met.
    old = json.loads(ann.to_json())
    del old["established"], old["met"]
    assert Record.from_json("ann", json.dumps(old)) == replace(ann, met={})
    for bad in (
        '{"name": "ann"}',
        '{"name":"a","mu":1,"sigma":0,"hands":0,"games":0,'
        '"wins":0,"places":[],"points":0,"held":{},"kept":{}}',
        json.dumps({**old, "established": "yes"}),
        json.dumps({**old, "met": [1]}),
        "[1]",
    ):
        with pytest.raises(ValueError):
            Record.from_json("ann", bad)


def test_rate_is_openskills_plackett_luce() -> None:
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=SIGMA / 100 / 10**0.5)
    players = [Record(player=p, name=p) for p in "abc"]
    theirs = model.rate([[model.rating()] for _ in players], ranks=[0, 1, 2])
    assert rate(players) == [(t[0].mu, t[0].sigma) for t in theirs]


# The rating update, worked out again from the paper.  docs/ratings.md's scale: OpenSkill's
# defaults times 60 (beta 25/6 -> 250), its tau per game / sqrt(10) per hand; KAPPA is
# openskill's floor under a shrinking variance.
BETA = 250.0
TAU = 5.0 / math.sqrt(10)
KAPPA = 1e-4


def weng_lin(finish: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """(mu, sigma) of each player after a hand they finished in the order given (first to
    last, no ties, one player a team): Weng & Lin (2011), Algorithm 4, Plackett-Luce, with
    openskill 6.2.0's choices: the drift tau widens sigma first, gamma_i = sigma_i / c (its
    default gamma; 1/k instead fails this test), and a variance never shrinks below KAPPA
    of itself."""
    variance = [sigma**2 + TAU**2 for _, sigma in finish]
    c = math.sqrt(sum(v + BETA**2 for v in variance))
    worth = [math.exp(mu / c) for mu, _ in finish]
    # worth[i] / left[q]: the chance that i is picked for place q among those still in.
    left = [sum(worth[q:]) for q in range(len(finish))]
    after = []
    for i, (mu, _) in enumerate(finish):
        chances = [worth[i] / left[q] for q in range(i + 1)]
        omega = variance[i] / c * (1 - sum(chances))  # the sum over q <= i of [q = i] - p
        gamma = math.sqrt(variance[i]) / c
        delta = gamma * variance[i] / c**2 * sum(p * (1 - p) for p in chances)
        after.append((mu + omega, math.sqrt(variance[i] * max(1 - delta, KAPPA))))
    return after


def records(finish: list[tuple[float, float]]) -> list[Record]:
    return [
        Record(player=f"p{i}", name=f"p{i}", mu=mu, sigma=s) for i, (mu, s) in enumerate(finish)
    ]


#: A player's (mu, sigma) as a ladder can hold it: mu well inside what exp(mu / c) keeps
#: apart from 0 and 1, sigma from a veteran's to a newcomer's.
RATING = st.tuples(
    st.floats(min_value=-2000, max_value=5000), st.floats(min_value=1, max_value=SIGMA)
)
#: The ratings of a table's players in their finishing order, first to last.
FINISH = st.lists(RATING, min_size=2, max_size=8)


@given(FINISH)
def test_rate_is_weng_and_lins_plackett_luce_update(finish: list[tuple[float, float]]) -> None:
    """Equal to 1e-9 of each value: the two add the same terms in other orders, so they
    may differ in the last bits of a double (about 1e-16 of it); a wrong term is off by
    far more."""
    for got, want in zip(rate(records(finish)), weng_lin(finish), strict=True):
        assert math.isclose(got[0], want[0], rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(got[1], want[1], rel_tol=1e-9)


@given(FINISH)
def test_a_hand_moves_mu_up_for_the_first_and_down_for_the_last(
    finish: list[tuple[float, float]],
) -> None:
    """Whatever the ratings: the first beat everyone, the last was beaten by everyone."""
    after = rate(records(finish))
    assert after[0][0] > finish[0][0]
    assert after[-1][0] < finish[-1][0]


@st.composite
def ann_ahead_of_ben(draw: st.DrawFn) -> list[list[str]]:
    """Finishing orders of 1 to 30 hands: ann and ben in every one, ann ahead, with up to
    four others anywhere."""
    orders = []
    for _ in range(draw(st.integers(min_value=1, max_value=30))):
        others = ["cat", "dan", "eve", "fay"]
        order = draw(st.lists(st.sampled_from(others), unique=True, max_size=len(others)))
        ann = draw(st.integers(min_value=0, max_value=len(order)))
        ben = draw(st.integers(min_value=ann + 1, max_value=len(order) + 1))
        order.insert(ann, "ann")
        order.insert(ben, "ben")
        orders.append(order)
    return orders


@given(ann_ahead_of_ben())
def test_who_finishes_ahead_in_every_hand_is_above_on_the_ladder(orders: list[list[str]]) -> None:
    ladder = Ladder()
    for number, order in enumerate(orders):
        finish = tuple(Finisher(p, p, "", "", 0) for p in order)
        play(ladder, HandResult(game="g", hand=number, finish=finish))
    assert ladder.records["ann"].rating > ladder.records["ben"].rating
    assert ladder.order().index("ann") < ladder.order().index("ben")


#: (mu, sigma, hands, established) of a record, from values whose shown ratings often tie
#: (1500 - 3 x 100 = 1530 - 3 x 110) and whose hands often tie too.
STANDING = st.tuples(
    st.sampled_from([1470.0, 1500.0, 1530.0]),
    st.sampled_from([100.0, 110.0]),
    st.integers(min_value=0, max_value=2),
    st.booleans(),
)


@given(st.lists(STANDING, min_size=2, max_size=8), st.permutations("abcdefgh"))
def test_the_ladder_orders_established_first_then_by_shown_rating_more_hands_and_name(
    standings: list[tuple[float, float, int, bool]], names: list[str]
) -> None:
    """Established players before provisional ones (docs/ratings.md, "Throwaway keys");
    ties in the shown rating go to more hands, then to the player (here named as their
    id, which is what the ladder sorts by)."""
    ladder = Ladder(
        Record(player=name, name=name, mu=mu, sigma=sigma, hands=hands, established=settled)
        for name, (mu, sigma, hands, settled) in zip(names, standings, strict=False)
    )
    order = [ladder.records[p] for p in ladder.order()]
    assert sorted(r.player for r in order) == sorted(names[: len(standings)])
    for above, below in itertools.pairwise(order):
        assert (above.established, above.rating, above.hands) >= (
            below.established,
            below.rating,
            below.hands,
        )
        if (above.established, above.rating, above.hands) == (
            below.established,
            below.rating,
            below.hands,
        ):
            assert above.name < below.name


def test_the_ladder_s_answer_marks_who_is_not_yet_established() -> None:
    """Version 11: each entry says whether its player is provisional, which is why the
    ladder lists them after the established ones (the order above)."""
    board = Ratings()
    board.ladder = Ladder(
        [
            Record(player="a", name="ann", mu=1500.0, sigma=100.0, hands=40, established=True),
            Record(player="b", name="bob", mu=1900.0, sigma=100.0, hands=3),
        ]
    )
    answer = board.answer(m.Leaderboard(start=0, count=20))
    assert [(e.name, e.rating, e.provisional) for e in answer.entries] == [
        ("ann", 1200, False),
        ("bob", 1600, True),
    ]

"""The ladder's pure core (server/ratings.py): what a finished hand counts for each
player, the rating update, the order of the ladder, counting each hand once."""

from __future__ import annotations

import random

import pytest
from president.server.ratings import MU, SIGMA, Finisher, HandResult, Ladder, Record, rate


def hand(
    order: list[str | None],
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


def test_the_game_over_counts_a_game_for_everyone_and_a_win_for_the_winners() -> None:
    ladder = Ladder()
    play(ladder, hand(["ann", "ben", "cat", "dan"], over=True, winners=("ann",)))
    assert [(r.games, r.wins) for r in ladder.records.values()] == [(1, 1), (1, 0), (1, 0), (1, 0)]


def test_the_ladder_orders_by_mu_minus_three_sigma_not_by_mu() -> None:
    """One lucky hand gives a newcomer the highest mu; steady play over many hands gives
    a smaller sigma and the better shown rating."""
    ladder = Ladder()
    rng = random.Random(1)
    for number in range(40):  # "steady" finishes first three hands in four
        others = ["x", "y", "z"]
        rng.shuffle(others)
        order = ["steady", *others] if number % 4 else [*others, "steady"]
        play(ladder, hand(order, game="a", number=number))
    play(ladder, hand(["lucky", "x", "y", "z"], game="b"))
    steady, lucky = ladder.records["steady"], ladder.records["lucky"]
    assert ladder.order()[0] == "steady"
    assert steady.rating > lucky.rating
    assert [place for place, _ in ladder.board(0, 3)] == [1, 2, 3]
    assert [r.player for _, r in ladder.board(1, 2)] == ladder.order()[1:3]
    assert [r.player for _, r in ladder.named(["lucky"])] == ["lucky"]


def test_a_record_goes_to_json_and_back_and_a_bad_row_is_refused() -> None:
    ladder = Ladder()
    last = {"ann": "President", "ben": "Vice-President", "cat": "Vice-Scum", "dan": "Scum"}
    play(ladder, hand(["ann", "ben", "cat", "dan"]))
    play(
        ladder, hand(["ann", "ben", "cat", "dan"], number=1, held=last, over=True, winners=("ann",))
    )
    ann = ladder.records["ann"]
    assert Record.from_json("ann", ann.to_json()) == ann
    for bad in (
        '{"name": "ann"}',
        '{"name":"a","mu":1,"sigma":0,"hands":0,"games":0,'
        '"wins":0,"places":[],"points":0,"held":{},"kept":{}}',
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

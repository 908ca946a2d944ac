"""president.env.Tables: many tables stepped at once, each table's moment what `raw_env`
would show its player to act."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from president.engine import PRESETS, Phase, find_preset
from president.env import Tables, raw_env


def random_step(moment: object, rng: np.random.Generator) -> np.ndarray:
    """A uniform pick among each table's legal indices (the list beside the mask)."""
    starts = moment.legal_start  # type: ignore[attr-defined]
    picks = starts[:-1] + (rng.random(len(starts) - 1) * np.diff(starts)).astype(np.int64)
    return moment.legal[picks]  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize(
    ("preset", "players"),
    [*((preset, 4) for preset in PRESETS), ("classic", 3), ("sheet", 6), ("classic", 8)],
)
def test_every_table_shows_what_its_player_to_act_sees(preset: str, players: int) -> None:
    """At every step of several hands at every table: the observation is the one
    `Observer` makes afresh from the view of the player to act, the mask and the list
    beside it are exactly its legal actions, and the actor is that player."""
    tables = Tables(preset=preset, players=players, count=3, hands=2)
    moment = tables.reset(seed=7)
    rng = np.random.default_rng(7)
    ended = 0
    for _ in range(400):
        for table in range(tables.count):
            game = tables.games[table]
            seat = game.seating.index(f"player_{moment.actor[table]}")
            fresh = tables.observer(game.view_for(seat))
            assert np.array_equal(moment.observation[table], fresh), (preset, table)
            legal = tables.catalog.indices(game.legal_actions(seat))
            listed = moment.legal[moment.legal_start[table] : moment.legal_start[table + 1]]
            assert sorted(listed.tolist()) == sorted(legal)
            assert np.flatnonzero(moment.action_mask[table]).tolist() == sorted(legal)
        moment = tables.step(random_step(moment, rng))
        ended += int(moment.terminated.sum())
    assert ended > 0  # (2 hands a game: games ended and new ones began)


def test_two_decks_at_twelve_seats_show_what_each_player_to_act_sees() -> None:
    """Two decks (every card twice: its numbers added to, not written) at the largest
    table: every table's observation is the one made afresh from its view."""
    rules = find_preset("classic").replace(decks=2)
    tables = Tables(rules=rules, players=12, count=3, hands=2)
    moment = tables.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(150):
        for table in range(tables.count):
            game = tables.games[table]
            seat = game.seating.index(f"player_{moment.actor[table]}")
            fresh = tables.observer(game.view_for(seat))
            assert np.array_equal(moment.observation[table], fresh), table
        moment = tables.step(random_step(moment, rng))


@pytest.mark.parametrize(
    ("preset", "players"),
    [*((preset, 4) for preset in PRESETS), ("classic", 3), ("sheet", 6)],
)
def test_the_observations_are_gathered_by_blocks_as_number_by_number(
    preset: str, players: int
) -> None:
    """The block-wise gather of every table's observation (`_Gathering`) is the plain one,
    `values[t][gather[actor]]`, on rows of distinct random numbers (so that a number read
    from the wrong place cannot pass for a zero), whoever acts at each table."""
    tables = Tables(preset=preset, players=players, count=17)
    rng = np.random.default_rng(3)
    gather = np.stack(tables._trackers[0]._gather)
    values = rng.random(tables._values.shape).astype(np.float32)
    for _ in range(5):
        actors = rng.integers(0, players, tables.count)
        plain = np.stack([values[t][gather[actor]] for t, actor in enumerate(actors)])
        assert np.array_equal(tables._plan.observations(values, actors), plain)


def test_a_table_stepped_alone_plays_as_raw_env_does() -> None:
    """One table and a `raw_env` dealt the same game and given the same actions show the
    same observations and masks, and the same rewards at the hand's end."""
    tables = Tables(preset="daifugo", players=4, count=1, hands=1)
    moment = tables.reset(seed=3)
    table = raw_env(preset="daifugo", players=4, hands=1)
    table.reset(seed=3)
    table.game = tables.games[0].clone()  # (the same deal, followed from here)
    table._next()
    rng = np.random.default_rng(3)
    while True:
        seen = table.observe(table.agent_selection)
        assert table.agent_selection == f"player_{moment.actor[0]}"
        assert np.array_equal(seen["observation"], moment.observation[0])
        assert np.array_equal(seen["action_mask"], moment.action_mask[0])
        action = random_step(moment, rng)
        table.step(int(action[0]))
        moment = tables.step(action)
        if moment.terminated[0]:
            break
    won = [table.rewards[agent] for agent in table.possible_agents]
    assert moment.rewards[0].tolist() == pytest.approx(won)
    assert sorted(won) == pytest.approx([-1, -1 / 3, 1 / 3, 1])


def test_an_illegal_action_is_refused_and_no_table_moves() -> None:
    tables = Tables(preset="classic", players=4, count=4)
    moment = tables.reset(seed=1)
    before = [game.clone() for game in tables.games]
    actions = random_step(moment, np.random.default_rng(1))
    illegal = next(i for i in range(len(tables.catalog)) if not moment.action_mask[2][i])
    actions[2] = illegal
    with pytest.raises(ValueError, match=f"action {illegal} is not legal at table 2"):
        tables.step(actions)
    for wrong in ("pass", None, 0.5):  # (not an index at all: said so)
        with pytest.raises(
            ValueError, match=r"an index of the action mask \(an int\), not .* \(table 2\)"
        ):
            tables.step([*actions[:2].tolist(), wrong, actions[3]])
    with pytest.raises(ValueError, match="4 actions are needed"):
        tables.step(actions[:3])
    assert [g.log for g in tables.games] == [g.log for g in before]
    assert [g.hand_of(0) for g in tables.games] == [g.hand_of(0) for g in before]
    tables.step(random_step(moment, np.random.default_rng(1)))  # (and it goes on)
    with pytest.raises(RuntimeError, match="reset"):
        Tables(count=2).step([0, 0])


def test_only_an_index_legal_now_is_taken() -> None:
    """An index out of the catalog, a number that is not an integer, or one that was
    legal a moment ago and is not now: refused, naming the table; any integer type of
    a legal index is taken."""
    tables = Tables(preset="classic", players=4, count=4)
    moment = tables.reset(seed=2)
    rng = np.random.default_rng(2)
    actions = random_step(moment, rng)
    for wrong in (len(tables.catalog), -1, float(actions[1]), 10**30, "pass", None):
        not_int = not isinstance(wrong, int)  # (a float of a legal index too: a type's mistake)
        said = (
            r"an index of the action mask \(an int\)" if not_int else "is not legal at table 1 now"
        )
        with pytest.raises(ValueError, match=said):
            tables.step([actions[0], wrong, *actions[2:].tolist()])
        assert tables.action_of(1, wrong) is None
    tried = 0
    for _ in range(60):  # (an index legal at the last moment, not at this one)
        before = moment
        moment = tables.step(random_step(moment, rng).astype(np.int32))
        for table in range(tables.count):
            was = set(before.legal[before.legal_start[table] : before.legal_start[table + 1]])
            now = set(moment.legal[moment.legal_start[table] : moment.legal_start[table + 1]])
            for gone in sorted(was - now)[:1]:
                actions = random_step(moment, rng).tolist()
                actions[table] = int(gone)
                with pytest.raises(ValueError, match=f"is not legal at table {table} now"):
                    tables.step(actions)
                tried += 1
    assert tried > 30
    legal = [int(moment.legal[moment.legal_start[t]]) for t in range(tables.count)]
    assert tables.action_of(0, np.int16(legal[0])) is not None
    tables.step([np.int64(legal[0]), *legal[1:]])  # (a list of numpy integers too)


def test_the_same_seed_deals_the_same_games_and_each_table_its_own() -> None:
    first, second = Tables(count=4), Tables(count=4)
    a, b = first.reset(seed=5), second.reset(seed=5)
    assert np.array_equal(a.observation, b.observation)
    hands = [tuple(game.hand_of(0)) for game in first.games]
    assert len(set(hands)) == 4
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(50):
        a, b = first.step(random_step(a, rng_a)), second.step(random_step(b, rng_b))
    assert np.array_equal(a.observation, b.observation)
    assert all(game.phase is not Phase.GAME_OVER for game in first.games)


def test_a_rule_based_agent_plays_through_the_views() -> None:
    """The heuristic bot at every seat of every table, from `view` and `index_of`: whole
    games go by (each table's choices legal, as the step would refuse them otherwise)."""
    from president.bots.simple import HeuristicBot

    bot = HeuristicBot()
    tables = Tables(preset="daifugo", players=4, count=2, hands=2)
    moment = tables.reset(seed=4)
    games = 0
    for _ in range(300):
        choices = [bot.choose(tables.view(table)) for table in range(tables.count)]
        indices = [tables.index_of(action) for action in choices]
        assert all(tables.action_of(t, i) is not None for t, i in enumerate(indices))
        moment = tables.step(indices)
        games += int(moment.terminated.sum())
    assert games >= 2


def test_every_episode_is_as_many_hands_as_asked() -> None:
    """With `hands=2`, each table's every game ends after its second hand, the first
    episode and every one after it (a hand's end: a row of rewards)."""
    tables = Tables(preset="classic", players=4, count=2, hands=2)
    moment = tables.reset(seed=1)
    rng = np.random.default_rng(1)
    hands = [0, 0]
    lengths: list[int] = []
    while len(lengths) < 6:
        moment = tables.step(random_step(moment, rng))
        for table in range(2):
            hands[table] += int(moment.rewards[table].any())
            if moment.terminated[table]:
                lengths.append(hands[table])
                hands[table] = 0
    assert lengths == [2] * len(lengths)

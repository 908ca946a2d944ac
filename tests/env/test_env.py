"""president.env (issue 30): the PettingZoo environment, the single-seat Gymnasium one and
a policy as a bot."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test
from president.bots.sim import play_game, report, run
from president.engine import PRESETS, Phase
from president.env import Catalog, PolicyBot, SingleSeat, env, raw_env, register


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_environment_passes_pettingzoos_api_test(preset: str) -> None:
    api_test(env(preset=preset, players=4), num_cycles=200)


@pytest.mark.parametrize(
    ("preset", "rules"), [("classic", {"target": 200}), ("daifugo", {"rounds": 99})]
)
def test_a_target_or_rounds_above_64_stay_within_the_observation_space(
    preset: str, rules: dict[str, int]
) -> None:
    """A researcher's pass: the space's bounds were 0 to 64 whatever the rules, a target
    of 200 lay outside them, and PettingZoo's api_test failed ("Out of bounds
    observation")."""
    table = env(preset=preset, players=4, rules=rules)
    table.reset(seed=1)
    agent = table.agent_selection
    assert table.observation_space(agent).contains(table.observe(agent))
    api_test(env(preset=preset, players=4, rules=rules), num_cycles=20)


def test_a_render_mode_it_does_not_have_is_refused() -> None:
    """A researcher's pass: render_mode="human" was taken, and render() showed nothing
    (its modes: "ansi")."""
    with pytest.raises(ValueError, match="render_mode 'human' is not one of"):
        env(preset="classic", players=4, render_mode="human")
    with pytest.raises(ValueError, match="render_mode 'human' is not one of"):
        SingleSeat(render_mode="human")
    table = raw_env(render_mode="ansi")
    table.reset(seed=1)
    assert (table.render() or "").startswith("hand 1, ")
    plain = raw_env()  # (no mode: nothing, and said, as PettingZoo's own environments do)
    plain.reset(seed=1)
    with pytest.warns(UserWarning, match="render_mode='ansi'"):
        assert plain.render() is None


def test_the_environment_passes_pettingzoos_seed_test() -> None:
    seed_test(lambda: env(preset="daifugo", players=4), num_cycles=100)


@pytest.mark.parametrize(("preset", "players"), [("classic", 3), ("daifugo", 4), ("full", 6)])
def test_the_mask_is_exactly_the_legal_actions_and_each_index_is_one(
    preset: str, players: int
) -> None:
    """Whole games with random legal choices: at every step the mask marks one index per
    legal action, and the index played is the action the engine takes."""
    table = raw_env(preset=preset, players=players)
    table.reset(seed=3)
    rng = random.Random(3)
    steps = 0
    while not all(table.terminations.values()):
        agent = table.agent_selection
        seat = table.game.seating.index(agent)
        legal = table.game.legal_actions(seat)
        mask = table.observe(agent)["action_mask"]
        assert int(mask.sum()) == len(legal)
        for index in np.flatnonzero(mask):
            assert table.action_of(int(index)) in legal
        others = [a for a in table.agents if a != agent]
        assert all(not table.observe(a)["action_mask"].any() for a in others)
        table.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert table.game.phase is Phase.GAME_OVER and steps > 50


def test_an_observation_is_made_from_the_seats_view_alone() -> None:
    """Two tables dealt alike but for the cards of the seats not to act (shuffled among
    them, as many each): the seat to act observes the same numbers, and its mask."""
    from president.engine import Game

    first = raw_env(preset="daifugo", players=4)
    first.reset(seed=5)
    game = first.game
    actor = game.actors[0]
    hands = [game.hand_of(seat) for seat in range(4)]
    others = [card for seat in range(4) if seat != actor for card in hands[seat]]
    random.Random(9).shuffle(others)
    swapped = []
    for seat in range(4):
        if seat == actor:
            swapped.append(hands[seat])
        else:
            swapped.append(others[: len(hands[seat])])
            others = others[len(hands[seat]) :]
    assert swapped != hands
    second = raw_env(preset="daifugo", players=4)
    second.reset(seed=5)
    second.game = Game(second.rules, second.possible_agents)
    second.game.start_hand(dealer=game.dealer, deal=swapped)
    second._next()
    agent = first.agent_selection
    assert second.agent_selection == agent
    mine, theirs = first.observe(agent), second.observe(agent)
    assert np.array_equal(mine["observation"], theirs["observation"])
    assert np.array_equal(mine["action_mask"], theirs["action_mask"])
    # and another seat, whose cards differ, observes something else
    other = next(a for a in first.agents if a != agent and first.game.seating.index(a) != actor)
    seat = first.game.seating.index(other)
    if hands[seat] != swapped[seat]:
        assert not np.array_equal(
            first.observe(other)["observation"], second.observe(other)["observation"]
        )


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("hands", [2, pytest.param(None, marks=pytest.mark.slow)])
def test_the_kept_observation_is_the_one_made_afresh_at_every_step(
    preset: str, hands: int | None
) -> None:
    """Two hands, the exchange before the second (the fast tier), or a whole game (the
    slow one), with random legal choices: at every step every seat's observation, as the
    environment keeps it up to date from the hand's events, equals the one `Observer`
    makes afresh from that seat's view; and `last()`, asked first, gives the agent to
    act's own and its mask of the legal actions."""
    table = raw_env(preset=preset, players=4, hands=hands)
    table.reset(seed=11)
    rng = random.Random(11)
    steps = 0
    while not all(table.terminations.values()):
        first = table.last()[0]
        actor = table.game.seating.index(table.agent_selection)
        fresh = table.observer(table.game.view_for(actor))
        assert np.array_equal(first["observation"], fresh), (preset, steps)
        legal = table.catalog.indices(table.game.legal_actions(actor))
        assert np.flatnonzero(first["action_mask"]).tolist() == sorted(legal), (preset, steps)
        for agent in table.agents:
            seat = table.game.seating.index(agent)
            fresh = table.observer(table.game.view_for(seat))
            kept = table.observe(agent)["observation"]
            assert np.array_equal(kept, fresh), (preset, steps, agent)
        table.step(
            int(rng.choice(np.flatnonzero(table.observe(table.agent_selection)["action_mask"])))
        )
        steps += 1
    assert table.played_hands == hands or table.game.phase is Phase.GAME_OVER
    assert steps > 50
    while table.agents:  # the end, each agent in turn (PettingZoo's dead steps)
        agent = table.agent_selection
        seat = table.game.seating.index(agent)
        fresh = table.observer(table.game.view_for(seat))
        assert np.array_equal(table.observe(agent)["observation"], fresh), agent
        table.step(None)


def test_the_catalog_numbers_every_action_once() -> None:
    catalog = Catalog(PRESETS["daifugo"])
    assert len(set(catalog.keys)) == len(catalog) > 1000
    assert catalog.index["pass"] == 0


def test_one_seat_learns_against_bots() -> None:
    single = SingleSeat(preset="classic", players=4, opponents=["greedy", "heuristic", "random"])
    obs, info = single.reset(seed=2)
    assert "view" in info and obs["action_mask"].any()
    rng = np.random.default_rng(2)
    done, total, steps = False, 0.0, 0
    while not done:
        obs, reward, done, truncated, info = single.step(
            rng.choice(np.flatnonzero(obs["action_mask"]))
        )
        total += reward
        steps += 1
        assert not truncated
    hands = single.table.played_hands
    assert hands >= 1 and -hands <= total <= hands
    with pytest.raises(ValueError, match="3 opponents"):
        SingleSeat(players=4, opponents=["greedy"])
    assert SingleSeat(players=4, seat=np.int64(2)).me == "player_2"  # (numpy's, as an int)
    for seat in (4, -1, "0", True, 1.0):  # (a pass: 4 was an IndexError, -1 taken)
        with pytest.raises(ValueError, match="seat is a seat of the 4, 0 to 3"):
            SingleSeat(players=4, seat=seat)  # type: ignore[arg-type]


def test_rules_by_name_change_the_preset_named() -> None:
    """A researcher's pass: `preset="daifugo", rules={"nines_clear": True}` played classic
    rules with nines_clear, silently.  Toggles by name go on top of the preset, as
    `--preset X --set T=V` does; a preset among them names its own."""
    daifugo = PRESETS["daifugo"]
    assert raw_env(preset="daifugo", rules={"nines_clear": True}).rules == daifugo.replace(
        nines_clear=True
    )
    assert SingleSeat(preset="daifugo", rules={"jokers": 1}).table.rules == daifugo.replace(
        jokers=1
    )
    assert raw_env(preset="daifugo", rules={"preset": "house"}).rules == PRESETS["house"]
    assert raw_env(preset="daifugo", rules=PRESETS["table"]).rules == PRESETS["table"]


def test_a_policy_plays_as_a_bot_in_the_simulator() -> None:
    """A policy choosing at random among the masked actions, registered as a strategy,
    plays whole games in the simulator without a mistake; one that answers outside the
    mask plays its first legal action instead."""

    def masked(rng: random.Random):  # type: ignore[no-untyped-def]
        return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))

    register("masked-random", masked)
    for preset in ("classic", "daifugo"):
        game, _, timers = play_game(
            PRESETS[preset], ["masked-random", "greedy", "greedy", "greedy"], 1, 0, rotate=True
        )
        assert game.phase is Phase.GAME_OVER
        assert timers[0].strategy.mistakes == 0  # type: ignore[attr-defined]
    wrong = PolicyBot(lambda observation, mask: len(mask) + 5)
    table = raw_env()
    table.reset(seed=1)
    seat = table.game.actors[0]
    view = table.game.view_for(seat)
    assert wrong.choose(view) == view.legal_actions()[0] and wrong.mistakes == 1
    # an answer that is no index is the policy's bug, said (2.7 was taken as 2)
    for answer in (2.7, None, "1", True):
        odd = PolicyBot(lambda observation, mask, answer=answer: answer)  # type: ignore[misc]
        with pytest.raises(ValueError, match="the policy answered wrong: an action is an index"):
            odd.choose(view)
    assert PolicyBot(lambda observation, mask: np.int64(len(mask) + 5)).choose(view)
    zero_d = PolicyBot(lambda observation, mask: np.array(np.flatnonzero(mask)[0]))
    assert zero_d.choose(view) in view.legal_actions() and zero_d.mistakes == 0  # (argmax)


def test_a_policys_mistakes_are_counted_and_said_by_the_simulator() -> None:
    """A policy that ignores the mask is told so (it played on without a word): the run
    counts its answers outside the mask, in the table and in `--json`."""
    register("always-zero", lambda rng: lambda observation, mask: 0)
    result = run(PRESETS["classic"], ["always-zero", "greedy", "greedy", "greedy"], 3, 1)
    wrong, fine = result.entrants[0], result.entrants[1]
    assert wrong.mistakes > 0 and fine.mistakes == 0
    assert result.to_json()["entrants"][0]["mistakes"] == wrong.mistakes
    said = [line for line in report(result, "t") if "mistakes" in line]
    assert said == [
        f"always-zero-0: {wrong.mistakes:,} answers its strategy counts as mistakes (a policy's"
        " index outside the action mask), each replaced by the first legal action"
    ]


@pytest.mark.slow
async def test_a_trained_policy_plays_a_person_in_president_play(tmp_path: Path) -> None:
    """scripts/policy_bot.py with a policy's weights (as scripts/train_example.py saves
    them): `python scripts/policy_bot.py W.npz play` seats the policy's bots at a real
    `president play` table in a terminal, and the game goes on with them: a person plays
    a whole hand against them (the lowest cards each turn, passing when it cannot)."""
    import asyncio
    import sys

    from president.env import Observer

    from ..harness.processes import environment
    from ..harness.terminal import Terminal

    rules = PRESETS["classic"]
    size, actions = Observer(rules, 4).layout.size, len(Catalog(rules))
    weights = tmp_path / "policy.npz"
    rng = np.random.default_rng(1)
    np.savez(weights, weights=rng.normal(0, 0.1, (actions, size)), bias=np.zeros(actions))
    script = Path(__file__).resolve().parents[2] / "scripts" / "policy_bot.py"
    command = [sys.executable, str(script), str(weights), "play", "--players", "4"]
    command += ["--name", "ann", "--bot-delay", "0", "--pause", "0.2"]
    ann = Terminal(command, environment(tmp_path), rows=24, columns=100)
    try:
        await ann.shows("trained", 60)  # the bots are the policy's
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 300  # (only a hang: a hand here takes about 10 s)
        while "hand 2" not in ann.text().lower():
            assert loop.time() < deadline, ann.text()
            status = ann.text().splitlines()[-1] if ann.text() else ""
            if "▶ ann (you)" in ann.text():
                if "p passes" in status and "space chooses" not in status:
                    ann.send("p")
                else:
                    ann.send("s\r")
            await ann.settled(0.3)
    finally:
        ann.close()


@pytest.mark.slow
def test_a_policy_for_other_rules_or_no_policy_is_one_line_before_any_game(
    tmp_path: Path,
) -> None:
    """A tinkerer's pass: a classic policy's bot made a daifugo table, waited for three
    players, then failed with a traceback at its first decision; a file that is no policy
    got numpy's advice to allow pickles."""
    import subprocess
    import sys

    from president.env import Observer

    rules = PRESETS["classic"]
    size, actions = Observer(rules, 4).layout.size, len(Catalog(rules))
    weights = tmp_path / "policy.npz"
    np.savez(weights, weights=np.zeros((actions, size)), bias=np.zeros(actions), preset="classic")
    script = Path(__file__).resolve().parents[2] / "scripts" / "policy_bot.py"
    nothing = tmp_path / "notes.txt"
    nothing.write_text("not a policy\n")
    empty, flat = tmp_path / "empty.npz", tmp_path / "flat.npz"
    empty.write_bytes(b"")
    np.savez(flat, weights=np.zeros(size), bias=np.zeros(actions))
    for args, words in (
        ([weights, "sim", "--preset", "daifugo"], "this policy fits classic with 4 players"),
        ([weights, "bot", "127.0.0.1:9", "--seats", "5"], "not these rules with 5 players"),
        ([nothing, "sim"], "not a policy file (train_example.py --save writes one)"),
        # (a hostile pass: numpy's tracebacks for these, and 4 lines for --players abc)
        ([empty, "sim"], "not a policy file"),
        ([flat, "sim"], "its weights and bias do not fit together"),
        ([weights, "sim", "--players", "abc"], "--players: not a whole number"),
        ([weights, "sim", "--players", "99999999999999999999"], "serves at most 8 players"),
    ):
        done = subprocess.run(
            [sys.executable, str(script), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and done.stdout == "", done
        assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr
        assert "allow_pickle" not in done.stderr


def test_the_direction_of_play_is_in_the_observation() -> None:
    """Under nine_reverse a 9 turns play anticlockwise: the state says so (slot 5 of
    `state`, docs/rl.md), and says clockwise again before it turns."""
    import random

    from president.engine import Game
    from president.env import Observer

    rules = PRESETS["classic"].replace(nine_reverse=True)
    observe, rng = Observer(rules, 4), random.Random(3)
    start = observe.layout.part("state").start
    game, seen = Game(rules, ["a", "b", "c", "d"]), set()
    game.start_hand(rng=rng)
    while game.phase is Phase.PLAY:
        seat = game.actors[0]
        view = game.view_for(seat)
        seen.add((view.backwards, bool(observe(view)[start + 5])))
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert seen == {(False, False), (True, True)}, seen


def test_env_steps_as_pettingzoos_own_wrappers_do() -> None:
    """`env()` takes a legal action to the raw environment in one hop: every step, the
    observation, reward, ends and the wrappers' notes are what PettingZoo's own three
    wrappers give over the same raw environment, up to an illegal action (which ends the
    game with -1 for its agent, in both)."""
    from pettingzoo.utils import wrappers

    for illegal_at in (40, None):
        ours = env(preset="classic", players=4)
        theirs = wrappers.OrderEnforcingWrapper(
            wrappers.AssertOutOfBoundsWrapper(
                wrappers.TerminateIllegalWrapper(raw_env(preset="classic", players=4), -1)
            )
        )
        ours.reset(seed=4)
        theirs.reset(seed=4)
        rng = random.Random(4)
        for steps in range(120):
            mine, other = ours.last(), theirs.last()
            assert np.array_equal(mine[0]["observation"], other[0]["observation"])
            assert np.array_equal(mine[0]["action_mask"], other[0]["action_mask"])
            assert mine[1:4] == other[1:4] and ours.agent_selection == theirs.agent_selection
            if mine[2] or mine[3]:
                action = None
            elif steps == illegal_at:
                action = int(np.flatnonzero(mine[0]["action_mask"] == 0)[0])
            else:
                action = rng.choice(np.flatnonzero(mine[0]["action_mask"]).tolist())
            acting = ours.agent_selection
            ours.step(action)
            theirs.step(action)
            assert ours._cumulative_rewards == theirs._cumulative_rewards
            if steps == illegal_at:  # (its agent's -1, as PettingZoo's wrapper gives)
                assert ours._cumulative_rewards[acting] == -1
            if not ours.agents:
                break
        assert (illegal_at is not None) == (not ours.agents), illegal_at


def test_an_info_holds_the_view_of_its_moment_made_when_read() -> None:
    """`infos[agent]["view"]` is the view `view_for` makes at that step (made when read:
    by a key, `in`, `dict(...)`); an info read is kept as it was by whoever holds it, and
    one never read holds nothing after its agent's step (docs/rl.md)."""
    from president.env.info import SeatInfo

    table = raw_env(preset="classic", players=4)
    table.reset(seed=2)
    held, unread = [], []
    for steps in range(60):
        agent = table.agent_selection
        observation, _, _, _, info = table.last()
        assert isinstance(info, SeatInfo)
        seat = table.game.seating.index(agent)
        if steps % 3 == 0:
            assert "view" in info and dict(info) == {"view": table.game.view_for(seat)}
            held.append((info, info["view"], dict(info)))
        elif steps % 3 == 1:
            unread.append(info)
        table.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert all(info["view"] is view and info == kept for info, view, kept in held)
    assert all(info == {} and "view" not in info and len(info) == 0 for info in unread)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_agent_to_act_alone_observed_sees_what_it_would_afresh(preset: str) -> None:
    """A training loop observes the agent to act alone (`last()`), never the others: its
    observation still equals the one made afresh at every step.  (The return a seat owed
    in the exchange stayed in its observation when its first turn of play came after
    passes alone: seen only when nobody else was observed.)"""
    table = raw_env(preset=preset, players=4, hands=6)
    table.reset(seed=3)
    rng = random.Random(3)
    steps = 0
    while table.agents:
        observation, _, terminated, truncated, _ = table.last()
        if terminated or truncated:
            table.step(None)
            continue
        seat = table.game.seating.index(table.agent_selection)
        fresh = table.observer(table.game.view_for(seat))
        assert np.array_equal(observation["observation"], fresh), (preset, steps)
        table.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    assert steps > 100


@pytest.mark.parametrize("hands", [0, -1, 1.5, "2"])
def test_an_episode_of_no_hands_is_refused(hands: object) -> None:
    """`hands=0` once gave one-hand episodes without a word."""
    from president.env import Tables

    for make in (raw_env, SingleSeat, Tables):
        with pytest.raises(ValueError, match="an episode's hands, a whole number from 1"):
            make(hands=hands)
    assert raw_env(hands=2).hands == 2


def test_a_wrong_step_says_what_is_wrong() -> None:
    """A user pass: `step("1")` said "action 1 is not legal" (1 was legal: the string was
    the mistake), `step(1.0)` was taken, a step before `reset()` raised AttributeError,
    and a step after the episode's end spoke of dead agents."""
    table = raw_env(preset="classic", players=4)
    with pytest.raises(RuntimeError, match=r"reset\(\) the environment before its first step"):
        table.step(0)
    table.reset(seed=1)
    legal = int(np.flatnonzero(table.observe(table.agent_selection)["action_mask"])[0])
    for wrong in (str(legal), float(legal), True, None):
        with pytest.raises(ValueError, match=r"an index of the action mask \(an int\), not "):
            table.step(wrong)  # type: ignore[arg-type]
    table.step(np.int64(legal))  # (any integer type of a legal index is taken)
    single = SingleSeat(preset="classic", players=4, opponents=["greedy"] * 3)
    with pytest.raises(RuntimeError, match=r"reset\(\) the environment before its first step"):
        single.step(0)
    observation, _ = single.reset(seed=1)
    done = False
    while not done:
        mask = observation["action_mask"]
        _, _, done, _, _ = single.step(int(np.flatnonzero(mask)[0]))
        observation = single.table.observe(single.me)
    with pytest.raises(RuntimeError, match=r"the episode is over: reset\(\) starts another"):
        single.step(0)


def test_the_docs_example_runs_and_a_bot_plays_through_index_of() -> None:
    """docs/rl.md's first example as written (a user pass met `NameError: my_policy`),
    then a rule-based agent through `env()`: the heuristic bot's choice from
    `info["view"]`, made an index by `index_of`, is in the mask at every step."""
    import re

    from president.bots.simple import HeuristicBot

    text = (Path(__file__).parents[2] / "docs" / "rl.md").read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S)
    assert example is not None
    scope: dict[str, object] = {}
    exec(compile(example.group(1), "docs/rl.md", "exec"), scope)
    played = scope["table"].unwrapped.game  # type: ignore[attr-defined]
    assert played.phase is Phase.GAME_OVER
    table, bot, steps = env(preset="daifugo", players=4), HeuristicBot(), 0
    table.reset(seed=2)
    for _agent in table.agent_iter():
        observation, _, terminated, truncated, info = table.last()
        action = None
        if not (terminated or truncated):
            action = table.unwrapped.index_of(bot.choose(info["view"]))
            assert observation["action_mask"][action] == 1
            steps += 1
        table.step(action)
    assert table.unwrapped.game.phase is Phase.GAME_OVER and steps > 50


def test_without_the_rl_extra_the_import_says_which_to_install() -> None:
    """A researcher's pass: `from president.env import env` without the extra was a bare
    "No module named 'numpy'"."""
    from president.env import _extra

    assert _extra.missing() == []
    gone = _extra.missing(lambda name: None if name != "gymnasium" else "a spec")
    assert gone == ["numpy", "pettingzoo"]
    assert _extra.problem(gone) == (
        "president.env needs the optional extra rl (numpy, pettingzoo not installed):"
        " pip install '.[rl]' in the project's folder"
    )

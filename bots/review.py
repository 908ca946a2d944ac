"""Game review (issue 29): every decision of a record judged from the seat that made it.

For each decision with a choice (a play or a pass, a card owed under seven_pass or
ten_discard, a return of the exchange), from that seat's information only (its `SeatView` then, never
the hidden hands): the expected place of each action worth weighing, over the same worlds
dealt from what the seat could know (common random numbers: the luck of the deal cancels
out between the actions), each world played out by the heuristic for every seat, as the
search bot does (`bots.search`); the chosen action's loss in places against the best; a
label by `THRESHOLDS`.  Per hand, what each seat's cards were worth: its expected place
from the first play of the hand with its own cards and the others' dealt at random,
against the table's average; and what its decisions did, each action's expected place
against the heuristic's choice there (the cards are weighed with the heuristic playing
every seat, so the two figures add up: the rest of a place taken is the others' play
and what no seat could see).  What it takes from GNU Backgammon: a loss per decision
against the best action (its "equity loss", here in places), a figure for the cards
(its "luck"), an error rate per game; from lichess: labels by the size of the loss and an
accuracy figure per player.

A return of the exchange is judged in worlds dealt again from the hand's start: the
seat's cards as dealt (its hand less what it was given), the giver's the gifts and cards
below them (the gifts were its highest), everyone else's at random; each world's deal
made by the engine, kept only if it gives the seat the very hand it held; the others'
returns made by the heuristic, the hand then played out as any other decision's."""

from __future__ import annotations

import math
import multiprocessing
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from president.engine import (
    Action,
    Card,
    Game,
    IllegalAction,
    Phase,
    Return,
    SeatView,
    deck,
    judge_for,
    record,
    strength,
)
from president.engine.events import Event, Gave, Returned

from .playout import World, make_world
from .search import Believed, Sampler, SearchBot, deal_unseen
from .sim import _leave_ctrl_c_to_the_parent
from .simple import HeuristicBot

#: Places lost at which a decision is labelled, the largest first.  Provisional: to be set
#: from the calibration and planted-blunder figures (docs/analysis.md).
THRESHOLDS: tuple[tuple[str, float], ...] = (
    ("blunder", 0.50),
    ("mistake", 0.25),
    ("inaccuracy", 0.10),
)
BLUNDER = THRESHOLDS[0][1]
#: Up to this many legal actions, every one is weighed: the search's candidates leave
#: out what the search would not play, which a player may have played, or should have
#: (under `daifugo`, a planted blunder's better action was left out 8 times in 12 that
#: the review missed, most of them a card handed over or discarded).
EVERY_UP_TO = 12
#: Worlds each weighed action is played out in, by default.
WORLDS = 48  # (at least 2: half choose the best, half measure the loss)
#: Worlds a hand's cards are weighed in, by default.
LUCK_WORLDS = 96
#: How often a seat in a playout plays a random legal move instead of the heuristic (as
#: the search bot's default).
EPSILON = 0.1
#: Whether the playouts' heuristic counts the cards (`playout.counted_policy`: the
#: heuristic bots' own choices, dearer) when a decision is judged.
COUNTING = False
#: ... but for a decision with this many cards or fewer left in all hands together,
#: whose playouts are short: there the cards are counted (a newcomer's pass, two players
#: left with every card known: the uncounting heuristic never put its 2 on the player's
#: ace, so the ace that lost the hand was an "inaccuracy" and an earlier pair the
#: "blunder").
COUNTED_FROM = 20
#: The same when a hand's cards are weighed (`cards_worth`): without it the best hands
#: came out too hopeful and the worst too gloomy (on the same games and deciles the
#: mean gap to the place taken is smaller counted under four presets, `full` 0.041 ->
#: 0.034, and about the same under classic rules: docs/analysis.md, "Counting the
#: cards"), for about a second more a 10-hand game.
CARDS_COUNTING = True


@dataclass(frozen=True)
class Redeal:
    """What a world for a return of the exchange is dealt from: the game before the
    hand's deal, the hand's seating and dealer, each seat's count of cards as dealt, and
    the gives (receiver -> giver, the cards given)."""

    before: Game
    seating: tuple[str, ...] | None
    dealer: int
    counts: tuple[int, ...]
    gifts: dict[int, tuple[int, tuple[Card, ...]]]
    #: The exchange as it was made, cards shown (known at the hand's first play).
    made: tuple[Gave | Returned, ...] = ()


@dataclass(frozen=True)
class Moment:
    """A decision with a choice: where it is in the record (0-based hand and action), the
    seat's view then, its legal actions, and what it did; for a return, how to deal its
    worlds."""

    hand: int
    number: int
    seat: int
    view: SeatView
    actions: tuple[Action, ...]
    chosen: Action
    redeal: Redeal | None = None


@dataclass(frozen=True)
class Judged:
    """One decision judged: each weighed action's expected place (1 = first), the best
    one, the chosen one's loss in places (>= 0) and its label (None below the least)."""

    hand: int
    number: int
    seat: int
    name: str
    chosen: Action
    best: Action
    expected: tuple[tuple[Action, float], ...]
    loss: float
    label: str | None
    #: The loss before it is floored at 0: over many decisions, its mean is the
    #: unbiased one (a floor at 0 counts the noise of equal actions as loss).
    gap: float = 0.0
    #: Places the action taken gained over the heuristic's choice (negative: lost), the
    #: reference the cards are weighed with: 0 when it is that choice.  A hand's sum is
    #: what its decisions did to the place taken, beside what its cards did.
    gained: float = 0.0
    #: The action taken's expected place and the best's over the worlds that measure
    #: the loss (their difference is `gap`: the figures to show beside the loss, where
    #: `expected` is over every world each was played out in).  None: not measured.
    measured: tuple[float, float] | None = None
    #: The action taken is the normal bot's (the heuristic's) choice: what `s` suggests
    #: at the table (a player who followed it, told of a blunder, wondered why).
    usual: bool = False

    def places(self) -> tuple[float, float]:
        """The action taken's expected place and the best's, to show beside the loss:
        those that measured it (`measured`), else each over every world it was in."""
        if self.measured is not None:
            return self.measured
        expected = dict(self.expected)
        return expected[self.chosen], expected[self.best]

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand + 1,
            "action": self.number + 1,
            "seat": self.seat,
            "player": self.name,
            "chosen": str(self.chosen),
            "best": str(self.best),
            "loss": round(self.loss, 3),
            "gap": round(self.gap, 3),
            "gained": round(self.gained, 3),
            "label": self.label,
            "usual": self.usual,
            "expected": {str(a): round(e, 3) for a, e in self.expected},
            "measured": None
            if self.measured is None
            else {"chosen": round(self.measured[0], 3), "best": round(self.measured[1], 3)},
        }


@dataclass(frozen=True)
class Luck:
    """What a seat's cards were worth in a hand: its expected place from the first play
    with those cards (`expected`), against the table's average; and the place it took."""

    hand: int
    seat: int
    name: str
    expected: float
    average: float
    place: int

    @property
    def cards(self) -> float:
        """Places the cards were worth: positive when better than average."""
        return self.average - self.expected


@dataclass
class PlayerSummary:
    """A player's decisions and cards over the game."""

    name: str
    decisions: int = 0
    loss: float = 0.0
    labels: dict[str, int] = field(default_factory=lambda: {n: 0 for n, _ in THRESHOLDS})
    cards: float = 0.0
    hands: int = 0
    #: The hands of `hands` it finished (a stopped game's last hand has no places), and
    #: the places it took in them.
    finished: int = 0
    places: float = 0.0
    #: The places the decisions lost, unfloored (`Judged.gap`): the unbiased sum, which
    #: the noise of equal actions does not inflate (`loss` counts it, floored at 0).
    gaps: float = 0.0
    #: Places the decisions gained over the heuristic's choices (`Judged.gained`).
    gained: float = 0.0

    @property
    def mean_loss(self) -> float:
        return self.loss / self.decisions if self.decisions else 0.0

    @property
    def accuracy(self) -> float:
        """0-100: the mean over decisions of 100 * exp(-4 * loss) (a decision losing
        half a place scores 14, a tenth of a place 67, none 100)."""
        return 100.0 * self._kept / self.decisions if self.decisions else 100.0

    _kept: float = 0.0

    def add(self, judged: Judged) -> None:
        self.decisions += 1
        self.loss += judged.loss
        self.gaps += judged.gap
        self.gained += judged.gained
        self._kept += math.exp(-4.0 * judged.loss)
        if judged.label is not None:
            self.labels[judged.label] += 1

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.name,
            "decisions": self.decisions,
            # (none without a decision, as the text says "no accuracy": 100 said nothing)
            "accuracy": round(self.accuracy, 1) if self.decisions else None,
            "mean_loss": round(self.mean_loss, 4),
            "places_lost": round(self.loss, 3),
            "places_lost_unbiased": round(self.gaps, 3),
            "gained": round(self.gained, 3),
            "labels": dict(self.labels),
            "hands": self.hands,
            "hands_finished": self.finished,
            "cards": round(self.cards, 3),
            "mean_place": round(self.places / self.finished, 3) if self.finished else None,
        }


@dataclass
class Review:
    """A record reviewed: every decision judged, every hand's cards weighed."""

    players: list[str]
    judged: list[Judged]
    luck: list[Luck]
    #: Per player, the decisions the table made for it (the timeout rule: its time ran
    #: out, it was away or had left; the record's `timeout`): not judged, not its play.
    by_table: dict[str, int] = field(default_factory=dict)

    def summaries(self, finished: bool = False) -> list[PlayerSummary]:
        """Each player's figures over the game; with `finished`, over the hands it
        finished only (what a place can be set against: a stopped game's last hand has
        none)."""
        by_name = {name: PlayerSummary(name) for name in self.players}
        unfinished = {(luck.hand, luck.name) for luck in self.luck if not luck.place}
        for judged in self.judged:
            if not (finished and (judged.hand, judged.name) in unfinished):
                by_name[judged.name].add(judged)
        for luck in self.luck:
            if finished and not luck.place:
                continue
            summary = by_name[luck.name]
            summary.cards += luck.cards
            summary.hands += 1
            if luck.place:
                summary.finished += 1
                summary.places += luck.place
        return list(by_name.values())

    def gained(self) -> dict[tuple[int, str], float]:
        """(hand, player) -> places its decisions gained there over the heuristic's."""
        out: dict[tuple[int, str], float] = {}
        for judged in self.judged:
            key = (judged.hand, judged.name)
            out[key] = out.get(key, 0.0) + judged.gained
        return out

    def to_json(self) -> dict[str, Any]:
        gained = self.gained()
        return {
            "thresholds": {name: limit for name, limit in THRESHOLDS},
            "players": [
                {**s.to_json(), "by_table": self.by_table.get(s.name, 0)} for s in self.summaries()
            ],
            "decisions": [j.to_json() for j in self.judged],
            "hands": [
                {
                    "hand": luck.hand + 1,
                    "player": luck.name,
                    "place": luck.place,
                    "expected": round(luck.expected, 3),
                    "cards": round(luck.cards, 3),
                    "decisions": round(gained.get((luck.hand, luck.name), 0.0), 3),
                }
                for luck in self.luck
            ],
        }


def label_of(loss: float) -> str | None:
    for name, limit in THRESHOLDS:
        if loss >= limit:
            return name
    return None


def moments(document: Mapping[str, Any]) -> tuple[list[Moment], list[tuple[int, SeatView]]]:
    """Replay a record: every decision with a choice in the play, and each hand's first
    moment of play (after the opening play, where the 3C must open) seen from every seat
    (hand, view).  Raises `record.NotARecord` with the replay's own words when the record
    does not replay."""
    found, starts, _, _ = _replayed(document)
    return found, starts


def _replayed(
    document: Mapping[str, Any],
) -> tuple[list[Moment], list[tuple[int, SeatView]], record.Replay, dict[int, Redeal]]:
    """`moments`, the replay itself (how each hand finished), and how each hand with an
    exchange was dealt and exchanged (`Redeal`)."""
    before: dict[tuple[int, int], dict[int, tuple[SeatView, tuple[Action, ...]]]] = {}
    starts: list[tuple[int, SeatView]] = []
    started: set[int] = set()
    redeals: dict[int, Redeal] = {}
    ended: list[Game] = []  # (the game as the last hand ended: the next one is dealt from it)
    hands = document.get("hands", [])

    def seen(game: Game, hand: int, number: int | None, events: list[Event]) -> None:
        following = 0 if number is None else number + 1
        if game.phase is Phase.BETWEEN_HANDS:
            ended[:] = [game.clone()]
        gifts = (
            {e.receiver: (e.giver, e.cards) for e in events if isinstance(e, Gave)}
            if number is None  # (the deal's events: the gives are among them)
            else {}
        )
        # (where returns are automatic the exchange is over before play: no exchange phase)
        if (
            number is None
            and (game.phase is Phase.EXCHANGE or gifts)
            and ended
            and game.dealer is not None
        ):
            dealt = tuple(len(cards) for cards in game.history[-1].deal)
            seating = hands[hand].get("seating")
            redeals[hand] = Redeal(
                ended[0],
                tuple(seating) if seating else None,
                game.dealer,
                dealt,
                gifts,
            )
        if game.phase is Phase.EXCHANGE and hand in redeals:
            before[(hand, following)] = {
                seat: (game.view_for(seat), tuple(game.legal_actions(seat)))
                for seat in game.pending_returns
                if seat in redeals[hand].gifts
            }
        if game.phase is Phase.PLAY:
            if hand not in started:
                views = [game.view_for(s) for s in range(len(game.seating))]
                if not views[0].opening:  # (after the opening play: who held the 3C is known)
                    started.add(hand)
                    starts.extend((hand, view) for view in views)
                    if hand in redeals:
                        redeals[hand] = replace(redeals[hand], made=tuple(game.exchanges))
            seat = game.turn
            if seat is not None:
                actions = tuple(game.legal_actions(seat))
                if len(actions) > 1:
                    before[(hand, following)] = {seat: (game.view_for(seat), actions)}

    result = record.replay(document, on_step=seen)
    if result.fault is not None:
        fault = result.fault
        raise record.NotARecord(f"the record does not replay: {fault.told()}")
    found: list[Moment] = []
    for index, hand in enumerate(document.get("hands", [])):
        for number, step in enumerate(hand.get("actions", [])):
            here = before.get((index, number))
            if not here or record.by_the_table(step):  # (not the player's: not judged)
                continue
            seat, action = record.action_from_json(step)
            if seat in here:
                view, actions = here[seat]
                redeal = redeals.get(index) if isinstance(action, Return) else None
                if len(actions) > 1:
                    found.append(Moment(index, number, seat, view, actions, action, redeal))
    return found, starts, result, redeals


def _seed(seed: int, *parts: int) -> int:
    value = seed
    for part in parts:
        value = value * 1_000_003 + part
    return value


def _sampler() -> Sampler:
    """Worlds from the belief (by card counts under rules where suits matter)."""
    from .belief import belief_of

    return Believed(belief_of)


def weighed(view: SeatView, actions: Sequence[Action], chosen: Action) -> list[Action]:
    """The actions worth weighing: every legal one where there are `EVERY_UP_TO` or
    fewer (a card owed, a short hand's plays); else the search's candidates (sets kept
    whole, the cheapest broken ones, passing, the heuristic's choice) and the one
    chosen."""
    listed = list(actions)
    if len(listed) <= EVERY_UP_TO:
        return listed if chosen in listed else [*listed, chosen]
    bot = SearchBot(random.Random(0), shortcut=False)
    prior = HeuristicBot().choose(view)
    found = bot.candidates(view, listed, prior)
    if chosen not in found:
        found.append(chosen)
    return found


class _Row:
    """One world's results (1 = first, 0 = last), each candidate's played out when first
    asked: a loss needs every candidate only on the worlds that choose the best, and
    only the best's and the chosen's on the worlds that measure it (`_verdict`).  Each
    candidate meets the same random moves, whenever it is asked (common random
    numbers), so a result is the same asked or not, in any order."""

    __slots__ = ("_known", "_play")

    def __init__(self, play: Callable[[int], float], size: int) -> None:
        self._play = play
        self._known: list[float | None] = [None] * size

    def __len__(self) -> int:
        return len(self._known)

    def __getitem__(self, index: int) -> float:
        value = self._known[index]
        if value is None:
            value = self._known[index] = self._play(index)
        return value

    def known(self, index: int) -> bool:
        return self._known[index] is not None


def _playing(
    world: World, seat: int, candidates: Sequence[Action], play_rng: random.Random
) -> Callable[[int], float]:
    """Candidate i made in `world`, the hand then played out with `play_rng`'s moves."""
    state = play_rng.getstate()
    counting = COUNTING or sum(world.view.counts) <= COUNTED_FROM

    def play(index: int) -> float:
        trial = world.copy()
        trial.apply(seat, candidates[index])
        play_rng.setstate(state)  # (each action meets the same random moves)
        return trial.playout(seat, EPSILON, play_rng, counting=counting)

    return play


def _outcomes(
    view: SeatView, candidates: Sequence[Action], worlds: int, rng: random.Random
) -> list[_Row]:
    """Each world's result for each candidate (1 = first, 0 = last), the same worlds and
    the same random moves for every candidate (common random numbers)."""
    sample = _sampler()
    results: list[_Row] = []
    for _ in range(worlds):
        world = make_world(view, sample(view, rng))
        play_rng = random.Random(rng.getrandbits(64))
        results.append(_Row(_playing(world, view.seat, candidates, play_rng), len(candidates)))
    return results


def _place(results: Sequence[_Row], index: int, players: int) -> float:
    """The expected place of candidate `index` over these worlds' results."""
    return 1 + (1 - sum(r[index] for r in results) / len(results)) * (players - 1)


def returns_weighed(view: SeatView, actions: Sequence[Action], chosen: Action) -> list[Action]:
    """The returns worth weighing: those of the seat's few lowest ranks (as many as it
    returns, and two more), the heuristic's choice and the one chosen."""
    size = view.return_size or 1
    ranks = sorted({c.rank for c in view.hand}, key=lambda r: strength(r, view.revolution))
    low = set(ranks[: size + 2])
    found: list[Action] = [
        a for a in actions if isinstance(a, Return) and all(c.rank in low for c in a.cards)
    ]
    for extra in (HeuristicBot().choose(view), chosen):
        if extra not in found:
            found.append(extra)
    return found


def _redealt(moment: Moment, rng: random.Random, tries: int = 200) -> Game | None:
    """A world for a return: the hand dealt again from what the seat knew (see the
    module's words), at the moment of the return; None if no deal was found."""
    redeal, seat = moment.redeal, moment.seat
    assert redeal is not None
    giver, gifts = redeal.gifts[seat]
    mine = Counter(moment.view.hand)
    dealt_mine = mine - Counter(gifts)
    rules = moment.view.rules
    unseen = list((Counter(deck(rules.decks, rules.jokers)) - mine).elements())
    lowest = min(card.id for card in gifts)
    below = [card for card in unseen if card.id < lowest]
    for _ in range(tries):
        deal: list[list[Card]] = [[] for _ in redeal.counts]
        deal[seat] = list(dealt_mine.elements())
        rest = list(unseen)
        want = redeal.counts[giver] - len(gifts)
        if len(below) < want:
            return None
        kept = rng.sample(below, want)
        deal[giver] = [*gifts, *kept]
        left = Counter(rest) - Counter(kept)
        pool = list(left.elements())
        rng.shuffle(pool)
        for other, count in enumerate(redeal.counts):
            if other not in (seat, giver):
                deal[other], pool = pool[:count], pool[count:]
        world = redeal.before.clone()
        try:
            world.start_hand(
                seating=list(redeal.seating) if redeal.seating else None,
                dealer=redeal.dealer,
                deal=[[str(c) for c in cards] for cards in deal],
            )
        except IllegalAction:
            return None
        if Counter(world.hand_of(seat)) == mine and seat in world.pending_returns:
            return world
    return None


def _return_outcomes(
    moment: Moment, candidates: Sequence[Action], worlds: int, rng: random.Random
) -> list[_Row]:
    """`_outcomes` for a return: each world dealt again (`_redealt`), each candidate made
    in it, the others' returns by the heuristic, then the hand played out."""
    results: list[_Row] = []
    while len(results) < worlds:
        dealt = _redealt(moment, rng)
        if dealt is None:
            break
        play_rng = random.Random(rng.getrandbits(64))
        play = _returning(dealt, moment.seat, candidates, play_rng)
        results.append(_Row(play, len(candidates)))
    return results


def _returning(
    dealt: Game, seat: int, candidates: Sequence[Action], play_rng: random.Random
) -> Callable[[int], float]:
    """Return i made in the world `dealt`, the others' by the heuristic, the opening
    play made, then the hand played out with `play_rng`'s moves."""
    state = play_rng.getstate()
    heuristic = HeuristicBot()

    def play(index: int) -> float:
        game = dealt.clone()
        game.apply(seat, candidates[index])
        while game.phase is Phase.EXCHANGE:
            other = next(iter(game.pending_returns))
            game.apply(other, heuristic.choose(game.view_for(other)))
        while game.phase is Phase.PLAY and game.view_for(seat).opening:
            turn = game.turn
            assert turn is not None
            game.apply(turn, heuristic.choose(game.view_for(turn)))
        if game.phase is not Phase.PLAY or game.place_of(seat) is not None:
            place = game.place_of(seat) or 0
            return 1.0 - place / (len(game.seating) - 1)
        view = game.view_for(seat)
        hands = [game.hand_of(s) for s in range(len(game.seating))]
        play_rng.setstate(state)
        return make_world(view, hands).playout(seat, EPSILON, play_rng, counting=COUNTING)

    return play


def judge(moment: Moment, name: str, worlds: int = WORLDS, seed: int = 1) -> Judged:
    """One decision judged from its seat's view (see the module's words).  A loss near a
    threshold (within `SECOND_LOOK` of it, as a share of it: 0.15 places of a blunder's
    0.50) is measured again over `MORE_WORLDS` times as many worlds (the label is the one
    figure a reader acts on: near a threshold, the noise of one evaluation decides it)."""
    view = moment.view
    rng = random.Random(_seed(seed, moment.hand, moment.number))
    if moment.redeal is not None:
        candidates = returns_weighed(view, moment.actions, moment.chosen)
    else:
        candidates = weighed(view, moment.actions, moment.chosen)
    usual = HeuristicBot().choose(view)
    if usual not in candidates:
        candidates.append(usual)
    results = _worlds_of(moment, candidates, worlds, rng)
    mine = candidates.index(moment.chosen)
    players = len(view.counts)
    best, gap = _verdict(results, mine, players)
    if _doubtful(results, mine, best, gap, players):
        results += _worlds_of(moment, candidates, worlds * MORE_WORLDS, rng)
        best, gap = _verdict(results, mine, players)
    loss = max(0.0, gap)
    # against the heuristic's choice, on the worlds that measure the loss (on those that
    # chose the best, the heuristic's choice when it is the best would bring its luck)
    measuring = results[1::2]
    measured = (_place(measuring, mine, players), _place(measuring, best, players))
    gained = _place(measuring, candidates.index(usual), players) - measured[0]
    # each candidate's expected place over the worlds it was played out in (every one
    # for the best and the chosen, the half that chose the best for the others)
    expected = [
        _place([r for r in results if r.known(i)], i, players) for i in range(len(candidates))
    ]
    return Judged(
        moment.hand,
        moment.number,
        moment.seat,
        name,
        moment.chosen,
        candidates[best],
        tuple(zip(candidates, expected)),
        loss,
        label_of(loss),
        gap,
        gained,
        measured,
        moment.chosen == usual,
    )


#: A loss this near a threshold (a share of the threshold) is measured again over more
#: worlds...
SECOND_LOOK = 0.3
#: ... this many times as many as the first look.
MORE_WORLDS = 3


def _worlds_of(
    moment: Moment, candidates: Sequence[Action], worlds: int, rng: random.Random
) -> list[_Row]:
    """Each world's result for each candidate (a return's worlds dealt again)."""
    if moment.redeal is None:
        return _outcomes(moment.view, candidates, worlds, rng)
    results = _return_outcomes(moment, candidates, worlds, rng)
    if len(results) < 2:  # no world could be dealt: nothing to tell the returns apart
        results = [_Row(lambda _: 0.5, len(candidates)) for _ in range(2)]
    return results


def _doubtful(results: Sequence[_Row], mine: int, best: int, gap: float, players: int) -> bool:
    """Whether a first look's loss needs a second: near a threshold, or under a
    blunder's while the worlds that chose the best put it over one.  (Chosen among many
    candidates on half the worlds, the best may not be: its figure on the other half
    then makes a blunder look small; on the worlds that chose it, its luck makes any
    action look worse.  Between the two, the label is in doubt.)"""
    if any(abs(gap - limit) < SECOND_LOOK * limit for _, limit in THRESHOLDS):
        return True
    first = results[::2]
    seen = _place(first, mine, players) - _place(first, best, players)
    return gap < BLUNDER <= seen


def _verdict(results: Sequence[_Row], mine: int, players: int) -> tuple[int, float]:
    """The best candidate and the loss of candidate `mine` against it, unfloored.  The
    best is chosen on every other world and the loss measured on the others: chosen and
    measured on the same worlds, the best's luck would count as the chosen action's loss
    (an action as good as the best would lose by the noise)."""
    first, second = results[::2], results[1::2]
    best = min(range(len(results[0])), key=lambda i: (_place(first, i, players), i))
    return best, _place(second, mine, players) - _place(second, best, players)


@dataclass(frozen=True)
class Advice:
    """The coach's word on a moment: the best action found and its expected place, and
    another action's (the cheapest play, say) over the same worlds."""

    best: Action
    expected: float
    other: Action | None
    other_expected: float | None
    worlds: int


def redeal_of(view: SeatView) -> Redeal | None:
    """How to deal the worlds of a return of the exchange from the seat's own view (the
    coach's, with no record to replay): the game before the deal as the view knows it,
    each seat's count of cards as dealt (a deal made once to see them) and the gifts the
    seat was given.  None where the view owes no return for gifts it saw."""
    seat = view.seat
    gifts = [e for e in view.exchange if isinstance(e, Gave) and e.receiver == seat]
    if view.phase is not Phase.EXCHANGE or not view.return_size or not gifts:
        return None
    try:
        before = Game.before_deal(view)
        dealt = before.clone()
        dealt.start_hand(seating=view.seating, dealer=view.dealer, rng=random.Random(0))
    except IllegalAction:
        return None
    assert view.dealer is not None
    counts = tuple(len(cards) for cards in dealt.history[-1].deal)
    gave = gifts[-1]
    return Redeal(before, view.seating, view.dealer, counts, {seat: (gave.giver, gave.cards)})


def advise(
    view: SeatView, other: Action | None = None, worlds: int = WORLDS, seed: int = 0
) -> Advice:
    """What the search would play from `view` (a seat to play, or to return cards of the
    exchange), and what it expects of it, beside `other`: the search's candidates weighed
    over the same worlds, from the seat's information only (its view).  The best is
    chosen over `worlds` worlds and the two expected places said are measured over as
    many others (on the worlds that chose it, the best's luck would flatter it)."""
    actions = view.legal_actions()
    chosen = other if other in actions else actions[0]
    redeal = redeal_of(view)
    moment = Moment(view.hand_number, 0, view.seat, view, tuple(actions), chosen, redeal)
    if redeal is not None:
        candidates = returns_weighed(view, actions, chosen)
    else:
        candidates = weighed(view, actions, chosen)
    rng = random.Random(seed)
    results = _worlds_of(moment, candidates, worlds, rng)
    players = len(view.counts)
    best = min(range(len(candidates)), key=lambda i: (_place(results, i, players), i))
    measuring = _worlds_of(moment, candidates, worlds, rng)  # (only these two played)
    mine = _place(measuring, candidates.index(chosen), players) if other in actions else None
    return Advice(candidates[best], _place(measuring, best, players), other, mine, worlds)


def judge_all(moment: Moment, worlds: int = WORLDS, seed: int = 1) -> list[tuple[Action, float]]:
    """Every legal action's expected place from the moment's view (no candidates left
    out), over `worlds` worlds."""
    rng = random.Random(_seed(seed, moment.hand, moment.number, 7))
    if moment.redeal is not None:
        results = _return_outcomes(moment, moment.actions, worlds, rng)
        if not results:
            return [(a, 0.0) for a in moment.actions]
    else:
        results = _outcomes(moment.view, moment.actions, worlds, rng)
    players = len(moment.view.counts)
    return [(a, _place(results, i, players)) for i, a in enumerate(moment.actions)]


def cards_worth(
    view: SeatView,
    hand: int,
    worlds: int = LUCK_WORLDS,
    seed: int = 1,
    redeal: Redeal | None = None,
) -> float:
    """A seat's expected place from this first moment of play with its own cards, the
    others' dealt from what it can see, the heuristic playing every seat.  After an
    exchange (`redeal`), the others' cards come from the hand dealt again and exchanged
    as the seat saw it (`_exchanged`): the President holds the Scum's best cards."""
    rng = random.Random(_seed(seed, hand, 1_000 + view.seat))
    players = len(view.counts)
    total = 0.0
    done = 0
    for _ in range(worlds):
        hands = _exchanged(view, redeal, rng) if redeal is not None and redeal.made else None
        if hands is None:
            hands = deal_unseen(view, rng)
        world = make_world(view, hands)
        total += world.playout(view.seat, EPSILON, rng, counting=CARDS_COUNTING)
        done += 1
    return 1 + (1 - total / done) * (players - 1)


#: Worlds dealt again, at most, until the returns made to me are the heuristic's own
#: choice (`_exchanged`); past them, one where they are only as made.
MATCH_TRIES = 12


def _exchanged(
    view: SeatView, redeal: Redeal, rng: random.Random, tries: int = 100
) -> list[list[Card]] | None:
    """Every seat's cards at the first play, dealt again from the hand's start as the
    seat saw the exchange: its cards as dealt (its hand less what came in, plus what went
    out); a giver to it holding the gifts and cards below them; a seat that returned to
    it holding what it returned; everyone else at random; the engine's gives, the
    returns it saw as made, the others' by the heuristic.  A return made to it was the
    returner's least useful cards, so the rest of that hand is better than random: the
    deal is made again (up to `MATCH_TRIES` times) until the heuristic, given the
    returner's hand, returns the same cards (the same ranks, where suits do not matter).
    None if no deal gives the seat its very hand."""
    seat, rules = view.seat, view.rules
    mine = Counter(view.hand)
    dealt = Counter(mine)
    known: dict[int, Counter[Card]] = {}
    below: dict[int, int] = {}  # a giver to me: its other cards are below this id
    above: dict[int, int] = {}  # a returner of its lowest to me: the others above this id
    returns: list[tuple[int, Return]] = []
    #: The returns made to me, by returner (their cards, or only their ranks where suits
    #: do not matter): a world fits when they are the heuristic's own (`matched`).
    returned: dict[int, Counter[Any]] = {}
    by_cards = judge_for(rules).suits_matter()
    for move in redeal.made:
        cards = Counter(move.cards)
        if isinstance(move, Gave) and move.receiver == seat:
            dealt -= cards
            known[move.giver] = known.get(move.giver, Counter()) + cards
            below[move.giver] = min(card.id for card in move.cards)
        elif isinstance(move, Gave) and move.giver == seat:
            dealt += cards
        elif isinstance(move, Returned) and move.giver == seat:
            dealt += cards
            returns.append((seat, Return(move.cards)))
        elif isinstance(move, Returned) and move.receiver == seat:
            dealt -= cards
            returns.append((move.giver, Return(move.cards)))
            if move.automatic:  # (its lowest: the rest of its cards are higher)
                above[move.giver] = max(card.id for card in move.cards)
            else:
                returned[move.giver] = Counter(
                    move.cards if by_cards else [card.rank for card in move.cards]
                )
            gave = Counter(
                card
                for g in redeal.made
                if isinstance(g, Gave) and (g.giver, g.receiver) == (seat, move.giver)
                for card in g.cards
            )
            known[move.giver] = known.get(move.giver, Counter()) + (cards - gave)
    unseen = Counter(deck(rules.decks, rules.jokers)) - dealt
    for cards in known.values():
        unseen -= cards
    heuristic = HeuristicBot()
    fallback: list[list[Card]] | None = None
    for attempt in range(tries):
        deal: list[list[Card]] = [[] for _ in redeal.counts]
        deal[seat] = list(dealt.elements())
        pool = list(unseen.elements())
        rng.shuffle(pool)
        for other, cards in known.items():
            want = redeal.counts[other] - sum(cards.values())
            low, high = above.get(other, -1), below.get(other, 1 << 30)
            fits = [c for c in pool if low < c.id < high][:want]
            if len(fits) < want:
                return None
            deal[other] = [*cards.elements(), *fits]
            taken = Counter(fits)
            rest = []
            for card in pool:
                if taken[card]:
                    taken[card] -= 1
                else:
                    rest.append(card)
            pool = rest
        for other, count in enumerate(redeal.counts):
            if other != seat and other not in known:
                deal[other], pool = pool[:count], pool[count:]
        world = redeal.before.clone()
        try:
            world.start_hand(
                seating=list(redeal.seating) if redeal.seating else None,
                dealer=redeal.dealer,
                deal=[[str(c) for c in cards] for cards in deal],
            )
            matched = True
            for who, action in returns:
                if world.phase is Phase.EXCHANGE and who in world.pending_returns:
                    if who in returned and matched:
                        chosen = heuristic.choose(world.view_for(who)).cards  # type: ignore[union-attr]
                        matched = returned[who] == Counter(
                            chosen if by_cards else [card.rank for card in chosen]
                        )
                    world.apply(who, action)
            while world.phase is Phase.EXCHANGE:
                other = next(iter(world.pending_returns))
                world.apply(other, heuristic.choose(world.view_for(other)))
        except IllegalAction:
            continue
        if world.phase is Phase.PLAY and Counter(world.hand_of(seat)) == mine:
            hands = [world.hand_of(s) for s in range(len(world.seating))]
            if matched or attempt >= MATCH_TRIES:
                return hands
            if fallback is None:
                fallback = hands
    return fallback


def judge_chunk(job: tuple[list[tuple[Moment, str]], int, int]) -> list[Judged]:
    """Judge a chunk of decisions (a worker's job): (decisions, worlds, seed)."""
    chunk, worlds, seed = job
    return [judge(moment, name, worlds, seed) for moment, name in chunk]


def luck_chunk(job: tuple[list[Start], int, int]) -> list[float]:
    """Weigh a chunk of hands' cards (a worker's job): (starts, worlds, seed)."""
    chunk, worlds, seed = job
    return [cards_worth(view, hand, worlds, seed, redeal) for hand, view, _, redeal in chunk]


#: A hand's first moment of play seen from a seat: (hand, view, name, how it was dealt).
Start = tuple[int, SeatView, str, Redeal | None]


@dataclass(frozen=True)
class Work:
    """What a review of a record has to do: the decisions to judge (each with its
    player's name), each hand's first moment of play to weigh (hand, view, name), and
    the place each player took in each hand (0 if the hand did not finish)."""

    players: list[str]
    decisions: list[tuple[Moment, str]]
    starts: list[Start]
    places: dict[tuple[int, str], int]
    #: Per player, the decisions the table made for it (`Review.by_table`).
    by_table: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.decisions) + len(self.starts)

    def luck(self, start: Start, expected: float) -> Luck:
        """What the cards of one of `starts` were worth, given their expected place."""
        hand, view, name, _ = start
        average = (len(view.counts) + 1) / 2
        return Luck(hand, view.seat, name, expected, average, self.places.get((hand, name), 0))


def work_of(document: Mapping[str, Any], seats: Sequence[str] | None = None) -> Work:
    """The work of reviewing `document` for the players named in `seats` (all if None).
    Raises `record.NotARecord` when the record does not replay."""
    found, starts, replayed, redeals = _replayed(document)
    players: list[str] = list(document["players"])
    seating: list[list[str]] = []
    current: list[str] = players
    for hand in document.get("hands", []):
        names = hand.get("seating") if isinstance(hand, dict) else None
        current = list(names) if names else current
        seating.append(current)
    wanted = set(players if seats is None else seats)
    places: dict[tuple[int, str], int] = {}
    for index, finished in enumerate(replayed.hands):
        for place, name in enumerate(finished.get("finish") or [], 1):
            places[(index, name)] = place
    by_table: dict[str, int] = {}
    for index, hand in enumerate(document.get("hands", [])):
        for step in hand.get("actions", []):
            if record.by_the_table(step):
                name = seating[index][step["seat"]]
                by_table[name] = by_table.get(name, 0) + 1
    return Work(
        [p for p in players if p in wanted],
        [(m, seating[m.hand][m.seat]) for m in found if seating[m.hand][m.seat] in wanted],
        [
            (h, v, seating[h][v.seat], redeals.get(h))
            for h, v in starts
            if seating[h][v.seat] in wanted
        ],
        places,
        {name: n for name, n in by_table.items() if name in wanted},
    )


def review(
    document: Mapping[str, Any],
    seats: Sequence[str] | None = None,
    worlds: int = WORLDS,
    luck_worlds: int = LUCK_WORLDS,
    jobs: int = 1,
    seed: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review a record: the decisions of the players named in `seats` (all if None) and
    every hand's cards.  `progress(done, total)` is told as work finishes."""
    work = work_of(document, seats)
    total = work.total
    size = chunk_size(total, jobs)
    # one pool for both kinds of work, the hands' cards in small chunks after the
    # decisions, so no worker waits for another's last chunk between the two
    luck_size = max(1, min(size, len(work.starts) // max(1, jobs * 4)))
    tasks: list[tuple[Callable[[Any], list[Any]], Any]]
    tasks = [(judge_chunk, job) for job in chunks(work.decisions, size, worlds, seed)]
    tasks += [(luck_chunk, job) for job in chunks(work.starts, luck_size, luck_worlds, seed)]
    done = 0
    judged: list[Judged] = []
    worth: list[float] = []
    for run, part in _run(_task, tasks, jobs):
        if run is judge_chunk:
            judged += part
        else:
            worth += part
        done += len(part)
        if progress is not None:
            progress(done, total)
    luck = [work.luck(start, expected) for start, expected in zip(work.starts, worth)]
    return Review(work.players, judged, luck, work.by_table)


def _task(task: tuple[Callable[[Any], list[Any]], Any]) -> tuple[Callable[..., Any], list[Any]]:
    """A worker's job of either kind, and which kind it was."""
    run, job = task
    return run, run(job)


def chunk_size(total: int, jobs: int) -> int:
    """Decisions a worker takes at a time: enough for every worker to get a few chunks."""
    return max(1, min(16, total // max(1, jobs * 4)))


def chunks(items: list[Any], size: int, worlds: int, seed: int) -> list[Any]:
    """`items` cut into jobs for `judge_chunk` or `luck_chunk`."""
    return [(items[i : i + size], worlds, seed) for i in range(0, len(items), size)]


def worker_init() -> None:
    """A worker process's start: Ctrl-C is the parent's to handle (as the simulator's)."""
    _leave_ctrl_c_to_the_parent()


def _run(run: Callable[[Any], Any], work: list[Any], jobs: int) -> Iterator[Any]:
    if jobs <= 1 or len(work) <= 1:
        for item in work:
            yield run(item)
        return
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    # (as the simulator's: workers leave Ctrl-C to the parent, which stops them)
    with context.Pool(jobs, initializer=_leave_ctrl_c_to_the_parent) as pool:
        yield from pool.imap(run, work)

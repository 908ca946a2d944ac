"""Ratings and the leaderboard's numbers, as a pure core (no I/O: `ladder.py` keeps them
in the data directory and answers the lobby).

Per player: hands and games played, games won, hands finished in each place, points,
the offices (titles) held going into a hand and kept through it, and an OpenSkill
rating (the Weng-Lin Plackett-Luce model, which fits a finishing order).  The rating is
updated after every hand from that hand's finishing order (docs/ratings.md says why per
hand); the ladder orders players by the conservative value mu - 3 sigma, established players
first.  A player is provisional until enough established opponents have met them, and a
provisional opponent counts for nobody (docs/ratings.md, "Throwaway keys")."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce
from president.protocol.messages import UNRATED

#: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) times 60, so that the
#: shown numbers are whole: a newcomer is 1500 +- 500, shown as 1500 - 3 x 500 = 0.
MU = float(UNRATED[0])
SIGMA = float(UNRATED[1])
#: A game at the default target is about ten hands.
HANDS_PER_GAME = 10
#: The drift added to sigma per rated hand: OpenSkill's tau is per match (here a game),
#: so a hand adds tau / sqrt(10), and ten hands add what one match would.  Every hand
#: adding a whole tau keeps two close players swapping places for ever (docs/ratings.md,
#: "The drift").
TAU = SIGMA / 100 / HANDS_PER_GAME**0.5
#: A provisional player is established once established opponents have met them in this
#: many hands, each opponent counted in at most `FROM_ONE` of them: a game's hands with
#: each of two established players, 7 hands at a table of three of them (FIDE counts an
#: unrated player's games against rated opponents only; ICC allows at most 4 of a
#: provisional player's first 20 games against one opponent).
ESTABLISHED_AFTER = 2 * HANDS_PER_GAME
FROM_ONE = ESTABLISHED_AFTER // 2


def plackett_luce(tau: float = TAU) -> PlackettLuce:
    """The ladder's model on this scale, with a per-hand drift of `tau`."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=tau)


MODEL = plackett_luce()


@dataclass(frozen=True)
class Finisher:
    """One seat of a finished hand, in its finishing place."""

    #: The id the player is rated under (None: not rated, a server-side bot).
    player: str | None
    name: str
    #: The title held going into the hand ("" in a game's first hand).
    held: str
    #: The title this place gives for the next hand.
    title: str
    points: int


@dataclass(frozen=True)
class HandResult:
    """What a finished hand gives the ladder: its finishing order and, when it ended the
    game, the winners."""

    #: The game's id (one per game, kept in the journal): with `hand`, what is counted
    #: once and only once.
    game: str
    hand: int
    finish: tuple[Finisher, ...]
    game_over: bool = False
    #: The names of the game's winners (when `game_over`).
    winners: tuple[str, ...] = ()


@dataclass(frozen=True)
class Record:
    """One player on the ladder."""

    player: str
    name: str
    mu: float = MU
    sigma: float = SIGMA
    hands: int = 0
    games: int = 0
    wins: int = 0
    #: Hands finished in each place: places[0] first, places[1] second, ...
    places: tuple[int, ...] = ()
    points: int = 0
    #: Per title: hands begun holding it, and of those, hands that ended with it again.
    held: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    #: Rated against enough established opponents (`ESTABLISHED_AFTER`); for good.
    established: bool = False
    #: While provisional: per established opponent, the hands played with them (at most
    #: `FROM_ONE` each); emptied once established.
    met: dict[str, int] = field(default_factory=dict)

    @property
    def rating(self) -> float:
        """The shown rating: mu - 3 sigma, a value the player's skill is very likely above
        (OpenSkill's `ordinal`), so a newcomer with one lucky hand does not top the ladder."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> str:
        body = {
            "name": self.name,
            "mu": self.mu,
            "sigma": self.sigma,
            "hands": self.hands,
            "games": self.games,
            "wins": self.wins,
            "places": list(self.places),
            "points": self.points,
            "held": self.held,
            "kept": self.kept,
            "established": self.established,
            "met": self.met,
        }
        return json.dumps(body, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, player: str, text: str) -> Record:
        """A record as `to_json` wrote it; ValueError if it is not one.  A row written
        before the ladder knew established players is read as provisional."""
        body: Any = json.loads(text)
        try:
            established = body.get("established", False)
            if not isinstance(established, bool):
                raise TypeError("established must be true or false")
            record = cls(
                player=player,
                name=str(body["name"]),
                mu=float(body["mu"]),
                sigma=float(body["sigma"]),
                hands=int(body["hands"]),
                games=int(body["games"]),
                wins=int(body["wins"]),
                places=tuple(int(n) for n in body["places"]),
                points=int(body["points"]),
                held={str(k): int(v) for k, v in body["held"].items()},
                kept={str(k): int(v) for k, v in body["kept"].items()},
                established=established,
                met={str(k): int(v) for k, v in body.get("met", {}).items()},
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a ladder record: {exc}") from None
        if not record.sigma > 0:
            raise ValueError("not a ladder record: sigma must be positive")
        return record


def _bump(counts: dict[str, int], key: str) -> dict[str, int]:
    return {**counts, key: counts.get(key, 0) + 1}


def rate(records: Sequence[Record]) -> list[tuple[float, float]]:
    """(mu, sigma) of each player after a hand they finished in the order given (first
    to last), by the Plackett-Luce model."""
    teams = [[MODEL.create_rating([r.mu, r.sigma], name=r.player)] for r in records]
    after = MODEL.rate(teams, ranks=[float(place) for place in range(len(records))])
    return [(team[0].mu, team[0].sigma) for team in after]


def rate_against(records: Sequence[Record], established: set[str]) -> list[tuple[float, float]]:
    """(mu, sigma) of each player after a hand they finished in the order given (first to
    last), each rated against the `established` players at the table only: an established
    player among the established ones, any other among them and themselves.  The
    Plackett-Luce model of an order restricted to some of its players is the model of
    their order, so whoever is left out takes nothing from the others (as server-side
    bots take nothing)."""
    ratings = [(r.mu, r.sigma) for r in records]
    held = [i for i, r in enumerate(records) if r.player in established]
    if len(held) >= 2:
        for i, rating in zip(held, rate([records[i] for i in held]), strict=True):
            ratings[i] = rating
    for i, record in enumerate(records):
        if record.player not in established and held:
            group = sorted([*held, i])
            ratings[i] = rate([records[j] for j in group])[group.index(i)]
    return ratings


def meet(record: Record, established: set[str]) -> tuple[bool, dict[str, int]]:
    """A provisional player's `established` and `met` after a hand with the `established`
    players (an established player's are kept)."""
    if record.established:
        return True, record.met
    met = dict(record.met)
    for other in established - {record.player}:
        met[other] = min(met.get(other, 0) + 1, FROM_ONE)
    if sum(met.values()) >= ESTABLISHED_AFTER:
        return True, {}
    return False, met


#: The games whose last counted hand the ladder keeps (a hand is counted once): the
#: newest, as many as a server finishes in weeks of game nights.  A game only needs it
#: while it can still be replayed from the journal, and the journal holds the games under
#: way; past it, the oldest is let go (one guest's bots finishing a game every few
#: seconds grew it, in memory and on disk, without end: a hostile pass).
KEPT_GAMES = 20_000


class Ladder:
    """Every rated player's record, and which hands have been counted."""

    def __init__(self, records: Iterable[Record] = (), counted: dict[str, int] | None = None):
        self.records: dict[str, Record] = {r.player: r for r in records}
        #: Per game id, the last hand counted (a hand is counted once, in order).
        self.counted: dict[str, int] = dict(counted or {})
        self._order: list[str] | None = None
        #: Someone is established.  Until then every player counts as established for
        #: the others: the ladder's first players found it (docs/ratings.md).
        self.founded = any(r.established for r in self.records.values())

    def __len__(self) -> int:
        return len(self.records)

    def record(self, player: str, name: str) -> Record:
        return self.records.get(player) or Record(player=player, name=name)

    def after(self, result: HandResult) -> list[Record] | None:
        """The new records of the rated players of `result` (the ladder is not changed:
        `take` them once they are written); None if that hand was counted already."""
        if result.hand <= self.counted.get(result.game, -1):
            return None
        seated = Counter(f.player for f in result.finish if f.player is not None)
        # (a player key in two chairs of the hand, two people sharing one, is not rated
        # for it: a player is not rated against themselves; the others are)
        rated = [f for f in result.finish if f.player is not None and seated[f.player] == 1]
        before = [self.record(f.player, f.name) for f in rated if f.player is not None]
        # Rated among the rated players only (the bots in between take nothing from the
        # others' worths), and against the established ones among them only.
        established = {r.player for r in before if r.established or not self.founded}
        ratings = rate_against(before, established)
        winners = set(result.winners)
        out = []
        for (mu, sigma), finisher, record in zip(ratings, rated, before, strict=True):
            place = result.finish.index(finisher)
            places = list(record.places) + [0] * (place + 1 - len(record.places))
            places[place] += 1
            held, kept = record.held, record.kept
            if finisher.held:
                held = _bump(held, finisher.held)
                if finisher.held == finisher.title:
                    kept = _bump(kept, finisher.held)
            now, met = meet(record, established)
            out.append(
                replace(
                    record,
                    name=finisher.name,
                    mu=mu,
                    sigma=sigma,
                    hands=record.hands + 1,
                    games=record.games + result.game_over,
                    wins=record.wins + (result.game_over and finisher.name in winners),
                    places=tuple(places),
                    points=record.points + finisher.points,
                    held=held,
                    kept=kept,
                    established=now,
                    met=met,
                )
            )
        return out

    def take(self, result: HandResult, records: Iterable[Record]) -> None:
        """Put the records `after(result)` gave on the ladder."""
        for record in records:
            self.records[record.player] = record
            self.founded = self.founded or record.established
        if result.game not in self.counted and len(self.counted) >= KEPT_GAMES:
            del self.counted[next(iter(self.counted))]  # (the oldest game counted)
        self.counted[result.game] = result.hand
        self._order = None

    def order(self) -> list[str]:
        """Player ids, best first: established players before provisional ones, then by
        shown rating, then more hands, then id."""
        if self._order is None:
            records = self.records
            self._order = sorted(
                records,
                key=lambda p: (
                    not records[p].established,
                    -records[p].rating,
                    -records[p].hands,
                    p,
                ),
            )
        return self._order

    def board(self, start: int, count: int) -> list[tuple[int, Record]]:
        """(place on the ladder, from 1; record) of `count` players from place `start + 1`."""
        order = self.order()
        return [
            (start + i + 1, self.records[p]) for i, p in enumerate(order[start : start + count])
        ]

    def named(self, names: Iterable[str]) -> list[tuple[int, Record]]:
        """(place, record) of the players going by these names, in any case (as a name is
        claimed here: unknown names left out)."""
        wanted = {name.casefold() for name in names}
        return [
            (place, self.records[p])
            for place, p in enumerate(self.order(), start=1)
            if self.records[p].name.casefold() in wanted
        ]

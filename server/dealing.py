"""The server's half of the provably fair deal (docs/PROTOCOL.md, "Fair deal"): commit
to a fresh seed, take each seat's seed until the deck is cut, deal the deck they make,
reveal every seed after the hand.  The arithmetic is `protocol/fairdeal.py`."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from president.engine import Card, Rules
from president.protocol import messages as m
from president.protocol.errors import Code
from president.protocol.fairdeal import commitment, deal, deck_order

from .seats import TableError

#: The seed used for a seat that sent none in time (documented in PROTOCOL.md).
MISSING_SEED = bytes(32)


@dataclass
class DealSecret:
    """One hand's deal: the server's seed and the seats' seeds, by player name."""

    hand: int
    server_seed: bytes
    seeds: dict[str, bytes] = field(default_factory=dict)
    #: Names in this hand's seating order: the order the seeds go into the key.
    order_names: list[str] = field(default_factory=list)
    dealer: int = 0
    start: int = 0
    #: The deck is cut: a seed arriving now would not be in it, so none is taken.
    dealt: bool = False

    @classmethod
    def fresh(cls, hand: int, seating: list[str], dealer: int, start: int) -> DealSecret:
        return cls(
            hand=hand,
            server_seed=secrets.token_bytes(32),
            order_names=list(seating),
            dealer=dealer,
            start=start,
        )

    @classmethod
    def from_entry(cls, body: dict[str, Any]) -> DealSecret:
        """A dealt hand's secret as the journal's "deal" entry kept it."""
        return cls(
            hand=body["hand"],
            server_seed=bytes.fromhex(body["server_seed"]),
            seeds={name: bytes.fromhex(seed) for name, seed in body["seeds"].items()},
            order_names=list(body["seating"]),
            dealer=body["dealer"],
            start=body["start"],
            dealt=True,
        )

    def commit(self, table: str) -> m.DealCommit:
        return m.DealCommit(table=table, hand=self.hand, digest=commitment(self.server_seed))

    def take(self, name: str, hand: int, seed: bytes) -> None:
        """A seat's seed for this deal; `TableError` if it is not wanted now."""
        if hand != self.hand:
            raise TableError(Code.BAD_DEAL_SEED, "no deal is waiting for that seed")
        if self.dealt:
            raise TableError(
                Code.BAD_DEAL_SEED, f"too late: hand {hand} is dealt without your seed"
            )
        if name in self.seeds:
            raise TableError(Code.BAD_DEAL_SEED, "your seed for this deal is already in")
        self.seeds[name] = seed

    def cut(self, rules: Rules) -> list[list[Card]]:
        """Cut the deck from every seed in (a missing one counts as zeros) and deal it."""
        self.dealt = True
        seeds = [self.seeds.get(name, MISSING_SEED) for name in self.order_names]
        order = deck_order(self.server_seed, seeds, self.hand, rules.decks, rules.jokers)
        return deal(order, len(self.order_names), self.start)

    def entry(self, dealt: list[list[Card]]) -> dict[str, Any]:
        """The journal's "deal" entry: enough to rebuild the hand and reveal it later."""
        return {
            "hand": self.hand,
            "seating": self.order_names,
            "dealer": self.dealer,
            "start": self.start,
            "deal": [[str(c) for c in cards] for cards in dealt],
            "server_seed": self.server_seed.hex(),
            "seeds": {name: seed.hex() for name, seed in self.seeds.items()},
        }

    def reveal(self, table: str) -> m.DealReveal:
        return m.DealReveal(
            table=table,
            hand=self.hand,
            server_seed=self.server_seed,
            client_seeds=tuple(self.seeds.get(n, MISSING_SEED) for n in self.order_names),
            dealer=self.dealer,
            start=self.start,
            players=len(self.order_names),
        )

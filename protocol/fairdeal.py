"""The provably fair deal (docs/PROTOCOL.md, "Fair deal").

Before a hand the server commits to SHA-256 of a fresh 32-byte seed; each seat then sends
a 32-byte seed of its own.  The deck order is the engine's fixed deck shuffled by
Fisher-Yates, drawing from a stream of HMAC-SHA256 blocks keyed by a key derived from the
server seed, every client seed in seat order, and the hand number.  After the hand the
server reveals its seed, and every client recomputes the deal and checks its own cards."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence

from president.engine import Card, deck

DOMAIN = b"president-deal/1"


def commitment(server_seed: bytes) -> bytes:
    return hashlib.sha256(server_seed).digest()


def deal_key(server_seed: bytes, client_seeds: Sequence[bytes], hand: int) -> bytes:
    """HMAC-SHA256(server seed, domain | hand (8 bytes) | count (1 byte) | seeds)."""
    message = DOMAIN + struct.pack(">QB", hand, len(client_seeds)) + b"".join(client_seeds)
    return hmac.new(server_seed, message, hashlib.sha256).digest()


class _Stream:
    """Uniform integers from HMAC-SHA256(key, counter) blocks, by rejection sampling."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.counter = 0
        self.pool = b""

    def word(self) -> int:
        if len(self.pool) < 4:
            self.pool += hmac.new(
                self.key, struct.pack(">Q", self.counter), hashlib.sha256
            ).digest()
            self.counter += 1
        value = int.from_bytes(self.pool[:4], "big")
        self.pool = self.pool[4:]
        return value

    def below(self, bound: int) -> int:
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            value = self.word()
            if value < limit:
                return value % bound


def deck_order(
    server_seed: bytes, client_seeds: Sequence[bytes], hand: int, decks: int = 1, jokers: int = 0
) -> list[Card]:
    """The deck in dealing order: card 0 goes to the first seat dealt, and so on."""
    cards: list[Card] = deck(decks, jokers)
    stream = _Stream(deal_key(server_seed, client_seeds, hand))
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deal(order: Sequence[Card], players: int, start: int) -> list[list[Card]]:
    """One card at a time, clockwise from seat `start` (docs/rules.md, "Players, seats
    and the deal")."""
    return [list(order[(seat - start) % players :: players]) for seat in range(players)]


def check_hand(
    server_seed: bytes,
    digest: bytes,
    client_seeds: Sequence[bytes],
    hand: int,
    players: int,
    start: int,
    seat: int,
    dealt: Sequence[Card],
    decks: int = 1,
    jokers: int = 0,
) -> str | None:
    """What a client checks after the reveal: None if its own cards are what the seeds
    deal, else what is wrong."""
    if not hmac.compare_digest(commitment(server_seed), digest):
        return "the revealed seed does not match the server's commitment"
    if not 0 <= seat < players or not 0 <= start < players or len(client_seeds) != players:
        return f"the reveal deals {players} seats with {len(client_seeds)} seeds, not this table's"
    order = deck_order(server_seed, client_seeds, hand, decks, jokers)
    mine = deal(order, players, start)[seat]
    if sorted(c.id for c in mine) != sorted(c.id for c in dealt):
        return "the cards dealt to this seat are not the cards the seeds deal"
    return None

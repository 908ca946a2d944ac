"""The fixed action space of a table's rules: every action a seat could ever be offered,
numbered once (`Catalog`), so that a policy answers with an index and an action mask.

An action's key is what the engine treats as one choice: where suits matter (the judge
says so), the cards themselves; elsewhere the shape (a play's rank, count and jokers; a
return's ranks), since the engine lists one play per shape and any cards of it do."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from itertools import chain

from president.engine import (
    PASS,
    Action,
    Bomb,
    Discard,
    Handover,
    Pass,
    Play,
    Return,
    Rules,
    Take,
    Trick,
    counts_of,
    deck,
    judge_for,
)

Key = Hashable

#: How many actions `Catalog.indices` remembers before it starts again.
_KNOWN = 1 << 14


class Catalog:
    """Every action of a table's rules, by index: the pass, every play the full deck could
    lead, every return of one or two cards, and (under seven_pass or ten_discard) every
    card handed over or discarded, (under salvage) every card taken from the cards
    played."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        judge = judge_for(rules)
        self.by_cards = judge.suits_matter()
        rows = judge.rows_of(counts_of(deck(rules.decks, rules.jokers)))
        actions: list[Action] = [PASS]
        actions += judge.legal_plays(rows, Trick(None, False, (), False))
        for size in (1, 2):
            actions += judge.legal_returns(rows, size)
        kinds = sorted({card for card in deck(rules.decks, rules.jokers)}, key=lambda c: c.id)
        if rules.seven_pass:
            actions += [Handover((card,)) for card in kinds]
        if rules.ten_discard:
            actions += [Discard((card,)) for card in kinds]
        if rules.salvage or rules.kings_march or rules.zombie:  # (a card played taken)
            actions += [Take((card,)) for card in kinds]
        if rules.queen_bomber:  # (a rank named)
            actions += [Bomb(rank) for rank in range(13)]
        self.keys: list[Key] = []
        self.index: dict[Key, int] = {}
        for action in actions:
            key = self.key(action)
            if key not in self.index:
                self.index[key] = len(self.keys)
                self.keys.append(key)
        #: The index of actions met before, by identity (the engine lists the same
        #: objects again: a hand's rows, the pass), and those actions, kept alive so
        #: that no other object takes their ids while they are known.
        self._known: dict[int, int] = {}
        self._alive: list[Action] = []

    def __len__(self) -> int:
        return len(self.keys)

    def key(self, action: Action) -> Key:
        """What the engine treats as one choice (see the module's words)."""
        kind = type(action)
        if kind is Pass:
            return "pass"
        if kind is Play:
            play: Play = action  # type: ignore[assignment]
            if self.by_cards:
                return ("play", play.ids)
            return ("play", play.rank, play.count, play.jokers)
        if kind is Return:
            ret: Return = action  # type: ignore[assignment]
            if self.by_cards:
                return ("return", ret.ids)
            return ("return", tuple(sorted(card.rank for card in ret.cards)))
        if kind is Handover:
            return ("handover", action.ids)  # type: ignore[union-attr]
        if kind is Take:
            return ("take", action.ids)  # type: ignore[union-attr]
        if kind is Bomb:
            return ("bomb", action.rank)  # type: ignore[union-attr]
        return ("discard", action.ids)  # type: ignore[union-attr]

    def indices(self, legal: Sequence[Action]) -> tuple[int, ...]:
        """The index of each legal action, in order."""
        try:
            return tuple(map(self._known.__getitem__, map(id, legal)))
        except KeyError:  # (an action not met before: learn it, and ask again)
            if len(self._known) >= _KNOWN:
                self._known.clear()
                self._alive.clear()
            for action in legal:
                if id(action) not in self._known:
                    self._known[id(action)] = self.index[self.key(action)]
                    self._alive.append(action)
            return tuple(map(self._known.__getitem__, map(id, legal)))

    def indices_of_all(self, listings: Iterable[Sequence[Action]]) -> list[int]:
        """The index of each action of these lists, one after another (many tables'
        legal actions numbered at once)."""
        listings = list(listings)
        try:
            return list(map(self._known.__getitem__, map(id, chain.from_iterable(listings))))
        except KeyError:  # (an action not met before: learned as `indices` does)
            return [index for legal in listings for index in self.indices(legal)]

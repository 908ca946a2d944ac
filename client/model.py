"""What a client knows of its table, updated from protocol messages; separate from any
screen.  `seat_view()` turns it into the engine's `SeatView`, so a bot chooses online
exactly as it does offline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from president.engine import Card, Play, Rules, SeatView, parse_cards, rules_from
from president.engine.events import Gave
from president.engine.moves import Top, rows_of
from president.protocol import messages as m


@dataclass
class TableModel:
    name: str = ""
    view: m.TableView | None = None
    #: This connection's slot (from `seated`) and name.
    slot: int | None = None
    me: str = ""
    token: bytes = b""
    hand: list[Card] = field(default_factory=list)
    dealt: dict[int, list[Card]] = field(default_factory=dict)  # hand number -> as dealt
    events: list[m.GameEvent] = field(default_factory=list)
    chat: list[m.Chat] = field(default_factory=list)
    deal_results: dict[int, str | None] = field(default_factory=dict)
    #: This hand's public events (played cards, who went out, the exchange), for bots.
    this_hand: list[m.GameEvent] = field(default_factory=list)
    #: My hand as the exchange left it, by hand number.
    exchanged: dict[int, list[Card]] = field(default_factory=dict)
    _rules: tuple[dict[str, Any], Rules] | None = field(default=None, repr=False)

    def note(self, event: m.GameEvent) -> None:
        """Keep a public event: this hand's go to `this_hand`; `events` keeps the last
        few thousand (a bot may play for days)."""
        if event.kind == "hand_started":
            self.this_hand = []
            number = event.data.get("hand")
            if isinstance(number, int):
                for old in [h for h in self.dealt if h < number - 1]:
                    self.dealt.pop(old, None)
                    self.exchanged.pop(old, None)
        self.this_hand.append(event)
        self.events.append(event)
        if len(self.events) > 5000:
            del self.events[:2500]

    def remove_played(self, cards: object) -> None:
        """My own play, announced: those cards leave my hand."""
        if not isinstance(cards, tuple):
            return
        for card in parse_cards([str(c) for c in cards]):
            if card in self.hand:
                self.hand.remove(card)

    @property
    def seat(self) -> int | None:
        """My seat in this hand's seating (seats move between hands under by_rank)."""
        if self.view is None:
            return None
        for index, info in enumerate(self.view.seats):
            if info.name == self.me:
                return index
        return None

    def rules(self) -> Rules | None:
        """The table's rules, parsed once (a view repeats them in every message)."""
        if self.view is None:
            return None
        wire = dict(self.view.rules)
        if self._rules is None or self._rules[0] != wire:
            self._rules = (wire, rules_from(wire))
        return self._rules[1]

    @property
    def my_turn(self) -> bool:
        view, seat = self.view, self.seat
        if view is None or seat is None:
            return False
        if view.phase == "play":
            return view.turn == seat
        return view.phase == "exchange" and any(s == seat for s, _ in view.owed)

    def seat_view(self) -> SeatView:
        """The engine's view of my seat, built from what the server sent."""
        view, seat = self.view, self.seat
        assert view is not None and seat is not None
        rules = self.rules()
        assert rules is not None
        trick = tuple((s, Play(parse_cards(cards))) for s, cards in view.trick)
        top = None
        if trick:
            owner, play = trick[-1]
            top = Top(owner, play.rank, play.count, play.jokers)
        counts = [0] * 53
        for card in self.hand:
            counts[card.id] += 1
        owed = dict(view.owed)
        scores: Any = tuple((info.name, info.score) for info in view.seats)
        played: list[Card] = []
        places: list[int | None] = [None] * len(view.seats)
        partner: int | None = None
        for event in self.this_hand:
            data: Any = event.data
            if event.kind == "played":
                played.extend(parse_cards([str(c) for c in data["cards"]]))
            elif event.kind == "went_out" and 0 <= data["seat"] < len(places):
                places[data["seat"]] = int(data["place"])
            elif event.kind == "gave" and seat in (data["giver"], data["receiver"]):
                partner = data["receiver"] if data["giver"] == seat else data["giver"]
        exchange: tuple[Gave, ...] = ()
        dealt, after = self.dealt.get(view.hand), self.exchanged.get(view.hand)
        if partner is not None and dealt is not None and after is not None:
            gone, came = list(dealt), list(after)
            for card in after:
                if card in gone:
                    gone.remove(card)
            for card in dealt:
                if card in came:
                    came.remove(card)
            exchange = (Gave(seat, partner, tuple(gone)), Gave(partner, seat, tuple(came)))
        finish = tuple(s for _, s in sorted((p, s) for s, p in enumerate(places) if p is not None))
        return SeatView(
            rules=rules, seat=seat, hand_number=view.hand, phase=view.phase,
            seating=tuple(info.name for info in view.seats), dealer=view.dealer,
            hand=tuple(sorted(self.hand)), counts=tuple(info.cards for info in view.seats),
            turn=view.turn, top=top, trick=trick, played=tuple(played), revolution=view.revolution,
            opening=view.opening, passed=tuple(info.passed for info in view.seats),
            locked=tuple(info.passed and rules.passing == "locked" for info in view.seats),
            finish_order=finish, standing=tuple(view.standing), scores=scores, exchange=exchange,
            return_size=owed.get(seat, 0), hands_played=view.hands_played, winners=(),
            rows=tuple(rows_of(counts)), places=tuple(places),
        )

"""What the table screen shows and what its keys do, as plain Python over the client
model: no prompt_toolkit here, so it is tested without a terminal."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from president.engine import Card, Phase, Play, Return, SeatView, counts_of
from president.engine.cards import JOKER_RANK
from president.engine.describe import toggle_words
from president.engine.moves import play_problem, return_problem, strength
from president.protocol import messages as m

from ..model import TableModel

SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


def card_text(card: Card) -> str:
    if card.rank == JOKER_RANK:
        return "JK"
    return RANKS[card.rank] + SUIT_SYMBOLS[card.suit]


@dataclass
class TableScreen:
    """The screen's own state: the cursor, the selection, the message line, the log."""

    model: TableModel
    cursor: int = 0
    selected: set[int] = field(default_factory=set)
    message: str = ""
    help: bool = False
    log: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    connection: str = "connected"
    view_time: float = 0.0
    exchange_line: str = ""

    # --- the hand -------------------------------------------------------------------

    def hand(self) -> list[Card]:
        """My cards, lowest first by the current order (a revolution reverses it)."""
        public = self.model.public
        reverse = bool(public and public.revolution)
        return sorted(self.model.hand, key=lambda c: (strength(c.rank, reverse), c.suit))

    def seat_view(self) -> SeatView | None:
        model = self.model
        if model.seat is None or not model.playing:
            return None
        return model.seat_view()

    def legal_ranks(self) -> set[int]:
        """Ranks that are part of some legal play now (highlighted in the hand)."""
        view = self.seat_view()
        if view is None or not self.model.my_turn:
            return set()
        ranks: set[int] = set()
        for action in view.legal_actions():
            for card in getattr(action, "cards", ()):
                ranks.add(card.rank)
        return ranks

    def chosen(self) -> list[Card]:
        hand = self.hand()
        return [hand[i] for i in sorted(self.selected) if i < len(hand)]

    def move(self, step: int) -> None:
        count = len(self.model.hand)
        if count:
            self.cursor = (self.cursor + step) % count

    def toggle(self, index: int | None = None) -> None:
        index = self.cursor if index is None else index
        if index >= len(self.model.hand):
            return
        self.cursor = index
        self.selected ^= {index}
        self.message = self.explain() or ""

    def clear(self) -> None:
        self.selected = set()

    def select_lowest(self) -> None:
        """Select the cheapest legal play (or the lowest cards to return)."""
        view = self.seat_view()
        if view is None or not self.model.my_turn:
            self.message = "it is not your turn"
            return
        actions = [a for a in view.legal_actions() if isinstance(a, (Play, Return))]
        if not actions:
            self.message = "you have no play: pass (p)"
            return
        rev = view.revolution
        best = min(
            actions, key=lambda a: (sum(strength(c.rank, rev) for c in a.cards), -len(a.cards))
        )
        hand = self.hand()
        self.selected = set()
        for card in best.cards:
            index = next(i for i, c in enumerate(hand) if c == card and i not in self.selected)
            self.selected.add(index)
        self.message = ""

    def explain(self) -> str | None:
        """Why the selection cannot be sent now, in the engine's words (None if it can)."""
        view = self.seat_view()
        chosen = self.chosen()
        if view is None:
            return "wait for the hand to start"
        if not self.model.my_turn:
            return "it is not your turn" if chosen else None
        if not chosen:
            return "choose cards with space, then enter"
        counts = counts_of(view.hand)
        if view.phase is Phase.EXCHANGE:
            return return_problem(counts, view.return_size, Return(chosen))
        return play_problem(
            view.rules, counts, view.top, view.revolution, view.opening, Play(chosen), view.rows
        )

    def action(self) -> Play | Return | None:
        """The selection as the action to send, or None with `message` saying why not."""
        problem = self.explain()
        if problem:
            self.message = problem
            return None
        view = self.seat_view()
        assert view is not None
        chosen = self.chosen()
        self.selected = set()
        self.message = ""
        return Return(chosen) if view.phase is Phase.EXCHANGE else Play(chosen)

    # --- what happened --------------------------------------------------------------

    def name_of(self, seat: int) -> str:
        public = self.model.public
        if public is None or not 0 <= seat < len(public.seating):
            return f"seat {seat}"
        name = public.seating[seat]
        return "you" if name == self.model.me else name

    def _says(self, seat: int, third: str, second: str) -> str:
        name = self.name_of(seat)
        return f"{name} {second if name == 'you' else third}"

    def record(self, message: m.Message) -> None:
        """Turn a server message into log lines and summaries."""
        if isinstance(message, m.TableView):
            self.view_time = time.monotonic()
            if self.cursor >= max(1, len(self.model.hand)):
                self.cursor = max(0, len(self.model.hand) - 1)
            return
        if isinstance(message, m.Chat):
            self.log.append(f"<{message.sender}> {message.text}")
        elif isinstance(message, m.Error):
            self.message = message.message
        elif isinstance(message, m.TableEvent):
            if isinstance(message, m.Played) and message.seat == self.model.seat:
                self.selected = set()
            line = self.describe(message)
            if line:
                self.log.append(line)
        elif isinstance(message, m.SealedHand):
            # a choice is positions in the hand: when the hand changes, it goes
            self.selected, self.cursor = set(), 0
            self.exchange_line = self.exchanged() if message.reason == "exchange" else ""
        del self.log[:-200]

    def describe(self, event: m.TableEvent) -> str | None:
        """A public event as a line of the log."""
        if isinstance(event, m.HandStarted):
            self.summary = []
            self.message = ""
            dealer = event.seating[event.dealer]
            says = "you deal" if dealer == self.model.me else f"{dealer} deals"
            return f"— hand {event.hand + 1}: {says} —"
        if isinstance(event, m.Played):
            cards = " ".join(card_text(Card.parse(c)) for c in event.cards)
            extra = " — clears the pile" if event.clears else ""
            extra += " — REVOLUTION" if event.revolution else ""
            return f"{self._says(event.seat, 'plays', 'play')} {cards}{extra}"
        if isinstance(event, m.Passed):
            return self._says(event.seat, "passes", "pass") + (" (auto)" if event.automatic else "")
        if isinstance(event, m.Skipped):
            return f"{self._says(event.seat, 'is', 'are')} skipped"
        if isinstance(event, m.TrickEnded):
            return (
                f"{self._says(event.winner, 'wins', 'win')} the trick; "
                f"{self._says(event.leader, 'leads', 'lead')}"
            )
        if isinstance(event, m.WentOut):
            return f"{self._says(event.seat, 'is', 'are')} out in place {event.place + 1}"
        if isinstance(event, m.Gave):
            plural = "s" if event.size != 1 else ""
            return (
                f"{self._says(event.giver, 'gives', 'give')} {event.size} card{plural}"
                f" to {self.name_of(event.receiver)}"
            )
        if isinstance(event, m.Returned):
            return (
                f"{self._says(event.giver, 'returns', 'return')} {event.size}"
                f" to {self.name_of(event.receiver)}"
            )
        if isinstance(event, m.HandOver):
            self.summary = [f"Hand {event.hand + 1} is over:"] + [
                f"  {place}. {name}{'  +' + str(p) if p else ''}"
                for place, (name, p) in enumerate(zip(event.finish, event.points), 1)
            ]
            return f"hand over: {', '.join(event.finish)}"
        if isinstance(event, m.GameOver):
            winners = " and ".join(event.winners)
            self.summary = [f"GAME OVER — {winners} won!", "press q to leave"]
            return f"game over: {winners} won"
        return None

    def exchanged(self) -> str:
        """What my exchange did to my hand: the cards I gave and the cards I got."""
        me = self.model.seat
        gave = [c for e in self.model.exchange if e.giver == me for c in e.cards]
        got = [c for e in self.model.exchange if e.receiver == me for c in e.cards]
        if not gave and not got:
            return ""

        def shown(cards: list[Card]) -> str:
            return " ".join(card_text(c) for c in sorted(cards)) or "nothing"

        return f"exchange: you gave {shown(gave)}; you got {shown(got)}"

    def rules_lines(self) -> list[str]:
        """The table's rules: the preset, and each changed toggle in words."""
        view = self.model.view
        rules = self.model.rules()
        if view is None or rules is None:
            return []
        preset = str(view.rules.get("preset", "classic"))
        changed = [name for name in view.rules if name != "preset"]
        return [f"rules: {preset}" + (", changed:" if changed else " (see president rules)")] + [
            f"• {toggle_words(name, getattr(rules, name), rules)}" for name in changed
        ]

    def deal_line(self) -> str:
        results = self.model.deal_results
        if not results:
            return ""
        hand = max(results)
        problem = results[hand]
        return (
            f"fair deal of hand {hand + 1}: verified"
            if problem is None
            else f"fair deal of hand {hand + 1}: FAILED — {problem}"
        )

    def seconds_left(self) -> int | None:
        view = self.model.view
        if view is None or not view.turn_deadline_ms:
            return None
        left = view.turn_deadline_ms / 1000 - (time.monotonic() - self.view_time)
        return max(0, int(left + 0.999))

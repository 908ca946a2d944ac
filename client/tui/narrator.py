"""The words a screen says for what happened: one narrator for the live table and the
replay viewer, over the engine's own events (`president.engine.events`).  The same event
reads the same at a table and in a replay; a card shown in one (a give, a return, a
hand-over: the replay's record is public) is a count in the other.  No prompt_toolkit
here, so it is tested without a terminal.

`Narrator.line` is a `match` over every event ending in `assert_never`: mypy names this
place when the engine gets a new event (CONTRIBUTING.md, "A new event")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import assert_never

from president.engine import (
    Bombed,
    Card,
    Dealt,
    Discarded,
    Event,
    ExchangeDone,
    Fell,
    GameOver,
    Gave,
    HandedOver,
    HandOver,
    HandStarted,
    Passed,
    Play,
    Played,
    PublicView,
    Returned,
    Rules,
    Skipped,
    Took,
    TrickEnded,
    WentOut,
    judge_for,
)
from president.engine.cards import JOKER_ID, JOKER_RANK, RANK_NAMES
from president.engine.scoring import titles

SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


def card_text(card: Card) -> str:
    if card.rank == JOKER_RANK:
        return "JK"
    return RANKS[card.rank] + SUIT_SYMBOLS[card.suit]


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(card_text(card) for card in cards)


#: A due a play leaves, as a log names it before it is paid.
DUE_NAMES = {"handover": "a hand-over", "discard": "a discard"}


def lock_suits(lock: tuple[int, ...]) -> str:
    """A trick's suit lock as its suits' symbols, once each ("♥♠")."""
    return "".join(SUIT_SYMBOLS[suit] for suit in sorted(set(lock)))


def lock_text(lock: tuple[int, ...]) -> str:
    """A trick's suit lock as its suits' symbols ("locked: ♥♠"), "" when unlocked."""
    return f"locked: {lock_suits(lock)}" if lock else ""


def plural(count: int, word: str) -> str:
    """`count` and `word` as many ("3 cards", "1 card", "2 inaccuracies")."""
    return f"{count} {plural_word(word, count)}"


def plural_word(word: str, count: int) -> str:
    """`word` as `count` of it are called ("inaccuracy", "inaccuracies")."""
    if count == 1:
        return word
    return word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"


def place_text(place: int) -> str:
    """1st, 2nd, 3rd, 4th, ... for a 0-based place."""
    number = place + 1
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


@dataclass(frozen=True)
class Payment:
    """A due paid a card at a time (seven_pass's hand-over, ten_discard's discard) as told
    so far: each card's event, how many cards are still owed, and why the timeout rule
    paid them ("" if their seat did).  A log tells it as one line, `paid`, said again as
    each card comes: a bot's 2-card hand-over read as two moves, one card each."""

    parts: tuple[HandedOver | Discarded, ...]
    owed: int = 0
    timeout: str = ""

    @classmethod
    def of(cls, event: Event, before: PublicView | None, timeout: str = "") -> Payment | None:
        """`event` as the first card of a due, None if it pays none; `before`, the table's
        view before it, says how many cards are owed after it (none when not known)."""
        if isinstance(event, HandedOver):
            seat, kind, size = event.giver, "handover", event.size
        elif isinstance(event, Discarded):
            seat, kind, size = event.seat, "discard", len(event.cards)
        else:
            return None
        due = before.due if before is not None and before.turn == seat else None
        owed = due.size - size if due is not None and due.kind == kind else 0
        return cls((event,), max(0, owed), timeout)

    def then(self, event: Event, timeout: str = "") -> Payment | None:
        """This payment with `event` when it is the next card of the same due (its seat's,
        to the same seat, paid the same way, while cards are still owed); else None."""
        last = self.parts[-1]
        if not self.owed or timeout != self.timeout:
            return None
        if isinstance(last, HandedOver) and isinstance(event, HandedOver):
            same, size = (event.giver, event.receiver) == (last.giver, last.receiver), event.size
        elif isinstance(last, Discarded) and isinstance(event, Discarded):
            same, size = event.seat == last.seat, len(event.cards)
        else:
            return None
        return (
            replace(self, parts=(*self.parts, event), owed=max(0, self.owed - size))
            if same
            else None
        )

    def shown(self, handed: HandedOver) -> Payment:
        """The payment with its last card's cards, now known (a hand-over's sealed hands
        say them to its two seats)."""
        return replace(self, parts=(*self.parts[:-1], handed))

    @property
    def paid(self) -> HandedOver | Discarded:
        """The cards paid so far as one event: a hand-over's cards shown only if each
        card's are (the public face of one hides them all)."""
        first = self.parts[0]
        cards = tuple(card for part in self.parts for card in part.cards)
        if isinstance(first, Discarded):
            return Discarded(first.seat, cards)
        size = sum(part.size for part in self.parts if isinstance(part, HandedOver))
        shown = all(part.cards for part in self.parts)
        return HandedOver(first.giver, first.receiver, size, cards if shown else ())


@dataclass
class Narrator:
    """Says each event of a game in words, naming each seat as it sat in the event's
    hand ("you" for `me`, the verb agreeing).  It remembers what the words need from
    the events before: the hand's seating, the last play, the places taken."""

    #: The name said as "you" ("" in a replay: every seat by its name).
    me: str = ""
    #: The table's rules (None: not known yet; the words that depend on a toggle are
    #: then left out).
    rules: Rules | None = None
    #: The seating of the hand being told: the last `HandStarted`'s (or a view's, for a
    #: screen that came in mid-hand).
    seating: tuple[str, ...] = ()
    #: The last play told: (seat, its cards), for what a `WentOut` or `Skipped` after it
    #: means.
    last_play: tuple[int, tuple[Card, ...]] | None = None
    #: The places taken this hand as told (a screen that came mid-hand sets them).
    placed: set[int] = field(default_factory=set)

    # --- names ------------------------------------------------------------------------

    def who(self, seat: int) -> str:
        if not 0 <= seat < len(self.seating):
            return f"seat {seat}"
        return "you" if self.mine(seat) else self.seating[seat]

    def mine(self, seat: int) -> bool:
        """`seat` is this client's own (by its name in the seating, never by the words
        said: a player named "you", from a server that allows it, is not me)."""
        return bool(self.me) and 0 <= seat < len(self.seating) and self.seating[seat] == self.me

    def says(self, seat: int, third: str, second: str) -> str:
        """`seat` and its verb: "bob plays", "you play"."""
        return f"{self.who(seat)} {second if self.mine(seat) else third}"

    def timed_out(self, seat: int, why: str) -> str:
        """Why the timeout rule moved for `seat`: its time ran out, it was away, it left."""
        if why == "away":
            return self.says(seat, "was away", "were away")
        if why == "left":
            return f"{self.who(seat)} left the table"
        return f"{self.who(seat)} ran out of time"

    def _count_or_cards(self, size: int, cards: tuple[Card, ...]) -> str:
        return cards_text(cards) if cards else plural(size, "card")

    # --- events -----------------------------------------------------------------------

    def line(self, event: Event, before: PublicView | None = None, timeout: str = "") -> str | None:
        """`event` as a line of the log; None for one a log does not tell (a seat's deal,
        the exchange's end).  `before`: the table's view before the event (what a
        revolution or a jack undoes); `timeout`: why the timeout rule made this move for
        its seat ("time", "away", "left"; "" when the seat made it)."""
        match event:
            case HandStarted():
                self.seating = tuple(event.seating)
                self.last_play, self.placed = None, set()
                return f"— hand {event.hand + 1}: {self.says(event.dealer, 'deals', 'deal')} —"
            case Played():
                self.last_play = (event.seat, tuple(event.cards))
                shown = cards_text(event.cards)
                extra = self._on_a_joker(event.cards, before)
                extra += " — clears the pile" if event.clears else ""
                if event.revolution:
                    extra += (
                        " — counter-revolution: ranks back in order"
                        if before is not None and before.revolution
                        else " — REVOLUTION: ranks reversed"
                    )
                extra += self._jack_back(event.cards, before)
                extra += self._direction(event.cards, before)
                if not event.clears:
                    extra += self._lock(event.cards, before)
                extra += self._dues(event.seat, event.cards, before)
                if timeout:
                    return f"{self.timed_out(event.seat, timeout)}: auto-play {shown}{extra}"
                return f"{self.says(event.seat, 'plays', 'play')} {shown}{extra}"
            case Passed():
                if timeout:
                    return f"{self.timed_out(event.seat, timeout)}: auto-pass"
                if event.automatic:
                    return f"{self.says(event.seat, 'cannot', 'cannot')} beat the pile: auto-pass"
                return self.says(event.seat, "passes", "pass")
            case Skipped():
                played = self.last_play
                fives = played is not None and any(
                    c.rank == 2 and c.id != JOKER_ID for c in played[1]
                )
                if self.rules is not None and self.rules.five_skip and fives:
                    return f"{self.says(event.seat, 'is', 'are')} skipped by the 5s"
                return (
                    f"{self.says(event.seat, 'misses', 'miss')} a turn (the same rank was played)"
                )
            case HandedOver():
                moved = self._count_or_cards(event.size, event.cards)
                to = self.who(event.receiver)
                if timeout:
                    return f"{self.timed_out(event.giver, timeout)}: auto-hand-over {moved} to {to}"
                if self.mine(event.receiver):
                    return f"{self.who(event.giver)} hands you {moved}"
                return f"{self.says(event.giver, 'hands', 'hand')} {moved} to {to}"
            case Discarded():
                shown = cards_text(event.cards)
                if timeout:
                    return f"{self.timed_out(event.seat, timeout)}: auto-discard {shown}"
                return f"{self.says(event.seat, 'discards', 'discard')} {shown}"
            case Took():
                shown = cards_text(event.cards)
                auto = f"{self.timed_out(event.seat, timeout)}: auto-" if timeout else ""
                if event.receiver == event.seat:
                    if auto:
                        return f"{auto}take {shown} back from the cards played"
                    took = self.says(event.seat, "takes", "take")
                    return f"{took} {shown} back from the cards played"
                to = self.who(event.receiver)
                if auto:
                    return f"{auto}give {shown} from the cards played to {to}"
                return (
                    f"{self.says(event.seat, 'gives', 'give')} {to} {shown} from the cards played"
                )
            case Bombed():
                rank = RANK_NAMES[event.rank]
                if timeout:
                    return f"{self.timed_out(event.seat, timeout)}: auto-bomb the {rank}s"
                return (
                    f"{self.says(event.seat, 'names', 'name')} the {rank}s (queen bomber):"
                    " everyone still in discards them"
                )
            case Fell():
                self.placed.add(event.place)
                named = titles(self.rules, len(self.seating)) if self.rules and self.seating else []
                title = named[event.place] if event.place < len(named) else place_text(event.place)
                return f"{self.says(event.seat, 'falls', 'fall')} to {title}: capital fall"
            case TrickEnded():
                wins = self.says(event.winner, "wins", "win")
                if event.leader == event.winner:
                    return f"{wins} the trick and {'lead' if wins.startswith('you ') else 'leads'}"
                return (
                    f"{wins} the trick; {self.says(event.leader, 'leads', 'lead')}"
                    f" ({self.who(event.winner)} went out)"
                )
            case WentOut():
                return self._went_out(event)
            case Gave():
                given = self._count_or_cards(event.size, event.cards)
                return f"{self.says(event.giver, 'gives', 'give')} {given} to {self.who(event.receiver)}"
            case Returned():
                back = (
                    f"{self._count_or_cards(event.size, event.cards)} to {self.who(event.receiver)}"
                )
                if timeout:
                    return f"{self.timed_out(event.giver, timeout)}: auto-return {back}"
                if event.automatic:
                    return (
                        f"{self.says(event.giver, 'returns', 'return')} {back} (auto: the lowest)"
                    )
                return f"{self.says(event.giver, 'returns', 'return')} {back}"
            case HandOver():
                points = dict(event.points)
                finish = ", ".join(
                    f"{place}. {self._named(name)}"
                    + (f" +{points[name]}" if points.get(name) else "")
                    for place, name in enumerate(event.finish, 1)
                )
                return f"hand {event.hand + 1} is over: {finish}"
            case GameOver():
                winners = " and ".join(self._named(name) for name in event.winners)
                return f"game over: {winners} won" if winners else "game over"
            case Dealt() | ExchangeDone():
                return None
            case _:
                assert_never(event)

    def _named(self, name: str) -> str:
        return "you" if self.me and name == self.me else name

    def _on_a_joker(self, cards: tuple[Card, ...], before: PublicView | None) -> str:
        """A 3♠ or 2♠ that beats a lone joker by its rule (a pass saw "plays 3♠" on a
        joker, the pile then locked to ♥, and nothing saying why it was allowed)."""
        if self.rules is None or before is None:
            return ""
        reversed_ = before.revolution != before.jack_back
        rule = judge_for(self.rules).beats_a_lone_joker(Play(cards), before.top, reversed_)
        if rule is None:
            return ""
        while_reversed = " while ranks are reversed" if rule == "spade_two_return" else ""
        return f" — {cards_text(cards)} beats a lone joker{while_reversed}"

    def _jack_back(self, cards: tuple[Card, ...], before: PublicView | None) -> str:
        """A play that turns jack back on or off (a natural J, or a set of Js)."""
        if self.rules is None or not self.rules.jack_back:
            return ""
        if Play(cards).rank != 8 and not any(c.rank == 8 and c.id != JOKER_ID for c in cards):
            return ""
        now = before is not None and before.jack_back
        return " — jack back ends: ranks as before" if now else " — JACK BACK: ranks reversed"

    def _lock(self, cards: tuple[Card, ...], before: PublicView | None) -> str:
        """A play that locks the trick to its suits, or lifts the lock (suit_lock: a
        game-night pass held aces and 2s over a king, was told nothing beats the pile, and
        nothing had said the trick was locked)."""
        if self.rules is None or not self.rules.suit_lock or before is None or before.top is None:
            return ""
        lock = judge_for(self.rules).lock_after(Play(cards), before.top, before.lock)
        if lock == before.lock:
            return ""
        if not lock:
            return " — the lock is lifted"
        return f" — locked to {lock_suits(lock)} until the trick ends"

    def _dues(self, seat: int, cards: tuple[Card, ...], before: PublicView | None) -> str:
        """The cards a play leaves its player owing (seven_pass, ten_discard...), unless
        they were its last: said with the play, before the payment's own line."""
        if self.rules is None or before is None or seat >= len(before.counts):
            return ""
        if before.counts[seat] <= len(cards):  # (its last cards: it owes nothing)
            return ""
        out = ""
        for kind, size in judge_for(self.rules).dues_of(Play(cards)):
            what = DUE_NAMES.get(kind)
            if what is not None:
                out += f" — {what} of {plural(size, 'card')} follows"
        return out

    def _direction(self, cards: tuple[Card, ...], before: PublicView | None) -> str:
        """A play that turns the direction of play round (nine_reverse and its kin)."""
        if self.rules is None or not judge_for(self.rules).turns_direction(Play(cards)):
            return ""
        if before is not None and before.backwards:
            return " — play turns clockwise again"
        return " — play turns anticlockwise"

    def _went_out(self, event: WentOut) -> str:
        """Out by playing the last card (or paying a due with it), or left holding cards
        when everyone else is out (the engine places that seat too); a 2 under
        two_finish_penalty, or a forbidden finish, takes the lowest free place."""
        free = [p for p in range(len(self.seating) or 1) if p not in self.placed]
        first_free = free[0] if free else event.place
        self.placed.add(event.place)
        place = f"place {event.place + 1}"
        played, rules = self.last_play, self.rules
        if rules is not None and rules.forbidden_finishes and event.place != first_free:
            return (
                f"{self.says(event.seat, 'goes', 'go')} out on a forbidden finish:"
                f" {place} (the lowest free)"
            )
        if played is None or played[0] != event.seat:
            return f"{self.says(event.seat, 'is', 'are')} left holding cards: {place}"
        if rules is not None and rules.two_finish_penalty and Play(played[1]).rank == 12:
            return f"{self.says(event.seat, 'goes', 'go')} out on a 2: {place} (the lowest free)"
        return f"{self.says(event.seat, 'goes', 'go')} out: {place}"

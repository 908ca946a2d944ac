"""What the table screen shows and what its keys do, as plain Python over the client
model: no prompt_toolkit here, so it is tested without a terminal."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import assert_never

from president.bots.heuristic import pay_due
from president.bots.simple import HeuristicBot
from president.engine import (
    CARDS,
    PASS,
    Action,
    Bomb,
    Bombed,
    Card,
    Discard,
    Discarded,
    Event,
    GameOver,
    Gave,
    HandedOver,
    HandOver,
    Handover,
    HandStarted,
    Passed,
    Phase,
    Play,
    Played,
    PublicView,
    Return,
    Returned,
    SeatView,
    Take,
    Took,
    TrickEnded,
    find_preset,
    judge_for,
    strength,
)
from president.engine.actions import DUE_ACTIONS
from president.engine.cards import JOKER, JOKER_ID
from president.engine.describe import suited, toggle_words
from president.engine.scoring import titles
from president.protocol import messages as m

from ..model import Heard, News, Nudged, Recalled, Said, Sealed, TableModel, Tallied, Viewed
from .fit import PAGE_BREAK, HelpPages, cells, middle_cut, said, shorten, wrap
from .narrator import Narrator, Payment, card_text, cards_text, lock_suits, plural
from .standings import HandResult, said_together, standings

#: The log's note of a connection taken back by itself (said with the hand under way
#: when the table missed nothing meanwhile: a pass read the two lines as one said twice).
RECONNECTED = "— reconnected to your seat —"
#: The lines a hand tells at most of one player going away or coming back.
PRESENCE_LINES = 4
#: Said of a key that acts off my turn; gone when my turn comes (a pass read it under
#: the header's "▶ bob (you)" and a running clock, until esc).
NOT_YOUR_TURN = "it is not your turn"
#: The events of a seat's own moves (made by its player, or for it by the timeout rule).
MOVES = (Played, Passed, Returned, HandedOver, Discarded, Took, Bombed)
#: The lines a hand tells at most of people coming to watch or going.
WATCHER_LINES = 6
#: The turn's hint and enter's answer when no play beats the pile.
NOTHING_BEATS = "nothing you hold beats the pile: p passes"


def nothing_beats(lock: tuple[int, ...]) -> str:
    """`NOTHING_BEATS`, naming the suit lock when the trick has one (a game-night pass
    held aces and 2s over a king locked to ♦ and read the hint as a bug)."""
    if not lock:
        return NOTHING_BEATS
    suits = lock_suits(lock)
    return f"nothing you hold in {suits} beats the pile (the trick is locked to {suits}): p passes"


#: What paying each kind of due is called: (what you owe, what enter then does).
DUE_WORDS = {
    "handover": ("hand over", "hands over"),
    "discard": ("discard", "discards"),
    "salvage": ("take back", "takes back"),
    "march": ("take back", "takes back"),
    "zombie": ("give", "gives"),
    "bomb": ("name", "names"),
}
#: The dues paid from the cards played, not from the hand: while one is owed, the row of
#: my cards shows the cards that may be taken instead (`TableScreen.hand`).
TAKE_DUES = frozenset({"salvage", "march", "zombie"})
#: One card of each rank, 3 to 2: what the row shows while a bomb is owed (its rank).
RANK_CARDS = tuple(CARDS[rank * 4] for rank in range(13))


def _counted(chosen: int, owed: int, what: str, verb: str) -> str:
    """Cards chosen toward what is owed, said as a count: "1 of 3 cards chosen to
    discard: space chooses more", "4 chosen, 3 owed to discard: space takes one back"."""
    if chosen < owed:
        return f"{chosen} of {plural(owed, what)} chosen to {verb}: space chooses more"
    return f"{chosen} chosen, {owed} owed to {verb}: space takes one back"


def short_refusal(problem: str) -> str:
    """The engine's refusal of one chosen card, without what the rest already says, so
    it fits one status line: the pile's set and the trick's size are enough when the
    size is the problem, and the first lead needs no rule name after it."""
    beaten, by, why = problem.partition(" cannot be beaten by ")
    size = why.partition(": ")[2]
    if by and size.startswith("every play in this trick has"):
        return f"{beaten} on the pile: {size}"
    first = " (first_lead = 'three_of_clubs')"
    if problem.endswith(first):
        return problem.removesuffix(first).replace("the 3C", "the 3♣")
    return problem


def suggested(view: SeatView) -> Action | None:
    """What `s` suggests: the normal bot's play (the heuristic's: a set kept whole, a pass
    where it would pass), its return of the exchange, or its payment of a card owed (a
    hand-over, a discard: the least useful card, `suggested_payment`'s first).  None
    with nothing to do."""
    if not view.legal_actions():
        return None
    return HeuristicBot().choose(view)


def suggested_payment(view: SeatView) -> list[Card]:
    """The cards the normal bot pays a hand-over or a discard owed with, as many as owed:
    its choice card by card, each from the hand left after the one before, as it pays
    them one at a time (the lowest cards, as the timeout rule pays, made `s` a play the
    review weighed against the normal bot's: the review pass)."""
    due = view.due
    assert due is not None
    payments = [a for a in view.legal_actions() if isinstance(a, (Handover, Discard))]
    left, chosen = list(view.hand), []
    for _ in range(min(due.size, len(left))):
        options = [a for a in payments if a.cards[0] in left]
        if not options:
            break
        held = [0] * 14
        for card in left:
            held[card.rank] += 1
        payment = pay_due(options, left, held, view.reversed, view.rules)
        assert isinstance(payment, (Handover, Discard))  # (one of `options`)
        paid = payment.cards[0]
        chosen.append(paid)
        left.remove(paid)
    return chosen


def _fitted_name(name: str, width: int | None, around: int) -> str:
    """`name` cut in the middle to the `width` left by `around` columns of words (a
    status line's keys and words stay whole; the name is what gives way)."""
    return name if width is None else middle_cut(name, max(8, width - around))


def _fitted_names(names: list[str], width: int | None, around: int) -> str:
    """`names` joined by "and", each cut in the middle to its share of the room (cut
    whole, two read as one: "佐藤花子と申しま…砂利水魚ボット", a newcomer's pass)."""
    joined = " and ".join(names)
    if width is None or cells(joined) <= width - around:
        return joined
    each = max(6, (width - around - 5 * (len(names) - 1)) // max(1, len(names)))
    return " and ".join(middle_cut(name, each) for name in names)


@dataclass
class TableScreen:
    """The screen's own state: the cursor, the selection, the message line, the log."""

    model: TableModel
    cursor: int = 0
    selected: set[int] = field(default_factory=set)
    message: str = ""
    help: bool = False
    help_pages: HelpPages = field(default_factory=HelpPages, repr=False)
    #: `president play`'s table (a game against bots on this machine): `v` reviews the
    #: game over, and the keys are a lone player's ("q = quit", "r = another game").
    reviewable: bool = False
    #: At a server's table, the server sends a game's record to its players (protocol
    #: 17): `v` asks for it, and its review opens.
    records_sent: bool = False
    #: The moment (`seat_view()`) at which `s` suggested passing: enter then passes, as
    #: it plays a suggested play (at that moment only, with nothing chosen since).
    pass_suggested: SeatView | None = None
    #: Why the server let this screen go for good (its seat taken back by the same key
    #: elsewhere): said on the status line instead of a bare "disconnected".
    gone: str = ""
    #: A message that stays until the next key, not `MESSAGE_SECONDS`, while it is the
    #: one shown (the coach's answer, asked for and read at leisure: it went after 5 s,
    #: the newcomer pass).
    kept_message: str = ""
    #: The status line a nudge of my seat set (gone with my next move, or the timer's).
    nudge_said: str = ""
    #: Whether it was my turn at the last view (None: no view yet), and whether the
    #: table's time ran out on my last turn (the server halves my next one).
    was_my_turn: bool | None = None
    ran_out: bool = False
    #: The status line a short turn of mine set (my moves took long: the server gives
    #: my turns less until quick ones give it back); gone with my move.
    short_said: str = ""
    log: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    connection: str = "connected"
    #: The server said it cannot write its journal: the table is paused, and its clock
    #: with it, until what it holds back comes (a host's pass: the line went after a few
    #: seconds, and the header's clock ran to 0s, a table that looked hung).
    paused: bool = False
    exchange_line: str = ""
    #: What the log shows, oldest first, as (where, style, text): where is "" for every
    #: screen, "narrow" for what a wide screen has in its notes beside the log instead
    #: (the exchange, a hand's summary, the deal's check), "wide" for a line the narrow
    #: screen's summary stands for.
    stream: list[tuple[str, str, str]] = field(default_factory=list)
    #: What of the notes the stream has had: the hand whose exchange, the deal's line.
    exchange_logged: int = -1
    deal_logged: str = ""
    #: The hands whose start this log has (a seat taken back mid-hand has not seen its).
    hands_logged: set[int] = field(default_factory=set)
    #: The table and number of the last event this log told, and the hands it was told
    #: by the server's history of them (joined, watching or back mid-hand).
    told: tuple[str, int] = ("", 0)
    hands_recalled: set[int] = field(default_factory=set)
    hands_back: set[int] = field(default_factory=set)
    recalling: Recalled | None = None
    #: Says each event (it keeps the seating the events being logged refer to: the last
    #: `HandStarted`'s, or the last view's, as a view always follows the events it counts).
    narrator: Narrator = field(default_factory=Narrator)
    #: Where in the model's news this screen is, and the table's view as of there (the
    #: view before the events that come next: what a revolution or a jack undoes).
    seen: int = 0
    before: PublicView | None = None
    #: The ends of the hands seen in this game, and its winners once it is over.
    results: list[HandResult] = field(default_factory=list)
    winners: tuple[str, ...] = ()
    #: The final standings were put away (esc); a new game shows the table again.
    standings_hidden: bool = False
    #: The first line of the final standings shown when they are scrolled, and how many
    #: lines they last showed at once (a page).
    standings_top: int = 0
    standings_page: int = 1
    #: q was pressed during a game: the next key, if q, leaves.
    leave_asked: bool = False
    #: The due paid a card at a time that the log's last event told, and its line: said
    #: again, whole, as each card comes, and with its cards when my sealed hand says
    #: which cards of a hand-over of mine moved.
    paying: Payment | None = None
    paying_line: str = ""
    #: Whether each other person seated here was connected at the last view: a line in
    #: the log when one goes away or comes back (their seat's "away" was all there was).
    present: dict[str, bool] = field(default_factory=dict)
    #: Those lines told of each player this hand (counted afresh at its deal): a few at
    #: most, so that a connection dropped and made again over and over cannot push the
    #: game out of the log.
    presence_told: dict[str, int] = field(default_factory=dict)
    #: Those the log said went away and has not said came back: "back" is told of them
    #: only (after my own reconnection, who is away is learnt afresh, and not told).
    told_away: set[str] = field(default_factory=set)
    #: Who watched at the last view (None before the first), and the log's lines this
    #: hand of people coming to watch or going (a few at most: many watchers coming and
    #: going cannot push the game out of the log; the header counts them).
    watchers_seen: tuple[str, ...] | None = None
    watchers_count: int = 0
    watchers_told: int = 0
    #: Who sat in the chairs at the last view (None before the first), and the log's
    #: lines this hand of people sitting down or leaving (as many as of watchers).
    seated_seen: tuple[str, ...] | None = None
    seated_told: int = 0

    # --- the hand -------------------------------------------------------------------

    def hand(self) -> list[Card]:
        """My cards, lowest first by the current order (a revolution or a jack back
        reverses it); while I owe a take (salvage, kings_march, zombie), the cards played
        that I may take instead, which space and enter then choose from."""
        public = self.model.public
        reverse = bool(public and public.reversed)
        cards = self.taking() or self.model.hand
        return sorted(cards, key=lambda c: (strength(c.rank, reverse), c.suit))

    def cards_coming(self) -> bool:
        """The table's view counts cards in my hand and my sealed hand has not come (the
        view may come a moment before it: back at my seat, or at a deal)."""
        seat, public = self.model.seat, self.model.public
        return (
            seat is not None
            and public is not None
            and bool(public.counts[seat])
            and not self.model.hand
        )

    def taking(self) -> tuple[Card, ...]:
        """The cards played I may take now (a take owed on my turn), or, owing a bomb
        (queen_bomber), one card of each rank to name; else ()."""
        public = self.model.public
        if public is None or public.due is None or not self.model.my_turn:
            return ()
        if public.due.kind == "bomb":
            return RANK_CARDS
        return public.due.cards if public.due.kind in TAKE_DUES else ()

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
        if view.due is not None:  # any cards pay it (of the hand, or of those to take)
            return {card.rank for card in self.hand()}
        ranks: set[int] = set()
        for action in view.legal_actions():
            for card in getattr(action, "cards", ()):
                ranks.add(card.rank)
        return ranks

    def chosen(self) -> list[Card]:
        hand = self.hand()
        return [hand[i] for i in sorted(self.selected) if i < len(hand)]

    def move(self, step: int) -> None:
        count = len(self.hand())
        if count:
            self.cursor = (self.cursor + step) % count

    def toggle(self, index: int | None = None) -> None:
        index = self.cursor if index is None else index
        if index >= len(self.hand()):
            return
        self.cursor = index
        self.selected ^= {index}
        self.pass_suggested = None
        self.message = self.explain() or self._due_chosen()

    def _due_chosen(self) -> str:
        """A due's cards, or a return's, all chosen: so said, with what enter does (""
        otherwise)."""
        view = self.seat_view()
        if view is None or not self.model.my_turn:
            return ""
        if view.due is None:
            owed = view.return_size if view.phase is Phase.EXCHANGE else 0
            chosen = len(self.chosen())
            return (
                f"{plural(owed, 'card')} chosen: enter gives {'it' if owed == 1 else 'them'} back"
                if owed and chosen == owed
                else ""
            )
        what = "rank" if view.due.kind == "bomb" else "card"  # (a bomb: a card for its rank)
        return f"{plural(view.due.size, what)} chosen: enter {DUE_WORDS[view.due.kind][1]}"

    def clear(self) -> None:
        self.selected = set()
        self.pass_suggested = None

    def suggested_pass(self) -> bool:
        """Enter now passes: `s` suggested passing at this very moment, nothing chosen."""
        at = self.pass_suggested
        return at is not None and not self.selected and self.seat_view() == at

    def suggest(self) -> None:
        """Select what `s` suggests (`suggested`): the normal bot's play, return or
        payment of cards owed (`suggested_payment`); for a take or a bomb, the lowest
        cards; a pass said, not made (enter then passes: `suggested_pass`)."""
        view = self.seat_view()
        if view is None or not self.model.my_turn:
            self.message = NOT_YOUR_TURN
            return
        self.pass_suggested, self.message = None, ""
        due = view.due
        if due is not None and due.kind not in ("handover", "discard"):
            # (a take, a bomb: the lowest, as the timeout rule chooses)
            self.selected = set(range(min(due.size, len(self.hand()))))
            return
        if due is not None:
            cards = suggested_payment(view)
        else:
            best = suggested(view)
            if best is None or best is PASS:
                self.selected = set()
                if best is PASS:
                    self.pass_suggested = view
                self.message = (
                    "you have no play: pass (p)"
                    if best is None
                    else "s suggests passing: enter (or p) passes"
                )
                return
            cards = list(best.cards)  # type: ignore[union-attr]  # (a play or a return)
        hand, self.selected = self.hand(), set()
        for card in cards:
            index = next(i for i, c in enumerate(hand) if c == card and i not in self.selected)
            self.selected.add(index)
        # (the newcomer pass: the cards showed chosen while the cursor stayed on another
        # card, and nothing said what s had chosen)
        if self.selected:
            self.cursor = min(self.selected)
            verb = "gives them back" if view.phase is Phase.EXCHANGE else "plays them"
            if due is not None:
                verb = "hands them over" if due.kind == "handover" else "discards them"
            if len(cards) == 1:
                verb = verb.replace("them", "it")
            self.message = f"s suggests {cards_text(sorted(cards))}: enter {verb}"

    def explain(self) -> str | None:
        """Why the selection cannot be sent now, in the engine's words (None if it can)."""
        view = self.seat_view()
        chosen = self.chosen()
        if view is None:
            return "the game is over" if self.game_over() else "wait for the hand to start"
        if not self.model.my_turn:
            return NOT_YOUR_TURN if chosen else None
        if view.due is not None:
            return self._due_problem(view, len(chosen))
        if not chosen:
            beats = (
                view.phase is Phase.EXCHANGE
                or view.top is None
                or any(isinstance(action, Play) for action in view.legal_actions())
            )
            return "choose cards with space, then enter" if beats else nothing_beats(view.lock)
        action = Return(chosen) if view.phase is Phase.EXCHANGE else Play(chosen)
        problem = view.problem(action)
        problem = suited(problem) if problem else problem  # (its cards as the hand shows them)
        if type(action) is Return:
            owed = view.return_size
            if 0 < owed != len(chosen):  # (counted as a due's are: "the return is 2 cards,
                # not 1" read as a refusal while choosing, a newcomer's pass)
                return _counted(len(chosen), owed, "card", "give back")
            return problem
        return short_refusal(problem) if problem and len(chosen) == 1 else problem

    def _due_problem(self, view: SeatView, chosen: int) -> str | None:
        """What choosing a due's cards still needs (None: exactly the cards owed)."""
        due = view.due
        assert due is not None
        verb = DUE_WORDS[due.kind][0]
        if chosen == due.size:
            return None
        what = "rank" if due.kind == "bomb" else "card"  # (a bomb: a card for its rank)
        if not chosen:
            return f"choose {plural(due.size, what)} to {verb} with space, then enter"
        # (a count, not a refusal: "you owe 3 cards to discard, not 1" read as an error
        # after one press of space, a host's pass)
        return _counted(chosen, due.size, what, verb)

    def actions(self) -> list[Play | Return | Handover | Discard | Take | Bomb]:
        """The selection as the actions to send: one play or return; a due's cards one
        at a time, as the engine takes them.  Empty, with `message` saying why, when the
        selection cannot be sent."""
        problem = self.explain()
        if problem is None and not self.chosen():  # (enter off turn with nothing chosen)
            problem = NOT_YOUR_TURN
        if problem:
            self.message = problem
            return []
        view = self.seat_view()
        assert view is not None
        chosen = self.chosen()
        self.selected = set()
        self.message = ""
        if view.due is not None and view.due.kind == "bomb":
            return [Bomb(card.rank) for card in chosen]
        if view.due is not None:  # (one card at a time, in the order the normal bot
            # pays them: a review pass read s's payment, sent in the hand's order, as not
            # the normal bot's choice)
            normal = suggested_payment(view)
            chosen.sort(key=lambda card: normal.index(card) if card in normal else len(normal))
            return [DUE_ACTIONS[view.due.kind]((card,)) for card in chosen]  # type: ignore[arg-type]
        return [Return(chosen) if view.phase is Phase.EXCHANGE else Play(chosen)]

    def pass_problem(self) -> str | None:
        """Why `p` cannot pass now (None if it can)."""
        view = self.seat_view()
        if self.model.slot is None:
            return "you are watching"
        if self.game_over():
            return "the game is over"
        if view is None or not self.model.my_turn:
            return NOT_YOUR_TURN
        if view.phase is Phase.EXCHANGE:
            return "no passing in the exchange: choose the cards to give back, then enter"
        if view.due is not None:
            verb = DUE_WORDS[view.due.kind][0]
            return f"no passing: you owe {plural(view.due.size, 'card')} to {verb} first"
        if PASS in view.legal_actions():
            return None
        if view.top is None:
            return "the leader may not pass: lead any card or set"
        return "you hold a play that beats the pile, so you may not pass (must_beat)"

    # --- what happened --------------------------------------------------------------

    def name_of(self, seat: int) -> str:
        """Who sits in `seat` of the table as last seen ("you" for me)."""
        public = self.model.public
        return self._named(seat, public.seating if public is not None else ())

    def _named(self, seat: int, seating: tuple[str, ...]) -> str:
        if not 0 <= seat < len(seating):
            return f"seat {seat}"
        name = seating[seat]
        return "you" if name == self.model.me else name

    def who(self, seat: int) -> str:
        """Who `seat` was in the hand the event being logged belongs to (seats change
        between hands: the new hand's events come before the view that shows it)."""
        return self._narrator().who(seat)

    def _narrator(self) -> Narrator:
        """The narrator, told who "you" are and the table's rules as they are now."""
        narrator, public = self.narrator, self.model.public
        narrator.me, narrator.rules = self.model.me, self.model.rules()
        if not narrator.seating and public is not None:
            narrator.seating = public.seating
        return narrator

    def record(self, message: m.Message) -> list[News]:
        """After a server message (the model has taken it): what the model now says
        happened (returned), and the server's refusal of what this screen sent, if it is
        one."""
        if isinstance(message, m.Error) and "leaderboard" not in message.message:
            self.message = message.message  # (an older server: no ratings shown)
            if message.code == "server_error" and "paused" in message.message and not self.paused:
                self.paused = True
                self._add(f"— {message.message} —", "class:dim")
        news = self.catch_up()
        if self.paused and news:  # (what the table held back: it goes on)
            self.paused = False
            self._add("— the server writes again: the table goes on —", "class:dim")
        return news

    def catch_up(self) -> list[News]:
        """Tell what the model heard since this screen last looked (all of it for a screen
        opened late: the table's after the lobby's had the seat's snapshot), in order, in
        the engine's terms.  Returns it."""
        deal = self.deal_line()
        if deal != self.deal_logged:  # the deal's check, when it comes
            self.deal_logged = deal  # ("" once a new game's commit forgot the last game's)
            if deal:
                self._add(deal, "class:dim", "narrow")
        news, self.seen = self.model.news_since(self.seen)
        for item in news:
            match item:
                case Heard():
                    self.told = (self.model.name, max(self.told[1], item.number))
                    self.heard(item.event, item.timeout)
                case Recalled():  # told with the view that follows it (its seats, rules)
                    self.recalling = item
                case Tallied():
                    self.tallied(item)
                case Viewed():
                    self.presence()
                    self.viewed(item.public)
                    if self.recalling is not None:
                        self.recalled(self.recalling)
                        self.recalling = None
                    self.turn_looked()
                case Sealed():
                    self.sealed(item.reason, item.seat)
                case Said():
                    self._add(said(item.sender, item.text))
                case Nudged():
                    self.nudged(item)
                case _:
                    assert_never(item)
        del self.log[:-200]
        del self.stream[:-300]
        return news

    def viewed(self, public: PublicView | None) -> None:
        """A new view of the table (after the events it counts)."""
        self.before = public
        over = public is None or public.phase not in (Phase.PLAY, Phase.EXCHANGE)
        if self.message == NOT_YOUR_TURN and (self.model.my_turn or over):
            self.message = ""  # (over too: a terminal pass saw it under a game's end)
        if public is not None:
            self.narrator.seating = public.seating
            self.narrator.placed = {place for place in public.places if place is not None}
            done = public.phase is not Phase.EXCHANGE and public.hand_number >= 0
            if done and self.exchange_line and self.exchange_logged != public.hand_number:
                self.exchange_logged = public.hand_number  # once, when it is over
                self._add(self.exchange_line, "class:message", "narrow")
        shown = len(self.hand())  # (my cards, or the cards played I may take)
        if self.cursor >= max(1, shown):
            self.cursor = max(0, shown - 1)

    def turn_looked(self) -> None:
        """A view, and the hand so far if it came with one: whether my turn began (the
        first view too: back mid-turn, the hand's moves told before, a recheck: my own
        moves in them took the line away)."""
        mine = self.model.my_turn
        if mine and not self.was_my_turn:
            self.turn_began()
        self.was_my_turn = mine

    def turn_began(self) -> None:
        """My turn, as a view says: if it has less than the table's turn time (the server
        takes what my last moves took beyond half of it off my next turns), the
        status line says why, until I move.  Not after my time ran out: that message
        says it."""
        table, view = self.model.table, self.seat_view()
        ran_out, self.ran_out = self.ran_out, False
        if table is None or not table.turn_seconds or not table.turn_whole or ran_out:
            return
        if view is not None and view.due is not None:
            return  # (a due's line says what to pay and its keys; the header, the time)
        whole, full = int(table.turn_whole + 0.999), table.turn_seconds  # (as the header)
        if whole < full:
            self.short_said = (
                f"{whole}s this turn, not {full}s: your moves took long (quick ones give time back)"
            )
            self.message = self.kept_message = self.short_said

    def presence(self) -> None:
        """Who of the others seated here went away (their connection dropped, or they
        left) or came back since the last view: a line each in the log."""
        table, me = self.model.table, self.model.me
        chairs = table.chairs if table is not None else ()
        now = {c.name: c.connected for c in chairs if c.name and not c.bot and c.name != me}
        for name, connected in now.items():
            told = self.presence_told.get(name, 0)
            if self.present.get(name, connected) == connected or told >= PRESENCE_LINES:
                continue
            if connected:
                if name not in self.told_away:
                    continue  # (its going was not told: nor is its coming back)
                self.told_away.discard(name)
            else:
                self.told_away.add(name)
            self.presence_told[name] = told + 1
            line = f"— {name} is {'back' if connected else 'away'} —"
            if told + 1 == PRESENCE_LINES:  # (the last: it would say "back" while away)
                line += " (no more of these this hand: the seats show it)"
            self._add(line)
        self.present = now
        self.sat()
        self.watched()

    def sat(self) -> None:
        """Who sat down in a chair here or left it since the last view: a line each in
        the log, a few a hand (a newcomer's pass: nothing said who had sat down)."""
        table, me = self.model.table, self.model.me
        if table is None:
            return
        now = tuple(c.name for c in table.chairs if c.name and c.name != me)
        before, self.seated_seen = self.seated_seen, now
        if before is None:  # (the first view: the seats show who is there)
            return
        lines = [f"— {n} sat down —" for n in now if n not in before]
        # (freed for holding the table up, or gone while holding it: a recheck read only
        # "left the table", and the chair then stood empty for a while, unexplained)
        kept = table.kept_seconds(time.monotonic())
        why = f": the chair is kept {kept} s for a bot" if kept else ""
        lines += [f"— {n} left the table{why} —" for n in before if n not in now]
        self.seated_told = self._tell_few(lines, self.seated_told)

    def _tell_few(self, lines: list[str], told: int) -> int:
        """`lines` in the log, up to `WATCHER_LINES` a hand with the `told` before them,
        the last saying no more will come (the header may have no room to count); the
        count told now."""
        for line in lines[: max(0, WATCHER_LINES - told)]:
            told += 1
            if told == WATCHER_LINES:
                line = line.removesuffix(" —") + " (no more of these this hand) —"
            self._add(line, "class:dim")
        return told

    def watched(self) -> None:
        """Who came to watch the table or stopped since the last view (protocol 14): a
        line each in the log, a few a hand; on the first view, who watches already."""
        table, me = self.model.table, self.model.me
        if table is None:
            return
        now = tuple(name for name in table.watching if name != me)
        before, self.watchers_seen = self.watchers_seen, now
        old_count, self.watchers_count = self.watchers_count, table.watchers
        if before is None:
            if now:
                more = table.watchers - len(table.watching)
                others = f" and {more} more" if more > 0 else ""
                self._add(f"— watching: {', '.join(now)}{others} —", "class:dim")
            return
        gone = [n for n in before if n not in now]
        # (past the twelve named, one going names the next already there: only as many
        # newly named as came, the newest, are told as coming, a review)
        came = max(0, table.watchers - old_count + len(gone))
        named = [n for n in now if n not in before]
        lines = [f"— {n} is watching —" for n in named[len(named) - came :]] if came else []
        lines += [f"— {n} stopped watching —" for n in gone]
        self.watchers_told = self._tell_few(lines, self.watchers_told)

    def tallied(self, results: Tallied) -> None:
        """The game's ended hands, as the server told them with a snapshot: the results
        the standings read (in place of what this screen saw: it may have missed hands,
        or seen another game's), and in the log each end it had not told."""
        told = set(self.results)
        self.winners = ()  # (another game's, perhaps: the view's are the game's own)
        self.results = [
            HandResult(hand.hand, hand.finish, tuple(points for _, points in hand.points))
            for hand in results.hands
        ]
        missed = [h for h, r in zip(results.hands, self.results, strict=True) if r not in told]
        if missed:
            self._add("— the game so far —", "class:dim")
        for hand in missed:
            self._add(self._narrator().line(hand, None) or "", "class:dim")

    def recalled(self, history: Recalled) -> None:
        """The hand so far, as the server told it with a snapshot: each event this log
        has not told yet, in its words (an event it told before losing touch is only
        followed, for what the words after it need).  What a revolution or a jack back
        undoes is followed from the events, the view before each not being known."""
        table, last = self.told if self.told[0] == history.table else (history.table, 0)
        now, rules = self.before, self.model.rules()
        revolution = jack_back = backwards = False
        judge = judge_for(rules) if rules is not None else None
        for item in history.heard:
            event = item.event
            before = (
                now._replace(revolution=revolution, jack_back=jack_back, backwards=backwards)
                if now
                else None
            )
            if item.number > last:
                self.before = before
                self.heard(event, item.timeout)
                last = item.number
            else:
                self._narrator().line(event, before, item.timeout)
            if isinstance(event, Played):
                revolution ^= event.revolution
                jacks = any(c.rank == 8 and c.id != JOKER_ID for c in event.cards)
                jack_back ^= bool(rules and rules.jack_back and jacks)
                backwards ^= bool(judge and judge.turns_direction(Play(event.cards)))
            elif isinstance(event, TrickEnded):
                jack_back = False
        self.before, self.told = now, (table, last)
        self.hands_recalled.add(history.hand)

    def sealed(self, reason: str, seat: int | None) -> None:
        """My hand sealed to me again: a choice is positions in the hand, so it goes."""
        self.selected, self.cursor = set(), 0
        if reason == "snapshot":
            self.joined_mid_hand()
        if reason == "handover" and seat is not None:
            self._handed_cards(seat)
        elif reason == "snapshot":  # (my part of this hand's exchange comes with my cards)
            self.exchange_line = self.exchanged(seat)
            self.viewed(self.model.public)  # told now if the exchange is over, and not yet
        elif reason != "handover":
            self.exchange_line = self.exchanged(seat) if reason == "exchange" else ""
            gave, got = self._exchange_of(seat)
            if reason == "exchange" and got and not gave:
                # a return owed: what came, in the log now where no notes panel shows it
                # (a pass at 60x16 chose its return not told what it had been given)
                self._add(self.exchange_line, "class:message", "narrow")

    def joined_mid_hand(self) -> None:
        """Seated at a hand under way whose start this log has not seen (a client started
        again, taking its seat back): a line saying why the log starts there."""
        public = self.model.public
        if public is None or public.hand_number < 0 or self.model.seat is None:
            return
        if public.phase not in (Phase.EXCHANGE, Phase.PLAY):
            return
        hand = public.hand_number
        if hand in self.hands_recalled and hand not in self.hands_back:
            self.hands_back.add(hand)
            if self.log and self.log[-1] == RECONNECTED:  # (nothing missed: one line)
                self._say_instead(
                    RECONNECTED, f"{RECONNECTED[:-2]}: hand {hand + 1} under way —", "class:dim"
                )
            else:
                self._add(f"— hand {hand + 1} under way: you are back at your seat —", "class:dim")
        if hand in self.hands_logged:
            return
        self.hands_logged.add(hand)
        self._add(
            f"— hand {hand + 1} under way: you are back at your seat "
            "(what was played before is not in this log) —",
            "class:dim",
        )

    def _handed_cards(self, me: int) -> None:
        """My sealed hand after a hand-over says which cards moved: my line of it, logged
        with the count only, is said again with the cards (nobody else sees them)."""
        payment, handed = self.paying, self.model.handed
        if payment is None or not handed or me not in (handed[-1].giver, handed[-1].receiver):
            return
        last = payment.parts[-1]
        if not isinstance(last, HandedOver) or last.cards or last[:3] != handed[-1][:3]:
            return
        self.paying = payment.shown(handed[-1])
        self._retell(self._narrator().line(self.paying.paid, None, payment.timeout) or "")

    def _retell(self, line: str) -> None:
        """The due being paid said again in `line`, in place of its line in the log (at
        the end if that line is gone)."""
        told, self.paying_line = self.paying_line, line
        if not self._say_instead(told, line):
            self._add(line)

    def _say_instead(self, told: str, line: str, style: str = "") -> bool:
        """`line` in place of the last `told` in the log (of that style); False if it is
        not there any more."""
        for index in range(len(self.log) - 1, -1, -1):
            if self.log[index] == told:
                self.log[index] = line
                break
        else:
            return False
        for index in range(len(self.stream) - 1, -1, -1):
            if self.stream[index] == ("", style, told):
                self.stream[index] = ("", style, line)
                break
        return True

    def note(self, line: str) -> None:
        """A line of the client's own in the log (not the table's: the connection's)."""
        self._add(line, "class:dim")

    def reconnected(self, seated: bool) -> None:
        """My connection is back (`RECONNECTED` in the log): who is here is learnt afresh
        from the next view, and not told. After a server's restart everyone was "away"
        until their client came back too: a pass's log said "— bob is away —" of each,
        then "is back", when it was the server that had gone."""
        self.present, self.told_away = {}, set()
        self.note(RECONNECTED if seated else "— reconnected: watching —")

    def _add(self, line: str, style: str = "", where: str = "") -> None:
        """A line for the log: an event or a chat line (`where` ""), or a note."""
        if not where:
            self.log.append(line)
        self.stream.append((where, style, line))

    def nudged(self, nudge: Nudged) -> None:
        """Someone hurried the seats owing a move, at a table with no turn timer: said in
        the log, and on the status line to a player hurried."""
        me = self.model.seat
        names = [self.name_of(seat) for seat in nudge.seats]
        mine = nudge.by == self.model.me
        by, verb = ("you", "nudge") if mine else (nudge.by, "nudges")
        them = "you" if me is not None and list(nudge.seats) == [me] else "them"
        line = (
            f"{by} {verb} {said_together(names)}: {nudge.seconds}s, then the table moves for {them}"
        )
        self._add(line, "class:message" if me in nudge.seats else "")
        if me in nudge.seats:  # (kept until a key or a move: the header's clock is easy to miss)
            # (no count of its own: "60s to move" stood still beside the header's clock
            # counting down, a host's pass)
            self.nudge_said = f"{by} {verb} you: move before the header's ⏱ runs out"
            self.message = self.kept_message = self.nudge_said

    def heard(self, event: Event, timeout: str = "") -> None:
        """An event of the table (the engine's public face of it, as the model keeps it;
        `timeout`: why the timeout rule made the move, if it did): its line in the log,
        and what the screen keeps of it."""
        if isinstance(event, Played) and event.seat == self.model.seat:
            self.selected = set()
        mine = getattr(event, "seat", getattr(event, "giver", None)) == self.model.seat
        if mine and self.kept_message and self.kept_message in (self.nudge_said, self.short_said):
            # (moved, or moved for: the nudge, or the short turn, is over)
            self.message = self.kept_message = ""
        if mine and isinstance(event, MOVES):  # (my next turn is halved after a time
            self.ran_out = timeout == "time"  # run out: the message below says so)
            # (a move of mine ends my turn: one the view gives me again is a new turn
            # with its own clock, an 8's clear's lead, a recheck: its short time was
            # not said)
            self.was_my_turn = False
        if isinstance(event, HandStarted):
            if event.hand == 0 and self.results:
                self._add("— a new game —")  # another game at the same table
            self.hands_logged.add(event.hand)
            self.summary, self.message, self.presence_told = [], "", {}
            self.watchers_told = self.seated_told = 0
            if event.hand == 0:  # a new game
                self.results, self.winners, self.standings_hidden = [], (), False
                self.standings_top = 0
                # (the log showed the rules until the game began, then they were nowhere
                # on a narrow screen, which has no notes box: a pass at 80x24)
                for rules in self.rules_lines():
                    self._add(rules, "class:dim", "narrow")
        paying = self.paying.then(event, timeout) if self.paying is not None else None
        if paying is not None:  # the next card of a due: its line says the whole due
            self.paying = paying
            self._retell(self._narrator().line(paying.paid, self.before, timeout) or "")
            return
        line = self._narrator().line(event, self.before, timeout)
        self.paying = Payment.of(event, self.before, timeout)
        self.paying_line = line or ""
        if mine and timeout == "time" and self.model.slot is not None and not self.nudge_said:
            # (not after a nudge: a table with no turn timer halves nothing, a review)
            # (the server halves a seat's next turn while its time keeps running out with
            # its person here, until the person moves: said where that person looks)
            self.message = (
                "your time ran out and the table moved for you: move yourself, or your next"
                " turns get less time"
            )
        if isinstance(event, HandOver):
            self.results = [r for r in self.results if r.hand != event.hand]
            gained = dict(event.points)
            by_place = tuple(gained.get(name, 0) for name in event.finish)
            self.results.append(HandResult(event.hand, event.finish, by_place))
            self.summary = self.hand_summary(event)
        elif isinstance(event, GameOver):
            self.winners = tuple(event.winners)
            winners = " and ".join(event.winners)
            again = ", r: ready for another game" if self.model.slot is not None else ""
            review = ", v: its review" if self.can_review() else ""
            self.summary = [
                f"GAME OVER — {winners} won!" if winners else "GAME OVER",
                f"q leaves{again}{review}",
            ]
        if line and isinstance(event, HandOver):
            self.log.append(line)
            self.stream.append(("wide", "", line))
            self.stream += [("narrow", "", text) for text in self.summary]
        elif line:
            self._add(line)

    def hand_summary(self, event: HandOver) -> list[str]:
        """Between hands: each place with its name, title and points (short lines, but
        whole names: the log and the notes wrap them)."""
        rules = self.model.rules()
        named = titles(rules, len(event.finish)) if rules else [""] * len(event.finish)
        lines = [f"hand {event.hand + 1} is over:"]  # (not "hand over": a 7's due is that)
        gained = dict(event.points)
        for place, (name, title) in enumerate(zip(event.finish, named), 1):
            you = " (you)" if name == self.model.me else ""
            gain = gained.get(name, 0)
            points = f", +{gain}" if gain else ""
            lines.append(f" {place}. {name}{you}: {title}{points}")  # the notes wrap it
        return lines

    # --- what the keys do now ---------------------------------------------------------

    def status_line(self, width: int | None = None) -> tuple[str, str]:
        """(style, text) for the status line: what is true now and which keys do
        something now (a key the screen would refuse is not offered).  In `width`
        columns a name in it is cut first, so the keys stay."""
        model, message = self.model, self.message
        table, public = model.table, model.public
        if self.connection == "disconnected" and self.gone:  # (before any message: a
            # host's pass read "not sent: the connection is down", and a nudge's line, for
            # 15 s before why: the seat was taken back from another window)
            return "class:message", f" {self.gone}: q leaves"
        if message:
            return "class:message", f" {message}"
        if self.connection == "disconnected":
            return "class:message", f" {self.gone or 'disconnected from the server'}: q leaves"
        if self.connection != "connected":  # reconnecting: nothing sent gets there now
            return "class:message", f" {self.connection} ..."
        if table is None:
            return "class:dim", " waiting for the table ..."
        seated = model.slot is not None
        if public is None or table.status != "playing" or public.phase is Phase.GAME_OVER:
            return self._between_games(seated, width)
        if not seated:
            return "class:dim", " watching (q leaves)"
        seat = model.seat
        if seat is None:
            if any(model.me in result.finish for result in self.results):
                # (in this game's ended hands before: a game-night pass, back after the
                # grace, watched its last hand told only "you play from the next hand")
                return "class:dim", (
                    " your seat in this game was given up: you sit in again from the next"
                    " hand, from 0 points (q leaves)"
                )
            return "class:dim", " you play from the next hand: watching this one (q leaves)"
        if public.phase is Phase.BETWEEN_HANDS:
            return "class:dim", " the next hand is being dealt ..."
        if self.cards_coming():
            return "class:dim", " your cards are coming ..."
        if public.phase is Phase.EXCHANGE:
            return self._exchange_status(seat, width)
        place = public.places[seat]
        if place is not None and public.counts[seat]:
            return "class:dim", f" you fell to place {place + 1} (capital fall): the others play on"
        if place is not None:
            return "class:dim", f" you are out (place {place + 1}): the others play on"
        if public.turn == seat:
            return self._turn_status(width)
        turn = self.name_of(public.turn) if public.turn is not None else "the others"
        if public.locked[seat]:
            said = " you passed: out of this trick ({} to play)"
        else:
            said = " {} to play ..."
        return "class:dim", said.format(_fitted_name(turn, width, len(said) - 2))

    def _between_games(self, seated: bool, width: int | None = None) -> tuple[str, str]:
        table, public = self.model.table, self.model.public
        assert table is not None
        if table.status == "playing":
            if public is None:
                return "class:dim", " the game begins: the first hand is being dealt ..."
            return "class:dim", " the game is over: the table is closing it ..."
        if not seated:
            if table.status == "finished":
                return "class:dim", " watching: the game is over (q leaves)"
            return "class:dim", " watching: the game starts when every seat is ready"
        bot = ", b = add a bot" if table.has_empty_chair else ""
        mine = table.chair_of(self.model.me)
        ready = "r = not ready" if mine is not None and mine.ready else "r = ready"
        kept = table.kept_seconds(time.monotonic()) if bot else 0
        if kept:  # (a newcomer from another machine is refused meanwhile: say why the
            # chair stays empty, and for how long, while its key is what matters now)
            long = f" the free chair is kept {kept} s for a bot: b = add one, {ready}, q = leave"
            short = f" chair kept {kept} s: b = add a bot, {ready}, q = leave"
            return "class:turn", long if width is None or len(long) <= width else short
        if public is None:
            return "class:turn", f" before the game: {ready}{bot}, q = leave"
        over = "game over" if table.status == "finished" else "the game stopped"
        shown = ", esc = standings" if self.game_over() and self.standings_hidden else ""
        review = "v = review, " if self.can_review() and self.game_ended() else ""
        if self.reviewable:  # (`president play`: its help's words, a newcomer's pass)
            ready, leave = "r = another game", "q = quit"
        else:
            leave = "q = leave"
        return "class:turn", f" {over}: {review}{ready}{bot}, {leave}{shown}"

    def _exchange_status(self, seat: int, width: int | None) -> tuple[str, str]:
        public = self.model.public
        assert public is not None
        owed = dict(public.owed)
        if seat in owed:
            givers = [
                e.giver for e in self.model.exchange if isinstance(e, Gave) and e.receiver == seat
            ]
            size = owed[seat]
            keys = f" space chooses, enter gives back {size} card{'s' if size != 1 else ''}"
            name = self.name_of(givers[0]) if givers else ""
            suggests = keys.replace(", enter", ", s suggests, enter", 1)
            if width is None or len(suggests) + len(" to ") + cells(name) <= width:
                keys = suggests  # (where the giver's name stays whole)
            room = cells(name) if width is None else width - len(keys) - len(" to ")
            to = f" to {middle_cut(name, room)}" if name and min(room, cells(name)) >= 3 else ""
            return "class:turn", keys + to
        names = [self.name_of(s) for s in owed]
        said = " the exchange: waiting for {} to return cards ..."
        return "class:dim", said.format(_fitted_names(names, width, len(said) - 2))

    def _turn_status(self, width: int | None = None) -> tuple[str, str]:
        view = self.seat_view()
        assert view is not None
        if view.due is not None:
            return "class:turn", self._due_status(view, width)
        actions = view.legal_actions()
        plays = [a for a in actions if isinstance(a, Play)]
        chosen = self.chosen()
        if chosen and Play(tuple(chosen)) in plays:  # (said in words too: reverse video
            # alone, a newcomer's pass, is not seen in every terminal nor read by a screen
            # reader; only a choice enter would play: a review)
            them = "them" if len(chosen) > 1 else "it"
            said = f" your turn: {cards_text(chosen)} chosen: enter plays {them}, space unchooses"
            if width is None or cells(said) <= width:
                return "class:turn", said
            return "class:turn", f" {cards_text(chosen)} chosen: enter plays"
        if view.top is None:
            if view.opening:
                return (
                    "class:turn",
                    " your turn to lead with the 3♣: space chooses, enter plays",
                )
            return "class:turn", " your turn to lead: space chooses, enter plays, s suggests"
        if not plays:
            said = f" your turn: {nothing_beats(view.lock)}"
            if view.lock and width is not None and cells(said) > width:
                said = f" locked to {lock_suits(view.lock)}: nothing you hold beats it: p passes"
            return "class:turn", said
        if PASS not in actions:
            return "class:turn", " your turn, must beat the pile: space chooses, enter plays"
        return "class:turn", " your turn: space chooses, enter plays, p passes, s suggests"

    def receiver(self, seat: int) -> int | None:
        """The seat a hand-over from `seat` goes to: the next one holding cards, in the
        direction of play (the engine's answer)."""
        public = self.model.public
        return None if public is None else public.next_holding(seat)

    def _due_status(self, view: SeatView, width: int | None) -> str:
        """The due I owe, with its keys: "hand over 2 cards to bob: space chooses, enter
        hands over" (the name cut first when the line is narrow)."""
        due = view.due
        assert due is not None
        verb, does = DUE_WORDS[due.kind]
        keys = plain = f": space chooses, enter {does}"
        owed = f" {verb} {plural(due.size, 'card')}"
        if due.kind in ("handover", "discard"):  # (s chooses the lowest, as the timeout rule)
            keys = f": space chooses, s suggests, enter {does}"
        if due.kind == "bomb":
            # (the row above shows a card of each rank; its box says so)
            return f" name {plural(due.size, 'rank')} for all to discard" + keys
        if due.kind in TAKE_DUES:  # (the row of cards shows the cards played to take)
            owed += " of the cards played (shown above)"
            if due.kind != "zombie":
                return owed + keys
        receiver = self.receiver(view.seat) if due.kind in ("handover", "zombie") else None
        if receiver is None:
            return owed + (keys if width is None or len(owed) + len(keys) <= width else plain)
        name = self.name_of(receiver)
        if width is not None:  # the receiver's name whole before the keys' words; else cut
            short = ": space, enter"
            whole = [k for k in (keys, plain, short) if cells(owed + " to " + name + k) <= width]
            keys = whole[0] if whole else plain
        room = cells(name) if width is None else width - cells(owed) - len(keys) - len(" to ")
        to = f" to {middle_cut(name, room)}" if min(room, cells(name)) >= 3 else ""
        return owed + to + keys

    # --- the end of the game ----------------------------------------------------------

    def can_review(self) -> bool:
        """Whether `v` reviews a game over here: `president play`'s, or a server's that
        sends its record to the players (protocol 17), seated here."""
        return self.reviewable or (self.records_sent and self.model.slot is not None)

    def game_ended(self) -> bool:
        """Whether the game here has ended: over, or stopped (too few players left: the
        table waits again, the game's last view still held); its record is written."""
        table = self.model.table
        stopped = table is not None and table.status == "waiting" and self.model.public is not None
        return self.game_over() or stopped

    def game_over(self) -> bool:
        public = self.model.public
        return public is not None and public.phase is Phase.GAME_OVER

    def standings(self, width: int = 60, height: int | None = None) -> list[str]:
        """The final standings as lines of at most `width` characters (empty while no
        game is over), then what the keys do now.  In fewer than `height` rows the blank
        lines go first, then the keys (the status line says them too); if they still do
        not fit, the rows show them from `standings_top` on, the last row saying that
        more is below or above and which key shows it."""
        public = self.model.public
        if public is None or public.phase is not Phase.GAME_OVER:
            return []
        lines = standings(
            self.model.rules(),
            self.results,
            self.winners or public.winners,
            dict(public.scores),
            public.hands_played,
            self.last_finish(),
            width,
        )
        again = "r: ready for another game · " if self.model.slot is not None else ""
        review = "v: its review · " if self.can_review() else ""
        leave = "q: quit · r: another game · " if self.reviewable else f"q: leave · {again}"
        keys = shorten(f"{review}{leave}esc: the table", width, (" · ",))
        out = [*lines, "", keys]
        if height is not None and len(out) > height:
            out = [line for line in out if line.strip()]
        if height is not None and len(out) > height:
            out = out[:-1]
        if height is None or len(out) <= height:
            return out
        if height <= 1:  # no room for the hint
            self.standings_page = 1
            self.standings_top = max(0, min(self.standings_top, len(out) - 1))
            return out[self.standings_top : self.standings_top + 1]
        page = height - 1
        top = self.standings_top = max(0, min(self.standings_top, len(out) - page))
        self.standings_page = page
        above, below = top > 0, top + page < len(out)
        arrows = ("↑" if above else "") + ("↓" if below else "")
        keys = "/".join(key for key, more in (("PgUp", above), ("PgDn", below)) if more)
        return [*out[top : top + page], f"{arrows} more: {keys}"[:width]]

    def scroll_standings(self, lines: int) -> None:
        """Down (positive) or up (negative) the final standings; clamped when drawn."""
        self.standings_top = max(0, self.standings_top + lines)

    def last_finish(self) -> tuple[str, ...]:
        """Names by place in the hand that ended last (`PublicView.last_finish`)."""
        public = self.model.public
        return () if public is None else public.last_finish()

    def exchanged(self, me: int | None = None) -> str:
        """What my exchange did to my hand: the cards I gave and the cards I got (`me`:
        my seat in this hand, as the sealed hand says; by default the view's)."""
        gave, got = self._exchange_of(me)
        if not gave and not got:
            return ""

        def shown(cards: list[Card]) -> str:
            return " ".join(card_text(c) for c in sorted(cards))

        if gave and got:
            return f"exchange: you gave {shown(gave)}; you got {shown(got)}"
        if got:  # a forced give came to me: my return is owed
            return f"exchange: you got {shown(got)}; you give {len(got)} back"
        back = f"{len(gave)} {'comes' if len(gave) == 1 else 'come'} back"
        return f"exchange: you gave {shown(gave)}; {back} after the return"

    def _exchange_of(self, me: int | None = None) -> tuple[list[Card], list[Card]]:
        """The cards I gave and the cards I got in this hand's exchange (`me`: my seat in
        this hand; by default the view's)."""
        me = self.model.seat if me is None else me
        gave = [c for e in self.model.exchange if e.giver == me for c in e.cards]
        got = [c for e in self.model.exchange if e.receiver == me for c in e.cards]
        return gave, got

    def rules_lines(self) -> list[str]:
        """The table's rules: the preset, and each changed toggle in words."""
        table, rules = self.model.table, self.model.rules()
        if table is None or rules is None:
            return []
        preset, changed = table.preset, table.changed
        return [f"rules: {preset}" + (", changed:" if changed else " (see president rules)")] + [
            f"• {suited(toggle_words(name, getattr(rules, name), rules))}" for name in changed
        ]

    def rules_help(self, width: int) -> list[str]:
        """The table's rules for the help overlay, on a page of their own: each house rule
        in words (what differs from classic), and how the game ends (a newcomer's pass:
        `?` listed only keys, and an 8 played on a single ace under daifugo surprised).
        None before the table's rules are known."""
        table, rules = self.model.table, self.model.rules()
        if table is None or rules is None:
            return []
        names = list(rules.changes_from(find_preset("classic")))
        if "scoring" not in names:
            names.append("scoring")
        changed = " (changed)" if table.changed else ""
        out = [PAGE_BREAK, f" the rules here: {table.preset}{changed}"]
        for name in names:
            text = suited(toggle_words(name, getattr(rules, name), rules))
            if name == "jokers" and rules.jokers:  # (a newcomer's pass: "you gave JK")
                text += f" (written {card_text(JOKER)})"
            lines = wrap(text, max(8, width - 4))
            out += ["  • " + lines[0], *("    " + line for line in lines[1:])]
        return [*out, f" (president rules {table.preset} says every rule)"]

    def deal_line(self) -> str:
        results = self.model.deal_results
        missed = max(self.model.deals_missed, default=-1)
        if missed > max(results, default=-1):
            return (
                f"fair deal of hand {missed + 1}: not checked (dealt before this client was here)"
            )
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
        table = self.model.table
        return None if table is None else table.seconds_left(time.monotonic())

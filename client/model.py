"""What a client knows of its table, updated from protocol messages; separate from any
screen.  It holds the engine's own values (`protocol.wire` maps the messages back): the
table's `PublicView` and this seat's cards and part of the exchange, so `seat_view()`
is `SeatView.of` over them: the very view `Game.view_for` gives, and a bot chooses
online exactly as it does offline."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypeVar

from president.engine import (
    Card,
    Event,
    Gave,
    HandedOver,
    HandOver,
    HandStarted,
    Pass,
    Phase,
    Play,
    PublicView,
    Returned,
    Rules,
    SeatView,
    moves_seen,
)
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.errors import Code, RemoteProtocolError


@dataclass(frozen=True)
class Heard:
    """An event of the table (its public face: the engine's event, from the wire), and
    why the timeout rule made it if it did ("time", "away", "left"; "" when its seat
    did); `number`: the table's number for it (0: not known)."""

    event: Event
    timeout: str = ""
    number: int = 0


@dataclass(frozen=True)
class Recalled:
    """The hand under way at `table` so far, as the server told it with a snapshot (a
    member who joined, watched or came back mid-hand): its events from the deal on,
    with their numbers (some may be events this client heard before it lost touch)."""

    table: str
    hand: int
    heard: tuple[Heard, ...]


@dataclass(frozen=True)
class Tallied:
    """The ended hands of the game at `table`, as the server told them with a snapshot
    (version 12): each hand's `HandOver`, oldest first.  They replace any this client
    holds of the game (it may have missed some, or hold another game's)."""

    table: str
    hands: tuple[HandOver, ...]


@dataclass(frozen=True)
class Viewed:
    """A new view of the table: the game in it as the engine's public view (None before
    a game)."""

    public: PublicView | None


@dataclass(frozen=True)
class Sealed:
    """My hand sealed to me again (`hold`): why ("deal", "exchange", "handover",
    "snapshot", ...), and my seat in that hand."""

    reason: str
    seat: int | None


@dataclass(frozen=True)
class Said:
    """A line of chat."""

    sender: str
    text: str


@dataclass(frozen=True)
class Nudged:
    """`by` hurried `seats` (of the hand in play): `seconds` to move, then the timeout
    rule moves for them (protocol 13, a table with no turn timer)."""

    by: str
    seats: tuple[int, ...]
    seconds: int


@dataclass(frozen=True)
class Chair:
    """A chair at the table: who sits there ("" for nobody), a server bot's strategy
    ("" for a person), whether its player is connected and ready."""

    name: str
    bot: str
    connected: bool
    ready: bool


@dataclass(frozen=True)
class TableState:
    """The table around the game as last heard, in the client's own terms: what the
    screens read of it (never the wire message).  `deadline`: when the turn timer runs
    out, on this machine's monotonic clock (None when no timer runs)."""

    name: str
    status: str
    chairs: tuple[Chair, ...]
    preset: str
    #: The toggles changed from the preset, in the table's order.
    changed: tuple[str, ...]
    deadline: float | None
    #: How many people watch, and the first few of them by name (protocol 14: an older
    #: server says neither, 0 and ()).
    watchers: int = 0
    watching: tuple[str, ...] = ()
    #: Until when a chair just freed from a person who held the table up is kept for a
    #: bot we add, on this machine's clock (protocol 15; None: none kept, or an older
    #: server, which says nothing of it).
    kept: float | None = None
    #: The table's turn time in seconds (protocol 16; 0: no turn timer, or an older
    #: server, which says nothing of it): a turn of ours may have less.
    turn_seconds: int = 0
    #: The whole time the running turn began with, in seconds (protocol 16; 0: no clock
    #: runs, not known, or an older server).
    turn_whole: float = 0.0
    #: Whoever sits down or comes to watch gives a password (protocol 19; an older
    #: server says nothing of it: False).
    password: bool = False

    @classmethod
    def of(cls, view: m.TableView, now: float) -> TableState:
        left = view.turn_deadline_ms / 1000
        return cls(
            name=view.table,
            status=view.status,
            chairs=tuple(Chair(c.name, c.bot, c.connected, c.ready) for c in view.chairs),
            preset=str(view.rules.get("preset", "classic")),
            changed=tuple(name for name in view.rules if name != "preset"),
            deadline=now + left if left else None,
            watchers=view.watchers,
            watching=view.watching,
            kept=now + view.kept_ms / 1000 if view.kept_ms else None,
            turn_seconds=view.turn_seconds,
            turn_whole=view.turn_ms / 1000,
            password=view.password,
        )

    def chair_of(self, name: str) -> Chair | None:
        return next((chair for chair in self.chairs if chair.name == name), None)

    @property
    def has_empty_chair(self) -> bool:
        return any(not chair.name for chair in self.chairs)

    def seconds_left(self, now: float) -> int | None:
        """Whole seconds left on the turn timer (rounded up), None if none runs."""
        return _whole_seconds(self.deadline, now)

    def kept_seconds(self, now: float) -> int:
        """Whole seconds (rounded up) the free chair is still kept for our bot; 0: none."""
        return _whole_seconds(self.kept, now) or 0


def _whole_seconds(until: float | None, now: float) -> int | None:
    """Whole seconds left until `until` (rounded up, not below 0); None for None."""
    return None if until is None else max(0, int(until - now + 0.999))


#: What happened at the table, in order, as a screen is told it (`TableModel.news`).
News = Heard | Recalled | Tallied | Viewed | Sealed | Said | Nudged

#: The most news a model keeps (a bot may play for days); half goes when it is reached.
KEPT_NEWS = 5000


def let_go(kept: list[Any], most: int) -> int:
    """Past `most` items, the oldest half of them go (a bot may run for days, a hostile
    server flood it): how many went."""
    if len(kept) <= most:
        return 0
    del kept[: most // 2]
    return most // 2


#: The most lines of chat a model keeps; half goes when it is reached.
KEPT_CHAT = 1000  # (test_abuse counts a flood of 500 in them)


@dataclass
class TableModel:
    name: str = ""
    #: The last table message, and the game in it as the engine's public view; the
    #: table around the game (chairs, status, timer) as the screens read it.
    view: m.TableView | None = None
    public: PublicView | None = None
    table: TableState | None = None
    #: This connection's chair (from `seated`), name and seat token.
    slot: int | None = None
    me: str = ""
    token: bytes = b""
    #: My cards, and my part of this hand's exchange (with the cards), as last sealed to me.
    hand: list[Card] = field(default_factory=list)
    exchange: tuple[Gave | Returned, ...] = ()
    #: The hand-overs of this hand I gave or got (seven_pass), with their cards: what my
    #: hand sealed after each showed had moved.
    handed: list[HandedOver] = field(default_factory=list)
    #: My hand as dealt, by hand number (what the fair-deal check needs).
    dealt: dict[int, list[Card]] = field(default_factory=dict)
    #: The last few thousand public events, as the engine's events.
    events: list[Event] = field(default_factory=list)
    #: What happened since this model began, in order, in the engine's terms: what a
    #: screen shows, read from any point (`news_since`), so a screen opened late (the
    #: table's after the lobby's) is told all of it.  `news_start` counts what was
    #: let go from its start.
    news: list[News] = field(default_factory=list)
    news_start: int = 0
    chat: list[m.Chat] = field(default_factory=list)
    deal_results: dict[int, str | None] = field(default_factory=dict)
    #: Hands whose deal this client did not see whole (it joined or came back later):
    #: their reveal cannot be checked here.
    deals_missed: set[int] = field(default_factory=set)
    #: Where `events` resume after a lost connection: what came before may miss moves.
    resumed: int = 0
    #: The pages of a hand's history (`hand_history`) heard so far, until its last.
    _recalling: list[m.HandHistory] = field(default_factory=list, repr=False)
    #: The pages of the game's results (`game_results`) heard so far, until its last.
    _tallying: list[m.GameResults] = field(default_factory=list, repr=False)
    _rules: tuple[dict[str, Any], Rules] | None = field(default=None, repr=False)

    # --- updates ----------------------------------------------------------------------

    def see(self, view: m.TableView, now: float | None = None) -> None:
        """A new table message (heard at `now`, monotonic): the public view it carries, in
        the engine's terms, and the table around it."""
        self.view, self.name = view, view.table
        self.table = TableState.of(view, time.monotonic() if now is None else now)
        rules = self.rules()
        self.public = (
            None
            if view.game is None or rules is None
            else wire.public_view_from_wire(view.game, rules)
        )
        self._tell(Viewed(self.public))

    def said(self, chat: m.Chat) -> None:
        self.chat.append(chat)
        let_go(self.chat, KEPT_CHAT)  # (a bot chatted at for days; a hostile flood)
        if chat.scope == "table":  # (the lobby's is the lobby screen's: a table's log,
            # opened later, told it all as the table's, a user pass)
            self._tell(Said(chat.sender, chat.text))

    def nudged(self, message: m.Nudged) -> None:
        if message.table == self.name:
            self._tell(Nudged(message.by, message.seats, message.seconds))

    def _tell(self, news: News) -> None:
        self.news.append(news)
        self.news_start += let_go(self.news, KEPT_NEWS)

    def news_since(self, position: int) -> tuple[list[News], int]:
        """What happened from `position` on (counted from this model's start; what was
        let go is skipped), and the position after it."""
        end = self.news_start + len(self.news)
        return self.news[max(0, position - self.news_start) :], end

    def hold(
        self,
        cards: tuple[Card, ...],
        exchange: tuple[Gave | Returned, ...],
        hand: int,
        reason: str,
        seat: int | None = None,
    ) -> None:
        """My sealed hand, opened (`seat`: mine in that hand, as the message says).  After
        a hand-over, what left or joined my hand is the cards handed: the hand-over's
        event is kept with them (only the two seats ever see them)."""
        if reason == "handover" and seat is not None:
            self._handed(seat, cards)
        elif reason == "deal":
            self.handed = []
        self.hand, self.exchange = list(cards), exchange
        if reason == "deal":
            self.dealt[hand] = list(cards)
            for old in [h for h in self.dealt if h < hand - 1]:
                del self.dealt[old]
        self._tell(Sealed(reason, seat))

    def _handed(self, seat: int, cards: tuple[Card, ...]) -> None:
        before, after = Counter(self.hand), Counter(cards)
        for index in range(len(self.events) - 1, -1, -1):
            event = self.events[index]
            if (
                isinstance(event, HandedOver)
                and not event.cards
                and seat
                in (
                    event.giver,
                    event.receiver,
                )
            ):
                moved = before - after if event.giver == seat else after - before
                shown = HandedOver(
                    event.giver,
                    event.receiver,
                    event.size,
                    tuple(sorted(moved.elements(), key=lambda c: c.id)),
                )
                self.events[index] = shown
                self.handed.append(shown)
                return

    def note(self, message: m.TableEvent) -> None:
        """A public event: kept (the last few thousand: a bot may play for days); my own
        play or discard takes those cards out of my hand."""
        event = wire.event_from_wire(message)
        self.events.append(event)
        self._tell(_heard(message, event))
        if len(self.events) > 5000:
            del self.events[:2500]
            self.resumed = max(0, self.resumed - 2500)
        if isinstance(message, (m.Played, m.Discarded)) and message.seat == self.seat:
            for card in wire.cards_from_wire(message.cards):
                if card in self.hand:
                    self.hand.remove(card)

    def recall(self, page: m.HandHistory) -> None:
        """A page of the hand's history, sent with a snapshot.  Once the last is in, the
        hand's events here are the history (what this client heard of the hand before
        losing touch, or nothing, is replaced): so `history()` is the engine's."""
        pages = _whole(self._recalling, page)
        if pages is None:
            return
        messages = [
            e for p in pages if p.table == page.table and p.hand == page.hand for e in p.events
        ]
        heard = tuple(_heard(message, wire.event_from_wire(message)) for message in messages)
        start = next(
            (
                at
                for at in range(len(self.events) - 1, -1, -1)
                if isinstance(self.events[at], HandStarted)
            ),
            len(self.events),
        )
        last = self.events[start] if start < len(self.events) else None
        if not isinstance(last, HandStarted) or last.hand != page.hand:
            start = len(self.events)  # (no part of this hand here: the history follows)
        self.events[start:] = [self._shown(h.event) for h in heard]
        self.resumed = start
        self._tell(Recalled(page.table, page.hand, heard))

    def tally(self, page: m.GameResults) -> None:
        """A page of the game's ended hands, sent with a snapshot; once the last is in,
        they are told (`Tallied`)."""
        pages = _whole(self._tallying, page)
        if pages is None:
            return
        hands = wire.results_from_wire(p for p in pages if p.table == page.table)
        self._tell(Tallied(page.table, hands))

    def _shown(self, event: Event) -> Event:
        """A hand-over of mine as I saw it (with its cards), if I did."""
        if isinstance(event, HandedOver) and not event.cards:
            for mine in self.handed:
                if (mine.giver, mine.receiver, mine.size) == (
                    event.giver,
                    event.receiver,
                    event.size,
                ):
                    return mine
        return event

    def lost_touch(self) -> None:
        """The connection dropped: the events that come next follow a gap, so a hand's
        history starts again after it (as for a client that joined mid-hand)."""
        self.resumed = len(self.events)

    # --- reading ------------------------------------------------------------------------

    def rules(self) -> Rules | None:
        """The table's rules, parsed once (a view repeats them in every message)."""
        if self.view is None:
            return None
        wired = dict(self.view.rules)
        if self._rules is None or self._rules[0] != wired:
            self._rules = (wired, wire.rules_from_wire(wired))
        return self._rules[1]

    @property
    def seat(self) -> int | None:
        """My seat in this hand's seating (seats move between hands under by_rank)."""
        public = self.public
        if public is None or self.me not in public.seating:
            return None
        return public.seating.index(self.me)

    @property
    def seen(self) -> int:
        """The number of the table's last view heard (0 before any): what an action or a
        nudge says it was chosen on (protocol 13's `seen`)."""
        return self.view.number if self.view is not None else 0

    @property
    def playing(self) -> bool:
        """A hand is being played or exchanged at the table."""
        return self.public is not None and self.public.phase in (Phase.PLAY, Phase.EXCHANGE)

    @property
    def my_turn(self) -> bool:
        public, seat = self.public, self.seat
        if public is None or seat is None:
            return False
        if public.phase is Phase.PLAY:
            return public.turn == seat
        return public.phase is Phase.EXCHANGE and any(s == seat for s, _ in public.owed)

    def seat_view(self) -> SeatView:
        """The engine's view of my seat: the public view with my cards and my exchange."""
        public, seat = self.public, self.seat
        assert public is not None and seat is not None
        return SeatView.of(public, seat, self.hand, self.exchange, history=self.history())

    def history(self) -> list[tuple[int, Play | Pass]]:
        """The plays and passes of the hand in view, from the events kept."""
        public = self.public
        if public is None:
            return []
        return moves_seen(self.events[self.resumed :], public.hand_number, len(public.seating))


def _heard(message: m.TableEvent, event: Event) -> Heard:
    timed = (m.Played, m.Passed, m.Returned, m.HandedOver, m.Discarded, m.Took, m.Bombed)
    timeout = message.timeout if isinstance(message, timed) else ""
    return Heard(event, timeout, message.number)


#: The most tables a lobby's list holds (a server keeps 500 by default; a hostile one
#: sent 600,000 in pages that never ended, and a flood of `table_info`s): those beyond
#: are not listed.
LISTED_MOST = 5000


def del_beyond(listing: dict[str, m.TableInfo], most: int) -> None:
    """Of `listing`, only its first `most` tables."""
    for name in list(listing)[most:]:
        del listing[name]


@dataclass
class TableList:
    """The lobby's table list as the server keeps it up to date: `tables` pages (page 0
    starts the list afresh, the last has `more` false), then a `table_info` or
    `table_gone` for each table that changes.  `tables` is the list as last complete,
    in the server's order (None before the first)."""

    tables: tuple[m.TableInfo, ...] | None = None
    _known: dict[str, m.TableInfo] = field(default_factory=dict, repr=False)
    _paging: dict[str, m.TableInfo] | None = field(default=None, repr=False)
    _page: int = field(default=0, repr=False)

    def take(self, message: m.Message) -> bool:
        """Apply a lobby message; True if the list as shown changed."""
        if isinstance(message, m.Tables):
            if message.page == 0:
                self._paging, self._page = {}, 0
            elif self._paging is None or message.page != self._page + 1:
                return False  # a page out of its order: wait for the next page 0
            self._page = message.page
            self._paging.update((info.name, info) for info in message.tables)
            del_beyond(self._paging, LISTED_MOST)
            if message.more:
                return False
            self._known, self._paging = self._paging, None
        elif isinstance(message, m.TableChanged):
            for listing in (self._known, self._paging):
                if listing is not None and (
                    message.info.name in listing or len(listing) < LISTED_MOST
                ):
                    listing[message.info.name] = message.info
            if self.tables is None:
                return False
        elif isinstance(message, m.TableGone):
            for listing in (self._known, self._paging):
                if listing is not None:
                    listing.pop(message.table, None)
            if self.tables is None:
                return False
        else:
            return False
        self.tables = tuple(self._known.values())
        return True


#: The most players a client remembers the ratings of (a server may rate thousands).
KEPT_RATINGS = 500


@dataclass
class Ladder:
    """The server's ladder as last heard (issue 15): the page the lobby shows, and the
    players asked for by name (the ones seated where this client looks)."""

    board: tuple[m.RatingEntry, ...] = ()
    total: int = 0
    by_name: dict[str, m.RatingEntry] = field(default_factory=dict)
    #: The page has been heard at least once.
    heard: bool = False
    #: The server does not know `leaderboard` (an older one): not asked again, so an old
    #: server's count of bad messages is not run up.
    unsupported: bool = False

    def wanted(self) -> bool:
        return not self.unsupported

    def take(self, message: m.Ratings) -> None:
        if not message.players:
            self.board, self.total, self.heard = message.entries, message.total, True
        for entry in message.entries:
            self.by_name.pop(entry.name, None)
            self.by_name[entry.name] = entry  # (the newest last: the oldest go first)
        for name in list(self.by_name)[: max(0, len(self.by_name) - KEPT_RATINGS)]:
            del self.by_name[name]

    def refused(self, error: m.Error) -> None:
        """An error that says the server has no `leaderboard` message."""
        if error.code == "unknown_message" and "leaderboard" in error.message:
            self.unsupported = True

    def rating(self, name: str) -> str | None:
        """The shown rating of a player by name (`shown`); None if not heard (or not
        rated)."""
        entry = self.by_name.get(name)
        return None if entry is None else shown(entry)


def shown(entry: m.RatingEntry) -> str:
    """A rating as a screen shows it: marked `?` while provisional (not established:
    listed after every established player, and not settled), as lichess marks one;
    "unrated" while no hand has rated the player (its mu - 3 sigma is 0)."""
    if entry.unrated:
        return "unrated"
    return f"{entry.rating}?" if entry.provisional else str(entry.rating)


Paged = TypeVar("Paged", m.HandHistory, m.GameResults)


def _whole(heard: list[Paged], page: Paged) -> list[Paged] | None:
    """`page` added to the pages `heard` so far (changed in place): all of them once it
    is the last (`heard` emptied for the next), else None.  Page 0 starts afresh; a page
    out of its order is dropped, and so are the pages after it until the next page 0.
    More pages than a server ever sends (`pages_most`) are dropped with an error: a
    server that says `more` for ever does not fill this client's memory."""
    if page.page == 0:
        heard.clear()
    elif not heard or page.page != heard[-1].page + 1:
        heard.clear()
        return None
    most = m.pages_most(type(page))
    if len(heard) >= most:
        heard.clear()
        raise RemoteProtocolError(Code.BAD_MESSAGE, f"{page.TYPE}: more than {most} pages")
    heard.append(page)
    if page.more:
        return None
    pages = heard[:]
    heard.clear()
    return pages

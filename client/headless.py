"""A headless player: a `Client` that lets a strategy choose whenever its seat is asked.
The same strategy object plays offline in `president sim`."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import traceback
from collections.abc import Callable

from president.bots.strategies import Strategy
from president.engine import Action, IllegalAction, SeatView
from president.protocol import messages as m
from president.protocol import wire
from president.protocol.errors import Code

from .connection import Client


class BotPlayer:
    """Answers every turn and exchange return of its seat with `strategy.choose`.  After
    answering it waits for the server to acknowledge (its own event, or an error about
    its action) before answering again, so a view sent meanwhile is not answered twice.

    `choose` runs in a thread while the connection goes on reading (pings, the deal's
    commitments): a strategy slower than the turn timer once held the connection still,
    then sent answers to turns long gone, which the server took at later turns where they
    happened to be legal.  An answer to a view the table has moved past (its events went
    on: the timer played for the seat) is dropped, said to `on_late`, and the seat's turn
    now, if it is one, answered afresh (another seat's return in the exchange, made while
    it chose, leaves its own return to choose as it was)."""

    def __init__(self, client: Client, strategy: Strategy, delay: float = 0.0) -> None:
        self.client = client
        self.strategy = strategy
        self.delay = delay
        self.waiting = False
        self.game_over = asyncio.Event()
        #: My place (1 = first) in every hand played, and the games won.
        self.places: list[int] = []
        self.games = 0
        self.won = 0
        #: The view number an answer was chosen on.
        self.answered: int | None = None
        #: Ready for a game (the caller says so): said again after taking the seat back at
        #: a table with no game on (a restarted server counts nobody not back as ready).
        self.ready = False
        self._reseated = False
        #: The end of the game in progress was seen (its `game_over` event, or a view of
        #: a game over): views that go on saying so are the same end, not another.  Only
        #: a view of a game not over (the next game's first hand) starts a new one: after
        #: `game_over` the server sends a "playing" view of the ended game, then the
        #: "finished" one, and both are that one end.
        self._ended = False
        #: Whether the last view showed a game being played; and the games that stopped
        #: before their end (too few players left: the table went back to "waiting", with
        #: no `game_over`, docs/PROTOCOL.md), each an end of a game too (a tinkerer's
        #: pass: bots waiting for that end waited for ever).
        self._playing = False
        self.stopped = 0
        #: Set when the server does not give the seat back after a reconnect.
        self.seat_lost = asyncio.Event()
        #: The strategy's failure, with its traceback, if its `choose` raised or chose
        #: something that is not an action; `failed` is set then and the bot answers no
        #: more (offline, the same bot stops `president sim`).
        self.failure: str | None = None
        self.failed = asyncio.Event()
        #: How many of our actions the server refused, and who hears each refusal (the
        #: server's error, in its words: a bot's mistake, or a move the table outran).
        self.refused = 0
        self.on_refused: Callable[[m.Error], None] | None = None
        #: The view on which the bot last played the timer's action for a refused one.
        self.fell_back: int | None = None
        self.on_fallback: Callable[[Action], None] | None = None
        #: Answers dropped because the table had moved on while the strategy chose them,
        #: and who hears of each (the action dropped).
        self.late = 0
        self.on_late: Callable[[Action], None] | None = None
        #: Moves the turn timer made for the seat while its strategy was still choosing
        #: (a `choose` that never returns has every one of its turns made so).
        self.timed_out = 0
        #: Who hears, once a `choose`, that the turn timer moved for the seat while it
        #: was still choosing (the seconds it has chosen for): a `choose` that never
        #: returns said nothing until the game's end (a tinkerer's pass).
        self.on_stuck: Callable[[float], None] | None = None
        self._stuck_told: asyncio.Task[None] | None = None
        self._asked_at = 0.0
        #: The strategy choosing, while it does (one at a time); the seat's own moves seen
        #: so far (one made while it chose was the timer's, for it); and the times it was
        #: seated again (after a drop what happened meanwhile comes as a snapshot, not as
        #: events: an answer chosen before it is not sent).
        self._choosing: asyncio.Task[None] | None = None
        self._moves = 0
        self._seatings = 0
        client.on_message = self.on_message

    async def on_message(self, message: m.Message) -> None:
        model = self.client.model
        if isinstance(message, m.TableEvent):
            if isinstance(message, m.HandOver) and model.me in message.finish:
                self.places.append(message.finish.index(model.me) + 1)
            elif isinstance(message, m.GameOver):
                self.games += 1
                self.won += model.me in message.winners
                if not self._ended:  # (its view may have said so first: one end)
                    self._ended = True
                    self.game_over.set()
            elif model.seat is not None and _acted(message) == model.seat:  # our own action
                self.waiting = False
                self._moves += 1
                if getattr(message, "timeout", "") == "time":  # (the timer's move, for us)
                    self.timed_out += 1
                    if self._busy() and self._stuck_told is not self._choosing:
                        self._stuck_told = self._choosing
                        if self.on_stuck is not None:
                            self.on_stuck(asyncio.get_running_loop().time() - self._asked_at)
            return
        if message is self.client.seat_lost:
            self.seat_lost.set()
            return
        if isinstance(message, m.Error) and message.about in _ACTIONS:
            # refused: answer again only if the table moved on since (never loop on one view)
            self.waiting = False
            if message.code == Code.STALE:  # (sent in time, but the timer was there first)
                self.late += 1
            else:
                self.refused += 1
            if self.on_refused is not None:
                self.on_refused(message)
            if (model.view is None or model.view.number == self.answered) and not self._busy():
                await self._fall_back()  # (not while the strategy answers this very view)
                return
        elif isinstance(message, m.Seated):  # (re)seated: an answer sent before a drop may be lost
            self.waiting, self._reseated = False, True
            self._seatings += 1
            return
        elif isinstance(message, m.TableView):
            playing, self._playing = self._playing, message.status == "playing"
            if playing and message.status == "waiting" and not self._ended:
                self._ended = True  # (the game stopped: fewer than three players left)
                self.stopped += 1
                self.game_over.set()
                return
            if _over(message):
                # (after a reconnect the `game_over` event may have been missed: the view
                # says it once; the views of the same end after `ready` are not more games)
                if not self._ended:
                    self._ended = True
                    self.game_over.set()
                elif self._reseated:  # back at a finished table, ready for the next game
                    self._reseated = False
                    await self._ready_again(message)
                return
            self._ended = False  # a game is being played or waited for
            if self._reseated:
                self._reseated = False
                await self._ready_again(message)
        elif not (isinstance(message, m.SealedHand) and message.reason == "snapshot"):
            return  # (after a reconnect the hand comes after the view: answer on either)
        self._answer()

    def _busy(self) -> bool:
        """Whether the strategy is choosing now."""
        return self._choosing is not None and not self._choosing.done()

    def _answer(self) -> None:
        """Set the strategy choosing if the seat is asked now and nothing is pending."""
        model = self.client.model
        if self.waiting or not model.my_turn or not model.hand or self.failure is not None:
            return
        if self._reseated:  # (seated again: the view in hand is from before the drop)
            return
        if self._busy():
            return  # (our own move, played by the timer, cleared `waiting`: still choosing)
        view = model.seat_view()
        if not view.legal_actions():  # (only a server that contradicts itself says so)
            return
        self.waiting = True
        self.answered = model.view.number if model.view is not None else None
        asked = (self._moves, self._seatings)
        seen = self.answered or 0
        loop = asyncio.get_running_loop()
        self._asked_at = loop.time()
        self._choosing = loop.create_task(self._choose(view, asked, seen))

    def _moved_on(self, asked: tuple[int, int], hand: int) -> bool:
        """Whether the turn asked (when the seat's own moves and seatings were `asked`, in
        hand `hand`) is gone: the timer moved for the seat, it was seated again after a
        drop, or it is not its turn in that hand any more."""
        model = self.client.model
        return (
            asked != (self._moves, self._seatings)
            or not model.my_turn
            or model.public is None
            or model.public.hand_number != hand
        )

    async def _choose(self, view: SeatView, asked: tuple[int, int], seen: int) -> None:
        """`view` (the table's after event `seen`) answered, if its turn is still there
        once the strategy has chosen (the server says if the timer got there first)."""
        hand = view.hand_number
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
                if self._moved_on(asked, hand):
                    self._ask_again(asked, None)
                    return
            try:  # (the strategy's own code: its mistake is said, not taken for a lost server)
                action = await in_a_thread(self.strategy.choose, view)
            except (Exception, SystemExit):  # (`sys.exit` in a bot is its mistake, as offline)
                self.failure = traceback.format_exc()
                self.failed.set()
                return
            if not isinstance(action, Action):  # (a legal one or not: the server judges it)
                self.failure = f"it chose {action!r}, which is not an action"
                self.failed.set()
                return
            if self._moved_on(asked, hand):
                self._ask_again(asked, action)
                return
            self.waiting = True  # (sent: wait for the server's word on it)
            try:
                await self.client.act(action, seen)
            except (ConnectionError, OSError):  # (the link went: the reader says so)
                self.waiting = False
        except Exception:  # (this bot's own fault, not the strategy's: said, not lost in a task)
            self.failure = traceback.format_exc()
            self.failed.set()

    def _ask_again(self, asked: tuple[int, int], action: Action | None) -> None:
        """The answer to a turn gone is not sent: said as late when the timer moved for
        the seat meanwhile; then the seat's turn now, if it is one, is asked."""
        self.waiting = False
        self._choosing = None
        if action is not None and asked[0] != self._moves:
            self.late += 1
            if self.on_late is not None:
                self.on_late(action)
        self._answer()

    async def _fall_back(self) -> None:
        """The strategy's action refused and the table where it was: what the turn timer
        would do in its place (`SeatView.timeout_action`), once a view, so that a table
        with no timer does not wait on the bot for ever."""
        model = self.client.model
        if model.view is None or self.fell_back == model.view.number or not model.hand:
            return
        self.fell_back = model.view.number
        try:
            action = model.seat_view().timeout_action()
        except IllegalAction:  # (nothing to do now: the table moved on after all)
            return
        self.waiting = True
        if self.on_fallback is not None:
            self.on_fallback(action)
        await self.client.act(action)

    async def _ready_again(self, view: m.TableView) -> None:
        slot = self.client.model.slot
        if (
            self.ready
            and not self.game_over.is_set()
            and view.status != "playing"
            and slot is not None
            and slot < len(view.chairs)
            and not view.chairs[slot].ready
        ):
            await self.client.send(m.Ready())


async def in_a_thread(choose: Callable[[SeatView], object], view: SeatView) -> object:
    """`choose(view)` in a thread of its own while the loop goes on; its answer, or what
    it raised.  A daemon thread, not the loop's executor: a strategy caught in a loop of
    its own must not keep the process from ending at Ctrl-C (the executor's threads are
    waited for at exit)."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[object] = loop.create_future()

    def settle(result: object, error: BaseException | None) -> None:
        if answer.done():  # (the bot stopped waiting)
            return
        if error is None:
            answer.set_result(result)
        else:
            answer.set_exception(error)

    def run() -> None:
        try:
            result, error = choose(view), None
        except BaseException as exc:  # (told to the loop, which says it)
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # (a closed loop: nobody waits for it)
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="bot-choose", daemon=True).start()
    return await answer


#: The messages of the actions a strategy may choose.
_ACTIONS = frozenset(kind.TYPE for kind in wire.ACTION_MESSAGES)


def _over(view: m.TableView) -> bool:
    """Whether `view` shows a game that has ended: a finished table, or the game's own
    phase (the view sent with its `game_over` event still says "playing")."""
    return view.status == "finished" or (view.game is not None and view.game.phase == "game_over")


def _acted(event: m.TableEvent) -> int | None:
    """The seat whose own action `event` shows (None for other events)."""
    if isinstance(event, (m.Played, m.Passed, m.Discarded, m.Took, m.Bombed)):
        return event.seat
    if isinstance(event, (m.Returned, m.HandedOver)):
        return event.giver
    return None

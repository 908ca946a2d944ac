"""The public history of the hand in play at a table: the very event messages everyone
there was sent since its `hand_started`, with their numbers, so a member who joins,
watches or comes back mid-hand is told the hand so far (`hand_history`, protocol
version 9) and its seat's history is the engine's.

It keeps only what was broadcast: an exchange's gives and returns, and a hand-over, as
their counts (the cards are only ever in the two seats' sealed hands), so the history
shows nobody a card the events did not."""

from __future__ import annotations

from collections.abc import Sequence

from president.engine import Dealt, Event
from president.protocol import messages as m
from president.protocol import wire


class HandLog:
    """The event messages of the current hand, oldest first (from its `hand_started` to
    the last one sent: a hand's end and the game's stay until the next hand starts)."""

    def __init__(self) -> None:
        self.hand = -1
        self.events: list[m.TableEvent] = []
        #: The pages as last made, while no event came since (the same message objects:
        #: their frames are encoded once however many come mid-hand, protocol.connection).
        self._pages: list[m.HandHistory] | None = None

    def add(self, message: m.TableEvent) -> None:
        if isinstance(message, m.HandStarted):
            self.hand, self.events = message.hand, []
        if self.hand >= 0:
            self.events.append(message)
            self._pages = None

    def replay(
        self, table: str, number: int, events: Sequence[Event], timeout: m.TimeoutReason = ""
    ) -> None:
        """Events replayed from the journal after a restart, as `Table._after` sent them:
        the first numbered `number + 1`, each taking the next (a seat's `Dealt` takes
        its number but was sealed, not broadcast); `timeout` was the first one's."""
        for index, event in enumerate(events, start=1):
            if isinstance(event, Dealt):
                continue
            why: m.TimeoutReason = timeout if index == 1 else ""
            message = wire.event_to_wire(table, number + index, event, why)
            if message is not None:
                self.add(message)

    def pages(self, table: str) -> list[m.HandHistory]:
        """The hand so far as `hand_history` pages (none before the first hand)."""
        if self.hand < 0:
            return []
        if self._pages is not None and (not self._pages or self._pages[0].table == table):
            return self._pages
        size = m.HISTORY_PAGE
        chunks = [self.events[at : at + size] for at in range(0, len(self.events), size)]
        self._pages = [
            m.HandHistory(
                table=table,
                hand=self.hand,
                page=page,
                more=page < len(chunks) - 1,
                events=tuple(chunk),
            )
            for page, chunk in enumerate(chunks)
        ]
        return self._pages

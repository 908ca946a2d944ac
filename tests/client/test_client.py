"""The client library against a link that fails and a server that contradicts itself:
it never raises out of its reader, it reconnects, and a bot never chooses from nothing
(found by attacking it with a hostile server: tests/server and docs/reliability.md)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import Client, Link
from president.client.headless import BotPlayer
from president.engine import parse_cards
from president.protocol import messages as m

from ..protocol.test_messages import CHAIRS, GAME


@dataclass
class FakeLink:
    """What `Client` uses of a link: messages to read, and sends that may fail."""

    incoming: list[m.Message]
    name: str = "Ann"
    key: X25519PrivateKey = field(default_factory=X25519PrivateKey.generate)
    sent: list[m.Message] = field(default_factory=list)
    broken: bool = False

    async def receive(self) -> m.Message | None:
        return self.incoming.pop(0) if self.incoming else None

    async def send(self, message: m.Message) -> None:
        if self.broken:
            raise ConnectionResetError("Connection lost")
        self.sent.append(message)

    async def close(self) -> None:
        return None


async def test_a_link_that_breaks_while_answering_is_reconnected() -> None:
    """A reset as the client answers a ping: the reader ends, `follow` reconnects and
    asks for the tables again, instead of the error ending the client."""
    first = FakeLink([m.Ping(nonce=1)], broken=True)
    second = FakeLink([])
    client = Client(first)  # type: ignore[arg-type]
    links = [second]

    async def reconnect() -> Link:
        return links.pop(0)  # type: ignore[return-value]

    client.reconnect = reconnect
    said: list[str] = []

    async def follow() -> None:
        await client.follow(said.append, retry_seconds=0.01)

    task = asyncio.create_task(follow())
    for _ in range(100):
        if second.sent:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    assert said[:2] == ["connection lost — reconnecting (attempt 1)", "reconnected"]
    assert second.sent == [m.ListTables()]


async def test_a_bot_never_chooses_from_a_view_where_nothing_is_legal() -> None:
    """A server that says we owe two cards while we hold one: no choice, no crash."""
    link = FakeLink([])
    client = Client(link)  # type: ignore[arg-type]
    bot = BotPlayer(client, RandomBot(random.Random(1)))
    game = m.GameView(
        **{
            **GAME.__dict__,
            "phase": "exchange",
            "turn": None,
            "top": None,
            "trick": (),
            "owed": ((1, 2),),
        }
    )
    view = m.TableView(
        table="Friday",
        number=20,
        status="playing",
        rules={"preset": "classic"},
        chairs=CHAIRS,
        turn_deadline_ms=0,
        game=game,
    )
    client.model.hand = list(parse_cards(["7C"]))  # one card, and two owed
    await client.handle(view)
    assert client.model.my_turn and not client.model.seat_view().legal_actions()
    assert link.sent == [] and not bot.waiting

"""Issue 16's rules at a server: only a client that knows them sits at or watches a table
playing one (an older one is refused in one sentence, and everything else stays as it
was for it), a due is paid by the seat that owes it, and a hand-over's cards reach the
two seats' sealed hands and nobody else."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president.protocol import messages as m
from president.protocol.errors import Code

from .helpers import bot_key, client, running_server, wait_for
from .test_hostile_guests import Guest, create, lobby

REFUSAL = (
    "table Friday plays rules your client does not know (sequences, suit_lock, jack_back,"
    " five_skip, seven_pass, ten_discard, spade_three, capital_fall, forbidden_finishes):"
    " update president to play or watch there"
)


async def test_an_older_client_may_not_create_sit_at_or_watch_a_variant_table() -> None:
    hall = lobby()
    ann, old = Guest("ann"), Guest("old", address="10.0.0.9", version=4)
    await hall.handle(old, create("Friday", preset="daifugo"))
    assert "Friday" not in hall.tables
    await hall.handle(old, create("Saturday", toggles={"one_time_around": True}))
    assert "Saturday" not in hall.tables
    await hall.handle(ann, create("Friday", preset="daifugo"))
    assert ann.errors() == []
    await hall.handle(old, m.Join(table="Friday"))
    await hall.handle(old, m.Spectate(table="Friday"))
    await hall.handle(old, m.Resume(table="Friday", seat=0, token=bytes(32)))
    refusals = [x for x in old.sent if isinstance(x, m.Error)]
    assert [(e.code, e.about) for e in refusals] == [
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "create_table"),
        (Code.NOT_ALLOWED, "join"),
        (Code.NOT_ALLOWED, "spectate"),
        (Code.NOT_ALLOWED, "resume"),
    ]
    assert refusals[0].message == REFUSAL and refusals[2].message == REFUSAL
    assert "(one_time_around)" in refusals[1].message
    assert hall.tables["Friday"].chairs.members() == []
    # every other table is as it was for it
    await hall.handle(old, create("Sunday", preset="house", toggles={"bombs": True}))
    await hall.handle(old, m.Join(table="Sunday"))
    assert len([x for x in old.sent if isinstance(x, m.Error)]) == 5
    assert old.table is hall.tables["Sunday"]
    await hall.handle(ann, m.Join(table="Friday"))
    assert ann.errors() == [] and ann.table is hall.tables["Friday"]
    await hall.close()


async def test_a_client_without_a_player_key_is_told_why_over_a_real_connection(
    tmp_path: Path,
) -> None:
    """A client that offers only the versions before keys (and so before the variant
    rules) gets the sentence; a client with a key sits there."""
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        old = await client(server, "old", tmp_path)
        assert ann.link.conn.version == max(m.VERSIONS) and old.link.conn.version == 3
        tasks = [asyncio.create_task(c.run()) for c in (ann, old)]
        await ann.send(m.CreateTable(name="Friday", preset="daifugo", toggles={}, seats=4))
        await ann.send(m.Join(table="Friday"))
        await wait_for(lambda: ann.model.slot is not None)
        await old.send(m.Join(table="Friday"))
        await wait_for(lambda: old.errors)
        assert (old.errors[0].code, old.errors[0].message) == (Code.NOT_ALLOWED, REFUSAL)
        assert old.model.slot is None
        for task in tasks:
            task.cancel()

"""`o` at the table: its creator gives the table a password, or takes it away, driven
by keys against a real loopback server (protocol 19: a guest with many addresses kept a
public table's last chair from the friend it waited for; docs/hosting.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from president.protocol import messages as m
from president.server import lobby

from ..harness.apps import table_app
from ..harness.servers import bot_key, client, running_server
from ..harness.waiting import wait_for


async def test_o_gives_the_table_a_password_unseen_and_takes_it_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby, "PASSWORD_EVERY", 0.0)  # (changed twice at once here)
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        ann.keep = True
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=4))
        await ann.send(m.Join(table="T"))
        async with table_app(ann) as (table, keys):
            try:
                await wait_for(lambda: ann.model.slot is not None and ann.model.table is not None)
                screen = table.screen
                keys.send_text("o")
                await wait_for(lambda: table.closing)
                keys.send_text("open sesame")
                await asyncio.sleep(0.05)
                assert "open sesame" not in "".join(
                    text for _, text, *_ in table.secret.control.create_content(80, 1).get_line(0)
                ), "the password shown as typed"
                keys.send_text("\r")
                await wait_for(lambda: server.lobby.tables["T"].settings.password is not None)
                await wait_for(lambda: ann.model.table is not None and ann.model.table.password)
                assert not table.closing and "tell it to the friends you wait for" in screen.message
                assert "password" in "".join(text for _, text, *_ in table._header())
                bob = await client(server, "bob", tmp_path, identity=bot_key("bob"))
                reading = asyncio.create_task(bob.run())
                heard = bob.errors_heard
                await bob.send(m.Join(table="T"))
                await wait_for(lambda: bob.errors_heard > heard)
                assert bob.errors[-1].code == "wrong_password"
                await bob.send(m.Join(table="T", password="open sesame"))
                await wait_for(lambda: bob.model.slot is not None)
                # esc gives up, and nothing is sent; then an empty line takes it away
                keys.send_text("o")
                await wait_for(lambda: table.closing)
                keys.send_text("xyz\x1b")
                await wait_for(lambda: not table.closing)
                assert server.lobby.tables["T"].settings.password is not None
                keys.send_text("o")
                await wait_for(lambda: table.closing and table.secret.text == "")
                keys.send_text("\r")
                await wait_for(lambda: server.lobby.tables["T"].settings.password is None)
                assert "password taken away: anyone may sit or watch" in screen.message
                reading.cancel()
                await bob.link.close()
            finally:
                await ann.link.close()


async def test_o_from_another_than_its_creator_is_refused_in_words(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=bot_key("ann"))
        mal = await client(server, "mal", tmp_path, identity=bot_key("mal"))
        mal.keep = True
        reading = asyncio.create_task(ann.run())
        await ann.send(m.CreateTable(name="T", preset="classic", toggles={}, seats=4))
        await wait_for(lambda: "T" in server.lobby.tables)
        await mal.send(m.Join(table="T"))
        async with table_app(mal) as (table, keys):
            try:
                await wait_for(lambda: mal.model.slot is not None and mal.model.table is not None)
                keys.send_text("o")
                await wait_for(lambda: table.closing)
                keys.send_text("mine\r")
                await wait_for(lambda: "only the player who made T" in table.screen.message)
                assert server.lobby.tables["T"].settings.password is None
            finally:
                reading.cancel()
                await mal.link.close()
                await ann.link.close()

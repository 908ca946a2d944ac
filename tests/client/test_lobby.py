"""The lobby: the form and the table list as plain state, the first-use fingerprint
question, and `president connect`'s screens driven by keys against a real server."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from president.cli.connect import lobby_and_tables
from president.client.connection import (
    CertificateRefused,
    Client,
    ConnectFailed,
    connect,
    resolve_pin,
)
from president.client.pinning import KnownServers
from president.client.tui.app import TableApp
from president.client.tui.lobby import LobbyScreen, TableForm
from president.client.tui.lobby_app import LobbyApp
from president.client.tui.shell import Shell
from president.engine import TOGGLES, Phase
from president.protocol import messages as m
from president.protocol.certs import normalise_fingerprint
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from ..harness.ports import free_port
from ..harness.servers import bot_key, running_server
from ..harness.servers import client as make_client
from ..harness.waiting import wait_for


def test_the_form_has_every_toggle_in_words_and_builds_the_request() -> None:
    form = TableForm(name="friday")
    labels = [label for label, _, _ in form.rows()]
    assert labels[5:] == list(TOGGLES)
    words = dict((label, w) for label, _, w in form.rows())
    assert words["must_beat"] == "passing is always allowed when following"
    form.row = form.keys.index("must_beat")
    form.change(1)
    assert form.toggles == {"must_beat": True}
    assert (
        dict((label, w) for label, _, w in form.rows())["must_beat"]
        == "a follower holding a legal play may not pass"
    )
    form.change(1)  # back to the preset's value: no longer a change
    assert form.toggles == {}
    form.row = form.keys.index("target")
    form.change(-1)
    assert form.toggles == {"target": 10}
    form.row = form.keys.index("preset")
    form.change(1)
    assert form.preset == "full" and form.toggles == {}  # a new preset starts clean
    form.row = form.keys.index("password")
    form.type("s3")
    form.type("x")
    form.backspace()
    request = form.request()
    assert request == m.CreateTable(
        name="friday", preset="full", toggles={}, seats=4, password="s3", turn_seconds=60
    )


def test_a_suggested_name_is_replaced_by_the_first_key_typed() -> None:
    """A newcomer typed "friday" over the lobby's suggestion and got "ann's tablefriday"
    (17 backspaces to mend it)."""
    form = TableForm(name="ann's table", suggested=True)
    assert dict((label, w) for label, _, w in form.rows())["table name"] == (
        "type one to replace it"
    )
    for key in "friday":
        form.type(key)
    assert form.name == "friday" and not form.suggested
    form.backspace()
    assert form.name == "frida"  # (typed: one key at a time)
    again = TableForm(name="ann's table", suggested=True)
    again.backspace()  # (the suggestion goes at once)
    assert again.name == "" and again.problem() == "give the table a name"
    kept = TableForm(name="ann's table", suggested=True)
    kept.row = kept.keys.index("seats")
    kept.change(1)  # (another row changed: the suggestion stays, and is the name)
    assert kept.request().name == "ann's table"


def test_the_form_says_what_is_wrong_before_anything_is_sent() -> None:
    form = TableForm(name="")
    assert form.problem() == "give the table a name"
    form.type("x")  # row 0 is the name
    assert form.problem() is None
    form.row = form.keys.index("joker_mode")
    form.change(1)
    assert form.problem() == "joker_mode = 'wild' needs jokers: set jokers to 1 or 2"
    form.row = form.keys.index("jokers")
    form.change(1)
    assert form.problem() is None
    form.row = form.keys.index("seats")
    for _ in range(20):
        form.change(1)
    assert form.seats == 12
    assert "decks = 1 serves at most 8 players" in (form.problem() or "")


def test_the_table_list_follows_the_server() -> None:
    screen = LobbyScreen(me="zoe")  # (not ann: a seat of hers would choose her table)
    info = m.TableInfo(
        name="b",
        preset="full",
        changes="must_beat=True, jokers=1",
        seats=4,
        players=("ann", "", "bot:random", ""),
        status="waiting",
        password=True,
        turn_seconds=30,
        spectators=1,
    )
    other = m.TableInfo(
        name="a",
        preset="classic",
        changes="",
        seats=3,
        players=("", "", ""),
        status="playing",
        password=False,
        turn_seconds=0,
        spectators=0,
    )
    screen.record(m.Tables(tables=(other, info)))
    screen.move(1)
    assert screen.selected() == info
    screen.record(m.Tables(tables=(info,)))  # the cursor stays on the same table
    assert screen.selected() == info
    assert screen.line(info).split() == ["b", "full+", "2/4", "waiting", "password"]
    assert screen.line(other).split() == ["a", "classic", "0/3", "playing"]  # as it is
    assert "  3: bot:random" in screen.details() and "  2: (empty)" in screen.details()
    # the changes as `president rules` and the create form say them (not Python's True)
    # each change once: named, then in words (a pass saw the target said twice)
    assert "preset full" in screen.details()
    assert not any("changed" in line for line in screen.details())
    assert screen.rules_words() == [
        "must_beat = true: a follower holding a legal play may not pass",
        "jokers = 1: 1 joker per deck",
    ]
    screen.record(m.Chat(scope="lobby", text="hi", sender="bob"))
    assert screen.chat == ["<bob> hi"]
    screen.record(m.Tables(tables=()))
    assert screen.selected() is None and screen.details() == ["choose a table to see it here"]


async def test_the_first_connection_asks_and_remembers(tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known")
    asked: list[str] = []

    def answer(text: str):  # type: ignore[no-untyped-def]
        async def ask(question: str) -> str:
            asked.append(question)
            return text

        return ask

    async with running_server(tmp_path) as server:
        address = f"127.0.0.1:{server.port}"
        with pytest.raises(ConnectFailed, match="you did not trust"):
            await resolve_pin(address, known, None, answer("n"))
        assert server.fingerprint in asked[0]  # the user sees what the host printed
        assert known.lookup(address) is None
        assert "Warning" not in asked[0]
        # picked on the LAN, announced with another certificate than it shows: a warning
        # (and the picker's own) comes before the very same question
        fake = ":".join(["AB"] * 32)
        with pytest.raises(ConnectFailed, match="you did not trust"):
            await resolve_pin(address, known, None, answer("n"), fake, ["Warning: namesake"])
        assert asked[-1].startswith("Warning: namesake\nWarning: this server's LAN")
        assert f"claimed the certificate {fake}" in asked[-1]
        assert asked[-1].endswith(asked[0]), "the question itself is unchanged"
        asked.clear()
        with pytest.raises(ConnectFailed):  # announced its own certificate: no warning
            await resolve_pin(address, known, None, answer("n"), server.fingerprint)
        assert len(asked) == 1 and "Warning" not in asked[0]
        asked.clear()
        pin = await resolve_pin(address, known, None, answer("y"))
        link = await connect(address, "ann", pin=pin, known=known)
        await link.close()
        assert known.lookup(address) == server.fingerprint
        asked.clear()
        assert await resolve_pin(address, known, None, answer("n")) == server.fingerprint
        assert not asked  # remembered: no question the second time
        with pytest.raises(ConnectFailed, match="--fingerprint"):
            await resolve_pin(address, known, "not hex", answer("y"))
        changed = KnownServers(tmp_path / "known-old")
        changed.remember(address, "AA" * 32)  # another certificate was trusted here before
        remembered = await resolve_pin(address, changed, None, answer("y"))
        with pytest.raises(CertificateRefused, match="different certificate than last time"):
            await connect(address, "ann", pin=remembered, known=changed)
        assert not asked  # (the known servers' words, not those of a --fingerprint given)
        with pytest.raises(CertificateRefused, match=r"not the .* you gave"):
            await connect(address, "ann", pin="BB" * 32, known=changed)
        changed.path.chmod(0o666)  # (a file others may write in: not read for the words,
        with pytest.raises(CertificateRefused, match=r"not the .* you gave"):  # a review)
            await connect(address, "ann", pin="BB" * 32, known=changed)


async def test_a_trusted_server_is_not_probed_before_its_connection(tmp_path: Path) -> None:
    """A server trusted before is held to its remembered fingerprint by the connection
    itself: no connection of its own to read the certificate first (which a full server
    counts as a silent one, and which a second `connect` within minutes would count twice)."""
    known = KnownServers(tmp_path / "known")
    address = f"127.0.0.1:{free_port()}"  # (nothing listens there)
    known.remember(address, "CD" * 32)
    assert await resolve_pin(address, known, None, None) == normalise_fingerprint("CD" * 32)
    with pytest.raises(ConnectFailed, match="cannot reach"):  # not trusted: probed
        await resolve_pin(address, KnownServers(tmp_path / "none"), None, None)


async def test_create_sit_play_leave_and_quit_through_the_lobby(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        address = f"127.0.0.1:{server.port}"
        link = await connect(
            address, "ann", pin=server.fingerprint, known=KnownServers(tmp_path / "k")
        )
        client = Client(link)
        screen = LobbyScreen(
            me="ann", server=link.server, address=address, fingerprint=link.fingerprint
        )
        bob = await make_client(server, "bob", tmp_path)
        bob.keep = True
        bob_reads = asyncio.create_task(bob.run())
        await bob.send(m.ListTables())
        with create_pipe_input() as keys:
            shell = Shell(input=keys, output=DummyOutput())
            screens = asyncio.create_task(
                lobby_and_tables(client, screen, bots="random", shell=shell)
            )
            await wait_for(lambda: client.tables is not None)
            # one application: the lobby, then the table, then the lobby on its stack; the
            # client's messages go to the shell throughout (no callback swapped)
            assert [type(s) for s in shell.stack] == [LobbyApp]
            assert client.on_message == shell.on_message
            keys.send_text("c")
            keys.send_text("hello lobby\r")
            await wait_for(
                lambda: any(isinstance(x, m.Chat) and x.text == "hello lobby" for x in bob.received)
            )
            keys.send_text("n")  # the form, with a name ready
            await wait_for(lambda: screen.form is not None)
            assert screen.form is not None and screen.form.name == "ann's table"
            keys.send_text("\x1b[B" * 4)  # down to the password row
            keys.send_text("pw")
            keys.send_text("\r")  # create, and sit down at it
            await wait_for(lambda: client.model.slot is not None)
            await wait_for(lambda: [type(s) for s in shell.stack] == [TableApp])
            assert shell.app.is_running and client.on_message == shell.on_message
            info = server.lobby.tables["ann's table"].info()
            assert info.password and info.players[0] == "ann"
            # bob, in the lobby, sees it; a wrong password keeps him out
            await wait_for(lambda: bob.tables is not None and len(bob.tables) == 1)
            await bob.send(m.Join(table="ann's table", password="nope"))
            await wait_for(lambda: any(e.code == "wrong_password" for e in bob.errors))
            # at the table: three bots, ready, and the game is on
            keys.send_text("bbb")
            await wait_for(
                lambda: (
                    client.model.view is not None and all(c.name for c in client.model.view.chairs)
                )
            )
            keys.send_text("r")
            await wait_for(lambda: client.model.playing)
            # leaving mid-game asks once more, then goes back to the lobby
            keys.send_text("q")
            await asyncio.sleep(0.2)
            assert client.model.slot is not None
            keys.send_text("q")
            # back in the lobby, the seat given up (not `model.view is None`: a view the
            # server sent before it heard the leave may arrive after it, and the model
            # keeps the last view it heard: a fresh-clone CI run waited 20 s on it)
            await wait_for(
                lambda: [type(s) for s in shell.stack] == [LobbyApp] and client.model.slot is None
            )
            await wait_for(lambda: screen.tables != ())
            keys.send_text("q")  # in the lobby q asks once (a pass's q q from a table quit)
            lobby = shell.stack[-1]
            assert isinstance(lobby, LobbyApp)
            # (the lobby's state, not its message line: a server's message heard just
            # after may take the line, a fresh-clone CI run; the next q quits all the same)
            await wait_for(lambda: lobby.quit_asked)
            assert shell.stack and shell.app.is_running
            keys.send_text("q")
            await asyncio.wait_for(screens, 30)
            assert not shell.stack and not shell.app.is_running
        bob_reads.cancel()
        await bob.link.close()
        await client.link.close()
        assert not [e for e in client.errors if e.about], client.errors


async def test_only_a_table_we_asked_for_opens_the_table_screen(tmp_path: Path) -> None:
    """Views of a table just left may still be on their way when the lobby comes back:
    they must not bounce the user back to that table."""
    from president.client.tui.lobby_app import LobbyApp

    async with running_server(tmp_path) as server:
        link = await connect(
            f"127.0.0.1:{server.port}",
            "ann",
            pin=server.fingerprint,
            known=KnownServers(tmp_path / "k"),
        )
        client = Client(link)
        view = m.TableView(
            table="T",
            number=1,
            status="waiting",
            rules={"preset": "classic"},
            chairs=tuple(m.Chair(name="", bot="", connected=False, ready=False) for _ in range(4)),
            turn_deadline_ms=0,
        )
        with create_pipe_input() as keys:
            lobby = LobbyApp(client, LobbyScreen(me="ann"), input=keys, output=DummyOutput())
            client.on_message = lobby.on_message
            reading = asyncio.create_task(client.run())
            running = asyncio.create_task(lobby.app.run_async())
            await wait_for(lambda: lobby.app.is_running)
            await lobby.on_message(view)  # a stale view: nothing asked for
            await asyncio.sleep(0.1)
            assert not running.done()
            lobby.send(m.Spectate(table="nowhere"))  # asked: an error ends the asking
            await wait_for(lambda: not lobby.entering)
            lobby.send(m.Join(table="T"))
            await lobby.on_message(view)  # the view of the table we asked for
            await asyncio.wait_for(running, 30)
            assert lobby.outcome == "table"
        reading.cancel()
        await link.close()


async def test_the_lobby_screen_shows_hundreds_of_tables(
    tmp_path: Path, cheap_scrypt: None
) -> None:
    """210 tables with the longest names and many toggles (one `tables` frame would be over
    the 64 KiB cap): the client library and the lobby screen hold every one, and a new
    table is one `table_info`, not the whole list again."""
    from president.client.tui.lobby_app import LobbyApp

    async with running_server(
        tmp_path, tables_per_address=1000, lobby_update_seconds=0.01
    ) as server:
        host = await make_client(server, "host", tmp_path)
        hosting = asyncio.create_task(host.run())
        toggles = {
            "bombs": True,
            "twos_clear": True,
            "revolution": True,
            "must_beat": True,
            "jokers": 2,
            "joker_mode": "wild",
            "equal_plays": "skip",
            "target": 99,
        }
        names = [f"{i:03d} " + "\U0001d11e" * 36 for i in range(210)]
        for name in names:
            await host.send(
                m.CreateTable(name=name, preset="full", toggles=toggles, seats=8, password="pw")
            )
        await wait_for(lambda: len(server.lobby.tables) == 210)
        link = await connect(
            f"127.0.0.1:{server.port}",
            "ann",
            pin=server.fingerprint,
            known=KnownServers(tmp_path / "k"),
        )
        client = Client(link)
        client.keep = True
        with create_pipe_input() as keys:
            lobby = LobbyApp(client, LobbyScreen(me="ann"), input=keys, output=DummyOutput())
            client.on_message = lobby.on_message
            reading = asyncio.create_task(client.run())
            running = asyncio.create_task(lobby.app.run_async())
            await client.send(m.ListTables())
            await wait_for(lambda: len(lobby.screen.tables) == 210)
            assert client.tables is not None and [t.name for t in client.tables] == names
            shown = "".join(text for _, text, *_ in lobby._tables()).splitlines()
            assert len(shown) == 210 and shown[-1].startswith("209 ")
            pages = [x for x in client.received if isinstance(x, m.Tables)]
            assert len(pages) > 1 and not pages[-1].more
            await host.send(m.CreateTable(name="late", preset="classic", toggles={}, seats=3))
            await wait_for(lambda: len(lobby.screen.tables) == 211)
            assert lobby.screen.tables[-1].name == "late"
            assert [x for x in client.received if isinstance(x, m.Tables)] == pages
            keys.send_text("qq")  # (q asks once)
            await asyncio.wait_for(running, 30)
        reading.cancel()
        hosting.cancel()
        await link.close()
        await host.link.close()


def test_the_table_list_is_built_from_pages_and_news() -> None:
    from president.client.model import TableList

    def info(name: str) -> m.TableInfo:
        return m.TableInfo(
            name=name,
            preset="classic",
            changes="",
            seats=3,
            players=("", "", ""),
            status="waiting",
            password=False,
            turn_seconds=60,
            spectators=0,
        )

    listing = TableList()
    assert not listing.take(m.TableChanged(info("early")))  # no list yet: nothing shown
    assert not listing.take(m.Tables(tables=(info("a"),), page=0, more=True))
    assert listing.tables is None  # a list is shown only once it is whole
    assert not listing.take(m.Tables(tables=(info("x"),), page=2, more=False))  # out of order
    assert listing.take(m.Tables(tables=(info("b"),), page=1, more=False))
    assert listing.tables is not None and [t.name for t in listing.tables] == ["a", "b"]
    assert listing.take(m.TableChanged(info("c")))
    assert listing.take(m.TableChanged(replace(info("a"), status="playing")))
    assert listing.take(m.TableGone(table="b"))
    assert [(t.name, t.status) for t in listing.tables] == [("a", "playing"), ("c", "waiting")]
    assert listing.take(m.Tables(tables=()))  # a fresh list replaces it all
    assert listing.tables == ()


def test_the_waiting_room_counts_seats_as_people_do() -> None:
    """Before the game the table's empty chairs are "seat 1" to "seat N", as the lobby's
    list of seats counts them (a newcomer read "seat 0: empty")."""
    from types import SimpleNamespace

    from president.client.model import Chair, TableModel, TableState
    from president.client.tui.app import TableApp

    model = TableModel(me="ann", slot=1)
    chairs = (Chair("", "", False, False), Chair("ann", "", True, False))
    chairs += (Chair("", "", False, False),)
    model.table = TableState("T", "waiting", chairs, "classic", (), None)
    client = SimpleNamespace(model=model, ladder=SimpleNamespace(rating=lambda name: None))
    lines = [text for _, text in TableApp._waiting_lines(SimpleNamespace(client=client), 60)]  # type: ignore[arg-type]
    assert lines == ["  seat 1: empty", "  ann (you): not ready", "  seat 3: empty"]


def test_after_a_game_the_seats_show_who_sits_there_now() -> None:
    """A pass: the game's bots left when it ended, a server bot came, and the table
    screen kept the old seats (one "away") while the next game waited on an empty chair.
    Once the chairs are not the game's seats, the screen shows them as before a game."""
    from types import SimpleNamespace

    from president.client.model import Chair, TableModel, TableState
    from president.client.tui.app import TableApp

    from ..views import a_public_view

    model = TableModel(me="ann", slot=0)
    seating = ("ann", "ben", "hb-1", "hb-2")
    model.public = a_public_view(seating, phase=Phase.GAME_OVER, turn=None)
    same = tuple(Chair(name, "", True, False) for name in seating)
    model.table = TableState("T", "finished", same, "classic", (), None)
    client = SimpleNamespace(model=model, ladder=SimpleNamespace(rating=lambda name: None))
    app = SimpleNamespace(client=client)
    rows = TableApp._seat_rows(app)  # type: ignore[arg-type]
    assert rows is not None and [row.name for row in rows][:2] == ["ann (you)", "ben"]
    now = (
        *same[:2],
        Chair("heuristic-bot-1", "heuristic", True, True),
        Chair("", "", False, False),
    )
    model.table = TableState("T", "finished", now, "classic", (), None)
    assert TableApp._seat_rows(app) is None  # type: ignore[arg-type]
    lines = [text for _, text in TableApp._waiting_lines(app, 60)]  # type: ignore[arg-type]
    assert lines[2:] == ["  heuristic-bot-1 (bot): ready", "  seat 4: empty"]


def test_typing_on_a_row_of_choices_goes_to_the_setting_named() -> None:
    """A user pressed ↓ forty times to reach `target`: on a row of choices, letters go to
    the row whose label starts with them; typed again, on to the next such row."""
    from president.client.tui.lobby import TableForm

    form = TableForm(name="friday")
    form.type("t")  # the name's row: typed into the name
    assert form.key == "name" and form.name == "friday" + "t"
    form.move(1)  # the preset's row
    for letter in "targ":
        form.type(letter)
    assert form.key == "target"
    form.type("x")  # leads nowhere: the row stays
    assert form.key == "target"
    form.move(-1)
    form.type("s")  # the next row from here whose label starts with "s"
    first = form.key
    assert first.startswith("s")
    form.type("s")  # again: the next one
    assert form.key.startswith("s") and form.key != first
    form.change(1)  # a value changed: what comes next is typed afresh
    assert form.finding == ""


def test_the_lobby_chat_shows_what_was_said_before() -> None:
    """Who comes to the lobby (or back from a table) reads its last lines, under a line
    saying how long ago they began; an empty history leaves the chat as it was."""
    screen = LobbyScreen(me="ann")
    screen.record(m.Chat(scope="lobby", text="hi", sender="bob"))
    screen.record(m.ChatHistory(lines=()))
    assert screen.chat == ["<bob> hi"]
    lines = (
        m.ChatLine(sender="bob", text="we start at 8", ago=600),
        m.ChatLine(sender="cat", text="I bring snacks", ago=30),
    )
    screen.record(m.ChatHistory(lines=lines))
    assert screen.chat == [
        "— earlier in the lobby (from 10 min ago) —",
        "<bob> we start at 8",
        "<cat> I bring snacks",
    ]
    screen.record(m.ChatHistory(lines=lines[1:]))
    assert screen.chat[0] == "— earlier in the lobby —"  # (under a minute ago)


def test_letters_never_go_to_a_row_that_takes_them_and_digits_set_a_number() -> None:
    """Typing "passing" from the preset's row stopped on the password's ("pa"), and
    "ssing" became the table's password; letters now go only to rows of choices.  On a
    whole number's row, digits set it (the first replaces it)."""
    from president.client.tui.lobby import TableForm

    form = TableForm(name="friday")
    form.move(1)
    for letter in "passing":
        form.type(letter)
    assert form.key == "passing" and form.password == "" and form.name == "friday"
    assert "letters go to a setting" in form.hint()
    for letter in "tar":
        form.type(letter)
    assert form.key == "target" and "digits" in form.hint()
    form.type("1")
    form.type("5")
    assert form.rules().target == 15
    form.move(1)
    form.move(-1)
    form.type("7")  # after a move: the first digit replaces the number
    assert form.rules().target == 7
    assert form.hint().startswith("←/→ or digits")


def test_a_chat_line_cannot_pass_for_another_speakers() -> None:
    """A hostile guest's chat, "ok", 420 spaces, then "<ann> change of plan ...", put
    ann's name at the start of a row of its own in everyone's lobby (and the history
    kept it for newcomers): the spaces are one space, the line's continuations
    indented (a name may not hold < or >: tests/server/test_names.py)."""
    from president.client.tui.fit import wrap

    screen = LobbyScreen(me="bob")
    screen.record(m.Chat(scope="lobby", text="ok" + " " * 420 + "<ann> plan B", sender="mal"))
    screen.record(m.ChatHistory(lines=(m.ChatLine("mal", "ok\u3000" * 3 + "x", 5),)))
    assert screen.chat[-1] == "<mal> ok ok ok x"
    line = "<mal> ok <ann> change of plan: table Friday2, password hunter22"
    for width in range(10, 60):
        rows = wrap(line, width, 2)
        assert all(not row.startswith("<") for row in rows[1:]), rows


def test_the_form_says_how_long_a_tables_name_may_be() -> None:
    """A host's pass typed a name of 47 characters and saw it cut at 40, unsaid."""
    from president.client.tui.lobby import TableForm

    form = TableForm(name="friday", suggested=False)
    assert form.rows()[0][2] == "type it (up to 40 characters)"
    form.type(" and a really long name for saturday night fun")
    assert (
        len(form.name) == 40 and form.rows()[0][2] == "40 characters: the most a table's name has"
    )


async def test_a_table_the_server_refuses_brings_its_form_back_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server refuses a name that looks like a table's: the form comes back with every
    setting as typed, on the name's row, saying why, until the name changes (a pass lost
    its preset and toggles, and the next keys ran as the lobby's).  And a rule set saved
    while connected is offered the next time the form opens (it was only after a restart)."""
    from president.cli.connect import table_rule_sets

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    async with running_server(tmp_path) as server:
        bob = await make_client(server, "bob", tmp_path)
        await bob.send(m.CreateTable(name="friday", preset="classic", toggles={}, seats=4))
        await wait_for(lambda: "friday" in server.lobby.tables)
        link = await connect(
            f"127.0.0.1:{server.port}",
            "ann",
            pin=server.fingerprint,
            known=KnownServers(tmp_path / "k"),
            identity=bot_key("ann"),
        )
        client = Client(link)
        screen = LobbyScreen(me="ann", read_saved=table_rule_sets)
        with create_pipe_input() as keys:
            lobby = LobbyApp(client, screen, input=keys, output=DummyOutput())
            client.on_message = lobby.on_message
            reading = asyncio.create_task(client.run())
            running = asyncio.create_task(lobby.app.run_async())
            await wait_for(lambda: lobby.app.is_running)
            await client.send(m.ListTables())
            await wait_for(lambda: len(screen.tables) == 1)
            saved = tmp_path / "config" / "president" / "rules" / "revo.toml"
            saved.parent.mkdir(parents=True)
            saved.write_text('preset = "daifugo"\nrounds = 1\n')
            keys.send_text("n")
            await wait_for(lambda: screen.form is not None)
            assert screen.form is not None and "revo" in screen.form.saved
            keys.send_text("Friday")
            keys.send_text("\x1b[B")  # the preset row: daifugo
            while screen.form is None or screen.form.preset != "daifugo":
                keys.send_text("\x1b[C")
                await asyncio.sleep(0.05)
            keys.send_text("\x1b[B" * 3 + "pw")  # the password
            keys.send_text("\r")
            await wait_for(lambda: any(e.about == m.CreateTable.TYPE for e in client.errors))
            await wait_for(lambda: screen.form is not None)
            form = screen.form
            assert form is not None
            assert (form.name, form.preset, form.password, form.row) == (
                "Friday",
                "daifugo",
                "pw",
                0,
            )
            assert "looks like table 'friday'" in form.said()
            assert screen.message == ""  # (said under the form, not cut on the line below)
            # a refusal as long as a server may send (500 wide characters) takes a third of
            # the rows at most: the form's own rows stay in sight (a hostile pass)
            form.refused = ("山" * 500, form.request())
            drawn = "".join(text for _, text in lobby._form()).splitlines()
            told = [line for line in drawn if "山" in line]
            assert 1 <= len(told) <= max(1, (lobby._rows() - 4) // 3), drawn
            assert told[-1].endswith("…") and any("preset" in line for line in drawn)
            form.refused = None
            keys.send_text("\x7f" * 6 + "saturday")  # a new name: the refusal is not said
            await wait_for(lambda: form.name == "saturday")
            assert "looks like" not in form.said()
            keys.send_text("\r")
            await wait_for(lambda: "saturday" in server.lobby.tables)
            assert server.lobby.tables["saturday"].settings.preset == "daifugo"
            keys.send_text("\x03")
            await asyncio.wait_for(running, 30)
        reading.cancel()
        await link.close()
        await bob.link.close()

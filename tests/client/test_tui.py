"""The table screen driven like a person would: keys through a pipe, against bots at a
real loopback server started the way `president play` starts it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from president.cli.play import start_local_game
from president.client.connection import Client
from president.client.pinning import KnownServers
from president.client.tui.app import TableApp
from president.client.tui.narrator import card_text
from president.client.tui.table import RECONNECTED, TableScreen
from president.engine import Card, GameOver, Gave, Passed, Phase, Played, Returned
from president.protocol import messages as m
from president.server.app import ListenError, Server
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from ..harness.servers import in_play
from ..harness.waiting import wait_for
from ..views import a_public_view


def local_args(**changes: object) -> argparse.Namespace:
    args = dict(name="ann", preset="classic", players=4, bots="random", bot_delay=0.0, pause=0.0)
    args.update(changes)
    return argparse.Namespace(**args)


@contextlib.asynccontextmanager
async def local_screen(
    tmp_path: Path, private: bool = False, **changes: object
) -> AsyncIterator[tuple[TableApp, PipeInput, Server]]:
    """`president play`'s game, its screen fed keys through a pipe; quits and cleans up.
    Its server on loopback, or with `private` on a Unix socket (as the command has it)."""
    folder = None
    if private:
        folder = tmp_path / "private"
        folder.mkdir(mode=0o700)
    server, client = await start_local_game(
        local_args(**changes), tmp_path, KnownServers(tmp_path / "known"), folder
    )
    assert (server.config.unix_socket is not None) == private
    with create_pipe_input() as keys:
        table = TableApp(client, input=keys, output=DummyOutput())
        network = asyncio.create_task(table.network(client.reconnect, retry_seconds=0.1))
        running = asyncio.create_task(table.app.run_async())
        try:
            await wait_for(lambda: in_play(client), 30)
            yield table, keys, server
            keys.send_text("q")  # mid-game this asks again ...
            keys.send_text("q")  # ... and this leaves
            await asyncio.wait_for(running, 30)
        finally:
            network.cancel()
            running.cancel()
            await client.link.close()
            await server.close()


async def test_a_local_game_of_twelve_seats_every_bot(tmp_path: Path) -> None:
    """`president play --players 12 --set decks=2` seated 8 bots, the LAN server's limit
    for one address, and waited for ever; every other seat is a bot now."""
    async with local_screen(tmp_path, players=12, toggles={"decks": 2}) as (table, _, server):
        chairs = server.lobby.tables["local"].chairs
        assert sum(slot.bot is not None for slot in chairs) == 11
        assert table.client.model.public is not None
        assert len(table.client.model.public.counts) == 12


def acted(client: Client, since: int, seat: int | None) -> bool:
    """The server announced a play, pass or return of `seat` after event `since`."""
    for event in client.model.events[since:]:
        if isinstance(event, (Played, Passed)) and event.seat == seat:
            return True
        if isinstance(event, Returned) and event.giver == seat:
            return True
    return False


async def test_a_whole_game_played_by_keystrokes(tmp_path: Path) -> None:
    # (to 3 points, not 11: two or three hands, the exchange in the second, then the end)
    async with local_screen(tmp_path, toggles={"target": 3}) as (table, keys, server):
        client, screen = table.client, table.screen
        moves = returns = asked_again = 0

        def over() -> bool:
            return client.model.public is not None and client.model.public.phase is Phase.GAME_OVER

        while not over():
            await wait_for(lambda: client.model.my_turn or over(), 20)
            if over():
                break
            # wait for the server's word on each key's move, not for the screen: the bots
            # answer at once, so the turn may be ours again before we look
            since, seat = len(client.model.events), client.model.seat
            viewed = client.model.seen  # (the view the keys answer)
            exchange = (
                client.model.public is not None and client.model.public.phase is Phase.EXCHANGE
            )
            screen.message = ""
            keys.send_text("s")  # the suggested play (or return), or "s suggests passing" ...
            # (or the game ends meanwhile: a last seat with cards is placed without a move,
            # and the game over clears what s said; seen under load)
            await wait_for(lambda: bool(screen.selected) or bool(screen.message) or over())
            if over():
                break
            if screen.selected:
                assert screen.explain() is None  # ... which the engine accepts
                keys.send_text("\r")
            elif screen.pass_suggested is not None or "no play" in screen.message:
                keys.send_text("p")
            else:  # (another word came first, "it is not your turn" at a moment the
                # model moved: the key is asked again, not a pass sent blind)
                asked_again += 1
                assert asked_again < 100, (screen.message, screen.status_line())
                await asyncio.sleep(0.05)
                continue
            state = lambda: f"{screen.message!r} {screen.status_line()} {client.errors[-3:]}"  # noqa: E731
            await wait_for(lambda since=since, seat=seat: acted(client, since, seat), what=state)
            # and the view made after it: the events come first, and a turn read off the
            # view before was ours still (under load the keys then answered a turn gone,
            # were refused on the screen, and the wait above waited for ever)
            await wait_for(lambda viewed=viewed: client.model.seen > viewed, what=state)
            moves += 1
            returns += exchange
        assert moves > 0 and any(line.startswith("game over") for line in screen.log)
        assert returns > 0 or not any(
            isinstance(e, Gave) and e.receiver == client.model.seat for e in client.model.events
        )
        assert screen.summary[0].startswith("GAME OVER")
        # the final standings: every hand of the game, the winners, the office
        public = client.model.public
        assert public is not None and len(screen.results) == public.hands_played
        standings = screen.standings()
        assert standings[0].startswith(f"GAME OVER after {public.hands_played} hand")
        assert any(line.startswith("President: ") for line in standings)
        assert all(winner in standings[0] for winner in public.winners)
        assert not [e for e in client.errors if e.about], client.errors
        await wait_for(lambda: screen.deal_line().endswith("verified"))
        keys.send_text("?")
        await wait_for(lambda: screen.help)
        keys.send_text("x")  # any key closes the help
        await wait_for(lambda: not screen.help)
    assert server.records  # quitting stopped the server, which wrote the record


async def test_an_illegal_choice_is_explained_before_it_is_sent(tmp_path: Path) -> None:
    async with local_screen(tmp_path, bot_delay=0.5) as (table, keys, _):
        client, screen = table.client, table.screen
        await wait_for(lambda: client.model.my_turn, 30)
        ranks = [c.rank for c in screen.hand()]
        other = next(i for i, r in enumerate(ranks) if r != ranks[0])
        screen.toggle(0)
        screen.toggle(other)  # two ranks are never one play
        keys.send_text("\r")
        await wait_for(
            lambda: (
                "one rank" in screen.message
                or "3C" in screen.message
                or "cannot be beaten" in screen.message
            )
        )
        assert screen.selected == {0, other}  # kept, and nothing was sent
        assert not client.errors


def test_the_screen_state_without_a_terminal() -> None:
    from president.client.model import TableModel

    screen = TableScreen(
        TableModel(me="ann", hand=[Card.parse("3C"), Card.parse("2S"), Card.parse("7H")])
    )
    assert [str(c) for c in screen.hand()] == ["3C", "7H", "2S"]
    screen.move(1)
    assert screen.cursor == 1
    screen.move(5)
    assert screen.cursor == 0
    screen.toggle()
    assert screen.chosen() == [Card.parse("3C")]
    assert screen.explain() == "wait for the hand to start"
    screen.heard(GameOver(("bob",)))
    assert screen.summary[0] == "GAME OVER — bob won!"


def test_the_exchange_line_says_what_went_and_came() -> None:
    """From the exchange the server sealed to this seat: exact, even with two decks
    where the same card can go and come back."""
    from president.client.model import TableModel
    from president.engine import parse_cards

    model = TableModel(me="ann", hand=list(parse_cards("3C 4D 2S AH")))
    model.public = a_public_view(("bob", "ann", "cat"), dealer=0, standing=("ann", "bob", "cat"))
    screen = TableScreen(model)
    assert screen.exchanged() == ""
    got, gave = parse_cards("2S AH"), parse_cards("5H 2S")
    model.exchange = (Gave(2, 1, 2, got), Returned(1, 2, 2, gave, False))
    assert screen.exchanged() == "exchange: you gave 5♥ 2♠; you got A♥ 2♠"


@pytest.mark.parametrize("private", [True, False], ids=["unix socket", "loopback"])
async def test_a_dropped_connection_is_taken_back_by_itself(tmp_path: Path, private: bool) -> None:
    async with local_screen(tmp_path, private, bot_delay=0.05) as (table, _keys, _):
        client, screen = table.client, table.screen
        assert client.model.public is not None
        slot, hand = client.model.slot, client.model.public.hand_number
        old = client.link
        old.writer.transport.abort()  # the Wi-Fi drops
        await wait_for(lambda: screen.connection.startswith("connection lost"), 20)
        await wait_for(lambda: client.link is not old and screen.connection == "connected", 60)
        # (said alone, or with the hand under way where nothing was missed meanwhile)
        await wait_for(lambda: any(line.startswith(RECONNECTED[:-2]) for line in screen.log), 20)
        assert screen.message == ""  # (the turn's hint is not hidden behind it)
        await wait_for(lambda: client.model.public is not None and client.model.hand != [], 20)
        assert client.model.slot == slot
        assert client.model.public is not None and client.model.public.hand_number >= hand


async def test_a_mouse_click_chooses_the_card_under_it(tmp_path: Path) -> None:
    async with local_screen(tmp_path, bot_delay=0.5) as (table, keys, _):
        screen, app = table.screen, table.app
        # on her turn the table waits for her: nothing moves on the screen meanwhile, so
        # the card is still where the last drawing put it when the click comes
        await wait_for(lambda: table.client.model.my_turn and len(screen.hand()) > 2, 60)
        drawn = app.render_counter
        app.invalidate()
        await wait_for(lambda: app.render_counter > drawn and table.hand_window.render_info)
        info = table.hand_window.render_info
        assert info is not None
        hand = screen.hand()
        # each card is drawn as one mark, its text, one mark: the third card's first column
        column = sum(len(card_text(c)) + 2 for c in hand[:2]) + 1
        x, y = info._x_offset + column + 1, info._y_offset + 1  # the terminal counts from 1
        keys.send_text(f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m")  # press and release (SGR mouse)
        await wait_for(lambda: bool(screen.selected))
        assert screen.selected == {2} and screen.cursor == 2


async def test_play_twice_with_the_same_data_is_a_new_game_each_time(tmp_path: Path) -> None:
    """`president play`'s embedded server keeps no journal: quitting mid-game and playing
    again starts afresh (its records still go to the data directory)."""
    for run in range(2):
        async with local_screen(tmp_path) as (_table, _keys, server):
            assert server.journal is None and list(server.lobby.tables) == ["local"]
        # quit mid-game: the game is ended and its record written, as before journals
        assert len(list((tmp_path / "records").glob("*.json"))) == run + 1
    assert not (tmp_path / "tables.sqlite3").exists()


async def test_play_proves_the_players_key_with_no_question(tmp_path: Path) -> None:
    """`president play` gives its embedded server the player's key (made on first use,
    asking nothing): the newest version (4 or later: keys), the key's id known to the
    server's session."""
    from president.client.identity import KeyFile

    path = tmp_path / "config" / "president" / "identity"
    server, client = await start_local_game(
        local_args(key=KeyFile(path).check()), tmp_path / "data", KnownServers(tmp_path / "known")
    )
    try:
        assert path.exists() and client.link.conn.version == max(m.VERSIONS)
        assert client.link.player_id
        assert {s.player_id for s in server.sessions} == {client.link.player_id}
        # no ladder asked for nor shown: it would live as long as this game
        assert not client.ladder.wanted()
    finally:
        await client.link.close()
        await server.close()


def test_help_pages_cut_lines_to_the_height_and_say_how_to_go_on() -> None:
    from president.client.tui.fit import HelpPages

    pages, lines = HelpPages(), [f"line {n}" for n in range(10)]
    assert pages.page_of(lines, 10) == lines and pages.pages == 1 and not pages.next()
    first = pages.page_of(lines, 4)  # three lines a page and the hint: four pages
    assert first == ["line 0", "line 1", "line 2", " ? or space: more (1/4)"]
    seen = first[:-1]
    while pages.next():
        page = pages.page_of(lines, 4)
        assert len(page) == 4
        seen += [line for line in page[:-1] if line]
    assert seen == lines and page[-1] == " (4/4) any key closes" and pages.page == 0


def test_a_help_page_breaks_between_entries_not_inside_one() -> None:
    from president.client.tui.fit import HelpPages, help_lines

    lines = help_lines([(str(n), "a few words " * (n % 3 + 1)) for n in range(12)], 30)
    pages, seen = HelpPages(), []
    while True:
        page = pages.page_of(lines, 6)
        assert len(page) == 6 and not page[0].startswith("    "), page
        seen += [line for line in page[:-1] if line]
        if not pages.next():
            break
    assert seen == lines


def test_a_page_break_starts_a_page_only_where_the_help_has_more_than_one() -> None:
    from president.client.tui.fit import PAGE_BREAK, HelpPages

    keys, rules = [f"key {n}" for n in range(5)], [f"rule {n}" for n in range(3)]
    lines = [*keys, PAGE_BREAK, *rules]
    pages = HelpPages()
    assert pages.page_of(lines, 8) == keys + rules and pages.pages == 1  # (all fit)
    assert pages.page_of(lines, 7)[:5] == keys and pages.pages == 2  # (the rules' own page)
    pages.next()
    assert pages.page_of(lines, 7) == [*rules, "", "", "", " (2/2) any key closes"]


async def test_only_the_player_reaches_president_plays_server(tmp_path: Path) -> None:
    """Loopback is every local user's: a hostile pass, as another user, listed the
    embedded server's tables (the player's name among them), watched the game and
    chatted at its table.  The server asks a password only `president play`'s own client
    has: another client, without it or guessing, is refused at hello; and its guesses,
    from the same address, do not hold up the player's own client coming back."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from president.client.connection import ConnectFailed, connect

    async with local_screen(tmp_path, key=Ed25519PrivateKey.generate()) as (table, _, server):
        where = f"127.0.0.1:{server.port}"
        for password in (None, "local", "guess"):
            try:
                link = await connect(where, "eve", pin=server.fingerprint, password=password)
            except ConnectFailed:  # (PasswordNeeded, or the wrong one's wait)
                continue
            await link.close()
            raise AssertionError(f"let in with the password {password!r}")
        assert in_play(table.client)  # the player's own game goes on
        link = await table.client.reconnect()  # and its client comes back at once
        await link.close()


async def test_play_listens_on_loopback_only_where_there_can_be_no_socket(
    tmp_path: Path,
) -> None:
    """A path too long for a socket: loopback, its password alone keeping others out (the
    test above).  A socket that cannot be made otherwise is said, not passed over for
    loopback: another user who fills a shared /tmp (its inodes) as the game starts sent
    it to loopback, where they could hold every connection it allows one address."""
    folder = tmp_path / ("x" * 110)
    folder.mkdir(mode=0o700)
    server, client = await start_local_game(
        local_args(), tmp_path / "data", KnownServers(tmp_path / "known"), folder
    )
    try:
        assert server.config.unix_socket is None and server.port > 0
        assert [s.address for s in server.sessions] == ["127.0.0.1"]  # (welcomed)
        assert list(folder.iterdir()) == []
    finally:
        await client.link.close()
        await server.close()
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    with pytest.raises(ListenError, match="its folder is open to other users"):
        await start_local_game(
            local_args(), tmp_path / "data", KnownServers(tmp_path / "known"), folder
        )
    assert list(folder.iterdir()) == []


def test_play_makes_its_folder_in_the_users_own_runtime_folder(tmp_path: Path) -> None:
    """XDG_RUNTIME_DIR (a tmpfs of the user's own) when it is theirs alone."""
    from president.cli.play import runtime_dir

    mine = tmp_path / "run"
    mine.mkdir(mode=0o700)
    assert runtime_dir({"XDG_RUNTIME_DIR": str(mine)}) == str(mine)
    mine.chmod(0o755)
    assert runtime_dir({"XDG_RUNTIME_DIR": str(mine)}) is None
    (tmp_path / "file").write_text("")
    for where in ("", "run", str(tmp_path / "nowhere"), str(tmp_path / "file")):
        assert runtime_dir({"XDG_RUNTIME_DIR": where}) is None
    assert runtime_dir({}) is None


def test_plays_folder_goes_where_a_sockets_path_fits(tmp_path: Path) -> None:
    import shutil
    import tempfile

    from president.cli.play import folder_parent

    short = tempfile.mkdtemp(prefix="r-", dir="/tmp")
    open_ = Path(tempfile.mkdtemp(prefix="o-", dir="/tmp"))
    long = tmp_path / ("x" * 100)
    long.mkdir()
    try:
        assert folder_parent(short, str(long)) == short
        assert folder_parent(None, short) == short
        assert folder_parent(str(long), short) == short
        assert folder_parent(str(tmp_path / "gone"), short) == short
        assert folder_parent(None, str(long)) == "/tmp"  # (a test runner's TMPDIR, say)
        # open to every user's renaming (the working folder, where the system's choice
        # falls with /tmp and /var/tmp full): passed over
        open_.chmod(0o777)
        assert folder_parent(None, str(open_)) == "/tmp"
        open_.chmod(0o1777)  # (sticky, as /tmp)
        assert folder_parent(None, str(open_)) == str(open_)
    finally:
        shutil.rmtree(short)
        shutil.rmtree(open_)


def test_play_sweeps_away_the_folders_of_games_killed(tmp_path: Path) -> None:
    """A game killed (SIGKILL, a crash) leaves its folder; the next `president play`
    removes those of this user's whose socket no longer listens, a minute old."""
    import os
    import socket

    from president.cli.play import sweep_killed

    def folder(name: str, listening: bool | None, age: float = 120) -> Path:
        made = tmp_path / name
        made.mkdir(mode=0o700)
        if listening is not None:
            sock = socket.socket(socket.AF_UNIX)
            sock.bind(str(made / "server"))
            if listening:
                sock.listen(1)
                held.append(sock)
            else:
                sock.close()  # (its file stays: nothing listens on it)
        os.utime(made, (os.path.getmtime(made) - age,) * 2)
        return made

    held: list[socket.socket] = []
    try:
        killed = folder("president-play-killed", listening=False)
        empty = folder("president-play-empty", listening=None)  # (killed as it began)
        older_kind = tmp_path / "president-play-tcp"  # (its client's file, no socket)
        older_kind.mkdir(mode=0o700)
        (older_kind / "known").write_text("")
        os.utime(older_kind, (os.path.getmtime(older_kind) - 120,) * 2)
        alive = folder("president-play-alive", listening=True)
        young = folder("president-play-young", listening=False, age=0)
        other = folder("other-killed", listening=False)
        (tmp_path / "president-play-file").write_text("")
        kept = [alive, young, older_kind, other, tmp_path / "president-play-file"]
        if os.geteuid() == 0:  # (another user's, as root can make one)
            theirs = folder("president-play-theirs", listening=False)
            os.chown(theirs, 65534, 65534)
            kept.append(theirs)
        assert sweep_killed(tmp_path, seconds=0) == []  # (out of time at the first)
        assert sorted(sweep_killed(tmp_path)) == [empty, killed]
        assert not killed.exists() and not empty.exists()
        assert all(path.exists() for path in kept)
    finally:
        for sock in held:
            sock.close()

"""Nobody sees a card they should not, nobody acts for a seat that is not theirs."""

from __future__ import annotations

import asyncio
import re
import ssl
from pathlib import Path

import pytest
from president.client.connection import Client, ConnectFailed, client_tls, connect
from president.client.pinning import KnownServers, PinMismatch
from president.protocol import messages as m
from president.protocol.sealing import SealError, open_hand

from ..harness.servers import client, in_play, running_server, table_of_bots
from ..harness.waiting import wait_for

CARD = re.compile(r"(10|[2-9JQKAT])[CDHS]|JK", re.IGNORECASE)


def strings_in(value: object) -> list[str]:
    """Every text value anywhere in a wire value (card notation only travels as text)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


#: A game of two or three hands (classic plays to 11 points, some eight hands): the
#: first deals, the second has the exchange.
SHORT: dict[str, object] = {"target": 3}


async def game_over(bots: list[object]) -> None:
    await asyncio.wait_for(asyncio.gather(*(b.game_over.wait() for b in bots)), 60)  # type: ignore[attr-defined]


async def test_no_client_ever_receives_another_seats_cards(tmp_path: Path) -> None:
    # (a seed window no machine misses, so no seed comes too late to be counted: each
    # deal goes as soon as the four seeds are in)
    async with running_server(tmp_path, seed_seconds=120) as server:
        # (two hands: the deal, then the exchange)
        clients, bots, tasks = await table_of_bots(
            server, tmp_path, preset="house", toggles={"rounds": 2}
        )
        await game_over(bots)
        for c in clients:
            assert not c.errors, c.errors
            played: set[str] = set()
            seating: tuple[str, ...] = ()
            sealed_seen = 0
            for msg in c.received:
                if isinstance(msg, m.HandStarted):
                    seating, played = msg.seating, set()
                elif isinstance(msg, m.Played):
                    played.update(msg.cards)
                elif isinstance(msg, m.SealedHand):
                    sealed_seen += 1
                    assert seating[msg.seat] == c.model.me, "a hand sealed for another seat"
                elif isinstance(msg, m.TableView):
                    # the only cards in a view are those already played in the open
                    shown = [t for t in strings_in(msg.to_wire()) if CARD.fullmatch(t)]
                    assert set(shown) <= played, set(shown) - played
                else:
                    cards = [t for t in strings_in(msg.to_wire()) if CARD.fullmatch(t)]
                    assert not cards, msg
            assert sealed_seen >= 2
        for t in tasks:
            t.cancel()


async def test_a_spectator_never_sees_a_hand(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        watcher = await client(server, "watcher", tmp_path, role="spectator")
        watcher.keep = True
        wtask = asyncio.create_task(watcher.run())
        _clients, bots, tasks = await table_of_bots(server, tmp_path, toggles=SHORT)
        await watcher.send(m.Spectate(table="T"))
        await game_over(bots)
        await wait_for(lambda: any(isinstance(x, m.GameOver) for x in watcher.received))
        assert not [x for x in watcher.received if isinstance(x, m.SealedHand)]
        assert any(isinstance(x, m.Played) for x in watcher.received)
        await watcher.send(m.Join(table="T"))
        await wait_for(lambda: watcher.errors)
        assert watcher.errors[-1].code == "not_allowed"
        token = _clients[0].model.token  # nor with a seat's token
        await watcher.send(m.Resume(table="T", seat=_clients[0].model.slot or 0, token=token))
        await wait_for(lambda: len(watcher.errors) >= 2)
        assert (
            watcher.errors[-1].code == "not_allowed" and "spectator" in watcher.errors[-1].message
        )
        for t in [*tasks, wtask]:
            t.cancel()


async def test_acting_for_another_seat_or_with_its_token_fails(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0.2) as server:
        clients, _bots, tasks = await table_of_bots(server, tmp_path)
        await wait_for(lambda: in_play(clients[0]))
        intruder = await client(server, "mallory", tmp_path)
        itask = asyncio.create_task(intruder.run())
        # not seated: cannot play at all
        await intruder.send(m.PlayCards(cards=("3C",)))
        await wait_for(lambda: intruder.errors)
        assert intruder.errors[-1].code == "not_allowed"
        # another seat's token does not resume that seat
        token0 = clients[0].model.token
        await intruder.send(m.Resume(table="T", seat=1, token=token0))
        await wait_for(lambda: len(intruder.errors) >= 2)
        assert intruder.errors[-1].code == "bad_token"
        await intruder.send(m.Resume(table="T", seat=0, token=bytes(32)))
        await wait_for(lambda: len(intruder.errors) >= 3)
        assert intruder.errors[-1].code == "bad_token"
        # a seated player acting out of turn is refused
        public = clients[0].model.public
        assert public is not None
        idle = next(c for c in clients if c.model.seat != public.turn)
        before = len(idle.errors)
        await idle.send(m.PassTurn())
        await wait_for(lambda: len(idle.errors) > before or idle.model.my_turn)
        for t in [*tasks, itask]:
            t.cancel()


async def test_a_tampered_or_misdelivered_sealed_hand_does_not_open(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        clients, bots, tasks = await table_of_bots(server, tmp_path, toggles=SHORT)
        await game_over(bots)
        a, b = clients[0], clients[1]
        sealed = next(x for x in a.received if isinstance(x, m.SealedHand))
        args = (sealed.table, sealed.hand, sealed.seat, sealed.number)
        assert open_hand(sealed.sealed, a.link.key, *args)  # the owner opens it
        with pytest.raises(SealError):
            open_hand(sealed.sealed, b.link.key, *args)  # another player cannot
        tampered = bytearray(sealed.sealed)
        tampered[-1] ^= 0x80
        with pytest.raises(SealError):
            open_hand(bytes(tampered), a.link.key, *args)
        with pytest.raises(SealError):
            open_hand(
                sealed.sealed, a.link.key, sealed.table, sealed.hand, sealed.seat, sealed.number + 1
            )
        for t in tasks:
            t.cancel()


async def test_the_raw_bytes_hold_no_cards_and_no_plaintext_msgpack(tmp_path: Path) -> None:
    """A recording TCP proxy between one client and the server."""
    captured = bytearray()
    async with running_server(tmp_path) as server:

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while data := await reader.read(65536):
                    captured.extend(data)
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                writer.close()

        async def relay(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            ur, uw = await asyncio.open_connection("127.0.0.1", server.port)
            await asyncio.gather(pipe(r, uw), pipe(ur, w))

        proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
        proxy_port = proxy.sockets[0].getsockname()[1]
        watched = Client(
            await connect(
                f"127.0.0.1:{proxy_port}", "proxied", known=KnownServers(tmp_path / "known-proxied")
            )
        )
        watched.keep = True
        # (table P only lends a host for table Q: its own game is one hand)
        others, _bots, tasks = await table_of_bots(
            server, tmp_path, players=3, table="P", toggles={"target": 1}
        )
        import random as _random

        from president.bots.strategies import RandomBot
        from president.client.headless import BotPlayer

        bot = BotPlayer(watched, RandomBot(_random.Random(9)))
        wtask = asyncio.create_task(watched.run())
        await others[0].send(m.CreateTable(name="Q", preset="classic", toggles=SHORT, seats=4))
        # the proxied client plays a whole game at table Q with three server bots
        await watched.send(m.Join(table="Q"))
        await wait_for(lambda: watched.model.slot is not None)
        for _ in range(3):
            await others[0].send(m.AddBot(table="Q", strategy="random"))
        await watched.send(m.Ready())
        await asyncio.wait_for(bot.game_over.wait(), 60)
        assert any(isinstance(x, m.SealedHand) for x in watched.received)
        assert any(isinstance(x, m.Played) for x in watched.received)
        proxy.close()
        for t in [*tasks, wtask]:
            t.cancel()
    raw = bytes(captured)
    assert len(raw) > 10_000, len(raw)
    assert raw.count(b"\x17\x03\x03") > 10  # TLS application-data records
    from president.engine import deck
    from president.protocol.codec import pack

    # What plaintext would hold: msgpack field names, and cards as msgpack lists.
    for marker in (
        b"\xa4type",
        b"\xa6played",
        b"\xa5cards",
        b"\xa5hello",
        b"\xa6sealed",
        b"\xa4seat",
        pack("proxied"),
    ):
        assert marker not in raw, marker
    # In plaintext, every single card played would be such a list (4 or 5 bytes); in
    # ciphertext one turns up by chance about once in 100 runs (len(raw) * 53 / 2**32),
    # three or more about once in 10**7.
    singles = sum(1 for x in watched.received if isinstance(x, m.Played) and len(x.cards) == 1)
    listed = sum(raw.count(b"\x91" + pack(str(card))) for card in deck(1, 1))
    assert singles >= 10, singles
    assert listed <= 2, f"{listed} single-card msgpack lists in the raw bytes ({singles} plays)"


async def test_a_changed_certificate_is_refused(tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known")
    async with running_server(tmp_path) as server:
        link = await connect(f"127.0.0.1:{server.port}", "ann", known=known)
        await link.close()
        port = server.port
        first = server.fingerprint
    (tmp_path / "data" / "cert.pem").unlink()  # the host makes a new certificate
    async with running_server(tmp_path, port=port) as server:
        assert server.fingerprint != first
        with pytest.raises(PinMismatch, match="different certificate"):
            await connect(f"127.0.0.1:{port}", "ann", known=known)
        with pytest.raises(ConnectFailed, match=r"not the .* you gave"):
            await connect(
                f"127.0.0.1:{port}", "ann", known=KnownServers(tmp_path / "k2"), pin=first
            )
        link = await connect(f"127.0.0.1:{port}", "ann", known=known, pin=server.fingerprint)
        await link.close()
        with pytest.raises(ConnectFailed, match="did not trust"):
            await connect(
                f"127.0.0.1:{port}",
                "bob",
                known=KnownServers(tmp_path / "k3"),
                trust=lambda fp: False,
            )
    assert client_tls().minimum_version == ssl.TLSVersion.TLSv1_3

"""Player keys at a real server (TLS on loopback): the proof at hello, hostile proofs
(a wrong signature, one made for another server, a malformed or small-order key, none),
names that belong to the key that claimed them (across restarts), and a player taking
their chair back by key from a new connection, mid-game."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from president.bots.strategies import RandomBot
from president.client.connection import ConnectFailed
from president.client.headless import BotPlayer
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.connection import Connection
from president.protocol.framing import encode_frame
from president.protocol.identity import certificate_digest, player_id, public_bytes, sign_proof
from president.protocol.sealing import public_key_bytes
from president.server.app import Server

from ..harness.servers import client, in_play, running_server, sit_among_server_bots
from ..harness.waiting import wait_for
from .test_robustness import raw_tls


def taken(name: str) -> str:
    return m.name_taken(name)


async def test_a_keyed_client_is_welcomed_in_a_version_with_keys_and_known_by_its_id(
    tmp_path: Path,
) -> None:
    key = Ed25519PrivateKey.generate()
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=key)
        assert ann.link.conn.version == max(m.VERSIONS) >= 4
        assert ann.link.player_id == player_id(public_bytes(key))
        await wait_for(lambda: len(server.sessions) == 1)
        (session,) = server.sessions
        assert session.player_id == ann.link.player_id and session.player_key == public_bytes(key)
        old = await client(server, "bob", tmp_path)  # no key: the versions before keys
        assert old.link.conn.version == 3 and old.link.player_id == ""
        await ann.link.close()
        await old.link.close()


async def test_a_name_belongs_to_the_key_that_claimed_it_even_after_a_restart(
    tmp_path: Path,
) -> None:
    ann_key, eve_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    async with running_server(tmp_path) as server:
        ann = await client(server, "ann", tmp_path, identity=ann_key)
        for name, key in (("ann", eve_key), ("ANN", eve_key), ("Ann", None)):
            with pytest.raises(ConnectFailed) as refused:
                await client(server, name, tmp_path, identity=key)
            assert taken(name) in str(refused.value)
        again = await client(server, "ann", tmp_path, identity=ann_key)  # her own: welcome
        await again.link.close()
        await ann.link.close()
        eve = await client(server, "eve", tmp_path, identity=eve_key)
        await eve.link.close()
    async with running_server(tmp_path) as server:  # the same data directory
        with pytest.raises(ConnectFailed, match="belongs to another player"):
            await client(server, "ann", tmp_path, identity=eve_key)
        back = await client(server, "ann", tmp_path, identity=ann_key)
        await back.link.close()
        assert server.names.count() == 2


async def test_a_connection_that_only_watches_claims_no_name(tmp_path: Path) -> None:
    """`president stats` (a spectator's connection, under the user's login name) claimed
    that name for its key for good: the next person on another machine logged in under
    the same name was refused it (the key-edge pass).  A spectator uses a name nobody
    has without claiming it, and is still refused one that is another key's."""
    ann_key, eve_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    async with running_server(tmp_path) as server:
        watcher = await client(server, "pi", tmp_path, identity=ann_key, role="spectator")
        await watcher.link.close()
        assert server.names.count() == 0
        eve = await client(server, "pi", tmp_path, identity=eve_key)  # hers to claim
        assert server.names.count() == 1
        with pytest.raises(ConnectFailed) as refused:
            await client(server, "pi", tmp_path, identity=ann_key, role="spectator")
        assert taken("pi") in str(refused.value)
        await eve.link.close()


async def raw_proof(
    server: Server, name: str, sign: object, *, send_proof: bool = True
) -> list[m.Message]:
    """A raw client: hello (offering version 4), then `sign(challenge)` as its proof's
    (player_key, signature) or any other message; what the server says up to closing, or
    up to its welcome (after which it waits for the client)."""
    reader, writer = await raw_tls(server.port)
    conn = Connection("client")
    writer.write(
        conn.send(
            m.Hello(
                versions=(2, 3, 4),
                name=name,
                role="player",
                hand_key=public_key_bytes(X25519PrivateKey.generate()),
            )
        )
    )
    said: list[m.Message] = []
    answered = False
    async with asyncio.timeout(30):  # (only a hang ends it)
        while not any(isinstance(x, m.Welcome) for x in said):
            try:
                data = await reader.read(65536)
            except ConnectionError:
                break
            if not data:
                break
            conn.receive_data(data)
            for message in conn.events():
                said.append(message)
                if isinstance(message, m.Challenge) and not answered:
                    answered = True
                    wire = sign(message.challenge)  # type: ignore[operator]
                    writer.write(encode_frame(pack(wire)))
    writer.close()
    return said


def proof_wire(key: Ed25519PrivateKey, fingerprint: str, challenge: bytes) -> dict[str, object]:
    signature = sign_proof(key, 4, certificate_digest(fingerprint), challenge)
    return {"type": "proof", "player_key": public_bytes(key), "signature": signature}


async def test_hostile_proofs_are_rejected_in_one_sentence(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    async with (
        running_server(tmp_path / "a") as here,
        running_server(tmp_path / "b") as there,
    ):
        assert here.fingerprint != there.fingerprint

        def relayed(challenge: bytes) -> dict[str, object]:
            # a server in the middle passes here's challenge on to a client that signs it
            # for the server it sees (there): here refuses it
            return proof_wire(key, there.fingerprint, challenge)

        def wrong(challenge: bytes) -> dict[str, object]:
            wire = proof_wire(key, here.fingerprint, challenge)
            wire["signature"] = bytes(64)
            return wire

        def other_key(challenge: bytes) -> dict[str, object]:
            wire = proof_wire(key, here.fingerprint, challenge)
            wire["player_key"] = public_bytes(Ed25519PrivateKey.generate())
            return wire

        def short_key(challenge: bytes) -> dict[str, object]:
            wire = proof_wire(key, here.fingerprint, challenge)
            wire["player_key"] = public_bytes(key)[:31]
            return wire

        def small_order(challenge: bytes) -> dict[str, object]:
            identity_point = bytes([1]) + bytes(31)
            return {
                "type": "proof",
                "player_key": identity_point,
                "signature": identity_point + bytes(32),
            }

        def not_a_proof(challenge: bytes) -> dict[str, object]:
            return {"type": "list_tables"}

        cases = [
            (relayed, "does not match player_key"),
            (wrong, "does not match player_key"),
            (other_key, "does not match player_key"),
            (short_key, "player_key: expected 32 bytes"),
            (small_order, "small-order"),
            (not_a_proof, "answer the challenge with one proof, not list_tables"),
        ]
        for sign, words in cases:
            said = await raw_proof(here, "mallory", sign)
            assert isinstance(said[0], m.Challenge) and said[0].version == 4, said
            assert len(said) == 2 and isinstance(said[1], m.Reject), (sign, said)
            assert words in said[1].reason, (sign, said[1].reason)
        assert here.names.owner("mallory") is None  # nothing claimed by any of them
        assert not here.lobby.guests
        said = await raw_proof(here, "mallory", lambda c: proof_wire(key, here.fingerprint, c))
        assert isinstance(said[-1], m.Welcome), said  # the honest proof, for contrast
        assert here.names.owner("mallory") == player_id(public_bytes(key))


async def test_a_new_connection_with_the_key_takes_the_chair_back_mid_game(tmp_path: Path) -> None:
    """What a restarted client does: a new connection, no seat token, the same key and
    name, `join` the table; it is back in its chair in the same hand.  The connection
    that held it (still open: not yet noticed gone) is told it was replaced."""
    key = Ed25519PrivateKey.generate()
    # (a seed window no machine misses, so no seed of hers comes too late to be counted)
    async with running_server(tmp_path, bot_delay=0.05, seed_seconds=120) as server:
        ann = await client(server, "ann", tmp_path, identity=key)
        ann.keep = True
        task = asyncio.create_task(ann.run())
        await sit_among_server_bots(ann)
        BotPlayer(ann, RandomBot(random.Random(3)))
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        assert ann.model.public is not None
        hand, seat, token = ann.model.public.hand_number, ann.model.slot, ann.model.token
        with pytest.raises(ConnectFailed, match="belongs to another player"):
            await client(server, "ann", tmp_path, identity=Ed25519PrivateKey.generate())
        back = await client(server, "ann", tmp_path, identity=key)
        back.keep = True
        player = BotPlayer(back, RandomBot(random.Random(4)))
        task2 = asyncio.create_task(back.run())
        await back.send(m.Join(table="T"))
        await wait_for(lambda: back.model.slot is not None)
        assert back.model.slot == seat and back.model.token != token
        await wait_for(lambda: any(isinstance(x, m.SealedHand) for x in back.received))
        snapshot = next(x for x in back.received if isinstance(x, m.SealedHand))
        assert snapshot.hand == hand and back.model.hand
        await wait_for(lambda: ann.bye is not None)
        assert ann.bye is not None and ann.bye.code == "replaced"
        server.lobby.tables["T"].settings.bot_delay = 0.0
        await asyncio.wait_for(player.game_over.wait(), 60)
        assert not [e for e in back.errors if e.about], back.errors
        task.cancel()
        task2.cancel()


async def test_a_player_who_left_mid_game_comes_back_by_key(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    async with running_server(tmp_path, bot_delay=0.05) as server:
        ann = await client(server, "ann", tmp_path, identity=key)
        task = asyncio.create_task(ann.run())
        await sit_among_server_bots(ann, turn_seconds=0)
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        seat = ann.model.slot
        await ann.send(m.Leave())
        table = server.lobby.tables["T"]
        await wait_for(lambda: table.chairs.slots[0].leaving)
        ann.model.slot = None
        await ann.send(m.Join(table="T"))
        await wait_for(lambda: ann.model.slot is not None)
        assert ann.model.slot == seat and not table.chairs.slots[seat].leaving
        assert table.chairs.slots[seat].player_id == player_id(public_bytes(key))
        task.cancel()


async def test_after_a_server_restart_the_key_takes_the_chair_back_without_a_token(
    tmp_path: Path,
) -> None:
    """The journal keeps each chair's player id: a client that restarted while the
    server did too (no seat token left anywhere) still gets its chair back by key."""
    key = Ed25519PrivateKey.generate()
    async with running_server(tmp_path, bot_delay=0.05) as server:
        ann = await client(server, "ann", tmp_path, identity=key)
        task = asyncio.create_task(ann.run())
        await sit_among_server_bots(ann)
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        seat = ann.model.slot
        task.cancel()
        await ann.link.close()
    async with running_server(tmp_path, bot_delay=0.05) as server:
        back = await client(server, "ann", tmp_path, identity=key)
        back.keep = True
        task = asyncio.create_task(back.run())
        await back.send(m.Join(table="T"))
        await wait_for(lambda: back.model.slot is not None or bool(back.errors))
        assert back.model.slot == seat, back.errors
        await wait_for(lambda: any(isinstance(x, m.SealedHand) for x in back.received))
        task.cancel()
        await back.link.close()


async def test_after_a_restart_a_seated_key_is_not_held_by_a_spray_of_guesses(
    tmp_path: Path,
) -> None:
    """The welcomes of keys that gave the server's password do not outlive a restart:
    while guessers from many addresses held the minute's first tries, a player seated in
    the restored game could not come back.  A key seated in a game here is not held by
    the budgets (a new key is held; its own address's wait still holds it: the guard's
    tests)."""
    key = Ed25519PrivateKey.generate()
    async with running_server(tmp_path, bot_delay=0.05, password="sesame") as server:
        ann = await client(server, "ann", tmp_path, identity=key, password="sesame")
        task = asyncio.create_task(ann.run())
        await sit_among_server_bots(ann)
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        task.cancel()
        await ann.link.close()
    async with running_server(tmp_path, bot_delay=0.05, password="sesame") as server:
        guard = server.lobby.guard
        for i in range(guard.new_per_minute):  # guessers take the minute's first tries
            assert guard.refusal(f"10.6.0.{i}", "server") is None
            guard.wrong(f"10.6.0.{i}", "server")
        with pytest.raises(ConnectFailed, match="too many password tries from new addresses"):
            await client(server, "cat", tmp_path, identity=Ed25519PrivateKey.generate(),
                         password="sesame")  # fmt: skip
        back = await client(server, "ann", tmp_path, identity=key, password="sesame")
        await back.link.close()


async def test_a_names_file_open_to_others_stops_the_server_in_one_line(tmp_path: Path) -> None:
    from president.server.storage import StorageError

    async with running_server(tmp_path):
        pass
    names = tmp_path / "data" / "names.sqlite3"
    assert names.exists() and names.stat().st_mode & 0o777 == 0o600
    names.chmod(0o644)
    with pytest.raises(StorageError, match=f"chmod 600 {names}"):
        async with running_server(tmp_path):
            pass


async def test_a_key_back_to_its_own_chair_at_a_password_table_needs_no_password(
    tmp_path: Path,
) -> None:
    """A user pass came back to its seat mid-game and was asked the table's password
    again (a wrong one refused).  The key that sat there with it takes the chair back
    without it; anyone else still needs it."""
    key = Ed25519PrivateKey.generate()
    async with running_server(tmp_path, bot_delay=0.05) as server:
        ann = await client(server, "ann", tmp_path, identity=key)
        task = asyncio.create_task(ann.run())
        await ann.send(
            m.CreateTable(name="T", preset="classic", toggles={}, seats=3, password="pw")
        )
        await ann.send(m.Join(table="T", password="pw"))
        await wait_for(lambda: ann.model.slot is not None)
        for _ in range(2):
            await ann.send(m.AddBot(table="T", strategy="random"))
        await ann.send(m.Ready())
        await wait_for(lambda: in_play(ann))
        seat = ann.model.slot
        task.cancel()
        await ann.link.close()
        back = await client(server, "ann", tmp_path, identity=key)
        back.keep = True
        task = asyncio.create_task(back.run())
        await back.send(m.Join(table="T"))  # no password
        await wait_for(lambda: back.model.slot is not None or bool(back.errors))
        assert back.model.slot == seat and not back.errors, back.errors
        bob = await client(server, "bob", tmp_path, identity=Ed25519PrivateKey.generate())
        bob.keep = True
        task2 = asyncio.create_task(bob.run())
        await bob.send(m.Spectate(table="T"))
        await bob.send(m.Join(table="T"))
        await wait_for(lambda: len(bob.errors) == 2)
        assert [e.code for e in bob.errors] == ["wrong_password"] * 2, bob.errors
        task.cancel()
        task2.cancel()

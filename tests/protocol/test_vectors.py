"""The test vectors in docs/PROTOCOL.md ("Test vectors") hold: each is checked against
`protocol/`, and again by a few lines written from the document alone (RFC 9180 for the
sealed hand, the shuffle as its steps say), so the document says enough to build a
client that agrees with ours."""

from __future__ import annotations

import codecs
import hashlib
import hmac
import itertools
import json
import re
import struct
from collections.abc import Iterator
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from president.engine import Gave, Returned, parse_cards
from president.protocol import fairdeal
from president.protocol import messages as m
from president.protocol.connection import Connection
from president.protocol.sealing import open_hand, public_key_bytes, seal_info
from president.protocol.wire import private_to_bytes

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text()

#: Card names by id, as the document defines them (id = 4 x rank + suit; the joker 52).
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
NAMES = [rank + suit for rank in RANKS for suit in "CDHS"] + ["JK"]


def vectors(kind: str) -> list[dict[str, str]]:
    """Every ```vector block of `kind`: its `name = value` lines, a value going on over
    the indented lines below it."""
    found = []
    for block in re.findall(r"^```vector\n(.*?)\n```$", DOC, re.S | re.M):
        fields: dict[str, str] = {}
        last = ""
        for line in block.splitlines():
            if line[:1].isspace():
                fields[last] += " " + line.strip()
                continue
            name, _, value = line.partition("=")
            last = name.strip()
            fields[last] = value.strip()
        if fields["vector"] == kind:
            found.append(fields)
    assert found, f"docs/PROTOCOL.md has no {kind} vector"
    return found


def cards_of(text: str) -> list[str]:
    return text.split()


# --- a sealed hand ----------------------------------------------------------------------


def exchange_of(text: str) -> list[Gave | Returned]:
    """The engine's gives and returns a vector's `exchange` (card names for ids) holds."""
    moves: list[Gave | Returned] = []
    for returned, giver, receiver, automatic, names in json.loads(text):
        cards = parse_cards(names)
        if returned:
            moves.append(Returned(giver, receiver, len(cards), cards, automatic))
        else:
            moves.append(Gave(giver, receiver, len(cards), cards))
    return moves


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return hmac.new(salt, b"HPKE-v1" + suite + label + ikm, hashlib.sha256).digest()


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, size: int) -> bytes:
    labeled = size.to_bytes(2, "big") + b"HPKE-v1" + suite + label + info
    out, block, counter = b"", b"", 1
    while len(out) < size:
        block = hmac.new(prk, block + labeled + bytes([counter]), hashlib.sha256).digest()
        out, counter = out + block, counter + 1
    return out[:size]


def rfc9180_open(sealed: bytes, private_key: bytes, info: bytes) -> bytes:
    """HPKE base-mode single-shot open, DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 /
    ChaCha20-Poly1305, written from RFC 9180 and the document's layout (enc, then the
    ciphertext with its tag; no AAD): not from `cryptography`'s HPKE."""
    enc, ciphertext = sealed[:32], sealed[32:]
    key = X25519PrivateKey.from_private_bytes(private_key)
    dh = key.exchange(X25519PublicKey.from_public_bytes(enc))
    kem = b"KEM" + (0x0020).to_bytes(2, "big")
    eae_prk = _labeled_extract(kem, b"", b"eae_prk", dh)
    shared = _labeled_expand(kem, eae_prk, b"shared_secret", enc + public_key_bytes(key), 32)
    suite = b"HPKE" + b"".join(n.to_bytes(2, "big") for n in (0x0020, 0x0001, 0x0003))
    context = (
        b"\x00"  # mode_base
        + _labeled_extract(suite, b"", b"psk_id_hash", b"")
        + _labeled_extract(suite, b"", b"info_hash", info)
    )
    secret = _labeled_extract(suite, shared, b"secret", b"")
    aead_key = _labeled_expand(suite, secret, b"key", context, 32)
    nonce = _labeled_expand(suite, secret, b"base_nonce", context, 12)
    return ChaCha20Poly1305(aead_key).decrypt(nonce, ciphertext, b"")


def test_the_sealed_hand_vector_opens_with_our_code_to_its_cards_and_exchange() -> None:
    for v in vectors("sealed hand"):
        key = X25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_key"]))
        assert public_key_bytes(key) == bytes.fromhex(v["hand_key"])
        place = (v["table"], int(v["hand"]), int(v["seat"]), int(v["number"]))
        info = bytes.fromhex(v["info"])
        assert seal_info(*place) == info
        assert codecs.escape_decode(v["info_text"].encode())[0] == info
        cards, exchange = open_hand(bytes.fromhex(v["sealed"]), key, *place)
        assert [str(card) for card in cards] == cards_of(v["cards"])
        assert list(exchange) == exchange_of(v["exchange"])
        assert private_to_bytes(cards, exchange) == bytes.fromhex(v["plaintext"])


def test_the_sealed_hand_vector_opens_by_rfc_9180_and_the_documented_layout() -> None:
    for v in vectors("sealed hand"):
        sealed, plain = bytes.fromhex(v["sealed"]), bytes.fromhex(v["plaintext"])
        assert len(sealed) == 32 + len(plain) + 16
        info = b"president hand/2\x00" + msgpack.packb(
            [v["table"], int(v["hand"]), int(v["seat"]), int(v["number"])]
        )
        assert info == bytes.fromhex(v["info"])
        assert rfc9180_open(sealed, bytes.fromhex(v["private_key"]), info) == plain
        counts, exchange = msgpack.unpackb(plain)
        assert type(counts) is bytes and len(counts) == 53
        assert [NAMES[i] for i, n in enumerate(counts) for _ in range(n)] == cards_of(v["cards"])
        named = [[r, g, to, auto, [NAMES[i] for i in ids]] for r, g, to, auto, ids in exchange]
        assert named == json.loads(v["exchange"])


# --- a deal reveal ----------------------------------------------------------------------


def stream_as_documented(key: bytes) -> Iterator[int]:
    """The 4-byte big-endian words of HMAC-SHA256(key, counter) blocks, counter from 0."""
    for counter in itertools.count():
        block = hmac.new(key, struct.pack(">Q", counter), hashlib.sha256).digest()
        yield from (int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4))


def draw_as_documented(words: Iterator[int], bound: int) -> int:
    """j from 0..bound-1: the first word below the limit, mod bound."""
    limit = 2**32 - 2**32 % bound
    return next(word for word in words if word < limit) % bound


def shuffle_as_documented(key: bytes, decks: int, jokers: int) -> tuple[list[str], list[str]]:
    """The deck order by the document's steps alone, and its swaps as "i:j"."""
    cards = [name for name in NAMES[:52] for _ in range(decks)] + ["JK"] * (jokers * decks)
    words = stream_as_documented(key)
    swaps = []
    for i in range(len(cards) - 1, 0, -1):
        j = draw_as_documented(words, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
        swaps.append(f"{i}:{j}")
    return cards, swaps


def test_the_deal_vectors_are_what_fairdeal_computes() -> None:
    for v in vectors("deal"):
        server_seed = bytes.fromhex(v["server_seed"])
        seeds = [bytes.fromhex(seed) for seed in v["client_seeds"].split()]
        hand, players, start = int(v["hand"]), int(v["players"]), int(v["start"])
        decks, jokers = int(v["decks"]), int(v["jokers"])
        assert len(seeds) == players
        digest = fairdeal.commitment(server_seed)
        assert digest == bytes.fromhex(v["digest"])
        assert fairdeal.deal_key(server_seed, seeds, hand) == bytes.fromhex(v["key"])
        order = fairdeal.deck_order(server_seed, seeds, hand, decks, jokers)
        assert [str(card) for card in order] == cards_of(v["order"])
        hands = fairdeal.deal(order, players, start)
        for seat in range(players):
            assert [str(card) for card in hands[seat]] == cards_of(v[f"seat {seat}"])
            dealt = parse_cards(cards_of(v[f"seat {seat}"]))
            assert (
                fairdeal.check_hand(
                    server_seed, digest, seeds, hand, players, start, seat, dealt, decks, jokers
                )
                is None
            )


def test_the_deal_as_the_document_describes_it_gives_the_vectors() -> None:
    for v in vectors("deal"):
        server_seed = bytes.fromhex(v["server_seed"])
        seeds = [bytes.fromhex(seed) for seed in v["client_seeds"].split()]
        players, start = int(v["players"]), int(v["start"])
        assert hashlib.sha256(server_seed).hexdigest() == v["digest"]
        message = b"president-deal/1" + int(v["hand"]).to_bytes(8, "big") + bytes([len(seeds)])
        key = hmac.new(server_seed, message + b"".join(seeds), hashlib.sha256).digest()
        assert key.hex() == v["key"]
        assert hmac.new(key, bytes(8), hashlib.sha256).hexdigest() == v["first_block"]
        order, swaps = shuffle_as_documented(key, int(v["decks"]), int(v["jokers"]))
        assert len(order) == int(v["decks"]) * (52 + int(v["jokers"]))
        assert swaps[: len(v["first_swaps"].split())] == v["first_swaps"].split()
        assert order == cards_of(v["order"])
        for k, card in enumerate(order):  # card k goes to seat (start + k) mod players
            assert card in cards_of(v[f"seat {(start + k) % players}"])
        for seat in range(players):
            assert cards_of(v[f"seat {seat}"]) == order[(seat - start) % players :: players]


def test_the_draw_vector_throws_away_each_word_at_or_above_the_limit() -> None:
    """The deal vectors never meet a rejected word (fewer than one draw in 10^7 meets one), so a
    vector of words fed to draws checks the bound: limit = 2^32 - (2^32 mod bound)."""
    for v in vectors("draw"):
        bound = int(v["bound"])
        assert int(v["limit"], 16) == 2**32 - 2**32 % bound
        stream = fairdeal._Stream(bytes(32))
        stream.pool = bytes.fromhex(v["words"])
        want = [int(j) for j in v["draws"].split()]
        assert [stream.below(bound) for _ in want] == want
        assert not stream.pool  # every word was used, the rejected ones too
        words = iter([int(word, 16) for word in v["words"].split()])
        assert [draw_as_documented(words, bound) for _ in want] == want
        assert not list(words)


# --- one frame ------------------------------------------------------------------------


def test_the_hello_frame_vector_is_what_a_client_sends_and_a_server_reads() -> None:
    for v in vectors("hello frame"):
        assert v["password"] == "nil"
        hello = m.Hello(
            versions=tuple(int(n) for n in v["versions"].split()),
            name=v["name"],
            role=v["role"],  # type: ignore[arg-type]
            hand_key=bytes.fromhex(v["hand_key"]),
        )
        frame = bytes.fromhex(v["frame"])
        assert Connection("client").send(hello) == frame
        assert int.from_bytes(frame[:4], "big") == len(frame) - 4
        server = Connection("server")
        server.receive_data(frame)
        assert server.next_event() == hello


# --- a player key's proof ------------------------------------------------------------------


def test_the_player_key_proof_vector_holds() -> None:
    """From the document alone (the layout "Player keys" gives, `cryptography`'s Ed25519)
    and again through protocol/identity.py: the key from its seed, the signed bytes, a
    signature that verifies and is the one given (Ed25519 is deterministic), the id."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
    from president.protocol import identity

    (v,) = vectors("player key proof")
    hexed = {
        name: bytes.fromhex(value.replace(" ", "").replace(":", ""))
        for name, value in v.items()
        if name not in ("vector", "version")
    }
    version = int(v["version"])
    key = Ed25519PrivateKey.from_private_bytes(hexed["seed"])
    assert identity.public_bytes(key) == hexed["player_key"]
    by_hand = (
        b"president player key proof\x00"
        + bytes([version])
        + hexed["fingerprint"]
        + hexed["challenge"]
    )
    assert len(by_hand) == 92 and by_hand == hexed["signed"]
    digest = identity.certificate_digest(v["fingerprint"])
    assert identity.proof_bytes(version, digest, hexed["challenge"]) == hexed["signed"]
    Ed25519PublicKey.from_public_bytes(hexed["player_key"]).verify(
        hexed["signature"], hexed["signed"]
    )
    assert key.sign(hexed["signed"]) == hexed["signature"]
    assert identity.sign_proof(key, version, digest, hexed["challenge"]) == hexed["signature"]
    problem = identity.proof_problem(
        hexed["player_key"], hexed["signature"], version, digest, hexed["challenge"]
    )
    assert problem is None
    assert hashlib.sha256(hexed["player_key"]).hexdigest() == v["player_id"]
    assert identity.player_id(hexed["player_key"]) == v["player_id"]


# --- a record sent packed ------------------------------------------------------------------


def test_the_packed_record_vector_packs_and_unpacks_as_the_document_says() -> None:
    import zlib

    from president.protocol.packing import pack_record, unpack_record

    for v in vectors("packed record"):
        record, packed = v["record"].encode(), bytes.fromhex(v["packed"])
        assert pack_record(record) == packed and unpack_record(packed) == record
        assert zlib.decompress(packed) == record  # (RFC 1950 as any zlib reads it)

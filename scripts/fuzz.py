"""Fuzz the server's input path.  Two campaigns, each counting crashes (an exception
other than the protocol's own refusal, or anything the server logs as an error) and hangs
(an input that takes over a second):

1. decoders: mutated and random frames into a server-side `Connection` (framing, msgpack
   limits, message schema, direction rules);
2. handlers: random schema-valid messages from a few connections into the lobby and its
   tables (create, join, watch, bots, ready, plays, passes, returns, resumes with made-up
   tokens, chat, drops), with server-side bots playing in between; after every step each
   table's view must still build and pass its own schema, and no card may be lost.

    python scripts/fuzz.py [--inputs 100000] [--seed 1] [--out DIR]

Crashing inputs are written to DIR.  Exit 1 if there was any crash or hang."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from president.engine import Phase, deck
from president.protocol import messages as m
from president.protocol.codec import pack
from president.protocol.connection import Connection
from president.protocol.errors import RemoteProtocolError
from president.protocol.framing import encode_frame
from president.protocol.identity import KEYLESS_VERSIONS
from president.server.app import Server
from president.server.config import ServerConfig
from president.server.journal import Journal
from president.server.restore import RestoreError, differences, rebuild

HANG = 1.0
#: Seconds after which a handler that has not returned is counted a crash (stuck).
STUCK = 60.0
CARDS = [str(c) for c in deck(2, 2)]
NAMES = ["T", "U", "lounge", "x" * 40]


def valid_messages(rng: random.Random) -> list[m.Message]:
    return [
        m.Hello(
            versions=KEYLESS_VERSIONS, name="ann", role="player", hand_key=secrets.token_bytes(32)
        ),
        m.ListTables(),
        m.Ready(),
        m.PassTurn(),
        m.Leave(),
        m.CreateTable(name="T", preset="classic", toggles={"bombs": True}, seats=4, turn_seconds=1),
        m.Join(table="T", seat=rng.randrange(4)),
        m.Spectate(table="T"),
        m.PlayCards(cards=("3C", "3D")),
        m.ReturnCards(cards=("4S",)),
        m.Chat(scope="table", text="hello"),
        m.Pong(nonce=7),
        m.ClientSeed(hand=0, seed=bytes(32)),
        m.DealCheck(hand=0, ok=True),
        m.Resume(table="T", seat=1, token=bytes(32)),
    ]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 2**64 - 1, rng.randrange(-1000, 1000)])
    if kind == 3:
        return rng.choice(["", "T", "3C", "play", "x" * rng.randrange(600), "\u00e9\u2660", "\x00"])
    if kind == 4:
        return rng.randbytes(rng.choice([0, 1, 31, 32, 33, 300]))
    if kind == 5:
        return rng.random() * 1e6
    if kind == 6:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    if kind == 7:
        return {
            random_value(rng, 3)
            if rng.random() < 0.2
            else rng.choice(["type", "cards", "table", "seat"]): random_value(rng, depth + 1)
            for _ in range(rng.randrange(6))
        }
    return {
        "type": rng.choice(list(m.REGISTRY)),
        **{
            f: random_value(rng, depth + 1)
            for f in rng.sample(
                ["name", "cards", "table", "seat", "token", "versions", "hand_key", "toggles"], 3
            )
        },
    }


def frame_input(rng: random.Random, corpus: list[bytes]) -> bytes:
    how = rng.randrange(7)
    base = bytearray(rng.choice(corpus))
    if how == 0:
        return rng.randbytes(rng.randrange(200))
    if how == 1:  # bit flips
        for _ in range(rng.randrange(1, 8)):
            i = rng.randrange(len(base))
            base[i] ^= 1 << rng.randrange(8)
        return bytes(base)
    if how == 2:  # truncated or cut short inside the header
        return bytes(base[: rng.randrange(len(base))])
    if how == 3:  # a lying length header
        return rng.choice([0, 1, 65536, 2**32 - 1, len(base)]).to_bytes(4, "big") + bytes(base[4:])
    if how == 4:  # spliced frames, the first one hello
        return corpus[0] + b"".join(rng.choice(corpus) for _ in range(rng.randrange(1, 6)))
    if how == 5:  # random msgpack values in well-formed frames
        try:
            body = pack(random_value(rng))
        except (ValueError, TypeError, OverflowError):
            return bytes(base)
        return corpus[0] + encode_frame(body[:65536], limit=1 << 20)
    return bytes(base) + rng.randbytes(rng.randrange(8))


def fuzz_decoders(inputs: int, rng: random.Random, out: Path) -> tuple[int, int, float]:
    corpus = [encode_frame(pack(msg.to_wire())) for msg in valid_messages(rng)]
    crashes = hangs = 0
    slowest = 0.0
    for n in range(inputs):
        data = frame_input(rng, corpus)
        conn = Connection("server")
        start = time.perf_counter()
        try:
            # in pieces, as a network delivers them
            at = 0
            while at < len(data):
                step = rng.choice([1, 3, 64, len(data)])
                conn.receive_data(data[at : at + step])
                at += step
                while conn.next_event() is not None:
                    pass
        except RemoteProtocolError:
            pass
        except Exception as exc:  # a crash: keep the input
            crashes += 1
            (out / f"decoder-{n}.bin").write_bytes(data)
            print(f"decoder crash on input {n}: {exc!r}", file=sys.stderr)
        took = time.perf_counter() - start
        slowest = max(slowest, took)
        hangs += took > HANG
    return crashes, hangs, slowest


class FakeSession:
    """A connection as the lobby sees it, without a socket."""

    def __init__(self, name: str, rng: random.Random) -> None:
        self.name = name
        self.role = rng.choice(["player", "player", "bot", "spectator"])
        self.hand_key = secrets.token_bytes(32)
        self.player_id = ""
        #: Old clients too: they must be refused a table playing a variant, never crash it.
        self.version = rng.choice(m.VERSIONS)
        self.address = f"fuzz-{name}"
        self.table: Any = None
        self.seen = 0

    def deliver(self, message: m.Message) -> None:
        m.Message.from_wire(message.to_wire())  # whatever the server sends passes its own schema
        self.seen += 1

    def chat_allowed(self, now: float) -> bool:
        return True


def random_message(rng: random.Random) -> m.Message | None:
    table = rng.choice(NAMES)
    seat = rng.randrange(12)
    cards = tuple(rng.sample(CARDS, rng.randrange(1, 5)))
    wire: dict[str, Any] = rng.choice(
        [
            {"type": "list_tables"},
            {
                "type": "create_table",
                "name": table,
                "preset": rng.choice(
                    ["classic", "full", "house", "sheet", "table", "daifugo", "poker"]
                ),
                "toggles": rng.choice(
                    [
                        {},
                        {"bombs": True},
                        {"jokers": 2, "joker_mode": "wild"},
                        {"decks": 3},
                        {"revolution": True, "equal_plays": "skip"},
                        {"seven_pass": True, "ten_discard": True, "sequences": True},
                        {"nonsense": 1},
                    ]
                ),
                "seats": rng.randrange(3, 9),
                "turn_seconds": rng.choice([0, 1]),
            },
            {"type": "join", "table": table, "seat": rng.choice([None, seat])},
            {"type": "spectate", "table": table},
            {"type": "leave"},
            {
                "type": "add_bot",
                "table": table,
                "strategy": rng.choice(["random", "greedy", "heuristic", "nope"]),
                "seat": rng.choice([None, seat]),
            },
            {"type": "remove_bot", "table": table, "seat": seat},
            {"type": "ready", "ready": rng.random() < 0.9},
            {"type": "play_cards", "cards": cards[: rng.randrange(1, 4)]},
            {"type": "pass_turn"},
            {"type": "return_cards", "cards": cards[:2]},
            {"type": "handover", "cards": cards[: rng.randrange(1, 3)]},
            {"type": "discard", "cards": cards[: rng.randrange(1, 3)]},
            {"type": "resume", "table": table, "seat": seat, "token": rng.randbytes(32)},
            {"type": "chat", "scope": rng.choice(["lobby", "table"]), "text": "hi"},
            {"type": "client_seed", "hand": rng.randrange(3), "seed": rng.randbytes(32)},
            {"type": "deal_check", "hand": rng.randrange(3), "ok": rng.random() < 0.5},
        ]
    )
    try:
        return m.Message.from_wire(wire)
    except RemoteProtocolError:
        return None


class ErrorCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        print(f"server logged: {record.getMessage()}", file=sys.stderr)


def check_tables(server: Server) -> None:
    for table in server.lobby.tables.values():
        m.Message.from_wire(table.view().to_wire())
        game = table.game
        if game is not None and game.phase is Phase.PLAY:
            held = sum(game.card_counts())
            played = sum(len(play.cards) for _, play in game.log)
            assert held + played == game.rules.deck_size, f"{table.name}: cards lost"


def journal_problems(server: Server) -> list[str]:
    """Each table against its rebuild from the journal: a restart must change nothing."""
    assert server.journal is not None
    problems = []
    for _, name, entries in server.journal.open_tables():
        live = server.lobby.tables[name]
        try:
            rebuilt = rebuild(entries, server.config, server.write_record, time.monotonic)
        except RestoreError as exc:
            problems.append(f"table {name}'s journal does not rebuild it: {exc}")
            continue
        problems += [f"table {name}: {d}" for d in differences(live, rebuilt)]
    return problems


async def fuzz_handlers(inputs: int, rng: random.Random, data: Path) -> tuple[int, int, float]:
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        data_dir=data,
        bot_delay=0.0,
        pause_between_hands=0.0,
        seed_seconds=0.05,
        grace_seconds=0.2,
    )
    server = Server(config)
    server.storage.prepare()  # the records' folder (the lobby itself needs no socket)
    server.journal = Journal(
        server.storage.journal, server.storage.journal_key()
    )  # every table journaled, and checked
    errors = ErrorCount()
    logging.getLogger("president").addHandler(errors)
    crashes: list[str] = []
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: crashes.append(str(context.get("exception"))))
    try:
        return await _handlers(server, inputs, rng, crashes, errors)
    finally:
        loop.set_exception_handler(previous)
        logging.getLogger("president").removeHandler(errors)


async def _handlers(
    server: Server, inputs: int, rng: random.Random, crashes: list[str], errors: ErrorCount
) -> tuple[int, int, float]:
    sessions = [FakeSession(f"p{i}", rng) for i in range(6)]
    hangs = 0
    slowest = 0.0
    for n in range(inputs):
        index = rng.randrange(len(sessions))
        session = sessions[index]
        start = time.perf_counter()
        try:
            if rng.random() < 0.02:  # the connection drops; a new one comes with the same name
                await server.lobby.disconnect(session)  # type: ignore[arg-type]
                sessions[index] = FakeSession(session.name, rng)
            else:
                message = random_message(rng)
                if message is not None:
                    handled = server.lobby.handle(session, message)  # type: ignore[arg-type]
                    await asyncio.wait_for(handled, STUCK)
            await asyncio.sleep(0)
            check_tables(server)
        except TimeoutError as exc:  # (stuck, or a handler's own TimeoutError)
            stuck = time.perf_counter() - start >= STUCK
            crashes.append(f"input {n}: {f'stuck for {STUCK:g} s' if stuck else repr(exc)}")
        except Exception as exc:
            crashes.append(f"input {n}: {exc!r}")
        took = time.perf_counter() - start
        slowest = max(slowest, took)
        hangs += took > HANG
        if n % 500 == 499:
            await asyncio.sleep(0.01)  # let the tables' drivers and timers run
            crashes += [f"input {n}: {problem}" for problem in journal_problems(server)]
    await server.lobby.close()
    for crash in crashes[:10]:
        print(f"handler crash: {crash}", file=sys.stderr)
    tables = server.lobby.tables.values()
    print(
        f"handlers reached: {len(server.lobby.tables)} tables, "
        f"{sum(t.game is not None for t in tables)} games started, "
        f"{sum(len(t.game.finishes) for t in tables if t.game is not None)} hands finished, "
        f"{len(server.records)} records written, {sum(s.seen for s in sessions):,} messages sent to the connections open at the end"
    )
    return len(crashes) + errors.count, hangs, slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs per campaign")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("fuzz-crashes"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    crashes, hangs, slowest = fuzz_decoders(args.inputs, rng, args.out)
    print(
        f"decoders: {args.inputs:,} inputs in {time.perf_counter() - start:.1f} s: {crashes} crashes, "
        f"{hangs} hangs, slowest input {slowest * 1000:.1f} ms"
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as data:
        h_crashes, h_hangs, h_slowest = asyncio.run(fuzz_handlers(args.inputs, rng, Path(data)))
    print(
        f"handlers: {args.inputs:,} inputs in {time.perf_counter() - start:.1f} s: {h_crashes} crashes, "
        f"{h_hangs} hangs, slowest input {h_slowest * 1000:.1f} ms"
    )
    return 1 if crashes or hangs or h_crashes or h_hangs else 0


if __name__ == "__main__":
    sys.exit(main())

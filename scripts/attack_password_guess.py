#!/usr/bin/env python3
"""The password attacks of issue 26, on a real `president server` on loopback with a
server password and a table with a password of its own: how long a friend's hello (the
server password checked) and hello + join (the table's checked too) take, `--tries`
times each (p50/p95/max), in three phases:

- quiet: nobody else there;
- right: a crowd (`--connections` from `--addresses` addresses) asks to watch the table
  with its right password in a loop, each asking again as soon as it is answered: every
  check an scrypt on the old code, all of them queued for the one scrypt turn;
- wrong: one connection at each of `--guessers` addresses guesses the table's password
  in a loop (a guess every 50 ms, each answered before the next): prints how many
  guesses the server checked (scrypt) a second, and how many it refused unchecked.

The friend runs in a process of its own (the crowd's TLS work in this one does not slow
its clock), from 127.0.0.2; the crowd from 127.0.0.10 on, the guessers from 127.0.1.10
on (not the crowd's addresses, whose connections may still be closing).

    cd scripts && python attack_password_guess.py [--tries 20] [--connections 256]
    python attack_password_guess.py --python /path/to/old/venv/bin/python   # "before"

Exit status 1 if the friend's hello took more than 0.5 s (p95) under either attack."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attack_seatlock import SOURCE, spawn
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from president.client.connection import ConnectFailed, Link, connect
from president.client.pinning import KnownServers
from president.protocol import messages as m
from president.protocol.errors import Code
from servers import environment, start_server, stop_server

SERVER_PASSWORD = "open sesame"
TABLE_PASSWORD = "friends only"
TABLE = "friends"


async def answer(link: Link, timeout: float = 60) -> m.Message:
    """The next message on `link` that is not a ping (pings are answered)."""
    while True:
        message = await asyncio.wait_for(link.receive(), timeout)
        if message is None:
            raise ConnectionError("the server closed the connection")
        if isinstance(message, m.Ping):
            await link.send(m.Pong(nonce=message.nonce))
            continue
        return message


async def until(link: Link, kinds: tuple[type[m.Message], ...]) -> m.Message:
    while not isinstance(message := await answer(link), kinds):
        pass
    return message


def friend(address: str, pin: str, folder: str, tries: int, out: Any) -> None:
    """`tries` times: a new connection from 127.0.0.2 (hello with the server password),
    then a seat at the table (its password), then away: the seconds to the welcome and
    to the seat, or why a try failed.  With a player key of its own, as `president
    connect` always has (the same in the three phases: in the attacks it is a
    friend who got in before, whom the guessers' budgets do not hold; a newcomer's
    first try during the wrong phase waits for the budget of first tries)."""
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))  # (the same each phase)

    async def one(n: int) -> tuple[float, float] | str:
        SOURCE.set("127.0.0.2")
        known = KnownServers(Path(folder) / "friend")
        began = time.perf_counter()
        try:
            link = await connect(
                address,
                "friend",
                pin=pin,
                known=known,
                password=SERVER_PASSWORD,
                timeout=60,
                identity=key,
            )
        except (ConnectFailed, OSError, TimeoutError) as exc:
            return f"hello failed: {exc}"
        hello = time.perf_counter() - began
        try:
            await link.send(m.Join(table=TABLE, password=TABLE_PASSWORD))
            said = await until(link, (m.Seated, m.Error))
            seated = time.perf_counter() - began
            if isinstance(said, m.Error):
                return f"join refused: {said.message}"
            await link.send(m.Leave())
            return hello, seated
        except (ConnectionError, OSError, TimeoutError) as exc:
            return f"join failed: {exc!r}"
        finally:
            await link.close()

    async def all_tries() -> list[tuple[float, float] | str]:
        results = []
        for n in range(tries):
            results.append(await one(n))
            await asyncio.sleep(0.2)
        return results

    out.put(asyncio.run(all_tries()))


async def watcher(
    address: str,
    pin: str,
    known: KnownServers,
    i: int,
    stop: asyncio.Event,
    source: str,
    counts: collections.Counter[str],
) -> None:
    """One of the crowd: in with the server password, then asks to watch the table with
    its right password, again as soon as it is answered."""
    SOURCE.set(source)
    try:
        link = await connect(
            address, f"w{i}", pin=pin, known=known, password=SERVER_PASSWORD, timeout=120
        )
    except (ConnectFailed, OSError, TimeoutError) as exc:
        counts[f"not in: {exc}"] += 1
        return
    try:
        while not stop.is_set():
            await link.send(m.Spectate(table=TABLE, password=TABLE_PASSWORD))
            said = await until(link, (m.TableView, m.Error))
            counts["watching" if isinstance(said, m.TableView) else f"error: {said.message}"] += 1
    except (ConnectionError, OSError, TimeoutError) as exc:
        counts[f"dropped: {exc!r}"] += 1
    finally:
        await link.close()


async def guesser(
    address: str,
    pin: str,
    known: KnownServers,
    i: int,
    stop: asyncio.Event,
    source: str,
    counts: collections.Counter[str],
) -> None:
    """A guesser at one address: in with the server password (as a guest of the server
    would be), then a wrong table password every 50 ms."""
    SOURCE.set(source)
    try:
        link = await connect(
            address, f"g{i}", pin=pin, known=known, password=SERVER_PASSWORD, timeout=120
        )
    except (ConnectFailed, OSError, TimeoutError) as exc:
        counts[f"not in: {exc}"] += 1
        return
    n = checked = 0
    try:
        while not stop.is_set():
            n += 1
            await link.send(m.Spectate(table=TABLE, password=f"guess {i}-{n}"))
            said = await until(link, (m.TableView, m.Error))
            if isinstance(said, m.Error) and said.code == Code.WRONG_PASSWORD:
                counts["checked, wrong" if checked else "checked, wrong (its first)"] += 1
                checked += 1
            elif isinstance(said, m.Error):
                counts[str(said.code)] += 1
            else:
                counts["right?"] += 1
            await asyncio.sleep(0.05)
    except (ConnectionError, OSError, TimeoutError) as exc:
        counts[f"dropped: {exc!r}"] += 1
    finally:
        await link.close()


def figures(name: str, results: list[tuple[float, float] | str]) -> bool:
    """Print a phase's figures; whether its friend's hello p95 was within 0.5 s."""
    timed = [r for r in results if not isinstance(r, str)]
    failed = collections.Counter(r for r in results if isinstance(r, str))
    if not timed:
        print(f"{name}: every try failed: {dict(failed)}")
        return False

    def spread(values: list[float]) -> str:
        values = sorted(values)
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        return f"p50 {statistics.median(values):.3f} s, p95 {p95:.3f} s, max {values[-1]:.3f} s"

    hellos = sorted(h for h, _ in timed)
    print(f"{name}: friend's hello ({len(timed)} tries): {spread(hellos)}")
    print(f"{name}: friend's hello + join: {spread([s for _, s in timed])}")
    if failed:
        print(f"{name}: failed tries: {dict(failed)}")
    return hellos[min(len(hellos) - 1, round(0.95 * (len(hellos) - 1)))] <= 0.5 and not failed


async def phase(args: argparse.Namespace, address: str, pin: str, folder: Path) -> Any:
    """The friend's tries, in a process of its own: their results."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    process = context.Process(target=friend, args=(address, pin, str(folder), args.tries, out))
    process.start()
    try:
        return await asyncio.to_thread(out.get, True, 60 * args.tries + 60)
    finally:
        process.join(10)
        if process.is_alive():
            process.kill()


async def attack(args: argparse.Namespace) -> int:
    home = Path(tempfile.mkdtemp(prefix="president-passwords-"))
    env = environment(home, PRESIDENT_PASSWORD=SERVER_PASSWORD)
    log = (home / "server.log").open("w")
    server = start_server(
        args.python,
        home / "server",
        *("--pause", "0", "--max-connections", "2000"),
        env=env,
        stderr=log,
    )
    address = f"127.0.0.1:{server.port}"
    known = KnownServers(home / "known")
    ok = True
    try:
        SOURCE.set("127.0.0.1")
        host = await connect(address, "host", pin=server.pin, known=known, password=SERVER_PASSWORD)
        await host.send(
            m.CreateTable(
                name=TABLE, preset="classic", toggles={}, seats=8, password=TABLE_PASSWORD
            )
        )
        await host.send(m.ListTables())
        said = await until(host, (m.Tables, m.Error))
        if isinstance(said, m.Error):
            raise SystemExit(f"the table was not made: {said.message}")
        spawn(keep_answering(host))

        figures("quiet", await phase(args, address, server.pin, home))

        async def beside(
            attacker: Any, many: int, source: Callable[[int], str]
        ) -> tuple[Any, collections.Counter[str], float]:
            """The friend's tries while `many` attackers run, each from `source(i)`:
            the friend's results, what the attackers were answered, the seconds."""
            stop = asyncio.Event()
            counts: collections.Counter[str] = collections.Counter()
            began = time.monotonic()
            tasks = [
                asyncio.create_task(
                    attacker(address, server.pin, known, i, stop, source(i), counts)
                )
                for i in range(many)
            ]
            await asyncio.sleep(args.settle)
            results = await phase(args, address, server.pin, home)
            stop.set()
            await asyncio.gather(*tasks)
            return results, counts, time.monotonic() - began

        results, counts, seconds = await beside(
            watcher, args.connections, lambda i: f"127.0.0.{10 + i % args.addresses}"
        )
        print(
            f"right: {args.connections} connections from {args.addresses} addresses asked to"
            f" watch {sum(counts.values())} times in {seconds:.0f} s: {dict(counts)}"
        )
        ok &= figures("right", results)

        results, counts, seconds = await beside(
            guesser, args.guessers, lambda i: f"127.0.{1 + i // 200}.{10 + i % 200}"
        )
        first, again = counts["checked, wrong (its first)"], counts["checked, wrong"]
        print(
            f"wrong: {args.guessers} addresses guessed for {seconds:.0f} s: {first + again}"
            f" guesses checked (scrypt), {first} of them an address's first and {again} after"
            f" it; {counts['rate_limited']} refused unchecked ({dict(counts)})"
        )
        ok &= figures("wrong", results)
        print(f"server: {args.python} (command: python {' '.join(sys.argv)})")
        return 0 if ok else 1
    finally:
        stop_server(server.proc)
        log.close()
        lines = (home / "server.log").read_text().splitlines()
        print(f"server log: {len(lines)} lines")


async def keep_answering(link: Link) -> None:
    with contextlib.suppress(ConnectionError, OSError, TimeoutError):
        while True:
            await answer(link, 3600)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=20, help="friend's tries a phase")
    parser.add_argument("--connections", type=int, default=256, help="the crowd's connections")
    parser.add_argument("--addresses", type=int, default=8, help="the crowd's addresses")
    parser.add_argument("--guessers", type=int, default=100, help="addresses guessing wrong")
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds of attack before the friend tries"
    )
    parser.add_argument("--python", default=sys.executable, help="the server's interpreter")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a phase at a time
    return asyncio.run(attack(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())

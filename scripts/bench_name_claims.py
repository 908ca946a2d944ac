"""How long a name's claim holds the server's event loop: `NameBook.refusal` claiming
fresh names (each from an address of its own, as a burst of hellos from many addresses
would), with the book as the server keeps it (a write-ahead log, synced at its
checkpoints) and, in the same run, as it was kept before (a rollback journal, two fsyncs
a claim).  Prints each's median, p90 and worst, and their ratio.

    python scripts/bench_name_claims.py [--claims N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from president.server.players import NameBook


def claim_times(book: NameBook, count: int) -> list[float]:
    times = []
    for i in range(count):
        start = time.perf_counter()
        refused = book.refusal(
            f"player{i}", f"{i:064x}", f"10.{i // 60000}.{i // 250 % 240}.{i % 250}"
        )
        times.append(time.perf_counter() - start)
        assert refused is None, refused
    return sorted(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=500)
    args = parser.parse_args()
    medians = {}
    for mode in ("wal", "delete"):
        with tempfile.TemporaryDirectory() as folder:
            book = NameBook(Path(folder) / "names.sqlite3")
            assert book.db is not None
            if mode == "delete":  # (as before: a rollback journal, synchronous FULL)
                book.db.execute("PRAGMA journal_mode=DELETE")
                book.db.execute("PRAGMA synchronous=FULL")
            found = book.db.execute("PRAGMA journal_mode").fetchone()[0]
            times = claim_times(book, args.claims)
            book.db.close()
        medians[mode] = statistics.median(times)
        print(
            f"{found:>6} journal: {args.claims} claims, median {medians[mode] * 1e3:.3f} ms,"
            f" p90 {times[int(0.9 * len(times))] * 1e3:.3f} ms, worst {times[-1] * 1e3:.2f} ms"
        )
    print(f"median, rollback journal / write-ahead log: {medians['delete'] / medians['wal']:.1f}")


if __name__ == "__main__":
    main()

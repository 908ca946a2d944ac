#!/usr/bin/env python3
"""What a hello's check of the chairs costs (`Lobby.seated_under`: does someone else sit
under a name that looks like this one?) with N chairs held under distinct names, in one
process.  A hostile-guest pass filled 4,206 chairs from many addresses: past the 4,096
names `players.looks` keeps, every hello worked out every chair's skeletons again (38 ms
a hello, so 30 hellos a second stalled every table); each chair keeps its own now.

    python -m scripts.bench_hello_scan [--chairs 1000,4000,4206,6000]
"""

from __future__ import annotations

import argparse
import time
import types

from president.server import players
from president.server.lobby import Lobby
from president.server.seats import Slot


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chairs", default="1000,4000,4206,6000")
    parser.add_argument("--hellos", type=int, default=20)
    args = parser.parse_args()
    for total in (int(n) for n in args.chairs.split(",")):
        tables = {}
        for t in range(-(-total // 12)):
            names = [f"guest{t}-chair{s}-a-longish-name" for s in range(min(12, total - t * 12))]
            tables[f"t{t}"] = types.SimpleNamespace(
                name=f"t{t}", slots=[Slot(name=name) for name in names]
            )
        lobby = types.SimpleNamespace(tables=tables)
        players.looks.cache_clear()
        Lobby.seated_under(lobby, "warm-up", "")  # type: ignore[arg-type]
        start = time.perf_counter()
        for hello in range(args.hellos):
            Lobby.seated_under(lobby, f"newcomer{hello}", "")  # type: ignore[arg-type]
        spent = (time.perf_counter() - start) / args.hellos
        print(f"{total:,} chairs: {spent * 1000:.2f} ms a hello's chair check")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

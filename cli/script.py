"""A bot author's script as a command: `python mybot.py sim ...` is `president sim`,
`python mybot.py bot HOST ...` is `president bot` and `python mybot.py play` is
`president play` against it, with the bot the script registered
(`president.bots.sdk.register`) as the default line-up, strategy or opponents."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .main import main

USAGE = """\
usage: {prog} sim [president sim options]      play it offline (default: against 3 greedy bots)
       {prog} bot HOST[:PORT] [president bot options]   play it at a server's table
       {prog} play [president play options]    play against it yourself"""


def bot_script(strategy: str, argv: Sequence[str] | None = None) -> int:
    """Run `president sim`, `president bot` or `president play` for the registered bot
    `strategy`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["sim"]:
        if "--bots" not in args:
            args += ["--bots", f"{strategy},greedy,greedy,greedy"]
    elif args[:1] == ["bot"]:
        if "--strategy" not in args:
            args += ["--strategy", strategy]
    elif args[:1] == ["play"]:
        if "--bots" not in args:
            args += ["--bots", strategy]
    else:
        print(USAGE.format(prog=sys.argv[0]), file=sys.stderr)
        return 2
    return main(args)

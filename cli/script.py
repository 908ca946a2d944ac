"""A bot author's script as a command: `python mybot.py sim ...` is `president sim`,
`python mybot.py bot HOST ...` is `president bot` and `python mybot.py play` is
`president play` against it, with the bot the script registered
(`president.bots.sdk.register`) as the default line-up, strategy or opponents."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence

from .main import main
from .usage import _meant

USAGE = """\
usage: {prog} sim [president sim options]      play it offline (default: against greedy bots)
       {prog} bot HOST[:PORT] [president bot options]   play it at a server's table
       {prog} play [president play options]    play against it yourself"""

#: Each command, and the option that names the bots it plays (given the script's bot
#: unless the command line names them).
_OPTION = {"sim": "--bots", "bot": "--strategy", "play": "--bots"}


def bot_script(strategy: str, argv: Sequence[str] | None = None) -> int:
    """Run `president sim`, `president bot` or `president play` for the registered bot
    `strategy`."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else ""
    prog = sys.argv[0]
    if command not in _OPTION:
        if command in ("-h", "--help"):
            print(USAGE.format(prog=prog))
            return 0
        typed = f" {command!r}{_meant(command, list(_OPTION))}" if command else ""
        print(USAGE.format(prog=prog), file=sys.stderr)
        print(f"{prog}: choose sim, bot or play{typed and ', not' + typed}", file=sys.stderr)
        return 2
    option = _OPTION[command]
    named = _value(args, option) if _given(args, option) else None
    if named is not None and strategy.lower() not in (n.strip().lower() for n in named.split(",")):
        # (a pass: `python mybot.py sim --bots heuristic` played four heuristics, unsaid)
        print(
            f"{prog}: note: {option} {named} names no {strategy} (this script's bot): it"
            " plays none of these games",
            file=sys.stderr,
        )
    if not _given(args, option):
        if command == "sim":  # the bot against greedy ones, in every seat but one
            players = _value(args, "--players")
            count = int(players) if players is not None and players.isdigit() else 4
            # (past any table's size the command refuses --players itself; a line-up of
            # 10^20 was an OverflowError, a hostile pass)
            others = ["greedy"] * max(1, min(count, 99) - 1)
            args += [option, ",".join([strategy, *others])]
        else:
            args += [option, strategy]
        if _asks_help(args):  # (the help below names president's own default)
            print(
                f"{prog} {command}: president {command}, with {option} {args[-1]} by default "
                f"(where the help below says another default, it is president's own)\n"
            )
    return main(args)


def _asks_help(args: Sequence[str]) -> bool:
    """Whether the command line asks for the command's help (`-h`, `--help`, a prefix)."""
    return _given(args, "--help") or "-h" in itertools.takewhile(lambda a: a != "--", args[1:])


def _given(args: Sequence[str], option: str) -> bool:
    """Whether the command line gives `option`, in any form argparse takes: `--bots X`,
    `--bots=X`, or a prefix (`--bot X`)."""
    for arg in args[1:]:
        if arg == "--":
            return False
        name = arg.split("=", 1)[0]
        if len(name) > 2 and name.startswith("--") and option.startswith(name):
            return True
    return False


def _value(args: Sequence[str], option: str) -> str | None:
    """The value the command line gives `option` (`--players 5`, `--players=5`), if any."""
    for at, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if len(name) > 2 and name.startswith("--") and option.startswith(name):
            if equals:
                return value
            return args[at + 1] if at + 1 < len(args) else None
    return None

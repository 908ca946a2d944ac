"""What every subcommand shares: command-line mistakes said in one line, the checks of
each kind of value (numbers in range, seconds, names, addresses), toggles from `--set`,
bot strategies and levels, passwords from the environment or a prompt, the search bot's
budget."""

from __future__ import annotations

import argparse
import codecs
import difflib
import getpass
import ipaddress
import json
import math
import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TextIO

from president.bots.strategies import BUILT_IN, strategy_name
from president.engine import PRESETS, TOGGLES, Rules, RulesError, find_preset
from president.engine.record import NotARecord
from president.engine.rulefile import RuleFileError, RuleSet, parse_rule_file
from president.engine.rules import preset_name_of, toggle_choices
from president.protocol.schema import CONTROLS, shown


class UsageError(Exception):
    """A mistake on the command line: printed as one line, exit status 2."""


#: What `json.dumps` leaves raw that a terminal acts on: the C1 and bidirectional controls
#: and the separators (it writes the C0 controls as escapes already).
_JSON_UNSAFE = frozenset(ch for ch in CONTROLS if ord(ch) >= 0x7F)


def json_text(value: Any, indent: int | None = None, encoding: str | None = None) -> str:
    """`value` as JSON for a script that may print it: non-ASCII names kept as they are
    (`ensure_ascii=False`) where the output (`encoding`, stdout's) is UTF-8, as JSON
    is; every character a terminal would act on written as a JSON escape (a record's
    name holding a right-to-left override or a C1 CSI, a hostile pass), and on any other
    output every character beyond ASCII too (a terminal pass: under a Latin-1 locale an
    emoji came out as Python's `\\U0001f0a1`, which no JSON reader takes, and a recheck:
    `ë` as a Latin-1 byte, which no UTF-8 reader takes)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    if text.isascii() and "\x7f" not in text:
        return text
    encoding = encoding or getattr(sys.stdout, "encoding", None) or "utf-8"
    utf8 = codecs.lookup(encoding).name == "utf-8"
    return "".join(_json_char(ch, utf8) for ch in text)


def _json_char(ch: str, utf8: bool) -> str:
    """One character of JSON text (non-ASCII only inside a string) as the output can
    carry it: itself, or its JSON escape (a pair of them beyond the BMP)."""
    if ch in _JSON_UNSAFE:
        return f"\\u{ord(ch):04x}"
    if ch.isascii() or (utf8 and not "\ud800" <= ch <= "\udfff"):
        return ch
    return json.dumps(ch)[1:-1]


def as_written(text: str, stream: TextIO | None = None) -> str:
    """`text` as `stream` (stdout) will write it: each character its encoding lacks as
    the escape `main` has it written (Zo\\xeb), so that a column padded to it lines up
    (a terminal pass: a name escaped under a Latin-1 locale pushed its row 8 columns)."""
    if text.isascii():
        return text
    encoding = getattr(stream or sys.stdout, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def say_shown(line: str, file: TextIO | None = None) -> None:
    """Print a line made from a record or a name: a record is anyone's file, so its
    control characters are escaped (protocol.schema.shown); on a terminal, wrapped at
    words under the line's own indent (the terminal broke words in two: "heuri" /
    "stic-bot-1", "…: 2nd: t" / "he cards", a newcomer's pass); whole into a pipe or a
    file, for a script."""
    line = shown(line)  # (escaped first: an escape is what the terminal shows)
    if not (file or sys.stdout).isatty():
        print(line, file=file)
        return
    from president.client.tui.fit import wrap  # (only on a terminal: `replay` stays light)

    lead = len(line) - len(line.lstrip(" "))
    for part in wrap(line, shutil.get_terminal_size().columns - 1, hanging=lead + 2):
        print(part, file=file)


def _meant(typed: str, choices: Sequence[str]) -> str:
    """The words "; did you mean X?" for the choice closest to what was typed ("" if none)."""
    close = difflib.get_close_matches(typed, choices, n=1)
    return f"; did you mean {close[0]}?" if close else ""


#: argparse's words for a value not among an argument's choices (a subcommand's name).
_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line: the usage is one `--help` away."""

    def error(self, message: str) -> NoReturn:
        chosen = _INVALID_CHOICE.search(message)
        if chosen is not None:  # (`president srever`: did you mean server?)
            message += _meant(chosen.group(1), re.findall(r"'([^']*)'", chosen.group(2)))
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def parse_command(self, argv: Sequence[str]) -> argparse.Namespace:
        """`parse_args`, with words left over said by the subcommand they were given to
        (`president server: ... (see president server --help)`, not the top command's),
        and the option meant when one is close (`--prot`: did you mean --port?)."""
        args, extra = self.parse_known_args(argv)
        if extra:
            commands = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
            chosen = getattr(args, "command", None)
            owner = commands[0].choices.get(chosen, self) if commands and chosen else self
            options = [o for action in owner._actions for o in action.option_strings]
            message = f"unrecognized arguments: {' '.join(extra)}"
            typed = next((a.split("=", 1)[0] for a in extra if a.startswith("--")), None)
            if typed:
                message += _meant(typed, options)
            elif "--host" in options and "--port" in options and not extra[0].startswith("-"):
                # (`president server 127.0.0.1:18209`, as connect, bot and stats take it:
                # a host pass)
                host, colon, port = extra[0].rpartition(":")
                where = f"--host {host} --port {port}" if colon and host else f"--host {extra[0]}"
                message += f"; this command takes the address as {where}"
            owner.error(message)
        return args


# --- values: each a function for argparse's `type=`, its mistake in words ----------------


def whole(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """A whole number from `low` to `high` (either end open when None)."""

    def number(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if low is not None and high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low} to {high}, not {value}")
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, not {value}")
        return value

    return number


def seconds(high: float, *, zero: bool = True) -> Callable[[str], float]:
    """A time in seconds, up to `high`; 0 allowed when `zero`, never negative, NaN or
    infinite."""

    def duration(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero) or value > high:
            span = f"0 to {high:g}" if zero else f"more than 0 and at most {high:g}"
            raise argparse.ArgumentTypeError(f"must be {span} seconds, not {text!r}")
        return value

    return duration


def undecoded(text: str) -> bool:
    """Whether `text` holds bytes the locale's encoding could not read (the escapes
    `os.fsdecode` leaves for them in an argument or an environment variable)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def not_text(what: str) -> str:
    """The sentence for `what`, typed in bytes that are not text in the locale's encoding
    (a terminal pass: "José" typed on a Latin-1 terminal under LANG=C was refused as "a
    name may not hold U+DCE9: half of a surrogate pair")."""
    return (
        f"{what} is not {sys.getfilesystemencoding()} text, the encoding this locale reads:"
        " the terminal sent another; give the terminal and LANG the same encoding (a UTF-8"
        " one: LANG=C.UTF-8), or type it in plain letters"
    )


def need_screen(needs: str = "needs a terminal (run it in one)") -> None:
    """`UsageError` (`needs`) unless stdin and stdout are a terminal, and one that can
    draw a full screen: TERM=dumb (Emacs' shell, some consoles) says it cannot, and a
    terminal pass saw the screens drawn there without a word, escape codes and all."""
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError(needs)
    if os.environ.get("TERM") == "dumb":
        raise UsageError(
            "needs a terminal that draws a full screen, and TERM=dumb says this one cannot:"
            " run it in a terminal emulator (or, if yours can, set TERM=xterm)"
        )


def typed_text(what: str) -> Callable[[str], str]:
    """Any text, but not bytes the locale's encoding could not read (`not_text`)."""

    def checked(text: str) -> str:
        if undecoded(text):
            raise argparse.ArgumentTypeError(not_text(what))
        return text

    return checked


def short_text(high: int, what: str = "text") -> Callable[[str], str]:
    """Text of 1 to `high` characters, no control characters (what the wire carries)."""

    def checked(text: str) -> str:
        if undecoded(text):  # (not shown: it may be a password)
            raise argparse.ArgumentTypeError(not_text(what))
        if not 1 <= len(text) <= high:
            raise argparse.ArgumentTypeError(f"{what} must be 1 to {high} characters")
        if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
            raise argparse.ArgumentTypeError(f"{what} must not hold control characters")
        return text

    return checked


def port(text: str) -> int:
    """A port to listen on: 0 (the system picks one) to 65535."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def address(text: str) -> str:
    """A server's HOST[:PORT] (a name, an IPv4 address, or an IPv6 one in brackets when a
    port follows); whether the name resolves is found by connecting."""
    text = text.strip()
    host, sep, tail = text.rpartition(":")
    if not sep or (host.count(":") and not host.startswith("[")) or text.endswith("]"):
        host, tail = text, ""  # no port, or an IPv6 address, bare or in brackets
    elif not tail:  # ("127.0.0.1:" was looked up as a host named so)
        raise argparse.ArgumentTypeError(f"no port after the colon: {text!r} (HOST or HOST:PORT)")
    if tail and (not tail.isdigit() or not 1 <= int(tail) <= 65535):
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {tail!r}")
    if not is_host(unbracketed(host)):
        raise argparse.ArgumentTypeError(f"not HOST[:PORT]: {text!r}")
    return text


def is_host(host: str) -> bool:
    """Whether `host` may name a machine: an IPv6 address, or an IPv4 address or name of
    letters, digits, '-', '.' and '_' (whether a name resolves is another matter)."""
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return False
        return True
    return bool(host) and all(c.isalnum() or c in "-._" for c in host)


def listen_host(text: str) -> str:
    """An address or host name to listen on, checked before any name lookup (a name with
    a space in it would otherwise wait on the DNS before the server says it cannot
    listen)."""
    host = unbracketed(text.strip())
    if not is_host(host):
        name, colon, port = host.rpartition(":")
        given_port = colon and port.isdigit() and is_host(unbracketed(name))
        hint = f" (a port goes in --port: --port {port})" if given_port else ""
        raise argparse.ArgumentTypeError(f"not an address or host name: {text!r}{hint}")
    return host


def unbracketed(host: str) -> str:
    """`host` without the brackets an IPv6 address has before a port."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def directory(text: str) -> Path:
    """A directory given on the command line (`--data`): `~` is the home directory, as a
    shell would have made it had it not been quoted; an empty one is a mistake, not the
    default."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "an empty directory name (leave the option out for the default)"
        )
    return Path(text).expanduser()


def login_name(fallback: str) -> str:
    """The user's login name, as a default name at the tables (`fallback` without one)."""
    try:
        return getpass.getuser()[:32] or fallback
    except (OSError, KeyError, ImportError):
        return fallback


# --- rules, strategies --------------------------------------------------------------------


def parse_toggle(text: str) -> tuple[str, Any]:
    """`NAME=VALUE` from `--set`: true/false, none, whole numbers, or words.  A toggle's
    own words win over the other spellings: `equal_plays=off` is its word `off`, not
    false (on/off and yes/no mean true/false only for a toggle without those words)."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise UsageError(f"--set takes NAME=VALUE, not {text!r}")
    if name not in TOGGLES:
        close = difflib.get_close_matches(name, TOGGLES, n=1)
        if close:  # (as a rules file says it)
            raise UsageError(f"there is no toggle {name!r} (did you mean {close[0]}?)")
        raise UsageError(f"there is no toggle {name!r}: the toggles are {', '.join(TOGGLES)}")
    raw = raw.strip()
    value: Any
    word = next(
        (c for c in toggle_choices(name) or () if isinstance(c, str) and c.lower() == raw.lower()),
        None,
    )
    if word is not None:
        value = word
    elif raw.lower() in ("true", "on", "yes"):
        value = True
    elif raw.lower() in ("false", "off", "no"):
        value = False
    elif raw.lower() in ("none", "null"):  # (a toggle with the word none has it above)
        value = None
    elif raw.lstrip("-").isdigit():
        value = int(raw)
    else:
        value = raw
    if type(value) is str and isinstance(getattr(Rules(), name), bool):
        # (the engine's "must be true or false" left out the on/off and yes/no this
        # takes, and the README writes nines_clear=on)
        raise UsageError(f"{name} is on or off (true/false, yes/no), not {raw!r}")
    return name, value


def rules_for(preset: str, toggles: Sequence[str]) -> Rules:
    rules = find_preset(preset)
    changes = dict(parse_toggle(t) for t in toggles)
    return rules.replace(**changes) if changes else rules


# --- records: replay, analyze ---------------------------------------------------------------


#: The most a record file may hold: the longest real games' records are a few MiB (some
#: 4 KiB a hand of four players); `read_record` refuses more, unread.
RECORD_BYTES = 64 * 1024 * 1024


def before_the_cut(whole: dict[str, Any]) -> str:
    """What a record cut short holds whole (`CutShort.whole`), in words: "before the cut,
    2 hands (11 actions of the last)"."""
    hands = whole.get("hands")
    if not isinstance(hands, list) or not hands:
        return "before the cut, no hand"
    last = hands[-1].get("actions", []) if isinstance(hands[-1], dict) else []
    actions = len(last) if isinstance(last, list) else 0
    return (
        f"before the cut, {len(hands)} hand{'' if len(hands) == 1 else 's'}"
        f" ({actions} action{'' if actions == 1 else 's'} of the last)"
    )


def read_record(path: str) -> bytes:
    """A record file's bytes, up to `RECORD_BYTES`; `NotARecord` beyond (read no further:
    a device such as /dev/zero never ends), `OSError` when it cannot be read."""
    with open(path, "rb") as handle:
        data = handle.read(RECORD_BYTES + 1)
    if len(data) > RECORD_BYTES:
        raise NotARecord(f"over {RECORD_BYTES >> 20} MiB, not a president record")
    return data


# --- rules files: --rules FILE, the saved sets ----------------------------------------------

#: The most a rules file may hold (one with every toggle and its words is about 9 KiB).
RULE_FILE_BYTES = 64 * 1024

#: The most toggles a table may change from its preset on the wire (`create_table`).
WIRE_TOGGLES = 32


def rules_dir() -> Path:
    """The folder of saved rule sets, listed in the lobby's create-table form:
    $XDG_CONFIG_HOME/president/rules (~/.config/president/rules)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "president" / "rules"


def is_set_name(given: str) -> bool:
    """Whether `--save` was given a rule set's name (kept in `rules_dir()`), not a file:
    letters, digits, '-' and '_' only, starting with a letter or a digit."""
    return bool(re.fullmatch(r"[^\W_][\w-]{0,63}", given, flags=re.ASCII))


def rule_file_path(given: str) -> Path:
    """The file `--rules` names: the path given, or else a saved set of that name in
    `rules_dir()` (`--rules friday` is rules/friday.toml)."""
    path = Path(given).expanduser()
    if path.exists() or os.sep in given:
        return path
    for candidate in (rules_dir() / given, rules_dir() / f"{given}.toml"):
        if candidate.is_file():
            return candidate
    return path


def read_rule_file(given: str) -> RuleSet:
    """The rule set in the file `--rules` names; `UsageError`, one line naming the file
    (and the line and the toggle, from the engine), when it cannot be read as rules."""
    if not given.strip():  # (the current folder was read, "Is a directory")
        raise UsageError("--rules names a rules file or a saved set, not nothing")
    path = rule_file_path(given)
    try:
        with path.open("rb") as handle:
            data = handle.read(RULE_FILE_BYTES + 1)
    except OSError as exc:
        unsaved = (
            f" (nor is a set of that name saved in {rules_dir()}: president rules --save "
            f"{given} keeps one there)"
            if isinstance(exc, FileNotFoundError) and is_set_name(given)
            else ""
        )
        if isinstance(exc, FileNotFoundError) and given.strip().lower() in PRESETS:
            unsaved = (  # (a pass wrote --rules classic for the preset)
                f" ({given} is a preset: --rules takes a file president rules --save wrote,"
                " or a saved set's name)"
            )
        raise UsageError(
            f"cannot read the rules file {given}: {exc.strerror or exc}{unsaved}"
        ) from None
    if len(data) > RULE_FILE_BYTES:
        raise UsageError(f"{given}: over {RULE_FILE_BYTES // 1024} KiB, not a rules file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{given}: not UTF-8 text, not a rules file") from None
    try:
        return parse_rule_file(text, given)
    except RuleFileError as exc:
        raise UsageError(str(exc)) from None


def saved_rule_sets() -> tuple[dict[str, RuleSet], list[str]]:
    """The rule sets saved in `rules_dir()`, by name (the file's name without .toml), and
    a line for each file there that cannot be read as rules."""
    found: dict[str, RuleSet] = {}
    problems: list[str] = []
    try:
        paths = sorted(rules_dir().glob("*.toml"))
    except OSError:
        return found, problems
    for path in paths:
        try:
            found[path.stem] = read_rule_file(str(path))
        except UsageError as exc:
            problems.append(str(exc))
    return found, problems


def add_rules(parser: argparse.ArgumentParser, what: str = "the table") -> None:
    """`--preset`, `--rules FILE` and `--set NAME=VALUE`, the rules of `what`."""
    parser.add_argument(
        "--preset",
        type=preset,
        help=f"rules preset of {what}: {PRESET_NAMES} (default classic)",
    )
    parser.add_argument(
        "--rules",
        metavar="FILE",
        help=f"rules of {what} from a file written by `president rules --save`, or a saved "
        f"set's name in {rules_dir()}/",
    )
    add_set(parser)


def add_set(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a toggle on top of the preset or the file (repeatable)",
    )


def chosen_rules(args: argparse.Namespace) -> RuleSet:
    """The rules a command's options choose: `--preset` (classic when none) or the file
    of `--rules`, then each `--set` on top; `UsageError` for both a preset and a file."""
    given_preset: str | None = getattr(args, "preset", None)
    given_file: str | None = getattr(args, "rules", None)
    if given_file is not None and given_preset is not None:
        raise UsageError("give a preset or --rules, not both: the file names its preset")
    chosen = (
        read_rule_file(given_file) if given_file is not None else RuleSet(given_preset or "classic")
    )
    changes = dict(parse_toggle(t) for t in getattr(args, "set", None) or ())
    if not changes:
        return chosen
    rules = chosen.rules.replace(**changes)
    idle = rules.idle()
    for name in changes:
        if name in idle:  # (a host's --set rounds=1 under top_two played to 11 points unsaid)
            print(
                f"note: --set {name}={changes[name]} plays no part: {idle[name]}",
                file=sys.stderr,
            )
    return RuleSet.of(rules, chosen.preset)


def wire_rules(rule_set: RuleSet) -> RuleSet:
    """The rule set as a table is created with it: said from the closest preset when it
    changes more toggles from its own than the wire carries (`WIRE_TOGGLES`)."""
    if len(rule_set.changes) <= WIRE_TOGGLES:
        return rule_set
    closest, changes = preset_name_of(rule_set.rules)
    if len(changes) > WIRE_TOGGLES:
        raise UsageError(
            f"these rules change {len(changes)} toggles from the closest preset, {closest}; "
            f"a table changes at most {WIRE_TOGGLES}"
        )
    return RuleSet(closest, changes)


#: The presets, as `--help` names them (from the engine: a new preset is listed at once).
PRESET_NAMES = ", ".join(PRESETS)


def preset(text: str) -> str:
    """A preset's name, in any case, as the engine spells it (`--preset CLASSIC` is
    classic)."""
    try:
        find_preset(text)
    except RulesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text.strip().lower()


def strategy(text: str) -> str:
    """The strategy a `--bots`/`--strategy` value names: a strategy or a level
    (easy, normal, hard), in any case."""
    try:
        return strategy_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: Words for `--bots` and `--strategy` in `--help`.
STRATEGY_HELP = "easy, normal or hard (greedy, heuristic, search), or a strategy's name"

#: The search bot's budget per decision: playouts, or seconds.
PLAYOUTS = whole(1, 100_000)
THINK = seconds(60, zero=False)


#: The search bot's budget options, by flag and by attribute.
BUDGETS = (("--playouts", "playouts"), ("--think", "think"))


def check_budget(args: argparse.Namespace, bots: Sequence[str]) -> None:
    """`--playouts` or `--think` (not both) where a bot of `bots` searches; a script's own
    bots get the options too, and may use them (`UsageError` otherwise: `president bot
    --strategy greedy --playouts 5` was taken without a word, `sim` refused it)."""
    given = [flag for flag, value in BUDGETS if getattr(args, value, None) is not None]
    if len(given) > 1:
        raise UsageError("--think and --playouts: give one (--think is a time instead of a count)")
    if given and BUILT_IN.issuperset(bots) and "search" not in bots:
        raise UsageError(f"{given[0]} is the search bot's budget (hard), and no bot here searches")


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if getattr(args, "playouts", None) is not None:
        options["playouts"] = args.playouts
    if getattr(args, "think", None) is not None:
        options["seconds"] = args.think
    return options


# --- passwords: never needed on the command line -------------------------------------------

#: What a password may be (the protocol's limit).
PASSWORD = short_text(64, "a password")

#: Answers at a password prompt before giving up (an empty one, a mismatch, one too long).
PROMPT_TRIES = 3


class Password(NamedTuple):
    """A password and where it came from, in words a host recognises ("--password",
    "PRESIDENT_PASSWORD", "the prompt"), never the password itself."""

    text: str
    source: str


def add_password(
    parser: argparse.ArgumentParser,
    flag: str,
    variable: str,
    what: str,
    *,
    when: str = "",
    confirm: bool = False,
) -> None:
    """`flag` (e.g. --password) and `flag`-prompt, for the password `what` names (`when`
    adds when it is needed); without either, the environment variable `variable`."""
    parser.add_argument(
        flag,
        type=PASSWORD,
        metavar="PW",
        help=f"{what}{when} (visible to other users in `ps`: prefer ${variable} or {flag}-prompt)",
    )
    twice = "; asked twice, to confirm" if confirm else ""
    parser.add_argument(
        flag + "-prompt",
        action="store_true",
        help=f"type {what} at a prompt instead (not shown{twice})",
    )


def ask_password(question: str, flag: str, *, confirm: bool = False) -> str:
    """A password typed at the terminal, not echoed: asked again after an empty answer, one
    the protocol refuses, or (with `confirm`) a second answer that differs; `UsageError`
    after `PROMPT_TRIES`.  Ctrl-C goes up as `KeyboardInterrupt`."""
    reason = ""
    for _ in range(PROMPT_TRIES):
        try:
            typed = getpass.getpass(f"{reason}{question}")
            if not typed:
                reason = "nothing typed: "
                continue
            try:
                PASSWORD(typed)
            except argparse.ArgumentTypeError as exc:
                reason = f"{exc}: "
                continue
            if confirm and getpass.getpass("the same again, to confirm: ") != typed:
                reason = "the two differ: "
                continue
        except EOFError:
            raise UsageError(f"{flag}-prompt: no password, the input ended") from None
        return typed
    said = reason.removesuffix(": ")
    raise UsageError(f"{flag}-prompt: no password after {PROMPT_TRIES} tries (the last: {said})")


def given_password(
    args: argparse.Namespace, flag: str, variable: str, question: str, *, confirm: bool = False
) -> Password | None:
    """The password from `flag`, else asked for (`flag`-prompt; twice with `confirm`),
    else from the environment variable `variable`, else None; with where it came from."""
    dest = flag.lstrip("-").replace("-", "_")
    given: str | None = getattr(args, dest)
    if getattr(args, dest + "_prompt"):
        if given is not None:
            raise UsageError(f"give {flag} or {flag}-prompt, not both")
        if not sys.stdin.isatty():
            raise UsageError(f"{flag}-prompt needs a terminal to ask in")
        return Password(ask_password(question, flag, confirm=confirm), "the prompt")
    if given is not None:
        return Password(given, flag)  # argparse has checked it (PASSWORD)
    given = os.environ.get(variable) or None
    if given is None:
        return None
    try:
        return Password(PASSWORD(given), variable)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"{variable}: {exc}") from None


def password(args: argparse.Namespace, flag: str, variable: str, question: str) -> str | None:
    """The password `given_password` finds, without where it came from."""
    found = given_password(args, flag, variable, question)
    return None if found is None else found.text


#: The screens' themes (client/tui/theme.THEMES; named here too so that `president rules`
#: and `replay` do not load the terminal library to build their options).
THEME_NAMES = ("dark", "light", "mono", "neutral")


def add_bell(parser: argparse.ArgumentParser) -> None:
    """`--bell`, the same on every command that seats a player at a table."""
    parser.add_argument(
        "--bell",
        action="store_true",
        help="ring the terminal's bell when your turn comes (the terminal's title says "
        "it either way)",
    )


def add_theme(parser: argparse.ArgumentParser, what: str = "the screens") -> None:
    """`--theme`, the same on every command with a screen; None means choose_theme's pick
    when the screen opens."""
    parser.add_argument(
        "--theme",
        choices=THEME_NAMES,
        help=f"colours for {what}: dark or light for the terminal's background, neutral "
        "for either, mono for none (default: mono if NO_COLOR is set, else as COLORFGBG "
        "tells, else as the terminal answers when asked, else neutral)",
    )

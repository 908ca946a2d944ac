"""A table's rules as a file a group keeps and shares: commented TOML, a preset and the
toggles changed from it (docs/rules.md, "Rules as files").  Text in, text out: reading
and writing the file is the command line's (cli/usage.py).

```toml
preset = "daifugo"

# two or more 9s may be played on any pile and clear it; their player leads
nines_clear = true
```

Every other toggle is written too, commented out, in the preset's value, with its words:
the file says the whole of the rules, and a line uncommented changes one."""

from __future__ import annotations

import difflib
import re
import textwrap
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .describe import describe
from .errors import RulesError
from .rules import PRESETS, TOGGLES, Rules, find_preset, toggle_choices

#: The width the comments are wrapped to.
WIDTH: Final = 88


class RuleFileError(RulesError):
    """A rules file that cannot be read as rules: its message names the file, the line
    (when one is to blame) and the toggle, in one line."""

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class RuleSet:
    """A preset and the toggles changed from it: what a rules file holds, what a table
    is created with (`create_table`'s preset and toggles) and what a record carries."""

    preset: str
    changes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def rules(self) -> Rules:
        return find_preset(self.preset).replace(**self.changes)

    @classmethod
    def of(cls, rules: Rules, preset: str) -> RuleSet:
        """`rules` said as changes from the preset `preset`."""
        return cls(preset, rules.changes_from(find_preset(preset)))


def toml_value(value: object) -> str:
    """A toggle's value as TOML: true/false, a number, a word in quotes; "none" (TOML has
    no null) for no value."""
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def _comment(words: str, indent: str = "") -> list[str]:
    return textwrap.wrap(
        words, WIDTH, initial_indent=f"# {indent}", subsequent_indent=f"# {indent}"
    )


def format_rule_file(rule_set: RuleSet, *, made_by: str = "") -> str:
    """The file for `rule_set`: a header, the preset, the toggles changed (each under its
    words), then every other toggle commented out in the preset's value.  `made_by`: the
    command that wrote it, said in the header."""
    rules = rule_set.rules
    changed = rules.changes_from(find_preset(rule_set.preset))
    words = {name: text for name, _, text in describe(rules)}
    count = f"{len(changed)} toggle{'' if len(changed) == 1 else 's'} changed"
    lines = [
        f"# President rules: the preset {rule_set.preset} with {count}.",
        *_comment(
            "Load it with --rules FILE (president play, sim, bot, replay, rules); kept in"
            " ~/.config/president/rules/ (president rules --save NAME puts it there), it is"
            " found by its name and the lobby's create-table form lists it.  A line"
            " NAME = VALUE changes a toggle from the preset (docs/rules.md, 'Toggles')."
        ),
    ]
    if made_by:
        lines += _comment(f"Written by {made_by}.")
    lines += ["", f"preset = {toml_value(rule_set.preset)}", ""]
    if changed:
        lines += ["# --- changed from the preset " + "-" * 50, ""]
        for name in TOGGLES:
            if name in changed:
                lines += [*_comment(words[name]), f"{name} = {toml_value(changed[name])}", ""]
    lines += [f"# --- as the preset {rule_set.preset} has them " + "-" * 40, ""]
    for name in TOGGLES:
        if name not in changed:
            value = getattr(rules, name)
            lines += [*_comment(words[name]), f"# {name} = {toml_value(value)}", ""]
    return "\n".join(lines[:-1]) + "\n"


# --- reading ------------------------------------------------------------------------------

_AT = re.compile(r"\s*\(at (?:line (\d+), column \d+|end of document)\)\s*$")


def _line_of(text: str, key: str) -> int | None:
    """The line (from 1) where `key` is given a value, or opens a table, in `text`."""
    quoted = re.escape(key)
    pattern = re.compile(rf"""^\s*\[*\s*(?:{quoted}|"{quoted}"|'{quoted}')\s*[=.\]]""")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _toggle_value(name: str, value: object) -> object:
    """A value read from TOML as the toggle takes it: a toggle's word in any case, "none"
    for no value where the toggle has that; anything else as it is (the rules check it)."""
    if isinstance(value, str):
        choices = toggle_choices(name) or ()
        word = next((c for c in choices if isinstance(c, str) and c.lower() == value.lower()), None)
        if word is not None:
            return word
        if None in choices and value.lower() == "none":
            return None
    return value


def _value_problem(name: str, value: object) -> str | None:
    """What is wrong with `value` for the toggle `name` alone (as `Rules` says it), or
    None; whether it goes with the other toggles is the rules' to say."""
    choices = toggle_choices(name)
    if choices is None:
        if type(value) is not int:
            return f"{name} must be a whole number, not {toml_value(value)}"
        return None
    if choices == (False, True):
        if type(value) is not bool:
            return f"{name} must be true or false, not {toml_value(value)}"
        return None
    if not any(type(value) is type(c) and value == c for c in choices):
        shown = ", ".join(toml_value(c) for c in choices)
        return f"{name} must be one of {shown}, not {toml_value(value)}"
    return None


def parse_rule_file(text: str, source: str = "the rules file") -> RuleSet:
    """The rule set of a file's `text`; `RuleFileError` naming `source`, the line and the
    toggle for TOML that does not parse, a table, an unknown toggle or preset, a value
    the toggle does not take, or toggles that do not go together."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _AT.search(message)
        line = (int(at.group(1)) if at.group(1) else text.count("\n") or 1) if at else None
        raise RuleFileError(source, line, f"not TOML: {_AT.sub('', message)}") from None
    except (RecursionError, ValueError):
        # (tomllib recurses into nested arrays, and int() refuses a number of more
        # than 4,300 digits: a hostile file's, no rules')
        raise RuleFileError(source, None, "not rules: nested or numbered past any toggle") from None
    has_preset = "preset" in data
    preset = data.pop("preset", "classic")
    if not isinstance(preset, str) or preset.strip().lower() not in PRESETS:
        raise RuleFileError(
            source,
            _line_of(text, "preset"),
            f"preset = {toml_value(preset) if not isinstance(preset, dict) else 'a table'}"
            f" is not a preset: choose one of {', '.join(PRESETS)}",
        )
    preset = preset.strip().lower()
    base = PRESETS[preset]
    changes: dict[str, Any] = {}
    for name, raw in data.items():
        line = _line_of(text, name)
        if isinstance(raw, dict):
            raise RuleFileError(
                source, line, f"{name} is a table: a rules file holds NAME = VALUE lines only"
            )
        if name not in TOGGLES:
            close = difflib.get_close_matches(name, TOGGLES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise RuleFileError(source, line, f"there is no toggle {name!r}{hint}")
        value = _toggle_value(name, raw)
        problem = _value_problem(name, value)
        if problem is not None:
            raise RuleFileError(source, line, problem)
        changes[name] = value
    try:
        rules = base.replace(**changes)
    except RulesError as exc:  # toggles that do not go together: the first one it names
        named = [n for n in changes if re.search(rf"\b{n}\b", str(exc))]
        line = _line_of(text, named[0]) if named else None
        raise RuleFileError(source, line, str(exc)) from None
    if not has_preset:  # (after the toggles: a mistake there is said with its line first)
        # a saved file names it near its top: without it the file was cut short, or
        # written by hand; read as classic, a cut daifugo file made a classic table
        raise RuleFileError(
            source, None, f'it names no preset: add a line preset = "NAME" ({", ".join(PRESETS)})'
        )
    return RuleSet.of(rules, preset)

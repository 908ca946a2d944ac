"""The final standings of a game as lines of text: the ranking with points and titles,
each player's place and points hand by hand, and who held the office of President.
Plain Python over the hands a client saw end (`HandResult`), tested without a terminal."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from president.engine import Rules
from president.engine.scoring import titles_by_name

from .fit import cells, head, middle_cut, pad, wrap


@dataclass(frozen=True)
class HandResult:
    """One hand's end, as `hand_over` says it: names by place, points by place."""

    hand: int
    finish: tuple[str, ...]
    points: tuple[int, ...]


def presidents(results: Sequence[HandResult]) -> list[tuple[str, int, int]]:
    """Who came first, run by run: (name, first hand, last hand), hands from 0, in order
    (a run is broken by a hand someone else won or a hand not seen)."""
    runs: list[tuple[str, int, int]] = []
    for result in results:
        first = result.finish[0]
        if runs and runs[-1][0] == first and runs[-1][2] == result.hand - 1:
            runs[-1] = (first, runs[-1][1], result.hand)
        else:
            runs.append((first, result.hand, result.hand))
    return runs


def said_together(names: Sequence[str]) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    names = list(names)
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _hands(first: int, last: int) -> str:
    return f"hand {first + 1}" if first == last else f"hands {first + 1}–{last + 1}"


def office_lines(results: Sequence[HandResult]) -> list[str]:
    """Who was President after each run of hands, and who was longest in a row (not
    "kept the office": a pass counted that a first hand's President kept nothing yet)."""
    runs = presidents(results)
    if not runs:
        return []
    held = ", ".join(f"{name} ({_hands(a, b)})" for name, a, b in runs)
    lines = [f"President: {held}"]
    longest = max(b - a + 1 for _, a, b in runs)
    if longest > 1:
        keepers = [name for name, a, b in runs if b - a + 1 == longest]
        names = said_together(list(dict.fromkeys(keepers)))
        lines.append(f"longest run as President: {names}, {longest} hands in a row")
    else:
        lines.append("nobody was President two hands in a row")
    return lines


def standings(
    rules: Rules | None,
    results: Sequence[HandResult],
    winners: Sequence[str],
    scores: Mapping[str, int],
    hands_played: int,
    standing: Sequence[str] = (),
    width: int = 60,
) -> list[str]:
    """The final standings, each line at most `width` characters: the name column as
    wide as the longest name, or a name too long for it on a line of its own (cut in the
    middle only when it is wider than the box), the lines about the office wrapped at
    words; equal points share a place.  `scores` are the game's totals as the table last said them; a player who left
    before the end is counted from the hands seen.  `hands_played` is how many hands
    the game had: hands this client did not see are said to be missing.  `standing` is
    the last hand's finish as the table says it (titles come from it)."""
    results = sorted({r.hand: r for r in results}.values(), key=lambda r: r.hand)
    totals = dict(scores)
    for result in results:
        for name, gain in zip(result.finish, result.points):
            if name not in scores:
                totals[name] = totals.get(name, 0) + gain
    last = tuple(standing) or (results[-1].finish if results else ())
    last_place = {name: place for place, name in enumerate(last)}
    names = sorted(
        totals,
        key=lambda n: (n not in winners, -totals[n], last_place.get(n, len(totals)), n),
    )
    title_of = titles_by_name(rules, last) if rules else {}
    # the name column as wide as the longest name, unless the ranking line would not fit:
    # "NN. " name "  " points(6) "  " title "  ★ winner"
    title_w = max((len(title_of.get(n, "—")) for n in names), default=1)
    rest = 4 + 2 + 6 + 2 + title_w + (len("  ★ winner") if winners else 0)
    who = max(4, min(max((cells(n) for n in names), default=4), width - rest))
    won = said_together(winners)
    plural = "s" if hands_played != 1 else ""
    over = f"GAME OVER after {hands_played} hand{plural}"
    lines = wrap(over + (f" — {won} won" if won else ""), width, hanging=2)
    # (the title is the office the last hand gave, not the game's rank: a newcomer read
    # "3. ann  1  Vice-President" as a contradiction)
    header = f"    {'name':<{who}}  points  title after hand {hands_played}"
    lines.append(header if len(header) <= width else f"    {'name':<{who}}  points  title")
    # equal points (and winning or not) share a place: "3." twice, the next one "5."
    ranks = [(name not in winners, -totals[name]) for name in names]
    tied = False
    for index, name in enumerate(names):
        place = ranks.index(ranks[index]) + 1
        tied = tied or ranks.count(ranks[index]) > 1
        mark = "  ★ winner" if name in winners else ""
        title = title_of.get(name, "—")
        numbers = f"  {totals[name]:>6}  {title}{mark}"
        if cells(name) > who:  # the whole name on its own line, the numbers under it
            lines.append(f"{place:>2}. {middle_cut(name, width - 4)}")
            lines.append(f"    {'':<{who}}{numbers}")
        else:
            lines.append(f"{place:>2}. {pad(name, who)}{numbers}")
    if tied:
        tie = "(equal points share a place, in the last hand's order)"
        lines += textwrap.wrap(tie, width, subsequent_indent=" ")
    lines += _grid(results, names, who, width)
    missing = hands_played - len(results)
    if missing > 0:
        lines.append(f"({missing} hand{'s were' if missing != 1 else ' was'} not seen here)")
    for line in office_lines(results):  # broken between names, never inside one
        held = line.replace("hand ", "hand\xa0").replace("hands ", "hands\xa0")  # "(hand 2)"
        wrapped = wrap(held, width, hanging=2)  # (by columns: 山田 is four)
        lines += [part.replace("\xa0", " ") for part in wrapped]
    return [head(line, width) for line in lines]


def _grid(results: Sequence[HandResult], names: Sequence[str], who: int, width: int) -> list[str]:
    """Place and points in each hand, one column per hand; a game of more hands than fit
    across, in blocks of the hands that fit, one under the other (every hand is shown:
    the standings scroll)."""
    if not results:
        return []
    cell = 6  # " 1 +3 "
    fit = max(1, (width - who - 5) // cell)
    hands = list(results)
    fit = -(-len(hands) // -(-len(hands) // fit))  # blocks alike: 17 hands as 9 and 8, not 16 and 1
    lines = ["", "place and points won, hand by hand"]
    for at in range(0, len(hands), fit):
        shown = hands[at : at + fit]
        if at:
            lines.append("")
        heads = "".join(f"{'h' + str(r.hand + 1):>3}".ljust(cell) for r in shown)
        lines.append((" " * (who + 4) + heads).rstrip())
        for name in names:
            marks = ""
            for result in shown:
                if name in result.finish:
                    place = result.finish.index(name)
                    gain = result.points[place]
                    marks += f"{place + 1:>3} {f'{gain:+d}' if gain else ''}".ljust(cell)[:cell]
                else:
                    marks += f"{'·':>3}".ljust(cell)
            if cells(name) > who:  # the whole name on its own line, the cells under it
                lines.append(f"    {middle_cut(name, width - 4)}")
                lines.append(f"    {'':<{who}}{marks}".rstrip())
            else:
                lines.append(f"    {pad(name, who)}{marks}".rstrip())
    return lines

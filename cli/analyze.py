"""`president analyze RECORD [--seat NAME] [--json] [--jobs N] [--playouts N]`: every
decision of a game record judged from the seat that made it, and what each hand's cards
were worth (`president.bots.review`; docs/analysis.md)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from president.bots.review import THRESHOLDS, WORLDS, PlayerSummary, Review, review
from president.client.tui.narrator import plural_word as plural
from president.engine import Action
from president.engine.record import CutShort, NotARecord, loads
from president.protocol.schema import shown

from .usage import (
    UsageError,
    before_the_cut,
    json_text,
    read_record,
    say_shown,
    typed_text,
    whole,
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Judge every decision of a president-record/1 game from the seat that made it "
        "(its view then, never the hidden hands): each weighed action's expected place, "
        "the chosen one's loss against the best, labelled "
        + ", ".join(f"{name} (>= {limit} places)" for name, limit in THRESHOLDS)
        + "; and what each hand's cards were worth. Exit status: 0 done, 2 not a record "
        "or one that does not replay."
    )
    parser.add_argument("file", help="the record (JSON)")
    parser.add_argument(
        "--seat",
        action="append",
        default=[],
        type=typed_text("a name"),
        metavar="NAME",
        help="judge this player's decisions only (repeatable; default: everyone)",
    )
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument(
        "--jobs",
        type=whole(1, 256),  # (as `sim`'s: a typo's 100000 made as many processes)
        default=1,
        metavar="N",
        help="processes to share the work (default 1)",
    )
    parser.add_argument(
        "--playouts",
        type=whole(2),
        default=WORLDS,
        metavar="N",
        help=f"worlds each weighed action is played out in (default {WORLDS})",
    )
    parser.add_argument("--seed", type=int, default=1, help="the worlds' seed (default 1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        document = loads(read_record(args.file))
    except OSError as exc:
        raise UsageError(shown(f"cannot read {args.file}: {exc.strerror or exc}")) from None
    except CutShort as exc:  # (its whole part reviewed: a copy stopped short lost nothing
        # of it, a pass)
        document = exc.whole
        said = f"{exc}: {before_the_cut(document)}, reviewed"
        print(shown(f"president analyze: {args.file}: {said}"), file=sys.stderr)
    except NotARecord as exc:
        print(shown(f"president analyze: {args.file}: {exc}"), file=sys.stderr)
        return 2
    players = document.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        # (a hostile pass: a record whose players are a number was a traceback here)
        print(
            shown(f"president analyze: {args.file}: players must be a list of names"),
            file=sys.stderr,
        )
        return 2
    unknown = [name for name in args.seat if name not in players]
    if unknown:
        raise UsageError(
            f"{unknown[0]!r} is not a player of this record (its players: {', '.join(players)})"
        )
    bar = Bar() if sys.stderr.isatty() and not args.json else None
    started = time.monotonic()
    try:
        result = review(
            document,
            seats=args.seat or None,
            worlds=args.playouts,
            luck_worlds=2 * args.playouts,
            jobs=args.jobs,
            seed=args.seed,
            progress=bar.show if bar else None,
        )
    except NotARecord as exc:
        if bar:
            bar.done()
        print(shown(f"president analyze: {args.file}: {exc}"), file=sys.stderr)
        return 2
    if bar:
        bar.done()
    if args.json:
        print(json_text(result.to_json()))
        return 0
    for line in report(result, len(document.get("hands", [])), args.playouts, said_cards()):
        say_shown(line)
    print(f"({time.monotonic() - started:.1f} s)")
    return 0


def said_cards() -> Callable[[Action], str]:
    """How the text writes an action: cards with suit symbols, as the game shows them
    ("5♣ 5♥"), where the output takes them; else the record's letters ("5C 5H")."""
    try:
        "♣♦♥♠".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return str
    from president.client.tui.review import action_text

    return action_text


#: The labels counted as "mistakes or worse".
MISTAKES = ("mistake", "blunder")


def report(
    result: Review, hands: int, worlds: int, say: Callable[[Action], str] = str
) -> list[str]:
    """The review in lines: what the figures mean; each player's figures and, in words,
    whether it was the cards or the play; each hand's; the worst decisions, each action
    as `say` writes it (the record's letters by default)."""
    lines = [
        f"{len(result.judged)} {plural('decision', len(result.judged))} with a choice judged"
        f" over {worlds} worlds each ({hands} {plural('hand', hands)}); places: 1 is first."
        " Every figure is in places, + for better:",
        "  the cards: what the cards dealt were worth against the table's average, the normal"
        " bot (the heuristic) playing every seat;",
        "  the play: what your decisions gained or cost against the normal bot's with the"
        " same cards (a mistake it would have made too counts 0);",
        "  against the best: what they cost against the best action found each time (an"
        " estimate from sampled deals: played as well as the best, a hand shows about 0,"
        " above or below it by the deals' chance), summed over the decisions: each is"
        " measured on its own, the rest of the hand played by the normal bot, so a sum"
        " can pass what a hand can cost.",
    ]
    finished = {summary.name: summary for summary in result.summaries(finished=True)}
    for summary in result.summaries():
        counts = ", ".join(f"{n} {plural(name, n)}" for name, n in summary.labels.items())
        left = summary.hands - summary.finished
        unfinished = f" ({left} unfinished)" if left else ""
        # (no decision judged, the game quit at once: "accuracy 100" said nothing true)
        accuracy = f"accuracy {summary.accuracy:.0f}" if summary.decisions else "no accuracy"
        lines.append(
            f"{summary.name}: {accuracy},"
            f" {summary.decisions} {plural('decision', summary.decisions)} ({counts});"
            f" over {summary.hands} {plural('hand', summary.hands)}{unfinished}: the cards"
            f" {signed(summary.cards)} places, the play {signed(summary.gained)} against the"
            f" normal bot's, {signed(-summary.gaps)} against the best (a decision's loss on average"
            f" {summary.mean_loss:.3f}, none counted below 0)"
            # (above 0 as shown: no play beats the best; a pass read it as better)
            + (" (above 0 by the deals' chance)" if round(-summary.gaps, 1) > 0 else "")
        )
        average = next((luck.average for luck in result.luck if luck.name == summary.name), 0)
        made = result.by_table.get(summary.name, 0)
        said = verdict(finished[summary.name], average, left, made)
        if said:
            lines.append(f"  {said}")
        if made:  # (a pass: a friend's closed window, and the table's moves called blunders)
            lines.append(
                f"  {made} {plural('move', made)} the table made for {summary.name} (its time"
                " ran out, it was away or had left) not judged: not its play"
            )
    gained = result.gained()
    behind: dict[tuple[int, str], tuple[float, int, int]] = {}
    for judged in result.judged:
        key = (judged.hand, judged.name)
        gap, labelled, decisions = behind.get(key, (0.0, 0, 0))
        behind[key] = (gap + judged.gap, labelled + (judged.label in MISTAKES), decisions + 1)
    for luck in result.luck:
        key = (luck.hand, luck.name)
        # (a stopped game's last hand has no place, but its cards count in the totals
        # above: it has its line too)
        place = ordinal(luck.place) if luck.place else "unfinished"
        line = (
            f"hand {luck.hand + 1}, {luck.name}: {place}: the cards"
            f" {signed(luck.cards)} places, the play {signed(gained.get(key, 0.0))}"
        )
        if key in behind:
            # (a pass read "-11.2 against the best" for one hand of four players as places
            # lost: it is its decisions' losses summed)
            gap, labelled, decisions = behind[key]
            over = f" over {decisions} {plural('decision', decisions)}" if decisions > 1 else ""
            line += f", {signed(-gap)} against the best{over}"
            if round(-gap, 1) > 0:  # (above 0 as shown: no play beats the best, and a
                # pass read it as better than the best; "+0.0" is not above it)
                line += " (above 0 by the deals' chance)"
            if labelled:
                line += f" ({labelled} {plural('mistake', labelled)} or worse)"
        lines.append(line)
    worst = sorted((j for j in result.judged if j.label), key=lambda j: -j.loss)[:10]
    if worst:
        lines.append("the costliest decisions:")
    for judged in worst:
        chosen, best_place = judged.places()
        lines.append(
            f"  hand {judged.hand + 1}, action {judged.number + 1}, {judged.name}:"
            f" {say(judged.chosen)} (expected place {chosen:.2f}); best"
            f" {say(judged.best)} ({best_place:.2f}): {judged.label}"
            # (a pass followed `s` and was told of a blunder: the normal bot's too)
            + (", the normal bot's choice too (what s suggests)" if judged.usual else "")
        )
    return lines


#: A hand's figure, in places, past which a verdict calls it more than chance (below it,
#: about even): the cards and the play per hand.
NOTABLE = 0.15


def verdict(
    summary: PlayerSummary, average: float, unfinished: int = 0, table_moves: int = 0
) -> str:
    """Was it the cards or the play, in words: the place taken against the table's
    average; which of the cards and the play (against the normal bot's) went the same way
    as the place, by their places a hand; and the mistakes against the best found.
    `summary`: over the hands finished (`Review.summaries(finished=True)`); `unfinished`:
    the hands left out for want of a place; `table_moves`: the moves the table made for
    the seat (not judged, and part of why it placed as it did)."""
    hands = summary.finished
    if not average:
        return ""
    if not hands:  # (a pass: a game left mid-hand had no sentence, and no word why)
        return "was it the cards? no hand finished: no place to weigh them against"
    placed = summary.places / hands
    cards, play = summary.cards / hands, summary.gained / hands
    if not summary.decisions:
        play = 0.0
    outcome = average - placed  # (+: better than average)
    if abs(outcome) < NOTABLE:
        lead = "an average result"
    else:
        sign = 1 if outcome > 0 else -1
        why = [name for name, part in (("cards", cards), ("play", play)) if sign * part >= NOTABLE]
        lead = (
            "both the cards and the play" if len(why) == 2
            else f"mostly the {why[0]}" if why
            else "neither the cards nor the play against the normal bot's"
        )  # fmt: skip
    quality = "good" if cards >= NOTABLE else "poor" if cards <= -NOTABLE else "about even"
    # (the whole sentence is of the hands finished: the place, the cards, the play, the
    # mistakes)
    over = f"over the {hands} finished {plural('hand', hands)}, " if unfinished else ""
    said = (
        f"was it the cards? {over}{lead}: placed {placed:.1f} on average"
        f" (the table's {average:g});"
        f" the cards were {quality} ({cards:+.2f} places a hand)"
    )
    if summary.decisions:
        said += (
            ", the play gained on the normal bot's" if play >= NOTABLE
            else ", the play cost places against the normal bot's" if play <= -NOTABLE
            else ", the play was much as the normal bot's"
        ) + f" ({play:+.2f} a hand)"  # fmt: skip
        worst = sum(summary.labels.get(label, 0) for label in MISTAKES)
        if worst:
            said += f"; {worst} {plural('mistake', worst)} or worse against the best found" + (
                ", as the normal bot would have played" if abs(play) < NOTABLE else ""
            )
    # (a pass: the table played 17 moves for one who had left, and the sentence gave the
    # last place to the others' play)
    made = (
        f"the {table_moves} {plural('move', table_moves)} the table made for the seat, "
        if table_moves
        else ""
    )
    return said + f"; the rest is {made}the others' play and what no seat could see."


def signed(places: float) -> str:
    """Places to one decimal with their sign, never "-0.0"."""
    return f"{round(places, 1) or 0.0:+.1f}"


def ordinal(place: int) -> str:
    return f"{place}{'st' if place == 1 else 'nd' if place == 2 else 'rd' if place == 3 else 'th'}"


class Bar:
    """A progress bar on stderr (a terminal only)."""

    def __init__(self) -> None:
        self.width = 30

    def show(self, done: int, total: int) -> None:
        filled = self.width * done // max(1, total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\r" + " " * (self.width + 24) + "\r")
        sys.stderr.flush()

"""The review of a game in the replay viewer (issue 29): what `president analyze` says
of each decision, shown beside the step it made, and run in the background while the
viewer is used.

`ReviewState` is plain Python over the judged decisions (tested without a terminal):
the lines of the review panel for the step shown (the action taken, the best, the loss,
the label; at a deal, what the cards were worth), the steps of a player's mistakes (the
keys `]` and `[` go to them), a sparkline of the player's expected place through the game.
`Reviewer` fills a state from worker processes, chunk by chunk, the focused player's
decisions first; the screen redraws as each chunk comes in."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from president.bots.review import (
    LUCK_WORLDS,
    WORLDS,
    Judged,
    Luck,
    PlayerSummary,
    chunk_size,
    chunks,
    judge_chunk,
    luck_chunk,
    work_of,
    worker_init,
)
from president.engine import Action, Bomb, Pass, Play
from president.engine.record import NotARecord
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_width

from .fit import cells, middle_cut
from .narrator import cards_text, plural
from .replay import ReplayScreen, Step

#: The sparkline's bars, lowest first: a tall bar is a good place (1st).
BARS = "▁▂▃▄▅▆▇█"

#: A line of the panel: (style, text) fragments.
Line = StyleAndTextTuples


def action_text(action: Action) -> str:
    """An action as the screen says it: cards with suit symbols, or pass."""
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, Bomb):
        return str(action)
    text = cards_text(action.cards)
    return text if isinstance(action, Play) else f"{action.word} {text}"


def sparkline(values: list[float], width: int, worst: float) -> str:
    """`values` (expected places, 1 best, `worst` the last place) as bars in at most
    `width` columns, a tall bar for a good place; values are averaged when more than
    `width` of them share the line."""
    if not values or width <= 0:
        return ""
    cells = min(width, len(values))
    out = []
    for cell in range(cells):
        part = values[cell * len(values) // cells : (cell + 1) * len(values) // cells]
        mean = sum(part) / len(part)
        good = (worst - mean) / (worst - 1) if worst > 1 else 0.5
        out.append(BARS[max(0, min(len(BARS) - 1, round(good * (len(BARS) - 1))))])
    return "".join(out)


#: Why the table made a player's move (a record's `timeout`), as the panel says it.
TABLE_WHY = {"time": "its time ran out", "away": "away", "left": "it had left"}

#: A decision no action found did better than, and the same where the line is narrow.
NO_BETTER, NONE_BETTER = " · no better action found", " · none better"


#: A decision's note that the normal bot (`s`) would have made it too.
USUAL = " · s would suggest it too"


@dataclass
class ReviewState:
    """The judged decisions of a record as they come in, and whose are followed."""

    players: list[str]
    focus: str
    #: Decisions and hands to weigh in all, and done so far.
    total: int = 0
    done: int = 0
    judged: dict[tuple[int, int], Judged] = field(default_factory=dict)
    luck: dict[tuple[int, str], Luck] = field(default_factory=dict)
    #: Why there is no review (a record that does not replay), or "".
    failed: str = ""
    #: A word for the panel's title line until the next key (no mistake found ...).
    message: str = ""
    started: bool = False
    #: The work is known (`total` is set).
    planned: bool = False
    #: Per step of the screen, its index: (hand, action) -> step.
    _index: dict[tuple[int, int | None], int] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.planned and self.done >= self.total

    def add(self, judged: list[Judged]) -> None:
        for one in judged:
            self.judged[(one.hand, one.number)] = one
        self.done += len(judged)

    def add_luck(self, luck: list[Luck]) -> None:
        for one in luck:
            self.luck[(one.hand, one.name)] = one
        self.done += len(luck)

    def next_focus(self) -> None:
        """Follow the next player (the keys `]`, `[` and the sparkline are theirs)."""
        at = self.players.index(self.focus) if self.focus in self.players else -1
        self.focus = self.players[(at + 1) % len(self.players)]
        self.message = f"following {self.focus}"

    # --- where things are on the screen ---------------------------------------------

    def step_of(self, screen: ReplayScreen, hand: int, action: int | None) -> int | None:
        if len(self._index) != len(screen.steps):
            self._index = {(s.hand, s.action): i for i, s in enumerate(screen.steps)}
        return self._index.get((hand, action))

    def of_step(self, step: Step) -> Judged | None:
        return None if step.action is None else self.judged.get((step.hand, step.action))

    def mine(self) -> list[Judged]:
        """The focused player's judged decisions, in the order of the game."""
        return sorted(
            (j for j in self.judged.values() if j.name == self.focus),
            key=lambda j: (j.hand, j.number),
        )

    def mistakes(self, screen: ReplayScreen) -> list[int]:
        """The steps of the focused player's labelled decisions, in order."""
        found = (self.step_of(screen, j.hand, j.number) for j in self.mine() if j.label)
        return [i for i in found if i is not None]

    def jump(self, screen: ReplayScreen, forward: bool) -> None:
        """To the focused player's next (or previous) labelled decision."""
        steps = self.mistakes(screen)
        here = screen.index
        ahead = [i for i in steps if i > here] if forward else [i for i in steps if i < here]
        if ahead:
            screen.go(ahead[0] if forward else ahead[-1])
            return
        where = "after this" if forward else "before this"
        more = "" if self.finished or self.failed else f" yet ({self.progress()})"
        self.message = f"no mistake of {self.focus} {where}{more}"

    # --- what the panel says --------------------------------------------------------

    def progress(self) -> str:
        return f"{100 * self.done // max(1, self.total)}% judged"

    def summary(self) -> PlayerSummary:
        summary = PlayerSummary(self.focus)
        for judged in self.mine():
            summary.add(judged)
        for luck in self.luck.values():
            if luck.name == self.focus:
                summary.cards += luck.cards
                summary.hands += 1
        return summary

    def title(self, width: int = 80) -> tuple[str, str]:
        """The panel's title line, at most `width` columns: whose review, and how far it
        is (or the figures, the least telling dropped first on a narrow screen)."""
        if self.message:
            return "class:message", f"review · {self.message}"
        if self.failed:
            return "class:dim", f"review · {self.failed}"
        if not self.planned or not self.finished:
            how = "starting" if not self.planned else self.progress()
            name = middle_cut(self.focus, max(8, width - len(f"review of  · {how}")))
            return "class:dim", f"review of {name} · {how}"
        summary = self.summary()
        counted = [(name, n) for name, n in reversed(summary.labels.items()) if n]
        # (in words where they fit: "11 ina, 4 mis, 4 blu" said nothing to a newcomer's
        # pass; cut to three letters, which the help explains, where they do not)
        words = ", ".join(plural(n, name) for name, n in counted)
        labels = ", ".join(f"{n} {name[:3]}" for name, n in counted)
        parts = [
            f"review of {self.focus}",
            f"accuracy {summary.accuracy:.0f}" if summary.decisions else "no decision to judge",
            words,
            f"cards {summary.cards:+.1f}, play {summary.gained:+.1f}",
        ]
        # (the labels go first; then a long name is cut in the middle before a figure
        # goes: it left "review of ... · cards -0.3, play +0.0", the accuracy gone, a
        # user pass; the cards' and the play's share are the last to go)
        for said, drop in ((words, ()), (labels, ()), ("", (2,))):
            parts[2] = said
            text = " · ".join(p for i, p in enumerate(parts) if p and i not in drop)
            if cells(text) <= width:
                return "class:title", text
        for dropped in ((0, 2), (0, 1, 2)):
            rest = "".join(f" · {p}" for i, p in enumerate(parts) if p and i not in dropped)
            room = width - len("review of ") - cells(rest)
            if room >= min(cells(self.focus), 16):  # (a name left long enough to tell)
                return "class:title", f"review of {middle_cut(self.focus, room)}{rest}"
        return "class:title", f"review of {middle_cut(self.focus, max(8, width - 10))}"

    def decision(self, screen: ReplayScreen, width: int | None = None) -> Line:
        """What the step shown did, judged: the action, its expected place, the best's,
        the loss and the label; at a deal, what the focused player's cards were worth.
        Wider than `width`, a labelled decision puts its loss and label first and drops
        the expected places (cut at the end, they were what went: 60x16)."""
        line = self._decision(screen)
        if width is None or fragment_list_width(line) <= width:
            return line
        judged = self.of_step(screen.step) if screen.step.action is not None else None
        if judged is not None and judged.gap <= 0:  # (a pass: "no better action fo…" at 60)
            return [(part[0], NONE_BETTER) if part[1] == NO_BETTER else part for part in line]
        if judged is None or not judged.label:
            return line
        if judged.usual:  # ("s would suggest it too" goes first, then "s too": a pane of
            # 71 columns lost the expected places for it, a newcomer's pass at 120x40)
            plain = [part for part in line if part[1] != USUAL]
            for said in ((("class:dim", " · s too"),), ()):
                if fragment_list_width(plain) + fragment_list_width(list(said)) <= width:
                    return plain + list(said)
        who = screen.step.view.seating[screen.step.actor]  # type: ignore[index]
        head = f" −{judged.loss:.2f} {judged.label}"
        chosen, best = action_text(judged.chosen), action_text(judged.best)
        # (the name cut in the middle, not the plays after it: a long one left only
        # "−0.79 blunder 寿限無…", a newcomer's pass)
        room = width - cells(head) - cells(f" : {chosen} · best {best}")
        return [
            (f"class:{judged.label}", head),
            ("", f" {middle_cut(who, max(6, room))}: {chosen}"),
            ("class:dim", " · best "),
            ("", best),
        ]

    def _decision(self, screen: ReplayScreen) -> Line:
        step = screen.step
        if self.failed:
            return [("class:dim", " no review of this record")]
        if step.action is None or step.actor is None:
            luck = self.luck.get((step.hand, self.focus))
            if luck is None:
                later = "weighed after the decisions" if not self.finished else "not weighed"
                return [("class:dim", f" {self.focus}'s cards this hand: {later}")]
            return [
                ("", f" {self.focus}'s cards: {luck.cards:+.2f} places"),
                ("class:dim", f" (expected {luck.expected:.2f}, average {luck.average:.1f})"),
            ]
        who = step.view.seating[step.actor]
        judged = self.of_step(step)
        if judged is None:
            if step.timeout:  # (the timeout rule's move: not the player's to judge)
                said = TABLE_WHY[step.timeout]
                return [("class:dim", f" {who}: the table's move ({said}): not judged")]
            if (step.hand, step.action) in self._unjudged(screen):
                return [("class:dim", f" {who}: not judged yet")]
            return [("class:dim", f" {who}: no other choice")]
        chosen, best = judged.places()
        line: Line = [("", f" {who}: {action_text(judged.chosen)} ({chosen:.2f})")]
        if judged.best == judged.chosen:
            line.append(("class:dim", " · the best"))
            return line
        if judged.gap <= 0:  # the best found on half the worlds did no better on the rest
            line.append(("class:dim", NO_BETTER))
            return line
        # (the best is what a player most wants to read: in the text's own colour)
        line += [("class:dim", " · best "), ("", f"{action_text(judged.best)} ({best:.2f})")]
        lost = f" · −{judged.loss:.2f}"
        if judged.label:
            line += [("class:dim", lost), (f"class:{judged.label}", f" {judged.label}")]
            if judged.usual:  # (as analyze says: a pass that pressed s blamed itself)
                line.append(("class:dim", USUAL))
        else:
            line.append(("class:dim", lost))
        return line

    def _unjudged(self, screen: ReplayScreen) -> set[tuple[int, int]]:
        """Decisions still to come: every recorded action while the review runs."""
        if self.finished:
            return set()
        return {(s.hand, s.action) for s in screen.steps if s.action is not None}

    def curve(self, screen: ReplayScreen) -> tuple[list[float], int, float]:
        """The focused player's expected place after each of their judged decisions, how
        many of those are at or before the step shown, and the table's last place."""
        mine = self.mine()
        values = [dict(j.expected)[j.chosen] for j in mine]
        seen = 0
        for j in mine:
            index = self.step_of(screen, j.hand, j.number)
            if index is not None and index <= screen.index:
                seen += 1
        worst = float(len(screen.step.view.seating))
        return values, seen, worst

    def spark(self, screen: ReplayScreen, width: int) -> Line:
        """The sparkline line: the expected place through the game, the part up to the
        step shown highlighted, and the value there."""
        values, seen, worst = self.curve(screen)
        if not values:
            return [("class:dim", " expected place: nothing judged yet")]
        now = f" {values[seen - 1]:.1f}" if seen else "  — "
        label = " exp. place "
        bars = sparkline(values, max(1, width - len(label) - len(now) - 1), worst)
        cut = round(len(bars) * seen / len(values))
        return [
            ("class:dim", label),
            ("class:selected", bars[:cut]),
            ("", bars[cut:]),
            ("class:dim", now),
        ]


class Reviewer:
    """Judges a record's decisions in worker processes (`jobs` of them; 0: a thread of
    this process, for tests) and feeds `state` as each chunk comes back, calling
    `changed()` each time.  `stop()` cancels what has not started."""

    def __init__(
        self,
        state: ReviewState,
        document: Mapping[str, Any],
        *,
        jobs: int | None = None,
        worlds: int = WORLDS,
        luck_worlds: int = LUCK_WORLDS,
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.state = state
        self.document = document
        self.jobs = default_jobs() if jobs is None else jobs
        self.worlds = worlds
        self.luck_worlds = luck_worlds
        self.changed = changed
        self.task: asyncio.Task[None] | None = None
        self._pool: Workers | None = None

    def start(self) -> None:
        if self.task is None:
            self.state.started = True
            self.task = asyncio.ensure_future(self._run())

    def stop(self) -> None:
        """Stop at once: the workers are ended, not waited for (a viewer closed mid-way
        leaves nothing running)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self._close()

    def _close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        state = self.state
        try:
            work = await loop.run_in_executor(None, work_of, self.document)
        except (NotARecord, KeyError, TypeError, ValueError) as exc:
            state.failed = f"not reviewed: {exc}"[:120]
            self.changed()
            return
        # the followed player's decisions first, then everyone else's, then the cards
        decisions = sorted(work.decisions, key=lambda item: item[1] != state.focus)
        state.total, state.planned = work.total, True
        pool = self._pool = Workers(self.jobs, loop)
        size = max(1, min(4, chunk_size(work.total, max(1, self.jobs))))
        judging = [pool.submit(judge_chunk, job) for job in chunks(decisions, size, self.worlds, 1)]
        weighing = [
            (job[0], pool.submit(luck_chunk, job))
            for job in chunks(work.starts, size, self.luck_worlds, 1)
        ]
        try:
            for future in asyncio.as_completed(judging):
                state.add(await future)
                self.changed()
            for starts, pending in weighing:
                worth = await pending
                state.add_luck([work.luck(s, e) for s, e in zip(starts, worth)])
                self.changed()
        except Exception as exc:  # (a worker's failure: said on the panel, not a traceback)
            state.failed = f"not reviewed: {exc}"[:120]
            self.changed()
        finally:
            self._close()


class Workers:
    """Worker processes (`jobs` of them; 0: one thread of this process) whose results
    come back as futures of the event loop, and which `close` ends at once (a process
    pool's shutdown would wait for the chunks under way)."""

    def __init__(self, jobs: int, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.jobs = jobs
        self.threads = concurrent.futures.ThreadPoolExecutor(1) if jobs <= 0 else None
        self.processes: Any = None
        if jobs > 0:
            context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
            self.processes = context.Pool(jobs, initializer=background_worker)

    def submit(self, run: Callable[[Any], Any], job: Any) -> asyncio.Future[Any]:
        if self.threads is not None:
            return self.loop.run_in_executor(self.threads, run, job)
        future: asyncio.Future[Any] = self.loop.create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        def failed(error: BaseException) -> None:
            if not future.done():
                future.set_exception(error)

        self.processes.apply_async(
            run,
            (job,),
            callback=lambda r: self.loop.call_soon_threadsafe(done, r),
            error_callback=lambda e: self.loop.call_soon_threadsafe(failed, e),
        )
        return future

    def close(self) -> None:
        if self.threads is not None:
            self.threads.shutdown(wait=False, cancel_futures=True)
        if self.processes is not None:
            # (beside the screen: `terminate` joins the workers, and CPython's pool can
            # wait for ever on a queue's lock a killed worker held; the screen must not)
            threading.Thread(target=self.processes.terminate, daemon=True).start()
            self.processes = None


#: How much lower than the viewer's a review worker's CPU priority is (`os.nice`): it
#: judges in the background, and a game or a build beside it should not wait for it.
WORKER_NICENESS = 10


def background_worker() -> None:
    """A review worker's start beside the viewer: Ctrl-C is the viewer's (`worker_init`),
    and its priority `WORKER_NICENESS` lower where the system has one."""
    worker_init()
    with contextlib.suppress(AttributeError, OSError):  # (no os.nice on Windows)
        os.nice(WORKER_NICENESS)


def default_jobs() -> int:
    """Worker processes for a review beside the viewer: every core but one (the screen's)."""
    return max(1, (os.cpu_count() or 2) - 1)

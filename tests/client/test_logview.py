"""The log scrolled back holds still: lines that come at the end while a player reads
back, and old ones that go at the start (the table keeps its last few hundred), do not
move what is shown; a scroll, End or a resize do."""

from __future__ import annotations

from president.client.tui.logview import LogView


def shown(view: LogView, width: int = 40, height: int = 4) -> list[str]:
    content = view.create_content(width, height)
    return ["".join(text for _, text in content.get_line(i)) for i in range(content.line_count)]


def test_a_log_scrolled_back_holds_still_as_lines_come_and_go() -> None:
    lines = [("", f"line {n}") for n in range(20)]
    view = LogView(lambda: lines)
    assert shown(view)[-1] == "line 19"  # following the newest
    view.scroll(6)
    before = shown(view)
    assert before[:3] == ["line 10", "line 11", "line 12"]
    assert before[-1].startswith("↓ 6 newer lines")
    lines.extend(("", f"line {n}") for n in range(20, 25))  # five more come
    after = shown(view)
    assert after[:3] == before[:3] and after[-1].startswith("↓ 11 newer lines")
    del lines[:8]  # the oldest go
    assert shown(view)[:3] == before[:3]
    lines.append(("", "line 10"))  # (a line like one shown: still the same place)
    assert shown(view)[:3] == before[:3]
    view.scroll(-3)  # the player's own scroll moves it
    assert shown(view)[0] == "line 13"
    view.follow()
    assert shown(view)[-1] == "line 10"  # End: the newest again
    lines.append(("", "line 99"))
    assert shown(view)[-1] == "line 99"  # and it follows


def test_a_repeated_line_does_not_fool_it() -> None:
    """Plays repeat ("bob passes"): what is held is the whole window drawn."""
    lines = [("", "bob passes") for _ in range(12)] + [("", "cat plays 9♠")]
    view = LogView(lambda: lines)
    view.scroll(3)
    before = shown(view)
    lines.extend(("", "bob passes") for _ in range(4))
    assert shown(view) == [*before[:-1], shown(view)[-1]]
    assert shown(view)[-1].startswith("↓ 7 newer lines")

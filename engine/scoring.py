"""Titles, points per hand, and the end of the game (docs/rules.md, "Titles" and
"Scoring and the end of the game")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .rules import Rules


def titles(rules: Rules, players: int) -> list[str]:
    """The title of each finishing place, first to last."""
    low = rules.title_scum
    if players == 3:
        return ["President", "Citizen", low]
    return ["President", "Vice-President"] + ["Citizen"] * (players - 4) + [f"Vice-{low}", low]


def titles_by_name(rules: Rules, standing: Sequence[str]) -> dict[str, str]:
    """Each player's title from a standing (names by place; empty before hand 1's end)."""
    return dict(zip(standing, titles(rules, len(standing)))) if standing else {}


def hand_points(rules: Rules, players: int) -> list[int]:
    """Points for each finishing place, first to last."""
    if rules.scoring == "top_two":
        return [2, 1] + [0] * (players - 2)
    if rules.scoring == "positional":
        return [players - 1 - place for place in range(players)]
    return [0] * players


def game_result(
    rules: Rules,
    scores: Mapping[str, int],
    seated: Sequence[str],
    hands_played: int,
    last_finish: Sequence[str],
) -> tuple[bool, list[str]]:
    """(game over, winners) after a hand.  Only players at the table can win."""
    if rules.scoring == "top_two":
        best = max(scores[name] for name in seated)
        leaders = [name for name in seated if scores[name] == best]
        if best >= rules.target and len(leaders) == 1:
            return True, leaders
        return False, []
    if hands_played < rules.rounds:
        return False, []
    if rules.scoring == "last_president":
        return True, [last_finish[0]]
    best = max(scores[name] for name in seated)
    return True, [name for name in seated if scores[name] == best]

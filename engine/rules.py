"""Every toggle of the rules in one frozen `Rules`, and the five presets (docs/rules.md,
"Toggles" and "Presets")."""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from .cards import EIGHT, TEN, TWO
from .errors import RulesError
from .house import HOUSE_RULES, HouseRules

Dealer = Literal["rotate", "scum"]
SeatOrder = Literal["fixed", "by_rank"]
Passing = Literal["multi_round", "locked"]
EqualPlays = Literal["off", "allow", "skip"]
JokerMode = Literal["high", "wild"]
Exchange = Literal["none", "one", "two", "two_one"]
FirstLead = Literal["three_of_clubs", "dealer_left"]
LaterLead = Literal["president", "scum"]
Scoring = Literal["top_two", "positional", "last_president"]
TitleScum = Literal["Scum", "Beggar"]

_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "decks": (1, 2),
    "jokers": (0, 1, 2),
    "joker_mode": ("high", "wild"),
    "dealer": ("rotate", "scum"),
    "seat_order": ("fixed", "by_rank"),
    "passing": ("multi_round", "locked"),
    "equal_plays": ("off", "allow", "skip"),
    "clear_rank": (None, 8, 10),
    "exchange": ("none", "one", "two", "two_one"),
    "first_lead": ("three_of_clubs", "dealer_left"),
    "later_lead": ("president", "scum"),
    "scoring": ("top_two", "positional", "last_president"),
    "title_scum": ("Scum", "Beggar"),
}


@dataclass(frozen=True, kw_only=True)
class Rules(HouseRules):
    """The rules a table plays by.  Defaults are the base game (the `classic` preset);
    the house rules (`house.HouseRules`) are declared in engine/house.py."""

    decks: int = 1
    jokers: int = 0
    joker_mode: JokerMode = "high"
    dealer: Dealer = "rotate"
    deal_from_president: bool = False
    seat_order: SeatOrder = "fixed"
    passing: Passing = "multi_round"
    auto_pass: bool = False
    twos_clear: bool = False
    clear_rank: int | None = None
    bombs: bool = False
    revolution: bool = False
    equal_plays: EqualPlays = "off"
    must_beat: bool = False
    two_finish_penalty: bool = False
    exchange: Exchange = "two_one"
    auto_return: bool = False
    first_lead: FirstLead = "three_of_clubs"
    later_lead: LaterLead = "president"
    scoring: Scoring = "top_two"
    target: int = 11
    rounds: int = 5
    title_scum: TitleScum = "Scum"

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            choices = _CHOICES.get(field.name)
            if choices is not None:
                if value not in choices or type(value) is bool:
                    shown = ", ".join(repr(c) if c is not None else "none" for c in choices)
                    raise RulesError(f"{field.name} must be one of {shown}, not {value!r}")
            elif isinstance(field.default, bool):
                if type(value) is not bool:
                    raise RulesError(f"{field.name} must be true or false, not {value!r}")
            elif type(value) is not int:
                raise RulesError(f"{field.name} must be a whole number, not {value!r}")
        if self.target < 1:
            raise RulesError(f"target must be at least 1 point, not {self.target}")
        if not 1 <= self.rounds <= 99:
            raise RulesError(f"rounds must be between 1 and 99 hands, not {self.rounds}")
        if self.joker_mode == "wild" and self.jokers == 0:
            raise RulesError("joker_mode = 'wild' needs jokers: set jokers to 1 or 2")
        if self.auto_return and self.exchange == "none":
            raise RulesError("auto_return needs an exchange: exchange = 'none' has no returns")
        if self.suit_ranking and self.equal_plays != "off":
            raise RulesError(
                "suit_ranking lets an equal rank beat only in a higher suit, and equal_plays"
                " lets any equal rank follow: turn one of them off"
            )

    # --- derived facts the engine asks often -------------------------------------------

    @functools.cached_property
    def variants(self) -> bool:
        """Any rule of docs/rules.md's "Variants" or "The Daifugo family" is on: the
        engine then takes its general path (suits may matter, plays have effects)."""
        return any(getattr(self, name) for name in VARIANTS)

    @functools.cached_property
    def plain_follow(self) -> bool:
        """No special play can answer a pile: only the trick's count of a higher rank."""
        wild = self.joker_mode == "wild" and self.jokers > 0
        return not (
            wild or self.bombs or self.twos_clear or self.clear_rank is not None or self.variants
        )

    @functools.cached_property
    def takes(self) -> bool:
        """The cards played are not just the plays' own: a card played may be taken back
        into a hand (salvage, kings_march, zombie: a `Take` due), or every seat may
        discard by another's due (queen_bomber), so a hand's history alone does not
        replay its hands."""
        return self.salvage or self.kings_march or self.zombie or self.queen_bomber

    @functools.cached_property
    def pile_clears(self) -> bool:
        """A play may clear by the pile it goes on (assassination, spade_two_return)."""
        return self.assassination or self.spade_two_return

    @functools.cached_property
    def follow_margin(self) -> int:
        """How far above the pile a follow must rank: 1, or 0 when equal plays are allowed."""
        return 0 if self.equal_plays != "off" else 1

    @functools.cached_property
    def clear_floors(self) -> tuple[int, ...]:
        """Per rank (`cards.RANK_NAMES`, then the joker), the fewest natural cards of it in
        a set that clear the pile (twos_clear, clear_rank, the house rules' "clear"
        triggers), or 0 when no set of it does.  Bombs are apart: any rank, 4 or more."""
        floors = [0] * 14
        if self.clear_rank is not None:
            floors[EIGHT if self.clear_rank == 8 else TEN] = 1
        if self.twos_clear:
            floors[TWO] = 1
        for trigger in self.triggers:
            if trigger.effect == "clear":
                floor = floors[trigger.rank]
                floors[trigger.rank] = min(floor, trigger.at_least) if floor else trigger.at_least
        return tuple(floors)

    @functools.cached_property
    def run_clear_ranks(self) -> tuple[int, ...]:
        """The ranks a sequence holding one natural card of clears the pile (clear_rank,
        and the "clear" triggers that are not for sets only)."""
        ranks = [EIGHT if self.clear_rank == 8 else TEN] if self.clear_rank is not None else []
        ranks += [
            t.rank
            for t in self.triggers
            if t.effect == "clear" and not t.sets_only and t.at_least <= 1
        ]
        return tuple(ranks)

    @property
    def deck_size(self) -> int:
        return self.decks * (52 + self.jokers)

    @property
    def max_players(self) -> int:
        return 8 if self.decks == 1 else 12

    def idle(self) -> dict[str, str]:
        """The toggles whose value plays no part under these rules, each with why: the
        scoring reads either `target` or `rounds`, never both (a host's `--set rounds=1`
        under `top_two` scoring played to 11 points, unsaid)."""
        if self.scoring == "top_two":
            return {"rounds": f"scoring = top_two ends the game at target = {self.target} points"}
        return {
            "target": f"scoring = {self.scoring} ends the game after rounds = {self.rounds} hands"
        }

    def check_players(self, count: int) -> None:
        """Refuse a table size the deck cannot serve, naming the toggle."""
        if count < 3:
            raise RulesError(f"President needs at least 3 players, not {count}")
        if count > self.max_players:
            if self.decks == 1 and count <= 12:
                raise RulesError(f"decks = 1 serves at most 8 players, not {count}: set decks = 2")
            # (no "set decks = 2" past 12: a pass followed it, and was refused again)
            raise RulesError(
                f"decks = {self.decks} serves at most {self.max_players} players, not {count}"
                + ("" if self.decks == 2 else " (decks = 2 serves at most 12)")
            )

    def replace(self, **changes: Any) -> Rules:
        """These rules with `changes`; `RulesError` naming a toggle there is not."""
        unknown = [name for name in changes if name not in _TOGGLE_SET]
        if unknown:
            raise RulesError(f"there is no toggle {unknown[0]!r}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in TOGGLES}

    def changes_from(self, base: Rules) -> dict[str, Any]:
        """The toggles where this differs from `base`, for records and summaries."""
        return {
            name: getattr(self, name)
            for name in TOGGLES
            if getattr(self, name) != getattr(base, name)
        }


#: The toggles of docs/rules.md's "Variants" and "The Daifugo family", all off by default
#: (each declared in engine/house.py).
VARIANTS: Final[tuple[str, ...]] = HOUSE_RULES

#: Every toggle: the base game's, then the house rules.
TOGGLES: Final[tuple[str, ...]] = (
    *(f.name for f in dataclasses.fields(Rules) if f.name not in HOUSE_RULES),
    *HOUSE_RULES,
)
_TOGGLE_SET: Final = frozenset(TOGGLES)

#: Japanese Daifugo (the preset daifugo), which the preset japanese builds on.
_DAIFUGO: Final = Rules(
    jokers=1,
    joker_mode="wild",
    dealer="scum",
    revolution=True,
    clear_rank=8,
    later_lead="scum",
    scoring="positional",
    rounds=5,
    title_scum="Beggar",
    sequences=True,
    suit_lock=True,
    jack_back=True,
    five_skip=True,
    seven_pass=True,
    ten_discard=True,
    spade_three=True,
    capital_fall=True,
    forbidden_finishes=True,
)

PRESETS: Final[dict[str, Rules]] = {
    "classic": Rules(),
    "full": Rules(
        dealer="scum",
        first_lead="dealer_left",
        later_lead="scum",
        target=10,
        title_scum="Beggar",
    ),
    "house": Rules(
        twos_clear=True,
        later_lead="scum",
        exchange="two",
        auto_return=True,
        scoring="positional",
        rounds=5,
    ),
    "sheet": Rules(
        dealer="scum",
        first_lead="dealer_left",
        exchange="one",
        seat_order="by_rank",
        deal_from_president=True,
        title_scum="Beggar",
    ),
    "table": Rules(dealer="scum", auto_pass=True, target=10),
    "daifugo": _DAIFUGO,
    # the set most Daifugo apps start with (docs/rules.md, "Presets"): daifugo's, with
    # two jokers and the 9s' clear
    "japanese": _DAIFUGO.replace(jokers=2, nines_clear=True),
}

#: Each rulebook's suggested table sizes (shown to users; the engine accepts 3-8 or 3-12).
SUGGESTED_PLAYERS: Final[dict[str, str]] = {
    "classic": "4 (3-8)",
    "full": "4-7 (3, 8)",
    "house": "3-7",
    "sheet": "4-7 (3+)",
    "table": "3-5",
    "daifugo": "4-5 (3-8)",
    "japanese": "4-6 (3-8)",
}

#: What kind of table each preset is, in a player's words (`president rules`, docs/rules.md).
PRESET_KINDS: Final[dict[str, str]] = {
    "classic": "the classic base game",
    "full": "the full rules: the Scum deals and leads",
    "house": "a house-rules table: 2s clear, points by place",
    "sheet": "a rules sheet's game: seats move by rank",
    "table": "a quick game with computer players: passes are automatic",
    "daifugo": "Japanese Daifugo: sequences, suit lock, 8-cut, jack back, 5-7-10 effects",
    "japanese": "the Daifugo apps' common set: daifugo with two jokers and the 9s' clear",
}


def toggle_choices(name: str) -> tuple[object, ...] | None:
    """The values a toggle may take, for forms; None for a whole number (target, rounds)."""
    if name in _CHOICES:
        return _CHOICES[name]
    field = next(f for f in dataclasses.fields(Rules) if f.name == name)
    return (False, True) if isinstance(field.default, bool) else None


def find_preset(name: str) -> Rules:
    """The preset called `name` (case-insensitive); `RulesError` naming the presets otherwise."""
    try:
        return PRESETS[name.strip().lower()]
    except (KeyError, AttributeError):
        raise RulesError(
            f"there is no preset {name!r}: choose one of {', '.join(PRESETS)}"
        ) from None


def unknown_toggles(spec: Mapping[str, Any]) -> list[str]:
    """The names a record's `rules` object gives that are not toggles (its preset aside),
    sorted."""
    return sorted(k for k in spec if k != "preset" and k not in TOGGLES)


def rules_from(spec: str | Mapping[str, Any]) -> Rules:
    """Rules from a record's `rules` value: a preset name, or {"preset": NAME, toggle: value...}."""
    if isinstance(spec, str):
        return find_preset(spec)
    if not isinstance(spec, Mapping):
        raise RulesError("rules must be a preset name or an object of toggles")
    preset = spec.get("preset", "classic")
    if not isinstance(preset, str):
        raise RulesError("rules.preset must be a preset name")
    base = find_preset(preset)
    toggles = {k: v for k, v in spec.items() if k != "preset"}
    unknown = unknown_toggles(spec)
    if unknown:
        close = difflib.get_close_matches(unknown[0], TOGGLES, n=1)
        # (a typo's likely toggle, else perhaps a newer version's: records.md, the header)
        meant = f" (did you mean {close[0]}?)" if close else " (a newer president's?)"
        raise RulesError(
            f"there is no toggle {unknown[0]!r}{meant}: the toggles are {', '.join(TOGGLES)}"
        )
    return base.replace(**toggles)


def preset_name_of(rules: Rules) -> tuple[str, dict[str, Any]]:
    """The preset closest to `rules` (fewest changed toggles) and the changes on top of it."""
    best = min(PRESETS, key=lambda name: len(rules.changes_from(PRESETS[name])))
    return best, rules.changes_from(PRESETS[best])

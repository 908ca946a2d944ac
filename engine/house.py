"""The house rules: each one declared once, here, with its words and, where it is a
pattern of cards with an effect (rich-rich-daifugo's trigger/effect analysis), that
trigger (docs/rules.md, "Variants" and "The Daifugo family").

A house rule is a field of `HouseRules`, which `Rules` extends.  `house(...)` declares
it: off by default, its words for `president rules` on and off, and its `Trigger` when
the rule is "a play holding these cards does this".  The engine reads the triggers of
the rules in force (`HouseRules.triggers`); a new rule of an existing effect is one
declaration here (CONTRIBUTING.md, "A new house rule").  A rule whose effect is not yet
one of `EFFECTS` also needs that effect in `tricks.effects_of` (and, when it changes what
may be played, in `tricks.play_problem`).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

#: Rank indices (`cards.RANK_NAMES`, then the joker) the triggers name.
THREE: Final = 0
FIVE: Final = 2
SIX: Final = 3
SEVEN: Final = 4
NINE: Final = 6
TEN: Final = 7
JACK: Final = 8
QUEEN: Final = 9
KING: Final = 10
TWO: Final = 12
JOKER: Final = 13

#: What a trigger does:
#: - "clear": the play may go on any pile and ends the trick; its player leads;
#: - "skip": one seat after it is skipped per card of the rank;
#: - "handover": its player then hands the next seat one card per card of the rank;
#: - "discard": its player then discards one card per card of the rank, face up;
#: - "reverse": the rank order is reversed until the trick ends (or back, if it was);
#: - "revolution": a revolution: the rank order is reversed for the rest of the hand (or
#:   back), as four of a kind does under `revolution` (a play revolts once, however many
#:   of its patterns say so);
#: - "win": its player goes out at once, taking the best free place, the cards still in
#:   their hand out of play (as a fallen President's are);
#: - "cut": while the order is reversed, the play (legal as any other, not on any pile)
#:   ends the trick once made; its player leads;
#: - "unreverse": a reversal for the trick (a jack back) that was on before the play is
#:   over after it;
#: - "direction": the direction of play turns round (clockwise to anticlockwise, or
#:   back) for the rest of the hand, from the turn after the play on;
#: - "march": its player then takes one card of the cards played (out of play face up)
#:   back into the hand per card of the rank (a due: `Take`);
#: - "zombie": its player then gives the next seat holding cards one card of the cards
#:   played (out of play face up), whatever the count (a due: `Take`);
#: - "bomb": its player then names one rank per card of the rank, and every seat still
#:   holding cards discards all its cards of each, face up (a due: `Bomb`).
Effect = Literal[
    "clear",
    "skip",
    "handover",
    "discard",
    "reverse",
    "revolution",
    "win",
    "cut",
    "unreverse",
    "direction",
    "march",
    "zombie",
    "bomb",
]
EFFECTS: Final[tuple[Effect, ...]] = get_args(Effect)


@dataclass(frozen=True)
class Trigger:
    """A pattern of cards and its effect: a play holding at least `at_least` natural
    cards of `rank` (a set of that rank only, when `sets_only`) does `effect`."""

    rank: int
    effect: Effect
    at_least: int = 1
    sets_only: bool = False


def house(on: str, off: str, *triggers: Trigger) -> Any:
    """A house rule: off by default; `on`/`off` say what the table plays in either case;
    `triggers`: its patterns of cards and their effects (the first is its `trigger`)."""
    trigger = triggers[0] if triggers else None
    metadata = {"variant": True, "on": on, "off": off, "trigger": trigger, "triggers": triggers}
    return dataclasses.field(default=False, metadata=metadata)


@dataclass(frozen=True, kw_only=True)
class HouseRules:
    """The house rules a table may add to its rulebook, each off by default; any of them
    on makes the engine take its general path (`Rules.variants`)."""

    # --- the President variants the rulebooks name (docs/rules.md, "Variants") --------
    transparent_threes: bool = house(
        "a set of 3s may follow any set of its size and copies the rank it covers",
        "3s are the lowest rank and nothing more",
    )
    suit_ranking: bool = house(
        "a set of the same rank beats the pile when its highest suit is higher (C < D < H < S)",
        "suits never rank",
    )
    one_time_around: bool = house(
        "a trick goes round the table once: each player plays or passes one time,"
        " and the highest play takes it",
        "a trick goes on until everyone else passes",
    )
    # --- the Daifugo family (docs/rules.md, "The Daifugo family") --------------------
    sequences: bool = house(
        "three or more consecutive ranks of one suit may be played, and are beaten only by"
        " a higher sequence of the same length",
        "no sequences: a play is one rank",
    )
    suit_lock: bool = house(
        "a follow in the same suits as the play it beats locks the trick to those suits",
        "suits never lock a trick",
    )
    jack_back: bool = house(
        "a play holding a jack reverses the rank order until the trick ends",
        "jacks have no effect",
        Trigger(JACK, "reverse"),
    )
    five_skip: bool = house(
        "a play holding 5s skips one player for each 5",
        "5s have no effect",
        Trigger(FIVE, "skip"),
    )
    seven_pass: bool = house(
        "after a play holding 7s you hand as many cards of your choice to the next player",
        "7s have no effect",
        Trigger(SEVEN, "handover"),
    )
    ten_discard: bool = house(
        "after a play holding 10s you discard as many cards of your choice, face up",
        "10s have no effect",
        Trigger(TEN, "discard"),
    )
    spade_three: bool = house(
        "the 3S played alone beats a lone joker", "nothing but a higher play beats a joker"
    )
    capital_fall: bool = house(
        "a President who does not go out first falls to last place at once",
        "the President keeps playing whoever goes out first",
    )
    forbidden_finishes: bool = house(
        "going out on a joker, a 2 (a 3 when the order is reversed), an 8 that cuts or the"
        " 3S that beat a joker takes the lowest free place",
        "you may go out on any play",
    )
    nines_clear: bool = house(
        "two or more 9s may be played on any pile and clear it; their player leads",
        "9s never clear: a single 9 or a set of 9s is just 9s",
        Trigger(NINE, "clear", at_least=2, sets_only=True),
    )
    sixes_clear: bool = house(
        "two or more 6s may be played on any pile and clear it; their player leads",
        "6s never clear: a single 6 or a set of 6s is just 6s",
        Trigger(SIX, "clear", at_least=2, sets_only=True),
    )
    # --- the peers' local rules (docs/rules.md, "Local rules of the Daifugo tables") --
    sandstorm: bool = house(
        "three or more 3s may be played on any pile and clear it; their player leads",
        "3s never clear: a set of three 3s is just 3s",
        Trigger(THREE, "clear", at_least=3, sets_only=True),
    )
    two_back: bool = house(
        "a play holding a 2 reverses the rank order until the trick ends",
        "2s have no effect",
        Trigger(TWO, "reverse"),
    )
    coup: bool = house(
        "three or more 9s played together start (or end) a revolution",
        "9s never start a revolution by themselves",
        Trigger(NINE, "revolution", at_least=3, sets_only=True),
    )
    nanasan_revolution: bool = house(
        "three or more 7s played together start (or end) a revolution",
        "7s never start a revolution by themselves",
        Trigger(SEVEN, "revolution", at_least=3, sets_only=True),
    )
    joker_revolution: bool = house(
        "two jokers played together start (or end) a revolution",
        "jokers never start a revolution by themselves",
        Trigger(JOKER, "revolution", at_least=2, sets_only=True),
    )
    assassination: bool = house(
        "a single 3 on a single 2 clears the pile (a 2 on a 3 when the order is reversed)",
        "a 3 never beats a 2",
    )
    spade_two_return: bool = house(
        "while the order is reversed, the 2S played alone on a lone joker clears the pile",
        "nothing but a higher play beats a joker in a revolution",
    )
    queen_release: bool = house(
        "a play holding a queen lifts the suit lock on the trick",
        "queens have no effect on a suit lock",
    )
    step_lock: bool = house(
        "a set one rank above the set it beats locks the trick: each play after it must be"
        " the next rank up",
        "a follow may be any higher rank",
    )
    colour_lock: bool = house(
        "two plays in a row all red (hearts, diamonds) or all black (clubs, spades) lock the"
        " trick to that colour",
        "colours never lock a trick",
    )
    down_number: bool = house(
        "on a single card, the card of its suit one rank weaker may be played too",
        "a follow must be stronger than the pile",
    )
    great_revolution: bool = house(
        "four or more 2s played together start (or end) a revolution and their player"
        " goes out at once, in the best place free",
        "four 2s are four of a kind like any other",
        Trigger(TWO, "revolution", at_least=4, sets_only=True),
        Trigger(TWO, "win", at_least=4, sets_only=True),
    )
    five_cut: bool = house(
        "while the order is reversed, a play holding a 5 clears the pile once made",
        "5s never clear",
        Trigger(FIVE, "cut"),
    )
    six_cut: bool = house(
        "while the order is reversed, a play holding a 6 clears the pile once made",
        "6s never clear but as sixes_clear says",
        Trigger(SIX, "cut"),
    )
    seven_cut: bool = house(
        "while the order is reversed, a play holding a 7 clears the pile once made",
        "7s never clear",
        Trigger(SEVEN, "cut"),
    )
    omen: bool = house(
        "three or more 6s played together start (or end) a revolution, and then no play"
        " starts or ends one for the rest of the hand",
        "6s never start a revolution by themselves",
        Trigger(SIX, "revolution", at_least=3, sets_only=True),
    )
    six_return: bool = house(
        "a play holding a 6 ends a jack back that was on before it",
        "6s have no effect on a jack back",
        Trigger(SIX, "unreverse"),
    )
    gekokujou: bool = house(
        "when the Scum goes out first, every title of the next hand is turned upside down",
        "the next hand's titles are the finishing order",
    )
    catastrophe: bool = house(
        "a Scum or Vice-Scum holding no card above 10 gives nothing in the exchange",
        "the exchange is made whatever the hands hold",
    )
    lucky_seven: bool = house(
        "three or more 7s that nobody answers win the trick and their player goes out at"
        " once, in the best place free",
        "7s that take a trick only take the trick",
    )
    nine_reverse: bool = house(
        "a play holding a 9 turns the direction of play round for the rest of the hand",
        "9s never turn the direction of play",
        Trigger(NINE, "direction"),
    )
    queen_reverse: bool = house(
        "a play holding a queen turns the direction of play round for the rest of the hand",
        "queens never turn the direction of play",
        Trigger(QUEEN, "direction"),
    )
    king_reverse: bool = house(
        "a play holding a king turns the direction of play round for the rest of the hand",
        "kings never turn the direction of play",
        Trigger(KING, "direction"),
    )
    scaled_exchange: bool = house(
        "the exchange scales with the table: of n players, the i-th from the top and the"
        " i-th from the bottom swap n // 2 - i + 1 cards, for i = 1 to n // 2",
        "the exchange moves as many cards as the exchange toggle says",
    )
    emperor: bool = house(
        "four ranks in a row, one card of each suit (an emperor), may be led, beats a lower"
        " emperor and starts (or ends) a revolution",
        "a play of four suits is no play",
    )
    four_stop: bool = house(
        "under clear_rank = 8, a set of 8s waits on the pile: as many 4s stop the cut and"
        " play goes on; if everyone passes, the 8s clear",
        "an 8-cut clears at once",
    )
    salvage: bool = house(
        "when a trick ends on a play holding a 3, its player (still holding cards) takes"
        " one card of the cards played this hand back into the hand before leading",
        "the cards played stay out of play",
    )
    kings_march: bool = house(
        "a play holding Ks lets its player (still holding cards) take one card of the cards"
        " played this hand back into the hand for each K",
        "kings have no effect",
        Trigger(KING, "march"),
    )
    zombie: bool = house(
        "three or more 3s played together let their player (still holding cards) give the"
        " next player one card of the cards played this hand",
        "three 3s are three of a kind like any other",
        Trigger(THREE, "zombie", at_least=3, sets_only=True),
    )
    queen_bomber: bool = house(
        "a play holding Qs lets its player (still holding cards) name a rank for each Q:"
        " every player still holding cards discards all their cards of it, face up",
        "queens have no effect",
        Trigger(QUEEN, "bomb"),
    )

    @functools.cached_property
    def triggers(self) -> tuple[Trigger, ...]:
        """The triggers of the house rules on, in declaration order (so a play's dues
        come in that order: hand over, then discard)."""
        return tuple(
            trigger
            for field in HOUSE_FIELDS
            if getattr(self, field.name)
            for trigger in field.metadata["triggers"]
        )

    @functools.cached_property
    def play_triggers(self) -> tuple[Trigger, ...]:
        """The triggers on whose effect comes after the play (all but "clear"): the skips,
        the dues, the reversals and the revolutions."""
        return tuple(t for t in self.triggers if t.effect != "clear")


HOUSE_FIELDS: Final[tuple[dataclasses.Field[Any], ...]] = dataclasses.fields(HouseRules)

#: Every house rule's name, in declaration order.
HOUSE_RULES: Final[tuple[str, ...]] = tuple(field.name for field in HOUSE_FIELDS)


def house_words(name: str, value: object) -> str:
    """A house rule at `value` in words."""
    field = next(f for f in HOUSE_FIELDS if f.name == name)
    return str(field.metadata["on" if value else "off"])

"""A bot in twenty lines.  Offline:  python scripts/example_bot.py sim --games 200
Online:  python scripts/example_bot.py bot HOST:PORT --fingerprint FP --table T --count 1"""

from president.bots import sdk
from president.cli import bot_script
from president.engine import PASS


class LowBall:
    """Plays its lowest set with all its copies; gives back (or away) its lowest cards."""

    def choose(self, view):
        moves = [a for a in view.legal_actions() if a is not PASS]
        if not moves:
            return PASS
        strength = lambda a: sum(c.rank for c in a.cards) / len(a.cards)  # noqa: E731
        return min(moves, key=lambda a: (strength(a), -len(a.cards)))


if __name__ == "__main__":
    sdk.register("lowball", lambda rng: LowBall())
    raise SystemExit(bot_script("lowball"))

"""The engine's errors: each carries a sentence a player understands."""


class RulesError(ValueError):
    """A rules combination or table that makes no sense; the message names the toggle."""


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why in the game's words."""

"""The engine's errors: each carries a sentence a player understands."""


class RulesError(ValueError):
    """A rules combination or table that makes no sense; the message names the toggle."""


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why in the game's words."""


class NotYourTurn(IllegalAction):
    """An action from a seat that is not asked to act now (another seat's turn, or this
    seat is out of the hand or of the trick)."""

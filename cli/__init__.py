"""The `president` command: a subcommand for each thing you do with the game."""

from .main import main
from .script import bot_script

__all__ = ["bot_script", "main"]

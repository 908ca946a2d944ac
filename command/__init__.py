"""President, the card game, for LAN play."""

__version__ = "0.1.0"

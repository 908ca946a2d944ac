"""President as a reinforcement-learning environment (the optional extra `rl`:
`pip install '.[rl]'`): a PettingZoo AEC environment for any preset and player count
(`env`, `raw_env`), a Gymnasium single-agent wrapper where the other seats are bots
(`SingleSeat`), many tables stepped at once for training
(`Tables`), and `PolicyBot`, which makes a trained policy an SDK strategy
(docs/rl.md)."""

from . import _extra  # noqa: F401 (first: says which extra is missing)
from .actions import Catalog
from .batch import Moment, Tables
from .observe import Layout, Observer, layout_of
from .policy import PolicyBot, register
from .single import SingleSeat
from .table import env, raw_env

__all__ = [
    "Catalog",
    "Layout",
    "Moment",
    "Observer",
    "PolicyBot",
    "SingleSeat",
    "Tables",
    "env",
    "layout_of",
    "raw_env",
    "register",
]

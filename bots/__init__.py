"""Bots: the strategies (`strategies`; the greedy, heuristic and hoarder bots in
`simple`, on the advice of `heuristic`; `search`), the SDK for writing one (`sdk`) and
the simulator (`sim`).  They depend on the engine alone, so the same bot
plays offline and, through the client library or the server, online (docs/bots.md)."""

"""The lobby server: TLS connections, the lobby, tables with their seats, fair deals, game
drivers and timers, the journal and the game records (docs/PROTOCOL.md, docs/reliability.md)."""

from .logs import install as _install_log_filter

_install_log_filter()  # every line the server logs is escaped and rate-limited per client

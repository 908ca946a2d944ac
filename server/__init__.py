"""The lobby server: TLS connections, the lobby, tables with their seats, fair deals, game
drivers and timers, the journal and the game records (docs/PROTOCOL.md, docs/reliability.md)."""

"""The client library: a TLS link with a pinned certificate, a `Client` keeping the table's
model in step with the server, headless bots (`headless.BotPlayer`) and the terminal
screens (`tui/`)."""

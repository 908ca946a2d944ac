"""The terminal client (prompt_toolkit): a table screen driven by the client model."""

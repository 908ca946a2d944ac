"""The one harness every test drives the product through.

- `waiting.wait_for`: the one way a test waits for something to come true.
- `screen`: a VT100 model (`Screen`, `Pen`) to read what a terminal would show.
- `terminal.Terminal`: a `president` process in a pseudo-terminal (its controlling
  terminal, so Ctrl-C is a SIGINT as for a person); `apps.AppTerminal`: an in-process
  prompt_toolkit application drawing into a virtual terminal.
- `processes`: `president` commands as processes (`president`, `Process`,
  `server_process`, `bot_process`), their output read as it comes.
- `servers`: a real server in-process on loopback, its clients, and a way back in
  (`dialer`) after a drop.
- `records.replayed`: what `president replay --json` says of a record, in-process.
- `faultproxy.FaultProxy`: a TCP proxy that drops, stalls and cuts the bytes between.
"""

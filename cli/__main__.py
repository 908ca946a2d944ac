"""`python -m president.cli` is `president`."""

from president.cli import main

raise SystemExit(main())

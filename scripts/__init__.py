"""Benchmarks, load and fuzz runs, and the measurements behind the docs' figures.  Each is
run as `python scripts/NAME.py`; the tests import the cores they share (`scripts.fuzz`,
`scripts.bench_belief`, `scripts.ladder_order`) from the checkout (pytest's `pythonpath`)."""

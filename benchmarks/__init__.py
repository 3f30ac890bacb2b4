"""Benchmark scripts (run them, never import them): a package only so that
``benchmarks/tournaments.py`` is not mistaken for the ``tournaments`` app by mypy."""

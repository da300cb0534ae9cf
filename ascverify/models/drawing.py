"""Strategies the models' construction hooks draw from, built once per bounds.

A model's ``construct_args`` draws with Hypothesis's ``draw`` (or its seeded imitation,
`ascverify.engines.properties.seeded`). Building a strategy costs more than drawing from it, even one Hypothesis
caches, and a hook draws dozens per case with bounds that repeat. Hypothesis is imported on first use: ``check``
imports the models and never draws.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["integers"]


@lru_cache(maxsize=8192)
def integers(lo: int, hi: int) -> Any:
    """``st.integers(lo, hi)``."""
    from hypothesis import strategies as st

    return st.integers(lo, hi)

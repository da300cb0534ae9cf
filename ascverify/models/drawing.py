"""Strategies the models' construction hooks draw from, built once per bounds.

A model's ``construct_args`` draws with Hypothesis's ``draw`` (or its seeded imitation,
`ascverify.engines.properties.seeded`). Building a strategy costs more than drawing from it, even one Hypothesis
caches, and a hook draws dozens per case with bounds that repeat. Hypothesis is imported on first use: ``check``
imports the models and never draws.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

__all__ = ["PACKED", "integers", "packed_indices"]


@lru_cache(maxsize=8192)
def integers(lo: int, hi: int) -> Any:
    """``st.integers(lo, hi)``."""
    from hypothesis import strategies as st

    return st.integers(lo, hi)


#: The most values one choice packs: Hypothesis draws an integer range of up to 128 values evenly (apart from a few
#: values of its pool of constants, as for any choice; a wider range leans to its ends and to small values), so
#: indices packed into such a range are as even and independent as separate choices.
PACKED = 128


def packed_indices(draw: Callable, counts: Sequence[int]) -> list[int]:
    """An index in [0, c) for each count c, as even and independent as separate draws, in as few choices
    as whole counts go into `PACKED` values (mixed radix, the first index most significant: a smaller choice is a
    smaller first index, so shrinking goes where separate choices would)."""
    out: list[int] = []
    group: list[int] = []
    size = 1

    def take() -> None:
        k = draw(integers(0, size - 1)) if size > 1 else 0
        digits = []
        for c in reversed(group):
            k, d = divmod(k, c)
            digits.append(d)
        out.extend(reversed(digits))

    for c in counts:
        if size * c > PACKED:
            take()
            group, size = [], 1
        group.append(c)
        size *= c
    take()
    return out

"""Drawing without Hypothesis's engine: ``draw(strategy)`` answered from a seeded `random.Random`.

The construction of valid cases (`ascverify.engines.properties.strategies`) is written against Hypothesis's ``draw``.
`SeededDraw` imitates ``draw`` for the strategies it uses (integers, booleans, sampled_from, permutations and their
combinations), so the same construction runs thousands of times per second with a seed (``gen --mode random``), and
the strategies can probe a model's own construction hook once when they first meet it.
"""

from __future__ import annotations

import random
from typing import Any


class Unsupported(Exception):
    """The builder drew from a strategy the seeded driver cannot imitate."""


def _pick(rng: random.Random, lo: int, hi: int) -> int:
    """Uniform in [lo, hi], with the ends 5% of the time each and log-uniform draws over wide ranges."""
    if hi <= lo:
        return lo
    r = rng.random()
    if r < 0.05:
        return lo
    if r < 0.10:
        return hi
    span = hi - lo
    if span > 4096 and r < 0.40:
        return lo + min(span, int(2 ** rng.uniform(0, span.bit_length())))
    return rng.randint(lo, hi)


class SeededDraw:
    """``draw(strategy)`` for the strategies the builder uses: integers, booleans, sampled_from, permutations."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, strategy: Any) -> Any:
        s = strategy
        for _ in range(8):
            inner = getattr(s, "wrapped_strategy", None)
            if inner is None or inner is s:
                break
            s = inner
        kind = type(s).__name__
        rng = self.rng
        if kind == "IntegersStrategy" and s.start is not None and s.end is not None:
            return _pick(rng, s.start, s.end)
        if kind == "BooleansStrategy":
            return rng.random() < 0.5
        if kind in ("SampledFromStrategy", "JustStrategy") and not getattr(s, "_transformations", ()):
            return rng.choice(list(s.elements))
        if kind == "PermutationStrategy":
            values = list(s.values)
            rng.shuffle(values)
            return values
        if kind == "OneOfStrategy":
            return self(rng.choice(list(s.original_strategies)))
        if kind == "TupleStrategy":
            return tuple(self(e) for e in s.element_strategies)
        if kind == "ListStrategy" and s.max_size != float("inf"):
            return [self(s.element_strategy) for _ in range(rng.randint(s.min_size, int(s.max_size)))]
        if kind == "MappedStrategy":
            return s.pack(self(s.mapped_strategy))
        if kind == "FilteredStrategy":
            from hypothesis.errors import UnsatisfiedAssumption

            for _ in range(100):
                x = self(s.filtered_strategy)
                if all(cond(x) for cond in s.flat_conditions):
                    return x
            raise UnsatisfiedAssumption()
        raise Unsupported(f"the builder draws from {strategy!r}")



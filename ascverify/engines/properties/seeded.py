"""Drawing without Hypothesis's engine: ``draw(strategy)`` answered from a seeded `random.Random`.

The construction of valid cases (`ascverify.engines.properties.strategies`) is written against Hypothesis's ``draw``.
`SeededDraw` imitates ``draw`` for the strategies it uses (integers, booleans, sampled_from, permutations and their
combinations), so the same construction runs thousands of times per second with a seed (``gen --mode random``), and
the strategies can probe a model's own construction hook once when they first meet it.
"""

from __future__ import annotations

import random
from typing import Any, Callable


class Unsupported(Exception):
    """The builder drew from a strategy the seeded driver cannot imitate."""


def _pick(rng: random.Random, lo: int, hi: int) -> int:
    """Uniform in [lo, hi], with the ends 5% of the time each and log-uniform draws over wide ranges (30%, above
    4096 values). A source with its own ``pick`` (`ChoiceBytes`, read from Hypothesis's bytes) draws it itself."""
    own = getattr(rng, "pick", None)
    if own is not None:
        return own(lo, hi)
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

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, strategy: Any) -> Any:
        got = _SAMPLERS.get(id(strategy))
        if got is None or got[0] is not strategy:
            got = _sampler_entry(strategy)
        return got[1](self.rng)

    def integers(self, lo: int, hi: int) -> int:
        """What ``self(st.integers(lo, hi))`` gives, without building the strategy (for bounds that change with
        every draw, where building costs more than drawing)."""
        return _pick(self.rng, lo, hi)


#: id(strategy) -> (strategy, sampler(rng)): the type dispatch done once per strategy object (kept alive here so
#: that its id is not reused; cleared when large, for builders that make strategies per draw).
_SAMPLERS: dict[int, tuple[Any, Callable[[random.Random], Any]]] = {}


def _sampler_entry(strategy: Any) -> tuple[Any, Callable[[random.Random], Any]]:
    if len(_SAMPLERS) > 20_000:
        _SAMPLERS.clear()
    entry = (strategy, _sampler(strategy))
    _SAMPLERS[id(strategy)] = entry
    return entry


def _sub(strategy: Any) -> Callable[[random.Random], Any]:
    got = _SAMPLERS.get(id(strategy))
    return got[1] if got is not None and got[0] is strategy else _sampler_entry(strategy)[1]


def _sampler(strategy: Any) -> Callable[[random.Random], Any]:
    """How to draw from ``strategy`` with a seeded source (raises `Unsupported` for other strategies)."""
    s = strategy
    for _ in range(8):
        inner = getattr(s, "wrapped_strategy", None)
        if inner is None or inner is s:
            break
        s = inner
    kind = type(s).__name__
    if kind == "IntegersStrategy" and s.start is not None and s.end is not None:
        lo, hi = s.start, s.end
        return lambda rng: _pick(rng, lo, hi)
    if kind == "BooleansStrategy":
        return lambda rng: rng.random() >= 0.5  # False from zero bytes, as Hypothesis's booleans shrink
    if kind in ("SampledFromStrategy", "JustStrategy") and not getattr(s, "_transformations", ()):
        elements = list(s.elements)
        return lambda rng: rng.choice(elements)
    if kind == "PermutationStrategy":
        values = list(s.values)

        def permutation(rng: random.Random) -> list[Any]:
            out = list(values)
            rng.shuffle(out)
            return out
        return permutation
    if kind == "OneOfStrategy":
        branches = [_sub(e) for e in s.original_strategies]
        return lambda rng: rng.choice(branches)(rng)
    if kind == "TupleStrategy":
        parts = [_sub(e) for e in s.element_strategies]
        return lambda rng: tuple(p(rng) for p in parts)
    if kind == "ListStrategy" and s.max_size != float("inf"):
        element, lo, hi = _sub(s.element_strategy), s.min_size, int(s.max_size)
        return lambda rng: [element(rng) for _ in range(rng.randint(lo, hi))]
    if kind == "MappedStrategy":
        inner_draw, pack = _sub(s.mapped_strategy), s.pack
        return lambda rng: pack(inner_draw(rng))
    if kind == "FilteredStrategy":
        base, conditions = _sub(s.filtered_strategy), s.flat_conditions

        def filtered(rng: random.Random) -> Any:
            from hypothesis.errors import UnsatisfiedAssumption

            for _ in range(100):
                x = base(rng)
                if all(cond(x) for cond in conditions):
                    return x
            raise UnsatisfiedAssumption()
        return filtered
    raise Unsupported(f"the builder draws from {strategy!r}")

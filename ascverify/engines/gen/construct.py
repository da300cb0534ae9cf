"""Random valid cases by construction: the Hypothesis strategies' builder driven by a seeded random source.

`ascverify.engines.properties.strategies` builds valid cases by construction (domains for ranges, multiples
and choices; arguments below their largest feasible value; tensors packed aligned and disjoint).
Its builder takes a ``draw`` function; here ``draw`` answers from a ``random.Random`` instead of
Hypothesis's engine, so a seed replays the same cases, at thousands of cases per second, with
integers drawn uniformly (with the ends of each range now and then, and log-uniformly over wide
ranges). Placement is then spread over each buffer: the free bytes are cut at random points into
the gaps between the tensors (order, alignment and disjointness kept), so addresses cover the
buffer instead of its first bytes. Every case is checked (batched) before it is kept: relational
rules are the builder's safety net. A builder that asks for a strategy this driver does not know
raises `Unsupported`, and generation falls back to the solver's random pivots.
"""

from __future__ import annotations

import random
import warnings
from typing import Any, Callable

from ...cases.case import Case
from ...spec.model import ApiModel
from ...spec.products import POSITION_BUFFER
from ...spec.rules import POSITION_NAMES, Context
from ..properties import strategies as strat
from ..properties.strategies import _layout


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


def builder(model: ApiModel, ctx: Context) -> Callable[[random.Random], Case | None]:
    """``build(rng)``: one constructed case of ``model`` in ``ctx`` (None when the builder rejects its draw)."""
    from hypothesis.errors import UnsatisfiedAssumption

    lazy = strat._valid_case(model, [ctx.product.id], ctx.dtype.name, None)
    comp = getattr(lazy, "wrapped_strategy", lazy)
    definition = getattr(comp, "definition", None)
    if definition is None:
        raise Unsupported("the strategies module no longer exposes its builder")
    args, kwargs = comp.args, comp.kwargs

    def build(rng: random.Random) -> Case | None:
        try:
            return definition(SeededDraw(rng), *args, **kwargs)
        except UnsatisfiedAssumption:
            return None

    return build


def spread_placement(case: Case, rng: random.Random) -> Case:
    """The case with each buffer's free bytes spread at random into the gaps between its tensors."""
    model, ctx, env = case.model, case.ctx, dict(case.env)
    layout = _layout(model.name, ctx)
    groups: dict[str, list[str]] = {}
    for t in model.tensors:
        if t.optional and not env.get(f"{t.name}.present", True):
            continue
        pos = POSITION_NAMES[int(env[f"{t.name}.position"])]
        groups.setdefault(POSITION_BUFFER[pos], []).append(t.name)
    for buf, names in groups.items():
        cap = ctx.product.buffer_size(buf)
        names.sort(key=lambda n: int(env[f"{n}.addr"]))
        aligns = [layout.align(n, buf) for n in names]
        sizes = [int(env[f"{n}.size"]) * ctx.sizeof(n) for n in names]
        # the tightest packing in this order, then the slack
        packed, used = [], 0
        for a, nb in zip(aligns, sizes):
            start = -(-used // a) * a
            packed.append(start)
            used = start + nb
        slack = cap - used
        if slack <= 0:
            continue
        if rng.random() < 0.1:  # packed at the start now and then (the buffer's low boundary)
            cuts = [0] * len(names)
        else:
            cuts = sorted(rng.randint(0, slack) for _ in names)
        shift = 0
        used = 0
        for i, n in enumerate(names):
            shift = max(shift, cuts[i])
            a = aligns[i]
            start = -(-used // a) * a
            want = max(start, packed[i] + shift)
            addr = want // a * a if want // a * a >= start else start
            if addr + sizes[i] + sum(sizes[i + 1:]) + sum(aligns[i + 1:]) > cap:
                addr = start
            env[f"{n}.addr"] = addr
            used = addr + sizes[i]
    return Case(model, ctx, env, case.data_sources, case.origin, case.base_dir)


def quiet_assumptions() -> Any:
    """A context that silences Hypothesis's warning about `assume` outside a test (the builder calls it)."""
    ctx = warnings.catch_warnings()

    class _Quiet:
        def __enter__(self) -> None:
            ctx.__enter__()
            warnings.simplefilter("ignore")

        def __exit__(self, *exc: Any) -> None:
            ctx.__exit__(*exc)

    return _Quiet()

"""Random valid cases by construction: the Hypothesis strategies' builder driven by a seeded random source.

`ascverify.engines.properties.strategies` builds valid cases by construction (domains for ranges, multiples
and choices; arguments below their largest feasible value; tensors packed aligned and disjoint).
Its construction takes a ``draw`` function; here ``draw`` answers from a ``random.Random`` instead of
Hypothesis's engine, so a seed replays the same cases, at thousands of cases per second, with
integers drawn uniformly (with the ends of each range now and then, and log-uniformly over wide
ranges). `build_batch` runs a chunk of constructions together, each with its own source: the largest
feasible value of each argument (the costly part: the model's minimum-size rules) is found for all of
them at once on numpy columns. Placement is then spread over each buffer: the free bytes are cut at random points into
the gaps between the tensors (order, alignment and disjointness kept), so addresses cover the
buffer instead of its first bytes. Every case is checked (batched) before it is kept: relational
rules are the builder's safety net. A builder that asks for a strategy this driver does not know
raises `Unsupported`, and generation falls back to the solver's random pivots.
"""

from __future__ import annotations

import random
import warnings
from typing import Any, Callable, Sequence

from ...cases.case import Case
from ...spec.model import ApiModel
from ...spec.products import POSITION_BUFFER
from ...spec.rules import POSITION_NAMES, Context
from ..properties import strategies as strat
from ..properties.seeded import SeededDraw, Unsupported
from ..properties.strategies import _layout

__all__ = ["SeededDraw", "Unsupported", "build_batch", "builder", "quiet_assumptions", "spread_placement"]


def builder(model: ApiModel, ctx: Context) -> Callable[[random.Random], Case | None]:
    """``build(rng)``: one constructed case of ``model`` in ``ctx`` (None when the builder rejects its draw)."""
    from hypothesis.errors import UnsatisfiedAssumption

    products = [ctx.product.id]

    def build(rng: random.Random) -> Case | None:
        try:
            return strat.drive(strat.construction(SeededDraw(rng), model, products, ctx.dtype.name, None))
        except UnsatisfiedAssumption:
            return None

    return build


def build_batch(model: ApiModel, ctx: Context, rngs: Sequence[random.Random], *,
                own_mask: bool = False) -> list[Case | None]:
    """One constructed case per source in ``rngs`` (None where the draw led nowhere), built together: the largest
    feasible values the constructions need are found for all of them at once on numpy columns. Case ``i`` is the one
    ``builder(model, ctx)(rngs[i])`` builds. ``own_mask``: every case sets its own mask (no placeholder)."""
    products = [ctx.product.id]
    return strat.build_many([strat.construction(SeededDraw(r), model, products, ctx.dtype.name, None,
                                                own_mask=own_mask) for r in rngs])


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

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
from ..properties.seeded import SeededDraw, Unsupported
from ..properties.strategies import _layout

__all__ = ["SeededDraw", "Unsupported", "builder", "quiet_assumptions", "spread_placement"]


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

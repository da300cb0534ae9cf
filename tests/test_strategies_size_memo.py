"""The strategies' minimum sizes remembered per tensor (`_Layout.min_sizes`, keyed by the env keys each tensor's rules
read) are the sizes the rules give: each tensor's size is the largest of its minimum-size rules evaluated on the env,
the sizes of the tensors before it set first. Checked on constructed cases with one argument moved at a time, as
the size search moves them, so that remembered sizes are reused across cases and fields."""

from __future__ import annotations

import random

import pytest
from hypothesis.errors import UnsatisfiedAssumption

from ascverify.engines.properties import strategies as strat
from ascverify.engines.properties.seeded import SeededDraw
from ascverify.spec.params import IntType
from ascverify.spec.registry import get_api
from ascverify.spec.rules import Values

APIS = ("BilinearInterpolation", "BlockReduceSum", "BlockReduceMax", "LoadDataWithStride", "Load3DBitMode")


def _sizes_from_the_rules(layout, env):
    env = dict(env)
    out = {}
    for t in layout.model.tensors:
        elems = [int(r.domain["elems"](Values(env, layout.ctx, layout.model), layout.ctx))
                 for r in layout.model.rules_for(layout.ctx.product.id)
                 if r.domain.get("kind") == "min_size" and r.domain["tensor"] == t.name and r.predicate is not None]
        env[f"{t.name}.size"] = out[t.name] = max([0, *elems])  # (a size is never negative)
    return out


@pytest.mark.parametrize("api", APIS)
def test_remembered_minimum_sizes_are_the_rules_sizes(api):
    model = get_api(api)
    product = model.supported_products()[0]
    dtype = model.support[product][0]
    layout = strat._layout(model.name, model.context(product, dtype))
    rng = random.Random(7)
    compared = 0
    for i in range(40):
        gen = strat.construction(SeededDraw(random.Random(i)), model, [product], dtype, None, True, False)
        try:
            case = strat.drive(gen)
        except UnsatisfiedAssumption:
            continue
        scalars = [a for a in model.args if isinstance(getattr(a, "type", None), IntType)]
        for a in scalars:
            for value in (a.type.lo, case.env[a.name], rng.randint(a.type.lo, min(a.type.hi, 4096))):
                env = {**case.env, a.name: value}
                assert layout.min_sizes(dict(env)) == _sizes_from_the_rules(layout, env), (api, a.name, value)
                compared += 1
    assert compared > 100

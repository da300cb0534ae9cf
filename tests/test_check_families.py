"""`check_cases` evaluates a rule that never reads the product once for all the groups of an API whose contexts
differ only in product (a *family*, `checking.families`). Each verdict so shared must be the verdict the rule gives
on that group alone with the group's own context, computed here from the cases' own fields (`columns`); a rule that
reads the product must be left to each group; and the results must be those of checking each case alone."""

from __future__ import annotations

import json
import random
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from ascverify import check_case, check_cases, get_api
from ascverify.cases.caseio import cases_from_bytes
from ascverify.cases.columnar import RowCase
from ascverify.checking import checker, families
from ascverify.checking.families import ProductRead, blind, blind_verdicts
from ascverify.spec.rules import FrozenValues, Rule
from ascverify.strategies import cases

from test_parse_common_path import mutate

#: APIs supported on several products in one type (families of more than one group)
#: no shrinking: an example is dozens of drawn cases, and shrinking one took minutes (the failing draws are printed)
PHASES = [Phase.explicit, Phase.reuse, Phase.generate]

MULTI_PRODUCT = [("BlockReduceMin", "half"), ("BlockReduceMax", "float"), ("BlockReduceSum", "half"),
                 ("BilinearInterpolation", "half"), ("SetVectorMask", None)]


def _read(docs: list[dict], column_wise: bool = False) -> list:
    """The cases of a JSON Lines file of ``docs`` (``column_wise``: only those read column-wise; an API with a case
    read otherwise in the batch is checked group by group, without families)."""
    text = "\n".join(json.dumps(d) for d in docs) + "\n"
    read = [e.case for e in cases_from_bytes(text.encode(), "mem.jsonl") if e.case is not None]
    return [c for c in read if isinstance(c, RowCase)] if column_wise else read


def _docs(data: st.DataObject, api: str, dtype: str | None, rng: random.Random) -> list[dict]:
    """Valid cases of ``api`` on each of its products with type ``dtype`` (at least 36 cases: read column-wise),
    each with two mutants: many break a rule."""
    model = get_api(api)
    dtype = dtype or model.default_dtype
    out = []
    for product in model.supported_products():
        if dtype not in model.support[product]:
            continue
        for _ in range(4):
            doc = data.draw(cases(api, product=product, dtype=dtype)).to_json()
            out += [doc, mutate(doc, rng), mutate(mutate(doc, rng), rng)]
    rng.shuffle(out)
    assert len(out) >= 36
    return out


def _groups(read: list) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(read):
        groups[(id(c.model), id(c.ctx))].append(i)
    return groups


@pytest.mark.parametrize("api,dtype", MULTI_PRODUCT)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), phases=PHASES)
@given(data=st.data())
def test_each_shared_verdict_is_the_groups_own(api, dtype, data):
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    read = _read(_docs(data, api, dtype, rng), column_wise=True)
    groups = _groups(read)
    known = checker._family_verdicts(read, groups, checker._gathers(read, groups))
    assert sum(map(bool, known.values())) >= 2  # groups of several products with shared verdicts
    for key, verdicts in known.items():
        group = [read[i] for i in groups[key]]
        model, ctx = group[0].model, group[0].ctx
        v = FrozenValues(checker.columns(group), ctx, model)  # the group's fields, its own product
        rules = {id(r): r for r in model.rules_for(ctx.product.id)}
        for rid, ok in verdicts.items():
            own = np.broadcast_to(np.asarray(rules[rid].holds(v, ctx), dtype=bool), (len(group),))
            assert ok.tolist() == own.tolist(), (rules[rid].id, ctx.product.id)


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), phases=PHASES)
@given(data=st.data())
def test_results_are_those_of_each_case_alone(data):
    """Every multi-product API at once (as a mixed file): the batched results equal `check_case` on each case."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    docs = [d for api, dtype in MULTI_PRODUCT for d in _docs(data, api, dtype, rng)]
    rng.shuffle(docs)

    def summary(r):
        return ([(v.id, v.message) for v in r.violations], [(v.id, v.message) for v in r.warnings],
                [(u.rule_id, u.reason) for u in r.unchecked])

    for read in (_read(docs), _read(docs, column_wise=True)):
        assert [summary(r) for r in check_cases(read)] == [summary(check_case(c)) for c in read]
    # the shared path was taken (on the cases read column-wise): several products of one API and type
    groups = _groups(read)
    known = checker._family_verdicts(read, groups, checker._gathers(read, groups))
    assert sum(map(bool, known.values())) >= 2


def test_the_families_are_the_products_of_one_api_and_type():
    """Two products of BlockReduceMin in half share a family, float is another; a rule reading the product
    (the bounds of a buffer, whose size differs per product) is not shared, the alignment rule is."""
    model = get_api("BlockReduceMin")
    docs = []
    for product in ("atlas-a2", "atlas-a3", "atlas-inference-aicore"):
        for dtype in ("half", "float"):
            if dtype not in model.support.get(product, ()):
                continue
            # examples/block_reduce_min.json's call (repeatTime 1, 128 elements); dst addr 17: not 32-byte aligned
            for addr in (256, 17):
                docs.append({"api": "BlockReduceMin", "product": product, "dtype": dtype,
                             "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1,
                                      "srcRepStride": 8},
                             "tensors": {"dst": {"position": "VECOUT", "addr": addr, "size": 16},
                                         "src": {"position": "VECIN", "addr": 0, "size": 128}}})
    read = _read(docs * 20, column_wise=True)  # enough documents to be read column-wise
    groups = _groups(read)
    known = checker._family_verdicts(read, groups, checker._gathers(read, groups))
    by_product = defaultdict(set)
    for key, verdicts in known.items():
        ctx = read[groups[key][0]].ctx
        by_product[(ctx.product.id, ctx.dtype.name)] = {r.id for r in model.rules_for(ctx.product.id)
                                                        if id(r) in verdicts}
    assert {p for p, _ in by_product} >= {"atlas-a2", "atlas-a3"}
    shared = set.intersection(*by_product.values())
    assert any(rid.endswith(".align") for rid in shared), shared
    assert not any(rid.endswith("dst.bounds") or rid.endswith("src.bounds") for rid in shared), shared
    # the misaligned dst breaks its rule on every product, as checking each case alone says
    results = check_cases(read)
    for c, r in zip(read, results):
        assert [v.id for v in r.violations] == [v.id for v in check_case(c).violations]
        assert (c.env["dst.addr"] == 17) == any(v.id.endswith("dst.align") for v in r.violations)


def test_a_rule_that_reads_the_product_is_not_shared_even_if_it_catches_errors():
    """The product read raises `ProductRead`, which a model's ``except Exception`` does not take for an error of
    its own: such a rule is left to each group, and is not tried on a family again."""
    model = get_api("SetVectorMask")
    ctx = model.context("atlas-a2")
    calls = []

    def reads_product(v, c):
        calls.append(1)
        try:
            return np.full(3, c.product.id == "atlas-a2")
        except Exception:  # noqa: BLE001 - what a careless model might write
            return np.ones(3, dtype=bool)

    def blind_rule(v, c):
        return np.array([True, False, True])

    kw = dict(message="", source="", params=())
    picky = Rule(id="t.picky", predicate=reads_product, **kw)
    plain = Rule(id="t.plain", predicate=blind_rule, **kw)
    v = FrozenValues({}, blind(ctx), model)
    got = blind_verdicts([picky, plain], v, blind(ctx), 3)
    assert set(got) == {id(plain)} and got[id(plain)].tolist() == [True, False, True]
    assert families.shared_rules([[picky, plain], [plain, picky]]) == [plain]  # picky is not tried again
    with pytest.raises(ProductRead):
        blind(ctx).product
    assert not issubclass(ProductRead, Exception)

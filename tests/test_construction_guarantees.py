"""The rules `cases()` does not re-check: the construction must make each of them hold by itself.

`_Layout.checked_rules` leaves out the error rules the construction guarantees: those on fields drawn from their
domains (guarded ones too, when every value of the domain meets them), the packing's alignment, fit, size and
disjointness, the rules that read nothing but the product and types (decided once per layout), the rules of a mask
`_mask_strategy` draws, and hazards that need two tensors to overlap (the packing keeps them apart). Each left-out
rule is evaluated here on cases built without the safety net, in every mode of the construction; and the claims
that must not be made (a mask or type the caller fixes) are checked to stay out.
"""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis.errors import UnsatisfiedAssumption

from ascverify.engines.properties import strategies as strat
from ascverify.engines.properties.seeded import SeededDraw
from ascverify.spec.registry import apis, get_api
from ascverify.spec.rules import ERROR, field_range, tensor_positions

MODELS = apis()
#: (bias, specified) modes of the construction
MODES = ((False, False), (True, False), (True, True))
PER_CONTEXT = 25


def _contexts(model):
    return [(p, t) for p, types in model.support.items() for t in types]


def _built(model, product, dtype, bias, specified, n, seed):
    out = []
    for i in range(n):
        gen = strat.construction(SeededDraw(random.Random(seed * 100_003 + i)), model, [product], dtype, None,
                                 bias, specified)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(strat.drive(gen))
        except UnsatisfiedAssumption:
            continue
    return out


@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_every_rule_left_unchecked_holds_on_every_constructed_case(model):
    built = 0
    for k, (product, dtype) in enumerate(_contexts(model)):
        for bias, specified in MODES:
            cases = _built(model, product, dtype, bias, specified, PER_CONTEXT, k)
            built += len(cases)
            if not cases:
                continue
            ctx = cases[0].ctx
            checked = set(strat._layout(model.name, ctx).checked_rules(frozenset()))
            left_out = [r for r in model.rules_for(product)
                        if r.severity == ERROR and r.predicate is not None and r not in checked]
            for case in cases:
                v = case.values()
                broken = [r.id for r in left_out if not bool(r.holds(v, ctx))]
                assert not broken, (product, dtype, bias, specified, case.env, broken)
    assert built > 0


CLAIMING = [m for m in MODELS if m.construction_holds]


def test_every_claim_of_a_hook_names_a_rule_of_its_model():
    assert CLAIMING  # Load3DBitMode, LoadDataWithStride and BilinearInterpolation claim their hook's rules
    for model in CLAIMING:
        ids = {r.id for r in model.rules}
        assert [c for c in model.construction_holds if f"{model.prefix}.{c}" not in ids] == [], model.name


@pytest.mark.parametrize("model", CLAIMING, ids=[m.name for m in CLAIMING])
def test_the_rules_a_hook_claims_hold_on_many_constructed_cases(model):
    """The claims of `ApiModel.construction_holds` are all the safety net of `cases()` has for these APIs: each is
    evaluated on 6 times as many cases per context as above, in the mode that reaches the extremes most (bias)."""
    for k, (product, dtype) in enumerate(_contexts(model)):
        cases = _built(model, product, dtype, True, False, 6 * PER_CONTEXT, 1000 + k)
        assert cases, (product, dtype)
        claimed = [r for r in model.rules_for(product)
                   if r.id.removeprefix(f"{model.prefix}.") in model.construction_holds]
        assert claimed
        for case in cases:
            v = case.values()
            broken = [r.id for r in claimed if not bool(r.holds(v, case.ctx))]
            assert not broken, (product, dtype, case.env, broken)


def test_a_claimed_rule_stays_checked_when_the_caller_holds_a_field_it_reads():
    model = get_api("Load3DBitMode")
    layout = strat._layout(model.name, model.context("atlas-350", "half"))
    assert "load3d.window.m_bounds" not in {r.id for r in layout.checked_rules(frozenset())}
    held = {r.id for r in layout.checked_rules(frozenset({"mPos"}))}
    assert {"load3d.window.m_bounds", "load3d.mPos.range3d", "load3d.mPos.type"} <= held
    assert "load3d.window.k_bounds" not in held  # reads no mPos


def test_the_claims_leave_most_rules_to_the_construction():
    """BlockReduceMin's rules are all made by the construction but the one tying the mask to isSetMask's
    placeholder, which the flag drawn with the mask makes hold too (the figures of bench/RESULTS.md)."""
    model = get_api("BlockReduceMin")
    # all-zero masks are errors there (on atlas-a2/a3 a no-op, on atlas-350 a warning)
    layout = strat._layout(model.name, model.context("atlas-200i-500-a2", "half"))
    assert [r.id for r in layout.checked_rules(frozenset())] == []
    ids = {r.id for r in model.rules_for("atlas-200i-500-a2") if r.severity == ERROR}
    assert {"block_reduce_min.mask.words.nonzero", "block_reduce_min.dtype.support",
            "block_reduce_min.dst.align"} <= ids


def test_a_mask_the_caller_gives_keeps_its_rules_checked():
    model = get_api("BlockReduceMin")
    layout = strat._layout(model.name, model.context("atlas-200i-500-a2", "half"))
    got = {r.id for r in layout.checked_rules(frozenset({"mask", "mask.count", "mask.bitwise"}))}
    assert {"block_reduce_min.mask.count.range", "block_reduce_min.mask.words.nonzero",
            "block_reduce_min.mask.words.width", "block_reduce_min.mask.count.type"} <= got


def test_an_unsupported_type_keeps_the_support_rule_checked():
    model = get_api("BlockReduceMin")
    unsupported = next(t for t in ("int32", "int16", "uint8", "float") if t not in model.support["atlas-a2"])
    layout = strat._layout(model.name, model.context("atlas-a2", unsupported))
    assert "block_reduce_min.dtype.support" in {r.id for r in layout.checked_rules(frozenset())}
    supported = strat._layout(model.name, model.context("atlas-a2", model.support["atlas-a2"][0]))
    assert "block_reduce_min.dtype.support" not in {r.id for r in supported.checked_rules(frozenset())}


def _block_reduce_layout():
    model = get_api("BlockReduceMin")
    return strat._layout(model.name, model.context("atlas-a2", "half"))


def _always(v, ctx):
    return True


@pytest.mark.parametrize("lo, hi, claimed", [(0, 255, True), (0, 1000, True), (0, 254, False), (1, 255, False)])
def test_a_guarded_range_is_left_out_only_when_the_whole_domain_meets_it(lo, hi, claimed):
    """repeatTime is drawn from [0, 255] (its range rule): a guarded range rule on it holds for every drawn value
    exactly when [0, 255] lies inside the rule's range."""
    rule = field_range("test.repeatTime.guarded", "repeatTime", lo, hi, "test", when=_always)
    assert _block_reduce_layout()._guaranteed(rule, frozenset()) is claimed
    assert _block_reduce_layout()._guaranteed(rule, frozenset({"repeatTime"})) is False  # given: never claimed


@pytest.mark.parametrize("allowed, claimed", [(("VECIN", "VECCALC", "VECOUT"), True),
                                              (("VECIN", "VECCALC", "VECOUT", "A1"), True),
                                              (("VECIN", "VECOUT"), False)])
def test_a_guarded_position_rule_is_left_out_only_when_every_drawn_position_meets_it(allowed, claimed):
    rule = tensor_positions("test.dst.position", "dst", allowed, "test")  # guarded: the tensor is present
    assert _block_reduce_layout()._guaranteed(rule, frozenset()) is claimed

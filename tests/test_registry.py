"""Tests that grow with the registry: every registered API gets them without writing any (STYLE.md 7)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import z3
from hypothesis import HealthCheck, given, reject, settings, strategies as st

import ascverify
from ascverify import apis, check_case, check_cases, parse_case, strategies
from ascverify.cases.case import Case
from ascverify.checking import checker
from ascverify.checking.checker import columns
from ascverify.engines.properties.invariants import check_invariants
from ascverify.spec.dtypes import DTYPE_NAMES
from ascverify.spec.params import BoolType, EnumType
from ascverify.spec.products import PRODUCT_IDS
from ascverify.spec.registry import lookup_api
from ascverify.spec.rules import Values

MODELS = apis()
ROOT = Path(__file__).resolve().parents[1]
IDS = [m.name for m in MODELS]
SEEDS = ("000_f2fe3f8fa92b9dd9.txt", "001_fa274d527d3e292b.txt", "002_70a359bc6af47a68.txt",
         "003_6cb328d34acb8cee.txt", "004_2ad9555534615f32.txt", "HARDWARE_NOTES.md")
def slow(n: int) -> settings:
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_model_is_complete(model):
    assert model.support and model.notes and model.summary
    assert re.fullmatch(r"[a-z0-9_]+", model.prefix)
    for r in model.rules:
        assert any(s in r.source for s in SEEDS), f"{r.id} cites no seed page or HARDWARE_NOTES section"
        assert r.severity in ("error", "warning")
    for note in model.notes:
        assert note.reading and note.why and note.sources, note.id
        for rid in note.rules:
            assert rid in model.rule_by_id, f"note {note.id} names unknown rule {rid}"
    assert model.invariants, "a model lists its semantic invariants"
    for cls_method in ("execute", "footprint"):
        assert getattr(type(model), cls_method) is not getattr(type(model).__mro__[-2], cls_method, None)


def _raw_env(draw, model, ctx):
    """Field values that need not be valid: domain-ish values, type boundaries and just outside them."""
    env = {}
    for f in model.fields:
        if isinstance(f.type, BoolType):
            env[f.name] = draw(st.booleans())
        elif isinstance(f.type, EnumType):
            env[f.name] = draw(st.integers(0, len(f.type.choices) - 1))
        else:
            lo, hi = f.type.lo, f.type.hi
            env[f.name] = draw(st.one_of(
                st.integers(lo, min(hi, lo + 300)), st.integers(lo, hi), st.sampled_from([lo, hi, lo - 1, hi + 1]),
                st.integers(0, 70000).map(lambda x: x // 16 * 16)))
    return env


@st.composite
def raw_cases(draw, model):
    product = draw(st.sampled_from(PRODUCT_IDS))
    supported = model.support.get(product) or tuple(sorted({t for ts in model.support.values() for t in ts}))
    dtype = draw(st.sampled_from(supported))
    ctx = model.context(product, dtype)
    return Case(model, ctx, _raw_env(draw, model, ctx), origin="raw")


def any_case(model):
    return st.one_of(raw_cases(model), strategies.cases(model))


_z3_terms: dict = {}


def _z3_verdicts(case):
    key = (case.model.name, case.ctx.key)
    if key not in _z3_terms:
        model, ctx = case.model, case.ctx
        zvars = {f.name: (z3.Bool(f.name) if f.type.kind == "bool" else z3.Int(f.name)) for f in model.fields}
        v = Values(zvars, ctx, model)
        terms = {}
        for r in model.rules_for(ctx.product.id):
            if r.symbolic:
                t = r.holds(v, ctx)
                terms[r.id] = t if isinstance(t, z3.BoolRef) else z3.BoolVal(bool(t))
        _z3_terms[key] = (zvars, terms)
    zvars, terms = _z3_terms[key]
    subst = [(var, z3.BoolVal(bool(case.env[n])) if z3.is_bool(var) else z3.IntVal(int(case.env[n])))
             for n, var in zvars.items()]
    out = {}
    for rid, term in terms.items():
        t = z3.simplify(z3.substitute(term, *subst))
        if not (z3.is_true(t) or z3.is_false(t)):  # quantifiers: decide with the solver
            s = z3.Solver()
            s.add(t)
            t = z3.BoolVal(s.check() == z3.sat)
        out[rid] = z3.is_true(t)
    return out


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_concrete_and_z3_evaluations_agree(model):
    @slow(60)
    @given(any_case(model))
    def check(case):
        v = case.values()
        z = _z3_verdicts(case)
        for r in case.model.rules_for(case.product):
            if r.symbolic:
                assert bool(r.holds(v, case.ctx)) == z[r.id], r.id
    check()


def _verdict(r):
    """Everything a result reports: findings with their messages, notes, the error."""
    return ([(x.id, x.message) for x in r.violations], [(x.id, x.message) for x in r.warnings],
            [(u.rule_id, u.reason) for u in r.unchecked], r.error.message if r.error else None)


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_batched_and_scalar_checks_agree(model, monkeypatch):
    """`check_cases` on numpy columns and `check_case` case by case report the same. Batches of a few cases per
    context are checked case by case anyway (`SCALAR_MOST`): turned off here, so the columns are what is compared."""
    monkeypatch.setattr(checker, "SCALAR_MOST", 0)

    @slow(15)
    @given(st.lists(any_case(model), min_size=1, max_size=12))
    def check(cases):
        batched = check_cases(cases)
        for c, b in zip(cases, batched):
            assert _verdict(check_case(c)) == _verdict(b)
    check()


def test_a_context_with_few_cases_is_checked_case_by_case(monkeypatch):
    """A context with at most `SCALAR_MOST` cases in a batch goes to `check_case` (numpy's cost per operation on
    a row or two is above Python's per value); a larger one to the columns."""
    base = json.loads((ROOT / "examples" / "block_reduce_max.json").read_text())
    misaligned = json.loads(json.dumps(base))
    misaligned["tensors"]["dst"]["addr"] = 17  # an error, and a message with values
    on_350 = json.loads(json.dumps(base))
    on_350["product"] = "atlas-350"
    scalar: list = []
    real = checker.check_case
    monkeypatch.setattr(checker, "check_case", lambda c, **kw: (scalar.append(c), real(c, **kw))[1])
    few = [parse_case(on_350)]  # alone in its context
    many = [parse_case(doc) for doc in [base, misaligned] * checker.SCALAR_MOST]  # more than SCALAR_MOST together
    got = check_cases(few + many)
    assert scalar == few
    assert any(r.violations for r in got) and any(r.valid for r in got)
    assert [_verdict(r) for r in got] == [_verdict(real(c)) for c in few + many]


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_strategy_cases_are_valid_by_construction(model):
    """The construction alone (without the final check) gives valid cases nearly always."""
    seen = []

    @slow(100)
    @given(strategies.raw_cases(model))
    def check(case):
        seen.append(check_case(case).valid)
    check()
    assert sum(seen) >= 0.9 * len(seen), f"only {sum(seen)} of {len(seen)} constructed cases are valid"


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_strategy_cases_pass_the_whole_checker(model):
    """`cases()` re-checks only the rules its construction does not guarantee: every case it yields, in each of
    its modes, must still pass every rule of the full checker (a construction gap would show here)."""
    modes = st.sampled_from([{}, {"bias": True}, {"bias": True, "specified": True}])

    @slow(60)
    @given(modes.flatmap(lambda kw: strategies.cases(model, **kw)))
    def check(case):
        result = check_case(case)
        assert result.valid, [v.id for v in result.violations]
    check()


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_valid_cases_satisfy_invariants(model):
    @slow(25)
    @given(strategies.cases(model), st.integers(0, 1000))
    def check(case, seed):
        check_invariants(case, seed)
    check()


def _breakable_rules(model, product):
    return [r.id for r in model.rules_for(product) if r.symbolic and r.severity == "error"
            and not r.id.endswith(".support")]


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_invalid_cases_break_exactly_their_rule(model):
    @slow(20)
    @given(st.data())
    def check(data):
        case = data.draw(strategies.cases(model))
        breakable = _breakable_rules(model, case.product)
        if not breakable:  # SetMaskCount / SetMaskNorm: no argument, nothing to break on a product that has them
            assert not model.args, f"{model.name} has arguments but no rule to break"
            return
        rule = data.draw(st.sampled_from(breakable))
        try:
            broken = strategies.breaking(case, rule)
        except strategies.Undecided:  # the solver's time limit ran out (a loaded machine): no case to judge
            reject()
        if broken is None:  # cannot be broken alone on this product/type: lint's business
            return
        assert [v.id for v in check_case(broken).violations] == [rule]
    check()


def test_pyasc_s_short_names_find_the_basic_api():
    """pyasc exports its basic API as asc.NAME (its tests and docs call asc.block_reduce_sum, asc.load_data): the
    same models as asc.language.basic.NAME; anything else under asc. stays unknown."""
    for short, name in (("asc.block_reduce_sum", "BlockReduceSum"), ("asc.load_data", "Load3DBitMode"),
                        ("asc.set_vector_mask", "SetVectorMask"), ("asc.bilinear_interpolation", "BilinearInterpolation")):
        assert lookup_api(short).name == name == lookup_api("asc.language.basic." + short[4:]).name
    assert lookup_api("asc.no_such_api") is None and lookup_api("asc.language.no_such") is None


@pytest.mark.parametrize("lookup, name, hint", [("get_product", "atlas-a22", "'atlas-a2'"),
                                                ("get_api", "BlockReduceMn", "'BlockReduceMin'")])
def test_unknown_names_fail_alike(lookup, name, hint):
    """audit 22: get_product raised a bare KeyError, get_api an InputError with a did-you-mean. Both now raise
    `UnknownName`: an InputError naming the names that come close, and still a KeyError for older callers."""
    with pytest.raises(ascverify.UnknownName) as got:
        getattr(ascverify, lookup)(name)
    assert isinstance(got.value, ascverify.InputError) and isinstance(got.value, KeyError)
    assert str(got.value) == got.value.line() and f"unknown {'product' if 'product' in lookup else 'API'} " \
        f"{name!r} (did you mean {hint}?)" in str(got.value)

"""A relational rule's distance to its boundary (`coverage._probe`, which steers campaigns) is the same whether the
neighbours of a case are evaluated together on numpy columns or one by one on plain values (`_probe_each`, the
fallback), on drawn cases of every API, valid and invalid, and on the cases where the columns cannot be used."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import apis, parse_case
from ascverify.engines.fuzz import coverage
from ascverify.engines.fuzz.coverage import LEVELS, PROBE_STEPS, _probe, _probe_each, _probe_fields
from ascverify.spec.rules import rule as make_rule
from ascverify.strategies import cases

def _relational(case):
    return [r for r in case.model.rules_for(case.product)
            if r.predicate is not None and r.domain.get("kind", "custom") not in
            ("range", "type", "min_size", "fits", "disjoint", "align", "multiple", "one_of")]


@pytest.mark.parametrize("api", [m.name for m in apis()])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_columns_and_plain_values_give_one_distance(api, data):
    model = next(m for m in apis() if m.name == api)
    case = data.draw(cases(model, bias=True))
    for rule in _relational(case):
        try:
            holds = bool(rule.holds(case.values(), case.ctx))
        except Exception:  # noqa: BLE001 - a rule the case cannot be placed against is not classified
            continue
        fields = _probe_fields(case, rule)
        for limit in (1, PROBE_STEPS):
            got, n = _probe(case, rule, holds, fields, limit)
            want, _ = _probe_each(case, rule, holds, fields, limit)
            assert got == want, (rule.id, limit, case.env)
            assert n <= 2 * len(fields) * sum(k <= limit for k in LEVELS)


def _block_reduce_case(mask):
    return parse_case({"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
                       "args": {"repeatTime": 2, "mask": mask, "dstRepStride": 1, "srcBlkStride": 1,
                                "srcRepStride": 8},
                       "tensors": {"dst": {"position": "VECCALC", "addr": 0, "size": 16},
                                   "src": {"position": "VECCALC", "addr": 256, "size": 256}}})


def _counting_fallback(monkeypatch):
    """The rule ids `_probe` hands to the one-by-one fallback from now on."""
    calls = []
    real = coverage._probe_each
    monkeypatch.setattr(coverage, "_probe_each", lambda *a: calls.append(a[1].id) or real(*a))
    return calls


@pytest.mark.parametrize("api", [m.name for m in apis()])
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_case_s_points_are_the_rules_points_one_by_one(api, data):
    """`classify` reads the case's parameters through one view per case; each point is the one `classify_rule` gives
    on the case's own (fresh) values, with the case known valid or not."""
    model = next(m for m in apis() if m.name == api)
    case = data.draw(cases(model, bias=True))
    sampled = coverage._sampled(case)
    for valid in (False, True):
        want = {}
        for r in model.rules_for(case.product):
            try:
                p = coverage.classify_rule(case, r, sampled, valid=valid)
            except Exception:  # noqa: BLE001 - not classified, as classify leaves it
                continue
            if p is not None:
                want[r.id] = p
        assert coverage.classify(case, valid=valid) == want


def test_mask_words_past_int64_are_probed_on_columns_as_python_ints(monkeypatch):
    """A mask word past int64 is held as a Python int in an object column (as the column-wise reader holds it): the
    neighbours are still evaluated together, with the distance the plain values give."""
    case = _block_reduce_case([2**64 - 1, 2**64 - 1])
    wanted = []
    for rule in _relational(case):
        fields = _probe_fields(case, rule)
        if any(name.startswith("mask.w") for name, *_ in fields):
            holds = bool(rule.holds(case.values(), case.ctx))
            wanted.append((rule, holds, fields, _probe_each(case, rule, holds, fields, PROBE_STEPS)[0]))
    assert wanted
    calls = _counting_fallback(monkeypatch)
    for rule, holds, fields, want in wanted:
        assert _probe(case, rule, holds, fields, PROBE_STEPS)[0] == want
    assert calls == []


def test_a_rule_that_needs_plain_values_is_probed_one_by_one(monkeypatch):
    """A predicate that takes int() of a field cannot run on columns: the neighbours are evaluated one by one, and
    the distance is the steps to the first that flips it (repeatTime 2 -> 10 at 8 steps: 1 and 2 steps do not)."""
    case = _block_reduce_case(128)
    plain_only = make_rule("test.plain_only", ("repeatTime",), lambda v, ctx: int(v.repeatTime) < 5,
                           "repeatTime < 5", "a test")
    calls = _counting_fallback(monkeypatch)
    assert _probe(case, plain_only, True, [("repeatTime", 1, 0, 255)], PROBE_STEPS)[0] == 8.0
    assert calls == ["test.plain_only"]


def test_probe_columns_are_made_on_first_read_and_answer_membership_as_the_case():
    cols = coverage._Columns({"a": 3, "b": True, "w": 2**64 - 1}, 4)
    assert "a" in cols and "w" in cols and "z" not in cols and len(dict.keys(cols)) == 0
    assert cols.get("a").tolist() == [3, 3, 3, 3] and cols["b"].dtype == bool
    assert cols["w"].dtype == object and cols["w"][0] == 2**64 - 1
    assert cols.get("z", 7) == 7
    with pytest.raises(KeyError):
        cols["z"]

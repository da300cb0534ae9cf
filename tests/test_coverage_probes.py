"""A relational rule's distance to its boundary (`coverage._probe`, which steers campaigns) is the same whether the
neighbours of a case are evaluated together on numpy columns or one by one on plain values (`_probe_each`, the
fallback), on drawn cases of every API, valid and invalid, and on the cases where the columns cannot be used."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import apis, parse_case
from ascverify.engines.fuzz import coverage
from ascverify.engines.fuzz.coverage import LEVELS, PROBE_STEPS, _probe, _probe_each, _probe_fields
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


def test_a_rule_that_needs_plain_values_is_probed_one_by_one(monkeypatch):
    """A field value numpy cannot hold exactly (a mask word past int64) sends the probe to plain values."""
    case = parse_case({"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
                       "args": {"repeatTime": 2, "mask": [2**64 - 1, 2**64 - 1], "dstRepStride": 1,
                                "srcBlkStride": 1, "srcRepStride": 8},
                       "tensors": {"dst": {"position": "VECCALC", "addr": 0, "size": 16},
                                   "src": {"position": "VECCALC", "addr": 256, "size": 256}}})
    calls = []
    real = coverage._probe_each
    monkeypatch.setattr(coverage, "_probe_each", lambda *a: calls.append(a[1].id) or real(*a))
    rule = next(r for r in _relational(case) if _probe_fields(case, r))
    holds = bool(rule.holds(case.values(), case.ctx))
    coverage._probe(case, rule, holds, _probe_fields(case, rule), 1)
    assert calls == [rule.id]

"""`parse_case` reads the common shape of a case through a short path (`parse._parse_common`) and everything else
through the general one (`parse._parse_general`): on any input the short path either declines or gives exactly
the case the general path gives (same model, context, fields in the same order)."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import apis
from ascverify.cases import parse
from ascverify.spec.errors import InputError
from ascverify.strategies import cases

ODD_VALUES = [None, True, False, 0, -1, 2**64, 2**64 - 1, -(2**63) - 1, 1.5, "", "x", "VECIN", "half", "ATLAS-A2",
              [], [1, 2], {}, {"position": "VECIN"}]


def mutate(doc: dict, rng: random.Random) -> dict:
    """``doc`` with one thing changed: a value anywhere replaced, a key added or removed, a name respelled."""
    doc = copy.deepcopy(doc)
    where = rng.choice(["top", "args", "tensors", "tensor"])
    if where == "top":
        key = rng.choice(["api", "product", "dtype", "args", "tensors", "name", "registers", "bogus"])
        if rng.random() < 0.2:
            doc.pop(key, None)
        else:
            doc[key] = rng.choice(ODD_VALUES + [str(doc.get("api")).lower(), str(doc.get("product")).upper()])
    elif where == "args" and isinstance(doc.get("args"), dict) and doc["args"]:
        key = rng.choice(sorted(doc["args"]))
        k = rng.random()
        if k < 0.2:
            del doc["args"][key]
        elif k < 0.35:
            doc["args"][key + "_"] = doc["args"][key]
        else:
            doc["args"][key] = rng.choice(ODD_VALUES)
    elif isinstance(doc.get("tensors"), dict) and doc["tensors"]:
        name = rng.choice(sorted(doc["tensors"]))
        t = doc["tensors"][name]
        k = rng.random()
        if k < 0.15:
            del doc["tensors"][name]
        elif k < 0.3 or not isinstance(t, dict):
            doc["tensors"][name] = rng.choice(ODD_VALUES)
        else:
            t[rng.choice(["position", "addr", "size", "dtype", "data", "extra"])] = rng.choice(ODD_VALUES)
    return doc


def general(doc: dict):
    try:
        return parse._parse_general(doc, None, "origin", None), None
    except InputError as exc:
        return None, str(exc)


def same_case(fast, doc: dict) -> None:
    slow, err = general(doc)
    assert slow is not None, f"the short path read a case the general path refuses ({err}): {doc}"
    assert fast.model is slow.model and fast.ctx is slow.ctx
    assert list(fast.env.items()) == list(slow.env.items())
    assert (fast.data_sources, fast.registers, fast.origin) == (slow.data_sources, slow.registers, slow.origin)


@pytest.mark.parametrize("api", [m.name for m in apis()])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_short_path_gives_the_general_paths_case_or_declines(api, data):
    case = data.draw(cases(api))
    doc = case.to_json()
    fast = parse._parse_common(doc, None, "origin")
    if fast is not None:
        same_case(fast, doc)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    for _ in range(6):
        doc = mutate(doc, rng)
        fast = parse._parse_common(doc, None, "origin")
        if fast is not None:
            same_case(fast, doc)


@pytest.mark.parametrize("api", [m.name for m in apis()])
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_short_path_reads_the_common_shapes(api, data):
    """A drawn case without tensor data or registers takes the short path (declining would only be slower, not
    wrong: this keeps the speed that bench/check_bench.py measures)."""
    doc = data.draw(cases(api)).to_json()
    if "registers" in doc or any(isinstance(t, dict) and "data" in t for t in doc.get("tensors", {}).values()):
        return
    fast = parse._parse_common(doc, None, "origin")
    assert fast is not None, doc
    same_case(fast, doc)

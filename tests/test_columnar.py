"""The column-wise reader (`cases.columnar.parse_block`) reads the common shape of many cases at once: on any block
of documents it either declines a document or gives exactly the case the general path (`parse._parse_general`)
gives, fields, their order and Python types included; and checking cases read either way gives the same results."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import apis, check_cases
from ascverify.cases import columnar, parse
from ascverify.cases.caseio import COLUMNAR_MIN_DOCS, cases_from_bytes
from ascverify.checking import checker as checker_module
from ascverify.checking.checker import columns
from ascverify.cli import main
from ascverify.spec.errors import InputError
from ascverify.strategies import cases

from click.testing import CliRunner

from test_malformed_inputs import _positions, _replace, json_values
from test_parse_common_path import mutate

MASK_FORMS = [7, 0, 2**64 - 1, [1, 2], [2**63, 0], [], "MASK_PLACEHOLDER", "mask", [True], [1.0], 1.5, None, True]


def general(doc):
    try:
        return parse._parse_general(doc, None, "origin", None)
    except InputError:
        return None


def assert_same(fast, doc) -> None:
    slow = general(doc)
    assert slow is not None, f"the column-wise reader read a case the general path refuses: {doc}"
    assert fast.model is slow.model and fast.ctx is slow.ctx
    assert list(fast.env.items()) == list(slow.env.items())
    assert [type(v) for v in fast.env.values()] == [type(v) for v in slow.env.values()], doc
    assert (fast.data_sources, fast.registers, fast.origin) == (slow.data_sources, slow.registers, slow.origin)


def read_block(docs):
    got = columnar.parse_block(docs, ["origin"] * len(docs), None)
    for doc, case in zip(docs, got):
        if case is not None:
            assert_same(case, doc)
    return got


def variants(doc: dict, rng: random.Random) -> list[dict]:
    """Documents like ``doc`` that differ where the column-wise reader has to tell forms apart: masks in each of
    their forms, values of odd types or sizes, mutations anywhere (`test_parse_common_path.mutate`)."""
    out = [doc]
    if "mask" in doc.get("args", {}):
        for form in MASK_FORMS:
            d = copy.deepcopy(doc)
            d["args"]["mask"] = form
            out.append(d)
    for _ in range(8):
        out.append(mutate(doc, rng))
    return out


@pytest.mark.parametrize("api", [m.name for m in apis()])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_block_gives_the_general_paths_cases_or_declines(api, data):
    docs = [data.draw(cases(api)).to_json() for _ in range(4)]
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    block = [v for d in docs for v in variants(d, rng)]
    rng.shuffle(block)
    got = read_block(block)
    # the unmutated documents are the common shape: read here, not left to the general path
    for doc, case in zip(block, got):
        if any(doc is d for d in docs):
            assert isinstance(case, columnar.RowCase)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_block_mixing_apis_products_and_forms(data):
    """One block of every API, products and types drawn, also in other spellings where the model has them."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    docs = []
    for m in apis():
        docs.extend(variants(data.draw(cases(m)).to_json(), rng))
        docs.extend(data.draw(cases(m)).to_json() for _ in range(2))
    pyasc = {"api": "BilinearInterpolation", "product": "atlas-a2", "dtype": "half",
             "args": {"mask": 128, "hRepeat": 1, "repeatMode": False, "dstBlkStride": 1, "vROffset": 128,
                      "vRepeat": 1},
             "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 128},
                         "src0": {"position": "VECIN", "addr": 0, "size": 128},
                         "src0_offset": {"position": "VECIN", "addr": 256, "size": 8, "dtype": "uint32"},
                         "src1": {"position": "VECIN", "addr": 512, "size": 128},
                         "shared_tmp_buffer": {"position": "VECCALC", "addr": 0, "size": 64}}}
    docs += [pyasc, dict(pyasc, tensors={**pyasc["tensors"], "src0_offset": {**pyasc["tensors"]["src0_offset"],
                                                                             "dtype": "float"}})]
    rng.shuffle(docs)
    got = read_block(docs)
    assert got[docs.index(pyasc)] is not None  # pyasc's tensor names, one with a type of its own
    assert sum(c is not None for c in got) > len(docs) // 3


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_cases_read_column_wise_check_as_cases_read_one_by_one(data):
    """`check_cases` on a file read column-wise gives the results of checking each document read by the general
    path: the same rules broken with the same messages, warnings and notes, in the same order."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    docs = []
    for m in apis():
        for _ in range(3):
            docs.extend(variants(data.draw(cases(m)).to_json(), rng)[:5])
    rng.shuffle(docs)
    text = "\n".join(json.dumps(d) for d in docs) + "\n"
    entries = list(cases_from_bytes(text.encode(), "mem.jsonl"))
    read = [e for e in entries if e.case is not None]
    assert any(isinstance(e.case, columnar.RowCase) for e in read)
    slow = [parse._parse_general(e.raw, None, e.case.origin, None) for e in read]

    def summary(results):
        return [([(v.rule.id, v.message) for v in r.violations], [(w.rule.id, w.message) for w in r.warnings],
                 [(u.rule_id, u.reason) for u in r.unchecked]) for r in results]

    assert summary(check_cases([e.case for e in read])) == summary(check_cases(slow))


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_columns_of_cases_read_column_wise_are_their_fields(data):
    """The checker's columns of cases read column-wise, taken from their blocks, hold each case's fields."""
    docs = [data.draw(cases("BlockReduceMax")).to_json() for _ in range(12)]
    docs[3]["args"]["mask"] = [1, 2**64 - 1]  # a word beyond int64: that column holds Python ints
    got = columnar.parse_block(docs, ["o"] * len(docs), None)
    picked = [(c, d) for c, d in zip(got, docs) if c is not None][::2]
    cols = columns([c for c, _ in picked])
    for j, (_, doc) in enumerate(picked):
        env = general(doc).env
        assert {k: cols[k][j].item() if hasattr(cols[k][j], "item") else cols[k][j] for k in cols} == env


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_case_whose_fields_were_changed_is_checked_with_its_changes(data):
    """A case read column-wise whose ``env`` someone changed is checked on its changed fields, not its block's."""
    doc = data.draw(cases("SetVectorMask")).to_json()
    case = columnar.parse_block([doc], ["o"], None)[0]
    assert isinstance(case, columnar.RowCase)
    field = next(f.name for f in case.model.fields if f.type.kind == "int")
    case.env[field] = -(2**40)
    ref = parse._parse_general(doc, None, "o", None)
    ref.env[field] = -(2**40)
    expected = check_cases([ref])[0]
    assert expected.violations  # a negative field breaks a rule (the test would show nothing otherwise)
    assert [v.message for v in check_cases([case])[0].violations] == [v.message for v in expected.violations]


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_case_whose_fields_were_only_read_is_still_checked_from_its_block(data):
    """Asking a case read column-wise for its fields (as the Z3 checker or `show` do) does not change them: its
    columns still come from its block, and a change made afterwards is still seen."""
    docs = [data.draw(cases("BlockReduceSum")).to_json() for _ in range(6)]
    got = [c for c in columnar.parse_block(docs, ["o"] * len(docs), None) if c is not None]
    assert got[0].env  # read: no longer fresh
    assert not got[0].fresh and checker_module._all_fresh_rows(got)
    got[0].env["mask.count"] = True  # changed (a type of its own): checked from its fields now
    assert not checker_module._all_fresh_rows(got)


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_rows_with_values_out_of_range_are_left_to_the_general_path(data):
    """Odd values in a block of plain rows (a negative tensor address or size, an argument beyond any integer):
    each such row is read as the general path reads it or declined, a row the general path refuses is declined,
    and the other rows are read."""
    docs = [data.draw(cases("BlockReduceSum")).to_json() for _ in range(6)]
    docs[1]["tensors"]["dst"]["addr"] = -32
    docs[2]["tensors"]["src"]["size"] = -1
    docs[3]["args"]["repeatTime"] = 2**64
    got = read_block(docs)  # every row read equals the general path's case
    assert all(got[i] is not None for i in (0, 4, 5))
    assert got[3] is None and general(docs[3]) is None


def _respelled(doc: dict, model) -> dict:
    """``doc`` with its tensors under the other names the model reads (pyasc's), where it has any."""
    other = {name: alias for alias, name in model.tensor_aliases.items()}
    return dict(doc, tensors={other.get(k, k): v for k, v in doc["tensors"].items()})


def _verdicts(path) -> list[dict]:
    """`check --format jsonl` on a file: each case's result without its file and index."""
    r = CliRunner().invoke(main, ["check", "--format", "jsonl", str(path)])
    assert r.exit_code in (0, 1, 2) and "internal error" not in r.stderr, (r.exit_code, r.stderr[-500:])
    out = [json.loads(line) for line in r.stdout.splitlines()]
    for x in out:
        del x["file"], x["index"]
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_broken_case_among_many_gets_the_verdict_it_gets_alone(tmp_path_factory, data):
    """Any JSON value anywhere in one case of a JSON Lines file long enough to be read column-wise (tensors under
    either spelling): `check` says of that case what it says of it alone, and checks the others. (Found by a
    sweep: a tensor given as a list holding its object, in pyasc's spelling, was an internal error.)"""
    model = data.draw(st.sampled_from(list(apis())))
    doc = data.draw(cases(model.name)).to_json()
    if model.tensor_aliases and data.draw(st.booleans()):
        doc = _respelled(doc, model)
    tensors = [("tensors", name) for name in doc["tensors"]]
    path = data.draw(st.sampled_from(tensors) if tensors and data.draw(st.booleans()) else
                     st.sampled_from([p for p in _positions(doc) if p]))
    wrap = data.draw(st.booleans())  # the value there wrapped in a list (a tensor: a list holding its object)
    value = [copy.deepcopy(_get(doc, path))] if wrap and path[-1] != "extraKey" else data.draw(json_values)
    broken = _replace(copy.deepcopy(doc), path, value, data.draw(st.booleans()) and not wrap)
    folder = tmp_path_factory.mktemp("block")
    many, alone = folder / "many.jsonl", folder / "alone.jsonl"
    docs = [doc] * COLUMNAR_MIN_DOCS
    at = data.draw(st.integers(0, len(docs) - 1))
    docs[at] = broken
    many.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    alone.write_text(json.dumps(broken) + "\n")
    got = _verdicts(many)
    assert len(got) == len(docs)
    assert got[at] == _verdicts(alone)[0]
    assert all(v == got[at - 1 if at else 1] for i, v in enumerate(got) if i != at)  # the others: one verdict


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def test_a_tensor_given_as_a_list_among_many_in_pyascs_spelling(tmp_path):
    """The case the sweep found: BilinearInterpolation with pyasc's tensor names, one case's src0 a list holding
    its object, among enough cases to be read column-wise: that case is unreadable (as alone), the others read."""
    doc = {"api": "BilinearInterpolation", "product": "atlas-a2", "dtype": "half",
           "args": {"mask": 128, "hRepeat": 1, "repeatMode": False, "dstBlkStride": 1, "vROffset": 128, "vRepeat": 1},
           "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 128},
                       "src0": {"position": "VECIN", "addr": 0, "size": 128},
                       "src0_offset": {"position": "VECIN", "addr": 256, "size": 8, "dtype": "uint32"},
                       "src1": {"position": "VECIN", "addr": 512, "size": 128},
                       "shared_tmp_buffer": {"position": "VECCALC", "addr": 0, "size": 64}}}
    broken = copy.deepcopy(doc)
    broken["tensors"]["src0"] = [broken["tensors"]["src0"]]
    (tmp_path / "many.jsonl").write_text("\n".join(json.dumps(d) for d in [doc, broken] * COLUMNAR_MIN_DOCS))
    (tmp_path / "alone.jsonl").write_text(json.dumps(broken))
    got = _verdicts(tmp_path / "many.jsonl")
    alone = _verdicts(tmp_path / "alone.jsonl")[0]
    assert "tensors.src0" in alone["error"] and not alone["valid"]
    assert got[1::2] == [alone] * COLUMNAR_MIN_DOCS
    assert all(v["api"] == "BilinearInterpolation" and "error" not in v for v in got[::2])

"""The published JSON Schema against caseio, the reader that `check` uses."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ascverify.cases.parse import parse_case
from ascverify.cases.schema import case_schema, validate
from ascverify.spec.errors import InputError
from ascverify.spec.params import ABS_MAX, ABS_MIN, MaskArg
from ascverify.spec.registry import api_names, apis, get_api
from ascverify.strategies import cases

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bilinear_interpolation.json"
EX = json.loads(EXAMPLE.read_text())


def caseio_error(doc: Any) -> str | None:
    """caseio's verdict on one case: parse it, then load its inline data (parse defers that to first use)."""
    try:
        case = parse_case(doc, base_dir=EXAMPLE.parent)
        for name in case.data_sources:
            case.data(name)
    except InputError as exc:
        return exc.line()
    return None


def variant(**changes: Any) -> dict:
    """The example with dotted paths set (``args.hRepeat``) or deleted (value ``...``)."""
    doc = copy.deepcopy(EX)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = doc
        for p in parents:
            node = node[p]
        if value is ...:
            del node[last]
        else:
            node[last] = value
    return doc


def test_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(case_schema())
    assert case_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_example_validates():
    assert validate(EX) == []
    assert validate([EX, EX]) == []
    assert caseio_error(EX) is None


@pytest.mark.parametrize("path", sorted(EXAMPLE.parent.glob("*.json")), ids=lambda p: p.name)
def test_every_shipped_example_validates(path):
    """Cases and programs alike (the program examples give SetFmatrix's members flat and LoadDataWithStride's
    arguments as LoadData3DParamsV2 members: forms the reader takes, so the schema must too)."""
    assert validate(json.loads(path.read_text())) == []


def program_doc(*calls: dict) -> dict:
    return {"product": "atlas-350", "dtype": "half",
            "tensors": {"fm": {"position": "A1", "addr": 0, "size": 512}, "a2": {"position": "A2", "addr": 0, "size": 2048}},
            "calls": list(calls)}


def test_programs_are_checked_call_by_call():
    ok = program_doc({"api": "SetFmatrix", "args": {"l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1]}})
    assert validate(ok) == []
    # a call's arguments are its API's: the path names the call
    bad = program_doc({"api": "set_vector_mask", "args": {"mask": [255, 0], "mode": "NORMA"}})
    assert validate(bad) == ["$.calls[0].args.mode: 'NORMA' is not one of ['NORMAL', 'COUNTER']"]
    # the program's keys are parse_program's: no api at the top, calls a non-empty list
    assert any(p.startswith("$.calls: ") for p in validate(program_doc()))
    assert any("'api' is a required property" in p for p in validate(program_doc({"args": {}})))


@pytest.mark.parametrize("args, ok", [
    ({"fmatrix": {"l1H": 4, "l1W": 4, "padList": [0, 0, 0, 0]}}, True),
    ({"l1H": 4, "l1W": 4, "padList": [0, 0, 0, 0]}, True),   # the members flat (spec note set_fmatrix.arguments)
    ({"l1H": 4, "l1W": 4, "padList": [0, 0, 0]}, False),     # padList has 4 entries
    ({"l1H": 4, "l1W": 4}, False),                           # padList is required (the C++ function takes it)
    ({"l1H": 4, "l1W": 4, "padList": [0, 0, 0, 0], "fmatrixMode": "FMATRIX_LEFT"}, True),
    ({"fmatrix": {"l1H": 4, "l1W": 4, "padList": [0, 0, 0, 0]}, "fmatrixMode": "FMATRIX_LEFT"}, True),
    ({"l1H": 4, "l1W": 4, "padList": [0, 0, 0, 0], "fmatrixMode": "LEFT"}, False),
])
def test_set_fmatrix_in_both_forms(args, ok):
    doc = {"api": "SetFmatrix", "product": "atlas-350", "dtype": "half", "args": args}
    assert (validate(doc) == []) == ok == (caseio_error(doc) is None)


@pytest.mark.parametrize("args, ok", [
    ({"config0": 1, "config1": 2}, True),                    # the packed words
    ({"config0": 1}, False),                                 # both words
    ({"channelSize": 32, "kExtension": 64, "filterW": 2, "enTranspose": False}, True),   # LoadData3DParamsV2
    ({"channelSize": 32, "enTranspose": 1}, False),          # enTranspose is a bool member
    ({"channel_size": 32, "k_extension": 64, "pad_list": [0, 0, 0, 0]}, True),          # pyasc's keywords
    ({"channel_size": 32, "pad_list": [0, 0]}, False),
])
def test_load3d_argument_forms(args, ok):
    """Load3DBitMode's other forms of args (spec note load3d.namings), each key by its JSON type."""
    assert (validate({"api": "Load3DBitMode", "product": "atlas-350", "dtype": "half", "args": args,
                      "tensors": {"dst": {"position": "A2", "addr": 0, "size": 256},
                                  "src": {"position": "A1", "addr": 0, "size": 256}}}) == []) == ok


@pytest.mark.parametrize("model", apis(), ids=lambda m: m.name)
def test_schema_covers_every_registered_api(model):
    defs = case_schema()["$defs"]
    assert set(api_names()) <= set(defs["case"]["properties"]["api"]["enum"])
    sub = defs[f"api:{model.name}"]["properties"]
    # each argument under its own name, then under each other spelling's name (pyasc's); tensors likewise
    spellings = [{a.name: renames.get(a.name, a.name) for a in model.args} for renames in model.arg_spellings.values()]
    others = list(dict.fromkeys(n for s in spellings for a, n in s.items() if n != a))
    own = [a.name for a in model.args]
    # a model whose normalize_args reads other forms: the own form first, then one per other form
    forms = sub["args"]["anyOf"] if "anyOf" in sub["args"] else [sub["args"]]
    assert len(forms) == 1 + bool(model.flat_struct) + len(model.argument_forms)
    args = forms[0]
    assert list(args["properties"])[:len(own)] == own
    assert sorted(list(args["properties"])[len(own):]) == sorted(others)
    aliases = [k for t in model.tensors for k, v in model.tensor_aliases.items() if v == t.name]
    assert list(sub["tensors"]["properties"]) == [t.name for t in model.tensors] + aliases
    # a required tensor with another name: one of its names required
    either = [[r["required"][0] for r in one["anyOf"]] for one in sub["tensors"].get("allOf", [])]
    assert sorted(sub["tensors"]["required"] + [names[0] for names in either]) == \
        sorted(t.name for t in model.tensors if not t.optional)
    assert all(model.tensor_aliases[k] == names[0] for names in either for k in names[1:])
    for a in model.args:
        prop = args["properties"][a.name]
        if isinstance(a, MaskArg):
            assert {b.get("type") for b in prop["anyOf"]} == {None, "array"}
        elif a.type.kind == "int":
            # read any 64-bit value; the C type's own range is a rule (exit 1), not a read error
            assert (prop["minimum"], prop["maximum"]) == (-(2**63), 2**64 - 1) == (ABS_MIN, ABS_MAX)


# Structurally wrong: (id, document, JSON path the schema must name, field caseio must name)
WRONG = [
    ("top-level-number", 42, "$", ""),
    ("case-is-list-of-numbers", [[1, 2, 3]], "$[0]", ""),
    ("unknown-api", variant(api="BilinearInterpolaton"), "$.api", "api"),
    ("unknown-product", variant(product="atlas-a22"), "$.product", "product"),
    ("unknown-dtype", variant(dtype="halff"), "$.dtype", "dtype"),
    ("unknown-tensor-dtype", variant(tensors__dst__dtype="flaot"), "$.tensors.dst.dtype", "tensors.dst.dtype"),
    ("unknown-argument", variant(args__hRepet=2), "$.args", "args.hRepet"),
    ("unknown-tensor", variant(tensors__dts={"addr": 0, "size": 16}), "$.tensors", "tensors.dts"),
    ("unknown-tensor-key", variant(tensors__dst__adr=0), "$.tensors.dst", "tensors.dst.adr"),
    ("unknown-case-key", variant(prodcut="atlas-a2"), "$", "prodcut"),
    ("missing-argument", variant(args__vRepeat=...), "$.args", "args.vRepeat"),
    ("missing-tensor", variant(tensors__src1=...), "$.tensors", "tensors.src1"),
    ("missing-addr", variant(tensors__dst__addr=...), "$.tensors.dst", "tensors.dst.addr"),
    ("missing-product", variant(product=...), "$", "product"),
    ("string-for-int", variant(args__hRepeat="2"), "$.args.hRepeat", "args.hRepeat"),
    ("bool-for-int", variant(args__hRepeat=True), "$.args.hRepeat", "args.hRepeat"),
    ("float-for-int", variant(args__hRepeat=1.5), "$.args.hRepeat", "args.hRepeat"),
    ("integral-float-for-int", variant(args__hRepeat=2.0), "$.args.hRepeat", "args.hRepeat"),
    ("null-for-int", variant(args__hRepeat=None), "$.args.hRepeat", "args.hRepeat"),
    ("int-for-bool", variant(args__repeatMode=1), "$.args.repeatMode", "args.repeatMode"),
    ("huge-integer", variant(args__hRepeat=10**30), "$.args.hRepeat", "args.hRepeat"),
    ("huge-as-orjson-reads-it", variant(args__hRepeat=1e30), "$.args.hRepeat", "args.hRepeat"),
    ("huge-negative", variant(tensors__dst__addr=-10**20), "$.tensors.dst.addr", "tensors.dst.addr"),
    ("just-beyond-uint64", variant(args__vROffset=2**64), "$.args.vROffset", "args.vROffset"),
    ("mask-bool", variant(args__mask=True), "$.args.mask", "args.mask"),
    ("mask-word-string", variant(args__mask=[0, "8"]), "$.args.mask[1]", "args.mask[1]"),
    ("position-number", variant(tensors__dst__position=2), "$.tensors.dst.position", "tensors.dst.position"),
    ("unknown-position", variant(tensors__dst__position="VECOTU"), "$.tensors.dst.position", "tensors.dst.position"),
    ("tensor-not-object", variant(tensors__dst=[0, 256]), "$.tensors.dst", "tensors.dst"),
    ("data-with-string", variant(tensors__src1__data=[2, "3"]), "$.tensors.src1.data[1]", "tensors.src1.data[1]"),
    ("data-nested-list", variant(tensors__src1__data=[[2]]), "$.tensors.src1.data[0]", "tensors.src1.data[0]"),
    ("data-object", variant(tensors__src1__data={"v": 2}), "$.tensors.src1.data", "tensors.src1.data"),
    ("args-not-object", variant(args=[128, 2]), "$.args", "args"),
]


@pytest.mark.parametrize("doc, path, field", [w[1:] for w in WRONG], ids=[w[0] for w in WRONG])
def test_structurally_wrong_rejected_by_both(doc, path, field):
    problems = validate(doc)
    assert any(p.startswith(path + ": ") for p in problems), problems
    one = doc[0] if isinstance(doc, list) else doc
    err = caseio_error(one)
    assert err is not None
    assert err.startswith(f"{field}: ") if field else ":" not in err.split(" ")[0], err


# Readable cases built by hand (each may still break rules: readable is not valid)
RIGHT = [
    ("example", EX),
    ("bitwise-mask", variant(args__mask=[0, 8])),
    ("one-word-mask", variant(args__mask=[2**64 - 1])),
    ("repeat-mode", variant(args__repeatMode=True, args__hRepeat=1, tensors__src1__data=[2] * 8)),
    ("product-alias", variant(product="ascend-950pr", tensors__sharedTmpBuffer=...)),
    ("dtype-alias", variant(dtype="float16", tensors__src0Offset__dtype="uint32_t")),
    ("no-dtype-no-position", variant(dtype=..., tensors__dst__position=..., tensors__src1__data=...)),
    ("out-of-c-range-values", variant(args__hRepeat=2**64 - 1, args__vROffset=-(2**63), tensors__dst__addr=2**40)),
    ("other-position", variant(tensors__dst__position="A1", product="atlas-inference-aicore")),
    ("empty-args-values", variant(args__mask=[], args__dstBlkStride=0, name="empty mask", comment="breaks rules")),
    ("float-data", variant(tensors__src1__data=[0.5, -1.25, 3], tensors__src0Offset__data=[0, 32])),
    ("data-file", variant(tensors__src1__data="bilinear_src0.npy", tensors__src1__size=512)),
]


@pytest.mark.parametrize("doc", [r[1] for r in RIGHT], ids=[r[0] for r in RIGHT])
def test_readable_cases_accepted_by_both(doc):
    assert validate(doc) == []
    assert caseio_error(doc) is None


def test_list_of_cases():
    docs = [r[1] for r in RIGHT]
    assert validate(docs) == []
    bad = docs + [variant(args__hRepeat="2")]
    assert validate(bad) == [f"$[{len(docs)}].args.hRepeat: '2' is not of type 'integer'"]


# -- property: caseio and the schema agree on every value in every non-data position ---------------------------

def _positions(doc: Any, path: tuple = ()) -> list[tuple]:
    out = [path] if path else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k != "data":
                out += _positions(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _positions(v, path + (i,))
    return out


POSITIONS = _positions(EX)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**66), 2**66) | st.floats(allow_nan=False) | st.text(max_size=6)
    | st.sampled_from([0, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 2.0, "VECIN", "half", "uint32", "atlas-a2"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["addr", "size", "x"]), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(POSITIONS), value=values, delete=st.booleans())
def test_schema_and_caseio_agree(path, value, delete):
    doc = copy.deepcopy(EX)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    problems = validate(doc)
    try:
        parse_case(doc, base_dir=EXAMPLE.parent)
        accepted = True
    except InputError:
        accepted = False
    assert accepted == (problems == []), problems


@settings(max_examples=60, deadline=None)
@given(data=values)
def test_data_the_schema_refuses_caseio_refuses(data):
    # the schema cannot see files nor element types, so only this direction holds for data
    doc = variant(tensors__src1__data=data)
    if validate(doc):
        assert caseio_error(doc) is not None


# -- what ascverify itself writes validates --------------------------------------------------------------------------

@pytest.mark.parametrize("model", apis(), ids=lambda m: m.name)
def test_cases_the_strategies_draw_validate(model):
    """Every case `strategies.cases` draws (what `gen`, `synth` and the fuzz findings write, through
    `Case.to_json`), of every API, validates: among them masks an earlier call set (BlockReduce's
    ``MASK_PLACEHOLDER`` with isSetMask false), which the schema refused while `check` read them."""
    drawn: list[dict] = []

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(cases(model))
    def draw(case):
        drawn.append(case.to_json())

    draw()
    problems = {json.dumps(d): validate(d) for d in drawn}
    assert not any(problems.values()), [p for p in problems.values() if p][:3]
    assert all(caseio_error(d) is None for d in drawn)


BLOCK_REDUCE = {"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
                "args": {"repeatTime": 1, "mask": "MASK_PLACEHOLDER", "isSetMask": False, "dstRepStride": 1,
                         "srcBlkStride": 1, "srcRepStride": 8},
                "tensors": {"dst": {"addr": 0, "size": 16}, "src": {"addr": 256, "size": 128}}}


def test_a_mask_placeholder_is_read_alike_by_both():
    """The placeholder of a mask set elsewhere: accepted by both where the API declares one (BlockReduceMin), refused
    by both where it does not (BilinearInterpolation), and a misspelt one refused by both."""
    assert caseio_error(BLOCK_REDUCE) is None and validate(BLOCK_REDUCE) == []
    misspelt = copy.deepcopy(BLOCK_REDUCE)
    misspelt["args"]["mask"] = "MASK_PLACEHOLDR"
    assert caseio_error(misspelt) is not None and validate(misspelt) != []
    elsewhere = variant(args__mask="MASK_PLACEHOLDER")
    assert caseio_error(elsewhere) is not None and validate(elsewhere) != []


def _names_of(model) -> dict[str, list[str]]:
    """Each argument's names in the model's spellings (written here from `arg_spellings`), its own first."""
    out = {a.name: [a.name] for a in model.args}
    for renames in model.arg_spellings.values():
        for own, other in renames.items():
            if other not in out[own]:
                out[own].append(other)
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), which=st.sampled_from(["BilinearInterpolation", "BlockReduceMin"]))
def test_schema_and_caseio_agree_on_spellings(data, which):
    """Arguments under Ascend C's or pyasc's names (BlockReduce: pyasc's ``repeat`` and ``repeat_time`` both), mixed or
    not, an argument sometimes under two names, Bilinear's tensors under either name: the schema accepts exactly the
    documents `parse` reads (one spelling throughout, each argument and tensor once)."""
    model = get_api(which)
    base = copy.deepcopy(EX if which == "BilinearInterpolation" else BLOCK_REDUCE)
    names = _names_of(model)
    args = {}
    for own, value in base["args"].items():
        for k in data.draw(st.lists(st.sampled_from(names[own]), min_size=1, max_size=2, unique=True)):
            args[k] = value
    base["args"] = args
    tensors = {}
    for own, value in base["tensors"].items():
        choices = [own] + [k for k, v in model.tensor_aliases.items() if v == own]
        for k in data.draw(st.lists(st.sampled_from(choices), min_size=1, max_size=2, unique=True)):
            tensors[k] = value
    base["tensors"] = tensors
    problems = validate(base)
    assert (caseio_error(base) is None) == (problems == []), (base, problems)


def test_the_spellings_are_read_alike_by_both():
    """The pyasc spelling whole (the shipped examples/block_reduce_max.json uses it) is accepted by both; one argument in
    each spelling, or one given twice, is refused by both."""
    py = copy.deepcopy(BLOCK_REDUCE)
    py["args"] = {"repeat": 1, "mask": "MASK_PLACEHOLDER", "is_set_mask": False, "dst_rep_stride": 1,
                  "src_blk_stride": 1, "src_rep_stride": 8}
    assert caseio_error(py) is None and validate(py) == []
    example = json.loads((EXAMPLE.parent / "block_reduce_max.json").read_text())
    assert caseio_error(example) is None and validate(example) == []
    mixed = copy.deepcopy(py)
    mixed["args"]["srcRepStride"] = mixed["args"].pop("src_rep_stride")
    assert caseio_error(mixed) is not None and validate(mixed) != []
    twice = copy.deepcopy(py)
    twice["args"]["repeat_time"] = 1
    assert caseio_error(twice) is not None and validate(twice) != []
    tensors = variant(tensors__src0_offset=EX["tensors"]["src0Offset"])  # one tensor under both names
    assert caseio_error(tensors) is not None and validate(tensors) != []
    renamed = variant(tensors__src0_offset=EX["tensors"]["src0Offset"], tensors__src0Offset=...)
    assert caseio_error(renamed) is None and validate(renamed) == []


def test_qualified_enum_names_validate_as_check_reads_them(tmp_path):
    """audit 20: `check` reads `MaskMode::COUNTER`, `asc.MaskMode.COUNTER`, `AscendC::Reg::LoadDist::DIST_NORM`
    (EnumType.lookup); --schema refused them. Another enum's qualification still fails both."""
    good = {"api": "SetVectorMask", "product": "atlas-a2", "dtype": "half",
            "args": {"mask": 8, "mode": "asc.MaskMode.COUNTER"}}
    assert validate(good) == []
    assert validate({**good, "args": {"mask": 8, "mode": "AscendC::MaskMode::NORMAL"}}) == []
    assert validate({**good, "args": {"mask": 8, "mode": "LoadDist::COUNTER"}}) != []
    load = {"api": "LoadAlign", "product": "atlas-350", "dtype": "half",
            "args": {"dstReg": 0, "dist": "AscendC::Reg::LoadDist::DIST_NORM"},
            "tensors": {"srcAddr": {"position": "VECIN", "addr": 0, "size": 128}}}
    assert validate(load) == []

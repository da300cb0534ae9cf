"""The arguments of the public strategies (`ascverify.strategies`).

`cases(api, args=...)` holds arguments fixed, written as in a case file's ``args``: every case drawn carries the
given values (a mask as a count, a list of words or its placeholder, an enum by name, levels and optional
arguments) and is valid. What no valid case could have (an unknown name, a value no case file could hold, a product
or type the API does not support) is refused with `InvalidArgument` when the strategy is made, naming what is
wrong. The expected fields are worked out here from the case format (docs/case-format.md), not read from the code.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import InvalidArgument, Unsatisfiable

from ascverify import check_case, get_api, parse_case
from ascverify.engines.interrupts import time_budget
from ascverify.engines.properties import strategies as strategies_module
from ascverify.strategies import Undecided, breaking, cases, invalid_cases, values

FEW = settings(max_examples=12, database=None, deadline=None, suppress_health_check=list(HealthCheck))


def _drawn(strategy):
    seen = []

    @FEW
    @given(strategy)
    def collect(case):
        seen.append(case)
    collect()
    return seen


def _code(api: str, arg: str, name: str) -> int:
    """An enum argument's code: its position in the declared choices."""
    return list(get_api(api).arg(arg).type.choices).index(name)


CASES = [
    # BlockReduceMin: a contiguous mask (a count) set by the call itself, so isSetMask is true
    ("BlockReduceMin", {"mask": 5, "repeatTime": 3},
     {"mask.count": 5, "mask.bitwise": False, "repeatTime": 3, "isSetMask": True}),
    # a bitwise mask (a list of words)
    ("BlockReduceMin", {"mask": [3, 0]}, {"mask.bitwise": True, "mask.w0": 3, "mask.w1": 0, "isSetMask": True}),
    # the placeholder: the mask an earlier SetVectorMask set, so isSetMask is false
    ("BlockReduceMin", {"mask": "MASK_PLACEHOLDER"}, {"mask.placeholder": True, "isSetMask": False}),
    ("BlockReduceMin", {"isSetMask": False}, {"mask.placeholder": True, "isSetMask": False}),
    # LoadAlign: an enum by name, an optional argument (given: present), levels as an object of lists
    ("LoadAlign", {"dist": "DIST_US"}, {"dist": ("dist", "DIST_US")}),
    ("LoadAlign", {"postMode": "POST_MODE_UPDATE"},
     {"postMode.present": True, "postMode": ("postMode", "POST_MODE_UPDATE")}),
    ("LoadAlign", {"addrReg": {"strides": [1, 2], "indices": [0, 0]}},
     {"addrReg.present": True, "addrReg.levels": 2, "addrReg.stride0": 1, "addrReg.stride1": 2}),
]


@pytest.mark.parametrize("api, args, expected", CASES, ids=[f"{a}-{sorted(g)}" for a, g, _ in CASES])
def test_every_case_carries_the_arguments_held_fixed_and_is_valid(api, args, expected):
    want = {k: _code(api, *v) if isinstance(v, tuple) else v for k, v in expected.items()}
    drawn = _drawn(cases(api, product="atlas-350" if api == "LoadAlign" else "atlas-a2", args=args))
    assert drawn
    for case in drawn:
        assert {k: case.env[k] for k in want} == want
        result = check_case(case)
        assert result.valid, [v.id for v in result.violations]


@pytest.mark.parametrize("api, args, field, words", [
    ("LoadAlign", {"dist": "DIST_UZ"}, "args.dist", "DIST_US"),          # an enum name with a typo: did you mean
    ("BlockReduceMin", {"repeatTimes": 3}, "args.repeatTimes", "repeatTime"),  # an unknown argument
    ("BlockReduceMin", {"mask": "all"}, "args.mask", "MASK_PLACEHOLDER"),
    ("BlockReduceMin", {"repeatTime": "3"}, "args.repeatTime", "integer"),
])
def test_an_argument_no_case_could_hold_is_refused_naming_its_field(api, args, field, words):
    with pytest.raises(InvalidArgument) as got:
        cases(api, args=args)
    assert field in str(got.value) and words in str(got.value)


@pytest.mark.parametrize("api, kw, rule", [
    ("BlockReduceMin", {"args": {"repeatTime": 300}}, "block_reduce_min.repeatTime.range"),  # outside [0, 255]
    ("BlockReduceMin", {"args": {"mask": "MASK_PLACEHOLDER", "isSetMask": True}}, "block_reduce_min.mask.placeholder"),
    # 100 lanes: a 16-bit T has 128 per repeat, a 32-bit one 64
    ("BlockReduceMin", {"args": {"mask": 100}, "dtype": "float"}, "block_reduce_min.mask.count.range"),
    # a zero extent in the bit-mode form (the form the construction draws): page 002's range from 1 (in the
    # LoadData3DParamsV2 form it is the LoadData page's NOP, a warning: spec note load3d.zero-nop-350)
    ("Load3DBitMode", {"args": {"kStep": 0}}, "load3d.kStep.range"),
])
def test_arguments_that_break_a_rule_by_themselves_are_refused_naming_it(api, kw, rule):
    with pytest.raises(InvalidArgument) as got:
        cases(api, **kw)
    assert f"[{rule}]" in str(got.value)


def test_arguments_a_rule_refuses_on_some_types_only_draw_the_others():
    drawn = _drawn(cases("BlockReduceMin", args={"mask": 100}))
    assert drawn and {c.ctx.dtype.name for c in drawn} == {"half"}
    assert all(check_case(c).valid and c.env["mask.count"] == 100 for c in drawn)


def test_arguments_that_no_draw_can_complete_give_no_case_at_all():
    """addrReg and postMode belong to two prototypes of LoadAlign: no case has both (the form rule also reads the
    arguments left out, so only the draws can tell)."""
    with pytest.raises(Unsatisfiable):
        _drawn(cases("LoadAlign", product="atlas-350", args={"addrReg": {"strides": [1], "indices": [0]},
                                                             "postMode": "POST_MODE_UPDATE"}))


@pytest.mark.parametrize("kw, words", [
    ({"api": "BlockReduceMim"}, "BlockReduceMin"),                                   # did you mean
    ({"api": "BlockReduceMin", "product": "atlas-zz"}, "unknown product 'atlas-zz'"),
    ({"api": "BlockReduceMin", "dtype": "float8"}, "unknown element type"),
    ({"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "int32"}, "does not support T=int32"),
    ({"api": "BlockReduceMin", "dtype": "int8"}, "no product supports BlockReduceMin with T=int8"),
    ({"api": "SetFmatrix", "product": "atlas-a2"}, "SetFmatrix is not modelled on atlas-a2"),
])
def test_a_context_with_no_valid_case_is_refused_when_the_strategy_is_made(kw, words):
    """Unknown names, and a product or type the API does not support (per its support table, where every case would
    break the support rule), are refused at once instead of failing every draw."""
    with pytest.raises(InvalidArgument) as got:
        cases(**kw)
    assert words in str(got.value)


def test_a_type_without_products_draws_on_the_products_that_support_it():
    model = get_api("BlockReduceMin")
    want = {p for p, types in model.support.items() if "float" in types}
    assert want and want != set(model.support)  # some product supports BlockReduceMin without float
    drawn = _drawn(cases("BlockReduceMin", dtype="float"))
    assert {c.ctx.product.id for c in drawn} <= want and {c.ctx.dtype.name for c in drawn} == {"float"}


@pytest.mark.parametrize("make, words", [
    (lambda: values("float8", 4), "unknown element type 'float8'"),
    (lambda: values("half", -1), "integer >= 0"),
    (lambda: values("half", 2.5), "integer >= 0"),
    (lambda: invalid_cases("BlockReduceMin", "block_reduce_min.repeatTime.rang"), "block_reduce_min.repeatTime.range"),
])
def test_the_other_strategies_refuse_what_they_cannot_draw(make, words):
    with pytest.raises(InvalidArgument) as got:
        make()
    assert words in str(got.value)


def test_breaking_names_an_unknown_rule():
    case = _drawn(cases("BlockReduceMin", product="atlas-a2"))[0]
    with pytest.raises(InvalidArgument) as got:
        breaking(case, "block_reduce_min.repeatTime.rang")
    assert "did you mean" in str(got.value) and "block_reduce_min.repeatTime.range" in str(got.value)


def test_invalid_cases_with_a_type_draw_on_the_products_that_support_it():
    drawn = _drawn(invalid_cases("BlockReduceMin", "block_reduce_min.repeatTime.range", dtype="float"))
    assert drawn and {c.ctx.dtype.name for c in drawn} == {"float"}
    assert all([v.rule.id for v in check_case(c).violations] == ["block_reduce_min.repeatTime.range"] for c in drawn)


def test_breaking_reports_an_undecided_query_as_undecided_not_as_impossible():
    """A query that is not decided (here the time budget is spent) is neither a case nor "no case breaks the rule
    alone" (None): breaking raises Undecided; invalid_cases takes another draw instead."""
    case = _drawn(cases("BlockReduceMin", product="atlas-a2"))[0]
    rule = "block_reduce_min.repeatTime.range"
    assert breaking(case, rule) is not None  # decided: repeatTime = 256 breaks it alone
    with time_budget(0.0):
        with pytest.raises(Undecided):
            breaking(case, rule)


def test_breaking_falls_back_to_any_case_when_keeping_the_drawn_values_is_too_hard():
    """A drawn LoadDataWithStride case on atlas-350 (a fuzz campaign's, seed 1): breaking src.position alone needs
    arguments changed, and with most of them kept Z3 gave up after its whole 10 s timeout, so `breaking` raised
    Undecided and the strategy drew again (12 s for a 5-example item). Each query keeping drawn values now has
    NEAR_QUERY_MS, then one query keeps none: a case breaking that rule and no other comes back."""
    doc = {"api": "LoadDataWithStride", "product": "atlas-350", "dtype": "uint16",
           "args": {"kStep": 128, "mStep": 16, "kPos": 0, "mPos": 1184, "strideW": 63, "strideH": 63, "Wk": 2,
                    "Hk": 4, "dilationW": 108, "dilationH": 255, "filterW": False, "filterH": False,
                    "transpose": False, "fmatrixCtrl": False, "sizeChannel": 4,
                    "fmatrix": {"l1H": 16384, "l1W": 1, "padList": [243, 255, 255, 35], "padValue": 4},
                    "repeat": {"repeatStride": 12, "repeatTime": 4, "repeatMode": 0, "dstStride": 35},
                    "defaultConfig": {"isSetFMatrix": True, "isSetPadding": False}},
           "tensors": {"dst": {"position": "B2", "addr": 512, "size": 28928},
                       "src": {"position": "B1", "addr": 0, "size": 262144}}}
    case = parse_case(doc)
    assert check_case(case).valid
    rule = "load_data_with_stride.src.position"
    broken = breaking(case, rule)
    assert broken is not None
    assert [v.rule.id for v in check_case(broken).violations] == [rule]
    assert broken.tensor("src").position not in ("A1", "B1")


def test_breaking_asks_a_new_solver_once_the_cached_one_gave_up(monkeypatch):
    """The solver `breaking` keeps per (API, context, rule) once gave up even on the query keeping no value, after
    a hard query in an earlier test of the same process (CI, one run in three): `breaking` raised Undecided. The
    query keeping none now goes to a new solver, which also replaces the one that gave up."""
    doc = {"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
           "args": {"repeatTime": 2, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
           "tensors": {"dst": {"position": "VECCALC", "addr": 0, "size": 16},
                       "src": {"position": "VECCALC", "addr": 512, "size": 256}}}
    case = parse_case(doc)
    assert check_case(case).valid
    rule = "block_reduce_min.repeatTime.range"
    held = strategies_module._negation_space(case.model.name, case.ctx, rule)
    worn = held[1]
    real = strategies_module.decide
    asked = []

    def decide(s, lits=()):
        asked.append(s is worn)
        return "unknown" if s is worn else real(s, lits)

    monkeypatch.setattr(strategies_module, "decide", decide)
    broken = breaking(case, rule)
    assert broken is not None and [v.rule.id for v in check_case(broken).violations] == [rule]
    assert asked[0] is True and asked[-1] is False  # the worn solver first, then a new one
    assert held[1] is not worn

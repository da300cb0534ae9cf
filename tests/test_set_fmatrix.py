"""SetFmatrix: its arguments and rules, the register it sets, and the feature map a later Load3DBitMode reads from it
in a program (golden values reasoned here from page 002's example geometry)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import check_case, parse_case, run_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.cli import main
from ascverify.core.program import run_program
from ascverify.spec.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
FM_DATA = str(ROOT / "examples" / "program_load_data_with_stride_fm.npy")  # x[c,h,w] = 16c + 4h + w + 1, NC1HWC0
#: page 002's example: 32 channels (C1 = 2), 2x2 kernel, dilation 2, stride 1; with a 4x4 map padded by 1 on every
#: side, Ho = Wo = (4 + 2 - 2*(2-1) - 1) // 1 + 1 = 4: M = 16 rows, K = C1*Kh*Kw*C0 = 2*2*2*16 = 128 columns
LOAD_ARGS = {"kStep": 128, "mStep": 16, "kPos": 0, "mPos": 0, "strideW": 1, "strideH": 1, "Wk": 2, "Hk": 2,
             "dilationW": 2, "dilationH": 2, "filterW": False, "filterH": False, "transpose": False,
             "fmatrixCtrl": False, "sizeChannel": 32}
FMATRIX = {"l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1], "padValue": 0}


def set_fmatrix(dtype: str = "half", **args) -> dict:
    return {"api": "SetFmatrix", "product": "atlas-350", "dtype": dtype, "args": {**FMATRIX, **args}}


def broken(doc: dict) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).violations]


def program(*calls: dict, dtype: str = "half") -> dict:
    return {"product": "atlas-350", "dtype": dtype,
            "tensors": {"fm": {"position": "A1", "addr": 0, "size": 512, "data": FM_DATA},
                        "a2": {"position": "A2", "addr": 0, "size": 2048}},
            "calls": list(calls)}


def fm_call(**args) -> dict:
    return {"api": "SetFmatrix", "args": {**FMATRIX, **args}}


def load_call(**args) -> dict:
    return {"api": "Load3DBitMode", "args": {**LOAD_ARGS, **args}, "tensors": {"dst": "a2", "src": "fm"}}


def found(result) -> tuple[list, list]:
    return [(v.call, v.id) for v in result.violations], [(w.call, w.id) for w in result.warnings]


# -- the call on its own ----------------------------------------------------------------------------------------------

def test_flat_and_struct_forms_read_alike_and_round_trip():
    flat = parse_case(set_fmatrix())
    nested = parse_case({**set_fmatrix(), "args": {"fmatrix": FMATRIX}})
    assert flat.env == nested.env
    assert flat.arg("fmatrix") == FMATRIX
    assert parse_case(flat.to_json()).env == flat.env
    # padValue may be left out: LoadData3DParamsV2's default 0
    no_pad = {k: v for k, v in FMATRIX.items() if k != "padValue"}
    assert parse_case({**set_fmatrix(), "args": no_pad}).env == flat.env


def test_fmatrix_mode_right_is_what_the_vendor_s_implementation_says():
    """The vendor's SetFmatrix page: SetFmatrix(l1H, l1W, padList, fmatrixMode), 'only FMATRIX_LEFT is currently
    supported'; the loads read the left feature map (fmatrixCtrl = false). Its shipping code sets FMATRIX_RIGHT
    (conv3d backprop on dav_v220, the matmul library's B load) and its implementation writes the right register on
    dav_c220 / dav_m300 / dav_3510, reporting the mode as not supported on dav_c100 and dav_m200 (vendor corpus hunt
    46): a warning where it is written, an error where it is not supported."""
    left = parse_case(set_fmatrix(fmatrixMode="FMATRIX_LEFT"))
    assert check_case(left).valid and left.env == parse_case(set_fmatrix()).env
    for product, error in (("atlas-350", False), ("atlas-a2", False), ("atlas-a3", False),
                           ("atlas-200i-500-a2", False), ("atlas-inference-aicore", True), ("atlas-training", True)):
        got = check_case(parse_case({**set_fmatrix(fmatrixMode="FMATRIX_RIGHT"), "product": product}))
        assert ("set_fmatrix.fmatrixMode.left" in [v.id for v in got.violations]) == error, product
        assert ("set_fmatrix.fmatrixMode.right" in [w.id for w in got.warnings]) == (not error), product
    # a right feature map is not the one a later load reads: that load has none (a warning)
    result = check_program(parse_program(program(fm_call(fmatrixMode="FMATRIX_RIGHT"), load_call())))
    assert found(result) == ([], [(0, "set_fmatrix.fmatrixMode.right"), (1, "load3d.fmatrix.unset")])


@pytest.mark.parametrize("args, field", [
    ({"l1H": 4, "l1W": 4}, "args.fmatrix.padList"),                     # padList is an argument of SetFmatrix
    ({**FMATRIX, "fmatrix": FMATRIX}, "args.l1H"),                       # both forms at once
    ({**FMATRIX, "l1h": 4}, "args.l1h"),                                 # misspelt
    ({**FMATRIX, "padList": [1, 2, 3]}, "args.fmatrix.padList"),
    ({**FMATRIX, "l1W": True}, "args.fmatrix.l1W"),
])
def test_unreadable_arguments_name_the_field(args, field):
    with pytest.raises(InputError) as exc:
        parse_case({**set_fmatrix(), "args": args})
    assert exc.value.field == field


def test_rules_with_golden_verdicts():
    assert broken(set_fmatrix()) == []
    assert broken(set_fmatrix(l1H=32767, l1W=1, padList=[0, 255, 0, 255])) == []  # the ends of the ranges
    assert broken(set_fmatrix(l1H=0)) == ["set_fmatrix.fmatrix.l1H.range"]
    assert broken(set_fmatrix(l1W=32768)) == ["set_fmatrix.fmatrix.l1W.range"]
    assert broken(set_fmatrix(padList=[0, 0, 256, 0])) == ["set_fmatrix.fmatrix.padList2.type"]  # uint8
    # padValue is of type T: int8 holds [-128, 127]
    assert broken(set_fmatrix("int8", padValue=127)) == []
    assert broken(set_fmatrix("int8", padValue=-129)) == ["set_fmatrix.fmatrix.padValue.range"]
    # the vendor's SetFmatrix page: not supported on the training series and the inference Vector Core
    assert broken(set_fmatrix() | {"product": "atlas-training"}) == ["set_fmatrix.product.support"]
    assert broken(set_fmatrix() | {"product": "atlas-inference-vectorcore"}) == ["set_fmatrix.product.support"]
    # ... supported on atlas-a2 (and A3, 200I/500 A2, the inference AI Core), where ascverify does not model it: a
    # warning, and the argument rules still hold
    got = check_case(parse_case(set_fmatrix() | {"product": "atlas-a2"}))
    assert got.valid and [w.id for w in got.warnings] == ["set_fmatrix.product.modelled"]
    assert broken(set_fmatrix(l1H=0) | {"product": "atlas-a2"}) == ["set_fmatrix.fmatrix.l1H.range"]


def test_run_sets_the_feature_map_register():
    res = run_case(parse_case(set_fmatrix(l1H=7, padList=[1, 2, 3, 4], padValue=-5)))
    assert not res.faults and res.tensors == {}
    assert res.memory.special["fmatrix"] == {"l1H": 7, "l1W": 4, "padList": [1, 2, 3, 4], "padValue": -5,
                                             "dtype": "half"}


# -- the feature map a later load reads -----------------------------------------------------------------------------

def test_a_load_after_set_fmatrix_computes_what_it_computes_with_the_map_itself():
    run = run_program(parse_program(program(fm_call(), load_call())))
    direct = parse_case({"api": "Load3DBitMode", "product": "atlas-350", "dtype": "half",
                         "args": {**LOAD_ARGS, "fmatrix": FMATRIX},
                         "tensors": {"dst": {"position": "A2", "addr": 0, "size": 2048},
                                     "src": {"position": "A1", "addr": 0, "size": 512, "data": FM_DATA}}})
    expected = run_case(direct).tensors["dst"]
    got = run.runs[1].tensors["dst"]
    assert not run.faults and np.array_equal(got, expected)
    # NZ with one row of fractals: fractal k1 holds columns 16*k1 .. 16*k1+15, row-major. Row 0 is output (0, 0):
    # input (-1 + 2*kh, -1 + 2*kw), only tap (1, 1) inside, at x[:, 1, 1] = 16c + 6; it is column group kh*2 + kw = 3
    # of channel group c1 = 0, i.e. fractal 3; the other taps read padding (0)
    c = np.arange(16)
    assert np.array_equal(got[3 * 256: 3 * 256 + 16], 16 * c + 6)
    assert np.array_equal(got[0:16], np.zeros(16))
    assert run.memory.special["fmatrix"]["l1H"] == 4


def test_the_state_feature_map_is_the_one_checked():
    # without SetFmatrix: the load's bounds are not checked, and the program says why (a warning, not an error)
    result = check_program(parse_program(program(load_call())))
    assert found(result) == ([], [(0, "load3d.fmatrix.unset")])
    assert {(u.call, u.rule_id) for u in result.unchecked} == {(0, "load3d.window.m_bounds"), (0, "load3d.window.k_bounds"),
                                                              (0, "load3d.src.footprint")}
    # with it: no note, and the map it set is checked; l1H = 8 needs C1*l1H*l1W*C0 = 2*8*4*16 = 1024 > 512 elements
    assert found(check_program(parse_program(program(fm_call(), load_call())))) == ([], [])
    result = check_program(parse_program(program(fm_call(l1H=8), load_call())))
    assert found(result) == ([(1, "load3d.src.footprint")], []) and not result.unchecked


def test_the_last_set_fmatrix_wins_over_the_loads_own_description():
    own = copy.deepcopy(load_call())
    own["args"]["fmatrix"] = FMATRIX  # fits src (2*4*4*16 = 512 elements)
    result = check_program(parse_program(program(fm_call(), fm_call(l1H=8), own)))
    # the register holds l1H = 8: the map no longer fits src, and the load's own (different) description is flagged
    assert found(result) == ([(2, "load3d.src.footprint")], [(2, "load3d.fmatrix.differs")])
    assert "l1H: 4" in result.warnings[0].message and "l1H: 8" in result.warnings[0].message
    # the same description as the register: nothing to say
    assert found(check_program(parse_program(program(fm_call(), own)))) == ([], [])


#: the load of LOAD_ARGS in LoadData3DParamsV2's member names, with its own feature map (FMATRIX)
V2_LOAD = {"kExtension": 128, "mExtension": 16, "kStartPt": 0, "mStartPt": 0, "strideW": 1, "strideH": 1,
           "filterW": 2, "filterH": 2, "dilationFilterW": 2, "dilationFilterH": 2, "enTranspose": False,
           "fMatrixCtrl": False, "channelSize": 32, **FMATRIX}


def v2_call(**args) -> dict:
    return {"api": "Load3DBitMode", "args": {**V2_LOAD, **args}, "tensors": {"dst": "a2", "src": "fm"}}


#: a V2 load at call 1 of a program without SetLoadDataRepeat: its repeat fields were never set (the LoadData page:
#: on Ascend 950 it needs SetLoadDataRepeat; spec note set_load_data_repeat_v2.program)
UNSET = (1, "load3d.repeat.v2_unset")


def test_a_v2_load_sets_its_own_feature_map_by_default():
    """LoadData<T, defaultConfig>(dst, src, LoadData3DParamsV2): defaultConfig is {true, true} by default, and
    LoadDataImpl then writes the call's own l1H, l1W, padList (and padValue) to the registers before it loads (the
    LoadData page's V2 prototype; kernel_operator_mm_base_impl.h). A SetFmatrix of another shape before it is not
    read: here one whose 2 x 2 map a 2 x 2 kernel of dilation 2 cannot cover (Ho = 2 - 2*(2-1) - 1 + 1 = -1)."""
    prog = program(fm_call(l1H=2, l1W=2, padList=[0, 0, 0, 0]), v2_call())
    assert found(check_program(parse_program(prog))) == ([], [UNSET])
    run = run_program(parse_program(prog))
    direct = parse_case({"api": "Load3DBitMode", "product": "atlas-350", "dtype": "half",
                         "args": {**LOAD_ARGS, "fmatrix": FMATRIX},
                         "tensors": {"dst": {"position": "A2", "addr": 0, "size": 2048},
                                     "src": {"position": "A1", "addr": 0, "size": 512, "data": FM_DATA}}})
    assert not run.faults and np.array_equal(run.runs[1].tensors["dst"], run_case(direct).tensors["dst"])
    # the call leaves its map in the register: a bit-mode load after it (page names, no map) reads l1H = l1W = 4
    assert run.memory.special["fmatrix"]["l1H"] == 4
    after = program(fm_call(l1H=2, l1W=2, padList=[0, 0, 0, 0]), v2_call(), load_call())
    assert found(check_program(parse_program(after))) == ([], [UNSET])


def test_a_v2_load_with_false_reads_set_fmatrix_s_map():
    """defaultConfig {false, false} (the vendor's SetFmatrix / SetFmatrixBitMode page examples: LOAD3D_CONFIG):
    the call's own l1H, l1W, padList have no effect, the load reads SetFmatrix's 2 x 2 map, which the window passes."""
    prog = program(fm_call(l1H=2, l1W=2, padList=[0, 0, 0, 0]),
                   v2_call(defaultConfig={"isSetFMatrix": False, "isSetPadding": False}))
    errors, warnings = found(check_program(parse_program(prog)))
    assert (1, "load3d.window.m_bounds") in errors and warnings == [(1, "load3d.fmatrix.differs"), UNSET]
    # {false, true}: SetFmatrix's map with the call's own padding value (checked against T: 300 is no int8)
    prog = program(fm_call(), {**v2_call(defaultConfig={"isSetFMatrix": False}, padValue=300), "dtype": "int8"})
    prog["tensors"]["a2"]["dtype"] = prog["tensors"]["fm"]["dtype"] = "int8"
    del prog["tensors"]["fm"]["data"]
    assert (1, "load3d.fmatrix.padValue.range") in found(check_program(parse_program(prog)))[0]


def test_a_default_config_v2_load_without_a_map_resets_it():
    """With the default config and no l1H, l1W, padList of its own the call writes LoadData3DParamsV2's zeros: l1H =
    0 is a NOP (the LoadData page, Table 4), and the map SetFmatrix set is gone for later loads."""
    bare = {k: x for k, x in V2_LOAD.items() if k not in FMATRIX}
    prog = program(fm_call(), {**v2_call(), "args": bare}, load_call())
    result = check_program(parse_program(prog))
    assert found(result) == ([], [(1, "load3d.fmatrix.reset"), UNSET, (2, "load3d.fmatrix.unset")])
    # the bit-mode form reads the register unless the case says otherwise: with {true, ...} and no map of its own
    # it resets it too
    page = program(fm_call(), load_call(defaultConfig={"isSetFMatrix": True}))
    assert found(check_program(parse_program(page))) == ([], [(1, "load3d.fmatrix.reset"), UNSET])
    assert found(check_program(parse_program(program(fm_call(), load_call())))) == ([], [])


def test_the_stored_pad_value_is_checked_against_the_loads_type():
    # 300 is a half; as int8 (range [-128, 127]) it is not: the load, not the setter, breaks the rule
    prog = program(fm_call(padValue=300), {**load_call(), "dtype": "int8"})
    prog["tensors"]["a2"]["dtype"] = prog["tensors"]["fm"]["dtype"] = "int8"
    del prog["tensors"]["fm"]["data"]
    assert found(check_program(parse_program(prog))) == ([(1, "load3d.fmatrix.padValue.range")], [])


def test_program_input_errors_name_the_call():
    r = CliRunner().invoke(main, ["check", "-"], input=json.dumps(program(fm_call(l1H="tall"), load_call())))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "calls[0].args.fmatrix.l1H" in r.output


def test_a_v2_load_that_sets_its_map_but_not_its_padding_keeps_the_register_s_pad_value():
    """defaultConfig {true, false}: LoadDataImpl writes l1H, l1W, padList from the call (Load3DSetFMatrixCal) but not
    the padding value (Load3DSetPaddingCal runs only with isSetPadding): the padding positions hold the value the
    register holds, 5 here (SetFmatrix's), not the call's own 0. Row 0 of the window is output (0, 0): only tap (1, 1)
    reads the map, the other taps read padding."""
    prog = program(fm_call(padValue=5), v2_call(defaultConfig={"isSetFMatrix": True, "isSetPadding": False}))
    assert found(check_program(parse_program(prog))) == ([], [UNSET])
    got = run_program(parse_program(prog)).runs[1].tensors["dst"]
    assert np.array_equal(got[0:16], np.full(16, 5.0))           # tap (0, 0) of channel group 0: padding
    assert np.array_equal(got[3 * 256: 3 * 256 + 16], 16 * np.arange(16) + 6)   # tap (1, 1): x[:, 1, 1]
    # {true, true} (the default): the call's own padding value, 0
    own = run_program(parse_program(program(fm_call(padValue=5), v2_call()))).runs[1].tensors["dst"]
    assert np.array_equal(own[0:16], np.zeros(16))

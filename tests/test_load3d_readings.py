"""Readings of issue 12 for the Load3D family that are verdicts rather than bytes: the multiples by element width
(2f; page 002 names half and int8/uint8 only, the vendor's LoadData3DParamsV2 table gives the rest by width), 8-bit
types into B2, pyasc's names (2g), and the spec notes behind them (2a-2i: each names both its sources)."""

from __future__ import annotations

import pytest

from ascverify import check_case, get_api, parse_case, run_case
from ascverify.spec.errors import InputError
from ascverify.spec.registry import lookup_api

C0 = {"half": 16, "bfloat16": 16, "int8": 32, "uint8": 32, "fp8_e5m2": 32, "hifloat8": 32, "float": 8, "int32": 8}


def doc(api: str, dtype: str, dst_pos: str = "A2", **args) -> dict:
    """A 3 x 3 map, 1x1 kernel: Ho*Wo = 9 rows (ceil16: 16), K = C0 (one group of sizeChannel = C0 channels)."""
    c0 = C0[dtype]
    base = {"kStep": c0, "mStep": 16, "kPos": 0, "mPos": 0, "strideW": 1, "strideH": 1, "Wk": 1, "Hk": 1,
            "dilationW": 1, "dilationH": 1, "sizeChannel": c0}
    return {"api": api, "product": "atlas-350", "dtype": dtype, "args": {**base, **args},
            "tensors": {"dst": {"position": dst_pos, "addr": 0, "size": 4096 // (32 // c0)},
                        "src": {"position": "A1" if dst_pos == "A2" else "B1", "addr": 0, "size": 64 * c0}}}


def verdict(d: dict) -> tuple[list[str], list[str]]:
    r = check_case(parse_case(d))
    return [v.id for v in r.violations], [w.id for w in r.warnings]


# -- 2f: the multiples by width ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["half", "int8", "uint8"])
def test_m_multiples_for_the_types_the_page_names(dtype):
    # mStep: page 002 and the vendor's newest page agree (an error); mPos: the newest page dropped page 002's multiple
    # and the bit-mode implementation checks none (a warning)
    assert verdict(doc("Load3DBitMode", dtype, mStep=8)) == (["load3d.mStep.multiple"], [])
    assert verdict(doc("Load3DBitMode", dtype, mPos=8)) == ([], ["load3d.mPos.multiple"])


@pytest.mark.parametrize("dtype", ["bfloat16", "fp8_e5m2", "hifloat8"])
def test_other_8_and_16_bit_types_mstep_by_width_mpos_a_warning(dtype):
    # vendor LoadData3DParamsV2 table: mExtension a multiple of 16 for b4/b8/b16; mStartPt: no multiple at all
    assert verdict(doc("Load3DBitMode", dtype, mStep=8)) == (["load3d.mStep.multiple"], [])
    assert verdict(doc("Load3DBitMode", dtype, mPos=8)) == ([], ["load3d.mPos.multiple_unnamed"])


@pytest.mark.parametrize("dtype", ["float", "int32"])
def test_32_bit_types_have_a_free_m_axis(dtype):
    # vendor: 'b32类型无要求' for mExtension; page 002 names no 32-bit type; mPos: a warning where no source speaks
    assert verdict(doc("Load3DBitMode", dtype, mStep=8)) == ([], [])
    assert verdict(doc("Load3DBitMode", dtype, mPos=8)) == ([], ["load3d.mPos.multiple_unnamed"])
    # K follows C0 = 8 for every 32-bit type (vendor: kExtension / kStartPt multiples of 8 for b32)
    assert verdict(doc("Load3DBitMode", dtype, kStep=4)) == (["load3d.kStep.multiple"], [])
    # without fmatrix no coverage can be seen: both K multiples are required
    assert verdict(doc("Load3DBitMode", dtype, kPos=4, kStep=4)) == (["load3d.kPos.multiple", "load3d.kStep.multiple"],
                                                                      [])


@pytest.mark.parametrize("dtype", ["float", "bfloat16", "int8"])
def test_load_data_with_stride_keeps_its_cpu_checks_for_every_type(dtype):
    # asc-devkit kernel_operator_mm_base_impl.h, LoadDataWithStrideImpl: mExtension % 16 == 0, mStartPt % 16 == 0
    assert verdict(doc("LoadDataWithStride", dtype, mStep=8))[0] == ["load_data_with_stride.mStep.multiple"]
    assert verdict(doc("LoadDataWithStride", dtype, mPos=8))[0] == ["load_data_with_stride.mPos.multiple"]


# -- 8-bit types into B2 --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "uint8", "fp8_e5m2", "hifloat8"])
def test_8_bit_into_b2(dtype):
    # LoadDataWithStride.md's data types leave b8 out of B1 -> B2; its own example does it (scenarios 1-2): a warning
    assert verdict(doc("LoadDataWithStride", dtype, dst_pos="B2")) == ([], ["load_data_with_stride.b8.b2"])
    # page 002 Table 1 and LoadData_3D_BitMode.md: the ten types, both paths
    assert verdict(doc("Load3DBitMode", dtype, dst_pos="B2")) == ([], [])
    assert verdict(doc("LoadDataWithStride", "half", dst_pos="B2")) == ([], [])


# -- 2g: pyasc's names ----------------------------------------------------------------------------------------------

PYASC = {"pad_list": [0, 0, 0, 0], "l1_h": 3, "l1_w": 3, "channel_size": 16, "k_extension": 16, "m_extension": 16,
         "k_start_pt": 0, "m_start_pt": 0, "stride_w": 1, "stride_h": 1, "filter_w": 1, "filter_h": 1,
         "dilation_filter_w": 1, "dilation_filter_h": 1, "en_transpose": False, "pad_value": 0,
         "filter_size_w": False, "filter_size_h": False, "f_matrix_ctrl": False}
CPP = {"padList": [0, 0, 0, 0], "l1H": 3, "l1W": 3, "channelSize": 16, "kExtension": 16, "mExtension": 16,
       "kStartPt": 0, "mStartPt": 0, "strideW": 1, "strideH": 1, "filterW": 1, "filterH": 1, "dilationFilterW": 1,
       "dilationFilterH": 1, "enTranspose": False, "padValue": 0, "filterSizeW": False, "filterSizeH": False,
       "fMatrixCtrl": False}


def with_args(api: str, args: dict) -> dict:
    d = doc(api, "half")
    d["args"] = args
    return d


def test_pyasc_load_data_and_its_keywords():
    """pyasc python/asc/language/basic/mm.py: load_data(dst, src, LoadData3DParamsV2); the keywords and their order
    are pyasc python/asc/language/core/types.py's LoadData3DParamsV2.__init__."""
    assert lookup_api("load_data") is get_api("Load3DBitMode")
    assert lookup_api("asc.language.basic.load_data") is get_api("Load3DBitMode")
    py = parse_case(with_args("load_data", PYASC))
    cpp = parse_case(with_args("Load3DBitMode", CPP))
    assert py.env == cpp.env and check_case(py).valid
    # the keywords beside the register; pyasc's defaults for those left out (l1_h = l1_w = channel_size = 1 ...)
    short = parse_case(with_args("load_data", {"k_extension": 16, "m_extension": 16, "channel_size": 16,
                                               "repeat": {"dstStride": 1}}))
    assert (short.env["fmatrix.present"], short.env["fmatrix.l1H"], short.env["fmatrix.l1W"]) == (True, 1, 1)
    assert (short.env["strideW"], short.env["Wk"], short.env["repeat.dstStride"]) == (1, 1, 1)
    assert not run_case(short).faults
    # LoadDataWithStride takes the same struct
    assert parse_case(with_args("LoadDataWithStride", PYASC)).env["kStep"] == 16


@pytest.mark.parametrize("args, field, says", [
    ({**PYASC, "kStep": 16}, "args.kStep", "one form"),
    ({"k_extension": 16, "strideW": 1}, "args.strideW", "pyasc's spelling"),
    ({"k_extension": "16"}, "args.k_extension", "expected an integer"),
    ({"k_extension": 16, "pad_list": [1, 1]}, "args.pad_list", "list of 4"),
    ({"k_extension": 16, "fmatrix": {"l1H": 3, "l1W": 3}}, "args.fmatrix", "not fmatrix"),
    ({"k_extensoin": 16}, "args.k_extensoin", "did you mean 'k_extension'?"),
])
def test_pyasc_keywords_refused_name_the_field(args, field, says):
    with pytest.raises(InputError) as info:
        parse_case(with_args("load_data", args))
    assert info.value.field == field and says in info.value.message, info.value.line()


def test_set_load_data_repeat_is_not_an_alias_of_the_with_stride_setter():
    # pyasc's set_load_data_repeat is SetLoadDataRepeat (LoadDataRepeatParam: no dstStride), another API than
    # SetLoadDataRepeatWithStride (atlas-350's register setter, which pyasc does not have)
    assert lookup_api("set_load_data_repeat").name == "SetLoadDataRepeat"
    assert lookup_api("asc.set_load_data_repeat").name == "SetLoadDataRepeat"
    assert "dstStride" not in lookup_api("set_load_data_repeat").arg_spellings["pyasc"]


# -- the spec notes name both their sources ---------------------------------------------------------------------

@pytest.mark.parametrize("note_id, page, vendor", [
    ("load3d.transpose", "002_70a359bc6af47a68.txt Table 5, transpose", "LoadDataWithStride (asc-devkit docs)"),
    ("load3d.output", "003_6cb328d34acb8cee.txt 表2 LoadDataRepeatParamWithStride, dstStride",
     "dav_3510/kernel_operator_mm_impl.h"),
    ("load3d.repeat", "002_70a359bc6af47a68.txt Function Usage", "kernel_operator_mm_base_impl.h"),
    ("load3d.multiples", "002_70a359bc6af47a68.txt Table 4, mPos",
     "LoadData, convolution data movement (asc-devkit docs)"),
    ("load3d.pyasc", "002_70a359bc6af47a68.txt Table 3", "pyasc python/asc/language/core/types.py"),
    ("load3d.b8-b2", "002_70a359bc6af47a68.txt Table 1, T", "LoadDataWithStride (asc-devkit docs) (data types)"),
])
def test_notes_name_the_page_and_the_vendor_file(note_id, page, vendor):
    note = next(n for n in get_api("Load3DBitMode").notes if n.id == note_id)
    assert any(s.startswith(page) for s in note.sources), note.sources
    assert any(vendor in s for s in note.sources), note.sources


def test_every_reading_of_load_data_with_stride_has_its_note():
    model = get_api("LoadDataWithStride")
    notes = {n.id: n for n in model.notes}
    assert "load_data_with_stride.b8.b2" in notes["load_data_with_stride.b8-b2"].rules
    assert "load_data_with_stride.dstStride.overlap" in notes["load3d.overlap"].rules
    for r in model.rules:
        for n in r.notes:
            assert n in notes, (r.id, n)

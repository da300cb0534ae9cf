"""Rules cite the vendor page that states them, and say on what they rest (review 75 of the rule base).

The reviewer found rules citing only the project's hardware notes where a vendor page states the fact, rules
citing a page section that does not say what they claim, the vendor's general overlap page never cited, rules that
no case can break, and BlockReduceMin out of step with the two other ReduceDataBlock calls.
"""

from __future__ import annotations

import pytest

from ascverify import check_case, get_api, parse_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program

OVERLAP_PAGE = "General Address Overlap Restrictions"


@pytest.mark.parametrize("api", ["BlockReduceMin", "BlockReduceMax", "BlockReduceSum"])
def test_every_reduce_data_block_call_cites_the_vendor_page_for_support_and_no_ops(api):
    # the ReduceDataBlock page lists the products and types, and says mask or repeatTime 0 is a no-op on A2/A3
    model = get_api(api)
    p = model.prefix
    for rule in ("product.support", "dtype.support", "repeatTime.zero", "mask.zero", "noop"):
        assert "ReduceDataBlock (asc-devkit docs)" in model.rule_by_id[f"{p}.{rule}"].citation, rule
    # the in-place rule names the general overlap page it departs from (spec note in-place says why)
    assert OVERLAP_PAGE in model.rule_by_id[f"{p}.dst.src.in_place"].citation


def test_block_reduce_min_note_says_what_its_rules_do():
    # its spec note said repeatTime = 0 was "silent" off atlas-a2/a3/350 while repeatTime.zero warns there
    model = get_api("BlockReduceMin")
    zero = model.rule_by_id["block_reduce_min.repeatTime.zero"]
    assert zero.applies("atlas-training") and not zero.applies("atlas-350")
    note = next(n for n in model.notes if n.id == "block_reduce_min.noop")
    assert "every product but atlas-350" in note.reading and "silent" not in note.reading


def test_bilinear_overlap_rules_cite_the_general_overlap_page():
    model = get_api("BilinearInterpolation")
    for rid in ("bilinear.dst.src0.disjoint", "bilinear.dst.src1.disjoint", "bilinear.dst.src0Offset.disjoint",
                "bilinear.dst.hazard", "bilinear.dst.src0.hazard"):
        citation = model.rule_by_id[rid].citation
        assert OVERLAP_PAGE in citation and "page silent" not in citation, rid
    note = next(n for n in model.notes if n.id == "bilinear.hazard-order")
    assert "general address overlap" in note.why


def test_bilinear_has_no_rule_about_wide_operands():
    # BilinearInterpolation takes half only: rules about 32- and 64-bit operands' mask words can never fire
    model = get_api("BilinearInterpolation")
    assert all(dt == ("half",) for dt in (tuple(model.support[p]) for p in model.support))
    assert "bilinear.mask.words.width" not in model.rule_by_id and "bilinear.mask.words.high" not in model.rule_by_id
    assert "bilinear.mask.words.nonzero" in model.rule_by_id


def test_bilinear_implementation_limits_cite_the_implementation_first():
    model = get_api("BilinearInterpolation")
    for rid in ("bilinear.hvRepeat.range", "bilinear.c220_rep_strides", "bilinear.src1.brcb_size"):
        assert model.rule_by_id[rid].citation.startswith("asc-devkit impl/basic_api/dav_c220/"), rid


def test_load_data_with_stride_multiples_name_the_page_that_is_looser():
    # mExtension = 9 covering the bottom fractal: the vendor's table allows it, the implementation asserts a
    # multiple of 16 (the hardware notes' "own checks"): an error whose message says both
    doc = {"product": "atlas-350", "dtype": "half",
           "tensors": {"fm": {"position": "A1", "addr": 0, "size": 288},
                       "a2": {"position": "A2", "addr": 0, "size": 2048}},
           "calls": [{"api": "SetFmatrix", "args": {"l1H": 3, "l1W": 3, "padList": [1, 1, 1, 1], "padValue": 0}},
                     {"api": "SetLoadDataRepeatWithStride",
                      "args": {"repeatStride": 0, "repeatTime": 1, "repeatMode": 0, "dstStride": 1}},
                     {"api": "LoadDataWithStride",
                      "args": {"channelSize": 32, "kExtension": 128, "mExtension": 9, "kStartPt": 0, "mStartPt": 0,
                               "strideW": 1, "strideH": 1, "filterW": 2, "filterH": 2, "dilationFilterW": 2,
                               "dilationFilterH": 2, "defaultConfig": {"isSetFMatrix": False, "isSetPadding": False}},
                      "tensors": {"dst": "a2", "src": "fm"}}]}
    result = check_program(parse_program(doc))
    found = result.violations
    assert [v.id for v in found] == ["load_data_with_stride.mStep.multiple"]
    message = found[0].message
    assert "implementation asserts mExtension % 16 == 0" in message and "load_data_with_stride.multiples" in message
    assert "LoadDataWithStride (asc-devkit docs)" in found[0].rule.citation


def test_fmatrix_members_cite_the_set_fmatrix_page():
    model = get_api("Load3DBitMode")
    for rid in ("load3d.fmatrix.l1H.range", "load3d.fmatrix.l1W.range"):
        assert model.rule_by_id[rid].citation.startswith("SetFmatrix (asc-devkit docs), Parameters"), rid


def test_dual_load_into_one_register_is_an_error():
    # two stores of one call to the same register: which half it keeps is not documented (docs/severity.md)
    doc = {"api": "LoadAlignRegTensor", "product": "atlas-350", "dtype": "int8",
           "args": {"dstReg": 3, "dstReg1": 3, "dist": "DIST_DINTLV_B8"},
           "tensors": {"srcAddr": {"position": "VECIN", "addr": 0, "size": 512}}}
    result = check_case(parse_case(doc))
    assert [v.id for v in result.violations] == ["reg_load_align_vreg.dual.registers"]

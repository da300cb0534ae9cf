"""BilinearInterpolation with a mask that enables no lane (the documentation census's G1 / G2).

Expected, from the vendor's material: the newest Mask overview page (to which the BilinearInterpolation page sends
mask) gives mask in [0, 128] and each word in [0, 2^64-1], calls mask = 0 a NOP and says dst keeps its values; the
SetVectorMask page names Atlas A3 / A2. The dav_c220 implementation runs Gatherb (src0 by src0Offset into
sharedTmpBuffer), Brcb (src1 into sharedTmpBuffer) and a Counter-mode Mul without the call's mask; only the Add of
the horizontal iterations and the Adds to dst take it. So on atlas-a2 / a3 such a call stores no byte of dst, still
reads the three sources and writes sharedTmpBuffer. Page 000's range from 1 stands on the other products.
"""

from __future__ import annotations

import pytest

from ascverify import check_case, parse_case, run_case

# the BilinearInterpolation page's own call (hRepeat 2, vRepeat 2), as the documentation census's entries place it:
# dst at 0 (256 halves), src0 at 512, src1 at 1536, src0Offset at 1568, sharedTmpBuffer at 1696 (16896 bytes)
TENSORS = {"dst": {"position": "VECOUT", "addr": 0, "size": 256},
           "src0": {"position": "VECIN", "addr": 512, "size": 512},
           "src1": {"position": "VECIN", "addr": 1536, "size": 16},
           "src0Offset": {"position": "VECIN", "addr": 1568, "size": 32},
           "sharedTmpBuffer": {"position": "VECCALC", "addr": 1696, "size": 16896}}
DST = (0, 512)
TMP = (1696, 1696 + 16896)


def case(product: str, mask) -> dict:
    return {"api": "BilinearInterpolation", "product": product, "dtype": "half", "tensors": TENSORS,
            "args": {"mask": mask, "hRepeat": 2, "repeatMode": False, "dstBlkStride": 1, "vROffset": 128,
                     "vRepeat": 2}}


@pytest.mark.parametrize("product", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("mask", [0, [0, 0]])
def test_no_lane_is_a_warning_where_the_mask_page_calls_it_a_nop(product, mask):
    result = check_case(parse_case(case(product, mask)))
    assert result.valid and {w.id for w in result.warnings} >= {"bilinear.mask.zero"}


@pytest.mark.parametrize("product", ["atlas-350", "atlas-inference-aicore"])
def test_no_lane_stays_an_error_elsewhere(product):
    assert {v.id for v in check_case(parse_case(case(product, 0))).violations} == {"bilinear.mask.count.range"}
    assert {v.id for v in check_case(parse_case(case(product, [0, 0]))).violations} == {"bilinear.mask.words.nonzero"}


@pytest.mark.parametrize("mask", [0, [0, 0]])
def test_the_nop_stores_nothing_to_dst_but_still_fills_the_temporary_buffer(mask):
    run = run_case(parse_case(case("atlas-a2", mask)))
    assert not run.faults
    stored = run.trace.stored("UB")
    read = run.trace.footprint("read", "UB")
    assert not stored[DST[0]:DST[1]].any()
    assert stored[TMP[0]:TMP[1]].any()
    assert read[512:1024].any() and read[1536:1568].any() and read[1568:1696].any()  # src0, src1, src0Offset
    # the same call with every lane: dst is stored (so the check above can fail)
    full = run_case(parse_case(case("atlas-a2", 128)))
    assert full.trace.stored("UB")[DST[0]:DST[1]].any()


def test_the_rules_about_dst_stores_do_not_judge_the_nop():
    """With no lane nothing reaches dst: a dst of 16 elements (one block; the call would store 8 blocks per vertical
    iteration) and blocks 8 apart with vROffset 128 (iteration 1 on iteration 0's block 1) break dst.size and
    dst.vertical_overlap under a mask of 128 lanes, not under a mask of none, which the core runs without a fault."""
    def small(mask):
        doc = case("atlas-a2", mask)
        doc["args"]["dstBlkStride"] = 8
        doc["tensors"] = {**TENSORS, "dst": {"position": "VECOUT", "addr": 0, "size": 16}}
        return parse_case(doc)
    full = {v.id for v in check_case(small(128)).violations}
    assert {"bilinear.dst.size", "bilinear.dst.vertical_overlap"} <= full
    for mask in (0, [0, 0]):
        result = check_case(small(mask))
        assert result.valid and "bilinear.mask.zero" in {w.id for w in result.warnings}
        run = run_case(small(mask))
        assert not run.faults and not run.trace.stored("UB")[DST[0]:DST[1]].any()

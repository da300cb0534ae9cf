"""BilinearInterpolation: the page's example, each rule on hand-made cases, core semantics, model/core agreement."""

from __future__ import annotations

import copy
import json
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import check_case, check_cases, parse_case, read_cases, run_case, strategies
from ascverify.engines.properties.invariants import check_invariants
from ascverify.models.bilinear import vertical_overlap

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bilinear_interpolation.json"


def half(x: float) -> float:
    """x rounded to IEEE half (round to nearest even), via struct's 'e' format: independent of numpy."""
    return struct.unpack("<e", struct.pack("<e", x))[0]


def example_case(**changes):
    doc = json.loads(EXAMPLE.read_text())
    for path, value in changes.items():
        where = doc
        keys = path.split("__")
        for k in keys[:-1]:
            where = where[k]
        where[keys[-1]] = value
    return doc


def parse(doc):
    return parse_case(doc, base_dir=EXAMPLE.parent)


def broken(doc) -> set[str]:
    return {v.id for v in check_case(parse(doc)).violations}


# -- the page's example --------------------------------------------------------------------------------------------

def test_example_is_valid_on_the_supported_products():
    for product in ("atlas-a2", "atlas-a3", "atlas-inference-aicore", "atlas-350", "ascend-950pr"):
        assert broken(example_case(product=product)) == set(), product


def test_example_on_unsupported_products_breaks_support_rules():
    """The product rule alone: T is not 'unsupported' a second time on a product that lacks the API."""
    for product in ("atlas-training", "atlas-200i-500-a2", "atlas-inference-vectorcore"):
        ids = broken(example_case(product=product))
        assert "bilinear.product.support" in ids and "bilinear.dtype.support" not in ids, product


def test_a_type_the_product_does_not_support_breaks_the_type_rule():
    """atlas-350 has BilinearInterpolation for half only (the page's Applicability and Table 1): int16 is refused by
    the type rule, the product rule holds."""
    ids = broken(example_case(product="atlas-350", dtype="int16"))
    assert "bilinear.dtype.support" in ids and "bilinear.product.support" not in ids


def test_example_result_reproduces_the_page():
    """src0 = 1..512, src1 = 2..17, offsets 0, 32, ..., 992 (bytes), hRepeat = vRepeat = 2, repeatMode false.

    Iteration v, horizontal step h uses src1[2v + h] and the 8 blocks at offsets (16v + 8h + b) * 32 bytes,
    i.e. src0 elements (16v + 8h + b) * 16 + i, whose values are that index + 1. So dst[128v + j] (j = 16b + i)
    = half(half(s0 * a) + half(s1 * c)) with a = 256v + j + 1, c = 256v + 128 + j + 1.
    """
    case = next(iter(read_cases(str(EXAMPLE)))).case
    dst = run_case(case).tensors["dst"].astype(np.float64)
    src1 = list(range(2, 18))
    expected = []
    for v in range(2):
        s0, s1 = src1[2 * v], src1[2 * v + 1]
        for j in range(128):
            a, c = 256 * v + j + 1, 256 * v + 128 + j + 1
            expected.append(half(half(half(s0 * a)) + half(s1 * c)))
    assert dst.tolist() == expected
    # the page's listed values: 389, 394, 399, 404, ..., 4096
    assert dst[:4].tolist() == [389, 394, 399, 404]
    assert dst[-1] == 4096
    # spec note bilinear.example-rounding: exact 4*257 + 5*385 = 2953 is not a half; hardware gives 2952
    assert dst[128] == 2952


# -- rules on hand-made cases --------------------------------------------------------------------------------------

@pytest.mark.parametrize("changes, expected", [
    ({"args__hRepeat": 0}, {"bilinear.hRepeat.range"}),
    ({"args__vRepeat": 0}, {"bilinear.vRepeat.range"}),
    # 256 does not fit uint8; and 8*256*2 offsets, 256*2 src1 values would be read (the data has 32 offsets).
    # atlas-a2 (dav_c220) also: 256*2 = 512 Gatherb repeats in a uint8; Brcb's 16/8 = 2 groups broadcast 16 of the
    # 512 values used; tmp gets 512*256 + 2*256 = 131584 bytes written, more than the 16896 given; the copy-out's
    # uint8 source repeat stride 256*8 wraps (vRepeat 2)
    ({"args__hRepeat": 256}, {"bilinear.hRepeat.range", "bilinear.hRepeat.type", "bilinear.src0Offset.size",
                              "bilinear.src1.size", "bilinear.src0Offset.values", "bilinear.hvRepeat.range",
                              "bilinear.src1.brcb_size", "bilinear.sharedTmpBuffer.written",
                              "bilinear.c220_rep_strides"}),
    # 65535: the page's [128, 65535) refuses it (spec note vROffset-max); 65535 is not a multiple of 16 either; on
    # atlas-a2 the copy-out's uint8 destination repeat stride 65535*2/32 = 4095 wraps
    ({"args__vROffset": 65535}, {"bilinear.vROffset.range", "bilinear.vROffset.align", "bilinear.dst.size",
                                 "bilinear.c220_rep_strides"}),

    # 120 < 128 and 120*2 = 240 bytes is not a multiple of 32; iteration 1 starts at element 120, inside
    # iteration 0's last block [112, 128)
    ({"args__vROffset": 120}, {"bilinear.vROffset.range", "bilinear.vROffset.align", "bilinear.dst.vertical_overlap"}),
    # 144 is legal, but iteration 1 then ends at 144 + 128 = 272 elements > 256
    ({"args__vROffset": 144}, {"bilinear.dst.size"}),
    ({"args__dstBlkStride": 0}, {"bilinear.dstBlkStride.nonzero"}),
    # dstBlkStride 8: block 1 of iteration 0 starts at element 128 = iteration 1's start (and dst too small)
    ({"args__dstBlkStride": 8}, {"bilinear.dst.vertical_overlap", "bilinear.dst.size"}),
    # a mask of no lane: an error off atlas-a2/a3 (page 000's range from 1), a warning there (test_bilinear_mask_zero)
    ({"args__mask": 0, "product": "atlas-inference-aicore"}, {"bilinear.mask.count.range"}),
    ({"args__mask": 129}, {"bilinear.mask.count.range"}),
    ({"args__mask": [0, 0], "product": "atlas-350"}, {"bilinear.mask.words.nonzero"}),
    ({"args__mask": [1]}, {"bilinear.mask.words.count"}),
    ({"args__mask": [1, 2, 3]}, {"bilinear.mask.words.count"}),
    # dst [16, 528) also overlaps src0 [512, 1536): a warning only (atlas-a2 reads every source before storing)
    ({"tensors__dst__addr": 16}, {"bilinear.dst.align"}),
    ({"tensors__src1__addr": 1600}, {"bilinear.src1.src0Offset.disjoint"}),
    # hRepeat*vRepeat = 4 values are read; atlas-a2's Brcb broadcasts src1 in whole groups of 8 (3 / 8 = 0 groups)
    ({"tensors__src1__size": 3}, {"bilinear.src1.size", "bilinear.src1.brcb_size"}),
    # 8*2*2 = 32 offsets are read; with 31 given, the contents rule also says one is missing
    ({"tensors__src0Offset__size": 31, "tensors__src0Offset__data": list(range(0, 992, 32))},
     {"bilinear.src0Offset.size", "bilinear.src0Offset.values"}),
    ({"tensors__dst__size": 255}, {"bilinear.dst.size"}),
    ({"tensors__sharedTmpBuffer__size": 16895}, {"bilinear.sharedTmpBuffer.size"}),  # 512*32 + 16*32 = 16896
    ({"tensors__src1__dtype": "float"}, {"bilinear.src1.dtype"}),
    ({"tensors__dst__position": "A1"}, {"bilinear.dst.position"}),
    # UB is 192 KiB = 196608 bytes on atlas-a2: a tensor ending one byte past it is out of bounds
    ({"tensors__sharedTmpBuffer__addr": 196608 - 16896 + 32}, {"bilinear.sharedTmpBuffer.bounds"}),
])
def test_each_rule_fires_on_its_case(changes, expected):
    assert broken(example_case(**changes)) == expected


@pytest.mark.parametrize("product", ["atlas-a2", "atlas-a3", "atlas-350", "atlas-inference-aicore"])
@pytest.mark.parametrize("args, wraps", [
    ({"hRepeat": 32}, True), ({"hRepeat": 31}, False),        # srcRepStride = hRepeat*8 blocks: 256 -> 0
    ({"vROffset": 4096}, True), ({"vROffset": 4080}, False),  # dstRepStride = vROffset*2/32 blocks (half): 256 -> 0
    ({"hRepeat": 32, "vRepeat": 1}, False), ({"vROffset": 4096, "vRepeat": 1}, False),  # one iteration: no stride
])
def test_the_copy_out_repeat_strides_of_atlas_a2_a3_are_uint8(product, args, wraps):
    """dav_c220 copies the vertical iterations out with Adds(dst, tmp, 0, mask, vRepeat, params), whose
    UnaryRepeatParams holds srcRepStride = hRepeat*8 and dstRepStride = vROffset*sizeof(T)/32 as uint8_t
    (asc-devkit include/basic_api/kernel_struct_unary.h): past 255 they wrap and every iteration after the first reads
    other sums or stores elsewhere. The other products' implementations take no such strides."""
    ids = broken(example_case(**{f"args__{k}": value for k, value in args.items()}, product=product))
    assert ("bilinear.c220_rep_strides" in ids) == (wraps and product in ("atlas-a2", "atlas-a3")), ids


def test_repeat_mode_true_needs_eight_src1_values_per_iteration():
    # 8 * hRepeat * vRepeat = 32 values; src1 has 16 (on atlas-a2 Brcb's 16 / 8 = 2 groups broadcast 16 of them)
    assert broken(example_case(args__repeatMode=True)) == {"bilinear.src1.size", "bilinear.src1.brcb_size"}
    assert broken(example_case(args__repeatMode=True, product="atlas-350")) == {"bilinear.src1.size"}


def test_repeat_mode_true_with_src0_longer_than_16_src1_values_is_a_warning():
    """The vendor's newer page: 'when repeatMode is true, ensure src1's valid length x 16 >= src0's length'. Every
    implementation reads 8 src1 values per iteration whatever src0's size (bilinear.src1.size is the error), so a
    src0 longer than the blocks gathered is a warning (spec note bilinear.repeat-mode-length)."""
    doc = example_case(product="atlas-350", args__repeatMode=True)
    doc["tensors"]["src1"] = {"position": "VECIN", "addr": 1664, "size": 32}  # 8 x 2 x 2 values; 32 x 16 = 512
    got = check_case(parse(doc))
    assert got.valid and [w.id for w in got.warnings] == []
    del doc["tensors"]["src0"]["data"]
    doc["tensors"]["src0"].update(addr=4096, size=513)  # one element more than 16 x 32
    got = check_case(parse(doc))
    assert got.valid and [w.id for w in got.warnings] == ["bilinear.src1.repeat_mode_length"]
    doc["args"]["repeatMode"] = False  # the page's sentence is about repeatMode=true only
    assert [w.id for w in check_case(parse(doc)).warnings] == []


@pytest.mark.parametrize("addr, warned", [(253696, False), (253728, True), (253920, True)])
def test_atlas_350_reads_a_whole_vector_register_of_offsets(addr, warned):
    """dav_3510 loads each group of 8 src0Offset entries (32 bytes) as a RegTensor<uint32_t>: 256 bytes. With one
    iteration the load reads [addr, addr + 256); UB has 248 KiB = 253952 bytes, so 253696 is the last start inside."""
    doc = example_case(product="atlas-350", args__hRepeat=1, args__vRepeat=1)
    doc["tensors"]["src0Offset"] = {"position": "VECIN", "addr": addr, "size": 8, "dtype": "uint32"}
    got = check_case(parse(doc))
    assert got.valid and ("bilinear.src0Offset.vector_read" in [w.id for w in got.warnings]) == warned
    doc["product"] = "atlas-a2"  # dav_c220 gathers with the offsets where they are: no such load
    assert "bilinear.src0Offset.vector_read" not in [w.id for w in check_case(parse(doc)).warnings]


def test_tmp_buffer_rules_per_product():
    doc = example_case(product="atlas-350")
    del doc["tensors"]["sharedTmpBuffer"]
    assert broken(doc) == set()  # no temporary space needed on Atlas 350
    doc["product"] = "atlas-a2"
    assert broken(doc) == {"bilinear.sharedTmpBuffer.required"}
    # inference AI Core needs src0Offset.size * 4 = 128 bytes only
    ok = example_case(product="atlas-inference-aicore", tensors__sharedTmpBuffer__size=128)
    assert broken(ok) == set()
    assert broken(example_case(product="atlas-inference-aicore", tensors__sharedTmpBuffer__size=127)) == \
        {"bilinear.sharedTmpBuffer.size"}


def test_src0_offset_contents_are_checked_only_with_data():
    doc = example_case()
    doc["tensors"]["src0Offset"]["data"] = [0, 32, 64, 1000] + list(range(128, 1024, 32))
    result = check_case(parse(doc))
    assert [v.id for v in result.violations] == ["bilinear.src0Offset.values"]
    assert "src0Offset[3]=1000" in result.violations[0].message
    doc["tensors"]["src0Offset"]["data"] = list(range(0, 1024, 32))[:-1] + [1024]  # 1024 + 32 > 1024 bytes
    assert broken(doc) == {"bilinear.src0Offset.values"}
    del doc["tensors"]["src0Offset"]["data"]
    result = check_case(parse(doc))
    assert result.valid and [u.rule_id for u in result.unchecked] == ["bilinear.src0Offset.values"]


@pytest.mark.parametrize("r, s, v, collide", [
    (128, 1, 2, False),   # iteration 1 starts right after iteration 0's 8 contiguous blocks
    (128, 8, 2, True),    # iteration 0 block 1 at element 128 = iteration 1 block 0
    (144, 3, 2, True),    # in 16-element blocks: it.0 at 0, 3, ..., 21; it.1 at 9, 12, ...: 9 = 3*3
    (144, 2, 2, False),   # it.0 at even blocks 0..14, it.1 at odd blocks 9..23
    (1024, 16, 2, False),  # it.0 spans blocks 0..112 step 16, it.1 starts at 64: 64 = 4*16 -> collides?
])
def test_vertical_overlap_formula(r, s, v, collide):
    # last row: it.1 starts at block 1024/16 = 64 = block 4 of it.0 (4*16): they do collide; the brute force
    # below is the independent reference, the literal flags are hand-reasoned for the first four rows
    blocks = [{it * r // 16 + b * s for b in range(8)} for it in range(v)]
    brute = any(blocks[i] & blocks[j] for i in range(v) for j in range(i + 1, v))
    if (r, s) != (1024, 16):
        assert brute == collide
    else:
        assert brute
    case = parse(example_case(args__vROffset=r, args__dstBlkStride=s, args__vRepeat=v, args__hRepeat=1,
                              tensors__dst__addr=100000, tensors__dst__size=4096))
    assert bool(vertical_overlap(case.values(), case.ctx)) == brute


def test_vertical_overlap_exact_against_brute_force():
    """The rule's verdict equals a brute-force set intersection for every small combination."""
    for r in range(128, 400, 16):
        for s in range(1, 30):
            for v in (2, 3, 5):
                blocks = [{it * r // 16 + b * s for b in range(8)} for it in range(v)]
                brute = any(blocks[i] & blocks[j] for i in range(v) for j in range(i + 1, v))
                case = parse(example_case(**{**{"args__vROffset": r, "args__dstBlkStride": s, "args__vRepeat": v,
                                                "tensors__dst__addr": 100000, "tensors__dst__size": 40000,
                                                "args__hRepeat": 1}}))
                assert bool(vertical_overlap(case.values(), case.ctx)) == brute, (r, s, v)


# -- core semantics ------------------------------------------------------------------------------------------------

def test_bitwise_mask_word_order():
    """mask[0] holds the low 64 lanes: [8, 0] writes lane 3 only (the 4th element), [0, 8] lane 67."""
    for mask, lane in (([8, 0], 3), ([0, 8], 67)):
        doc = example_case(args__mask=mask)
        doc["tensors"]["dst"]["data"] = [-1.0] * 256
        res = run_case(parse(doc))
        changed = np.flatnonzero(res.tensors["dst"] != -1.0)
        assert changed.tolist() == [lane, 128 + lane], mask


def test_contiguous_mask_writes_leading_lanes():
    doc = example_case(args__mask=20)
    doc["tensors"]["dst"]["data"] = [-1.0] * 256
    res = run_case(parse(doc))
    changed = np.flatnonzero(res.tensors["dst"] != -1.0)
    assert changed.tolist() == list(range(20)) + list(range(128, 148))


def test_dst_is_overwritten_not_accumulated():
    doc = example_case()
    doc["tensors"]["dst"]["data"] = [1000.0] * 256
    assert run_case(parse(doc)).tensors["dst"][0] == 389  # not 1389


def test_core_faults_on_bad_offsets_and_overlap():
    doc = example_case()
    doc["tensors"]["src0Offset"]["data"] = [16] + list(range(32, 1024, 32))  # misaligned block
    res = run_case(parse(doc), strict=False)
    assert [f.kind for f in res.faults] == ["misaligned"]
    doc = example_case(args__dstBlkStride=8, tensors__dst__size=2048)
    res = run_case(parse(doc), strict=False)
    assert "overlap" in {f.kind for f in res.faults}


def test_dst_over_sources_is_a_core_hazard():
    """dst placed on src1 (src1 inside dst's first block): on atlas-350 iteration 0 stores over src1 values
    iteration 1 still reads (src1[2], src1[3] at bytes 4..8 of dst's first block); atlas-a2 reads src1 (Brcb)
    before anything is stored, so the same placement is only a warning there."""
    doc = example_case(tensors__dst__addr=1664, tensors__src1__addr=1664, tensors__sharedTmpBuffer__addr=4096)
    res = check_case(parse(doc))
    assert not res.violations and [w.id for w in res.warnings] == ["bilinear.dst.src1.disjoint"]
    assert not run_case(parse(doc), strict=False).faults
    doc["product"] = "atlas-350"
    assert broken(doc) == {"bilinear.dst.hazard"}
    res = run_case(parse(doc), strict=False)
    assert {f.kind for f in res.faults} == {"hazard"}


# -- model against core, on drawn cases ----------------------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.cases("BilinearInterpolation"), st.integers(0, 2**16))
def test_invariants_hold_on_valid_cases(case, seed):
    check_invariants(case, seed)


# 12 examples: each is solver-built (about 0.7 s); the cheap test below draws 80 argument sets against the core
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(strategies.invalid_cases("BilinearInterpolation", "bilinear.dst.vertical_overlap"))
def test_overlap_verdict_matches_core_on_invalid_cases(case):
    from ascverify.models.bilinear import vertical_overlap_matches_core

    assert [v.id for v in check_case(case).violations] == ["bilinear.dst.vertical_overlap"]
    vertical_overlap_matches_core(case)


@settings(max_examples=80, deadline=None)
@given(st.integers(128, 2000).map(lambda x: x // 16 * 16), st.integers(0, 40), st.integers(1, 6))
def test_overlap_verdict_matches_core_on_arbitrary_arguments(r, s, v):
    from ascverify.models.bilinear import vertical_overlap_matches_core

    doc = example_case(args__vROffset=r, args__dstBlkStride=s, args__vRepeat=v, args__hRepeat=1,
                       tensors__dst__addr=65536, tensors__dst__size=60000)
    vertical_overlap_matches_core(parse(doc))


# -- sharedTmpBuffer against the operands (atlas-a2: dav_c220 writes h*v*256 bytes of Gatherb results, then
#    (src1.size/8 mod 256)*256 of Brcb results; the page is silent on overlap) ----------------------------------------

def _tmp_written_bytes(doc) -> int:
    """Independent of the model: the example's hRepeat*vRepeat Gatherb repeats and src1.size/8 Brcb repeats, 256
    bytes each (the dav_c220 implementation the spec note bilinear.c220-implementation reads)."""
    a = doc["args"]
    return 256 * a["hRepeat"] * a["vRepeat"] + 256 * (doc["tensors"]["src1"]["size"] // 8 % 256)


def _dst_bits(doc):
    result = run_case(parse(doc), strict=True)
    return result.tensors["dst"].view(np.uint16).tolist()


def test_an_operand_in_sharedtmpbuffer_bytes_the_call_never_writes_is_a_warning_and_harmless():
    """The example's sharedTmpBuffer is 16,896 bytes; the call writes its first 1,536. src1 moved into the unused tail:
    the whole-buffer overlap is a warning (a hazard the page does not name, not proven), no error; the core runs it
    without a fault and computes the same dst bit for bit."""
    doc = example_case()
    tmp = doc["tensors"]["sharedTmpBuffer"]
    written = _tmp_written_bytes(doc)
    assert written == 1536 and tmp["size"] > written + 10000
    moved = example_case(tensors__src1__addr=tmp["addr"] + 10016)  # 32-aligned, past the written bytes
    got = check_case(parse(moved))
    assert got.valid, [v.id for v in got.violations]
    assert [w.id for w in got.warnings] == ["bilinear.sharedTmpBuffer.src1.disjoint"]
    assert _dst_bits(moved) == _dst_bits(doc)


def test_an_operand_in_the_bytes_sharedtmpbuffer_is_written_is_an_error_and_the_core_shows_why():
    """src1 inside the Gatherb results: Gatherb writes them before Brcb reads src1, so src1's values are replaced
    by gathered src0 blocks. The rule refuses it; the core, run anyway, computes another dst."""
    doc = example_case()
    tmp = doc["tensors"]["sharedTmpBuffer"]
    clobbered = example_case(tensors__src1__addr=tmp["addr"] + 256)  # inside the first 256*h*v bytes
    assert {"bilinear.sharedTmpBuffer.src1.hazard"} <= broken(clobbered)
    moved = check_case(parse(clobbered))
    assert any(v.id == "bilinear.sharedTmpBuffer.src1.hazard" and f"[{tmp['addr']}, {tmp['addr'] + 1536})" in v.message
               for v in moved.violations)
    assert [w.id for w in moved.warnings] == []  # the warning ('harmless to this call') does not speak besides it
    result = run_case(parse(clobbered), strict=False)
    assert result.tensors["dst"].view(np.uint16).tolist() != _dst_bits(doc)


def test_the_written_bytes_end_exactly_where_the_rule_says():
    """One byte before the end of the written bytes src1 (32-aligned: the last block) overlaps; at the end, not."""
    doc = example_case()
    tmp = doc["tensors"]["sharedTmpBuffer"]
    end = tmp["addr"] + _tmp_written_bytes(doc)
    assert "bilinear.sharedTmpBuffer.src1.hazard" in broken(example_case(tensors__src1__addr=end - 32))
    assert "bilinear.sharedTmpBuffer.src1.hazard" not in broken(example_case(tensors__src1__addr=end))

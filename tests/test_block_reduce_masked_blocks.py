"""A BlockReduce datablock that no lane of the mask enables is not read (spec note *.masked-blocks): src must hold the
datablocks up to the last active one (an error otherwise), the masked ones after it may lie past src (a warning). The
vendor's own ReduceMax/ReduceMin do so (tests/vendor/corpus/asc-devkit__adv_reduce.json). Sizes below are reasoned
from the page's layout: a datablock is 32 bytes (16 halves, 8 floats), repeat r's datablock b starts at
(r*srcRepStride + b*srcBlkStride) datablocks; a half mask's lane j is bit j of mask[j // 64]."""

from __future__ import annotations

import pytest

from ascverify import check_case, parse_case, run_case


def _case(mask, src_size: int, *, dtype: str = "half", repeat: int = 1, rep_stride: int = 8, blk_stride: int = 1,
          product: str = "atlas-a2", api: str = "BlockReduceMin") -> dict:
    return {"api": api, "product": product, "dtype": dtype,
            "args": {"repeatTime": repeat, "mask": mask, "dstRepStride": 1, "srcBlkStride": blk_stride,
                     "srcRepStride": rep_stride},
            "tensors": {"dst": {"position": "VECOUT", "addr": 4096, "size": 8 * repeat},
                        "src": {"position": "VECIN", "addr": 0, "size": src_size}}}


def _findings(doc: dict) -> tuple[set[str], set[str]]:
    r = check_case(parse_case(doc))
    return {v.id.split(".", 1)[1] for v in r.violations}, {w.id.split(".", 1)[1] for w in r.warnings}


@pytest.mark.parametrize("mask,need", [
    ([0xFFFF, 0], 16),              # datablock 0 only: one datablock of 16 halves
    ([0xFFFF << 48, 0], 64),        # lanes 48-63: datablock 3 -> 4 datablocks
    ([0, 1], 80),                   # lane 64: datablock 4 -> 5 datablocks
    (40, 48),                       # contiguous 40 lanes: datablocks 0, 1 and half of 2 -> 3 datablocks
    (128, 128),                     # every lane: 8 datablocks
])
def test_src_must_hold_the_datablocks_up_to_the_last_active_one(mask, need: int) -> None:
    errors, warnings = _findings(_case(mask, need))
    assert "src.footprint" not in errors
    # the masked datablocks after the last active one lie past src exactly when src is shorter than 8 datablocks
    assert ("src.footprint.masked" in warnings) == (need < 128)
    errors, _ = _findings(_case(mask, need - 1))
    assert "src.footprint" in errors


def test_over_repeats_and_strides_the_last_repeat_counts() -> None:
    # 3 repeats 10 datablocks apart, datablocks 2 apart, lanes of datablock 1 only (bits 16-31):
    # the last read datablock is (2*10 + 1*2) = 22 -> 23 datablocks of 16 halves
    doc = _case([0xFFFF << 16, 0], 23 * 16, repeat=3, rep_stride=10, blk_stride=2)
    errors, warnings = _findings(doc)
    assert "src.footprint" not in errors and "src.footprint.masked" in warnings
    assert "src.footprint" in _findings(_case([0xFFFF << 16, 0], 23 * 16 - 1, repeat=3, rep_stride=10,
                                              blk_stride=2))[0]


def test_a_mask_set_elsewhere_counts_every_datablock() -> None:
    doc = _case("MASK_PLACEHOLDER", 16)
    doc["args"]["isSetMask"] = False
    errors, _ = _findings(doc)
    assert "src.footprint" in errors  # the register's mask is unknown here: all 8 datablocks


def test_the_core_reads_no_masked_datablock() -> None:
    # float, lane 0 of datablocks 0-6 (the vendor's 7 x 1 reduction): src holds 7 datablocks, the eighth would be
    # bytes 224-255, past src; a strict run faults on any read outside a tensor
    data = [float(-i) for i in range(56)]
    doc = _case([0x0001010101010101], 56, dtype="float", api="BlockReduceMax")
    doc["tensors"]["src"]["data"] = data
    doc["tensors"]["dst"]["data"] = [5.0] * 8
    out = run_case(parse_case(doc)).tensors["dst"]
    # datablock b's only active lane is element 8b: max = -8b; datablock 7 stores nothing on atlas-a2 (dst keeps 5)
    assert out.tolist() == [float(-8 * b) for b in range(7)] + [5.0]


@pytest.mark.parametrize("mask,errors,warnings", [
    ([0x0F, 0], set(), set()),                         # the C++ array {low, 0}: read as mask[0]
    ([0x0F, 5], set(), {"mask.words.high"}),           # mask[1] has no effect for 64 lanes
    ([0x0F], set(), set()),
])
def test_a_float_op_reads_mask_0_only(mask, errors: set, warnings: set) -> None:
    got_errors, got_warnings = _findings(_case(mask, 64, dtype="float"))
    assert got_errors == errors
    assert {w for w in got_warnings if w.startswith("mask")} == warnings


def test_a_half_op_still_needs_both_words() -> None:
    assert "mask.words.count" in _findings(_case([0xFF], 128))[0]

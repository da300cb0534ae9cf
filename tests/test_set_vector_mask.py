"""SetVectorMask against its vendor page (asc-devkit docs, SetVectorMask): the products it lists, the contiguous
range [0, lanes] with 0 a no-op, and what a later op that uses a mask of 0 makes of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascverify import check_case, parse_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program

ROOT = Path(__file__).resolve().parents[1]


def case(mask, product="atlas-a2", dtype="half"):
    return parse_case({"api": "SetVectorMask", "product": product, "dtype": dtype, "args": {"mask": mask}})


def ids(found):
    return [v.id for v in found]


# the page: "for 16-bit operands mask in [0, 128]; for 32-bit operands mask in [0, 64]"
@pytest.mark.parametrize("dtype,lanes", [("half", 128), ("float", 64)])
def test_the_contiguous_range_is_0_to_the_lanes_of_a_repeat(dtype, lanes):
    assert check_case(case(lanes, dtype=dtype)).valid
    top = check_case(case(lanes + 1, dtype=dtype))
    assert ids(top.violations) == ["set_vector_mask.mask.count.range"]


@pytest.mark.parametrize("mask,rule", [(0, "set_vector_mask.mask.count.nonzero"),
                                       ([0, 0], "set_vector_mask.mask.words.nonzero")])
def test_a_mask_that_enables_no_lane_is_legal_with_a_warning(mask, rule):
    """The page: 'mask = 0 means the instruction performs no computation; the call is treated as a NOP'."""
    got = check_case(case(mask))
    assert got.valid and ids(got.violations) == [] and ids(got.warnings) == [rule]
    assert "enables no lane" in got.warnings[0].message or "selects no element" in got.warnings[0].message


@pytest.mark.parametrize("product,error", [("atlas-350", True), ("atlas-training", True), ("atlas-a2", False)])
def test_an_op_that_then_uses_a_mask_of_0_breaks_its_own_mask_rule(product, error):
    """... where the op's page bounds its mask to [1, 128]; on atlas-a2/a3 the ReduceDataBlock page makes a mask of 0
    a no-op (a warning at the op)."""
    doc = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    doc["calls"][0]["args"]["mask"] = 0
    doc["product"] = product
    got = check_program(parse_program(doc))
    assert ("block_reduce_min.mask.count.range" in ids(got.violations)) == error
    assert ("block_reduce_min.mask.zero" in ids(got.warnings)) == (not error)


def test_not_supported_on_the_inference_vector_core_only():
    """The page's product list: supported everywhere but 'Atlas inference series Vector Core: not supported'."""
    got = check_case(case(128, product="atlas-inference-vectorcore"))
    assert ids(got.violations) == ["set_vector_mask.product.support"]
    for product in ("atlas-350", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training"):
        assert check_case(case(128, product=product)).valid, product

"""The block reductions' lane masks kept per mask (`block_reduce_family.lanes_of`): the kept answer is the one
`vector_common.lane_mask` gives for that case, read-only, and a stand-in lane_mask (``ascverify selftest``'s mask
mutants) is asked on every call."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify import get_api
from ascverify.cases.case import Case
from ascverify.models.block_reduce_family import lanes_of
from ascverify.models.vector_common import lane_mask


def _case(dtype: str, **mask) -> Case:
    model = get_api("BlockReduceMin")
    env = model.default_env()
    env.update({"isSetMask": True, "mask.placeholder": False, **mask})
    return Case(model, model.context("atlas-a2", dtype), env, origin="test")


MASKS = [{"mask.bitwise": False, "mask.count": c} for c in (1, 5, 64, 127, 128)] + \
    [{"mask.bitwise": True, "mask.nwords": 2, "mask.w0": w0, "mask.w1": w1}
     for w0, w1 in ((1, 0), (0, 1), (2**64 - 1, 0), (0x0123456789ABCDEF, 0xFEDCBA9876543210), (5, 5))]


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_kept_lanes_are_lane_masks_answer(dtype):
    for _ in range(2):                                    # the second round answers from what was kept
        for mask in MASKS:
            if dtype == "float" and mask.get("mask.count", 0) > 64:
                continue
            case = _case(dtype, **mask)
            got = lanes_of(case, lane_mask)
            assert got.dtype == bool and np.array_equal(got, lane_mask(case)), mask
            assert not got.flags.writeable


def test_a_stand_in_is_asked_every_time():
    calls = []

    def stand_in(case, name="mask"):
        calls.append(case)
        return np.arange(128) < 3

    case = _case("half", **MASKS[0])
    for _ in range(3):
        assert lanes_of(case, stand_in).sum() == 3
    assert len(calls) == 3
    assert lanes_of(_case("half", isSetMask=False), stand_in) is None

"""ResetMask(): the vector mask register back to all ones (the vendor's ResetMask page; pyasc reset_mask).

Golden values from the page ("restores the mask to its default value (all ones): every element of each iteration
takes part") and the vendor's ResetMaskImpl (set_vector_mask(FULL_MASK, FULL_MASK)): after it, an op with
isSetMask=false reduces every lane; without it, the lanes the last SetVectorMask set."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import check_case, get_api, parse_case
from ascverify.checking.program import check_program
from ascverify.cases.program import parse_program
from ascverify.cli import main
from ascverify.core.program import run_program
from ascverify.core.unspecified import unspecified_elements

X = (np.arange(128, 0, -1) / 4).tolist()   # decreasing: a block's minimum is its last element
BRM = {"api": "block_reduce_min", "tensors": {"dst": "z", "src": "x"},
       "args": {"repeat": 1, "mask": "MASK_PLACEHOLDER", "dst_rep_stride": 1, "src_blk_stride": 1,
                "src_rep_stride": 8, "is_set_mask": False}}


def program(*calls, product="atlas-a2"):
    return {"product": product, "dtype": "half",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128, "data": X},
                        "z": {"position": "VECOUT", "addr": 512, "size": 8}},
            "calls": list(calls)}


def test_names_and_products():
    assert get_api("reset_mask") is get_api("ResetMask") is get_api("asc.language.basic.reset_mask")

    def verdict(product):
        r = check_case(parse_case({"api": "ResetMask", "product": product, "dtype": "half", "args": {}}))
        return [v.id for v in r.violations], [w.id for w in r.warnings]

    # the page: supported on 950, A3, A2, 200I/500 A2 and the inference AI Core
    for product in ("atlas-350", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore"):
        assert verdict(product) == ([], [])
    # not on the inference Vector Core
    assert verdict("atlas-inference-vectorcore") == (["reset_mask.product.support"], [])
    # not on the training series by the page, but the vendor's training implementation (dav_c100 VselImpl) calls it
    assert verdict("atlas-training") == ([], ["reset_mask.product.page"])


def test_after_reset_every_lane_takes_part():
    """SetVectorMask(16) enables block 0's 16 lanes only; ResetMask after it enables all 128: each of the 8 blocks
    of 16 halves is reduced, its minimum its last element, (128 - 15 - 16 b) / 4."""
    prog = program({"api": "set_vector_mask", "args": {"mask": 16}}, {"api": "ResetMask"}, BRM)
    parsed = parse_program(prog)
    assert check_program(parsed).valid
    done = run_program(parsed)
    assert not done.faults
    assert done.runs[-1].tensors["dst"].tolist() == [(128 - 15 - 16 * b) / 4 for b in range(8)]


def test_without_reset_the_last_mask_stays():
    prog = program({"api": "set_vector_mask", "args": {"mask": 16}}, BRM)
    done = run_program(parse_program(prog))
    assert done.runs[-1].tensors["dst"][0] == (128 - 15) / 4
    # blocks 1..7 have no active lane: on atlas-a2 nothing is stored there (z was never written: unspecified)
    run = done.runs[-1]
    dst = run.case.tensor("dst")
    marks = unspecified_elements(run.memory, dst.buffer, dst.addr, dst.size, run.case.dtype)
    assert marks.tolist() == [False] + [True] * 7


def test_the_vendor_example_in_counter_mode_is_valid():
    """pyasc's reset_mask example: set_mask_count(); set_vector_mask(128, mode=COUNTER); reset_mask(). The words
    are written whatever the mode (ResetMaskImpl), so an op after it in Counter mode would count 2**64 - 1 elements:
    ascverify says it does not model such a count and leaves the results unspecified (a warning)."""
    calls = [{"api": "set_mask_count"}, {"api": "set_vector_mask", "args": {"mask": 128, "mode": "COUNTER"}},
             {"api": "reset_mask"}]
    got = check_program(parse_program(program(*calls)))
    assert got.valid and not got.warnings
    after = check_program(parse_program(program(*calls, BRM)))
    assert after.valid
    assert [w.id for w in after.warnings] == ["block_reduce_min.counter_mode"]
    assert f"a Counter-mode count of {2**64 - 1} elements (the last ResetMask wrote it)" in after.warnings[0].message


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_no_word_warning_where_set_vector_mask_draws_one(dtype):
    """A translation of ResetMask as SetVectorMask<float>(FULL, FULL) drew set_vector_mask.mask.words.high (the
    page sets maskHigh to 0 for 32-bit operands); ResetMask itself has no such rule."""
    full = 2**64 - 1
    svm = check_case(parse_case({"api": "SetVectorMask", "product": "atlas-a2", "dtype": dtype,
                                 "args": {"mask": [full, full]}}))
    reset = check_case(parse_case({"api": "ResetMask", "product": "atlas-a2", "dtype": dtype, "args": {}}))
    assert ("set_vector_mask.mask.words.high" in [w.id for w in svm.warnings]) == (dtype == "float")
    assert reset.valid and not reset.warnings


def test_cli_lists_it():
    got = CliRunner().invoke(main, ["rules", "ResetMask"])
    assert got.exit_code == 0 and "reset_mask.product.support" in got.stdout
    notes = CliRunner().invoke(main, ["notes", "ResetMask"])
    assert "reset_mask.words" in notes.stdout and "reset_mask.training" in notes.stdout

"""SetMaskCount / SetMaskNorm: the mode in which a later SetVectorMask's words are read (the vendor's SetMaskCount and
SetMaskNorm pages; SetVectorMaskImpl writes the words whatever the mode, kernel_reg.h).

Expected values are reasoned here: x[i] = i % 7 - 3; a count of 400 floats is 6 repeats of 64 lanes and a last of 16
(the Mask page); a Normal-mode bit mask 0xF0 enables lanes 4-7, whose sum is 4 + 5 + 6 + 7 with x[i] = i."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ascverify import check_case, get_api, parse_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.core.program import run_program
from ascverify.core.unspecified import unspecified_elements
from ascverify.spec.dtypes import get_dtype

SUM = {"api": "BlockReduceSum", "args": {"repeatTime": 1, "mask": "MASK_PLACEHOLDER", "dstRepStride": 1,
                                         "srcBlkStride": 1, "srcRepStride": 8, "isSetMask": False},
       "tensors": {"dst": "z", "src": "x"}}


def program(*calls, x_size=448):
    return {"product": "atlas-a2", "dtype": "float",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": x_size},
                        "z": {"position": "VECOUT", "addr": 2048, "size": 56, "data": [0.0] * 56}},
            "calls": [copy.deepcopy(c) for c in calls]}


def found(result):
    return [(v.call, v.id) for v in result.violations], [(w.call, w.id) for w in result.warnings]


def test_the_vendors_count_idiom_sets_a_count():
    """SetMaskCount(); SetVectorMask<float>(0, 400) (NORMAL template: the words as given, maskLow = 400) is a count
    of 400, as SetVectorMask<float, COUNTER>(400) is: no mode warning, the same results."""
    x = [float(i % 7 - 3) for i in range(448)]
    idiom = program({"api": "SetMaskCount"}, {"api": "SetVectorMask", "args": {"maskHigh": 0, "maskLow": 400}}, SUM)
    counter = program({"api": "SetVectorMask", "args": {"mask": 400, "mode": "COUNTER"}}, SUM)
    for prog in (idiom, counter):
        prog["tensors"]["x"]["data"] = x
    errors, warnings = found(check_program(parse_program(idiom)))
    assert errors == [] and not any(w.endswith("mode.differs") for _, w in warnings)
    got = run_program(parse_program(idiom)).runs[-1].tensors["dst"]
    assert np.array_equal(got, run_program(parse_program(counter)).runs[-1].tensors["dst"])
    xs = np.array(x[:400])
    want = [xs[8 * k: 8 * k + 8].sum() for k in range(50)]   # 48 blocks of the 6 full repeats, 2 of the last
    assert got[:50].tolist() == want and got[50:].tolist() == [0.0] * 6   # the last repeat's masked blocks keep z


def test_a_counter_template_after_set_mask_norm_is_a_bit_mask():
    """SetMaskNorm(); SetVectorMask<float, COUNTER>(240) writes (0, 240), which Normal mode reads as lanes 4-7."""
    prog = program({"api": "SetMaskNorm"}, {"api": "SetVectorMask", "args": {"mask": 240, "mode": "COUNTER"}}, SUM,
                   x_size=64)
    prog["tensors"]["x"]["data"] = [float(i) for i in range(64)]
    result = check_program(parse_program(prog))
    assert found(result) == ([], [(1, "set_vector_mask.mode.differs")])
    assert "bit mask [0xf0, 0x0]" in result.warnings[0].message
    got = run_program(parse_program(prog)).runs[-1].tensors["dst"]
    assert got[0] == 4 + 5 + 6 + 7 and got[1:8].tolist() == [0.0] * 7


def test_a_counter_count_used_with_no_mode_setter_is_a_warning_at_the_op():
    """SetVectorMask<float, COUNTER>(400) then BlockReduceSum<float, false> with no SetMaskCount: the template only
    writes the words (0, 400); Normal is the system's default mode (the SetMaskNorm page), in which the op reads them
    as the bit mask 0x190. A warning at the op (an earlier kernel may have left Counter mode on), none at the setter:
    the vendor's guide sets a COUNTER mask without SetMaskCount before a first-n API, which enters Counter mode
    itself. With SetMaskCount first the warning goes."""
    bare = program({"api": "SetVectorMask", "args": {"mask": 400, "mode": "COUNTER"}}, SUM)
    errors, warnings = found(check_program(parse_program(bare)))
    assert errors == [] and warnings == [(1, "block_reduce_sum.counter_mode"), (1, "block_reduce_sum.counter_mode")]
    messages = [w.message for w in check_program(parse_program(bare)).warnings]
    assert "no SetMaskCount came before this call" in messages[0] and "(0, 400) as a bit mask" in messages[0]
    assert "ceil(400 / 64) = 7 repeats" in messages[1]  # and the count's own warning, as before
    counted = program({"api": "SetMaskCount"}, {"api": "SetVectorMask", "args": {"mask": 400, "mode": "COUNTER"}}, SUM)
    assert found(check_program(parse_program(counted))) == ([], [(2, "block_reduce_sum.counter_mode")])
    alone = program({"api": "SetVectorMask", "args": {"mask": 400, "mode": "COUNTER"}})
    assert found(check_program(parse_program(alone))) == ([], [])


def test_a_normal_len_after_set_mask_count_is_read_as_a_count_of_its_bits():
    """SetMaskCount(); SetVectorMask<float>(8) writes SetMask<float>(8): the low 8 bits, 0xFF, read as a count of 255
    (a warning: the vendor's code never does this)."""
    result = check_program(parse_program(program({"api": "SetMaskCount"},
                                                 {"api": "SetVectorMask", "args": {"len": 8}}, SUM)))
    assert (1, "set_vector_mask.mode.differs") in found(result)[1]
    assert "a count of 255 elements" in [w.message for w in result.warnings if w.call == 1][0]


def own_mask(mask, repeat=1, **tensors):
    """BlockReduceSum with isSetMask=true and its own mask."""
    call = copy.deepcopy(SUM)
    call["args"].update({"isSetMask": True, "mask": mask, "repeatTime": repeat})
    return call


@pytest.mark.parametrize("product, masked", [("atlas-a2", "keep"), ("atlas-350", 0.0)])
def test_an_own_mask_array_in_counter_mode_is_a_count(product, masked):
    """The Mask page, 'Mask set inside the API', Counter mode: SetMaskCount(); mask[2] = {130, 0} with an op of
    isSetMask=true: only the low 64 bits count, 130 elements take part, repeatTimes has no effect (hunt 15). For
    float (64 lanes) that is 3 repeats: 64, 64 and 2 lanes. x[i] = i % 7 - 3; each block's result is the sum of its 8
    elements; the last repeat has block 0 with x[128], x[129] and 7 fully masked blocks (A2 keeps z there, Ascend 950
    writes 0: the same as after a Counter-mode SetVectorMask)."""
    x = [float(i % 7 - 3) for i in range(448)]
    prog = program({"api": "SetMaskCount"}, own_mask([130, 0], repeat=1), {"api": "SetMaskNorm"})
    prog["product"] = product
    prog["tensors"]["x"]["data"] = x
    prog["tensors"]["z"]["data"] = [-1.0] * 56
    result = check_program(parse_program(prog))
    errors, warnings = found(result)
    assert errors == [] and warnings == [(1, "block_reduce_sum.counter_mode")]
    assert "mask[0]=130 is the count" in result.warnings[0].message
    assert "3 repeats, 2 of 64 lanes and the last of 2" in result.warnings[0].message
    got = run_program(parse_program(prog)).runs[1].tensors["dst"]
    xs = np.array(x)
    want = [xs[8 * k: 8 * k + 8].sum() for k in range(16)] + [xs[128] + xs[129]]
    assert got[:17].tolist() == want
    assert got[17:24].tolist() == ([-1.0] * 7 if masked == "keep" else [masked] * 7)
    assert got[24:].tolist() == [-1.0] * 32   # no fourth repeat


def test_an_own_mask_array_in_normal_mode_stays_a_bit_mask():
    """Without SetMaskCount (or after SetMaskNorm) the same call reads [130, 0] as lanes 1 and 7 of one repeat."""
    prog = program({"api": "SetMaskNorm"}, own_mask([130, 0]))
    prog["tensors"]["x"]["data"] = [float(i) for i in range(448)]
    assert found(check_program(parse_program(prog))) == ([], [])
    got = run_program(parse_program(prog)).runs[1].tensors["dst"]
    assert got[0] == 1 + 7 and got[1:8].tolist() == [0.0] * 7


def test_an_own_mask_array_with_the_repeats_given_and_no_high_word_draws_no_warning():
    """130 floats need 3 repeats: repeatTime=3 and mask[1] = 0 leave nothing without effect."""
    prog = program({"api": "SetMaskCount"}, own_mask([130, 0], repeat=3))
    assert found(check_program(parse_program(prog))) == ([], [])
    prog = program({"api": "SetMaskCount"}, own_mask([130, 5], repeat=3))
    result = check_program(parse_program(prog))
    assert found(result) == ([], [(1, "block_reduce_sum.counter_mode")])
    assert "mask[1]=5 is not read" in result.warnings[0].message


def test_an_own_contiguous_mask_in_counter_mode_is_not_modelled():
    """The page shows the array form only; the implementations differ (Ascend 950 counts mask elements, A2's
    SetMask<T>(130) writes all bits): a warning, the mask rules not checked (130 > 64 is no error here), the
    results unspecified."""
    prog = program({"api": "SetMaskCount"}, own_mask(130), x_size=512)
    result = check_program(parse_program(prog))
    errors, warnings = found(result)
    assert errors == [] and warnings == [(1, "block_reduce_sum.counter_mode")]
    assert "own contiguous mask=130: not modelled" in result.warnings[0].message
    assert {u.rule_id for u in result.unchecked} >= {"block_reduce_sum.mask.count.range"}
    run = run_program(parse_program(prog)).runs[1]
    assert unspecified_elements(run.memory, "UB", 2048, 8, get_dtype("float")).all()   # z at 2048: the 8 results


@pytest.mark.parametrize("count,refused", [(-1, True), (-2**31, True), (0, False), (130, False),
                                           (2**31 - 1, False), (2**31, True)])
def test_an_own_contiguous_mask_in_counter_mode_is_a_count_the_vendor_takes_in_int32(count, refused):
    """The vendor's CPU-debug check of every BlockReduce with isSetMask = true (CheckMaskValue, kernel_npu_debug.h):
    in Counter mode an int32 mask outside [0, INT32_MAX] is refused (found by the vendor-check census). So a count
    below 0 or past 2^31-1 is an error in a program that entered Counter mode; in Normal mode the same -1 is the
    ordinary range error, not this one."""
    counted = check_program(parse_program(program({"api": "SetMaskCount"}, own_mask(count), x_size=512)))
    errors = [v.id for v in counted.violations]
    assert ("block_reduce_sum.mask.counter.range" in errors) == refused, errors
    assert ("block_reduce_sum.counter_mode" in [w.id for w in counted.warnings])  # still not modelled otherwise
    normal = check_program(parse_program(program(own_mask(-1), x_size=512)))
    assert "block_reduce_sum.mask.counter.range" not in [v.id for v in normal.violations]
    assert "block_reduce_sum.mask.count.range" in [v.id for v in normal.violations]


@pytest.mark.parametrize("api", ["SetMaskCount", "SetMaskNorm", "set_mask_count", "asc.set_mask_norm"])
def test_supported_where_the_pages_say(api):
    """Both pages: supported on Ascend 950, Atlas A3, A2, 200I/500 A2 and the inference AI Core; not on the inference
    Vector Core nor the training series -- except SetMaskNorm on the training series, which the vendor's own Ascend
    910 test calls and its implementation issues there (kernel_reg.h: set_mask_norm() on every arch but 3113): a
    warning naming the page, no error (spec note set_mask_norm.training)."""
    norm = get_api(api).name == "SetMaskNorm"
    for product, ok in (("atlas-350", True), ("atlas-a2", True), ("atlas-inference-aicore", True),
                        ("atlas-training", norm), ("atlas-inference-vectorcore", False)):
        got = check_case(parse_case({"api": api, "product": product, "dtype": "half", "args": {}}))
        assert got.valid == ok, (api, product, [v.id for v in got.violations])
        page_warned = [w.id for w in got.warnings] == ["set_mask_norm.product.page"]
        assert page_warned == (norm and product == "atlas-training"), (api, product, got.warnings)


def test_the_placeholder_on_atlas_200i_after_a_count_draws_one_warning():
    """Atlas 200I/500 A2 takes the count prototype's lanes from its argument (spec note mask-count-m300): after
    SetMaskCount(); SetVectorMask<float>(0, 76) the placeholder (0) is the mask, no lane -- mask.count_argument says so;
    counter_mode ("runs 2 repeats, checked and run so") contradicted it and is not drawn (hunt 15)."""
    prog = program({"api": "SetMaskCount"}, {"api": "SetVectorMask", "args": {"maskHigh": 0, "maskLow": 76}}, SUM)
    prog["product"] = "atlas-200i-500-a2"
    assert found(check_program(parse_program(prog))) == ([], [(2, "block_reduce_sum.mask.count_argument")])
    run = run_program(parse_program(prog)).runs[-1]
    assert unspecified_elements(run.memory, "UB", 2048, 8, get_dtype("float")).all()


def test_the_count_idiom_with_a_zero_count_or_a_high_word_is_warned():
    """SetMaskCount(); SetVectorMask<half>(200, 0): the words go in as given and Counter mode reads maskLow, a count of
    0 (nothing computed), maskHigh without effect -- what counter.nonzero and counter.high say of the COUNTER
    template's own words (hunt 17's probe: no warning at all before)."""
    def warned(high, low):
        prog = program({"api": "SetMaskCount"}, {"api": "SetVectorMask", "args": {"maskHigh": high, "maskLow": low}})
        return found(check_program(parse_program(prog)))[1]
    counter = {"set_vector_mask.counter.nonzero", "set_vector_mask.counter.high"}
    assert {w for _, w in warned(200, 0)} & counter == counter
    assert warned(0, 400) == []          # the vendor's idiom itself
    assert {w for _, w in warned(3, 400)} & counter == {"set_vector_mask.counter.high"}

"""SetVectorMask against its vendor page (asc-devkit docs, SetVectorMask): the products it lists, the contiguous
range [0, lanes] with 0 a no-op, and what a later op that uses a mask of 0 makes of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascverify import InputError, check_case, parse_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.core.program import run_program

ROOT = Path(__file__).resolve().parents[1]


def case(mask, product="atlas-a2", dtype="half"):
    return parse_case({"api": "SetVectorMask", "product": product, "dtype": dtype, "args": {"mask": mask}})


def ids(found):
    return [v.id for v in found]


# the page: "for 16-bit operands mask in [0, 128]; for 32-bit operands mask in [0, 64]; 64-bit [0, 32]"
@pytest.mark.parametrize("dtype,lanes", [("half", 128), ("float", 64), ("uint64", 32)])
def test_the_contiguous_range_is_0_to_the_lanes_of_a_repeat(dtype, lanes):
    got = check_case(case(lanes, dtype=dtype))
    assert got.valid and ids(got.warnings) == []
    # past the range: the vendor's SetMask<T>(len) sets the low len bits of the 128-bit register (all of them from
    # 128 on), so every lane of T is on -- and its own 310B1 copy test sets 121, 158 and 200 for 32-bit types: a
    # warning, not an error
    top = check_case(case(lanes + 1, dtype=dtype))
    assert top.valid and ids(top.warnings) == ["set_vector_mask.mask.count.range"]
    assert "every lane" in top.warnings[0].message


def mode_case(mask, mode, dtype="half"):
    return parse_case({"api": "SetVectorMask", "product": "atlas-a2", "dtype": dtype,
                       "args": {"mask": mask, "mode": mode}})


def test_counter_mode_counts_the_elements_of_the_whole_computation():
    """The page: in Counter mode len / maskLow is 'the number of elements of the whole vector computation' (no
    per-repeat range), maskHigh 'must be 0, the parameter has no effect'; len is an int32_t."""
    for mask in (128, 4096, 2**31 - 1, [4096], [4096, 0], [2**40, 0]):
        got = check_case(mode_case(mask, "COUNTER"))
        assert got.valid and ids(got.warnings) == [], mask
    assert ids(check_case(mode_case([4096, 7], "COUNTER")).warnings) == ["set_vector_mask.counter.high"]
    assert ids(check_case(mode_case(0, "COUNTER")).warnings) == ["set_vector_mask.counter.nonzero"]
    assert ids(check_case(mode_case([0, 0], "COUNTER")).warnings) == ["set_vector_mask.counter.nonzero"]
    too_big = check_case(mode_case(2**31, "COUNTER"))
    assert ids(too_big.violations) == ["set_vector_mask.len.int32"]
    # the same count in Normal mode is past every range (a warning) and past int32 (the error)
    assert ids(check_case(mode_case(2**31, "NORMAL")).violations) == ["set_vector_mask.len.int32"]


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_8_bit_types_set_counts_and_masks_the_page_gives_no_range_for(dtype):
    """The vendor's code sets Counter-mode counts with uint8 (layernorm, dropout, the reduce example) and its adv_api
    tests SetVectorMask<uint8_t, NORMAL>(256): Counter mode is plain, Normal mode a warning that names the gap."""
    assert check_case(mode_case([4096, 0], "COUNTER", dtype)).valid
    normal = check_case(mode_case(256, "NORMAL", dtype))
    assert normal.valid and ids(normal.warnings) == ["set_vector_mask.normal.width"]


def test_the_list_is_the_setters_mask_low_and_mask_high():
    """SetVectorMask(maskHigh, maskLow) writes both words whatever T is; the page sets maskHigh to 0 for 32- and
    64-bit operands and maskLow below 2^32 for 64-bit ones: warnings (the vendor's kfc code sets both words to
    2^64-1 for uint64)."""
    assert check_case(case([0xFFFF, 0], dtype="float")).valid
    assert ids(check_case(case([0xFFFF, 0], dtype="float")).warnings) == []
    high = check_case(case([0xFFFF, 1], dtype="float"))
    assert high.valid and ids(high.warnings) == ["set_vector_mask.mask.words.high"]
    full = check_case(case([2**64 - 1, 2**64 - 1], dtype="uint64"))
    assert full.valid and sorted(ids(full.warnings)) == ["set_vector_mask.mask.words.high",
                                                         "set_vector_mask.mask.words.width"]
    # a 16-bit T still needs both words (its 128 lanes are the two words)
    assert ids(check_case(case([0xFFFF], dtype="half")).violations) == ["set_vector_mask.mask.words.count"]


@pytest.mark.parametrize("mask,rule", [(0, "set_vector_mask.mask.count.nonzero"),
                                       ([0, 0], "set_vector_mask.mask.words.nonzero")])
def test_a_mask_that_enables_no_lane_is_legal_with_a_warning(mask, rule):
    """The page: 'mask = 0 means the instruction performs no computation; the call is treated as a NOP'."""
    got = check_case(case(mask))
    assert got.valid and ids(got.violations) == [] and ids(got.warnings) == [rule]
    assert "enables no lane" in got.warnings[0].message or "selects no element" in got.warnings[0].message


@pytest.mark.parametrize("product,error", [("atlas-training", True), ("atlas-a2", False)])
def test_an_op_that_then_uses_a_mask_of_0_breaks_its_own_mask_rule(product, error):
    """... where the op's mask range is [1, 128] (HARDWARE_NOTES Masks); on atlas-a2/a3 the ReduceDataBlock page
    makes a mask of 0 a no-op (a warning at the op)."""
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


def test_counter_mode_does_not_exist_on_the_training_series():
    """The SetMaskCount page (product support): 'Atlas training series: not supported', while the SetVectorMask page
    supports that series (in Normal mode, above). Without SetMaskCount the core stays in Normal mode and the
    COUNTER setter's (maskHigh 0, maskLow len) is read as a bit mask: an error there, on no other product."""
    for product in ("atlas-350", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                    "atlas-training"):
        doc = {"api": "SetVectorMask", "product": product, "dtype": "half", "args": {"mask": 128, "mode": "COUNTER"}}
        got = check_case(parse_case(doc))
        assert (ids(got.violations) == ["set_vector_mask.counter.product"]) == (product == "atlas-training"), product
        assert got.valid == (product != "atlas-training"), product


def test_the_setter_s_own_parameter_names_give_the_words_in_their_order():
    """SetVectorMask(len) / SetVectorMask(maskHigh, maskLow) (the vendor's prototypes, kernel_common.h) and pyasc's
    set_vector_mask(length) / set_vector_mask(mask_high, mask_low): by name, the words cannot be swapped. maskLow
    holds lanes 0-63, so maskHigh = 0, maskLow = 0xF0 enables lanes 4-7, what mask [0xF0, 0] (low word first) says."""
    def env(args):
        return parse_case({"api": "SetVectorMask", "product": "atlas-a2", "dtype": "half", "args": args}).env

    listed = env({"mask": [0xF0, 0]})
    for args in ({"maskHigh": 0, "maskLow": 0xF0}, {"mask_low": 0xF0, "mask_high": 0}):
        assert env(args) == listed, args
    assert env({"len": 64}) == env({"length": 64}) == env({"mask": 64})
    assert env({"maskHigh": 5, "maskLow": 0})["mask.w1"] == 5
    for args, field in (({"maskHigh": 1}, "args.maskLow"), ({"len": 1, "mask": 2}, "args.len"),
                        ({"maskLow": True, "maskHigh": 0}, "args.maskLow"), ({"length": 5, "maskLow": 3}, "args.maskLow"),
                        ({"len": "128"}, "args.len")):
        with pytest.raises(InputError) as err:
            env(args)
        assert err.value.field == field, (args, err.value)
    # in a program, the lanes a later op uses are the named words'
    prog = {"product": "atlas-a2", "dtype": "half",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128},
                        "z": {"position": "VECOUT", "addr": 512, "size": 16}},
            "calls": [{"api": "SetVectorMask", "args": {"maskHigh": 0, "maskLow": 0xF0}},
                      {"api": "BlockReduceMin", "args": {"repeatTime": 1, "mask": "MASK_PLACEHOLDER", "dstRepStride": 1,
                                                         "srcBlkStride": 1, "srcRepStride": 8, "isSetMask": False},
                       "tensors": {"dst": "z", "src": "x"}}]}
    prog["tensors"]["x"]["data"] = [float(128 - i) for i in range(128)]
    got = run_program(parse_program(prog)).runs[1].tensors["dst"]
    assert got[0] == 128 - 7  # block 0, lanes 4-7 on: the minimum of x[4..7] = 124..121


def words_set_mask_writes(dtype_bits: int, length: int) -> tuple[int, int]:
    """(maskHigh, maskLow) as the vendor's AscendCUtils::SetMask<T>(len) computes them (kernel_utils_base.h), written
    out here: len 64 -> (0, all ones); len >= 128 or len == T's lanes -> both words all ones; else the low len bits."""
    full, lanes = 2**64 - 1, 256 * 8 // dtype_bits
    if length == 64:
        return 0, full
    if length == lanes or length >= 128:
        return full, full
    if length > 64:
        return (1 << (length - 64)) - 1, full
    return 0, (1 << length) - 1


@pytest.mark.parametrize("dtype,bits", [("half", 16), ("float", 32), ("uint64", 64), ("uint8", 8)])
def test_on_atlas_350_the_len_form_is_held_to_the_vendor_s_check_of_the_words_it_writes(dtype, bits):
    """On 3510 the vendor's CPU-debug build asserts, for the words SetMask<T>(len) writes, 'maskHigh must be 0 for
    type b32 and b64' and 'maskLow and maskHigh can not be zero at the same time' (found by the vendor-check census):
    errors there for a len above 64 (outside the page's range too) and for 0; a 64-bit T's len of 32 (T's lanes,
    inside the page's range) trips the same assert and is a warning. Other products and the words form: unchanged."""
    for length in (0, 1, 31, 32, 33, 63, 64, 65, 100, 127, 128, 200, 256):
        high, low = words_set_mask_writes(bits, length)
        asserts = (bits >= 32 and high != 0) or (high == 0 and low == 0)
        got = check_case(case(length, product="atlas-350", dtype=dtype))
        errors = {i for i in ids(got.violations) if i.startswith("set_vector_mask.len.")}
        warned = "set_vector_mask.len.all_lanes_b64" in ids(got.warnings)
        assert bool(errors) or warned or not asserts, (dtype, length)      # every asserting len is flagged
        assert not (errors or warned) or asserts, (dtype, length)          # and nothing else
        assert warned == (bits == 64 and length == 32), (dtype, length)
        assert not check_case(case(length, product="atlas-a2", dtype=dtype)).violations, (dtype, length)
        # the words form writes the words as given (no SetMask(len)); Counter mode writes (0, len)
        assert not [v for v in check_case(case([low, high], product="atlas-350", dtype=dtype)).violations
                    if v.id.startswith("set_vector_mask.len.")]
        counted = parse_case({"api": "SetVectorMask", "product": "atlas-350", "dtype": dtype,
                              "args": {"mask": length, "mode": "COUNTER"}})
        assert not [v for v in check_case(counted).violations if v.id.startswith("set_vector_mask.len.")]

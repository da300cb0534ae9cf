"""BlockReduceSum: the binary tree of adjacent pairs, every add rounded in T (half sums in half, not numpy's float32
accumulation), masked-off lanes as +0 at their positions, overflow, NaN and the sign of zero, per-product fills, and
the vendor example's formula. Goldens are written here, in plain Python, from the pages' description."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import check_case, get_api, parse_case
from ascverify.core.memory import INITIALIZED, POISON
from ascverify.core.run import run_case

API = "BlockReduceSum"
MODEL = get_api(API)
U64 = 2**64 - 1
OLD = 7.0
NP = {"half": np.float16, "float": np.float32}


def call(product="atlas-a2", dtype="half", *, api=API, repeat=1, mask=128, dst_rep=8, src_blk=1, src_rep=8,
         is_set_mask=None, dst=("VECOUT", 256, 16), src=("VECIN", 0, 128), dst_data=None, src_data=None) -> dict:
    args = {"repeatTime": repeat, "mask": mask, "dstRepStride": dst_rep, "srcBlkStride": src_blk,
            "srcRepStride": src_rep}
    if is_set_mask is not None:
        args["isSetMask"] = is_set_mask
    tensors = {"dst": {"position": dst[0], "addr": dst[1], "size": dst[2]},
               "src": {"position": src[0], "addr": src[1], "size": src[2]}}
    if dst_data is not None:
        tensors["dst"]["data"] = [float(x) for x in dst_data]
    if src_data is not None:
        tensors["src"]["data"] = [float(x) for x in src_data]
    return {"api": api, "product": product, "dtype": dtype, "args": args, "tensors": tensors}


def golden_tree(values, on, dtype: str) -> float:
    """The pages' tree: lanes (0,1), (2,3), ... then the pair sums likewise; masked-off lanes are +0 at their place.
    Each addition is exact in Python's float (binary64: two halves always, two floats to within a rounding that the
    final one absorbs, 53 >= 2*24 + 2) and is then rounded to T by numpy's cast (nearest even)."""
    rnd = NP[dtype]
    level = [float(v) if a else 0.0 for v, a in zip(values, on)]
    while len(level) > 1:
        level = [float(rnd(level[i] + level[i + 1])) for i in range(0, len(level), 2)]
    return level[0]


def one_block(values, product="atlas-a2", dtype="half", lanes=None):
    """Run one repeat whose block 0 holds ``values`` (other blocks 0), mask = ``lanes`` of block 0 only (all when
    None); return dst[0], its shadow state, and the run."""
    k = 16 if dtype == "half" else 8
    src = np.zeros(8 * k)
    src[:k] = values
    on = [True] * k if lanes is None else [i in lanes for i in range(k)]
    word = sum(1 << i for i in range(k) if on[i])
    mask = [word, 0] if dtype == "half" else [word]
    case = parse_case(call(product, dtype, mask=mask, src=("VECIN", 0, 8 * k), dst=("VECOUT", 256, 8),
                           dst_data=[OLD] * 8))
    case.set_data("src", src.astype(NP[dtype]))  # NaN and inf are not JSON numbers
    assert check_case(case).valid
    res = run_case(case)
    e = 2 if dtype == "half" else 4
    return res.tensors["dst"][0], res.memory.state["UB"][256:256 + e], res


# ------------------------------------------------------------------------------------ order and per-step rounding
def test_half_partial_sums_are_rounded_to_half():
    # [2048, 1, 1, 1, 0...]: (2048 + 1) = 2049 is a tie between halves 2048 and 2050 -> 2048 (even); (1 + 1) = 2;
    # 2048 + 2 = 2050 (exact); the zeros add nothing. A left-to-right sum gives 2048 (each +1 is lost), numpy's
    # np.sum accumulates in float32: 2051 -> 2052 (tie, even) in half.
    values = [2048, 1, 1, 1] + [0] * 12
    got, state, _ = one_block(values)
    assert got == 2050.0 and (state == INITIALIZED).all()
    assert golden_tree(values, [True] * 16, "half") == 2050.0
    assert float(np.sum(np.array(values, dtype=np.float16))) == 2052.0  # why np.sum is no golden for half


def test_masked_lanes_keep_their_positions():
    # active lanes 1..4 hold 2048, 1, 1, 1. In place: (0 + 2048) = 2048, (1 + 1) = 2, (1 + 0) = 1; then 2050 and 1;
    # then 2050 + 1 = 2051 -> 2052 (tie, even). Compacting the active lanes first would give 2050 (test above).
    values = [5, 2048, 1, 1, 1] + [9] * 11  # the masked-off lanes' values never count
    got, _, _ = one_block(values, lanes={1, 2, 3, 4})
    assert got == 2052.0
    assert golden_tree(values, [i in {1, 2, 3, 4} for i in range(16)], "half") == 2052.0


def test_float_tree_order():
    # float32: 2^24 + 1 is a tie -> 2^24. Tree of [2^24, 1, 1, 1, 0, 0, 0, 0]: (2^24 + 1) -> 2^24, (1 + 1) = 2,
    # 2^24 + 2 exact. Left to right it stays 2^24.
    values = [2.0**24, 1, 1, 1, 0, 0, 0, 0]
    got, _, _ = one_block(values, dtype="float")
    assert got == 2.0**24 + 2


# ------------------------------------------------------------------------------------------- overflow, NaN, zeros
@pytest.mark.parametrize("product", ["atlas-a2", "atlas-350", "atlas-200i-500-a2", "atlas-inference-aicore"])
def test_half_overflow_is_unspecified(product):
    # the page's example: 60000 + 60000 overflows half. In the saturation mode it is stored as 65504 (the page's
    # picture), in the non-saturation mode it is inf; the sources disagree on the default: poison.
    got, state, _ = one_block([60000, 60000, -30000, 100] + [0] * 12, product)
    assert (state == POISON).all()
    # an inf input (or NaN) meets the same question
    _, state, _ = one_block([np.inf, 1] + [0] * 14, product)
    assert (state == POISON).all()
    # no overflow anywhere in the tree: a number, the same in both modes
    got, state, _ = one_block([30000, 30000, -30000, 100] + [0] * 12, product)
    assert got == golden_tree([30000, 30000, -30000, 100] + [0] * 12, [True] * 16, "half") == 30096.0
    assert (state == INITIALIZED).all()


def test_float_overflow_and_nan_follow_ieee():
    # float has only the non-saturation mode: inf and NaN are kept
    got, state, _ = one_block([3e38, 3e38, 0, 0, 0, 0, 0, 0], "atlas-a2", "float")
    assert got == math.inf and (state == INITIALIZED).all()
    got, _, _ = one_block([3e38, 3e38, -3e38, -3e38, 0, 0, 0, 0], "atlas-a2", "float")
    assert math.isnan(got)  # inf + -inf
    got, _, _ = one_block([1, np.nan, 0, 0, 0, 0, 0, 0], "atlas-350", "float")
    assert math.isnan(got)
    # the page's numbers in float: exact, 120000 - 29900 = 90100
    got, _, _ = one_block([60000, 60000, -30000, 100, 0, 0, 0, 0], "atlas-a2", "float")
    assert got == 90100.0


def test_the_sign_of_zero():
    # every lane active and -0: -0 + -0 = -0 at every node, on every product
    for product in ("atlas-a2", "atlas-350"):
        got, state, _ = one_block([-0.0] * 16, product)
        assert got == 0 and np.signbit(got) and (state == INITIALIZED).all()
    # lanes 0..3 active, all -0; atlas-350 counts masked lanes as 0: -0 + +0 = +0
    got, state, _ = one_block([-0.0] * 16, "atlas-350", lanes={0, 1, 2, 3})
    assert got == 0 and not np.signbit(got)
    # elsewhere masked lanes may be left out (-0) or count as +0 (+0): unspecified
    _, state, _ = one_block([-0.0] * 16, "atlas-a2", lanes={0, 1, 2, 3})
    assert (state == POISON).all()
    # x + (-x) = +0 whatever the masked lanes do
    got, state, _ = one_block([3.5, -3.5] + [-0.0] * 14, "atlas-a2", lanes={0, 1, 2})
    assert got == 0 and not np.signbit(got) and (state == INITIALIZED).all()


# ---------------------------------------------------------------------------------------------- fully masked blocks
@pytest.mark.parametrize("product, dtype, expected", [
    ("atlas-a2", "half", OLD), ("atlas-a3", "float", OLD),          # nothing stored (the page)
    ("atlas-200i-500-a2", "half", 0.0), ("atlas-200i-500-a2", "float", 0.0),  # "0" (the page, the old page)
    ("atlas-350", "half", 0.0), ("atlas-350", "float", 0.0),          # +0 (the C API page)
    ("atlas-inference-aicore", "half", None), ("atlas-training", "half", None)])  # not documented
def test_fully_masked_blocks(product, dtype, expected):
    k = 16 if dtype == "half" else 8
    src = np.arange(8 * k, dtype=np.float64) % 7 - 3
    mask = [0xFFFF, 0] if dtype == "half" else [0xFFFF]  # half: block 0 only; float: blocks 0 and 1
    case = parse_case(call(product, dtype, mask=mask, src=("VECIN", 0, 8 * k), dst=("VECOUT", 256, 8),
                           src_data=src, dst_data=[OLD] * 8))
    res = run_case(case)
    dst, e = res.tensors["dst"], 2 if dtype == "half" else 4
    first_off = 1 if dtype == "half" else 2
    assert dst[0] == golden_tree(src[:k], [True] * k, dtype)
    state = res.memory.state["UB"][256 + first_off * e:256 + 8 * e]
    if expected is None:
        assert (state == POISON).all()
    else:
        assert dst[first_off:].tolist() == [expected] * (8 - first_off)
        assert not np.signbit(dst[first_off:]).any()


def test_unknown_mask_results_are_poison():
    case = parse_case(call(mask="MASK_PLACEHOLDER", is_set_mask=False))
    assert (run_case(case).memory.state["UB"][256:272] == POISON).all()


# -------------------------------------------------------------------------------- the vendor's example and formula
def test_vendor_example_scenario_3_matches_the_vendors_formula():
    # asc-devkit examples/.../reduce_data_block: ReduceDataBlock<SUM, float>(dst, src, mask 64, repeat 2, 1, 1, 8);
    # gen_data.py draws np.random.seed(9); uniform(-10, 10, 128) as float32 and takes np.sum of every 8-float block.
    # numpy sums 8 contiguous float32 pairwise, which is exactly the tree; our golden must agree with both.
    np.random.seed(9)
    x = np.random.uniform(-10, 10, 128).astype(np.float32)
    vendor = np.array([np.sum(x[8 * i:8 * i + 8]) for i in range(16)], dtype=np.float32)
    ours = np.array([golden_tree(x[8 * i:8 * i + 8], [True] * 8, "float") for i in range(16)], dtype=np.float32)
    assert vendor.view(np.uint32).tolist() == ours.view(np.uint32).tolist()
    for product in ("atlas-a2", "atlas-a3", "atlas-350"):
        case = parse_case(call(product, "float", repeat=2, mask=64, dst_rep=1, src_rep=8, dst=("VECOUT", 512, 16),
                               src=("VECIN", 0, 128), src_data=x, dst_data=[0] * 16))
        assert check_case(case).valid
        got = run_case(case).tensors["dst"]
        assert got.view(np.uint32).tolist() == vendor.view(np.uint32).tolist()


# ------------------------------------------------------------------------------------------------------ properties
@st.composite
def blocks(draw):
    product = draw(st.sampled_from(["atlas-a2", "atlas-350", "atlas-200i-500-a2", "atlas-training"]))
    dtype = draw(st.sampled_from(MODEL.support[product]))
    k = 16 if dtype == "half" else 8
    # multiples of 1/8 (no subnormals), half within +-3000 (16 of them stay finite), float within +-2^22
    top = 3000 * 8 if dtype == "half" else 2**25
    vals = draw(st.lists(st.integers(-top, top).map(lambda v: v / 8), min_size=8 * k, max_size=8 * k))
    mask = draw(st.one_of(st.integers(1, 8 * k),
                          st.lists(st.integers(0, U64), min_size=2 if dtype == "half" else 1,
                                   max_size=2 if dtype == "half" else 1).filter(any)))
    return product, dtype, np.array(vals, dtype=NP[dtype]), mask


@given(blocks())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_sum_is_the_golden_tree(drawn):
    product, dtype, src, mask = drawn
    k = 16 if dtype == "half" else 8
    case = parse_case(call(product, dtype, mask=mask, src=("VECIN", 0, 8 * k), dst=("VECOUT", 256, 8),
                           src_data=src, dst_data=[OLD] * 8))
    assert check_case(case).valid
    res = run_case(case)
    assert not res.faults
    lanes = (np.arange(8 * k) < mask) if isinstance(mask, int) else \
        np.array([bool((mask[j // 64] >> (j % 64)) & 1) for j in range(8 * k)])
    dst = res.tensors["dst"]
    e = 2 if dtype == "half" else 4
    for b in range(8):
        on = lanes[b * k:(b + 1) * k]
        if not on.any():
            continue  # the fills: test_fully_masked_blocks
        want = NP[dtype](golden_tree(src[b * k:(b + 1) * k], on, dtype))
        assert dst[b].tobytes() == want.tobytes(), (b, dst[b], want)
        assert (res.memory.state["UB"][256 + b * e:256 + (b + 1) * e] == INITIALIZED).all()

"""The last datablock a BlockReduce mask enables (`last_active_block`, which sizes src) gives one answer on one case's
plain values, on numpy columns and on Z3 terms, and that answer is the last block with a lane the mask enables,
counted here lane by lane."""

from __future__ import annotations

import numpy as np
import z3
from hypothesis import given, settings, strategies as st

from ascverify import get_api
from ascverify.models.block_reduce_family import last_active_block
from ascverify.spec.rules import Values

MODEL = get_api("BlockReduceMin")


def _expected(bitwise: bool, count: int, words: tuple[int, int], per: int, own_mask: bool) -> int:
    """Lanes 0..8*per-1 of a repeat: lane i enabled by bit i % 64 of word i // 64, or by i < count."""
    if not own_mask:
        return 7
    lanes = [(words[i // 64] >> (i % 64)) & 1 if bitwise else i < count for i in range(8 * per)]
    active = [b for b in range(8) if any(lanes[b * per:(b + 1) * per])]
    return active[-1] if active else 7


def _env(bitwise: bool, count: int, words: tuple[int, int], own_mask: bool) -> dict:
    return {"mask.bitwise": bitwise, "mask.count": count, "mask.nwords": 2, "mask.w0": words[0], "mask.w1": words[1],
            "mask.placeholder": False, "isSetMask": own_mask}


words_st = st.one_of(st.integers(0, 2**64 - 1), st.integers(0, 64).map(lambda k: 1 << k if k < 64 else 0),
                     st.sampled_from([0, 1, 2**63, 2**64 - 1, 0xFFFF, 0xFFFF << 48]))


@settings(max_examples=300, deadline=None)
@given(st.booleans(), st.integers(-5, 200), st.tuples(words_st, words_st), st.sampled_from(["half", "float"]),
       st.booleans())
def test_plain_columns_and_terms_agree_with_the_lanes(bitwise, count, words, dtype, own_mask):
    ctx = MODEL.context("atlas-a2", dtype)
    per = 32 // ctx.sizeof("src")
    want = _expected(bitwise, count, words, per, own_mask)
    env = _env(bitwise, count, words, own_mask)
    assert last_active_block(Values(env, ctx, MODEL), ctx) == want
    # as the column-wise reader holds them: an int64 column, or an object column for a word past int64
    cols = {k: np.array([v], dtype=bool if type(v) is bool else np.int64 if v < 2**63 else object)
            for k, v in env.items()}
    assert int(np.asarray(last_active_block(Values(cols, ctx, MODEL), ctx)).reshape(-1)[0]) == want
    terms = {k: (z3.BoolVal(v) if type(v) is bool else z3.IntVal(v)) for k, v in env.items()}
    assert z3.simplify(last_active_block(Values(terms, ctx, MODEL), ctx)).as_long() == want


def test_every_count_and_every_single_lane_gives_the_block_of_its_last_lane():
    """Exhaustive at the block edges the random draws rarely hit: each contiguous count (lanes 0..count-1) and each
    mask of one set bit (lane i), for both element sizes; plain values against the lane-by-lane count."""
    for dtype in ("half", "float"):
        ctx = MODEL.context("atlas-a2", dtype)
        per = 32 // ctx.sizeof("src")
        for count in range(-2, 8 * per + 3):
            want = _expected(False, count, (0, 0), per, True)
            assert last_active_block(Values(_env(False, count, (0, 0), True), ctx, MODEL), ctx) == want, (dtype, count)
        for lane in range(128):
            words = (1 << lane if lane < 64 else 0, 1 << (lane - 64) if lane >= 64 else 0)
            want = _expected(True, 0, words, per, True)
            assert last_active_block(Values(_env(True, 0, words, True), ctx, MODEL), ctx) == want, (dtype, lane)

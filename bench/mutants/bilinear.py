"""BilinearInterpolation written from its page (000_f2fe3f8fa92b9dd9.txt) and HARDWARE_NOTES, vectorized with numpy:
`reference` and realistic buggy variants of it (each ``f(case, inputs) -> {"dst": ...}``, an ``ascverify fuzz
--target`` function).

Per vertical iteration v and horizontal iteration h, the 8 src0 blocks start at the *byte* offsets
src0Offset[(v*hRepeat + h)*8 + b]; each is multiplied by src1[v*hRepeat + h] (repeatMode false) or by
src1[(v*hRepeat + h)*8 + b] (true), every product rounded to half; the hRepeat products of a block are summed in
order, every addition rounded to half (atlas-a2/a3: from the first product, the others: from +0, HARDWARE_NOTES
BilinearInterpolation and the vendor implementations); block b of iteration v is stored at dst element
v*vROffset + b*dstBlkStride*16 under the mask (mask[0] the low 64 lanes); masked-off lanes keep dst.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

BLOCKS = 8
LANES = 16  # half elements per 32-byte block
FROM_FIRST = ("atlas-a2", "atlas-a3")


def lanes_of(mask: Any, n: int = BLOCKS * LANES, *, swap: bool = False, msb_first: bool = False,
             inclusive: bool = False) -> np.ndarray:
    """The lanes a mask enables: a count (contiguous) or 64-bit words, mask[0] the low 64 lanes."""
    j = np.arange(n)
    if isinstance(mask, int):
        return j <= mask if inclusive else j < mask
    words = [int(w) for w in mask]
    if swap and len(words) == 2:
        words = words[::-1]
    out = np.zeros(n, dtype=bool)
    for i in range(n):
        if i // 64 < len(words):
            bit = 63 - i % 64 if msb_first else i % 64
            out[i] = bool((words[i // 64] >> bit) & 1)
    return out


def reference(case: Mapping[str, Any], inputs: Mapping[str, np.ndarray], **bug: Any) -> dict[str, np.ndarray]:
    a = case["args"]
    H, V = int(a["hRepeat"]), int(a["vRepeat"])
    S, R = int(a["dstBlkStride"]), int(a["vROffset"])
    if bug.get("stride_ignored"):
        S = 1
    lanes = lanes_of(a["mask"], swap=bug.get("swap", False), msb_first=bug.get("msb_first", False),
                     inclusive=bug.get("inclusive", False)).reshape(BLOCKS, LANES)
    src0 = np.asarray(inputs["src0"], dtype=np.float16)
    offsets = np.asarray(inputs["src0Offset"]).astype(np.int64)
    src1 = np.asarray(inputs["src1"], dtype=np.float16)
    dst = np.asarray(inputs["dst"], dtype=np.float16).copy()
    n = BLOCKS * H * V
    first = offsets[:n] if bug.get("offsets_as_elements") else offsets[:n] // 2
    idx = np.minimum(first[:, None] + np.arange(LANES)[None, :], src0.size - 1)
    blocks = src0[idx].reshape(V, H, BLOCKS, LANES).astype(np.float32)
    repeat_mode = bool(a["repeatMode"]) and not bug.get("repeat_mode_ignored")
    if repeat_mode:
        scal = src1[:n].reshape(V, H, BLOCKS, 1)
    elif bug.get("src1_ignores_v"):
        scal = np.broadcast_to(src1[:H].reshape(1, H, 1, 1), (V, H, 1, 1))
    else:
        scal = src1[:H * V].reshape(V, H, 1, 1)
    with np.errstate(all="ignore"):  # inf and NaN inputs are part of the test
        prod32 = blocks * scal.astype(np.float32)
        prod = prod32.astype(np.float16)
    order = range(H - 1, -1, -1) if bug.get("reversed") else range(H - (1 if bug.get("drop_last") else 0))
    with np.errstate(all="ignore"):
        if bug.get("round_once"):
            acc32 = np.zeros((V, BLOCKS, LANES), np.float32)
            for h in order:
                acc32 = acc32 + prod[:, h].astype(np.float32)
            acc = acc32.astype(np.float16)
        elif bug.get("fused"):
            acc = np.zeros((V, BLOCKS, LANES), np.float16)
            for h in order:
                acc = (acc.astype(np.float32) + prod32[:, h]).astype(np.float16)
        else:
            acc = None
            for h in order:
                if acc is None and case["product"] in FROM_FIRST:
                    acc = prod[:, h]
                    continue
                if acc is None:
                    acc = np.zeros((V, BLOCKS, LANES), np.float16)
                acc = (prod[:, h].astype(np.float32) + acc.astype(np.float32)).astype(np.float16)
            if acc is None:
                acc = np.zeros((V, BLOCKS, LANES), np.float16)
            elif case["product"] in FROM_FIRST:  # dav_c220 copies the sums out with Adds(dst, tmp, 0): -0 -> +0
                acc = (acc.astype(np.float32) + np.float32(0)).astype(np.float16)
    blk_step = S if bug.get("stride_in_elements") else S * LANES
    v_step = R // 2 if bug.get("vroffset_in_bytes") else R
    # element index of (v, b, lane); blocks of one iteration and iterations never overlap in a valid case, so the
    # stores are one scatter (a bug that makes them overlap: the last store wins, as in a loop)
    idx = (np.arange(V)[:, None, None] * v_step + np.arange(BLOCKS)[None, :, None] * blk_step
           + np.arange(LANES)[None, None, :])
    on = np.broadcast_to(lanes, idx.shape) & (idx < dst.size)
    new = acc
    if bug.get("accumulate_into_dst"):
        with np.errstate(all="ignore"):
            new = (acc.astype(np.float32) + dst[np.minimum(idx, dst.size - 1)].astype(np.float32)).astype(np.float16)
    if bug.get("masked_zeroed"):
        off = ~np.broadcast_to(lanes, idx.shape) & (idx < dst.size)
        dst[idx[off]] = 0
    dst[idx[on]] = new[on]
    return {"dst": dst}


def mask_words_swapped(case, inputs):
    """mask[0] taken as the high 64 lanes (page 000's example sentence reads it that way)."""
    return reference(case, inputs, swap=True)


def mask_bits_msb_first(case, inputs):
    """Lane i of a mask word is its bit 63 - i (a bit order from the most significant end)."""
    return reference(case, inputs, msb_first=True)


def contiguous_mask_one_extra(case, inputs):
    """A contiguous mask of k lanes enables k + 1 (``<=`` for ``<``)."""
    return reference(case, inputs, inclusive=True)


def repeat_mode_ignored(case, inputs):
    """repeatMode=true read like false: one src1 value for all 8 blocks."""
    return reference(case, inputs, repeat_mode_ignored=True)


def src1_ignores_vertical(case, inputs):
    """repeatMode=false takes src1[h] instead of src1[v*hRepeat + h]: every vertical iteration reuses the first."""
    return reference(case, inputs, src1_ignores_v=True)


def offsets_as_elements(case, inputs):
    """src0Offset values taken as element offsets instead of byte offsets."""
    return reference(case, inputs, offsets_as_elements=True)


def vroffset_in_bytes(case, inputs):
    """vROffset taken in bytes instead of elements."""
    return reference(case, inputs, vroffset_in_bytes=True)


def dst_blk_stride_in_elements(case, inputs):
    """dstBlkStride taken in elements instead of 32-byte blocks."""
    return reference(case, inputs, stride_in_elements=True)


def dst_blk_stride_ignored(case, inputs):
    """dstBlkStride ignored (blocks stored contiguously)."""
    return reference(case, inputs, stride_ignored=True)


def rounds_once_at_the_end(case, inputs):
    """The hRepeat products summed in float32 and rounded to half once, instead of after every addition."""
    return reference(case, inputs, round_once=True)


def fused_multiply_add(case, inputs):
    """Each product added unrounded (a fused multiply-add), the sum rounded per step."""
    return reference(case, inputs, fused=True)


def accumulates_into_dst(case, inputs):
    """The result added to dst's old contents (the page's 'accumulated' read literally) instead of overwriting."""
    return reference(case, inputs, accumulate_into_dst=True)


def masked_lanes_zeroed(case, inputs):
    """Masked-off lanes set to 0 instead of keeping dst's values."""
    return reference(case, inputs, masked_zeroed=True)


def last_horizontal_dropped(case, inputs):
    """The horizontal loop runs hRepeat - 1 times (an off-by-one bound)."""
    return reference(case, inputs, drop_last=True)


def reversed_sum_order(case, inputs):
    """The products summed from the last horizontal iteration to the first."""
    return reference(case, inputs, reversed=True)

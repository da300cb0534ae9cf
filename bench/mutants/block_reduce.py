"""BlockReduceMin / BlockReduceMax / BlockReduceSum written from page 004 (004_2ad9555534615f32.txt), HARDWARE_NOTES
BlockReduceMin and the vendor's ReduceDataBlock page (notes/block_reduce_family.md): `reference` and realistic
buggy variants (``ascverify fuzz --target`` functions, ``f(case, inputs) -> {"dst": ...}``).

Per repeat r, block b of src starts at element (r*srcRepStride + b*srcBlkStride)*32/sizeof(T); the mask spans the
repeat's 128 (half) / 64 (float) lanes, mask[0] the low 64; the block's active elements are reduced and the 8
results stored at dst element r*dstRepStride*8 + b. Min and Max: an active NaN gives NaN (atlas-350), min(-0, +0)
is -0 and max(-0, +0) is +0; Sum: the adjacent-pair tree with masked lanes as +0, every addition rounded in T. A
block without an active lane: atlas-a2/a3 store nothing; atlas-200i-500-a2 stores 65504 / +inf (Min), -65504 /
-inf (Max), 0 (Sum); atlas-350 stores +inf (Min), -inf (Max), +0 (Sum).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

BLOCKS = 8
KEEP = ("atlas-a2", "atlas-a3")


def lanes_of(mask: Any, n: int, *, swap: bool = False, per_block: int = 0) -> np.ndarray:
    j = np.arange(n)
    if isinstance(mask, int):
        if per_block:
            return (j % per_block) < mask
        return j < mask
    words = [int(w) for w in mask]
    if swap and len(words) == 2:
        words = words[::-1]
    bits = [(words[i // 64] >> (i % 64)) & 1 if i // 64 < len(words) else 0 for i in range(n)]
    return np.array(bits, dtype=bool)


def _fill(op: str, product: str, t: np.dtype) -> float | None:
    half = t.itemsize == 2
    if product == "atlas-200i-500-a2":
        return {"min": 65504.0 if half else np.inf, "max": -65504.0 if half else -np.inf, "sum": 0.0}[op]
    if product == "atlas-350":
        return {"min": np.inf, "max": -np.inf, "sum": 0.0}[op]
    return None


def _tree(x: np.ndarray) -> np.ndarray:
    """Adjacent pairs, level by level, each addition rounded in x's type."""
    t = x.dtype
    with np.errstate(all="ignore"):
        while x.shape[-1] > 1:
            x = (x[..., 0::2].astype(np.float64) + x[..., 1::2].astype(np.float64)).astype(t)
    return x[..., 0]


def reference(case: Mapping[str, Any], inputs: Mapping[str, np.ndarray], op: str = "min", **bug: Any) -> dict:
    a = case["args"]
    t = np.dtype(np.float16 if case["dtype"] == "half" else np.float32)
    per = 32 // t.itemsize
    n = int(a.get("repeatTime", a.get("repeat", 0)))
    dst = np.asarray(inputs["dst"], dtype=t).copy()
    if n <= 0:
        return {"dst": dst}
    src = np.asarray(inputs["src"], dtype=t)
    blk, rep = int(a["srcBlkStride"]), int(a["srcRepStride"])
    if bug.get("blk_stride_ignored"):
        blk = 1
    drep = int(a["dstRepStride"]) * (2 if bug.get("dst_rep_in_blocks") else 1)
    r = np.arange(n - (1 if bug.get("drop_last") else 0))
    first = (r[:, None] * rep + np.arange(BLOCKS)[None, :] * blk) * per
    x = src[np.minimum(first[..., None] + np.arange(per), src.size - 1)]
    mask = a["mask"]
    lanes = lanes_of(mask, BLOCKS * per, swap=bug.get("swap", False),
                     per_block=per if bug.get("mask_per_block") else 0).reshape(BLOCKS, per)
    active = np.broadcast_to(lanes, x.shape)
    with np.errstate(all="ignore"):
        if op == "sum":
            if bug.get("sequential"):
                acc = np.zeros(x.shape[:-1], t)
                for i in range(per):
                    acc = (acc.astype(np.float64) + np.where(active[..., i], x[..., i], 0).astype(np.float64)).astype(t)
                res = acc
            else:
                res = _tree(np.where(active, x, np.array(0.0, t)))
        else:
            fill = np.array(np.inf if op == "min" else -np.inf, t)
            vals = np.where(active, x, fill)
            if bug.get("nan_ignored"):
                res = (np.nanmin if op == "min" else np.nanmax)(np.where(np.isnan(vals), fill, vals), axis=-1)
            else:
                res = vals.min(axis=-1) if op == "min" else vals.max(axis=-1)
            zero_sign = (active & (x == 0) & (np.signbit(x) if op == "min" else ~np.signbit(x))).any(axis=-1)
            res = np.where((res == 0) & zero_sign, np.array(-0.0 if op == "min" else 0.0, t), res)
    any_active = active.any(axis=-1)
    fill = _fill(op, case["product"], t)
    if bug.get("fill_zero") and fill is not None:
        fill = 0.0
    if bug.get("fill_inf_half") and fill is not None and abs(fill) == 65504.0:
        fill = np.inf if fill > 0 else -np.inf
    keep = case["product"] in KEEP
    if bug.get("masked_block_stored"):
        keep = False
        fill = 0.0 if fill is None else fill
    for i in range(r.size):
        for b in range(BLOCKS):
            k = i * drep * BLOCKS + b
            if k >= dst.size:
                continue
            if any_active[i, b]:
                dst[k] = res[i, b]
            elif not keep and fill is not None:
                dst[k] = fill
    return {"dst": dst}


def block_reduce_min(case, inputs):
    return reference(case, inputs, "min")


def block_reduce_max(case, inputs):
    return reference(case, inputs, "max")


def block_reduce_sum(case, inputs):
    return reference(case, inputs, "sum")


# -- BlockReduceMin --------------------------------------------------------------------------------------------------

def min_ignores_nan(case, inputs):
    """An active NaN is skipped (fmin-style) instead of giving NaN."""
    return reference(case, inputs, "min", nan_ignored=True)


def min_masked_block_fill_zero(case, inputs):
    """A block without an active lane stores 0 instead of the product's fill value."""
    return reference(case, inputs, "min", fill_zero=True)


def min_masked_block_stored(case, inputs):
    """A block without an active lane is stored on atlas-a2/a3 too (they keep dst)."""
    return reference(case, inputs, "min", masked_block_stored=True)


def min_half_fill_inf(case, inputs):
    """atlas-200i-500-a2 half: +inf stored for a masked block instead of 65504."""
    return reference(case, inputs, "min", fill_inf_half=True)


def min_dst_rep_stride_in_blocks(case, inputs):
    """dstRepStride taken in 32-byte blocks (16 halves) instead of one repeat's 8 results."""
    return reference(case, inputs, "min", dst_rep_in_blocks=True)


def min_src_blk_stride_ignored(case, inputs):
    """srcBlkStride ignored (the 8 blocks of a repeat read contiguously)."""
    return reference(case, inputs, "min", blk_stride_ignored=True)


def min_mask_words_swapped(case, inputs):
    """mask[0] taken as the high 64 lanes."""
    return reference(case, inputs, "min", swap=True)


def min_contiguous_mask_per_block(case, inputs):
    """A contiguous mask of k lanes taken as the first k lanes of every block instead of the repeat's first k."""
    return reference(case, inputs, "min", mask_per_block=True)


def min_last_repeat_dropped(case, inputs):
    """The repeat loop runs repeatTime - 1 times."""
    return reference(case, inputs, "min", drop_last=True)


# -- BlockReduceMax / BlockReduceSum ---------------------------------------------------------------------------------

def max_ignores_nan(case, inputs):
    """Max: an active NaN is skipped instead of giving NaN."""
    return reference(case, inputs, "max", nan_ignored=True)


def max_masked_block_fill_zero(case, inputs):
    """Max: a block without an active lane stores 0 instead of -inf / -65504."""
    return reference(case, inputs, "max", fill_zero=True)


def sum_sequential(case, inputs):
    """Sum: the block summed lane by lane from the left instead of the adjacent-pair tree."""
    return reference(case, inputs, "sum", sequential=True)


def sum_src_blk_stride_ignored(case, inputs):
    """Sum: srcBlkStride ignored."""
    return reference(case, inputs, "sum", blk_stride_ignored=True)

"""An independent numpy implementation of BilinearInterpolation: the example target of `ascverify fuzz`.

    ascverify fuzz BilinearInterpolation --target examples/targets/bilinear_numpy.py:bilinear

It is written from the BilinearInterpolation page and the hardware notes (docs/hardware-notes.md), not from ascverify's core:
for each vertical iteration v, dst's 8 blocks start at element v*vROffset + blk*dstBlkStride*16; each
block is the sum over the hRepeat horizontal iterations of a src0 block (picked by the byte offset in
src0Offset) times a src1 value (one per iteration, or one per block with repeatMode), rounded to half
after every multiply and every add; masked-off lanes keep dst's old values.
"""

from __future__ import annotations

import numpy as np

BLOCKS = 8


def active_lanes(mask, lanes: int) -> np.ndarray:
    """The lanes a mask enables: a count (contiguous) or 64-bit words, mask[0] the low 64 lanes."""
    if isinstance(mask, int):
        return np.arange(lanes) < mask
    bits = np.zeros(lanes, dtype=bool)
    for j in range(lanes):
        bits[j] = bool((int(mask[j // 64]) >> (j % 64)) & 1) if j // 64 < len(mask) else False
    return bits


def bilinear(case: dict, inputs: dict) -> dict:
    a = case["args"]
    h_rep, v_rep = int(a["hRepeat"]), int(a["vRepeat"])
    stride, v_off = int(a["dstBlkStride"]), int(a["vROffset"])
    per_block = 32 // 2  # half
    lanes = active_lanes(a["mask"], BLOCKS * per_block)
    src0, offsets, src1 = inputs["src0"], inputs["src0Offset"].astype(np.int64), inputs["src1"]
    dst = inputs["dst"].copy()
    for v in range(v_rep):
        acc = np.zeros((BLOCKS, per_block), dtype=np.float16)
        for h in range(h_rep):
            for blk in range(BLOCKS):
                k = (v * h_rep + h) * BLOCKS + blk
                first = int(offsets[k]) // 2
                block = src0[first:first + per_block].astype(np.float32)
                scalar = np.float32(src1[k] if a["repeatMode"] else src1[v * h_rep + h])
                product = (block * scalar).astype(np.float16)
                acc[blk] = (acc[blk].astype(np.float32) + product.astype(np.float32)).astype(np.float16)
        for blk in range(BLOCKS):
            start = v * v_off + blk * stride * per_block
            on = lanes[blk * per_block:(blk + 1) * per_block]
            dst[start:start + per_block][on] = acc[blk][on]
    return {"dst": dst}

"""Stores of one repeat onto bytes a later repeat reads, by interval arithmetic over the repeats.

A strided call runs repeats r = 0..n-1 in order. Repeat r stores ``width`` bytes at ``d0 + r*dst_step`` and reads
``blocks`` blocks of ``block`` bytes, block b at ``s0 + r*src_step + b*blk_step``. A store of repeat r clobbers a
read of repeat r2 when r < r2 and the two byte ranges meet. For one block (r2, b) starting at s, the stores that meet
it are those with ``s - width < d0 + r*dst_step < s + block``: an interval of r (every r or none when dst_step is 0).
Each (r2, b) thus costs a few integer operations, where a grid over every (r, r2, b) costs n*n*blocks points.

The steps are non-negative byte counts; every function takes numpy int64 columns (one entry per case) or, for
`first_clobber`, one case's ints.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clobbered_blocks", "clobbers", "first_clobber"]

#: how many (case, r2, b) points one pass evaluates at most (a few MB of temporaries; 32 cases of 255 repeats)
CHUNK = 1 << 16


def _meeting_repeats(d0: np.ndarray, s0: np.ndarray, n: np.ndarray, dst_step: np.ndarray, width: np.ndarray,
                     src_step: np.ndarray, blk_step: np.ndarray, blocks: int, block: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every case and every (r2, b) with 1 <= r2 < n: the case's index, r2, b, and the first and last repeat
    r < r2 whose store meets block b of repeat r2 (first > last: none)."""
    count = (n - 1) * blocks
    owner = np.repeat(np.arange(n.size), count)
    pos = np.arange(owner.size, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    r2, b = pos // blocks + 1, pos % blocks
    start = s0[owner] + r2 * src_step[owner] + b * blk_step[owner] - d0[owner]   # the block, relative to d0
    lo, hi = start - width[owner], start + block          # the stores that meet it: lo < r*step < hi
    step = dst_step[owner]
    still = step == 0
    safe = np.where(still, 1, step)
    first = np.where(still, np.where((lo < 0) & (hi > 0), 0, r2), lo // safe + 1)
    last = np.where(still, r2 - 1, -(-hi // safe) - 1)
    return owner, r2, b, np.maximum(first, 0), np.minimum(last, r2 - 1)


def _columns(*xs: object) -> list[np.ndarray]:
    k = max(np.size(x) for x in xs)
    return [np.broadcast_to(np.asarray(x, dtype=np.int64), (k,)) for x in xs]


def clobbers(d0: object, s0: object, n: object, dst_step: object, width: object, src_step: object,
             blk_step: object, *, blocks: int, block: int) -> np.ndarray:
    """Per case: some repeat's store meets a block that a later repeat reads (cases with n < 2: False)."""
    d0, s0, n, dst_step, width, src_step, blk_step = _columns(d0, s0, n, dst_step, width, src_step, blk_step)
    out = np.zeros(n.size, dtype=bool)
    todo = np.flatnonzero(n >= 2)
    ends = np.cumsum((n[todo] - 1) * blocks)
    i = 0
    while i < todo.size:  # chunks of at most CHUNK points (at least one case)
        j = max(i + 1, int(np.searchsorted(ends, (ends[i - 1] if i else 0) + CHUNK, side="right")))
        rows = todo[i:j]
        owner, _, _, first, last = _meeting_repeats(d0[rows], s0[rows], n[rows], dst_step[rows], width[rows],
                                                    src_step[rows], blk_step[rows], blocks, block)
        out[rows] = np.bincount(owner[first <= last], minlength=rows.size) > 0
        i = j
    return out


def first_clobber(d0: int, s0: int, n: int, dst_step: int, width: int, src_step: int, blk_step: int, *,
                  blocks: int, block: int) -> tuple[int, int, int] | None:
    """For one case: the first (r, r2, b), in lexicographic order, such that repeat r's store meets block b of
    repeat r2 > r; None when there is none."""
    if n < 2:
        return None
    _, r2, b, first, last = _meeting_repeats(*_columns(d0, s0, n, dst_step, width, src_step, blk_step), blocks, block)
    hit = first <= last
    if not hit.any():
        return None
    r = int(first[hit].min())           # the earliest store that meets some later block
    at = int(np.argmax(hit & (first == r)))   # its first (r2, b): every hit block's range starts at r or later
    return r, int(r2[at]), int(b[at])


def clobbered_blocks(stores: np.ndarray, size: int, stored: np.ndarray, reads: np.ndarray, read: np.ndarray,
                     block: int) -> np.ndarray:
    """For one call: which blocks a repeat reads hold a byte that an earlier repeat stores, byte-exact.

    ``stores`` (n, k): the byte address of each of repeat r's k results of ``size`` bytes, ``stored`` (n, k) or (k,)
    which of them are stored; ``reads`` (n, blocks): the address of each block of ``block`` bytes repeat r reads,
    ``read`` (n, blocks) or (blocks,) which are read. True at (r2, b) when block b of repeat r2 meets a result of
    some repeat r < r2 (the hardware then may read the byte before or after it is stored: the result of that block
    is unspecified). Sparse: at most n*k*size stored bytes, looked up per block by binary search."""
    n = stores.shape[0]
    out = np.zeros(reads.shape, dtype=bool)
    keep = np.broadcast_to(stored, stores.shape)
    taken = np.broadcast_to(read, reads.shape)
    if n < 2 or not keep.any() or not taken.any():
        return out
    kept, blocks = stores[keep], reads[taken]
    if kept.max() + size <= blocks.min() or blocks.max() + block <= kept.min():
        return out  # every byte stored lies below or above every block read (dst and src apart: the common call)
    reps = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], stores.shape)[keep]
    addr = (kept[:, None] + np.arange(size, dtype=np.int64)).ravel()
    reps = np.repeat(reps, size)
    order = np.lexsort((reps, addr))                  # by address, the earliest store of an address first
    addr, reps = addr[order], reps[order]
    first = np.ones(addr.size, dtype=bool)
    first[1:] = addr[1:] != addr[:-1]
    addr, reps = addr[first], reps[first]             # each stored byte once, with the earliest repeat storing it
    lo = np.searchsorted(addr, reads, side="left")
    hi = np.searchsorted(addr, reads + block, side="left")
    idx = lo[..., None] + np.arange(block, dtype=np.int64)   # at most `block` distinct stored bytes in a block
    inside = idx < hi[..., None]
    earliest = np.where(inside, reps[np.minimum(idx, addr.size - 1)], n).min(axis=-1)
    return (earliest < np.arange(n, dtype=np.int64)[:, None]) & taken

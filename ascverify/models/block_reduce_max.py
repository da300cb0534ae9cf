"""BlockReduceMax (pyasc ``block_reduce_max``; asc-devkit ``ReduceDataBlock<ReduceType::MAX>``).

Per repeat r the call reads 8 datablocks of src, block b at byte ``(r*srcRepStride + b*srcBlkStride)*32``
from src's start, takes the maximum of each block's active elements (the mask spans the repeat's
128 half / 64 float elements) and stores the 8 maxima contiguously at dst element ``r*dstRepStride*8``.
Parameters, rules and the shared spec notes: `block_reduce_family` (one vendor page for SUM, MAX and MIN).
"""

from __future__ import annotations

import numpy as np

from ..cases.case import Case
from ..core.memory import POISON
from ..spec.model import SpecNote
from ..spec.registry import register
from .block_reduce_family import PAGE, REG_PAGE, BlockReduceFamily, block_reads, simulate
from .block_reduce_min import (
    BLOCKS_PER_REPEAT,
    KEEP_PRODUCTS,
    contiguous_equals_bitwise,
    in_place_rule_matches_core,
    masked_lanes_never_matter,
)
from .vector_common import lane_mask

P = "block_reduce_max"
OLD_PAGE = "BlockReduceMax (asc-devkit docs before the rename to ReduceDataBlock)"
C_PAGE = "asc_reduce_max_datablock (asc-devkit C API docs)"
#: What atlas-200i-500-a2 stores for a fully masked half block (the most negative finite half).
HALF_FILL_200I = -65504.0


@register
class BlockReduceMax(BlockReduceFamily):
    name = "BlockReduceMax"
    prefix = P
    op = "MAX"
    summary = "dst[r*dstRepStride*8 + b] = max over the active elements of datablock b of repeat r of src"
    own_notes = (
        SpecNote(f"{P}.masked-block", "A fully masked-off datablock",
                 "A block with no active element: atlas-a2/a3 store nothing (dst keeps its value); atlas-200i-500-a2 "
                 "stores -65504 (half) / -inf (float); atlas-350 stores -inf (half too); elsewhere the stored value is "
                 "unspecified (the core marks it poison). On atlas-200i-500-a2, a half block with masked-off lanes "
                 "whose active elements are all -inf is unspecified as well: whether the masked lanes count as the "
                 "fill -65504 (giving -65504) is not documented.",
                 "The ReduceDataBlock page (and the pre-rename BlockReduceMax page for atlas-200i-500-a2) give the "
                 "three products; no page names the others. For atlas-350 the Reg API page says masked lanes count as 'the "
                 "minimum of the data type', the basic and C API pages say -inf: -inf is taken for half too, not "
                 "-65504 as on atlas-200i-500-a2.",
                 (f"{PAGE}, Restrictions (fully masked datablocks)", f"{OLD_PAGE}, Restrictions",
                  f"{REG_PAGE}, Key features (empty mask and special values)", f"{C_PAGE}, Restrictions")),
        SpecNote(f"{P}.nan-zero", "NaN and signed zero",
                 "atlas-350: a NaN among a block's active elements gives NaN; max(-0, +0) = +0. Elsewhere a NaN among "
                 "the active elements makes the result unspecified (poison), and a zero maximum is +0 when an active "
                 "+0 is present (which zero the other products store is not documented; the two compare equal).",
                 "The Reg API page (atlas-350) documents NaN and max(-0, +0) = +0, the C API page the zeros too; the "
                 "basic API pages are silent for the other products.",
                 (f"{REG_PAGE}, Restrictions", f"{REG_PAGE}, Key features (empty mask and special values)",
                  f"{C_PAGE}, Restrictions")),
    )

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat (128 for half, 64 for float), or None when a prior SetVectorMask set them
        (here, not in the family, so that the mask mutants of ``ascverify selftest`` reach it)."""
        if not case.env["isSetMask"] or case.env.get("mask.placeholder"):
            return None
        return lane_mask(case)

    def masked_fill(self, case: Case) -> float | None:
        if case.product == "atlas-200i-500-a2":
            return HALF_FILL_200I if case.ctx.dtype.size == 2 else -np.inf
        if case.product == "atlas-350":
            return -np.inf
        return None

    def reduce(self, case: Case, x: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        np_t = x.dtype
        result = np.where(active, x, np.array(-np.inf, dtype=np_t)).max(axis=-1)  # an active NaN propagates
        poison = np.zeros(result.shape, dtype=bool)
        pos_zero = (active & (x == 0) & ~np.signbit(x)).any(axis=-1)
        result = np.where((result == 0) & pos_zero, np.array(0.0, dtype=np_t), result)
        has_nan = (active & np.isnan(x)).any(axis=-1)
        if case.product == "atlas-350":
            result = np.where(has_nan, np.array(np.nan, dtype=np_t), result)
        else:
            poison |= has_nan
        if case.product == "atlas-200i-500-a2" and np_t.itemsize == 2:
            partial = active.any(axis=-1) & ~active.all(axis=-1)
            poison |= partial & (result == -np.inf)
        return result, poison

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        if tensor == "src":
            # quarter-integers in [-8, 8]: exact in half, with repeats inside a block (ties are common)
            t = case.tensor(tensor)
            return (rng.integers(-32, 33, size=t.size) / 4).astype(t.dtype.numpy)
        return None


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------

def results_are_block_maxima(case: Case, seed: int = 0) -> None:
    """Every result is >= each active element of its block and equal to one of them (NaN: atlas-350 gives NaN,
    elsewhere poison); a block without active element gives the product's value (old dst on atlas-a2/a3, -65504 /
    -inf on atlas-200i-500-a2, -inf on atlas-350, poison elsewhere); an unknown mask gives poison."""
    n = int(case.env["repeatTime"])
    if n <= 0:
        return
    before, after, _ = simulate(case, seed)
    dst, src, t = case.tensor("dst"), case.tensor("src"), case.ctx.dtype
    e = t.size
    # on a valid case no byte is stored before a later repeat reads it: every read sees the initial memory
    x = before.typed(src.buffer, src.addr, src.size, t.numpy)
    old = before.typed(dst.buffer, dst.addr, dst.size, t.numpy)
    out = after.typed(dst.buffer, dst.addr, dst.size, t.numpy)
    state = after.state[dst.buffer][dst.addr:dst.end].reshape(-1, e)
    stride = int(case.env["dstRepStride"])
    unknown = case.model.active_lanes(case) is None
    idx = block_reads(case)
    active = lane_mask(case).reshape(BLOCKS_PER_REPEAT, -1) if not unknown else None
    for r in range(n - 1 if stride == 0 else 0, n):  # with dstRepStride 0 the last repeat's results remain
        for b in range(BLOCKS_PER_REPEAT):
            at = r * stride * BLOCKS_PER_REPEAT + b
            poisoned = bool((state[at] == POISON).all())
            where = f"repeat {r}, block {b}"
            if unknown:
                assert poisoned, f"{where}: the result of an unknown mask is not poison"
                continue
            vals = x[idx[r, b]][active[b]]
            partial = 0 < vals.size < active[b].size
            if vals.size and np.isnan(vals).any():
                assert np.isnan(out[at]) if case.product == "atlas-350" else poisoned, f"{where}: NaN handling"
            elif partial and case.product == "atlas-200i-500-a2" and e == 2 and np.all(vals == -np.inf):
                assert poisoned, f"{where}: all active -inf beside masked lanes is not marked unspecified"
            elif vals.size:
                assert not poisoned and np.all(out[at] >= vals) and np.any(out[at] == vals), \
                    f"{where}: {out[at]} is not the maximum of {vals.tolist()}"
                if out[at] == 0 and np.any((vals == 0) & ~np.signbit(vals)):
                    assert not np.signbit(out[at]), f"{where}: max(-0, +0) gave -0"
            elif case.product in KEEP_PRODUCTS:
                assert old[at].tobytes() == out[at].tobytes(), f"{where}: a fully masked block changed dst"
            elif case.product in ("atlas-350", "atlas-200i-500-a2"):
                fill = HALF_FILL_200I if case.product != "atlas-350" and e == 2 else -np.inf
                assert out[at] == fill, f"{where}: a fully masked block gives {out[at]}, not {fill}"
            else:
                assert poisoned, f"{where}: a fully masked block's result is not marked unspecified"


BlockReduceMax.invariants = (results_are_block_maxima, masked_lanes_never_matter, contiguous_equals_bitwise,
                             in_place_rule_matches_core)

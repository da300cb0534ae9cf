"""BlockReduceSum (pyasc ``block_reduce_sum``; asc-devkit ``ReduceDataBlock<ReduceType::SUM>``).

Per repeat r the call reads 8 datablocks of src, block b at byte ``(r*srcRepStride + b*srcBlkStride)*32``
from src's start, sums each block's 16 (half) / 8 (float) lanes as a binary tree of adjacent pairs, every
addition rounded in T, masked-off lanes taking part as +0, and stores the 8 sums contiguously at dst element
``r*dstRepStride*8``. Parameters, rules and the shared spec notes: `block_reduce_family`.
"""

from __future__ import annotations

import numpy as np

from ..cases.case import Case
from ..spec.model import SpecNote
from ..spec.registry import register
from .block_reduce_family import (CTRL_PAGE, KEEP, KEEP_PRODUCTS, PAGE, REG_PAGE, SHARED_INVARIANTS,
                                  BlockReduceFamily, check_masked_block, lanes_of, stored_results)
from .vector_common import lane_mask

P = "block_reduce_sum"
OLD_PAGE = "BlockReduceSum (asc-devkit docs before the rename to ReduceDataBlock)"
PY_PAGE = "asc.language.basic.block_reduce_sum (pyasc)"
C_PAGE = "asc_reduce_sum_datablock (asc-devkit C API docs)"
#: Products whose fully masked block stores 0 (taken as +0).
ZERO_FILL_PRODUCTS = ("atlas-200i-500-a2", "atlas-350")
#: The product whose pages say how masked-off lanes take part (as 0): elsewhere the sign of some zeros is open.
LANES_AS_ZERO = "atlas-350"


def tree_sum(values: np.ndarray) -> np.ndarray:
    """Sum the last axis (a power of two long) as a binary tree of adjacent pairs, each addition one IEEE add in
    the array's type rounded to nearest even: exact in float64 (or, for float32, rounded twice without harm, as 53
    >= 2*24 + 2) and rounded once to the type. Overflow gives +-inf; inf and NaN propagate."""
    t = values.dtype
    with np.errstate(over="ignore", invalid="ignore"):
        while values.shape[-1] > 1:
            values = (values[..., 0::2].astype(np.float64) + values[..., 1::2].astype(np.float64)).astype(t)
    return values[..., 0]


@register
class BlockReduceSum(BlockReduceFamily):
    name = "BlockReduceSum"
    prefix = P
    op = "SUM"
    summary = ("dst[r*dstRepStride*8 + b] = the sum of the active elements of datablock b of repeat r of src, as a "
               "binary tree of adjacent pairs rounded in T")
    own_notes = (
        SpecNote(f"{P}.order", "Order and rounding of the sum",
                 "Per datablock the 16 (half) / 8 (float) lanes are summed as a binary tree of adjacent pairs: lanes "
                 "(0,1), (2,3), ... then the pair sums (0,1), (2,3), ... until one value. Every addition is one IEEE "
                 "add in T rounded to nearest even (half partial sums are half, so 2048 + 1 is 2048). Masked-off lanes "
                 "take part as +0 at their positions (not compacted). Subnormal values follow IEEE gradual underflow.",
                 "The ReduceDataBlock page and pyasc's docstring describe the binary tree of pairs; its example "
                 "(60000 + 60000 stored as 65504, then 65504 - 29900 = 35604) shows per-step half results, though its "
                 "decimal values are not half values (-29900 is -29904 in half, and the half tree gives 35584). The "
                 "rounding mode and flushing of subnormals are not documented: nearest-even and gradual underflow are "
                 "the assumption. The Reg API page says masked-off lanes count as 0.",
                 (f"{PAGE}, Key features", f"{PY_PAGE}, Description", f"{OLD_PAGE}, Description",
                  f"{REG_PAGE}, Restrictions", f"{C_PAGE}, Key features")),
        SpecNote(f"{P}.overflow", "Overflow, inf and NaN",
                 "float: overflow gives +-inf and inf/NaN propagate (IEEE). half: a result whose tree meets +-inf or "
                 "NaN anywhere (a partial sum beyond 65504, or an active inf/NaN) is unspecified (poison); a result "
                 "whose tree stays finite is the same in both modes.",
                 "float supports only the non-saturation mode (inf/NaN kept). For half the sources disagree: the "
                 "ReduceDataBlock page says half defaults to the non-saturation mode and that the 65504 clamp of its "
                 "example is the saturation mode; the pre-rename page and pyasc's docstring state the clamp to 65504 "
                 "without any mode; SetCtrlSpr lists CTRL[48] = 0, the saturation mode (inf to +-65504, NaN to 0), as "
                 "the default on atlas-350 and atlas-a2/a3, where a kernel may also change it (SetSaturationFlag).",
                 (f"{PAGE}, Restrictions (saturation mode)", f"{OLD_PAGE}, Description", f"{PY_PAGE}, Description",
                  CTRL_PAGE)),
        SpecNote(f"{P}.masked-block", "A fully masked-off datablock",
                 "A block with no active element: atlas-a2/a3 store nothing (dst keeps its value); atlas-200i-500-a2 "
                 "and atlas-350 store +0; elsewhere the stored value is unspecified (the core marks it poison).",
                 "The ReduceDataBlock page gives the three products ('0'); the C API page says +0 for floating point "
                 "on atlas-350, and '0' is read as +0 on atlas-200i-500-a2 too. No page names the other products.",
                 (f"{PAGE}, Restrictions (fully masked datablocks)", f"{OLD_PAGE}, Restrictions",
                  f"{REG_PAGE}, Key features (empty mask and special values)", f"{C_PAGE}, Restrictions")),
        SpecNote(f"{P}.zero-sign", "The sign of a zero sum",
                 "atlas-350: masked-off lanes are +0, so a sum is -0 only when every lane of the block is active and "
                 "-0. Elsewhere a block with masked-off lanes whose active elements are all -0 gives an unspecified "
                 "result (poison): -0 if the masked lanes are left out, +0 if they count as +0. Any other zero sum is "
                 "+0 under nearest-even on every product.",
                 "Only the Reg API page (atlas-350) says how masked-off lanes take part; the values agree either way "
                 "except for this sign.",
                 (f"{REG_PAGE}, Restrictions", f"{C_PAGE}, Restrictions")),
    )

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat, or None when a prior SetVectorMask set them (``lane_mask`` is looked up in
        this module, so that the mask mutants of ``ascverify selftest`` reach it)."""
        return lanes_of(case, lane_mask)

    def masked_fill(self, case: Case) -> float | str | None:
        if case.product in KEEP_PRODUCTS:
            return KEEP
        return 0.0 if case.product in ZERO_FILL_PRODUCTS else None

    def reduce(self, case: Case, x: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``active`` (block, lane) broadcasts against ``x`` (repeat, block, lane)."""
        np_t = x.dtype
        result = tree_sum(np.where(active, x, np.array(0.0, dtype=np_t)))
        poison = np.zeros(result.shape, dtype=bool)
        if np_t.itemsize == 2:  # the tree met inf or NaN: the saturation mode decides (spec note overflow)
            poison |= ~np.isfinite(result)
        if case.product != LANES_AS_ZERO:
            partial = active.any(axis=-1) & ~active.all(axis=-1)
            all_neg_zero = ~(active & ~((x == 0) & np.signbit(x))).any(axis=-1)
            poison |= partial & all_neg_zero
        return result, poison

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        if tensor == "src":
            # multiples of 1/8: no subnormal input or partial sum; half within +-3000 (16 of them stay below
            # 65504) and float within +-2^22, so that the per-step rounding shows
            t = case.tensor(tensor)
            top = 3000 * 8 if t.dtype.size == 2 else 2**25
            return (rng.integers(-top, top + 1, size=t.size) / 8).astype(t.dtype.numpy)
        return None


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------

def _scalar_tree(vals: list) -> object:
    """The adjacent-pair tree with numpy's scalar arithmetic in the values' own type (not `tree_sum`'s float64)."""
    while len(vals) > 1:
        vals = [vals[i] + vals[i + 1] for i in range(0, len(vals), 2)]
    return vals[0]


def results_are_tree_sums(case: Case, seed: int = 0) -> None:
    """Every result is the adjacent-pair tree of its block (masked-off lanes +0, each add in T), or poison where
    the spec notes leave it open (half trees meeting inf/NaN; an all -0 partial block off atlas-350); a block
    without active element gives the product's value (old dst on atlas-a2/a3, +0 on atlas-200i-500-a2 and
    atlas-350, poison elsewhere); an unknown mask gives poison."""
    zero = case.ctx.dtype.numpy.type(0)
    for res in stored_results(case, seed):
        block, on, out = res.block, res.active, res.out
        if not on.any():
            check_masked_block(case, res, dict.fromkeys(ZERO_FILL_PRODUCTS, (0.0, 0.0)))
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            want = _scalar_tree([v if a else zero for v, a in zip(block, on)])
        neg_zeros = bool(np.all((block[on] == 0) & np.signbit(block[on])))
        if case.ctx.dtype.size == 2 and not np.isfinite(want):
            assert res.poisoned, f"{res.where}: a half tree meeting inf/NaN is not marked unspecified"
        elif case.product != LANES_AS_ZERO and not on.all() and neg_zeros:
            assert res.poisoned, f"{res.where}: the sign of an all -0 partial block is not marked unspecified"
        else:
            same = want.tobytes() == out.tobytes() or (np.isnan(want) and np.isnan(out))
            assert not res.poisoned and same, f"{res.where}: {out!r}, not the tree sum {want!r} of {block.tolist()}"


BlockReduceSum.invariants = (results_are_tree_sums, *SHARED_INVARIANTS)

"""BlockReduceMax (pyasc ``block_reduce_max``; asc-devkit ``ReduceDataBlock<ReduceType::MAX>``).

Per repeat r the call reads 8 datablocks of src, block b at byte ``(r*srcRepStride + b*srcBlkStride)*32``
from src's start, takes the maximum of each block's active elements (the mask spans the repeat's
128 half / 64 float elements) and stores the 8 maxima contiguously at dst element ``r*dstRepStride*8``.
Parameters, rules and the shared spec notes: `block_reduce_family` (one vendor page for SUM, MAX and MIN).
"""

from __future__ import annotations

import numpy as np

from ..cases.case import Case
from ..core.extremes import masked_extreme
from ..spec.model import SpecNote
from ..spec.registry import register
from .block_reduce_family import (BOUNDARY_PAGE, KEEP, KEEP_PRODUCTS, PAGE, REG_PAGE, SHARED_INVARIANTS,
                                  BlockReduceFamily, check_masked_block, lanes_at, lanes_of, nan_gives_nan,
                                  stored_results)
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
    output_comparison = "selects"  # each result is one of the inputs: max(-0, +0) is +0, not "close to" it
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
                 "atlas-350, and float on atlas-a2 / a3: a NaN among a block's active elements gives NaN (the "
                 "canonical quiet NaN); max(-0, +0) = +0. Elsewhere (and half on atlas-a2 / a3) a NaN among the active "
                 "elements makes the result unspecified (poison), and a zero maximum is +0 when an active +0 is "
                 "present (which zero the other products store is not documented; the two compare equal).",
                 "The Reg API page (atlas-350) documents NaN and max(-0, +0) = +0, the C API page the zeros too. The "
                 "vendor's boundary-values appendix (Atlas A2 / A3) gives NaN for every NaN input in the INF/NAN mode, "
                 "float's only mode; for half the saturation mode gives 0, and which mode is the default is disputed "
                 "(block_reduce_sum.overflow): half stays unspecified there. The basic API pages are silent for the "
                 "other products.",
                 (f"{REG_PAGE}, Restrictions", f"{REG_PAGE}, Key features (empty mask and special values)",
                  f"{C_PAGE}, Restrictions", BOUNDARY_PAGE)),
    )

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat, or None when a prior SetVectorMask set them (``lane_mask`` is looked up in
        this module, so that the mask mutants of ``ascverify selftest`` reach it)."""
        return lanes_of(case, lane_mask)

    def masked_fill(self, case: Case) -> float | str | None:
        if case.product in KEEP_PRODUCTS:
            return KEEP
        if case.product == "atlas-200i-500-a2":
            return HALF_FILL_200I if case.ctx.dtype.size == 2 else -np.inf
        if case.product == "atlas-350":
            return -np.inf
        return None

    def reduce(self, case: Case, x: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``active`` (block, lane) broadcasts against ``x`` (repeat, block, lane)."""
        np_t = x.dtype
        # per (repeat, block): the maximum of the active lanes, -0 below +0 (max(-0, +0) = +0), on the bits
        result, has_nan = masked_extreme(x, active, "max", none_if_clean=True)
        poison = None
        if has_nan is not None:
            rows = np.nonzero(has_nan)
            if nan_gives_nan(case):                       # an active NaN gives NaN
                result[rows] = np.array(np.nan, dtype=np_t)
            else:                                         # unspecified: the NaN numpy's max propagates
                result[rows] = np.where(lanes_at(active, rows), x[rows], np.array(-np.inf, dtype=np_t)).max(axis=-1)
                poison = has_nan
        if case.product == "atlas-200i-500-a2" and np_t.itemsize == 2:
            partial = active.any(axis=-1) & ~active.all(axis=-1)
            if partial.any():
                partial = partial & (result == np.array(-np.inf, dtype=np_t))
                poison = partial if poison is None else poison | partial
        return result, poison


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------

def results_are_block_maxima(case: Case, seed: int = 0) -> None:
    """Every result is >= each active element of its block and equal to one of them (NaN: atlas-350 gives NaN,
    elsewhere poison); a block without active element gives the product's value (old dst on atlas-a2/a3, -65504 /
    -inf on atlas-200i-500-a2, -inf on atlas-350, poison elsewhere); an unknown mask gives poison."""
    for res in stored_results(case, seed):
        vals, out = res.block[res.active], res.out
        partial = 0 < vals.size < res.active.size
        if not vals.size:
            check_masked_block(case, res, {"atlas-350": (-np.inf, -np.inf),
                                           "atlas-200i-500-a2": (HALF_FILL_200I, -np.inf)})
        elif np.isnan(vals).any():
            assert np.isnan(out) if nan_gives_nan(case) else res.poisoned, f"{res.where}: NaN handling"
        elif partial and case.product == "atlas-200i-500-a2" and case.ctx.dtype.size == 2 and \
                np.all(vals == -np.inf):
            assert res.poisoned, f"{res.where}: all active -inf beside masked lanes is not marked unspecified"
        else:
            assert not res.poisoned and np.all(out >= vals) and np.any(out == vals), \
                f"{res.where}: {out} is not the maximum of {vals.tolist()}"
            if out == 0 and np.any((vals == 0) & ~np.signbit(vals)):
                assert not np.signbit(out), f"{res.where}: max(-0, +0) gave -0"


BlockReduceMax.invariants = (results_are_block_maxima, *SHARED_INVARIANTS)

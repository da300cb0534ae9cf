"""BlockReduceMin (page 004_2ad9555534615f32.txt + HARDWARE_NOTES.md BlockReduceMin).

Per repeat r the call reads 8 datablocks of src, block b at byte ``(r*srcRepStride + b*srcBlkStride)*32``
from src's start, takes the minimum of each block's active elements (the mask spans the repeat's
128 half / 64 float elements) and stores the 8 minima contiguously at dst element ``r*dstRepStride*8``.
Parameters, rules and execution: `block_reduce_family` (one vendor page for SUM, MAX and MIN); BlockReduceMin
keeps its first sources (page 004 and the hardware notes) and its own wording of the spec notes.
"""

from __future__ import annotations

import numpy as np

from ..cases.case import Case
from ..core.extremes import masked_extreme
from ..spec.model import SpecNote
from ..spec.registry import register
from .block_reduce_family import (BOUNDARY_PAGE, INT_ARGS, KEEP, KEEP_PRODUCTS, PAGE, PLACEHOLDER, SHARED_INVARIANTS,
                                  BlockReduceFamily, Citations, check_masked_block, lanes_at, lanes_of,
                                  mask_count_m300_note, masked_blocks_note, nan_gives_nan, stored_results)
from .vector_common import OVERLAP_PAGE, lane_mask, mask_high_word_note

SEED = "004_2ad9555534615f32.txt"
#: The vendor's debug checks of the vector calls (repeatTime 0 and mask 0: 'equivalent to a NOP').
DEBUG_CHECKS = "asc-devkit impl/basic_api/kernel_npu_debug.h:256-323"
NOTES = "HARDWARE_NOTES.md BlockReduceMin"
#: The page's in-place sentence (约束说明).
IN_PLACE_SENTENCE = "约束说明 (地址重叠): 计算后的目的操作数数据不能覆盖未参与计算的源操作数"
#: What atlas-200i-500-a2 stores for a fully masked half block (the largest finite half).
HALF_FILL_200I = 65504.0


def _param(name: str) -> str:
    return f"{SEED} 参数说明, {name}"


def _proto(name: str) -> str:
    return f"{SEED} 对应的Ascend C函数原型, {name}"


@register
class BlockReduceMin(BlockReduceFamily):
    name = "BlockReduceMin"
    prefix = "block_reduce_min"
    op = "MIN"
    output_comparison = "selects"  # each result is one of the inputs: min(+0, -0) is -0, not "close to" it
    seed = SEED
    summary = "dst[r*dstRepStride*8 + b] = min over the active elements of datablock b of repeat r of src"
    support_source = f"{PAGE}, Product support; {PAGE}, Data types; {NOTES} (pyasc's page names none)"
    dst_doc = "the 8 minima of every repeat"
    #: pyasc's signature says ``repeat``; the page's parameter list (参数说明) calls it ``repeat_time``: both accepted
    #: (spec note block_reduce_min.repeat-name)
    repeat_time_spelling = "pyasc (page 004's parameter list)"

    @classmethod
    def citations(cls) -> Citations:
        """Page 004 (pyasc's block_reduce_min) and the hardware notes, where the model was first written from."""
        return Citations(
            args={**{name: f"{_proto('int32_t ' + name)}; {_param(py)}" for name, py in INT_ARGS},
                  "mask": f"{_param('mask')}; {_proto('const int32_t mask / const uint64_t mask[]')}",
                  "isSetMask": f"{_proto('template bool isSetMask = true')}; {_param('is_set_mask')}"},
            dst=_param("dst"),
            src=_param("src"),
            mask=f"{SEED} 参数说明",
            set_mask=_param("is_set_mask"),
            repeat_range=_param("repeat_time"),
            stride_ranges={name: f"{_param(py)}; {NOTES}" for name, py in INT_ARGS[1:]},
            dst_rep_nonzero=f"{NOTES} (atlas-training does not accept dstRepStride = 0)",
            src_footprint=f"{_param('src_blk_stride')}; {_param('src_rep_stride')}; {NOTES}",
            dst_footprint=f"{_param('dst_rep_stride')}; {NOTES}",
            in_place=f"{SEED} {IN_PLACE_SENTENCE}; {OVERLAP_PAGE}; {NOTES}",
            noop=f"{PAGE}, Restrictions (mask or repeatTime 0: a no-op on atlas-a2/a3); {NOTES} (mask = 0 or repeat "
                 "= 0: a no-op is not guaranteed on atlas-350)",
            mask_zero=f"{PAGE}, Restrictions (mask or repeatTime 0: a no-op on atlas-a2/a3); {NOTES}; {DEBUG_CHECKS} "
                      "(repeatTime 0: 'equivalent to a NOP' on every product)",
        )

    notes = (
        SpecNote("block_reduce_min.repeat-name", "repeat and repeat_time",
                 "The iteration count is accepted as `repeat` (pyasc's signature and examples) and as `repeat_time` "
                 "(the page's parameter list), besides Ascend C's `repeatTime`; a case uses one spelling throughout.",
                 "Page 004's signature and examples say `repeat`, its 参数说明 says `repeat_time`; pyasc's "
                 "`python/asc/language/basic/vec_reduce.py` (block_reduce_min) takes `repeat`.",
                 (f"{SEED} 参数说明, repeat_time", f"{SEED} asc.language.basic.block_reduce_min signature",
                  "pyasc python/asc/language/basic/vec_reduce.py, block_reduce_min")),
        SpecNote("block_reduce_min.dst-align", "dst alignment: 16 bytes for half",
                 "dst's start must be 16-byte aligned for half and 32-byte aligned for float, and nothing more: "
                 "a half dst at a 16-byte (not 32-byte) boundary of UB is valid. src's start is 32-byte aligned.",
                 "The page's dst parameter asks for 16 bytes (half) / 32 bytes (float), while its first 约束说明 "
                 "points to the general address alignment rule, which asks 32 bytes for every UB operand. The "
                 "API-specific sentence is the more specific statement and matches HARDWARE_NOTES: one repeat's "
                 "8 half results are 16 bytes, and dstRepStride moves dst in such 16-byte units, so a 32-byte rule "
                 "could not hold for odd dstRepStride anyway.",
                 (_param("dst"), f"{SEED} 约束说明 (通用地址对齐约束)", NOTES, "HARDWARE_NOTES.md Units and alignment"),
                 ("block_reduce_min.dst.align",)),
        SpecNote("block_reduce_min.dst-rep-stride-unit", "dstRepStride unit",
                 "dstRepStride counts one repeat's reduced length, 8 elements: 16 bytes for half, 32 for float. "
                 "Result b of repeat r is dst element r*dstRepStride*8 + b.",
                 "The page states the unit in bytes per type; HARDWARE_NOTES give the element formula.",
                 (_param("dst_rep_stride"), NOTES), ("block_reduce_min.dst.footprint",)),
        SpecNote("block_reduce_min.src-stride-units", "src stride units",
                 "srcBlkStride and srcRepStride count 32-byte datablocks: block b of repeat r starts at byte "
                 "(r*srcRepStride + b*srcBlkStride)*32 of src.",
                 "The page gives src_rep_stride as 'datablocks skipped per repeat' and src_blk_stride without a unit.",
                 (_param("src_blk_stride"), _param("src_rep_stride"), NOTES), ("block_reduce_min.src.footprint",)),
        SpecNote("block_reduce_min.int32-args", "Argument types and ranges",
                 "repeatTime and the three strides are int32 (the prototype) with the ranges repeatTime in "
                 "[0, 255] (page) and strides in [0, 65535] (HARDWARE_NOTES); the contiguous mask is int32 "
                 "(this prototype's int32_t, where other vector APIs take uint64), the bitwise words uint64.",
                 "The page gives no range for the strides; the int32 prototype alone would let negative strides through.",
                 (_proto("int32_t"), _param("repeat_time"), NOTES),
                 ("block_reduce_min.repeatTime.range", "block_reduce_min.dstRepStride.range",
                  "block_reduce_min.srcBlkStride.range", "block_reduce_min.srcRepStride.range",
                  "block_reduce_min.mask.count.type")),
        SpecNote("block_reduce_min.dstRepStride-zero", "dstRepStride = 0",
                 "dstRepStride = 0 is an error on atlas-training and valid elsewhere: every repeat stores its 8 "
                 "results on the same 8 elements, the last repeat's values remain.",
                 "The page allows any stride; HARDWARE_NOTES say atlas-training does not accept 0.",
                 (_param("dst_rep_stride"), NOTES), ("block_reduce_min.dstRepStride.nonzero",)),
        SpecNote("block_reduce_min.mask-64bit", "Mask limits for 64-bit operands",
                 "The mask rules keep the page's 64-bit limits (one word, at most 2^32-1, count <= 32) though "
                 "BlockReduceMin supports only half and float; a 64-bit T is refused by the dtype rule first.",
                 "The page copies the generic mask table, which lists 64-bit operands the API does not support.",
                 (_param("mask"), NOTES), ("block_reduce_min.mask.words.width", "block_reduce_min.dtype.support")),
        SpecNote("block_reduce_min.mask-placeholder", "isSetMask = false",
                 f"With isSetMask=false the mask argument must be the placeholder {PLACEHOLDER!r}, and only then; "
                 "the effective mask comes from a prior SetVectorMask, which a single call cannot see: the mask "
                 "rules are reported as not checked, and the core treats every result as unspecified.",
                 "The page: 'False: the mask is set outside the API with set_vector_mask; the mask argument must be "
                 "the placeholder MASK_PLACEHOLDER'. isSetMask is a template parameter in Ascend C (default true) and "
                 "is_set_mask a keyword in pyasc, although the page's pyasc signatures do not show it.",
                 (_param("is_set_mask"), _proto("template <typename T, bool isSetMask = true>")),
                 ("block_reduce_min.mask.placeholder",)),
        SpecNote("block_reduce_min.arg-spellings", "Argument names",
                 "Cases may use the Ascend C names (repeatTime, dstRepStride, srcBlkStride, srcRepStride, isSetMask, "
                 "mask) or the pyasc names (repeat or repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, "
                 "is_set_mask, mask), not both in one case (block_reduce_min.repeat-name).",
                 "The page's parameter table says repeat_time, its signatures and examples say repeat; pyasc's "
                 "keyword is the one the signature shows.",
                 (f"{SEED} signature and 调用示例", _param("repeat_time"))),
        SpecNote("block_reduce_min.full-footprints", "dst's footprint ignores the mask",
                 "All 8 results of every repeat must lie inside dst, whatever the mask (for repeatTime >= 1).",
                 "The page is silent. The mask may come from SetVectorMask (unknown to the call), and on atlas-350 "
                 "and atlas-200i-500-a2 fully masked blocks still store a result.",
                 (f"{SEED} 参数说明", NOTES), ("block_reduce_min.dst.footprint",)),
        masked_blocks_note("block_reduce_min"),
        mask_count_m300_note("block_reduce_min"),
        mask_high_word_note("block_reduce_min", _proto("const uint64_t mask[]")),
        SpecNote("block_reduce_min.in-place", "dst sharing memory with src",
                 "dst may overlap src. A result of repeat r landing on a source byte a later repeat r' > r reads "
                 "is a WARNING (exact, on the footprints: all 8 results of r against all 8 blocks of r'), not an "
                 "error: the later repeat may read the byte before or after the store, so `run` marks its results "
                 "of such blocks unspecified (never a fault, never a number). Overlap with bytes of the same or an "
                 "earlier repeat is fine.",
                 "The page: 'the destination after computation must not overwrite source data not yet used in the "
                 "computation'; the vendor's general overlap restrictions (one iteration's source and destination "
                 "overlap fully or not at all) cannot be meant literally here: the vendor's softmax reduces in place "
                 "with BlockReduceMax<float, false>(t, t, n, ...), repeat 0 overlapping its source in part "
                 "(spec note block_reduce_max.in-place). Reads of one repeat precede its own stores; 'not yet "
                 "used' means read by a later repeat. The footprint reading is mask-independent (the mask may be set elsewhere), so it is "
                 "conservative where a block has no active lane (not read on any product; on atlas-a2/a3 not "
                 "stored either): `run` then marks nothing. A warning, not the "
                 "page's 'must not': the vendor's SoftmaxFlashV3 (asc-devkit impl/adv_api/detail/activation/softmax/"
                 "membase/v220/softmax_flashv3_impl.h:69-70) ships a BlockReduceSum whose repeat 0 stores on what "
                 "repeat 1 reads, and uses only the results the clobber does not reach (spec note "
                 "block_reduce_sum.in-place).",
                 (f"{SEED} {IN_PLACE_SENTENCE}", OVERLAP_PAGE, NOTES,
                  "asc-devkit impl/adv_api/detail/activation/softmax/membase/common/softmax_flashv2_impl/"
                  "softmax_flashv2_block_reduce_impl.h:35",
                  "asc-devkit impl/adv_api/detail/activation/softmax/membase/v220/softmax_flashv3_impl.h:59-73"),
                 ("block_reduce_min.dst.src.in_place",)),
        SpecNote("block_reduce_min.noop", "repeatTime = 0 or mask = 0",
                 "repeatTime = 0 is valid and stores nothing: a warning on every product but atlas-350 "
                 "(repeatTime.zero: a no-op, most likely not what the caller meant), on atlas-350 the warning noop "
                 "(a no-op is not guaranteed there). A mask selecting nothing is a warning on atlas-a2/a3 "
                 "(mask.zero: a documented no-op) and on atlas-350 (noop: every datablock is then fully masked and "
                 "gets +inf), an error by the mask rules elsewhere.",
                 "The page allows repeat 0 without saying what happens; the vendor's ReduceDataBlock page: mask or "
                 "repeatTime 0 is a no-op on atlas-a2/a3; HARDWARE_NOTES: the same, not guaranteed on atlas-350. The "
                 "vendor's debug checks warn 'equivalent to a NOP' for repeatTime 0 on every product, and for a mask "
                 "of 0 everywhere but the inference AI Core (__NPU_ARCH__ 2002), which refuses it. The page's mask "
                 "range ([1, 128] for 16-bit operands, the words not both 0) stands where no source makes a mask of 0 "
                 "a no-op: atlas-training, atlas-200i-500-a2 and the inference AI Core (no vendor call passes one).",
                 (_param("repeat_time"), f"{PAGE}, Restrictions", NOTES, DEBUG_CHECKS),
                 ("block_reduce_min.noop", "block_reduce_min.mask.zero", "block_reduce_min.repeatTime.zero",
                  "block_reduce_min.mask.count.range", "block_reduce_min.mask.words.nonzero")),
        SpecNote("block_reduce_min.masked-block", "A fully masked-off datablock",
                 "A block with no active element: atlas-a2/a3 store nothing (dst keeps its value); atlas-200i-500-a2 "
                 "stores 65504 (half) / +inf (float); atlas-350 stores +inf; elsewhere the stored value is "
                 "unspecified (the core marks it poison).",
                 "The page is silent; HARDWARE_NOTES give the three products and say the rest is unknown.",
                 (_param("mask"), NOTES)),
        SpecNote("block_reduce_min.nan-zero", "NaN and signed zero",
                 "atlas-350, and float on atlas-a2 / a3: a NaN among a block's active elements gives NaN (the "
                 "canonical quiet NaN); min(-0, +0) = -0. Elsewhere (and half on atlas-a2 / a3) a NaN among the active "
                 "elements makes the result unspecified (poison), and a zero minimum is -0 when an active -0 is "
                 "present (which zero the other products store is not documented; the two compare equal).",
                 "The page is silent; HARDWARE_NOTES document atlas-350. The vendor's boundary-values appendix "
                 "(Atlas A2 / A3) gives NaN for every NaN input in the INF/NAN mode, float's only mode; for half the "
                 "saturation mode gives 0, and which mode is the default is disputed (block_reduce_sum.overflow).",
                 (NOTES, BOUNDARY_PAGE)),
        SpecNote("block_reduce_min.same-type", "dst and src element types",
                 "dst and src both have T (half or float per product).",
                 "The prototype takes LocalTensor<T> for both.",
                 (_proto("LocalTensor<T>"), NOTES), ("block_reduce_min.dst.dtype", "block_reduce_min.src.dtype")),
    )

    # -- semantics --------------------------------------------------------------------------------------------

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat, or None when a prior SetVectorMask set them (``lane_mask`` is looked up in
        this module, so that the mask mutants of ``ascverify selftest`` reach it)."""
        return lanes_of(case, lane_mask)

    def masked_fill(self, case: Case) -> float | str | None:
        if case.product in KEEP_PRODUCTS:
            return KEEP
        if case.product == "atlas-200i-500-a2":
            return HALF_FILL_200I if case.ctx.dtype.size == 2 else np.inf
        if case.product == "atlas-350":
            return np.inf
        return None

    def reduce(self, case: Case, x: np.ndarray, lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        # per (repeat, block): the minimum of the active lanes, -0 below +0 (on the bits read as integers)
        result, has_nan = masked_extreme(x, lanes, "min", none_if_clean=True)
        if has_nan is None:
            return result, None
        # a NaN among the active lanes propagates (atlas-350; float on atlas-a2 / a3) or is unspecified
        rows = np.nonzero(has_nan)
        result[rows] = np.where(lanes_at(lanes, rows), x[rows], np.array(np.inf, dtype=x.dtype)).min(axis=-1)
        if nan_gives_nan(case):
            result[rows] = np.nan
            return result, None
        return result, has_nan


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def results_are_block_minima(case: Case, seed: int = 0) -> None:
    """Every result is <= each active element of its block and equal to one of them (NaN: atlas-350 gives NaN,
    elsewhere poison); a block without active element gives the product's value (old dst on atlas-a2/a3, 65504 /
    +inf on atlas-200i-500-a2, +inf on atlas-350, poison elsewhere); an unknown mask gives poison."""
    for res in stored_results(case, seed):
        vals, out = res.block[res.active], res.out
        if not vals.size:
            check_masked_block(case, res, {"atlas-350": (np.inf, np.inf), "atlas-200i-500-a2": (65504.0, np.inf)})
        elif np.isnan(vals).any():
            assert np.isnan(out) if nan_gives_nan(case) else res.poisoned, f"{res.where}: NaN handling"
        else:
            assert not res.poisoned and np.all(out <= vals) and np.any(out == vals), \
                f"{res.where}: {out} is not the minimum of {vals.tolist()}"


BlockReduceMin.invariants = (results_are_block_minima, *SHARED_INVARIANTS)

"""The block reductions BlockReduceMin, BlockReduceMax and BlockReduceSum: what the three share (a family helper;
registers nothing).

The three functions are asc-devkit's ``ReduceDataBlock<ReduceType::{MIN,MAX,SUM}>`` under their pre-CANN-9.1 names:
one page states the products, types, argument ranges, alignment, overlap and no-op rules once for the three, and
the implementations differ only in the instruction (``vcgmin`` / ``vcgmax`` / ``vcgadd``). `BlockReduceFamily`
declares those shared parameters, rules, spec notes and the execution skeleton from a subclass's ``name``,
``prefix`` and ``op``; the subclass adds what differs (the reduction, the value of a fully masked block, NaN and
zeros, Sum's order) and its invariants. BlockReduceMin, modelled first from pyasc's page 004 and the hardware
notes, keeps those citations and its own wording of the notes (`BlockReduceFamily.citations`, ``notes``); Max and
Sum cite the ReduceDataBlock page. The address arithmetic, the in-place rule and the invariants the three share
are here too.

Where the sources are (cited in English by the titles below; line numbers at these commits):

=====================  ==============================================================================================
asc-devkit 82b89a15    ``docs/zh/api/SIMD-API/基础API/Memory矢量计算/归约计算/ReduceDataBlock.md`` (`PAGE`): products 3-31,
                       prototypes 47-59, parameters 63-84, types 86-115, restrictions 121-181 (no-op 127-142, fully
                       masked blocks 150-174, saturation 176-177), key features (Sum's binary tree) 183-195
asc-devkit 82b89a15    ``docs/zh/api/SIMD-API/基础API/Reg矢量计算/归约计算/ReduceDataBlock.md`` (`REG_PAGE`):
                       restrictions 91-99 (signed zeros, masked lanes), key features 101-121 (order, fills, NaN)
asc-devkit 82b89a15    ``docs/zh/api/SIMD-API/C-API/reg/reduce_compute/asc_reduce_{max,sum}_datablock.md``: restrictions
                       61-65
asc-devkit 82b89a15    ``docs/zh/api/SIMD-API/基础API/特殊寄存器访问/SetCtrlSpr(ISASI).md`` (`CTRL_PAGE`): CTRL[48], 64/78/90
asc-devkit 82b89a15    ``impl/basic_api/kernel_operator_vec_reduce_intf_impl.h`` (`INTF`): checks 78-103, BlockReduceSum
                       375-397 / 507-530, BlockReduceMax 411-433 / 532-555, BlockReduceMin 447-469 / 557-580
asc-devkit 7359511d    ``docs/api/SIMD-API/基础API/Memory矢量计算/归约计算/BlockReduce{Max,Sum}.md`` (the pages before the
                       rename, ``old_page``): restrictions Max 191-197, Sum 201-206; Sum's overflow example 69
pyasc cecba26a         ``python/asc/language/basic/utils.py`` (the docstrings, ``py_page``): Sum 7125-7207, Max 7210-7290;
                       ``python/asc/language/basic/vec_reduce.py`` (the signatures): Sum 52-72, Max 75-94
=====================  ==============================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, ClassVar, Iterator, Mapping

import numpy as np

from ..cases.case import Case, fresh
from ..checking.checker import check_case
from ..core import repeat_overlap
from ..core.faults import within_iterations
from ..core.memory import POISON, Trace
from ..core.run import prepare, run_case
from ..spec.logic import And, Between, Div, Exists, If, Implies, Mod, Not, Or, is_symbolic
from ..spec.model import ApiModel, SpecNote
from ..spec.params import BOOL, INT32, UINT32, Arg, MaskArg, TensorDecl
from ..spec.products import BUFFERS, POSITION_BUFFER, PRODUCT_IDS
from ..spec.rules import (ERROR, POSITION_NAMES, WARNING, Context, MaskView, Values, field_range, order_rule, rule,
                          state_rule, tensor_min_size)
from .mask_mode import MASK_MODE_STATE
from .vector_common import (BLOCK_BYTES, OVERLAP_PAGE, VECTOR_MASK_STATE, counter_elements, effective_mask,
                            lane_mask, mask_high_word_note, lanes_per_repeat, mask_register_state, mask_rules,
                            mask_selects_nothing, mask_word_count)

#: Products whose contiguous-mask BlockReduce passes the count to the instruction and leaves the mask register as it
#: was (dav_3510, dav_m300); elsewhere AscendCUtils::SetMask<T>(len) writes it (spec note own-mask-register)
CONTIGUOUS_LEAVES_REGISTER = ("atlas-350", "atlas-200i-500-a2")
BLOCKS_PER_REPEAT = 8
MAX_REPEAT = 255
MAX_STRIDE = 65535
PLACEHOLDER = "MASK_PLACEHOLDER"
#: Products that leave the destination of a fully masked-off datablock untouched.
KEEP_PRODUCTS = ("atlas-a2", "atlas-a3")
#: Products where the ReduceDataBlock page makes mask = 0 (or repeatTime = 0) a no-op: a mask of 0 is a warning there.
NOOP_PRODUCTS = ("atlas-a2", "atlas-a3")
#: Products where a mask of 0 is not refused: the no-op products, and atlas-350, where the hardware notes ask for a
#: warning (noop: a no-op is not guaranteed there).
MASK_ZERO_ALLOWED = NOOP_PRODUCTS + ("atlas-350",)
#: `BlockReduceFamily.masked_fill`'s answer on those products: store nothing.
KEEP = "keep"

#: The current vendor page of the three reductions (asc-devkit docs), by the title users find it under.
PAGE = "ReduceDataBlock (asc-devkit docs)"
#: The Reg API page atlas-350 implements the basic API with.
REG_PAGE = "Reg API ReduceDataBlock (asc-devkit docs)"
CTRL_PAGE = "SetCtrlSpr (asc-devkit docs), CTRL[48]"
#: The vendor's appendix of the Memory vector APIs' results on special and boundary inputs (Atlas A2 / A3)
BOUNDARY_PAGE = ("Memory vector compute boundary values (asc-devkit docs, appendix), Tables 33-35 (ReduceDataBlock "
                 "MAX / MIN / SUM) and Overview (float: INF/NAN mode only)")
#: Where a float NaN among a block's active elements is documented to give NaN, besides atlas-350 (the appendix)
FLOAT_NAN_PRODUCTS = KEEP_PRODUCTS


def nan_gives_nan(case: Case) -> bool:
    """A NaN among a block's active elements makes MAX / MIN NaN: atlas-350 (the Reg API page), and float on atlas-a2 /
    a3, whose only mode is INF/NAN (the boundary-values appendix, Tables 33-34); unspecified elsewhere."""
    return case.product == "atlas-350" or (case.product in FLOAT_NAN_PRODUCTS and case.ctx.dtype.name == "float")
INTF = "asc-devkit impl/basic_api/kernel_operator_vec_reduce_intf_impl.h"
PY_SIGNATURES = "pyasc python/asc/language/basic/vec_reduce.py"
#: The hardware notes' section on BlockReduceMin records the page-wide facts of the ReduceDataBlock page.
FAMILY_NOTES = "HARDWARE_NOTES.md BlockReduceMin (facts of the whole ReduceDataBlock page)"
MASK_NOTES = "HARDWARE_NOTES.md Masks (vector ops)"
#: Where the vendor's implementation of the count-mask prototype takes the lanes from the mask argument whatever
#: isSetMask (dav_m300, CONTINUOUS_MODE_REDUCE_VF: plt from ``mask``), spec note PREFIX.mask-count-m300
COUNT_MASK_ARGUMENT_PRODUCTS = ("atlas-200i-500-a2",)
IMPL_M300 = ("asc-devkit impl/basic_api/dav_m300/kernel_operator_vec_reduce_impl.h (CONTINUOUS_MODE_REDUCE_VF: the "
             "lanes from the mask argument, isSetMask unused)")
#: Page 004 (pyasc block_reduce_min) carries the is_set_mask sentence the family's docstrings share word for word.
SEED_004 = "004_2ad9555534615f32.txt"
#: The in-place sentence of the pre-rename pages and of pyasc's docstrings.
IN_PLACE_SENTENCE = "Restrictions (address overlap): 计算后的目的操作数数据不能覆盖未参与计算的源操作数"
#: The int32 arguments in Ascend C's names and in pyasc's (parameter list) names.
INT_ARGS = (("repeatTime", "repeat_time"), ("dstRepStride", "dst_rep_stride"), ("srcBlkStride", "src_blk_stride"),
            ("srcRepStride", "src_rep_stride"))
STRIDES = tuple(name for name, _ in INT_ARGS[1:])


# -- address arithmetic -------------------------------------------------------------------------------------------

def _stride_ok(x: Any) -> Any:
    return Between(0, x, MAX_STRIDE)


def _repeat_ok(v: Values, lo: int) -> Any:
    return Between(lo, v.repeatTime, MAX_REPEAT)


def dst_align(ctx: Context) -> int:
    """dst start alignment: 16 bytes for half, 32 for float (= one repeat's 8 results)."""
    return BLOCKS_PER_REPEAT * ctx.sizeof("dst")


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """Elements from dst's start to one past the last result: (repeatTime-1)*dstRepStride*8 + 8."""
    return ((v.repeatTime - 1) * v.dstRepStride + 1) * BLOCKS_PER_REPEAT


def src_elems_needed(v: Values, ctx: Context) -> Any:
    """Elements from src's start to one past the last byte read, over r = repeatTime-1 and the last datablock b
    with an active lane (`last_active_block`).

    The last byte read is max over r, b of (r*srcRepStride + b*srcBlkStride)*32 + 32; the strides are
    non-negative (the guard), so the maximum is at r = repeatTime-1 and the last active b.
    """
    return ((v.repeatTime - 1) * v.srcRepStride + last_active_block(v, ctx) * v.srcBlkStride + 1) \
        * (BLOCK_BYTES // ctx.sizeof("src"))


def src_elems_all_blocks(v: Values, ctx: Context) -> Any:
    """`src_elems_needed` with every datablock of a repeat, b = 7, whatever the mask."""
    return ((v.repeatTime - 1) * v.srcRepStride + (BLOCKS_PER_REPEAT - 1) * v.srcBlkStride + 1) \
        * (BLOCK_BYTES // ctx.sizeof("src"))


def block_active(m: MaskView, per: int, b: int, plain: bool = False) -> Any:
    """Datablock ``b`` of a repeat (``per`` lanes to a datablock) has a lane the mask argument ``m`` enables
    (contiguous: the count passes its first lane; bitwise: a bit of its lanes is set, mask[0] holding lanes 0-63).
    ``plain``: the mask's fields are one case's plain ints and bools, computed on directly (no term built)."""
    first = b * per
    if first // 64 >= len(m.words):  # a type the family does not take (its 8 datablocks hold over 128 lanes)
        return m.count > first
    word, shift, span = m.words[first // 64], 2 ** min(first % 64, 63), 2 ** min(per, 64)
    if plain:
        return word // shift % span != 0 if m.bitwise else m.count > first
    return If(m.bitwise, Mod(Div(word, shift), span) != 0, m.count > first)


def last_active_block(v: Values, ctx: Context) -> Any:
    """The last datablock of a repeat with an active lane; 7 when the mask is not the call's own (isSetMask=false:
    the register's, unknown here) or enables no lane."""
    m = v.mask  # read once: each read of a mask makes its view anew (8 datablocks, several reads per case drawn)
    per = BLOCK_BYTES // ctx.sizeof("src")
    # one case's plain values (the strategies' size search asks this thousands of times per second): no term built
    plain = all(type(x) in (int, bool) for x in (m.bitwise, m.count, *m.words))
    last: Any = BLOCKS_PER_REPEAT - 1
    if plain and BLOCKS_PER_REPEAT * per <= 64 * len(m.words) and min(m.words, default=0) >= 0:
        last = _last_block_plain(m, per)
    else:
        for b in range(BLOCKS_PER_REPEAT):
            active = block_active(m, per, b, plain)
            last = (b if active else last) if plain else If(active, b, last)
    return If(And(v.isSetMask, Not(v["mask.placeholder"])), last, BLOCKS_PER_REPEAT - 1)


def _last_block_plain(m: MaskView, per: int) -> int:
    """`last_active_block`'s loop on one case's plain values whose words hold a repeat's lanes (non-negative): from
    the highest enabled lane of the repeat (bitwise: its highest set bit; contiguous: lane count - 1) at once."""
    if m.bitwise:
        lanes = 0
        for i, word in enumerate(m.words):
            lanes |= word << (64 * i)
        lanes &= (1 << (BLOCKS_PER_REPEAT * per)) - 1
        return (lanes.bit_length() - 1) // per if lanes else BLOCKS_PER_REPEAT - 1
    return min((m.count - 1) // per, BLOCKS_PER_REPEAT - 1) if m.count > 0 else BLOCKS_PER_REPEAT - 1


def count_from_argument(ctx: Context) -> bool:
    """The product's implementation takes a count mask's lanes from the argument whatever isSetMask."""
    return ctx.product.id in COUNT_MASK_ARGUMENT_PRODUCTS


#: The env key `BlockReduceFamily.with_state` adds after a Counter-mode count whose last repeat has fewer lanes: those
#: lanes (the other repeats have all of them); not an argument of the call, so no rule reads it
COUNTER_LAST = "mask.counter_last"
#: The repeats a Counter-mode count runs, kept in the check variants of a call whose last repeat is partial (the
#: first variant checks one repeat fewer): what messages say
COUNTER_REPEATS = "mask.counter_repeats"


#: What `BlockReduceFamily.with_state` sets when the unit is in Counter mode and the call gives its own contiguous
#: mask (not modelled there): a mask set elsewhere (unknown, results unspecified), marked by a placeholder that is
#: also bitwise -- a pair no case file gives (the placeholder is read as a count), so `unchecked` tells it apart by
#: the mask's own fields (its answers stay remembered per fields)
COUNTER_OWN_MASK = {"isSetMask": False, "mask.placeholder": True, "mask.bitwise": True}


def counter_own_mask(env: Mapping[str, Any]) -> bool:
    """The call is the Counter-mode own-contiguous-mask case `COUNTER_OWN_MASK` marks."""
    return bool(env["mask.placeholder"]) and bool(env["mask.bitwise"])


def counter_repeats(state: Mapping[str, Any], ctx: Context) -> tuple[int, int, int] | None:
    """After a Counter-mode SetVectorMask: (repeats, lanes of each, lanes of the last): ceil(count / lanes) repeats,
    every one with all of the type's lanes but the last, which has the rest (the Mask page); None in Normal mode,
    for a count of 0, or past repeatTime's range."""
    return count_repeats(counter_elements(state), ctx)


def in_counter_mode(state: Mapping[str, Any]) -> bool:
    """SetMaskCount put the unit in Counter mode (and no SetMaskNorm since)."""
    return state.get(MASK_MODE_STATE) == "COUNTER"


def count_repeats(count: int | None, ctx: Context) -> tuple[int, int, int] | None:
    """A Counter-mode count of ``count`` elements as (repeats, lanes of each, lanes of the last), or None for none,
    0, or more repeats than repeatTime can say (`counter_repeats`)."""
    if count is None or count <= 0:
        return None
    lanes = lanes_per_repeat(ctx)
    repeats = -(-count // lanes)
    if repeats > MAX_REPEAT:
        return None
    return repeats, min(count, lanes), count - (repeats - 1) * lanes


def _counted(case: Case, exact: tuple[int, int, int]) -> Case:
    """The call as the hardware runs a Counter-mode count: (repeats, lanes, last) as `count_repeats` gives them,
    a contiguous mask of all lanes, the last repeat's lanes under `COUNTER_LAST` when fewer."""
    repeats, lanes, last = exact
    counted = {"isSetMask": True, "mask.placeholder": False, "mask.bitwise": False, "mask.count": lanes,
               "mask.nwords": 0, "mask.w0": 0, "mask.w1": 0, "repeatTime": repeats}
    if last < lanes:
        counted[COUNTER_LAST] = last
    return case.with_fields(**counted)


def mask_count_m300_note(p: str) -> SpecNote:
    """The count-mask prototype on atlas-200i-500-a2 (shared by the family's members)."""
    return SpecNote(
        f"{p}.mask-count-m300", "isSetMask = false with a count mask on atlas-200i-500-a2",
        "On atlas-200i-500-a2 the count-mask prototype takes its lanes from the mask argument whatever "
        "isSetMask: with isSetMask=false it draws the warning mask.count_argument (not mask.ignored); in a "
        "program a count is used as the mask (not the one SetVectorMask set), and MASK_PLACEHOLDER (0, no "
        "lane) leaves the results unspecified. The bitwise prototype reads the mask register as everywhere.",
        "The ReduceDataBlock page says the mask comes from SetVectorMask with isSetMask=false. The vendor's "
        "dav_m300 implementation (the 310B, Atlas 200I/500 A2) of the int32 mask prototype builds its "
        "predicate with plt from the mask argument (CONTINUOUS_MODE_REDUCE_VF) and never reads isSetMask; "
        "its uint64_t mask[] prototype reads the register. No vendor test calls it so: a warning, the "
        "implementation's reading for the core.",
        (f"{PAGE}, Template parameters, isSetMask", IMPL_M300, "asc-devkit impl/basic_api/kernel_reg.h "
         "(MASK_PLACEHOLDER = 0)"), (f"{p}.mask.count_argument", f"{p}.mask.ignored"))


def masked_blocks_note(p: str) -> SpecNote:
    """The reading of src's datablocks that no lane of the mask enables (shared by the family's members)."""
    return SpecNote(
        f"{p}.masked-blocks", "src's datablocks without an active lane",
        "src must hold every datablock with an active lane: up to the last active datablock of the last repeat "
        "(src.footprint, an error). The datablocks after the last active one may lie outside src: a warning "
        "(src.footprint.masked). With isSetMask=false the mask is the register's, unknown to one call: every "
        "datablock counts (in a program the mask SetVectorMask set is known). The core reads only the datablocks "
        "with an active lane.",
        "The pages are silent on whether a masked-off datablock is fetched. The vendor's shipping ReduceMax / "
        "ReduceMin (asc-devkit impl/adv_api/detail/reduce/reduce_common_util_v220_impl.h, DoReduceLessThanBlk, "
        "the mask from ComputeMaskBit) reduce a 7 x 1 float tensor with BlockReduceMax/Min(dst, src, 1, mask, 1, "
        "1, 8), 7 of the 8 datablocks active, on a src of 7 datablocks (the eighth is the kernel's dst), in a test "
        "that passes on ascend910B1 (tests/api/adv_api/reduce/reduce_max/test_operator_reduce_max.cpp); a tool "
        "that refused it would refuse the vendor's own library.",
        (f"{PAGE}, Parameters", FAMILY_NOTES,
         "asc-devkit impl/adv_api/detail/reduce/reduce_common_util_v220_impl.h (DoReduceLessThanBlk)"),
        (f"{p}.src.footprint", f"{p}.src.footprint.masked"))


def dst_span_bytes(v: Values, ctx: Context) -> Any:
    """Bytes from dst's start to one past the last result."""
    return dst_elems_needed(v, ctx) * ctx.sizeof("dst")


def src_span_bytes(v: Values, ctx: Context) -> Any:
    """Bytes from src's start to one past the last byte read."""
    return src_elems_needed(v, ctx) * ctx.sizeof("src")


def mask_all_zero(v: Values, ctx: Context) -> Any:
    """The mask argument selects no lane (a contiguous 0, or bitwise words all 0)."""
    return mask_selects_nothing(v, ctx, placeholder=True)


def own_mask_zero(v: Values, ctx: Context) -> Any:
    """The call's own mask (isSetMask) enables no lane: no datablock has an active lane, none is read."""
    return And(v.isSetMask, mask_all_zero(v, ctx))


def no_op(v: Values, ctx: Context) -> Any:
    """The call is a no-op by the page: the call's own mask enables no lane on a product where that makes it one
    (NOOP_PRODUCTS: nothing is read or stored). repeatTime = 0 is left to the rules' own guards (nothing to count)."""
    return ctx.product.id in NOOP_PRODUCTS and own_mask_zero(v, ctx)


# -- the in-place rule --------------------------------------------------------------------------------------------

def _clobber_body(r: Any, r2: Any, b: Any, d0: Any, s0: Any, dst_rep: Any, width: Any, src_rep: Any,
                  src_blk: Any) -> Any:
    """The results of repeat r (bytes [d0 + r*dst_rep, +width)) meet block b of a later repeat r2."""
    dlo = d0 + r * dst_rep
    slo = s0 + (r2 * src_rep + b * src_blk) * BLOCK_BYTES
    return And(r < r2, dlo < slo + BLOCK_BYTES, slo < dlo + width)


def in_place_clobber(v: Values, ctx: Context) -> Any:
    """Some result of a repeat r lands on a source byte that a later repeat r' > r reads (exact).

    Results of repeat r occupy bytes [dst + r*dstRepStride*8*e, +8*e) (e = sizeof(T)); repeat r' reads
    [src + (r'*srcRepStride + b*srcBlkStride)*32, +32) for b in 0..7. Evaluated only where the cheap guard holds:
    both tensors in one buffer, repeatTime >= 2, strides and addresses in range, and the two footprints' byte
    ranges intersect. On Z3 terms a bounded existential over (r, r', b); on values and columns the same question
    answered by interval arithmetic over the repeats (`core.repeat_overlap`), without a grid.
    """
    d, s = v.dst, v.src
    e = ctx.sizeof("dst")
    width = BLOCKS_PER_REPEAT * e
    same = Or(*(And(d.in_buffer(buf), s.in_buffer(buf)) for buf in BUFFERS))
    guard = And(same, _repeat_ok(v, 2), _stride_ok(v.dstRepStride), _stride_ok(v.srcRepStride),
                _stride_ok(v.srcBlkStride), Between(0, d.addr, UINT32.hi), Between(0, s.addr, UINT32.hi),
                d.addr < s.addr + src_span_bytes(v, ctx), s.addr < d.addr + dst_span_bytes(v, ctx))
    n = v.repeatTime
    consts = (d.addr, s.addr, v.dstRepStride * width, width, v.srcRepStride, v.srcBlkStride)
    if is_symbolic(guard):
        return Exists([(0, n - 2), (1, n - 1), (0, BLOCKS_PER_REPEAT - 1)], _clobber_body, where=guard,
                      consts=consts)
    if not any(isinstance(x, np.ndarray) for x in (guard, n, *consts)):  # one case
        return bool(guard) and bool(_clobbers(n, *consts)[0])
    cols = (guard, n, *consts)
    k = max(np.size(x) for x in cols)
    out = np.zeros(k, dtype=bool)
    rows = np.flatnonzero(np.broadcast_to(np.asarray(guard, dtype=bool), (k,)))
    if rows.size:
        out[rows] = _clobbers(*(np.broadcast_to(np.asarray(x), (k,))[rows].astype(np.int64) for x in cols[1:]))
    return out


def _clobbers(n: Any, d0: Any, s0: Any, dst_step: Any, width: Any, src_rep: Any, src_blk: Any) -> np.ndarray:
    return repeat_overlap.clobbers(d0, s0, n, dst_step, width, np.asarray(src_rep, dtype=np.int64) * BLOCK_BYTES,
                                   np.asarray(src_blk, dtype=np.int64) * BLOCK_BYTES, blocks=BLOCKS_PER_REPEAT,
                                   block=BLOCK_BYTES)


def first_clobber(v: Values, ctx: Context) -> Mapping[str, Any]:
    """For the in-place message (concrete values): the first repeat r whose results land on source block b of a
    later repeat r2, as ``{"clobber": "..."}``."""
    width = BLOCKS_PER_REPEAT * ctx.sizeof("dst")
    hit = repeat_overlap.first_clobber(int(v.dst.addr), int(v.src.addr), int(v.repeatTime),
                                       int(v.dstRepStride) * width, width, int(v.srcRepStride) * BLOCK_BYTES,
                                       int(v.srcBlkStride) * BLOCK_BYTES, blocks=BLOCKS_PER_REPEAT,
                                       block=BLOCK_BYTES)
    try:
        repeats = int(v[COUNTER_REPEATS])  # a check variant of a Counter-mode call (`check_variants`)
    except KeyError:
        repeats = int(v.repeatTime)
    if hit is None:
        return {"clobber": "some result", "repeats": repeats}
    i, j, k = hit
    return {"clobber": f"the results of repeat {i} land on src block {k} of repeat {j}, which reads it later",
            "repeats": repeats}


# -- what a member cites ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Citations:
    """Where a member of the family cites each shared declaration and rule (`BlockReduceFamily.citations`)."""

    #: the argument declarations: repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride, isSetMask
    args: Mapping[str, str]
    dst: str
    src: str
    mask: str
    #: isSetMask and the placeholder (the order and placeholder rules)
    set_mask: str
    repeat_range: str
    #: the range rules of dstRepStride, srcBlkStride and srcRepStride
    stride_ranges: Mapping[str, str]
    dst_rep_nonzero: str
    src_footprint: str
    dst_footprint: str
    in_place: str
    noop: str
    #: mask = 0 a no-op on atlas-a2/a3 (the mask.zero warning)
    mask_zero: str


class BlockReduceFamily(ApiModel):
    """The shared part of a block reduction; a subclass sets ``name``, ``prefix``, ``op`` (MIN, MAX, SUM),
    ``summary``, ``own_notes`` and implements `reduce`, `masked_fill` and `active_lanes` (in its own module, so
    that ``ascverify selftest``'s module mutants reach them)."""

    #: the ReduceType the function forwards to: "MIN", "MAX" or "SUM"
    op: ClassVar[str]
    #: the notes of what the subclass's reduction does (masked blocks, NaN, zeros, order)
    own_notes: ClassVar[tuple[SpecNote, ...]] = ()
    #: the pyasc function's name, its docstring page and the pre-rename vendor page (set from ``name``)
    py_name: ClassVar[str]
    py_page: ClassVar[str]
    old_page: ClassVar[str]
    MASK_RULES: ClassVar[tuple[str, ...]]
    #: the sources of the shared declarations and rules (set from `citations`)
    cite: ClassVar[Citations]
    #: what dst holds, for its declaration (default: "the 8 results of every repeat (<op>)")
    dst_doc: ClassVar[str] = ""
    #: the label of the spelling whose iteration count is ``repeat_time`` (pyasc's parameter list)
    repeat_time_spelling: ClassVar[str] = "pyasc (docstring parameter list)"

    seed = PAGE
    iteration_label = "repeat"
    support = {
        "atlas-350": ("half", "float"),
        "atlas-a3": ("half", "float"),
        "atlas-a2": ("half", "float"),
        "atlas-200i-500-a2": ("half", "float"),
        "atlas-inference-aicore": ("half", "float"),
        "atlas-training": ("half",),
    }
    support_source = f"{PAGE}, Product support; {PAGE}, Data types; {FAMILY_NOTES}"
    default_dtype = "half"

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        p = cls.prefix
        cls.py_name = p
        cls.py_page = f"asc.language.basic.{p} (pyasc)"
        cls.old_page = f"{cls.name} (asc-devkit docs before the rename to ReduceDataBlock)"
        cls.aliases = (p, f"asc.language.basic.{p}")
        cls.lint_expected = {f"redundant:{p}.dstRepStride.range": f"{p}.dstRepStride-zero"}
        cls.cite = cls.citations()
        cls.args = _args(cls.cite)
        cls.tensors = _tensors(cls)
        cls.arg_spellings = _spellings(cls.repeat_time_spelling)
        if "notes" not in cls.__dict__:  # a member that words the shared notes itself declares ``notes``
            cls.notes = (*_family_notes(cls), *cls.own_notes)
        cls.MASK_RULES = (f"{p}.mask.count.range", f"{p}.mask.words.count", f"{p}.mask.words.nonzero",
                          f"{p}.mask.words.width", f"{p}.mask.zero")

    @classmethod
    def citations(cls) -> Citations:
        """The sources of the shared declarations and rules: the ReduceDataBlock page, the pre-rename page, pyasc's
        docstring and the hardware notes (a member modelled from other pages overrides this)."""
        p, py, par, proto = cls.prefix, cls.py_page, f"{PAGE}, Parameters", f"{PAGE}, Prototype"
        return Citations(
            args={**{name: f"{proto}, int32_t {name}; {FAMILY_NOTES}" for name, _ in INT_ARGS},
                  "mask": f"{proto}, const int32_t mask / const uint64_t mask[]; {MASK_NOTES}",
                  "isSetMask": _set_mask_source()},
            dst=f"{par}, dst; {PAGE}, Restrictions (dst alignment); {FAMILY_NOTES}",
            src=f"{par}, src; {PAGE}, Restrictions (src alignment); {FAMILY_NOTES}",
            mask=f"{MASK_NOTES}; {py}, Parameters",
            set_mask=_set_mask_source(),
            repeat_range=f"{par}, repeatTime; {py}, Parameters, repeat_time; {FAMILY_NOTES}",
            stride_ranges={name: f"{par}, {name}; {FAMILY_NOTES}" for name in STRIDES},
            dst_rep_nonzero=f"{par}, dstRepStride (atlas-training does not accept 0); {FAMILY_NOTES}",
            src_footprint=f"{par}, srcBlkStride; {par}, srcRepStride; {FAMILY_NOTES}",
            dst_footprint=f"{par}, dstRepStride; {FAMILY_NOTES}",
            in_place=f"{cls.old_page}, {IN_PLACE_SENTENCE}; {py}, {IN_PLACE_SENTENCE}; {OVERLAP_PAGE}; {FAMILY_NOTES}",
            noop=f"{PAGE}, Restrictions (mask or repeatTime 0: a no-op on atlas-a2/a3); {FAMILY_NOTES} (on "
                 f"atlas-350 a no-op is not guaranteed)",
            mask_zero=f"{PAGE}, Restrictions (mask or repeatTime 0: a no-op on atlas-a2/a3); {FAMILY_NOTES}",
        )

    # -- rules ------------------------------------------------------------------------------------------------

    def api_rules(self):
        p, c = self.prefix, self.cite
        shown = lambda v, ctx: {"shown": PLACEHOLDER if v["mask.placeholder"] else format(v.mask)}  # noqa: E731
        yield from mask_rules(p, c.mask, placeholder=True, flag="isSetMask", empty_ok_on=MASK_ZERO_ALLOWED)
        yield rule(f"{p}.mask.zero", ("mask", "isSetMask", "product"),
                   lambda v, ctx: Not(And(v.isSetMask, mask_all_zero(v, ctx))),
                   "mask={shown} enables no lane: the call is a no-op on {product} (nothing is stored)",
                   c.mask_zero, severity=WARNING, products=NOOP_PRODUCTS, notes=(f"{p}.noop",), facts=shown,
                   help="the mask enables a lane (a mask of 0 makes the call a no-op)",
                   domain={"kind": "custom", "mask": "mask"}, noop=True)
        yield rule(f"{p}.repeatTime.zero", ("repeatTime", "product"), lambda v, ctx: v.repeatTime != 0,
                   "repeatTime=0: the call is a no-op on {product} (nothing is read or stored)",
                   c.mask_zero, severity=WARNING, products=tuple(q for q in PRODUCT_IDS if q != "atlas-350"),
                   notes=(f"{p}.noop",), help="repeatTime is not 0 (0 makes the call a no-op)", noop=True)
        yield order_rule(f"{p}.order.vector_mask", "vector_mask",
                         "isSetMask=false needs a SetVectorMask (or a call with isSetMask=true, which leaves its mask) earlier "
                         "in the program (the mask comes from the register)",
                         c.set_mask, when=lambda v, ctx: Not(v.isSetMask), params=("isSetMask",),
                         notes=(f"{p}.mask-placeholder",))
        yield rule(f"{p}.mask.placeholder", ("mask", "isSetMask"),
                   lambda v, ctx: Implies(v["mask.placeholder"], Not(v.isSetMask)),
                   f"isSetMask={{isSetMask}} with mask={{shown}}: the placeholder {PLACEHOLDER!r} gives no mask; it "
                   "is for isSetMask=false only",
                   c.set_mask, notes=(f"{p}.mask-placeholder",), facts=shown,
                   help=f"mask {PLACEHOLDER!r} only with isSetMask=false",
                   domain={"kind": "custom", "mask": "mask"})  # strategies draw the flag with the mask
        yield rule(f"{p}.mask.ignored", ("mask", "isSetMask"),
                   lambda v, ctx: Implies(And(Not(v.isSetMask), Or(v.mask.bitwise, Not(count_from_argument(ctx)))),
                                          v["mask.placeholder"]),
                   f"isSetMask=false with mask={{shown}}: the argument has no effect (the mask comes from "
                   f"SetVectorMask); pass {PLACEHOLDER!r}",
                   c.set_mask, severity=WARNING, notes=(f"{p}.mask-placeholder",), facts=shown,
                   help=f"mask is {PLACEHOLDER!r} with isSetMask=false (any other value has no effect)",
                   domain={"kind": "custom", "mask": "mask"})
        yield rule(f"{p}.mask.count_argument", ("mask", "isSetMask"),
                   lambda v, ctx: Not(And(Not(v.isSetMask), Not(v.mask.bitwise))),
                   "isSetMask=false with the count-mask prototype (mask={shown}) on {product}: the vendor's "
                   "implementation there takes the lanes from the mask argument, not from SetVectorMask ("
                   f"{PLACEHOLDER} is 0: no lane, the call reduces nothing and `run` leaves its results unspecified)",
                   f"{IMPL_M300}; asc-devkit impl/basic_api/kernel_reg.h (MASK_PLACEHOLDER = 0); {MASK_NOTES}",
                   severity=WARNING, products=COUNT_MASK_ARGUMENT_PRODUCTS, notes=(f"{p}.mask-count-m300",),
                   facts=shown, help="isSetMask=true, or the bitwise-mask prototype, on this product")
        yield field_range(f"{p}.repeatTime.range", "repeatTime", 0, MAX_REPEAT, c.repeat_range,
                          notes=(f"{p}.int32-args",))
        for name in STRIDES:
            yield field_range(f"{p}.{name}.range", name, 0, MAX_STRIDE, c.stride_ranges[name],
                              notes=(f"{p}.int32-args",))
        yield field_range(f"{p}.dstRepStride.nonzero", "dstRepStride", 1, MAX_STRIDE, c.dst_rep_nonzero,
                          products=("atlas-training",), notes=(f"{p}.dstRepStride-zero",),
                          message="dstRepStride={value} is not accepted on {product}: it must be in [{lo}, {hi}]")
        src_guard = lambda v, ctx: And(_repeat_ok(v, 1), _stride_ok(v.srcRepStride),  # noqa: E731
                                       _stride_ok(v.srcBlkStride))
        yield tensor_min_size(f"{p}.src.footprint", "src", src_elems_needed, c.src_footprint,
                              what="the datablocks read (((repeatTime-1)*srcRepStride + b*srcBlkStride + 1) "
                                   "datablocks, b the last datablock with an active lane)",
                              params=("repeatTime", "srcRepStride", "srcBlkStride", "mask", "isSetMask"),
                              when=lambda v, ctx: And(src_guard(v, ctx), Not(own_mask_zero(v, ctx))),
                              notes=(f"{p}.masked-blocks", f"{p}.src-stride-units", f"{p}.noop"))
        yield tensor_min_size(f"{p}.src.footprint.masked", "src", src_elems_all_blocks, c.src_footprint,
                              what="all 8 datablocks of every repeat, the masked ones too (((repeatTime-1)*"
                                   "srcRepStride + 7*srcBlkStride + 1) datablocks; whether the hardware fetches a "
                                   "datablock without an active lane is not documented)",
                              params=("repeatTime", "srcRepStride", "srcBlkStride", "mask", "isSetMask"),
                              severity=WARNING,
                              when=lambda v, ctx: And(src_guard(v, ctx), v.src.present, Not(no_op(v, ctx)),
                                                      Or(last_active_block(v, ctx) < BLOCKS_PER_REPEAT - 1,
                                                         own_mask_zero(v, ctx))),
                              notes=(f"{p}.masked-blocks", f"{p}.src-stride-units", f"{p}.noop"))
        yield tensor_min_size(f"{p}.dst.footprint", "dst", dst_elems_needed, c.dst_footprint,
                              what="the results written ((repeatTime-1)*dstRepStride*8 + 8)",
                              params=("repeatTime", "dstRepStride", "mask", "isSetMask"),
                              when=lambda v, ctx: And(_repeat_ok(v, 1), _stride_ok(v.dstRepStride),
                                                      Not(no_op(v, ctx))),
                              notes=(f"{p}.full-footprints", f"{p}.dst-rep-stride-unit", f"{p}.noop"))
        yield rule(f"{p}.dst.src.in_place", ("dst", "src", "repeatTime", "dstRepStride", "srcRepStride",
                                              "srcBlkStride"),
                   lambda v, ctx: Not(in_place_clobber(v, ctx)),
                   "{clobber}: the later repeat's results of such blocks are unspecified (it may read the byte "
                   "before or after the store; `run` marks the results of the blocks it reads so) (dst at byte "
                   "{dst.addr}, src at byte "
                   "{src.addr}, {repeats} repeat(s), dstRepStride={dstRepStride}, srcRepStride={srcRepStride}, "
                   "srcBlkStride={srcBlkStride})",
                   c.in_place, severity=WARNING, when=lambda v, ctx: Not(no_op(v, ctx)),
                   notes=(f"{p}.in-place", f"{p}.noop"), facts=first_clobber,
                   help="no result overwrites source bytes a later repeat reads",
                   domain={"kind": "custom", "overlap": ("dst", "src")})  # holds for disjoint tensors
        yield rule(f"{p}.noop", ("repeatTime", "mask", "product"),
                   lambda v, ctx: Not(Or(v.repeatTime == 0, mask_all_zero(v, ctx))),
                   "repeatTime={repeatTime}, mask={shown}: the call may not be a no-op on {product}",
                   c.noop, severity=WARNING, products=("atlas-350",), notes=(f"{p}.noop",), facts=shown,
                   help="repeatTime and the mask are non-zero (a zero call is not a guaranteed no-op)", noop=True)

        yield state_rule(f"{p}.counter_mode", "the mask register holds a Counter-mode count: the hardware ignores "
                         "repeatTime and runs the repeats the count needs (all lanes, the last repeat the rest)",
                         f"Mask overview (asc-devkit docs, Counter mode: repeatTime is ignored); {MASK_NOTES}",
                         params=("repeatTime", "isSetMask"), notes=(f"{p}.mask-placeholder",))
        yield state_rule(f"{p}.mask.counter.range", "in Counter mode (SetMaskCount) the call's own contiguous mask is "
                         "a count of elements, which the vendor's implementation takes in [0, 2^31-1]",
                         f"{MASK_NOTES}; asc-devkit impl/basic_api/kernel_npu_debug.h (CheckMaskValue, reached from "
                         "CheckReduceDataBlockParams for every BlockReduce with isSetMask = true: in Counter mode an "
                         "int32 mask outside [0, INT32_MAX] fails the CPU-debug check)",
                         params=("mask", "isSetMask"), severity=ERROR, notes=(f"{p}.mask-placeholder",))

    # -- programs and unchecked rules ---------------------------------------------------------------------------

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        """With isSetMask=true the call writes its own mask to the mask register and leaves it there (the vendor's
        implementations set it with SetMask / SetVectorMask before the instruction; the Mask page: a mask set inside
        an API stays for later calls), so a later call with isSetMask=false reads it (spec note own-mask-register).
        Left as it was: the contiguous form on atlas-350 and atlas-200i-500-a2 (their implementations pass the count
        to the instruction and leave the register) and a contiguous mask in Counter mode (not modelled)."""
        env = case.env
        if not env["isSetMask"] or env["mask.placeholder"]:
            return
        counter = in_counter_mode(state)
        if not env["mask.bitwise"] and (case.product in CONTIGUOUS_LEAVES_REGISTER or counter):
            return
        state[VECTOR_MASK_STATE] = mask_register_state(case.ctx.dtype.name, "COUNTER" if counter else "NORMAL", env,
                                                       f"{self.name} (isSetMask=true)")

    def with_state(self, case: Case, state: Mapping[str, Any]) -> Case:
        """With isSetMask=false, the call runs with the mask the last SetVectorMask set (when one did). After a
        Counter-mode count the hardware runs the repeats the count needs, whatever repeatTime (`counter_repeats`):
        that many repeats of a contiguous mask of all the type's lanes, the last with the rest of the count (kept
        under `COUNTER_LAST` when it has fewer lanes: `execute` and `check_variants` read it)."""
        if case.env["isSetMask"]:
            return self._own_mask_counted(case) if in_counter_mode(state) else case
        if case.product in COUNT_MASK_ARGUMENT_PRODUCTS and not case.env["mask.bitwise"]:
            if case.env["mask.placeholder"]:
                return case  # lanes from the placeholder (0): nothing reduced, results unspecified here
            return case.with_fields(isSetMask=True)  # the count argument is the mask (spec note mask-count-m300)
        fields = effective_mask(state, case.ctx)
        if fields is not None:
            return case.with_fields(**{"isSetMask": True, "mask.placeholder": False, **fields})
        exact = counter_repeats(state, case.ctx)
        if exact is None:
            return case
        return _counted(case, exact)

    def _own_mask_counted(self, case: Case) -> Case:
        """isSetMask=true in Counter mode (SetMaskCount): the bitwise mask's mask[0] is the count of elements, its
        repeats as after a Counter-mode SetVectorMask (the Mask page, 'Mask set inside the API', Counter mode:
        only the low 64 bits count, repeatTime has no effect); a contiguous mask there is not modelled (the
        results are unspecified: `COUNTER_OWN_MASK`)."""
        env = case.env
        exact = count_repeats(int(env["mask.w0"]), case.ctx) if env["mask.bitwise"] else None
        if exact is None:  # checked and run as a mask set elsewhere (unknown): every datablock of repeatTime repeats
            return case.with_fields(**COUNTER_OWN_MASK)
        return _counted(case, exact)

    def check_variants(self, case: Case) -> tuple[Case, ...]:
        """A call whose last repeat has fewer lanes (`COUNTER_LAST`) is checked as the other repeats with all lanes
        and as every repeat with the last one's lanes: together exactly the bytes the call reads and writes (the
        first's accesses, and the last repeat's, which the second holds), each a subset of them."""
        last = int(case.env.get(COUNTER_LAST, 0) or 0)
        if not last:
            return (case,)
        n = int(case.env["repeatTime"])  # (both keep the call's own count of repeats, for its messages)
        return (case.with_fields(repeatTime=n - 1, **{COUNTER_REPEATS: n}),
                case.with_fields(**{"mask.count": last, COUNTER_REPEATS: n}))

    def state_warnings(self, case: Case, state: Mapping[str, Any]) -> list[tuple[Any, str]]:
        """With isSetMask=false after a Counter-mode SetVectorMask: the repeats the count needs, not repeatTime's. On a
        product whose count-mask prototype reads its argument (spec note mask-count-m300): that the count given is
        the mask, not SetVectorMask's."""
        env = case.env
        if env["isSetMask"] and in_counter_mode(state):
            return self._own_mask_warnings(case)
        if case.product in COUNT_MASK_ARGUMENT_PRODUCTS and not env["isSetMask"] and not env["mask.bitwise"]:
            if env["mask.placeholder"]:
                return []  # the placeholder is the mask there (no lane): mask.count_argument says so
            r = self.rule_by_id[f"{self.prefix}.mask.count_argument"]
            return [(r, f"isSetMask=false with the count-mask prototype (mask={env['mask.count']}) on {case.product}: "
                        "the vendor's implementation there takes the lanes from the mask argument, so this call uses "
                        f"mask={env['mask.count']}, not the mask SetVectorMask set (checked and run so)")]
        count = counter_elements(state)
        if env["isSetMask"] or count is None:
            return []
        setter = state[VECTOR_MASK_STATE].get("writer", "SetVectorMask")
        r = self.rule_by_id[f"{self.prefix}.counter_mode"]
        # the COUNTER template only writes the words (0, count); the unit's mode is SetMaskCount's to set, and Normal
        # is the system's default (the SetMaskNorm page): the vendor's code calls SetMaskCount first, every time
        unset = [] if MASK_MODE_STATE in state else [
            (r, f"SetVectorMask<T, COUNTER> wrote a count of {count} elements, but no SetMaskCount came before this "
                "call in the program: the vector unit is then in Normal mode, the system's default (unless an "
                f"earlier kernel or call left Counter mode on), and reads the register's words (0, {count}) as a bit "
                "mask; call SetMaskCount first (checked and run in Counter mode, as the template says)")]
        exact = counter_repeats(state, case.ctx)
        if exact is None:  # a count of 0, or more repeats than repeatTime can say
            return unset + [(r, f"the mask register holds a Counter-mode count of {count} elements (the last "
                                f"{setter} wrote it): ascverify does not model such a count (more repeats than "
                                "repeatTime can say, or none): the results are unspecified")]
        repeats, lanes, last = exact
        given = int(case.env["repeatTime"])
        if repeats == given:
            return unset
        shape = (f"{repeats} repeat(s) of {lanes} lanes" if last == lanes else
                 f"{repeats} repeats, {repeats - 1} of {lanes} lanes and the last of {last}")
        return unset + [(r, f"{setter} set a Counter-mode count of {count} elements: the hardware ignores "
                            f"repeatTime={given} and runs ceil({count} / {lanes_per_repeat(case.ctx)}) = {shape} "
                            "(checked and run so)")]

    def _own_mask_warnings(self, case: Case) -> list[tuple[Any, str]]:
        """isSetMask=true in Counter mode: the count the bitwise mask gives, when repeatTime or mask[1] has no effect;
        a contiguous mask, not modelled there."""
        env, r = case.env, self.rule_by_id[f"{self.prefix}.counter_mode"]
        if not env["mask.bitwise"]:
            count = int(env["mask.count"])
            out_of_range = [] if 0 <= count <= INT32.hi else [
                (self.rule_by_id[f"{self.prefix}.mask.counter.range"],
                 f"the unit is in Counter mode (SetMaskCount) and the call's own contiguous mask={count} is a count of "
                 f"elements outside [0, {INT32.hi}]: the vendor's implementation refuses it (its CPU-debug check of "
                 "the mask in Counter mode)")]
            return out_of_range + [(r, f"the unit is in Counter mode (SetMaskCount) and the call gives its own contiguous "
                        f"mask={env['mask.count']}: not modelled (the Mask page shows the mask-array form in Counter "
                        "mode; the vendor's implementations differ: Ascend 950 counts mask elements, the others write "
                        "SetVectorMask's bits for it and count those); its mask rules are not checked, its accesses "
                        "are checked as repeatTime repeats of every datablock, and its results are unspecified")]
        count, words = int(env["mask.w0"]), int(env["mask.nwords"])
        exact = count_repeats(count, case.ctx)
        if exact is None:
            return [(r, f"the unit is in Counter mode (SetMaskCount): mask[0]={count} is the count of elements; "
                        "ascverify does not model a count of 0 or one needing more than 255 repeats (the results are "
                        "unspecified)")]
        repeats, lanes, last = exact
        given, high = int(env["repeatTime"]), int(env["mask.w1"]) if words > 1 else 0
        if repeats == given and not high:
            return []
        shape = (f"{repeats} repeat(s) of {lanes} lanes" if last == lanes else
                 f"{repeats} repeats, {repeats - 1} of {lanes} lanes and the last of {last}")
        unread = f"; mask[1]={high} is not read" if high else ""
        return [(r, f"the unit is in Counter mode (SetMaskCount): mask[0]={count} is the count of elements (the Mask "
                    f"page: only the low 64 bits count, repeatTime has no effect){unread}; the hardware ignores "
                    f"repeatTime={given} and runs ceil({count} / {lanes_per_repeat(case.ctx)}) = {shape} (checked and "
                    "run so)")]

    def unchecked(self, case: Case) -> Iterator[tuple[str, str, str]]:
        """With isSetMask=false the effective mask is set elsewhere: the mask rules are not checked here."""
        if case.env["isSetMask"]:
            return
        reason = "isSetMask=false: the effective mask comes from a prior SetVectorMask and is not checked here"
        if counter_own_mask(case.env):
            reason = ("the unit is in Counter mode and the call's own contiguous mask is not modelled there: its mask "
                      "is not checked (only its range as a count, mask.counter.range)")
        for r in self.rules_for(case.product):
            if r.id in self.MASK_RULES:
                yield r.id, reason, r.source
            elif r.id == f"{self.prefix}.noop":
                yield r.id, reason + " (only repeatTime = 0 is)", r.source

    # -- semantics --------------------------------------------------------------------------------------------

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat, or None when a prior SetVectorMask set them: `lanes_of` with the subclass
        module's ``lane_mask``."""
        raise NotImplementedError

    def zero_sign_specified(self, case: Case) -> bool:
        """MAX / MIN choose one of the inputs: which zero of -0 and +0 they keep is documented where a NaN's outcome
        is (spec note PREFIX.nan-zero: atlas-350, float on atlas-a2 / a3); SUM adds under IEEE rules (its
        zero-sign note: the one open sign is left unspecified)."""
        return self.op == "SUM" or nan_gives_nan(case)

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        if tensor == "src":
            # quarter-integers in [-8, 8]: exact in half, with repeats inside a block (ties are common)
            t = case.tensor(tensor)
            return (rng.integers(-32, 33, size=t.size) / 4).astype(t.dtype.numpy)
        return None

    def reduce(self, case: Case, x: np.ndarray, lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Per (repeat, block): the result (element type T, a fresh array) and whether it is unspecified (None: no
        result is), from the blocks ``x`` (repeat, block, lane) and the active lanes ``lanes`` (block, lane), the
        same for every repeat; blocks without an active lane are handled by the caller (`masked_fill`)."""
        raise NotImplementedError

    def masked_fill(self, case: Case) -> float | str | None:
        """What the product stores for a fully masked block: `KEEP` (nothing: dst keeps its value), a value, or
        None where it is not documented (the result is unspecified)."""
        raise NotImplementedError

    def stores_nothing(self, case: Case, lanes: np.ndarray | None) -> bool:
        """The call is the page's no-op: its ``lanes`` (`active_lanes`; None: a prior SetVectorMask's, unknown) enable
        none, on a product that stores nothing for a fully masked block (`KEEP`)."""
        return lanes is not None and not lanes.any() and isinstance(self.masked_fill(case), str)

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """Per tensor, the (buffer, start, stop) byte intervals the call may write: 8 results per repeat (none for
        the page's no-op, no lane on a product that stores nothing for a masked block)."""
        dst = case.tensor("dst")
        if self.stores_nothing(case, self.active_lanes(case)):
            return {"dst": []}
        n, stride = max(within_iterations(int(case.env["repeatTime"]), "repeatTime"), 0), int(case.env["dstRepStride"])
        width = BLOCKS_PER_REPEAT * case.ctx.sizeof("dst")
        starts = dict.fromkeys(dst.addr + r * stride * width for r in range(n))
        return {"dst": [(dst.buffer, s, s + width) for s in starts]}

    def execute(self, case: Case, trace) -> None:
        env = case.env
        n = within_iterations(int(env["repeatTime"]), "repeatTime")  # an int32: a file may ask for 2**31 - 1
        if n <= 0:  # repeat 0: nothing is read or stored (a warning on atlas-350); negative: refused by the rules
            return
        dst_rep, blk, src_rep = int(env["dstRepStride"]), int(env["srcBlkStride"]), int(env["srcRepStride"])
        (dst_buffer, dst_addr), (src_buffer, src_addr) = _place(env, "dst"), _place(env, "src")
        t = case.ctx.dtype
        np_t, esize = t.numpy, t.size
        per_block, width = BLOCK_BYTES // esize, BLOCKS_PER_REPEAT * esize

        # every read first (repeat r is iteration r), so that the trace sees stores onto bytes read later; a view
        # of the memory where it can be (`reduce` is done with it before the write)
        lanes = self.active_lanes(case)
        unknown_mask = lanes is None
        block_lanes = (np.ones((BLOCKS_PER_REPEAT, per_block), dtype=bool) if unknown_mask
                       else lanes.reshape(BLOCKS_PER_REPEAT, per_block))
        last = int(env.get(COUNTER_LAST, 0) or 0)
        if last and not unknown_mask and n > 1:
            # a Counter-mode count: the last repeat has the first `last` lanes only (the Mask page; `counter_repeats`)
            block_lanes = np.repeat(block_lanes[None], n, axis=0)
            block_lanes[-1] = (np.arange(BLOCKS_PER_REPEAT * per_block) < last).reshape(BLOCKS_PER_REPEAT, per_block)
        if self.stores_nothing(case, lanes):
            return  # the page's no-op (spec note noop): nothing read, nothing stored
        starts = _grid(src_addr, src_rep * BLOCK_BYTES, blk * BLOCK_BYTES, n, BLOCKS_PER_REPEAT)
        block_its, reps = _iterations(n)
        read_blocks = block_lanes.any(axis=-1)              # (8,), or (n, 8) with lanes per repeat
        if read_blocks.all():
            raw = trace.read(src_buffer, starts, BLOCK_BYTES, block_its, align=BLOCK_BYTES, what="src datablock",
                             tensor="src", view=True)
            x = raw.view(np_t).reshape(n, BLOCKS_PER_REPEAT, per_block)
        else:  # a datablock with no active lane is not read (spec note masked-blocks): it may lie outside src
            x = np.zeros((n, BLOCKS_PER_REPEAT, per_block), dtype=np_t)
            if read_blocks.any():
                keep = np.broadcast_to(read_blocks, (n, BLOCKS_PER_REPEAT)).reshape(-1)
                raw = trace.read(src_buffer, np.asarray(starts, dtype=np.int64)[keep], BLOCK_BYTES, block_its[keep],
                                 align=BLOCK_BYTES, what="src datablock", tensor="src", view=True)
                x.reshape(-1, per_block)[keep] = raw.view(np_t).reshape(-1, per_block)
        result, poison = self.reduce(case, x, block_lanes)
        stored = None                                       # every result stored
        if unknown_mask:  # the mask is a prior SetVectorMask's: which results are stored, and what, is unknown
            poison = np.ones((n, BLOCKS_PER_REPEAT), dtype=bool)
        elif not (block_active := block_lanes.any(axis=-1)).all():
            # a fully masked block
            fill = self.masked_fill(case)
            if isinstance(fill, str):                       # KEEP: nothing stored for such a block
                stored = block_active
            elif fill is None:                              # the stored value is unspecified
                poison = ~block_active if poison is None else poison | ~block_active
            else:
                result = np.where(block_active, result, np.array(fill, dtype=np_t))

        if dst_buffer == src_buffer:
            # a result that a later repeat reads may be read before or after it is stored: that repeat's result of
            # the block is unspecified (spec note in-place), not a fault
            later = self.clobbered_results(case)
            if later is not None and later.any():
                poison = later if poison is None else poison | later
        data = np.ascontiguousarray(result, dtype=np_t).view(np.uint8)   # (n, 8) results: (n, width) bytes
        trace.write(dst_buffer, _steps(dst_addr, dst_rep * width, n), width, data, reps, align=width,
                    byte_mask=None if stored is None else np.repeat(stored, esize, axis=-1),
                    poison=None if poison is None else np.repeat(np.atleast_2d(poison), esize, axis=-1),
                    what="dst results", tensor="dst", hazards=dst_buffer != src_buffer)

    def clobbered_results(self, case: Case) -> np.ndarray | None:
        """(repeat, block): the results whose source block holds a byte an earlier repeat of the call stores (dst
        and src in one buffer); None when the call runs no repeat or its mask is unknown (a prior SetVectorMask's:
        every result is then unspecified anyway). Exact on bytes, at the granularity of the blocks read: a block
        without an active lane is not read (and on the products that store nothing for it, KEEP, its result is not
        stored), while a block read counts whole, whichever of its lanes are active (the 32-byte read is one)."""
        env = case.env
        n = int(env["repeatTime"])
        lanes = self.active_lanes(case)
        if n <= 0 or lanes is None:
            return None
        (dst_buffer, dst_addr), (src_buffer, src_addr) = _place(env, "dst"), _place(env, "src")
        if dst_buffer != src_buffer:
            return np.zeros((n, BLOCKS_PER_REPEAT), dtype=bool)
        esize = case.ctx.dtype.size
        per_block, width = BLOCK_BYTES // esize, BLOCKS_PER_REPEAT * esize
        dst_rep, src_rep, src_blk = (int(env[k]) for k in ("dstRepStride", "srcRepStride", "srcBlkStride"))
        if min(dst_rep, src_rep, src_blk) >= 0 and (
                dst_addr + (n - 1) * dst_rep * width + width <= src_addr
                or src_addr + ((n - 1) * src_rep + (BLOCKS_PER_REPEAT - 1) * src_blk + 1) * BLOCK_BYTES <= dst_addr):
            return np.zeros((n, BLOCKS_PER_REPEAT), dtype=bool)  # every result stored below or above every block
        block_lanes = lanes.reshape(BLOCKS_PER_REPEAT, per_block)
        last = int(env.get(COUNTER_LAST, 0) or 0)
        if last and n > 1:
            block_lanes = np.repeat(block_lanes[None], n, axis=0)
            block_lanes[-1] = (np.arange(BLOCKS_PER_REPEAT * per_block) < last).reshape(BLOCKS_PER_REPEAT, per_block)
        read = block_lanes.any(axis=-1)
        stored = read if isinstance(self.masked_fill(case), str) else np.ones_like(read)
        reps = np.arange(n, dtype=np.int64)[:, None]
        stores = dst_addr + reps * (dst_rep * width) + np.arange(BLOCKS_PER_REPEAT) * esize
        reads = (_arange(src_addr, src_rep * BLOCK_BYTES, n)[:, None]
                 + _arange(0, src_blk * BLOCK_BYTES, BLOCKS_PER_REPEAT))  # as `_grid`, (n, 8)
        return repeat_overlap.clobbered_blocks(stores, esize, stored, reads, read, BLOCK_BYTES)


def lanes_at(active: np.ndarray, rows: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The lanes of the (repeat, block) ``rows``: ``active`` is (block, lane), the same in every repeat, or (repeat,
    block, lane) after a Counter-mode count whose last repeat has fewer lanes."""
    return active[rows] if active.ndim == 3 else active[rows[1]]


def _place(env: Mapping[str, Any], tensor: str) -> tuple[str, int]:
    """The buffer and byte address of ``tensor`` (what `Case.tensor` gives, without building its `TensorInfo`:
    a call's own work is a few microseconds, and that took a quarter of it)."""
    return POSITION_BUFFER[POSITION_NAMES[int(env[f"{tensor}.position"])]], int(env[f"{tensor}.addr"])


@lru_cache(maxsize=MAX_REPEAT + 1)
def _iterations(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The iteration of each datablock read (repeat r: 8 times r) and of each repeat's store, for ``n`` repeats
    (int64, read-only: shared by every call with ``n`` repeats)."""
    reps = np.arange(n, dtype=np.int64)
    blocks = reps.repeat(BLOCKS_PER_REPEAT)
    reps.flags.writeable = blocks.flags.writeable = False
    return blocks, reps


def _steps(start: int, step: int, count: int) -> range | np.ndarray:
    """``start + step*i`` for i < count: a ``range`` (the trace then knows they step evenly), or an int64 array of
    ``start`` repeated when ``step`` is 0."""
    if step:
        return range(start, start + step * count, step)
    return np.full(count, start, dtype=np.int64)


def _arange(start: int, step: int, count: int) -> np.ndarray:
    """``start + step*i`` for i < count (int64)."""
    if step:
        return np.arange(start, start + step * count, step, dtype=np.int64)
    return np.full(count, start, dtype=np.int64)


def _grid(start: int, row_step: int, col_step: int, rows: int, cols: int) -> range | np.ndarray:
    """``start + row_step*i + col_step*j`` for i < rows, j < cols, row by row, flat: `_steps` when the rows continue
    each other (contiguous datablocks, or all at one place), else int64."""
    if row_step == cols * col_step:
        return _steps(start, col_step, rows * cols)
    return (_arange(start, row_step, rows)[:, None] + _arange(0, col_step, cols)).reshape(-1)


def lanes_of(case: Case, lane_mask: Callable[[Case], np.ndarray]) -> np.ndarray | None:
    """Active lanes of one repeat (128 for half, 64 for float) by ``lane_mask``, or None when a prior SetVectorMask
    set them. A member passes its own module's ``lane_mask``: ``ascverify selftest``'s mask mutants swap it there,
    and a stand-in is asked every time; `vector_common.lane_mask`'s answers are kept per mask (read-only)."""
    env = case.env
    if not env["isSetMask"] or env.get("mask.placeholder"):
        return None
    if lane_mask is not _LANE_MASK:
        return lane_mask(case)
    bits = case.ctx.dtype.bits
    # the fields vector_common.lane_mask reads: the mode, then the words it uses or the count
    key = (bits, True, *(int(env[f"mask.w{i}"]) for i in range(mask_word_count(case.ctx)))) \
        if env["mask.bitwise"] else (bits, False, int(env["mask.count"]))
    got = _LANES.get(key)
    if got is None:
        got = np.array(lane_mask(case), dtype=bool)
        got.flags.writeable = False
        if len(_LANES) < 4096:
            _LANES[key] = got
    return got


_LANE_MASK = lane_mask
_LANES: dict[tuple, np.ndarray] = {}


# -- declarations built from the subclass ---------------------------------------------------------------------------

def _set_mask_source() -> str:
    return (f"{PAGE}, Template parameters, isSetMask; {SEED_004} 参数说明, is_set_mask (the sentence the family's "
            "pyasc docstrings share)")


def _args(c: Citations) -> tuple[Arg | MaskArg, ...]:
    return (
        Arg("repeatTime", INT32, c.args["repeatTime"],
            "repeats (iterations); each reads 8 datablocks and stores 8 results"),
        MaskArg("mask", source=c.args["mask"], count_type=INT32, placeholder=PLACEHOLDER,
                placeholder_flag="isSetMask"),
        Arg("dstRepStride", INT32, c.args["dstRepStride"],
            "dst step between repeats, in 8 results (16 bytes for half, 32 for float)"),
        Arg("srcBlkStride", INT32, c.args["srcBlkStride"],
            "src step between the datablocks of one repeat, in 32-byte datablocks"),
        Arg("srcRepStride", INT32, c.args["srcRepStride"], "src step between repeats, in 32-byte datablocks"),
        Arg("isSetMask", BOOL, c.args["isSetMask"],
            "true: the call sets the mask; false: a prior SetVectorMask did", default=True),
    )


def _tensors(cls: type[BlockReduceFamily]) -> tuple[TensorDecl, ...]:
    return (
        TensorDecl("dst", "out", source=cls.cite.dst, align=dst_align, align_exact=True,
                   doc=cls.dst_doc or f"the 8 results of every repeat ({cls.op.lower()})"),
        TensorDecl("src", "in", source=cls.cite.src, align=32, doc="the datablocks reduced"),
    )


def _spellings(repeat_time_label: str) -> dict[str, dict[str, str]]:
    """pyasc's signature says ``repeat``, its parameter list ``repeat_time``: both accepted."""
    common = {**dict(INT_ARGS[1:]), "isSetMask": "is_set_mask"}
    return {"pyasc": {"repeatTime": "repeat", **common}, repeat_time_label: {"repeatTime": "repeat_time", **common}}


def _family_notes(cls: type[BlockReduceFamily]) -> tuple[SpecNote, ...]:
    p, name, op, py, old = cls.prefix, cls.name, cls.op, cls.py_page, cls.old_page
    par = f"{PAGE}, Parameters"
    return (
        SpecNote(f"{p}.family", "One vendor page for SUM, MAX and MIN",
                 f"{name} is ReduceDataBlock<ReduceType::{op}> under its name before CANN 9.1.0. Its parameters, "
                 "products, types, argument ranges, alignment, footprints, overlap, no-op and dstRepStride = 0 rules "
                 "are BlockReduceMin's word for word: the vendor states them once for SUM, MAX and MIN. Cases keep the "
                 "legacy argument order (repeatTime before mask); a vendor call ReduceDataBlock<...>(dst, src, A, B, "
                 "...) has A = mask and B = repeatTime.",
                 "The ReduceDataBlock page documents the three reductions as one template with one product table, one "
                 "type table and one list of restrictions; the pre-rename pages and pyasc's docstrings repeat the same "
                 f"parameter text. asc-devkit's interface file forwards {name} to ReduceDataBlockCommon<ReduceType::"
                 f"{op}> with the same checks as the other two. The hardware notes record these page-wide facts "
                 "under BlockReduceMin, which is why the rules cite that section too.",
                 (f"{PAGE}, Product support", f"{PAGE}, Prototype", f"{PAGE}, Restrictions", f"{old}, Parameters",
                  INTF, FAMILY_NOTES)),
        SpecNote(f"{p}.repeat-name", "repeat and repeat_time",
                 "The iteration count is accepted as `repeat` (pyasc's signature and examples) and as `repeat_time` "
                 "(pyasc's parameter list), besides Ascend C's `repeatTime`; a case uses one spelling throughout.",
                 f"pyasc's {p} takes `repeat`; its docstring's parameter list says `repeat_time` (the same split as "
                 "block_reduce_min).",
                 (f"{py}, Parameters, repeat_time", f"{py}, Example", f"{PY_SIGNATURES}, {p}")),
        SpecNote(f"{p}.dst-align", "dst alignment: 16 bytes for half",
                 "dst's start must be 16-byte aligned for half and 32-byte aligned for float, and nothing more; "
                 "src's start is 32-byte aligned.",
                 "The ReduceDataBlock page's restrictions and pyasc's dst parameter ask for 16 bytes (half) / 32 bytes "
                 "(float), while pyasc's restrictions point to the general alignment rule (32 bytes for every UB "
                 "operand). The API-specific sentence is the more specific one: one repeat's 8 half results are 16 "
                 "bytes and dstRepStride moves dst in such units.",
                 (f"{PAGE}, Restrictions", f"{py}, Parameters, dst", f"{py}, Restrictions", FAMILY_NOTES),
                 (f"{p}.dst.align",)),
        SpecNote(f"{p}.dst-rep-stride-unit", "dstRepStride unit",
                 "dstRepStride counts one repeat's reduced length, 8 elements: 16 bytes for half, 32 for float. "
                 "Result b of repeat r is dst element r*dstRepStride*8 + b.",
                 "The page states the unit in bytes per type; the element formula follows.",
                 (f"{par}, dstRepStride", FAMILY_NOTES), (f"{p}.dst.footprint",)),
        SpecNote(f"{p}.src-stride-units", "src stride units",
                 "srcBlkStride and srcRepStride count 32-byte datablocks: block b of repeat r starts at byte "
                 "(r*srcRepStride + b*srcBlkStride)*32 of src.",
                 "The ReduceDataBlock page gives srcBlkStride in 32-byte units and srcRepStride as datablocks "
                 "skipped per repeat (pyasc's docstring gives src_blk_stride without a unit).",
                 (f"{par}, srcBlkStride", f"{par}, srcRepStride", f"{py}, Parameters, src_blk_stride"),
                 (f"{p}.src.footprint",)),
        SpecNote(f"{p}.int32-args", "Argument types and ranges",
                 "repeatTime and the three strides are int32 (the prototype) with the ranges repeatTime in [0, 255] "
                 "and strides in [0, 65535]; the contiguous mask is int32, the bitwise words uint64.",
                 "The ReduceDataBlock page gives both ranges; the int32 prototype alone would let negative values "
                 "through. pyasc materialises the arguments as int32 and the words as uint64. A contiguous mask past "
                 "the lanes stays an error although the vendor's Mask overview page says such a mask 'is computed "
                 "as the type's largest': its debug checks assert [0, 128] for 16-bit operands and pyasc's docstring "
                 "gives [1, 128].",
                 (f"{PAGE}, Prototype", f"{par}, repeatTime", f"{par}, dstRepStride",
                  f"{PY_SIGNATURES}, reduce_op_impl"),
                 (f"{p}.repeatTime.range", f"{p}.dstRepStride.range", f"{p}.srcBlkStride.range",
                  f"{p}.srcRepStride.range", f"{p}.mask.count.type")),
        SpecNote(f"{p}.dstRepStride-zero", "dstRepStride = 0",
                 "dstRepStride = 0 is an error on atlas-training and valid elsewhere: every repeat stores its 8 "
                 "results on the same 8 elements, the last repeat's values remain.",
                 "The page: 'Atlas training products do not support 0'. On atlas-200i-500-a2 and atlas-350 the "
                 "library runs only the last repeat for dstRepStride = 0, which leaves the same values.",
                 (f"{par}, dstRepStride", FAMILY_NOTES), (f"{p}.dstRepStride.nonzero",)),
        SpecNote(f"{p}.mask-64bit", "Mask limits for 64-bit operands",
                 f"The mask rules keep the generic 64-bit limits (one word, at most 2^32-1, count <= 32) though {name} "
                 "supports only half and float; a 64-bit T is refused by the dtype rule first.",
                 "pyasc's docstring copies the generic mask table, which lists 64-bit operands.",
                 (f"{py}, Parameters, mask", MASK_NOTES), (f"{p}.mask.words.width", f"{p}.dtype.support")),
        SpecNote(f"{p}.mask-placeholder", "isSetMask = false",
                 f"With isSetMask=false the mask argument has no effect: {PLACEHOLDER!r} is expected, any other value "
                 "is a warning (mask.ignored) and is not checked by the mask rules. The placeholder with "
                 "isSetMask=true is an error (the call has no mask then). The effective mask comes from a prior "
                 "SetVectorMask, which a single call cannot see: the mask rules are reported as not checked, and the "
                 "core treats every result as unspecified. In a program the mask a Normal-mode SetVectorMask set is "
                 "used. After a Counter-mode one the hardware ignores repeatTime and runs ceil(count / lanes) repeats, all "
                 "of the type's lanes but the last, which has the rest (the Mask page): the call is run so, and "
                 "checked as that many repeats of all lanes but the last and as every repeat with the last one's "
                 "lanes (together exactly its accesses); the warning counter_mode says so when repeatTime differs. A "
                 "count of 0, or one needing more than 255 repeats, draws counter_mode and leaves the results "
                 "unspecified. With isSetMask=true while SetMaskCount has put the unit in Counter mode, the call's "
                 "own mask array is a count: mask[0] elements, mask[1] not read, repeatTime without effect (run and "
                 "checked so, counter_mode says it when repeatTime or mask[1] had no effect); its own contiguous "
                 "mask there is not modelled (counter_mode, the mask rules not checked, the results unspecified), but "
                 "a count outside [0, 2^31-1] is an error (mask.counter.range: the vendor's CPU-debug check, "
                 "CheckMaskValue in Counter mode; found by the vendor-check census). "
                 "A Counter-mode count that SetVectorMask<T, COUNTER> wrote with no SetMaskCount before the op in the "
                 "program draws counter_mode too: the template only writes the words (0, count), and Normal is the "
                 "system's default mode (the SetMaskNorm page), which reads them as a bit mask (checked and run as a "
                 "count all the same). The vendor's "
                 "ReduceMax / ReduceMin (reduce_common_util_v220_impl.h, DoReduceOneBlk) call SetMaskCount(), "
                 "SetVectorMask<T, COUNTER>(0, n) and then BlockReduceMax<T, false>(dst, src, 1, MASK_PLACEHOLDER, 1, "
                 "1, 8) on a src of n elements.",
                 "The ReduceDataBlock page: with false the mask is set outside with SetVectorMask and the argument is "
                 "the placeholder, 'a placeholder with no actual meaning'; the vendor's Mask page says the argument "
                 "'has no effect' then, and the implementation returns before reading it. The pyasc docstring's "
                 "'must' is not what the vendor's code relies on: its own 910B1 test calls ReduceDataBlock<..., false> "
                 f"with a mask of 64. pyasc's docstring lists is_set_mask, but its {p} has no such keyword (it always "
                 "emits isSetMask = true); ascverify accepts it like block_reduce_min's. The Mask page's 'Mask set "
                 "inside the API' in Counter mode: SetMaskCount(); mask[2] = {130, 0}; 'only the low 64 bits of the "
                 "mask array count: 130 elements take part; repeatTimes has no effect' -- both implementations read "
                 "it so (dav_c220 writes the words to the register Counter mode counts; dav_3510 sets its count "
                 "from mask[0]); they differ on a contiguous mask (dav_3510 counts it, SetMask<T>(len) writes "
                 "all bits for len >= 128 elsewhere), which the page does not show in Counter mode.",
                 (f"{PAGE}, Template parameters, isSetMask", f"{py}, Parameters, is_set_mask", f"{PY_SIGNATURES}, {p}",
                  "asc-devkit tests/api/basic_api/ascendc_case_ascend910b1/ascendc_case_ascend910b1_aiv/"
                  "test_operator_vec_reduce.cpp:48-52", "asc-devkit impl/basic_api/kernel_utils_base.h:117-142",
                  "asc-devkit impl/adv_api/detail/reduce/reduce_common_util_v220_impl.h (DoReduceOneBlk)",
                  "Mask overview (asc-devkit docs), Mask set inside the API, Counter mode",
                  "asc-devkit impl/basic_api/dav_3510/kernel_operator_vec_reduce_impl.h:318-321",
                  "SetMaskNorm (asc-devkit docs), Description"),
                 (f"{p}.mask.placeholder", f"{p}.mask.ignored", f"{p}.counter_mode", f"{p}.mask.counter.range")),
        SpecNote(f"{p}.arg-spellings", "Argument names",
                 "Cases may use the Ascend C names (repeatTime, dstRepStride, srcBlkStride, srcRepStride, isSetMask, "
                 "mask) or the pyasc names (repeat or repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, "
                 "is_set_mask, mask), not both in one case.",
                 "pyasc's signature and examples say repeat, its parameter list repeat_time.",
                 (f"{py}, Example", f"{py}, Parameters, repeat_time")),
        SpecNote(f"{p}.full-footprints", "dst's footprint ignores the mask",
                 "All 8 results of every repeat must lie inside dst, whatever the mask (for repeatTime >= 1).",
                 "The pages are silent. The mask may come from SetVectorMask (unknown to the call), and on atlas-350 "
                 "and atlas-200i-500-a2 fully masked blocks still store a result.",
                 (f"{PAGE}, Parameters", FAMILY_NOTES), (f"{p}.dst.footprint",)),
        masked_blocks_note(p),
        mask_high_word_note(p, f"{PAGE}, Prototype, const uint64_t mask[]"),
        mask_count_m300_note(p),
        SpecNote(f"{p}.in-place", "dst sharing memory with src",
                 "dst may overlap src. A result of repeat r landing on a source byte a later repeat r' > r reads is "
                 "a WARNING (exact, on the footprints), not an error: the later repeat may read the byte before or "
                 "after the store, so `run` marks its results of such blocks unspecified (never a fault, never a "
                 "number). Overlap with bytes of the same or an earlier repeat is fine.",
                 f"The pre-rename {name} page and pyasc's docstring: 'the destination written must not overwrite "
                 "source data still to be used'. The current ReduceDataBlock page points to the general overlap rule "
                 "instead (within one iteration src and dst overlap fully or not at all), which cannot be meant "
                 f"literally: the vendor's own softmax reduces in place with {name}<float,false>(t, t, n, "
                 "MASK_PLACEHOLDER, 1, 1, 8), where repeat 0 overlaps its source in part. The later-repeat rule fits "
                 "that use; it is conservative where a block has no active lane (not read on any product, and on "
                 "atlas-a2/a3 not stored either: `run` then marks nothing). The "
                 "vendor's SoftmaxFlashV3 goes further (softmax_flashv3_impl.h:69-70, after a Counter-mode count of "
                 "M*64 floats): BlockReduceSum(rowMeanGlobalTmp, rowMeanLocal, ...) with rowMeanGlobalTmp 8*M floats "
                 "after rowMeanLocal, so repeat 0's results land on what repeat 1 reads; only the first M results are "
                 "used (Brcb at :72-73), those of repeat 0. The pages' 'must not overwrite' would refuse a call the "
                 "vendor ships; the reading its code relies on is that the call runs and only the later repeats' "
                 "results are spoiled: a warning, with those results unspecified.",
                 (f"{old}, {IN_PLACE_SENTENCE}", f"{py}, {IN_PLACE_SENTENCE}",
                  f"{PAGE}, Restrictions (address overlap)", OVERLAP_PAGE,
                  "asc-devkit impl/adv_api/detail/activation/softmax/membase/common/softmax_flashv2_impl/"
                  "softmax_flashv2_block_reduce_impl.h",
                  "asc-devkit impl/adv_api/detail/activation/softmax/membase/v220/softmax_flashv3_impl.h:59-73 "
                  "(exercised by tests/api/adv_api/activation/softmax/test_operator_softmaxflashv3_v220.cpp)", FAMILY_NOTES),
                 (f"{p}.dst.src.in_place",)),
        SpecNote(f"{p}.noop", "repeatTime = 0 or mask = 0",
                 "repeatTime = 0 is valid and stores nothing: a warning on every product (repeatTime.zero), on "
                 "atlas-350 the warning noop (a no-op is not guaranteed there). A mask selecting nothing is a "
                 "warning on atlas-a2/a3 (mask.zero: a documented no-op) and on atlas-350 (noop: every datablock is "
                 "then fully masked and gets +inf), an error by the mask rules elsewhere. On a no-op (the call's own "
                 "mask 0 on atlas-a2/a3) the footprint rules (src.footprint, src.footprint.masked, dst.footprint) "
                 "and the in-place warning do not apply: nothing is read or stored. A mask of 0 where the call runs "
                 "(atlas-350) has no datablock with an active lane: src.footprint asks for none, the warning "
                 "src.footprint.masked for all eight (spec note masked-blocks); dst.footprint still applies.",
                 "The ReduceDataBlock page: on atlas-a2/a3 mask or repeatTime 0 is a no-op, nothing is written. The "
                 "hardware notes: repeat 0 is a no-op; 'the two words must not both be 0' and a contiguous mask of "
                 "1..128 for the ops; on atlas-350 'a no-op is not guaranteed (a spec note: warn)'. The vendor's "
                 "debug checks warn 'equivalent to a NOP' for repeatTime 0 on every product, and for a mask of 0 "
                 "everywhere but __NPU_ARCH__ 2002 (the inference AI Core), which refuses it; its Mask overview page "
                 "calls mask = 0 a NOP without naming a product. No vendor call passes a mask of 0, so the hardware "
                 "notes' mask range stands on atlas-training, atlas-200i-500-a2 and the inference AI Core.",
                 (f"{PAGE}, Restrictions", FAMILY_NOTES, MASK_NOTES, "004_2ad9555534615f32.txt 参数说明 mask",
                  "Mask overview (asc-devkit docs, mask = 0)", "asc-devkit impl/basic_api/kernel_npu_debug.h:128-133, "
                  "250-323", "asc-devkit impl/basic_api/kernel_operator_vec_reduce_intf_impl.h:69"),
                 (f"{p}.noop", f"{p}.mask.zero", f"{p}.repeatTime.zero", f"{p}.mask.count.range",
                  f"{p}.mask.words.nonzero", f"{p}.src.footprint", f"{p}.src.footprint.masked", f"{p}.dst.footprint",
                  f"{p}.dst.src.in_place")),
        SpecNote(f"{p}.repeat-normal-mode", "repeatTime in Normal mode",
                 "In Normal mode the call runs repeatTime repeats (repeatTime is ignored only in Counter mode, spec "
                 "note mask-placeholder).",
                 "The ReduceDataBlock page and the Mask overview's description of Normal mode: repeatTime repeats of "
                 "the masked lanes. The Mask overview's Table 3 also says, for two Normal-mode rows, that repeatTime "
                 "'has no effect, set it to 1' -- a sentence its own text and the ReduceDataBlock page contradict "
                 "(and the vendor's Normal-mode BlockReduce passes repeatTime to the instruction). Recorded by the "
                 "documentation census (census_docs_vector.md, G8).",
                 (f"{PAGE}, Parameters (repeatTime)", "Mask overview (asc-devkit docs), Normal mode and Table 3",
                  MASK_NOTES), ()),
        SpecNote(f"{p}.own-mask-register", "A call's own mask stays in the mask register (programs)",
                 "With isSetMask=true the call writes its own mask to the mask register and leaves it there: a later "
                 "call with isSetMask=false in the same program reads it (as after a SetVectorMask). The register is "
                 "left as it was by a contiguous mask on atlas-350 and atlas-200i-500-a2, and by a contiguous mask in "
                 "Counter mode (not modelled).",
                 "The Mask page and the Mask interface summary: a mask set inside an API (isSetMask=true) is written "
                 "to the register and later calls with isSetMask=false use it. The vendor's implementations: "
                 "dav_c220, dav_c100 and dav_m200 call AscendCUtils::SetMask<T>(mask[1], mask[0]) or SetMask<T>(len) "
                 "before the instruction; dav_3510 and dav_m300 call SetVectorMask<T>(mask[1], mask[0]) for the "
                 "array form and pass a contiguous count to the instruction without touching the register. Found by "
                 "the documentation census (tests/vendor/census_docs_vector.md, G3).",
                 ("Mask overview (asc-devkit docs), Mask set inside the API", MASK_NOTES,
                  "asc-devkit impl/basic_api/dav_{c220,c100,m200,m300,3510}/kernel_operator_vec_reduce_impl.h "
                  "(BlockReduce*Impl)"), ()),
        SpecNote(f"{p}.same-type", "dst and src element types",
                 "dst and src both have T (half or float per product; half only on atlas-training).",
                 "The page: the destination and source types must be the same; the legacy prototype takes "
                 "LocalTensor<T> for both.",
                 (f"{PAGE}, Data types", f"{old}, Prototype"), (f"{p}.dst.dtype", f"{p}.src.dtype")),
    )


# -- the invariants the three share, and their helpers --------------------------------------------------------------

def simulate(case: Case, seed: int, src: np.ndarray | None = None):
    """Memory before the call, memory after it, and the trace (strict), with src's contents optionally given."""
    c = fresh(case)
    if src is not None:
        c.set_data("src", src)
    memory, _ = prepare(c, seed=seed)
    before = memory.snapshot()
    trace = Trace(memory, strict=True)
    c.model.execute(c, trace)
    return before, memory, trace


def block_reads(case: Case) -> np.ndarray:
    """src element index of (repeat, block, lane)."""
    env, k = case.env, BLOCK_BYTES // case.ctx.dtype.size
    reps, blocks = np.arange(int(env["repeatTime"])), np.arange(BLOCKS_PER_REPEAT)
    first = (reps[:, None] * int(env["srcRepStride"]) + blocks[None, :] * int(env["srcBlkStride"])) * k
    return first[:, :, None] + np.arange(k)


@dataclass(frozen=True)
class StoredResult:
    """One result a simulated call leaves in dst, as the invariants check it."""

    where: str               # "repeat r, block b"
    block: np.ndarray        # the block's elements, every lane, as the call read them
    active: np.ndarray       # the block's active lanes
    out: Any                 # the element of dst after the call
    old: Any                 # the element before it
    poisoned: bool           # the stored bytes are marked unspecified


def stored_results(case: Case, seed: int, src: np.ndarray | None = None) -> Iterator[StoredResult]:
    """Every result a valid call leaves (with dstRepStride 0 the last repeat's), from a strict simulation (src's
    contents optionally given). With an unknown mask (a prior SetVectorMask's) every result must be poison: checked
    here, and nothing is yielded."""
    n = int(case.env["repeatTime"])
    if n <= 0:
        return
    before, after, _ = simulate(case, seed, src)
    dst, src, t = case.tensor("dst"), case.tensor("src"), case.ctx.dtype
    # on a valid case no byte is stored before a later repeat reads it: every read sees the initial memory
    x = before.typed(src.buffer, src.addr, src.size, t.numpy)
    old = before.typed(dst.buffer, dst.addr, dst.size, t.numpy)
    out = after.typed(dst.buffer, dst.addr, dst.size, t.numpy)
    state = after.state[dst.buffer][dst.addr:dst.end].reshape(-1, t.size)
    stride = int(case.env["dstRepStride"])
    unknown = case.model.active_lanes(case) is None
    idx = block_reads(case)
    active = None if unknown else lane_mask(case).reshape(BLOCKS_PER_REPEAT, -1)
    for r in range(n - 1 if stride == 0 else 0, n):  # with dstRepStride 0 the last repeat's results remain
        for b in range(BLOCKS_PER_REPEAT):
            at = r * stride * BLOCKS_PER_REPEAT + b
            poisoned = bool((state[at] == POISON).all())
            where = f"repeat {r}, block {b}"
            if unknown:
                assert poisoned, f"{where}: the result of an unknown mask is not poison"
                continue
            # a block without an active lane is not read (it may lie outside src): no values
            values = x[idx[r, b]] if active[b].any() else np.zeros(active[b].size, dtype=t.numpy)
            yield StoredResult(where, values, active[b], out[at], old[at], poisoned)


def check_masked_block(case: Case, res: StoredResult, fills: Mapping[str, tuple[float, float]]) -> None:
    """A block without an active lane: dst keeps its value on atlas-a2/a3; it holds the product's fill where the
    pages give one (``fills``: product -> (half, float) value); elsewhere it is unspecified (poison)."""
    if case.product in KEEP_PRODUCTS:
        assert res.old.tobytes() == res.out.tobytes(), f"{res.where}: a fully masked block changed dst"
    elif case.product in fills:
        want = np.array(fills[case.product][case.ctx.dtype.size != 2], dtype=case.ctx.dtype.numpy)
        assert not res.poisoned and res.out.tobytes() == want.tobytes(), \
            f"{res.where}: a fully masked block gives {res.out!r}, not {want!r}"
    else:
        assert res.poisoned, f"{res.where}: a fully masked block's result is not marked unspecified"


def masked_lanes_never_matter(case: Case, seed: int = 0) -> None:
    """Changing src elements no active lane reads (to NaN, -0, -inf, ...) changes no stored byte."""
    if int(case.env["repeatTime"]) <= 0 or case.model.active_lanes(case) is None:
        return
    before, after, trace = simulate(case, seed)
    src, t = case.tensor("src"), case.ctx.dtype
    x = before.typed(src.buffer, src.addr, src.size, t.numpy)
    idx, active = block_reads(case), lane_mask(case).reshape(BLOCKS_PER_REPEAT, -1)
    ever = np.zeros(x.size, dtype=bool)
    ever[idx[:, active]] = True  # an element may be read by several (repeat, block) pairs
    junk = np.array([np.nan, -0.0, -np.inf, -1e4, 3.5] if t.kind == "float" else [0], dtype=t.numpy)
    changed = np.where(ever, x, np.resize(np.roll(junk, seed % junk.size), x.size))
    _, after2, trace2 = simulate(case, seed, src=changed)
    buf = src.buffer
    stored = trace.stored(buf)
    assert np.array_equal(stored, trace2.stored(buf)), "masked-off src elements changed which bytes are stored"
    assert np.array_equal(after.buffers[buf][stored], after2.buffers[buf][stored]), "masked-off src elements matter"
    assert np.array_equal(after.state[buf][stored], after2.state[buf][stored]), "masked-off src elements matter"


def contiguous_equals_bitwise(case: Case, seed: int = 0) -> None:
    """A contiguous mask k stores exactly what the bitwise mask with the low k bits set stores."""
    env = case.env
    if env["mask.bitwise"] or env["mask.placeholder"] or not env["isSetMask"]:
        return
    k = int(env["mask.count"])
    bits = (1 << k) - 1
    words = [(bits >> (64 * i)) & (2**64 - 1) for i in range(mask_word_count(case.ctx))]
    other = case.with_fields(**{"mask.bitwise": True, "mask.count": 0, "mask.nwords": len(words),
                                **{f"mask.w{i}": w for i, w in enumerate(words)}})
    _, a, _ = simulate(case, seed)
    _, b, _ = simulate(other, seed)
    for buf in a.buffers:
        assert np.array_equal(a.buffers[buf], b.buffers[buf]) and np.array_equal(a.state[buf], b.state[buf]), \
            f"contiguous mask {k} and its bitwise form {words} differ"


def in_place_rule_matches_core(case: Case, seed: int = 0) -> None:
    """Moved onto src (offset drawn from the seed), dst clobbers a source byte read later exactly when the in-place
    rule warns, and the core then marks the later repeat's results of those blocks unspecified (never a fault, never
    a number); with a fully masked block, which the core does not read (and on atlas-a2/a3 does not store), the
    rule (on footprints) may warn where the core sees nothing."""
    n = int(case.env["repeatTime"])
    if n < 2:
        return
    v, ctx = case.values(), case.ctx
    dst, src = case.tensor("dst"), case.tensor("src")
    align = dst_align(ctx)
    lo, hi = -int(dst_span_bytes(v, ctx)) // align, int(src_span_bytes(v, ctx)) // align
    addr = src.addr + align * int(np.random.default_rng(seed).integers(lo, hi + 1))
    if addr < 0 or addr + dst.nbytes > ctx.product.buffer_size(src.buffer):
        return
    moved = case.with_fields(**{"dst.addr": addr, "dst.position": case.env["src.position"]})
    verdict = check_case(moved)
    if verdict.violations:
        return
    warned = f"{case.model.prefix}.dst.src.in_place" in {x.id for x in verdict.warnings}
    res = run_case(fresh(moved), seed=seed, strict=False)
    assert not res.faults, f"unexpected faults {[str(f) for f in res.faults[:3]]}"
    later = case.model.clobbered_results(moved)
    if later is None:  # the mask is a prior SetVectorMask's: every result is unspecified anyway
        return
    clobbered = bool(later.any())
    lanes = case.model.active_lanes(moved)
    # a block without an active lane is not read (and on atlas-a2/a3 not stored): the rule, on footprints, may
    # warn where the core sees nothing
    every_block = lanes.reshape(BLOCKS_PER_REPEAT, -1).any(axis=1).all()
    if every_block:
        assert warned == clobbered, f"in-place rule warns={warned}, core saw a clobber={clobbered} (dst at {addr})"
    else:
        assert clobbered <= warned, f"core saw a clobber the in-place rule accepts (dst at {addr})"
    if clobbered:
        esize = ctx.dtype.size
        width = BLOCKS_PER_REPEAT * esize
        state = res.memory.state[moved.tensor("dst").buffer]
        for r, b in zip(*np.nonzero(later)):
            at = addr + int(r) * int(moved.env["dstRepStride"]) * width + int(b) * esize
            last_store = max(rr for rr in range(n) if addr + rr * int(moved.env["dstRepStride"]) * width
                             <= at < addr + rr * int(moved.env["dstRepStride"]) * width + width)
            if last_store == r:  # not stored over again by a later repeat (dstRepStride 0 repeats the place)
                assert (state[at:at + esize] == POISON).all(), f"result ({r}, {b}) read a clobbered block: unspecified"


#: The value `active_lanes_matter` writes to each block's last active lane (the other elements +0): the result of
#: every block that counts it.
PROBES = {"MIN": -1024.0, "MAX": 1024.0, "SUM": 1024.0}


def active_lanes_matter(case: Case, seed: int = 0) -> None:
    """Every block's last active lane counts: with src all +0 but that element of every block, which is `PROBES`'
    value (-1024 for Min, +1024 for Max and Sum), every block with an active lane stores exactly that value (a sum:
    that value times the probes among its active elements, where blocks overlap); a mask one lane short, or a lane
    dropped, stores something else."""
    if int(case.env["repeatTime"]) <= 0 or case.model.active_lanes(case) is None:
        return
    src, t = case.tensor("src"), case.ctx.dtype
    idx, active = block_reads(case), lane_mask(case).reshape(BLOCKS_PER_REPEAT, -1)
    blocks = np.nonzero(active.any(axis=1))[0]
    if not blocks.size:
        return
    value = PROBES[case.model.op]
    last = active.shape[1] - 1 - np.argmax(active[:, ::-1], axis=1)  # per block, its last active lane
    x = np.zeros(src.size, dtype=t.numpy)
    x[idx[:, blocks, last[blocks]]] = value
    for res in stored_results(case, seed, src=x):
        if res.active.any():
            # overlapping blocks (srcBlkStride < 1) may read other blocks' probes too: a sum counts each
            probes = int(np.count_nonzero(res.block[res.active] == value))
            want = value * probes if case.model.op == "SUM" else value
            assert not res.poisoned and float(res.out) == want, \
                f"{res.where}: stores {res.out} with {probes} active lane(s) at {value}, the others +0"


#: the invariants every member runs after its own
SHARED_INVARIANTS = (masked_lanes_never_matter, contiguous_equals_bitwise, in_place_rule_matches_core,
                     active_lanes_matter)

"""BilinearInterpolation (page 000_f2fe3f8fa92b9dd9.txt + HARDWARE_NOTES.md BilinearInterpolation).

The core follows each product's vendor implementation (asc-devkit impl/basic_api/dav_*/
kernel_operator_vec_bilinearinterpolation_impl.h), because the order of its reads and writes decides
which overlaps are hazards and which bytes of sharedTmpBuffer are written:

- atlas-350 (dav_3510): no temporary space. Per vertical iteration v: dstReg = 0 (Duplicate); for each
  horizontal iteration h: load the 8 offsets, GatherB the 8 src0 blocks, load the src1 value(s),
  Mul, Add into dstReg; then store dstReg (masked) at dst + v*vROffset. Sources of iteration v are read
  after iteration v-1 stored.
- atlas-a2 / atlas-a3 (dav_c220): Gatherb of hRepeat*vRepeat repeats into sharedTmpBuffer[0, h*v*256),
  Brcb of src1 (src1.size/8 repeats) after it, Mul (counter mode), per vertical iteration an Add chain
  that starts from the first product, then Adds(dst, sum, 0) stores (masked) per vertical iteration.
  Every source byte is read before dst is written.
- atlas-inference-aicore (dav_m200): vadds copies every src0Offset entry plus src0's address into
  sharedTmpBuffer (src0Offset.size * 4 bytes), then the vbi instruction reads those addresses, src0
  and src1 and stores dst (per vertical iteration, spec note bilinear.hazard-order).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from ..cases.case import Case, fresh
from ..checking.checker import check_case
from ..core import half
from ..core.memory import Fault
from ..core.run import declare_tensors, run_case
from ..spec.errors import InputError
from ..spec.logic import And, Between, Div, Exists, If, Implies, Max, Min, Mod, Not, Or, Sum
from ..spec.model import ApiModel, SpecNote
from ..spec.params import BOOL, UINT8, UINT16, UINT32, Arg, MaskArg, TensorDecl
from ..spec.products import BUFFERS
from ..spec.registry import register
from ..spec.rules import (
    WARNING,
    Context,
    Values,
    data_rule,
    field_multiple,
    field_range,
    rule,
    step_for_bytes,
    tensor_min_size,
    tensors_disjoint,
)
from .mask_mode import MASK_MODE_STATE
from .vector_common import (ALL_ONES_FIELDS, BLOCK_BYTES, OVERLAP_PAGE, REPEAT_BYTES, VECTOR_MASK_STATE, lane_mask,
                            mask_high_word_note, mask_register_state, mask_rules, mask_selects_nothing)

SEED = "000_f2fe3f8fa92b9dd9.txt"
NOTES = "HARDWARE_NOTES.md BilinearInterpolation"
BLOCKS_PER_REPEAT = 8


def unless_no_lane(r: Any) -> Any:
    """``r`` (a rule of `DST_STORE_RULES`; any other is returned as is) not in force on a call whose mask enables no
    lane where that stores nothing to dst (`MASK_ZERO_NOOP`)."""
    if r.id.split(".", 1)[1] not in DST_STORE_RULES:
        return r
    old = r.when

    def when(v: Values, ctx: Context) -> Any:
        if ctx.product.id not in MASK_ZERO_NOOP:
            return True if old is None else old(v, ctx)
        stores = Not(mask_selects_nothing(v, ctx))
        return stores if old is None else And(old(v, ctx), stores)
    return replace(r, when=when, notes=(*r.notes, "bilinear.mask-zero"))


def _impl(arch: str) -> str:
    return f"asc-devkit impl/basic_api/{arch}/kernel_operator_vec_bilinearinterpolation_impl.h"


IMPL_3510, IMPL_C220, IMPL_M200 = _impl("dav_3510"), _impl("dav_c220"), _impl("dav_m200")
#: The vendor's newer page of this call (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/基础算术/
#: BilinearInterpolation(ISASI).md, read at 82b89a1).
VENDOR_PAGE = "BilinearInterpolation (asc-devkit docs)"
#: Bytes src0 may hold past its minimum in drawn cases: past 2^16, where a 16-bit byte offset wraps.
SRC0_HEADROOM_BYTES = 2**16 + 8 * 1024
#: The vendor implementation each supported product runs (unsupported products run the dav_3510 order).
IMPL_OF = {"atlas-350": "dav_3510", "atlas-a2": "dav_c220", "atlas-a3": "dav_c220",
           "atlas-inference-aicore": "dav_m200"}
#: Products whose implementation uses sharedTmpBuffer (the page: none is needed on atlas-350).
TMP_PRODUCTS = ("atlas-a2", "atlas-a3", "atlas-inference-aicore")
#: The rules about the bytes the call stores to dst (ids without the prefix): none is stored with a mask of no lane
#: on `MASK_ZERO_NOOP` (spec note bilinear.mask-zero)
DST_STORE_RULES = ("dst.vertical_overlap", "dst.size", "dst.hazard", "dst.src0.disjoint", "dst.src0Offset.disjoint",
                   "dst.src1.disjoint", "dst.src0.hazard", "sharedTmpBuffer.dst.disjoint", "sharedTmpBuffer.dst.hazard",
                   "c220_rep_strides")
#: Where a mask that enables no lane is a NOP for dst (the Mask overview page: 'mask = 0: NOP' on Atlas A3 / A2):
#: a warning there, an error elsewhere (page 000's range from 1; spec note bilinear.mask-zero)
MASK_ZERO_NOOP = ("atlas-a3", "atlas-a2")
MASK_PAGE = "Mask overview (asc-devkit docs)"
#: Products running dav_c220 (Gatherb / Brcb / Mul / Add / Adds through sharedTmpBuffer).
C220_PRODUCTS = ("atlas-a2", "atlas-a3")
#: Products that read src0 blocks and src1 values of vertical iteration v after storing iteration v-1.
PER_ITERATION_PRODUCTS = ("atlas-350", "atlas-inference-aicore")
#: ... and the src0Offset entries too (dav_m200 copies them all into sharedTmpBuffer before anything).
OFFSETS_PER_ITERATION_PRODUCTS = ("atlas-350",)
#: uint8 repeat counters of dav_c220 (innerRepeatTimes = hRepeat * vRepeat; Brcb's repeatTime = src1.size / 8).
UINT8_WRAP = 256
#: Elements Brcb reads per repeat (brcbEleNum in dav_c220).
BRCB_ELEMS = 8
#: Offsets vadds handles per repeat on dav_m200 (64 int32 elements per 256-byte repeat).
VADDS_PER_REPEAT = REPEAT_BYTES // 4
#: pyasc's names of the tensors (`python/asc/language/basic/vec_binary.py`, bilinear_interpolation).
PYASC_TENSORS = {"src0_offset": "src0Offset", "shared_tmp_buffer": "sharedTmpBuffer"}


def _t2(name: str) -> str:
    return f"{SEED} Table 2, {name}"


def _last_offset_load_end(v: Values, ctx: Context) -> Any:
    """One past the last UB byte dav_3510 reads of src0Offset: the last group of 8 entries (32 bytes apart) loaded
    as a whole vector register."""
    return v.src0Offset.addr + BLOCK_BYTES * (v.hRepeat * v.vRepeat - 1) + ctx.product.vector_length


def _block_elems(ctx: Context) -> int:
    return BLOCK_BYTES // ctx.dtype.size


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """Elements from dst's start to the end of the last block written."""
    b = _block_elems(ctx)
    return (v.vRepeat - 1) * v.vROffset + (BLOCKS_PER_REPEAT - 1) * v.dstBlkStride * b + b


def vertical_overlap(v: Values, ctx: Context) -> Any:
    """Two vertical iterations write a common block (exact for vROffset >= 16).

    Block b of iteration i covers elements [i*R + b*S*B, +B). Iterations i and i+d collide iff
    |d*R - e*S*B| < B for some e in [1, 7] (e <= 0 cannot collide since d*R >= R >= B); the smallest
    candidate d for a given e is floor((e*S*B - B) / R) + 1.
    """
    b = _block_elems(ctx)
    r, s = v.vROffset, v.dstBlkStride
    hits = []
    for e in range(1, BLOCKS_PER_REPEAT):
        x = e * s * b
        d = Max(1, Div(x - b, r) + 1)
        hits.append(And(d * r < x + b, d <= v.vRepeat - 1, r > 0))
    # Not needed for the value (it rules every hit out): a single iteration, or vROffset >= (7*dstBlkStride + 1)*B
    # (iteration i+1 starts after iteration i's last block). Stated first, it lets the solver settle most cases
    # without the division by vROffset.
    apart = Or(v.vRepeat <= 1, And(s >= 0, r >= ((BLOCKS_PER_REPEAT - 1) * s + 1) * b))
    return And(Not(apart), Or(*hits))


def _overlap_example(v: Values, ctx: Context) -> dict[str, str]:
    """The first two vertical iterations whose dst blocks overlap, for the message (concrete values): block e of
    iteration 0 starts at element e*dstBlkStride*B, block 0 of iteration d at d*vROffset; they overlap when the
    starts are less than a block B apart."""
    b = _block_elems(ctx)
    r, s, n = int(v.vROffset), int(v.dstBlkStride), int(v.vRepeat)
    for d in range(1, min(n, 1 << 16)):
        for e in range(BLOCKS_PER_REPEAT):
            if abs(d * r - e * s * b) < b:
                return {"pair": f"0 and {d}",
                        "blocks": f"block {e} of iteration 0 at element {e * s * b}, block 0 of iteration {d} at "
                                  f"element {d * r}"}
    return {"pair": "", "blocks": "no two blocks found"}


def _tmp_bytes_needed(v: Values, ctx: Context) -> Any:
    """The page's temporary space (bytes)."""
    if ctx.product.id == "atlas-inference-aicore":
        return v.src0Offset.size * 4
    return v.src0.size * 32 + v.src1.size * 32


# -- dav_c220 (atlas-a2 / atlas-a3) ------------------------------------------------------------------------------

def _src1_values_used(v: Values, ctx: Context) -> Any:
    """src1 values the call multiplies with: hRepeat*vRepeat, or 8 per iteration with repeatMode."""
    return If(v.repeatMode, BLOCKS_PER_REPEAT * v.hRepeat * v.vRepeat, v.hRepeat * v.vRepeat)


def _hv_fits(v: Values) -> Any:
    """hRepeat*vRepeat <= 255. The first disjunct is implied by the second (2*128 = 256): it only hands the solver
    a linear witness of the negation, which it otherwise searches among nonlinear size rules."""
    return Not(Or(And(v.hRepeat == 2, v.vRepeat == 128), v.hRepeat * v.vRepeat >= UINT8_WRAP))


def _brcb_repeats(v: Values, ctx: Context) -> Any:
    """Brcb's repeat count in dav_c220: src1.GetSize() / 8, passed as a uint8."""
    return Mod(Div(v.src1.size, BRCB_ELEMS), UINT8_WRAP)


def _brcb_src1_min(v: Values, ctx: Context) -> Any:
    """src1 elements for Brcb to broadcast every value used (whole groups of 8)."""
    return BRCB_ELEMS * Div(_src1_values_used(v, ctx) + BRCB_ELEMS - 1, BRCB_ELEMS)


def _c220_tmp_bytes(v: Values, ctx: Context) -> Any:
    """Bytes of sharedTmpBuffer dav_c220 writes: h*v*256 of Gatherb results, then (src1.size/8 mod 256)*256 of
    Brcb results after them (exact whenever hRepeat*vRepeat <= 255)."""
    return REPEAT_BYTES * v.hRepeat * v.vRepeat + REPEAT_BYTES * _brcb_repeats(v, ctx)


def _tmp_written(v: Values, ctx: Context) -> Any:
    """Bytes from sharedTmpBuffer's start that the product's implementation writes (`tmp_intervals`, one interval
    whenever hRepeat*vRepeat <= 255, which bilinear.hv.range asks of dav_c220): dav_c220's Gatherb and Brcb results,
    dav_m200's copy of the src0Offset entries (4 bytes each)."""
    if ctx.product.id in C220_PRODUCTS:
        return _c220_tmp_bytes(v, ctx)
    return 4 * v.src0Offset.size


def _tmp_hazard(other: str) -> Any:
    """The bytes of sharedTmpBuffer the implementation writes share no byte with ``other`` (same buffer)."""

    def pred(v: Values, ctx: Context) -> Any:
        tmp, t = v.sharedTmpBuffer, getattr(v, other)
        same = Or(*(And(tmp.in_buffer(buf), t.in_buffer(buf)) for buf in BUFFERS))
        written = _tmp_written(v, ctx)
        return Implies(And(tmp.present, t.present, same, written > 0, t.size > 0),
                       Or(tmp.addr + written <= t.addr, t.end <= tmp.addr))

    return pred


def _tmp_overlap_warning(other: str) -> Any:
    """sharedTmpBuffer sharing bytes with ``other`` only where the call never writes: a warning (the page is silent;
    no read observes it). Where the written bytes meet ``other`` the error bilinear.sharedTmpBuffer.OTHER.hazard
    speaks alone."""
    base = tensors_disjoint(f"bilinear.sharedTmpBuffer.{other}.disjoint", "sharedTmpBuffer", other,
                            f"{_t2('sharedTmpBuffer')} (page silent; spec note)", notes=("bilinear.tmp",),
                            products=TMP_PRODUCTS, severity=WARNING,
                            message=f"sharedTmpBuffer [{{sharedTmpBuffer.addr}}, {{sharedTmpBuffer.end}}) and {other} "
                                    f"[{{{other}.addr}}, {{{other}.end}}) overlap, outside the bytes the call writes "
                                    f"there: harmless to this call, but the buffer is not the call's alone")
    disjoint, written_clear = base.predicate, _tmp_hazard(other)
    return replace(base, predicate=lambda v, ctx: Or(disjoint(v, ctx), Not(written_clear(v, ctx))))


# -- hazards: a source byte read after dst stored it ----------------------------------------------------------------
#
# bilinear.dst.hazard (src1, src0Offset) is a solver term: a bounded existential over (iteration, block), nonlinear
# (iteration x vROffset). Its shape is tuned for the solver (linear guards, a linear sufficient case, iteration 0
# written out, the rule listed first): with other shapes of the same formula `synth` ran 10-20x slower. Even so,
# the question `ascverify lint` asks about it (is it implied by the others?) takes the solver 1-5 s. The messages
# and bilinear.dst.src0.hazard (which needs src0Offset's contents) are computed on concrete values, lane by lane
# (`read_after_store`).

_UB_POSITIONS = ("VECIN", "VECCALC", "VECOUT")


def _block_lanes_stored(v: Values, ctx: Context, k: int) -> Any:
    """How many leading lanes of block k of a repeat the rules count as stored: a contiguous mask stores a prefix
    of the repeat (exact); a bitwise mask counts a block with any enabled lane as stored whole."""
    m = v.mask
    lanes = _block_elems(ctx)
    first = k * lanes
    word = m.words[first // 64] if first // 64 < len(m.words) else 0
    shift = first % 64
    # bits [shift, shift + lanes) of the word are not all 0 (one modulus, no division)
    enabled = Mod(word, 2 ** (shift + lanes)) >= 2 ** shift
    return If(m.bitwise, If(enabled, lanes, 0), Max(0, Min(m.count - first, lanes)))


def _read_bytes_per_iteration(v: Values, ctx: Context, source: str) -> Any:
    """Bytes of ``source`` one vertical iteration reads; iteration v reads [addr + c*v, addr + c*(v+1))."""
    if source == "src0Offset":
        return BLOCKS_PER_REPEAT * 4 * v.hRepeat
    e = ctx.sizeof("src1")
    return If(v.repeatMode, BLOCKS_PER_REPEAT * e * v.hRepeat, e * v.hRepeat)


def _read_bytes_total(v: Values, ctx: Context, source: str) -> Any:
    """Bytes of ``source`` all vertical iterations read (c*vRepeat, written with the product hRepeat*vRepeat that
    the size rules use, so that the solver sees one product)."""
    hv = v.hRepeat * v.vRepeat
    if source == "src0Offset":
        return BLOCKS_PER_REPEAT * 4 * hv
    e = ctx.sizeof("src1")
    return If(v.repeatMode, BLOCKS_PER_REPEAT * e * hv, e * hv)


def _hazard_body(w: Any, b: Any, d0: Any, a0: Any, step: Any, blk: Any, c: Any, total: Any, esize: Any,
                 *stored: Any) -> Any:
    """Exists body: the stored lanes [0, stored[b]) of dst block b of iteration w meet the source bytes read by the
    iterations after w, [a0 + c*(w+1), a0 + total)."""
    hi = Sum(If(b == j, stored[j], 0) for j in range(BLOCKS_PER_REPEAT))
    start = d0 + w * step + b * blk
    return And(hi > 0, start + hi * esize > a0 + c * (w + 1), start < a0 + total)


def source_hazard(v: Values, ctx: Context, source: str) -> Any:
    """Some dst byte a vertical iteration w stores lies in the bytes of ``source`` (src1 or src0Offset) that a
    later iteration reads (reads of iteration v precede its own store and follow the stores of iterations < v).

    Iteration v reads the contiguous bytes [A + c*v, A + c*(v+1)) of the source (c: `_read_bytes_per_iteration`),
    so iterations after w read [A + c*(w+1), A + c*vRepeat). Block k of iteration w stores its first st_k lanes
    (`_block_lanes_stored`: exact for a contiguous mask; a bitwise mask's block with an enabled lane counts whole)
    at byte D + w*vROffset*sizeof(T) + k*32*dstBlkStride. For src0Offset the bytes read are whole aligned blocks,
    so any enabled lane of a block over them is a hazard: exact for every mask. A bounded existential over (w, k);
    its guard asks first that the two tensors overlap at all (linear, which lets the solver settle most cases):
    the bytes stored and read lie inside the tensors whenever the size rules hold (else those rules refuse the
    case and this one may stay silent). Outside the argument types' ranges: false.
    """
    d, s = v.dst, getattr(v, source)
    e = ctx.sizeof("dst")
    c = _read_bytes_per_iteration(v, ctx, source)
    n = v.vRepeat
    same = Or(*(And(d.in_buffer(buf), s.in_buffer(buf)) for buf in BUFFERS))
    guard = And(same, d.addr < s.end, s.addr + c < d.end, Between(2, n, 255), Between(1, v.hRepeat, 255),
                Between(1, v.vROffset, 65535), Between(0, v.dstBlkStride, 65535), Between(0, d.addr, UINT32.hi),
                Between(0, s.addr, UINT32.hi))
    stored = [_block_lanes_stored(v, ctx, k) for k in range(BLOCKS_PER_REPEAT)]
    blk = v.dstBlkStride * BLOCK_BYTES
    # iteration 0 written out (no product with a bound variable), then iterations 1 .. vRepeat-2 as a bounded
    # existential
    total = _read_bytes_total(v, ctx, source)
    first = Or(*(And(stored[k] > 0, d.addr + k * blk + stored[k] * e > s.addr + c, d.addr + k * blk < s.addr + total)
                 for k in range(BLOCKS_PER_REPEAT)))
    consts = (d.addr, s.addr, v.vROffset * e, blk, c, total, e, *stored)
    # iterations >= 1 store at or after D + vROffset*sizeof(T) and, under the size rules, inside dst; the reads
    # after iteration 1 start at A + 2c: linear conditions without which no later iteration can clobber
    reach = And(n >= 3, d.addr + v.vROffset * e < s.end, s.addr + 2 * c < d.end)
    later = Exists([(1, n - 2), (0, BLOCKS_PER_REPEAT - 1)], _hazard_body, where=And(guard, reach), consts=consts)
    # Not needed for the value (implied by ``first``), but linear: it lets the solver find a hazard at once (dst
    # starting on the first source byte iteration 1 reads, its first lane enabled)
    m = v.mask
    lane0 = If(m.bitwise, Mod(m.words[0], 2) == 1, m.count >= 1)
    easy = And(d.addr == s.addr + c, lane0)
    return And(guard, Or(easy, first, later))


def _lanes_of(v: Values, ctx: Context) -> np.ndarray:
    """The active lanes of one repeat, from concrete values (mask[0] the low 64 lanes)."""
    n = BLOCKS_PER_REPEAT * _block_elems(ctx)
    m = v.mask
    if m.bitwise:
        bits = 0
        for i, w in enumerate(m.words[: (n + 63) // 64]):
            bits |= (int(w) & (2**64 - 1)) << (64 * i)
        return np.array([(bits >> j) & 1 for j in range(n)], dtype=bool)
    return np.arange(n) < int(m.count)


def _first_store(v: Values, ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """The dst byte addresses the call stores (enabled lanes; sorted, unique) and the first vertical iteration
    storing each (concrete values)."""
    e = ctx.sizeof("dst")
    lanes = _block_elems(ctx)
    n, stride, offset = int(v.vRepeat), int(v.dstBlkStride), int(v.vROffset)
    on = _lanes_of(v, ctx)
    blk, lane = np.divmod(np.flatnonzero(on), lanes)
    elem = np.arange(n, dtype=np.int64)[:, None] * offset + (blk * stride * lanes + lane)[None, :]
    addr = (int(v.dst.addr) + elem[..., None] * e + np.arange(e)).reshape(-1)
    its = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None, None], elem.shape + (e,)).reshape(-1)
    order = np.lexsort((its, addr))
    addr, its = addr[order], its[order]
    keep = np.ones(addr.size, dtype=bool)
    keep[1:] = addr[1:] != addr[:-1]
    return addr[keep], its[keep]


def read_after_store(v: Values, ctx: Context, starts: np.ndarray, length: int, iters: np.ndarray,
                     ) -> list[tuple[int, int, int]]:
    """(row, first iteration storing a byte of it, reading iteration) for each read row (``length`` bytes at
    ``starts``, by vertical iteration ``iters``) that touches a dst byte an earlier iteration stored."""
    starts = np.asarray(starts, dtype=np.int64)
    iters = np.asarray(iters, dtype=np.int64)
    if not starts.size:
        return []
    addr, first = _first_store(v, ctx)
    if not addr.size or int(starts.max()) + length <= addr[0] or int(starts.min()) > addr[-1]:
        return []
    idx = starts[:, None] + np.arange(length)
    pos = np.clip(np.searchsorted(addr, idx), 0, addr.size - 1)
    when = np.where(addr[pos] == idx, first[pos], np.iinfo(np.int64).max).min(axis=1)
    return [(int(r), int(when[r]), int(iters[r])) for r in np.flatnonzero(when < iters)]


def _source_reads(v: Values, ctx: Context, source: str) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """Concrete reads of src1 or src0Offset per vertical iteration: starts, length, iteration, element index."""
    n, h = int(v.vRepeat), int(v.hRepeat)
    s = getattr(v, source)
    if source == "src0Offset":
        k = np.arange(BLOCKS_PER_REPEAT * h * n)
        return int(s.addr) + 4 * k, 4, k // (BLOCKS_PER_REPEAT * h), k
    e = ctx.sizeof("src1")
    per = BLOCKS_PER_REPEAT * h if v.repeatMode else h
    k = np.arange(per * n)
    return int(s.addr) + e * k, e, k // per, k


def _hazard_sources(ctx: Context) -> tuple[str, ...]:
    """The sources (besides src0) whose reads the product interleaves with dst's stores (spec note
    bilinear.hazard-order): src1 per vertical iteration, and on atlas-350 the src0Offset entries too."""
    return ("src1", "src0Offset") if ctx.product.id in OFFSETS_PER_ITERATION_PRODUCTS else ("src1",)


def _in_range(v: Values) -> bool:
    """The arguments the hazard rules read are within their C types (else other rules refuse the case)."""
    return 2 <= int(v.vRepeat) <= 255 and 1 <= int(v.hRepeat) <= 255 and 1 <= int(v.vROffset) <= 65535 \
        and 0 <= int(v.dstBlkStride) <= 65535 and v.dst.position_name() in _UB_POSITIONS


def _stores_may_reach(v: Values, ctx: Context, start: int, stop: int) -> bool:
    """dst's store span [D, D + (vRepeat-1)*vROffset*e + (7*dstBlkStride + 1)*32) meets [start, stop)."""
    d = int(v.dst.addr)
    return start < d + int(dst_elems_needed(v, ctx)) * ctx.sizeof("dst") and d < stop


def _hazard_example(v: Values, ctx: Context) -> str:
    found = _source_hazards_of(v, ctx)
    return "; ".join(found) if found else "a block a bitwise mask enables covers a src1 value read later"


def _source_hazards_of(v: Values, ctx: Context) -> list[str]:
    """src1 values (and on atlas-350 src0Offset entries) read by a vertical iteration after an earlier one stored
    over them (exact: bytes of the lanes the mask enables, whole reads)."""
    if not _in_range(v):
        return []
    out = []
    for source in _hazard_sources(ctx):
        s = getattr(v, source)
        c = int(_read_bytes_per_iteration(v, ctx, source))
        if s.position_name() not in _UB_POSITIONS or not _stores_may_reach(v, ctx, int(s.addr) + c,
                                                                           int(s.addr) + c * int(v.vRepeat)):
            continue
        starts, length, iters, k = _source_reads(v, ctx, source)
        hits = read_after_store(v, ctx, starts, length, iters)
        what = ("value", "values") if source == "src1" else ("entry", "entries")
        for r, w, it in hits[:3]:
            out.append(f"iteration {w} stores over {source}[{int(k[r])}], which iteration {it} reads")
        if len(hits) > 3:
            out.append(f"{len(hits) - 3} more {source} {what[len(hits) > 4]} like that")
    return out


def _src0_hazards(case: Case, ctx: Context) -> list[str]:
    """src0 blocks (picked by src0Offset's contents) read by a vertical iteration after an earlier one stored
    over them."""
    v = case.values()
    if not _in_range(v) or v.src0.position_name() not in _UB_POSITIONS:
        return []
    if not _stores_may_reach(v, ctx, int(v.src0.addr), int(v.src0.end)):
        return []
    n, h = int(v.vRepeat), int(v.hRepeat)
    offsets = case.data("src0Offset")[: BLOCKS_PER_REPEAT * h * n].astype(np.int64)
    k = np.arange(offsets.size)
    hits = read_after_store(v, ctx, int(v.src0.addr) + offsets, BLOCK_BYTES, k // (BLOCKS_PER_REPEAT * h))
    out = [f"iteration {w} stores over the src0 block at offset {int(offsets[r])} (src0Offset[{r}]), which "
           f"iteration {it} reads" for r, w, it in hits[:3]]
    if len(hits) > 3:
        out.append(f"{len(hits) - 3} more such blocks")
    return out


def hazard_offsets(case: Case, rng: np.random.Generator) -> np.ndarray:
    """src0Offset contents (byte offsets of src0 blocks) that avoid bilinear.dst.src0.hazard where possible: the
    offsets of vertical iteration v pick blocks no earlier iteration stored over (any block when all are)."""
    t, src0 = case.tensor("src0Offset"), case.tensor("src0")
    blocks = max(1, src0.nbytes // BLOCK_BYTES)
    out = (rng.integers(0, blocks, size=t.size) * BLOCK_BYTES).astype(np.int64)
    v = case.values()
    if case.product not in PER_ITERATION_PRODUCTS or not _in_range(v) or src0.position not in _UB_POSITIONS \
            or not _stores_may_reach(v, case.ctx, src0.addr, src0.end):
        return out.astype(np.uint32)
    addr, first = _first_store(v, case.ctx)
    if not addr.size:
        return out.astype(np.uint32)
    idx = (src0.addr + BLOCK_BYTES * np.arange(blocks))[:, None] + np.arange(BLOCK_BYTES)
    pos = np.clip(np.searchsorted(addr, idx), 0, addr.size - 1)
    when = np.where(addr[pos] == idx, first[pos], np.iinfo(np.int64).max).min(axis=1)  # first store, per block
    per = BLOCKS_PER_REPEAT * int(v.hRepeat)
    for i in range(min(t.size, per * int(v.vRepeat))):
        ok = np.flatnonzero(when >= i // per)
        if ok.size:
            out[i] = BLOCK_BYTES * int(ok[rng.integers(0, ok.size)])
    return out.astype(np.uint32)


def _offsets_in_src0(case: Case, ctx: Context) -> list[str]:
    n = BLOCKS_PER_REPEAT * int(case.env["hRepeat"]) * int(case.env["vRepeat"])
    offsets = case.data("src0Offset")
    src0_bytes = int(case.env["src0.size"]) * ctx.sizeof("src0")
    problems = []
    if offsets.size < n:
        problems.append(f"only {offsets.size} offsets given, {n} are read")
    used = offsets[:n].astype(np.int64)
    bad = np.flatnonzero((used % BLOCK_BYTES != 0) | (used + BLOCK_BYTES > src0_bytes))
    for i in bad[:5]:
        problems.append(f"src0Offset[{i}]={used[i]} is not the start of a 32-byte block inside src0 ({src0_bytes} bytes)")
    if bad.size > 5:
        problems.append(f"{bad.size - 5} more such offsets")
    return problems


def _overlap_warning(source: str):
    """dst sharing bytes with a source: a warning (the exact hazards are the errors: bilinear.dst.hazard for src1 and
    src0Offset, bilinear.dst.src0.hazard for src0)."""
    base = tensors_disjoint(f"bilinear.dst.{source}.disjoint", "dst", source,
                            f"{OVERLAP_PAGE}; {SEED} Restrictions (silent on dst); {NOTES}", notes=("bilinear.hazard-order",),
                            message=f"dst [{{dst.addr}}, {{dst.end}}) and {source} [{{{source}.addr}}, {{{source}.end}}) "
                                    f"overlap: harmless only while no {source} byte is read after dst stores it "
                                    f"({{verdict}})")

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        pid = ctx.product.id
        if pid in C220_PRODUCTS or (source == "src0Offset" and pid not in OFFSETS_PER_ITERATION_PRODUCTS):
            return {"verdict": f"on {pid} every {source} byte is read before dst is written"}
        return {"verdict": f"see bilinear.dst.{'src0.hazard' if source == 'src0' else 'hazard'}"}

    return replace(base, severity=WARNING, facts=facts)


@register
class BilinearInterpolation(ApiModel):
    name = "BilinearInterpolation"
    aliases = ("bilinear_interpolation", "asc.language.basic.bilinear_interpolation")
    prefix = "bilinear"
    seed = SEED
    #: what `construct_args` (vRepeat lowered) and `size_headroom` (src1 below Brcb's wrap) make hold
    construction_holds = ("vRepeat.type", "vRepeat.range", "hvRepeat.range", "c220_rep_strides",
                          "dst.vertical_overlap", "src1.brcb_repeat", "sharedTmpBuffer.required")
    iteration_label = "vertical iteration"
    summary = "dst = sum over hRepeat of src0 blocks (picked by src0Offset) times src1 scalars, per vertical iteration"
    support = {
        "atlas-350": ("half",),
        "atlas-a3": ("half",),
        "atlas-a2": ("half",),
        "atlas-inference-aicore": ("half",),
    }
    support_source = f"{SEED} Applicability and Table 1 (T)"
    default_dtype = "half"
    args = (
        MaskArg("mask", source=_t2("mask[]/mask")),
        Arg("hRepeat", UINT8, _t2("hRepeat"), "horizontal iterations"),
        Arg("repeatMode", BOOL, _t2("repeatMode"), "false: one src1 value per iteration; true: one per block"),
        Arg("dstBlkStride", UINT16, _t2("dstBlkStride"), "dst stride between blocks of one repeat, in 32-byte units"),
        Arg("vROffset", UINT16, _t2("vROffset"), "dst offset between vertical iterations, in elements"),
        Arg("vRepeat", UINT8, _t2("vRepeat"), "vertical iterations"),
    )
    #: pyasc's keywords (python/asc/language/basic/vec_binary.py, bilinear_interpolation); tensors: `PYASC_TENSORS`
    arg_spellings = {
        "pyasc": {"hRepeat": "h_repeat", "repeatMode": "repeat_mode", "dstBlkStride": "dst_blk_stride",
                  "vROffset": "v_r_offset", "vRepeat": "v_repeat"},
    }
    tensor_aliases = PYASC_TENSORS
    #: `ascverify lint`: on atlas-a2/a3 Brcb's whole groups of 8 (src1.brcb_size) imply src1.size
    lint_expected = {"redundant:bilinear.src1.size": "bilinear.c220-implementation"}
    tensors = (
        TensorDecl("dst", "out", source=_t2("dst"), align=32),
        TensorDecl("src0", "in", source=_t2("src0 and src1"), align=32),
        TensorDecl("src0Offset", "in", dtype="uint32", source=_t2("src0Offset"), align=32),
        TensorDecl("src1", "in", source=_t2("src0 and src1"), align=32),
        TensorDecl("sharedTmpBuffer", "tmp", dtype="uint8", optional=True, source=_t2("sharedTmpBuffer"), align=32,
                   required_on=TMP_PRODUCTS),
    )
    notes = (
        # the generic reading of a mask's word count; this half-only API has no mask.words.high rule
        replace(mask_high_word_note("bilinear", _t2("mask[]/mask")), rules=("bilinear.mask.words.count",)),
        SpecNote("bilinear.mask-register", "The mask register after the call (programs)",
                 "In a program a later call with isSetMask=false reads the mask register as this call leaves it: on "
                 "atlas-a2/a3 Normal mode with both words all ones, on the inference AI Core both words all ones, on "
                 "atlas-350 the call's own mask.",
                 "The Mask interface summary page: on Atlas A3 / A2 BilinearInterpolation sets the mask itself "
                 "(SetMaskCount, SetVectorMask, SetMaskNorm, ResetMask). The vendor's implementations: dav_c220 ends "
                 "with SetMaskNorm(); ResetMask(), dav_m200 with ResetMask(), dav_3510 writes the call's mask with "
                 "SetVectorMask(maskArray[1], maskArray[0]) and leaves it. Found by the documentation census "
                 "(tests/vendor/census_docs_vector.md, G4).",
                 ("Mask interface summary (asc-devkit docs), BilinearInterpolation", NOTES,
                  "asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_bilinearinterpolation_impl.h, "
                  "dav_m200/..., dav_3510/... (the mask calls around the instruction)"), ()),
        SpecNote("bilinear.mask-word-order", "Bitwise mask word order",
                 "mask[0] holds the low 64 elements, mask[1] the high 64: [0, 8] selects element 68, [8, 0] "
                 "element 4 (counting from 1, as the pages do: bit 3 of a word; elements 67 and 3 counting from 0).",
                 "Page 000's example says mask = [0, 8] selects the fourth element; page 004 says [8, 0] does. "
                 "HARDWARE_NOTES (vendor code) confirm page 004: page 000's sentence is wrong.",
                 (f"{SEED} Table 2, mask[]/mask", "004_2ad9555534615f32.txt mask", "HARDWARE_NOTES.md Masks"),
                 ("bilinear.mask.words.nonzero",)),
        SpecNote("bilinear.mask-zero", "A mask that enables no lane",
                 "On atlas-a2 / a3 a contiguous mask of 0 or the bitwise mask [0, 0] is a warning (mask.zero): the "
                 "call stores nothing to dst, but still reads src0, src0Offset and src1 and writes sharedTmpBuffer "
                 "(run does all of it but the stores to dst). On the other products both are errors "
                 "(mask.count.range from 1, mask.words.nonzero), as a contiguous mask above 128 is everywhere.",
                 "Page 000 gives the mask ranges from 1 and HARDWARE_NOTES (Masks) say the two words must not both be "
                 "0; the vendor's newest Mask page, to which the BilinearInterpolation page refers for mask, gives "
                 "[0, 128] and each word [0, 2^64-1] and calls a mask of 0 a NOP on Atlas A3 / A2 (as the "
                 "SetVectorMask page does). The vendor's dav_c220 implementation agrees and says what the NOP "
                 "leaves out: Gatherb, Brcb and the Counter-mode Mul into sharedTmpBuffer do not take the mask; only "
                 "the Add of the horizontal iterations and the Adds that copies to dst do, so with no lane they store "
                 "nothing (its CPU-debug checks call mask 0 'equivalent to a NOP'). BlockReduce reads its own page's "
                 "NOP the same way. Elsewhere no vendor page calls it a NOP (dav_3510 passes the mask to one "
                 "instruction, dav_m200 likewise), so the seed page's range stands. Found by the documentation "
                 "census (tests/vendor/census_docs_vector.md, G1, G2, G5).",
                 (f"{SEED} Table 2, mask[]/mask", "HARDWARE_NOTES.md Masks", f"{MASK_PAGE}, mask",
                  "SetVectorMask (asc-devkit docs), Restrictions", IMPL_C220),
                 ("bilinear.mask.count.range", "bilinear.mask.words.nonzero", "bilinear.mask.zero")),
        SpecNote("bilinear.vROffset-max", "Largest vROffset",
                 "vROffset in [128, 65534]: 65535 is refused, as the page says.",
                 "The page gives [128, 65535); the vendor's CPU-debug check accepts 65535. The page is the contract.",
                 (_t2("vROffset"), NOTES), ("bilinear.vROffset.range",)),
        SpecNote("bilinear.dstBlkStride-zero", "dstBlkStride = 0",
                 "dstBlkStride must be at least 1; 0 is an error.",
                 "The page gives no range for dstBlkStride. With 0 all 8 blocks of a repeat land on the same 32 bytes; "
                 "HARDWARE_NOTES say dstBlkStride = 0 is undefined behaviour for vector ops.",
                 (_t2("dstBlkStride"), NOTES), ("bilinear.dstBlkStride.nonzero",)),
        SpecNote("bilinear.overwrite", "Accumulate or overwrite",
                 "dst is overwritten: each vertical iteration sums its hRepeat products in order (rounded to half "
                 "after every multiply and add) and stores the sum under the mask; dst's old contents do not enter.",
                 "The page says results 'are accumulated by data block', which could mean adding into dst's old "
                 "contents; the vendor implementations (HARDWARE_NOTES; dav_3510 starts each iteration from a zeroed "
                 "register, dav_c220 from the first product) accumulate only across horizontal iterations.",
                 (f"{SEED} Function Usage", NOTES, IMPL_3510, IMPL_C220)),
        SpecNote("bilinear.negative-zero", "Where the sum starts (signed zeros)",
                 "A sum whose products are all -0 is stored as +0 on every product. atlas-350 and the inference AI "
                 "Core: the sum starts from +0 (0 + p0 + p1 ...); atlas-a2/a3: from the first product (p0 + p1 ..., "
                 "-0 for all -0 products), and the copy to dst adds +0 (Adds with scalar 0), which turns -0 into +0. "
                 "Any other sum is the same on all three.",
                 "The page does not say. dav_3510 zeroes the accumulator with Duplicate(dstReg, 0) before the Add "
                 "loop; dav_c220 runs Add(tmp[i*h], tmp[i*h+1...], tmp[i*h]) from the Mul products and stores with "
                 "Adds(dst, tmp, 0); dav_m200 is one vbi instruction, for which HARDWARE_NOTES say the result "
                 "starts at 0.",
                 (f"{SEED} Function Usage", NOTES, IMPL_3510, IMPL_C220, IMPL_M200)),
        SpecNote("bilinear.example-rounding", "The page's example result",
                 "The example's dst values are reproduced with half rounding after every operation; the first "
                 "value of the second vertical iteration is 2952, not the exact 2953.",
                 "The page lists 389, 394, ..., 4096 as if computed exactly; both vendor implementations use half "
                 "vector instructions (HARDWARE_NOTES), and 2953 is not representable in half.",
                 (f"{SEED} Examples (result example)", NOTES)),
        SpecNote("bilinear.vertical-overlap-exact", "Vertical overlap, exactly",
                 "Vertical iterations i and i+d collide iff their block sets share a block: |d*vROffset - e*dstBlkStride*16| < 16 "
                 "for some d in [1, vRepeat-1], e in [1, 7]. No sufficient approximation.",
                 "The page forbids overlapping destinations of two vertical iterations without a formula; "
                 "vROffset >= (7*dstBlkStride+1)*16 is only sufficient (HARDWARE_NOTES).",
                 (f"{SEED} Restrictions", NOTES), ("bilinear.dst.vertical_overlap",)),
        SpecNote("bilinear.hazard-order", "dst against the sources: the order of reads and stores",
                 "dst may overlap src0, src1 and src0Offset (a warning); it is an error only when a source byte is "
                 "read after dst stored over it, in the order the product's implementation runs: atlas-350 reads "
                 "the offsets, src0 blocks and src1 values of vertical iteration v after storing iteration v-1; the "
                 "inference AI Core copies every src0Offset entry into sharedTmpBuffer first, then reads src0 and "
                 "src1 per vertical iteration; atlas-a2/a3 read every source before the first store (no hazard). "
                 "Only the bytes of the lanes the mask enables are stored. bilinear.dst.hazard (src1, and "
                 "src0Offset on atlas-350) is decided on the case's values, exactly for a contiguous mask; with a "
                 "bitwise mask it counts a block with an enabled lane as stored whole (it may refuse an overlap "
                 "that only masked-off lanes of such a block make over src1; over src0Offset, read in whole "
                 "blocks, it is exact). It requires the size rules (bytes outside the tensors are theirs). "
                 "bilinear.dst.src0.hazard needs src0Offset's contents (which blocks are read), lane by lane, and "
                 "is not checked without them.",
                 "The page restricts only src0/src1/src0Offset among themselves. The vendor's general address "
                 "overlap restrictions (an API whose page describes no overlap constraint is taken not to support "
                 "overlap: 'results may not be as expected'; within one iteration source and destination overlap "
                 "100% or not at all; no earlier iteration's destination over a later one's source) are read as "
                 "what makes results unexpected: a source byte read after a store over it, the error here; an "
                 "overlap no read observes is the warning. The vendor's own kernels rely on that reading for the "
                 "page's other vector calls (ReduceDataBlock in place: spec note block_reduce_sum.in-place). "
                 "dav_3510 loops over vertical "
                 "iterations (LoadAlign offsets, GatherB, LoadAlign src1, Mul, Add; StoreAlign at the end of each); "
                 "dav_c220 runs Gatherb and Brcb over all iterations before Mul/Add/Adds; dav_m200 runs vadds over "
                 "src0Offset before vbi, whose internal order the code does not show: the reading is the page's "
                 "description and HARDWARE_NOTES (per vertical iteration: read, sum, store). dav_3510 loads each "
                 "group of 8 offsets with a whole-register LoadAlign (256 bytes); the core records the 32 bytes used.",
                 (OVERLAP_PAGE, f"{SEED} Restrictions", f"{SEED} Function Usage", NOTES, IMPL_3510, IMPL_C220,
                  IMPL_M200),
                 ("bilinear.dst.src0.disjoint", "bilinear.dst.src1.disjoint", "bilinear.dst.src0Offset.disjoint",
                  "bilinear.dst.src0.hazard", "bilinear.dst.hazard")),
        SpecNote("bilinear.tmp", "sharedTmpBuffer",
                 "Required (and sized per the page) on atlas-a2, atlas-a3 and atlas-inference-aicore, where it must lie "
                 "in UB, 32-byte aligned. The bytes the implementation writes there (dav_c220: h*v*256 bytes of "
                 "Gatherb results and (src1.size/8 mod 256)*256 of Brcb results; dav_m200: 4 bytes per src0Offset "
                 "entry) must share no byte with dst, src0, src1 or src0Offset (an error); the rest of the declared "
                 "buffer overlapping an operand is a warning. On atlas-350 it may be omitted, and when given it is "
                 "never read or written: no rule applies to its placement there (only its element type).",
                 "The page says no temporary space is needed on Atlas 350 and is silent on overlap; dav_3510 never "
                 "touches sharedTmpBuffer; dav_c220 and dav_m200 write it and read it back, so the bytes they write "
                 "cannot be bytes of an operand: a source would be read after its bytes were replaced (src1 inside "
                 "the Gatherb results: the core computes another dst), dst's kept bytes overwritten. Bytes of the "
                 "declared buffer the call never writes change nothing (the core: the same dst, bit for bit): that "
                 "overlap was an error until the rule base's severity audit, now a warning, since the page "
                 "forbids nothing there and no read observes it.",
                 (_t2("sharedTmpBuffer"), IMPL_3510, IMPL_C220, IMPL_M200),
                 ("bilinear.sharedTmpBuffer.required", "bilinear.sharedTmpBuffer.size",
                  "bilinear.sharedTmpBuffer.align", "bilinear.sharedTmpBuffer.bounds",
                  "bilinear.sharedTmpBuffer.position", "bilinear.sharedTmpBuffer.dst.disjoint",
                  "bilinear.sharedTmpBuffer.src0.disjoint", "bilinear.sharedTmpBuffer.src1.disjoint",
                  "bilinear.sharedTmpBuffer.src0Offset.disjoint", "bilinear.sharedTmpBuffer.dst.hazard", "bilinear.sharedTmpBuffer.src0.hazard",
                  "bilinear.sharedTmpBuffer.src1.hazard", "bilinear.sharedTmpBuffer.src0Offset.hazard")),
        SpecNote("bilinear.c220-implementation", "What atlas-a2/a3 actually write and read",
                 "Besides the page's size, on atlas-a2/a3: hRepeat*vRepeat <= 255; with vRepeat >= 2, hRepeat <= 31 "
                 "and vROffset*sizeof(T)/32 <= 255 (vROffset <= 4095 for half); src1 holds the values used in "
                 "whole groups of 8 (src1.size >= 8*ceil(values/8)) and (src1.size/8) mod 256 groups still cover "
                 "them; sharedTmpBuffer holds h*v*256 bytes of Gatherb results plus (src1.size/8 mod 256)*256 bytes "
                 "of Brcb results after them. The core writes exactly those bytes and faults on any byte outside "
                 "the declared sharedTmpBuffer. There bilinear.src1.brcb_size implies bilinear.src1.size (kept: it "
                 "is the requirement on every product, and its message names the values used).",
                 "dav_c220 passes innerRepeatTimes = hRepeat*vRepeat as a uint8 to Gatherb (and the Mul count), "
                 "broadcasts src1 with Brcb(tmp[h*v*128], src1, src1.GetSize()/8) whose repeat count is a uint8, "
                 "and Mul reads the broadcast block of every value used: beyond these limits it reads stale bytes "
                 "or writes past the buffer. The copy-out Adds(dst, tmp, 0, mask, vRepeat, params) sets the uint8 "
                 "members srcRepStride = hRepeat*8 and dstRepStride = vROffset*sizeof(T)/32 of UnaryRepeatParams "
                 "(include/basic_api/kernel_struct_unary.h): larger values wrap, and every vertical iteration after "
                 "the first reads or stores elsewhere. pyasc's own kernel test gives 1,056 bytes where 1,536 are "
                 "written. The page's ranges (hRepeat and vRepeat each in [1, 255], vROffset up to 65534) allow "
                 "calls this implementation gets wrong: where page and implementation disagree, the shipping code "
                 "decides what the call does on these products, and every vendor call stays within these limits.",
                 (IMPL_C220, NOTES, _t2("sharedTmpBuffer"), _t2("hRepeat"), _t2("vRepeat")),
                 ("bilinear.hvRepeat.range", "bilinear.c220_rep_strides", "bilinear.src1.brcb_size",
                  "bilinear.src1.brcb_repeat", "bilinear.sharedTmpBuffer.written", "bilinear.src1.size")),
        SpecNote("bilinear.repeat-mode-length", "src1's length with repeatMode=true",
                 "A warning when repeatMode=true and src1.size x 16 < src0.size; the error is bilinear.src1.size "
                 "(8 x hRepeat x vRepeat values), what every implementation reads.",
                 "The vendor's newer BilinearInterpolation page (Restrictions, added in 2026): 'when repeatMode is "
                 "true, ensure src1's valid data length x 16 >= src0's data length'; page 000 says nothing of it. "
                 "With repeatMode=true each iteration uses one src1 value per gathered block of 16 halves, so the "
                 "page's rule is 8 x hRepeat x vRepeat values stated through src0's size, the same rule when src0 "
                 "holds exactly the 128 x hRepeat x vRepeat elements gathered (as every vendor test sizes it). The "
                 "implementations never see src0's size (dav_3510 loads 8 src1 values per iteration, dav_c220 "
                 "broadcasts src1.size/8 groups, dav_m200 runs vbi with hRepeat): a larger src0 with enough src1 "
                 "values computes the same dst. 'src0's data length' is read as src0's declared size, which a case "
                 "may give larger than the blocks the call gathers (a LocalTensor over a larger buffer): refusing "
                 "that would refuse calls the hardware runs correctly, so the page's sentence on the declared size "
                 "is a warning, and its substance, enough src1 values for the blocks gathered, is the error "
                 "bilinear.src1.size. No vendor test or example uses repeatMode=true.",
                 (f"{VENDOR_PAGE}, Restrictions", _t2("repeatMode"), IMPL_3510, IMPL_C220, IMPL_M200),
                 ("bilinear.src1.repeat_mode_length", "bilinear.src1.size")),
        SpecNote("bilinear.3510-offset-loads", "How atlas-350 reads src0Offset",
                 "A warning on atlas-350 when the last of those loads ends past UB: src0Offset.addr + "
                 "32*(hRepeat*vRepeat - 1) + 256 > UB's bytes. The bytes read past src0Offset's entries inside UB "
                 "are not modelled: the core reads the 32 bytes of each group, the values used.",
                 "dav_3510 loads the 8 offsets of each horizontal iteration with LoadAlign into a RegTensor<uint32_t> "
                 "(a whole vector register, 256 bytes, DIST_NORM) and GatherB uses its first 8; the last load thus "
                 "reads 224 bytes past the entries used. Bytes of other tensors read there change nothing; past the "
                 "end of UB the vendor's LoadAlign pages excuse only masked-off blocks ('no error even if out of "
                 "UB'), so such a load may fail: possible, unproven.",
                 (IMPL_3510, NOTES), ("bilinear.src0Offset.vector_read",)),
        SpecNote("bilinear.src0Offset-units", "src0Offset values",
                 "Each value is a byte offset from src0's start, a multiple of 32, with offset + 32 <= src0's bytes.",
                 "The page says each value 'points to the start address of a data block in src0' without units; "
                 "HARDWARE_NOTES settle bytes.",
                 (f"{SEED} Function Usage", NOTES), ("bilinear.src0Offset.values",)),
        SpecNote("bilinear.arg-spellings", "pyasc names",
                 "Cases may name the API bilinear_interpolation and use pyasc's keywords (h_repeat, repeat_mode, "
                 "dst_blk_stride, v_r_offset, v_repeat) and tensor names (src0_offset, shared_tmp_buffer) instead of "
                 "the Ascend C ones; one spelling of the arguments per case, one name per tensor.",
                 "pyasc's asc.language.basic.bilinear_interpolation (python/asc/language/basic/vec_binary.py) takes "
                 "dst, src0, src0_offset, src1, mask, h_repeat, repeat_mode, dst_blk_stride, v_r_offset, v_repeat, "
                 "shared_tmp_buffer.",
                 (f"{SEED} Prototype", "pyasc python/asc/language/basic/vec_binary.py, bilinear_interpolation")),
    )

    # -- rules ------------------------------------------------------------------------------------------------

    def _derived_rules(self):
        """The derived rules, with sharedTmpBuffer's placement checked only where the call uses it."""
        placement = {f"{self.prefix}.sharedTmpBuffer.{k}" for k in ("align", "bounds", "position")}
        return [unless_no_lane(replace(r, products=frozenset(TMP_PRODUCTS), notes=(*r.notes, "bilinear.tmp"))
                               if r.id in placement else r) for r in super()._derived_rules()]

    def api_rules(self):
        """The call's own rules; those about what it stores to dst do not apply to a mask of no lane where that is
        a NOP for dst (`unless_no_lane`)."""
        return [unless_no_lane(r) for r in self._own_rules()]

    def _own_rules(self):
        p = self.prefix
        order = f"{OVERLAP_PAGE}; {SEED} Restrictions (silent on dst); {NOTES}"
        # first: the solver decides its questions best before the others (see the hazard section)
        yield rule(f"{p}.dst.hazard", ("dst", "src1", "src0Offset", "mask", "hRepeat", "vRepeat", "repeatMode",
                                        "vROffset", "dstBlkStride", "product"),
                   lambda v, ctx: Not(Or(*(source_hazard(v, ctx, s) for s in _hazard_sources(ctx)))),
                   "dst stores over source bytes a later vertical iteration reads: {example}",
                   f"{order}; {IMPL_3510}; {IMPL_M200}", products=PER_ITERATION_PRODUCTS,
                   notes=("bilinear.hazard-order",), facts=lambda v, ctx: {"example": _hazard_example(v, ctx)},
                   help="no src1 value (nor, on atlas-350, src0Offset entry) is read after a vertical iteration "
                        "stored over it")
        # the generic mask rules but those about 32- and 64-bit operands' words, which no case of this half-only
        # API can break (review 75: they were listed, cited and never fired)
        wide_only = {f"{p}.mask.words.width", f"{p}.mask.words.high"}
        yield from (r for r in mask_rules(p, _t2("mask[]/mask"), empty_ok_on=MASK_ZERO_NOOP) if r.id not in wide_only)
        yield rule(f"{p}.mask.zero", ("mask", "product"), lambda v, ctx: Not(mask_selects_nothing(v, ctx)),
                   "mask={shown} enables no lane: the call stores nothing to dst on {product} (a NOP by the Mask "
                   "page); it still reads src0, src0Offset and src1 and writes sharedTmpBuffer",
                   f"{MASK_PAGE}, mask (0: a NOP on Atlas A3 / A2); {_t2('mask[]/mask')} (from 1); "
                   f"HARDWARE_NOTES.md Masks; {IMPL_C220}", severity=WARNING, products=MASK_ZERO_NOOP,
                   notes=("bilinear.mask-zero",), facts=lambda v, ctx: {"shown": format(v.mask)},
                   help="the mask enables a lane (a mask of 0 stores nothing)", domain={"kind": "custom", "mask": "mask"},
                   noop=True)
        yield field_range(f"{p}.hRepeat.range", "hRepeat", 1, 255, _t2("hRepeat"))
        yield field_range(f"{p}.vRepeat.range", "vRepeat", 1, 255, _t2("vRepeat"))
        yield field_range(f"{p}.vROffset.range", "vROffset", 128, 65534, _t2("vROffset") + " ([128, 65535))",
                          notes=("bilinear.vROffset-max",),
                          message="vROffset={value} is outside [128, 65535)")
        yield field_multiple(f"{p}.vROffset.align", "vROffset", step_for_bytes(32), _t2("vROffset"),
                             message="vROffset={value}: vROffset x sizeof(T) must be a multiple of 32 bytes "
                                     "(vROffset a multiple of {step})")
        yield field_range(f"{p}.dstBlkStride.nonzero", "dstBlkStride", 1, 65535,
                          f"{_t2('dstBlkStride')}; HARDWARE_NOTES.md BilinearInterpolation (dstBlkStride = 0)",
                          notes=("bilinear.dstBlkStride-zero",),
                          message="dstBlkStride={value} is outside [1, 65535] (0 is undefined behaviour: all 8 blocks "
                                  "of a repeat on one datablock)")
        yield rule(f"{p}.dst.vertical_overlap", ("dstBlkStride", "vROffset", "vRepeat"),
                   lambda v, ctx: Not(vertical_overlap(v, ctx)),
                   "vertical iterations {pair} write overlapping dst blocks ({blocks}; dstBlkStride={dstBlkStride}, "
                   "vROffset={vROffset}, vRepeat={vRepeat})",
                   f"{SEED} Restrictions (destinations of two vertical iterations); {NOTES}",
                   notes=("bilinear.vertical-overlap-exact",), help="vertical dst regions pairwise disjoint",
                   facts=_overlap_example)
        yield tensor_min_size(f"{p}.dst.size", "dst", dst_elems_needed, f"{SEED} Function Usage; {NOTES}",
                              what="the blocks written ((vRepeat-1)*vROffset + 7*dstBlkStride*16 + 16)",
                              params=("vRepeat", "vROffset", "dstBlkStride"))
        yield rule(f"{p}.src0Offset.vector_read", ("src0Offset", "hRepeat", "vRepeat", "product"),
                   lambda v, ctx: Or(v.hRepeat * v.vRepeat == 0, Not(v.src0Offset.in_buffer("UB")),
                                     _last_offset_load_end(v, ctx) <= ctx.product.buffer_size("UB")),
                   "{product} loads each group of 8 src0Offset entries as a whole vector register ({vl} bytes): the "
                   "last load reads UB bytes [{start}, {end}), past the end of UB ({capacity} bytes)",
                   f"{IMPL_3510} (LoadAlign of RegTensor<uint32_t> indexReg); {NOTES}", severity=WARNING,
                   products=OFFSETS_PER_ITERATION_PRODUCTS, notes=("bilinear.3510-offset-loads",),
                   facts=lambda v, ctx: {"vl": ctx.product.vector_length,
                                         "start": _last_offset_load_end(v, ctx) - ctx.product.vector_length,
                                         "end": _last_offset_load_end(v, ctx),
                                         "capacity": ctx.product.buffer_size("UB")},
                   help="src0Offset's last group of 8 entries + one vector register (256 bytes) inside UB")
        yield tensor_min_size(f"{p}.src0Offset.size", "src0Offset", lambda v, ctx: 8 * v.hRepeat * v.vRepeat,
                              f"{SEED} Function Usage; {NOTES}", what="8 x hRepeat x vRepeat offsets",
                              params=("hRepeat", "vRepeat"))
        yield tensor_min_size(f"{p}.src1.size", "src1",
                              lambda v, ctx: If(v.repeatMode, 8 * v.hRepeat * v.vRepeat, v.hRepeat * v.vRepeat),
                              f"{_t2('repeatMode')}; {NOTES}",
                              what="hRepeat x vRepeat values (x 8 with repeatMode=true)",
                              params=("hRepeat", "vRepeat", "repeatMode"))
        yield rule(f"{p}.src1.repeat_mode_length", ("src0", "src1", "repeatMode"),
                   lambda v, ctx: v.src1.size * 16 >= v.src0.size,
                   "repeatMode=true with src1.size={src1.size} and src0.size={src0.size}: the vendor's page asks for "
                   "src1's length x 16 >= src0's length ({need} > {got}); the call itself reads only the src1 values "
                   "of the blocks it gathers (bilinear.src1.size)",
                   f"{VENDOR_PAGE}, Restrictions; {_t2('repeatMode')}", severity=WARNING, when=lambda v, ctx: v.repeatMode,
                   facts=lambda v, ctx: {"need": v.src0.size, "got": v.src1.size * 16},
                   notes=("bilinear.repeat-mode-length",),
                   help="with repeatMode=true, src1.size*16 >= src0.size (one src1 value per block of src0)")
        yield tensor_min_size(f"{p}.src0.size", "src0", lambda v, ctx: _block_elems(ctx), f"{SEED} Function Usage; {NOTES}",
                              what="one 32-byte block")
        yield tensor_min_size(f"{p}.sharedTmpBuffer.size", "sharedTmpBuffer", _tmp_bytes_needed, _t2("sharedTmpBuffer"),
                              what="the temporary space of the page (src0.size*32 + src1.size*32 bytes on A2/A3, "
                                   "src0Offset.size*4 on the inference AI Core)",
                              params=("src0", "src1", "src0Offset"),
                              products=TMP_PRODUCTS, notes=("bilinear.tmp",))
        # atlas-a2/a3: what dav_c220 writes and reads (spec note bilinear.c220-implementation)
        c220 = f"{IMPL_C220}; {NOTES}; {_t2('sharedTmpBuffer')} (the page's size; it allows hRepeat and vRepeat up to " \
               "255 each)"
        yield rule(f"{p}.hvRepeat.range", ("hRepeat", "vRepeat", "product"),
                   lambda v, ctx: _hv_fits(v),
                   "hRepeat*vRepeat={hv} > 255: {product}'s implementation counts the Gatherb repeats in a uint8 "
                   "({wrapped} repeats run; the rest of the sums are read from stale bytes)", c220,
                   products=C220_PRODUCTS, notes=("bilinear.c220-implementation",),
                   facts=lambda v, ctx: {"hv": v.hRepeat * v.vRepeat, "wrapped": v.hRepeat * v.vRepeat % UINT8_WRAP},
                   help="hRepeat*vRepeat <= 255 (dav_c220's uint8 repeat count)")
        # the copy-out (Adds over vRepeat repeats) takes its repeat strides in the uint8 members of
        # UnaryRepeatParams: hRepeat*8 blocks of tmp per vertical iteration, vROffset*sizeof(T)/32 blocks of dst
        yield rule(f"{p}.c220_rep_strides", ("hRepeat", "vRepeat", "vROffset", "product"),
                   lambda v, ctx: Or(v.vRepeat < 2, And(v.hRepeat * BLOCKS_PER_REPEAT < UINT8_WRAP,
                                                        Div(v.vROffset * ctx.sizeof("dst"), BLOCK_BYTES) < UINT8_WRAP)),
                   "hRepeat={hRepeat}, vROffset={vROffset}, vRepeat={vRepeat}: {product}'s implementation copies the "
                   "vertical iterations out with repeat strides hRepeat*8 = {src_rep} and vROffset*sizeof(T)/32 = "
                   "{dst_rep} blocks held in uint8 ({src_wrapped} and {dst_wrapped} after wrapping): iterations after "
                   "the first read the wrong sums or land elsewhere", c220,
                   products=C220_PRODUCTS, notes=("bilinear.c220-implementation",),
                   facts=lambda v, ctx: {"src_rep": v.hRepeat * BLOCKS_PER_REPEAT,
                                         "dst_rep": v.vROffset * ctx.sizeof("dst") // BLOCK_BYTES,
                                         "src_wrapped": v.hRepeat * BLOCKS_PER_REPEAT % UINT8_WRAP,
                                         "dst_wrapped": v.vROffset * ctx.sizeof("dst") // BLOCK_BYTES % UINT8_WRAP},
                   help="with vRepeat >= 2: hRepeat <= 31 and vROffset*sizeof(T)/32 <= 255 (dav_c220's uint8 "
                        "repeat strides)")
        yield tensor_min_size(f"{p}.src1.brcb_size", "src1", _brcb_src1_min, c220,
                              what="Brcb, which broadcasts src1 in groups of 8 (src1.size/8 repeats), to cover every "
                                   "value used",
                              params=("hRepeat", "vRepeat", "repeatMode", "product"), products=C220_PRODUCTS,
                              notes=("bilinear.c220-implementation",))
        yield rule(f"{p}.src1.brcb_repeat", ("src1", "hRepeat", "vRepeat", "repeatMode", "product"),
                   lambda v, ctx: Or(v.src1.size < BRCB_ELEMS * UINT8_WRAP,
                                     BRCB_ELEMS * _brcb_repeats(v, ctx) >= _src1_values_used(v, ctx)),
                   "src1.size={src1.size}: Brcb's repeat count src1.size/8 = {q} is a uint8 ({wrapped} repeats), "
                   "which broadcast {got} values; {need} are used", c220, products=C220_PRODUCTS,
                   notes=("bilinear.c220-implementation",),
                   facts=lambda v, ctx: {"q": v.src1.size // BRCB_ELEMS, "wrapped": _brcb_repeats(v, ctx),
                                         "got": BRCB_ELEMS * _brcb_repeats(v, ctx),
                                         "need": _src1_values_used(v, ctx)},
                   help="(src1.size/8 mod 256)*8 >= the src1 values used (dav_c220's uint8 Brcb repeat count)")
        yield tensor_min_size(f"{p}.sharedTmpBuffer.written", "sharedTmpBuffer", _c220_tmp_bytes, c220,
                              what="the bytes the implementation writes (hRepeat*vRepeat*256 of Gatherb results + "
                                   "(src1.size/8 mod 256)*256 of Brcb results)",
                              params=("hRepeat", "vRepeat", "src1", "product"), products=C220_PRODUCTS,
                              notes=("bilinear.c220-implementation",))
        src = f"{SEED} Restrictions (src0, src1 and src0Offset cannot overlap)"
        for a, b in (("src0", "src1"), ("src0", "src0Offset"), ("src1", "src0Offset")):
            yield tensors_disjoint(f"{p}.{a}.{b}.disjoint", a, b, src)
        # dst against the sources: overlap is a warning, a byte read after dst stored it an error
        for s in ("src0", "src1", "src0Offset"):
            yield _overlap_warning(s)
        # concrete rules (see the hazard section above): exact on the lanes the mask enables
        yield data_rule(f"{p}.dst.src0.hazard", ("src0Offset",), _src0_hazards,
                        "dst stores over src0 blocks a later vertical iteration reads",
                        f"{order}; {IMPL_3510}; {IMPL_M200}",
                        params=("dst", "src0", "mask", "hRepeat", "vRepeat", "vROffset", "dstBlkStride", "product"),
                        products=PER_ITERATION_PRODUCTS, notes=("bilinear.hazard-order",))
        # sharedTmpBuffer against the operands: sharing bytes is a warning (the page is silent), the bytes the
        # implementation writes landing on an operand an error (it clobbers what the call reads or the caller keeps)
        for s in ("dst", "src0", "src1", "src0Offset"):
            yield _tmp_overlap_warning(s)
            yield rule(f"{p}.sharedTmpBuffer.{s}.hazard", ("sharedTmpBuffer", s, "hRepeat", "vRepeat", "src1",
                                                            "src0Offset", "product"),
                       _tmp_hazard(s),
                       f"the bytes of sharedTmpBuffer the call writes, [{{start}}, {{stop}}), overlap {s} "
                       f"[{{{s}.addr}}, {{{s}.end}})",
                       f"{_t2('sharedTmpBuffer')} (page silent); {IMPL_C220}; {IMPL_M200}; {NOTES}",
                       products=TMP_PRODUCTS, notes=("bilinear.tmp", "bilinear.c220-implementation"),
                       facts=lambda v, ctx: {"start": v.sharedTmpBuffer.addr,
                                             "stop": v.sharedTmpBuffer.addr + _tmp_written(v, ctx)},
                       help=f"the sharedTmpBuffer bytes the implementation writes and {s} disjoint",
                       # holds for tensors packed apart: the bytes written lie within sharedTmpBuffer's minimum size
                       # (bilinear.sharedTmpBuffer.written)
                       domain={"kind": "custom", "overlap": ("sharedTmpBuffer", s)})
        yield data_rule(f"{p}.src0Offset.values", ("src0Offset",), _offsets_in_src0,
                        "every src0Offset value read must be the byte offset of a 32-byte block inside src0",
                        f"{SEED} Function Usage; {NOTES}", params=("src0", "hRepeat", "vRepeat"),
                        notes=("bilinear.src0Offset-units",))

    # -- case input ---------------------------------------------------------------------------------------------

    def keeps_layout(self, arg_keys: tuple[str, ...], tensor_keys: tuple[str, ...]) -> bool:
        """Tensors under their Ascend C names only (`normalize_tensors` renames pyasc's)."""
        return not any(k in self.tensor_aliases for k in tensor_keys)

    def normalize_tensors(self, tensors: Mapping[str, Any]) -> Mapping[str, Any]:
        """pyasc's tensor names (src0_offset, shared_tmp_buffer) as the Ascend C ones; both names of one tensor in
        one case is an error."""
        out: dict[str, Any] = {}
        given: dict[str, str] = {}
        for key, value in tensors.items():
            name = self.tensor_aliases.get(key, key)
            if name in given:
                raise InputError(f"{key!r} and {given[name]!r} are two names of one tensor; give it once",
                                 field=f"tensors.{key}")
            given[name] = key
            out[name] = value
        return out

    def construct_args(self, draw, ctx: Context, env: dict[str, Any]) -> None:
        """atlas-a2/a3: vRepeat lowered so that hRepeat*vRepeat <= 255 (rule bilinear.hvRepeat.range), and one
        vertical iteration where the copy-out's uint8 repeat strides would wrap (rule bilinear.c220_rep_strides);
        vertical iterations whose dst blocks would collide (rule bilinear.dst.vertical_overlap): one iteration."""
        if ctx.product.id in C220_PRODUCTS:
            h = max(int(env["hRepeat"]), 1)
            env["vRepeat"] = max(1, min(int(env["vRepeat"]), (UINT8_WRAP - 1) // h))
            if (h * BLOCKS_PER_REPEAT >= UINT8_WRAP
                    or int(env["vROffset"]) * ctx.sizeof("dst") // BLOCK_BYTES >= UINT8_WRAP):
                env["vRepeat"] = 1
        if int(env["vRepeat"]) > 1 and bool(vertical_overlap(Values(env, ctx, self), ctx)):
            env["vRepeat"] = 1

    def size_headroom(self, ctx: Context, env: Mapping[str, Any], tensor: str, need: int, default: int) -> int:
        """atlas-a2/a3: src1 stays below 8*256 elements where that covers the values used (rule
        bilinear.src1.brcb_repeat: Brcb's uint8 repeat count wraps above). src0 may grow past 2^16 bytes, so that
        the offsets drawn over its blocks (`hazard_offsets`) reach values a 16-bit offset would wrap."""
        if tensor == "src1" and ctx.product.id in C220_PRODUCTS and need < BRCB_ELEMS * UINT8_WRAP:
            return min(default, BRCB_ELEMS * UINT8_WRAP - 1 - need)
        if tensor == "src0":  # room for blocks past 2^16 bytes: offsets a 16-bit variable would wrap (review 76)
            return max(default, SRC0_HEADROOM_BYTES // ctx.sizeof("src0"))
        return default

    # -- semantics --------------------------------------------------------------------------------------------

    def tmp_intervals(self, case: Case) -> list[tuple[int, int]]:
        """Byte intervals of sharedTmpBuffer (relative to its start) the product's implementation writes."""
        impl = IMPL_OF.get(case.product, "dav_3510")
        if impl == "dav_m200":
            return [(0, 4 * int(case.env["src0Offset.size"]))]
        if impl == "dav_c220":
            hv = int(case.env["hRepeat"]) * int(case.env["vRepeat"])
            q = (int(case.env["src1.size"]) // BRCB_ELEMS) % UINT8_WRAP
            return [(0, REPEAT_BYTES * (hv % UINT8_WRAP)), (REPEAT_BYTES * hv, REPEAT_BYTES * (hv + q))]
        return []

    def tmp_bytes(self, case: Case) -> int:
        """Bytes from sharedTmpBuffer's start to the end of the last byte the call writes there (0: none)."""
        return max((stop for start, stop in self.tmp_intervals(case) if stop > start), default=0)

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        """The mask register the call leaves (spec note bilinear.mask-register): on atlas-a2/a3 its implementation
        ends with SetMaskNorm(); ResetMask() (Normal mode, both words all ones), on the inference AI Core with
        ResetMask(); on atlas-350 it writes its own mask there and leaves it."""
        if case.product in ("atlas-a2", "atlas-a3"):
            state[MASK_MODE_STATE] = "NORMAL"
        fields = case.env if case.product == "atlas-350" else ALL_ONES_FIELDS
        state[VECTOR_MASK_STATE] = mask_register_state(case.ctx.dtype.name, "NORMAL", fields,
                                                       f"{self.name} (its own mask setting)")

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """Per tensor, the (buffer, start, stop) byte intervals the call may write."""
        dst = case.tensor("dst")
        V = int(case.env["vRepeat"])
        esize = case.ctx.sizeof("dst")
        b = BLOCK_BYTES // esize
        S, R = int(case.env["dstBlkStride"]), int(case.env["vROffset"])
        out: dict[str, list[tuple[str, int, int]]] = {"dst": []}
        for v in range(V):
            for blk in range(BLOCKS_PER_REPEAT):
                start = dst.addr + (v * R + blk * S * b) * esize
                out["dst"].append((dst.buffer, start, start + BLOCK_BYTES))
        tmp = case.tensor("sharedTmpBuffer")
        spans = [(tmp.buffer, tmp.addr + a, tmp.addr + z) for a, z in self.tmp_intervals(case) if z > a]
        if tmp.present and spans:
            out["sharedTmpBuffer"] = spans
        return out

    def execute(self, case: Case, trace) -> None:
        declare_tensors(trace, case)  # every access below is tagged with its tensor
        impl = IMPL_OF.get(case.product, "dav_3510")
        if impl == "dav_c220":
            self._execute_c220(case, trace)
        elif impl == "dav_m200":
            self._execute_m200(case, trace)
        else:
            self._execute_3510(case, trace)

    # dav_3510 and the vbi step of dav_m200: per vertical iteration, read then store

    def _per_iteration(self, case: Case, trace, src0_addrs: np.ndarray, iters: np.ndarray) -> None:
        """Read the src0 blocks at ``src0_addrs`` (buffer addresses) and the src1 values of every vertical iteration
        (iteration v reads before it stores), sum from +0 and store."""
        env = case.env
        H, V = int(env["hRepeat"]), int(env["vRepeat"])
        src0, src1 = case.tensor("src0"), case.tensor("src1")
        esize = case.ctx.sizeof("dst")
        b = BLOCK_BYTES // esize
        np_t = case.ctx.dtype.numpy
        raw_blocks = trace.read(src0.buffer, src0_addrs, BLOCK_BYTES, iters, align=BLOCK_BYTES, what="src0 block",
                                tensor="src0")
        blocks = raw_blocks.reshape(-1).view(np_t).reshape(V, H, BLOCKS_PER_REPEAT, b)
        scalars = self._read_src1(case, trace)
        # Duplicate(dstReg, 0), then Add(dstReg, product, dstReg) per horizontal iteration: the sum starts from +0
        # (spec note bilinear.negative-zero); one rounded half multiplication per product and one rounded half
        # addition per step, in order (core.half: float32 operations rounded to half, numpy's results bit for bit)
        if np_t == np.float16:
            acc = half.narrow(half.sum_of_products(blocks, scalars, axis=1))
        else:
            products = (blocks.astype(np.float32) * scalars.astype(np.float32)).astype(np_t)
            start = np.zeros((V, 1, BLOCKS_PER_REPEAT, b), dtype=np_t)
            acc = np.add.accumulate(np.concatenate((start, products), axis=1), axis=1, dtype=np_t)[:, -1]
        self._store_dst(case, trace, acc)

    def _read_src1(self, case: Case, trace) -> np.ndarray:
        """src1 values per (v, h, block): one per iteration, or one per block with repeatMode (iteration v's read
        tagged v)."""
        env = case.env
        H, V = int(env["hRepeat"]), int(env["vRepeat"])
        src1 = case.tensor("src1")
        esize = case.ctx.sizeof("src1")
        np_t = case.ctx.dtype.numpy
        per = BLOCKS_PER_REPEAT * H if env["repeatMode"] else H
        raw = trace.read(src1.buffer, range(src1.addr, src1.addr + esize * per * V, esize), esize,
                         _iterations(V, per), align=esize, what="src1 value", tensor="src1")
        scalars = raw.reshape(-1).view(np_t)
        return scalars.reshape(V, H, BLOCKS_PER_REPEAT, 1) if env["repeatMode"] else scalars.reshape(V, H, 1, 1)

    def _store_dst(self, case: Case, trace, acc: np.ndarray) -> None:
        """Store vertical iteration v's 8 blocks (acc[v], under the mask) as iteration v."""
        env = case.env
        V, S, R = int(env["vRepeat"]), int(env["dstBlkStride"]), int(env["vROffset"])
        dst = case.tensor("dst")
        esize = case.ctx.sizeof("dst")
        b = BLOCK_BYTES // esize
        lanes = lane_mask(case)  # (8*b,)
        if not lanes.any():  # a mask of no lane stores nothing (atlas-a2/a3's NOP; refused elsewhere: bilinear.mask-zero)
            return
        byte_mask = np.repeat(lanes, esize).reshape(BLOCKS_PER_REPEAT, BLOCK_BYTES)
        starts = dst.addr + (np.arange(V)[:, None] * R + np.arange(BLOCKS_PER_REPEAT)[None, :] * S * b) * esize
        data = np.ascontiguousarray(acc).reshape(V * BLOCKS_PER_REPEAT, b).view(np.uint8)
        trace.write(dst.buffer, starts.reshape(-1), BLOCK_BYTES, data.reshape(V * BLOCKS_PER_REPEAT, BLOCK_BYTES),
                    np.repeat(np.arange(V), BLOCKS_PER_REPEAT), align=BLOCK_BYTES,
                    byte_mask=np.tile(byte_mask, (V, 1)), exclusive=True, what="dst block", tensor="dst")

    def _execute_3510(self, case: Case, trace) -> None:
        env = case.env
        H, V = int(env["hRepeat"]), int(env["vRepeat"])
        off, src0 = case.tensor("src0Offset"), case.tensor("src0")
        n = BLOCKS_PER_REPEAT * H * V
        iters = _iterations(V, BLOCKS_PER_REPEAT * H)
        raw_off = trace.read(off.buffer, range(off.addr, off.addr + 4 * n, 4), 4, iters, align=4,
                             what="src0Offset entry", tensor="src0Offset")
        addrs = raw_off.reshape(-1).view("<u4").astype(np.int64)
        addrs += src0.addr
        del raw_off   # (large temporaries freed early leave the allocator less to give back to the system)
        self._per_iteration(case, trace, addrs, iters)

    def _execute_m200(self, case: Case, trace) -> None:
        env = case.env
        H, V = int(env["hRepeat"]), int(env["vRepeat"])
        off, src0, tmp = case.tensor("src0Offset"), case.tensor("src0"), case.tensor("sharedTmpBuffer")
        if not tmp.present:
            raise ValueError("sharedTmpBuffer is required on atlas-inference-aicore (bilinear.sharedTmpBuffer.required)")
        # vadds (counter mode, src0Offset.size int32 elements): tmp[i] = src0Offset[i] + src0's address, before vbi
        count = off.size
        if count:
            e = np.arange(count)
            reps = -(-count // VADDS_PER_REPEAT)
            its = e // VADDS_PER_REPEAT - reps  # vadds repeats, all before vertical iteration 0
            raw = trace.read(off.buffer, off.addr + 4 * e, 4, its, align=4, what="src0Offset entry (vadds)",
                             tensor="src0Offset")
            addrs = (raw.reshape(-1).view("<u4").astype(np.int64) + src0.addr) % 2**32
            trace.write(tmp.buffer, tmp.addr + 4 * e, 4, addrs.astype("<u4").view(np.uint8).reshape(count, 4), its,
                        align=4, what="src0 address (vadds)", tensor="sharedTmpBuffer")
        # vbi: the addresses back from tmp, then src0, src1 and dst per vertical iteration
        n = BLOCKS_PER_REPEAT * H * V
        iters = _iterations(V, BLOCKS_PER_REPEAT * H)
        raw = trace.read(tmp.buffer, range(tmp.addr, tmp.addr + 4 * n, 4), 4, iters, align=4,
                         what="src0 address (vbi)", tensor="sharedTmpBuffer")
        self._per_iteration(case, trace, raw.reshape(-1).view("<u4").astype(np.int64), iters)

    def _execute_c220(self, case: Case, trace) -> None:
        """Gatherb, Brcb, Mul, Add, Adds through sharedTmpBuffer (every source read before dst is written).

        Iteration labels: the Adds that copies vertical iteration v to dst is iteration v; the steps before it
        get negative labels in execution order, so that a store is a hazard only over bytes read later."""
        env = case.env
        H, V = int(env["hRepeat"]), int(env["vRepeat"])
        repeat_mode = bool(env["repeatMode"])
        off, src0, src1, tmp = (case.tensor(n) for n in ("src0Offset", "src0", "src1", "sharedTmpBuffer"))
        if not tmp.present:
            raise ValueError(f"sharedTmpBuffer is required on {case.product} (bilinear.sharedTmpBuffer.required)")
        np_t = case.ctx.dtype.numpy
        esize = case.ctx.sizeof("dst")
        lanes_n = BLOCKS_PER_REPEAT * (BLOCK_BYTES // esize)
        hv = H * V
        P = hv % UINT8_WRAP                               # uint8 innerRepeatTimes: Gatherb repeats, Mul count / 128
        Q = (src1.size // BRCB_ELEMS) % UINT8_WRAP        # Brcb's uint8 repeatTime
        base = REPEAT_BYTES * hv                          # posSrc1Brcb, in bytes (not truncated)
        l_add = -V
        l_mul = l_add - P
        l_brcb = l_mul - Q
        l_gather = l_brcb - P
        tag = "sharedTmpBuffer"

        reps = np.arange(P)
        if P:  # Gatherb: 8 offsets and 8 src0 blocks per repeat -> tmp[256r, +256)
            its = np.repeat(l_gather + reps, BLOCKS_PER_REPEAT)
            k = np.arange(BLOCKS_PER_REPEAT * P)
            raw_off = trace.read(off.buffer, off.addr + 4 * k, 4, its, align=4, what="src0Offset entry (Gatherb)",
                                 tensor="src0Offset")
            offsets = raw_off.reshape(-1).view("<u4").astype(np.int64)
            blocks = trace.read(src0.buffer, src0.addr + offsets, BLOCK_BYTES, its, align=BLOCK_BYTES,
                                what="src0 block (Gatherb)", tensor="src0")
            trace.write(tmp.buffer, tmp.addr + REPEAT_BYTES * reps, REPEAT_BYTES,
                        blocks.reshape(P, REPEAT_BYTES), l_gather + reps, align=BLOCK_BYTES, what="Gatherb result",
                        tensor=tag)
        if Q:  # Brcb: 8 src1 values per repeat, each broadcast to a 32-byte block, after the Gatherb results
            grp = np.arange(Q)
            raw = trace.read(src1.buffer, src1.addr + BRCB_ELEMS * esize * grp, BRCB_ELEMS * esize, l_brcb + grp,
                             align=esize, what="src1 values (Brcb)", tensor="src1")
            rows = np.repeat(raw.reshape(Q, BRCB_ELEMS, 1, esize), BLOCK_BYTES // esize, axis=2)
            trace.write(tmp.buffer, tmp.addr + base + REPEAT_BYTES * grp, REPEAT_BYTES, rows.reshape(Q, REPEAT_BYTES),
                        l_brcb + grp, align=BLOCK_BYTES, what="Brcb result", tensor=tag)
        if P:  # Mul (counter mode, every lane): product = broadcast src1 x gathered block, over the Gatherb results
            gathered = trace.read(tmp.buffer, tmp.addr + REPEAT_BYTES * reps, REPEAT_BYTES, l_mul + reps,
                                  align=BLOCK_BYTES, what="Gatherb result (Mul)", tensor=tag)
            if repeat_mode:  # src0RepStride 8, src0BlkStride 1: the 8 broadcast blocks of values 8r..8r+7
                bro = trace.read(tmp.buffer, tmp.addr + base + REPEAT_BYTES * reps, REPEAT_BYTES, l_mul + reps,
                                 align=BLOCK_BYTES, what="Brcb result (Mul)", tensor=tag)
                scal = bro.reshape(-1).view(np_t).reshape(P, lanes_n)
            else:  # src0RepStride 1, src0BlkStride 0: broadcast block r for all 8 blocks
                bro = trace.read(tmp.buffer, tmp.addr + base + BLOCK_BYTES * reps, BLOCK_BYTES, l_mul + reps,
                                 align=BLOCK_BYTES, what="Brcb result (Mul)", tensor=tag)
                scal = np.tile(bro.reshape(-1).view(np_t).reshape(P, -1), (1, BLOCKS_PER_REPEAT))
            x = gathered.reshape(-1).view(np_t).reshape(P, lanes_n)
            prod = half.narrow(half.multiply(scal, x))   # one rounding per product (core.half)
            trace.write(tmp.buffer, tmp.addr + REPEAT_BYTES * reps, REPEAT_BYTES,
                        np.ascontiguousarray(prod).view(np.uint8).reshape(P, REPEAT_BYTES), l_mul + reps,
                        align=BLOCK_BYTES, what="Mul product", tensor=tag)
        lanes = lane_mask(case)
        verts = np.arange(V)
        if H > 1:  # per vertical iteration i: Add(tmp[iH], tmp[iH+1..], tmp[iH]) under the mask, from the first product
            rows = (verts[:, None] * H + np.arange(H)[None, :]).reshape(-1)
            raw = trace.read(tmp.buffer, tmp.addr + REPEAT_BYTES * rows, REPEAT_BYTES, np.repeat(l_add + verts, H),
                             align=BLOCK_BYTES, what="Mul product (Add)", tensor=tag)
            p = raw.reshape(-1).view(np_t).reshape(V, H, lanes_n)
            # p0, then p_h + sum: rounded after every add (core.half)
            sums = half.narrow(half.running_sum(half.widen(p), axis=1, start_zero=False))
            acc = np.where(lanes, sums, p[:, 0])                      # masked-off lanes keep the first product
            trace.write(tmp.buffer, tmp.addr + REPEAT_BYTES * H * verts, REPEAT_BYTES,
                        np.ascontiguousarray(acc).view(np.uint8).reshape(V, REPEAT_BYTES), l_add + verts,
                        align=BLOCK_BYTES, byte_mask=np.repeat(lanes, esize), what="Add partial sum", tensor=tag)
        # Adds(dst, tmp[iH], 0) per vertical iteration i (srcRepStride h*8 blocks): x + 0, so -0 becomes +0
        raw = trace.read(tmp.buffer, tmp.addr + REPEAT_BYTES * H * verts, REPEAT_BYTES, verts, align=BLOCK_BYTES,
                         what="sum (Adds)", tensor=tag)
        sums = raw.reshape(-1).view(np_t).reshape(V, lanes_n)
        out = (sums.astype(np.float32) + np.float32(0)).astype(np_t)
        self._store_dst(case, trace, out)

    def zero_sign_specified(self, case: Case) -> bool:
        """A zero sum is stored as +0 on every product (spec note bilinear.negative-zero)."""
        return True

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        t = case.tensor(tensor)
        if tensor == "src0Offset":  # byte offsets of src0 blocks, none read after dst stored over it (when possible)
            return hazard_offsets(case, rng)
        if tensor in ("src0", "src1"):
            # small integers times 1/4: products and sums of the sizes used stay exact or near in half
            return (rng.integers(-8, 9, size=t.size) / 4).astype(t.dtype.numpy)
        return None


def _iterations(count: int, per: int) -> np.ndarray:
    """The vertical iteration of each of ``count * per`` accesses made ``per`` per iteration, in order."""
    return np.repeat(np.arange(count, dtype=np.int64), per)


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def _dst_lanes(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """dst element indices of the active and of the masked-off lanes of every vertical iteration."""
    b = _block_elems(case.ctx)
    V, S, R = int(case.env["vRepeat"]), int(case.env["dstBlkStride"]), int(case.env["vROffset"])
    lanes = lane_mask(case)
    blk, lane = np.divmod(np.arange(lanes.size), b)
    idx = np.arange(V)[:, None] * R + (blk * S * b + lane)[None, :]
    on = np.broadcast_to(lanes, idx.shape)
    return idx[on], idx[~on]


def _run(case: Case, seed: int, data: Mapping[str, np.ndarray] | None = None):
    c = fresh(case)
    for name, arr in (data or {}).items():
        c.set_data(name, arr)
    return run_case(c, seed=seed, strict=True)


def masked_lanes_untouched(case: Case, seed: int = 0) -> None:
    """dst elements of masked-off lanes keep their old values, bit for bit."""
    res = _run(case, seed)
    _, off = _dst_lanes(case)
    before = res.inputs["dst"].view(np.uint16)[off]
    after = res.tensors["dst"].view(np.uint16)[off]
    assert np.array_equal(before, after), "a masked-off lane of dst changed"


def scaling_src1_scales_dst(case: Case, seed: int = 0) -> None:
    """Doubling every src1 value doubles every active dst element exactly (power-of-two scaling commutes
    with rounding while nothing overflows; inputs are small quarter-integers)."""
    base = _run(case, seed)
    inputs = {k: v.copy() for k, v in base.inputs.items()}
    inputs["src1"] = (inputs["src1"].astype(np.float32) * 2).astype(inputs["src1"].dtype)
    doubled = _run(case, seed, inputs)
    on, _ = _dst_lanes(case)
    x = base.tensors["dst"][on].astype(np.float64)
    y = doubled.tensors["dst"][on].astype(np.float64)
    assert np.array_equal(2 * x, y), "dst(2*src1) != 2*dst(src1)"


def repeat_mode_equivalence(case: Case, seed: int = 0) -> None:
    """repeatMode=true with each src1 value repeated 8 times equals repeatMode=false (checked on cases
    drawn with repeatMode=true, whose src1 is large enough for both)."""
    if not case.env["repeatMode"]:
        return
    n = int(case.env["hRepeat"]) * int(case.env["vRepeat"])
    base = _run(case, seed)
    per_iter = base.inputs["src1"][:n].copy()
    inputs = {k: v.copy() for k, v in base.inputs.items()}
    src1_true = inputs["src1"].copy()
    src1_true[: 8 * n] = np.repeat(per_iter, 8)
    inputs["src1"] = src1_true
    true_mode = _run(case, seed, inputs)
    # repeatMode=false reads src1[v*hRepeat + h]: put the per-iteration values first
    src1_false = src1_true.copy()
    src1_false[:n] = per_iter
    false_mode = _run(case.with_fields(repeatMode=False), seed, {**inputs, "src1": src1_false})
    assert np.array_equal(true_mode.tensors["dst"].view(np.uint16), false_mode.tensors["dst"].view(np.uint16)), \
        "repeatMode=true with repeated src1 differs from repeatMode=false"


def vertical_overlap_matches_core(case: Case, seed: int = 0) -> None:
    """The model's vertical-overlap verdict equals the overlap the core observes between iterations' dst stores
    (the stores are exclusive per iteration: a shared byte is an "overlap" fault)."""
    predicted = bool(vertical_overlap(case.values(), case.ctx))
    res = run_case(fresh(case), seed=seed, strict=False)
    observed = any(f.kind == "overlap" and f.what == "dst block" for f in res.faults)
    assert predicted == observed, f"model says overlap={predicted}, core observed {observed}"


HAZARD_RULES = ("bilinear.dst.src0.hazard", "bilinear.dst.hazard")


def partly_enabled_blocks(case: Case) -> bool:
    """A bitwise mask enables some but not all lanes of a block (bilinear.dst.hazard counts the block whole over src1)."""
    lanes = lane_mask(case).reshape(BLOCKS_PER_REPEAT, -1)
    return bool(case.env["mask.bitwise"]) and bool((lanes.any(axis=1) & ~lanes.all(axis=1)).any())


def hazard_rules_match_core(case: Case, seed: int = 0) -> None:
    """Moved onto a source (src0, src1 or src0Offset by the seed; offset drawn from the seed, src0Offset's
    contents given), dst makes the core see a "hazard" exactly when a hazard rule refuses the case. bilinear.dst.hazard
    counts a block a bitwise mask partly enables as stored whole: then it may refuse where the core sees nothing."""
    rng = np.random.default_rng(seed)
    source = ("src0", "src1", "src0Offset")[int(rng.integers(0, 3))]
    v, ctx = case.values(), case.ctx
    dst, src = case.tensor("dst"), case.tensor(source)
    span = int(dst_elems_needed(v, ctx)) * ctx.sizeof("dst")
    lo, hi = -span // BLOCK_BYTES, src.nbytes // BLOCK_BYTES
    addr = src.addr + BLOCK_BYTES * int(rng.integers(lo, hi + 1))
    if addr < 0 or addr + dst.nbytes > ctx.product.buffer_size(src.buffer):
        return
    moved = fresh(case.with_fields(**{"dst.addr": addr, "dst.position": case.env[f"{source}.position"]}))
    blocks = max(1, case.tensor("src0").nbytes // BLOCK_BYTES)  # any blocks (input_data would avoid hazards)
    moved.set_data("src0Offset", rng.integers(0, blocks, size=case.tensor("src0Offset").size) * BLOCK_BYTES)
    verdict = check_case(moved)
    ids = {x.id for x in verdict.violations}
    if ids - set(HAZARD_RULES) or verdict.unchecked and any(u.rule_id in HAZARD_RULES for u in verdict.unchecked):
        return
    res = run_case(moved, seed=seed, strict=False)
    kinds = {f.kind for f in res.faults}
    assert kinds <= {"hazard"}, f"unexpected faults {[str(f) for f in res.faults[:3]]}"
    refused, hazard = bool(ids), bool(kinds)
    if ids <= {"bilinear.dst.hazard"} and partly_enabled_blocks(moved):
        assert hazard <= refused, f"core saw a hazard the rules accept (dst at {addr}, over {source})"
    else:
        assert refused == hazard, f"rules say refused={sorted(ids)}, core saw hazard={hazard} (dst at {addr}, " \
                                  f"over {source}, on {case.product})"


def tmp_writes_match_rules(case: Case, seed: int = 0) -> None:
    """The core writes exactly the sharedTmpBuffer bytes the model predicts (the page's size or the vendor's,
    whichever is in force), and shrinking the buffer below the last byte written makes it fault out of bounds."""
    tmp = case.tensor("sharedTmpBuffer")
    need = case.model.tmp_bytes(case)
    if not tmp.present or not need:
        if tmp.present:  # atlas-350: never touched
            res = run_case(fresh(case), seed=seed, strict=True)
            assert not [r for r in res.trace.records if r.tensor == "sharedTmpBuffer"], "sharedTmpBuffer was accessed"
        return
    res = run_case(fresh(case), seed=seed, strict=True)
    stored = np.flatnonzero(res.trace.stored(tmp.buffer)[tmp.addr:tmp.end])
    assert stored.size and int(stored.max()) + 1 == need, f"last tmp byte written {int(stored.max()) + 1}, model {need}"
    short = fresh(case.with_fields(**{"sharedTmpBuffer.size": need - 1}))
    try:
        run_case(short, seed=seed, strict=True)
    except Fault as exc:
        assert exc.kind == "out_of_bounds" and "sharedTmpBuffer" in exc.detail, str(exc)
    else:
        raise AssertionError(f"a sharedTmpBuffer of {need - 1} bytes did not fault")


BilinearInterpolation.invariants = (masked_lanes_untouched, scaling_src1_scales_dst, repeat_mode_equivalence,
                                    vertical_overlap_matches_core, hazard_rules_match_core, tmp_writes_match_rules)

"""BlockReduceMin (page 004_2ad9555534615f32.txt + HARDWARE_NOTES.md BlockReduceMin).

Per repeat r the call reads 8 datablocks of src, block b at byte ``(r*srcRepStride + b*srcBlkStride)*32``
from src's start, takes the minimum of each block's active elements (the mask spans the repeat's
128 half / 64 float elements) and stores the 8 minima contiguously at dst element ``r*dstRepStride*8``.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import numpy as np

from ..cases.case import Case, fresh
from ..checking.checker import check_case
from ..core.extremes import masked_extreme
from ..core.memory import POISON, Trace
from ..core.run import prepare, run_case
from ..spec.logic import And, Between, Exists, Implies, Not, Or
from ..spec.model import ApiModel, SpecNote
from ..spec.params import BOOL, INT32, UINT32, Arg, MaskArg, TensorDecl
from ..spec.products import BUFFERS
from ..spec.registry import register
from ..spec.rules import WARNING, Context, Values, field_range, order_rule, rule, tensor_min_size
from .vector_common import BLOCK_BYTES, effective_mask, lane_mask, mask_rules, mask_word_count

SEED = "004_2ad9555534615f32.txt"
NOTES = "HARDWARE_NOTES.md BlockReduceMin"
BLOCKS_PER_REPEAT = 8
MAX_REPEAT = 255
MAX_STRIDE = 65535
PLACEHOLDER = "MASK_PLACEHOLDER"
#: The page's in-place sentence (约束说明).
IN_PLACE_SENTENCE = "约束说明 (地址重叠): 计算后的目的操作数数据不能覆盖未参与计算的源操作数"
#: Products that leave the destination of a fully masked-off datablock untouched.
KEEP_PRODUCTS = ("atlas-a2", "atlas-a3")


def _param(name: str) -> str:
    return f"{SEED} 参数说明, {name}"


def _proto(name: str) -> str:
    return f"{SEED} 对应的Ascend C函数原型, {name}"


def _dst_align(ctx: Context) -> int:
    """dst start alignment: 16 bytes for half, 32 for float (= one repeat's 8 results)."""
    return BLOCKS_PER_REPEAT * ctx.sizeof("dst")


def _stride_ok(x: Any) -> Any:
    return Between(0, x, MAX_STRIDE)


def _repeat_ok(v: Values, lo: int) -> Any:
    return Between(lo, v.repeatTime, MAX_REPEAT)


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """Elements from dst's start to one past the last result: (repeatTime-1)*dstRepStride*8 + 8."""
    return ((v.repeatTime - 1) * v.dstRepStride + 1) * BLOCKS_PER_REPEAT


def src_elems_needed(v: Values, ctx: Context) -> Any:
    """Elements from src's start to one past the last byte read, over r = repeatTime-1 and b = 7.

    The last byte read is max over r, b of (r*srcRepStride + b*srcBlkStride)*32 + 32; the strides are
    non-negative (the guard), so the maximum is at r = repeatTime-1, b = 7, and the rule stays linear.
    """
    return ((v.repeatTime - 1) * v.srcRepStride + (BLOCKS_PER_REPEAT - 1) * v.srcBlkStride + 1) \
        * (BLOCK_BYTES // ctx.sizeof("src"))


def _dst_span_bytes(v: Values, ctx: Context) -> Any:
    return dst_elems_needed(v, ctx) * ctx.sizeof("dst")


def _src_span_bytes(v: Values, ctx: Context) -> Any:
    return src_elems_needed(v, ctx) * ctx.sizeof("src")


def _clobber_body(r: Any, r2: Any, b: Any, d0: Any, s0: Any, dst_rep: Any, width: Any, src_rep: Any,
                  src_blk: Any) -> Any:
    """The results of repeat r (bytes [d0 + r*dst_rep, +width)) meet block b of a later repeat r2."""
    dlo = d0 + r * dst_rep
    slo = s0 + (r2 * src_rep + b * src_blk) * BLOCK_BYTES
    return And(r < r2, dlo < slo + BLOCK_BYTES, slo < dlo + width)


def in_place_clobber(v: Values, ctx: Context) -> Any:
    """Some result of a repeat r lands on a source byte that a later repeat r' > r reads (exact).

    Results of repeat r occupy bytes [dst + r*dstRepStride*8*e, +8*e) (e = sizeof(T)); repeat r' reads
    [src + (r'*srcRepStride + b*srcBlkStride)*32, +32) for b in 0..7. A bounded existential over
    (r, r', b), evaluated only where the cheap guard holds: both tensors in one buffer, repeatTime >= 2,
    strides and addresses in range, and the two footprints' byte ranges intersect.
    """
    d, s = v.dst, v.src
    e = ctx.sizeof("dst")
    width = BLOCKS_PER_REPEAT * e
    same = Or(*(And(d.in_buffer(buf), s.in_buffer(buf)) for buf in BUFFERS))
    guard = And(same, _repeat_ok(v, 2), _stride_ok(v.dstRepStride), _stride_ok(v.srcRepStride),
                _stride_ok(v.srcBlkStride), Between(0, d.addr, UINT32.hi), Between(0, s.addr, UINT32.hi),
                d.addr < s.addr + _src_span_bytes(v, ctx), s.addr < d.addr + _dst_span_bytes(v, ctx))
    n = v.repeatTime
    return Exists([(0, n - 2), (1, n - 1), (0, BLOCKS_PER_REPEAT - 1)], _clobber_body, where=guard,
                  consts=(d.addr, s.addr, v.dstRepStride * width, width, v.srcRepStride, v.srcBlkStride))


def first_clobber(v: Values, ctx: Context) -> Mapping[str, Any]:
    """For the in-place message (concrete values): the first repeat r whose results land on source block b of a
    later repeat r2, as ``{"clobber": "..."}``."""
    n = int(v.repeatTime)
    width = BLOCKS_PER_REPEAT * ctx.sizeof("dst")
    r, r2, b = np.meshgrid(np.arange(n), np.arange(n), np.arange(BLOCKS_PER_REPEAT), indexing="ij")
    dlo = int(v.dst.addr) + r * int(v.dstRepStride) * width
    slo = int(v.src.addr) + (r2 * int(v.srcRepStride) + b * int(v.srcBlkStride)) * BLOCK_BYTES
    hit = np.argwhere((r < r2) & (dlo < slo + BLOCK_BYTES) & (slo < dlo + width))
    if not len(hit):
        return {"clobber": "some result"}
    i, j, k = (int(x) for x in hit[0])
    return {"clobber": f"the results of repeat {i} land on src block {k} of repeat {j}, which reads it later"}


def _mask_all_zero(v: Values, ctx: Context) -> Any:
    m = v.mask
    words_zero = And(*(w == 0 for w in m.words[: mask_word_count(ctx)]))
    return And(Not(v["mask.placeholder"]), Or(And(m.bitwise, words_zero), And(Not(m.bitwise), m.count == 0)))


@register
class BlockReduceMin(ApiModel):
    name = "BlockReduceMin"
    aliases = ("block_reduce_min", "asc.language.basic.block_reduce_min")
    prefix = "block_reduce_min"
    seed = SEED
    iteration_label = "repeat"
    summary = "dst[r*dstRepStride*8 + b] = min over the active elements of datablock b of repeat r of src"
    support = {
        "atlas-350": ("half", "float"),
        "atlas-a3": ("half", "float"),
        "atlas-a2": ("half", "float"),
        "atlas-200i-500-a2": ("half", "float"),
        "atlas-inference-aicore": ("half", "float"),
        "atlas-training": ("half",),
    }
    support_source = f"{NOTES} (products and types; the page names none)"
    #: `ascverify lint`: on atlas-training dstRepStride.nonzero ([1, 65535]) implies dstRepStride.range ([0, 65535])
    lint_expected = {"redundant:block_reduce_min.dstRepStride.range": "block_reduce_min.dstRepStride-zero"}
    default_dtype = "half"
    args = (
        Arg("repeatTime", INT32, f"{_proto('int32_t repeatTime')}; {_param('repeat_time')}",
            "repeats (iterations); each reads 8 datablocks and stores 8 results"),
        MaskArg("mask", source=f"{_param('mask')}; {_proto('const int32_t mask / const uint64_t mask[]')}",
                count_type=INT32, placeholder=PLACEHOLDER, placeholder_flag="isSetMask"),
        Arg("dstRepStride", INT32, f"{_proto('int32_t dstRepStride')}; {_param('dst_rep_stride')}",
            "dst step between repeats, in 8 results (16 bytes for half, 32 for float)"),
        Arg("srcBlkStride", INT32, f"{_proto('int32_t srcBlkStride')}; {_param('src_blk_stride')}",
            "src step between the datablocks of one repeat, in 32-byte datablocks"),
        Arg("srcRepStride", INT32, f"{_proto('int32_t srcRepStride')}; {_param('src_rep_stride')}",
            "src step between repeats, in 32-byte datablocks"),
        Arg("isSetMask", BOOL, f"{_proto('template bool isSetMask = true')}; {_param('is_set_mask')}",
            "true: the call sets the mask; false: a prior SetVectorMask did", default=True),
    )
    #: pyasc's signature says ``repeat``; the page's parameter list (参数说明) calls it ``repeat_time``: both accepted
    #: (spec note block_reduce_min.repeat-name)
    arg_spellings = {
        "pyasc": {"repeatTime": "repeat", "dstRepStride": "dst_rep_stride", "srcBlkStride": "src_blk_stride",
                  "srcRepStride": "src_rep_stride", "isSetMask": "is_set_mask"},
        "pyasc (page 004's parameter list)": {"repeatTime": "repeat_time", "dstRepStride": "dst_rep_stride",
                                              "srcBlkStride": "src_blk_stride", "srcRepStride": "src_rep_stride",
                                              "isSetMask": "is_set_mask"},
    }
    tensors = (
        TensorDecl("dst", "out", source=_param("dst"), align=_dst_align, align_exact=True,
                   doc="the 8 minima of every repeat"),
        TensorDecl("src", "in", source=_param("src"), align=32, doc="the datablocks reduced"),
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
                 "mask) or the pyasc names (repeat, dst_rep_stride, src_blk_stride, src_rep_stride, is_set_mask, "
                 "mask), not both in one case. 'repeat_time' is not accepted.",
                 "The page's parameter table says repeat_time, its signatures and examples say repeat; pyasc's "
                 "keyword is the one the signature shows.",
                 (f"{SEED} signature and 调用示例", _param("repeat_time"))),
        SpecNote("block_reduce_min.full-footprints", "Footprints ignore the mask",
                 "Every byte of all 8 datablocks of every repeat must lie inside src, and all 8 results of every "
                 "repeat inside dst, whatever the mask (for repeatTime >= 1).",
                 "The page is silent. The mask may come from SetVectorMask (unknown to the call), and on atlas-350 "
                 "and atlas-200i-500-a2 fully masked blocks still store a result; the block reads are modelled as "
                 "whole datablocks.",
                 (f"{SEED} 参数说明", NOTES), ("block_reduce_min.src.footprint", "block_reduce_min.dst.footprint")),
        SpecNote("block_reduce_min.in-place", "dst sharing memory with src",
                 "dst may overlap src, except that no result of repeat r may land on a source byte read by a later "
                 "repeat r' > r (exact, on the footprints: all 8 results of r against all 8 blocks of r'). Overlap "
                 "with bytes of the same or an earlier repeat is fine.",
                 "The page: 'the destination after computation must not overwrite source data not yet used in the "
                 "computation'. Reads of one repeat precede its own stores; 'not yet used' means read by a later "
                 "repeat. The footprint reading is mask-independent (the mask may be set elsewhere), so on "
                 "atlas-a2/a3, which store nothing for a fully masked block, it is conservative.",
                 (f"{SEED} {IN_PLACE_SENTENCE}", NOTES), ("block_reduce_min.dst.src.in_place",)),
        SpecNote("block_reduce_min.noop", "repeatTime = 0 or mask = 0",
                 "repeatTime = 0 is valid and stores nothing; on atlas-350 it is a warning, because a no-op is not "
                 "guaranteed there. A mask selecting nothing is an error by the mask rules everywhere (and also draws "
                 "the warning on atlas-350).",
                 "The page allows repeat 0 without saying what happens; HARDWARE_NOTES: a no-op on atlas-a2/a3, "
                 "not guaranteed on atlas-350.",
                 (_param("repeat_time"), NOTES), ("block_reduce_min.noop",)),
        SpecNote("block_reduce_min.masked-block", "A fully masked-off datablock",
                 "A block with no active element: atlas-a2/a3 store nothing (dst keeps its value); atlas-200i-500-a2 "
                 "stores 65504 (half) / +inf (float); atlas-350 stores +inf; elsewhere the stored value is "
                 "unspecified (the core marks it poison).",
                 "The page is silent; HARDWARE_NOTES give the three products and say the rest is unknown.",
                 (_param("mask"), NOTES)),
        SpecNote("block_reduce_min.nan-zero", "NaN and signed zero",
                 "atlas-350: a NaN among a block's active elements gives NaN; min(-0, +0) = -0. Elsewhere a NaN "
                 "among the active elements makes the result unspecified (poison), and a zero minimum is -0 when an "
                 "active -0 is present (which zero the other products store is not documented; the two compare equal).",
                 "The page is silent; HARDWARE_NOTES document atlas-350 only.",
                 (NOTES,)),
        SpecNote("block_reduce_min.same-type", "dst and src element types",
                 "dst and src both have T (half or float per product).",
                 "The prototype takes LocalTensor<T> for both.",
                 (_proto("LocalTensor<T>"), NOTES), ("block_reduce_min.dst.dtype", "block_reduce_min.src.dtype")),
    )

    #: the mask rules; with isSetMask=false they do not apply and are reported as not checked
    MASK_RULES = ("block_reduce_min.mask.count.range", "block_reduce_min.mask.words.count",
                  "block_reduce_min.mask.words.nonzero", "block_reduce_min.mask.words.width")

    def api_rules(self):
        p = self.prefix
        yield from mask_rules(p, f"{SEED} 参数说明", placeholder=True)
        yield order_rule(f"{p}.order.vector_mask", "vector_mask",
                         "isSetMask=false needs a SetVectorMask earlier in the program (the mask comes from it)",
                         _param("is_set_mask"), when=lambda v, ctx: Not(v.isSetMask), params=("isSetMask",),
                         notes=("block_reduce_min.mask-placeholder",))
        yield rule(f"{p}.mask.placeholder", ("mask", "isSetMask"),
                   lambda v, ctx: And(Implies(v["mask.placeholder"], Not(v.isSetMask)),
                                      Implies(Not(v.isSetMask), v["mask.placeholder"])),
                   f"isSetMask={{isSetMask}} with mask={{shown}}: the placeholder {PLACEHOLDER!r} is required "
                   "with isSetMask=false and refused otherwise",
                   _param("is_set_mask"), notes=("block_reduce_min.mask-placeholder",),
                   facts=lambda v, ctx: {"shown": PLACEHOLDER if v["mask.placeholder"] else format(v.mask)},
                   help=f"mask is {PLACEHOLDER!r} exactly when isSetMask=false")
        yield field_range(f"{p}.repeatTime.range", "repeatTime", 0, MAX_REPEAT, _param("repeat_time"),
                          notes=("block_reduce_min.int32-args",))
        for name, page_name in (("dstRepStride", "dst_rep_stride"), ("srcBlkStride", "src_blk_stride"),
                                ("srcRepStride", "src_rep_stride")):
            yield field_range(f"{p}.{name}.range", name, 0, MAX_STRIDE, f"{_param(page_name)}; {NOTES}",
                              notes=("block_reduce_min.int32-args",))
        yield field_range(f"{p}.dstRepStride.nonzero", "dstRepStride", 1, MAX_STRIDE,
                          f"{NOTES} (atlas-training does not accept dstRepStride = 0)", products=("atlas-training",),
                          notes=("block_reduce_min.dstRepStride-zero",),
                          message="dstRepStride={value} is not accepted on {product}: it must be in [{lo}, {hi}]")
        yield tensor_min_size(f"{p}.src.footprint", "src", src_elems_needed,
                              f"{_param('src_blk_stride')}; {_param('src_rep_stride')}; {NOTES}",
                              what="the datablocks read (((repeatTime-1)*srcRepStride + 7*srcBlkStride + 1) "
                                   "datablocks)",
                              params=("repeatTime", "srcRepStride", "srcBlkStride"),
                              when=lambda v, ctx: And(_repeat_ok(v, 1), _stride_ok(v.srcRepStride),
                                                      _stride_ok(v.srcBlkStride)),
                              notes=("block_reduce_min.full-footprints", "block_reduce_min.src-stride-units"))
        yield tensor_min_size(f"{p}.dst.footprint", "dst", dst_elems_needed,
                              f"{_param('dst_rep_stride')}; {NOTES}",
                              what="the results written ((repeatTime-1)*dstRepStride*8 + 8)",
                              params=("repeatTime", "dstRepStride"),
                              when=lambda v, ctx: And(_repeat_ok(v, 1), _stride_ok(v.dstRepStride)),
                              notes=("block_reduce_min.full-footprints", "block_reduce_min.dst-rep-stride-unit"))
        yield rule(f"{p}.dst.src.in_place", ("dst", "src", "repeatTime", "dstRepStride", "srcRepStride",
                                              "srcBlkStride"),
                   lambda v, ctx: Not(in_place_clobber(v, ctx)),
                   "{clobber} (dst at {dst.addr}, src at {src.addr}, repeatTime={repeatTime}, "
                   "dstRepStride={dstRepStride}, srcRepStride={srcRepStride}, srcBlkStride={srcBlkStride})",
                   f"{SEED} {IN_PLACE_SENTENCE}; {NOTES}", notes=("block_reduce_min.in-place",),
                   facts=first_clobber,
                   help="no result overwrites source bytes a later repeat reads")
        yield rule(f"{p}.noop", ("repeatTime", "mask", "product"),
                   lambda v, ctx: Not(Or(v.repeatTime == 0, _mask_all_zero(v, ctx))),
                   "repeatTime={repeatTime}, mask={shown}: the call may not be a no-op on {product}",
                   f"{NOTES} (mask = 0 or repeat = 0: a no-op is not guaranteed on atlas-350)",
                   severity=WARNING, products=("atlas-350",), notes=("block_reduce_min.noop",),
                   facts=lambda v, ctx: {"shown": PLACEHOLDER if v["mask.placeholder"] else format(v.mask)},
                   help="repeatTime and the mask are non-zero (a zero call is not a guaranteed no-op)")

    def with_state(self, case: Case, state: Mapping[str, Any]) -> Case:
        """With isSetMask=false, the call runs with the mask the last SetVectorMask set (when one did)."""
        fields = effective_mask(state)
        if case.env["isSetMask"] or fields is None:
            return case
        return case.with_fields(**{"isSetMask": True, "mask.placeholder": False, **fields})

    def unchecked(self, case: Case) -> Iterator[tuple[str, str, str]]:
        """With isSetMask=false the effective mask is set elsewhere: the mask rules are not checked here."""
        if case.env["isSetMask"]:
            return
        reason = ("isSetMask=false: the effective mask comes from a prior SetVectorMask and is not checked here")
        for r in self.rules_for(case.product):
            if r.id in self.MASK_RULES:
                yield r.id, reason, r.source
            elif r.id == f"{self.prefix}.noop":
                yield r.id, reason + " (only repeatTime = 0 is)", r.source

    # -- semantics --------------------------------------------------------------------------------------------

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat (128 for half, 64 for float), or None when a prior SetVectorMask set them."""
        if not case.env["isSetMask"] or case.env.get("mask.placeholder"):
            return None
        return lane_mask(case)

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """Per tensor, the (buffer, start, stop) byte intervals the call may write: 8 results per repeat."""
        dst = case.tensor("dst")
        n, stride = max(int(case.env["repeatTime"]), 0), int(case.env["dstRepStride"])
        width = BLOCKS_PER_REPEAT * case.ctx.sizeof("dst")
        starts = dict.fromkeys(dst.addr + r * stride * width for r in range(n))
        return {"dst": [(dst.buffer, s, s + width) for s in starts]}

    def execute(self, case: Case, trace) -> None:
        env = case.env
        n = int(env["repeatTime"])
        if n <= 0:  # repeat 0: nothing is read or stored (a warning on atlas-350); negative: refused by the rules
            return
        dst_rep, blk, src_rep = int(env["dstRepStride"]), int(env["srcBlkStride"]), int(env["srcRepStride"])
        dst, src = case.tensor("dst"), case.tensor("src")
        t = case.ctx.dtype
        np_t, esize = t.numpy, t.size
        per_block = BLOCK_BYTES // esize
        reps = np.arange(n, dtype=np.int64)

        # every read first (repeat r is iteration r), so that the trace sees stores onto bytes read later
        starts = src.addr + BLOCK_BYTES * (src_rep * reps[:, None] + blk * np.arange(BLOCKS_PER_REPEAT))
        raw = trace.read(src.buffer, starts.reshape(-1), BLOCK_BYTES, np.repeat(reps, BLOCKS_PER_REPEAT),
                         align=BLOCK_BYTES, what="src datablock")
        x = raw.view(np_t).reshape(n, BLOCKS_PER_REPEAT, per_block)

        lanes = self.active_lanes(case)
        unknown_mask = lanes is None
        block_lanes = (np.ones((BLOCKS_PER_REPEAT, per_block), dtype=bool) if unknown_mask
                       else lanes.reshape(BLOCKS_PER_REPEAT, per_block))
        is_float = t.kind == "float"
        # per (repeat, block): the minimum of the active lanes, -0 below +0, the type's top where none is active
        result, has_nan = masked_extreme(x, block_lanes, "min")
        block_active = block_lanes.any(axis=1)             # (8,): the block has an active lane
        poison = None
        if is_float and has_nan.any():   # a NaN among the active lanes propagates (atlas-350) or is unspecified
            rows = np.nonzero(has_nan)
            result[rows] = np.where(block_lanes[rows[1]], x[rows], np.array(np.inf, dtype=np_t)).min(axis=-1)
            if case.product == "atlas-350":
                result[rows] = np.nan
            else:
                poison = has_nan

        stored = None                                       # every result stored
        if case.product in KEEP_PRODUCTS:
            stored = None if block_active.all() else block_active
        elif case.product == "atlas-200i-500-a2":
            fill = 65504.0 if (is_float and esize == 2) else (np.inf if is_float else np.iinfo(np_t).max)
            result = np.where(block_active, result, np.array(fill, dtype=np_t))
        elif case.product != "atlas-350" and not block_active.all():   # atlas-350: the top, as masked_extreme gives
            poison = ~block_active if poison is None else poison | ~block_active
        if unknown_mask:  # the mask is a prior SetVectorMask's: which results are stored, and what, is unknown
            stored, poison = None, np.ones((n, BLOCKS_PER_REPEAT), dtype=bool)

        width = BLOCKS_PER_REPEAT * esize
        data = np.ascontiguousarray(result, dtype=np_t).view(np.uint8).reshape(n, width)
        trace.write(dst.buffer, dst.addr + reps * dst_rep * width, width, data, reps, align=width,
                    byte_mask=None if stored is None else np.repeat(stored, esize),
                    poison=None if poison is None else np.repeat(np.atleast_2d(poison), esize, axis=-1),
                    what="dst results")

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        if tensor == "src":
            # quarter-integers in [-8, 8]: exact in half, with repeats inside a block (ties are common)
            t = case.tensor(tensor)
            return (rng.integers(-32, 33, size=t.size) / 4).astype(t.dtype.numpy)
        return None


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def _simulate(case: Case, seed: int, src: np.ndarray | None = None):
    """Memory before the call, memory after it, and the trace (strict), with src's contents optionally given."""
    c = fresh(case)
    if src is not None:
        c.set_data("src", src)
    memory, _ = prepare(c, seed=seed)
    before = memory.snapshot()
    trace = Trace(memory, strict=True)
    c.model.execute(c, trace)
    return before, memory, trace


def _reads(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """src element index of (repeat, block, lane), and the active lanes as (block, lane)."""
    env, k = case.env, BLOCK_BYTES // case.ctx.dtype.size
    reps, blocks = np.arange(int(env["repeatTime"])), np.arange(BLOCKS_PER_REPEAT)
    first = (reps[:, None] * int(env["srcRepStride"]) + blocks[None, :] * int(env["srcBlkStride"])) * k
    return first[:, :, None] + np.arange(k), lane_mask(case).reshape(BLOCKS_PER_REPEAT, k)


def results_are_block_minima(case: Case, seed: int = 0) -> None:
    """Every result is <= each active element of its block and equal to one of them (NaN: atlas-350 gives NaN,
    elsewhere poison); a block without active element gives the product's value (old dst on atlas-a2/a3, 65504 /
    +inf on atlas-200i-500-a2, +inf on atlas-350, poison elsewhere); an unknown mask gives poison."""
    n = int(case.env["repeatTime"])
    if n <= 0:
        return
    before, after, _ = _simulate(case, seed)
    dst, src, t = case.tensor("dst"), case.tensor("src"), case.ctx.dtype
    e = t.size
    # on a valid case no byte is stored before a later repeat reads it: every read sees the initial memory
    x = before.typed(src.buffer, src.addr, src.size, t.numpy)
    old = before.typed(dst.buffer, dst.addr, dst.size, t.numpy)
    out = after.typed(dst.buffer, dst.addr, dst.size, t.numpy)
    state = after.state[dst.buffer][dst.addr:dst.end].reshape(-1, e)
    stride = int(case.env["dstRepStride"])
    unknown = case.model.active_lanes(case) is None
    idx, active = _reads(case)
    for r in range(n - 1 if stride == 0 else 0, n):  # with dstRepStride 0 the last repeat's results remain
        for b in range(BLOCKS_PER_REPEAT):
            at = r * stride * BLOCKS_PER_REPEAT + b
            poisoned = bool((state[at] == POISON).all())
            vals = x[idx[r, b]][active[b]]
            where = f"repeat {r}, block {b}"
            if unknown:
                assert poisoned, f"{where}: the result of an unknown mask is not poison"
            elif vals.size and t.kind == "float" and np.isnan(vals).any():
                assert np.isnan(out[at]) if case.product == "atlas-350" else poisoned, f"{where}: NaN handling"
            elif vals.size:
                assert not poisoned and np.all(out[at] <= vals) and np.any(out[at] == vals), \
                    f"{where}: {out[at]} is not the minimum of {vals.tolist()}"
            elif case.product in KEEP_PRODUCTS:
                assert old[at].tobytes() == out[at].tobytes(), f"{where}: a fully masked block changed dst"
            elif case.product in ("atlas-350", "atlas-200i-500-a2"):
                fill = 65504.0 if case.product != "atlas-350" and e == 2 else np.inf
                assert out[at] == fill, f"{where}: a fully masked block gives {out[at]}, not {fill}"
            else:
                assert poisoned, f"{where}: a fully masked block's result is not marked unspecified"


def masked_lanes_never_matter(case: Case, seed: int = 0) -> None:
    """Changing src elements no active lane reads (to NaN, -0, -inf, ...) changes no stored byte."""
    if int(case.env["repeatTime"]) <= 0 or case.model.active_lanes(case) is None:
        return
    before, after, trace = _simulate(case, seed)
    src, t = case.tensor("src"), case.ctx.dtype
    x = before.typed(src.buffer, src.addr, src.size, t.numpy)
    idx, active = _reads(case)
    ever = np.zeros(x.size, dtype=bool)
    ever[idx[:, active]] = True  # an element may be read by several (repeat, block) pairs
    junk = np.array([np.nan, -0.0, -np.inf, -1e4, 3.5] if t.kind == "float" else [0], dtype=t.numpy)
    changed = np.where(ever, x, np.resize(np.roll(junk, seed % junk.size), x.size))
    _, after2, trace2 = _simulate(case, seed, src=changed)
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
    _, a, _ = _simulate(case, seed)
    _, b, _ = _simulate(other, seed)
    for buf in a.buffers:
        assert np.array_equal(a.buffers[buf], b.buffers[buf]) and np.array_equal(a.state[buf], b.state[buf]), \
            f"contiguous mask {k} and its bitwise form {words} differ"


def in_place_rule_matches_core(case: Case, seed: int = 0) -> None:
    """Moved onto src (offset drawn from the seed), dst clobbers a source byte read later (a "hazard" in the
    core) exactly when the in-place rule refuses the case; on atlas-a2/a3 with a fully masked block, which
    stores nothing there, the rule (on footprints) may refuse where the core sees nothing."""
    n = int(case.env["repeatTime"])
    if n < 2:
        return
    v, ctx = case.values(), case.ctx
    dst, src = case.tensor("dst"), case.tensor("src")
    align = _dst_align(ctx)
    lo, hi = -int(_dst_span_bytes(v, ctx)) // align, int(_src_span_bytes(v, ctx)) // align
    addr = src.addr + align * int(np.random.default_rng(seed).integers(lo, hi + 1))
    if addr < 0 or addr + dst.nbytes > ctx.product.buffer_size(src.buffer):
        return
    moved = case.with_fields(**{"dst.addr": addr, "dst.position": case.env["src.position"]})
    ids = {x.id for x in check_case(moved).violations}
    if ids - {f"{case.model.prefix}.dst.src.in_place"}:
        return
    res = run_case(fresh(moved), seed=seed, strict=False)
    kinds = {f.kind for f in res.faults}
    assert kinds <= {"hazard"}, f"unexpected faults {kinds}"
    refused, hazard = bool(ids), bool(kinds)
    lanes = case.model.active_lanes(moved)
    every_block = lanes is None or case.product not in KEEP_PRODUCTS or \
        lanes.reshape(BLOCKS_PER_REPEAT, -1).any(axis=1).all()
    if every_block:
        assert refused == hazard, f"in-place rule says refused={refused}, core saw hazard={hazard} (dst at {addr})"
    else:
        assert hazard <= refused, f"core saw a hazard the in-place rule accepts (dst at {addr})"


BlockReduceMin.invariants = (results_are_block_minima, masked_lanes_never_matter, contiguous_equals_bitwise,
                             in_place_rule_matches_core)

"""What BlockReduceMax and BlockReduceSum share with BlockReduceMin: one vendor page for the three (a family helper;
registers nothing).

The three functions are asc-devkit's ``ReduceDataBlock<ReduceType::{MIN,MAX,SUM}>`` under their pre-CANN-9.1 names:
one page states the products, types, argument ranges, alignment, overlap and no-op rules once for the three, and
the implementations differ only in the instruction (``vcgmin`` / ``vcgmax`` / ``vcgadd``). `BlockReduceFamily`
declares those shared parameters, rules and spec notes from a subclass's ``name``, ``prefix`` and ``op``; the
subclass adds what differs (the reduction, the value of a fully masked block, NaN and zeros, Sum's order) and its
invariants. The address arithmetic, the in-place rule and three invariants are BlockReduceMin's own functions.

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

from typing import Any, ClassVar, Iterator, Mapping

import numpy as np

from ..cases.case import Case, fresh
from ..core.memory import Trace
from ..core.run import prepare
from ..spec.logic import And, Between, Implies, Not, Or
from ..spec.model import ApiModel, SpecNote
from ..spec.params import BOOL, INT32, Arg, MaskArg, TensorDecl
from ..spec.rules import WARNING, Context, Values, field_range, order_rule, rule, tensor_min_size
from .block_reduce_min import (
    BLOCKS_PER_REPEAT,
    KEEP_PRODUCTS,
    MAX_REPEAT,
    MAX_STRIDE,
    PLACEHOLDER,
    dst_elems_needed,
    first_clobber,
    in_place_clobber,
    src_elems_needed,
)
from .vector_common import BLOCK_BYTES, effective_mask, mask_rules, mask_word_count

#: The current vendor page of the three reductions (asc-devkit docs), by the title users find it under.
PAGE = "ReduceDataBlock (asc-devkit docs)"
#: The Reg API page atlas-350 implements the basic API with.
REG_PAGE = "Reg API ReduceDataBlock (asc-devkit docs)"
CTRL_PAGE = "SetCtrlSpr (asc-devkit docs), CTRL[48]"
INTF = "asc-devkit impl/basic_api/kernel_operator_vec_reduce_intf_impl.h"
PY_SIGNATURES = "pyasc python/asc/language/basic/vec_reduce.py"
#: The hardware notes' section on BlockReduceMin records the page-wide facts of the ReduceDataBlock page.
FAMILY_NOTES = "HARDWARE_NOTES.md BlockReduceMin (facts of the whole ReduceDataBlock page)"
MASK_NOTES = "HARDWARE_NOTES.md Masks (vector ops)"
#: Page 004 (pyasc block_reduce_min) carries the is_set_mask sentence the family's docstrings share word for word.
SEED_004 = "004_2ad9555534615f32.txt"
#: The in-place sentence of the pre-rename pages and of pyasc's docstrings.
IN_PLACE_SENTENCE = "Restrictions (address overlap): 计算后的目的操作数数据不能覆盖未参与计算的源操作数"


def _stride_ok(x: Any) -> Any:
    return Between(0, x, MAX_STRIDE)


def _repeat_ok(v: Values, lo: int) -> Any:
    return Between(lo, v.repeatTime, MAX_REPEAT)


def dst_align(ctx: Context) -> int:
    """dst start alignment: 16 bytes for half, 32 for float (= one repeat's 8 results)."""
    return BLOCKS_PER_REPEAT * ctx.sizeof("dst")


def mask_all_zero(v: Values, ctx: Context) -> Any:
    """The mask argument selects no lane (a contiguous 0, or bitwise words all 0)."""
    m = v.mask
    words_zero = And(*(w == 0 for w in m.words[: mask_word_count(ctx)]))
    return And(Not(v["mask.placeholder"]), Or(And(m.bitwise, words_zero), And(Not(m.bitwise), m.count == 0)))


class BlockReduceFamily(ApiModel):
    """The shared part of a block reduction; a subclass sets ``name``, ``aliases``, ``prefix``, ``op`` (MAX, SUM),
    ``summary``, ``own_notes`` and implements `reduce`, `masked_fill` and `active_lanes`."""

    #: the ReduceType the function forwards to: "MAX" or "SUM"
    op: ClassVar[str]
    #: the notes of what the subclass's reduction does (masked blocks, NaN, zeros, order)
    own_notes: ClassVar[tuple[SpecNote, ...]] = ()
    #: the pyasc function's name, its docstring page and the pre-rename vendor page (set from ``name``)
    py_name: ClassVar[str]
    py_page: ClassVar[str]
    old_page: ClassVar[str]
    MASK_RULES: ClassVar[tuple[str, ...]]

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
        cls.args = _args(cls)
        cls.tensors = _tensors(cls)
        cls.arg_spellings = _spellings()
        cls.notes = (*_family_notes(cls), *cls.own_notes)
        cls.MASK_RULES = (f"{p}.mask.count.range", f"{p}.mask.words.count", f"{p}.mask.words.nonzero",
                          f"{p}.mask.words.width")

    # -- rules ------------------------------------------------------------------------------------------------

    def api_rules(self):
        p, py, par = self.prefix, self.py_page, f"{PAGE}, Parameters"
        yield from mask_rules(p, f"{MASK_NOTES}; {py}, Parameters", placeholder=True)
        yield order_rule(f"{p}.order.vector_mask", "vector_mask",
                         "isSetMask=false needs a SetVectorMask earlier in the program (the mask comes from it)",
                         _set_mask_source(), when=lambda v, ctx: Not(v.isSetMask), params=("isSetMask",),
                         notes=(f"{p}.mask-placeholder",))
        yield rule(f"{p}.mask.placeholder", ("mask", "isSetMask"),
                   lambda v, ctx: And(Implies(v["mask.placeholder"], Not(v.isSetMask)),
                                      Implies(Not(v.isSetMask), v["mask.placeholder"])),
                   f"isSetMask={{isSetMask}} with mask={{shown}}: the placeholder {PLACEHOLDER!r} is required "
                   "with isSetMask=false and refused otherwise",
                   _set_mask_source(), notes=(f"{p}.mask-placeholder",),
                   facts=lambda v, ctx: {"shown": PLACEHOLDER if v["mask.placeholder"] else format(v.mask)},
                   help=f"mask is {PLACEHOLDER!r} exactly when isSetMask=false")
        yield field_range(f"{p}.repeatTime.range", "repeatTime", 0, MAX_REPEAT,
                          f"{par}, repeatTime; {py}, Parameters, repeat_time; {FAMILY_NOTES}",
                          notes=(f"{p}.int32-args",))
        for name in ("dstRepStride", "srcBlkStride", "srcRepStride"):
            yield field_range(f"{p}.{name}.range", name, 0, MAX_STRIDE, f"{par}, {name}; {FAMILY_NOTES}",
                              notes=(f"{p}.int32-args",))
        yield field_range(f"{p}.dstRepStride.nonzero", "dstRepStride", 1, MAX_STRIDE,
                          f"{par}, dstRepStride (atlas-training does not accept 0); {FAMILY_NOTES}",
                          products=("atlas-training",), notes=(f"{p}.dstRepStride-zero",),
                          message="dstRepStride={value} is not accepted on {product}: it must be in [{lo}, {hi}]")
        yield tensor_min_size(f"{p}.src.footprint", "src", src_elems_needed,
                              f"{par}, srcBlkStride; {par}, srcRepStride; {FAMILY_NOTES}",
                              what="the datablocks read (((repeatTime-1)*srcRepStride + 7*srcBlkStride + 1) "
                                   "datablocks)",
                              params=("repeatTime", "srcRepStride", "srcBlkStride"),
                              when=lambda v, ctx: And(_repeat_ok(v, 1), _stride_ok(v.srcRepStride),
                                                      _stride_ok(v.srcBlkStride)),
                              notes=(f"{p}.full-footprints", f"{p}.src-stride-units"))
        yield tensor_min_size(f"{p}.dst.footprint", "dst", dst_elems_needed, f"{par}, dstRepStride; {FAMILY_NOTES}",
                              what="the results written ((repeatTime-1)*dstRepStride*8 + 8)",
                              params=("repeatTime", "dstRepStride"),
                              when=lambda v, ctx: And(_repeat_ok(v, 1), _stride_ok(v.dstRepStride)),
                              notes=(f"{p}.full-footprints", f"{p}.dst-rep-stride-unit"))
        yield rule(f"{p}.dst.src.in_place", ("dst", "src", "repeatTime", "dstRepStride", "srcRepStride",
                                              "srcBlkStride"),
                   lambda v, ctx: Not(in_place_clobber(v, ctx)),
                   "{clobber} (dst at {dst.addr}, src at {src.addr}, repeatTime={repeatTime}, "
                   "dstRepStride={dstRepStride}, srcRepStride={srcRepStride}, srcBlkStride={srcBlkStride})",
                   f"{self.old_page}, {IN_PLACE_SENTENCE}; {py}, {IN_PLACE_SENTENCE}; {FAMILY_NOTES}",
                   notes=(f"{p}.in-place",), facts=first_clobber, help="no result overwrites source bytes a later repeat reads")
        yield rule(f"{p}.noop", ("repeatTime", "mask", "product"),
                   lambda v, ctx: Not(Or(v.repeatTime == 0, mask_all_zero(v, ctx))),
                   "repeatTime={repeatTime}, mask={shown}: the call may not be a no-op on {product}",
                   f"{PAGE}, Restrictions (mask or repeatTime 0: not guaranteed to be a no-op on atlas-350); "
                   f"{FAMILY_NOTES}",
                   severity=WARNING, products=("atlas-350",), notes=(f"{p}.noop",),
                   facts=lambda v, ctx: {"shown": PLACEHOLDER if v["mask.placeholder"] else format(v.mask)},
                   help="repeatTime and the mask are non-zero (a zero call is not a guaranteed no-op)")

    # -- programs and unchecked rules ---------------------------------------------------------------------------

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
        reason = "isSetMask=false: the effective mask comes from a prior SetVectorMask and is not checked here"
        for r in self.rules_for(case.product):
            if r.id in self.MASK_RULES:
                yield r.id, reason, r.source
            elif r.id == f"{self.prefix}.noop":
                yield r.id, reason + " (only repeatTime = 0 is)", r.source

    # -- semantics --------------------------------------------------------------------------------------------

    def active_lanes(self, case: Case) -> np.ndarray | None:
        """Active lanes of one repeat, or None when a prior SetVectorMask set them (subclasses: see there)."""
        raise NotImplementedError

    def reduce(self, case: Case, x: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per (repeat, block): the result (element type T) and whether it is unspecified, from the blocks
        ``x`` (repeat, block, lane) and their active lanes; blocks without an active lane are handled by the caller."""
        raise NotImplementedError

    def masked_fill(self, case: Case) -> float | None:
        """The value the product stores for a fully masked block (products that store nothing: see
        `KEEP_PRODUCTS`), or None where it is not documented (the result is unspecified)."""
        raise NotImplementedError

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
        blocks = np.arange(BLOCKS_PER_REPEAT, dtype=np.int64)

        # every read first (repeat r is iteration r), so that the trace sees stores onto bytes read later
        starts = src.addr + (reps[:, None] * src_rep + blocks[None, :] * blk) * BLOCK_BYTES
        raw = trace.read(src.buffer, starts.reshape(-1), BLOCK_BYTES, np.repeat(reps, BLOCKS_PER_REPEAT),
                         align=BLOCK_BYTES, what="src datablock")
        x = np.ascontiguousarray(raw).reshape(-1).view(np_t).reshape(n, BLOCKS_PER_REPEAT, per_block)

        lanes = self.active_lanes(case)
        unknown_mask = lanes is None
        if unknown_mask:
            lanes = np.ones(BLOCKS_PER_REPEAT * per_block, dtype=bool)
        active = np.broadcast_to(lanes.reshape(1, BLOCKS_PER_REPEAT, per_block), x.shape)
        result, poison = self.reduce(case, x, active)
        any_active = active.any(axis=-1)

        stored = np.ones(result.shape, dtype=bool)
        if case.product in KEEP_PRODUCTS:
            stored = any_active
        else:
            fill = self.masked_fill(case)
            if fill is None:
                poison = poison | ~any_active
            else:
                result = np.where(any_active, result, np.array(fill, dtype=np_t))
        if unknown_mask:  # the mask is a prior SetVectorMask's: which results are stored, and what, is unknown
            stored[:] = True
            poison = np.ones(result.shape, dtype=bool)

        width = BLOCKS_PER_REPEAT * esize
        data = np.ascontiguousarray(result.astype(np_t)).view(np.uint8).reshape(n, width)
        trace.write(dst.buffer, dst.addr + reps * dst_rep * width, width, data, reps, align=width,
                    byte_mask=np.repeat(stored, esize, axis=1), poison=np.repeat(poison, esize, axis=1),
                    what="dst results")


# -- declarations built from the subclass ---------------------------------------------------------------------------

def _set_mask_source() -> str:
    return (f"{PAGE}, Template parameters, isSetMask; {SEED_004} 参数说明, is_set_mask (the sentence the family's "
            "pyasc docstrings share)")


def _args(cls: type[BlockReduceFamily]) -> tuple[Arg | MaskArg, ...]:
    proto = f"{PAGE}, Prototype"
    return (
        Arg("repeatTime", INT32, f"{proto}, int32_t repeatTime; {FAMILY_NOTES}",
            "repeats (iterations); each reads 8 datablocks and stores 8 results"),
        MaskArg("mask", source=f"{proto}, const int32_t mask / const uint64_t mask[]; {MASK_NOTES}",
                count_type=INT32, placeholder=PLACEHOLDER, placeholder_flag="isSetMask"),
        Arg("dstRepStride", INT32, f"{proto}, int32_t dstRepStride; {FAMILY_NOTES}",
            "dst step between repeats, in 8 results (16 bytes for half, 32 for float)"),
        Arg("srcBlkStride", INT32, f"{proto}, int32_t srcBlkStride; {FAMILY_NOTES}",
            "src step between the datablocks of one repeat, in 32-byte datablocks"),
        Arg("srcRepStride", INT32, f"{proto}, int32_t srcRepStride; {FAMILY_NOTES}",
            "src step between repeats, in 32-byte datablocks"),
        Arg("isSetMask", BOOL, _set_mask_source(),
            "true: the call sets the mask; false: a prior SetVectorMask did", default=True),
    )


def _tensors(cls: type[BlockReduceFamily]) -> tuple[TensorDecl, ...]:
    par = f"{PAGE}, Parameters"
    return (
        TensorDecl("dst", "out", source=f"{par}, dst; {PAGE}, Restrictions (dst alignment); {FAMILY_NOTES}",
                   align=dst_align, align_exact=True, doc=f"the 8 results of every repeat ({cls.op.lower()})"),
        TensorDecl("src", "in", source=f"{par}, src; {PAGE}, Restrictions (src alignment); {FAMILY_NOTES}",
                   align=32, doc="the datablocks reduced"),
    )


def _spellings() -> dict[str, dict[str, str]]:
    """pyasc's signature says ``repeat``, its docstrings' parameter list ``repeat_time``: both accepted."""
    common = {"dstRepStride": "dst_rep_stride", "srcBlkStride": "src_blk_stride", "srcRepStride": "src_rep_stride",
              "isSetMask": "is_set_mask"}
    return {"pyasc": {"repeatTime": "repeat", **common},
            "pyasc (docstring parameter list)": {"repeatTime": "repeat_time", **common}}


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
                 "through. pyasc materialises the arguments as int32 and the words as uint64.",
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
                 f"With isSetMask=false the mask argument must be the placeholder {PLACEHOLDER!r}, and only then; the "
                 "effective mask comes from a prior SetVectorMask, which a single call cannot see: the mask rules are "
                 "reported as not checked, and the core treats every result as unspecified.",
                 "The ReduceDataBlock page: with false the mask is set outside with SetVectorMask and the argument is "
                 f"the placeholder. pyasc's docstring lists is_set_mask, but its {p} has no such keyword (it always "
                 "emits isSetMask = true); ascverify accepts it like block_reduce_min's.",
                 (f"{PAGE}, Template parameters, isSetMask", f"{py}, Parameters, is_set_mask", f"{PY_SIGNATURES}, {p}"),
                 (f"{p}.mask.placeholder",)),
        SpecNote(f"{p}.arg-spellings", "Argument names",
                 "Cases may use the Ascend C names (repeatTime, dstRepStride, srcBlkStride, srcRepStride, isSetMask, "
                 "mask) or the pyasc names (repeat or repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, "
                 "is_set_mask, mask), not both in one case.",
                 "pyasc's signature and examples say repeat, its parameter list repeat_time.",
                 (f"{py}, Example", f"{py}, Parameters, repeat_time")),
        SpecNote(f"{p}.full-footprints", "Footprints ignore the mask",
                 "Every byte of all 8 datablocks of every repeat must lie inside src, and all 8 results of every "
                 "repeat inside dst, whatever the mask (for repeatTime >= 1).",
                 "The pages are silent. The mask may come from SetVectorMask (unknown to the call), and on atlas-350 "
                 "and atlas-200i-500-a2 fully masked blocks still store a result.",
                 (f"{PAGE}, Parameters", FAMILY_NOTES), (f"{p}.src.footprint", f"{p}.dst.footprint")),
        SpecNote(f"{p}.in-place", "dst sharing memory with src",
                 "dst may overlap src, except that no result of repeat r may land on a source byte read by a later "
                 "repeat r' > r (exact, on the footprints). Overlap with bytes of the same or an earlier repeat is "
                 "fine.",
                 f"The pre-rename {name} page and pyasc's docstring: 'the destination written must not overwrite "
                 "source data still to be used'. The current ReduceDataBlock page points to the general overlap rule "
                 "instead (within one iteration src and dst overlap fully or not at all), which cannot be meant "
                 f"literally: the vendor's own softmax reduces in place with {name}<float,false>(t, t, n, "
                 "MASK_PLACEHOLDER, 1, 1, 8), where repeat 0 overlaps its source in part. The later-repeat rule fits "
                 "that use; on atlas-a2/a3, which store nothing for a fully masked block, it is conservative.",
                 (f"{old}, {IN_PLACE_SENTENCE}", f"{py}, {IN_PLACE_SENTENCE}",
                  f"{PAGE}, Restrictions (address overlap)",
                  "asc-devkit impl/adv_api/detail/activation/softmax/membase/common/softmax_flashv2_impl/"
                  "softmax_flashv2_block_reduce_impl.h", FAMILY_NOTES),
                 (f"{p}.dst.src.in_place",)),
        SpecNote(f"{p}.noop", "repeatTime = 0 or mask = 0",
                 "repeatTime = 0 is valid and stores nothing; on atlas-350 it is a warning, because a no-op is not "
                 "guaranteed there. A mask selecting nothing is an error by the mask rules everywhere (and also draws "
                 "the warning on atlas-350).",
                 "The page: on atlas-a2/a3 mask or repeatTime 0 is a no-op; on atlas-350 a no-op is not guaranteed.",
                 (f"{PAGE}, Restrictions", FAMILY_NOTES), (f"{p}.noop",)),
        SpecNote(f"{p}.same-type", "dst and src element types",
                 "dst and src both have T (half or float per product; half only on atlas-training).",
                 "The page: the destination and source types must be the same; the legacy prototype takes "
                 "LocalTensor<T> for both.",
                 (f"{PAGE}, Data types", f"{old}, Prototype"), (f"{p}.dst.dtype", f"{p}.src.dtype")),
    )


# -- helpers of the subclasses' invariants --------------------------------------------------------------------------

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

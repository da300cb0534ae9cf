"""LoadAlign into a RegTensor (the vendor's page "Contiguous aligned load (LoadAlign)", asc-devkit docs, Reg data
movement), atlas-350 only.

``LoadAlign<T, dist>(dstReg, srcAddr)`` moves UB bytes into the 256-byte RegTensor ``dstReg`` (0..31) in one of
the LoadDist distributions of the page's Table 3 (NORM, BRC, US, DS, UNPACK, BLK, E2B); the dual load
``LoadAlign<T, dist>(dstReg0, dstReg1, srcAddr)`` de-interleaves 2 x VL bytes into two RegTensors (Table 6,
DIST_DINTLV_B8/B16/B32). A case reaches this model as ``"api": "LoadAlign"`` with the argument ``dstReg`` (the
MaskReg load takes ``mask``) or as ``LoadAlignRegTensor``.

=============  ============================================================  ======================================
form           prototype                                                     ``args``
=============  ============================================================  ======================================
plain          ``LoadAlign<T, dist>(dstReg, srcAddr)``                        ``{"dstReg", "dist"}``
AddrReg        ``LoadAlign<T, dist>(dstReg, srcAddr, AddrReg)``               ``{..., "addrReg": {strides, indices}}``
post-update    ``LoadAlign<T, postMode, dist>(dstReg, srcAddr&, stride)``     ``{..., "postMode", "postUpdateStride"}``
dual           the same three with ``dstReg1`` (dstReg is dstReg0)           ``{..., "dstReg1"}``
=============  ============================================================  ======================================
"""

from __future__ import annotations

from math import gcd
from typing import Any, Mapping

import numpy as np

from ..cases.case import Case
from ..core.run import run_case
from ..spec.logic import And, Div, If, InSet, Mod, Not, Or
from ..spec.model import ApiModel, SpecNote
from ..spec.params import INT32, UINT16, UINT32, Arg, EnumType, IntType, LevelsArg
from ..spec.registers import GEOMETRIES
from ..spec.registry import register
from ..spec.rules import WARNING, Context, Values, field_one_of, field_range, rule, tensor_min_size
from .drawing import integers
from .reg_load_align import (MAX_LEVELS, POST, POST_UPDATE, TYPES, addr_reg_elems, draw_aligned_addr_reg,
                             random_bytes, report_moved_src, src_addr_decl)

PAGE = "Contiguous aligned LoadAlign into a RegTensor (asc-devkit docs)"
PRODUCT = "atlas-350"
VL = GEOMETRIES[PRODUCT].vl  # 256 bytes
VREGS = GEOMETRIES[PRODUCT].spec("vreg").count  # 32
VREG_INDEX = IntType("RegTensor index", 0, VREGS - 1)
BLOCK = 32  # a DataBlock, bytes
IMPL = "asc-devkit impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_datacopy_load_impl.h (CheckLoadDist)"

#: LoadDist -> (bytes read, alignment of the start in bytes, element width in bytes the dist names or 0): the page's
#: Table 3 (single load, VL = 256) and Table 6 (dual load)
DISTS: dict[str, tuple[int, int, int]] = {
    "DIST_NORM": (VL, 32, 0),
    "DIST_BRC_B8": (1, 1, 1), "DIST_BRC_B16": (2, 2, 2), "DIST_BRC_B32": (4, 4, 4),
    "DIST_US_B8": (VL // 2, min(32, VL // 2), 1), "DIST_US_B16": (VL // 2, min(32, VL // 2), 2),
    "DIST_DS_B8": (2 * VL, 32, 1), "DIST_DS_B16": (2 * VL, 32, 2),
    "DIST_UNPACK_B8": (VL // 2, min(32, VL // 2), 1), "DIST_UNPACK_B16": (VL // 2, min(32, VL // 2), 2),
    "DIST_UNPACK_B32": (VL // 2, min(32, VL // 2), 4), "DIST_UNPACK4_B8": (VL // 4, min(32, VL // 4), 1),
    "DIST_BLK": (BLOCK, 32, 0),
    "DIST_E2B_B16": (2 * VL // BLOCK, VL // 16, 2), "DIST_E2B_B32": (4 * VL // BLOCK, VL // 8, 4),
    "DIST_DINTLV_B8": (2 * VL, 32, 1), "DIST_DINTLV_B16": (2 * VL, 32, 2), "DIST_DINTLV_B32": (2 * VL, 32, 4),
}
DUAL = ("DIST_DINTLV_B8", "DIST_DINTLV_B16", "DIST_DINTLV_B32")
SINGLE = tuple(d for d in DISTS if d not in DUAL)
DIST = EnumType("LoadDist", tuple(DISTS), other_names=frozenset(("DIST_BDINTLV", "DIST_SPLT4CHN_B8",
                                                                  "DIST_SPLT2CHN_B8", "DIST_SPLT2CHN_B16")),
                other_enum="MaskDist",
                other_reason="not a LoadDist of LoadAlign into a RegTensor (the page's Tables 3 and 6; a MaskDist value "
                             "loads a MaskReg: LoadAlign with the argument `mask`)")
CODE = {d: DIST.code(d) for d in DISTS}
DUAL_CODES = DIST.codes(DUAL)
NORM = CODE["DIST_NORM"]


#: where VL (256 bytes), the 32 RegTensors and the AddrReg's levels come from
NOTES = "HARDWARE_NOTES.md Reg API"


def _t(n: int, what: str) -> str:
    return f"{PAGE}, Table {n}, {what}"


def _cite(*parts: str) -> str:
    """A rule's source: the page's parts, then the hardware notes (VL, the register file, the AddrReg) once."""
    return "; ".join(dict.fromkeys((*parts, NOTES)))


TABLE_DIST = f"{PAGE}, Tables 3 and 6 (LoadDist: data moved, alignment in bytes, in units of VL)"


def _by_dist(v: Values, pick: int) -> Any:
    """A per-dist constant of the table (0: bytes read, 1: alignment) as a value, column or Z3 term of dist."""
    out: Any = DISTS["DIST_NORM"][pick]
    for name, row in DISTS.items():
        if name != "DIST_NORM":
            out = If(v.dist == CODE[name], row[pick], out)
    return out


def read_bytes(v: Values) -> Any:
    """Bytes the load reads from UB (Tables 3 and 6)."""
    return _by_dist(v, 0)


def align_bytes(v: Values) -> Any:
    """The alignment of the first byte read, of the post-update stride x sizeof(T) and of the AddrReg offset x
    sizeof(T) (Tables 3 and 6; the dual load: 32)."""
    return _by_dist(v, 1)


def dual(v: Values) -> Any:
    """The dual-load prototype (dstReg0, dstReg1): the case gives dstReg1."""
    return v["dstReg1.present"]


def post_form(v: Values) -> Any:
    return And(v["postMode.present"], v["postUpdateStride.present"])


def offset_bytes(v: Values, ctx: Context) -> Any:
    """Bytes from srcAddr to the first byte read: the AddrReg offset x sizeof(T); 0 otherwise (the post-update
    form reads at srcAddr and moves it afterwards)."""
    return If(v["addrReg.present"], addr_reg_elems(v) * ctx.sizeof(), 0)


def read_elems(v: Values, ctx: Context) -> Any:
    """Elements of srcAddr from its start to one past the last byte read."""
    sz = ctx.sizeof()
    return Div(offset_bytes(v, ctx) + read_bytes(v) + sz - 1, sz)


def _dist_name(v: Values) -> str:
    code = int(v.dist)
    return DIST.choices[code] if 0 <= code < len(DIST.choices) else str(code)


def distribute(raw: np.ndarray, dist: str) -> list[np.ndarray]:
    """The RegTensor bytes (one or, for DINTLV, two arrays of VL bytes) the bytes ``raw`` read give under ``dist``."""
    nbytes, _, w = DISTS[dist]
    raw = np.asarray(raw, dtype=np.uint8).reshape(-1)[:nbytes]
    if dist == "DIST_NORM":
        return [raw.copy()]
    if dist == "DIST_BLK":
        return [np.tile(raw, VL // BLOCK)]
    e = raw.reshape(-1, w)  # the elements read, w bytes each (little-endian)
    kind = dist.split("_")[1]
    if kind == "BRC":
        return [np.tile(e[0], VL // w)]
    if kind == "US":
        return [np.repeat(e, 2, axis=0).reshape(-1)]
    if kind == "DS":
        return [e[0::2].reshape(-1)]
    if kind in ("UNPACK", "UNPACK4"):
        out = np.zeros((e.shape[0], 2 if kind == "UNPACK" else 4, w), dtype=np.uint8)
        out[:, 0, :] = e
        return [out.reshape(-1)]
    if kind == "E2B":
        return [np.repeat(e, BLOCK // w, axis=0).reshape(-1)]
    if kind == "DINTLV":
        return [e[0::2].reshape(-1), e[1::2].reshape(-1)]
    raise ValueError(f"dist={dist} is not modelled")


@register
class LoadAlignRegTensor(ApiModel):
    name = "LoadAlignRegTensor"
    aliases = ()
    prefix = "reg_load_align_vreg"
    output_comparison = "moves"
    seed = PAGE
    summary = ("LoadAlign with a RegTensor destination: VL = 256 bytes of UB (or a part of them, broadcast, up- or "
               "down-sampled, unpacked, per the LoadDist) into a RegTensor; the dual load de-interleaves 512 bytes into "
               "two. A LoadAlign case with the argument dstReg is read as this API.")
    support = {PRODUCT: TYPES}
    support_source = f"{PAGE}, Product support (Ascend 950PR/950DT only); Data types (b8, b16, b32, b64); {NOTES}"
    default_dtype = "b16"
    #: the non-contiguous aligned load (DATA_BLOCK_COPY) is another page's overload, not modelled; `offset` is what the
    #: page calls the AddrReg parameter and the MaskReg load's post-update step
    #: a case with dataCopyMode is the non-contiguous aligned load (DATA_BLOCK_COPY)
    overloads = {"dataCopyMode": "LoadAlignDataBlock"}
    unmodelled_args = {**{name: "the non-contiguous aligned LoadAlign (DATA_BLOCK_COPY) takes `dataCopyMode`, "
                                "`dataBlockStride`, `mask` (and `repeatStride`): give dataCopyMode"
                          for name in ("dataBlockStride", "repeatStride", "blockStride")},
                       "mask": "`mask` is the MaskReg load's destination, or the DATA_BLOCK_COPY load's MaskReg (with "
                               "`dataCopyMode`); the contiguous load into a RegTensor takes neither",
                       "offset": "the RegTensor load gives its AddrReg as `addrReg` ({\"strides\": [...], \"indices\": "
                                 "[...]}) and its PostUpdate step as `postUpdateStride` (elements of T); `offset` is the "
                                 "MaskReg load's post-update step (bytes)"}
    pointer_params = ("srcAddr",)  # __ubuf__ T*& srcAddr: a PostUpdate moves it
    forms = ((), ("addrReg",), ("postMode", "postUpdateStride"), ("dstReg1",), ("dstReg1", "addrReg"),
             ("dstReg1", "postMode", "postUpdateStride"))
    forms_source = f"{PAGE}, Prototype (single load and dual load, each plain, PostUpdate or AddrReg); {NOTES}"
    #: `ascverify lint`: for a 64-bit T (DIST_NORM or DINTLV only, 32-byte starts) the dist's alignment implies T's
    lint_expected = {"redundant:reg_load_align_vreg.srcAddr.align": "reg_load_align_vreg.alignment",
                     "redundant:reg_load_align_vreg.dist.width": "reg_load_align_vreg.width"}
    args = (
        Arg("dstReg", VREG_INDEX, _cite(_t(2, "dstReg"), "HARDWARE_NOTES.md Products (32 RegTensors on atlas-350)"),
            "index of the destination RegTensor, 0..31 (default 0); dstReg0 of the dual load", default=0),
        Arg("dist", DIST, _cite(TABLE_DIST), "LoadDist: one of Table 3 (single load) or Table 6 (DIST_DINTLV_*, dual load); "
            "default DIST_NORM", default="DIST_NORM"),
        Arg("dstReg1", VREG_INDEX, _cite(_t(5, "dstReg1")), "the dual load's second RegTensor (the odd elements)",
            default=1, optional=True),
        LevelsArg("addrReg", (("strides", "stride", UINT32), ("indices", "index", UINT16)), MAX_LEVELS,
                  _cite(f"{_t(2, 'offset')} (AddrReg)"),
                  "the AddrReg form's offset in elements of T: sum of indices[k] * strides[k], 1 to 4 levels"),
        Arg("postMode", POST, _cite(_t(1, "postMode"), _t(2, "postUpdateStride")),
            "PostLiteral of the PostUpdate form (with postUpdateStride)", default="POST_MODE_UPDATE", optional=True),
        Arg("postUpdateStride", INT32, _cite(f"{PAGE}, Tables 2 and 5, postUpdateStride (int32_t, elements)"),
            "the PostUpdate form's stride in elements of T: srcAddr += postUpdateStride after the load", default=0,
            optional=True),
    )
    tensors = (src_addr_decl(_cite(_t(2, "srcAddr"))),)
    notes = (
        SpecNote("reg_load_align_vreg.overload", "Which LoadAlign a case calls",
                 "A LoadAlign case with the argument dstReg (or dstReg1) is this API (LoadAlignRegTensor); with mask, or "
                 "neither, it is the MaskReg load (LoadAlign). The optional arguments name the prototype: none, addrReg, "
                 "or postMode + postUpdateStride; dstReg1 makes it the dual load. RegTraitNumTwo (complex32, a b64 "
                 "register pair) is not modelled.",
                 "The page has six prototypes into RegTensors; the MaskReg page three more of the same name. A case "
                 "file needs one flat argument object.",
                 (f"{PAGE}, Prototype", "MaskReg LoadAlign (asc-devkit docs), Prototype"),
                 ("reg_load_align_vreg.form",)),
        SpecNote("reg_load_align_vreg.dists", "What each LoadDist moves (VL = 256 bytes)",
                 "NORM: 256 bytes as they are. BRC_Bn: one n-bit element, repeated over the register. US_Bn: 128 bytes, "
                 "each element twice. DS_Bn: 512 bytes, the even-indexed elements. UNPACK_Bn: 128 bytes, each element "
                 "followed by a zero element of its width; UNPACK4_B8: 64 bytes, each followed by three zero bytes. "
                 "BLK: one 32-byte DataBlock, repeated 8 times. E2B_B16 / E2B_B32: 8 elements (16 / 32 bytes), each "
                 "repeated over one DataBlock. DINTLV_Bn (dual load): 512 bytes, the even-indexed elements to dstReg, "
                 "the odd to dstReg1.",
                 "Tables 3 and 6 in units of VL; the page's UNPACK examples (src 0x00, 0x01, ... -> dst 0x00, 0x00, "
                 "0x01, 0x00, ...). DS 'keeps every other element' without saying which: the even ones, as DINTLV "
                 "sends the even ones to the first register (an inference).",
                 (TABLE_DIST,), ("reg_load_align_vreg.srcAddr.read",)),
        SpecNote("reg_load_align_vreg.alignment", "Alignments",
                 "The first byte read, the PostUpdate stride x sizeof(T) and the AddrReg offset x sizeof(T) are each "
                 "aligned per dist: 32 bytes (NORM, US, DS, UNPACK, UNPACK4, BLK, E2B_B32, DINTLV), 16 (E2B_B16), "
                 "1 / 2 / 4 (BRC_B8 / B16 / B32). A misaligned start faults in `run`. srcAddr is also aligned to "
                 "sizeof(T) (srcAddr.align: a __ubuf__ T* off T's alignment is undefined in C++), stricter than Table "
                 "3 for a dist narrower than T (BRC_B8 with a 16-bit T).",
                 "Table 3 gives the alignment per dist (min(32, VL/2), VL/16, VL/8...); the Restrictions apply it to "
                 "the UB address, postUpdateStride x sizeof(T) and the AddrReg offset x sizeof(T).",
                 (TABLE_DIST, f"{PAGE}, Restrictions"),
                 ("reg_load_align_vreg.srcAddr.dist_align", "reg_load_align_vreg.addrReg.align",
                  "reg_load_align_vreg.postUpdateStride.align")),
        SpecNote("reg_load_align_vreg.read-past", "A load that moves bytes past the buffer behind srcAddr",
                 "srcAddr (addr, size) is the UB the load may read, not the LocalTensor the pointer came from: a load "
                 "may move bytes past that buffer when the kernel owns them (another of its buffers, or UB it left "
                 "unallocated), and a case declares srcAddr over the bytes moved. srcAddr.read stays an error for a "
                 "declared region shorter than the load, and `run` faults on a read past it, as on any access "
                 "outside a declared tensor.",
                 "The page constrains the address's alignment per dist (Table 3) and says nothing of a buffer's end: "
                 "srcAddr is a bare __ubuf__ T*. The vendor's shipping examples load a full VL past the end of their "
                 "buffers into lanes no later op uses: simd_vf_dump.asc:40 (DIST_NORM from a 32-float allocation, "
                 ":62; the register is overwritten at :41), gather_ld_reg.asc:115 (an 8-element uint32 index buffer, "
                 ":137; GatherB uses 8 lanes), gelu_eltwise.asc:85 (scenario 0's last load starts 128 bytes before the "
                 "end of xPing / xPong under a 32-lane mask, :75, :145). Vendor hunt 25 translated them with srcAddr "
                 "the buffer's elements left and found the rule refusing them; the corpus now declares the bytes "
                 "moved, and the rule's message says to. The vendor's BilinearInterpolation on atlas-350 makes such a "
                 "load inside its implementation (256 bytes for 32 bytes of offsets): there the user's operand is "
                 "src0Offset, not the load's region, so that call warns only past the end of UB "
                 "(bilinear.src0Offset.vector_read, spec note bilinear.3510-offset-loads). An error, not a warning, "
                 "here: a case states the region the load reads, and a region shorter than the load contradicts "
                 "itself (`run` would fault on the read, as the core does on any access outside a declared tensor); "
                 "reg_load_align_block.srcAddr.read is a warning because the blocks past the region may be "
                 "inactive in a MaskReg the case does not hold.",
                 (TABLE_DIST, f"{PAGE}, Restrictions",
                  "asc-devkit examples/01_simd_cpp_api/01_utilities/02_dump/simd_vf_dump/simd_vf_dump.asc:40, 62",
                  "asc-devkit examples/01_simd_cpp_api/03_basic_api/00_data_movement/reg_load_gather/"
                  "gather_ld_reg.asc:115, 137",
                  "asc-devkit examples/01_simd_cpp_api/05_best_practices/02_reg_compute/gelu_eltwise_high_performance/"
                  "gelu_eltwise.asc:75, 85, 145"),
                 ("reg_load_align_vreg.srcAddr.read",)),
        SpecNote("reg_load_align_vreg.width", "A dist of another width than T",
                 "A single-load dist that names a width (BRC_B16, US_B8, E2B_B32...) with a T of another width is a "
                 "warning, run as the dist says (the bytes moved in elements of the dist's width). The dual load's "
                 "DINTLV_B8/B16/B32 is not: it is run at its own width whatever T, without a warning. For a 64-bit T "
                 "the warning never fires (its single load takes DIST_NORM only, its dual load is exempt).",
                 "The page describes each such dist for its width ('data type b16'); the implementation passes dist "
                 "to the instruction whatever T (no static_assert ties them). The dual load has no DINTLV_B64 though "
                 "the page lists b64 for it (Restrictions: RegTraitNumOne, every dual-load interface, b8..b64), and "
                 "the page's own examples (ComputeMode04/05, LoadAlign<T, DIST_DINTLV_B8> for any T) and the vendor's "
                 "950 test (DINTLV_B8 with half, float, uint32, bool) pair it with other widths (review 19).",
                 (TABLE_DIST, IMPL, f"{PAGE}, Restrictions", f"{PAGE}, Example (ComputeMode04/05)",
                  "asc-devkit tests/api/reg_compute_api/ascendc_case_ascend950pr_9599_reg_compute/"
                  "test_operator_reg_compute_datacopy.cpp:113, 126, 435-444"), ("reg_load_align_vreg.dist.width",)),
        SpecNote("reg_load_align_vreg.post-update", "The PostUpdate form",
                 "POST_MODE_UPDATE loads at srcAddr, then srcAddr += postUpdateStride elements of T; `run` reports the "
                 "new address in run.json (outputs.srcAddr). POST_MODE_NORMAL is not supported in this form (an "
                 "error). Unlike the MaskReg load's offset (bytes), the stride counts elements.",
                 "Table 2: postUpdateStride int32_t, unit: elements; 'POST_MODE_NORMAL: not supported'.",
                 (f"{_t(2, 'postUpdateStride')}",), ("reg_load_align_vreg.postMode.update",)),
        SpecNote("reg_load_align_vreg.dual-registers", "The dual load's two registers",
                 "dstReg and dstReg1 the same register: an error, as two stores of one call to the same bytes are "
                 "(docs/severity.md; load3d.dstStride.overlap for colliding fractals): the odd elements would "
                 "overwrite the even ones, or the other way, and which half the register keeps is not documented.",
                 "Table 5 names two destination operands; nothing says they may be one register, and no vendor "
                 "example or test passes one register twice (the DIST_DINTLV loads of asc-devkit's 28 files that make them "
                 "all name two).",
                 (f"{_t(5, 'dstReg0, dstReg1')}",), ("reg_load_align_vreg.dual.registers",)),
    )

    def api_rules(self):
        p = self.prefix
        yield rule(f"{p}.dist.dual", ("dist", "dstReg1"),
                   lambda v, ctx: Or(And(dual(v), InSet(v.dist, DUAL_CODES)),
                                     And(Not(dual(v)), Not(InSet(v.dist, DUAL_CODES)))),
                   "dist={dist} with {regs}: the dual load (dstReg0, dstReg1) takes DIST_DINTLV_B8/B16/B32 (Table "
                   "6), the single load any other LoadDist (Table 3)", _cite(TABLE_DIST, IMPL),
                   facts=lambda v, ctx: {"dist": _dist_name(v),
                                         "regs": "two registers" if v["dstReg1.present"] else "one register"},
                   notes=("reg_load_align_vreg.overload",),
                   help="DIST_DINTLV_* exactly with dstReg1 (the dual load)")
        yield rule(f"{p}.dist.b64", ("dist", "dstReg1", "dtype"),
                   lambda v, ctx: Or(ctx.dtype.bits != 64, dual(v), v.dist == NORM),
                   "dist={dist} with a 64-bit T: the single load of b64 supports DIST_NORM only",
                   _cite(f"{PAGE}, Restrictions (single load: b64 supports DIST_NORM only)"),
                   facts=lambda v, ctx: {"dist": _dist_name(v)}, notes=("reg_load_align_vreg.dists",),
                   help="DIST_NORM for 64-bit T")
        yield rule(f"{p}.dist.width", ("dist", "dtype"),
                   lambda v, ctx: Not(InSet(v.dist, tuple(CODE[d] for d, row in DISTS.items()
                                                          if row[2] and row[2] != ctx.sizeof() and d not in DUAL))),
                   "dist={dist} moves {width}-bit elements; T={dtype} is {bits}-bit (run as the dist says)",
                   _cite(TABLE_DIST), severity=WARNING,
                   facts=lambda v, ctx: {"dist": _dist_name(v), "bits": ctx.dtype.bits,
                                         "width": 8 * DISTS.get(_dist_name(v), (0, 0, 0))[2]},
                   notes=("reg_load_align_vreg.width",), help="a dist of T's width")
        yield field_one_of(f"{p}.postMode.update", "postMode", ("POST_MODE_UPDATE",),
                           _cite(f"{PAGE}, Tables 2 and 5, postUpdateStride"),
                           type=POST, notes=("reg_load_align_vreg.post-update",),
                           message="postMode={value}: the PostUpdate form supports POST_MODE_UPDATE only (POST_MODE_NORMAL: "
                                   "not supported)")
        yield field_range(f"{p}.addrReg.levels", "addrReg.levels", 1, MAX_LEVELS, _cite(f"{_t(2, 'offset')} (AddrReg)"),
                          param="addrReg", when=lambda v, ctx: v["addrReg.present"],
                          message="addrReg has {value} levels; an AddrReg has {lo} to {hi} loop levels")
        yield rule(f"{p}.srcAddr.dist_align", ("srcAddr", "dist", "addrReg", "dtype"),
                   lambda v, ctx: Mod(v.srcAddr.addr + offset_bytes(v, ctx), align_bytes(v)) == 0,
                   "the load starts at UB byte {start}; {dist} needs a {align}-byte aligned start",
                   _cite(TABLE_DIST, f"{PAGE}, Restrictions"),
                   facts=lambda v, ctx: {"start": v.srcAddr.addr + offset_bytes(v, ctx), "dist": _dist_name(v),
                                         "align": align_bytes(v)},
                   notes=("reg_load_align_vreg.alignment",), help="the load's start aligned per dist (Table 3 / 6)")
        yield rule(f"{p}.addrReg.align", ("addrReg", "dist", "dtype"),
                   lambda v, ctx: Mod(addr_reg_elems(v) * ctx.sizeof(), align_bytes(v)) == 0,
                   "the AddrReg offset is {elems} x {size} = {nbytes} bytes; {dist} needs it {align}-byte aligned",
                   _cite(f"{PAGE}, Tables 2 and 5, offset", TABLE_DIST), when=lambda v, ctx: v["addrReg.present"],
                   facts=lambda v, ctx: {"elems": addr_reg_elems(v), "size": ctx.sizeof(),
                                         "nbytes": addr_reg_elems(v) * ctx.sizeof(), "dist": _dist_name(v),
                                         "align": align_bytes(v)},
                   notes=("reg_load_align_vreg.alignment",), help="the AddrReg offset x sizeof(T) aligned per dist")
        yield rule(f"{p}.postUpdateStride.align", ("postUpdateStride", "postMode", "dist", "dtype"),
                   lambda v, ctx: Mod(v.postUpdateStride * ctx.sizeof(), align_bytes(v)) == 0,
                   "postUpdateStride={postUpdateStride} elements = {nbytes} bytes: srcAddr moves by it after the load, "
                   "and {dist} needs it {align}-byte aligned",
                   _cite(f"{PAGE}, Tables 2 and 5, postUpdateStride", TABLE_DIST),
                   when=lambda v, ctx: post_form(v),
                   facts=lambda v, ctx: {"nbytes": v.postUpdateStride * ctx.sizeof(), "dist": _dist_name(v),
                                         "align": align_bytes(v)},
                   notes=("reg_load_align_vreg.alignment",), help="postUpdateStride x sizeof(T) aligned per dist")
        yield field_range(f"{p}.postUpdateStride.b64", "postUpdateStride", -(1 << 30), (1 << 30) - 1,
                          _cite(f"{PAGE}, Tables 2 and 5, postUpdateStride (int32_t)", IMPL + " (b64: the stride "
                                "doubled in int32_t, as a count of 32-bit words)"),
                          when=lambda v, ctx: And(post_form(v), ctx.dtype.bits == 64),
                          notes=("reg_load_align_vreg.post-update",),
                          message="postUpdateStride={value} with a 64-bit T: the implementation passes it doubled in an "
                                  "int32_t (a count of 32-bit words), which holds [{lo}, {hi}] elements")
        yield tensor_min_size(f"{p}.srcAddr.read", "srcAddr", read_elems, _cite(TABLE_DIST, _t(2, "offset")),
                              params=("dist", "addrReg"),
                              message="srcAddr.size={srcAddr.size} elements, but the load needs {need} (its AddrReg "
                                      "offset plus the bytes its dist moves); srcAddr is the UB the load may read, "
                                      "not only the buffer behind the pointer: if the bytes past the buffer are UB the "
                                      "kernel owns (lanes no later op uses), declare srcAddr over them",
                              notes=("reg_load_align_vreg.dists", "reg_load_align_vreg.read-past"))
        yield rule(f"{p}.dual.registers", ("dstReg", "dstReg1"),
                   lambda v, ctx: Or(Not(dual(v)), v.dstReg != v.dstReg1),
                   "the dual load writes dstReg={dstReg} and dstReg1={dstReg1}: one register gets both halves",
                   _cite(_t(5, "dstReg0, dstReg1")), notes=("reg_load_align_vreg.dual-registers",),
                   help="two different registers for the dual load")

    # -- strategies -------------------------------------------------------------------------------------------

    def construct_args(self, draw, ctx: Context, env: dict[str, Any]) -> None:
        """dist made to fit the form (DINTLV exactly for the dual load, DIST_NORM for a single b64 load), most often
        of T's width; the PostUpdate stride and the AddrReg indices multiples of what keeps x sizeof(T) aligned, the
        stride within what a 64-bit T's doubled int32_t holds."""
        sz, is_dual = ctx.sizeof(), bool(env.get("dstReg1.present"))
        dist = DIST.choices[int(env["dist"])]
        if is_dual and dist not in DUAL:
            dist = DUAL[draw(integers(0, len(DUAL) - 1))]
        elif not is_dual and (dist in DUAL or ctx.dtype.bits == 64):
            dist = "DIST_NORM"
        width = DISTS[dist][2]
        if width and width != sz and draw(integers(0, 3)) and sz in (1, 2, 4):
            family = dist.rsplit("_", 1)[0]
            dist = next((d for d in DISTS if d.rsplit("_", 1)[0] == family and DISTS[d][2] == sz), dist)
        env["dist"] = CODE[dist]
        if is_dual and int(env["dstReg1"]) == int(env["dstReg"]):
            env["dstReg1"] = (int(env["dstReg"]) + 1) % VREGS
        align = DISTS[dist][1]
        step = align // gcd(align, sz)  # elements: a multiple of step is a multiple of align bytes
        if env.get("postUpdateStride.present"):
            stride = int(env["postUpdateStride"])
            if ctx.dtype.bits == 64:  # passed doubled in an int32_t: [-2**30, 2**30 - 1] (postUpdateStride.b64)
                stride = max(-(1 << 30), min(stride, (1 << 30) - 1))
            env["postUpdateStride"] = stride - stride % step
        if env.get("addrReg.present"):
            draw_aligned_addr_reg(draw, env, align, sz)

    # -- semantics --------------------------------------------------------------------------------------------

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """No memory is written (the result is one or two registers)."""
        return {}

    def pointer_moves(self, case: Case) -> Mapping[str, int]:
        """POST_MODE_UPDATE: srcAddr += postUpdateStride elements (Table 2), where a program's next call on it starts."""
        env = case.env
        if bool(post_form(case.values())) and int(env["postMode"]) == POST_UPDATE and not env["addrReg.present"]:
            return {"srcAddr": int(env["postUpdateStride"]) * case.ctx.sizeof()}
        return {}

    def execute(self, case: Case, trace) -> None:
        env, v, ctx = case.env, case.values(), case.ctx
        dist = DIST.choices[int(env["dist"])]
        is_dual = bool(env["dstReg1.present"])
        if (dist in DUAL) != is_dual:
            raise ValueError(f"dist={dist} with {'two registers' if is_dual else 'one register'}: no such LoadAlign")
        nbytes, align, _ = DISTS[dist]
        src = case.tensor("srcAddr")
        start = src.addr + int(offset_bytes(v, ctx))
        raw = trace.read(src.buffer, np.array([start], dtype=np.int64), nbytes, align=align,
                         what=f"srcAddr ({dist})", tensor="srcAddr")
        regs = distribute(raw.reshape(-1), dist)
        trace.write_register("vreg", int(env["dstReg"]), regs[0], what="dstReg")
        if is_dual:
            trace.write_register("vreg", int(env["dstReg1"]), regs[1], what="dstReg1")
        report_moved_src(case, trace, self.pointer_moves(case).get("srcAddr"), postUpdateStride=int(env["postUpdateStride"]))

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        """Random bytes (every bit pattern is a value), viewed as T."""
        return random_bytes(case, tensor, rng)


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def _source_byte(dist: str, j: np.ndarray, reg: int) -> tuple[np.ndarray, np.ndarray]:
    """For byte j of destination register ``reg`` (0, or 1 of the dual load): the index of the byte read it copies,
    and whether it is a copy (False: a zero the unpack inserts). Index arithmetic from the page's tables, written
    apart from `distribute`."""
    _, _, w = DISTS[dist]
    kind = "NORM" if dist == "DIST_NORM" else dist.split("_")[1]
    copy = np.ones_like(j, dtype=bool)
    if kind == "NORM":
        return j, copy
    if kind == "BLK":
        return j % BLOCK, copy
    elem, b = j // w, j % w
    if kind == "BRC":
        return b, copy
    if kind == "US":
        return (elem // 2) * w + b, copy
    if kind == "DS":
        return (2 * elem) * w + b, copy
    if kind == "UNPACK":
        return (elem // 2) * w + b, elem % 2 == 0
    if kind == "UNPACK4":
        return elem // 4, elem % 4 == 0
    if kind == "E2B":
        return (j // BLOCK) * w + b, copy
    return (2 * elem + reg) * w + b, copy  # DINTLV


def registers_follow_the_tables(case: Case, seed: int = 0) -> None:
    """Every byte of each destination register is the byte of the UB read the page's table names (or a zero the
    unpack inserts); nothing is stored to UB, and only the destination registers are written."""
    res = run_case(Case(case.model, case.ctx, dict(case.env), case.data_sources, case.origin, case.base_dir,
                        case.registers), seed=seed, strict=True)
    v, src = case.values(), case.tensor("srcAddr")
    dist = DIST.choices[int(case.env["dist"])]
    start = src.addr + int(offset_bytes(v, case.ctx)) - src.addr
    raw = res.inputs["srcAddr"].view(np.uint8)[start:start + DISTS[dist][0]]
    targets = [int(case.env["dstReg"])] + ([int(case.env["dstReg1"])] if case.env["dstReg1.present"] else [])
    j = np.arange(VL)
    for r, index in enumerate(targets):
        got = res.memory.registers.get("vreg", index)
        at, copy = _source_byte(dist, j, r)
        want = np.where(copy, raw[np.minimum(at, raw.size - 1)], 0).astype(np.uint8)
        if len(targets) == 2 and targets[0] == targets[1] and r == 0:
            continue  # one register written twice: the last write stands (a warning)
        assert np.array_equal(got, want), f"{dist}: register {index} differs from the table at bytes " \
                                          f"{np.flatnonzero(got != want)[:4]}"
    writes = [(f, i) for k, f, i, _ in res.trace.register_records if k == "write"]
    assert writes == [("vreg", i) for i in targets], f"register writes {writes}"
    assert not res.trace.stored(src.buffer).any(), "LoadAlign stored to UB"
    env = case.env
    if env["postMode.present"] and env["postUpdateStride.present"] and int(env["postMode"]) == POST_UPDATE:
        moved = src.addr + int(env["postUpdateStride"]) * case.ctx.sizeof()  # Table 2: srcAddr += stride elements
        assert res.trace.outputs["srcAddr"]["addr"] == moved, f"srcAddr left at {res.trace.outputs['srcAddr']}"
    else:
        assert "srcAddr" not in res.trace.outputs, "srcAddr moved without POST_MODE_UPDATE"


LoadAlignRegTensor.invariants = (registers_follow_the_tables,)

"""LoadAlign into a MaskReg (page 001_fa274d527d3e292b.txt + HARDWARE_NOTES.md Reg API), atlas-350 only.

Three prototypes, told apart by the optional arguments a case gives (``ApiModel.forms``):

=============  ====================================================  =============================================
form           prototype                                             ``args``
=============  ====================================================  =============================================
plain          ``LoadAlign<T, dist>(mask, srcAddr)`` (Table 2)       ``{"dist"}``
AddrReg        ``LoadAlign<T, dist>(mask, srcAddr, AddrReg)`` (T. 1)  ``{"dist", "addrReg": {"strides", "indices"}}``
post-update    ``LoadAlign<T, postMode, dist>(mask, srcAddr&, off)``  ``{"dist", "postMode", "offset"}``
=============  ====================================================  =============================================

The call reads, from UB at the *effective address* (srcAddr, plus the AddrReg offset in elements of T), 32
bytes (DIST_NORM), 16 (DIST_US) or 64 (DIST_DS), and writes all 256 bits of MaskReg ``mask`` (0..7, default 0):
NORM copies the 256 bits, US doubles each of 128 bits, DS keeps the even bits of 512. POST_MODE_UPDATE then
moves srcAddr by ``offset`` bytes; `ascverify run` reports the updated address (run.json ``outputs``).
"""

from __future__ import annotations

from math import gcd
from typing import Any, Mapping

import numpy as np

from ..cases.case import Case
from ..checking.checker import check_case
from ..core.run import run_case
from ..spec.dtypes import DTYPES
from ..spec.logic import And, Div, If, Max, Mod, Not, Sum
from ..spec.model import ApiModel, SpecNote
from ..spec.params import INT32, UINT16, UINT32, Arg, EnumType, IntType, LevelsArg, TensorDecl
from ..spec.products import VECTOR_POSITIONS
from ..spec.registers import GEOMETRIES, mask_bits, mask_bytes
from ..spec.registry import register
from ..spec.rules import WARNING, Context, Values, field_one_of, field_range, rule, tensor_min_size
from .drawing import integers

SEED = "001_fa274d527d3e292b.txt"
NOTES = "HARDWARE_NOTES.md Reg API"
PRODUCT = "atlas-350"
VL = GEOMETRIES[PRODUCT].vl  # 256 bytes (HARDWARE_NOTES.md Products)
MASK_REGS = GEOMETRIES[PRODUCT].spec("mask").count  # 8
MASK_BYTES = GEOMETRIES[PRODUCT].spec("mask").nbytes  # VL/8 = 32 bytes = 256 bits
MAX_LEVELS = 4  # an AddrReg has at most 4 loop levels (CreateAddrReg)

#: LoadAlign into a RegTensor (not modelled): its LoadDist values (asc-devkit include/basic_api/reg_compute/
#: kernel_reg_compute_utils.h, enum class LoadDist) and its destination argument, said plainly when a case gives one
REGTENSOR_LOAD = ("LoadAlign into a MaskReg (argument `mask`) takes a MaskDist, not a LoadDist: MaskDist::DIST_NORM, "
                  "DIST_US or DIST_DS; a load into a RegTensor gives the argument `dstReg` (API LoadAlignRegTensor)")
REGTENSOR_DISTS = frozenset((
    "DIST_BRC_B8", "DIST_BRC_B16", "DIST_BRC_B32", "DIST_US_B8", "DIST_US_B16", "DIST_DS_B8", "DIST_DS_B16",
    "DIST_BDINTLV", "DIST_DINTLV_B8", "DIST_DINTLV_B16", "DIST_DINTLV_B32", "DIST_UNPACK_B8", "DIST_UNPACK_B16",
    "DIST_UNPACK_B32", "DIST_UNPACK4_B8", "DIST_BLK", "DIST_E2B_B16", "DIST_E2B_B32", "DIST_SPLT4CHN_B8",
    "DIST_SPLT2CHN_B8", "DIST_SPLT2CHN_B16"))
DIST = EnumType("MaskDist", ("DIST_NORM", "DIST_US", "DIST_DS", "DIST_PACK"), other_names=REGTENSOR_DISTS,
                other_enum="LoadDist", other_reason=f"a LoadDist value; {REGTENSOR_LOAD}")
LOAD_DISTS = ("DIST_NORM", "DIST_US", "DIST_DS")
NORM, US, DS, PACK = DIST.codes(DIST.choices)
#: Bytes moved per dist (Tables 1-3, dist: VL/8, VL/16, VL/4 bytes).
READ_BYTES = {"DIST_NORM": VL // 8, "DIST_US": VL // 16, "DIST_DS": VL // 4}
#: Start alignment per dist (Tables 1-3, dist: VL/8, VL/16, min(32, VL/4) bytes).
ALIGN_BYTES = {"DIST_NORM": VL // 8, "DIST_US": VL // 16, "DIST_DS": min(32, VL // 4)}
POST = EnumType("PostLiteral", ("POST_MODE_NORMAL", "POST_MODE_UPDATE"))
POST_NORMAL, POST_UPDATE = POST.codes(POST.choices)
MASK_INDEX = IntType("MaskReg index", 0, MASK_REGS - 1)

#: Element types: every type of 8, 16, 32 or 64 bits stands for b8..b64 (int4b is not one of them).
TYPES = tuple(sorted((t.name for t in DTYPES if t.bits in (8, 16, 32, 64)), key=lambda n: n not in ("b8", "b16", "b32", "b64")))


def _t(table: int, param: str) -> str:
    return f"{SEED} Table {table}, {param}"


TABLES_DIST = f"{SEED} Tables 1-3, dist"
#: The vendor's newer page of this call (asc-devkit docs/zh/api/.../MaskReg搬入（LoadAlign）.md, read at 82b89a1).
VENDOR_PAGE = "MaskReg LoadAlign (asc-devkit docs)"
#: The MaskReg load the 950 implementation runs (asc-devkit, DataCopyImpl for a MaskReg and an AddrReg).
IMPL_LOAD = "asc-devkit impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_datacopy_impl.h (DataCopyImpl, pld)"


# -- the forms and the effective address, on values, columns or Z3 terms ---------------------------------------

def read_bytes(v: Values) -> Any:
    """Bytes the load moves: 32 (NORM), 16 (US), 64 (DS); DIST_PACK, refused by a rule, counts as NORM."""
    return If(v.dist == US, READ_BYTES["DIST_US"], If(v.dist == DS, READ_BYTES["DIST_DS"], READ_BYTES["DIST_NORM"]))


def align_bytes(v: Values) -> Any:
    """Alignment of the first byte read: 32 (NORM), 16 (US), 32 (DS)."""
    return If(v.dist == US, ALIGN_BYTES["DIST_US"], If(v.dist == DS, ALIGN_BYTES["DIST_DS"], ALIGN_BYTES["DIST_NORM"]))


def addr_reg_elems(v: Values) -> Any:
    """The AddrReg offset in elements of T: the sum of index_k * stride_k over its levels (4 are held)."""
    return Sum(If(v["addrReg.levels"] > k, v[f"addrReg.stride{k}"] * v[f"addrReg.index{k}"], 0) for k in range(MAX_LEVELS))


def post_form(v: Values) -> Any:
    """The case gives postMode and offset (the post-update prototype)."""
    return And(v["postMode.present"], v["offset.present"])


def post_update(v: Values) -> Any:
    """srcAddr moves by offset bytes after the load (the post-update form with POST_MODE_UPDATE)."""
    return And(post_form(v), Not(v["addrReg.present"]), v.postMode == POST_UPDATE)


def offset_bytes(v: Values, ctx: Context) -> Any:
    """Bytes from srcAddr to the first byte read: the AddrReg offset x sizeof(T) in the AddrReg form, the int32
    offset with POST_MODE_NORMAL (the page's reading of that form), else 0 (plain; POST_MODE_UPDATE reads at
    srcAddr and moves it afterwards)."""
    return If(v["addrReg.present"], addr_reg_elems(v) * ctx.sizeof(),
              If(And(post_form(v), v.postMode == POST_NORMAL), v.offset, 0))


def effective_address(v: Values, ctx: Context) -> Any:
    """The UB byte the load starts at."""
    return v.srcAddr.addr + offset_bytes(v, ctx)


def read_elems(v: Values, ctx: Context) -> Any:
    """Elements of srcAddr from its start to one past the last byte read."""
    sz = ctx.sizeof()
    return Div(Max(offset_bytes(v, ctx), 0) + read_bytes(v) + sz - 1, sz)


def dist_bits(raw: Any, dist: str) -> np.ndarray:
    """The 256 MaskReg bits a load of the bytes ``raw`` gives (little-endian bit order).

    NORM: bit i of the 32 bytes is mask bit i. US: bit i of the 16 bytes is mask bits 2i and 2i+1. DS: mask bit i
    is bit 2i of the 64 bytes (the odd bits are discarded).
    """
    bits = mask_bits(raw)
    if dist == "DIST_US":
        return np.repeat(bits, 2)
    if dist == "DIST_DS":
        return bits[0::2]
    return bits


def random_bytes(case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray:
    """Random bytes for a Reg load's source (every bit pattern is a value or a mask), viewed as its type."""
    t = case.tensor(tensor)
    return rng.integers(0, 256, size=t.nbytes, dtype=np.uint8).view(t.dtype.numpy)


def report_moved_src(case: Case, trace: Any, moved: int | None, **given: int) -> None:
    """A PostUpdate load's new srcAddr in run.json's outputs (``moved`` bytes, None: not moved), with the argument
    ``given`` that moved it."""
    if moved is not None:
        src = case.tensor("srcAddr")
        trace.outputs["srcAddr"] = {"buffer": src.buffer, "addr": src.addr + moved, "before": src.addr,
                                    "offset": moved, **given}


def src_addr_decl(source: str) -> TensorDecl:
    """The Reg loads' UB operand ``__ubuf__ T* srcAddr`` (MaskReg and RegTensor loads alike)."""
    return TensorDecl("srcAddr", "in", VECTOR_POSITIONS, source=source, align=lambda ctx: ctx.sizeof(), align_exact=True,
                      pack_align=32,
                      doc="the UB region the __ubuf__ T* pointer addresses: addr = the pointer, size = elements it may "
                          "read (past the buffer behind the pointer where the kernel owns that UB: spec note "
                          "reg_load_align_vreg.read-past)")


def draw_aligned_addr_reg(draw: Any, env: dict[str, Any], align: int, sz: int) -> None:
    """An AddrReg's levels whose offset x ``sz`` bytes is a multiple of ``align``: each index_k a multiple of what
    makes index_k * stride_k * sz one, the offset within a few KiB (shared by the MaskReg and RegTensor loads)."""
    step = align // gcd(align, sz)  # elements: a multiple of step is a multiple of align bytes
    for k in range(int(env["addrReg.levels"])):
        # one up to 512 or the stride drawn before: the branch, then its value, as st.one_of(st.integers(0, 512),
        # st.just(drawn)) makes its choices, without building those strategies for every level of every case
        stride = draw(integers(0, 512)) if draw(integers(0, 1)) == 0 else int(env[f"addrReg.stride{k}"])
        q = step // gcd(stride, step) if stride else 1
        top = min(UINT16.hi, 2048 // max(1, stride * sz))
        env[f"addrReg.stride{k}"] = stride
        env[f"addrReg.index{k}"] = q * draw(integers(0, top // q))


def _how(v: Values, ctx: Context) -> str:
    base = f"srcAddr.addr={v.srcAddr.addr}"
    if v["addrReg.present"]:
        return f"{base} + AddrReg offset {addr_reg_elems(v)} x {ctx.sizeof()} bytes"
    if post_form(v) and v.postMode == POST_NORMAL:
        return f"{base} + offset {v.offset} bytes"
    return base


@register
class LoadAlign(ApiModel):
    name = "LoadAlign"
    aliases = ("Reg::LoadAlign", "AscendC::Reg::LoadAlign")
    prefix = "reg_load_align"
    seed = SEED
    summary = ("LoadAlign with a MaskReg destination: 32 (DIST_NORM), 16 (DIST_US, each bit doubled) or 64 "
               "(DIST_DS, every other bit kept) bytes of UB into the 256 bits of a MaskReg.")
    support = {PRODUCT: TYPES}
    support_source = f"{SEED} Applicability; Tables 1-3, T (b8..b64: any type of that width)"
    #: `ascverify lint`: with postMode fixed to POST_MODE_UPDATE no load starts before srcAddr, and a dist-aligned
    #: effective address is T-aligned: both rules report, in their own words, cases other rules refuse too
    lint_expected = {"redundant:reg_load_align.srcAddr.read_start": "reg_load_align.post-mode-normal",
                     "redundant:reg_load_align.srcAddr.align": "reg_load_align.effective-address"}
    default_dtype = "b8"
    #: (in order: the first argument of these a case gives picks the model)
    overloads = {"dataCopyMode": "LoadAlignDataBlock", "dstReg": "LoadAlignRegTensor", "dstReg1": "LoadAlignRegTensor"}
    pointer_params = ("srcAddr",)  # __ubuf__ T*& srcAddr: a PostUpdate moves it
    forms = ((), ("addrReg",), ("postMode", "offset"))
    forms_source = f"{SEED} Prototype (three LoadAlign prototypes into a MaskReg)"
    args = (
        Arg("mask", MASK_INDEX, f"{_t(1, 'mask')}; HARDWARE_NOTES.md Products (8 MaskRegs on atlas-350)",
            "index of the destination MaskReg, 0..7 (default 0)", default=0),
        Arg("dist", DIST, TABLES_DIST, "MaskDist: DIST_NORM, DIST_US or DIST_DS (default DIST_NORM)",
            default="DIST_NORM"),
        LevelsArg("addrReg", (("strides", "stride", UINT32), ("indices", "index", UINT16)), MAX_LEVELS,
                  f"{_t(1, 'offset')} (AddrReg); {NOTES}",
                  "the AddrReg form's offset in elements of T: sum of indices[k] * strides[k], 1 to 4 levels "
                  "(CreateAddrReg: index uint16, stride uint32)"),
        Arg("postMode", POST, _t(3, "postMode"), "PostLiteral of the post-update form (with offset)",
            default="POST_MODE_UPDATE", optional=True),
        Arg("offset", INT32, f"{_t(3, 'offset')} (int32_t, bytes); {NOTES}",
            "the post-update form's offset in bytes: srcAddr += offset after the load", default=0, optional=True),
    )
    tensors = (src_addr_decl(f"{_t(1, 'srcAddr')}; {_t(2, 'srcAddr')}"),)
    notes = (
        SpecNote("reg_load_align.forms", "Which prototype a case calls",
                 "The optional arguments name the prototype: none -> plain (Table 2), addrReg -> AddrReg offset "
                 "(Table 1), postMode + offset -> post-update (Table 3). Any other combination breaks "
                 "reg_load_align.form. The destination MaskReg is the argument mask, an index 0..7 (default 0).",
                 "The page has three overloads that differ in their last parameter; a case file needs one flat "
                 "argument object. atlas-350 has 8 MaskRegs (HARDWARE_NOTES).",
                 (f"{SEED} Prototype", "HARDWARE_NOTES.md Products"), ("reg_load_align.form", "reg_load_align.mask.type")),
        SpecNote("reg_load_align.dist-units", "Bytes moved and alignment per dist",
                 "With VL = 256 bytes: DIST_NORM moves 32 bytes from a 32-byte aligned address, DIST_US 16 bytes "
                 "(16-byte aligned), DIST_DS 64 bytes (aligned to min(32, VL/4) = 32). Every dist writes all "
                 "256 bits of the MaskReg.",
                 "The page states the sizes in units of VL (VL/8, VL/16, VL/4 bytes); VL is 256 bytes on atlas-350.",
                 (TABLES_DIST, NOTES, "HARDWARE_NOTES.md Products"),
                 ("reg_load_align.srcAddr.dist_align", "reg_load_align.srcAddr.read")),
        SpecNote("reg_load_align.bit-order", "Bit order in bytes",
                 "Little-endian bit order: mask bit i is bit i % 8 (least significant first) of byte i // 8 of the "
                 "bytes loaded; byte 0 is the lowest address.",
                 "The page does not say. It is the order in which a uint8/uint32 mask word's bit 0 selects element 0 "
                 "(HARDWARE_NOTES Masks: the low word and low bits hold the low elements), and the one the vendor's "
                 "UB mask layouts assume (a 1-bit-per-element select mask loaded with DIST_US for 16-bit data).",
                 (TABLES_DIST, "HARDWARE_NOTES.md Masks (vector ops)", NOTES)),
        SpecNote("reg_load_align.us-ds", "Which bits DIST_US repeats and DIST_DS keeps",
                 "DIST_US: bit i of the 128 bits read becomes mask bits 2i and 2i+1. DIST_DS: mask bit i is bit 2i "
                 "of the 512 bits read (the even bits are kept, the odd ones discarded), so DS of the doubled "
                 "bits of x gives x back.",
                 "The page: US 'each bit is repeated once', DS 'every other bit is discarded' without saying which. "
                 "Keeping the even bits makes DS the inverse of US on doubled data, which is how the vendor pairs "
                 "them (a 1-bit mask widened to 2 bits per element, narrowed back); an inference.",
                 (TABLES_DIST, NOTES)),
        SpecNote("reg_load_align.effective-address", "Which address the alignment applies to",
                 "The dist's alignment (32 / 16 / 32 bytes) applies to the effective address: srcAddr plus, in the "
                 "AddrReg form, the AddrReg offset x sizeof(T) bytes; in the AddrReg form the offset x sizeof(T) "
                 "must be so aligned on its own too (reg_load_align.addrReg.align), so srcAddr is aligned as well. "
                 "The bytes read must lie inside srcAddr (the tensor describes the region the pointer may read) and "
                 "so inside UB.",
                 "Page 001 gives the alignment per dist and says the actual start address is srcAddr + offset; "
                 "HARDWARE_NOTES: the AddrReg offset counts elements of T and the alignment applies to the byte "
                 "address. The vendor's newer LoadAlign page (MaskReg) adds: 'the alignment of the AddrReg offset x "
                 "sizeof(T): see Table 3' (Parameters, offset) and 'the UB address, the offset and the AddrReg "
                 "offset x sizeof(T) are aligned per MaskDist' (Restrictions); its own calls (CreateAddrReg(i, 32) "
                 "from a 32-byte aligned tensor) keep both parts aligned.",
                 (_t(1, "offset"), TABLES_DIST, NOTES, f"{VENDOR_PAGE}, Parameters (offset)",
                  f"{VENDOR_PAGE}, Restrictions"),
                 ("reg_load_align.srcAddr.dist_align", "reg_load_align.addrReg.align", "reg_load_align.srcAddr.align",
                  "reg_load_align.srcAddr.read", "reg_load_align.srcAddr.read_start")),
        SpecNote("reg_load_align.addr-reg", "The AddrReg",
                 "addrReg = {\"strides\": [...], \"indices\": [...]}, one entry per loop level, 1 to 4 levels; the "
                 "offset is sum(indices[k] * strides[k]) elements of T. Indices are uint16, strides uint32 (the "
                 "CreateAddrReg parameters). Lists of unequal length cannot be read; a fifth level is refused.",
                 "The page only says AddrReg offset; HARDWARE_NOTES give the formula and the 4 levels; the types are "
                 "CreateAddrReg's (asc-devkit docs/api/context/AddrReg.md).",
                 (_t(1, "offset"), NOTES, "asc-devkit docs/api/context/AddrReg.md"),
                 ("reg_load_align.addrReg.levels",)),
        SpecNote("reg_load_align.types", "Element types per form",
                 "T is accepted by its width: b8, b16, b32, b64 and every concrete type of that width (bool, int8, "
                 "half, float, int64...); int4b is not. Every form takes 64-bit types, the AddrReg form too (no "
                 "warning: the older page's Table 1 lists b8, b16 and b32 for it, the vendor's newer page, "
                 "implementation and tests take b64).",
                 "The page lists bN types; a kernel calls LoadAlign<half>. An older vendor implementation "
                 "static_asserts 1, 2 or 4 bytes for every form; the current one (dav_3510 DataCopyImpl for a MaskReg "
                 "with an AddrReg) static_asserts b8/b16/b32/b64, the vendor's newer LoadAlign page lists b64 for "
                 "every form, and its own 950 test loads a MaskReg with an AddrReg for uint64 and int64 (mode 9): "
                 "refusing b64 there would refuse the vendor's code, and the newer page states 'the source supports "
                 "b8, b16, b32, b64' for all three prototypes. bool is a b8 type (the vendor's built-in data types "
                 "page: 'b8: bool, int8_t, uint8_t...'; its RegTensor page: 'bool only supports data movement'), and "
                 "the same 950 test instantiates every mode for bool.",
                 (_t(1, "T"), _t(2, "T"), _t(3, "T"), f"{VENDOR_PAGE}, Restrictions (b8, b16, b32, b64)", IMPL_LOAD,
                  "asc-devkit tests/api/reg_compute_api/ascendc_case_ascend950pr_9599_reg_compute/"
                  "test_operator_reg_compute_datacopy.cpp:230-238, 496"),
                 ("reg_load_align.dtype.support",)),
        SpecNote("reg_load_align.offset-align", "The post-update offset",
                 "With POST_MODE_UPDATE the int32 offset (bytes) is aligned like the load's start: 32 (DIST_NORM), "
                 "16 (DIST_US), 32 (DIST_DS) bytes; an error otherwise.",
                 "The vendor's newer LoadAlign page (MaskReg): 'the alignment of the UB address, of offset and of the "
                 "AddrReg offset x sizeof(T) depend on MaskDist (Table 3)'. Page 001 gives the alignment of the "
                 "address only; srcAddr moves by offset after the load, so an unaligned offset makes the next load "
                 "of a loop start unaligned. The vendor's own calls step by whole loads (32 bytes).",
                 (f"{VENDOR_PAGE}, Restrictions", f"{VENDOR_PAGE}, Table 3 (MaskDist)", TABLES_DIST),
                 ("reg_load_align.offset.align",)),
        SpecNote("reg_load_align.dist-names", "dist values",
                 "dist is a MaskDist name. DIST_NORM, DIST_US and DIST_DS load; DIST_PACK (a MaskDist value the "
                 "vendor uses to store a MaskReg) is read and refused by reg_load_align.dist.load; `run` does not "
                 "execute it. A case with the argument dstReg is the load into a RegTensor (API LoadAlignRegTensor, its "
                 "own LoadDist values); a LoadDist value (DIST_BRC_B16, LoadDist::DIST_NORM...) with `mask` cannot be "
                 "read (exit 2), and the line says which argument the RegTensor load takes.",
                 "The page lists the three load modes; asc-devkit's MaskDist also has DIST_PACK, which its "
                 "LoadAlign implementation rejects. LoadDist is the RegTensor load's enum (asc-devkit "
                 "kernel_reg_compute_utils.h); a RegTensor load read as a MaskReg load would check the wrong bytes.",
                 (TABLES_DIST, "asc-devkit impl (MaskDist, DIST_PACK in StoreAlign)"), ("reg_load_align.dist.load",)),
        SpecNote("reg_load_align.post-mode-normal", "POST_MODE_NORMAL with an int32 offset",
                 "An error (reg_load_align.postMode.update): the offset form compiles only with POST_MODE_UPDATE. "
                 "`run` still executes such a case the page's way: the load starts at srcAddr + offset bytes and "
                 "srcAddr is not updated (a negative offset then starts before srcAddr: reg_load_align.srcAddr.read_start).",
                 "Page 001 Table 3 describes POST_MODE_NORMAL in this form (srcAddr + offset, no update); HARDWARE_NOTES: "
                 "the vendor code accepts only POST_MODE_UPDATE there.",
                 (_t(3, "postMode"), _t(3, "offset"), NOTES),
                 ("reg_load_align.postMode.update", "reg_load_align.srcAddr.read_start")),
        SpecNote("reg_load_align.post-update", "The updated address",
                 "POST_MODE_UPDATE loads at srcAddr, then srcAddr += offset bytes. `ascverify run` reports the new "
                 "address in run.json (outputs.srcAddr: buffer, addr). It is not checked: it is the next call's "
                 "address (a loop's last update commonly points past the data).",
                 "Table 3: 'After the movement, the address is updated as follows: srcAddr += offset'; HARDWARE_NOTES: "
                 "the offset counts bytes.",
                 (_t(3, "offset"), NOTES)),
    )

    def api_rules(self):
        p = self.prefix
        yield field_one_of(f"{p}.dist.load", "dist", LOAD_DISTS, TABLES_DIST, type=DIST,
                           message="dist={value} is not a load mode into a MaskReg (one of {choices})",
                           notes=("reg_load_align.dist-names",))
        yield field_one_of(f"{p}.postMode.update", "postMode", ("POST_MODE_UPDATE",), f"{_t(3, 'postMode')}; {NOTES}",
                           type=POST, notes=("reg_load_align.post-mode-normal",),
                           message="postMode={value} with an int32 offset: only POST_MODE_UPDATE is accepted in this "
                                   "form (the page's POST_MODE_NORMAL would read at srcAddr + offset, no update)")
        yield field_range(f"{p}.addrReg.levels", "addrReg.levels", 1, MAX_LEVELS, f"{_t(1, 'offset')} (AddrReg); {NOTES}",
                          param="addrReg", when=lambda v, ctx: v["addrReg.present"], notes=("reg_load_align.addr-reg",),
                          message="addrReg has {value} levels; an AddrReg has {lo} to {hi} loop levels")
        yield rule(f"{p}.srcAddr.dist_align", ("srcAddr", "dist", "addrReg", "postMode", "offset", "dtype"),
                   lambda v, ctx: Mod(effective_address(v, ctx), align_bytes(v)) == 0,
                   "the load starts at UB byte {start} ({how}); {dist} needs a {align}-byte aligned start",
                   f"{TABLES_DIST} (alignment VL/8, VL/16, min(32, VL/4) bytes); {_t(1, 'offset')}; {NOTES}",
                   facts=lambda v, ctx: {"start": effective_address(v, ctx), "how": _how(v, ctx),
                                         "dist": DIST.choices[int(v.dist)] if 0 <= int(v.dist) < 4 else v.dist,
                                         "align": align_bytes(v)},
                   notes=("reg_load_align.effective-address", "reg_load_align.dist-units"),
                   help="the effective address (srcAddr + offset) aligned to 32 / 16 / 32 bytes for NORM / US / DS")
        yield rule(f"{p}.addrReg.align", ("addrReg", "dist", "dtype"),
                   lambda v, ctx: Mod(addr_reg_elems(v) * ctx.sizeof(), align_bytes(v)) == 0,
                   "the AddrReg offset is {elems} x {size} = {nbytes} bytes; {dist} needs it {align}-byte aligned "
                   "(the effective address's alignment is not enough: each part is aligned)",
                   f"{VENDOR_PAGE}, Parameters (offset: the AddrReg offset x sizeof(T) per Table 3) and Restrictions; "
                   f"{TABLES_DIST}",
                   when=lambda v, ctx: v["addrReg.present"], notes=("reg_load_align.effective-address",),
                   facts=lambda v, ctx: {"elems": addr_reg_elems(v), "size": ctx.sizeof(),
                                         "nbytes": addr_reg_elems(v) * ctx.sizeof(),
                                         "dist": DIST.choices[int(v.dist)] if 0 <= int(v.dist) < 4 else v.dist,
                                         "align": align_bytes(v)},
                   help="the AddrReg offset x sizeof(T) aligned to 32 / 16 / 32 bytes for NORM / US / DS")
        yield rule(f"{p}.offset.align", ("offset", "postMode", "dist"),
                   lambda v, ctx: Mod(v.offset, align_bytes(v)) == 0,
                   "offset={offset} bytes: srcAddr moves by it after the load, and {dist} needs it {align}-byte "
                   "aligned (the next load would start misaligned)",
                   f"{VENDOR_PAGE}, Restrictions (the offset's alignment per MaskDist, Table 3); {TABLES_DIST}",
                   when=lambda v, ctx: post_update(v), notes=("reg_load_align.offset-align",),
                   facts=lambda v, ctx: {"dist": DIST.choices[int(v.dist)] if 0 <= int(v.dist) < 4 else v.dist,
                                         "align": align_bytes(v)},
                   help="the post-update offset aligned to 32 / 16 / 32 bytes for NORM / US / DS")
        yield tensor_min_size(f"{p}.srcAddr.read", "srcAddr", read_elems,
                              f"{TABLES_DIST} (VL/8, VL/16, VL/4 bytes moved); {_t(1, 'offset')}; {NOTES}",
                              params=("dist", "addrReg", "postMode", "offset"),
                              message="srcAddr.size={srcAddr.size} elements, but the load needs {need} (its offset "
                                      "plus the 32 / 16 / 64 bytes of DIST_NORM / DIST_US / DIST_DS)",
                              notes=("reg_load_align.effective-address", "reg_load_align.dist-units"))
        yield rule(f"{p}.srcAddr.read_start", ("srcAddr", "addrReg", "postMode", "offset", "dtype"),
                   lambda v, ctx: offset_bytes(v, ctx) >= 0,
                   "the load starts {back} bytes before srcAddr ({how})", f"{_t(3, 'offset')}; {_t(1, 'offset')}; {NOTES}",
                   facts=lambda v, ctx: {"back": -offset_bytes(v, ctx), "how": _how(v, ctx)},
                   notes=("reg_load_align.effective-address", "reg_load_align.post-mode-normal"),
                   help="the load starts inside srcAddr (no negative offset)")

    # -- strategies -------------------------------------------------------------------------------------------

    def construct_args(self, draw, ctx: Context, env: dict[str, Any]) -> None:
        """AddrReg form: only for 8/16/32-bit T (else the plain form), and each index_k a multiple of what makes
        index_k * stride_k * sizeof(T) a multiple of the dist's alignment, the offset within a few KiB (srcAddr is
        laid out 32-byte aligned: ``pack_align``). Post-update form: the offset floored to a multiple of the dist's
        alignment (reg_load_align.offset.align)."""
        if env.get("postMode.present") and env.get("offset.present") and int(env["postMode"]) == POST_UPDATE:
            offset = int(env["offset"])
            env["offset"] = offset - offset % ALIGN_BYTES[DIST.choices[int(env["dist"])]]  # int32's least is a multiple
        if not env["addrReg.present"]:
            return
        if ctx.dtype.bits > 32:
            env["addrReg.present"] = False
            env["addrReg.levels"] = 0
            for k in range(MAX_LEVELS):
                env[f"addrReg.stride{k}"] = env[f"addrReg.index{k}"] = 0
            return
        draw_aligned_addr_reg(draw, env, ALIGN_BYTES[DIST.choices[int(env["dist"])]], ctx.sizeof())

    # -- semantics --------------------------------------------------------------------------------------------

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """No memory is written (the result is a register)."""
        return {}

    def pointer_moves(self, case: Case) -> Mapping[str, int]:
        """POST_MODE_UPDATE: srcAddr += offset bytes (Table 3), where a program's next call on it starts."""
        return {"srcAddr": int(case.env["offset"])} if post_update(case.values()) else {}

    def execute(self, case: Case, trace) -> None:
        env, v, ctx = case.env, case.values(), case.ctx
        dist = DIST.choices[int(env["dist"])]
        if dist not in LOAD_DISTS:
            raise ValueError(f"dist={dist} is not a load mode: LoadAlign into a MaskReg does not define it")
        src = case.tensor("srcAddr")
        start = src.addr + int(offset_bytes(v, ctx))
        raw = trace.read(src.buffer, np.array([start], dtype=np.int64), READ_BYTES[dist], align=ALIGN_BYTES[dist],
                         what="srcAddr (mask bits)", tensor="srcAddr")
        trace.write_register("mask", int(env["mask"]), mask_bytes(dist_bits(raw.reshape(-1), dist)), what="mask")
        report_moved_src(case, trace, self.pointer_moves(case).get("srcAddr"))  # srcAddr += offset (Table 3)

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        """Random bytes (every bit pattern is a mask), viewed as T."""
        return random_bytes(case, tensor, rng)


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def _run(case: Case, seed: int, *, strict: bool = True, data: Any = None):
    """Run a copy of the case (its registers kept; srcAddr's bytes optionally given)."""
    c = Case(case.model, case.ctx, dict(case.env), case.data_sources, case.origin, case.base_dir, case.registers)
    if data is not None:
        c.set_data("srcAddr", np.asarray(data, dtype=np.uint8).view(c.ctx.tensor_dtype("srcAddr").numpy))
    return run_case(c, seed=seed, strict=strict)


def _loaded(case: Case, seed: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """The bytes the load read (from the memory before the call) and the MaskReg's 256 bits after it."""
    res = _run(case, seed)
    v, src = case.values(), case.tensor("srcAddr")
    start = int(effective_address(v, case.ctx)) - src.addr
    n = READ_BYTES[case.arg("dist")]
    raw = res.inputs["srcAddr"].view(np.uint8)[start:start + n]
    return raw, mask_bits(res.memory.registers.get("mask", int(case.env["mask"]))), res


def mask_is_dist_of_bytes_read(case: Case, seed: int = 0) -> None:
    """Mask bit i is bit i (NORM), bit i // 2 (US) or bit 2i (DS) of the bytes at the effective address, with bit b
    of byte j being bit 8j + b; nothing else is written."""
    raw, got, res = _loaded(case, seed)
    dist = case.arg("dist")
    i = np.arange(MASK_BYTES * 8)
    src_bit = {"DIST_NORM": i, "DIST_US": i // 2, "DIST_DS": 2 * i}[dist]
    want = (raw[src_bit // 8] >> (src_bit % 8)) & 1
    assert np.array_equal(got, want.astype(bool)), f"{dist}: mask bits differ from the bytes read at {src_bit[:4]}..."
    writes = [(f, i) for k, f, i, _ in res.trace.register_records if k == "write"]
    assert writes == [("mask", int(case.env["mask"]))], f"register writes {writes}"
    assert not res.trace.stored(case.tensor("srcAddr").buffer).any(), "LoadAlign stored to UB"
    if post_update(case.values()):
        assert res.trace.outputs["srcAddr"]["addr"] == case.tensor("srcAddr").addr + int(case.env["offset"])
    else:
        assert "srcAddr" not in res.trace.outputs, "srcAddr moved without POST_MODE_UPDATE"


def _plain(case: Case, dist: str, data: np.ndarray, mask: int):
    """A plain-form load of ``data`` (bytes, at UB byte 0) with ``dist`` into MaskReg ``mask``, on the case's
    product and T; the MaskReg's bits."""
    ctx = case.ctx
    env = case.model.default_env()
    env.update({"dist": DIST.code(dist), "mask": mask, "srcAddr.addr": 0,
                "srcAddr.size": data.size // ctx.sizeof("srcAddr"), "srcAddr.position": case.env["srcAddr.position"]})
    c = Case(case.model, ctx, env, origin="round trip")
    c.set_data("srcAddr", np.asarray(data, dtype=np.uint8).view(ctx.tensor_dtype("srcAddr").numpy))
    res = run_case(c, strict=True)
    return mask_bits(res.memory.registers.get("mask", mask))


def us_then_ds_round_trip(case: Case, seed: int = 0) -> None:
    """x = the 32 mask bytes the case loads; US of each half of x gives the doubled bits of that half, and DS of
    the 64 doubled bytes gives x back (and NORM of x gives x's own bits)."""
    _, bits, _ = _loaded(case, seed)
    x = mask_bytes(bits)
    pad = max(64, case.ctx.sizeof("srcAddr"))
    lo = _plain(case, "DIST_US", np.resize(np.concatenate([x[:16], np.zeros(pad, np.uint8)]), pad), 1)
    hi = _plain(case, "DIST_US", np.resize(np.concatenate([x[16:], np.zeros(pad, np.uint8)]), pad), 2)
    assert np.array_equal(lo, np.repeat(bits[:128], 2)) and np.array_equal(hi, np.repeat(bits[128:], 2)), "US"
    doubled = mask_bytes(np.concatenate([lo, hi]))  # 64 bytes
    back = _plain(case, "DIST_DS", np.resize(doubled, max(64, pad)), 3)
    assert np.array_equal(back, bits), "DS of the doubled bits is not the original"
    assert np.array_equal(_plain(case, "DIST_NORM", np.resize(x, max(32, pad)), 4), bits), "NORM of x is not x"


def alignment_verdict_matches_core(case: Case, seed: int = 0) -> None:
    """Moving srcAddr by a few bytes (and an AddrReg index by one), the rule reg_load_align.srcAddr.dist_align
    refuses the variant exactly when the core faults with "misaligned"."""
    rng = np.random.default_rng(seed)
    src = case.tensor("srcAddr")
    cap = case.ctx.product.buffer_size(src.buffer)
    variants = [case]
    for delta in rng.integers(-40, 41, size=3):
        addr = src.addr + int(delta)
        if 0 <= addr and addr + src.nbytes <= cap:
            variants.append(case.with_fields(**{"srcAddr.addr": addr}))
    if case.env["addrReg.present"] and int(case.env["addrReg.levels"]) >= 1:
        variants.append(case.with_fields(**{"addrReg.index0": int(case.env["addrReg.index0"]) + 1}))
    for c in variants:
        refused = "reg_load_align.srcAddr.dist_align" in {x.id for x in check_case(c).violations}
        res = _run(c, seed, strict=False)
        misaligned = any(f.kind == "misaligned" for f in res.faults)
        assert refused == misaligned, (f"srcAddr at {c.env['srcAddr.addr']}: rule refuses={refused}, "
                                       f"core misaligned={misaligned}")


LoadAlign.invariants = (mask_is_dist_of_bytes_read, us_then_ds_round_trip, alignment_verdict_matches_core)

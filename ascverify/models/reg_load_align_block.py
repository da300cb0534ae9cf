"""LoadAlign with DataCopyMode::DATA_BLOCK_COPY: the non-contiguous aligned load into a RegTensor (the vendor's page
"Non-contiguous aligned load (LoadAlign)", asc-devkit docs, Reg data movement), atlas-350 only.

``LoadAlign<T, DATA_BLOCK_COPY>(dstReg, srcAddr, dataBlockStride, mask)`` moves 8 DataBlocks (32 bytes each) into
the 256-byte RegTensor ``dstReg``: block k from ``srcAddr + k * dataBlockStride * 32`` bytes into bytes
``[32k, 32k + 32)`` of the register. MaskReg ``mask`` picks the blocks: a block with any active element is moved
whole; a block whose elements are all inactive is not read (no fault even past UB) and its register bytes are 0.
Element i of T is active when bit ``i * sizeof(T)`` of the MaskReg is set (the MaskReg page: b16 and b32 elements
own 2 and 4 bits, the lowest of which counts). The PostUpdate form adds ``repeatStride`` (DataBlocks):
POST_MODE_UPDATE loads at srcAddr and then moves it by ``repeatStride * 32`` bytes, POST_MODE_NORMAL loads at
``srcAddr + repeatStride * 32`` bytes and does not move it. A case reaches this model as ``"api": "LoadAlign"``
with ``dataCopyMode`` (or as ``LoadAlignDataBlock``).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..cases.case import Case
from ..core.run import run_case
from ..spec.dtypes import DTYPES
from ..spec.logic import And, Div, If, Max, Mod
from ..spec.model import ApiModel, SpecNote
from ..spec.params import UINT32, Arg, EnumType, IntType
from ..spec.registers import GEOMETRIES, mask_bits
from ..spec.registry import register
from ..spec.rules import WARNING, Context, Values, rule, tensor_min_size
from .reg_load_align import POST, POST_NORMAL, POST_UPDATE, random_bytes, report_moved_src, src_addr_decl
from .reg_load_align_vreg import VREG_INDEX

PAGE = "Non-contiguous aligned LoadAlign into a RegTensor (asc-devkit docs)"
NOTES = "HARDWARE_NOTES.md Reg API"
MASK_PAGE = "MaskReg (asc-devkit docs), Description (b16 / b32 elements: the lowest of their 2 / 4 bits counts)"
PRODUCT = "atlas-350"
VL = GEOMETRIES[PRODUCT].vl  # 256 bytes
BLOCK = 32
BLOCKS = VL // BLOCK  # 8 DataBlocks per load
MASK_INDEX = IntType("MaskReg index", 0, GEOMETRIES[PRODUCT].spec("mask").count - 1)
MODE = EnumType("DataCopyMode", ("DATA_BLOCK_COPY",))
#: Element types: every type of 8, 16 or 32 bits stands for b8..b32 (Data types: b8, b16, b32).
TYPES = tuple(sorted((t.name for t in DTYPES if t.bits in (8, 16, 32)), key=lambda n: n not in ("b8", "b16", "b32")))


def _cite(*parts: str) -> str:
    return "; ".join(dict.fromkeys((*parts, NOTES)))


def _t(what: str) -> str:
    return f"{PAGE}, Table 2, {what}"


def post_form(v: Values) -> Any:
    return And(v["postMode.present"], v["repeatStride.present"])


def offset_bytes(v: Values) -> Any:
    """Bytes from srcAddr to block 0: repeatStride DataBlocks with POST_MODE_NORMAL, else 0 (POST_MODE_UPDATE moves
    srcAddr after the load)."""
    return If(And(post_form(v), v.postMode == POST_NORMAL), v.repeatStride * BLOCK, 0)


def read_elems(v: Values, ctx: Context) -> Any:
    """Elements of srcAddr from its start to the end of block 7 (every block counted: the mask is a register)."""
    last = offset_bytes(v) + (BLOCKS - 1) * v.dataBlockStride * BLOCK + BLOCK
    return Div(Max(last, 0), ctx.sizeof())


def block_offsets(case: Case) -> np.ndarray:
    """Bytes from srcAddr's start to each of the 8 DataBlocks (`offset_bytes`, then dataBlockStride blocks apart)."""
    step = int(case.env["dataBlockStride"]) * BLOCK
    return int(offset_bytes(case.values())) + np.arange(BLOCKS, dtype=np.int64) * step


def active_blocks(mask: np.ndarray, size: int) -> np.ndarray:
    """Per DataBlock of the register (8), whether any of its elements of ``size`` bytes is active in the MaskReg's
    bytes ``mask`` (element i: bit i * size)."""
    bits = mask_bits(mask)[::size]  # one bit per element, its lowest
    return bits.reshape(BLOCKS, BLOCK // size).any(axis=1)


@register
class LoadAlignDataBlock(ApiModel):
    name = "LoadAlignDataBlock"
    aliases = ()
    prefix = "reg_load_align_block"
    output_comparison = "moves"
    seed = PAGE
    summary = ("LoadAlign with DataCopyMode::DATA_BLOCK_COPY: 8 DataBlocks of UB, dataBlockStride DataBlocks apart, "
               "into a RegTensor; a MaskReg picks the blocks (a block without an active element is 0, not read). A "
               "LoadAlign case with the argument dataCopyMode is read as this API.")
    support = {PRODUCT: TYPES}
    support_source = _cite(f"{PAGE}, Product support (Ascend 950PR/950DT only); Data types (b8, b16, b32)")
    default_dtype = "b16"
    #: `ascverify lint`: the 32-byte start implies srcAddr's own T alignment (srcAddr.align)
    lint_expected = {"redundant:reg_load_align_block.srcAddr.align": "reg_load_align_block.repeat-stride"}
    pointer_params = ("srcAddr",)  # __ubuf__ T*& srcAddr: a PostUpdate moves it
    forms = ((), ("postMode", "repeatStride"))
    forms_source = _cite(f"{PAGE}, Prototype (plain; PostUpdate with repeatStride)")
    args = (
        Arg("dstReg", VREG_INDEX, _cite(_t("dstReg"), "HARDWARE_NOTES.md Products (32 RegTensors on atlas-350)"),
            "index of the destination RegTensor, 0..31 (default 0)", default=0),
        Arg("dataCopyMode", MODE, _cite(f"{PAGE}, Table 3 (DataCopyMode)"),
            "DataCopyMode::DATA_BLOCK_COPY (the only one; it names this overload)", default="DATA_BLOCK_COPY"),
        Arg("dataBlockStride", UINT32, _cite(_t("dataBlockStride")),
            "DataBlocks from one block's start to the next's (uint32_t; 0 loads block 0 eight times)", default=1),
        Arg("mask", MASK_INDEX, _cite(_t("mask"), MASK_PAGE),
            "index of the MaskReg that picks the blocks, 0..7 (default 0); its bits come from the case's registers",
            default=0),
        Arg("postMode", POST, _cite(_t("repeatStride")), "PostLiteral of the PostUpdate form (with repeatStride)",
            default="POST_MODE_UPDATE", optional=True),
        Arg("repeatStride", UINT32, _cite(_t("repeatStride")),
            "the PostUpdate form's step in DataBlocks: srcAddr += repeatStride * 32 bytes after the load "
            "(POST_MODE_UPDATE), or the load starts there (POST_MODE_NORMAL)", default=0, optional=True),
    )
    tensors = (src_addr_decl(_cite(_t("srcAddr"))),)
    notes = (
        SpecNote("reg_load_align_block.blocks", "Which blocks are read, and the mask",
                 "Block k (k = 0..7) comes from srcAddr + k x dataBlockStride x 32 bytes (plus repeatStride x 32 with "
                 "POST_MODE_NORMAL) into register bytes [32k, 32k + 32). A block with an active element is moved "
                 "whole; one whose elements are all inactive is not read and its bytes are 0. Element i is active when "
                 "MaskReg bit i x sizeof(T) is set. A srcAddr shorter than the 8 blocks is therefore legal when the "
                 "mask leaves the blocks past it inactive: reg_load_align_block.srcAddr.read counts all 8 blocks (the "
                 "mask is a register, unknown to the rules) and is a warning, not an error; `run` reads only the "
                 "active ones and faults on an active block past the tensor (the exact check, with the case's "
                 "registers); a MaskReg the case does not give is drawn with the blocks past srcAddr inactive.",
                 "Table 2: 'one instruction moves 8 DataBlocks; dataBlockStride is the distance between the heads of "
                 "neighbouring DataBlocks, in DataBlocks (32 B)'; mask: 'when any element of a DataBlock is active "
                 "the whole DataBlock is moved; when all are inactive it is not moved, its elements are set to 0, "
                 "and no error is raised even past UB'. The MaskReg page: b16 / b32 elements own 2 / 4 bits, the "
                 "lowest counts.",
                 (_t("dataBlockStride"), _t("mask"), MASK_PAGE), ("reg_load_align_block.srcAddr.read",)),
        SpecNote("reg_load_align_block.repeat-stride", "repeatStride",
                 "In DataBlocks: POST_MODE_UPDATE loads at srcAddr, then srcAddr += repeatStride x 32 bytes (a "
                 "program's next call on the tensor starts there); POST_MODE_NORMAL loads at srcAddr + repeatStride "
                 "x 32 bytes. Its alignment restriction is always met (a whole number of 32-byte blocks). The load's "
                 "start is 32-byte aligned (srcAddr.align32), which makes srcAddr's own T alignment (srcAddr.align) "
                 "follow.",
                 "Table 2 gives the step in DataBlocks and the address as srcAddr + repeatStride x 32B / sizeof(T) "
                 "elements of T, i.e. repeatStride x 32 bytes. The page states the alignment as 'repeatStride x "
                 "sizeof(T) aligned to 32 bytes' and as 'repeatStride x 32B / sizeof(T) aligned to 32 bytes' "
                 "(Restrictions); neither can be meant in elements without contradicting the vendor's example "
                 "(repeatStride = i x 8 for any T), and in bytes the step is always 32-byte aligned.",
                 (_t("repeatStride"), f"{PAGE}, Restrictions", f"{PAGE}, Example"),
                 ("reg_load_align_block.srcAddr.align32", "reg_load_align_block.srcAddr.align")),
        SpecNote("reg_load_align_block.overload", "Which LoadAlign a case calls",
                 "A LoadAlign case with dataCopyMode is this API (LoadAlignDataBlock), whatever else it gives; with "
                 "dstReg and no dataCopyMode the contiguous load into a RegTensor (LoadAlignRegTensor); otherwise the "
                 "MaskReg load.",
                 "The vendor's LoadAlign pages give nine prototypes of one name; a case file needs one flat argument "
                 "object, and dataCopyMode is the template argument only this overload has.",
                 (f"{PAGE}, Prototype",), ("reg_load_align_block.form",)),
    )

    def api_rules(self):
        p = self.prefix
        yield rule(f"{p}.srcAddr.align32", ("srcAddr", "postMode", "repeatStride"),
                   lambda v, ctx: Mod(v.srcAddr.addr + offset_bytes(v), BLOCK) == 0,
                   "the load starts at UB byte {start}: the UB address must be 32-byte aligned",
                   _cite(_t("srcAddr"), f"{PAGE}, Restrictions (the UB address 32-byte aligned)"),
                   facts=lambda v, ctx: {"start": v.srcAddr.addr + offset_bytes(v)},
                   notes=("reg_load_align_block.repeat-stride",), help="a 32-byte aligned start")
        yield tensor_min_size(f"{p}.srcAddr.read", "srcAddr", read_elems,
                              _cite(_t("dataBlockStride"), _t("mask")),
                              params=("dataBlockStride", "postMode", "repeatStride"),
                              message="srcAddr.size={srcAddr.size} elements, but its 8 DataBlocks ({dataBlockStride} "
                                      "apart) span {need}: the blocks past it must be inactive in the MaskReg (an "
                                      "inactive block is not read; `run` checks the register's bits)",
                              severity=WARNING, notes=("reg_load_align_block.blocks",))
        yield rule(f"{p}.dataBlockStride.zero", ("dataBlockStride",), lambda v, ctx: v.dataBlockStride != 0,
                   "dataBlockStride=0 loads DataBlock 0 eight times (the page allows it)", _cite(_t("dataBlockStride")),
                   severity=WARNING, notes=("reg_load_align_block.blocks",), help="a dataBlockStride above 0")

    # -- semantics --------------------------------------------------------------------------------------------

    def input_registers(self, case: Case):
        return (("mask", int(case.env["mask"])),)

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """No memory is written (the result is a register)."""
        return {}

    def pointer_moves(self, case: Case) -> Mapping[str, int]:
        """POST_MODE_UPDATE: srcAddr += repeatStride x 32 bytes (Table 2), where a program's next call starts."""
        env = case.env
        if env["postMode.present"] and env["repeatStride.present"] and int(env["postMode"]) == POST_UPDATE:
            return {"srcAddr": int(env["repeatStride"]) * BLOCK}
        return {}

    def execute(self, case: Case, trace) -> None:
        env, ctx = case.env, case.ctx
        src = case.tensor("srcAddr")
        mask = trace.read_register("mask", int(env["mask"]), what="mask")
        active = active_blocks(mask, ctx.sizeof())
        starts = src.addr + block_offsets(case)
        out = np.zeros((BLOCKS, BLOCK), dtype=np.uint8)
        if active.any():
            raw = trace.read(src.buffer, starts[active], BLOCK, np.flatnonzero(active), align=BLOCK,
                             what="srcAddr (DataBlock)", tensor="srcAddr")
            out[active] = raw.reshape(-1, BLOCK)
        trace.write_register("vreg", int(env["dstReg"]), out.reshape(-1), what="dstReg")
        report_moved_src(case, trace, self.pointer_moves(case).get("srcAddr"), repeatStride=int(env["repeatStride"]))

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        """Random bytes (every bit pattern is a value), viewed as T."""
        return random_bytes(case, tensor, rng)

    def legal_register(self, case: Case, file: str, index: int, raw: np.ndarray) -> np.ndarray:
        """A drawn MaskReg leaves inactive every DataBlock that does not lie whole inside srcAddr (block k owns the
        mask's bytes 4k..4k+3, whatever T): a case srcAddr.read warns of reads only the blocks it holds."""
        src = case.tensor("srcAddr")
        if file != "mask" or not src.present:
            return raw
        out = raw.copy()
        for k in np.flatnonzero(block_offsets(case) + BLOCK > src.end - src.addr):
            out[4 * k:4 * k + 4] = 0
        return out


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def blocks_follow_the_mask(case: Case, seed: int = 0) -> None:
    """Register block k is the 32 bytes at srcAddr (+ repeatStride x 32 with POST_MODE_NORMAL) + k x dataBlockStride
    x 32 when an element of it is active (element i: MaskReg bit i x sizeof(T)), else 32 zero bytes; only dstReg is
    written, and srcAddr moves by repeatStride x 32 bytes exactly with POST_MODE_UPDATE. Worked out apart from
    `execute`: per block, a loop over its elements."""
    res = run_case(Case(case.model, case.ctx, dict(case.env), case.data_sources, case.origin, case.base_dir,
                        case.registers), seed=seed, strict=True)
    env, sz = case.env, case.ctx.sizeof()
    mask = res.memory.registers.get("mask", int(env["mask"]))
    got = res.memory.registers.get("vreg", int(env["dstReg"]))
    src = res.inputs["srcAddr"].view(np.uint8)
    normal = env["postMode.present"] and env["repeatStride.present"] and int(env["postMode"]) == POST_NORMAL
    base = int(env["repeatStride"]) * BLOCK if normal else 0
    for k in range(BLOCKS):
        on = any((mask[(e * sz) // 8] >> ((e * sz) % 8)) & 1 for e in range(k * BLOCK // sz, (k + 1) * BLOCK // sz))
        at = base + k * int(env["dataBlockStride"]) * BLOCK
        want = src[at:at + BLOCK] if on else np.zeros(BLOCK, np.uint8)
        assert np.array_equal(got[k * BLOCK:(k + 1) * BLOCK], want), f"block {k} (active: {on})"
    writes = [(f, i) for kind, f, i, _ in res.trace.register_records if kind == "write"]
    assert writes == [("vreg", int(env["dstReg"]))], f"register writes {writes}"
    update = env["postMode.present"] and env["repeatStride.present"] and int(env["postMode"]) == POST_UPDATE
    if update:
        assert res.trace.outputs["srcAddr"]["addr"] == case.tensor("srcAddr").addr + int(env["repeatStride"]) * BLOCK
    else:
        assert "srcAddr" not in res.trace.outputs, "srcAddr moved without POST_MODE_UPDATE"


LoadAlignDataBlock.invariants = (blocks_follow_the_mask,)

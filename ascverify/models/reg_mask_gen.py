"""MaskGenWithRegTensor (page 001_fa274d527d3e292b.txt Table 4 + HARDWARE_NOTES.md Reg API), atlas-350 only.

``MaskGenWithRegTensor<T, offset>(dst, srcReg)`` reads one chunk of the 256-byte RegTensor ``srcReg`` and widens
it into the 256 bits of MaskReg ``dst``: for a 16-bit T the 16-byte chunk ``offset`` (offset 0..15), each of its
128 bits becoming 2 mask bits; for a 32-bit T the 8-byte chunk ``offset`` (0..31), each bit becoming 4 mask bits.
No memory is touched: the source is a register of the core's register file (`ascverify.core.registers`), given
by the case's ``registers`` object or, when the case gives none, filled from the run's seed.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..cases.case import Case
from ..core.run import run_case
from ..spec.dtypes import DTYPES
from ..spec.model import ApiModel, SpecNote
from ..spec.params import INT16, Arg, IntType
from ..spec.registers import GEOMETRIES, mask_bits, mask_bytes
from ..spec.registry import register
from ..spec.rules import Context, field_range

SEED = "001_fa274d527d3e292b.txt"
NOTES = "HARDWARE_NOTES.md Reg API"
PRODUCT = "atlas-350"
VL = GEOMETRIES[PRODUCT].vl  # bytes
VL_BITS = 8 * VL
VREGS = GEOMETRIES[PRODUCT].spec("vreg").count  # 32
MASK_REGS = GEOMETRIES[PRODUCT].spec("mask").count  # 8
MASK_INDEX = IntType("MaskReg index", 0, MASK_REGS - 1)
VREG_INDEX = IntType("RegTensor index", 0, VREGS - 1)
T4 = f"{SEED} Table 4"

#: Element types: every 16- or 32-bit type stands for b16 / b32.
TYPES = tuple(sorted((t.name for t in DTYPES if t.bits in (16, 32)), key=lambda n: n not in ("b8", "b16", "b32", "b64")))


def chunk_bytes(ctx: Context) -> int:
    """Bytes of srcReg one offset selects: VL/16 = 16 for a 16-bit T, VL/32 = 8 for a 32-bit T."""
    return VL // ctx.dtype.bits


def max_offset(ctx: Context) -> int:
    """The largest offset: 15 (16-bit T), 31 (32-bit T)."""
    return VL // chunk_bytes(ctx) - 1


def repeat(ctx: Context) -> int:
    """Mask bits per source bit: 2 (16-bit T), 4 (32-bit T)."""
    return ctx.dtype.bits // 8


@register
class MaskGenWithRegTensor(ApiModel):
    name = "MaskGenWithRegTensor"
    aliases = ("Reg::MaskGenWithRegTensor", "AscendC::Reg::MaskGenWithRegTensor")
    prefix = "reg_mask_gen"
    seed = SEED
    summary = ("A 16-byte (16-bit T) or 8-byte (32-bit T) chunk of a RegTensor, selected by offset, widened into the "
               "256 bits of a MaskReg (each bit repeated 2 or 4 times).")
    support = {PRODUCT: TYPES}
    support_source = f"{SEED} Applicability; {T4}, T (b16 and b32: any type of that width)"
    default_dtype = "b16"
    args = (
        Arg("dst", MASK_INDEX, f"{T4}, dst; HARDWARE_NOTES.md Products (8 MaskRegs on atlas-350)",
            "index of the destination MaskReg, 0..7 (default 0)", default=0),
        Arg("srcReg", VREG_INDEX, f"{T4}, srcReg; HARDWARE_NOTES.md Products (32 RegTensors on atlas-350)",
            "index of the source RegTensor, 0..31 (default 0); its bytes come from the case's registers", default=0),
        Arg("offset", INT16, f"{T4}, offset (template int16_t)",
            "which chunk of srcReg: 0..15 for a 16-bit T (16 bytes each), 0..31 for a 32-bit T (8 bytes each)"),
    )
    tensors = ()
    notes = (
        SpecNote("reg_mask_gen.units", "Bits and bytes in the page's formula",
                 "Mask bit i is srcReg bit offset*VL_bits/16 + i//2 for a 16-bit T and offset*VL_bits/32 + i//4 for a "
                 "32-bit T, VL_bits = 2048: the offset term counts bits of a VL given in bits, i.e. offset*16 bytes "
                 "(16-bit T) or offset*8 bytes (32-bit T), the chunks of HARDWARE_NOTES. Bit b of srcReg is bit b % 8 "
                 "of byte b // 8 (little-endian bit order).",
                 "The page writes dst[i] = srcReg[(offset x VL/16) + (i/2)] 'by bit' with VL = 256: read literally "
                 "(VL in bytes) the windows of consecutive offsets would overlap by 112 of their 128 bits and offsets "
                 "0..15 would cover 368 of the 2048 bits, contradicting the same row ('offset x 16', offset 0..15 "
                 "because VL is 256 bytes) and the 16-byte / 8-byte chunks of HARDWARE_NOTES. With VL in bits every "
                 "statement agrees.",
                 (f"{T4}, offset", NOTES), ("reg_mask_gen.offset.range",)),
        SpecNote("reg_mask_gen.source", "Where srcReg's contents come from",
                 "From the case's registers object, as 256 bytes (\"registers\": {\"vreg\": {\"3\": [...]}}) or as "
                 "data of a type (\"3\": {\"dtype\": \"half\", \"data\": [128 values] or a .npy/.bin file}); when it "
                 "does not give srcReg, `run` fills it from --seed (like a tensor without data). A register never "
                 "written and not the call's input reads as an uninitialized fault. The case has no tensors "
                 "(\"tensors\" may be left out).",
                 "The call's operands are registers, not UB tensors; HARDWARE_NOTES: 32 RegTensors of VL bytes on "
                 "atlas-350.",
                 (f"{T4}, srcReg", "HARDWARE_NOTES.md Products"), ("reg_mask_gen.srcReg.type",)),
        SpecNote("reg_mask_gen.type", "T",
                 "T is the width of srcReg's elements: b16, b32 or any 16- or 32-bit type (half, float, int32...). "
                 "The vendor code requires T to be DefaultType or srcReg's element type U; the case's dtype stands "
                 "for both.",
                 "Table 4: T b16 and b32, U the RegTensor type inferred by the compiler.",
                 (f"{T4}, T", f"{T4}, U"), ("reg_mask_gen.dtype.support",)),
        SpecNote("reg_mask_gen.registers", "Register indices",
                 "dst is a MaskReg index 0..7 and srcReg a RegTensor index 0..31 (both default 0); the call writes "
                 "all 256 bits of dst and nothing else.",
                 "The page names the registers by variable; atlas-350 has 8 MaskRegs and 32 RegTensors "
                 "(HARDWARE_NOTES).", ("HARDWARE_NOTES.md Products", f"{T4}, dst"),
                 ("reg_mask_gen.dst.type", "reg_mask_gen.srcReg.type")),
    )

    def api_rules(self):
        yield field_range(f"{self.prefix}.offset.range", "offset", 0, max_offset,
                          f"{T4}, offset (0..15 for b16, 0..31 for b32); {NOTES}",
                          message="offset={value} is outside [{lo}, {hi}] for T={dtype}", notes=("reg_mask_gen.units",))

    # -- semantics --------------------------------------------------------------------------------------------

    def input_registers(self, case: Case):
        return (("vreg", int(case.env["srcReg"])),)

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """No memory is written (the result is a register)."""
        return {}

    def execute(self, case: Case, trace) -> None:
        env, ctx = case.env, case.ctx
        offset, chunk = int(env["offset"]), chunk_bytes(ctx)
        if not 0 <= offset <= max_offset(ctx):
            raise ValueError(f"offset={offset} selects no {chunk}-byte chunk of the {VL}-byte RegTensor")
        src = trace.read_register("vreg", int(env["srcReg"]), what="srcReg")
        bits = np.repeat(mask_bits(src[offset * chunk:(offset + 1) * chunk]), repeat(ctx))
        trace.write_register("mask", int(env["dst"]), mask_bytes(bits), what="dst")


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def _run(case: Case, seed: int, **fields: Any):
    env = dict(case.env)
    env.update(fields)
    c = Case(case.model, case.ctx, env, case.data_sources, case.origin, case.base_dir, case.registers)
    return run_case(c, seed=seed, strict=True)


def _bits(res, file: str, index: int) -> np.ndarray:
    return mask_bits(res.memory.registers.get(file, index))


def mask_follows_page_formula(case: Case, seed: int = 0) -> None:
    """dst bit i == srcReg bit (offset*VL_bits/16 + i//2) for 16-bit T, (offset*VL_bits/32 + i//4) for 32-bit T;
    srcReg and every other register are unchanged."""
    res = _run(case, seed)
    src, dst = int(case.env["srcReg"]), int(case.env["dst"])
    before = res.memory.registers.get("vreg", src)  # the call does not write vregs (checked below)
    b = case.ctx.dtype.bits
    i = np.arange(VL_BITS // 8)
    src_bit = int(case.env["offset"]) * VL_BITS // b + i // (b // 8)
    want = ((before[src_bit // 8] >> (src_bit % 8)) & 1).astype(bool)
    assert np.array_equal(_bits(res, "mask", dst), want), "dst differs from the page's bit formula"
    assert res.trace.register_records == [("read", "vreg", src, "srcReg"), ("write", "mask", dst, "dst")], \
        res.trace.register_records


def offsets_cover_register(case: Case, seed: int = 0) -> None:
    """Over offsets 0..max the chunks tile srcReg: every srcReg bit is read by exactly one offset, and keeping
    every 2nd (16-bit) / 4th (32-bit) bit of the masks, in offset order, gives srcReg back."""
    ctx = case.ctx
    k = repeat(ctx)
    first = _run(case, seed)
    src = int(case.env["srcReg"])
    reg = first.memory.registers.get("vreg", src)
    regs = dict(case.registers)
    regs["vreg"] = {**regs.get("vreg", {}), src: reg}  # the same srcReg for every offset
    c = Case(case.model, ctx, dict(case.env), origin=case.origin, registers=regs)
    parts = [_bits(_run(c, seed, offset=o), "mask", int(case.env["dst"]))[::k] for o in range(max_offset(ctx) + 1)]
    assert np.array_equal(mask_bytes(np.concatenate(parts)), reg), "offsets 0..max do not cover srcReg"


MaskGenWithRegTensor.invariants = (mask_follows_page_formula, offsets_cover_register)

"""The Reg API register files of the products: how many registers of which width (HARDWARE_NOTES.md Products).

atlas-350 (VL = 256 bytes) has 32 RegTensors of VL bytes (file ``vreg``), 8 MaskRegs of VL/8 = 32 bytes,
i.e. 256 bits (file ``mask``), and 8 AddrRegs (file ``addr``). The other products have no such register file.

Bit order (spec note of the Reg models): bit ``i`` of a MaskReg is bit ``i % 8`` (least significant
first) of byte ``i // 8``, little-endian bit order, as numpy's ``unpackbits(..., bitorder="little")``.

An AddrReg is held as one unsigned 32-bit offset (4 bytes, little-endian; an assumption: the width is
not documented).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

__all__ = ["RegisterFileSpec", "Geometry", "GEOMETRIES", "FILES", "FALLBACK_GEOMETRY", "mask_bits", "mask_bytes"]


@dataclass(frozen=True)
class RegisterFileSpec:
    """One kind of register: its file name, the Ascend C type, how many and how wide."""

    name: str
    title: str
    count: int
    nbytes: int
    #: how the JSON shape gives one register: "bytes" (a list of byte values) or "uint32" (an integer)
    json: str

    def check_index(self, index: Any) -> bool:
        return isinstance(index, (int, np.integer)) and not isinstance(index, bool) and 0 <= int(index) < self.count


@dataclass(frozen=True)
class Geometry:
    """A product's register file."""

    vl: int
    files: tuple[RegisterFileSpec, ...]

    def spec(self, file: str) -> RegisterFileSpec:
        for f in self.files:
            if f.name == file:
                return f
        raise ValueError(f"unknown register file {file!r} (known: {', '.join(x.name for x in self.files)})")


def _geometry(vl: int) -> Geometry:
    return Geometry(vl, (
        RegisterFileSpec("vreg", "RegTensor", 32, vl, "bytes"),
        RegisterFileSpec("mask", "MaskReg", 8, vl // 8, "bytes"),
        RegisterFileSpec("addr", "AddrReg", 8, 4, "uint32"),
    ))


#: Product id -> its register file (HARDWARE_NOTES.md Products: VL = 256 bytes on atlas-350, 32 vector
#: registers of VL, 8 MaskRegs of VL/8 = 32 bytes, 8 AddrRegs). Products absent have none.
GEOMETRIES: Mapping[str, Geometry] = {"atlas-350": _geometry(256)}
#: The register files, in the order of the JSON shape.
FILES: tuple[str, ...] = ("vreg", "mask", "addr")
#: The geometry used to size an access on a product without a register file (the access faults anyway).
FALLBACK_GEOMETRY = GEOMETRIES["atlas-350"]


def mask_bits(raw: Any) -> np.ndarray:
    """The bits of raw bytes in little-endian bit order (bit 0 of byte 0 first), as a bool array."""
    return np.unpackbits(np.asarray(raw, dtype=np.uint8).reshape(-1), bitorder="little").astype(bool)


def mask_bytes(bits: Any) -> np.ndarray:
    """Bytes from bits in little-endian bit order (the inverse of `mask_bits`); len(bits) a multiple of 8."""
    bits = np.asarray(bits, dtype=bool).reshape(-1)
    if bits.size % 8:
        raise ValueError(f"{bits.size} bits are not a whole number of bytes")
    return np.packbits(bits, bitorder="little")

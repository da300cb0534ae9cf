"""The Reg API register file of the vector core: RegTensors, MaskRegs and AddrRegs.

atlas-350 (VL = 256 bytes; HARDWARE_NOTES.md Products) has 32 RegTensors of VL bytes (file ``vreg``),
8 MaskRegs of VL/8 = 32 bytes, i.e. 256 bits (file ``mask``), and 8 AddrRegs (file ``addr``). The other
products have no such register file (their `Memory` has ``registers = None``).

Registers are part of the core's state like the buffers of `Memory`, which holds them as
``memory.registers``: every register byte has a shadow state, a byte never written reads as an
``uninitialized`` fault. Models read and write whole registers through `Trace.read_register` and
`Trace.write_register`, which check and record each access.

No modelled API reads an AddrReg yet (LoadAlign's AddrReg form gives its AddrReg inline).

The geometry of the register files is `ascverify.spec.registers`; their JSON shape (a case's ``registers``
object, ``registers.json``) is `ascverify.cases.registers`.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..cases.registers import registers_json
from ..spec.registers import FALLBACK_GEOMETRY, GEOMETRIES, Geometry, RegisterFileSpec
from .faults import Fault

__all__ = ["Registers", "access"]

#: Shadow state of a register byte (the values of `core.memory`).
UNINITIALIZED, INITIALIZED = 0, 1


class Registers:
    """The register file of one core: values and a per-byte shadow state per register."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.values: dict[str, np.ndarray] = {f.name: np.zeros((f.count, f.nbytes), np.uint8) for f in geometry.files}
        self.state: dict[str, np.ndarray] = {f.name: np.zeros((f.count, f.nbytes), np.uint8) for f in geometry.files}
        #: the registers loaded before the call (`core.run.fill_registers`): "vreg3" -> "given" / "generated"
        self.loaded: dict[str, str] = {}

    @classmethod
    def for_product(cls, product: Any) -> "Registers | None":
        """The register file of ``product`` (None where it has none)."""
        geometry = GEOMETRIES.get(product.id)
        return None if geometry is None else cls(geometry)

    def spec(self, file: str) -> RegisterFileSpec:
        """The file's spec; ValueError for an unknown file name (a model bug)."""
        return self.geometry.spec(file)

    def has(self, file: str, index: Any) -> bool:
        """The file exists and has a register ``index``."""
        try:
            return self.spec(file).check_index(index)
        except ValueError:
            return False

    def fill(self, file: str, index: int, data: Any) -> None:
        """Store a whole register's bytes (raw little-endian bytes of ``data``) and mark them initialized."""
        spec = self.spec(file)
        if not spec.check_index(index):
            raise IndexError(f"{spec.title} {index} does not exist (0..{spec.count - 1})")
        raw = np.ascontiguousarray(np.asarray(data)).reshape(-1).view(np.uint8)
        if raw.size != spec.nbytes:
            raise ValueError(f"{spec.title} {index} holds {spec.nbytes} bytes, not {raw.size}")
        self.values[file][index] = raw
        self.state[file][index] = INITIALIZED

    def forget(self, file: str, index: int) -> None:
        """Mark the register's bytes not written: what it holds was computed from unspecified bytes
        (`core.memory.Trace.poison_results`); a later read faults, its contents are not shown as numbers."""
        self.state[file][index] = UNINITIALIZED

    def get(self, file: str, index: int) -> np.ndarray:
        """A copy of the register's bytes."""
        return self.values[file][index].copy()

    def initialized(self, file: str, index: int) -> np.ndarray:
        """Per byte of the register: written (given by the case, generated or stored by a call)."""
        return self.state[file][index] == INITIALIZED

    def written(self) -> Iterator[tuple[str, int]]:
        """(file, index) of every register whose bytes are all initialized."""
        for f in self.geometry.files:
            for i in np.flatnonzero((self.state[f.name] == INITIALIZED).all(axis=1)):
                yield f.name, int(i)

    def snapshot(self) -> "Registers":
        """A deep copy."""
        copy = Registers.__new__(Registers)
        copy.geometry = self.geometry
        copy.values = {n: a.copy() for n, a in self.values.items()}
        copy.state = {n: a.copy() for n, a in self.state.items()}
        copy.loaded = dict(self.loaded)
        return copy

    def to_json(self) -> dict[str, dict[str, Any]]:
        """The initialized registers in the JSON shape of a case's ``registers`` object."""
        contents: dict[str, dict[int, np.ndarray]] = {}
        for f, i in self.written():
            contents.setdefault(f, {})[i] = self.values[f][i]
        return registers_json(contents, self.geometry)


def access(registers: Registers | None, file: str, index: Any, kind: str, what: str = "") -> tuple[int, list[Any]]:
    """The bytes of the accessed register and the placement faults of the access (no_buffer: the product has no
    register file; out_of_bounds: no such register). Used by `Trace.read_register` / `Trace.write_register`."""
    geometry = registers.geometry if registers is not None else FALLBACK_GEOMETRY
    spec = geometry.spec(file)
    name = f"{file}{index}"
    if registers is None:
        return spec.nbytes, [Fault("no_buffer", name, 0, spec.nbytes, None, what, access=kind,
                                   detail="the product has no Reg API register file")]
    if not spec.check_index(index):
        return spec.nbytes, [Fault("out_of_bounds", name, 0, spec.nbytes, None, what, access=kind,
                                   detail=f"there are {spec.count} {spec.title}s (0..{spec.count - 1})")]
    return spec.nbytes, []

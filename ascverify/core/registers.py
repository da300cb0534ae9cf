"""The Reg API register file of the vector core: RegTensors, MaskRegs and AddrRegs.

atlas-350 (VL = 256 bytes; HARDWARE_NOTES.md Products) has 32 RegTensors of VL bytes (file ``vreg``),
8 MaskRegs of VL/8 = 32 bytes, i.e. 256 bits (file ``mask``), and 8 AddrRegs (file ``addr``). The other
products have no such register file (their `Memory` has ``registers = None``).

Registers are part of the core's state like the buffers of `Memory`, which holds them as
``memory.registers``: every register byte has a shadow state, a byte never written reads as an
``uninitialized`` fault. Models read and write whole registers through `Trace.read_register` and
`Trace.write_register`, which check and record each access.

Bit order (spec note of the Reg models): bit ``i`` of a MaskReg is bit ``i % 8`` (least significant
first) of byte ``i // 8``, little-endian bit order, as numpy's ``unpackbits(..., bitorder="little")``.

An AddrReg is held as one unsigned 32-bit offset (4 bytes, little-endian; an assumption: the width is
not documented); no modelled API reads it yet (LoadAlign's AddrReg form gives its AddrReg inline).

JSON shape, the same in a case's top-level ``registers`` object and in the ``registers.json`` that
`ascverify run` writes after the call::

    {"vreg": {"3": [256 byte values 0..255]}, "mask": {"0": [32 byte values]}, "addr": {"1": 64}}

Keys are register indices in decimal; byte 0 comes first; an AddrReg is an integer in [0, 2^32-1]. A case may
also give a RegTensor or MaskReg as ``{"dtype": T, "data": [...] | "file.npy"}``, read like a tensor's data and
filling the register exactly (128 values for a RegTensor<half>); registers.json always holds bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import numpy as np

from ..errors import InputError, did_you_mean

__all__ = [
    "RegisterFileSpec", "Geometry", "GEOMETRIES", "FILES", "Registers",
    "mask_bits", "mask_bytes", "parse_registers", "registers_json",
]

#: Shadow state of a register byte (the values of `core.memory`).
UNINITIALIZED, INITIALIZED = 0, 1


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
_FALLBACK = GEOMETRIES["atlas-350"]


def mask_bits(raw: Any) -> np.ndarray:
    """The bits of raw bytes in little-endian bit order (bit 0 of byte 0 first), as a bool array."""
    return np.unpackbits(np.asarray(raw, dtype=np.uint8).reshape(-1), bitorder="little").astype(bool)


def mask_bytes(bits: Any) -> np.ndarray:
    """Bytes from bits in little-endian bit order (the inverse of `mask_bits`); len(bits) a multiple of 8."""
    bits = np.asarray(bits, dtype=bool).reshape(-1)
    if bits.size % 8:
        raise ValueError(f"{bits.size} bits are not a whole number of bytes")
    return np.packbits(bits, bitorder="little")


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
    from .memory import Fault

    geometry = registers.geometry if registers is not None else _FALLBACK
    spec = geometry.spec(file)
    name = f"{file}{index}"
    if registers is None:
        return spec.nbytes, [Fault("no_buffer", name, 0, spec.nbytes, None, what, access=kind,
                                   detail="the product has no Reg API register file")]
    if not spec.check_index(index):
        return spec.nbytes, [Fault("out_of_bounds", name, 0, spec.nbytes, None, what, access=kind,
                                   detail=f"there are {spec.count} {spec.title}s (0..{spec.count - 1})")]
    return spec.nbytes, []


# -- the JSON shape ----------------------------------------------------------------------------------------------

def _kind(x: Any) -> str:
    if isinstance(x, bool):
        return "a boolean"
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object",
            type(None): "null"}.get(type(x), type(x).__name__)


def parse_registers(obj: Any, product: Any, field: str = "registers", base_dir: Any = None) -> dict[str, dict[int, np.ndarray]]:
    """A case's ``registers`` object as {file: {index: bytes}}; InputError naming the field otherwise. ``base_dir``:
    the folder that data file paths are relative to."""
    if not isinstance(obj, dict):
        raise InputError(f"expected an object with {', '.join(FILES)}, got {_kind(obj)}", field=field)
    geometry = GEOMETRIES.get(product.id)
    if geometry is None:
        raise InputError(f"{product.id} has no Reg API register file (only {', '.join(GEOMETRIES)} has one)", field=field)
    out: dict[str, dict[int, np.ndarray]] = {}
    for file, regs in obj.items():
        if file not in FILES:
            shown = file if isinstance(file, str) and file.isprintable() and len(file) <= 40 else repr(file)[:40]
            raise InputError(f"unknown register file {shown!r}{did_you_mean(file, FILES)}; "
                             f"expected {', '.join(FILES)}", field=f"{field}.{shown}")
        spec = geometry.spec(file)
        where = f"{field}.{file}"
        if not isinstance(regs, dict):
            raise InputError(f"expected an object of {spec.title} index -> contents, got {_kind(regs)}", field=where)
        got: dict[int, np.ndarray] = {}
        for key, value in regs.items():
            shown = key if key.isprintable() and len(key) <= 20 else repr(key)[:20]
            if not (key.isdigit() and key.isascii() and str(int(key)) == key and int(key) < spec.count):
                raise InputError(f"{spec.title} index {shown!r} is not one of 0..{spec.count - 1}", field=f"{where}.{shown}")
            got[int(key)] = _register_value(value, spec, f"{where}.{key}", base_dir)
        out[file] = got
    return out


def _register_value(value: Any, spec: RegisterFileSpec, field: str, base_dir: Any = None) -> np.ndarray:
    if spec.json == "uint32":
        if type(value) is not int or not 0 <= value <= 2**32 - 1:
            raise InputError(f"expected an integer in [0, {2**32 - 1}] (the AddrReg's offset), got "
                             f"{_kind(value)} ({str(value)[:40]})", field=field)
        return np.frombuffer(np.uint32(value).astype("<u4").tobytes(), dtype=np.uint8).copy()
    if isinstance(value, dict):
        return _typed_value(value, spec, field, base_dir)
    if not isinstance(value, list):
        raise InputError(f"expected a list of {spec.nbytes} byte values or an object with dtype and data, got "
                         f"{_kind(value)}", field=field)
    if len(value) != spec.nbytes:
        raise InputError(f"a {spec.title} holds {spec.nbytes} bytes; {len(value)} values given", field=field)
    for i, x in enumerate(value):
        if type(x) is not int or not 0 <= x <= 255:
            raise InputError(f"expected a byte value 0..255, got {_kind(x)} ({str(x)[:40]})", field=f"{field}[{i}]")
    return np.array(value, dtype=np.uint8)


TYPED_KEYS = ("dtype", "data")


def _typed_value(value: Mapping[str, Any], spec: RegisterFileSpec, field: str, base_dir: Any) -> np.ndarray:
    """``{"dtype": T, "data": [...] | "file.npy"}``: the register's bytes as VL/sizeof(T) elements of T, like a
    tensor's data (numbers, or a .npy / raw little-endian .bin file); exactly the register's size."""
    from ..caseio import _dtype, load_tensor_data

    for k in value:
        if k not in TYPED_KEYS:
            raise InputError(f"unknown key {str(k)[:40]!r}{did_you_mean(k, TYPED_KEYS)}; expected dtype and data",
                             field=f"{field}.{str(k)[:40]}")
    for k in TYPED_KEYS:
        if k not in value:
            raise InputError("missing", field=f"{field}.{k}")
    dtype = _dtype(value["dtype"], f"{field}.dtype")
    if dtype.bits % 8 or spec.nbytes % dtype.size:
        raise InputError(f"{dtype.name} does not tile a {spec.nbytes}-byte {spec.title}", field=f"{field}.dtype")
    n = spec.nbytes // dtype.size
    data = value["data"]
    if not isinstance(data, (list, str)):
        raise InputError(f"expected a list of numbers or a file path, got {_kind(data)}", field=f"{field}.data")
    arr = load_tensor_data(data, dtype, base_dir, f"{field}.data", n)
    if arr.size != n:
        raise InputError(f"a {spec.title} holds {n} {dtype.name} values; {arr.size} given", field=f"{field}.data")
    return np.ascontiguousarray(arr.astype(arr.dtype.newbyteorder("<"))).view(np.uint8).copy()


def registers_json(contents: Mapping[str, Mapping[int, Any]], geometry: Geometry | None = None) -> dict[str, dict[str, Any]]:
    """{file: {index: bytes}} in the JSON shape (files and indices in order; AddrRegs as integers)."""
    geometry = geometry or _FALLBACK
    out: dict[str, dict[str, Any]] = {}
    for file in FILES:
        regs = contents.get(file)
        if not regs:
            continue
        spec = geometry.spec(file)
        entry: dict[str, Any] = {}
        for index in sorted(regs):
            raw = np.asarray(regs[index], dtype=np.uint8).reshape(-1)
            entry[str(index)] = int(raw.view("<u4")[0]) if spec.json == "uint32" else [int(b) for b in raw]
        out[file] = entry
    return out


def dumps(doc: Mapping[str, Mapping[str, Any]]) -> str:
    """The JSON shape as text, one register per line (a RegTensor's 256 bytes on one line)."""
    import json

    files = []
    for file, regs in doc.items():
        rows = [f"    {json.dumps(str(i))}: {json.dumps(value)}" for i, value in regs.items()]
        files.append(f"  {json.dumps(file)}: {{\n" + ",\n".join(rows) + "\n  }" if rows else f"  {json.dumps(file)}: {{}}")
    return "{\n" + ",\n".join(files) + "\n}\n" if files else "{}\n"

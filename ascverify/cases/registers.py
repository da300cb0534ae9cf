"""The JSON shape of register contents: a case's ``registers`` object, and the ``registers.json`` that
`ascverify run` writes after the call::

    {"vreg": {"3": [256 byte values 0..255]}, "mask": {"0": [32 byte values]}, "addr": {"1": 64}}

Keys are register indices in decimal; byte 0 comes first; an AddrReg is an integer in [0, 2^32-1]. A case may
also give a RegTensor or MaskReg as ``{"dtype": T, "data": [...] | "file.npy"}``, read like a tensor's data and
filling the register exactly (128 values for a RegTensor<half>); registers.json always holds bytes.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import numpy as np

from ..spec.errors import InputError, did_you_mean
from ..spec.registers import FALLBACK_GEOMETRY, FILES, GEOMETRIES, Geometry, RegisterFileSpec
from .fields import read_dtype
from .sources import load_tensor_data

__all__ = ["parse_registers", "registers_json", "dumps"]


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
        raise InputError(f"a {spec.title} holds {spec.nbytes} bytes; {len(value)} value{'' if len(value) == 1 else 's'} "
                         "given", field=field)
    for i, x in enumerate(value):
        if type(x) is not int or not 0 <= x <= 255:
            raise InputError(f"expected a byte value 0..255, got {_kind(x)} ({str(x)[:40]})", field=f"{field}[{i}]")
    return np.array(value, dtype=np.uint8)


TYPED_KEYS = ("dtype", "data")


def _typed_value(value: Mapping[str, Any], spec: RegisterFileSpec, field: str, base_dir: Any) -> np.ndarray:
    """``{"dtype": T, "data": [...] | "file.npy"}``: the register's bytes as VL/sizeof(T) elements of T, like a
    tensor's data (numbers, or a .npy / raw little-endian .bin file); exactly the register's size."""
    for k in value:
        if k not in TYPED_KEYS:
            raise InputError(f"unknown key {str(k)[:40]!r}{did_you_mean(k, TYPED_KEYS)}; expected dtype and data",
                             field=f"{field}.{str(k)[:40]}")
    for k in TYPED_KEYS:
        if k not in value:
            raise InputError("missing", field=f"{field}.{k}")
    dtype = read_dtype(value["dtype"], f"{field}.dtype")
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
    geometry = geometry or FALLBACK_GEOMETRY
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
    files = []
    for file, regs in doc.items():
        rows = [f"    {json.dumps(str(i))}: {json.dumps(value)}" for i, value in regs.items()]
        files.append(f"  {json.dumps(file)}: {{\n" + ",\n".join(rows) + "\n  }" if rows else f"  {json.dumps(file)}: {{}}")
    return "{\n" + ",\n".join(files) + "\n}\n" if files else "{}\n"

"""Element types of Ascend C tensors: canonical names, aliases, sizes and numpy dtypes."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np


@dataclass(frozen=True)
class DType:
    """One element type."""

    name: str
    bits: int
    #: the numpy scalar type's name: numpy's own ("float16"), or ml_dtypes' ("ml_dtypes.bfloat16")
    numpy_name: str
    kind: str  # "float", "int", "uint" or "bits"
    aliases: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """Bytes per element, at least 1 (a sub-byte type's bytes: `nbytes`)."""
        return max(1, self.bits // 8)

    def nbytes(self, count: int) -> int:
        """Bytes that ``count`` elements take (sub-byte types packed: int4b_t holds two elements per byte)."""
        return (count * self.bits + 7) // 8

    def int_bounds(self) -> tuple[int, int] | None:
        """The least and greatest value of an integer type (int4b_t: -8 and 7); None for a float type."""
        if self.kind == "float":
            return None
        if self.kind == "int":
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def to_bytes(self, values: Any) -> np.ndarray:
        """The bytes a buffer holds for ``values`` (flat uint8): little-endian elements; a sub-byte type packed, the
        first element of each byte in its low bits (the vendor's LoadDataWithTranspose page, int4b_t: 6 and 7 make
        0b0111_0110)."""
        arr = np.ascontiguousarray(values).reshape(-1)
        if self.bits >= 8:
            return arr.astype(arr.dtype.newbyteorder("<"), copy=False).view(np.uint8)
        per = 8 // self.bits
        fields = (arr.astype(np.int64) & ((1 << self.bits) - 1)).astype(np.uint8)
        fields = np.concatenate([fields, np.zeros(-fields.size % per, np.uint8)]).reshape(-1, per)
        return np.bitwise_or.reduce(fields << self._shifts(), axis=1).astype(np.uint8)

    def from_bytes(self, raw: np.ndarray, count: int) -> np.ndarray:
        """``count`` elements decoded from the bytes ``raw`` a buffer holds (the inverse of `to_bytes`)."""
        raw = np.ascontiguousarray(raw, dtype=np.uint8).reshape(-1)[:self.nbytes(count)]
        if self.bits >= 8:
            return raw.view(self.numpy.newbyteorder("<")).astype(self.numpy)
        fields = ((raw[:, None] >> self._shifts()) & ((1 << self.bits) - 1)).reshape(-1)[:count]
        if self.kind == "int":  # sign-extend
            half = 1 << (self.bits - 1)
            return ((fields.astype(np.int16) ^ half) - half).astype(self.numpy)
        return fields.astype(self.numpy)

    def _shifts(self) -> np.ndarray:
        return (np.arange(8 // self.bits) * self.bits).astype(np.uint8)

    def _library(self) -> Any:
        """The module that defines the numpy type: numpy, or ml_dtypes (bfloat16, fp8), imported on the first such
        type asked for: `check` of other types starts without it (about 9 ms)."""
        module = self.numpy_name.rpartition(".")[0]
        return importlib.import_module(module) if module else np

    @cached_property
    def numpy(self) -> np.dtype:
        """The numpy dtype of the elements."""
        return np.dtype(getattr(self._library(), self.numpy_name.rpartition(".")[2]))

    def finite_max(self) -> float:
        """The largest finite value of a float type: from its format (`FINITE_MAX`), else its library's ``finfo``."""
        got = FINITE_MAX.get(self.name)
        return got if got is not None else float(self._library().finfo(self.numpy).max)


#: The largest finite value of each float format, from the format itself ((2 - 2^-m) * 2^emax for m mantissa bits),
#: so that a rule that needs it (Load3D's padValue range) does not import ml_dtypes: `check` would pay its import
#: (5 ms with ml_dtypes 0.6, 0.68 s with 0.7 on the machine of bench/RESULTS.md). Tested against ``finfo``.
FINITE_MAX: dict[str, float] = {
    "half": (2 - 2**-10) * 2.0**15,           # binary16: 65504
    "float": (2 - 2**-23) * 2.0**127,         # binary32
    "bfloat16": (2 - 2**-7) * 2.0**127,       # binary32's exponent, 7 mantissa bits
    "fp8_e4m3fn": (2 - 2**-2) * 2.0**8,       # no infinities; S.1111.111 is NaN, so the largest is 1.110b x 2^8: 448
    "fp8_e5m2": (2 - 2**-2) * 2.0**15,        # binary16's exponent, 2 mantissa bits: 57344
}


def _d(name: str, bits: int, numpy_name: str, kind: str, *aliases: str) -> DType:
    return DType(name, bits, numpy_name, kind, aliases)


DTYPES: tuple[DType, ...] = (
    _d("half", 16, "float16", "float", "float16", "half_t", "fp16"),
    _d("float", 32, "float32", "float", "float32", "fp32"),
    _d("bfloat16", 16, "ml_dtypes.bfloat16", "float", "bfloat16_t", "bf16"),
    _d("fp8_e4m3fn", 8, "ml_dtypes.float8_e4m3fn", "float", "fp8_e4m3fn_t"),
    _d("fp8_e5m2", 8, "ml_dtypes.float8_e5m2", "float", "fp8_e5m2_t"),
    # hifloat8 has no numpy type: its bytes are carried as uint8.
    _d("hifloat8", 8, "uint8", "float", "hifloat8_t"),
    # int4b_t: two elements per byte in a buffer (`DType.to_bytes`); one int8 per element in numpy.
    _d("int4b", 4, "int8", "int", "int4b_t"),
    _d("int8", 8, "int8", "int", "int8_t"),
    _d("uint8", 8, "uint8", "uint", "uint8_t"),
    _d("int16", 16, "int16", "int", "int16_t"),
    _d("uint16", 16, "uint16", "uint", "uint16_t"),
    _d("int32", 32, "int32", "int", "int32_t"),
    _d("uint32", 32, "uint32", "uint", "uint32_t"),
    _d("int64", 64, "int64", "int", "int64_t"),
    _d("uint64", 64, "uint64", "uint", "uint64_t"),
    # bool is a b8 type that only moves data (the vendor's RegTensor page: "bool only supports data movement"):
    # its bytes are carried as uint8.
    _d("bool", 8, "uint8", "bits"),
    _d("b8", 8, "uint8", "bits"),
    _d("b16", 16, "uint16", "bits"),
    _d("b32", 32, "uint32", "bits"),
    _d("b64", 64, "uint64", "bits"),
)

_BY_NAME: dict[str, DType] = {}
for _t in DTYPES:
    _BY_NAME[_t.name] = _t
    for _a in _t.aliases:
        _BY_NAME[_a] = _t

DTYPE_NAMES: tuple[str, ...] = tuple(t.name for t in DTYPES)


def dtype_names() -> tuple[str, ...]:
    """Every accepted element type name (canonical names and aliases)."""
    return tuple(_BY_NAME)


def lookup_dtype(name: str) -> DType | None:
    """The element type for a name or alias (also as pyasc spells it, ``asc.float16``), or None."""
    if not isinstance(name, str):
        return None
    got = _BY_NAME.get(name)
    if got is None and name.startswith("asc."):
        got = _BY_NAME.get(name[len("asc."):])
    return got


def get_dtype(name: str) -> DType:
    """The element type for a name or alias; KeyError when unknown."""
    t = lookup_dtype(name)
    if t is None:
        raise KeyError(name)
    return t

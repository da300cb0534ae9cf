"""Comparing a target's outputs with the core's: bit-exact for integers, golden-style tolerances for floats.

Floats follow the ecosystem's golden checks (the Ascend samples' ``verify_result.py``): an element
matches when ``np.isclose(actual, expected, rtol, atol, equal_nan=True)``; the output passes when the
share of mismatching elements does not exceed ``error_ratio``. Integer and raw-bit types (and
hifloat8, carried as uint8 bytes) must match bit for bit. Only *defined* elements count: those the
core leaves with a specified value (an element holding a poison byte, e.g. the result of a
fully masked block on a product where it is unspecified, may be anything).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ...core.memory import INITIALIZED
from ...spec.dtypes import DType


@dataclass(frozen=True)
class Tolerance:
    """rtol/atol for `np.isclose` and the largest share of mismatching elements that still passes."""

    rtol: float
    atol: float
    error_ratio: float

    def to_json(self) -> dict[str, float]:
        return {"rtol": self.rtol, "atol": self.atol, "error_ratio": self.error_ratio}


#: Per float type (the samples' verify_result.py: 1e-3/1e-5/1e-3 for half, 1e-4 for float). Types not
#: listed compare bit-exactly.
DEFAULT_TOLERANCES: Mapping[str, Tolerance] = {
    "half": Tolerance(1e-3, 1e-5, 1e-3),
    "float": Tolerance(1e-4, 1e-5, 1e-4),
    "bfloat16": Tolerance(8e-3, 1e-5, 1e-3),
    "fp8_e4m3fn": Tolerance(6.25e-2, 1e-5, 1e-3),
    "fp8_e5m2": Tolerance(1.25e-1, 1e-5, 1e-3),
}


def exact(dtype: DType) -> bool:
    """Outputs of this element type compare bit for bit."""
    return dtype.name not in DEFAULT_TOLERANCES


def tolerance_for(dtype: DType, rtol: float | None = None, atol: float | None = None,
                  error_ratio: float | None = None) -> Tolerance | None:
    """The tolerance for a float type (defaults overridden by the values given); None: bit-exact."""
    base = DEFAULT_TOLERANCES.get(dtype.name)
    if base is None:
        return None
    return Tolerance(base.rtol if rtol is None else rtol, base.atol if atol is None else atol,
                     base.error_ratio if error_ratio is None else error_ratio)


@dataclass
class Diff:
    """How one output tensor compares."""

    tensor: str
    ok: bool
    kind: str                 # "ok", "mismatch", "shape", "dtype", "missing"
    message: str
    compared: int = 0         # defined elements compared
    mismatches: int = 0
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    first: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "ok": self.ok, "kind": self.kind, "message": self.message,
                "compared": self.compared, "mismatches": self.mismatches,
                "mismatch_ratio": (self.mismatches / self.compared) if self.compared else 0.0,
                "max_abs_error": self.max_abs_error, "max_rel_error": self.max_rel_error,
                "first_mismatches": list(self.first)}


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of each element as an unsigned integer array (for bit-exact comparison)."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.itemsize in (1, 2, 4, 8) else a


def _scalar(x: Any) -> Any:
    v = x.item() if hasattr(x, "item") else x
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    return v


def compare_tensor(name: str, dtype: DType, expected: np.ndarray, actual: Any, defined: np.ndarray | None,
                   tol: Tolerance | None, *, show: int = 8) -> Diff:
    """Compare one output: ``defined`` marks the expected elements with a specified value (None: all)."""
    if actual is None:
        return Diff(name, False, "missing", f"{name}: the target produced no output")
    actual = np.asarray(actual)
    if actual.dtype != dtype.numpy:
        return Diff(name, False, "dtype", f"{name}: element type {actual.dtype} but {dtype.name} "
                                          f"({dtype.numpy}) expected")
    if actual.size != expected.size:
        return Diff(name, False, "shape", f"{name}: {actual.size} elements but {expected.size} expected")
    actual = actual.reshape(-1)
    expected = expected.reshape(-1)
    mask = np.ones(expected.size, dtype=bool) if defined is None else np.asarray(defined, dtype=bool).reshape(-1)
    n = int(mask.sum())
    if tol is None:
        bad = (_bits(actual) != _bits(expected)) & mask
    else:
        a64 = actual.astype(np.float64)
        e64 = expected.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(a64, e64, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
        bad = ~close & mask
    count = int(bad.sum())
    diff = Diff(name, True, "ok", f"{name}: {n} elements match", n, count)
    if count:
        idx = np.flatnonzero(bad)
        diff.first = tuple({"index": int(i), "expected": _scalar(expected[i]), "actual": _scalar(actual[i])}
                           for i in idx[:show])
        if tol is not None:
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                a64, e64 = actual[idx].astype(np.float64), expected[idx].astype(np.float64)
                err = np.abs(a64 - e64)
                rel = err / np.maximum(np.abs(e64), np.finfo(np.float64).tiny)
            finite = np.isfinite(err)
            diff.max_abs_error = float(err[finite].max()) if finite.any() else float("inf")
            diff.max_rel_error = float(rel[finite].max()) if finite.any() else float("inf")
        ratio = count / n if n else 0.0
        if tol is None or ratio > tol.error_ratio:
            diff.ok = False
            diff.kind = "mismatch"
            where = ", ".join(f"[{d['index']}] expected {d['expected']} got {d['actual']}" for d in diff.first[:3])
            limit = "bit-exact" if tol is None else f"rtol={tol.rtol:g} atol={tol.atol:g}, allowed share {tol.error_ratio:g}"
            diff.message = f"{name}: {count} of {n} elements differ ({ratio:.2%}; {limit}): {where}"
        else:
            diff.message = f"{name}: {count} of {n} elements outside rtol/atol, within the allowed share"
    return diff


def defined_elements(state: np.ndarray, itemsize: int) -> np.ndarray:
    """Per element of a tensor: every byte holds a specified value (shadow state INITIALIZED)."""
    return (np.asarray(state).reshape(-1, itemsize) == INITIALIZED).all(axis=1)

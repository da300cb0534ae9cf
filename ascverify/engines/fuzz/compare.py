"""Comparing a target's outputs with the core's: bit-exact for integers, golden-style tolerances for floats.

By default floats follow the ecosystem's golden checks (the Ascend samples' ``verify_result.py``): a
written element matches when ``np.isclose(actual, expected, rtol, atol, equal_nan=True)``; the output
passes when the share of mismatching elements *among the elements the call writes* does not exceed
``error_ratio`` (an untouched rest of the tensor does not dilute a wrong result) and no written NaN or
infinity differs. Elements the call does not write keep their old contents and must match bit for
bit. Integer and raw-bit types (and hifloat8, carried as uint8 bytes) must match bit for bit, and so
must everything with ``exact`` (``--exact``: the core is bit-exact). Float outputs report their largest
distance in units in the last place (ULP). Only *defined* elements count: those the core leaves with
a specified value (an element holding a poison byte, e.g. the result of a fully masked block on a
product where it is unspecified, may be anything).
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
    #: a written zero of the other sign is a wrong value, as a wrong NaN or infinity is (outputs chosen, not computed)
    signed_zero: bool = False

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
                  error_ratio: float | None = None, *, exact: bool = False, signed_zero: bool = False
                  ) -> Tolerance | None:
    """The tolerance for a float type (defaults overridden by the values given); None: bit-exact (always with
    ``exact``). ``signed_zero``: a zero of the other sign does not pass."""
    base = DEFAULT_TOLERANCES.get(dtype.name)
    if base is None or exact:
        return None
    return Tolerance(base.rtol if rtol is None else rtol, base.atol if atol is None else atol,
                     base.error_ratio if error_ratio is None else error_ratio, signed_zero)


@dataclass
class Diff:
    """How one output (a tensor, or a register file) compares."""

    tensor: str
    ok: bool
    kind: str                 # "ok", "mismatch", "shape", "dtype", "missing"
    message: str
    compared: int = 0         # defined elements compared
    mismatches: int = 0
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    first: tuple[dict[str, Any], ...] = ()
    written: int = 0          # of the compared elements, those the call wrote (the error ratio's denominator)
    kept_differ: int = 0      # elements the call did not write (old contents) that differ
    special_differ: int = 0   # written elements whose NaN/inf class or infinity differs
    max_ulp: int | None = None  # largest distance in units in the last place over written non-NaN elements
    mode: str = ""            # "bit-exact" or the tolerance
    excused: int = 0          # written elements whose bits differ but that the tolerance accepts (an output that passes)

    def to_json(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "ok": self.ok, "kind": self.kind, "message": self.message,
                "compared": self.compared, "written": self.written, "mismatches": self.mismatches,
                "mismatch_ratio": (self.mismatches / self.written) if self.written else 0.0,
                "kept_differ": self.kept_differ, "special_differ": self.special_differ, "max_ulp": self.max_ulp,
                "max_abs_error": self.max_abs_error, "max_rel_error": self.max_rel_error, "mode": self.mode,
                "first_mismatches": list(self.first)}


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of each element as an unsigned integer array (for bit-exact comparison)."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.itemsize in (1, 2, 4, 8) else a


def _scalar(x: Any) -> Any:
    v = x.item() if hasattr(x, "item") else x
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    if not isinstance(v, (int, float, bool, str)):  # ml_dtypes scalars
        try:
            f = float(v)
        except (TypeError, ValueError):
            return str(v)
        return f if np.isfinite(f) else str(f)
    return v


def _bits_if_alike(e: Any, a: Any, e_bits: Any, a_bits: Any, digits: int) -> dict[str, str]:
    """The two elements' bits (hex) when their values print alike (NaNs of other payloads, or a type whose printed
    value is rounded): a bit-exact difference must be visible."""
    if str(_scalar(e)) != str(_scalar(a)):
        return {}
    return {"expected_bits": f"0x{int(e_bits):0{digits}x}", "actual_bits": f"0x{int(a_bits):0{digits}x}"}


def shown_value(mismatch: Mapping[str, Any], side: str) -> str:
    """One side of a mismatch as printed: its value, and its bits when both sides print alike."""
    bits = mismatch.get(f"{side}_bits")
    return f"{mismatch[side]} ({bits})" if bits else str(mismatch[side])


def ulp_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Per element, how many representable values of the float type lie between the two (0: equal, and +0 vs -0);
    -1 where either is NaN."""
    e, a = np.ascontiguousarray(expected).reshape(-1), np.ascontiguousarray(actual).reshape(-1)
    bits = 8 * e.dtype.itemsize
    sign = np.uint64(1) << np.uint64(bits - 1)

    def key(x: np.ndarray) -> np.ndarray:
        b = _bits(x).astype(np.uint64)
        mag = (b & ~sign).astype(np.int64)
        return np.where((b & sign) != 0, -mag, mag)

    with np.errstate(invalid="ignore"):
        nan = np.isnan(e.astype(np.float64)) | np.isnan(a.astype(np.float64))
    d = np.abs(key(e) - key(a))
    return np.where(nan, -1, d)


def compare_tensor(name: str, dtype: DType, expected: np.ndarray, actual: Any, defined: np.ndarray | None,
                   tol: Tolerance | None, *, written: np.ndarray | None = None, show: int = 8,
                   nan_bits: bool = False, zero_sign: bool = True) -> Diff:
    """Compare one output. ``defined`` marks the expected elements with a specified value (None: all); ``written``
    those the call stored (None: every defined one). Elements the call did not write hold their old contents and
    must match bit for bit. Written elements match bit for bit without a tolerance, but for a NaN computed where the
    core has another NaN (which sign and payload the hardware gives is not documented; ``nan_bits``: the call moves
    bytes, so a NaN's bits are the source's and count) and for a zero of the other sign where the pages do not fix
    it (``zero_sign`` False); with a tolerance, they match when
    ``np.isclose`` holds (NaN equal to NaN), and the output passes when the share of written elements that do not
    is at most ``error_ratio`` and no written NaN or infinity differs (a wrong NaN or inf is not a rounding
    difference), nor, with ``tol.signed_zero``, the sign of a written zero. Float outputs report their largest ULP
    distance."""
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
    wrote = mask if written is None else (np.asarray(written, dtype=bool).reshape(-1) & mask)
    n, nw = int(np.count_nonzero(mask)), int(np.count_nonzero(wrote))
    differ = _bits(actual) != _bits(expected)
    is_float = dtype.kind == "float" and dtype.name != "hifloat8"
    mode = "bit-exact" if tol is None else f"rtol={tol.rtol:g} atol={tol.atol:g}, allowed share {tol.error_ratio:g}"
    if not np.logical_and(differ, mask, out=differ).any():  # every defined element bit for bit (the usual answer)
        return Diff(name, True, "ok", f"{name}: {n} elements match", n, 0, written=nw, mode=mode,
                    max_ulp=0 if is_float and nw else None)
    kept = mask & ~wrote
    kept_bad = differ & kept
    special = np.zeros(expected.size, dtype=bool)
    if tol is None:
        bad_w = differ & wrote
        if is_float and not nan_bits:  # any NaN matches a NaN the core computed: its bits are not documented
            a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
            with np.errstate(invalid="ignore"):
                bad_w &= ~(np.isnan(a64) & np.isnan(e64))
                if not zero_sign:  # which zero the hardware stores is not documented here
                    bad_w &= ~((a64 == 0) & (e64 == 0))
    else:
        a64 = actual.astype(np.float64)
        e64 = expected.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(a64, e64, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
            special = ((np.isnan(a64) != np.isnan(e64)) | ((np.isinf(a64) | np.isinf(e64)) & (a64 != e64))) & wrote
            if tol.signed_zero:  # max(-0, +0) is +0: a target keeping -0 is wrong, however close
                special |= (a64 == 0) & (e64 == 0) & (np.signbit(a64) != np.signbit(e64)) & wrote
        bad_w = (~close | special) & wrote
    bad = bad_w | kept_bad
    count = int(np.count_nonzero(bad_w))
    diff = Diff(name, True, "ok", f"{name}: {n} elements match", n, count, written=nw,
                kept_differ=int(np.count_nonzero(kept_bad)), special_differ=int(np.count_nonzero(special)), mode=mode)
    diff.excused = int(np.count_nonzero(differ & wrote & ~bad_w))
    if is_float and nw:
        ulp = ulp_distance(expected[wrote], actual[wrote])
        finite = ulp >= 0
        diff.max_ulp = int(ulp[finite].max()) if finite.any() else 0
    if bad.any():
        idx = np.flatnonzero(bad)
        eb, ab = _bits(expected), _bits(actual)
        diff.first = tuple({"index": int(i), "expected": _scalar(expected[i]), "actual": _scalar(actual[i]),
                            **_bits_if_alike(expected[i], actual[i], eb[i], ab[i], 2 * expected.dtype.itemsize),
                            **({"kept": True} if kept[i] else {})} for i in idx[:show])
        w_idx = np.flatnonzero(bad_w)
        if is_float and w_idx.size:  # the errors of the written elements counted (kept ones are reported apart)
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                a64, e64 = actual[w_idx].astype(np.float64), expected[w_idx].astype(np.float64)
                err = np.abs(a64 - e64)
                rel = err / np.abs(e64)
            finite = np.isfinite(err)
            # (None when no difference is a finite number: NaN against NaN of other bits, inf against NaN; the
            # relative error only where the expected value is not 0)
            diff.max_abs_error = float(err[finite].max()) if finite.any() else None
            relative = finite & (e64 != 0)
            diff.max_rel_error = float(rel[relative].max()) if relative.any() else None
        ratio = count / nw if nw else 0.0
        if tol is None or ratio > tol.error_ratio or diff.kept_differ or diff.special_differ:
            diff.ok = False
            diff.kind = "mismatch"
            where = ", ".join(f"[{d['index']}] expected {shown_value(d, 'expected')} got {shown_value(d, 'actual')}"
                              for d in diff.first[:3])
            parts = []
            if diff.kept_differ:  # first: a target writing where the call does not is the plainer bug
                parts.append(f"{diff.kept_differ} of {n - nw} elements the call does not write changed")
            if count or not diff.kept_differ:
                parts.append(f"{count} of {nw} written elements differ ({ratio:.2%}; {mode})")
            if diff.special_differ and tol is not None:
                parts.append(f"{diff.special_differ} with a wrong NaN, infinity"
                             f"{' or sign of zero' if tol.signed_zero else ''}")
            ulp = f"; max {diff.max_ulp} ULP" if diff.max_ulp else ""
            diff.message = f"{name}: {'; '.join(parts)}{ulp}: {where}"
        else:
            diff.excused += count  # outside rtol/atol, but within the allowed share
            diff.message = (f"{name}: {count} of {nw} written elements outside rtol/atol, within the allowed share"
                            + (f" (max {diff.max_ulp} ULP)" if diff.max_ulp else ""))
    return diff


def defined_elements(state: np.ndarray, itemsize: int) -> np.ndarray:
    """Per element of a tensor: every byte holds a specified value (shadow state INITIALIZED)."""
    state = np.ascontiguousarray(state, dtype=np.uint8)
    if itemsize in (2, 4, 8) and state.size % itemsize == 0:  # one comparison per element, on its bytes as a word
        word = np.dtype(f"<u{itemsize}")
        return state.view(word) == word.type(int.from_bytes(bytes([INITIALIZED]) * itemsize, "little"))
    return (state.reshape(-1, itemsize) == INITIALIZED).all(axis=1)

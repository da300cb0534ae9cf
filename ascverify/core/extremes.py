"""Per-row minimum and maximum of IEEE floats through their bits, at integer speed.

A float's bits read as an unsigned integer put the negative floats above the positive ones, each half ordered by
magnitude; read as a signed integer, the non-negative floats lie above the negative ones in their own order. So a
row's minimum is its largest unsigned value when the row holds a negative float (-0 included: -0 below +0, the order
a vector unit's min/max keeps when it returns -0 for min(-0, +0)), else its smallest; the maximum is symmetric. Two
integer reductions per row, no key transform. numpy's float16 comparisons convert element by element, and integer
reductions over short rows are slow along the last axis, so the lanes are moved first once. NaN has no place in
that order: rows with an active NaN are reported, and the caller gives them the value the hardware gives.
"""

from __future__ import annotations

import numpy as np

__all__ = ["masked_extreme", "any_last"]

_INT = {2: np.int16, 4: np.int32, 8: np.int64}
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def any_last(flags: np.ndarray) -> np.ndarray:
    """``flags.any(axis=-1)`` for a bool array, eight flags at a time when the rows allow it."""
    flags = np.asarray(flags, dtype=bool)
    width = flags.shape[-1] if flags.ndim else 1
    if flags.ndim and width % 8 == 0 and width and flags.flags.c_contiguous:
        return _pairwise(flags.view(np.uint64), np.bitwise_or) != 0
    return flags.any(axis=-1)


_CONSTANTS: dict[tuple[str, np.dtype], tuple] = {}


def _int_limits(dt: np.dtype) -> tuple:
    """The smallest and largest value of the integer type ``dt`` (as numpy scalars)."""
    got = _CONSTANTS.get(("int", dt))
    if got is None:
        info = np.iinfo(dt)
        got = _CONSTANTS[("int", dt)] = (dt.type(info.min), dt.type(info.max))
    return got


def _float_bits(dt: np.dtype) -> tuple:
    """For the float type ``dt``: the signed integer type of its bits, the magnitude mask, and the bits of +inf and
    of -inf (read signed)."""
    got = _CONSTANTS.get(("float", dt))
    if got is None:
        itype = _INT[dt.itemsize]
        mag = itype(np.iinfo(itype).max)                  # 0x7fff...: every bit but the sign
        inf_bits = np.array(np.inf, dtype=dt).view(itype)
        neg_inf_bits = np.array(-np.inf, dtype=dt).view(itype)
        got = _CONSTANTS[("float", dt)] = (itype, mag, int(inf_bits), int(neg_inf_bits))
    return got


def _pairwise(keys: np.ndarray, op: np.ufunc) -> np.ndarray:
    """``op.reduce(keys, axis=-1)``, by halving rows whose length is a power of two."""
    width = keys.shape[-1]
    if width == 0 or width & (width - 1):
        return op.reduce(keys, axis=-1)
    while width > 1:
        width //= 2
        keys = op(keys[..., :width], keys[..., width:])
    return keys[..., 0]


def masked_extreme(x: np.ndarray, active: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Per row (last axis) of ``x`` (n, ..., lanes): the minimum (``kind`` "min") or maximum ("max") of the elements
    where ``active`` is true, or the identity where none is (+inf / -inf for floats, the type's largest / smallest
    value for integers). ``active`` is the same for every index of the first axis: shape ``x.shape[1:]`` (or
    broadcastable to it). Floats are ordered with -0 below +0.

    Also per row: whether an active element is NaN; the value of such a row is not defined here.
    """
    if kind not in ("min", "max"):
        raise ValueError(f"kind must be 'min' or 'max', not {kind!r}")
    x = np.ascontiguousarray(x)
    dt = x.dtype
    if dt.kind == "f" and dt.itemsize in _INT:
        itype, mag, top, bottom = _float_bits(dt)
        bits = _lanes_first(x.view(itype))
        _fill_inactive(bits, active, x.shape, top if kind == "min" else bottom)
        return _float_extreme(bits, dt, kind, top, mag)
    if dt.kind not in "iu":
        raise TypeError(f"masked_extreme: unsupported element type {dt}")
    lo_value, hi_value = _int_limits(dt)
    keys = _lanes_first(x)
    _fill_inactive(keys, active, x.shape, hi_value if kind == "min" else lo_value)
    best = (np.minimum if kind == "min" else np.maximum).reduce(keys, axis=0)
    return best, np.zeros(x.shape[:-1], dtype=bool)


def _lanes_first(a: np.ndarray) -> np.ndarray:
    """A contiguous copy of ``a`` with the last axis (the lanes) first: a reduction is then over whole rows."""
    return a.transpose((a.ndim - 1,) + tuple(range(a.ndim - 1))).copy()


def _fill_inactive(lanes_first: np.ndarray, active: np.ndarray, shape: tuple, ident: int) -> None:
    """Set the lanes ``active`` leaves out to ``ident`` (``lanes_first``: `_lanes_first` of an array of ``shape``)."""
    if type(active) is not np.ndarray or active.dtype != bool:
        active = np.asarray(active, dtype=bool)
    if active.shape != shape[1:]:
        active = np.broadcast_to(active, shape[1:])
    if not active.all():
        inactive = np.nonzero(~active.transpose((active.ndim - 1,) + tuple(range(active.ndim - 1))))
        lanes_first[(inactive[0], slice(None)) + inactive[1:]] = ident


def _float_extreme(bits: np.ndarray, dt: np.dtype, kind: str, top: int, mag: object) -> tuple[np.ndarray, np.ndarray]:
    """`masked_extreme` of floats from their bits (signed integers, lanes first, inactive lanes already the
    identity): two integer reductions, one over the bits read unsigned and one over them read signed or unsigned.

    Read unsigned, the negative floats lie above the positive ones, ordered by magnitude: a row's minimum is its
    largest unsigned value when the row holds a negative float (-0 included), else its smallest. Read signed, the
    non-negative floats lie above the negative ones in their own order: a row's maximum is its largest signed value
    when the row holds one, else its smallest unsigned value (the negative of least magnitude). NaN bits lie beyond
    the infinities' in both readings."""
    ubits = bits.view(_UINT[dt.itemsize])
    sign = 1 << (8 * dt.itemsize - 1)
    neg_inf = sign | top                                  # -inf's bits read unsigned
    if kind == "min":
        hi = np.maximum.reduce(ubits, axis=0)
        best = np.where(hi >= sign, hi, np.minimum.reduce(ubits, axis=0))
        # a negative NaN is its row's largest unsigned value, a positive NaN the largest signed value of all
        clean = int(hi.max()) <= neg_inf and int(bits.max()) <= top
    else:
        hi = np.maximum.reduce(bits, axis=0)
        best = np.where(hi >= 0, hi.view(ubits.dtype), np.minimum.reduce(ubits, axis=0))
        # a positive NaN is its row's largest signed value, a negative NaN the largest unsigned value of all
        clean = int(hi.max()) <= top and int(ubits.max()) <= neg_inf
    value = best.view(dt)
    if clean:
        return value, np.zeros(value.shape, dtype=bool)
    magnitude = bits & mag                                # inactive lanes hold an infinity: never NaN
    return value, np.logical_or.reduce(magnitude > top, axis=0)

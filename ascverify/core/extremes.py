"""Per-row minimum and maximum of IEEE floats through their bits, at integer speed.

A float's bits read as an unsigned integer put the negative floats above the positive ones, each half ordered by
magnitude; read as a signed integer, the non-negative floats lie above the negative ones in their own order. So a
row's minimum is its largest unsigned value when the row holds a negative float (-0 included: -0 below +0, the order
a vector unit's min/max keeps when it returns -0 for min(-0, +0)), else its smallest; the maximum is symmetric (its
largest signed value when the row holds a non-negative float, else its smallest unsigned value). One integer
reduction per row when every row holds a float of the deciding sign (the common case: rows of mixed signs), two
otherwise; no key transform.

numpy reduces short rows along the last axis one row at a time, and compares float16 element by element, so the
lanes are moved to the front once (one transposed copy of the bits); every reduction is then a few whole-array
passes. NaN has no place in that order: rows with an active NaN are reported, and the caller gives them the value
the hardware gives. The NaN test costs two whole-array maxima in the common case of no NaN: a negative NaN is the
largest unsigned value of its row, a positive NaN the largest signed value of all.
"""

from __future__ import annotations

from math import prod
from typing import NamedTuple

import numpy as np

__all__ = ["masked_extreme", "any_last"]

_INT = {2: np.int16, 4: np.int32, 8: np.int64}
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_KINDS = ("min", "max")


def any_last(flags: np.ndarray) -> np.ndarray:
    """``flags.any(axis=-1)`` for a bool array, eight flags at a time when the rows allow it."""
    flags = np.asarray(flags, dtype=bool)
    width = flags.shape[-1] if flags.ndim else 1
    if flags.ndim and width % 8 == 0 and width and flags.flags.c_contiguous:
        return _pairwise(flags.view(np.uint64), np.bitwise_or) != 0
    return flags.any(axis=-1)


def _pairwise(keys: np.ndarray, op: np.ufunc) -> np.ndarray:
    """``op.reduce(keys, axis=-1)``, by halving rows whose length is a power of two."""
    width = keys.shape[-1]
    if width == 0 or width & (width - 1):
        return op.reduce(keys, axis=-1)
    while width > 1:
        width //= 2
        keys = op(keys[..., :width], keys[..., width:])
    return keys[..., 0]


class _Plan(NamedTuple):
    """What `masked_extreme` needs for one (element type, kind), as numpy scalars (no Python-int promotion)."""

    #: the type the reductions run on: the unsigned type of a float's bits, the type itself for integers
    keys: np.dtype
    #: the value an inactive lane takes (in ``keys``): +inf / -inf for floats, the type's largest / smallest value
    fill: np.generic
    #: floats only (else None): the signed type of the bits, the sign bit, +inf's bits (signed), -inf's (unsigned)
    signed: np.dtype | None = None
    sign: np.generic | None = None
    top: np.generic | None = None
    neg_inf: np.generic | None = None


_PLANS: dict[tuple[np.dtype, str], _Plan] = {}


def _plan(dt: np.dtype, kind: str) -> _Plan:
    """The cached `_Plan` of element type ``dt`` and ``kind`` (raises for another kind or type)."""
    got = _PLANS.get((dt, kind))
    if got is not None:
        return got
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'min' or 'max', not {kind!r}")
    if dt.kind == "f" and dt.itemsize in _UINT:
        utype, itype = np.dtype(_UINT[dt.itemsize]), np.dtype(_INT[dt.itemsize])
        inf_u = np.array(np.inf, dtype=dt).view(utype)[()]
        neg_inf_u = np.array(-np.inf, dtype=dt).view(utype)[()]
        got = _Plan(utype, inf_u if kind == "min" else neg_inf_u, itype,
                    utype.type(1 << (8 * dt.itemsize - 1)), itype.type(inf_u), neg_inf_u)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        got = _Plan(dt, dt.type(info.max if kind == "min" else info.min))
    else:
        raise TypeError(f"masked_extreme: unsupported element type {dt}")
    _PLANS[(dt, kind)] = got
    return got


def masked_extreme(x: np.ndarray, active: np.ndarray | None, kind: str, *,
                   none_if_clean: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """Per row (last axis) of ``x`` (n, ..., lanes): the minimum (``kind`` "min") or maximum ("max") of the elements
    where ``active`` is true, or the identity where none is (+inf / -inf for floats, the type's largest / smallest
    value for integers). ``active`` is the same for every index of the first axis: shape ``x.shape[1:]`` (or
    broadcastable to it), or of ``x``'s own shape (n, rows..., lanes) for lanes per index; None means every lane.
    Floats are ordered with -0 below +0.

    Also per row: whether an active element is NaN; the value of such a row is not defined here. With
    ``none_if_clean`` that second result is None when no row holds an active NaN.
    """
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    plan = _PLANS.get((x.dtype, kind)) or _plan(x.dtype, kind)
    if x.ndim < 2:
        raise ValueError(f"masked_extreme: x needs a first axis and a lane axis, not shape {x.shape}")
    shape, lanes = x.shape[:-1], x.shape[-1]
    rows = prod(shape)
    if lanes == 0 or rows == 0:
        best, has_nan = np.full(shape, plan.fill, dtype=plan.keys).view(x.dtype), None
    else:
        # (lanes, rows): one transposed copy of the bits, so that every reduction runs over whole rows
        keys = x.view(plan.keys).reshape(rows, lanes).T.copy()
        if active is not None:
            _fill_inactive(keys, active, x.shape, plan.fill)
        if plan.signed is None:                           # integers: one reduction
            best, has_nan = (np.minimum if kind == "min" else np.maximum).reduce(keys, axis=0), None
        else:
            best, has_nan = _float_extreme(keys, kind, plan)
        best = best.reshape(shape).view(x.dtype)
    if has_nan is None:
        return best, None if none_if_clean else np.zeros(shape, dtype=bool)
    return best, has_nan.reshape(shape)


def _fill_inactive(keys: np.ndarray, active: np.ndarray, shape: tuple, fill: np.generic) -> None:
    """Set the lanes ``active`` leaves out to ``fill`` in ``keys`` (lanes, rows), the transposed bits of an array of
    ``shape`` (n, ..., lanes)."""
    if type(active) is not np.ndarray or active.dtype != bool:
        active = np.asarray(active, dtype=bool)
    lanes = shape[-1]
    if active.shape == shape and len(shape) > 2:   # lanes of their own per index of the first axis
        row_idx, lane_idx = np.nonzero(~active.reshape(-1, lanes))
        keys[lane_idx, row_idx] = fill
        return
    if active.shape != shape[1:]:
        active = np.broadcast_to(active, shape[1:])
    if active.all():
        return
    inner = active.size // lanes                           # the rows of one index of the first axis
    inner_idx, lane_idx = np.nonzero(~active.reshape(inner, lanes))
    keys.reshape(lanes, shape[0], inner)[lane_idx, :, inner_idx] = fill


def _float_extreme(keys: np.ndarray, kind: str, plan: _Plan) -> tuple[np.ndarray, np.ndarray | None]:
    """`masked_extreme` of floats from their bits ``keys`` (unsigned, lanes first, inactive lanes already the
    identity): the extremes, and whether each row holds a NaN (None: no row does).

    Read unsigned, the negative floats lie above the positive ones, ordered by magnitude: a row's minimum is its
    largest unsigned value when the row holds a negative float (-0 included), else its smallest. Read signed, the
    non-negative floats lie above the negative ones in their own order: a row's maximum is its largest signed value
    when the row holds one, else its smallest unsigned value (the negative of least magnitude). The first reduction
    decides; the second runs only when some row needs it (rows of mixed signs are the common case for the minimum
    and the maximum alike). NaN bits lie beyond the infinities' in both readings: a negative NaN is its row's
    largest unsigned value (above -inf's bits), a positive NaN its largest signed value (above +inf's); the
    inactive lanes hold an infinity, never NaN."""
    signed = keys.view(plan.signed)
    if kind == "min":
        first = np.maximum.reduce(keys, axis=0)          # a row's minimum if it holds a negative float
        low, edge = first.min(), plan.sign
    else:
        first = np.maximum.reduce(signed, axis=0)        # a row's maximum if it holds a non-negative float
        low, edge = first.min(), 0
    best = first.view(keys.dtype)
    if low < edge:                                       # some row needs the other reduction
        other = np.minimum.reduce(keys, axis=0)          # the row's extreme otherwise
        best = np.where(first >= edge, best, other) if first.max() >= edge else other
    if kind == "min":
        # a positive NaN hides in a row with a negative float: the signed maximum of all lanes finds it
        if first.max() <= plan.neg_inf and signed.max() <= plan.top:
            return best, None
        hi_u, hi_s = first, np.maximum.reduce(signed, axis=0)
    else:
        if first.max() <= plan.top and keys.max() <= plan.neg_inf:
            return best, None
        hi_u, hi_s = np.maximum.reduce(keys, axis=0), first
    return best, (hi_u > plan.neg_inf) | (hi_s > plan.top)

"""Per-row minimum and maximum of IEEE floats through integer keys, at integer speed.

A float's bits, read as a signed integer and with the magnitude bits flipped when the sign is set, order like the
float itself, with -0 below +0 (the order a vector unit's min/max keeps when it returns -0 for min(-0, +0)). numpy's
float16 comparisons convert element by element; integer minima over short rows are also slow along the last axis,
so rows are halved pairwise instead. NaN has no place in that order: rows with an active NaN are reported, and
the caller gives them the value the hardware gives.
"""

from __future__ import annotations

import numpy as np

__all__ = ["masked_extreme", "any_last"]

_INT = {2: np.int16, 4: np.int32, 8: np.int64}


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


def _float_keys(dt: np.dtype) -> tuple:
    """For the float type ``dt``: the integer type of its bits, its width, the magnitude mask, and the keys of +inf
    and -inf."""
    got = _CONSTANTS.get(("float", dt))
    if got is None:
        itype = _INT[dt.itemsize]
        mag = itype(np.iinfo(itype).max)                  # 0x7fff...: every bit but the sign
        inf_bits = np.array(np.inf, dtype=dt).view(itype)
        neg_inf_bits = np.array(-np.inf, dtype=dt).view(itype)
        got = _CONSTANTS[("float", dt)] = (itype, 8 * dt.itemsize, mag, int(inf_bits), int(neg_inf_bits ^ mag))
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
    op = np.minimum if kind == "min" else np.maximum
    floats = dt.kind == "f"
    if dt.kind in "iu":
        lo_value, hi_value = _int_limits(dt)
        ident = hi_value if kind == "min" else lo_value
        keys = x
    elif floats and dt.itemsize in _INT:
        itype, width, mag, top, bottom = _float_keys(dt)
        bits = x.view(itype)
        keys = bits >> (width - 1)
        keys &= mag
        keys ^= bits                                      # negative floats: magnitude bits flipped
        ident = itype(top if kind == "min" else bottom)
    else:
        raise TypeError(f"masked_extreme: unsupported element type {dt}")
    # lanes first, contiguous: the reduction is then over whole rows
    keys = keys.transpose((x.ndim - 1,) + tuple(range(x.ndim - 1))).copy()
    active = np.asarray(active, dtype=bool)
    if active.shape != x.shape[1:]:
        active = np.broadcast_to(active, x.shape[1:])
    if not active.all():
        inactive = np.nonzero(~active.transpose((active.ndim - 1,) + tuple(range(active.ndim - 1))))
        keys[(inactive[0], slice(None)) + inactive[1:]] = ident
    best = op.reduce(keys, axis=0)
    if not floats:
        return best, np.zeros(x.shape[:-1], dtype=bool)
    flip = best >> (width - 1)
    flip &= mag
    flip ^= best
    value = flip.view(dt)
    # NaN keys lie beyond the infinities' keys: above +inf's for a positive NaN, below -inf's for a negative one
    if int(keys.max()) <= top and int(keys.min()) >= bottom:
        return value, np.zeros(x.shape[:-1], dtype=bool)
    nan = (keys > top) | (keys < bottom)               # inactive lanes hold an infinity's key: never NaN
    return value, np.logical_or.reduce(nan, axis=0)

"""Half-precision arithmetic at float32 speed, bit-identical to numpy's float16 operations.

numpy computes a float16 multiply or add in float32 and rounds the result to half (round to nearest, ties to
even); its float16 loops and casts convert element by element and are slow. Here values stay in float32 arrays
that hold half values ("on the half grid") and each operation is one float32 operation followed by one rounding
to half done with integer operations on the bits. That is the same result: the product of two halves is exact in
float32 (11 + 11 significant bits), and a float32 sum rounded again to half equals the sum rounded once to half
(24 >= 2 * 11 + 2 bits, so the double rounding is innocuous). The integer rounding covers the normal half range
and zero; an element outside it (a half subnormal result, an overflow, inf or NaN) is rounded by numpy's own
float16 cast, so every result is numpy's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["widen", "narrow", "round_half", "multiply", "running_sum", "sum_of_products"]

_SCALE = np.float32(2.0 ** 112)      # half bits shifted into float32 bits are the value times 2**-112
_LOW = np.uint32(0x1FFF)              # the 13 float32 mantissa bits a half does not have
_KEEP = np.uint32(0xFFFFE000)
_MAG = np.uint32(0x7FFFFFFF)
_TINY = np.uint32(0x38800000)         # 2**-14, the smallest normal half
_WIDTH = np.uint32(0x477FF000 - 0x38800000)   # [2**-14, 65520): rounds inside the normal half range
_LIMIT = np.float32(65504.0)          # the largest finite half


def _scaled(bits: np.ndarray) -> np.ndarray:
    """float32 whose value is the half with raw bits ``bits`` (uint16 / float16 array) times 2**-112 (exact for
    every finite half; inf and NaN come out as finite numbers, the caller checks for them)."""
    s = bits.view(np.int16).astype(np.int32)   # sign-extended: a negative half has the top 17 bits set
    np.left_shift(s, 13, out=s)                # exponent and mantissa in place; bits 28..31 copies of the sign
    np.bitwise_and(s, np.int32(-0x70000001), out=s)   # keep the sign bit (0x80000000) and bits 0..27
    return s.view(np.float32)


def _special(bits: np.ndarray) -> bool:
    """Some element of the raw half ``bits`` is inf or NaN."""
    return bool((bits.view(np.uint16) & np.uint16(0x7FFF)).max(initial=0) >= 0x7C00)


def widen(x: np.ndarray) -> np.ndarray:
    """The float16 array ``x`` as float32 (exact)."""
    x = np.ascontiguousarray(x, dtype=np.float16)
    if _special(x):
        return x.astype(np.float32)
    out = _scaled(x)
    out *= _SCALE
    return out


def narrow(x: np.ndarray) -> np.ndarray:
    """float32 values on the half grid as float16 (exact; any float32 is rounded as numpy's cast does)."""
    return np.asarray(x, dtype=np.float32).astype(np.float16)


def _round_bits(b: np.ndarray) -> np.ndarray:
    """Round float32 bits ``b`` (uint32, normal half range or zero) to the half grid, to nearest, ties to even."""
    t = np.right_shift(b, 13)
    np.bitwise_and(t, 1, out=t)
    t += np.uint32(0xFFF)
    t += b
    t &= _KEEP
    return t


def round_half(x: np.ndarray, *, normal: bool = False) -> np.ndarray:
    """float32 ``x`` rounded to half (to nearest, ties to even; overflow to inf), as float32 on the half grid.
    ``normal``: the caller knows every element is zero or rounds inside the normal half range (no check)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    out = _round_bits(b).view(np.float32)
    if normal:
        return out
    mag = b & _MAG
    shifted = mag - _TINY
    odd = shifted >= _WIDTH                      # tiny (or zero), overflowing, inf or NaN
    if odd.any():
        odd &= mag != 0                          # zeros round to themselves
        if odd.any():
            with np.errstate(over="ignore"):   # overflow to inf is the rounding asked for
                out[odd] = x[odd].astype(np.float16).astype(np.float32)
    return out


def _bounds_ok(a: np.ndarray, b: np.ndarray) -> bool:
    """Every product of an element of the raw halves ``a`` with one of ``b`` is zero or rounds inside the normal
    half range (no tiny, overflowing or non-finite product), judged from the magnitudes' extremes."""
    ma, mb = a.view(np.uint16) & np.uint16(0x7FFF), b.view(np.uint16) & np.uint16(0x7FFF)
    if not ma.size or not mb.size:
        return True
    hi_a, hi_b = int(ma.max()), int(mb.max())
    if hi_a >= 0x7C00 or hi_b >= 0x7C00:
        return False
    lo_a, lo_b = int((ma - np.uint16(1)).min()) + 1, int((mb - np.uint16(1)).min()) + 1   # smallest nonzero
    if lo_a > 0x7FFF or lo_b > 0x7FFF:                 # all zeros on one side: every product is zero
        return True
    def value(m: int) -> float:
        return float(np.array(m, dtype=np.uint16).view(np.float16))
    return value(hi_a) * value(hi_b) < 65520.0 and value(lo_a) * value(lo_b) >= 2.0 ** -14


def multiply(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Elementwise half product ``x * y`` (float16 arrays, broadcast), as float32 on the half grid: bit-identical
    to ``(x.astype(float32) * y.astype(float32)).astype(float16)`` (so also to numpy's float16 multiply, except
    for which NaN's payload a product of two NaNs keeps)."""
    x = np.ascontiguousarray(x, dtype=np.float16)
    y = np.ascontiguousarray(y, dtype=np.float16)
    if _bounds_ok(x, y):
        # x * 2**-112 times y * 2**112: the exact product (y * 2**112 stays below float32's largest number)
        prod = np.multiply(_scaled(x), widen(y) * _SCALE)
        return _round_bits(prod.view(np.uint32)).view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):   # inf * 0 is NaN, as in float16
        return round_half(widen(x) * widen(y))


def _exact_sums(terms: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per column of ``terms`` (count, m), half-grid float32: ``first`` then each later term added with one rounding
    to half per addition (a float32 loop when no partial sum can overflow, else numpy's float16 accumulate)."""
    count = terms.shape[0]
    # |partial sum| <= sum of |terms| * (1 + 2**-11)**count (each rounding grows it by at most half an ulp)
    growth = (1.0 + 2.0 ** -11) ** count * (1.0 + 1e-3)
    bound = float(np.abs(terms).sum(axis=0, dtype=np.float64).max(initial=0.0)) + float(np.abs(first).max(initial=0.0))
    if bound * growth < 65504.0:
        acc = first.astype(np.float32, copy=True)
        for k in range(1, count):
            acc += terms[k]
            acc = _round_bits(acc.view(np.uint32)).view(np.float32)
        return acc
    start = np.concatenate((first[None], terms[1:])).astype(np.float16)
    with np.errstate(all="ignore"):   # overflow to inf and inf - inf = NaN, as in float16
        return np.add.accumulate(start, axis=0, dtype=np.float16)[-1].astype(np.float32)


class _HalfSums:
    """Running sums along a leading axis of half-grid float32 terms fed in chunks, each addition rounded to half.

    While no float32 partial sum needs rounding to half, the half sums are the float32 sums (each float32 sum is
    then a half, so rounding it again changes nothing); columns where one did are marked in ``inexact`` and must be
    summed again exactly (`_exact_sums`)."""

    def __init__(self, shape: tuple[int, ...], start_zero: bool) -> None:
        self.acc: np.ndarray | None = None
        self.start_zero = start_zero
        self.inexact = np.zeros(shape, dtype=bool)

    def add(self, terms: np.ndarray) -> None:
        parts = np.empty(terms.shape, np.float32)
        prev = self.acc
        for k in range(terms.shape[0]):   # numpy's accumulate along a leading axis is far slower than this loop
            if prev is None:
                np.add(terms[0], np.float32(0), out=parts[0]) if self.start_zero else np.copyto(parts[0], terms[0])
            else:
                np.add(prev, terms[k], out=parts[k])
            prev = parts[k]
        bits = parts.view(np.uint32)
        if int(np.bitwise_or.reduce(bits, axis=None)) & 0x1FFF or not (parts.max() <= _LIMIT
                                                                       and parts.min() >= -_LIMIT):
            self.inexact |= (bits & _LOW).any(axis=0) | ~(np.abs(parts) <= _LIMIT).all(axis=0)
        self.acc = parts[-1].copy()


def running_sum(terms: np.ndarray, axis: int, *, start_zero: bool = True) -> np.ndarray:
    """The last partial sum along ``axis`` of float32 half-grid ``terms``, each addition rounded to half in order
    (numpy's ``np.add.accumulate(..., dtype=float16)`` along ``axis``, last element); ``start_zero``: the sum
    starts from +0 (so an all -0 sum is +0), else from the first term."""
    t = np.moveaxis(np.asarray(terms, dtype=np.float32), axis, 0)
    if t.shape[0] == 0:
        return np.zeros(t.shape[1:], np.float32)
    sums = _HalfSums(t.shape[1:], start_zero)
    sums.add(t)
    out = sums.acc
    if sums.inexact.any():
        lanes = sums.inexact
        sub = t[:, lanes]
        first = sub[0] + np.float32(0) if start_zero else sub[0]
        out[lanes] = _exact_sums(sub, first)
    return out


def sum_of_products(x: np.ndarray, y: np.ndarray, axis: int, *, chunk_elements: int = 1 << 16) -> np.ndarray:
    """Sum from +0 along ``axis`` of the half products ``x * y`` (float16 arrays of the same rank, ``y``
    broadcastable to ``x``), each product and each addition rounded to half, in order; float32 on the half grid.
    Bit-identical to ``np.add.accumulate`` in float16 over +0 and `multiply`'s products. Works through chunks of
    about ``chunk_elements`` products, so that no temporary array is as large as ``x``."""
    xm = np.moveaxis(np.asarray(x, dtype=np.float16), axis, 0)
    ym = np.moveaxis(np.asarray(y, dtype=np.float16), axis, 0)
    count = xm.shape[0]
    rest = np.broadcast_shapes(xm.shape[1:], ym.shape[1:])
    if count == 0:
        return np.zeros(rest, np.float32)
    step = max(1, chunk_elements // max(1, int(np.prod(rest))))
    sums = _HalfSums(rest, True)
    for k in range(0, count, step):
        yk = ym[k:k + step] if ym.shape[0] != 1 else ym
        sums.add(np.broadcast_to(multiply(xm[k:k + step], yk), (min(step, count - k),) + rest))
    out = sums.acc
    if sums.inexact.any():
        lanes = sums.inexact
        full = (count,) + rest
        terms = multiply(np.broadcast_to(xm, full)[:, lanes], np.broadcast_to(ym, full)[:, lanes])
        out[lanes] = _exact_sums(terms, terms[0] + np.float32(0))
    return out

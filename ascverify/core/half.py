"""Half-precision arithmetic at float32 speed, bit-identical to numpy's float16 operations.

numpy computes a float16 multiply or add in float32 and rounds the result to half (round to nearest, ties to
even); its float16 loops and casts convert element by element and are slow. Here values stay in float32 arrays
that hold half values ("on the half grid") and each operation is one float32 operation followed by one rounding
to half done with integer operations on the bits. That is the same result: the product of two halves is exact in
float32 (11 + 11 significant bits), and a float32 sum rounded again to half equals the sum rounded once to half
(24 >= 2 * 11 + 2 bits, so the double rounding is innocuous). The rounding covers every float32 as numpy's cast
does: the normal half range on the bits, half subnormals by one float32 addition (to the grid of 2**-24), overflow
to inf, and NaN keeping its sign and the top 10 bits of its payload (a payload that would vanish becomes 1).

Sums of products whose every rounding is exact skip the roundings: `grid` certifies that some values are integer
multiples of a power of two 2**e and at most some magnitude, and when the products' quantum and bound keep every
product and every partial sum on the half grid, the float32 results are the half results (see `sum_of_products`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["widen", "narrow", "round_half", "multiply", "running_sum", "sum_of_products", "grid"]

_SCALE = np.float32(2.0 ** 112)      # half bits shifted into float32 bits are the value times 2**-112
_KEEP = np.uint32(0xFFFFE000)
_MAG = np.uint32(0x7FFFFFFF)
_TINY = np.uint32(0x38800000)         # 2**-14, the smallest normal half
_INF = np.uint32(0x7F800000)


def _scaled(bits: np.ndarray) -> np.ndarray:
    """float32 whose value is the half with raw bits ``bits`` (uint16 / float16 array, any strides) times 2**-112
    (exact for every finite half; inf and NaN come out as finite numbers, the caller checks for them); a fresh
    C-contiguous array, the only one allocated."""
    s = np.empty(bits.shape, np.int32)
    np.copyto(s, bits.view(np.int16))          # sign-extended: a negative half has the top 17 bits set
    np.left_shift(s, 13, out=s)                # exponent and mantissa in place; bits 28..31 copies of the sign
    np.bitwise_and(s, np.int32(-0x70000001), out=s)   # keep the sign bit (0x80000000) and bits 0..27
    return s.view(np.float32)


_SPECIAL = 65536.0                    # a widened inf or NaN before its fix-up: 2**16 <= |value| < 2**17


#: arrays of at most this many elements are widened by numpy's cast and rounded by numpy's casts there and back:
#: the same bits (numpy's casts are the definition followed here, tested on every half), and below these sizes a
#: cast's single call costs less than the several passes on the bits (measured: 1.0 against 6.7 us at 512 elements,
#: 5.2 against 7.2 at 4096 for widening; 9.2 against 10.2 us at 2048 for rounding)
CAST_WIDEN_ELEMENTS = 4096
CAST_ROUND_ELEMENTS = 2048


def _widen(x: np.ndarray) -> tuple[np.ndarray, float]:
    """`widen`, and the largest magnitude of the result (inf or NaN when there is an inf or NaN)."""
    x = np.asarray(x, dtype=np.float16)
    if x.size <= CAST_WIDEN_ELEMENTS:
        out = np.ascontiguousarray(x, dtype=np.float32)   # inf and NaN exact; max and min propagate a NaN
        return out, (max(float(out.max()), -float(out.min())) if out.size else 0.0)
    out = _scaled(x)
    out *= _SCALE
    if not out.size:
        return out, 0.0
    top = max(float(out.max()), -float(out.min()))
    if top < _SPECIAL:                          # every finite half is below 65536, every inf and NaN at or above
        return out, top
    h = np.ascontiguousarray(x).view(np.uint16)
    special = (h & np.uint16(0x7C00)) == np.uint16(0x7C00)
    wide = h.astype(np.uint32)
    bits = (wide << np.uint32(13)) | _INF        # the payload in place (the sign bit lands in the exponent)
    bits |= (wide & np.uint32(0x8000)) << np.uint32(16)
    np.copyto(out.view(np.uint32), bits, where=special)
    return out, float("nan") if np.isnan(out).any() else float("inf")


def widen(x: np.ndarray) -> np.ndarray:
    """The float16 array ``x`` as float32 (exact, as numpy's cast: inf and NaN keep their sign and payload); a fresh
    C-contiguous array."""
    return _widen(x)[0]


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


_HUGE = np.uint32(0x47800000)         # 65536: a rounded magnitude this large is an overflow (or inf, NaN)
_QUIET_MIN = np.uint32(0x7F802000)    # the smallest NaN on the half grid (payload 1)
_HALF = np.float32(0.5)               # |x| + 0.5 in float32 rounds |x| < 2**-14 to the grid of 2**-24 (ties to even)


def _round_any(b: np.ndarray, *, grid: bool = False) -> np.ndarray:
    """Round float32 bits ``b`` (uint32, any value) to the half grid as numpy's float16 cast does; new uint32 bits.
    ``grid``: every finite element is a multiple of 2**-24 (a sum of two halves), so none below 2**-14 needs
    rounding (it is a half subnormal already, and its float32 bits below the half's are zero)."""
    if b.size <= CAST_ROUND_ELEMENTS:
        with np.errstate(over="ignore", invalid="ignore"):   # overflow to inf, as the bits below
            return b.view(np.float32).astype(np.float16).astype(np.float32).view(np.uint32)
    mag = b & _MAG
    out = _round_bits(mag)
    if mag.size and int(out.max()) >= int(_HUGE):    # overflow to inf; inf; NaN (sign and top payload bits kept)
        nan = mag > _INF
        big = np.where(nan, np.maximum(mag & _KEEP, _QUIET_MIN), _INF)
        np.copyto(out, big, where=out >= _HUGE)
    if not grid and mag.size and int((mag - np.uint32(1)).min()) < int(_TINY) - 1:   # half subnormals (not zero)
        with np.errstate(invalid="ignore"):          # NaN elements (a signaling one warns), not used here
            sub = mag.view(np.float32) + _HALF
            sub -= _HALF
        np.copyto(out, sub.view(np.uint32), where=mag < _TINY)
    out |= b & ~_MAG
    return out


def round_half(x: np.ndarray, *, normal: bool = False) -> np.ndarray:
    """float32 ``x`` rounded to half (to nearest, ties to even; overflow to inf), as float32 on the half grid.
    ``normal``: the caller knows every element is zero or rounds inside the normal half range (no check)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    if normal:
        return _round_bits(b).view(np.float32)
    return _round_any(b).view(np.float32)


def multiply(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Elementwise half product ``x * y`` (float16 arrays, broadcast), as float32 on the half grid: bit-identical
    to ``(x.astype(float32) * y.astype(float32)).astype(float16)`` (so also to numpy's float16 multiply, except
    for which NaN's payload a product of two NaNs keeps)."""
    return _multiply_wide(widen(x), widen(y))


_UP = np.float32(2.0 ** 112)          # |x| >= 65536 times this overflows float32: x * _UP * _DOWN turns it into inf
_DOWN = np.float32(2.0 ** -112)


def _sum_rows(terms: np.ndarray, start_zero: bool) -> np.ndarray:
    """The last partial sum along axis 0 of half-grid float32 ``terms``, each addition rounded to half, in order.

    A float32 sum of two halves is a multiple of 2**-24, so only its normal-range rounding and an overflow need care:
    the rounding is done on the bits in place (an inf stays inf), and a rounded magnitude of 65536 or more becomes
    inf by scaling up by 2**112 (float32 overflows) and back (exact for the rest); that scaling is skipped when no
    partial sum can reach 65504 (bounded by the sum of magnitudes, grown by half an ulp per rounding). A column with a
    NaN term sums to its last NaN term, quieted (a NaN sum stays NaN, and numpy's float16 addition keeps the NaN of
    its second operand, the term, when both are NaN): the loop's result there is replaced."""
    count = terms.shape[0]
    with np.errstate(invalid="ignore", over="ignore"):   # inf - inf is NaN, overflow to inf, as in float16
        acc = terms[0] + np.float32(0) if start_zero else terms[0].copy()   # +0 + -0 is +0
        if count == 1:
            return acc
        nan = np.isnan(terms) if np.isnan(terms.max(initial=0.0)) else None
        if acc.size <= FLOAT16_COLUMNS:
            acc = _sum_rows_float16(terms, acc)
        else:
            acc = _sum_rows_bits(terms, acc)
    bits = acc.view(np.uint32)
    if nan is not None:
        last = np.zeros(acc.shape, np.uint32)      # each column's last NaN term
        for k in range(count):
            np.copyto(last, terms[k].view(np.uint32), where=nan[k])
        last |= np.uint32(0x00400000)
        np.copyto(bits, last, where=nan.any(axis=0))
    return acc


#: `_sum_rows` of at most this many columns adds in numpy's float16 (one call a row: per-call overhead dominates
#: narrow rows, and numpy's float16 addition, about 11 ns an element here, is cheaper than six float32 operations
#: on the bits up to about 500 columns)
FLOAT16_COLUMNS = 256


def _sum_rows_float16(terms: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """The additions of `_sum_rows` after its first row (``acc``) in numpy's float16: each a float32 addition
    rounded to half, the same operation as the bit rounding (the rows are halves, exact as float16); float32."""
    wide = terms[1:].astype(np.float16)
    acc16 = acc.astype(np.float16)
    for row in wide:
        np.add(row, acc16, out=acc16)
    return acc16.astype(np.float32)


def _sum_rows_bits(terms: np.ndarray, acc: np.ndarray) -> np.ndarray:
    """The additions of `_sum_rows` after its first row (``acc``, updated in place) in float32, each rounded to
    half on the bits."""
    count = terms.shape[0]
    bound = float(np.abs(terms).sum(axis=0, dtype=np.float64).max(initial=0.0))
    safe = bound * (1.0 + 2.0 ** -11) ** count * (1.0 + 1e-3) < 65504.0   # False with an inf
    bits = acc.view(np.uint32)
    tmp = np.empty(acc.shape, np.uint32)
    for k in range(1, count):
        np.add(terms[k], acc, out=acc)
        np.right_shift(bits, 13, out=tmp)          # _round_bits, in place (no carry reaches the sign bit)
        tmp &= np.uint32(1)
        tmp += np.uint32(0xFFF)
        bits += tmp
        bits &= _KEEP
        if not safe:
            acc *= _UP
            acc *= _DOWN
    return acc


def running_sum(terms: np.ndarray, axis: int, *, start_zero: bool = True) -> np.ndarray:
    """The last partial sum along ``axis`` of float32 half-grid ``terms``, each addition rounded to half in order
    (numpy's ``np.add.accumulate(..., dtype=float16)`` along ``axis``, last element); ``start_zero``: the sum
    starts from +0 (so an all -0 sum is +0), else from the first term."""
    t = np.moveaxis(np.asarray(terms, dtype=np.float32), axis, 0)
    if t.shape[0] == 0:
        return np.zeros(t.shape[1:], np.float32)
    return _sum_rows(t, start_zero)


def _exact_limit(e: int) -> float:
    """The largest magnitude up to which every integer multiple of 2**e (e >= -24) is a half: 2048 * 2**e (11
    significant bits), capped at the largest half, 65504 (itself 2047 * 32)."""
    return min(2.0 ** (e + 11), 65504.0)


_GRID_UP = np.float32(2.0 ** 24)      # a half times 2**24 is an integer (every half is a multiple of 2**-24)
_GRID_CHUNK = 1 << 16                 # elements converted at a time (a small buffer, used again)


def _quantum(w: np.ndarray, a: float) -> int:
    """The largest e such that every element of the float32 half-grid ``w`` (largest magnitude ``a``, finite, not
    0) is an integer multiple of 2**e. Times 2**24 every half is an integer (below 2**31 while |x| < 128, below
    2**40 always); the lowest set bit of their OR is the smallest quantum (a negative integer keeps its trailing
    zeros in two's complement). Converted a chunk at a time into one small buffer."""
    flat = w.reshape(-1)
    buf = np.empty(min(flat.size, _GRID_CHUNK), np.int32 if a < 128.0 else np.int64)
    low = 0
    for i in range(0, flat.size, _GRID_CHUNK):
        part = flat[i:i + _GRID_CHUNK]
        ints = buf[:part.size]
        np.multiply(part, _GRID_UP, out=ints, casting="unsafe")
        low |= int(np.bitwise_or.reduce(ints))
    return (low & -low).bit_length() - 1 - 24


def grid(values: np.ndarray) -> tuple[int, float] | None:
    """``(e, a)`` for half values (a float16 array, or float32 holding halves, as `widen` gives): every value is an
    integer multiple of 2**e and at most ``a`` in magnitude; ``e`` is the largest such exponent (0 when every value
    is zero). None when some value is inf or NaN."""
    if values.dtype == np.float16:
        w, a = _widen(values)
    else:
        w = np.asarray(values, dtype=np.float32)
        a = max(float(w.max()), -float(w.min())) if w.size else 0.0   # NaN propagates through max and min
    if not a < float("inf"):
        return None
    return (0, 0.0) if a == 0.0 else (_quantum(w, a), a)


def _multiply_wide(wx: np.ndarray, wy: np.ndarray) -> np.ndarray:
    """`multiply` of widened halves (float32 on the half grid, broadcast)."""
    with np.errstate(invalid="ignore", over="ignore"):   # inf * 0 is NaN, as in float16
        prod = np.multiply(wx, wy)
    return _round_any(prod.view(np.uint32)).view(np.float32)


def _exact_sums(xm: np.ndarray, wy: np.ndarray, ay: float, rest: tuple[int, ...], step: int) -> np.ndarray | None:
    """`sum_of_products` along axis 0 of ``xm`` (float16, count rows) and the widened ``wy`` (largest magnitude
    ``ay``, finite) computed without roundings, ``step`` rows at a time; None (nothing decided) as soon as the
    grids seen so far allow a product that is not a half.

    e and ax are the smallest quantum (`grid`) and the largest magnitude of x over the rows seen so far (x's grid
    is found a chunk at a time: e only shrinks, ax only grows), ey y's quantum. Every product so far is a multiple of
    2**(e + ey) and at most ax * ay; while e + ey >= -24 and ax * ay <= L = `_exact_limit` (e + ey), every product is
    a half (two halves multiply exactly in float32). Take a partial sum s that is the half one, and a product p: both
    are multiples of 2**(e + ey), so s + p is one too. If |s + p| <= L it is a half and a float32, and both roundings
    keep it; if |s + p| > L, the float32 sum is above L as well (a multiple of 2**(e + ey) just above L has 12
    significant bits, a float32; larger ones round to no less). So every float32 partial sum within L is the half one,
    and each is checked against the L of its rows; a column where one leaves L is summed again with a rounding after
    every addition. A sum from +0 is never -0 (the first partial sum adds +0), in half as in float32."""
    count = xm.shape[0]
    ey = _quantum(wy, ay) if ay else 0
    ex, ax = 0, 0.0                               # (while x is all zero, every product is +-0: any e will do)
    carry = np.zeros(int(np.prod(rest)), np.float32)           # +0
    bad: np.ndarray | None = None
    for k in range(0, count, step):
        w, a = _widen(np.broadcast_to(xm[k:k + step], (min(step, count - k),) + rest))
        if not a < float("inf"):                  # an inf or NaN
            return None
        if a:
            q = _quantum(w, a)
            ex = q if not ax else min(ex, q)
            ax = max(ax, a)
        e = ex + ey
        limit = _exact_limit(e)
        if e < -24 or ax * ay > limit:            # a product may not be a half, or a sum may not stay exact
            return None
        np.multiply(w, wy[k:k + step] if wy.shape[0] != 1 else wy, out=w)   # the products, exact
        flat = w.reshape(w.shape[0], -1)
        np.add(flat[0], carry, out=flat[0])       # the partial sums, in place
        for r in range(1, flat.shape[0]):
            np.add(flat[r - 1], flat[r], out=flat[r])
        if max(float(flat.max()), -float(flat.min())) > limit:
            out = (flat.max(axis=0) > limit) | (flat.min(axis=0) < -limit)
            bad = out if bad is None else bad | out
        carry = flat[-1].copy()
    if bad is not None:   # sums that left the exact range: again, with a rounding after every addition
        cols = np.flatnonzero(bad)
        xs = widen(np.broadcast_to(xm, (count,) + rest).reshape(count, -1)[:, cols])
        ys = np.broadcast_to(wy, (count,) + rest).reshape(count, -1)[:, cols]
        carry[cols] = _sum_rows(_multiply_wide(xs, ys), start_zero=True)
    return carry.reshape(rest)


#: `sum_of_products` of at most this many products rounds each product with numpy's casts and skips the search
#: for an exact path (at these sizes a numpy call's fixed cost, about a microsecond here, is most of the work: the
#: search alone is some forty calls)
SMALL_PRODUCTS = 4096


def sum_of_products(x: np.ndarray, y: np.ndarray, axis: int, *, chunk_elements: int = 1 << 16) -> np.ndarray:
    """Sum from +0 along ``axis`` of the half products ``x * y`` (float16 arrays of the same rank, ``y``
    broadcastable to ``x``), each product and each addition rounded to half, in order; float32 on the half grid.
    Bit-identical to ``np.add.accumulate`` in float16 over +0 and `multiply`'s products.

    Works through chunks of about ``chunk_elements`` products along ``axis`` (no temporary array much larger than
    a chunk, besides y as float32). When the grids of x and y (see `grid`) show that no product and no partial sum
    needs rounding (small multiples of powers of two, as most test data), the products and sums are plain float32
    ones (`_exact_sums`); otherwise every product and every addition is rounded."""
    xm, ym = np.asarray(x, dtype=np.float16), np.asarray(y, dtype=np.float16)
    axis %= xm.ndim
    if axis:   # the summed axis first, the others in order (one transpose: np.moveaxis costs more at small sizes)
        order = (axis,) + tuple(i for i in range(xm.ndim) if i != axis)
        xm, ym = xm.transpose(order), ym.transpose(order)
    count = xm.shape[0]
    rest = np.broadcast_shapes(xm.shape[1:], ym.shape[1:])
    if count == 0:
        return np.zeros(rest, np.float32)
    columns = math.prod(rest)
    if count * columns <= SMALL_PRODUCTS:   # few products: numpy's casts, no search for an exact path
        with np.errstate(invalid="ignore", over="ignore"):   # inf * 0 is NaN, overflow to inf, as in float16
            products = np.multiply(xm, ym, dtype=np.float32).astype(np.float16).astype(np.float32)
        return _sum_rows(products, start_zero=True)
    step = max(1, chunk_elements // max(1, columns))
    wy, ay = _widen(ym)
    if ay < float("inf"):
        exact = _exact_sums(xm, wy, ay, rest, step)
        if exact is not None:
            return exact
    acc: np.ndarray | None = None
    for k in range(0, count, step):
        yk = wy[k:k + step] if wy.shape[0] != 1 else wy
        prods = np.broadcast_to(_multiply_wide(widen(xm[k:k + step]), yk), (min(step, count - k),) + rest)
        if acc is not None:
            prods = np.concatenate((acc[None], prods))
        acc = _sum_rows(prods, start_zero=acc is None)
    assert acc is not None
    return acc

"""Tensor contents that exercise arithmetic: value recipes drawn by Hypothesis, realized by numpy.

Small quarter-integers never need rounding and never meet the values where implementations go wrong.
A `ValuePlan` is a small recipe Hypothesis draws (and shrinks): a *kind* of ordinary values, a share of
*special* values mixed in, a palette of element bit patterns, and a seed. `realize` turns it into an
array of any length with numpy, so a 60,000-element tensor costs a handful of Hypothesis choices; past
`PERIOD` (65,521, a prime) elements the array repeats itself.

Kinds, per element type:

- ``small``: quarter-integers in [-8, 8] (integers: [-8, 8]); exact in every type; the shrink target.
- ``rounding``: ±2^p (p = the significand's bits: 2048 for half), ±2^(p-1), ±1, ±3, ±0.5, ±0.25, so that
  sums need rounding, ties are common and large terms cancel (a sum rounded once at the end differs from
  one rounded after every operation by whole units); integers: values next to the type's limits.
- ``wide``: random significands with exponents in [-8, 8] (every product and sum needs rounding).
- ``huge``: random bit patterns of finite values over the whole range (overflow, underflow, subnormals).
- ``palette``: every element from a few bit patterns Hypothesis draws (`st.floats` of the type's width,
  or the special patterns): ties, ±0 next to each other, NaN payloads in every lane.

Specials (mixed in at the plan's rate): +0, -0, +inf, -inf, quiet NaN, NaN with a payload, negative NaN, the
smallest and largest subnormals, the smallest normal, the largest finite value (both signs), 1 ± one unit in
the last place; for integers the type's limits, 0, ±1. Types whose bytes carry no arithmetic (hifloat8,
b8..b64) get random bytes, byte patterns 0x00, 0xff, 0x55, 0xaa, 0x80, 0x01 and palettes of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ...cases.fields import read_dtype
from ...spec.dtypes import DType, get_dtype
from .arguments import refused_as_invalid

KINDS: tuple[str, ...] = ("small", "rounding", "wide", "huge", "palette")
#: Shares of special elements a plan may mix in (0 first: the shrink target).
RATES: tuple[float, ...] = (0.0, 1 / 64, 1 / 8, 1 / 2)
PALETTE_MAX = 6


@dataclass(frozen=True)
class ValuePlan:
    """A recipe for a tensor's contents (see the module docstring)."""

    kind: str = "small"
    rate: float = 0.0
    palette: tuple[int, ...] = ()     # bit patterns (unsigned) of the element type
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "rate": self.rate, "palette": list(self.palette), "seed": self.seed}


def _uint(bits: int) -> np.dtype:
    return np.dtype(f"u{max(1, bits // 8)}")


def arithmetic(dtype: DType) -> bool:
    """Elements of this type are numbers the core computes with (not raw bytes)."""
    return dtype.kind in ("float", "int", "uint") and dtype.name not in ("hifloat8", "int4b")


@lru_cache(maxsize=None)
def special_bits(name: str) -> tuple[int, ...]:
    """The special values of an element type as unsigned bit patterns (see the module docstring)."""
    dtype = get_dtype(name)
    u = _uint(dtype.bits)
    if not arithmetic(dtype):
        top = (1 << dtype.bits) - 1
        pats = {0, top, 0x55 * (top // 0xff), 0xAA * (top // 0xff), 1 << (dtype.bits - 1), 1}
        return tuple(sorted(p & top for p in pats))
    t = dtype.numpy
    if dtype.kind != "float":
        info = np.iinfo(t)
        vals = np.array(sorted({0, 1, int(info.max), int(info.max) - 1, int(info.min), int(info.min) + 1}
                               | ({-1} if info.min < 0 else set())), dtype=t)
        return tuple(int(x) for x in vals.view(u))
    fi = ml_dtypes.finfo(t)
    nmant = int(fi.nmant)
    sign = 1 << (dtype.bits - 1)
    finite = [0.0, float(fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal), 1.0]
    out: set[int] = set()
    for x in finite:
        b = int(np.array(x, dtype=t).view(u))
        out.update((b, b | sign))
    one = int(np.array(1.0, dtype=t).view(u))
    out.update((one + 1, one - 1))                                   # 1 + ulp, 1 - ulp/2
    out.update((int(np.array(fi.smallest_normal, dtype=t).view(u)) - 1,) * 1)  # the largest subnormal
    if np.isinf(np.array(np.inf, dtype=t)):
        b = int(np.array(np.inf, dtype=t).view(u))
        out.update((b, b | sign))
    nan = int(np.array(np.nan, dtype=t).view(u)) & ~sign
    out.update((nan, nan | sign))
    if nmant >= 2:  # a quiet NaN with a payload (the quiet bit and the lowest bit set)
        payload = (nan | 1)
        if np.isnan(np.array(payload, dtype=u).view(t)):
            out.add(payload)
    return tuple(sorted(out))


def _bits_to(dtype: DType, bits: Any) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).astype(_uint(dtype.bits)).view(dtype.numpy)


def _rounding_values(dtype: DType) -> np.ndarray:
    """The values of the ``rounding`` plan: float64 for a float type; for an integer type its own dtype (its ends,
    the values next to them, 0, 1 and for a signed type -1 and the halves: the 64-bit ends do not survive float64)."""
    if dtype.kind == "float":
        p = int(ml_dtypes.finfo(dtype.numpy).nmant) + 1
        mags = [2.0 ** p, 2.0 ** (p - 1), 1.0, 3.0, 0.5, 0.25]
        top = float(ml_dtypes.finfo(dtype.numpy).max)
        mags = [m for m in mags if m <= top]
        return np.array(mags + [-m for m in mags], dtype=np.float64)
    info = np.iinfo(dtype.numpy)
    vals = {int(info.max), int(info.max) - 1, int(info.min), int(info.min) + 1, 0, 1}
    if info.min < 0:
        vals |= {-1, int(info.max) // 2 + 1, int(info.min) // 2 - 1}
    return np.array(sorted(vals), dtype=dtype.numpy)


#: Arrays longer than this repeat their first PERIOD elements (`realize`): a prime, so a read that lands d elements
#: from the right one meets an equal element by construction only when d is a multiple of 65,521.
PERIOD = 65521


def _indices(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """``n`` indices in [0, k) for k <= 65,536, from 16 random bits each (multiply and shift: value j is drawn with
    probability within 1/65,536 of 1/k). Several times cheaper than ``rng.integers`` for the small ranges here."""
    idx = _random_bits(rng, np.dtype(np.uint16), n).astype(np.intp)  # numpy's fastest index type
    idx *= k
    idx >>= 16
    return idx


def _picked(rng: np.random.Generator, table: np.ndarray, n: int) -> np.ndarray:
    """``n`` elements of ``table`` drawn uniformly (`_indices`)."""
    return table.take(_indices(rng, table.size, n))


def _random_bits(rng: np.random.Generator, u: np.dtype, n: int) -> np.ndarray:
    """``n`` uniformly random elements of the unsigned type ``u`` (a writable array), from the generator's raw 64-bit
    outputs (a third of the time of ``rng.bytes``)."""
    words = rng.bit_generator.random_raw(-(-n * u.itemsize // 8))
    return words.view(u)[:n]


@lru_cache(maxsize=None)
def _small_bits(name: str) -> np.ndarray:
    """The bit patterns of the ``small`` plan's values of an element type: quarter-integers in [-8, 8] (rounded to
    the type, as a conversion rounds them), integers in [-8, 8] within the type, bytes 0..16 for raw types."""
    dtype = get_dtype(name)
    u = _uint(dtype.bits)
    if not arithmetic(dtype):
        return np.arange(17, dtype=u)
    if dtype.kind == "float":
        return (np.arange(-32, 33, dtype=np.float32) * np.float32(0.25)).astype(dtype.numpy).view(u)
    return np.arange(max(int(np.iinfo(dtype.numpy).min), -8), 9).astype(dtype.numpy).view(u)


@lru_cache(maxsize=None)
def _rounding_bits(name: str) -> np.ndarray:
    """`_rounding_values` of an element type as its bit patterns."""
    dtype = get_dtype(name)
    return _rounding_values(dtype).astype(dtype.numpy).view(_uint(dtype.bits))


def _wide_floats(rng: np.random.Generator, dtype: DType, n: int) -> np.ndarray:
    """The ``wide`` plan of a float type: +-(1 + m) * 2**e, m uniform in [0, 1) at float32's 23 bits, e in [-8, 8],
    built as float32 bit patterns, clipped to the type's largest finite value and rounded to the type."""
    bits = _random_bits(rng, np.dtype(np.uint32), n)
    exponent = (_indices(rng, 17, n).astype(np.uint32) + np.uint32(127 - 8)) << np.uint32(23)
    f32 = ((bits & np.uint32(0x807FFFFF)) | exponent).view(np.float32)  # sign and significand random
    top = float(ml_dtypes.finfo(dtype.numpy).max)
    if top < 2.0 ** 9:  # +-(1 + m) * 2**8 can pass an 8-bit float's largest finite value
        np.clip(f32, -top, top, out=f32)
    return f32.astype(dtype.numpy)


def _dtype(dtype: DType | str) -> DType:
    """The element type named (or given); `InvalidArgument` with the names that come close for an unknown one."""
    if isinstance(dtype, DType):
        return dtype
    with refused_as_invalid():
        return read_dtype(dtype, "dtype")


def realize(plan: ValuePlan, dtype: DType | str, n: int) -> np.ndarray:
    """``n`` elements of ``dtype`` following ``plan`` (the same plan always gives the same array). Past `PERIOD`
    elements the array repeats its first `PERIOD` (a campaign's largest tensor, a feature map filling L1, is 524,288
    elements: realizing each element costs numpy a few nanoseconds, and it was 40% of such a case)."""
    dtype = _dtype(dtype)
    n = int(n)
    if n <= PERIOD:
        return _realize(plan, dtype, n)
    return np.resize(_realize(plan, dtype, PERIOD), n)


def _realize(plan: ValuePlan, dtype: DType, n: int) -> np.ndarray:
    """`realize` for ``n`` <= `PERIOD` (every index below 65,536)."""
    t, u = dtype.numpy, _uint(dtype.bits)
    rng = np.random.default_rng(plan.seed)
    kind = plan.kind if plan.palette or plan.kind != "palette" else "small"  # no colours: the shrink target
    if kind == "palette":
        palette = np.array(plan.palette, dtype=np.uint64)
        if not arithmetic(dtype):
            palette = palette & np.uint64((1 << dtype.bits) - 1)
        bits = _picked(rng, palette.astype(u), n)
    elif kind == "small":
        bits = _picked(rng, _small_bits(dtype.name), n)
    elif kind == "rounding" and arithmetic(dtype):
        bits = _picked(rng, _rounding_bits(dtype.name), n)
    elif kind == "wide" and dtype.kind == "float" and arithmetic(dtype):
        bits = _wide_floats(rng, dtype, n).view(u)
    else:  # any bit pattern: raw types' other plans, integers' wide and huge, floats' huge (finite only)
        bits = _random_bits(rng, u, n)
        if not arithmetic(dtype) and dtype.bits < 8:
            bits &= u.type((1 << dtype.bits) - 1)
        elif dtype.kind == "float" and arithmetic(dtype):
            out = bits.view(t)
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(out.astype(np.float32))
            if bad.any():  # non-finite patterns are the specials' job: the largest finite value instead
                top = np.array(ml_dtypes.finfo(t).max, dtype=t)
                out[bad] = top * np.where(rng.random(int(bad.sum())) < 0.5, -1, 1).astype(t)
    bits = np.ascontiguousarray(bits)
    if plan.rate > 0 and n:
        k = int(rng.binomial(n, plan.rate))
        if k:
            specials = np.array(special_bits(dtype.name), dtype=np.uint64).astype(u)
            bits[_indices(rng, n, k)] = _picked(rng, specials, k)
    return bits.view(t) if arithmetic(dtype) else bits  # raw types (and int4b's packed nibbles) as bytes


# -- Hypothesis strategies -------------------------------------------------------------------------------------------

def element_bits(dtype: DType | str) -> st.SearchStrategy[int]:
    """One element's bit pattern: a special value, or any value of the type (``st.floats`` of its width for half and
    float, any bit pattern for the other types)."""
    dtype = _dtype(dtype)
    u = _uint(dtype.bits)
    specials = st.sampled_from(special_bits(dtype.name))
    if dtype.name in ("half", "float"):
        width = dtype.bits
        floats = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True).map(
            lambda x, t=dtype.numpy: int(np.array(x, dtype=t).view(u)))
        return st.one_of(specials, floats)
    if dtype.kind in ("int", "uint") and arithmetic(dtype):
        info = np.iinfo(dtype.numpy)
        return st.one_of(specials, st.integers(int(info.min), int(info.max)).map(
            lambda x, t=dtype.numpy: int(np.array(x, dtype=t).view(u))))
    return st.one_of(specials, st.integers(0, (1 << dtype.bits) - 1))


@st.composite
def value_plans(draw: Any, dtype: DType | str) -> ValuePlan:
    """A `ValuePlan` for tensors of ``dtype`` (shrinks towards small quarter-integers without specials)."""
    dtype = _dtype(dtype)
    kind = draw(st.sampled_from(KINDS))
    rate = draw(st.sampled_from(RATES))
    palette: tuple[int, ...] = ()
    if kind == "palette":
        palette = tuple(draw(st.lists(element_bits(dtype), min_size=1, max_size=PALETTE_MAX)))
    seed = draw(st.integers(0, 2**32 - 1))
    return ValuePlan(kind, rate, palette, seed)


def tensor_seed(plan: ValuePlan, tensor: str) -> ValuePlan:
    """The plan for one tensor of a case: the same recipe with a seed of its own (tensors differ)."""
    import zlib

    return ValuePlan(plan.kind, plan.rate, plan.palette, (plan.seed ^ zlib.crc32(tensor.encode())) & 0xFFFFFFFF)


def values(dtype: DType | str, size: int) -> st.SearchStrategy[np.ndarray]:
    """Arrays of ``size`` elements of ``dtype`` mixing ordinary and special values (see the module docstring)."""
    dtype = _dtype(dtype)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise InvalidArgument(f"size must be a count of elements (an integer >= 0), got {size!r}")
    return value_plans(dtype).map(lambda p: realize(p, dtype, size))

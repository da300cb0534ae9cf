"""core.extremes.masked_extreme, bit for bit, against a plain per-element reference written here.

The inputs are random float bit patterns (every exponent: subnormals, NaN with random payloads and either sign, +-0,
+-inf), mixed with rows of one sign only (every path: rows that hold a negative float, rows that hold none, and
calls where all rows are of one kind), under random lane masks (all lanes, none, some blocks fully masked). The
reference orders floats as IEEE does with -0 below +0, skips inactive lanes, gives +inf / -inf (the type's largest
/ smallest value for integers) to a row without active lane, and flags a row with an active NaN.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from ascverify import get_api
from ascverify.core.extremes import masked_extreme

UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def reference(x: np.ndarray, active: np.ndarray, kind: str) -> tuple[list, list]:
    """Per row of ``x`` (last axis): the extreme's bits (None for a row with an active NaN) and the NaN flag."""
    lanes = x.shape[-1]
    rows = x.reshape(-1, lanes)
    act = np.broadcast_to(active, x.shape).reshape(-1, lanes)
    is_float = x.dtype.kind == "f"
    if is_float:
        ident = np.array(math.inf if kind == "min" else -math.inf, dtype=x.dtype)
    else:
        info = np.iinfo(x.dtype)
        ident = np.array(info.max if kind == "min" else info.min, dtype=x.dtype)
    bits, nans = [], []
    for row, on in zip(rows, act):
        picked = [row[i] for i in range(lanes) if on[i]]
        if is_float and any(math.isnan(float(v)) for v in picked):
            bits.append(None)
            nans.append(True)
            continue
        best = ident
        for v in picked:
            a, b = float(v), float(best)
            sign_v, sign_b = math.copysign(1.0, a) < 0, math.copysign(1.0, b) < 0
            if kind == "min":
                better = a < b or (a == b == 0 and sign_v and not sign_b)
            else:
                better = a > b or (a == b == 0 and sign_b and not sign_v)
            if not is_float:
                better = int(v) < int(best) if kind == "min" else int(v) > int(best)
            if better:
                best = v
        bits.append(np.array(best, dtype=x.dtype).view(UINT[x.dtype.itemsize]).item())
        nans.append(False)
    return bits, nans


def random_floats(rng: np.random.Generator, dtype: type, shape: tuple) -> np.ndarray:
    """Random bit patterns, the exponent field drawn so that zeros/subnormals and inf/NaN are common."""
    dt = np.dtype(dtype)
    nbits = 8 * dt.itemsize
    mant = {2: 10, 4: 23, 8: 52}[dt.itemsize]
    exp_max = (1 << (nbits - 1 - mant)) - 1
    utype = UINT[dt.itemsize]
    size = math.prod(shape)
    sign = rng.integers(0, 2, size=size).astype(utype)
    exp = rng.choice(np.array([0, 0, 1, exp_max // 2, exp_max - 1, exp_max, exp_max], dtype=np.int64), size=size)
    exp = np.where(rng.random(size) < 0.3, rng.integers(0, exp_max + 1, size=size), exp).astype(utype)
    frac = rng.integers(0, 1 << mant, size=size, dtype=np.uint64).astype(utype)
    frac = np.where(rng.random(size) < 0.25, utype(0), frac).astype(utype)   # exact zeros and infinities
    bits = (sign << utype(nbits - 1)) | (exp << utype(mant)) | frac
    return bits.astype(utype).view(dt).reshape(shape)


def _one_sign(x: np.ndarray, negative: bool) -> np.ndarray:
    """``x`` with every sign bit set (negative) or cleared."""
    utype = UINT[x.dtype.itemsize]
    top = utype(1) << utype(8 * x.dtype.itemsize - 1)
    bits = x.view(utype)
    return (bits | top if negative else bits & ~top).astype(utype).view(x.dtype)


def _masks(rng: np.random.Generator, blocks: int, lanes: int) -> list[np.ndarray]:
    some = rng.random((blocks, lanes)) < 0.5
    some[1] = False                                     # a fully masked block
    one = np.zeros((blocks, lanes), dtype=bool)
    one[:, rng.integers(0, lanes)] = True
    return [np.ones((blocks, lanes), dtype=bool), np.zeros((blocks, lanes), dtype=bool), some, one]


def _check(x: np.ndarray, active: np.ndarray | None, kind: str) -> None:
    got, nan = masked_extreme(x, active, kind)
    want, want_nan = reference(x, np.ones(x.shape[1:], dtype=bool) if active is None else active, kind)
    assert got.shape == x.shape[:-1] and nan.shape == x.shape[:-1] and got.dtype == x.dtype
    assert nan.reshape(-1).tolist() == want_nan
    got_bits = got.view(UINT[x.dtype.itemsize]).reshape(-1).tolist()
    for i, (g, w) in enumerate(zip(got_bits, want)):
        if w is not None:
            assert g == w, (kind, i, hex(g), hex(w))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("kind", ["min", "max"])
def test_random_float_bits(dtype, kind):
    rng = np.random.default_rng(20261201)
    lanes = 32 // np.dtype(dtype).itemsize
    for trial in range(6):
        x = random_floats(rng, dtype, (23, 8, lanes))
        if trial == 1:
            x = _one_sign(x, negative=True)               # every row holds a negative float
        elif trial == 2:
            x = _one_sign(x, negative=False)              # no row does
        elif trial == 3:                                  # rows of one sign each, no NaN anywhere
            x = np.where(np.isnan(x), np.array(0, dtype=dtype), x)
            x[::2] = _one_sign(x[::2], negative=True)
            x[1::2] = _one_sign(x[1::2], negative=False)
        elif trial == 4:                                  # only a positive NaN, in a row of negatives
            x = _one_sign(np.where(np.isnan(x), np.array(1, dtype=dtype), x), negative=True)
            utype = UINT[x.dtype.itemsize]
            x.view(utype)[3, 2, 1] = np.array(np.inf, dtype=dtype).view(utype) + utype(1)
        for active in _masks(rng, 8, lanes):
            _check(x, active, kind)
        _check(x, None, kind)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_nan_payloads_and_signs_are_flagged(dtype):
    """Every NaN bit pattern class (quiet, signalling, either sign, smallest and largest payload) is flagged, alone in
    a row of numbers of either sign, and the other rows keep their exact extremes."""
    dt = np.dtype(dtype)
    utype = UINT[dt.itemsize]
    nbits, mant = 8 * dt.itemsize, {2: 10, 4: 23}[dt.itemsize]
    inf = int(np.array(np.inf, dtype=dt).view(utype))
    sign = 1 << (nbits - 1)
    payloads = [inf + 1, inf + (1 << (mant - 1)), inf | ((1 << mant) - 1)]
    nans = [p | s for p in payloads for s in (0, sign)]
    lanes = 32 // dt.itemsize
    rng = np.random.default_rng(7)
    for kind in ("min", "max"):
        for bits in nans:
            for negative in (False, True):
                x = _one_sign(np.where(np.isnan(y := random_floats(rng, dtype, (4, 8, lanes))),
                                       np.array(2, dtype=dtype), y), negative)
                x.view(utype)[2, 5, 3] = utype(bits)
                _check(x, None, kind)
                active = np.ones((8, lanes), dtype=bool)
                active[5, 3] = False                       # the NaN's lane masked off: no flag
                _check(x, active, kind)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.int32, np.uint32])
@pytest.mark.parametrize("kind", ["min", "max"])
def test_integers(dtype, kind):
    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    lanes = 32 // np.dtype(dtype).itemsize
    x = rng.integers(info.min, info.max, (17, 8, lanes), dtype=dtype, endpoint=True)
    for active in _masks(rng, 8, lanes):
        _check(x, active, kind)


def test_shapes_and_bad_input():
    x = np.arange(6 * 16, dtype=np.float16).reshape(2, 3, 16) - 40
    got, nan = masked_extreme(x, None, "min")
    assert got.tolist() == [[-40, -24, -8], [8, 24, 40]] and not nan.any()
    got, _ = masked_extreme(x[:, :, :0], np.ones((3, 0), dtype=bool), "max")   # no lane: the identity
    assert got.shape == (2, 3) and np.all(got == -np.inf)
    got, _ = masked_extreme(x[:0], None, "min")
    assert got.shape == (0, 3)
    got, _ = masked_extreme(x[:, 1, :], np.arange(16) < 2, "max")            # 2-D, a mask per lane
    assert got.tolist() == [-16 - 7, 64 - 39]
    with pytest.raises(ValueError, match="lane axis"):
        masked_extreme(x[0, 0], None, "min")
    with pytest.raises(ValueError, match="kind"):
        masked_extreme(x, None, "mean")
    with pytest.raises(TypeError, match="complex64"):
        masked_extreme(x.astype(np.complex64), None, "min")


@pytest.mark.parametrize("api, kind", [("BlockReduceMin", "min"), ("BlockReduceMax", "max")])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_block_reduce_models_reduce_bit_for_bit(api, kind, dtype):
    """The models' ``reduce`` (built on masked_extreme) on random bits, per product, against the reference and the
    spec notes: an active NaN gives NaN on atlas-350 (and for float on atlas-a2 / a3) and an unspecified (poisoned)
    result elsewhere; BlockReduceMax
    on atlas-200i-500-a2 half marks a partial block whose active elements are all -inf unspecified; every other
    block with an active lane is its exact extreme (-0 below +0), not poisoned. Fully masked blocks are the caller's
    (`masked_fill`) and are not looked at."""
    class OnProduct:   # what reduce reads of a case: the product and T
        def __init__(self, product: str) -> None:
            self.product = product
            self.ctx = SimpleNamespace(dtype=SimpleNamespace(name="half" if dtype == np.float16 else "float",
                                                             size=np.dtype(dtype).itemsize))

    model = get_api(api)
    rng = np.random.default_rng(99)
    lanes = 32 // np.dtype(dtype).itemsize
    utype = UINT[np.dtype(dtype).itemsize]
    for product in ("atlas-350", "atlas-a2", "atlas-200i-500-a2", "atlas-training"):
        for trial in range(8):
            x = random_floats(rng, dtype, (11, 8, lanes))
            if trial % 2:
                x = np.where(np.isnan(x), np.array(-np.inf, dtype=dtype), x)    # no NaN; -inf common
            active = _masks(rng, 8, lanes)[trial % 4]
            got, poison = model.reduce(OnProduct(product), x.copy(), active)
            poison = np.zeros(got.shape, dtype=bool) if poison is None else np.broadcast_to(poison, got.shape)
            want, want_nan = reference(x, active, kind)
            partial = active.any(axis=-1) & ~active.all(axis=-1)
            for i, (w, nan) in enumerate(zip(want, want_nan)):
                r, b = divmod(i, 8)
                if not active[b].any():
                    continue
                if nan:  # NaN on atlas-350, and for float on atlas-a2 (the boundary-values appendix, Tables 33-34)
                    if product == "atlas-350" or (product == "atlas-a2" and dtype == np.float32):
                        assert np.isnan(got[r, b]) and not poison[r, b]
                    else:
                        assert poison[r, b]
                    continue
                all_neg_inf = kind == "max" and w == int(np.array(-np.inf, dtype=dtype).view(utype))
                if product == "atlas-200i-500-a2" and dtype == np.float16 and partial[b] and all_neg_inf:
                    assert poison[r, b]
                    continue
                assert not poison[r, b] and int(got[r, b:b + 1].view(utype)[0]) == w, (product, trial, r, b)

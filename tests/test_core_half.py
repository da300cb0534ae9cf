"""Half arithmetic in float32 (core.half) and per-row extremes on float bits (core.extremes), against numpy's own
float16 operations (the reference) and values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify.core import half
from ascverify.core.extremes import any_last, masked_extreme

ALL_HALVES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
FINITE = ALL_HALVES[np.isfinite(ALL_HALVES)]


def bits32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


# core.half converts and rounds small arrays with numpy's casts (and sums few products without looking for an exact
# path), larger ones on the bits: every test here runs once with each path forced, whatever its arrays' sizes
@pytest.fixture(autouse=True, params=["bits", "casts"])
def path(request, monkeypatch):
    limit = 0 if request.param == "bits" else 1 << 40
    for name in ("CAST_WIDEN_ELEMENTS", "CAST_ROUND_ELEMENTS", "SMALL_PRODUCTS"):
        monkeypatch.setattr(half, name, limit)
    return request.param


def test_widen_is_exact_for_every_half():
    assert np.array_equal(bits32(half.widen(ALL_HALVES)), bits32(ALL_HALVES.astype(np.float32)))
    assert np.array_equal(bits32(half.widen(FINITE)), bits32(FINITE.astype(np.float32)))


def test_round_half_by_hand():
    # half has 11 significant bits: between 2048 and 4096 the step is 2, so 2049 is a tie (to even: 2048) and
    # 2051 a tie too (to even: 2052); 65504 is the largest half, 65519.99 still rounds down to it, 65520 overflows;
    # below 2**-14 the step is 2**-24: 2**-25 is a tie between 0 and 2**-24 (to even: 0), 3 * 2**-25 rounds to 2**-23
    x = np.array([2049, 2051, 2050.5, 65504, 65519.99, 65520, -65520, 2.0 ** -25, 3 * 2.0 ** -25, -0.0],
                 dtype=np.float32)
    want = [2048, 2052, 2050, 65504, 65504, np.inf, -np.inf, 0.0, 2.0 ** -23, -0.0]
    got = half.round_half(x)
    assert got.tolist() == want
    assert np.signbit(got[-1]) and not np.signbit(got[7])


def test_round_half_matches_numpy_on_random_bit_patterns():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 32, 1 << 21, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16).astype(np.float32)
        got = half.round_half(x)
    assert np.array_equal(bits32(got), bits32(want))
    near = (rng.integers(-70000 * 8192, 70000 * 8192, 1 << 20) / 8192).astype(np.float32)   # ties and overflows
    with np.errstate(over="ignore"):
        assert np.array_equal(bits32(half.round_half(near)), bits32(near.astype(np.float16).astype(np.float32)))


def test_multiply_by_hand_and_against_float32_rounding():
    # 3 * 683 = 2049: a tie between 2048 and 2050, to even -> 2048; 3 * 685 = 2055 -> 2056;
    # (1 + 2**-10)**2 = 1 + 2**-9 + 2**-20 -> 1 + 2**-9
    a = np.array([3, 3, 1 + 2.0 ** -10], dtype=np.float16)
    b = np.array([683, 685, 1 + 2.0 ** -10], dtype=np.float16)
    assert half.multiply(a, b).tolist() == [2048, 2056, 1 + 2.0 ** -9]
    rng = np.random.default_rng(2)
    for pool in (ALL_HALVES, FINITE, FINITE[(np.abs(FINITE) < 2.0 ** -8) | (np.abs(FINITE) > 200)]):
        x = pool[rng.integers(0, pool.size, 1500)]
        y = pool[rng.integers(0, pool.size, 1500)]
        with np.errstate(all="ignore"):
            want = (x[:, None].astype(np.float32) * y[None, :].astype(np.float32)).astype(np.float16)
            got = half.multiply(x[:, None], y[None, :])
        assert np.array_equal(bits32(got), bits32(want.astype(np.float32)))


def reference_sum(terms16: np.ndarray, axis: int) -> np.ndarray:
    """numpy's float16 additions in order from +0 (the models' former implementation)."""
    start = np.zeros_like(np.take(terms16, [0], axis=axis))
    with np.errstate(all="ignore"):
        out = np.add.accumulate(np.concatenate((start, terms16), axis=axis), axis=axis, dtype=np.float16)
    return np.take(out, -1, axis=axis)


# a running sum over at most `half.FLOAT16_COLUMNS` columns adds in float16, a wider one rounds float32 sums on the
# bits: both are tested, each against numpy's float16 additions
NARROW, WIDE = 16, 128
assert 6 * NARROW <= half.FLOAT16_COLUMNS < 6 * WIDE


@pytest.mark.parametrize("lanes", [NARROW, WIDE])
@pytest.mark.parametrize("scale", [0.25, 1.0, 3000.0, 1e-6])
def test_running_sum_matches_numpy_float16_additions(scale, lanes):
    rng = np.random.default_rng(3)
    t = (rng.standard_normal((6, 300, lanes)) * scale).astype(np.float16)
    if scale == 0.25:
        t = (rng.integers(-8, 9, t.shape) / 4).astype(np.float16)   # every partial sum exact
    with np.errstate(all="ignore"):
        got = half.running_sum(t.astype(np.float32), axis=1)
    assert np.array_equal(bits32(got), bits32(reference_sum(t, 1).astype(np.float32)))


@pytest.mark.parametrize("lanes", [4 * NARROW, 4 * WIDE])
def test_running_sum_of_every_half_matches_numpy_float16_additions(lanes):
    # inf, NaN (payloads, signs: which NaN survives two NaNs is numpy's choice), -0, subnormals, overflow
    rng = np.random.default_rng(7)
    t = ALL_HALVES[rng.integers(0, ALL_HALVES.size, (3, 40, lanes))]
    half_lanes = lanes // 2                                              # half the lanes finite: overflow, -0 + +0
    t[:, :, :half_lanes] = FINITE[rng.integers(0, FINITE.size, (3, 40, half_lanes))]
    with np.errstate(all="ignore"):
        got = half.running_sum(t.astype(np.float32), axis=1)
        from_first = half.running_sum(t.astype(np.float32), axis=1, start_zero=False)
        want_first = np.add.accumulate(t, axis=1, dtype=np.float16)[:, -1]
    assert np.array_equal(bits32(got), bits32(reference_sum(t, 1).astype(np.float32)))
    assert np.array_equal(bits32(from_first), bits32(want_first.astype(np.float32)))


def test_running_sum_edges():
    # 60000 + 10000 overflows to inf and stays there; an all -0 sum from +0 is +0; NaN propagates
    t = np.array([[60000, 10000, -5000], [-0.0, -0.0, -0.0], [1, np.nan, 2], [np.inf, -np.inf, 1]], np.float16)
    with np.errstate(all="ignore"):
        got = half.running_sum(t.astype(np.float32), axis=1)
    assert got[0] == np.inf and got[1] == 0 and not np.signbit(got[1]) and np.isnan(got[2]) and np.isnan(got[3])
    assert np.array_equal(bits32(got), bits32(reference_sum(t, 1).astype(np.float32)))


@pytest.mark.parametrize("kind", ["quarters", "normal", "wide", "every half", "tiny"])
def test_sum_of_products_matches_multiply_then_add(kind):
    rng = np.random.default_rng(4)
    shape = (5, 97, 8, 16)
    if kind == "every half":   # inf, NaN (payloads, both signs), -0, subnormals, the largest halves
        x = ALL_HALVES[rng.integers(0, ALL_HALVES.size, shape)]
        y = ALL_HALVES[rng.integers(0, ALL_HALVES.size, (5, 97, 8, 1))]
    elif kind == "tiny":        # products below 2**-14 round to the subnormal grid of 2**-24
        x = (rng.standard_normal(shape) * 2.0 ** -8).astype(np.float16)
        y = (rng.standard_normal((5, 97, 8, 1)) * 2.0 ** -6).astype(np.float16)
    elif kind == "quarters":
        x = (rng.integers(-8, 9, shape) / 4).astype(np.float16)
        y = (rng.integers(-8, 9, (5, 97, 1, 1)) / 4).astype(np.float16)
    else:
        s = 1.0 if kind == "normal" else 300.0
        x = (rng.standard_normal(shape) * s).astype(np.float16)
        y = (rng.standard_normal((5, 97, 8, 1)) * s).astype(np.float16)
    with np.errstate(all="ignore"):
        products = (x.astype(np.float32) * y.astype(np.float32)).astype(np.float16)
        got = half.sum_of_products(x, y, axis=1, chunk_elements=5000)
    assert np.array_equal(bits32(got), bits32(reference_sum(products, 1).astype(np.float32)))


def test_sum_of_products_of_negative_zeros_is_positive_zero():
    # each column's products are -0 (-0 * 3, 2 * -0, -0 * -0 is +0 in one column): a sum from +0 is +0; one product
    # alone, -0, summed from +0 is +0 as well; a NaN product (inf * 0) makes its column NaN
    x = np.array([[-0.0, 2.0, -0.0, 5.0], [-0.0, 2.0, -0.0, np.inf]], np.float16)
    y = np.array([[3.0, -0.0, -0.0, 1.0], [3.0, -0.0, 1.0, 0.0]], np.float16)
    with np.errstate(all="ignore"):
        got = half.sum_of_products(x, y, axis=0)
        one = half.sum_of_products(x[:1], y[:1], axis=0)
    assert got[:3].tolist() == [0.0, 0.0, 0.0] and not np.signbit(got[:3]).any() and np.isnan(got[3])
    assert one.tolist() == [0.0, 0.0, 0.0, 5.0] and not np.signbit(one).any()


def reference_extreme(x: np.ndarray, active: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Element by element: the min / max over active lanes with -0 below +0 (None where none is active)."""
    rows = x.reshape(-1, x.shape[-1])
    act = np.broadcast_to(active, x.shape).reshape(-1, x.shape[-1])
    values, nans = [], []
    for row, a in zip(rows, act):
        picked = [v for v, on in zip(row.tolist(), a.tolist()) if on]
        nans.append(any(v != v for v in picked))
        if not picked:
            values.append(None)
            continue
        key = lambda v: (v, not np.signbit(v))  # noqa: E731 - -0 orders below +0
        clean = [v for v in picked if v == v]
        best = (min if kind == "min" else max)(clean, key=key) if clean else None
        values.append(best)
    return values, np.array(nans).reshape(x.shape[:-1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int16, np.int32])
@pytest.mark.parametrize("kind", ["min", "max"])
def test_masked_extreme_matches_element_by_element(dtype, kind):
    rng = np.random.default_rng(5)
    lanes = 32 // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        pool = np.array([0.0, -0.0, 1.5, -1.5, 2.0, -7.25, np.inf, -np.inf, 65504, -65504], dtype=dtype)
        x = pool[rng.integers(0, pool.size, (40, 8, lanes))]
        x[3, 2, 1] = np.nan
        x[5, 0, 0] = -np.nan
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, (40, 8, lanes), dtype=dtype, endpoint=True)
    active = rng.random((8, lanes)) < 0.6
    active[4] = False
    got, nan = masked_extreme(x, active, kind)
    want, want_nan = reference_extreme(x, active, kind)
    assert np.array_equal(nan, want_nan)
    flat = got.reshape(-1)
    for i, w in enumerate(want):
        if want_nan.reshape(-1)[i]:
            continue
        if w is None:   # no active lane: the identity
            ident = (np.inf if kind == "min" else -np.inf) if np.dtype(dtype).kind == "f" else \
                (np.iinfo(dtype).max if kind == "min" else np.iinfo(dtype).min)
            assert flat[i] == ident
        else:
            assert flat[i] == w and bool(np.signbit(flat[i])) == bool(np.signbit(w)), (i, flat[i], w)


def test_any_last():
    rng = np.random.default_rng(6)
    for width in (8, 16, 5):
        flags = rng.random((30, 4, width)) < 0.05
        assert np.array_equal(any_last(flags), flags.any(axis=-1))

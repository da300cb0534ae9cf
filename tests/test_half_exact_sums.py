"""core.half's exact path for sums of products (`grid`, the rounding-free float32 sums of `sum_of_products`):
bit for bit against numpy's own float16 arithmetic (each product and each addition rounded to half, in order, from
+0), on data built so that the exact path is taken, left part-way, or refused; and the grids worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify.core import half


def bits32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def reference(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    """numpy's float16 arithmetic: products rounded to half (a float32 product of two halves is exact, so this is
    numpy's float16 multiply), then float16 additions in order from +0 along ``axis``."""
    with np.errstate(all="ignore"):
        products = (x.astype(np.float32) * y.astype(np.float32)).astype(np.float16)
        products = np.broadcast_to(products, np.broadcast_shapes(x.shape, y.shape))
        start = np.zeros_like(np.take(products, [0], axis=axis))
        sums = np.add.accumulate(np.concatenate((start, products), axis=axis), axis=axis, dtype=np.float16)
    return np.take(sums, -1, axis=axis).astype(np.float32)


# the exact path is what is tested here: no sum is too small to look for it; widening and rounding run once with
# numpy's casts and once on the bits (core.half picks by size)
@pytest.fixture(autouse=True, params=["bits", "casts"])
def path(request, monkeypatch):
    monkeypatch.setattr(half, "SMALL_PRODUCTS", 0)
    limit = 0 if request.param == "bits" else 1 << 40
    for name in ("CAST_WIDEN_ELEMENTS", "CAST_ROUND_ELEMENTS"):
        monkeypatch.setattr(half, name, limit)
    return request.param


def sop(x: np.ndarray, y: np.ndarray, axis: int, **kw) -> np.ndarray:
    with np.errstate(all="ignore"):
        return half.sum_of_products(x, y, axis, **kw)


def no_rounded_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if any sum goes through the rounding loop (the exact path must have done all of it)."""
    def refuse(*a, **k):
        raise AssertionError("a column was summed with roundings")
    monkeypatch.setattr(half, "_sum_rows", refuse)


# -- grid ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("values, want", [
    ([0.25, -0.75, 2.0], (-2, 2.0)),          # 0.75 = 3 * 2**-2; 0.25 = 2**-2; 2 = 2**1: the smallest quantum 2**-2
    ([-0.0, 0.0], (0, 0.0)),                   # all zero: any quantum, magnitude 0
    ([2.0 ** -24, 1.0], (-24, 1.0)),           # the smallest subnormal half
    ([65504.0], (5, 65504.0)),                 # 65504 = 2047 * 32 (2047 odd)
    ([1025.0, -3.0], (0, 1025.0)),             # 1025 (11 significant bits) is a half; magnitudes >= 128: int64 path
    ([3072.0, 1024.0], (10, 3072.0)),          # 3 * 2**10 and 2**10
    ([-96.0, 0.375], (-3, 96.0)),              # 0.375 = 3 * 2**-3
])
def test_grid_by_hand(values, want):
    x = np.array(values, np.float16)
    assert half.grid(x) == want
    assert half.grid(x.astype(np.float32)) == want        # float32 holding halves: the same answer


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_grid_refuses_inf_and_nan(bad):
    assert half.grid(np.array([1.0, bad, 0.5], np.float16)) is None


def test_grid_of_every_finite_half_one_at_a_time():
    # each finite nonzero half alone: its magnitude, and its quantum from the bits (value = M * 2**(E - 25), M with
    # the implicit bit for normal halves, E at least 1), worked out here without numpy's float arithmetic
    bits = np.arange(1, 0x7C00, 37, dtype=np.uint16)
    for b in bits.tolist():
        e_field, m = b >> 10, b & 0x3FF
        big_m = m | 0x400 if e_field else m
        tz = (big_m & -big_m).bit_length() - 1
        want_e = max(e_field, 1) - 25 + tz
        x = np.array([b, b | 0x8000], np.uint16).view(np.float16)
        e, a = half.grid(x)
        assert e == want_e, hex(b)
        assert a == big_m * 2.0 ** (max(e_field, 1) - 25)


# -- sums of products ------------------------------------------------------------------------------------------------

def test_quarters_take_the_exact_path_bit_for_bit(monkeypatch):
    # products of k/4 values (|k| <= 8) are multiples of 1/16 up to 4; 240 of them stay far below 2048/16 = 128 when
    # they cancel (alternating signs here), so no sum is rounded
    rng = np.random.default_rng(0)
    x = (rng.integers(1, 9, (240, 3, 8, 16)) / 4).astype(np.float16)
    x[1::2] *= -1
    y = (rng.integers(1, 9, (240, 3, 1, 1)) / 4).astype(np.float16)
    y[:] = 0.25
    want = reference(x, y, 0)
    no_rounded_sums(monkeypatch)
    assert np.array_equal(bits32(sop(x, y, 0, chunk_elements=1000)), bits32(want))


def test_columns_that_leave_the_exact_range_are_rounded():
    # x = 1.25 (5 * 2**-2), y = 1: products 1.25, exact range 2**(-2 + 11) = 512. Above 512 a half steps by 0.5,
    # so the running sum 512.5 + 1.25 = 513.75 is a tie (513.5 or 514) and rounds: from there on every addition
    # rounds, and 500 terms do not end at the exact 625
    count = 500
    x = np.full((count, 4), 1.25, np.float16)
    x[:, 2:] = 0.25                                         # these columns end at 125: exact all the way
    y = np.ones((count, 1), np.float16)
    got = sop(x, y, 0, chunk_elements=64)
    want = reference(x, y, 0)
    assert np.array_equal(bits32(got), bits32(want))
    assert got[2] == 125.0 and got[0] != 625.0              # the rounded columns differ from the exact sum


def test_a_carry_out_of_a_smaller_range_is_summed_again():
    # rows 0..9: x = 110 (a multiple of 2): sums reach 1100, inside 2**(1 + 11) = 4096. Row 10: x = 0.5 brings the
    # quantum to 2**-1 and the exact range to 1024, which the carried 1100 already leaves: in half 1100 + 0.5 is a
    # tie between 1100 and 1101 (the step is 1 from 1024 on), to even: 1100 -- exact float32 would say 1100.5
    x = np.concatenate((np.full((10, 3), 110.0), np.full((1, 3), 0.5))).astype(np.float16)
    y = np.ones((11, 1), np.float16)
    got = sop(x, y, 0, chunk_elements=6)                    # two rows a chunk: the 0.5 comes in a later chunk
    assert got.tolist() == [1100.0] * 3
    assert np.array_equal(bits32(got), bits32(reference(x, y, 0)))


def test_a_coarser_grid_later_does_not_widen_the_exact_range():
    # 0.25 first (quantum 2**-2), then 1024s (quantum 2**10) a chunk later: 0.25 + 1024 = 1024.25 is no half (the
    # step is 1 from 1024 on): it rounds to 1024, and so on; the grid of the rows so far (2**-2, up to 1024) allows
    # no exact path (1024 is above 2**(-2 + 11) = 512)
    x = np.array([[0.25], [1024.0], [1024.0]], np.float16)
    y = np.ones((3, 1), np.float16)
    got = sop(x, y, 0, chunk_elements=1)
    assert got.tolist() == [2048.0]
    assert np.array_equal(bits32(got), bits32(reference(x, y, 0)))


def test_negative_zero_products_sum_to_positive_zero(monkeypatch):
    x = np.full((7, 5), -0.0, np.float16)
    x[3, 1] = 0.5
    x[3, 2] = -0.5
    y = np.ones((7, 1), np.float16)
    y[4] = -0.5                                             # 0.5 * -0.5 then -0 terms: sums -0.25, then ...
    want = reference(x, y, 0)
    no_rounded_sums(monkeypatch)
    got = sop(x, y, 0)
    assert np.array_equal(bits32(got), bits32(want))
    assert not np.signbit(got[0]) and not np.signbit(got[4])   # all -0 terms from +0: +0


def test_large_values_overflow_and_specials_take_the_rounded_path():
    rng = np.random.default_rng(5)
    for x, y in [
        (np.full((3, 2), 40000.0, np.float16), np.full((3, 1), 2.0, np.float16)),      # a product overflows
        (np.array([[1.0, np.inf], [2.0, 1.0]], np.float16), np.ones((2, 1), np.float16)),
        (np.array([[1.0, np.inf], [2.0, 1.0]], np.float16), np.zeros((2, 1), np.float16)),   # inf * 0 = NaN
        ((rng.standard_normal((50, 9)) * 100).astype(np.float16), (rng.standard_normal((50, 1))).astype(np.float16)),
        ((rng.integers(-8, 9, (30, 6)) * 2.0 ** -20).astype(np.float16),               # products below 2**-24
         (rng.integers(-8, 9, (30, 1)) * 2.0 ** -10).astype(np.float16)),
    ]:
        got, want = sop(x, y, 0, chunk_elements=4), reference(x, y, 0)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        assert np.array_equal(bits32(got[ok]), bits32(want[ok]))


@pytest.mark.parametrize("seed", range(12))
def test_random_grids_and_shapes_bit_for_bit(seed):
    # small multiples of a random power of two (the exact path, sometimes left by some columns), with a few
    # draws of arbitrary halves (the rounded path); y per row, per row and block, or one for all rows
    rng = np.random.default_rng(100 + seed)
    count, v, blocks, lanes = int(rng.integers(1, 300)), int(rng.integers(1, 4)), 8, 16
    qx, qy = int(rng.integers(-12, 6)), int(rng.integers(-12, 6))
    kx, ky = int(rng.integers(1, 64)), int(rng.integers(1, 64))
    x = (rng.integers(-kx, kx + 1, (v, count, blocks, lanes)) * 2.0 ** qx).astype(np.float16)
    yshape = [(v, count, 1, 1), (v, count, blocks, 1), (v, 1, 1, 1)][seed % 3]
    y = (rng.integers(-ky, ky + 1, yshape) * 2.0 ** qy).astype(np.float16)
    if seed % 4 == 3:
        x.reshape(-1)[rng.integers(0, x.size, 5)] = rng.standard_normal(5).astype(np.float16)
    chunk = int(rng.integers(1, 5000))
    assert np.array_equal(bits32(sop(x, y, 1, chunk_elements=chunk)), bits32(reference(x, y, 1)))

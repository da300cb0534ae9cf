"""Accesses with more rows than core.intervals handles at a time (its `_CHUNK`): gathered bytes, the even-step test
and faults in a late chunk, against per-byte references built here with plain numpy indexing."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify.core import intervals
from ascverify.core.intervals import Rows, gather
from ascverify.core.memory import Fault, Memory, Trace

N = 2 * intervals._CHUNK + 123      # three chunks, the last one short


def by_byte(arr: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    return arr[starts[:, None] + np.arange(length)]


@pytest.mark.parametrize("length, unit", [(32, 32), (32, 8), (32, 2), (6, 2), (5, 1)])
def test_gather_of_many_scattered_rows(length, unit):
    # starts drawn as multiples of ``unit`` (the granule the rows share is at least that), in random order
    rng = np.random.default_rng(length * 10 + unit)
    arr = rng.integers(0, 256, 1 << 16, dtype=np.uint8)
    starts = rng.integers(0, (arr.size - length) // unit, N).astype(np.int64) * unit
    got = gather(arr, Rows(starts, length, np.zeros(N, np.int64)))
    assert got.shape == (N, length) and got.dtype == np.uint8
    assert np.array_equal(got, by_byte(arr, starts, length))


@pytest.mark.parametrize("where", [1, 2, intervals._CHUNK - 1, intervals._CHUNK, intervals._CHUNK + 1, N - 2])
def test_even_step_is_seen_across_chunks(where):
    starts = 100 + 4 * np.arange(N, dtype=np.int64)
    assert Rows(starts, 4, np.zeros(N, np.int64)).step == 4
    bent = starts.copy()
    bent[where] += 2        # one row off the grid (the ends still on it when where < N - 1)
    rows = Rows(bent, 4, np.zeros(N, np.int64))
    assert rows.step is None
    assert (rows.lo, rows.hi) == (100, 100 + 4 * (N - 1) + 4)


def test_read_of_many_rows_and_a_fault_in_the_last_chunk():
    mem = Memory({"UB": 1 << 18})
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 1 << 17, dtype=np.uint8)
    mem.fill("UB", 0, data)
    starts = rng.integers(0, (1 << 17) // 32 - 1, N).astype(np.int64) * 32
    its = np.arange(N, dtype=np.int64) // 100
    got = Trace(mem).read("UB", starts, 32, its, align=32)
    assert np.array_equal(got, by_byte(data, starts, 32))
    starts[-5] = (1 << 17) + 64              # past the filled bytes: uninitialized
    with pytest.raises(Fault) as err:
        Trace(mem).read("UB", starts, 32, its, align=32)
    assert err.value.kind == "uninitialized" and err.value.iteration == its[-5]

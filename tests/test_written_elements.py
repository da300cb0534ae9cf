"""`checks.written_elements`: which elements of a tensor a call stored, from the trace's write records, on every path
(a few intervals, many intervals, sparse bytes over a large tensor, byte masks, writes reaching past the tensor or in
another buffer), against a byte-by-byte reference written here."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify.core.memory import Memory, Trace
from ascverify.engines.fuzz.checks import SPARSE_WRITES, written_elements
from ascverify.spec.products import get_product


def reference(trace: Trace, buffer: str, start: int, stop: int, itemsize: int) -> np.ndarray:
    """Every stored byte marked one at a time (a masked-off byte is not stored), then per element: any byte."""
    flags = [False] * (stop - start)
    for r in trace.records:
        if r.kind != "write" or r.buffer != buffer:
            continue
        starts = np.asarray(r.starts).reshape(-1).tolist()
        mask = None if r.byte_mask is None else np.asarray(r.byte_mask).reshape(len(starts), -1)
        for i, s in enumerate(starts):
            for j in range(int(r.length)):
                if mask is not None and not mask[i, j]:
                    continue
                if start <= s + j < stop:
                    flags[s + j - start] = True
    return np.array(flags, dtype=bool).reshape(-1, itemsize).any(axis=1)


def _trace() -> Trace:
    return Trace(Memory.for_product(get_product("atlas-a2")), strict=False)


def _write(trace: Trace, buffer: str, starts: np.ndarray, length: int, mask: np.ndarray | None = None) -> None:
    starts = np.asarray(starts, dtype=np.int64)
    data = np.zeros((starts.size, length), np.uint8)
    trace.write(buffer, starts, length, data, np.arange(starts.size), byte_mask=mask)


@pytest.mark.parametrize("seed", range(12))
def test_written_elements_match_the_bytes_stored(seed):
    rng = np.random.default_rng(seed)
    trace = _trace()
    start, stop, itemsize = 4096, 4096 + 2 * 40_000, 2          # a 40,000-element half tensor in UB
    # one element per block: sparse (a few hundred bytes over 80,000)
    sparse = start - 64 + 32 * rng.choice(2600, size=300, replace=False)
    _write(trace, "UB", sparse, 2)
    assert sparse.size * 2 <= (stop - start) // SPARSE_WRITES
    # whole blocks: many intervals (a difference array), some past either end of the tensor
    dense = start - 256 + 32 * rng.choice(2600, size=1500, replace=False)
    _write(trace, "UB", dense, 32)
    # a few long intervals (slices)
    _write(trace, "UB", start + 256 * rng.choice(300, size=5, replace=False), 256)
    # a byte mask: only some lanes of each row stored
    rows = start + 64 * rng.choice(1200, size=40, replace=False)
    _write(trace, "UB", rows, 64, rng.random((40, 64)) < 0.3)
    # another buffer: none of the tensor's
    _write(trace, "L1", start + 32 * np.arange(100), 32)
    got = written_elements(trace, "UB", start, stop, itemsize)
    want = reference(trace, "UB", start, stop, itemsize)
    assert got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("itemsize", [1, 2, 4])
def test_sparse_writes_alone_mark_exactly_their_elements(itemsize):
    trace = _trace()
    start, stop = 1024, 1024 + 64_000
    starts = np.array([start - 2, start, start + 33, stop - 1, stop + 5], np.int64)   # edges and outside
    _write(trace, "UB", starts, 2)
    got = written_elements(trace, "UB", start, stop, itemsize)
    want = np.zeros(64_000, bool)
    for s in starts.tolist():
        for b in (s, s + 1):
            if start <= b < stop:
                want[b - start] = True
    assert np.array_equal(got, want.reshape(-1, itemsize).any(axis=1))

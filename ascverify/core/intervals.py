"""The byte intervals of one access call, handled as intervals rather than per-byte index arrays.

An access call touches ``n`` rows ``[start, start + length)`` of one buffer. `Rows` holds them with their bounds,
whether the starts step evenly and whether two rows share a byte. `gather` and `scatter` move their bytes through
a strided view (evenly stepping starts) or through the widest power-of-two granule that divides every start and the
length (one index per granule, not per byte). `window_reduce` gives per-byte iteration bounds over a window only
where accesses meet, so that `core.memory.Trace` pays per byte only when two accesses share bytes.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

__all__ = ["ITER_MIN", "ITER_MAX", "Rows", "gather", "scatter", "window_reduce", "cover", "all_equal"]

ITER_MIN = int(np.iinfo(np.int64).min)
ITER_MAX = int(np.iinfo(np.int64).max)


#: Rows handled at a time where a whole-call temporary would be large (a fresh large array costs a page fault per 4
#: KiB on every call; small ones are used again by the allocator)
_CHUNK = 1 << 14


def _even_step(starts: np.ndarray) -> int | None:
    """The common difference of ``starts`` when they step evenly (0 for fewer than two), else None."""
    n = starts.size
    if n < 3:
        return 0 if n < 2 else int(starts[1]) - int(starts[0])
    a, b, c = starts[:3].tolist()
    d = b - a
    if c - b != d or int(starts[-1]) - a != d * (n - 1):
        return None
    for i in range(1, n, _CHUNK):   # starts[i:j] - starts[i-1:j-1], a chunk at a time
        j = min(n, i + _CHUNK)
        if not (starts[i:j] - starts[i - 1:j - 1] == d).all():
            return None
    return d


class Rows:
    """The rows of one access call: ``starts`` (int64), a common ``length``, one iteration per row (``its``)."""

    __slots__ = ("starts", "length", "its", "n", "lo", "hi", "step", "_disjoint", "_it_min", "_it_max", "_granule")

    def __init__(self, starts: np.ndarray, length: int, its: np.ndarray, step: int | None = None) -> None:
        """``step``: the common difference of ``starts`` when the caller knows they step evenly (e.g. they come
        from a ``range``): trusted, not checked; None: found from ``starts`` (None again when they do not)."""
        self.starts, self.length, self.its = starts, int(length), its
        self.n = n = int(starts.size)
        self.step = _even_step(starts) if step is None else (int(step) if n > 1 else 0)
        if not n:
            self.lo = self.hi = 0
        elif self.step is not None:
            first = int(starts[0])
            last = first + self.step * (n - 1)
            self.lo, self.hi = min(first, last), max(first, last) + self.length
        else:
            self.lo, self.hi = int(starts.min()), int(starts.max()) + self.length
        self._disjoint: bool | None = None
        self._it_min: int | None = None
        self._it_max: int | None = None
        self._granule: int | None = None

    @property
    def it_min(self) -> int:
        if self._it_min is None:
            self._it_min = int(self.its.min()) if self.n else ITER_MAX
        return self._it_min

    @property
    def it_max(self) -> int:
        if self._it_max is None:
            self._it_max = int(self.its.max()) if self.n else ITER_MIN
        return self._it_max

    @property
    def granule(self) -> int:
        """The largest power of two (at most ``length``) dividing every start and the length."""
        if self._granule is None:
            bits = (int(np.bitwise_or.reduce(self.starts)) if self.step is None
                    else int(self.starts[0]) | abs(self.step)) if self.n else 0
            bits |= self.length
            self._granule = bits & -bits if bits else 1
        return self._granule

    def meets(self, a: int, b: int) -> bool:
        """Some row may touch a byte of ``[a, b)`` (bounds test on the whole call)."""
        return self.n > 0 and self.length > 0 and self.lo < b and self.hi > a

    def disjoint(self) -> bool:
        """No two rows share a byte."""
        if self._disjoint is None:
            if self.n < 2 or self.length == 0:
                self._disjoint = True
            elif self.step is not None:
                self._disjoint = abs(self.step) >= self.length
            else:
                s = np.sort(self.starts)
                self._disjoint = bool((s[1:] - s[:-1] >= self.length).all())
        return self._disjoint

    def byte_index(self, origin: int = 0) -> np.ndarray:
        """The (n, length) byte addresses of the rows, minus ``origin``."""
        return (self.starts - origin)[:, None] + np.arange(self.length, dtype=np.int64)


def _strided(arr: np.ndarray, rows: Rows) -> np.ndarray | None:
    """A (n, length) view of ``arr`` at evenly stepping rows (first row first), or None when they do not step
    evenly forward (the caller then indexes)."""
    d = rows.step
    if d is None or d < 0:
        return None
    first = int(rows.starts[0])
    if d == rows.length:
        return arr[first:first + rows.n * d].reshape(rows.n, d)
    return np.ndarray((rows.n, rows.length), arr.dtype, buffer=arr, offset=first * arr.itemsize,
                      strides=(d * arr.itemsize, arr.itemsize))


def _granule_view(arr: np.ndarray, g: int) -> np.ndarray:
    """``arr`` (uint8) viewed in granules of ``g`` bytes (whole ones)."""
    return arr[: arr.size - arr.size % g].view(np.dtype((np.void, g)))


def _granules(arr: np.ndarray, rows: Rows) -> tuple[np.ndarray, np.ndarray]:
    """``arr`` (uint8) viewed in granules of the rows' `Rows.granule` bytes, and the (n, length / granule) index."""
    g = rows.granule
    if g == 1:
        return arr, rows.byte_index()
    view = _granule_view(arr, g)
    k = rows.length // g
    first = rows.starts // g
    idx = first[:, None] if k == 1 else first[:, None] + np.arange(k, dtype=np.int64)
    return view, idx


def gather(arr: np.ndarray, rows: Rows, view: bool = False) -> np.ndarray:
    """A fresh (n, length) uint8 copy of the rows' bytes of ``arr`` (every row inside ``arr``); with ``view``, a
    read-only view of ``arr`` instead where the rows step evenly forward."""
    if not rows.n or not rows.length:
        return np.zeros((rows.n, rows.length), np.uint8)
    if rows.step == rows.length:                          # one run of bytes
        first = int(rows.starts[0])
        got = arr[first:first + rows.n * rows.length].reshape(rows.n, rows.length)
    else:
        got = _strided(arr, rows)
    if got is not None:
        if not view:
            return got.copy()
        got.flags.writeable = False
        return got
    g = rows.granule
    if g == 1:
        return arr.take(rows.byte_index())
    out = np.empty((rows.n, rows.length), np.uint8)
    grains, k = _granule_view(arr, g), rows.length // g
    cells = out.view(grains.dtype)                       # (n, k) granules
    cols = np.arange(k, dtype=np.int64)
    for i in range(0, rows.n, _CHUNK):                  # granule indices a chunk of rows at a time
        first = rows.starts[i:i + _CHUNK] // g
        grains.take(first[:, None] if k == 1 else first[:, None] + cols, out=cells[i:i + _CHUNK], mode="clip")
    return out


def scatter(arr: np.ndarray, rows: Rows, data: np.ndarray) -> None:
    """Store ``data`` (broadcastable to (n, length) uint8) into the rows of ``arr``; the rows must be disjoint and
    inside ``arr``."""
    if not rows.n or not rows.length:
        return
    if rows.step == rows.length and type(data) is int:   # one run of bytes, one value: a slice assignment
        first = int(rows.starts[0])
        arr[first:first + rows.n * rows.length] = data
        return
    view = _strided(arr, rows)
    if view is not None:
        view[...] = data
        return
    grains, idx = _granules(arr, rows)
    if grains is arr:
        arr[idx] = data
        return
    full = np.ascontiguousarray(np.broadcast_to(data, (rows.n, rows.length)), dtype=np.uint8)
    grains[idx] = full.view(grains.dtype).reshape(idx.shape)


def window_reduce(groups: Iterable[Rows], a: int, b: int, ufunc: np.ufunc, fill: int,
                  select: Callable[[Rows], np.ndarray] | None = None) -> np.ndarray | None:
    """Per byte of ``[a, b)``: ``ufunc`` (np.minimum / np.maximum) over the iterations of the rows covering it
    (``fill`` where none), taking only the rows ``select(rows)`` keeps; None when no row touches the window."""
    out = None
    for rows in groups:
        if not rows.meets(a, b):
            continue
        s, its, length = rows.starts, rows.its, rows.length
        keep = (s < b) & (s + length > a)
        if select is not None:
            keep &= select(rows)
        if not keep.all():
            if not keep.any():
                continue
            s, its = s[keep], its[keep]
        idx = (s - a)[:, None] + np.arange(length, dtype=np.int64)
        vals = np.broadcast_to(its[:, None], idx.shape)
        inside = (idx >= 0) & (idx < b - a)
        if not inside.all():
            idx, vals = idx[inside], vals[inside]
        if out is None:
            out = np.full(b - a, fill, dtype=np.int64)
        ufunc.at(out, idx.reshape(-1), vals.reshape(-1))
    return out


def cover(size: int, pieces: Iterable[tuple[np.ndarray, int]]) -> np.ndarray:
    """Per byte of a ``size``-byte buffer: inside some interval ``[start, start + length)`` of ``pieces``
    ((starts, length) pairs), by a difference array."""
    los, his = [], []
    for starts, length in pieces:
        if length <= 0 or not starts.size:
            continue
        lo = np.clip(starts, 0, size)
        hi = np.clip(starts + length, 0, size)
        keep = hi > lo
        los.append(lo[keep])
        his.append(hi[keep])
    if not los:
        return np.zeros(size, dtype=bool)
    diff = np.zeros(size + 1, dtype=np.int64)
    np.add.at(diff, np.concatenate(los), 1)
    np.add.at(diff, np.concatenate(his), -1)
    return np.cumsum(diff[:size]) > 0


_WORDS: dict[int, np.uint64] = {}


def all_equal(arr: np.ndarray, value: int) -> bool:
    """Every byte of the uint8 array ``arr`` equals ``value`` (compared eight bytes at a time where possible)."""
    flat = arr if arr.ndim == 1 else arr.reshape(-1)
    if flat.size >= 64 and not flat.size & 7 and flat.flags.c_contiguous:
        word = _WORDS.get(value)
        if word is None:
            word = _WORDS[value] = np.uint64(value * 0x0101010101010101)
        return not np.count_nonzero(flat.view(np.uint64) != word)
    return not np.count_nonzero(flat != value)

"""The interval-based Trace against a byte-by-byte reference written here in plain Python.

The reference follows the rules `core.memory` documents, one byte at a time: a read faults on misaligned starts,
bytes outside the buffer, uninitialized and poisoned bytes; a write faults on a byte (stored under its mask)
that an earlier access call read at a later iteration (hazard), and on a byte of an exclusive write that an
exclusive write of another iteration covers (overlap); the higher iteration, then the later row, wins a byte
stored twice in one call. Random access sequences (evenly stepping, scattered, overlapping, partly outside the
buffer) must give the same faults, bytes, states, footprints and stored bytes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from ascverify.core.memory import INITIALIZED, POISON, UNINITIALIZED, Memory, Trace

SIZE = 160


class Reference:
    """One buffer ("UB", SIZE bytes), byte by byte."""

    def __init__(self, data: list[int], state: list[int]) -> None:
        self.data, self.state = list(data), list(state)
        self.last_read = [None] * SIZE            # highest iteration that read the byte
        self.writes: list[set[int]] = [set() for _ in range(SIZE)]   # iterations that wrote the byte
        self.excl: list[set[int]] = [set() for _ in range(SIZE)]     # iterations of exclusive writes covering it
        self.read_foot, self.write_foot, self.stored = set(), set(), set()
        self.overlap = False
        self.faults: list[tuple] = []

    def _placement(self, starts, length, its, align, access):
        out = []
        for s, it in zip(starts, its):
            if s % align:
                out.append(("misaligned", s, s + length, it, access, f"needs {align}-byte alignment"))
        for s, it in zip(starts, its):
            e = s + length
            if s < 0 or e > SIZE:
                first = s if s < 0 else max(s, SIZE)
                last = e if e > SIZE else min(e, 0)
                out.append(("out_of_bounds", s, s + length, it, access, None, first, last))
        return [f if f[0] != "out_of_bounds" else (f[0], f[6], f[7], f[3], f[4], None) for f in out]

    @staticmethod
    def _row_fault(kind, start, bad_cols, it, access, detail):
        return (kind, start + bad_cols[0], start + bad_cols[-1] + 1, it, access, detail)

    def read(self, starts, length, its, align):
        faults = self._placement(starts, length, its, align, "read")
        out = []
        for want, kind in ((UNINITIALIZED, "uninitialized"), (POISON, "poison")):
            for s, it in zip(starts, its):
                cols = [c for c in range(length) if 0 <= s + c < SIZE and self.state[s + c] == want]
                if cols:
                    word = "uninitialized" if kind == "uninitialized" else "poisoned"
                    faults.append(self._row_fault(kind, s, cols, it, "read", f"reads {len(cols)} {word} byte(s)"))
        for s, it in zip(starts, its):
            row = []
            for c in range(length):
                a = s + c
                if 0 <= a < SIZE:
                    row.append(self.data[a])
                    self.last_read[a] = it if self.last_read[a] is None else max(self.last_read[a], it)
                    self.read_foot.add(a)
                else:
                    row.append(0)
            out.append(row)
        self.faults += faults
        return out

    def write(self, starts, length, rows, its, align, mask, poison, exclusive):
        faults = self._placement(starts, length, its, align, "write")
        inside = lambda a: 0 <= a < SIZE  # noqa: E731
        for r, (s, it) in enumerate(zip(starts, its)):
            cols = [c for c in range(length) if inside(s + c) and mask[r][c]
                    and self.last_read[s + c] is not None and self.last_read[s + c] > it]
            if cols:
                worst = max(self.last_read[s + c] for c in cols)
                faults.append(self._row_fault("hazard", s, cols, it, "write",
                                              f"overwrites {len(cols)} byte(s) read at iteration {worst}"))
        if exclusive:
            cover = [set(x) for x in self.excl]
            for s, it in zip(starts, its):
                for c in range(length):
                    if inside(s + c):
                        cover[s + c].add(it)
            for s, it in zip(starts, its):
                cols = [c for c in range(length) if inside(s + c) and cover[s + c] != {it}]
                if cols:
                    c0 = cols[0]
                    j = min(cover[s + c0]) if min(cover[s + c0]) != it else max(cover[s + c0])
                    faults.append(self._row_fault("overlap", s, cols, it, "write",
                                                  f"shares {len(cols)} byte(s) with the exclusive footprint of "
                                                  f"iteration {j}"))
            self.excl = cover
        mine = [set(x) for x in self.writes]
        touched = set()
        for s, it in zip(starts, its):
            for c in range(length):
                if inside(s + c):
                    mine[s + c].add(it)
                    touched.add(s + c)
                    self.write_foot.add(s + c)
        if any(len(mine[a]) > 1 for a in touched):
            self.overlap = True
        self.writes = mine
        # higher iteration, then later row, wins
        order = sorted(range(len(starts)), key=lambda r: (its[r], r))
        for r in order:
            for c in range(length):
                a = starts[r] + c
                if inside(a) and mask[r][c]:
                    self.data[a] = rows[r][c]
                    self.state[a] = POISON if poison[r][c] else INITIALIZED
                    self.stored.add(a)
        self.faults += faults


def _fault_tuple(f):
    return (f.kind, f.start, f.stop, f.iteration, f.access, f.detail if f.kind not in ("out_of_bounds",) else None)


@st.composite
def accesses(draw):
    """A random access call: read or write, rows stepping evenly or scattered, maybe leaving the buffer."""
    kind = draw(st.sampled_from(["read", "write"]))
    length = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 3]))
    n = draw(st.integers(0, 9))
    if draw(st.booleans()):
        first = draw(st.integers(-8, SIZE))
        step = draw(st.sampled_from([0, length, 2 * length, 32, -length, 4, 1]))
        starts = [first + step * i for i in range(n)]
    else:
        grain = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
        starts = [grain * draw(st.integers(-1, SIZE // grain)) for _ in range(n)]
    its = draw(st.one_of(st.just([0] * n), st.lists(st.integers(-3, 5), min_size=n, max_size=n)))
    align = draw(st.sampled_from([1, 1, 2, 4, 32, 3]))
    rows = [[draw(st.integers(0, 255)) for _ in range(length)] for _ in range(n)] if kind == "write" else None
    masked = kind == "write" and draw(st.booleans())
    mask = [[draw(st.booleans()) if masked else True for _ in range(length)] for _ in range(n)]
    poisoned = kind == "write" and draw(st.integers(0, 3)) == 0
    poison = [[draw(st.booleans()) if poisoned else False for _ in range(length)] for _ in range(n)]
    exclusive = kind == "write" and draw(st.booleans())
    return kind, starts, length, its, align, rows, mask if masked else None, poison if poisoned else None, exclusive


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=SIZE, max_size=SIZE), st.lists(accesses(), min_size=1, max_size=6))
def test_trace_matches_the_byte_by_byte_reference(states, calls):
    rng = np.random.default_rng(len(calls))
    data = rng.integers(0, 256, SIZE, dtype=np.uint8)
    memory = Memory({"UB": SIZE})
    memory.buffers["UB"][:] = data
    memory.state["UB"][:] = states
    ref = Reference(data.tolist(), states)
    trace = Trace(memory, strict=False, max_faults=None)
    for kind, starts, length, its, align, rows, mask, poison, exclusive in calls:
        n = len(starts)
        if kind == "read":
            got = trace.read("UB", np.array(starts, dtype=np.int64), length, np.array(its, dtype=np.int64),
                             align=align)
            want = ref.read(starts, length, its, align)
            assert got.shape == (n, length) and got.tolist() == want
        else:
            full_mask = mask or [[True] * length for _ in range(n)]
            full_poison = poison or [[False] * length for _ in range(n)]
            data = np.array(rows, dtype=np.uint8).reshape(n, length)
            trace.write("UB", np.array(starts, dtype=np.int64), length, data, np.array(its, dtype=np.int64), align=align,
                        byte_mask=None if mask is None else np.array(mask, dtype=bool).reshape(n, length),
                        poison=None if poison is None else np.array(poison, dtype=bool).reshape(n, length),
                        exclusive=exclusive)
            ref.write(starts, length, rows, its, align, full_mask, full_poison, exclusive)
        assert [_fault_tuple(f) for f in trace.faults] == ref.faults
    assert memory.buffers["UB"].tolist() == ref.data
    assert memory.state["UB"].tolist() == ref.state
    assert set(np.flatnonzero(trace.footprint("read", "UB")).tolist()) == ref.read_foot
    assert set(np.flatnonzero(trace.footprint("write", "UB")).tolist()) == ref.write_foot
    assert set(np.flatnonzero(trace.stored("UB")).tolist()) == ref.stored
    assert trace.write_overlap("UB") == ref.overlap
    assert trace.suppressed == 0


def test_large_scattered_and_strided_rows_move_the_right_bytes():
    """Granule gathers (32-byte blocks at scattered starts) and strided views (evenly stepping 4-byte rows)
    return the bytes at the addresses, compared with plain indexing."""
    rng = np.random.default_rng(7)
    memory = Memory({"UB": 1 << 16})
    memory.fill("UB", 0, rng.integers(0, 256, 1 << 16, dtype=np.uint8))
    raw = memory.buffers["UB"].copy()
    trace = Trace(memory)
    starts = rng.integers(0, (1 << 16) // 32, 5000) * 32
    got = trace.read("UB", starts, 32, align=32)
    assert np.array_equal(got, raw[starts[:, None] + np.arange(32)])
    starts = 100 + 12 * np.arange(3000)
    got = trace.read("UB", starts, 4)
    assert np.array_equal(got, raw[starts[:, None] + np.arange(4)])
    down = 40000 - 64 * np.arange(300)                          # stepping backwards
    trace.write("UB", down, 64, np.full((300, 64), 7, np.uint8), np.arange(300))
    assert (memory.buffers["UB"][down[-1]:down[0] + 64] == 7).all()


def test_rows_that_share_bytes_only_outside_the_buffer_fault_and_store_nothing():
    # found by the property above: two rows at the same address before the buffer and one past its end, masked off
    # (and, the second time, stored): the overlap check had no byte of the buffer to compare and raised TypeError
    for mask, exclusive in ((np.zeros((3, 1), dtype=bool), False), (None, True)):
        memory = Memory({"UB": SIZE})
        memory.fill("UB", 0, np.arange(SIZE, dtype=np.uint8))
        trace = Trace(memory, strict=False, max_faults=None)
        ref = Reference(list(range(SIZE)), [INITIALIZED] * SIZE)
        starts, rows = [-32, -32, SIZE], [[7], [8], [9]]
        trace.write("UB", np.array(starts, dtype=np.int64), 1, np.array(rows, dtype=np.uint8), np.zeros(3, np.int64),
                    byte_mask=mask, exclusive=exclusive)
        ref.write(starts, 1, rows, [0, 0, 0], 1, [[True]] * 3 if mask is None else mask.tolist(), [[False]] * 3,
                  exclusive)
        assert [_fault_tuple(f) for f in trace.faults] == ref.faults
        assert {f.kind for f in trace.faults} == {"out_of_bounds"}
        assert memory.buffers["UB"].tolist() == list(range(SIZE))

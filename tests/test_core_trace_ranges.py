"""Evenly stepping rows given as a ``range`` (spacing taken as known) and reads returned as views of the memory.

A ``range`` of starts or iterations must behave exactly like the same numbers given as an array: same faults,
bytes, shadow states, footprints, stored bytes and overlap flag (the array form is itself checked against a
byte-by-byte reference in test_core_trace_reference.py). ``view=True`` must return the bytes plain indexing gives,
without letting the caller write through them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ascverify.core.memory import Memory, Trace

SIZE = 192


@st.composite
def stepping_calls(draw):
    """An access call whose rows step evenly (possibly backwards, overlapping or leaving the buffer)."""
    kind = draw(st.sampled_from(["read", "write"]))
    length = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 3]))
    n = draw(st.integers(0, 9))
    first = draw(st.integers(-8, SIZE))
    step = draw(st.sampled_from([length, 2 * length, 32, -length, 4, 1, 3]))
    it_first, it_step = draw(st.integers(-3, 5)), draw(st.sampled_from([1, 2, -1]))
    align = draw(st.sampled_from([1, 2, 4, 32, 3]))
    rows = draw(st.lists(st.integers(0, 255), min_size=n * length, max_size=n * length)) if kind == "write" else None
    exclusive = kind == "write" and draw(st.booleans())
    return kind, range(first, first + step * n, step), length, range(it_first, it_first + it_step * n, it_step), \
        align, rows, exclusive


def _run(states, data, calls, as_range: bool):
    memory = Memory({"UB": SIZE})
    memory.buffers["UB"][:] = data
    memory.state["UB"][:] = states
    trace = Trace(memory, strict=False, max_faults=None)
    reads = []
    for kind, starts, length, its, align, rows, exclusive in calls:
        s = starts if as_range else np.array(starts, dtype=np.int64)
        i = its if as_range else np.array(its, dtype=np.int64)
        if kind == "read":
            reads.append(trace.read("UB", s, length, i, align=align).tolist())
        else:
            trace.write("UB", s, length, np.array(rows, dtype=np.uint8).reshape(len(starts), length), i,
                        align=align, exclusive=exclusive)
    faults = [(f.kind, f.start, f.stop, f.iteration, f.access, f.detail) for f in trace.faults]
    footprints = [np.flatnonzero(trace.footprint(k, "UB")).tolist() for k in ("read", "write")]
    return (faults, reads, memory.buffers["UB"].tolist(), memory.state["UB"].tolist(), footprints,
            np.flatnonzero(trace.stored("UB")).tolist(), trace.write_overlap("UB"),
            [(r.kind, r.starts.tolist(), r.iterations.tolist()) for r in trace.records])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=SIZE, max_size=SIZE), st.lists(stepping_calls(), min_size=1, max_size=6))
def test_range_rows_behave_like_the_same_rows_as_an_array(states, calls):
    data = np.random.default_rng(len(calls)).integers(0, 256, SIZE, dtype=np.uint8)
    assert _run(states, data, calls, True) == _run(states, data, calls, False)


@pytest.mark.parametrize("starts, length", [
    (range(64, 64 + 32 * 40, 32), 32),        # one run of bytes
    (range(100, 100 + 12 * 50, 12), 4),       # evenly stepping with gaps
    (range(40, 40 + 2 * 30, 2), 8),           # overlapping rows
])
def test_a_view_read_gives_the_bytes_and_cannot_be_written(starts, length):
    rng = np.random.default_rng(3)
    memory = Memory({"UB": 4096})
    memory.fill("UB", 0, rng.integers(0, 256, 4096, dtype=np.uint8))
    raw = memory.buffers["UB"].copy()
    want = raw[np.array(starts)[:, None] + np.arange(length)]
    got = Trace(memory).read("UB", starts, length, view=True)
    assert np.array_equal(got, want)
    assert not got.flags.writeable
    with pytest.raises(ValueError):
        got[0, 0] ^= 1
    copied = Trace(memory).read("UB", starts, length)
    assert np.array_equal(copied, want) and copied.flags.writeable
    assert not np.shares_memory(copied, memory.buffers["UB"])


def test_a_view_read_of_scattered_or_backward_rows_is_a_copy():
    memory = Memory({"UB": 4096})
    memory.fill("UB", 0, (np.arange(4096) % 251).astype(np.uint8))
    for starts in (np.array([640, 64, 2048, 32]), range(2048, 0, -64)):
        got = Trace(memory).read("UB", starts, 32, view=True)
        assert np.array_equal(got, memory.buffers["UB"][np.array(starts)[:, None] + np.arange(32)])
        assert not np.shares_memory(got, memory.buffers["UB"])


def test_a_view_read_still_checks_the_bytes():
    memory = Memory({"UB": 1024})
    memory.fill("UB", 0, np.ones(512, np.uint8))
    trace = Trace(memory, strict=False)
    got = trace.read("UB", range(480, 480 + 32 * 3, 32), 32, view=True)
    assert got.shape == (3, 32)
    # rows [480, 512), [512, 544), [544, 576): the last two lie past the 512 initialized bytes
    assert [(f.kind, f.start, f.stop) for f in trace.faults] == [("uninitialized", 512, 544),
                                                                 ("uninitialized", 544, 576)]

"""Simulated memory and access tracing: values, fault kinds and their boundaries, byte bookkeeping."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ascverify.core.memory import AccessRecord, Fault, Memory, Trace
from ascverify.spec.products import get_product


def mem(ub: int = 256, **more: int) -> Memory:
    return Memory({"UB": ub, **more})


def kinds(trace: Trace) -> list[str]:
    return [f.kind for f in trace.faults]


# ------------------------------------------------------------------------------------ Memory
def test_buffers_are_allocated_when_first_used_and_every_one_is_listed():
    """A product's memory lists all its buffers, zeroed and uninitialized, but allocates only the ones a call touches
    (a case uses one or two of eight); a snapshot is independent of the memory it copies; pickling keeps the bytes."""
    product = get_product("atlas-a2")
    m = Memory.for_product(product)
    names = set(product.physical_buffers())
    assert set(m.buffers) == names == set(m.state) and len(m.buffers) == len(names) and "UB" in m.buffers
    assert not m.buffers._arrays and not m.state._arrays  # noqa: SLF001 - nothing allocated yet
    m.fill("UB", 64, np.arange(8, dtype=np.uint8) + 1)
    assert set(m.buffers._arrays) == {"UB"} == set(m.state._arrays)  # noqa: SLF001
    assert m.view("L1", 0, 4).tolist() == [0, 0, 0, 0] and not m.initialized("L1", 0, 4).any()
    assert m.buffers["L1"].size == product.physical_size("L1")
    with pytest.raises(KeyError):
        m.buffers["NOPE"]
    snap = m.snapshot()
    m.fill("UB", 64, np.zeros(8, dtype=np.uint8))
    assert snap.view("UB", 64, 8).tolist() == list(range(1, 9)) and snap.initialized("UB", 64, 8).all()
    assert set(snap.buffers) == names
    back = pickle.loads(pickle.dumps(snap))
    assert back.view("UB", 64, 8).tolist() == list(range(1, 9)) and set(back.buffers) == names


def test_fill_view_round_trip():
    m = mem()
    data = np.arange(40, dtype=np.uint8) * 3
    m.fill("UB", 100, data)
    assert np.array_equal(m.view("UB", 100, 40), data)
    # bytes before and after untouched, still zero and uninitialized
    assert m.view("UB", 99, 1)[0] == 0 and m.view("UB", 140, 1)[0] == 0
    assert m.initialized("UB", 99, 42).tolist() == [False] + [True] * 40 + [False]
    # view is a copy
    m.view("UB", 100, 4)[:] = 0xFF
    assert m.view("UB", 100, 1)[0] == 0


def test_fill_stores_little_endian_bytes_of_any_dtype():
    m = mem()
    m.fill("UB", 0, np.array([0x04030201], dtype="<u4"))
    m.fill("UB", 4, np.array([0x04030201], dtype=">u4"))   # same value, stored little-endian too
    m.fill("UB", 8, b"\xAA\xBB")
    assert m.view("UB", 0, 10).tolist() == [1, 2, 3, 4, 1, 2, 3, 4, 0xAA, 0xBB]


def test_typed_decodes_float16():
    m = mem()
    # 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800 (sign | 5-bit exponent, bias 15 | 10-bit mantissa)
    m.fill("UB", 32, np.array([1.0, -2.0, 0.5], dtype=np.float16))
    assert m.view("UB", 32, 6).tolist() == [0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38]
    m.fill("UB", 64, np.array([0x00, 0x3C, 0xFF, 0x7B], dtype=np.uint8))   # 1.0 and 65504 (max half)
    got = m.typed("UB", 64, 2, np.float16)
    assert got.dtype == np.float16 and got.tolist() == [1.0, 65504.0]
    assert m.typed("UB", 32, 3, ">f2").tolist() == [1.0, -2.0, 0.5]
    assert m.typed("UB", 0, 1, np.int32).tolist() == [0]


def test_fill_out_of_bounds_and_missing_buffer():
    m = mem(64, L1=0)
    m.fill("UB", 60, np.zeros(4, np.uint8))                  # last four bytes: fits
    with pytest.raises(Fault) as err:
        m.fill("UB", 61, np.zeros(4, np.uint8))              # one past the end
    assert (err.value.kind, err.value.start, err.value.stop) == ("out_of_bounds", 64, 65)
    with pytest.raises(Fault) as err:
        m.fill("L1", 0, np.zeros(1, np.uint8))
    assert err.value.kind == "no_buffer"
    with pytest.raises(KeyError):
        m.fill("L0Z", 0, np.zeros(1, np.uint8))


def test_for_product_sizes():
    m = Memory.for_product(get_product("atlas-inference-vectorcore"))
    assert m.buffers["UB"].shape == (256 * 1024,) and m.buffers["UB"].dtype == np.uint8
    assert m.buffers["L1"].size == 0 and m.state["L0C"].size == 0
    t = Trace(m)
    with pytest.raises(Fault) as err:
        t.read("L1", [0], 32, what="a")
    assert err.value.kind == "no_buffer"


def test_snapshot_is_deep():
    m = mem()
    m.fill("UB", 0, np.ones(8, np.uint8))
    s = m.snapshot()
    m.fill("UB", 0, np.full(16, 7, np.uint8))
    assert s.view("UB", 0, 16).tolist() == [1] * 8 + [0] * 8
    assert s.initialized("UB", 0, 16).sum() == 8


# ------------------------------------------------------------------------------------ reads
def test_read_returns_rows_and_records():
    m = mem()
    m.fill("UB", 0, np.arange(256, dtype=np.uint8))
    t = Trace(m)
    out = t.read("UB", np.array([[0, 64], [128, 32]]), 4, iteration=np.array([[0], [1]]), what="x")
    assert out.shape == (4, 4) and out.dtype == np.uint8
    assert out[:, 0].tolist() == [0, 64, 128, 32] and out[0].tolist() == [0, 1, 2, 3]
    (rec,) = t.records
    assert isinstance(rec, AccessRecord)
    assert (rec.kind, rec.buffer, rec.length, rec.what) == ("read", "UB", 4, "x")
    assert rec.starts.tolist() == [0, 64, 128, 32] and rec.iterations.tolist() == [0, 0, 1, 1]
    assert t.regions("read", "UB") == [(0, 4), (32, 36), (64, 68), (128, 132)]


def test_misaligned_by_one_byte():
    m = mem()
    m.fill("UB", 0, np.zeros(256, np.uint8))
    Trace(m).read("UB", [0x20, 0x40], 32, align=32)          # aligned: fine
    with pytest.raises(Fault) as err:
        Trace(m).read("UB", [0x21], 32, align=32)
    assert err.value.kind == "misaligned" and (err.value.start, err.value.stop) == (0x21, 0x41)
    with pytest.raises(Fault) as err:
        Trace(m).read("UB", [0x40, 0x10], 16, iteration=[2, 3], align=32, what="src0 block")
    f = err.value
    assert (f.kind, f.buffer, f.start, f.stop, f.iteration, f.what) == ("misaligned", "UB", 16, 32, 3, "src0 block")
    assert str(f) == "misaligned: read of src0 block at UB+0x10 (iteration 3) needs 32-byte alignment"
    assert "\n" not in str(f)


def test_bounds_last_byte_versus_one_past():
    m = mem(256)
    m.fill("UB", 0, np.zeros(256, np.uint8))
    Trace(m).read("UB", [224], 32)                            # ends exactly at the last byte
    Trace(m).read("UB", [255], 1)
    with pytest.raises(Fault) as err:
        Trace(m).read("UB", [225], 32)                        # one byte past
    assert (err.value.kind, err.value.start, err.value.stop) == ("out_of_bounds", 256, 257)
    with pytest.raises(Fault) as err:
        Trace(m).write("UB", [-2], 4, np.zeros((1, 4), np.uint8))
    assert (err.value.kind, err.value.start, err.value.stop) == ("out_of_bounds", -2, 0)
    assert "UB-0x2" in str(err.value)


def test_uninitialized_read():
    m = mem()
    m.fill("UB", 0, np.ones(16, np.uint8))
    Trace(m).read("UB", [0], 16)                              # all filled: fine
    with pytest.raises(Fault) as err:
        Trace(m).read("UB", [8], 16, iteration=5)             # bytes 16..23 never filled
    assert (err.value.kind, err.value.start, err.value.stop, err.value.iteration) == ("uninitialized", 16, 24, 5)


def test_poison_read():
    m = mem()
    m.fill("UB", 0, np.ones(64, np.uint8))
    t = Trace(m)
    t.write("UB", [0, 32], 32, np.zeros((2, 32), np.uint8), poison=np.array([False, True]))
    assert m.poisoned("UB", 0, 64).tolist() == [False] * 32 + [True] * 32
    assert m.initialized("UB", 0, 64).tolist() == [True] * 32 + [False] * 32
    Trace(m).read("UB", [0], 32)
    with pytest.raises(Fault) as err:
        Trace(m).read("UB", [16], 32)
    assert (err.value.kind, err.value.start, err.value.stop) == ("poison", 32, 48)
    # per-byte poison
    t = Trace(m)
    pz = np.zeros((1, 8), bool)
    pz[0, 3] = True
    t.write("UB", [0], 8, np.zeros((1, 8), np.uint8), poison=pz)
    assert np.flatnonzero(m.poisoned("UB", 0, 8)).tolist() == [3]


# ------------------------------------------------------------------------------------ writes
def test_write_applies_and_marks():
    m = mem()
    t = Trace(m)
    t.write("UB", [0, 8], 4, np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint8), iteration=[0, 1], what="dst")
    assert m.view("UB", 0, 12).tolist() == [1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8]
    assert m.initialized("UB", 0, 12).tolist() == [True] * 4 + [False] * 4 + [True] * 4
    assert t.regions("write", "UB") == [(0, 4), (8, 12)]
    assert t.regions("read", "UB") == []
    assert t.records[0].kind == "write" and not t.faults


def test_write_typed_rows_are_reinterpreted():
    m = mem()
    t = Trace(m)
    data = np.array([[1.0, -2.0], [0.5, 65504.0]], dtype=np.float16)    # (n=2, k=2) -> 4 bytes per row
    t.write("UB", [0, 32], 4, data)
    assert m.view("UB", 0, 4).tolist() == [0x00, 0x3C, 0x00, 0xC0]
    assert m.typed("UB", 32, 2, np.float16).tolist() == [0.5, 65504.0]


def test_masked_write_keeps_old_bytes():
    m = mem()
    m.fill("UB", 0, np.full(4, 9, np.uint8))                  # bytes 0..3 = 9, 4..7 uninitialized
    t = Trace(m)
    mask = np.array([[True, False, True, False, False, True, False, False]])
    t.write("UB", [0], 8, np.arange(1, 9, dtype=np.uint8)[None], byte_mask=mask)
    assert m.view("UB", 0, 8).tolist() == [1, 9, 3, 9, 0, 6, 0, 0]
    assert m.initialized("UB", 0, 8).tolist() == [True, True, True, True, False, True, False, False]
    assert t.footprint("write", "UB")[:10].tolist() == [True] * 8 + [False] * 2    # whole interval
    assert np.flatnonzero(t.stored("UB")).tolist() == [0, 2, 5]


def test_same_byte_higher_iteration_then_later_access_wins():
    m = mem()
    t = Trace(m)
    rows = np.array([[1, 1], [2, 2], [3, 3]], np.uint8)
    t.write("UB", [0, 1, 0], 2, rows, iteration=[2, 1, 0])    # iteration 2 stores last
    assert m.view("UB", 0, 3).tolist() == [1, 1, 2]
    t = Trace(m)
    t.write("UB", [10, 11, 10], 2, rows, iteration=0)         # equal: flattened order
    assert m.view("UB", 10, 3).tolist() == [3, 3, 2]


def test_hazard_only_when_read_later():
    def run(read_it: int, write_it: int, mask=None) -> Trace:
        m = mem()
        m.fill("UB", 0, np.zeros(64, np.uint8))
        t = Trace(m, strict=False)
        t.read("UB", [0], 32, iteration=read_it, what="src")
        t.write("UB", [16], 32, np.ones((1, 32), np.uint8), iteration=write_it, byte_mask=mask, what="dst")
        return t

    t = run(read_it=1, write_it=0)                            # iteration 0 clobbers what iteration 1 reads
    assert kinds(t) == ["hazard"]
    f = t.faults[0]
    assert (f.start, f.stop, f.iteration) == (16, 32, 0)
    assert "read at iteration 1" in str(f)
    assert kinds(run(read_it=0, write_it=0)) == []            # in-place within an iteration
    assert kinds(run(read_it=0, write_it=1)) == []            # read earlier
    mask = np.zeros((1, 32), bool)
    mask[0, 16:] = True                                       # stores only bytes 32..47: not read
    assert kinds(run(read_it=1, write_it=0, mask=mask)) == []
    with pytest.raises(Fault, match="hazard"):
        m = mem()
        m.fill("UB", 0, np.zeros(64, np.uint8))
        t = Trace(m)
        t.read("UB", [0, 32], 32, iteration=[0, 1])
        t.write("UB", [32, 0], 32, np.zeros((2, 32), np.uint8), iteration=[0, 1])


def test_exclusive_overlap():
    m = mem()
    t = Trace(m, strict=False)
    t.write("UB", [0, 16], 32, np.zeros((2, 32), np.uint8), iteration=[0, 0], exclusive=True)
    assert kinds(t) == [] and not t.write_overlap("UB")       # same iteration may overlap
    t.write("UB", [64, 95], 32, np.zeros((2, 32), np.uint8), iteration=[0, 1], exclusive=True)
    assert set(kinds(t)) == {"overlap"} and t.write_overlap("UB")
    assert {(f.start, f.stop) for f in t.faults} == {(95, 96)}    # the one shared byte
    # adjacent, not overlapping
    t = Trace(mem())
    t.write("UB", [0, 32], 32, np.zeros((2, 32), np.uint8), iteration=[0, 1], exclusive=True)
    assert not t.write_overlap("UB")
    # across two calls of one trace
    t = Trace(mem())
    t.write("UB", [0], 32, np.zeros((1, 32), np.uint8), iteration=0, exclusive=True)
    with pytest.raises(Fault) as err:
        t.write("UB", [8], 4, np.zeros((1, 4), np.uint8), iteration=1, exclusive=True)
    assert err.value.kind == "overlap" and (err.value.start, err.value.stop) == (8, 12)
    # the mask does not shrink the footprint
    t = Trace(mem(), strict=False)
    mask = np.array([[True, False], [False, True]])
    t.write("UB", [0, 1], 2, np.zeros((2, 2), np.uint8), iteration=[0, 1], byte_mask=mask, exclusive=True)
    assert kinds(t) == ["overlap", "overlap"]


def test_non_exclusive_overlap_is_observed_not_faulted():
    t = Trace(mem())
    t.write("UB", [0, 16], 32, np.zeros((2, 32), np.uint8), iteration=[0, 1])
    assert t.faults == [] and t.write_overlap("UB")


def test_non_strict_collects_several_faults_and_goes_on():
    m = mem(64)
    m.fill("UB", 0, np.arange(48, dtype=np.uint8))
    t = Trace(m, strict=False)
    out = t.read("UB", [1, 40, 56], 16, iteration=[0, 1, 2], align=8, what="src")
    # [1,17) misaligned; [40,56) has 8 unfilled bytes; [56,72) is aligned but leaves the buffer at 64
    # and its in-bounds bytes 56..63 are unfilled
    assert kinds(t) == ["misaligned", "out_of_bounds", "uninitialized", "uninitialized"]
    assert [(f.start, f.stop, f.iteration) for f in t.faults] == [(1, 17, 0), (64, 72, 2), (48, 56, 1), (56, 64, 2)]
    assert out[0].tolist() == list(range(1, 17))
    assert out[2].tolist() == [0] * 16                         # unfilled (zero) and out-of-bounds (read as 0)
    # writes: out-of-bounds bytes are dropped (iteration 2: bytes 60..63 were read at iteration 2, no hazard)
    t.write("UB", [60], 8, np.full((1, 8), 5, np.uint8), iteration=2)
    assert kinds(t)[4:] == ["out_of_bounds"]
    assert m.view("UB", 56, 8).tolist() == [0] * 4 + [5] * 4
    assert t.regions("write", "UB") == [(60, 64)]
    assert len(t.records) == 2


def test_max_faults_caps_each_kind():
    m = mem(1024)
    t = Trace(m, strict=False, max_faults=3)
    t.read("UB", np.arange(10) * 32 + 1, 4, align=32)
    assert kinds(t).count("misaligned") == 3 and kinds(t).count("uninitialized") == 3
    assert t.suppressed == 14


def test_strict_fault_leaves_memory_and_records_untouched():
    m = mem()
    t = Trace(m)
    with pytest.raises(Fault):
        t.write("UB", [0, 250], 8, np.ones((2, 8), np.uint8))
    assert m.view("UB", 0, 8).tolist() == [0] * 8 and t.records == []
    assert kinds(t) == ["out_of_bounds"]


def test_fault_pickles_and_formats():
    f = Fault("hazard", "L1", 0x40, 0x60, 2, "dst", access="write", detail="overwrites 32 byte(s)")
    g = pickle.loads(pickle.dumps(f))
    assert (g.kind, g.buffer, g.start, g.stop, g.iteration, g.what) == ("hazard", "L1", 64, 96, 2, "dst")
    assert str(g) == str(f) == "hazard: write of dst at L1+0x40 (iteration 2) overwrites 32 byte(s)"
    with pytest.raises(ValueError):
        Fault("bogus", "UB", 0, 1)


def test_large_accesses_are_recorded_exactly():
    """32,000 contiguous blocks read then written in place (speed is measured in bench/, not here)."""
    m = mem(1024 * 1024)
    m.fill("UB", 0, np.zeros(1024 * 1024, np.uint8))
    starts = np.arange(32000) * 32
    t = Trace(m)
    out = t.read("UB", starts, 32, np.arange(32000), align=32)
    t.write("UB", starts, 32, out, np.arange(32000), exclusive=True)
    assert t.regions("read", "UB") == [(0, 32000 * 32)]
    assert not t.faults


# ------------------------------------------------------------------------------------ property
@st.composite
def disjoint_intervals(draw):
    """Non-overlapping (start, length) intervals in a 512-byte buffer, with byte masks."""
    out, pos = [], 0
    for _ in range(draw(st.integers(0, 12))):
        pos += draw(st.integers(0, 24))
        length = draw(st.sampled_from([1, 4, 8, 16]))
        if pos + length > 512:
            break
        mask = draw(st.lists(st.booleans(), min_size=length, max_size=length))
        out.append((pos, length, mask))
        pos += length
    return out


@settings(max_examples=60, deadline=None)
@given(disjoint_intervals(), st.randoms(use_true_random=False))
def test_regions_and_stored_match_independent_model(intervals, rnd):
    m = Memory({"UB": 512})
    t = Trace(m)
    expected_stored: set[int] = set()
    expected_bytes: dict[int, int] = {}
    by_length: dict[int, list] = {}
    for it, (start, length, mask) in enumerate(intervals):
        by_length.setdefault(length, []).append((start, it, mask))
    for length, group in by_length.items():
        starts = np.array([g[0] for g in group])
        its = np.array([g[1] for g in group])
        masks = np.array([g[2] for g in group], dtype=bool).reshape(len(group), length)
        data = np.array([[rnd.randrange(256) for _ in range(length)] for _ in group], np.uint8)
        data = data.reshape(len(group), length)
        t.write("UB", starts, length, data, its, byte_mask=masks, exclusive=True)
        for (start, _, mask), row in zip(group, data):
            for k, on in enumerate(mask):
                if on:
                    expected_stored.add(start + k)
                    expected_bytes[start + k] = int(row[k])
    merged: list[list[int]] = []
    for start, length, _ in sorted(intervals):
        if merged and merged[-1][1] == start:
            merged[-1][1] = start + length
        else:
            merged.append([start, start + length])
    assert t.regions("write", "UB") == [tuple(x) for x in merged]
    assert set(np.flatnonzero(t.stored("UB")).tolist()) == expected_stored
    assert not t.faults and not t.write_overlap("UB")
    values = m.view("UB", 0, 512)
    assert all(values[a] == v for a, v in expected_bytes.items())
    assert set(np.flatnonzero(m.initialized("UB", 0, 512)).tolist()) == expected_stored


def test_a_setup_step_s_fault_says_it_came_before_the_repeats():
    """A call's setup steps (BilinearInterpolation's Gatherb / Brcb into its scratch buffer) are numbered below 0:
    the message says "setup step" instead of a negative iteration a reader would take for a repeat."""
    setup = Fault("out_of_bounds", "UB", 0x700, 0x720, -8, "Brcb result", access="write").message
    assert "(setup step -8, before repeat 0)" in setup and "iteration" not in setup
    assert "(iteration 3)" in Fault("out_of_bounds", "UB", 0x700, 0x720, 3, "dst", access="write").message

"""The in-place rule of the block reductions (``PREFIX.dst.src.in_place``) against a byte-level reference.

The rule warns of a call where some result of a repeat r lands on a source byte that a later repeat r' > r reads
(spec note ``PREFIX.in-place``: a warning, the vendor's SoftmaxFlashV3 makes such a call; the core marks the later
repeat's results of those blocks unspecified). On values and columns it is decided by interval arithmetic over the repeats
(`ascverify.core.repeat_overlap`); the reference here walks the bytes instead: it records, per byte, the last
repeat that reads it, then looks at every byte each repeat stores. Drawn cases include dst sliding over src,
strides 0, repeatTime 0, 1 and 255, unaligned dst addresses (the rule does not depend on alignment) and tensors in
different buffers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import check_case, check_cases, get_api, parse_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.core.repeat_overlap import clobbered_blocks, clobbers, first_clobber
from ascverify.core.run import run_case
from ascverify.core.unspecified import unspecified_elements

APIS = ("BlockReduceMin", "BlockReduceMax", "BlockReduceSum")
BLOCK = 32          # bytes of one source datablock
BLOCKS = 8          # datablocks read, and results stored, per repeat
UB_POSITIONS = ("VECIN", "VECCALC", "VECOUT")


def reference_clobber(d0: int, s0: int, n: int, dst_rep: int, src_blk: int, src_rep: int, e: int) -> bool:
    """Byte by byte: repeat r stores 8 results of e bytes at d0 + r*dst_rep*8*e; repeat r reads the 32-byte
    blocks at s0 + (r*src_rep + b*src_blk)*32, b = 0..7. True when a stored byte is read by a later repeat."""
    last_reader: dict[int, int] = {}
    for r in range(n):                       # in execution order: the last reader of a byte wins
        for b in range(BLOCKS):
            start = s0 + (r * src_rep + b * src_blk) * BLOCK
            for byte in range(start, start + BLOCK):
                last_reader[byte] = r
    width = BLOCKS * e
    for r in range(n):
        start = d0 + r * dst_rep * width
        if any(last_reader.get(byte, -1) > r for byte in range(start, start + width)):
            return True
    return False


def reference_first(d0: int, s0: int, n: int, dst_rep: int, src_blk: int, src_rep: int, e: int):
    """The first (r, r2, b), in lexicographic order, with a byte stored by repeat r read by block b of r2 > r."""
    width = BLOCKS * e
    for r in range(n):
        stored = set(range(d0 + r * dst_rep * width, d0 + r * dst_rep * width + width))
        for r2 in range(r + 1, n):
            for b in range(BLOCKS):
                start = s0 + (r2 * src_rep + b * src_blk) * BLOCK
                if stored.intersection(range(start, start + BLOCK)):
                    return r, r2, b
    return None


def _doc(api, dtype, n, dst_rep, src_blk, src_rep, d0, s0, dst_pos, src_pos):
    e = 2 if dtype == "half" else 4
    dst_elems = ((max(n, 1) - 1) * dst_rep + 1) * BLOCKS
    src_elems = ((max(n, 1) - 1) * src_rep + 7 * src_blk + 1) * (BLOCK // e)
    return {"api": api, "product": "atlas-a2", "dtype": dtype,
            "args": {"repeatTime": n, "mask": 128 if e == 2 else 64, "dstRepStride": dst_rep,
                     "srcBlkStride": src_blk, "srcRepStride": src_rep},
            "tensors": {"dst": {"position": dst_pos, "addr": d0, "size": dst_elems},
                        "src": {"position": src_pos, "addr": s0, "size": src_elems}}}


@st.composite
def overlapping_calls(draw):
    """A call whose dst often lies on src's footprint (or next to it), with any strides and repeat counts."""
    api = draw(st.sampled_from(APIS))
    dtype = draw(st.sampled_from(["half", "float"]))
    e = 2 if dtype == "half" else 4
    n = draw(st.one_of(st.sampled_from([0, 1, 2, 255]), st.integers(0, 12), st.integers(0, 255)))
    stride = st.one_of(st.just(0), st.integers(0, 3), st.integers(0, 16), st.sampled_from([255, 4096, 65535]))
    dst_rep, src_blk, src_rep = draw(stride), draw(stride), draw(stride)
    s0 = BLOCK * draw(st.integers(0, 64))
    src_span = ((max(n, 1) - 1) * src_rep + 7 * src_blk + 1) * BLOCK
    dst_span = ((max(n, 1) - 1) * dst_rep + 1) * BLOCKS * e
    unit = draw(st.sampled_from([BLOCKS * e, 2, 1]))                # aligned, and not
    d0 = max(0, s0 + unit * draw(st.integers(-(dst_span // unit) - 2, src_span // unit + 2)))
    same = draw(st.integers(0, 9)) > 0
    dst_pos = draw(st.sampled_from(UB_POSITIONS))
    src_pos = draw(st.sampled_from(UB_POSITIONS)) if same else "A1"   # A1: L1, another buffer
    return _doc(api, dtype, n, dst_rep, src_blk, src_rep, d0, s0, dst_pos, src_pos)


def _expected(doc) -> bool:
    a, t = doc["args"], doc["tensors"]
    if (t["src"]["position"] == "A1") != (t["dst"]["position"] == "A1"):
        return False
    return reference_clobber(t["dst"]["addr"], t["src"]["addr"], a["repeatTime"], a["dstRepStride"],
                             a["srcBlkStride"], a["srcRepStride"], 2 if doc["dtype"] == "half" else 4)


def _refused(result, api) -> bool:
    """The in-place rule warns of the case (it is a warning, never an error)."""
    rid = f"{get_api(api).prefix}.dst.src.in_place"
    assert rid not in {v.id for v in result.violations}
    return rid in {v.id for v in result.warnings}


@given(st.lists(overlapping_calls(), min_size=1, max_size=8))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_rule_agrees_with_the_byte_level_reference(docs):
    cases = [parse_case(d) for d in docs]
    for doc, case, batched in zip(docs, cases, check_cases(cases)):
        want = _expected(doc)
        assert _refused(check_case(case), doc["api"]) == want, doc          # one case: Python values
        assert _refused(batched, doc["api"]) == want, doc                   # a batch: numpy columns


def test_named_cases():
    """Cases worked by hand: the vendor's softmax reduces in place with (n, 1, 1, 8) on float (spec note in-place):
    repeat r stores 32 bytes at 32r and repeat r' reads 256 bytes from 256r', so repeat 8's results land on the
    first block repeat 1 read long before: accepted. dst one repeat ahead of src: repeat 0 stores on what repeat 1
    reads. dstRepStride 0 with src after dst: nothing stored is read later."""
    soft = _doc("BlockReduceMax", "float", 64, 1, 1, 8, 0, 0, "VECCALC", "VECCALC")
    ahead = _doc("BlockReduceMin", "half", 2, 1, 1, 8, 256, 0, "VECIN", "VECIN")
    still = _doc("BlockReduceSum", "half", 255, 0, 1, 8, 0, 32, "VECIN", "VECOUT")
    for doc, want in ((soft, False), (ahead, True), (still, False)):
        assert _expected(doc) == want
        assert _refused(check_case(parse_case(doc)), doc["api"]) == want, doc


@pytest.mark.parametrize("seed", range(3))
def test_first_clobber_is_the_references_first(seed):
    """The message's (repeat, later repeat, block) is the first in lexicographic order (small repeat counts: the
    reference is cubic)."""
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(300):
        e = int(rng.choice([2, 4]))
        n = int(rng.integers(0, 14))
        dst_rep, src_blk, src_rep = (int(rng.choice([0, 1, 2, 3, 8, rng.integers(0, 20)])) for _ in range(3))
        s0 = BLOCK * int(rng.integers(0, 8))
        d0 = max(0, s0 + int(rng.integers(-40, 200)) * int(rng.choice([1, 2, BLOCKS * e])))
        want = reference_first(d0, s0, n, dst_rep, src_blk, src_rep, e)
        width = BLOCKS * e
        got = first_clobber(d0, s0, n, dst_rep * width, width, src_rep * BLOCK, src_blk * BLOCK, blocks=BLOCKS,
                            block=BLOCK)
        assert got == want, (d0, s0, n, dst_rep, src_blk, src_rep, e)
        assert bool(clobbers(d0, s0, n, dst_rep * width, width, src_rep * BLOCK, src_blk * BLOCK, blocks=BLOCKS,
                             block=BLOCK)[0]) == (want is not None) == reference_clobber(d0, s0, n, dst_rep, src_blk,
                                                                                         src_rep, e)
        if want is not None:
            doc = _doc("BlockReduceMin", "half" if e == 2 else "float", n, dst_rep, src_blk, src_rep, d0, s0,
                       "VECIN", "VECIN")
            msg = [v.message for v in check_case(parse_case(doc)).warnings if v.id.endswith(".in_place")]
            r, r2, b = want
            assert msg and msg[0].startswith(f"the results of repeat {r} land on src block {b} of repeat {r2}, "), msg
            checked += 1
    assert checked > 20


def test_columns_in_many_passes_agree_with_the_reference(monkeypatch):
    """A batch evaluated in passes of a few cases each (as a long file is) gives each case's own verdict."""
    import ascverify.core.repeat_overlap as ro

    monkeypatch.setattr(ro, "CHUNK", 64)
    rng = np.random.default_rng(11)
    cols = []
    for _ in range(200):
        e = int(rng.choice([2, 4]))
        n = int(rng.choice([0, 1, 2, 3, 9, 40, rng.integers(0, 60)]))
        dst_rep, src_blk, src_rep = (int(rng.choice([0, 1, 2, 8, rng.integers(0, 12)])) for _ in range(3))
        s0 = BLOCK * int(rng.integers(0, 8))
        d0 = max(0, s0 + int(rng.integers(-64, 600)) * int(rng.choice([2, BLOCKS * e])))
        cols.append((d0, s0, n, dst_rep, src_blk, src_rep, e))
    d0, s0, n, dst_rep, src_blk, src_rep, e = (np.array(c, dtype=np.int64) for c in zip(*cols))
    got = clobbers(d0, s0, n, dst_rep * BLOCKS * e, BLOCKS * e, src_rep * BLOCK, src_blk * BLOCK, blocks=BLOCKS,
                   block=BLOCK)
    want = [reference_clobber(*c) for c in cols]
    assert got.tolist() == want
    assert 20 < sum(want) < 180


# -- what the core makes of a clobber: the later repeat's results of those blocks are unspecified ---------------------

def reference_clobbered_results(d0: int, s0: int, n: int, dst_rep: int, src_blk: int, src_rep: int, e: int,
                                stored=(True,) * BLOCKS, read=(True,) * BLOCKS) -> set[tuple[int, int]]:
    """Byte by byte: the (r2, b) whose source block b (read when ``read[b]``) holds a byte stored by an earlier
    repeat r < r2 (result k of repeat r is e bytes at d0 + r*dst_rep*8*e + k*e, stored when ``stored[k]``)."""
    first_store: dict[int, int] = {}
    for r in range(n):
        for k in range(BLOCKS):
            if stored[k]:
                start = d0 + r * dst_rep * BLOCKS * e + k * e
                for byte in range(start, start + e):
                    first_store.setdefault(byte, r)
    out = set()
    for r2 in range(n):
        for b in range(BLOCKS):
            start = s0 + (r2 * src_rep + b * src_blk) * BLOCK
            if read[b] and any(first_store.get(byte, n) < r2 for byte in range(start, start + BLOCK)):
                out.add((r2, b))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_clobbered_blocks_are_the_references(seed):
    rng = np.random.default_rng(100 + seed)
    hits = 0
    for _ in range(200):
        e = int(rng.choice([2, 4]))
        n = int(rng.integers(0, 12))
        dst_rep, src_blk, src_rep = (int(rng.choice([0, 1, 2, 8, rng.integers(0, 12)])) for _ in range(3))
        s0 = BLOCK * int(rng.integers(0, 8))
        d0 = max(0, s0 + int(rng.integers(-40, 300)) * int(rng.choice([1, 2, BLOCKS * e])))
        stored = tuple(bool(x) for x in rng.random(BLOCKS) < 0.8)
        read = tuple(bool(x) for x in rng.random(BLOCKS) < 0.8)
        want = reference_clobbered_results(d0, s0, n, dst_rep, src_blk, src_rep, e, stored, read)
        reps = np.arange(n, dtype=np.int64)[:, None]
        stores = d0 + reps * dst_rep * BLOCKS * e + np.arange(BLOCKS) * e
        reads = s0 + (reps * src_rep + np.arange(BLOCKS) * src_blk) * BLOCK
        got = clobbered_blocks(stores.reshape(n, BLOCKS), e, np.array(stored), reads.reshape(n, BLOCKS),
                               np.array(read), BLOCK)
        assert {(int(r), int(b)) for r, b in zip(*np.nonzero(got))} == want, (d0, s0, n, dst_rep, src_blk, src_rep)
        hits += bool(want)
    assert hits > 20


@given(overlapping_calls())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_run_marks_exactly_the_clobbered_results_unspecified(doc):
    """On the core (BlockReduceMin / Max: no overflow to mark), a call that warns runs without a fault, and the dst
    elements left unspecified are those whose last store came from a clobbered (repeat, block); none otherwise."""
    doc["api"] = doc["api"].replace("Sum", "Min")
    result = check_case(parse_case(doc))
    if result.violations:
        return
    case = parse_case(doc)
    ran = run_case(case, strict=False)
    assert not ran.faults, [str(f) for f in ran.faults[:3]]
    a, t = doc["args"], doc["tensors"]
    e = 2 if doc["dtype"] == "half" else 4
    same = (t["src"]["position"] == "A1") == (t["dst"]["position"] == "A1")
    clobbered = reference_clobbered_results(t["dst"]["addr"], t["src"]["addr"], a["repeatTime"], a["dstRepStride"],
                                            a["srcBlkStride"], a["srcRepStride"], e) if same else set()
    last: dict[int, tuple[int, int]] = {}        # dst element -> the (repeat, block) that stored it last
    for r in range(a["repeatTime"]):
        for k in range(BLOCKS):
            last[r * a["dstRepStride"] * BLOCKS + k] = (r, k)
    want = sorted(i for i, rk in last.items() if rk in clobbered)
    dst = case.tensor("dst")
    got = unspecified_elements(ran.memory, dst.buffer, dst.addr, dst.size, case.dtype).nonzero()[0].tolist()
    assert got == want
    assert _refused(result, doc["api"]) == bool(clobbered)


def test_the_message_counts_the_repeats_a_partial_counter_count_runs():
    """152 floats in Counter mode are ceil(152 / 64) = 3 repeats, the last of 24 lanes; it is checked as 2 full
    repeats and 3 repeats of 24 lanes (check_variants), and the message says the call's 3 (it said 2: hostile review
    finding 4). z at byte 320 lies in src's block 2 (256 + 2 * 32), which repeat 1 reads (srcRepStride 2 = 64 bytes
    on: its block 0 at 320): repeat 0's sums land there first."""
    prog = {"product": "atlas-a2", "dtype": "float",
            "tensors": {"z": {"position": "VECOUT", "addr": 320, "size": 8},
                        "x": {"position": "VECIN", "addr": 256, "size": 41}},
            "calls": [{"api": "SetMaskCount"}, {"api": "SetVectorMask", "args": {"mask": 152, "mode": "COUNTER"}},
                      {"api": "BlockReduceSum", "args": {"repeatTime": 3, "mask": "MASK_PLACEHOLDER", "dstRepStride": 0,
                                                         "srcBlkStride": 0, "srcRepStride": 2, "isSetMask": False},
                       "tensors": {"dst": "z", "src": "x"}}]}
    got = check_program(parse_program(prog))
    msgs = [w.message for w in got.warnings if w.id == "block_reduce_sum.dst.src.in_place"]
    assert len(msgs) == 1 and "3 repeat(s)" in msgs[0], msgs
    assert "the results of repeat 0 land on src block 0 of repeat 1, which reads it later" in msgs[0]


@pytest.mark.parametrize("stores, reads, want", [
    # repeat 0 stores bytes 28..31; repeat 1 reads 30..61: the highest store reaches into the lowest block read
    ([[28], [0]], [[100], [30]], {(1, 0)}),
    # repeat 0 stores 40..43; repeat 1 reads 20..51: the highest block read reaches into the lowest store
    ([[40], [200]], [[0], [20]], {(1, 0)}),
    # the same places one byte apart: no byte is both stored and read
    ([[26], [0]], [[100], [30]], set()),
    ([[52], [200]], [[0], [20]], set()),
])
def test_clobbered_blocks_at_the_edges_of_the_stores_and_reads(stores, reads, want):
    """Stores of 4 bytes and reads of one 32-byte block, placed so that the stored and read ranges meet by two bytes
    at their outer edges (or miss by one): the bytes are counted by hand in each line."""
    got = clobbered_blocks(np.array(stores, dtype=np.int64), 4, np.array([True]), np.array(reads, dtype=np.int64),
                           np.array([True]), BLOCK)
    assert {(int(r), int(b)) for r, b in zip(*np.nonzero(got))} == want

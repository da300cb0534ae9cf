"""Declared tensors in the core (issue 12 item 4): an access tagged with a tensor faults when it leaves the tensor's
bytes, even inside its buffer; untagged accesses and traces without declarations behave as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ascverify import parse_case, run_case
from ascverify.core.memory import Fault, Memory, Trace
from ascverify.core.run import declare_tensors, tensor_extents

ROOT = Path(__file__).resolve().parents[1]


def trace(strict: bool = True, **declared) -> Trace:
    mem = Memory({"UB": 1024, "L1": 0})
    mem.fill("UB", 0, (np.arange(1024) % 256).astype(np.uint8))
    return Trace(mem, strict=strict, declared=declared or {"t": ("UB", 64, 96)})


def test_write_past_the_end_of_a_declared_tensor():
    """t is UB [64, 96) (32 bytes); 32 bytes written at 80 reach 112: bytes 96..111 (16) lie past its end."""
    tr = trace()
    with pytest.raises(Fault) as exc:
        tr.write("UB", [80], 32, np.zeros(32, np.uint8), tensor="t", what="scratch")
    f = exc.value
    assert (f.kind, f.access, f.start, f.stop) == ("out_of_bounds", "write", 96, 112)
    assert f.detail == "writes 16 bytes past the end of t (declared 32 bytes at UB+0x40)"


def test_read_before_the_start_and_one_fault_per_access():
    """Two rows, [48, 56) and [90, 98): 16 bytes before t's start and 2 past its end, one fault for the access."""
    tr = trace(strict=False)
    out = tr.read("UB", [48, 90], 8, [0, 1], tensor="t")
    assert [(f.kind, f.access, f.iteration, f.start, f.stop) for f in tr.faults] == [("out_of_bounds", "read", 0, 48, 98)]
    assert tr.faults[0].detail == "reads 2 bytes past the end and 8 bytes before the start of t (declared 32 bytes at UB+0x40)"
    assert out[0].tolist() == list(range(48, 56))  # the bytes are still read (they exist in the buffer)


def test_the_write_still_lands_in_the_buffer_when_not_strict():
    tr = trace(strict=False)
    tr.write("UB", [88], 16, np.full(16, 7, np.uint8), tensor="t")
    assert len(tr.faults) == 1 and tr.memory.buffers["UB"][88:104].tolist() == [7] * 16


def test_untagged_and_undeclared_accesses_are_not_checked_against_tensors():
    tr = trace()
    tr.write("UB", [80], 32, np.zeros(32, np.uint8))                 # no tag
    tr.write("UB", [80], 32, np.zeros(32, np.uint8), tensor="other")  # a tag nobody declared
    tr.read("UB", [64], 32, tensor="t")                                # exactly the tensor
    assert not tr.faults
    plain = Trace(Memory({"UB": 64}))
    plain.write("UB", [0], 64, np.zeros(64, np.uint8), tensor="x")
    assert not plain.faults and plain.declared == {}


def test_buffer_bounds_come_first():
    """A row that leaves the buffer is the buffer's out_of_bounds, not also the tensor's."""
    tr = trace(strict=False, t=("UB", 992, 1024))
    tr.write("UB", [1008], 32, np.zeros(32, np.uint8), tensor="t")
    assert len(tr.faults) == 1 and "leaves the 1024-byte buffer" in tr.faults[0].detail


def test_declaration_errors_are_model_bugs():
    tr = trace()
    with pytest.raises(KeyError):
        tr.declare("u", "L9", 0, 4)
    with pytest.raises(ValueError):
        tr.declare("u", "UB", 8, 4)
    tr.declare("u", "L1", 0, 0)
    with pytest.raises(ValueError, match="declared in L1"):
        tr.write("UB", [0], 4, np.zeros(4, np.uint8), tensor="u")


def test_records_keep_the_tag():
    tr = trace()
    tr.read("UB", [64], 4, tensor="t")
    tr.read("UB", [0], 4)
    assert [r.tensor for r in tr.records] == ["t", ""]


def test_run_case_declares_every_tensor_of_any_api():
    """BilinearInterpolation (example) and BlockReduceMin (shipped program's call, run alone): run_case's trace
    knows each present tensor; BlockReduceMin, which tags nothing, runs as before."""
    case = parse_case(json.loads((ROOT / "examples" / "bilinear_interpolation.json").read_text()),
                      base_dir=ROOT / "examples")
    res = run_case(case)
    assert res.trace.declared == {"dst": ("UB", 0, 512), "src0": ("UB", 512, 1536), "src0Offset": ("UB", 1536, 1664),
                                  "src1": ("UB", 1664, 1696), "sharedTmpBuffer": ("UB", 1792, 1792 + 16896)}
    assert tensor_extents(case) == res.trace.declared
    brm = parse_case({"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
                      "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
                      "tensors": {"dst": {"position": "VECOUT", "addr": 512, "size": 8},
                                  "src": {"position": "VECIN", "addr": 0, "size": 128}}})
    res = run_case(brm)
    assert set(res.trace.declared) == {"dst", "src"} and not res.faults


def test_declare_tensors_adds_only_what_is_missing():
    case = parse_case(json.loads((ROOT / "examples" / "bilinear_interpolation.json").read_text()),
                      base_dir=ROOT / "examples")
    tr = Trace(Memory.for_product(case.ctx.product), declared={"dst": ("UB", 0, 32)})
    declare_tensors(tr, case)
    assert tr.declared["dst"] == ("UB", 0, 32) and tr.declared["src1"] == ("UB", 1664, 1696)

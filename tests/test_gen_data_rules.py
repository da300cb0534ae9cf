"""gen writes a case with legal arguments but no valid data as the failing case it is.

Found in the last session's CI: `gen BilinearInterpolation -p atlas-350 --mode boundary` reached a case whose
arguments break no rule, but whose src0 is one 32-byte block at UB+0 under dst (dst starts at UB+0 too). Every
src0Offset entry must then name block 0 (the only block inside src0). Iteration 0 stores dst's first block (mask
lane 0 is on) over UB+0..31, and iteration 1 gathers src0 block 0 again: the data rule bilinear.dst.src0.hazard
(a block read after the same call stored over it) breaks whatever offsets are drawn. gen wrote it "expect success"
with a problem "the core faulted on a valid case" (exit 1). It must be written as failing, with that rule, and the
legal target it was to show must not count as covered.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from ascverify.cases.case import Case
from ascverify.cases.caseio import cases_from_bytes, read_cases
from ascverify.checking.checker import check_case
from ascverify.engines.gen import GenCase, materialize_many
from ascverify.engines.gen.output import coverage
from ascverify.engines.gen.targets import Target

HAZARD = "bilinear.dst.src0.hazard"


def _case(src0_addr: int, src0_size: int) -> Case:
    text = f"""{{"api": "BilinearInterpolation", "product": "atlas-350", "dtype": "half",
      "args": {{"mask": [1, 18446744073709551615], "hRepeat": 1, "repeatMode": true, "dstBlkStride": 1,
               "vROffset": 65520, "vRepeat": 2}},
      "tensors": {{"dst": {{"position": "VECOUT", "addr": 0, "size": 131032}},
                  "src0": {{"position": "VECOUT", "addr": {src0_addr}, "size": {src0_size}}},
                  "src0Offset": {{"position": "VECOUT", "addr": 262080, "size": 16, "dtype": "uint32"}},
                  "src1": {{"position": "VECOUT", "addr": 262048, "size": 16}},
                  "sharedTmpBuffer": {{"position": "A1", "addr": 1, "size": 1, "dtype": "uint8"}}}}}}"""
    return next(iter(cases_from_bytes(text.encode(), "case.json"))).case


def test_legal_arguments_without_valid_data_are_written_as_failing():
    case = _case(0, 16)  # src0: one block (16 halves), under dst's first block
    assert check_case(case).valid  # no rule on the arguments breaks: the data rule is not checked without data
    gc = GenCase(case, "success", covers=["t"], note="boundary")
    materialize_many([gc], [5])
    assert gc.expect == "failed"
    assert gc.rules == [HAZARD] and gc.breaks == [HAZARD]
    assert not gc.problem
    assert HAZARD in gc.note
    assert not gc.golden  # no golden for a failing case
    # the offsets written are all block 0: the only block inside src0
    assert np.array_equal(gc.inputs["src0Offset"], np.zeros(16, dtype=np.uint32))
    assert any("hazard" in f for f in gc.faults)


def test_a_case_whose_data_can_avoid_the_hazard_stays_valid():
    # src0: 64 blocks from UB+0; iteration 0 stores only over the first block (one lane on, dst stride 1), so
    # offsets naming blocks 1..63 keep iteration 1 clear of what was stored
    case = _case(0, 16 * 64)
    gc = GenCase(case, "success", covers=["t"], note="boundary")
    materialize_many([gc], [5])
    assert gc.expect == "success" and not gc.breaks and not gc.problem, (gc.breaks, gc.problem, gc.note)
    assert "dst" in gc.golden


def test_a_legal_target_shown_only_by_a_failing_case_is_not_covered():
    legal = Target("t1", "vRepeat at its largest", "success", field="vRepeat", status="covered", cases=[0])
    also = Target("t2", "vROffset at its largest", "success", field="vROffset", status="covered", cases=[0, 1])
    doc = coverage([legal, also], "boundary", ["case_0000", "case_0001"],
                   {"case_0000": [HAZARD], "case_0001": []}, {"case_0000"})
    assert legal.status == "skipped" and HAZARD in legal.reason and "case_0000" in legal.reason
    assert also.status == "covered"  # case_0001 is written valid and shows it
    assert doc["skipped"] == 1 and doc["covered"] == 1


def test_boundary_cases_of_legal_targets_keep_their_data_rules(tmp_path):
    """In a fresh process, `gen BilinearInterpolation -p atlas-350 --mode boundary -n 30 --seed 3` solved a legal
    target (src0Offset.addr at its largest) with src0 under dst so that every src0 block is stored over before a
    later iteration gathers it: written as a failing case, the target not covered. gen now asks again with the
    warnings held (no overlap) where the target allows: every legal target gets a case valid with its data."""
    out = tmp_path / "gen"
    res = subprocess.run([sys.executable, "-m", "ascverify", "gen", "BilinearInterpolation", "-p", "atlas-350",
                          "--mode", "boundary", "-n", "30", "--seed", "3", "-o", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    doc = json.loads((out / "manifest.json").read_text())
    assert not [c["case_name"] for c in doc["cases"] if "written as a failing case" in c["why"]]
    for entry in doc["cases"]:
        if entry["expect"] == "success":
            case = next(iter(read_cases(str(out / entry["case_file"])))).case
            assert all(case.has_data(n) for n in ("src0", "src0Offset", "src1"))
            assert check_case(case).valid, entry["case_name"]  # with its data: the hazard rule is checked

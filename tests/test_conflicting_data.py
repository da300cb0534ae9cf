"""Tensors that share bytes and are both given data must agree on those bytes: otherwise what the call reads would
depend on the order the core loads them in (it did: src's data won in a case, dst's in a program). Refused before
the run's folder is made, one line naming both tensors, exit 2 (hostile review of 2026-12-06)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import parse_case
from ascverify.cli import main
from ascverify.core.run import run_case
from ascverify.spec.errors import InputError


def in_place(dst_data, src_data):
    """BlockReduceSum on float in place: dst (8 floats) at UB byte 0 is the first 32 bytes of src (128 floats)."""
    return {"api": "BlockReduceSum", "product": "atlas-a2", "dtype": "float",
            "args": {"repeatTime": 1, "mask": 64, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
            "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 8, "data": dst_data},
                        "src": {"position": "VECIN", "addr": 0, "size": 128, "data": src_data}}}


def as_program(doc):
    tensors = {"z": doc["tensors"]["dst"], "x": doc["tensors"]["src"]}
    return {"product": doc["product"], "dtype": doc["dtype"], "tensors": tensors,
            "calls": [{"api": doc["api"], "args": doc["args"], "tensors": {"dst": "z", "src": "x"}}]}


@pytest.mark.parametrize("program", [False, True])
def test_disagreeing_data_is_refused_before_the_folder_is_made(tmp_path, program):
    doc = in_place([100.0] * 8, [1.0] * 128)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(as_program(doc) if program else doc))
    out = tmp_path / "out"
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(out)])
    assert got.exit_code == 2, got.output
    a, b = ("z", "x") if program else ("dst", "src")
    assert f"{path}:case 0: tensors.{b}.data: {a} and {b} share bytes 0..31 of UB and their data differ there" \
        in got.stderr
    assert not out.exists()


@pytest.mark.parametrize("program", [False, True])
def test_agreeing_data_runs(tmp_path, program):
    """The same values on the shared bytes: the sum of each 8-float block of src, 8 * 1.0 for block 0 (whose bytes
    dst shares, ones in both) and 8 * 2.0 for the others."""
    doc = in_place([1.0] * 8, [1.0] * 8 + [2.0] * 120)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(as_program(doc) if program else doc))
    out = tmp_path / "out"
    got = CliRunner().invoke(main, ["run", str(path), "-o", str(out)])
    assert got.exit_code == 0, got.output
    dst = np.load(out / ("z.npy" if program else "dst.npy"))
    assert dst.tolist() == [8.0] + [16.0] * 7


def test_the_core_refuses_it_too_and_generated_data_is_not_given_data():
    case = parse_case(in_place([100.0] * 8, [1.0] * 128))
    with pytest.raises(InputError, match="dst and src share bytes 0..31"):
        run_case(case)
    # without data the core generates both (src after dst: its bytes win); a second run of the same case object
    # does not take what the first generated for given data
    plain = in_place(None, None)
    for t in plain["tensors"].values():
        t.pop("data")
    case = parse_case(plain)
    first = run_case(case, seed=3)
    second = run_case(case, seed=3)
    assert not first.faults and first.tensors["dst"].tolist() == second.tensors["dst"].tolist()

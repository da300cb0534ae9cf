"""What a call computes from bytes the hardware left unspecified (an earlier call's unspecified results, or bytes no
call wrote) is unspecified too, never a number (review 74, finding 1: a reduction over an in-place call's unspecified
element wrote its maximum as a defined value, and one over never-written bytes the maximum with zeros)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from ascverify.cli import main


def _reduce(api: str, dst: str, src: str, repeat: int, mask) -> dict:
    return {"api": api, "args": {"repeat": repeat, "mask": mask, "dst_rep_stride": 1, "src_blk_stride": 1,
                                 "src_rep_stride": 8, "is_set_mask": True}, "tensors": {"dst": dst, "src": src}}


def _run(tmp_path: Path, program: dict) -> Path:
    (tmp_path / "prog.json").write_text(json.dumps(program))
    out = tmp_path / "out"
    got = CliRunner().invoke(main, ["run", str(tmp_path / "prog.json"), "-o", str(out)])
    assert got.exit_code in (0, 1), got.output
    return out


def _all_unspecified(out: Path, name: str, elements: slice) -> None:
    flags = np.load(out / f"{name}.unspecified.npy")[elements]
    assert flags.all(), flags
    raw = np.fromfile(out / f"{name}.bin", dtype=np.uint16)[elements]
    assert (raw == 0xFFFF).all(), raw  # all bits set, as every unspecified element is written
    assert json.loads((out / "run.json").read_text())["tensors"][name]["unspecified"] >= flags.size


def _sum_then_max(d: dict, w_addr: int) -> dict:
    """Call 0 sums x's two 128-element repeats into d (16 values, one per block), call 1 takes the max of d's 16."""
    x = [float(v % 50) for v in range(1, 257)]
    return {"product": "atlas-a2", "dtype": "half",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 256, "data": x},
                        "d": {**d, "size": 16}, "w": {"position": "VECOUT", "addr": w_addr, "size": 16}},
            "calls": [_reduce("block_reduce_sum", "d", "x", 2, 128), _reduce("block_reduce_max", "w", "d", 1, 16)]}


def test_a_reduction_over_an_unspecified_result_is_unspecified(tmp_path: Path):
    # d lies inside x: repeat 1 of the sum reads bytes repeat 0 may already have replaced, and the core marks that
    # result unspecified
    out = _run(tmp_path, _sum_then_max({"position": "VECIN", "addr": 256}, 1024))
    assert np.load(out / "d.unspecified.npy").any()  # the premise: call 0 left an element of d unspecified
    _all_unspecified(out, "w", slice(0, 1))  # the max over d (16 lanes: one block) includes it


def test_a_reduction_over_never_written_bytes_is_unspecified(tmp_path: Path):
    # call 1 writes z[0] only (mask of 8 lanes: one block's minimum); call 2 takes the max over z[0..15]
    program = {"product": "atlas-a2", "dtype": "half",
               "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128},
                           "z": {"position": "VECOUT", "addr": 512, "size": 128},
                           "w": {"position": "VECOUT", "addr": 1024, "size": 16}},
               "calls": [{"api": "set_vector_mask", "args": {"mask": [255, 0]}},
                         {"api": "block_reduce_min", "args": {"repeat": 1, "mask": "MASK_PLACEHOLDER",
                                                              "dst_rep_stride": 1, "src_blk_stride": 1,
                                                              "src_rep_stride": 8, "is_set_mask": False},
                          "tensors": {"dst": "z", "src": "x"}},
                         _reduce("block_reduce_max", "w", "z", 1, [65535, 0])]}
    out = _run(tmp_path, program)
    assert not np.load(out / "z.unspecified.npy")[0]  # z[0] was computed
    _all_unspecified(out, "w", slice(0, 1))


def test_a_call_reading_only_defined_bytes_keeps_its_numbers(tmp_path: Path):
    out = _run(tmp_path, _sum_then_max({"position": "VECOUT", "addr": 1024}, 2048))
    assert not (out / "d.unspecified.npy").exists()  # every element of d defined
    d = np.load(out / "d.npy")
    assert np.isfinite(d).all()
    assert not np.load(out / "w.unspecified.npy")[0] and np.load(out / "w.npy")[0] == d.max()

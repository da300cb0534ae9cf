"""`run` never prints an unspecified value as a number: NAME.unspecified.npy, run.json counts, a note line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from ascverify.cli import main


def block_reduce_case(product: str, src: list[float], dst: list[float], mask: int) -> dict:
    return {"api": "BlockReduceMin", "product": product, "dtype": "half",
            "args": {"repeatTime": 1, "mask": mask, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
            "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 16, "data": dst},
                        "src": {"position": "VECIN", "addr": 256, "size": 128, "data": src}}}


def run(tmp_path, doc: dict):
    case = tmp_path / "case.json"
    case.write_text(json.dumps(doc))
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(case), "-o", str(out)])
    return r, out


def test_fully_masked_block_on_the_inference_ai_core_is_unspecified(tmp_path):
    # HARDWARE_NOTES BlockReduceMin: a datablock whose elements are all masked off writes nothing on atlas-a2/a3,
    # +inf / 65504 on atlas-200i-500-a2 and atlas-350; elsewhere the value is unknown -> unspecified.
    # A contiguous mask of 16 half elements activates datablock 0 only (16 halves = 32 bytes): results 1..7 are
    # those of fully masked blocks; dst elements 8..15 are not written and keep the given values.
    src = [float(i % 7) + 1 for i in range(128)]
    dst = [100.0] * 16
    r, out = run(tmp_path, block_reduce_case("atlas-inference-aicore", src, dst, 16))
    assert r.exit_code == 0, r.output
    marks = np.load(out / "dst.unspecified.npy")
    assert marks.dtype == bool and marks.shape == (16,)
    assert marks.tolist() == [False] + [True] * 7 + [False] * 8
    got = np.load(out / "dst.npy")
    assert got[0] == min(src[:16]) and np.all(got[8:] == 100.0)
    # the unspecified results are not numbers in the files either: every bit set (a half NaN), .npy and .bin alike
    assert got.view("<u2")[1:8].tolist() == [0xFFFF] * 7
    assert np.fromfile(out / "dst.bin", dtype="<u2")[1:8].tolist() == [0xFFFF] * 7
    doc = json.loads((out / "run.json").read_text())
    assert doc["kind"] == "case"
    assert doc["tensors"]["dst"]["unspecified"] == 7 and doc["tensors"]["src"]["unspecified"] == 0
    assert "dst: 7 of 16 elements unspecified" in r.stdout
    assert not (out / "src.unspecified.npy").exists()


def test_the_same_call_on_atlas_a2_is_fully_defined(tmp_path):
    # on atlas-a2 a fully masked block writes nothing: dst keeps its given values, every element is defined
    src = [float(i % 7) + 1 for i in range(128)]
    r, out = run(tmp_path, block_reduce_case("atlas-a2", src, [100.0] * 16, 16))
    assert r.exit_code == 0, r.output
    assert not (out / "dst.unspecified.npy").exists()
    assert json.loads((out / "run.json").read_text())["tensors"]["dst"]["unspecified"] == 0
    assert np.load(out / "dst.npy").tolist() == [1.0] + [100.0] * 15


def test_nan_where_its_handling_is_unknown(tmp_path):
    # HARDWARE_NOTES: only atlas-350's NaN handling is known (any NaN in a block gives NaN); on atlas-a2 a NaN among
    # a block's active elements leaves that block's result unspecified
    src = np.ones(128, np.float16)
    src[3] = np.nan  # block 0 (JSON has no NaN literal: the data comes from a .npy file)
    np.save(tmp_path / "src.npy", src)
    doc = block_reduce_case("atlas-a2", [], [0.0] * 16, 128)
    doc["tensors"]["src"]["data"] = "src.npy"
    r, out = run(tmp_path, doc)
    assert r.exit_code == 0, r.output
    marks = np.load(out / "dst.unspecified.npy")
    assert marks.tolist() == [True] + [False] * 15


def test_a_stale_mark_file_is_removed_when_the_tensor_is_defined(tmp_path):
    src = [float(i % 7) + 1 for i in range(128)]
    run(tmp_path, block_reduce_case("atlas-inference-aicore", src, [100.0] * 16, 16))
    assert (tmp_path / "out" / "dst.unspecified.npy").exists()
    r, out = run(tmp_path, block_reduce_case("atlas-a2", src, [100.0] * 16, 16))
    assert r.exit_code == 0 and not (out / "dst.unspecified.npy").exists()


def test_a_program_reports_its_unspecified_elements(tmp_path):
    # SetVectorMask [255, 0] activates elements 0..7 (datablock 0 of half); z is not given data, so only the one
    # result z[0] is defined: z[1..7] (masked blocks on atlas-a2 write nothing) and z[8..15] were never written
    doc = json.loads(open("examples/program_block_reduce_min.json").read())
    doc["tensors"]["x"]["data"] = [float(i) for i in range(128)]
    r, out = run(tmp_path, doc)
    assert r.exit_code == 0, r.output
    assert np.load(out / "z.unspecified.npy").tolist() == [False] + [True] * 15
    assert np.load(out / "z.npy")[0] == 0.0


def test_an_integer_tensors_unspecified_bytes_are_all_ones(tmp_path):
    # BilinearInterpolation's sharedTmpBuffer (uint8 scratch): the bytes the call does not use are unspecified
    # (the page gives the buffer's size, not its contents); in the files they hold 0xFF, not the bytes the core
    # happened to keep
    example = Path(__file__).resolve().parents[1] / "examples" / "bilinear_interpolation.json"
    r = CliRunner().invoke(main, ["run", str(example), "-o", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    marks = np.load(tmp_path / "out" / "sharedTmpBuffer.unspecified.npy")
    data = np.load(tmp_path / "out" / "sharedTmpBuffer.npy")
    assert data.dtype == np.uint8 and marks.any() and np.all(data[marks] == 0xFF)

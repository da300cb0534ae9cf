"""A program's shared tensor with inline data: checked and converted once for all the calls that name it (review 73,
finding 1: each call copied and converted the values again, so a 3 MB program of 2,000 calls ran for hours)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cases.program import parse_program
from ascverify.cli import main
from ascverify.spec.errors import InputError


def _reduce(dst: str, src: str) -> dict:
    return {"api": "BlockReduceMin", "args": {"repeatTime": 2, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1,
                                              "srcRepStride": 8}, "tensors": {"dst": dst, "src": src}}


def _program(x: list, y: list, calls: int = 4) -> dict:
    """x -> y -> z reductions, repeated: y is written by one call and read by the next (its inline data is only
    its contents before the first call)."""
    return {"product": "atlas-a2", "dtype": "half",
            "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 2048, "data": x},
                        "y": {"position": "VECCALC", "addr": 8192, "size": 256, "data": y},
                        "z": {"position": "VECOUT", "addr": 16384, "size": 16}},
            "calls": [_reduce("y", "x") if i % 2 == 0 else _reduce("z", "y") for i in range(calls)]}


def _values(seed: int, n: int) -> list[float]:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float16).astype(float).tolist()


def test_every_call_holds_the_one_read_only_conversion():
    x = _values(1, 2048)
    program = parse_program(_program(x, _values(2, 256), calls=50))
    readers = [call.case for call in program.calls if call.shared.get("src") == "x"]
    assert len(readers) == 25
    arrays = [case.data("src") for case in readers]
    assert all(a is arrays[0] for a in arrays)
    assert not arrays[0].flags.writeable
    assert arrays[0].dtype == np.float16 and arrays[0].tolist() == x


def test_a_bad_value_names_the_shared_tensor():
    x = _values(1, 2048)
    x[3] = "1.0"
    with pytest.raises(InputError) as err:
        parse_program(_program(x, _values(2, 256)))
    assert err.value.field == "tensors.x.data[3]"


def test_runs_as_with_data_files(tmp_path: Path):
    """The same program with its inputs in .npy files (read per call, as before) writes the same tensors."""
    x, y = _values(1, 2048), _values(2, 256)
    (tmp_path / "inline.json").write_text(json.dumps(_program(x, y)))
    np.save(tmp_path / "x.npy", np.array(x, np.float16))
    np.save(tmp_path / "y.npy", np.array(y, np.float16))
    (tmp_path / "files.json").write_text(json.dumps(_program("x.npy", "y.npy")))  # type: ignore[arg-type]
    runner = CliRunner()
    for name in ("inline", "files"):
        got = runner.invoke(main, ["run", str(tmp_path / f"{name}.json"), "-o", str(tmp_path / name), "-q"])
        assert got.exit_code == 0, got.output
    for tensor in ("y", "z"):
        a, b = (np.load(tmp_path / name / f"{tensor}.npy") for name in ("inline", "files"))
        assert a.tobytes() == b.tobytes()
    # and y was written by the calls: not its given contents
    assert np.load(tmp_path / "inline" / "y.npy").tobytes() != np.array(y, np.float16).tobytes()

"""Run a Python target through the folder protocol of `ascverify fuzz --target-cmd` (an example of that protocol).

    ascverify fuzz BilinearInterpolation --target-cmd 'python examples/targets/case_dir.py examples/targets/bilinear_numpy.py:bilinear {dir}'

The folder holds case.json (the case; each input's "data" names inputs/NAME.bin) and inputs/NAME.bin
(raw little-endian, the tensor's element type); the command writes outputs/NAME.bin for each output and
exits 0. A kernel's CPU-debug build or a simulator run does the same from C++ or a shell script.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

DTYPES = {"half": np.float16, "float": np.float32, "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
          "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}


def main(argv: list[str]) -> int:
    spec, folder = argv[1], Path(argv[2])
    path, _, name = spec.rpartition(":")
    loader = importlib.util.spec_from_file_location("_target", path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    case = json.loads((folder / "case.json").read_text())
    inputs = {}
    for tname, t in case["tensors"].items():
        if "data" in t:
            dtype = np.dtype(DTYPES[t.get("dtype", case["dtype"])]).newbyteorder("<")
            inputs[tname] = np.fromfile(folder / t["data"], dtype=dtype)
    outputs = getattr(module, name)(case, inputs)
    (folder / "outputs").mkdir(exist_ok=True)
    for tname, arr in outputs.items():
        arr = np.asarray(arr)
        arr.astype(arr.dtype.newbyteorder("<")).tofile(folder / "outputs" / f"{tname}.bin")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

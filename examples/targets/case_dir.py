"""Run a Python target through the folder protocol of `ascverify fuzz --target-cmd` (an example of that protocol).

    ascverify fuzz BilinearInterpolation --target-cmd 'python examples/targets/case_dir.py examples/targets/bilinear_numpy.py:bilinear {dir}'

The folder holds case.json (the case; each input's "data" names inputs/NAME.bin; the Reg API registers the call
reads are its "registers": {"vreg": {"5": [256 byte values]}, ...}) and inputs/NAME.bin (raw little-endian, the
tensor's element type); the command writes outputs/NAME.bin for each output and, for a call that writes registers
(LoadAlign into a MaskReg or RegTensor, MaskGenWithRegTensor), outputs/registers.json in the shape of a case's
"registers" ({"mask": {"2": [32 byte values]}}), then exits 0. A kernel's CPU-debug build or a simulator run does
the same from C++ or a shell script.

    ascverify fuzz LoadAlign --target-cmd 'python examples/targets/case_dir.py bench/mutants/reg.py:load_align {dir}'
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

#: Keys of a Python target's answer that hold registers, not tensors (`ascverify fuzz --help`): {"MaskReg": bytes},
#: {"MaskReg": {index: bytes}}, {"registers": {"mask": {"2": bytes}}}
REGISTER_FILES = {"RegTensor": "vreg", "MaskReg": "mask", "AddrReg": "addr"}
#: A register's index left to the call (the one register of that file it writes)
ANY_INDEX = "*"

#: Element types as numpy reads them from the raw files (int4b: one int8 per element, as ascverify's arrays hold it)
DTYPES = {"half": np.float16, "float": np.float32, "bfloat16": ml_dtypes.bfloat16,
          "fp8_e4m3fn": ml_dtypes.float8_e4m3fn, "fp8_e5m2": ml_dtypes.float8_e5m2, "hifloat8": np.uint8,
          "int4b": np.int8, "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
          "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "bool": np.uint8,
          "b8": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64}


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
    registers: dict[str, dict[str, list]] = {}
    for tname, value in outputs.items():
        if tname == "registers":
            for file, entries in value.items():
                for index, raw in entries.items():
                    registers.setdefault(REGISTER_FILES.get(file, file), {})[str(index)] = register_json(raw)
        elif tname in REGISTER_FILES:
            entries = value if isinstance(value, dict) else {ANY_INDEX: value}
            for index, raw in entries.items():
                registers.setdefault(REGISTER_FILES[tname], {})[str(index)] = register_json(raw)
        else:
            arr = np.asarray(value)
            arr.astype(arr.dtype.newbyteorder("<")).tofile(folder / "outputs" / f"{tname}.bin")
    if registers:
        (folder / "outputs" / "registers.json").write_text(json.dumps(registers))
    return 0


def register_json(raw) -> list:
    """One register as JSON: its bytes (little-endian elements), or a MaskReg's 256 booleans (bit i first) as given."""
    if isinstance(raw, (bytes, bytearray)):
        return list(raw)
    arr = np.asarray(raw)
    if arr.dtype == bool:
        return arr.tolist()
    if arr.dtype.kind in "iu" and arr.size and arr.min() >= 0 and arr.max() <= 255 and arr.dtype.itemsize > 1 \
            and not isinstance(raw, np.ndarray):
        return arr.tolist()  # a list of byte values
    return list(arr.astype(arr.dtype.newbyteorder("<")).tobytes())


if __name__ == "__main__":
    sys.exit(main(sys.argv))

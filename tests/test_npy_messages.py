"""A .npy file whose header numpy refuses is said so in our words (audit 16, L2): numpy's own message quoted its
parser's internals (``malformed node or string on line 1: <ast.Call object at 0x7f...>``) or told the reader to
"adjust `max_header_size`", which a case's author cannot do."""

from __future__ import annotations

import io
import json
import struct

import numpy as np
from click.testing import CliRunner

from ascverify.cli import main


def npy_v1(header: str) -> bytes:
    """A .npy 1.0 file: magic, version, a little-endian uint16 header length, the header padded to 64 bytes."""
    text = header.encode("latin1")
    pad = (-(10 + len(text) + 1)) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text


def check_with(tmp_path, blob: bytes) -> str:
    (tmp_path / "x.npy").write_bytes(blob)
    case = {"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
            "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
            "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 16},
                        "src": {"position": "VECIN", "addr": 256, "size": 128, "data": "x.npy"}}}
    (tmp_path / "c.json").write_text(json.dumps(case))
    got = CliRunner().invoke(main, ["check", str(tmp_path / "c.json")])
    assert got.exit_code == 2
    return got.output.splitlines()[0]


def test_a_header_that_is_code(tmp_path):
    line = check_with(tmp_path, npy_v1("{'descr': __import__('os').getcwd(), 'fortran_order': False, 'shape': (4,), }"))
    assert line.endswith("tensors.src.data: cannot read data file 'x.npy': its header is not a .npy header (a dict "
                         "of descr, fortran_order and shape literals)")
    assert "ast." not in line and "0x" not in line


def test_a_header_too_long(tmp_path):
    shape = "(" + ", ".join(["1"] * 6000) + ",)"
    line = check_with(tmp_path, npy_v1("{'descr': '<f2', 'fortran_order': False, 'shape': " + shape + ", }"))
    assert "its header is too long for a .npy file of numbers" in line and "max_header_size" not in line


def test_a_64_bit_overflow_is_shown_whole(tmp_path):
    """audit 16/20: 2**64 (a JSON integer the parser hands over as a float) was shown as 1.84467e+19."""
    (tmp_path / "c.json").write_text('{"api": "LoadAlign", "product": "atlas-350", "dtype": "half", "args": {"dstReg": '
                                     '18446744073709551616}, "tensors": {"srcAddr": {"position": "VECIN", "addr": 0, '
                                     '"size": 128}}}')
    got = CliRunner().invoke(main, ["check", str(tmp_path / "c.json")])
    assert got.exit_code == 2
    assert got.output.splitlines()[0].endswith("args.dstReg: 18446744073709551616 is outside any representable "
                                               "integer range")


def test_a_boolean_npy_is_refused_as_inline_booleans_are(tmp_path):
    """Inline data refuses true / false (numbers only): a .npy of booleans for a half tensor is refused too (it was
    read as 1.0 / 0.0, newcomer review L12); a uint8 file of the same values is read."""
    def npy(arr) -> bytes:
        buf = io.BytesIO()
        np.save(buf, arr)
        return buf.getvalue()

    line = check_with(tmp_path, npy(np.ones(16, dtype=bool)))
    assert line.endswith("tensors.src.data: data file 'x.npy' holds booleans, not half numbers")
    (tmp_path / "x.npy").write_bytes(npy(np.ones(16, dtype=np.uint8)))
    got = CliRunner().invoke(main, ["check", str(tmp_path / "c.json")])
    assert got.exit_code == 0, got.output

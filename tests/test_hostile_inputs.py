"""Hostile inputs found by an audit (2026-12-05): each was an internal error (exit 3), a traceback or a cost far
above its size; each is now one line naming the file (and field), exit status 2."""

from __future__ import annotations

import errno
import io
import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from numpy.lib import format as npy_format

from ascverify.cli import main
from ascverify.spec.errors import MAX_MESSAGE, did_you_mean

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"


def invoke(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_exit_2(r, *words: str) -> None:
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and "internal error" not in r.output
    for w in words:
        assert w in r.output, (w, r.output)


# -- .npy headers with negative dimensions ------------------------------------------------------------------------

@pytest.mark.parametrize("shape, fortran", [((-1,), False), ((-1, -1), True), ((-(2**63),), False),
                                            ((4, -1, -4), False)])  # (the last one's product, 16, looked valid)
def test_a_npy_header_with_a_negative_dimension_is_refused(tmp_path, shape, fortran):
    header = io.BytesIO()
    npy_format.write_array_header_1_0(header, {"descr": "<f2", "fortran_order": fortran, "shape": shape})
    (tmp_path / "neg.npy").write_bytes(header.getvalue() + b"\0" * 64)
    doc = json.loads(EXAMPLE.read_text())
    doc["tensors"]["src0"]["data"] = "neg.npy"
    (tmp_path / "case.json").write_text(json.dumps(doc))
    for args in (("check",), ("run", "-o", tmp_path / "out"), ("show",)):
        r = invoke(args[0], tmp_path / "case.json", *args[1:])
        one_line_exit_2(r, "case.json", "tensors.src0.data", "'neg.npy' has the shape", "non-negative")


# -- files that open but cannot be read ---------------------------------------------------------------------------

@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_a_file_that_opens_but_cannot_be_read_is_named():
    # /proc/self/mem reads fail with EIO; pagemap with EINVAL under a small --max-bytes (it was a raw traceback)
    r = invoke("check", "/proc/self/mem")
    one_line_exit_2(r, "/proc/self/mem: cannot read: Input/output error")
    r = invoke("check", "--max-bytes", "1000", "/proc/self/pagemap")
    one_line_exit_2(r, "/proc/self/pagemap: cannot read: Invalid argument")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_a_data_file_that_cannot_be_read_is_named(tmp_path):
    doc = json.loads(EXAMPLE.read_text())
    (tmp_path / "mem.bin").symlink_to("/proc/self/mem")  # a data file's name ends in .npy or .bin
    doc["tensors"]["src0"]["data"] = "mem.bin"
    (tmp_path / "case.json").write_text(json.dumps(doc))
    r = invoke("check", "--data-root", "/proc", tmp_path / "case.json")
    one_line_exit_2(r, "case.json", "tensors.src0.data", "cannot read data file")


def test_an_unexpected_os_error_is_an_internal_error_on_one_line(monkeypatch):
    # an OSError that is not the machine's (a full disk, a read-only folder) is a bug of ours: exit 3, one line;
    # it escaped as a raw traceback with exit status 1
    import ascverify.cli.common as common

    def boom(cases, *_):
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(common, "check_cases", boom)
    r = invoke("check", EXAMPLE)
    assert r.exit_code == 3 and r.exception is None or isinstance(r.exception, SystemExit)
    assert r.stderr.strip() == ("ascverify: internal error: OSError: [Errno 22] Invalid argument "
                                "(rerun with --debug for the traceback)")


# -- a loop of symbolic links ---------------------------------------------------------------------------------------

def test_a_loop_of_symbolic_links_is_bad_input(tmp_path):
    (tmp_path / "l2").symlink_to(tmp_path / "l1")
    (tmp_path / "l1").symlink_to(tmp_path / "l2")
    r = invoke("check", tmp_path / "l1", EXAMPLE)  # one unreadable file; the other is still checked
    one_line_exit_2(r, "l1: cannot read: a loop of symbolic links", "1 case: 1 valid")
    for args in (("run", tmp_path / "l1", "-o", tmp_path / "out"), ("explain", tmp_path / "l1"),
                 ("show", tmp_path / "l1"), ("fix", ROOT / "examples" / "bad" / "bad.json", "-o", tmp_path / "l1")):
        one_line_exit_2(invoke(*args), "l1", "loop of symbolic links")


# -- SARIF positions of lines nested deeper than Python's parser goes ----------------------------------------------

@pytest.mark.parametrize("product", [[], ["-p", "all"]])
def test_sarif_of_a_deeply_nested_line(tmp_path, product):
    deep = "[" * 3000 + "]" * 3000
    (tmp_path / "deep.jsonl").write_text("{}\n" + deep + "\n{}\n")
    r = invoke("check", "--format", "sarif", *product, tmp_path / "deep.jsonl")
    assert r.exit_code == 2, r.output
    doc = json.loads(r.stdout)
    notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]  # (unreadable cases are reported there)
    deep_note = next(x for x in notes if "depth limit" in x["message"]["text"])
    assert deep_note["locations"][0]["physicalLocation"]["region"]["startLine"] == 2


# -- encode / decode: numbers of thousands of digits ----------------------------------------------------------------

def test_codec_words_of_thousands_of_digits():
    huge = "0x" + "f" * 5000
    one_line_exit_2(invoke("decode", "load3d", huge, "0"), "CONFIG0", "is outside uint64")
    one_line_exit_2(invoke("decode", "load3d", "0", huge), "CONFIG1", "is outside uint64")
    r = invoke("encode", "load3d", f"kStep={huge}")
    one_line_exit_2(r, "kStep=0xffffffffffffffff... (5000 hex digits) does not fit its 16 bits")


# -- names megabytes long ------------------------------------------------------------------------------------------

def test_a_name_megabytes_long_is_not_printed_whole(tmp_path):
    # a 10 MB unknown API name took 5 s and 474 MB (the did-you-mean matched it) and printed a 10 MB line
    (tmp_path / "big.json").write_text(json.dumps({"api": "X" * 2_000_000, "product": "atlas-a2", "args": {}}))
    r = invoke("check", "--max-bytes", 10**8, tmp_path / "big.json")
    assert r.exit_code == 2, r.output[:500]
    line = r.stderr.splitlines()[0]  # (an unreadable case is reported on standard error)
    assert "unknown API" in line and "(cut: " in line and len(line) < MAX_MESSAGE + 300


def test_no_suggestion_for_a_name_that_long():
    assert did_you_mean("BilinearInterpolaton", ["BilinearInterpolation"]) == " (did you mean 'BilinearInterpolation'?)"
    assert did_you_mean("B" * 10_000, ["BilinearInterpolation"]) == ""


# -- a byte order mark --------------------------------------------------------------------------------------------

def test_a_byte_order_mark_is_named_not_called_binary(tmp_path):
    # some editors save UTF-8 with a BOM, which JSON does not allow (RFC 8259, 8.1); "not UTF-8 text" misled
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + (ROOT / "examples" / "bad" / "bad.json").read_bytes())
    r = invoke("check", tmp_path / "bom.json")
    one_line_exit_2(r, "bom.json: invalid JSON: the text starts with a UTF-8 byte order mark (BOM)")
    lines = (ROOT / "examples" / "bad" / "bad.json").read_text()
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + json.dumps(json.loads(lines)).encode() + b"\n{}\n")
    r = invoke("check", tmp_path / "bom.jsonl")
    one_line_exit_2(r, "bom.jsonl:case 0: line 1: invalid JSON: the text starts with a UTF-8 byte order mark")


def test_a_value_beyond_its_type_is_not_called_zero(tmp_path):
    # dstBlkStride = 2**64 - 1 was reported as "dstBlkStride=0 is undefined behaviour"
    doc = json.loads(EXAMPLE.read_text())
    doc["args"]["dstBlkStride"] = 2**64 - 1
    doc["tensors"]["src0"]["data"] = str(ROOT / "examples" / "bilinear_src0.npy")
    (tmp_path / "case.json").write_text(json.dumps(doc))
    r = invoke("check", "--data-root", ROOT / "examples", tmp_path / "case.json")
    assert r.exit_code == 1, r.output
    line = next(x for x in r.stdout.splitlines() if "[bilinear.dstBlkStride.nonzero]" in x)
    assert "dstBlkStride=18446744073709551615 is outside [1, 65535]" in line and "dstBlkStride=0" not in line

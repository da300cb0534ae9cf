"""Inputs that cannot be read: exit status 2, one line naming the file and the field, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascverify import parse_case
from ascverify.cli import main
from ascverify.spec.errors import InputError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bilinear_interpolation.json"


def base_case() -> dict:
    """The shipped example; its data file is named relative to the case file: the tests put a copy beside it
    (data files are read only from the case file's folder)."""
    return json.loads(EXAMPLE.read_text())


def beside(path: Path) -> Path:
    """``path``, with the example's data file copied into its folder."""
    shutil.copy(EXAMPLE.parent / "bilinear_src0.npy", path.parent)
    return path


def edit(change: Callable[[dict], Any]) -> bytes:
    """The example case with one change, as JSON bytes."""
    doc = base_case()
    change(doc)
    return json.dumps(doc).encode()


def set_arg(name: str, value: Any) -> bytes:
    return edit(lambda d: d["args"].__setitem__(name, value))


def one_error_line(result) -> str:
    """The single input-error line on stderr (besides the summary), after checking the contract."""
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "internal error" not in out
    lines = result.stderr.splitlines()
    assert lines[-1].endswith("unreadable") and lines[-1].split(": ")[0].endswith(("case", "cases"))
    assert len(lines) == 2, lines
    return lines[0]


# (id, file contents, what the line must say after "FILE")
MALFORMED: list[tuple[str, bytes, list[str]]] = [
    ("invalid-json", b'{"api": "BilinearInterpolation", product}', [": invalid JSON"]),
    ("truncated-json", json.dumps(base_case()).encode()[:150], [": invalid JSON: unexpected end of data"]),
    ("empty-file", b"", [": empty file"]),
    ("whitespace-only", b" \n\t\n", [": empty file"]),
    ("binary-nul", b"\x93NUMPY\x01\x00v\x00{'descr': '<f2'", [": binary content"]),
    ("not-utf8", b'{"api": "Bilinear\xff\xfeInterpolation"}', [": not UTF-8 text (byte 17, 0xff): text in another encoding"]),
    # text a Windows tool saved as UTF-16 (with or without its byte-order mark) or in Latin-1 is named as such
    # (it was "binary content", which sent the user looking for a wrong file)
    ("utf16-bom", '{"api": "BilinearInterpolation"}'.encode("utf-16"), [": UTF-16 text, not UTF-8: save the case "
                                                                       "file as UTF-8"]),
    ("utf16le-no-bom", '{"api": "BilinearInterpolation"}'.encode("utf-16-le"), [": UTF-16 text, not UTF-8"]),
    ("utf32", '{"api": "BilinearInterpolation"}'.encode("utf-32"), [": UTF-32 text, not UTF-8"]),
    ("utf16le-cjk-no-bom", '{"api": "BilinearInterpolation", "名字": "中文"}'.encode("utf-16-le"),
     [": UTF-16 text, not UTF-8"]),
    # raw 16-bit numbers (a .bin data file given as the case file) have NULs in every other byte too: not text
    ("raw-uint16", b"".join(i.to_bytes(2, "little") for i in range(1, 200)),
     [": binary content, not a JSON case file"]),
    ("gbk", '{"api": "中文"}'.encode("gbk"), [": not UTF-8 text (byte 9, 0xd6): text in another encoding"]),
    ("latin1", '{"api": "BilinearInterpolation", "product": "café"}'.encode("latin-1"),
     [": not UTF-8 text (byte 48, 0xe9): text in another encoding (Latin-1, GBK, ...)? save the case file as UTF-8"]),
    ("top-level-number", b"42", [":case 0: a case must be a JSON object, got an integer"]),
    ("top-level-string", b'"BilinearInterpolation"', [":case 0: a case must be a JSON object, got a string"]),
    ("case-is-list-of-numbers", b"[[1, 2, 3]]", [":case 0: a case must be a JSON object, got a list"]),
    ("unknown-api", edit(lambda d: d.__setitem__("api", "BilinearInterpolaton")),
     [":case 0: api: unknown API 'BilinearInterpolaton' (did you mean 'BilinearInterpolation'?)"]),
    ("unknown-product", edit(lambda d: d.__setitem__("product", "atlas-a22")),
     [":case 0: product: unknown product 'atlas-a22' (did you mean 'atlas-a2'?)"]),
    ("unknown-dtype", edit(lambda d: d.__setitem__("dtype", "halff")),
     [":case 0: dtype: unknown element type 'halff' (did you mean 'half'?)"]),
    ("unknown-tensor-dtype", edit(lambda d: d["tensors"]["src0Offset"].__setitem__("dtype", "unit32")),
     [":case 0: tensors.src0Offset.dtype: unknown element type 'unit32' (did you mean 'uint32'?)"]),
    ("unknown-argument", set_arg("hRepet", 2),
     [":case 0: args.hRepet: unknown argument 'hRepet' of BilinearInterpolation (did you mean 'hRepeat'?)"]),
    # an argument or tensor at the top level instead of under args / tensors (audit 22: "did you mean 'expect'?")
    ("argument-at-top-level", edit(lambda d: d.__setitem__("hRepeat", d["args"].pop("hRepeat"))),
     [":case 0: hRepeat: unknown key 'hRepeat' ('hRepeat' is an argument of BilinearInterpolation: put it under "
      "args, as args.hRepeat)"]),
    ("misspelt-argument-at-top-level", edit(lambda d: d.__setitem__("hRepet", 5)),
     [":case 0: hRepet: unknown key 'hRepet' (did you mean args.hRepeat?)"]),
    ("tensor-at-top-level", edit(lambda d: d.__setitem__("src1", d["tensors"]["src1"])),
     [":case 0: src1: unknown key 'src1' ('src1' is a tensor of BilinearInterpolation: put it under tensors, "
      "as tensors.src1)"]),
    ("api-null", edit(lambda d: d.__setitem__("api", None)), [":case 0: api: expected an API name, got null"]),
    ("misspelt-case-key", edit(lambda d: d.__setitem__("tensor", {})), [":case 0: tensor: unknown key 'tensor' "
                                                                          "(did you mean 'tensors'?)"]),
    ("unknown-tensor", edit(lambda d: d["tensors"].__setitem__("scr1", d["tensors"].pop("src1"))),
     [":case 0: tensors.scr1: unknown tensor 'scr1' of BilinearInterpolation (did you mean 'src1'?)"]),
    ("unknown-case-key", edit(lambda d: d.__setitem__("prodcut", "atlas-a2")),
     [":case 0: prodcut: unknown key 'prodcut' (did you mean 'product'?)"]),
    ("missing-tensor", edit(lambda d: d["tensors"].pop("dst")), [":case 0: tensors.dst: missing"]),
    ("string-for-int", set_arg("hRepeat", "2"), [":case 0: args.hRepeat: expected an integer, got a string ('2')"]),
    ("bool-for-int", set_arg("hRepeat", True), [":case 0: args.hRepeat: expected an integer, got a boolean"]),
    ("float-for-int", set_arg("hRepeat", 1.5), [":case 0: args.hRepeat: expected an integer, got a number (1.5)"]),
    ("integral-float-for-int", set_arg("hRepeat", 2.0),
     [":case 0: args.hRepeat: expected an integer, got a number (2.0)"]),
    ("null-for-int", set_arg("hRepeat", None), [":case 0: args.hRepeat: expected an integer, got null"]),
    ("int-for-bool", set_arg("repeatMode", 0), [":case 0: args.repeatMode: expected true or false"]),
    # orjson reads integers beyond 64 bits as floats: the message must still say "out of range"
    ("huge-integer", set_arg("hRepeat", 10**30), [":case 0: args.hRepeat: 1e+30 is outside any representable integer range"]),
    ("huge-negative", edit(lambda d: d["tensors"]["dst"].__setitem__("addr", -10**20)),
     [":case 0: tensors.dst.addr: -1e+20 is outside any representable integer range"]),
    ("just-beyond-uint64", set_arg("vROffset", 2**64), [":case 0: args.vROffset: ", "outside any representable integer range"]),
    # -2**63 - 1 arrives as the float -2**63 (rounded): still an integer out of range, not "a number"
    ("just-below-int64", set_arg("vROffset", -(2**63) - 1),
     [":case 0: args.vROffset: a negative integer past 64 bits is outside any representable integer range"]),
    # an integer datum past 64 bits arrives as a float: named as written (it read 1.8446744073709552e+19)
    ("data-beyond-uint64", edit(lambda d: d["tensors"]["src0Offset"]["data"].__setitem__(0, 2**64)),
     [":case 0: tensors.src0Offset.data[0]: 18446744073709551616 is not a uint32 value"]),
    ("data-float-for-int", edit(lambda d: d["tensors"]["src0Offset"]["data"].__setitem__(0, 2.0)),
     [":case 0: tensors.src0Offset.data[0]: 2.0 is not a uint32 value"]),
    ("nan-literal", set_arg("hRepeat", 0).replace(b'"hRepeat": 0', b'"hRepeat": NaN'),
     [":case 0: args.hRepeat: NaN is not a JSON number (line 1, column "]),
    ("infinity-literal", set_arg("hRepeat", 0).replace(b'"hRepeat": 0', b'"hRepeat": Infinity'),
     [":case 0: args.hRepeat: Infinity is not a JSON number (line 1, column "]),
    # beyond a double's range orjson refuses the text (audit 16: "invalid JSON: number is infinity when parsed as
    # double", no field): the standard library's reading names it, the number shortened
    ("100000-digit-integer", set_arg("hRepeat", 0).replace(b'"hRepeat": 0', b'"hRepeat": ' + b"9" * 100_000),
     [":case 0: args.hRepeat: 999999999999...999999 (100,000 characters) is outside any representable number "
      "range (line 1, column "]),
    ("float-beyond-double", set_arg("hRepeat", 0).replace(b'"hRepeat": 0', b'"hRepeat": -1e999'),
     [":case 0: args.hRepeat: -1e999 is outside any representable number range (line 1, column "]),
    ("duplicate-key", edit(lambda d: None).replace(b'"product": "atlas-a2"', b'"product": "atlas-a2", "product": "atlas-350"'),
     [":case 0: product: duplicate key 'product' (a key may appear once in an object)"]),
    ("deep-in-a-field", set_arg("hRepeat", 0).replace(b'"hRepeat": 0', b'"hRepeat": ' + b"[" * 990 + b"]" * 990),
     [":case 0: args.hRepeat: nested deeper than 64 levels"]),
    ("deep-nesting-open", b"[" * 100_000, [": invalid JSON"]),
    ("deep-nesting-closed", b"[" * 100_000 + b"]" * 100_000, [": invalid JSON: depth limit exceeded"]),
    ("mask-word-bool", set_arg("mask", [True, 0]), [":case 0: args.mask[0]: expected an integer, got a boolean"]),
    ("data-with-string", edit(lambda d: d["tensors"]["src1"].__setitem__("data", [2, "3", 4])),
     [":case 0: tensors.src1.data[1]: expected a number, got a string ('3')"]),
    ("data-nested-list", edit(lambda d: d["tensors"]["src1"].__setitem__("data", [[2]])),
     [":case 0: tensors.src1.data[0]: expected a number, got a list"]),
    ("data-not-list", edit(lambda d: d["tensors"]["src1"].__setitem__("data", {"values": [2]})),
     [":case 0: tensors.src1.data: expected a list of numbers or a file path, got an object"]),
    # docs/case-format.md: a .npy file or a raw little-endian .bin file; a text file was read as raw bytes (audit 22)
    ("data-text-file", edit(lambda d: d["tensors"]["src1"].__setitem__("data", "weights.txt")),
     [":case 0: tensors.src1.data: data file 'weights.txt' is neither a .npy nor a .bin file: give a .npy file or "
      "a raw little-endian .bin file"]),
    ("data-empty-name", edit(lambda d: d["tensors"]["src1"].__setitem__("data", "")),
     [":case 0: tensors.src1.data: an empty file name: give a .npy file"]),
    ("data-path-missing", edit(lambda d: d["tensors"]["src0"].__setitem__("data", "no_such_src0.npy")),
     [":case 0: tensors.src0.data: data file 'no_such_src0.npy' not found"]),
    ("data-longer-than-tensor", edit(lambda d: d["tensors"]["src1"].__setitem__("size", 4)),
     [":case 0: tensors.src1.data: 16 data values for a tensor of size 4"]),
    ("offset-not-uint32", edit(lambda d: d["tensors"]["src0Offset"]["data"].__setitem__(3, -32)),
     [":case 0: tensors.src0Offset.data[3]: -32 is not a uint32 value"]),
    ("tensor-not-object", edit(lambda d: d["tensors"].__setitem__("dst", [0, 256])),
     [":case 0: tensors.dst: expected an object with position, addr, size; got a list"]),
    ("unknown-position", edit(lambda d: d["tensors"]["dst"].__setitem__("position", "VECOTU")),
     [":case 0: tensors.dst.position: unknown TPosition 'VECOTU' (did you mean 'VECOUT'?)"]),
    # the vendor's TPosition enum has CO2 (its test_tensor_scope puts BilinearInterpolation operands there): a
    # TPosition no modelled API takes, said as such rather than "unknown ... did you mean 'CO1'"
    ("unmodelled-position", edit(lambda d: d["tensors"]["dst"].__setitem__("position", "CO2")),
     [":case 0: tensors.dst.position: TPosition CO2 is not modelled (no modelled API takes a tensor there; "
      "positions: VECIN, VECCALC, VECOUT, A1, B1, A2, B2, CO1)"]),
    ("vendor-alias-position", edit(lambda d: d["tensors"]["dst"].__setitem__("position", "LCM")),
     [":case 0: tensors.dst.position: TPosition LCM: the vendor's other name of VECCALC: write VECCALC"]),
]


@pytest.mark.parametrize("content, expected", [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_file(tmp_path, content, expected):
    path = beside(tmp_path / "case.json")
    path.write_bytes(content)
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 2, r.output
    line = one_error_line(r)
    assert line.startswith(str(path) + ":"), line
    for part in expected:
        assert part in line, (part, line)
    assert r.stdout == ""


@pytest.mark.parametrize("content", [MALFORMED[0][1], set_arg("hRepet", 2)], ids=["file-level", "case-level"])
def test_malformed_in_json_format(tmp_path, content):
    path = beside(tmp_path / "case.json")
    path.write_bytes(content)
    r = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
    assert r.exit_code == 2
    one_error_line(r)
    (res,) = json.loads(r.stdout)["results"]
    assert res["valid"] is False and res["file"] == str(path) and res["error"]


def test_json_lines_whose_first_lines_hold_huge_numbers(tmp_path):
    """audit 23: JSON Lines whose first lines mostly held numbers beyond a double (or NaN literals) were read as one
    document (orjson refuses such a line, so it did not count as a case when the format was decided): the error then
    named no case and no field. Every line is a case of its own: the bad ones name their field and line."""
    path = beside(tmp_path / "cases.jsonl")
    good = json.dumps(base_case())
    lines = [good.replace('"hRepeat": 2', ('"hRepeat": 1e999', '"hRepeat": NaN')[i % 3]) if i % 3 < 2 else good
             for i in range(24)]  # two lines in three orjson refuses, the first of them too
    assert all(('"hRepeat": 2' in line) == (line == good) for line in lines) and good in lines
    path.write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    bad = [i for i, line in enumerate(lines) if line != good]
    errors = r.stderr.splitlines()[:-1]
    assert len(errors) == len(bad) and r.stderr.splitlines()[-1] == f"24 cases: {24 - len(bad)} valid, 0 invalid, " \
                                                                    f"{len(bad)} unreadable"
    for i, line in zip(bad, errors):
        literal = "NaN is not a JSON number" if i % 3 else "1e999 is outside any representable number range"
        assert line.startswith(f"{path}:case {i}: args.hRepeat: {literal} (line {i + 1}, column "), line


def test_missing_file(tmp_path):
    path = tmp_path / "nope.json"
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 2
    assert one_error_line(r) == f"{path}: no such file"


def test_directory(tmp_path):
    r = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert r.exit_code == 2
    assert one_error_line(r) == (f"{tmp_path}: is a directory, not a case file (name its files: DIR/*.json, or "
                                 f"DIR/case_*/case.json for a gen folder)")


def test_larger_than_max_bytes(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(EXAMPLE.read_bytes())
    size = path.stat().st_size
    r = CliRunner().invoke(main, ["check", "--max-bytes", "100", str(path)])
    assert r.exit_code == 2
    assert one_error_line(r) == f"{path}: file is {size} bytes; the limit is 100"
    # the same limit on standard input
    r = CliRunner().invoke(main, ["check", "--max-bytes", "100", "-"], input=path.read_text())
    assert r.exit_code == 2
    assert one_error_line(r) == "-: input is larger than the limit of 100 bytes"


def test_bad_line_in_json_lines(tmp_path):
    good = json.dumps(base_case())
    path = beside(tmp_path / "cases.jsonl")
    path.write_text("\n".join([good, good[:-20], good]) + "\n")
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 2
    line = one_error_line(r)
    assert line.startswith(f"{path}:case 1: line 2: invalid JSON")
    assert r.stderr.splitlines()[-1] == "3 cases: 2 valid, 0 invalid, 1 unreadable"


def test_a_bad_line_names_its_column_not_a_line_of_its_own(tmp_path):
    """audit 22: a bad line of JSON Lines said `line 4: invalid JSON: ... line 1 column 9 (char 8)`: two line
    numbers. The line's own number, then the column of the problem in it."""
    good = json.dumps(base_case())
    path = beside(tmp_path / "cases.jsonl")
    path.write_text("\n".join([good, good, good, '{"api": x}']) + "\n")
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 2
    # column 9 is the x: `{"api": ` holds 8 characters before it
    assert one_error_line(r) == (f"{path}:case 3: line 4: invalid JSON: unexpected character, expected a JSON value "
                                 "(column 9)")


# -- fuzzing: any JSON value in any position ---------------------------------------------------------------------

def _positions(doc: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _positions(v, path + (k,))
        out.append(path + ("extraKey",))  # a new key
    elif isinstance(doc, list) and path and path[-1] != "data":
        for i, v in enumerate(doc):
            out += _positions(v, path + (i,))
    return out


POSITIONS = _positions(base_case())

scalars = (st.none() | st.booleans()
           | st.integers(-(2**70), 2**70)
           | st.sampled_from([0, 1, -1, 128, 255, 256, 65535, 65536, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30])
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=12)
           | st.sampled_from(["VECIN", "VECOUT", "A1", "half", "float", "uint32", "atlas-350", "", "src0.npy"]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=8)


def _replace(doc: Any, path: tuple, value: Any, delete: bool) -> Any:
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        parent.pop(path[-1], None)
    else:
        parent[path[-1]] = value
    return doc


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(POSITIONS), value=json_values, delete=st.booleans())
def test_fuzz_any_value_anywhere(path, value, delete):
    doc = _replace(base_case(), path, value, delete and bool(path))
    text = json.dumps(doc)
    r = CliRunner().invoke(main, ["check", "-"], input=text)
    assert r.exit_code in (0, 1, 2), (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output and "internal error" not in r.stderr
    if r.exit_code == 2:
        # one line per unreadable case (a list at the top may hold several), each naming its case; an empty list
        # at the top holds no case: the file is unreadable as a whole, as an empty file is
        *errors, summary = r.stderr.splitlines()
        if doc == []:
            assert errors == ["-: an empty list: no case in it (expected a case, a list of cases or JSON Lines)"]
            assert summary.startswith("1 file cannot be read; 0 cases"), r.stderr
            return
        assert summary.endswith(f", {len(errors)} unreadable") and errors, r.stderr
        assert all(line.startswith("-:") for line in errors)
    else:
        assert len(r.stderr.splitlines()) == 1  # the summary alone
        assert r.stdout or r.exit_code == 0


def test_fuzz_positions_cover_every_field():
    # every argument and every tensor key of the example is a fuzzed position
    doc = base_case()
    for arg in doc["args"]:
        assert ("args", arg) in POSITIONS
    for name, t in doc["tensors"].items():
        for key in t:
            assert ("tensors", name, key) in POSITIONS


def test_a_nan_in_python_data_is_named_as_such():
    """A case built in Python may hold float('nan') in its inline data, which a JSON file cannot: the message says
    so and where NaN inputs go (it read "expected a number, got a number (nan)")."""
    doc = json.loads(EXAMPLE.read_text())
    doc["tensors"]["src1"]["data"] = [2.0, float("nan")]
    with pytest.raises(InputError) as info:
        case = parse_case(doc, base_dir=EXAMPLE.parent)
        case.data("src1")
    assert info.value.line() == ("tensors.src1.data[1]: NaN is not a JSON number (give NaN inputs in a .npy or .bin "
                                 "data file)")

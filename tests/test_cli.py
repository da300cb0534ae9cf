"""The command line: `check` (formats, inputs, exit statuses), the listings, `run` and `schema`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cli import main
from ascverify.engines.report import FORMATS
from ascverify.spec.registry import get_api

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"

#: FILE:case N: error: [rule-id] message (source); `rest` is "message (source)"
FINDING = re.compile(r"^(?P<file>.+):case (?P<index>\d+): (?P<kind>error|warning): \[(?P<rule>[\w.\-]+)\] (?P<rest>.+)$")
SUMMARY = re.compile(r"^(\d+) cases?: (\d+) valid, (\d+) invalid, (\d+) unreadable$")


def example(**args) -> dict:
    """The shipped example, args overridden; its data file is named relative to the case file (`write` puts a copy
    beside the file: data files are read only from the case file's folder)."""
    doc = json.loads(EXAMPLE.read_text())
    doc["args"].update(args)
    return doc


def invoke(*argv: str, input: str | None = None):
    return CliRunner().invoke(main, list(argv), input=input)


def write(path: Path, doc) -> str:
    path.write_text(json.dumps(doc))
    shutil.copy(EXAMPLE.parent / "bilinear_src0.npy", path.parent)
    return str(path)


def summary(result) -> tuple[int, ...]:
    last = result.stderr.strip().splitlines()[-1]
    m = SUMMARY.match(last)
    assert m, f"no summary line in {result.stderr!r}"
    return tuple(int(g) for g in m.groups())


# -- check -----------------------------------------------------------------------------------------------------

def test_shipped_example_is_valid():
    r = invoke("check", str(EXAMPLE))
    assert r.exit_code == 0, r.output
    assert r.stdout == ""  # a valid case prints nothing
    assert r.stderr.strip() == "1 case: 1 valid, 0 invalid, 0 unreadable"


def test_verbose_prints_ok_line():
    r = invoke("check", "-v", str(EXAMPLE))
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == f"{EXAMPLE}:case 0: ok (BilinearInterpolation on atlas-a2)"


def test_broken_rules_are_all_listed(tmp_path):
    # hRepeat must be in [1, 255]; vROffset in [128, 65535) and vROffset*2 bytes a multiple of 32,
    # so 100 breaks both the range and the alignment (100*2 = 200 = 6*32 + 8).
    path = write(tmp_path / "bad.json", example(hRepeat=0, vROffset=100))
    r = invoke("check", path)
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    found = [FINDING.match(line) for line in lines if ": error: " in line]
    assert all(found), lines
    rules = {m["rule"] for m in found}
    assert {"bilinear.hRepeat.range", "bilinear.vROffset.range", "bilinear.vROffset.align"} <= rules
    model = get_api("BilinearInterpolation")
    for m in found:
        assert m["file"] == path and m["index"] == "0" and m["kind"] == "error"
        source = model.rule_by_id[m["rule"]].citation
        assert m["rest"].endswith(f" ({source})") and len(m["rest"]) > len(source) + 3
    by_rule = {m["rule"]: m["rest"] for m in found}
    assert by_rule["bilinear.hRepeat.range"].startswith("hRepeat=0 is outside [1, 255] (")
    assert "BilinearInterpolation, Parameters: hRepeat" in by_rule["bilinear.hRepeat.range"]
    assert summary(r) == (1, 0, 1, 0)


def test_notes_for_rules_not_checked(tmp_path):
    # without src0Offset data the rule on its values cannot be checked: a note after the errors
    doc = example(hRepeat=0)
    del doc["tensors"]["src0Offset"]["data"]
    r = invoke("check", write(tmp_path / "c.json", doc))
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    note = f"{tmp_path / 'c.json'}:case 0: note: not checked: [bilinear.src0Offset.values] no data given for src0Offset"
    assert lines[-1] == note
    assert all(": error: " in line for line in lines[:-1])


def test_json_format(tmp_path):
    path = write(tmp_path / "bad.json", example(hRepeat=0, vROffset=100))
    r = invoke("check", "--format", "json", path)
    assert r.exit_code == 1
    doc = json.loads(r.stdout)  # exactly one document
    assert list(doc) == ["format", "results", "summary"] and len(doc["results"]) == 1
    assert doc["format"] == "ascverify-check/2"
    assert doc["summary"] == {"cases": 1, "valid": 0, "invalid": 1, "unreadable": 0, "unreadable_files": 0,
                              "exit_status": 1}
    res = doc["results"][0]
    assert {k: res[k] for k in ("file", "index", "api", "product", "valid")} == \
        {"file": path, "index": 0, "api": "BilinearInterpolation", "product": "atlas-a2", "valid": False}
    assert res["warnings"] == [] and res["unchecked"] == []
    by_rule = {v["rule"]: v for v in res["violations"]}
    assert {"bilinear.hRepeat.range", "bilinear.vROffset.range", "bilinear.vROffset.align"} <= set(by_rule)
    for v in res["violations"]:
        assert set(v) == {"rule", "params", "message", "source", "severity"}
        assert v["severity"] == "error"
    assert by_rule["bilinear.hRepeat.range"]["params"] == ["hRepeat"]
    assert by_rule["bilinear.vROffset.align"]["params"] == ["vROffset"]
    assert summary(r) == (1, 0, 1, 0)


def test_json_format_valid_and_unreadable(tmp_path):
    bad = dict(example(), api="BilinearInterpolaton")
    path = write(tmp_path / "two.json", [example(), bad])
    r = invoke("check", "--format", "json", path)
    assert r.exit_code == 2
    first, second = json.loads(r.stdout)["results"]
    assert first["valid"] is True and first["violations"] == [] and "error" not in first
    assert second["valid"] is False and second["index"] == 1 and second["api"] is None
    assert second["error"].startswith("api: unknown API 'BilinearInterpolaton'")
    # the input error is also on stderr, as in text mode
    assert f"{path}:case 1: api: unknown API" in r.stderr


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_reports_the_same_verdicts(fmt, tmp_path):
    path = write(tmp_path / "two.json", [example(), example(vRepeat=0)])
    r = invoke("check", "--format", fmt, path)
    assert r.exit_code == 1
    assert summary(r) == (2, 1, 1, 0)
    assert "bilinear.vRepeat.range" in r.stdout


def test_list_of_cases(tmp_path):
    path = write(tmp_path / "list.json", [example(), example(hRepeat=0), example()])
    r = invoke("check", path)
    assert r.exit_code == 1
    assert {FINDING.match(line)["index"] for line in r.stdout.splitlines() if ": error: " in line} == {"1"}
    assert summary(r) == (3, 2, 1, 0)


def test_json_lines(tmp_path):
    lines = [json.dumps(d) for d in (example(vRepeat=0), example(), example(), example(hRepeat=256))]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    shutil.copy(EXAMPLE.parent / "bilinear_src0.npy", tmp_path)
    r = invoke("check", str(path))
    assert r.exit_code == 1
    indexes = {FINDING.match(line)["index"] for line in r.stdout.splitlines() if ": error: " in line}
    assert indexes == {"0", "3"}
    assert "[bilinear.hRepeat.range] hRepeat=256" in r.stdout
    assert summary(r) == (4, 2, 2, 0)


def test_stdin(monkeypatch):
    monkeypatch.chdir(EXAMPLE.parent)  # standard input: data files are relative to (and under) the current folder
    r = invoke("check", "-", input=json.dumps(example(hRepeat=0)))
    assert r.exit_code == 1
    assert r.stdout.startswith("-:case 0: error: [")
    r = invoke("check", "-", input="\n".join(json.dumps(example()) for _ in range(3)))
    assert r.exit_code == 0 and summary(r) == (3, 3, 0, 0)


def test_multiple_files_and_exit_status_precedence(tmp_path):
    good = write(tmp_path / "good.json", example())
    bad = write(tmp_path / "bad.json", example(hRepeat=0))
    unreadable = write(tmp_path / "unreadable.json", dict(example(), product="atlas-a22"))
    r = invoke("check", good, good)
    assert r.exit_code == 0 and summary(r) == (2, 2, 0, 0)
    r = invoke("check", good, bad)
    assert r.exit_code == 1 and summary(r) == (2, 1, 1, 0)
    assert all(line.startswith(f"{bad}:case 0: ") for line in r.stdout.splitlines())
    # 2 (could not read) wins over 1 (a rule is broken), whatever the order of the files
    for files in ((bad, unreadable), (unreadable, bad)):
        r = invoke("check", *files)
        assert r.exit_code == 2 and summary(r) == (2, 0, 1, 1)


def test_summary_counts_an_unreadable_file_as_a_file_not_a_case(tmp_path):
    r = invoke("check", str(EXAMPLE), str(tmp_path / "missing.json"))
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [f"{tmp_path / 'missing.json'}: no such file",
                                     "1 file cannot be read; 1 case: 1 valid, 0 invalid, 0 unreadable"]


def test_internal_error_is_one_line(monkeypatch):
    import ascverify.cli.common as common

    def boom(cases, *_):
        raise RuntimeError("boom")

    monkeypatch.setattr(common, "check_cases", boom)
    r = invoke("check", str(EXAMPLE))
    assert r.exit_code == 3
    assert r.stderr.strip() == "ascverify: internal error: RuntimeError: boom (rerun with --debug for the traceback)"
    r = invoke("--debug", "check", str(EXAMPLE))
    assert isinstance(r.exception, RuntimeError)


def test_a_misspelt_option_is_matched_against_the_shown_options_only():
    # --jobs and --timeout-ms are older spellings kept hidden: the suggestion names what the help shows
    r = invoke("lint", "--timeout-m", "1")
    assert r.exit_code == 2 and "Did you mean '--timeout'?" in r.stderr and "--timeout-ms" not in r.stderr
    r = invoke("check", "--job", "2", str(EXAMPLE))
    assert r.exit_code == 2 and "No such option '--job'" in r.stderr and "--jobs" not in r.stderr
    r = invoke("check", "--formt", "json", str(EXAMPLE))
    assert r.exit_code == 2 and "Did you mean '--format'?" in r.stderr


def test_unknown_command_did_you_mean():
    r = invoke("chek", str(EXAMPLE))
    assert r.exit_code == 2
    assert "did you mean 'check'?" in r.stderr


def test_python_dash_m(tmp_path):
    # the real entry point, in a fresh interpreter
    proc = subprocess.run([sys.executable, "-m", "ascverify", "check", str(EXAMPLE)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == "1 case: 1 valid, 0 invalid, 0 unreadable\n"


def test_version():
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("ascverify, version ")


# -- listings --------------------------------------------------------------------------------------------------

def _table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a plain table (columns separated by two or more spaces; indented lines are not rows)."""
    lines = [line for line in text.splitlines() if "  " in line and not line.startswith(" ")]
    split = [re.split(r"\s{2,}", line.strip()) for line in lines]
    return split[0], split[1:]


def test_products_text():
    r = invoke("products")
    assert r.exit_code == 0
    header, rows = _table(r.stdout)
    row = dict(zip(header, next(row for row in rows if row[0] == "atlas-350")))
    # HARDWARE_NOTES: Atlas 350 has a 248 KiB UB by default = 248 * 1024 bytes
    assert row["UB"] == str(248 * 1024) == "253952"
    assert "ascend-950pr" in row["aliases"] and "ascend-950dt" in row["aliases"]
    ids = [row[0] for row in rows]
    assert len(ids) == 7 and "atlas-inference-vectorcore" in ids and "atlas-training" in ids
    vc = dict(zip(header, next(row for row in rows if row[0] == "atlas-inference-vectorcore")))
    assert vc["L1"] == "-"  # the Vector Core has no L1


def test_products_json():
    r = invoke("products", "--format", "json")
    prods = {p["id"]: p for p in json.loads(r.stdout)["products"]}
    assert prods["atlas-350"]["buffers"]["UB"] == 253952
    assert prods["atlas-350"]["aliases"] == ["ascend-950pr", "ascend-950dt"]
    assert prods["atlas-a2"]["buffers"]["UB"] == 192 * 1024


def test_support_matrix():
    r = CliRunner(env={"COLUMNS": "1000"}).invoke(main, ["support"])  # wide enough for the matrix
    assert r.exit_code == 0
    header, rows = _table(r.stdout)
    row = dict(zip(header, next(row for row in rows if row[0] == "BilinearInterpolation")))
    # page 000: Atlas 350, A3, A2 and the inference AI Core; half only
    assert row["atlas-training"] == "-" and row["atlas-inference-vectorcore"] == "-"
    assert row["atlas-a2"] == "half" and row["atlas-350"] == "half"
    doc = json.loads(invoke("support", "--format", "json").stdout)
    bil = next(a for a in doc["apis"] if a["api"] == "BilinearInterpolation")
    assert bil["support"]["atlas-training"] == [] and bil["support"]["atlas-inference-aicore"] == ["half"]


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_support_fits_the_terminal(columns):
    r = CliRunner(env={"COLUMNS": str(columns)}).invoke(main, ["support"])
    assert r.exit_code == 0
    assert max(len(line) for line in r.stdout.splitlines()) <= columns
    # page 000: Atlas 350, A3, A2 and the inference AI Core support BilinearInterpolation for half, the others not
    text = " ".join(r.stdout.split())
    assert ("BilinearInterpolation atlas-350, atlas-a3, atlas-a2, atlas-inference-aicore: half not supported: "
            "atlas-200i-500-a2, atlas-inference-vectorcore, atlas-training") in text

def test_notes():
    r = invoke("notes", "BilinearInterpolation")
    assert r.exit_code == 0
    assert "bilinear.mask-word-order: Bitwise mask word order" in r.stdout
    assert "reading:" in r.stdout and "why:" in r.stdout and "bilinear.vROffset.range" in r.stdout
    doc = json.loads(invoke("notes", "bilinearinterpolation", "--format", "json").stdout)
    (api,) = doc["apis"]
    note = next(n for n in api["notes"] if n["id"] == "bilinear.mask-word-order")
    assert set(note) == {"id", "title", "reading", "why", "sources", "seed_sources", "rules"}
    assert "bilinear.mask-word-order" in invoke("notes").stdout  # every API


def test_notes_unknown_api():
    r = invoke("notes", "BilinearInterpolaton")
    assert r.exit_code == 2
    assert r.stderr.strip() == ("ascverify: API: unknown API 'BilinearInterpolaton' "
                                "(did you mean 'BilinearInterpolation'?)")


def test_rules():
    r = invoke("rules", "BilinearInterpolation")
    assert r.exit_code == 0
    assert re.search(r"^bilinear\.vROffset\.range  error  \[all products\]$", r.stdout, re.M)
    doc = json.loads(invoke("rules", "BilinearInterpolation", "--product", "atlas-350", "--format", "json").stdout)
    ids = {x["id"] for x in doc["rules"]}
    # sharedTmpBuffer is needed on A2/A3/inference AI Core only (page 000 Table 2)
    assert "bilinear.sharedTmpBuffer.required" not in ids and "bilinear.hRepeat.range" in ids
    a2 = json.loads(invoke("rules", "BilinearInterpolation", "--product", "atlas-a2", "--format", "json").stdout)
    req = next(x for x in a2["rules"] if x["id"] == "bilinear.sharedTmpBuffer.required")
    assert req["products"] == ["atlas-a2", "atlas-a3", "atlas-inference-aicore"] and req["notes"] == ["bilinear.tmp"]
    r = invoke("rules", "BilinearInterpolation", "--product", "atlas-a22")
    assert r.exit_code == 2 and "did you mean 'atlas-a2'?" in r.stderr


def test_rules_on_a_product_give_the_bounds_that_depend_on_it():
    # BilinearInterpolation, Parameters: vROffset x sizeof(T) a multiple of 32 bytes -> 16 halves; the mask's
    # count mode counts up to one repeat of 256 bytes -> 128 halves (docs: vector masks)
    a2 = invoke("rules", "BilinearInterpolation", "-p", "atlas-a2")
    assert a2.exit_code == 0
    # (a mask of 0 is the Mask page's NOP on atlas-a2: a warning, so the count's range starts at 0 there)
    assert "    vROffset a multiple of 16\n" in a2.stdout and "    mask.count in [0, 128]\n" in a2.stdout
    assert "\u2026" not in a2.stdout
    doc = json.loads(invoke("rules", "BilinearInterpolation", "-p", "atlas-a2", "--format", "json").stdout)
    assert next(x for x in doc["rules"] if x["id"] == "bilinear.vROffset.align")["help"] == "vROffset a multiple of 16"
    # LoadDataWithStride, kPos: a multiple of 32 bytes of T, so 32 int8, 16 half, 8 float elements
    l3 = invoke("rules", "LoadDataWithStride", "-p", "atlas-350").stdout
    line = next(x.strip() for x in l3.splitlines() if x.strip().startswith("kPos a multiple of"))
    assert "kPos a multiple of 32 (T=uint8, int8" in line and "kPos a multiple of 16 (T=half, bfloat16, int16, uint16)" in line
    assert "kPos a multiple of 8 (T=uint32, int32, float)" in line
    # without a product the bound is said to depend on it, not printed as a bare ellipsis
    bare = invoke("rules", "BilinearInterpolation").stdout
    assert "vROffset a multiple of \u2026 (the bound depends on the product and the element type" in bare


def test_rules_on_an_unsupported_product_is_bad_input_as_in_gen():
    r = invoke("rules", "LoadAlign", "-p", "atlas-a2")
    assert r.exit_code == 2 and r.stdout == ""
    assert "LoadAlign is not supported on atlas-a2 (supported: atlas-350)" in r.stderr


def test_rules_without_an_api_on_a_product_list_what_it_supports():
    every = invoke("rules").stdout
    a2 = invoke("rules", "-p", "atlas-a2")
    assert a2.exit_code == 0 and a2.stdout.startswith("APIs on atlas-a2")
    assert "LoadAlign" in every and "LoadAlign" not in a2.stdout and "BilinearInterpolation" in a2.stdout
    doc = json.loads(invoke("rules", "-p", "atlas-a2", "--format", "json").stdout)
    assert doc["product"] == "atlas-a2" and all("atlas-a2" in x["products"] for x in doc["apis"])


def test_schema_command():
    r = invoke("schema")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# -- run -------------------------------------------------------------------------------------------------------

def test_run_example(tmp_path):
    out = tmp_path / "out"
    r = invoke("run", str(EXAMPLE), "-o", str(out))
    assert r.exit_code == 0, r.output
    dst = np.load(out / "dst.npy")
    assert dst.dtype == np.float16 and dst.shape == (256,)
    # Page 000's result example: src0 = 1..512, the offsets pick blocks 0..15 in order (16 halves
    # each), src1 = 2..17, repeatMode false. Vertical iteration 0 sums hRepeat = 2 products:
    # h = 0 reads blocks 0..7 (src0 elements 1..128) times src1[0] = 2, h = 1 reads blocks 8..15
    # (elements 129..256) times src1[1] = 3. So dst[i] = 2*(i+1) + 3*(i+129):
    # dst[0] = 2*1 + 3*129 = 389, dst[1] = 2*2 + 3*130 = 394, dst[2] = 2*3 + 3*131 = 399.
    assert dst[:3].tolist() == [389, 394, 399]
    assert (out / "dst.bin").read_bytes() == dst.astype("<f2").tobytes()
    for name in ("src0", "src0Offset", "src1"):
        assert (out / f"{name}.bin").read_bytes() == np.load(out / f"{name}.npy").tobytes()
    assert np.load(out / "src0Offset.npy").dtype == np.uint32
    doc = json.loads((out / "run.json").read_text())
    assert doc["faults"] == [] and doc["check"]["valid"] is True and doc["case"]["api"] == "BilinearInterpolation"
    # dst: 2 vertical iterations of 8 contiguous 32-byte blocks, vROffset 128 halves = 256 bytes apart
    assert doc["written"]["UB"][0] == [0, 512]
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*"))


def test_run_faulting_case(tmp_path):
    # vROffset = 100 halves = 200 bytes: iteration 1 stores dst blocks at a misaligned address
    path = write(tmp_path / "bad.json", example(hRepeat=1, vROffset=100))
    out = tmp_path / "out"
    r = invoke("run", path, "-o", str(out), "--seed", "3")
    assert r.exit_code == 1
    assert f"{path}:case 0: fault: misaligned: write of dst block at UB+0xc8 (iteration 1)" in r.stdout
    assert f"{path}:case 0: error: [bilinear.vROffset.range]" in r.stdout
    doc = json.loads((out / "run.json").read_text())
    assert doc["faults"] and doc["check"]["valid"] is False and doc["seed"] == 3
    assert (out / "dst.npy").exists() and (out / "dst.bin").exists()


def test_run_input_errors(tmp_path):
    r = invoke("run", str(EXAMPLE), "-o", str(tmp_path), "--index", "4")
    assert r.exit_code == 2
    assert r.stderr.strip() == f"ascverify: {EXAMPLE}: --index: no case 4: the file holds 1 case"
    path = write(tmp_path / "bad.json", dict(example(), dtype="halff"))
    r = invoke("run", path, "-o", str(tmp_path / "o"))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"ascverify: {path}:case 0: dtype: unknown element type 'halff' (did you mean 'half'?)"


def test_products_on_a_terminal(monkeypatch):
    # a terminal gets rich tables, in KiB so that they fit: 248 KiB of UB on atlas-350
    import ascverify.cli.reference as reference

    monkeypatch.setattr(reference, "is_terminal", lambda: True)
    r = invoke("products")
    assert r.exit_code == 0
    row = next(line for line in r.stdout.splitlines() if line.strip().startswith("atlas-350 "))
    assert row.split()[:3] == ["atlas-350", "3510", "248"]

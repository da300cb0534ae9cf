"""Output folders holding files someone else put there: forged temporary folders, deeply nested or ill-typed
manifests and markers, case files whose names are not UTF-8, program tensors whose files would collide.

Each test reproduces an auditor's finding: `gen` and `fuzz` deleted a folder of someone else's that carried a forged
owner marker; `run` and `gen` crashed (exit 3) on a run.json, manifest.json or marker nested 100,000 deep; `run`
crashed on a case file named ``\\xff.json`` and left run.json unfinished; `run` of a program wrote tensor
``z.unspecified``'s values over ``z``'s unspecified-elements mask.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FORGED = {"tool": "ascverify", "host": "other", "pid": 1, "created": 0}
DEEP = "[" * 100_000 + "]" * 100_000


def invoke(*argv):
    return CliRunner().invoke(main, [str(a) for a in argv])


def one_line_error(r) -> str:
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.output
    return lines[0]


def gen(out, *more):
    return invoke("gen", "BilinearInterpolation", "-p", "atlas-a2", "-n", "1", "-o", out, *more)


def fuzz(findings):
    return invoke("fuzz", "SetVectorMask", "-p", "atlas-a2", "--kind", "invariants", "--examples", "1",
                  "--findings", findings, "--no-coverage")


def forged_temp(folder: Path, marker=FORGED) -> Path:
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("precious")
    (folder / ".ascverify-owner").write_text(json.dumps(marker) if not isinstance(marker, str) else marker)
    return folder


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# -- 1: a forged owner marker does not make gen or fuzz delete what they never wrote ------------------------------------

def test_gen_refuses_a_folder_whose_only_entry_is_a_forged_temp_folder(tmp_path):
    tmp = forged_temp(tmp_path / "g" / ".case_0000.tmp-abc")
    r = gen(tmp_path / "g")
    assert r.exit_code == 2, r.output
    line = one_line_error(r)
    assert str(tmp_path / "g") in line and ".case_0000.tmp-abc" in line and "not empty" in line
    assert (tmp / "notes.txt").read_text() == "precious"


def test_gen_force_leaves_a_forged_temp_folder_alone_and_says_so(tmp_path):
    tmp = forged_temp(tmp_path / "g" / ".case_0000.tmp-abc")
    r = gen(tmp_path / "g", "--force")
    assert r.exit_code == 0, r.output
    assert (tmp / "notes.txt").read_text() == "precious" and (tmp / ".ascverify-owner").is_file()
    notes = [line for line in r.stderr.splitlines() if "left as it is" in line]
    assert len(notes) == 1 and ".case_0000.tmp-abc" in notes[0] and "ascverify does not write" in notes[0], r.stderr
    assert (tmp_path / "g" / "case_0000" / "case.json").is_file()


@pytest.mark.parametrize("intruder", ["symlink", "fifo", "folder", "nested", "dangling"])
def test_gen_force_keeps_a_temp_folder_holding_anything_off_the_layout(tmp_path, intruder):
    tmp = tmp_path / "g" / ".case_0000.tmp-abc"
    (tmp / "inputs").mkdir(parents=True)
    (tmp / "inputs" / "src0.bin").write_bytes(b"\0" * 8)
    (tmp / ".ascverify-owner").write_text(json.dumps(FORGED))
    precious = tmp_path / "precious.txt"
    precious.write_text("precious")
    if intruder == "symlink":
        (tmp / "case.json").symlink_to(precious)
    elif intruder == "fifo":
        os.mkfifo(tmp / "case.json")
    elif intruder == "folder":
        (tmp / "work").mkdir()
    elif intruder == "nested":
        (tmp / "inputs" / "deeper").mkdir()
        (tmp / "inputs" / "deeper" / "x.bin").write_text("precious")
    else:
        (tmp / "golden").symlink_to(tmp_path / "nowhere")
    r = gen(tmp_path / "g", "--force")
    assert r.exit_code == 0, r.output
    assert tmp.is_dir() and (tmp / "inputs" / "src0.bin").is_file() and (tmp / ".ascverify-owner").is_file()
    assert precious.read_text() == "precious"
    assert "left as it is" in r.stderr


def test_fuzz_leaves_a_forged_temp_finding_folder_alone(tmp_path):
    findings = tmp_path / "F"
    tmp = forged_temp(findings / ".tmp-0123456789abcdef-zz")
    r = fuzz(findings)
    assert r.exit_code == 0, r.output
    assert (tmp / "notes.txt").read_text() == "precious"
    notes = [line for line in r.stderr.splitlines() if "left as it is" in line]
    assert len(notes) == 1 and ".tmp-0123456789abcdef-zz" in notes[0], r.stderr


def test_a_genuine_leftover_of_a_killed_gen_is_still_removed(tmp_path):
    out = tmp_path / "g"
    tmp = out / ".case_0000.tmp-k3j4h5"
    (tmp / "inputs").mkdir(parents=True)
    (tmp / "golden").mkdir()
    (tmp / "inputs" / "src0.bin").write_bytes(b"\0" * 8)
    (tmp / "golden" / "dst.bin").write_bytes(b"\0" * 8)
    (tmp / "golden" / "dst.unspecified.bin").write_bytes(b"\0" * 4)
    (tmp / "case.json").write_text("{\"half\": ")
    (tmp / ".ascverify-owner").write_text(json.dumps(
        {"tool": "ascverify", "host": socket.gethostname(), "pid": _dead_pid(), "created": time.time() - 60}))
    r = gen(out)
    assert r.exit_code == 0, r.output
    assert not tmp.exists() and "left as it is" not in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["case_0000", "manifest.json"]


def test_a_genuine_leftover_of_a_killed_fuzz_campaign_is_still_removed(tmp_path):
    findings = tmp_path / "F"
    tmp = findings / ".tmp-0123456789abcdef-k3j4h5"
    for sub in ("inputs", "expected", "actual"):
        (tmp / sub).mkdir(parents=True)
        (tmp / sub / "dst.bin").write_bytes(b"\0" * 8)
        (tmp / sub / "dst.npy").write_bytes(b"\0" * 8)
    (tmp / "expected" / "dst.defined.npy").write_bytes(b"\0" * 8)
    for f in ("case.json", "finding.json", "coverage.json", "diff.txt"):
        (tmp / f).write_text("{}")
    (tmp / ".ascverify-owner").write_text(json.dumps(
        {"tool": "ascverify", "host": socket.gethostname(), "pid": _dead_pid(), "created": time.time() - 60}))
    r = fuzz(findings)
    assert r.exit_code == 0, r.output
    assert not tmp.exists() and "left as it is" not in r.stderr


# -- 2: files read back are parsed depth-bounded and type-checked --------------------------------------------------------

@pytest.mark.parametrize("name, command", [
    ("run.json", lambda out: invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)),
    ("manifest.json", gen),
], ids=["run", "gen"])
def test_an_output_folder_whose_record_is_deeply_nested(tmp_path, name, command):
    out = tmp_path / "o"
    out.mkdir()
    (out / name).write_text(DEEP)
    r = command(out)
    assert r.exit_code == 2, r.output
    line = one_line_error(r)
    assert str(out) in line and name in line
    assert (out / name).read_text() == DEEP


def test_gen_with_a_deeply_nested_owner_marker(tmp_path):
    out = tmp_path / "o3"
    tmp = out / ".case_0000.tmp-abc"
    tmp.mkdir(parents=True)
    marker = "[" * 2040 + "]" * 2040
    (tmp / ".ascverify-owner").write_text(marker)
    r = gen(out)  # a marker that is not ascverify's: the folder is someone else's, refused as for any file
    assert r.exit_code == 2, r.output
    assert ".case_0000.tmp-abc" in one_line_error(r)
    r = gen(out, "--force")  # written all the same, that folder left as it is
    assert r.exit_code == 0, r.output
    assert (tmp / ".ascverify-owner").read_text() == marker


@pytest.mark.parametrize("doc", [[1, 2], "run", {"format": "ascverify-run/1", "files": "a.npy"},
                                 {"format": "ascverify-run/1", "files": {"a.npy": 1}},
                                 {"tensors": ["z"], "check": {}}, {"format": 1, "tensors": {"z": 1}}])
def test_run_into_a_folder_with_an_ill_typed_run_json(tmp_path, doc):
    out = tmp_path / "o"
    out.mkdir()
    (out / "run.json").write_text(json.dumps(doc))
    (out / "z.npy").write_text("precious")
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)
    assert r.exit_code == 2, r.output
    assert str(out) in one_line_error(r)
    assert (out / "z.npy").read_text() == "precious"


@pytest.mark.parametrize("doc", [[1, 2], 7, {"format": "ascverify-gen/1", "files": "case_0000/"},
                                 {"cases": "case_0000"}, {"cases": [{"input_desc": "abc", "output_desc": 5}]},
                                 {"cases": [], "stale_cases": "case_0000"}, {"cases": [{"case_file": ["x"]}]}])
def test_gen_into_a_folder_with_an_ill_typed_manifest(tmp_path, doc):
    out = tmp_path / "o"
    (out / "case_0000").mkdir(parents=True)
    (out / "case_0000" / "case.json").write_text("precious")
    (out / "manifest.json").write_text(json.dumps(doc))
    r = gen(out)
    assert r.exit_code == 2, r.output
    one_line_error(r)
    assert (out / "case_0000" / "case.json").read_text() == "precious"


@pytest.mark.parametrize("marker", [[1, 2], "ascverify", {"tool": "ascverify", "host": 5, "pid": "1", "created": "0"},
                                    {"tool": ["ascverify"], "created": 0}])
def test_an_ill_typed_owner_marker_keeps_the_folder(tmp_path, marker):
    out = tmp_path / "g"
    tmp = out / ".case_0000.tmp-abc"
    tmp.mkdir(parents=True)
    (tmp / "case.json").write_text("precious")
    (tmp / ".ascverify-owner").write_text(json.dumps(marker))
    r = gen(out, "--force")
    assert r.exit_code == 0, r.output
    assert (tmp / "case.json").read_text() == "precious"


# -- 3: a case file whose name is not UTF-8 ---------------------------------------------------------------------------

def test_run_of_a_case_file_whose_name_is_not_utf8(tmp_path):
    work = tmp_path / "d"
    work.mkdir()
    shutil.copy(EXAMPLES / "bilinear_src0.npy", work)
    case = os.path.join(os.fsencode(work), b"\xff.json")
    with open(case, "wb") as f:
        f.write((EXAMPLES / "bilinear_interpolation.json").read_bytes())
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "ascverify", "run", case, "-o", os.fsencode(out)],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert b"Traceback" not in p.stderr and b"internal error" not in p.stderr
    doc = json.loads((out / "run.json").read_bytes().decode("utf-8"))
    assert doc["complete"] is True and doc["file"].endswith("\\xff.json")
    assert "run.json" in doc["files"] and all((out / f).is_file() for f in doc["files"])
    # the folder is an earlier output of run: a second run into it is recognised
    p = subprocess.run([sys.executable, "-m", "ascverify", "run", case, "-o", os.fsencode(out)],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr


# -- 4: two tensors of a program never write the same file -------------------------------------------------------------

def _program(names: list[str]) -> dict:
    doc = json.loads((EXAMPLES / "program_block_reduce_min.json").read_text())
    call = doc["calls"][1]
    doc["tensors"] = {"x": {"position": "VECIN", "addr": 0, "size": 128}}
    doc["calls"] = [doc["calls"][0]]
    for i, name in enumerate(names):
        doc["tensors"][name] = {"position": "VECOUT", "addr": 512 + 512 * i, "size": 16}
        doc["calls"].append({**call, "tensors": {"dst": name, "src": "x"}})
    return doc


@pytest.mark.parametrize("names", [["z", "z.unspecified"], ["z.unspecified", "z"]])
def test_program_tensors_whose_files_would_collide_are_refused(tmp_path, names):
    case = tmp_path / "coll.json"
    case.write_text(json.dumps(_program(names)))
    out = tmp_path / "out"
    r = invoke("run", case, "-o", out)
    assert r.exit_code == 2, r.output
    line = one_line_error(r)
    assert line.startswith(f"ascverify: {case}:case 0: tensors.z.unspecified:"), line
    assert "z.unspecified.npy" in line
    assert not (out / "z.unspecified.npy").exists()


@pytest.mark.parametrize("names", [["Z", "z"], ["z", "Z"]])
def test_program_tensors_whose_names_differ_only_in_letter_case_are_refused(tmp_path, names):
    """On macOS's and Windows' file systems Z.npy and z.npy are one file: the second tensor's values would replace
    the first's (here, on a case-sensitive system, both would be written: the output would depend on the system)."""
    case = tmp_path / "case.json"
    case.write_text(json.dumps(_program(names)))
    out = tmp_path / "out"
    r = invoke("run", case, "-o", out)
    assert r.exit_code == 2, r.output
    line = one_line_error(r)
    assert line.startswith(f"ascverify: {case}:case 0: tensors.Z:"), line
    assert "'z'" in line and "Z.npy" in line and "case-insensitive" in line
    assert not (out / "Z.npy").exists() and not (out / "z.npy").exists()


def test_program_tensors_with_distinct_files_still_run(tmp_path):
    case = tmp_path / "ok.json"
    case.write_text(json.dumps(_program(["z", "z.bin", "zunspecified"])))
    out = tmp_path / "out"
    r = invoke("run", case, "-o", out)
    assert r.exit_code in (0, 1), r.output
    doc = json.loads((out / "run.json").read_text())
    files = [f for e in doc["tensors"].values() for f in (e["npy"], e["bin"], e.get("unspecified_npy")) if f]
    assert len(files) == len(set(files)) and set(doc["tensors"]) == {"x", "z", "z.bin", "zunspecified"}


def test_the_finding_layout_is_the_one_for_fuzz_temporary_folders():
    """`fuzz` (reproducers.clean_stale) passes no layout: outputs.py knows it by the writer's name pattern."""
    from ascverify.engines.fuzz.reproducers import TMP_FINDING
    from ascverify.engines.outputs import FINDING_LAYOUT, TEMP_LAYOUTS

    assert TEMP_LAYOUTS[TMP_FINDING.pattern] is FINDING_LAYOUT

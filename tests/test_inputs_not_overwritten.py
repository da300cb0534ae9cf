"""Files a command reads are never its outputs (the newcomer review of 2026-12-06): `fix -o` refuses the case file
and every data file its cases name, `fuzz --report/--junit/--html` refuse the --target implementation's source, and
`fix -o` into another folder rewrites the relative data paths of every case of the file, not only the fixed one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def cli(*argv):
    return CliRunner().invoke(main, [str(a) for a in argv])


def broken_bilinear(folder: Path) -> Path:
    """The bilinear example with vROffset 100 (not a multiple of 16: fix changes it back) beside its data file."""
    shutil.copy(EXAMPLES / "bilinear_src0.npy", folder)
    doc = json.loads((EXAMPLES / "bilinear_interpolation.json").read_text())
    doc["args"]["vROffset"] = 100
    case = folder / "case.json"
    case.write_text(json.dumps(doc, indent=2))
    return case


@pytest.mark.parametrize("target", ["bilinear_src0.npy", "case.json"])
def test_fix_never_writes_over_the_case_file_or_its_data(tmp_path, target):
    case = broken_bilinear(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    got = cli("fix", case, "-o", tmp_path / target)
    assert got.exit_code == 2, got.output
    what = "the data of tensor src0" if target.endswith(".npy") else "the case file"
    assert f"-o: is {what}: an input is never overwritten" in got.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # nothing written, nothing replaced
    assert cli("fix", case, "-o", tmp_path / "fixed.json").exit_code == 0  # another file: written
    assert json.loads((tmp_path / "fixed.json").read_text())["args"]["vROffset"] == 128


def test_fix_refuses_a_data_file_of_another_case_of_the_file(tmp_path):
    """Case 1 of a JSON Lines file is fixed; case 0 names a data file: -o over it is refused too."""
    np.save(tmp_path / "other.npy", np.zeros(16, dtype=np.float16))
    other = {"api": "BlockReduceMax", "product": "atlas-a2", "dtype": "half", "args": {"repeat": 1, "mask": 128},
             "tensors": {"dst": {"addr": 0, "size": 16}, "src": {"addr": 256, "size": 128, "data": "other.npy"}}}
    bad = json.loads(broken_bilinear(tmp_path).read_text())
    (tmp_path / "two.jsonl").write_text(json.dumps(other) + "\n" + json.dumps(bad) + "\n")
    got = cli("fix", tmp_path / "two.jsonl", "--index", 1, "-o", tmp_path / "other.npy")
    assert got.exit_code == 2 and "an input is never overwritten" in got.output, got.output
    assert np.load(tmp_path / "other.npy").shape == (16,)


def test_fix_into_another_folder_keeps_every_cases_data_readable(tmp_path):
    """examples/cases.jsonl: case 5 is invalid, cases 0 and 4 read .npy files beside the file. Written to another
    folder, all of them must still read (their paths rewritten relative to it), with the same verdicts."""
    src = tmp_path / "in"
    shutil.copytree(EXAMPLES, src)
    out = tmp_path / "elsewhere" / "fixed.jsonl"
    got = cli("fix", src / "cases.jsonl", "--index", 5, "-o", out)
    assert got.exit_code == 0, got.output
    lines = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    orig = [json.loads(x) for x in (src / "cases.jsonl").read_text().splitlines() if x.strip()]
    for i, (new, old) in enumerate(zip(lines, orig)):
        for name, t in old.get("tensors", {}).items():
            if isinstance(t.get("data"), str):  # the same file, named from the new folder
                assert (out.parent / new["tensors"][name]["data"]).resolve() == (src / t["data"]).resolve(), i
    checked = cli("check", out, "--data-root", tmp_path, "--format", "json")
    results = json.loads(checked.stdout)["results"]
    assert [r.get("error") for r in results] == [None] * len(orig), checked.output
    assert [r["valid"] for r in results][5] is True


def test_fuzz_reports_never_overwrite_the_target_implementation(tmp_path):
    impl = tmp_path / "impl.py"
    shutil.copy(EXAMPLES / "targets" / "bilinear_numpy.py", impl)
    before = impl.read_bytes()
    for option in ("--report", "--junit", "--html"):
        got = cli("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", f"{impl}:bilinear", "--examples", 2,
                  "--findings", tmp_path / "f", option, impl, "-q")
        assert got.exit_code == 2, (option, got.output)
        assert f"{option}: is the --target implementation: an input is never overwritten" in got.output
        assert impl.read_bytes() == before


def test_fuzz_finds_a_module_targets_file_without_importing_it(tmp_path, monkeypatch):
    """`--target impl:bilinear` names the module impl: its file impl.py in the current folder is an input too."""
    shutil.copy(EXAMPLES / "targets" / "bilinear_numpy.py", tmp_path / "impl.py")
    monkeypatch.chdir(tmp_path)
    got = cli("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", "impl:bilinear", "--examples", 2,
              "--findings", tmp_path / "f", "--report", "impl.py", "-q")
    assert got.exit_code == 2 and "is the --target implementation" in got.output, got.output
    assert (tmp_path / "impl.py").read_text().startswith('"""')


@pytest.mark.parametrize("option", ["--svg", "--png"])
@pytest.mark.parametrize("other_first", [True, False])
def test_show_index_refuses_a_data_file_of_another_case_of_the_file(tmp_path, option, other_first):
    """Review 73, finding 5: `show --index N` refused only case N's own files; a picture over the data file another
    case of the file reads replaced it (that case then could not be read). The other case before or after N."""
    np.save(tmp_path / "other.npy", np.zeros(16, dtype=np.float16))
    other = {"api": "BlockReduceMax", "product": "atlas-a2", "dtype": "half", "args": {"repeat": 1, "mask": 128},
             "tensors": {"dst": {"addr": 0, "size": 16}, "src": {"addr": 256, "size": 128, "data": "other.npy"}}}
    drawn = json.loads((EXAMPLES / "bad" / "bad.json").read_text())
    docs = [other, drawn] if other_first else [drawn, other]
    (tmp_path / "two.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    before = (tmp_path / "other.npy").read_bytes()
    got = cli("show", tmp_path / "two.jsonl", "--index", 1 if other_first else 0, option, tmp_path / "other.npy")
    assert got.exit_code == 2 and f"{option}: is " in got.output and "an input is never overwritten" in got.output, \
        got.output
    assert (tmp_path / "other.npy").read_bytes() == before
    # another file: written
    got = cli("show", tmp_path / "two.jsonl", "--index", 1 if other_first else 0, option, tmp_path / "map.out")
    assert got.exit_code == 1 and (tmp_path / "map.out").stat().st_size > 0, got.output

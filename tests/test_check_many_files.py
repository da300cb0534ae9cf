"""`check` of many files shares its windows across them (`checked_sources`): the cases of thousands of small files,
as `gen` writes them (one case.json per case), are checked as one batch instead of one batch per file. Sharing must
not change what is printed: each file's results and errors, in file order, exactly as when each file is checked
alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cases import caseio, columnar
from ascverify.cli import common, main
from ascverify.cli.common import DataCache, checked_sources

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: One-case example files; the ones with a data file get a copy of it beside them.
SINGLE = ("bilinear_interpolation.json", "block_reduce_max.json", "block_reduce_sum.json", "load3d_example.json",
          "reg_load_align.json", "reg_mask_gen.json", "program_block_reduce_min.json")
DATA = ("bilinear_src0.npy", "load3d_example_src.npy")


def _corpus(folder: Path) -> list[str]:
    """About 150 files in a fixed order: each example as shipped and with addresses moved (valid and invalid
    variants), a JSON Lines file of several cases, and files that cannot be read at all in between."""
    for name in DATA:
        shutil.copy(EXAMPLES / name, folder / name)
    paths: list[str] = []
    for k in range(20):
        for name in SINGLE:
            doc = json.loads((EXAMPLES / name).read_text())
            for case in doc if isinstance(doc, list) else [doc]:  # reg_load_align.json: a list of 3 cases
                for t in case.get("tensors", {}).values():
                    if isinstance(t, dict) and "addr" in t and k:
                        t["addr"] += 32 * k if k % 3 else 7 * k  # a multiple of 32 keeps alignment; 7k breaks it
            p = folder / f"{k:02d}_{name}"
            p.write_text(json.dumps(doc))
            paths.append(str(p))
        if k == 5:
            paths.append(str(folder / "missing.json"))  # a file that does not exist
        if k == 9:
            (folder / "binary.json").write_bytes(b"\x00\x01\x02")
            paths.append(str(folder / "binary.json"))
        if k == 12:
            lines = [json.loads((EXAMPLES / "block_reduce_max.json").read_text()) for _ in range(4)]
            lines[2]["args"]["repeat"] = 0
            (folder / "several.jsonl").write_text("\n".join(json.dumps(d) for d in lines) + "\n{oops\n")
            paths.append(str(folder / "several.jsonl"))
    return paths


def _run(*argv: str):
    return CliRunner().invoke(main, list(argv))


def _count_check_cases(monkeypatch) -> list[int]:
    """The sizes of the batches `check` hands to `check_cases`, call by call, from now on."""
    calls: list[int] = []
    real = common.check_cases

    def counted(cases, verdicts=None):
        cases = list(cases)
        calls.append(len(cases))
        return real(cases, verdicts)

    monkeypatch.setattr(common, "check_cases", counted)
    return calls


@pytest.mark.parametrize("fmt", ["text", "jsonl", "json"])
def test_many_files_print_what_each_file_prints_alone(tmp_path, fmt):
    paths = _corpus(tmp_path)
    together = _run("check", "--format", fmt, "-v", *paths)
    alone = [_run("check", "--format", fmt, "-v", p) for p in paths]
    assert together.exit_code == max(r.exit_code for r in alone) == 2  # the missing and the binary file
    if fmt == "json":  # one document: its results are each file's results in file order
        got = json.loads(together.stdout)["results"]
        assert got == [e for r in alone for e in json.loads(r.stdout)["results"]]
        assert len({e["file"] for e in got}) == len(paths)  # the files that cannot be read have an entry too
    else:
        assert together.stdout == "".join(r.stdout for r in alone)
    summary = together.stderr.splitlines()[-1]
    assert together.stderr.splitlines()[:-1] == [line for r in alone for line in r.stderr.splitlines()[:-1]]
    # 20 x 9 cases of the example files (reg_load_align.json holds 3, a program counts as one), 4 + 1 unreadable
    # of the JSON Lines file
    assert summary.startswith(f"2 files cannot be read; {20 * 9 + 5} cases:") and summary.endswith("1 unreadable")
    assert " 0 valid" not in summary and " 0 invalid" not in summary  # the corpus holds both


def test_many_files_are_checked_in_one_batch(tmp_path, monkeypatch):
    paths = _corpus(tmp_path)
    calls = _count_check_cases(monkeypatch)
    assert _run("check", *paths).exit_code == 2
    # one call for the single cases of every file (a program's calls are checked on their own)
    assert len(calls) == 1 and calls[0] == 20 * 8 + 4


def test_a_window_cut_between_and_inside_files_changes_nothing(tmp_path):
    paths = _corpus(tmp_path)

    def results(window: int):
        sources = ((p, caseio.read_cases(p, 1 << 24)) for p in paths)
        return [(r.file, r.index, r.valid, [v.message for v in r.violations], r.error and r.error.line())
                for r in checked_sources(sources, DataCache(), window=window)]

    whole = results(1 << 16)
    assert [r[0] for r in whole] == sorted((r[0] for r in whole), key=paths.index)  # file order
    assert sum(1 for r in whole if r[1] is None) == 2  # the missing and the binary file, once each
    for window in (1, 3, 7):
        assert results(window) == whole


def test_small_files_are_read_case_by_case_and_large_ones_in_columns(tmp_path):
    doc = json.loads((EXAMPLES / "block_reduce_max.json").read_text())
    for n in (1, caseio.COLUMNAR_MIN_DOCS - 1, caseio.COLUMNAR_MIN_DOCS):
        p = tmp_path / f"{n}.jsonl"
        p.write_text("\n".join(json.dumps(doc) for _ in range(n)) + "\n")
        kinds = {type(e.case) for e in caseio.read_cases(str(p), 1 << 24)}
        assert kinds == ({columnar.RowCase} if n >= caseio.COLUMNAR_MIN_DOCS else {columnar.Case})


def test_a_window_holds_a_bounded_amount_of_tensor_data(tmp_path, monkeypatch):
    # the shipped BilinearInterpolation example: src0 from a file (512 halves: 1,024 bytes), src0Offset and src1
    # inline (32 + 16 values)
    entry = next(iter(caseio.read_cases(str(EXAMPLES / "bilinear_interpolation.json"), 1 << 24)))
    assert common.data_weight(entry) == (48, 1024)
    paths = [p for p in _corpus(tmp_path) if p.endswith("bilinear_interpolation.json")]
    whole = _run("check", "--format", "jsonl", *paths)
    calls = _count_check_cases(monkeypatch)
    monkeypatch.setattr(common, "STREAM_WINDOW_DATA_BYTES", 3 * 1024)  # 3 cases' file data per window
    cut = _run("check", "--format", "jsonl", *paths)
    assert calls == [3] * (len(paths) // 3) + ([len(paths) % 3] if len(paths) % 3 else [])
    monkeypatch.setattr(common, "STREAM_WINDOW_DATA_BYTES", 1 << 30)
    monkeypatch.setattr(common, "STREAM_WINDOW_VALUES", 2 * 48)  # 2 cases' inline values per window
    calls.clear()
    assert _run("check", "--format", "jsonl", *paths).stdout == cut.stdout == whole.stdout
    assert calls == [2] * (len(paths) // 2) + ([len(paths) % 2] if len(paths) % 2 else [])

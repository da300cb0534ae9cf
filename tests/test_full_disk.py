"""Writing when the disk is full: one line naming the file and the system's reason, exit 2, and what is on disk
whole (synth: whole case lines; gen: whole case folders that its manifest lists).

A full disk needs a small filesystem, which a test cannot mount without root; a file size limit (RLIMIT_FSIZE,
set in the child before it starts) stands in for one: a write past the limit fails with EFBIG ("File too large")
as a write on a full disk fails with ENOSPC, after a short write, as on a disk that fills up (Python ignores the
SIGXFSZ the kernel sends with it).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")

ROOT = Path(__file__).resolve().parents[1]


def limited(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def run(tmp_path: Path, limit: int, *argv: str, stdout: Path | None = None,
        unbuffered: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open(stdout or os.devnull, "wb") as out:
        got = subprocess.run([sys.executable, "-m", "ascverify", *argv], cwd=tmp_path, stdout=out,
                             stderr=subprocess.PIPE, text=True, timeout=300, preexec_fn=limited(limit), env=env)
    return got


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
def test_results_redirected_onto_a_full_disk_are_an_error_not_cut_short(tmp_path, unbuffered):
    # `rules` prints about 15 KB at once; 4 KB fit. With PYTHONUNBUFFERED (many container images set it) Python's
    # text layer wrote what the file took and dropped the rest: the file was cut short and the exit status 0.
    whole = subprocess.run([sys.executable, "-m", "ascverify", "rules", "BilinearInterpolation"], cwd=tmp_path,
                           capture_output=True, timeout=300).stdout
    assert len(whole) > 8192
    out = tmp_path / "rules.txt"
    got = run(tmp_path, 4096, "rules", "BilinearInterpolation", stdout=out, unbuffered=unbuffered)
    assert got.returncode == 2, got
    assert got.stderr == "ascverify: standard output: cannot write: File too large\n"
    assert whole.startswith(out.read_bytes())  # what is there is the start of the result, not garbage


def test_synth_to_a_file_that_fills_up_keeps_whole_lines(tmp_path):
    out = tmp_path / "cases.jsonl"
    got = run(tmp_path, 3000, "synth", "BlockReduceMin", "-p", "atlas-a2", "-n", "200", "-o", str(out))
    assert got.returncode == 2, got
    assert got.stderr.splitlines()[-1] == f"ascverify: {out}: -o: cannot write: File too large", got.stderr
    text = out.read_bytes()
    assert 0 < len(text) <= 3000 and text.endswith(b"\n")  # cut back to the last whole line
    for line in text.decode().splitlines():
        assert json.loads(line)["api"] == "BlockReduceMin"


def test_gen_into_a_folder_that_fills_up_keeps_whole_cases(tmp_path):
    d = tmp_path / "cases"
    got = run(tmp_path, 20_000, "gen", "BilinearInterpolation", "-p", "atlas-a2", "-n", "50", "-o", str(d))
    assert got.returncode == 2, got
    last = got.stderr.splitlines()[-1]
    assert last.startswith(f"ascverify: {d}/case_") and last.endswith("cannot write: File too large"), got.stderr
    doc = json.loads((d / "manifest.json").read_text())
    assert doc["complete"] is False and len(doc["cases"]) < 50
    on_disk = sorted(p.name for p in d.iterdir() if p.is_dir())
    assert on_disk == sorted(c["case_name"] for c in doc["cases"])  # no half-written case folder left
    for c in doc["cases"]:
        json.loads((d / c["case_file"]).read_text())


def test_a_temporary_folder_the_disk_cannot_take_names_the_output_folder(tmp_path, monkeypatch):
    # the owner marker is the first file of a case folder: on a full disk its write fails on close, with an
    # error that names no file (the command said "cannot write or read" without a name)
    import errno
    import pathlib

    from ascverify.engines.outputs import OWNER_FILE, OutputError, owned_temp_dir

    real = pathlib.Path.write_text

    def full_disk(self, *a, **k):
        if self.name == OWNER_FILE:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(pathlib.Path, "write_text", full_disk)
    with pytest.raises(OutputError) as got:
        owned_temp_dir(tmp_path, ".case_0000.tmp-")
    assert got.value.line() == f"{tmp_path}: cannot write: No space left on device"
    assert list(tmp_path.iterdir()) == []  # the folder it made is gone


def test_a_picture_on_a_full_standard_output_names_it(tmp_path):
    """show prints through rich: a full disk there said "cannot write or read" without naming what."""
    out = tmp_path / "map.txt"
    got = run(tmp_path, 100, "show", str(ROOT / "examples" / "bad" / "bad.json"), stdout=out)
    assert got.returncode == 2, got
    assert got.stderr == "ascverify: standard output: cannot write: File too large\n"


def test_a_finding_line_lost_on_a_full_standard_output_is_an_error(tmp_path):
    """fuzz wrote its finding lines ignoring errors: a full standard output lost them and the campaign ended with
    exit status 1 and no word of it. The finding is saved all the same; the command names standard output and exits
    2. The stream is a file already near the size limit, so that the finding's own files (new files, smaller than
    the limit) are still written."""
    limit = 1 << 16
    out = tmp_path / "results.txt"
    out.write_bytes(b"x" * (limit - 10))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open(out, "ab") as stream:
        got = subprocess.run([sys.executable, "-m", "ascverify", "fuzz", "BilinearInterpolation", "-p", "atlas-a2",
                              "--target", f"{ROOT / 'examples' / 'targets' / 'bilinear_buggy.py'}:bilinear",
                              "--examples", "50", "--seed", "1", "--findings", "F"],
                             cwd=tmp_path, stdout=stream, stderr=subprocess.PIPE, text=True, timeout=300,
                             preexec_fn=limited(limit), env=env)
    assert got.returncode == 2, got.stderr
    assert got.stderr.rstrip().endswith("ascverify: standard output: cannot write: File too large"), got.stderr
    assert "1 finding (1 new)" in got.stderr
    (saved,) = [p for p in (tmp_path / "F").iterdir() if not p.name.startswith(".")]
    assert (saved / "finding.json").is_file()

"""Issue 13, outputs: what a case file can make `run` and `gen` write or delete, and environment errors.

Case files come from other people: their tensor names must not steer writes out of `-o DIR`; `run` and
`gen` must not overwrite the case's own files or delete anything they did not write; a full disk, a
read-only folder, a name too long or a folder where a file should be is exit status 2 in one line.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def invoke(*argv: str):
    return CliRunner().invoke(main, [str(a) for a in argv])


def one_line_error(r) -> str:
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    return lines[0]


def program(names: tuple[str, str]) -> dict:
    x, z = names
    return {"product": "atlas-a2", "dtype": "half",
            "tensors": {x: {"position": "VECIN", "addr": 0, "size": 128},
                        z: {"position": "VECOUT", "addr": 512, "size": 16}},
            "calls": [{"api": "set_vector_mask", "args": {"mask": [255, 0]}},
                      {"api": "block_reduce_min",
                       "args": {"repeat": 1, "mask": "MASK_PLACEHOLDER", "dst_rep_stride": 1, "src_blk_stride": 1,
                                "src_rep_stride": 8, "is_set_mask": False},
                       "tensors": {"dst": z, "src": x}}]}


# -- item 1: tensor names are plain names; writes stay in -o -----------------------------------------------------------

@pytest.mark.parametrize("kind", ["relative", "absolute", "newline"])
def test_program_tensor_names_that_are_paths_are_refused(tmp_path, kind):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "weights.npy").write_bytes(b"precious")
    name = {"relative": "../../victim/weights", "absolute": str(victim / "weights"), "newline": "z\nFORGED"}[kind]
    case = tmp_path / "cases" / "prog.json"
    case.parent.mkdir()
    case.write_text(json.dumps(program(("x", name))))

    r = invoke("check", case)
    assert r.exit_code == 2, r.output
    line, summary = r.stderr.strip().splitlines()
    assert line.startswith(f"{case}:case 0: tensors.") and "not a plain name" in line and "unreadable" in summary
    out = tmp_path / "cases" / "out" / "deeper"
    r = invoke("run", case, "-o", out)
    assert r.exit_code == 2, r.output
    assert "not a plain name" in one_line_error(r)
    assert (victim / "weights.npy").read_bytes() == b"precious"
    assert sorted(p.name for p in victim.iterdir()) == ["weights.npy"]


def test_a_plain_program_tensor_name_still_runs(tmp_path):
    case = tmp_path / "prog.json"
    case.write_text(json.dumps(program(("x_in", "z.out-1"))))
    r = invoke("run", case, "-o", tmp_path / "out")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "out" / "z.out-1.npy").is_file()


def test_confined_refuses_escapes_and_symlinked_folders(tmp_path):
    from ascverify.cases.safe_names import EscapeError, confined

    root = tmp_path / "out"
    root.mkdir()
    (root / "link").symlink_to(tmp_path)
    assert confined(root, "a.npy") == root / "a.npy"
    assert confined(root, "inputs/a.bin") == root / "inputs" / "a.bin"
    for bad in ("../a.npy", "/etc/passwd", "link/a.npy", "inputs/../../a", ""):
        with pytest.raises(EscapeError):
            confined(root, bad)


# -- item 3: run -o never overwrites the case's files nor deletes what it did not write ---------------------------------

def _case_folder(tmp_path: Path) -> Path:
    d = tmp_path / "case"
    d.mkdir()
    shutil.copy(EXAMPLES / "bilinear_interpolation.json", d / "case.json")
    shutil.copy(EXAMPLES / "bilinear_src0.npy", d / "src0.npy")
    doc = json.loads((d / "case.json").read_text())
    doc["tensors"]["src0"]["data"] = "src0.npy"
    (d / "case.json").write_text(json.dumps(doc))
    return d


def test_run_into_the_case_folder_neither_overwrites_nor_deletes_its_data(tmp_path, monkeypatch):
    d = _case_folder(tmp_path)
    before = (d / "src0.npy").read_bytes()
    monkeypatch.chdir(d)
    r = invoke("run", "case.json", "-o", ".")
    assert r.exit_code == 2, r.output
    assert "is not empty" in one_line_error(r) and "--force" in r.stderr
    r = invoke("run", "case.json", "-o", ".", "--force")
    assert r.exit_code == 2, r.output
    line = one_line_error(r)
    assert "src0.npy" in line and "would overwrite the data of tensor src0" in line
    assert (d / "src0.npy").read_bytes() == before
    assert sorted(p.name for p in d.iterdir()) == ["case.json", "src0.npy"]  # nothing written half way

    # a case that is not executed (a type rule broken): its data file is not deleted as a "stale output"
    doc = json.loads((d / "case.json").read_text())
    doc["args"]["hRepeat"] = 1 << 40
    (d / "case.json").write_text(json.dumps(doc))
    r = invoke("run", "case.json", "-o", ".", "--force")
    assert (d / "src0.npy").read_bytes() == before, r.output


def test_run_replaces_only_what_an_earlier_run_listed(tmp_path):
    out = tmp_path / "out"
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "run.json").read_text())
    assert doc["format"] == "ascverify-run/1" and "dst.npy" in doc["files"] and "run.json" in doc["files"]
    (out / "notes.txt").write_text("mine")
    (out / "extra.npy").write_bytes(b"mine too")
    # another API in the same folder: the earlier run's tensors go, the user's files stay
    r = invoke("run", EXAMPLES / "program_block_reduce_min.json", "-o", out)
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["extra.npy", "notes.txt", "run.json", "x.bin", "x.npy", "z.bin", "z.npy", "z.unspecified.npy"]
    assert (out / "notes.txt").read_text() == "mine" and (out / "extra.npy").read_bytes() == b"mine too"


def test_run_refuses_a_file_in_the_way_that_it_did_not_write(tmp_path):
    out = tmp_path / "out"
    assert invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out).exit_code == 0
    (out / "dst.npy").unlink()
    doc = json.loads((out / "run.json").read_text())
    doc["files"].remove("dst.npy")
    (out / "run.json").write_text(json.dumps(doc))
    (out / "dst.npy").write_bytes(b"someone else's")
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)
    assert r.exit_code == 2 and "dst.npy" in one_line_error(r) and "not written by ascverify" in r.stderr
    assert (out / "dst.npy").read_bytes() == b"someone else's"
    assert invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out, "--force").exit_code == 0
    assert np.load(out / "dst.npy").shape == (256,)


def test_a_crafted_manifest_cannot_delete_outside_the_folder_or_other_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "victim.npy").write_bytes(b"precious")
    (out / "notes.txt").write_text("mine")
    (out / "run.json").write_text(json.dumps({"format": "ascverify-run/1",
                                              "files": ["../victim.npy", str(tmp_path / "victim.npy"), "notes.txt"]}))
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "victim.npy").read_bytes() == b"precious" and (out / "notes.txt").read_text() == "mine"


# -- item 3: gen -o ---------------------------------------------------------------------------------------------------

def gen(out: Path, n: int = 3, *extra: str):
    return invoke("gen", "SetVectorMask", "--product", "atlas-a2", "-n", str(n), "--seed", "1", "-o", out, *extra)


def test_gen_refuses_a_folder_of_someone_else_and_deletes_nothing_of_theirs(tmp_path):
    out = tmp_path / "cases"
    (out / "case_0007").mkdir(parents=True)
    (out / "case_0007" / "mine.txt").write_text("mine")
    (out / ".hidden").mkdir()
    (out / ".case_notes").mkdir()
    r = gen(out)
    assert r.exit_code == 2 and "is not empty" in one_line_error(r)
    r = gen(out, 3, "--force")
    assert r.exit_code == 0, r.output
    assert (out / "case_0007" / "mine.txt").read_text() == "mine"
    assert (out / ".hidden").is_dir() and (out / ".case_notes").is_dir()
    r = gen(out, 10, "--force")  # case_0007 is in the way: refused, nothing of it deleted
    assert r.exit_code == 2 and "case_0007" in one_line_error(r)
    assert (out / "case_0007" / "mine.txt").read_text() == "mine"


def test_gen_again_keeps_files_a_user_put_into_its_case_folders(tmp_path):
    out = tmp_path / "cases"
    assert gen(out, 5).exit_code == 0
    (out / "case_0001" / "notes.txt").write_text("mine")
    (out / "case_0004" / "notes.txt").write_text("mine too")
    (out / ".case_notes").mkdir()
    r = gen(out, 3)
    assert r.exit_code == 2 and "case_0001/notes.txt" in one_line_error(r)
    assert (out / "case_0001" / "notes.txt").read_text() == "mine"
    (out / "case_0001" / "notes.txt").unlink()
    r = gen(out, 3)  # case_0003 goes whole; case_0004 keeps the user's file (and only that)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == [".case_notes", "case_0000", "case_0001", "case_0002", "case_0004",
                                                     "manifest.json"]
    assert [p.name for p in (out / "case_0004").iterdir()] == ["notes.txt"]
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["format"] == "ascverify-gen/1" and "case_0000/case.json" in doc["files"]


# -- item 14: environment errors are exit 2, one line naming the path and the OS error -----------------------------------

def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_run_on_a_full_disk_is_exit_2(tmp_path, monkeypatch):
    monkeypatch.setattr(np, "save", _enospc)
    out = tmp_path / "out"
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)
    assert r.exit_code == 2, r.output
    line = one_line_error(r)
    assert str(out) in line and "No space left on device" in line


def test_gen_on_a_full_disk_is_exit_2(tmp_path, monkeypatch):
    import ascverify.engines.gen.output as output

    monkeypatch.setattr(output, "_write_case_dir", _enospc)
    out = tmp_path / "cases"
    r = gen(out)
    assert r.exit_code == 2, r.output
    assert str(out / "case_0000") in r.stderr and "No space left on device" in r.stderr and "Traceback" not in r.output


def test_run_into_a_path_below_a_file_is_exit_2(tmp_path):
    (tmp_path / "file").write_text("x")
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", tmp_path / "file" / "out")
    assert r.exit_code == 2 and str(tmp_path / "file") in one_line_error(r)


def _tiny_campaign(tmp_path: Path, *extra: str):
    return invoke("fuzz", "SetVectorMask", "-p", "atlas-a2", "--kind", "invariants", "--examples", "2", "--seed", "1",
                  "--findings", tmp_path / "findings", "--no-coverage", *extra)


@pytest.mark.parametrize("where, words", [
    ("folder", "is a folder"),
    ("below-a-file", "is not a folder"),
    ("too-long", "too long"),
], ids=["existing-folder", "below-a-file", "name-too-long"])
def test_fuzz_reports_that_cannot_be_written_are_exit_2(tmp_path, where, words):
    (tmp_path / "file").write_text("x")
    path = {"folder": tmp_path, "below-a-file": tmp_path / "file" / "r.json",
            "too-long": tmp_path / ("r" * 300 + ".json")}[where]
    for option in ("--report", "--junit"):
        r = _tiny_campaign(tmp_path, option, path)
        assert r.exit_code == 2, r.output
        line = one_line_error(r)
        assert option in line and words in line


def test_fuzz_on_a_full_disk_keeps_the_finding(tmp_path, monkeypatch):
    import ascverify.engines.fuzz.reproducers as reproducers

    monkeypatch.setattr(reproducers, "_write_arrays", _enospc)
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "report.json"
    r = invoke("fuzz", "BlockReduceMin", "-p", "atlas-a2", "--target-cmd", "sh -c 'exit 3'", "--examples", "1",
               "--no-shrink", "--seed", "1", "--findings", tmp_path / "findings", "--no-coverage", "--report", report)
    assert r.exit_code == 2, r.output
    assert "No space left on device" in r.stderr and str(tmp_path / "findings") in r.stderr
    full = [json.loads(line.split("fuzz: finding: ", 1)[1]) for line in r.stderr.splitlines()
            if line.startswith("fuzz: finding: ")]
    assert full and full[0]["case"]["api"] == "BlockReduceMin" and full[0]["key"] == "differential.crash"
    assert isinstance(full[0]["seed"], int) and full[0]["finding"]["target"]["spec"] == "sh -c 'exit 3'"
    doc = json.loads(report.read_text())
    assert doc["findings"] and doc["findings"][0]["unsaved"] and doc["findings"][0]["case"] == full[0]["case"]
    assert not [p for p in (tmp_path / "findings").iterdir() if p.name.startswith(".tmp-")]


# -- item 16: file names are printed on one line ------------------------------------------------------------------------

def test_run_and_gen_print_a_folder_name_with_a_newline_on_one_line(tmp_path):
    out = tmp_path / "out\nFORGED: fixed"
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", out)
    assert r.exit_code == 0, r.output
    assert not any(line.startswith("FORGED") for line in r.output.splitlines()), r.output
    assert "out\\nFORGED: fixed" in r.stderr
    r = gen(tmp_path / "cases\nFORGED: fixed", 2)
    assert r.exit_code == 0, r.output
    assert not any(line.startswith("FORGED") for line in r.output.splitlines()), r.output
    assert r.stdout.strip().endswith("cases\\nFORGED: fixed/manifest.json")


def test_pictures_and_pages_print_a_file_name_with_a_newline_on_one_line(tmp_path):
    # show --svg/--png, gen --html and fuzz --html said "wrote NAME" with the name's newline and escape as they were
    name = "pic\nFORGED: fixed\x1b[2J"
    r = invoke("show", EXAMPLES / "bilinear_interpolation.json", "--svg", tmp_path / f"{name}.svg")
    assert r.exit_code == 0, r.output
    r2 = invoke("gen", "SetVectorMask", "-p", "atlas-a2", "-n", "1", "-o", tmp_path / "cases", "--html",
                tmp_path / f"{name}.html")
    assert r2.exit_code == 0, r2.output
    r3 = invoke("fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "1", "--database", "none",
                "--findings", tmp_path / "findings", "--html", tmp_path / f"{name}-fuzz.html")
    assert r3.exit_code == 0, r3.output
    for got in (r, r2, r3):
        assert "\x1b" not in got.stderr and not any(line.startswith("FORGED") for line in got.stderr.splitlines())
    assert "pic\\nFORGED: fixed\\x1b[2J.svg" in r.stderr
    assert "pic\\nFORGED: fixed\\x1b[2J.html" in r2.stderr and "pic\\nFORGED: fixed\\x1b[2J-fuzz.html" in r3.stderr


def test_a_findings_folder_whose_name_is_not_utf8_takes_the_finding_and_the_page(tmp_path):
    """A finding's diff.txt names its folder; with name bytes that are not UTF-8 writing it was an internal error (and
    so was the campaign's HTML page, which lists the findings)."""
    folder = os.fsencode(tmp_path)
    r = subprocess.run([sys.executable, "-m", "ascverify", "fuzz", "BilinearInterpolation", "-p", "atlas-a2",
                        "--target", f"{EXAMPLES / 'targets' / 'bilinear_buggy.py'}:bilinear", "--examples", "60",
                        "--seed", "3", "--database", "none", "-q", "--findings", b"found\xff", "--html", b"page.html"],
                       cwd=folder, capture_output=True, timeout=300)
    assert r.returncode == 1, r.stderr  # a finding, saved
    assert b"internal error" not in r.stderr and b"Error" not in r.stderr, r.stderr
    (finding,) = [p for p in os.listdir(os.path.join(folder, b"found\xff")) if not p.startswith(b".")]
    diff = open(os.path.join(folder, b"found\xff", finding, b"diff.txt"), "rb").read().decode("utf-8")
    assert "found\\udcff/" in diff  # the name's byte, escaped
    page = (tmp_path / "page.html").read_bytes().decode("utf-8")
    assert "found" in page and page.rstrip().endswith("</html>")


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "sarif"])
def test_file_names_that_are_not_utf8_are_shown_escaped(tmp_path, fmt):
    """A case file whose name's bytes are not UTF-8 (a name someone else chose) is checked and named with those
    bytes as \\xNN in every format: no internal error, the outputs stay valid UTF-8 and JSON."""
    folder = os.fsencode(tmp_path)
    bad_doc = json.loads((EXAMPLES / "block_reduce_max.json").read_text())
    bad_doc["tensors"]["dst"]["addr"] = 3  # misaligned: the case has findings to print
    with open(os.path.join(folder, b"case\xff.json"), "wb") as f:
        f.write(json.dumps(bad_doc).encode())
    r = subprocess.run([sys.executable, "-m", "ascverify", "check", "-v", "--format", fmt, b"case\xff.json"],
                       cwd=folder, capture_output=True, timeout=120)
    assert b"internal error" not in r.stderr, r.stderr
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")  # both are UTF-8 text
    assert r.returncode == 1, err
    if fmt == "text":
        assert out.startswith("case\\xff.json:case 0: "), out
    elif fmt == "json":
        assert json.loads(out)["results"][0]["file"] == "case\\xff.json"
    elif fmt == "jsonl":
        assert json.loads(out.splitlines()[0])["file"] == "case\\xff.json"
    else:
        uris = {a["location"]["uri"] for a in json.loads(out)["runs"][0]["artifacts"]}
        assert uris == {"case%FF.json"}  # the name's bytes, percent-encoded (RFC 3986)


# -- a file the user names on the command line: a device, a FIFO or a link there is written through ------------

#: Commands writing one file the user names, each with that file as the last argument.
NAMED_OUTPUTS = {
    "fuzz --report": ["fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "1", "-q", "--report"],
    "fuzz --junit": ["fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "1", "-q", "--junit"],
    "show --svg": ["show", str(EXAMPLES / "bilinear_interpolation.json"), "--svg"],
    "fix -o": ["fix", str(EXAMPLES / "bad" / "bilinear_overlap.json"), "-o"],
    # synth -o wrote one line, then "cannot write: Illegal seek" (it asked a FIFO for its position after each line)
    "synth -o": ["synth", "BlockReduceMin", "-p", "atlas-a2", "-n", "3", "-o"],
}


def _drain(fifo: Path, got: list) -> "threading.Thread":
    import threading

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("argv", list(NAMED_OUTPUTS.values()), ids=list(NAMED_OUTPUTS))
def test_a_fifo_or_a_link_the_user_names_is_written_through_never_replaced(tmp_path, monkeypatch, argv):
    """`--report /dev/null` as root turned /dev/null into a regular file (a temporary file renamed over it), and a
    link (`/dev/stdout`) became a file: what the user names is written as a shell redirection writes it. Shown here
    with a FIFO and links in a temporary folder, which the code before replaced the same way."""
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _drain(fifo, got)
    r = invoke(*argv, fifo)
    reader.join(10)
    assert r.exit_code in (0, 1), r.output
    assert fifo.is_fifo() and got and got[0], "the FIFO was replaced, or nothing came through it"
    target = tmp_path / "real.out"
    link = tmp_path / "link.out"
    link.symlink_to(target.name)
    r = invoke(*argv, link)
    assert r.exit_code in (0, 1), r.output
    assert link.is_symlink() and target.stat().st_size > 0, "the link was replaced by a file"


@pytest.mark.parametrize("argv", list(NAMED_OUTPUTS.values()), ids=list(NAMED_OUTPUTS))
def test_a_socket_the_user_names_is_not_written(tmp_path, monkeypatch, argv):
    """A socket (like a block device: neither is a file a shell redirection writes) is refused before the work: a
    fuzz campaign ran to its end and synth opened the device before they said so."""
    import socket

    monkeypatch.chdir(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("s.sock")
        r = invoke(*argv, "s.sock")
        assert r.exit_code == 2 and "is a socket, not a file: nothing written" in one_line_error(r)
        assert (tmp_path / "s.sock").is_socket()
        assert "fuzz: [1/" not in r.output and "synth:" not in r.output  # refused before the campaign / search
    finally:
        sock.close()


@pytest.mark.parametrize("argv, first, second", [
    (["fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "1", "-q", "--database", "none", "--report", "OUT",
      "--junit", "LINK"], "--report", "--junit"),
    (["fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "1", "-q", "--database", "none", "--junit", "OUT",
      "--html", "LINK"], "--junit", "--html"),
    (["show", str(EXAMPLES / "bilinear_interpolation.json"), "--svg", "OUT", "--png", "LINK"], "--svg", "--png"),
])
def test_two_outputs_naming_one_file_are_refused_before_anything_is_written(tmp_path, argv, first, second):
    # the second report replaced the first without a word (fuzz --report x --junit x left only the JUnit file); the
    # same file through a link is the same file
    out, link = tmp_path / "out.txt", tmp_path / "link.txt"
    out.write_text("kept\n")
    link.symlink_to(out)
    argv = [str(out) if a == "OUT" else str(link) if a == "LINK" else a for a in argv]
    r = invoke(*argv, *(["--findings", str(tmp_path / "findings")] if argv[0] == "fuzz" else []))
    assert r.exit_code == 2, r.output
    assert one_line_error(r) == f"ascverify: {link}: {second}: is also the file of {first}: give each output its own file"
    assert out.read_text() == "kept\n"


def test_every_report_may_go_to_dev_null(tmp_path):
    r = invoke("fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "1", "-q", "--database", "none",
               "--findings", tmp_path / "findings", "--report", os.devnull, "--junit", os.devnull, "--html", os.devnull)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("given", ["option", "file"])
def test_a_report_over_the_campaign_file_is_refused(tmp_path, monkeypatch, given):
    # `fuzz --config c.toml --report c.toml` (or `report = "c.toml"` inside it) wrote the JSON report over the campaign
    monkeypatch.chdir(tmp_path)
    text = 'apis = ["SetVectorMask"]\nexamples = 1\nfindings = "found"\n' + ('report = "c.toml"\n' if given == "file" else "")
    (tmp_path / "c.toml").write_text(text)
    r = invoke("fuzz", "--config", "c.toml", "-p", "atlas-a2", "--database", "none", "-q",
               *(["--report", "c.toml"] if given == "option" else []))
    assert r.exit_code == 2, r.output
    assert one_line_error(r) == "ascverify: c.toml: --report: is also the file of --config: give each output its own file"
    assert (tmp_path / "c.toml").read_text() == text


@pytest.mark.parametrize("argv", [NAMED_OUTPUTS["fuzz --report"], NAMED_OUTPUTS["synth -o"]], ids=["fuzz", "synth"])
def test_a_block_device_the_user_names_is_refused_before_the_work(tmp_path, monkeypatch, argv):
    """docs/security.md: a block device is refused (exit 2). synth opened it and wrote a case; fuzz ran its whole
    campaign first. Needs the right to make a device node (root): skipped elsewhere."""
    monkeypatch.chdir(tmp_path)
    try:
        os.mknod("disk", 0o600 | stat.S_IFBLK, os.makedev(7, 200))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a block device here: {exc}")
    r = invoke(*argv, "disk")
    assert r.exit_code == 2 and "is a block device, not a file: nothing written" in one_line_error(r)
    assert "fuzz: [1/" not in r.output and "synth:" not in r.output

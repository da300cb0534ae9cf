"""Issue 13, targets and findings: what a target or a finding folder of someone else's can make ascverify do.

A finding folder names a command to run (never run without asking); a target's output is captured with a
bound and never reaches the campaign's own output; its answer is size-checked before it is read or sent;
names it returns stay inside the findings folder; credentials never print; temporary folders a killed
campaign left are cleaned; finding folders are private.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cli import main

CRASH = ("--target-cmd", "sh -c 'exit 3'")


def invoke(*argv: object):
    return CliRunner().invoke(main, [str(a) for a in argv])


def campaign(tmp_path: Path, *target: str, findings: Path | None = None, extra: tuple[str, ...] = ()):
    """A tiny differential campaign (BlockReduceMin on atlas-a2, one example, no shrinking)."""
    return invoke("fuzz", "BlockReduceMin", "-p", "atlas-a2", *target, "--examples", "1", "--no-shrink", "--seed", "1",
                  "--findings", findings or tmp_path / "findings", "--no-coverage", *extra)


def folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


# -- item 2: replay never runs the recorded target unless asked ---------------------------------------------------------

def test_replay_does_not_run_the_command_a_finding_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pwned = tmp_path / "PWNED"
    r = campaign(tmp_path, "--target-cmd", f"touch {pwned}; exit 3")
    assert r.exit_code == 1, r.output
    (f,) = folders(tmp_path / "findings")
    pwned.unlink()

    r = invoke("replay", f)
    assert r.exit_code == 2, r.output
    assert not pwned.exists()
    assert "--recorded-target" in r.stderr and "--target-cmd" in r.stderr and "Traceback" not in r.output

    r = invoke("replay", f, "--target-cmd", "sh -c 'exit 4'")  # the target given runs instead
    assert r.exit_code == 1 and "exit status 4" in r.stdout and not pwned.exists(), r.output

    r = invoke("replay", f, "--recorded-target")
    assert r.exit_code == 1, r.output
    assert f"running the recorded target: the shell command 'touch {pwned}; exit 3'" in r.stderr
    assert pwned.exists()


def test_replay_does_not_import_the_python_file_a_finding_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.py").write_text("import pathlib\npathlib.Path('IMPORTED').touch()\n"
                                   "def f(case, inputs):\n    raise RuntimeError('no')\n")
    r = campaign(tmp_path, "--target", "t.py:f")
    assert r.exit_code == 1, r.output
    (f,) = folders(tmp_path / "findings")
    (tmp_path / "IMPORTED").unlink()
    r = invoke("replay", f)
    assert r.exit_code == 2 and not (tmp_path / "IMPORTED").exists(), r.output
    assert "the Python function 't.py:f'" in r.stderr


@pytest.mark.parametrize("field, value, words", [
    ("timeout", 2**31, "timeout: expected seconds, more than 0 and at most 86400"),
    ("timeout", "10", "timeout: expected seconds"),
    ("tolerance_overrides", {"error_ratio": "A1"}, "tolerance_overrides.error_ratio: expected null or a finite "
                                                    "number from 0 to 1"),
    ("tolerance_overrides", {"rtol": [1]}, "tolerance_overrides.rtol: expected null or a finite number at least 0"),
    ("tolerance_overrides", {"atol": -1}, "tolerance_overrides.atol"),
    ("tolerance_overrides", {"exact": "yes"}, "tolerance_overrides.exact: expected true or false"),
    ("tolerance_overrides", [], "tolerance_overrides: expected an object"),
])
def test_replay_reads_a_findings_numbers_as_input(tmp_path, monkeypatch, field, value, words):
    """A finding folder is someone else's: its timeout and tolerances were read unchecked (a sweep of edited
    finding.json files: 'Unknown format code' and 'timeout is too large' internal errors). Each is bad input now,
    naming the file and the field, before any target runs."""
    monkeypatch.chdir(tmp_path)
    r = campaign(tmp_path, *CRASH)
    (f,) = folders(tmp_path / "findings")
    meta = json.loads((f / "finding.json").read_text())
    meta[field] = value
    (f / "finding.json").write_text(json.dumps(meta))
    r = invoke("replay", f, "--target-cmd", "sh -c 'exit 4'")
    assert r.exit_code == 2 and "internal error" not in r.stderr, r.output
    assert r.stderr.splitlines()[0].startswith(f"ascverify: {f}/finding.json: {words}")


def test_a_timeout_beyond_a_day_is_bad_usage():
    r = invoke("fuzz", "BlockReduceMin", "-p", "atlas-a2", *CRASH, "--timeout", "1e10")
    assert r.exit_code == 2 and "--timeout" in r.stderr and "0.001<=x<=86400" in r.stderr


# -- item 6: bounded captures and reads ---------------------------------------------------------------------------------

def _peak(fn) -> tuple[object, int]:
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_command_targets_output_is_captured_with_a_bound(tmp_path):
    from ascverify.engines.fuzz.targets import CommandTarget, TargetError

    t = CommandTarget("head -c 20000000 /dev/zero; head -c 20000000 /dev/zero | tr '\\0' x >&2; exit 3", cwd=str(tmp_path))

    def call():
        with pytest.raises(TargetError) as exc:
            t.run({"tensors": {}}, {}, {"dst": (np.dtype(np.float16), 16)}, 60)
        return exc.value

    err, peak = _peak(call)
    assert err.kind == "crash" and "exit status 3" in err.message and "xxxx" in err.message
    assert peak < 8 << 20, f"{peak} bytes held for 40 MB of output"


def test_an_output_file_larger_than_its_tensor_is_not_read(tmp_path):
    from ascverify.engines.fuzz.targets import Malformed, read_outputs

    with open(tmp_path / "dst.bin", "wb") as f:  # sparse: 300 MB that take no disk
        f.truncate(300 << 20)
    got, peak = _peak(lambda: read_outputs(tmp_path, {"dst": (np.dtype(np.float16), 16)}))
    assert isinstance(got["dst"], Malformed) and "314572800 bytes" in got["dst"].message and "32 bytes" in got["dst"].message
    assert peak < 8 << 20
    os.mkfifo(tmp_path / "fifo.bin")  # would block a reader forever
    got = read_outputs(tmp_path, {"fifo": (np.dtype(np.float16), 16)})
    assert isinstance(got["fifo"], Malformed) and "not a regular file" in got["fifo"].message


PY_TARGETS = '''
import os, sys
import numpy as np
def huge(case, inputs):
    return {"dst": np.zeros(20_000_000, np.uint8)}
def escape(case, inputs):
    return {"dst": np.full(16, 12345, np.float16), "../../../escape": np.zeros(4, np.uint8)}
def chatty(case, inputs):
    print("\\nFORGED: fixed \\x1b[2J\\x00")
    sys.stdout.flush()
    os.write(1, b"\\nFORGED-FD: fixed\\n")
    os.write(2, b"\\nFORGED-ERR: fixed\\n")
    raise RuntimeError("kaput")
'''


def test_an_oversized_python_answer_is_refused_before_it_is_sent(tmp_path):
    from ascverify.engines.fuzz.targets import Malformed, PythonTarget

    (tmp_path / "t.py").write_text(PY_TARGETS)
    with PythonTarget("t.py:huge", cwd=str(tmp_path)) as t:
        got = t.run({"tensors": {}}, {}, {"dst": (np.dtype(np.float16), 16)}, 60)
    assert isinstance(got["dst"], Malformed), type(got["dst"])
    assert "20000000 bytes" in got["dst"].message and "refused unsent" in got["dst"].message


# -- item 1 (a target's keys) -------------------------------------------------------------------------------------------

def test_keys_a_python_target_returns_cannot_write_outside_the_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.py").write_text(PY_TARGETS)
    findings = tmp_path / "a" / "findings"
    r = campaign(tmp_path, "--target", "t.py:escape", findings=findings)
    assert r.exit_code == 1, r.output
    assert not list(tmp_path.rglob("escape*"))
    (f,) = folders(findings)
    meta = json.loads((f / "finding.json").read_text())
    assert meta["key"] == "differential.protocol" and "'../../../escape'" in meta["message"]


# -- item 16: a target's output never mixes into the campaign's ---------------------------------------------------------

def test_a_python_targets_prints_do_not_reach_the_campaigns_output(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.py").write_text(PY_TARGETS)
    r = campaign(tmp_path, "--target", "t.py:chatty")
    assert r.exit_code == 1, r.output
    out, err = capfd.readouterr()
    seen = out + err + r.output
    assert "FORGED" not in seen.replace("\\nFORGED", "")  # only escaped, inside a finding line if at all
    assert not any(line.startswith("FORGED") for line in seen.splitlines())
    (f,) = folders(tmp_path / "findings")
    assert "kaput" in json.loads((f / "finding.json").read_text())["message"]


def test_control_characters_from_a_target_or_a_path_are_escaped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    findings = tmp_path / "x\nFORGED: fixed"
    r = campaign(tmp_path, "--target-cmd", "printf '\\033]0;pwned\\007\\000\\nFORGED: fixed\\n' >&2; exit 3",
                 findings=findings)
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(tmp_path / "x\\nFORGED: fixed")), lines
    assert "\x1b" not in r.output and "\x00" not in r.output and "\x07" not in r.output
    assert "\\x1b]0;pwned" in lines[0]


# -- item 17: credentials, temporaries, permissions ---------------------------------------------------------------------

@pytest.mark.parametrize("url", ["redis://admin:hunter2@127.0.0.1:1/0", "redis://:hunter2@127.0.0.1:1/0",
                                 "redis://127.0.0.1:1/0?password=hunter2"])
def test_a_redis_password_is_never_printed(tmp_path, url):
    r = invoke("fuzz", "--examples", "1", "--database", url, "--findings", tmp_path / "f")
    assert r.exit_code == 2 and "cannot reach" in r.stderr, r.output
    assert "hunter2" not in r.output and "***" in r.stderr


def test_a_redis_user_name_does_not_garble_the_message(tmp_path):
    """audit 16: the user name "u" was replaced everywhere, as a secret: "Connection ref***sed", "Val***eError". The
    password is still never printed."""
    r = invoke("fuzz", "--examples", "1", "--database", "redis://u:s3cret@127.0.0.1:1/0", "--findings", tmp_path / "f")
    assert r.exit_code == 2 and "s3cret" not in r.output
    assert "u:***@127.0.0.1" in r.stderr and "ref***sed" not in r.stderr and "cannot reach" in r.stderr


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temporary_finding_folders_of_ascverify_are_removed(tmp_path):
    findings = tmp_path / "findings"
    ours = findings / ".tmp-0123456789abcdef-k3j4h5g6"
    ours.mkdir(parents=True)
    (ours / "case.json").write_text("{}")
    marker = {"tool": "ascverify", "host": socket.gethostname(), "pid": _dead_pid(), "created": time.time() - 60}
    (ours / ".ascverify-owner").write_text(json.dumps(marker))
    running = findings / ".tmp-1111111111111111-abcdefgh"  # its writer still runs: kept
    running.mkdir()
    (running / ".ascverify-owner").write_text(json.dumps({**marker, "pid": os.getpid()}))
    unmarked = findings / ".tmp-2222222222222222-abcdefgh"  # no marker: not provably ours
    unmarked.mkdir()
    other = findings / ".tmp-notes"  # not our pattern
    other.mkdir()
    (other / ".ascverify-owner").write_text(json.dumps(marker))
    r = invoke("fuzz", "SetVectorMask", "-p", "atlas-a2", "--kind", "invariants", "--examples", "1",
               "--findings", findings, "--no-coverage")
    assert r.exit_code == 0, r.output
    assert not ours.exists() and running.is_dir() and unmarked.is_dir() and other.is_dir()
    assert (findings / ".examples").is_dir()


def test_an_owner_marker_that_is_not_a_file_is_not_read(tmp_path):
    """A folder that looks like a temporary one of ours, its marker a FIFO or a link to /dev/zero: the cleanup read
    it whole (MemoryError, an internal error; the FIFO blocked). Read bounded, regular files only: such a folder is
    not provably ours, so it is kept, and the campaign runs."""
    findings = tmp_path / "findings"
    fifo = findings / ".tmp-3333333333333333-abcdefgh"
    zero = findings / ".tmp-4444444444444444-abcdefgh"
    for d in (fifo, zero):
        d.mkdir(parents=True)
    os.mkfifo(fifo / ".ascverify-owner")
    (zero / ".ascverify-owner").symlink_to("/dev/zero")
    r = invoke("fuzz", "SetVectorMask", "-p", "atlas-a2", "--kind", "invariants", "--examples", "1",
               "--findings", findings, "--no-coverage")
    assert r.exit_code == 0, r.output
    assert fifo.is_dir() and zero.is_dir() and (fifo / ".ascverify-owner").is_fifo()


def test_finding_folders_are_private(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = campaign(tmp_path, *CRASH)
    assert r.exit_code == 1, r.output
    (f,) = folders(tmp_path / "findings")
    for d in [f, *(p for p in f.rglob("*") if p.is_dir())]:
        assert d.stat().st_mode & 0o777 == 0o700, d
    assert {p.name for p in f.iterdir() if p.is_dir()} >= {"inputs", "expected"}
    assert not (f / ".ascverify-owner").exists()

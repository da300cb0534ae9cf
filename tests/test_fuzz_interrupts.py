"""Ctrl-C on a `fuzz --workers 2` campaign, as a terminal sends it: SIGINT to the whole process group, workers included.

- While the workers start (spawn: a fresh interpreter importing numpy and the fuzz engine) the signal must not print
  their tracebacks: workers ignore SIGINT from birth and stop when their parent tells them (found by the interrupt
  audit: 7 of 7 runs printed `KeyboardInterrupt` tracebacks from multiprocessing/spawn.py).
- Every finding folder the campaign wrote is in the --report JSON, the --junit XML and on standard output, and the
  items that ran are counted (the audit saw 2 folders, 1 finding in the report and "0/2 items, 0 cases").
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT / "examples" / "targets"
BUGGY = f"{TARGETS / 'bilinear_buggy.py'}:bilinear"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and /proc")


def _children(pid: int) -> list[str]:
    """Command lines of the live (not zombie) children of ``pid``."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            rest = stat[stat.rindex(b")") + 2:].split()
            if int(rest[1]) != pid or rest[0] == b"Z":
                continue
            out.append(Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace"))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _start(cwd: Path, target: list[str]) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "ascverify", "fuzz", "BilinearInterpolation", "-p", "atlas-a2", *target,
           "--workers", "2", "--seed", "1", "--time", "30", "--report", "r.json", "--junit", "r.xml",
           "--findings", "fd"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(cmd, cwd=cwd, stdout=(cwd / "out.txt").open("wb"), stderr=(cwd / "err.txt").open("wb"),
                            start_new_session=True, env=env)


def _wait_for(proc: subprocess.Popen, ready, timeout: float = 30.0) -> bool:
    """Poll ``ready()`` every millisecond; False when the campaign ended first or the timeout passed."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if ready():
            return True
        time.sleep(0.001)
    return False


def _interrupt_and_wait(proc: subprocess.Popen, timeout: float = 30.0) -> int:
    """Ctrl-C to the campaign's process group; its exit status (the group is killed if it hangs)."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError(f"the campaign did not end within {timeout} s of Ctrl-C")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of it may be left, whatever happened
        except ProcessLookupError:
            pass


def _summary_seconds(err: str) -> float:
    m = re.search(r"fuzz: interrupted; .*?, ([0-9.]+) s, seed", err)
    assert m, err[-2000:]
    return float(m.group(1))


def test_ctrl_c_while_workers_start_prints_no_traceback(tmp_path: Path) -> None:
    """A group SIGINT while the two workers (and their Python targets) import: exit 130, no traceback from any
    process, the stop prompt (not the 15 s grace of a worker that never answers) and a truthful elapsed time."""
    for i, delay in enumerate((0.0, 0.15, 0.4, 0.8)):
        cwd = tmp_path / str(i)
        cwd.mkdir()
        t0 = time.monotonic()
        proc = _start(cwd, ["--target", BUGGY])
        workers = _wait_for(proc, lambda: sum("spawn_main" in c for c in _children(proc.pid)) >= 2)
        assert workers, (cwd / "err.txt").read_text()
        time.sleep(delay)
        sent = time.monotonic()
        rc = _interrupt_and_wait(proc)
        ended = time.monotonic()
        err = (cwd / "err.txt").read_text()
        assert rc == 130, err[-2000:]
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, f"round {i} (delay {delay}):\n{err[-3000:]}"
        assert ended - sent < 10.0, f"round {i}: {ended - sent:.1f} s from Ctrl-C to exit\n{err[-2000:]}"
        assert _summary_seconds(err) <= ended - t0 + 0.5, err[-2000:]
        report = json.loads((cwd / "r.json").read_text())
        assert report["interrupted"] is True and report["exit_status"] == 130


def _finding_dirs(fd: Path) -> set[str]:
    return {p.name for p in fd.iterdir() if not p.name.startswith(".")} if fd.is_dir() else set()


def _saving(fd: Path) -> bool:
    """A finding is being saved (its temporary folder exists) or was saved."""
    try:
        return any(name.startswith(".tmp-") or not name.startswith(".") for name in os.listdir(fd))
    except OSError:
        return False


def test_every_saved_finding_is_reported_when_interrupted(tmp_path: Path) -> None:
    """Ctrl-C while (and soon after) a worker saves a finding: each finding folder is in the JSON report, the JUnit
    report and on standard output, and the items that found them are counted with their cases."""
    cmd = f"{sys.executable} {TARGETS / 'case_dir.py'} {BUGGY} {{dir}}"
    for i, delay in enumerate((0.0, 0.1)):
        cwd = tmp_path / str(i)
        cwd.mkdir()
        proc = _start(cwd, ["--target-cmd", cmd])
        found = _wait_for(proc, lambda: _saving(cwd / "fd"), timeout=35.0)
        assert found, (cwd / "err.txt").read_text()[-2000:]
        time.sleep(delay)
        rc = _interrupt_and_wait(proc)
        err = (cwd / "err.txt").read_text()
        assert rc == 130, err[-2000:]
        dirs = _finding_dirs(cwd / "fd")
        report = json.loads((cwd / "r.json").read_text())
        in_report = {Path(f["path"]).name for f in report["findings"]}
        assert in_report == dirs, f"round {i}: folders {sorted(dirs)}, report {sorted(in_report)}\n{err[-2000:]}"
        out = (cwd / "out.txt").read_text().splitlines()
        assert sorted(Path(line.split(":", 1)[0]).name for line in out) == sorted(dirs), out
        junit = ET.parse(cwd / "r.xml").getroot()
        text = ET.tostring(junit, encoding="unicode")
        assert all(d.rsplit("-", 1)[-1] in text for d in dirs), text[-2000:]
        items = {it["key"]: it for it in report["items"]}
        for f in report["findings"]:
            item = items[f["unit"]]
            assert item["status"] != "skipped" and item["cases"] >= 1, (f["unit"], item)
            assert f["id"] in item["findings"], (f["id"], item)
        m = re.search(r"fuzz: interrupted; (\d+)/2 items, (\d+) cases, (\d+) finding", err)
        assert m, err[-2000:]
        assert int(m.group(3)) == len(dirs) and int(m.group(2)) >= len(dirs) and int(m.group(1)) >= 1, m.group(0)

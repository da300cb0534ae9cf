"""A pipe's cases are checked as they come (README: "JSON Lines are read and checked as they come"): when the
writer pauses (a kernel's trace, a generator), the cases read so far are checked and their results written at once,
not when 65,536 cases or the end of the input have come (audit 22: nothing appeared before EOF, and SIGTERM during
the pause reported 0 cases of the 7 read)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = (ROOT / "examples" / "cases.jsonl").read_bytes()


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ascverify", "check", *args, "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT / "examples")


def _lines_within(proc: subprocess.Popen, n: int, seconds: float) -> list[bytes]:
    """The first ``n`` lines the process writes, read within ``seconds`` (fewer when it writes fewer)."""
    out, buf, end = [], b"", time.monotonic() + seconds
    fd = proc.stdout.fileno()
    while len(out) < n and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
        *done, buf = buf.split(b"\n")
        out += done
    return out


def test_the_cases_before_a_pause_are_reported_while_the_writer_waits():
    proc = _start("--format", "jsonl")
    try:
        proc.stdin.write(CASES)
        proc.stdin.flush()  # the pipe stays open: the writer pauses
        n = CASES.count(b"\n")
        got = _lines_within(proc, n, 60)
        assert [json.loads(line)["index"] for line in got] == list(range(n))
        rest, err = proc.communicate(CASES.split(b"\n", 1)[0] + b"\n", timeout=60)  # one more case, then the end
    finally:
        proc.kill()
    assert [json.loads(line)["index"] for line in rest.splitlines()] == [n]
    assert proc.returncode == 1 and f"{n + 1} cases" in err.decode()


def test_sigterm_during_a_pause_keeps_the_cases_read():
    """The JSON document written while the writer pauses holds every case sent; SIGTERM then closes it, valid and
    marked interrupted, with those cases (a busy machine may show the first cases before the rest arrive: the test
    waits until the last one is written)."""
    n = CASES.count(b"\n")
    proc = _start("--format", "json")
    try:
        proc.stdin.write(CASES)
        proc.stdin.flush()
        head, deadline = b"", time.monotonic() + 60
        while f'"index": {n - 1}'.encode() not in head and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout.fileno()], [], [], 0.2)
            if ready:
                head += os.read(proc.stdout.fileno(), 65536)
        assert f'"index": {n - 1}'.encode() in head, head[-300:]  # every case checked while the writer waits
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    doc = json.loads(head + out)
    assert proc.returncode == 130 and doc["summary"]["interrupted"] is True
    assert doc["summary"]["cases"] == n == len(doc["results"])

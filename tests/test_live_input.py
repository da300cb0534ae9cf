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
import threading
import time
from pathlib import Path

from ascverify.cases import bounded_read

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


LINES = CASES.splitlines(keepends=True)


def _wait_for(proc: subprocess.Popen, needle: bytes, seconds: float = 60) -> bytes:
    """What the process writes until ``needle`` appears in it (or ``seconds`` pass)."""
    got, end = b"", time.monotonic() + seconds
    while needle not in got and time.monotonic() < end:
        ready, _, _ = select.select([proc.stdout.fileno()], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            got += chunk
    return got


def test_a_lone_first_case_is_reported_while_the_writer_waits():
    """audit 23: the first line waited for a second one (to tell one document from JSON Lines); a case on the first
    line is case 0 either way."""
    proc = _start("--format", "jsonl")
    try:
        proc.stdin.write(LINES[2])
        proc.stdin.flush()
        got = _wait_for(proc, b"\n")
        assert json.loads(got)["index"] == 0
        rest, _ = proc.communicate(LINES[3], timeout=60)
    finally:
        proc.kill()
    assert [json.loads(line)["index"] for line in rest.splitlines()] == [1]


def test_a_case_before_the_start_of_the_next_line_is_reported_while_the_writer_waits():
    """audit 23: a complete line followed, in another read, by the start of the next one was held until that line
    ended (the read of the rest waited first)."""
    proc = _start("--format", "jsonl", "-p", "atlas-a2")  # moved to a product: the filter keeps the pauses too
    try:
        proc.stdin.write(LINES[0])
        proc.stdin.flush()
        first = _wait_for(proc, b"\n")
        proc.stdin.write(LINES[1])
        proc.stdin.flush()
        time.sleep(0.2)
        proc.stdin.write(LINES[5][:40])  # the start of a line, the rest to come
        proc.stdin.flush()
        second = _wait_for(proc, b'"index":1')
        assert b'"index":0' in first and b'"index":1' in second
        rest, _ = proc.communicate(LINES[5][40:], timeout=60)
    finally:
        proc.kill()
    assert [json.loads(line)["index"] for line in rest.splitlines()] == [2]


def test_sigterm_during_a_pause_keeps_the_cases_read_in_sarif_and_on_every_product():
    """audit 23: --format sarif and --product all wrote nothing while the writer waited and lost every case read on
    SIGTERM; now the same as the other formats."""
    n = len(LINES)
    whole = subprocess.run([sys.executable, "-m", "ascverify", "check", "--format", "sarif", "-"], input=CASES,
                           capture_output=True, cwd=ROOT / "examples", timeout=120)
    results = json.loads(whole.stdout)["runs"][0]["results"]
    expected, last = len(results), max(r["properties"]["caseIndex"] for r in results)  # (valid cases have none)
    for args, needle in ((("--format", "sarif"), b'"caseIndex": %d' % last),
                         (("--format", "json", "-p", "all"), b'"index": %d' % (n - 1))):
        proc = _start(*args)
        try:
            proc.stdin.write(CASES)
            proc.stdin.flush()
            head = _wait_for(proc, needle)
            assert needle in head, (args, head[-300:])
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=60)
        finally:
            proc.kill()
        doc = json.loads(head + out)
        assert proc.returncode == 130, args
        if args[1] == "sarif":
            assert len(doc["runs"][0]["results"]) == expected > 0
            assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False
        else:
            assert doc["summary"]["cases"] == n and doc["summary"]["interrupted"] is True


def test_shell_completion_after_a_repeated_option_completes():
    """audit 23: completing `check -p all -p atlas-a2 --for` raised the repeated-option usage error as a traceback."""
    env = dict(os.environ, _ASCVERIFY_COMPLETE="bash_complete", COMP_WORDS="ascverify check -p all -p atlas-a2 --for",
               COMP_CWORD="6")
    r = subprocess.run([sys.executable, "-m", "ascverify"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "--format" in r.stdout


def test_the_reader_hands_over_an_empty_block_before_a_read_that_waits(monkeypatch):
    """A complete line read in one block and the start of the next in another: before the read that would wait for
    the rest, the reader yields an empty block, so that its consumers deal with the complete line now (without it,
    the line waited for the writer's next write)."""
    r, w = os.pipe()
    first = LINES[0]
    monkeypatch.setattr(bounded_read, "BLOCK", len(first))  # the first read takes exactly the first line
    os.write(w, first + LINES[1][:40])                       # ... the second the start of the next, then nothing
    reader = bounded_read.LineReader(r, 1 << 30, "-")
    blocks = reader.line_blocks()
    assert next(blocks).lines == [first.rstrip(b"\n")]
    got: list = []
    step = threading.Thread(target=lambda: got.append(next(blocks)), daemon=True)
    step.start()
    step.join(10)
    try:
        assert got and got[0].lines == [], "the reader waited for the writer instead of handing over an empty block"
    finally:
        os.write(w, LINES[1][40:])
        os.close(w)
        step.join(10)
        os.close(r)

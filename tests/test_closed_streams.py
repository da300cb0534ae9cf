"""A command started with a standard stream closed (``>&-``, ``<&-``, ``2>&-`` in a shell; Python then has no
``sys.stdout``, ``sys.stdin`` or ``sys.stderr``): one line and exit status 2 where it has a stream to say it on, never
an internal error (it was "AttributeError: 'NoneType' object has no attribute 'write'", exit 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file descriptors")

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "examples" / "bad" / "bad.json"  # a case that breaks rules: check has results to print


def run(*argv: str, close: tuple[int, ...]) -> subprocess.CompletedProcess:
    """``python -m ascverify ARGV`` started with the descriptors ``close`` closed (0 stdin, 1 stdout, 2 stderr)."""
    def closing() -> None:
        import os
        for fd in close:
            os.close(fd)
    return subprocess.run([sys.executable, "-m", "ascverify", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, preexec_fn=closing)


def test_results_with_standard_output_closed_are_one_line_and_exit_2():
    got = run("check", str(BAD), close=(1,))
    assert got.returncode == 2, got
    assert got.stderr == "ascverify: standard output: cannot write: it is closed\n"


def test_reading_standard_input_that_is_closed_is_one_line_and_exit_2():
    got = run("check", "-", close=(0,))
    assert got.returncode == 2, got
    assert got.stderr.splitlines()[0] == "-: cannot read: standard input is closed", got.stderr
    got = run("fix", "-", close=(0,))
    assert got.returncode == 2 and got.stderr == "ascverify: -: cannot read: standard input is closed\n", got


def test_with_standard_error_closed_the_results_still_come_and_the_status_says_it():
    got = run("check", str(BAD), close=(2,))
    assert got.returncode == 1  # rules broken: the usual status, though the summary line had nowhere to go
    assert got.stdout.startswith(f"{BAD}:case 0: error: [bilinear.vROffset.range]"), got.stdout

"""Ctrl-C or SIGTERM in the middle of ``check --format json|sarif``, and a second Ctrl-C right after the first.

docs/cli.md: exit status 130 "whenever it comes; what was written stays written". A document on standard output
that the interrupt cut short would hold the results but no longer parse: an interrupted ``check`` closes it instead
(json: the summary counts the cases written and says ``"interrupted": true``; SARIF: the run's invocation is
unsuccessful, with a notification saying it was interrupted). And however many signals come, the program exits
with status 130: never killed by the signal.

The input is the lines of examples/cases.jsonl (with the data files they name) repeated about 150,000 times, so that
the first window of 65,536 cases is checked and written well before the end; the signal goes to the program's
process group as soon as the first results are on standard output (the file is polled, not timed).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from ascverify.engines import interrupts

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: Cases in the input: more than two windows of 65,536.
LINES = 150_000
#: Longest wait for the first results, then for the exit (seconds).
WAIT = 120.0


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSON Lines file of `LINES` cases (examples/cases.jsonl over and over), next to the data files they read."""
    folder = tmp_path_factory.mktemp("interrupted")
    for data in EXAMPLES.glob("*.npy"):
        shutil.copy(data, folder / data.name)
    lines = [line for line in (EXAMPLES / "cases.jsonl").read_text().splitlines() if line.strip()]
    path = folder / "big.jsonl"
    with path.open("w") as f:
        for k in range(0, LINES, len(lines)):
            f.write("\n".join(lines[:LINES - k]) + "\n")
    return path


def interrupted(args: list[str], cwd: Path, out: Path, signals: tuple[int, ...] = (signal.SIGINT,),
                gap: float = 0.05, ready: Callable[[Path], bool] | None = None) -> subprocess.CompletedProcess:
    """Run ``ascverify ARGS`` with standard output to ``out``; once the first results are there (or ``ready(err)``
    holds of its standard error's file), send ``signals`` to its process group, ``gap`` seconds apart; its exit
    status and standard error."""
    err = out.with_suffix(".err")
    started = ready or (lambda _err: out.stat().st_size > 0)
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "ascverify", *args], cwd=cwd, stdout=stdout, stderr=stderr,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + WAIT
            while not started(err):
                assert proc.poll() is None, f"ended before writing a result: {err.read_text()}"
                assert time.monotonic() < deadline, "no result written in time"
                time.sleep(0.02)
            for k, sig in enumerate(signals):
                if k:
                    time.sleep(gap)
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:  # already gone: its status says how
                    break
            code = proc.wait(WAIT)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return subprocess.CompletedProcess(args, code, "", err.read_text())


def check_json(text: str) -> dict[str, Any]:
    """The document of an interrupted ``check --format json``: valid, marked interrupted, its summary counting the
    results it holds, which are the first cases of the file in order (none missing before the last)."""
    doc = json.loads(text)
    results, summary = doc["results"], doc["summary"]
    assert summary["interrupted"] is True
    assert summary["exit_status"] == 130
    assert 0 < len(results) < LINES  # stopped after the first results were written, before the end
    assert summary["cases"] == len(results) == summary["valid"] + summary["invalid"] + summary["unreadable"]
    assert [r["index"] for r in results] == list(range(len(results)))
    return doc


def check_sarif(text: str) -> dict[str, Any]:
    """The log of an interrupted ``check --format sarif``: valid, its one run's invocation unsuccessful (exit status
    130, a notification that it was interrupted), each result pointing at a rule of the run."""
    log = json.loads(text)
    (run,) = log["runs"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["exitCode"] == 130
    notes = [n for n in invocation["toolExecutionNotifications"] if n["descriptor"]["id"] == "interrupted"]
    assert len(notes) == 1 and notes[0]["message"]["text"].startswith("interrupted (SIGINT)")
    assert run["results"]
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])
    assert max(r["properties"]["caseIndex"] for r in run["results"]) < LINES - 1
    return log


@pytest.mark.parametrize("workers", ["1", "2"])
def test_interrupted_json_is_a_valid_document_marked_interrupted(big, tmp_path, workers):
    out = tmp_path / "out.json"
    got = interrupted(["check", "--format", "json", "--workers", workers, big.name], big.parent, out)
    assert got.returncode == 130, got.stderr
    assert "Traceback" not in got.stderr
    assert got.stderr.endswith("ascverify: interrupted (SIGINT)\n")
    check_json(out.read_text())


def test_interrupted_sarif_is_a_valid_log_of_an_unsuccessful_run(big, tmp_path):
    out = tmp_path / "out.sarif"
    got = interrupted(["check", "--format", "sarif", big.name], big.parent, out)
    assert got.returncode == 130, got.stderr
    assert "Traceback" not in got.stderr
    check_sarif(out.read_text())


def test_interrupted_json_on_every_product_is_a_valid_document_marked_interrupted(big, tmp_path):
    out = tmp_path / "out.json"
    got = interrupted(["check", "--format", "json", "--product", "all", "--workers", "2", big.name], big.parent, out)
    assert got.returncode == 130, got.stderr
    doc = check_json(out.read_text())
    assert doc["summary"]["portable"] + doc["summary"]["not_portable"] + doc["summary"]["unreadable"] == \
        len(doc["results"])
    assert all("products" in r for r in doc["results"])


def test_interrupted_sarif_on_every_product_is_a_valid_log_of_an_unsuccessful_run(big, tmp_path):
    out = tmp_path / "out.sarif"
    got = interrupted(["check", "--format", "sarif", "--product", "all", big.name], big.parent, out)
    assert got.returncode == 130, got.stderr
    log = check_sarif(out.read_text())
    assert all(r["message"]["text"].startswith("on ") for r in log["runs"][0]["results"])


def test_sigterm_closes_the_json_document_too(big, tmp_path):
    out = tmp_path / "out.json"
    got = interrupted(["check", "--format", "json", big.name], big.parent, out, (signal.SIGTERM,))
    assert got.returncode == 130, got.stderr
    assert got.stderr.endswith("ascverify: interrupted (SIGTERM)\n")
    check_json(out.read_text())


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_second_ctrl_c_right_after_the_first_still_exits_130_with_a_valid_document(big, tmp_path, fmt):
    out = tmp_path / f"out.{fmt}"
    got = interrupted(["check", "--format", fmt, big.name], big.parent, out, (signal.SIGINT, signal.SIGINT))
    assert got.returncode == 130, got.stderr  # not -2: killed by the second SIGINT
    assert "Traceback" not in got.stderr
    (check_json if fmt == "json" else check_sarif)(out.read_text())


#: Runs ``ascverify check CASE`` the way the console script does (``ascverify.launch.main``); once the command has
#: ended, an exit handler registered by the command (as `multiprocessing` registers one to stop its pools) sends
#: SIGNAL to the program while Python exits.
EXITING = """
import atexit, os, signal, sys
SIG, CASE = getattr(signal, sys.argv[1]), sys.argv[2]
from ascverify.cli.common import AscverifyGroup
command = AscverifyGroup.invoke
def invoke(self, ctx):
    atexit.register(os.kill, os.getpid(), SIG)
    return command(self, ctx)
AscverifyGroup.invoke = invoke
import ascverify.launch
sys.argv = ["ascverify", "check", CASE]
ascverify.launch.main()
"""


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_python_exits_is_one_line_and_130(signal_name):
    got = subprocess.run([sys.executable, "-c", EXITING, signal_name, str(EXAMPLES / "bilinear_interpolation.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert got.returncode == 130, got
    assert "Traceback" not in got.stderr
    assert got.stderr.splitlines() == ["1 case: 1 valid, 0 invalid, 0 unreadable",
                                       f"ascverify: interrupted ({signal_name})"]


def test_two_ctrl_c_during_selftest_exit_130_and_keep_the_report(tmp_path):
    """The auditor's case: the second Ctrl-C 50 ms after the first came as Python exited, after it had reset the
    signals to their default action (killed by SIGINT, 5 runs of 5)."""
    report = tmp_path / "report.json"
    got = interrupted(["selftest", "--workers", "2", "--report", str(report)], ROOT, tmp_path / "out.txt",
                      (signal.SIGINT, signal.SIGINT), ready=lambda err: "selftest: " in err.read_text())  # an outcome
    assert got.returncode == 130, got.stderr
    assert "Traceback" not in got.stderr
    assert json.loads(report.read_text())["complete"] is False


def test_a_third_ctrl_c_stops_a_command_at_once():
    """The second signal of a stopping command is ignored (it would cut short what is written); a third is obeyed,
    so that a stop that hangs can still be ended from the keyboard."""
    with interrupts.command_signals():
        with pytest.raises(interrupts.Interrupted):
            interrupts._handler(signal.SIGINT, None)
        interrupts._handler(signal.SIGINT, None)  # the command is stopping: let pass
        with pytest.raises(interrupts.Interrupted):
            interrupts._handler(signal.SIGINT, None)

"""Ctrl-C and SIGTERM outside a command (`ascverify.launch`): while the program imports its modules (about a quarter
of a second) and after the command has ended, a signal ends it with one line and exit status 130, as during a
command (docs/cli.md: "130 interrupted, whenever it comes"), instead of a `KeyboardInterrupt` traceback (SIGINT)
or a silent death by the signal (SIGTERM).

The signal is sent by the program to itself at a chosen moment, so the tests do not depend on timing: an import
hook sends it when ``ascverify.cli`` starts to load; a wrapper of the command group's ``invoke`` sends it when the
command has ended.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"

#: Runs ``ascverify check EXAMPLE`` the way the console script does (``ascverify.launch.main``), sending SIGNAL to
#: itself when the module ``ascverify.cli`` starts to load (WHEN = "import") or when the command has ended ("exit";
#: "exit-ignored": the same with SIGNAL ignored, as a shell starts a background job).
PROGRAM = """
import importlib.abc, os, signal, sys
SIG, WHEN, CASE = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3]

class SignalOnImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "ascverify.cli" and WHEN == "import":
            os.kill(os.getpid(), SIG)
        return None

sys.meta_path.insert(0, SignalOnImport())
if WHEN == "exit-ignored":  # SIGNAL ignored by the caller, as a shell starts a background job
    signal.signal(SIG, signal.SIG_IGN)
if WHEN.startswith("exit"):  # the signal once the command has ended (its own handlers put back)
    from ascverify.cli.common import AscverifyGroup
    command = AscverifyGroup.invoke
    def invoke_then_signal(self, ctx):
        try:
            return command(self, ctx)
        finally:
            os.kill(os.getpid(), SIG)
    AscverifyGroup.invoke = invoke_then_signal
import ascverify.launch
sys.argv = ["ascverify", "check", CASE]
ascverify.launch.main()
"""


def run(signal_name: str, when: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROGRAM, signal_name, when, str(EXAMPLE)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_program_loads_is_one_line_and_130(signal_name):
    got = run(signal_name, "import")
    assert got.returncode == 130, got
    assert got.stderr == f"ascverify: interrupted ({signal_name})\n"
    assert got.stdout == ""  # nothing was checked: the command never started


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_after_the_command_is_one_line_and_130(signal_name):
    got = run(signal_name, "exit")
    assert got.returncode == 130, got
    assert "Traceback" not in got.stderr
    # the command's own output is all there (the example is valid: its summary line), then the one line
    assert got.stderr.splitlines() == ["1 case: 1 valid, 0 invalid, 0 unreadable",
                                       f"ascverify: interrupted ({signal_name})"]


def test_without_a_signal_the_program_runs_as_before():
    got = subprocess.run([sys.executable, "-c", "import sys, ascverify.launch\n"
                          f"sys.argv = ['ascverify', 'check', {str(EXAMPLE)!r}]\nascverify.launch.main()"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0 and got.stderr == "1 case: 1 valid, 0 invalid, 0 unreadable\n", got


def test_a_signal_the_caller_ignores_stays_ignored():
    # a shell starts a background job with SIGINT ignored: Ctrl-C at the terminal is not for it
    got = run("SIGINT", "exit-ignored")
    assert got.returncode == 0 and got.stderr == "1 case: 1 valid, 0 invalid, 0 unreadable\n", got

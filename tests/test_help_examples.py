"""Every example a command's help shows runs as shown: in a folder holding a copy of examples/ and ci/, from the
first command to the last (`ascverify --help`, then each command's help in the order of `ascverify --help`'s list,
so that `fuzz` writes the findings `replay` then reads), none ends in an internal error, a traceback or a program
that is not there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: Seconds one example may take (the longest, `lint` of every API, about 45).
TIMEOUT = 300


def help_text(*command: str) -> str:
    r = CliRunner().invoke(main, [*command, "--help"], terminal_width=200)
    assert r.exit_code == 0, r.output
    return r.output


def examples(text: str) -> list[str]:
    """The command lines of a help text's ``Examples:`` block (indented lines up to the first blank one)."""
    lines = text.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if line.strip() == "Examples:":
            for more in lines[i + 1:]:
                if not more.strip():
                    break
                out.append(more.strip())
    return out


def test_examples_are_found():
    assert examples("x\n  Examples:\n    ascverify a\n    ascverify b | c\n\n  ascverify not\n") == \
        ["ascverify a", "ascverify b | c"]


#: Commands whose examples read nothing another example writes and take long (`lint` of every API: about a minute):
#: run by a test of their own, which the suite's workers run beside the others.
ALONE = ("lint",)


@pytest.mark.parametrize("alone", [True, False], ids=["lint", "the others in order"])
def test_every_help_example_runs(tmp_path, alone):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "ci", tmp_path / "ci")
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")  # the ascverify installed here
    commands = [c.strip().split()[0] for c in help_text().split("Commands:")[1].strip().splitlines()]
    shown = [("ascverify", e) for e in examples(help_text())]
    shown += [(c, e) for c in commands for e in examples(help_text(c))]
    assert len(shown) > 40
    shown = [(c, e) for c, e in shown if (c in ALONE) == alone]
    assert shown
    problems = []
    for command, line in shown:
        r = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=TIMEOUT)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        if r.returncode not in (0, 1) or "Traceback" in out or "internal error" in out:
            problems.append(f"`ascverify {command} --help` shows `{line}`: exit {r.returncode}\n{out[-1500:]}")
    assert not problems, "\n\n".join(problems)

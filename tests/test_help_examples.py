"""Every example a command's help shows runs as shown: in a folder holding a copy of examples/ and ci/, one test per
command (`ascverify --help`'s own examples, then each command's, with `replay`'s after `fuzz`'s: they replay the
findings `fuzz` saved); none ends in an internal error, a traceback or a program that is not there, and `ascverify
lint` (every API) passes: CI's lint gate."""

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


def commands() -> list[str]:
    """The commands ``ascverify --help`` lists, in its order."""
    return [c.strip().split()[0] for c in help_text().split("Commands:")[1].strip().splitlines()]


#: Commands whose examples read what another command's examples wrote: run with that command's, after them
#: (`replay` replays the findings `fuzz` saved).
AFTER = {"replay": "fuzz"}

#: Each test runs the examples of one command (and of those run after it), so that the suite's workers share them
#: out: one test of them all took about 7 minutes on one worker under load.
GROUPS = ["ascverify", *(c for c in commands() if c not in AFTER)]

#: Commands whose every example must exit 0: the CI's gates (`ascverify lint` of every API is the lint gate: no
#: unexplained finding, no undecided query).
MUST_PASS = ("lint",)


def test_every_command_is_in_a_group():
    assert {*GROUPS, *AFTER} == {"ascverify", *commands()} and set(AFTER.values()) <= set(GROUPS)
    shown = [e for c in commands() for e in examples(help_text(c))]
    assert len(shown) > 40


@pytest.mark.parametrize("group", GROUPS)
def test_every_help_example_runs(tmp_path, group):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "ci", tmp_path / "ci")
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")  # the ascverify installed here
    if group == "ascverify":
        shown = [("ascverify", e) for e in examples(help_text())]
    else:
        members = [group, *(c for c, first in AFTER.items() if first == group)]
        shown = [(c, e) for c in members for e in examples(help_text(c))]
    assert shown, f"`ascverify {group} --help` shows no example"
    problems = []
    for command, line in shown:
        r = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=TIMEOUT)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        allowed = (0,) if command in MUST_PASS else (0, 1)
        if r.returncode not in allowed or "Traceback" in out or "internal error" in out:
            problems.append(f"`ascverify {command} --help` shows `{line}`: exit {r.returncode}\n{out[-1500:]}")
    assert not problems, "\n\n".join(problems)
